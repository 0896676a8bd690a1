package graph

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteFileFailureKeepsOldFile writes over an existing graph file with
// a write that fails (a nil graph, in plain and gzip form): the old file
// must stay byte for byte, and no temporary file may be left beside it.
func TestWriteFileFailureKeepsOldFile(t *testing.T) {
	g, err := GNM(10, 20, WeightRange{1, 5}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"g.gr", "g.mtx.gz"} {
		dir := t.TempDir()
		path := filepath.Join(dir, name)
		if err := WriteFile(path, g, FormatAuto); err != nil {
			t.Fatal(err)
		}
		old, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteFile(path, nil, FormatAuto); err == nil {
			t.Fatalf("%s: WriteFile of a nil graph: no error", name)
		}
		now, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(now, old) {
			t.Errorf("%s changed on a failed write (%d bytes, was %d): %v", name, len(now), len(old), err)
		}
		if des, _ := os.ReadDir(dir); len(des) != 1 {
			t.Errorf("%s: %d files in the directory after a failed write, want 1", name, len(des))
		}
	}
}

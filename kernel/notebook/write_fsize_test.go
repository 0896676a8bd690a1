//go:build linux || darwin

package notebook

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/internal/fsizetest"
)

// TestRunInPlaceWriteFails runs a notebook and writes it back where it lies,
// as `pathnotes run` does by default, in a process that may not write files
// past the notebook's old size (RLIMIT_FSIZE): the write of the larger
// notebook with outputs fails for real, and the notebook on disk must be
// the old one, byte for byte, with nothing left beside it.
func TestRunInPlaceWriteFails(t *testing.T) {
	if path, ok := fsizetest.Child(t); ok {
		inPlaceChild(t, path)
		return
	}
	old, err := os.ReadFile("testdata/small.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "small.ipynb")
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	fsizetest.RunChild(t, path, "write")
	fsizetest.WantUnchanged(t, path, old)
}

// inPlaceChild runs the notebook at path, limits this process's file size
// to the notebook's, and writes the notebook back in place.
func inPlaceChild(t *testing.T, path string) {
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	nb, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	var fail *CellFailure
	if err := Run(context.Background(), nb, newSession, RunOptions{Timeout: time.Minute}); !errors.As(err, &fail) {
		t.Fatalf("Run: %v, want the failure of the notebook's failing cell", err)
	}
	if b, err := nb.Marshal(); err != nil || int64(len(b)) <= st.Size() {
		t.Fatalf("notebook with outputs: %d bytes, %v; want more than the %d of the old one", len(b), err, st.Size())
	}
	fsizetest.Limit(t, uint64(st.Size()))
	fsizetest.WantFailed(t, "Write", nb.Write(path))
}

//go:build linux || darwin

package atomicfile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/pathnotes/pathnotes/internal/fsizetest"
)

// TestWriteFileTooLarge replaces a file in a process that may not write
// files past 64 bytes (RLIMIT_FSIZE): the write fails for real, half way,
// and the old file must stay byte for byte with no temporary file beside it.
func TestWriteFileTooLarge(t *testing.T) {
	if path, ok := fsizetest.Child(t); ok {
		fsizetest.Limit(t, 64)
		fsizetest.WantFailed(t, "WriteFile", WriteFile(path, bytes.Repeat([]byte("new "), 100), 0o644))
		return
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "data")
	old := bytes.Repeat([]byte("old "), 10)
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	fsizetest.RunChild(t, path, "WriteFile")
	fsizetest.WantUnchanged(t, path, old)
}

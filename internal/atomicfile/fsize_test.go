//go:build linux || darwin

package atomicfile

import (
	"bytes"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fsizeChildEnv holds, in the child process of TestWriteFileTooLarge, the
// file that the child tries to replace.
const fsizeChildEnv = "ATOMICFILE_TEST_FSIZE_PATH"

// TestWriteFileTooLarge replaces a file in a process that may not write
// files past 64 bytes (RLIMIT_FSIZE): the write fails for real, half way,
// and the old file must stay byte for byte with no temporary file beside it.
func TestWriteFileTooLarge(t *testing.T) {
	if path := os.Getenv(fsizeChildEnv); path != "" {
		signal.Ignore(syscall.SIGXFSZ)
		lim := syscall.Rlimit{Cur: 64, Max: 64}
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
			t.Fatal(err)
		}
		err := WriteFile(path, bytes.Repeat([]byte("new "), 100), 0o644)
		if err == nil {
			t.Fatal("writing 400 bytes under a 64-byte limit succeeded")
		}
		t.Logf("WriteFile: %v", err)
		return
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "data")
	old := bytes.Repeat([]byte("old "), 10)
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriteFileTooLarge$", "-test.v")
	cmd.Env = append(os.Environ(), fsizeChildEnv+"="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "file too large") {
		t.Fatalf("child did not fail with EFBIG:\n%s", out)
	}
	wantContent(t, path, old)
	wantOnly(t, dir, "data")
}

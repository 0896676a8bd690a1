//go:build linux || darwin

package fsizetest

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

// The environment of a child that RunChild starts: the test it runs and the value passed.
const (
	testEnv  = "PATHNOTES_FSIZETEST_TEST"
	valueEnv = "PATHNOTES_FSIZETEST_VALUE"
)

// Child returns the value that the parent of test t passed to RunChild, and whether this
// process is that child.
func Child(t testing.TB) (string, bool) {
	if os.Getenv(testEnv) != t.Name() {
		return "", false
	}
	return os.Getenv(valueEnv), true
}

// Limit makes, in the child, every file this process writes stop at n bytes: a write past it
// fails with EFBIG ("file too large") instead of raising SIGXFSZ. It lowers only the soft
// limit, so the returned lift can put the limit back as it was.
func Limit(t testing.TB, n uint64) (lift func()) {
	t.Helper()
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	signal.Ignore(syscall.SIGXFSZ)
	low := old
	low.Cur = min(n, old.Max)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &low); err != nil {
		t.Fatal(err)
	}
	return func() {
		t.Helper()
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
			t.Fatal(err)
		}
	}
}

// WantFailed checks, in the child, the error of the write that the limit was set to stop: t
// fails if err is nil, and otherwise logs err, which is how RunChild in the parent learns that
// the write failed with EFBIG. what names the write.
func WantFailed(t testing.TB, what string, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s past the file size limit succeeded", what)
	}
	t.Logf("%s: %v", what, err)
}

// WantUnchanged checks, in the parent, that the file at path still holds old, byte for byte,
// and that nothing else, such as a temporary file, lies beside it in its directory.
func WantUnchanged(t testing.TB, path string, old []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, old) {
		t.Fatalf("%s changed on the failed write; it holds now:\n%s", path, got)
	}
	dir := filepath.Dir(path)
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(des) != 1 {
		names := make([]string, len(des))
		for i, de := range des {
			names[i] = de.Name()
		}
		t.Fatalf("%s holds %v after the failed write, want %s only", dir, names, filepath.Base(path))
	}
}

// RunChild runs test t again in a child process, where Child returns value, and fails t unless
// the child passes and its output says "file too large": the child's write must have failed
// with EFBIG. what names that write in the message. t must be a top-level test.
func RunChild(t testing.TB, value, what string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v")
	cmd.Env = append(os.Environ(), testEnv+"="+t.Name(), valueEnv+"="+value)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "file too large") {
		t.Fatalf("the child's %s did not fail with EFBIG:\n%s", what, out)
	}
}

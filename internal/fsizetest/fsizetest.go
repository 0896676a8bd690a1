//go:build linux || darwin

package fsizetest

import (
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
)

// Child returns the value that the parent test passed under the environment variable key, and
// whether this process is that child.
func Child(key string) (string, bool) {
	v := os.Getenv(key)
	return v, v != ""
}

// Limit makes, in the child, every file this process writes stop at n bytes: a write past it
// fails with EFBIG ("file too large") instead of raising SIGXFSZ.
func Limit(t testing.TB, n uint64) {
	t.Helper()
	signal.Ignore(syscall.SIGXFSZ)
	lim := syscall.Rlimit{Cur: n, Max: n}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Fatal(err)
	}
}

// RunChild runs the test named test again in a child process, with key=value in its
// environment, and fails t unless the child passes and its output says "file too large": the
// child's write must have failed with EFBIG. what names that write in the message.
func RunChild(t testing.TB, test, key, value, what string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.v")
	cmd.Env = append(os.Environ(), key+"="+value)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "file too large") {
		t.Fatalf("the child's %s did not fail with EFBIG:\n%s", what, out)
	}
}

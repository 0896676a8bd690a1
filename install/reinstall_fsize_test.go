//go:build linux || darwin

package install

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// reinstallChildEnv holds, in the child process of
// TestReinstallFailureKeepsOldSpec, the prefix to install into.
const reinstallChildEnv = "PATHNOTES_TEST_REINSTALL_PREFIX"

// TestReinstallFailureKeepsOldSpec reinstalls over a working kernelspec in a
// process that may not write files past 1 KiB (RLIMIT_FSIZE): kernel.json
// fits, the logos do not, so the install fails midway, for real. The old
// kernelspec must be left byte for byte, with no temporary directory
// beside it.
func TestReinstallFailureKeepsOldSpec(t *testing.T) {
	if prefix := os.Getenv(reinstallChildEnv); prefix != "" {
		signal.Ignore(syscall.SIGXFSZ)
		lim := syscall.Rlimit{Cur: 1024, Max: 1024}
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
			t.Fatal(err)
		}
		_, err := Install(context.Background(), Options{Scope: Prefix, Prefix: prefix, Executable: "/new/pathnotes"})
		if err == nil {
			t.Fatal("Install under a 1 KiB file size limit succeeded")
		}
		t.Logf("Install: %v", err)
		return
	}
	prefix := t.TempDir()
	kernels := filepath.Join(prefix, "share", "jupyter", "kernels")
	dir, err := Install(context.Background(), Options{Scope: Prefix, Prefix: prefix, Executable: "/old/pathnotes"})
	if err != nil {
		t.Fatal(err)
	}
	old := readSpec(t, dir)
	if n := len(old["kernel.json"]); n >= 1024 {
		t.Fatalf("kernel.json is %d bytes: the limit must let it through", n)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestReinstallFailureKeepsOldSpec$", "-test.v")
	cmd.Env = append(os.Environ(), reinstallChildEnv+"="+prefix)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "file too large") {
		t.Fatalf("the child's install did not fail with EFBIG:\n%s", out)
	}
	now := readSpec(t, dir)
	if len(now) != len(old) {
		t.Fatalf("kernelspec holds %d files after the failed reinstall, want %d", len(now), len(old))
	}
	for name, data := range old {
		if !bytes.Equal(now[name], data) {
			t.Errorf("%s changed on the failed reinstall", name)
		}
	}
	wantOnlyEntry(t, kernels, "pathnotes")
}

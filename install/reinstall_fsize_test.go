//go:build linux || darwin

package install

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/pathnotes/pathnotes/internal/fsizetest"
)

// TestReinstallFailureKeepsOldSpec reinstalls over a working kernelspec in a
// process that may not write files past 1 KiB (RLIMIT_FSIZE): kernel.json
// fits, the logos do not, so the install fails midway, for real. The old
// kernelspec must be left byte for byte, with no temporary directory
// beside it.
func TestReinstallFailureKeepsOldSpec(t *testing.T) {
	if prefix, ok := fsizetest.Child(t); ok {
		fsizetest.Limit(t, 1024)
		_, err := Install(context.Background(), Options{Scope: Prefix, Prefix: prefix, Executable: "/new/pathnotes"})
		fsizetest.WantFailed(t, "Install", err)
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
	fsizetest.RunChild(t, prefix, "install")
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

package install

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// readSpec returns the files of a kernelspec directory by name.
func readSpec(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, de := range des {
		if files[de.Name()], err = os.ReadFile(filepath.Join(dir, de.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// wantOnlyEntry checks that the kernels directory holds the one kernelspec
// and no temporary directory.
func wantOnlyEntry(t *testing.T, kernels, name string) {
	t.Helper()
	des, err := os.ReadDir(kernels)
	if err != nil {
		t.Fatal(err)
	}
	if len(des) != 1 || des[0].Name() != name {
		var names []string
		for _, de := range des {
			names = append(names, de.Name())
		}
		t.Fatalf("%s holds %q, want only %q", kernels, names, name)
	}
}

// TestReinstallReplaces installs over an existing kernelspec that holds a
// stray file: the new spec replaces the whole directory.
func TestReinstallReplaces(t *testing.T) {
	prefix := t.TempDir()
	kernels := filepath.Join(prefix, "share", "jupyter", "kernels")
	dir, err := Install(context.Background(), Options{Scope: Prefix, Prefix: prefix, Executable: "/old/pathnotes"})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stray.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(context.Background(), Options{Scope: Prefix, Prefix: prefix, Executable: "/new/pathnotes"}); err != nil {
		t.Fatal(err)
	}
	files := readSpec(t, dir)
	if len(files) != 3 || files["stray.txt"] != nil {
		t.Errorf("reinstalled kernelspec holds %d files (stray.txt: %q), want the 3 of a kernelspec", len(files), files["stray.txt"])
	}
	if !bytes.Contains(files["kernel.json"], []byte(`"/new/pathnotes"`)) {
		t.Errorf("kernel.json after reinstall:\n%s", files["kernel.json"])
	}
	st, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o755 {
		t.Errorf("kernelspec directory mode %v, want 0755", st.Mode().Perm())
	}
	wantOnlyEntry(t, kernels, "pathnotes")
}

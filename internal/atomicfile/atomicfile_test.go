package atomicfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// entries lists the names in dir, to see that no temporary file is left.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

func wantOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	got := entries(t, dir)
	if len(got) != len(names) {
		t.Fatalf("%s holds %q, want only %q", dir, got, names)
	}
	for i := range got {
		if got[i] != names[i] {
			t.Fatalf("%s holds %q, want only %q", dir, got, names)
		}
	}
}

func wantContent(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s holds %q, want %q", path, got, want)
	}
}

func wantPerm(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != want {
		t.Fatalf("%s has mode %v, want %v", path, st.Mode().Perm(), want)
	}
}

func TestWriteFileCreatesAndReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.txt")
	if err := WriteFile(path, []byte("first"), 0o600); err != nil {
		t.Fatal(err)
	}
	wantContent(t, path, []byte("first"))
	wantPerm(t, path, 0o600)
	if err := WriteFile(path, []byte("second, longer"), 0o600); err != nil {
		t.Fatal(err)
	}
	wantContent(t, path, []byte("second, longer"))
	if err := WriteFile(path, []byte("3"), 0o600); err != nil {
		t.Fatal(err)
	}
	wantContent(t, path, []byte("3"))
	wantOnly(t, dir, "a.txt")
}

func TestWriteFileKeepsPermission(t *testing.T) {
	dir := t.TempDir()
	for _, mode := range []fs.FileMode{0o600, 0o755, 0o640} {
		path := filepath.Join(dir, "f")
		if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		if err := WriteFile(path, []byte("new"), 0o644); err != nil {
			t.Fatal(err)
		}
		wantContent(t, path, []byte("new"))
		wantPerm(t, path, mode)
		wantOnly(t, dir, "f")
	}
}

func TestWriteFileThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	link := filepath.Join(dir, "link")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("target", link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("link is no longer a symbolic link: %v, %v", st, err)
	}
	wantContent(t, target, []byte("new"))
	wantOnly(t, dir, "link", "target")
}

func TestAbortLeavesOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "nb.ipynb")
	old := []byte(`{"cells": []}`)
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, stop := range []func(*File) error{(*File).Abort, (*File).Close} {
		f, err := Create(path, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(`{"cells": [`); err != nil {
			t.Fatal(err)
		}
		if err := stop(f); err != nil {
			t.Fatal(err)
		}
		if err := f.Commit(); err == nil {
			t.Fatal("Commit after Abort succeeded")
		}
		wantContent(t, path, old)
		wantOnly(t, dir, "nb.ipynb")
	}
}

func TestCommitThenAbort(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	f, err := Create(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	if _, err := f.WriteString("done"); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := f.Abort(); err != nil {
		t.Fatalf("Abort after Commit: %v", err)
	}
	wantContent(t, path, []byte("done"))
	wantOnly(t, dir, "out")
}

func TestWriteFileRefusesDirectory(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(sub, []byte("x"), 0o644)
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != sub {
		t.Fatalf("WriteFile over a directory: %v, want an error naming %s", err, sub)
	}
	wantOnly(t, dir, "sub")
}

func TestWriteFileMissingDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFile(filepath.Join(dir, "no", "f"), []byte("x"), 0o644); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("WriteFile into a missing directory: %v, want not exist", err)
	}
	wantOnly(t, dir)
}

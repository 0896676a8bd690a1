// Package atomicfile replaces files so that a reader, or the user after a
// failure, sees either the old content or the new, never a mix: the new
// content goes to a temporary file in the same directory, is synced to disk
// and is then renamed over the old file. A write that fails (disk full, file
// too large, interrupted) leaves the old file as it was and removes the
// temporary file.
//
// A replaced file keeps its permission bits; a new one gets the permission
// asked for, less the umask, as os.WriteFile gives it. A path that is a
// symbolic link has the file it points to replaced, and stays a link. The
// replacement is a new file: other hard links to the old one keep the old
// content, and its owner is the user who writes it.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
)

// WriteFile writes data to path, replacing the file atomically; see the
// package documentation. On failure path is left untouched.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Commit()
}

// File is the new content of a file being written: an *os.File open on a
// temporary file beside the destination. Commit puts it in place of the
// destination; Abort discards it. Call Abort in a defer right after Create:
// once Commit has run it does nothing.
type File struct {
	*os.File
	dest string // the file that Commit replaces
	done bool   // Commit or Abort has run
}

// Create starts writing a new content for path: a temporary file in path's
// directory that Commit renames over path. perm is used when path does not
// exist yet; an existing file keeps its permission bits.
func Create(path string, perm fs.FileMode) (*File, error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	keep := false
	if st, err := os.Stat(path); err == nil {
		if !st.Mode().IsRegular() {
			return nil, &fs.PathError{Op: "replace", Path: path, Err: errors.New("not a regular file")}
		}
		perm, keep = st.Mode().Perm(), true
	}
	dir, base := filepath.Split(path)
	for range 100 {
		name := filepath.Join(dir, "."+base+".tmp"+strconv.FormatUint(rand.Uint64()%1e9, 10))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		// The umask applies to a new file only: a replaced one keeps
		// exactly the bits it had.
		if keep {
			if err := f.Chmod(perm); err != nil {
				f.Close()
				os.Remove(name)
				return nil, err
			}
		}
		return &File{File: f, dest: path}, nil
	}
	return nil, fmt.Errorf("atomicfile: no free temporary name beside %s", path)
}

// Commit syncs the new content to disk, closes it and renames it over the
// destination, then syncs the directory so that the rename lasts (a
// directory that cannot be synced is not an error: the new content is in
// place by then). When it fails, the temporary file is removed and the
// destination is left as it was.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("atomicfile: %s: already committed or aborted", f.dest)
	}
	f.done = true
	name := f.Name()
	err := f.Sync()
	if cerr := f.File.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, f.dest)
	}
	if err != nil {
		os.Remove(name)
		return err
	}
	syncDir(filepath.Dir(f.dest))
	return nil
}

// Abort closes and removes the temporary file, leaving the destination as
// it was. After Commit, or a second time, it does nothing.
func (f *File) Abort() error {
	if f.done {
		return nil
	}
	f.done = true
	err := f.File.Close()
	if rerr := os.Remove(f.Name()); err == nil {
		err = rerr
	}
	return err
}

// Close is Abort: a File is put in place by Commit only, so that code that
// stops early, closing what it opened, cannot install half a file.
func (f *File) Close() error { return f.Abort() }

// syncDir flushes a directory's entries to disk, as far as the system
// allows: Windows cannot open a directory for syncing, and some file
// systems refuse it.
func syncDir(dir string) {
	if runtime.GOOS == "windows" {
		return
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

package session

import (
	"fmt"
	"os"
)

// cellFile is what cells see as os.Stdout or os.Stderr.
//
// The session's stream pipe must outlive any cell: once its write end is
// closed, its reader stops and nothing printed later reaches a cell. So
// cells do not get that write end but a duplicate of it (another
// descriptor of the same pipe), which a cell may close as any file: the
// close ends its own printing to that stream, as in Go, and before the
// next cell the session gives os.Stdout a fresh duplicate.
//
// file is the interpreter's variable os.Stdout (os.Stderr): cells may
// assign it. The interpreter's fmt.Print functions and its println write
// to what it holds when they print, as Go's fmt.Print writes to the
// os.Stdout of the moment.
type cellFile struct {
	st   *stream
	own  *os.File // the latest duplicate made for the cells, nil before the first
	file *os.File // os.Stdout (os.Stderr) in the cells
}

// Write implements io.Writer: it writes to the cells' os.Stdout (os.Stderr)
// of the moment.
func (c *cellFile) Write(p []byte) (int, error) { return c.file.Write(p) }

// prepare runs before each cell. When the cells' file is closed (a cell
// closed os.Stdout, or assigned it a file it then closed), it sets it back
// to the session's stream, through a new duplicate if the cells closed the
// last one. A file the cells assigned and left open is kept. If the
// stream cannot be duplicated (the process is out of file descriptors),
// the cells' file stays closed and the reason is written to the session's
// stderr.
func (c *cellFile) prepare(s *Session) {
	if c.file != nil && !isClosed(c.file) {
		return
	}
	if err := c.reopen(); err != nil {
		s.writeStderr(fmt.Sprintf("os.%s stays closed: %v\n", cellFileNames[c.st.name], err))
	}
}

// reopen points the cells' file at the stream, duplicating its write end
// anew when the cells closed the previous duplicate. A fresh interpreter
// starts with it.
func (c *cellFile) reopen() error {
	if c.own == nil || isClosed(c.own) {
		f, err := dupFile(c.st.w)
		if err != nil {
			return fmt.Errorf("duplicating the %s pipe: %w", c.st.name, err)
		}
		c.own = f
	}
	c.file = c.own
	return nil
}

// close closes the duplicate made for the cells, which must be closed before
// the stream itself can end.
func (c *cellFile) close() {
	if c.own != nil {
		c.own.Close()
	}
}

// cellFileNames names the os variable of each stream.
var cellFileNames = map[string]string{"stdout": "Stdout", "stderr": "Stderr"}

// isClosed reports whether f was closed (or is nil). It does not block on
// a write in progress.
func isClosed(f *os.File) bool {
	if f == nil {
		return true
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return true
	}
	return rc.Control(func(uintptr) {}) != nil
}

// dupFile returns a new descriptor (on Windows, handle) of the file f is
// open on, not inherited by child processes.
func dupFile(f *os.File) (*os.File, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var nfd uintptr
	var dupErr error
	err = rc.Control(func(fd uintptr) { nfd, dupErr = dupFD(fd) })
	if err == nil {
		err = dupErr
	}
	if err != nil {
		return nil, err
	}
	return os.NewFile(nfd, f.Name()), nil
}

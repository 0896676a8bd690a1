//go:build unix

package kernel

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/pathnotes/pathnotes/internal/pipes"
)

// StdioCapture redirects file descriptors (the process's standard output
// and error) through pipes, so that text written to them by compiled code —
// fmt.Println in a package bound into the interpreter, a C library, a
// runtime warning — reaches the running cell's output instead of the
// terminal that started the kernel. The kernel's own log must then go to
// OriginalStderr (or a file), or it would loop into the cells.
type StdioCapture struct {
	mu     sync.Mutex
	sink   func(name, text string) // nil: text goes to the original stderr
	fds    []*capturedFD
	stderr *os.File // the process's stderr before the capture
	tee    *os.File // gets a copy of what descriptor 2 brings: the crash monitor's; nil for none
}

// capturedFD is one redirected descriptor.
type capturedFD struct {
	name  string // stream name: "stdout" or "stderr"
	fd    int
	saved int           // a duplicate of what fd was before
	r     *os.File      // the read end of the pipe (non-blocking), read by forward and sync
	done  chan struct{} // closed when forward has returned
	mu    sync.Mutex    // held by each read of r and while its text is passed on
	buf   []byte
}

// CaptureStdio redirects the process's standard output and error (file
// descriptors 1 and 2) into the capture. It is not available on every
// platform; the error says so.
func CaptureStdio() (*StdioCapture, error) {
	saved, err := dup(2)
	if err != nil {
		return nil, fmt.Errorf("capture stdio: dup stderr: %w", err)
	}
	c, err := captureFDs(map[int]string{1: "stdout", 2: "stderr"})
	if err != nil {
		syscall.Close(saved)
		return nil, err
	}
	c.stderr = os.NewFile(uintptr(saved), "stderr")
	return c, nil
}

// OriginalStderr returns the process's standard error as it was before the
// capture, where the kernel's log belongs.
func (c *StdioCapture) OriginalStderr() *os.File { return c.stderr }

// stderrReader opens a reader of its own of the pipe that descriptor 2
// writes to (through /proc/self/fd, so that it shares no file status with
// the capture's), for the crash monitor (crashmonitor.go).
func (c *StdioCapture) stderrReader() (*os.File, error) {
	for _, cf := range c.fds {
		if cf.fd != 2 {
			continue
		}
		rc, err := cf.r.SyscallConn()
		if err != nil {
			return nil, err
		}
		var f *os.File
		cerr := rc.Control(func(fd uintptr) {
			f, err = os.OpenFile(fmt.Sprintf("/proc/self/fd/%d", fd), os.O_RDONLY|syscall.O_NONBLOCK, 0)
		})
		if cerr != nil {
			return nil, cerr
		}
		return f, err
	}
	return nil, errors.New("standard error is not captured")
}

// captureFDs redirects each descriptor of fds into a pipe read by the
// capture, naming its text as the map says.
func captureFDs(fds map[int]string) (*StdioCapture, error) {
	c := &StdioCapture{}
	for fd, name := range fds {
		cf, err := captureFD(fd, name)
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("capture %s (fd %d): %w", name, fd, err)
		}
		c.fds = append(c.fds, cf)
		go c.forward(cf)
	}
	return c, nil
}

func captureFD(fd int, name string) (*capturedFD, error) {
	saved, err := dup(fd)
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		syscall.Close(saved)
		return nil, err
	}
	defer w.Close() // fd keeps the write end open
	growPipe(w)
	if err := dup2(int(w.Fd()), fd); err != nil {
		syscall.Close(saved)
		r.Close()
		return nil, err
	}
	return &capturedFD{name: name, fd: fd, saved: saved, r: r, done: make(chan struct{}), buf: make([]byte, 64<<10)}, nil
}

// setSink sends captured text to f from now on (nil: to the original stderr).
func (c *StdioCapture) setSink(f func(name, text string)) {
	c.mu.Lock()
	c.sink = f
	c.mu.Unlock()
}

// emit hands text read from cf to the sink.
func (c *StdioCapture) emit(cf *capturedFD, text []byte) {
	if len(text) == 0 {
		return
	}
	c.mu.Lock()
	sink, stderr := c.sink, c.stderr
	c.mu.Unlock()
	switch {
	case sink != nil:
		sink(cf.name, string(text))
	case stderr != nil:
		stderr.Write(text)
	}
}

// forward passes on what cf's pipe brings until its write end is closed.
func (c *StdioCapture) forward(cf *capturedFD) {
	defer close(cf.done)
	rc, err := cf.r.SyscallConn()
	if err != nil {
		return
	}
	for open := true; open; {
		err := rc.Read(func(fd uintptr) bool {
			var n int
			n, open = c.readOnce(cf, int(fd))
			return n > 0 || !open // nothing yet: wait for the poller
		})
		if err != nil {
			return
		}
	}
}

// readOnce reads once from cf's pipe, without waiting, and passes the text
// on. It returns the bytes read and whether the pipe is still open.
func (c *StdioCapture) readOnce(cf *capturedFD, fd int) (n int, open bool) {
	cf.mu.Lock()
	defer cf.mu.Unlock()
	buf := cf.buf
	if cf.fd == 2 {
		if k := c.copyToTee(fd, len(buf)); k > 0 {
			buf = buf[:k] // no byte leaves the pipe before its copy
		}
	}
	n, open = pipes.ReadReady(fd, buf)
	if n > 0 {
		c.emit(cf, buf[:n])
	}
	return n, open
}

// setTee makes the capture copy what descriptor 2 brings to w, before it
// passes it on: the crash monitor's, which keeps the text of a fatal error
// that the capture read but the dying process could not pass on.
func (c *StdioCapture) setTee(w *os.File) {
	c.mu.Lock()
	c.tee = w
	c.mu.Unlock()
}

// copyToTee copies up to max bytes of what the pipe fd holds to the tee,
// without taking them out of the pipe and without waiting, and returns how
// many it copied: 0 when there is no tee, the pipe is empty or the tee is
// full. Copying before reading leaves no moment when a byte is neither in
// the pipe nor in the tee.
func (c *StdioCapture) copyToTee(fd, max int) int {
	c.mu.Lock()
	tee := c.tee
	c.mu.Unlock()
	if tee == nil {
		return 0
	}
	rc, err := tee.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	rc.Control(func(teeFD uintptr) { n = teePipe(fd, int(teeFD), max) })
	return n
}

// closeTimeout bounds the wait for forward to end at Close.
const closeTimeout = time.Second

// maxSyncReads bounds the reads of one sync, so that a thread that prints
// without end cannot hold it.
const maxSyncReads = 64

// sync returns once everything written to the captured descriptors before
// the call has been passed to the sink. Every read of a pipe holds its
// mutex, so what was written is in the pipe or passed on already: sync
// reads the pipe to its end itself, with no marker through it and no wait
// for forward.
func (c *StdioCapture) sync() {
	for _, cf := range c.fds {
		rc, err := cf.r.SyscallConn()
		if err != nil {
			continue
		}
		rc.Control(func(fd uintptr) {
			for range maxSyncReads {
				if n, _ := c.readOnce(cf, int(fd)); n == 0 {
					return
				}
			}
		})
	}
}

// Close puts the descriptors back as they were and stops forwarding, after
// passing on what was still in the pipes.
func (c *StdioCapture) Close() error {
	var errs []error
	for _, cf := range c.fds {
		if err := dup2(cf.saved, cf.fd); err != nil {
			errs = append(errs, fmt.Errorf("restore %s (fd %d): %w", cf.name, cf.fd, err))
			continue
		}
		syscall.Close(cf.saved)
		select { // the write end is closed now: forward sees EOF
		case <-cf.done:
		case <-time.After(closeTimeout):
			errs = append(errs, fmt.Errorf("%s (fd %d): forwarding did not end", cf.name, cf.fd))
		}
		cf.r.Close()
	}
	c.fds = nil
	return errors.Join(errs...)
}

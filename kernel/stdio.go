//go:build unix

package kernel

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"
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
	seq    uint32   // numbers sync markers
}

// capturedFD is one redirected descriptor.
type capturedFD struct {
	name    string // stream name: "stdout" or "stderr"
	fd      int
	saved   int      // a duplicate of what fd was before
	r       *os.File // the read end of the pipe, read by forward
	waiters map[string]chan struct{}
	done    chan struct{} // closed when forward has returned
}

// syncMagic starts a sync marker: a NUL, so that no text a program prints
// is mistaken for it, then the name and an 8-digit hex number and a NUL.
var syncMagic = []byte("\x00pathnotes-sync:")

const syncLen = 16 + 8 + 1 // len(syncMagic) + hex digits + NUL

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
	return &capturedFD{name: name, fd: fd, saved: saved, r: r,
		waiters: map[string]chan struct{}{}, done: make(chan struct{})}, nil
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

// forward reads cf's pipe until it closes, passing text on and waking the
// callers of sync whose marker it meets.
func (c *StdioCapture) forward(cf *capturedFD) {
	defer close(cf.done)
	buf := make([]byte, 64*1024)
	var data []byte
	for {
		n, err := cf.r.Read(buf)
		data = append(data, buf[:n]...)
		for {
			i := bytes.Index(data, syncMagic)
			if i < 0 || len(data) < i+syncLen {
				break
			}
			c.emit(cf, data[:i])
			c.wake(cf, string(data[i+len(syncMagic):i+syncLen-1]))
			data = data[i+syncLen:]
		}
		// Keep back what may be the start of a marker cut by the read.
		keep := 0
		if i := bytes.Index(data, syncMagic); i >= 0 {
			keep = len(data) - i
		} else {
			for k := min(len(syncMagic)-1, len(data)); k > 0; k-- {
				if bytes.HasSuffix(data, syncMagic[:k]) {
					keep = k
					break
				}
			}
		}
		c.emit(cf, data[:len(data)-keep])
		data = append(data[:0:0], data[len(data)-keep:]...)
		if err != nil {
			c.emit(cf, data)
			return
		}
	}
}

func (c *StdioCapture) wake(cf *capturedFD, id string) {
	c.mu.Lock()
	ch := cf.waiters[id]
	delete(cf.waiters, id)
	c.mu.Unlock()
	if ch != nil {
		close(ch)
	}
}

// syncTimeout bounds the wait for a marker: a pipe the forwarder cannot
// drain (it never should) must not hang the kernel.
const syncTimeout = time.Second

// sync returns once everything written to the captured descriptors before
// the call has been passed to the sink: it writes a marker through each
// pipe and waits until forward reads it back.
func (c *StdioCapture) sync() {
	var waits []chan struct{}
	for _, cf := range c.fds {
		c.mu.Lock()
		c.seq++
		id := fmt.Sprintf("%08x", c.seq)
		ch := make(chan struct{})
		cf.waiters[id] = ch
		c.mu.Unlock()
		marker := append(append(append([]byte(nil), syncMagic...), id...), 0)
		if _, err := syscall.Write(cf.fd, marker); err != nil {
			continue
		}
		waits = append(waits, ch)
	}
	deadline := time.After(syncTimeout)
	for _, ch := range waits {
		select {
		case <-ch:
		case <-deadline:
			return
		}
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
		case <-time.After(syncTimeout):
			errs = append(errs, fmt.Errorf("%s (fd %d): forwarding did not end", cf.name, cf.fd))
		}
		cf.r.Close()
	}
	c.fds = nil
	return errors.Join(errs...)
}

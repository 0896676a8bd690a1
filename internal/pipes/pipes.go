//go:build unix

// Package pipes reads what a non-blocking pipe holds without waiting: the
// one read both output captures (the kernel's of the process's standard
// output and error, the session's of a cell's) make each time the poller
// says their pipe is readable, and when a cell ends.
package pipes

import (
	"errors"
	"syscall"
)

// ReadReady reads once from the non-blocking descriptor fd into buf,
// retrying a read that a signal interrupted. It returns the bytes read (0
// when nothing is waiting) and whether the pipe is still open (false at
// end of file or after a failed read).
func ReadReady(fd int, buf []byte) (n int, open bool) {
	for {
		n, err := syscall.Read(fd, buf)
		switch {
		case n > 0:
			return n, true
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EAGAIN):
			return 0, true
		}
		return 0, false
	}
}

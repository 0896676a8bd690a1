//go:build windows

package session

import (
	"os"
	"syscall"
)

// dupFile returns a new handle of the file f is open on, not inherited by
// child processes.
func dupFile(f *os.File) (*os.File, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var h syscall.Handle
	var dupErr error
	err = rc.Control(func(fd uintptr) {
		p, perr := syscall.GetCurrentProcess()
		if perr != nil {
			dupErr = perr
			return
		}
		dupErr = syscall.DuplicateHandle(p, syscall.Handle(fd), p, &h, 0, false, syscall.DUPLICATE_SAME_ACCESS)
	})
	if err == nil {
		err = dupErr
	}
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(h), f.Name()), nil
}

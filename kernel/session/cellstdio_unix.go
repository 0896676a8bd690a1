//go:build unix

package session

import (
	"os"
	"syscall"
)

// dupFile returns a new descriptor of the file f is open on, closed on exec
// as f is.
func dupFile(f *os.File) (*os.File, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	nfd := -1
	var dupErr error
	err = rc.Control(func(fd uintptr) {
		syscall.ForkLock.RLock() // no child inherits it before CloseOnExec
		defer syscall.ForkLock.RUnlock()
		if nfd, dupErr = syscall.Dup(int(fd)); dupErr == nil {
			syscall.CloseOnExec(nfd)
		}
	})
	if err == nil {
		err = dupErr
	}
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(nfd), f.Name()), nil
}

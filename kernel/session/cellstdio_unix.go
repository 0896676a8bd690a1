//go:build unix

package session

import "syscall"

// dupFD returns a new descriptor of the file descriptor fd, closed on exec.
func dupFD(fd uintptr) (uintptr, error) {
	syscall.ForkLock.RLock() // no child inherits it before CloseOnExec
	defer syscall.ForkLock.RUnlock()
	nfd, err := syscall.Dup(int(fd))
	if err != nil {
		return 0, err
	}
	syscall.CloseOnExec(nfd)
	return uintptr(nfd), nil
}

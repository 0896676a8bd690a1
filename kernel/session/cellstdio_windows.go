//go:build windows

package session

import "syscall"

// dupFD returns a new handle of the handle fd, not inherited by child
// processes.
func dupFD(fd uintptr) (uintptr, error) {
	p, err := syscall.GetCurrentProcess()
	if err != nil {
		return 0, err
	}
	var h syscall.Handle
	if err := syscall.DuplicateHandle(p, syscall.Handle(fd), p, &h, 0, false, syscall.DUPLICATE_SAME_ACCESS); err != nil {
		return 0, err
	}
	return uintptr(h), nil
}

//go:build unix && !linux

package session

import "syscall"

// groupAlive reports whether process group pgid has a process left.
func groupAlive(pgid int) bool {
	return syscall.Kill(-pgid, 0) != syscall.ESRCH
}

//go:build unix && !linux

package kernel

import (
	"os"
	"syscall"
)

// dup2 makes newfd a copy of oldfd.
func dup2(oldfd, newfd int) error { return syscall.Dup2(oldfd, newfd) }

func dup(fd int) (int, error) { return syscall.Dup(fd) }

// growPipe leaves the pipe's buffer as the system made it: only Linux
// can enlarge it.
func growPipe(*os.File) {}

// teePipe copies nothing: only Linux can copy from a pipe without reading
// it, and the crash monitor has no copy of descriptor 2 elsewhere.
func teePipe(from, to, max int) int { return 0 }

package kernel

import (
	"os"
	"syscall"
)

// dup2 makes newfd a copy of oldfd. Linux on arm64 and riscv64 has no dup2
// system call, so dup3 (without flags, the same thing) serves everywhere.
func dup2(oldfd, newfd int) error { return syscall.Dup3(oldfd, newfd, 0) }

func dup(fd int) (int, error) { return syscall.Dup(fd) }

// pipeBytes is the buffer the capture asks of its pipes: the goroutine
// traces of a fatal runtime error go to file descriptor 2 while nothing
// reads the pipe any more, and a process whose write blocks on a full pipe
// hangs instead of exiting.
const pipeBytes = 1 << 20

// growPipe enlarges the buffer of the pipe w to pipeBytes, or as near as
// the system allows (fs.pipe-max-size); a failure leaves it as it was.
func growPipe(w *os.File) {
	for size := pipeBytes; size >= 64<<10; size /= 2 {
		if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, w.Fd(), syscall.F_SETPIPE_SZ, uintptr(size)); errno == 0 {
			return
		}
	}
}

// teePipe copies up to max bytes from pipe from to pipe to without taking
// them out of from and without waiting (tee(2)); 0 when none could be.
func teePipe(from, to, max int) int {
	n, err := syscall.Tee(from, to, max, spliceNonblock)
	if err != nil || n < 0 {
		return 0
	}
	return int(n)
}

// spliceNonblock is SPLICE_F_NONBLOCK.
const spliceNonblock = 2

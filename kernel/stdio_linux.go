package kernel

import "syscall"

// dup2 makes newfd a copy of oldfd. Linux on arm64 and riscv64 has no dup2
// system call, so dup3 (without flags, the same thing) serves everywhere.
func dup2(oldfd, newfd int) error { return syscall.Dup3(oldfd, newfd, 0) }

func dup(fd int) (int, error) { return syscall.Dup(fd) }

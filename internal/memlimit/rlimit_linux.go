package memlimit

import "syscall"

// rlimInfinity is RLIM_INFINITY as the uint64 that Getrlimit fills in.
const rlimInfinity = ^uint64(0)

// getrlimit returns the soft limit of r, ok false when it is unlimited.
func getrlimit(r Resource) (uint64, bool) {
	res := syscall.RLIMIT_AS
	if r == DataSegment {
		res = syscall.RLIMIT_DATA
	}
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(res, &rl); err != nil || rl.Cur == rlimInfinity {
		return 0, false
	}
	return rl.Cur, true
}

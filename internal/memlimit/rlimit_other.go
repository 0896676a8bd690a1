//go:build !linux

package memlimit

// getrlimit reports no limit: only Linux's /proc tells how much of an
// rlimit is in use, so elsewhere the rlimits are not consulted.
func getrlimit(Resource) (uint64, bool) { return 0, false }

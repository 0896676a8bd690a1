// Package fsizetest lets a test make a write fail for real, half way: the test runs itself
// again in a child process whose files may not grow past a limit (RLIMIT_FSIZE), the child
// attempts the write, and the parent checks that what was on disk before is still there. It
// works on Linux and macOS.
package fsizetest

// Package rlimittest lets a test meet a memory limit for real: in a child process of its own,
// the test lowers the address-space limit (RLIMIT_AS) to a little above what the process uses
// and checks that what comes next is refused with an error rather than the end of the process,
// or dies as it should. It works on Linux.
package rlimittest

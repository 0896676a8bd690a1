//go:build linux

package rlimittest

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// LimitAddressSpace sets this process's soft address-space limit (RLIMIT_AS, ulimit -v) to
// extra bytes above its current virtual size (VmSize in /proc/self/status). Call it in a child
// process: the limit stays for the rest of the process's life.
func LimitAddressSpace(t testing.TB, extra uint64) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	var size uint64
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmSize:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmSize line %q: %v", line, err)
			}
			size = kb << 10
		}
	}
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err != nil {
		t.Fatal(err)
	}
	rl.Cur = size + extra
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &rl); err != nil {
		t.Fatal(err)
	}
}

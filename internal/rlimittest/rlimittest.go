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
	setAddressSpace(t, virtualSize(t)+extra)
}

// LimitAddressSpaceTo sets this process's soft address-space limit to limit bytes in all, as
// ulimit -v would before the process started; the test fails when the process is already
// larger than half of that. Call it in a child process.
func LimitAddressSpaceTo(t testing.TB, limit uint64) {
	if size := virtualSize(t); size > limit/2 {
		t.Fatalf("the process's virtual size, %d MiB, leaves less than half of a %d MiB limit", size>>20, limit>>20)
	}
	setAddressSpace(t, limit)
}

// virtualSize reads VmSize from /proc/self/status.
func virtualSize(t testing.TB) uint64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmSize:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmSize line %q: %v", line, err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmSize in /proc/self/status")
	return 0
}

// setAddressSpace sets the soft RLIMIT_AS.
func setAddressSpace(t testing.TB, limit uint64) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err != nil {
		t.Fatal(err)
	}
	rl.Cur = limit
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &rl); err != nil {
		t.Fatal(err)
	}
}

//go:build !linux

package rlimittest

import "testing"

// LimitAddressSpace skips t: the process's size is read through Linux's
// /proc, which this system lacks.
func LimitAddressSpace(t testing.TB, extra uint64) {
	t.Helper()
	t.Skip("address-space limits are set only on Linux (the process's size is read through /proc)")
}

// LimitAddressSpaceTo skips t, as LimitAddressSpace does.
func LimitAddressSpaceTo(t testing.TB, limit uint64) {
	t.Helper()
	LimitAddressSpace(t, 0)
}

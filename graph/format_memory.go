package graph

import (
	"fmt"
	"unsafe"
)

// growthCheckBytes is the size from which the readers ask how much memory
// is left before they allocate; tests lower it.
var growthCheckBytes uint64 = 64 << 20

// checkBytes returns an error when need bytes would not fit in the memory
// left; below growthCheckBytes it does not ask.
func checkBytes(need uint64) error {
	if need < growthCheckBytes {
		return nil
	}
	return checkMemory(need)
}

// arcBytes is the size of n Arc values.
func arcBytes(n int) uint64 { return uint64(n) * uint64(unsafe.Sizeof(Arc{})) }

// checkGrowth returns an error when s is full and the larger array that
// append would allocate for it (a quarter more, at these sizes) does not
// fit in the memory left: a file with more lines than memory holds is then
// an error rather than the end of the process.
func checkGrowth[T any](s []T, what string) error {
	if len(s) < cap(s) {
		return nil
	}
	grown := uint64(cap(s)+cap(s)/4) * uint64(unsafe.Sizeof(*new(T)))
	if err := checkBytes(grown); err != nil {
		return fmt.Errorf("%d %s read so far: growing their array would %w", len(s), what, err)
	}
	return nil
}

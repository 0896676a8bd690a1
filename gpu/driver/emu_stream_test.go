package driver

import (
	"testing"
	"unsafe"

	"github.com/pathnotes/pathnotes/gpu/ptxemu"
)

// copyAcross queues, on a fresh emulated context, a copy of new values
// into device memory on one stream and a copy of that memory out on
// another, that second stream waiting for the first one's event when wait
// is set; the host then synchronises the first stream, then the second.
// shuffle, when not nil, is the EmulatorShuffle seed. It returns the first
// value the copy out saw: 2 the new one, 1 the old.
func copyAcross(t *testing.T, wait bool, shuffle *uint64) int32 {
	t.Helper()
	c := newEmuContext(ptxemu.Options{})
	if shuffle != nil && !EmulatorShuffle(c, *shuffle) {
		t.Fatal("EmulatorShuffle refused an emulated context")
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	const n = 64
	a, err := c.Alloc(4 * n)
	must(err)
	must(c.Memset32(a, 1, n))
	in, err := c.NewStream()
	must(err)
	out, err := c.NewStream()
	must(err)
	e, err := c.NewEvent()
	must(err)
	src, dst := make([]int32, n), make([]int32, n)
	for i := range src {
		src[i] = 2
	}
	bytes := func(v []int32) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v)) }
	must(c.CopyInAsync(a, bytes(src), in))
	must(c.RecordOn(e, in))
	if wait {
		must(c.WaitEvent(out, e))
	}
	must(c.CopyOutAsync(bytes(dst), a, out))
	must(c.SyncStream(in))
	must(c.SyncStream(out))
	must(c.Synchronize())
	return dst[0]
}

// TestEmuShuffleCatchesMissingWait checks what EmulatorShuffle adds to the
// emulator's usual order (each stream's work as late as something waits
// for it): a copy out that misses its wait for a copy in on another
// stream, the host synchronising the copy in's stream first, sees the new
// values in the usual order, while a card may run the copy out first; under
// EmulatorShuffle some seeds run it first and others second, and with the
// wait every seed sees the new values.
func TestEmuShuffleCatchesMissingWait(t *testing.T) {
	if got := copyAcross(t, false, nil); got != 2 {
		t.Errorf("the usual order, without the wait: the copy out saw %d, want the new 2", got)
	}
	seen := map[int32]int{}
	for seed := range uint64(16) {
		seen[copyAcross(t, false, &seed)]++
		if got := copyAcross(t, true, &seed); got != 2 {
			t.Errorf("seed %d, with the wait: the copy out saw %d, want 2", seed, got)
		}
	}
	if seen[1] == 0 || seen[2] == 0 || len(seen) != 2 {
		t.Errorf("without the wait, 16 seeds saw %v: want both the old value 1 and the new 2", seen)
	}
}

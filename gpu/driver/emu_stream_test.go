package driver

import (
	"context"
	"testing"
	"unsafe"

	"github.com/pathnotes/pathnotes/gpu/ptxemu"
)

// testContext returns a fresh emulated context, its default stream a
// queue when lazy (EmulatorLazyDefault), its streams' work shuffled with
// seed *shuffle when shuffle is not nil (EmulatorShuffle), and a check
// that fails t on an error.
func testContext(t *testing.T, lazy bool, shuffle *uint64) (*emuContext, func(error)) {
	t.Helper()
	c := newEmuContext(ptxemu.Options{})
	if lazy && !EmulatorLazyDefault(c) {
		t.Fatal("EmulatorLazyDefault refused an emulated context")
	}
	if shuffle != nil && !EmulatorShuffle(c, *shuffle) {
		t.Fatal("EmulatorShuffle refused an emulated context")
	}
	return c, func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// copyAcross queues, on a fresh emulated context, a copy of new values
// into device memory on one stream and a copy of that memory out on
// another, that second stream waiting for the first one's event when wait
// is set; the host then synchronises the first stream, then the second.
// shuffle, when not nil, is the EmulatorShuffle seed. It returns the first
// value the copy out saw: 2 the new one, 1 the old.
func copyAcross(t *testing.T, wait bool, shuffle *uint64) int32 {
	t.Helper()
	c, must := testContext(t, false, shuffle)
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

// int32Bytes is v's memory as bytes, for the asynchronous copies.
func int32Bytes(v []int32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 4*len(v))
}

// fillAcross queues, on a fresh emulated context whose default stream is
// a queue (EmulatorLazyDefault), a fill of one buffer and then of buffer b
// with 1s on the default stream, then on a stream from NewStream a copy of
// 2s into b, after a wait for the default stream's fill when wait is set,
// as a program that fills a new buffer and hands it to another stream
// does; the host then synchronises everything. shuffle, when not nil, is
// the EmulatorShuffle seed. It returns b's first value: 1 when the fill
// ran after the copy, as it may on a card without the wait.
func fillAcross(t *testing.T, wait bool, shuffle *uint64) int32 {
	t.Helper()
	c, must := testContext(t, true, shuffle)
	const n = 64
	a, err := c.Alloc(4 * n)
	must(err)
	b, err := c.Alloc(4 * n)
	must(err)
	s, err := c.NewStream()
	must(err)
	e, err := c.NewEvent()
	must(err)
	must(c.Memset32(a, 9, n))
	must(c.Memset32(b, 1, n))
	if wait {
		must(c.Record(e))
		must(c.WaitEvent(s, e))
	}
	src := make([]int32, n)
	for i := range src {
		src[i] = 2
	}
	must(c.CopyInAsync(b, int32Bytes(src), s))
	must(c.Synchronize())
	got := make([]int32, n)
	must(c.CopyOut(got, b))
	for i, v := range got {
		if v != got[0] {
			t.Fatalf("b[%d] = %d but b[0] = %d: the fill and the copy interleaved", i, v, got[0])
		}
	}
	return got[0]
}

// TestEmuLazyDefaultCatchesMissingWait checks what EmulatorLazyDefault
// adds: a buffer filled on the default stream and then written on a
// stream from NewStream that does not wait for the default stream ends up
// holding the fill when the host synchronises everything (the default
// stream's work runs last, as on a card where it is queued behind other
// work), while with the emulator's usual default stream, whose work runs
// at once, it holds the other stream's values; with the wait it holds
// them in the mode too. Under EmulatorShuffle as well, some seeds run the
// fill first and others last, and with the wait every seed runs it first.
func TestEmuLazyDefaultCatchesMissingWait(t *testing.T) {
	if got := fillAcross(t, false, nil); got != 1 {
		t.Errorf("without the wait: b holds %d, want the default stream's fill 1, run last", got)
	}
	if got := fillAcross(t, true, nil); got != 2 {
		t.Errorf("with the wait: b holds %d, want the other stream's 2", got)
	}
	seen := map[int32]int{}
	for seed := range uint64(16) {
		seen[fillAcross(t, false, &seed)]++
		if got := fillAcross(t, true, &seed); got != 2 {
			t.Errorf("seed %d, with the wait: b holds %d, want 2", seed, got)
		}
	}
	if seen[1] == 0 || seen[2] == 0 || len(seen) != 2 {
		t.Errorf("shuffled, without the wait, 16 seeds saw %v: want both the fill 1 and the copy's 2", seen)
	}
	// The usual default stream fills at once: the copy comes after.
	c, must := testContext(t, false, nil)
	b, err := c.Alloc(4)
	must(err)
	s, err := c.NewStream()
	must(err)
	two := []int32{2}
	got := []int32{0}
	must(c.Memset32(b, 1, 1))
	must(c.CopyInAsync(b, int32Bytes(two), s))
	must(c.Synchronize())
	if err := c.CopyOut(got, b); err != nil || got[0] != 2 {
		t.Errorf("the usual default stream: b holds %d (%v), want the copy's 2", got[0], err)
	}
}

// TestEmuLazyDefaultOrder checks when the queued default stream's work
// runs: not at Memset32 (another stream's copy out queued after it sees
// the old values), but at a synchronous copy, which comes after it; at
// SyncEvent of an event recorded on it, up to the event only; after a
// WaitEvent of the default stream for another stream's event, only once
// that stream got there; and that HostFree refuses memory a queued copy
// of the default stream uses, and Reset keeps the mode.
func TestEmuLazyDefaultOrder(t *testing.T) {
	c, must := testContext(t, true, nil)
	b, err := c.Alloc(4)
	must(err)
	s, err := c.NewStream()
	must(err)
	e, err := c.NewEvent()
	must(err)
	got := make([]int32, 1)
	must(c.CopyIn(b, []int32{7}))
	must(c.Memset32(b, 1, 1))
	must(c.CopyOutAsync(int32Bytes(got), b, s))
	must(c.SyncStream(s))
	if got[0] != 7 {
		t.Errorf("another stream's copy out, not waiting: saw %d, want the old 7 (the fill still queued)", got[0])
	}
	must(c.CopyOut(got, b))
	if got[0] != 1 {
		t.Errorf("a synchronous copy out after the fill saw %d, want 1", got[0])
	}

	// SyncEvent runs the default stream up to the event, not beyond.
	must(c.Memset32(b, 3, 1))
	must(c.Record(e))
	must(c.Memset32(b, 4, 1))
	must(c.SyncEvent(e))
	must(c.CopyOutAsync(int32Bytes(got), b, s))
	must(c.SyncStream(s))
	if got[0] != 3 {
		t.Errorf("after SyncEvent of an event between two fills: saw %d, want the first fill's 3", got[0])
	}
	must(c.SyncStream(0))
	must(c.CopyOutAsync(int32Bytes(got), b, s))
	must(c.SyncStream(s))
	if got[0] != 4 {
		t.Errorf("after SyncStream(0): saw %d, want the second fill's 4", got[0])
	}

	// A wait of the default stream holds its later work back until the
	// other stream ran up to the event: without it, SyncStream(0) runs the
	// copy out before the other stream's copy in.
	for _, wait := range []bool{false, true} {
		must(c.CopyIn(b, []int32{5}))
		six := []int32{6}
		must(c.CopyInAsync(b, int32Bytes(six), s))
		must(c.RecordOn(e, s))
		if wait {
			must(c.WaitEvent(0, e))
		}
		must(c.CopyOutAsync(int32Bytes(got), b, 0))
		must(c.SyncStream(0))
		if want := map[bool]int32{false: 5, true: 6}[wait]; got[0] != want {
			t.Errorf("default stream waiting %v: its copy out saw %d, want %d", wait, got[0], want)
		}
		must(c.Synchronize())
	}

	// A launch the interpreter refuses is an error at once, queued or not.
	m, err := c.LoadModule("nop", ".version 7.8\n.target sm_52\n.address_size 64\n.visible .entry nop()\n{\n\tret;\n}\n")
	must(err)
	f, err := c.Function(m, "nop")
	must(err)
	if err := c.Launch(context.Background(), f, Dim3{1, 1, 1}, Dim3{2048, 1, 1}, 0, nil); err == nil {
		t.Error("queuing a launch of 2048 threads a block: no error")
	}
	must(c.Launch(context.Background(), f, Dim3{1, 1, 1}, Dim3{32, 1, 1}, 0, nil))
	must(c.Synchronize())
	if k := c.kernels[f-1]; k.Launches() != 1 {
		t.Errorf("the checked launches ran the kernel %d times, want once", k.Launches())
	}

	host, err := c.HostAlloc(4)
	must(err)
	must(c.CopyOutAsync(host, b, 0))
	if err := c.HostFree(host); err == nil {
		t.Error("HostFree of memory a queued copy of the default stream uses: no error")
	}
	must(c.SyncStream(0))
	must(c.HostFree(host))

	must(c.Reset())
	b, err = c.Alloc(4)
	must(err)
	s, err = c.NewStream()
	must(err)
	must(c.Memset32(b, 8, 1))
	must(c.CopyOutAsync(int32Bytes(got), b, s))
	must(c.Synchronize())
	if got[0] == 8 {
		t.Error("after Reset, another stream's copy out saw the default stream's fill: the mode is off")
	}
}

// TestEmuWaitValue queues, on one stream, a wait for a word to reach a
// value and then a copy of data out; on another stream (the default one,
// lazy, or one from NewStream), a copy of the data in and then writes of
// the word. The copy out must see the data, in the usual order, in
// shuffled ones and with the default stream a queue; a wait that no
// queued work can end is an error, not a hang; and the comparison counts
// round (a word past 2^31 above the value has reached it).
func TestEmuWaitValue(t *testing.T) {
	seeds := []*uint64{nil}
	for s := range uint64(8) {
		seeds = append(seeds, &s)
	}
	for _, lazy := range []bool{false, true} {
		for _, seed := range seeds {
			for _, fromDefault := range []bool{false, true} {
				c, must := testContext(t, lazy, seed)
				const n = 16
				data, err := c.Alloc(4 * n)
				must(err)
				word, err := c.Alloc(4)
				must(err)
				must(c.Memset32(data, 1, n))
				must(c.Memset32(word, 0xfffffffe, 1)) // -2: below 3 counting round
				must(c.Synchronize())                 // the fills before the other streams' work
				waits, err := c.NewStream()
				must(err)
				writes := Stream(0)
				if !fromDefault {
					if writes, err = c.NewStream(); err != nil {
						t.Fatal(err)
					}
				}
				src, got := make([]int32, n), make([]int32, n)
				for i := range src {
					src[i] = 2
				}
				must(c.WaitValue(waits, word, 3))
				must(c.CopyOutAsync(int32Bytes(got), data, waits))
				must(c.CopyInAsync(data, int32Bytes(src), writes))
				must(c.CopyInAsync(word, int32Bytes([]int32{1}), writes))
				must(c.CopyInAsync(word, int32Bytes([]int32{3}), writes))
				must(c.SyncStream(waits))
				if got[0] != 2 || got[n-1] != 2 {
					t.Errorf("lazy %v, seed %v, writes from the default stream %v: the copy after the wait saw %d, want 2",
						lazy, seed != nil, fromDefault, got[0])
				}
				must(c.Synchronize())
			}
		}
	}
	c, must := testContext(t, false, nil)
	word, err := c.Alloc(4)
	must(err)
	must(c.Memset32(word, 0x80000005, 1))
	s, err := c.NewStream()
	must(err)
	must(c.WaitValue(s, word, 6)) // 2^31 - 1 above 6
	if err := c.SyncStream(s); err != nil {
		t.Errorf("a word 2^31-1 above the value: %v, want the wait passed", err)
	}
	must(c.Memset32(word, 5, 1))
	must(c.WaitValue(s, word, 6))
	if err := c.SyncStream(s); err == nil {
		t.Error("a wait that no queued work can end passed")
	}
}

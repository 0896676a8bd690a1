package gpu

import (
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// int32Bytes views v as bytes.
func int32Bytes(v []int32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 4*len(v))
}

// streamChecks runs copies on two streams of dev ordered by events, 2D
// copies and registered memory, and checks what the host sees once it has
// waited. deferred also checks that the work of a stream waits until it is
// needed (the emulator's rule; on a card it may have run already).
func streamChecks(t *testing.T, dev *Device, deferred bool) {
	dev.mu.Lock()
	defer dev.mu.Unlock()
	c := dev.ctx
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	const n = 1000
	a, err := c.Alloc(4 * n)
	must(err)
	defer c.Free(a)
	must(c.Memset32(a, 7, n))
	s1, err := c.NewStream()
	must(err)
	defer c.DestroyStream(s1)
	s2, err := c.NewStream()
	must(err)
	defer c.DestroyStream(s2)
	e1, err := c.NewEvent()
	must(err)
	defer c.DestroyEvent(e1)
	e2, err := c.NewEvent()
	must(err)
	defer c.DestroyEvent(e2)
	// filled makes s1 wait for the default stream's fill of a: s1 does
	// not wait for the default stream by itself.
	e0, err := c.NewEvent()
	must(err)
	defer c.DestroyEvent(e0)
	filled := func() {
		t.Helper()
		must(c.RecordOn(e0, 0))
		must(c.WaitEvent(s1, e0))
	}
	filled()

	src := make([]int32, n)
	for i := range src {
		src[i] = int32(i*3 - 500)
	}
	must(c.HostRegister(int32Bytes(src)))
	if err := c.HostRegister(int32Bytes(src[10:20])); err == nil {
		t.Error("registering registered memory again: no error")
	}
	must(c.CopyInAsync(a, int32Bytes(src), s1))
	must(c.RecordOn(e1, s1))
	got := make([]int32, n)
	if deferred {
		must(c.CopyOut(got, a))
		if got[1] != 7 {
			t.Errorf("a copy queued on a stream ran before anything waited for it: %d", got[1])
		}
		if err := c.HostUnregister(int32Bytes(src)); err == nil || !strings.Contains(err.Error(), "still uses") {
			t.Errorf("unregistering memory a queued copy uses: %v", err)
		}
	}
	// s2 waits for s1's copy, then copies back into registered memory.
	must(c.HostRegister(int32Bytes(got)))
	must(c.WaitEvent(s2, e1))
	must(c.CopyOutAsync(int32Bytes(got), a, s2))
	must(c.RecordOn(e2, s2))
	must(c.SyncEvent(e2))
	if !slices.Equal(got, src) {
		t.Errorf("after s2 waited for s1: got %v…, want %v…", got[:4], src[:4])
	}
	if _, err := c.Elapsed(e1, e2); err != nil {
		t.Errorf("elapsed between events of two streams: %v", err)
	}
	must(c.HostUnregister(int32Bytes(src)))
	must(c.HostUnregister(int32Bytes(got)))
	if err := c.HostUnregister(int32Bytes(got)); err == nil {
		t.Error("unregistering memory twice: no error")
	}

	// 2D: a 5×7 host matrix into rows of 16 values on the device and back
	// into rows of 9 values.
	const rows, w, dp, hp = 5, 7, 16, 9
	host := make([]int32, rows*w)
	for i := range host {
		host[i] = int32(100 + i)
	}
	must(c.Memset32(a, 1, n))
	filled()
	must(c.CopyIn2DAsync(a, 4*dp, int32Bytes(host), 4*w, 4*w, rows, s1))
	back := make([]int32, rows*hp)
	must(c.CopyOut2DAsync(int32Bytes(back), 4*hp, a, 4*dp, 4*w, rows, s1))
	must(c.SyncStream(s1))
	for r := range rows {
		for j := range hp {
			want := int32(0)
			if j < w {
				want = host[r*w+j]
			}
			if back[r*hp+j] != want {
				t.Fatalf("2D round trip: [%d][%d] = %d, want %d", r, j, back[r*hp+j], want)
			}
		}
	}
	whole := make([]int32, rows*dp)
	must(c.CopyOut(whole, a))
	if whole[w] != 1 || whole[dp] != host[w] {
		t.Errorf("2D copy in: padding %d (want 1), row 1 starts with %d (want %d)", whole[w], whole[dp], host[w])
	}
	if err := c.CopyOut2DAsync(int32Bytes(back[:10]), 4*hp, a, 4*dp, 4*w, rows, s1); err == nil {
		t.Error("2D copy into too little host memory: no error")
	}
	must(c.Synchronize())
}

// TestEmuStreams checks the emulator's streams, events and registered
// memory, and that queued work waits until something needs it, with the
// default stream's work run at once and queued (EmulatorLazyDefault).
func TestEmuStreams(t *testing.T) {
	streamChecks(t, emulator(t), true)
	streamChecks(t, lazyEmulators(t, 1)[0], true)
}

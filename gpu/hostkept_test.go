package gpu

import (
	"context"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/pathnotes/pathnotes/graph"
)

// keptAt returns a copy of keptRegs' entry at at, or nil.
func keptAt(at uintptr) *keptReg {
	keptRegs.Lock()
	defer keptRegs.Unlock()
	if e := keptRegs.regs[at]; e != nil {
		c := *e
		return &c
	}
	return nil
}

// TestKeepRegistered follows one piece of memory through keepRegistered
// and its cleanups on the emulator, whose driver refuses to register
// memory that overlaps a registration: a new result on the same memory
// takes the registration over, and the old owner's cleanup leaves it
// alone; a result on part of it ends the old registration and starts its
// own; the owner's cleanup ends it; past keptTotalMax nothing is
// registered.
func TestKeepRegistered(t *testing.T) {
	defer func(m uint64) { keptTotalMax = m }(keptTotalMax)
	ctx := emulator(t).ctx
	m := uninitInt32s(1 << 16)
	at := uintptr(unsafe.Pointer(&m[0]))
	// registered says whether the driver holds a registration that
	// overlaps b: it refuses a new one.
	registered := func(b []int32) bool {
		if ctx.HostRegister(asBytes(b)) != nil {
			return true
		}
		if err := ctx.HostUnregister(asBytes(b)); err != nil {
			t.Fatal(err)
		}
		return false
	}
	if !keepRegistered(ctx, m) {
		t.Fatal("keepRegistered refused 256 KiB")
	}
	first := keptAt(at)
	if first == nil || first.n != len(m)*4 || !registered(m) {
		t.Fatalf("after keepRegistered: entry %+v, registered %v", first, registered(m))
	}
	// The same memory for a new result, as when a collected result's
	// memory comes back before its cleanup ran.
	if !keepRegistered(ctx, m) {
		t.Fatal("keepRegistered refused memory it had registered itself")
	}
	second := keptAt(at)
	if second == nil || second.gen == first.gen {
		t.Fatalf("the new owner did not take the registration over: %+v", second)
	}
	unkeep(keptKey{at: at, gen: first.gen})
	if keptAt(at) == nil || !registered(m) {
		t.Fatal("the old owner's cleanup ended the registration its successor took over")
	}
	// Part of the memory for a new result.
	half := m[:len(m)/2]
	if !keepRegistered(ctx, half) {
		t.Fatal("keepRegistered refused memory that overlaps a kept registration")
	}
	third := keptAt(at)
	if third == nil || third.n != len(half)*4 {
		t.Fatalf("a result on half the memory: entry %+v", third)
	}
	if registered(m[len(m)/2:]) {
		t.Fatal("the registration of the whole memory did not end before its first half was registered")
	}
	unkeep(keptKey{at: at, gen: second.gen})
	if keptAt(at) == nil {
		t.Fatal("an ended registration's cleanup ended its successor's")
	}
	unkeep(keptKey{at: at, gen: third.gen})
	if keptAt(at) != nil || registered(m) {
		t.Fatal("the owner's cleanup left its registration")
	}
	keptRegs.Lock()
	keptTotalMax = keptRegs.bytes + uint64(len(m))*4 - 1
	keptRegs.Unlock()
	if keepRegistered(ctx, m) || keptAt(at) != nil || registered(m) {
		t.Fatal("keepRegistered went past keptTotalMax")
	}
	runtime.KeepAlive(m)
}

// TestFWFastKeptResults runs fwFastKept on the emulator, also on one that
// runs the streams' work in random orders.
func TestFWFastKeptResults(t *testing.T) {
	fwFastKept(t, []*Device{emulator(t), shuffledEmulators(t, 1, 25)[0]}, []int{257})
}

// fwFastKept runs fw-fast with keepResults (from 64 KiB of results) on
// each device against the CPU, on random graphs of each size, checks on
// the first device that a live result's matrices are kept page-locked,
// and that they are no longer once it is collected.
func fwFastKept(t *testing.T, devs []*Device, sizes []int) {
	defer func(k bool, least int) { keepResults, keptMinBytes = k, least }(keepResults, keptMinBytes)
	keepResults, keptMinBytes = true, 64<<10
	v, err := Lookup(VariantFWFast)
	if err != nil {
		t.Fatal(err)
	}
	for _, dev := range devs {
		for _, n := range sizes {
			for _, tg := range randomGraphs(t, n, 25) {
				checkVariant(t, dev, v, tg, true)
				checkVariant(t, dev, v, tg, false)
			}
		}
	}
	g, err := graph.GNM(200, 2000, graph.WeightRange{Min: 1, Max: 9}, 25)
	if err != nil {
		t.Fatal(err)
	}
	res, err := FWFast(context.Background(), g, Options{Device: devs[0], Pred: true})
	if err != nil {
		t.Fatal(err)
	}
	at := [2]uintptr{uintptr(unsafe.Pointer(&res.Dist[0])), uintptr(unsafe.Pointer(&res.Pred[0]))}
	for _, a := range at {
		if keptAt(a) == nil {
			t.Fatalf("a live result's matrix at %#x is not kept page-locked", a)
		}
	}
	runtime.KeepAlive(res)
	res = nil
	for range 200 {
		runtime.GC()
		if keptAt(at[0]) == nil && keptAt(at[1]) == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("a collected result's matrices are still kept page-locked after 200 collections")
}

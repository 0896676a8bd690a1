package gpu

import (
	"context"
	"runtime"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/pathnotes/pathnotes/graph"
)

// registeredOn says whether dev's driver holds a registration that
// overlaps m: it refuses a new one (the emulator as a card's driver does).
func registeredOn(t *testing.T, dev *Device, m []int32) bool {
	t.Helper()
	if dev.ctx.HostRegister(asBytes(m)) != nil {
		return true
	}
	if err := dev.ctx.HostUnregister(asBytes(m)); err != nil {
		t.Fatal(err)
	}
	return false
}

// pooledBack collects garbage until keptPool holds a matrix of n values
// for dev, and takes it (nil after 200 collections).
func pooledBack(dev *Device, n int) []int32 {
	for range 200 {
		runtime.GC()
		if m := takeKept(dev.ctx, n); m != nil {
			return m
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}

// drainKept releases every pooled matrix.
func drainKept() {
	keptPool.Lock()
	defer keptPool.Unlock()
	for _, k := range keptPool.free {
		releaseKept(k)
	}
	keptPool.free = nil
}

// address is the address of m's first value.
func address(m []int32) uintptr { return uintptr(unsafe.Pointer(&m[0])) }

// TestKeptPool follows page-locked matrices through keptPool on the
// emulator: a collected one comes back registered, once; past
// keptTotalMax the pool's oldest is released to make room, and with no
// room left nothing is registered.
func TestKeptPool(t *testing.T) {
	defer func(m uint64) { keptTotalMax = m }(keptTotalMax)
	defer drainKept()
	dev := emulator(t)
	const n = 1 << 16
	m := uninitInt32s(n)
	if !registerKept(dev.ctx, m) || !registeredOn(t, dev, m) {
		t.Fatal("registerKept did not register 256 KiB")
	}
	at := address(m)
	poolWhenCollected(dev.ctx, m)
	m = nil
	back := pooledBack(dev, n)
	if back == nil || address(back) != at {
		t.Fatal("a collected matrix did not come back from the pool")
	}
	if !registeredOn(t, dev, back) {
		t.Fatal("a pooled matrix is no longer registered")
	}
	if takeKept(dev.ctx, n) != nil {
		t.Fatal("the pool gave one matrix twice")
	}
	keptPool.Lock()
	keptPool.free = append(keptPool.free, keptMatrix{ctx: dev.ctx, m: back})
	keptTotalMax = keptPool.bytes
	keptPool.Unlock()
	other := uninitInt32s(n)
	if !registerKept(dev.ctx, other) {
		t.Fatal("registerKept did not release the pool's matrix to make room")
	}
	if registeredOn(t, dev, back) || takeKept(dev.ctx, n) != nil {
		t.Fatal("the matrix released to make room is still registered or pooled")
	}
	third := uninitInt32s(n)
	if registerKept(dev.ctx, third) || registeredOn(t, dev, third) {
		t.Fatal("registerKept went past keptTotalMax")
	}
	keptPool.Lock()
	releaseKept(keptMatrix{ctx: dev.ctx, m: other})
	keptPool.Unlock()
}

// TestFWFastKeptResults runs fwFastKept on the emulator, also on one that
// runs the streams' work in random orders.
func TestFWFastKeptResults(t *testing.T) {
	fwFastKept(t, []*Device{emulator(t), shuffledEmulators(t, 1, 25)[0]}, []int{257})
}

// fwFastKept runs fw-fast with keepResults (from 64 KiB of results) on
// each device against the CPU, on random graphs of each size. On the
// first device it checks that a live result's matrices are page-locked,
// that a collected result's come back to the pool, and that the next
// call of that size takes them and writes every value (they are poisoned
// first).
func fwFastKept(t *testing.T, devs []*Device, sizes []int) {
	defer func(k bool, least int) { keepResults, keptMinBytes = k, least }(keepResults, keptMinBytes)
	defer drainKept()
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
	drainKept()
	dev := devs[0]
	g, err := graph.GNM(200, 2000, graph.WeightRange{Min: 1, Max: 9}, 25)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := FWFast(ctx, g, Options{Device: dev, Pred: true})
	if err != nil {
		t.Fatal(err)
	}
	if !registeredOn(t, dev, res.Dist) || !registeredOn(t, dev, res.Pred) {
		t.Fatal("a live result's matrices are not page-locked")
	}
	dist, pred := slices.Clone(res.Dist), slices.Clone(res.Pred)
	at := map[uintptr]bool{address(res.Dist): true, address(res.Pred): true}
	runtime.KeepAlive(res)
	res = nil
	for range 2 {
		m := pooledBack(dev, len(dist))
		if m == nil || !at[address(m)] {
			t.Fatal("a collected result's matrix did not come back to the pool")
		}
		for i := range m {
			m[i] = -7
		}
		keptPool.Lock()
		keptPool.free = append(keptPool.free, keptMatrix{ctx: dev.ctx, m: m})
		keptPool.Unlock()
	}
	again, err := FWFast(ctx, g, Options{Device: dev, Pred: true})
	if err != nil {
		t.Fatal(err)
	}
	if !at[address(again.Dist)] || !at[address(again.Pred)] {
		t.Fatal("the next result of that size did not take the pooled matrices")
	}
	if !slices.Equal(again.Dist, dist) || !slices.Equal(again.Pred, pred) {
		t.Fatal("a result on pooled matrices differs from the first")
	}
}

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
		if k, ok := takeKept(dev, n); ok {
			return k.m
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}

// settleKept empties keptPool of what earlier tests left: their results'
// matrices come back as they are collected, and are released.
func settleKept() {
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the finalizers run
		drainKept()
	}
}

// drainKept waits for registerLater's registrations and releases every
// pooled matrix.
func drainKept() {
	keptPool.later.Wait()
	keptPool.Lock()
	defer keptPool.Unlock()
	for _, k := range keptPool.free {
		keptPool.bytes -= k.size()
		k.release()
	}
	keptPool.free = nil
}

// releaseLive releases k, a matrix out of the pool.
func releaseLive(k keptMatrix) {
	keptPool.Lock()
	keptPool.bytes -= k.size()
	keptPool.Unlock()
	k.release()
}

// pool puts k back into keptPool.
func pool(k keptMatrix) {
	keptPool.Lock()
	keptPool.free = append(keptPool.free, k)
	keptPool.Unlock()
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
	settleKept()
	dev := emulator(t)
	const n = 1 << 16
	m := uninitInt32s(n)
	if !registerKept(dev, m) || !registeredOn(t, dev, m) {
		t.Fatal("registerKept did not register 256 KiB")
	}
	at := address(m)
	poolWhenCollected(keptMatrix{dev: dev, epoch: dev.epoch.Load(), m: m})
	m = nil
	back := pooledBack(dev, n)
	if back == nil || address(back) != at {
		t.Fatal("a collected matrix did not come back from the pool")
	}
	if !registeredOn(t, dev, back) {
		t.Fatal("a pooled matrix is no longer registered")
	}
	if _, ok := takeKept(dev, n); ok {
		t.Fatal("the pool gave one matrix twice")
	}
	pool(keptMatrix{dev: dev, epoch: dev.epoch.Load(), m: back})
	keptPool.Lock()
	keptTotalMax = keptPool.bytes
	keptPool.Unlock()
	other := uninitInt32s(n)
	if !registerKept(dev, other) {
		t.Fatal("registerKept did not release the pool's matrix to make room")
	}
	if _, ok := takeKept(dev, n); registeredOn(t, dev, back) || ok {
		t.Fatal("the matrix released to make room is still registered or pooled")
	}
	third := uninitInt32s(n)
	if registerKept(dev, third) || registeredOn(t, dev, third) {
		t.Fatal("registerKept went past keptTotalMax")
	}
	// A context reset drops the registrations: the pool forgets a
	// matrix of the old context, and its bytes no longer count.
	keptPool.Lock()
	before := keptPool.bytes
	keptPool.Unlock()
	releaseLive(keptMatrix{dev: dev, epoch: dev.epoch.Load(), m: other})
	if !registerKept(dev, third) {
		t.Fatal("registerKept found no room after a release")
	}
	pool(keptMatrix{dev: dev, epoch: dev.epoch.Load() - 1, m: third}) // as if registered before a reset
	if _, ok := takeKept(dev, n); ok {
		t.Fatal("the pool gave a matrix of a context that was reset")
	}
	keptPool.Lock()
	after, left := keptPool.bytes, len(keptPool.free)
	keptPool.Unlock()
	if after != before-uint64(n)*4 || left != 0 {
		t.Fatalf("after a stale matrix left the pool: %d bytes held (want %d), %d pooled", after, before-uint64(n)*4, left)
	}
	_ = dev.ctx.HostUnregister(asBytes(third))
}

// TestKeptLoop calls fw-fast on the emulator as a loop that drops each
// result, then as one that keeps them all. Dropped, every call after the
// first few (all but 6 of 30 here; none without collectKept) takes
// pooled matrices: collectKept brings them back between
// calls. Kept, collectKept collects ever more rarely.
func TestKeptLoop(t *testing.T) {
	defer func(k bool, least int) { keepResults, keptMinBytes = k, least }(keepResults, keptMinBytes)
	defer drainKept()
	keepResults, keptMinBytes = true, 64<<10
	dev := emulator(t)
	g, err := graph.GNM(160, 1600, graph.WeightRange{Min: 1, Max: 9}, 3)
	if err != nil {
		t.Fatal(err)
	}
	const calls = 30
	counts := func() (taken, collections int) {
		keptPool.Lock()
		defer keptPool.Unlock()
		return keptPool.taken, keptPool.collections
	}
	// settled waits, up to a second, for the collection a call started
	// to bring the last result back: on a busy host (the emulator keeps
	// the cores busy) it may not run before the next call otherwise.
	settled := func() {
		keptPool.later.Wait()
		for range 100 {
			keptPool.Lock()
			back := !keptPool.collecting && slices.ContainsFunc(keptPool.free, func(k keptMatrix) bool { return len(k.m) == g.N()*g.N() })
			keptPool.Unlock()
			if back {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	taken0, _ := counts()
	for i := range calls {
		if i > 1 {
			settled()
		}
		if _, err := FWFast(context.Background(), g, Options{Device: dev}); err != nil {
			t.Fatal(err)
		}
	}
	if taken, _ := counts(); taken-taken0 < calls-6 {
		t.Fatalf("%d of %d calls that dropped their results took pooled matrices, want %d or more", taken-taken0, calls, calls-6)
	}
	drainKept()
	_, col0 := counts()
	var held []*graph.AllPairs
	for range calls {
		res, err := FWFast(context.Background(), g, Options{Device: dev})
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, res)
	}
	if _, col := counts(); col-col0 > 7 {
		t.Fatalf("%d calls that kept their results started %d collections, want 7 or fewer", calls, col-col0)
	}
	runtime.KeepAlive(held)
}

// TestFWFastKeptResults runs fwFastKept on the emulator, also on one that
// runs the streams' work in random orders.
func TestFWFastKeptResults(t *testing.T) {
	fwFastKept(t, []*Device{emulator(t), shuffledEmulators(t, 1, 25)[0]}, []int{257})
}

// fwFastKept runs fw-fast with keepResults (matrices of 64 KiB or more) on
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
	keptPool.later.Wait() // none pooled: registered after the call
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
		pool(keptMatrix{dev: dev, epoch: dev.epoch.Load(), m: m})
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

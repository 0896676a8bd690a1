package gpu

import (
	"runtime"
	"sync"
	"unsafe"

	"github.com/pathnotes/pathnotes/gpu/driver"
)

// keepResults makes viaAuto take viaRegistered for fw-fast's results of
// keptMinBytes to keptMaxBytes (all matrices): each matrix is page-locked
// while the kernels run and the device copies straight into it at the
// bus's speed, the host copying nothing. The copy back then no longer
// depends on how fast the host's cores copy (at n = 2048 the staging
// buffer's way took 0.41 to 0.58 ms on four H200 hosts, where the bus
// alone takes about 0.32). Registering costs about 33 µs a MB of touched
// memory, so a matrix stays page-locked after its call: when its result
// is collected, a finalizer keeps it for the next result of its size
// (keptPool), which takes it as it is. Off until a card has timed it
// (BenchmarkFWFastCall's "kept" cases).
var keepResults = false

// keptMinBytes and keptMaxBytes bound the results that keepResults
// keeps page-locked (variables so that tests can keep small ones), and
// keptTotalMax the bytes page-locked at once, live results' and the
// pool's: past it the oldest matrices in the pool are released, and a
// result that still finds no room takes the staging buffer's way.
var (
	keptMinBytes        = hugeMinBytes
	keptMaxBytes        = 256 << 20
	keptTotalMax uint64 = 1 << 30
)

// keptPool holds the page-locked matrices of collected results, oldest
// first, for later results of their size, and counts the bytes that
// keepResults holds page-locked (the pool's and live results'). A pooled
// matrix stays reachable, so its memory is never freed or given back to
// the system while it is registered: a registration stays true to the
// pages it locked only as long as the process keeps them mapped.
var keptPool = struct {
	sync.Mutex
	free  []keptMatrix
	bytes uint64
}{}

// keptMatrix is a matrix page-locked for ctx.
type keptMatrix struct {
	ctx driver.Context
	m   []int32
}

// takeKept returns a pooled matrix of n values page-locked for ctx, or
// nil when the pool has none.
func takeKept(ctx driver.Context, n int) []int32 {
	keptPool.Lock()
	defer keptPool.Unlock()
	for i, k := range keptPool.free {
		if k.ctx == ctx && len(k.m) == n {
			keptPool.free = append(keptPool.free[:i], keptPool.free[i+1:]...)
			return k.m
		}
	}
	return nil
}

// registerKept page-locks m for ctx, releasing the oldest pooled matrices
// while the bytes held would pass keptTotalMax, and reports whether it
// did: not when they still would, or the driver refuses.
func registerKept(ctx driver.Context, m []int32) bool {
	b := uint64(len(m)) * 4
	keptPool.Lock()
	defer keptPool.Unlock()
	for keptPool.bytes+b > keptTotalMax && len(keptPool.free) > 0 {
		releaseKept(keptPool.free[0])
		keptPool.free = keptPool.free[1:]
	}
	if b == 0 || keptPool.bytes+b > keptTotalMax || ctx.HostRegister(asBytes(m)) != nil {
		return false
	}
	keptPool.bytes += b
	return true
}

// releaseKept unregisters k, whose bytes no longer count; keptPool is
// locked.
func releaseKept(k keptMatrix) {
	_ = k.ctx.HostUnregister(asBytes(k.m)) // the memory stays usable whatever it says
	keptPool.bytes -= uint64(len(k.m)) * 4
}

// poolWhenCollected makes m, page-locked for ctx by registerKept, go to
// keptPool when nothing else refers to it any more.
func poolWhenCollected(ctx driver.Context, m []int32) {
	n := len(m)
	runtime.SetFinalizer(&m[0], func(p *int32) {
		keptPool.Lock()
		keptPool.free = append(keptPool.free, keptMatrix{ctx: ctx, m: unsafe.Slice(p, n)})
		keptPool.Unlock()
	})
}

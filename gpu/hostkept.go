package gpu

import (
	"runtime"
	"slices"
	"sync"
	"unsafe"
)

// keepResults makes viaAuto take viaRegistered for fw-fast's results of
// keptMaxBytes or less whose matrices hold keptMinBytes or more each: the
// device copies straight into page-locked matrices at the bus's speed,
// the host copying nothing, so the copy back no longer depends on how
// fast the host's cores copy. Registering costs more than it saves
// within one call (0.5 to 0.8 ms for 4 or 16 MiB on an H200 host), so a
// matrix is registered once and kept page-locked: a collected result's
// matrices go to keptPool, and the next result of their size takes them
// as they are. A result that finds none takes the staging buffer's way,
// and its matrices are registered after the call (registerLater), off
// the caller's path. At n = 2048 on two H200 hosts the whole call took
// 1.07 to 1.13 ms this way against 1.25 to 1.49 through the staging
// buffer, and 1.42 to 1.45 against 1.66 to 2.07 with Π; at n = 8192,
// 27.2 ms against 30.3 to 31.6 (docs/gpu-benchmarks.md, session 23).
var keepResults = true

// keptMinBytes and keptMaxBytes bound the results that keepResults
// keeps page-locked: each matrix keptMinBytes or more, all of them
// keptMaxBytes or less (variables so that tests can keep small ones).
// keptTotalMax bounds the bytes page-locked at once, live results' and
// the pool's: past it the oldest matrices in the pool are released, and
// a matrix that still finds no room is not kept. On an H200 host, calls
// at n = 1024 (4 MiB matrices, 0.5 ms calls) were no faster with their
// results kept, and slower with Π: the collections and registrations
// that keep the pool full cost as much as they saved. Up to 256 MiB
// (n = 8192 without Π, 5792 with it) the device's copy into kept
// matrices ran at 55 GB/s. Results of 512 MiB and more take the staging
// buffer's way: keeping them would hold gigabytes page-locked.
var (
	keptMinBytes        = 16 << 20
	keptMaxBytes        = 256 << 20
	keptTotalMax uint64 = 1 << 30
)

// keptWaitMax is the most calls that collectKept lets pass between
// collections that found nothing to pool.
const keptWaitMax = 64

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
	// collecting is set while a collection that collectKept started
	// runs; calls counts the results that found the pool without a
	// matrix of their size since the last one, wait is how many it lets
	// pass before the next, and returned counts the matrices pooled
	// since it started; collections counts them all.
	// judged is set once the last collection's outcome has set wait.
	collecting, judged                 bool
	calls, wait, returned, collections int
	// taken counts the matrices that results took from the pool.
	taken int
	// later counts the registrations registerLater has under way.
	later sync.WaitGroup
}{wait: 1}

// keptMatrix is a matrix page-locked for dev's context of epoch epoch
// (Device.epoch): a context reset drops its registrations.
type keptMatrix struct {
	dev   *Device
	epoch int64
	m     []int32
}

// stale reports whether k's registration went with a context reset.
func (k keptMatrix) stale() bool { return k.epoch != k.dev.epoch.Load() }

// takeKept returns a pooled matrix of n values page-locked for dev, or
// ok false when the pool has none. When it leaves none of that size, it
// lets collectKept start a collection, so that the results dropped since
// the last one come back before the next call of that size. Matrices of
// a context that was reset leave the pool here.
func takeKept(dev *Device, n int) (k keptMatrix, ok bool) {
	keptPool.Lock()
	defer keptPool.Unlock()
	keptPool.free = slices.DeleteFunc(keptPool.free, func(k keptMatrix) bool {
		if k.stale() {
			keptPool.bytes -= k.size() // its registration went with the context
			return true
		}
		return false
	})
	fits := func(k keptMatrix) bool { return k.dev == dev && len(k.m) == n }
	if i := slices.IndexFunc(keptPool.free, fits); i >= 0 {
		k, ok = keptPool.free[i], true
		keptPool.taken++
		keptPool.free = slices.Delete(keptPool.free, i, i+1)
	}
	if !slices.ContainsFunc(keptPool.free, fits) {
		collectKept()
	}
	return k, ok
}

// size is k's bytes.
func (k keptMatrix) size() uint64 { return uint64(len(k.m)) * 4 }

// collectKept starts a garbage collection on a goroutine of its own, so
// that the finalizers of dropped results (poolWhenCollected) refill the
// pool, unless one is under way or it is not yet time: after a collection
// that pooled nothing (a notebook that keeps its results), it lets twice
// as many calls pass before the next, up to keptWaitMax. keptPool is
// locked.
func collectKept() {
	p := &keptPool
	p.calls++
	if p.collecting {
		return
	}
	if !p.judged && p.collections > 0 {
		p.judged = true
		if p.returned == 0 {
			p.wait = min(2*p.wait, keptWaitMax)
		} else {
			p.wait = 1
		}
	}
	if p.calls < p.wait {
		return
	}
	p.calls, p.returned, p.collecting, p.judged = 0, 0, true, false
	p.collections++
	go func() {
		runtime.GC()
		keptPool.Lock()
		keptPool.collecting = false
		keptPool.Unlock()
	}()
}

// registerKept page-locks m for dev, releasing the oldest pooled matrices
// when that makes room under keptTotalMax, and reports whether it did:
// not when there is no room, or the driver refuses.
func registerKept(dev *Device, m []int32) bool {
	b := uint64(len(m)) * 4
	keptPool.Lock()
	pooled := uint64(0)
	for _, k := range keptPool.free {
		pooled += k.size()
	}
	room := b > 0 && keptPool.bytes-pooled+b <= keptTotalMax
	var out []keptMatrix
	for room && keptPool.bytes+b > keptTotalMax {
		out = append(out, keptPool.free[0])
		keptPool.bytes -= keptPool.free[0].size()
		keptPool.free = keptPool.free[1:]
	}
	if room {
		keptPool.bytes += b
	}
	keptPool.Unlock()
	for _, k := range out {
		k.release()
	}
	if room && dev.ctx.HostRegister(asBytes(m)) != nil {
		keptPool.Lock()
		keptPool.bytes -= b
		keptPool.Unlock()
		return false
	}
	return room
}

// release unregisters k, unless its context was reset; its bytes no
// longer count (the caller has taken them off keptPool.bytes).
func (k keptMatrix) release() {
	if !k.stale() {
		_ = k.dev.ctx.HostUnregister(asBytes(k.m)) // the memory stays usable whatever it says
	}
}

// poolWhenCollected makes k's matrix go to keptPool when nothing else
// refers to it any more. The finalizer must not refer to the matrix, or
// it would never be collected.
func poolWhenCollected(k keptMatrix) {
	dev, epoch, n := k.dev, k.epoch, len(k.m)
	runtime.SetFinalizer(&k.m[0], func(p *int32) {
		back := keptMatrix{dev: dev, epoch: epoch, m: unsafe.Slice(p, n)}
		keptPool.Lock()
		defer keptPool.Unlock()
		if back.stale() {
			keptPool.bytes -= back.size()
			return
		}
		keptPool.free = append(keptPool.free, back)
		keptPool.returned++
	})
}

// registerLater registers m for dev on a goroutine of its own, and pools
// it when it is collected: a result's matrix that found none pooled,
// after its call, so that the registering costs the call nothing.
func registerLater(dev *Device, m []int32) {
	k := keptMatrix{dev: dev, epoch: dev.epoch.Load(), m: m}
	keptPool.later.Add(1)
	go func() {
		defer keptPool.later.Done()
		if registerKept(dev, m) {
			poolWhenCollected(k)
		}
	}()
}

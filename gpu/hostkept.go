package gpu

import (
	"runtime"
	"sync"
	"unsafe"

	"github.com/pathnotes/pathnotes/gpu/driver"
)

// keepResults makes viaAuto take viaRegistered for fw-fast's results of
// keptMinBytes to keptMaxBytes (all matrices): each matrix is page-locked
// on the goroutine that makes it, while the kernels run, the device
// copies straight into it at the bus's speed, and it stays page-locked
// after the call, until the result is collected (keepRegistered). The
// host copies nothing, so the copy back no longer depends on how fast the
// host's cores copy (at n = 2048 the staging buffer's way took 0.41 to
// 0.58 ms on four H200 hosts, where the bus alone takes about 0.32).
// Registering costs about 33 µs a MB of touched memory, which the kernels
// hide at n ≥ 4096 but maybe not at 2048; a result that lands on a
// collected one's memory takes over its registration and pays nothing.
// Off until a card has timed it (BenchmarkFWFastCall's "kept" cases).
var keepResults = false

// keptMinBytes and keptMaxBytes bound the results that keepResults
// keeps page-locked (variables so that tests can keep small ones), and
// keptTotalMax the bytes kept page-locked at once: past it a result takes
// the staging buffer's way.
var (
	keptMinBytes        = hugeMinBytes
	keptMaxBytes        = 256 << 20
	keptTotalMax uint64 = 1 << 30
)

// keptRegs is the process's page-locked results, by their first address:
// a registration outlives its result's call and ends when the result is
// collected (unkeep), or when a later result's memory overlaps it (the
// collected result's cleanup had not run yet). gen tells the owners of
// one address apart: a result that takes over a registration bumps it, so
// that the collected owner's cleanup leaves it alone.
var keptRegs = struct {
	sync.Mutex
	regs  map[uintptr]*keptReg
	bytes uint64
	gen   uint64
}{regs: map[uintptr]*keptReg{}}

// keptReg is one kept registration: its context, its bytes and the
// generation of the result that owns it.
type keptReg struct {
	ctx driver.Context
	n   int
	gen uint64
}

// keptKey names a result's registration for its cleanup.
type keptKey struct {
	at  uintptr
	gen uint64
}

// keepRegistered page-locks m for ctx until m is collected, and reports
// whether it did. Memory of exactly m's extent still registered for ctx
// by a collected result is taken over as it is; registrations that
// overlap m otherwise (collected results' too: m's memory was theirs)
// are ended first. It refuses when the kept bytes would pass keptTotalMax
// or the driver refuses.
func keepRegistered(ctx driver.Context, m []int32) bool {
	if len(m) == 0 {
		return false
	}
	b := asBytes(m)
	at, n := uintptr(unsafe.Pointer(&b[0])), len(b)
	keptRegs.Lock()
	defer keptRegs.Unlock()
	keptRegs.gen++
	gen := keptRegs.gen
	if e := keptRegs.regs[at]; e != nil && e.n == n && e.ctx == ctx {
		e.gen = gen
	} else {
		for a, e := range keptRegs.regs {
			if a < at+uintptr(n) && at < a+uintptr(e.n) {
				endKept(a, e)
			}
		}
		if keptRegs.bytes+uint64(n) > keptTotalMax || ctx.HostRegister(b) != nil {
			return false
		}
		keptRegs.regs[at] = &keptReg{ctx: ctx, n: n, gen: gen}
		keptRegs.bytes += uint64(n)
	}
	runtime.AddCleanup(&m[0], unkeep, keptKey{at: at, gen: gen})
	return true
}

// unkeep ends the registration of a collected result, unless a later
// result owns it now.
func unkeep(k keptKey) {
	keptRegs.Lock()
	defer keptRegs.Unlock()
	if e := keptRegs.regs[k.at]; e != nil && e.gen == k.gen {
		endKept(k.at, e)
	}
}

// endKept unregisters e, which starts at at, and forgets it; keptRegs is
// locked.
func endKept(at uintptr, e *keptReg) {
	_ = e.ctx.HostUnregisterAt(at) // a closed or reset context has dropped it already
	delete(keptRegs.regs, at)
	keptRegs.bytes -= uint64(e.n)
}

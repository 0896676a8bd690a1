package ptxemu

import (
	"fmt"
	"math"
	"math/bits"
	"sync"
	"sync/atomic"
)

// launch is one kernel launch in progress.
type launch struct {
	dev         *Device
	k           *Kernel
	grid, block Dim3
	params      []byte
	sharedBytes int // static + dynamic
	nblocks     int

	next  atomic.Int64 // the next block to start
	done  atomic.Int64 // blocks finished
	stop  atomic.Bool  // a fault or a cancellation: start no more blocks
	fault atomic.Pointer[Fault]

	printf printfOutput // device-side printf, written out when the launch ends

	// code is the kernel's code, or its counting copy when the launch is
	// profiled; counts then holds each worker's counts per instruction.
	code   []inst
	counts [][]pcCount
}

// blockState is the memory of one block in flight: its warps (register
// files) and shared memory. A worker reuses one for every block it runs;
// kernels keep them between launches, so that the constant registers are
// filled in once.
type blockState struct {
	l       *launch
	idx     Dim3
	warps   []*warp
	shared  []byte
	threads int
}

// run executes every block and returns the summed statistics.
func (l *launch) run() Stats {
	workers := min(l.dev.opts.Workers, l.nblocks)
	stats := make([]Stats, workers)
	if l.code == nil {
		l.code = l.k.code
	} else {
		l.counts = make([][]pcCount, workers)
		for i := range l.counts {
			l.counts[i] = make([]pcCount, len(l.code))
		}
	}
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.worker(i, &stats[i])
		}()
	}
	wg.Wait()
	var total Stats
	for i := range stats {
		total.add(&stats[i])
	}
	return total
}

// worker runs blocks until none are left or the launch stops.
func (l *launch) worker(id int, st *Stats) {
	b := l.k.acquire(l.block.Count())
	defer l.k.release(b)
	b.l = l
	b.threads = l.block.Count()
	if cap(b.shared) < l.sharedBytes {
		b.shared = make([]byte, l.sharedBytes)
	}
	b.shared = b.shared[:l.sharedBytes]
	nw := (b.threads + 31) / 32
	for _, w := range b.warps[:nw] {
		w.blk, w.st = b, st
		w.code, w.prof = l.code, nil
		if l.counts != nil {
			w.prof = l.counts[id]
			if w.lanes == nil {
				w.lanes = new([2]laneAddrs)
			}
		}
		w.gLo, w.gLen = [allocCache]uint64{}, [allocCache]uint64{}
		if n := 32 * l.k.localBytes; cap(w.local) < n {
			w.local = make([]byte, n)
		} else {
			w.local = w.local[:n]
		}
	}
	l.setLaunchSpecials(b, id)
	for !l.stop.Load() {
		i := int(l.next.Add(1) - 1)
		if i >= l.nblocks {
			return
		}
		b.idx = l.grid.unflatten(i)
		st.Blocks++
		if f := b.execute(); f != nil {
			l.fault.CompareAndSwap(nil, f)
			l.stop.Store(true)
			return
		}
		if !l.stop.Load() {
			l.done.Add(1)
		}
	}
}

// acquire returns a block state with at least the warps for threads.
func (k *Kernel) acquire(threads int) *blockState {
	nw := (threads + 31) / 32
	k.poolMu.Lock()
	for i, b := range k.pool {
		if len(b.warps) >= nw {
			k.pool = append(k.pool[:i], k.pool[i+1:]...)
			k.poolMu.Unlock()
			return b
		}
	}
	k.poolMu.Unlock()
	b := &blockState{}
	for i := range nw {
		w := &warp{index: i, code: k.code, regs: make([]uint64, 32*k.nregs), preds: make([]uint32, k.npreds)}
		for _, c := range k.consts {
			r := w.r(c.reg)
			for l := range r {
				r[l] = c.val
			}
		}
		b.warps = append(b.warps, w)
	}
	return b
}

func (k *Kernel) release(b *blockState) {
	b.l = nil
	for _, w := range b.warps {
		w.blk, w.st = nil, nil
	}
	k.poolMu.Lock()
	k.pool = append(k.pool, b)
	k.poolMu.Unlock()
}

// execute runs the block at b.idx to its end and returns its fault, if any.
func (b *blockState) execute() *Fault {
	l := b.l
	clear(b.shared)
	nw := (b.threads + 31) / 32
	warps := b.warps[:nw]
	for _, w := range warps {
		n := min(b.threads-32*w.index, 32)
		w.exists = uint32(uint64(1)<<n - 1)
		w.live, w.active, w.pc = w.exists, w.exists, 0
		w.groups = w.groups[:0]
		w.minPC, w.forced = math.MaxInt32, false
		w.barMask, w.barVotes, w.fault = 0, 0, nil
		w.st.Warps++
		w.st.Threads += uint64(n)
	}
	l.setBlockSpecials(b)
	for {
		ran := false
		for _, w := range warps {
			if w.active == 0 {
				continue
			}
			ran = true
			w.run(sliceSteps)
			if w.fault != nil {
				return w.fault
			}
		}
		if l.stop.Load() {
			return nil
		}
		if !ran {
			waiting := false
			for _, w := range warps {
				waiting = waiting || w.barMask != 0
			}
			if !waiting {
				return b.checkDone()
			}
			if f := b.releaseBarrier(); f != nil {
				return f
			}
		}
	}
}

// checkDone makes sure no lanes were left waiting at a warp-synchronous
// instruction when the block ended.
func (b *blockState) checkDone() *Fault {
	for _, w := range b.warps[:(b.threads+31)/32] {
		if len(w.groups) > 0 {
			w.stuck()
			return w.fault
		}
	}
	return nil
}

// releaseBarrier completes a bar.sync that every warp is blocked at, after
// checking that every thread of the block is there, at the same barrier.
func (b *blockState) releaseBarrier() *Fault {
	warps := b.warps[:(b.threads+31)/32]
	var at *warp
	for _, w := range warps {
		if w.barMask == 0 {
			continue
		}
		if at == nil {
			at = w
		} else if w.barPC != at.barPC {
			in := &w.code[w.barPC]
			w.faultAt(in, bits.TrailingZeros32(w.barMask), DivergentBarrier,
				"threads wait at two different barriers: this one and the one at PTX line %d (thread %v)",
				at.code[at.barPC].line, at.thread(bits.TrailingZeros32(at.barMask)))
			return w.fault
		}
	}
	in := &at.code[at.barPC]
	for _, w := range warps {
		if gone := w.exists &^ w.live; gone != 0 {
			w.faultAt(in, bits.TrailingZeros32(gone), DivergentBarrier,
				"this thread exited without reaching the bar.sync (%d threads of the block wait there): every thread of a block must reach it",
				b.waiting())
			w.fault.Line, w.fault.Inst = int(in.line), in.text
			return w.fault
		}
		if rest := w.live &^ w.barMask; rest != 0 {
			w.stuck()
			if w.fault == nil {
				w.faultAt(in, bits.TrailingZeros32(rest), DivergentBarrier, "lanes %s never reach this barrier", laneList(rest))
			}
			return w.fault
		}
	}
	// bar.red: combine the votes of every thread.
	if in.pa >= 0 {
		var count int
		for _, w := range warps {
			count += bits.OnesCount32(w.barVotes)
		}
		for _, w := range warps {
			switch in.mode {
			case barRedPopc:
				d := w.r(in.d)
				for l := range 32 {
					d[l] = uint64(count)
				}
			case barRedAnd:
				w.setPred(in.pd, boolMask(count == b.threads), ^uint32(0))
			case barRedOr:
				w.setPred(in.pd, boolMask(count > 0), ^uint32(0))
			}
		}
	}
	for _, w := range warps {
		w.active, w.pc = w.barMask, w.barPC+1
		w.barMask, w.barVotes = 0, 0
		w.updateMin()
	}
	warps[0].st.Barriers++
	return nil
}

// waiting counts the threads parked at the block barrier.
func (b *blockState) waiting() int {
	n := 0
	for _, w := range b.warps[:(b.threads+31)/32] {
		n += bits.OnesCount32(w.barMask)
	}
	return n
}

func boolMask(b bool) uint32 {
	if b {
		return ^uint32(0)
	}
	return 0
}

// thread returns the thread index of lane l.
func (w *warp) thread(l int) Dim3 { return w.blk.l.block.unflatten(32*w.index + l) }

// faultAt stops the warp with a fault at instruction in for lane l.
func (w *warp) faultAt(in *inst, l int, kind FaultKind, format string, args ...any) {
	if w.fault != nil {
		return
	}
	b := w.blk
	w.fault = &Fault{Kind: kind, Kernel: b.l.k.name, Block: b.idx, Thread: w.thread(l),
		Line: int(in.line), Inst: in.text, Detail: fmt.Sprintf(format, args...)}
	w.active = 0
}

// memFault reports an illegal access of size bytes at addr in space sp.
func (w *warp) memFault(in *inst, l int, sp space, addr, size uint64) {
	kind := IllegalAddress
	var detail string
	switch {
	case size > 1 && addr%size != 0:
		kind = MisalignedAddress
		detail = fmt.Sprintf("the %d-byte access at %s address %#x is not %d-byte aligned", size, sp, addr, size)
	case sp == spaceGlobal:
		detail = w.blk.l.dev.mem.describe(addr, size)
	case sp == spaceGeneric:
		detail = fmt.Sprintf("generic address %#x is in no state space window and no allocation: %s", addr, w.blk.l.dev.mem.describe(addr, size))
	default:
		detail = fmt.Sprintf("the %d-byte access at %s offset %#x is outside the %d bytes of %s", size, sp, addr, w.spaceSize(sp), w.spaceWhat(sp))
	}
	w.faultAt(in, l, kind, "%s", detail)
	w.fault.Space, w.fault.Addr = sp.String(), addr
}

func (w *warp) spaceSize(sp space) int {
	l := w.blk.l
	switch sp {
	case spaceShared:
		return len(w.blk.shared)
	case spaceLocal:
		return l.k.localBytes
	case spaceConst:
		return len(l.k.mod.constBank)
	case spaceParam:
		return len(l.params)
	}
	return 0
}

func (w *warp) spaceWhat(sp space) string {
	l := w.blk.l
	switch sp {
	case spaceShared:
		return fmt.Sprintf("the block's shared memory (%d static, %d dynamic)", l.k.dynOffset, l.sharedBytes-l.k.dynOffset)
	case spaceLocal:
		return "the thread's local memory"
	case spaceConst:
		return "the module's constant bank"
	case spaceParam:
		return "the kernel's parameters"
	}
	return sp.String()
}

// setLaunchSpecials fills the special registers that are the same for
// every block of the launch: %tid, %ntid, %nctaid, %laneid, %warpid,
// %lanemask_*, %smid and the shared-memory sizes.
func (l *launch) setLaunchSpecials(b *blockState, worker int) {
	for _, s := range l.k.specials {
		for _, w := range b.warps {
			r := w.r(s.reg)
			for i := range r {
				r[i] = l.special(s.kind, w.index, i, worker)
			}
		}
	}
}

// special is the value of a launch-wide special register in lane i of
// warp wi.
func (l *launch) special(k specialKind, wi, i, worker int) uint64 {
	t := l.block.unflatten(32*wi + i)
	bit := uint32(1) << i
	switch k {
	case spTidX:
		return uint64(t.X)
	case spTidY:
		return uint64(t.Y)
	case spTidZ:
		return uint64(t.Z)
	case spWarpid:
		return uint64(wi)
	case spNtidX:
		return uint64(l.block.X)
	case spNtidY:
		return uint64(l.block.Y)
	case spNtidZ:
		return uint64(l.block.Z)
	case spNctaidX:
		return uint64(l.grid.X)
	case spNctaidY:
		return uint64(l.grid.Y)
	case spNctaidZ:
		return uint64(l.grid.Z)
	case spNwarpid:
		return uint64((l.block.Count() + 31) / 32)
	case spSmid:
		return uint64(worker)
	case spNsmid:
		return uint64(l.dev.opts.Workers)
	case spDynSmem:
		return uint64(l.sharedBytes - l.k.dynOffset)
	case spTotalSmem:
		return uint64(l.sharedBytes)
	case spLaneid:
		return uint64(i)
	case spLanemaskEq:
		return uint64(bit)
	case spLanemaskLt:
		return uint64(bit - 1)
	case spLanemaskLe:
		return uint64(bit | (bit - 1))
	case spLanemaskGt:
		return uint64(^(bit | (bit - 1)))
	case spLanemaskGe:
		return uint64(^(bit - 1))
	}
	return 0
}

// setBlockSpecials fills %ctaid for the block at b.idx.
func (l *launch) setBlockSpecials(b *blockState) {
	for _, s := range l.k.specials {
		if s.kind < spCtaidX || s.kind > spCtaidZ {
			continue
		}
		v := uint64([3]int{b.idx.X, b.idx.Y, b.idx.Z}[s.kind-spCtaidX])
		for _, w := range b.warps[:(b.threads+31)/32] {
			r := w.r(s.reg)
			for i := range r {
				r[i] = v
			}
		}
	}
}

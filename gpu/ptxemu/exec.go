package ptxemu

import (
	"math"
	"math/bits"
)

// The execution model. A warp runs its 32 lanes in lockstep: each decoded
// instruction is dispatched once for the warp and loops over the lanes of
// its active mask. When a branch splits the lanes, the warp keeps the
// other part as a parked group (pc, mask) and goes on with the part at the
// lower pc; whenever its pc reaches a parked group's pc the two merge
// again. Choosing the lowest pc makes lanes reconverge where structured
// code rejoins (after an if, after a loop) without any analysis of the
// control-flow graph. A group that runs for a whole time slice while
// others wait is rotated out, so that lanes spinning on a lock another
// lane of the warp holds cannot starve it (CUDA's independent thread
// scheduling guarantees that progress from Volta on).
//
// A block's warps take turns in time slices, so threads of a block
// interleave between barriers; bar.sync parks the arriving lanes until
// every thread of the block waits at that same barrier. Blocks run in any
// order on a pool of goroutines.

// execFn executes one instruction for the lanes in mask (the warp's active
// lanes whose guard predicate holds).
type execFn func(w *warp, in *inst, mask uint32)

// inst is a decoded instruction. Register operands are indices into the
// warp's register file (immediates and special registers are registers
// too, filled in before the kernel runs); predicate operands index the
// warp's predicate masks.
type inst struct {
	fn       execFn
	ctrl     bool  // fn sets the pc itself (branches, barriers, exits, warp-synchronous instructions)
	acc      uint8 // what a profile counts of it: accLoad, accStore, accAtomic, accBranch, or 0
	guard    int32
	guardNeg bool

	d, a, b, c, e   int32   // registers: destination, sources
	pd, pd2, pa, pb int32   // predicates: destinations, sources
	paNeg, pbNeg    bool    // sources negated (!p)
	vec             []int32 // the registers of a vector operand (ld/st .v2/.v4, mov {a,b})
	target          int32   // branch target
	off             uint64  // address offset
	size            uint8   // memory access size, bytes
	signed          bool
	addr32          bool // the address register is 32 bits wide
	ftz, sat        bool
	space           space
	mode            uint8 // op-specific: comparison, atomic op, shuffle mode, rounding
	t, t2           ptxType
	line            int32
	text            string
}

// group is a set of lanes of a warp parked at pc.
type group struct {
	pc   int32
	mask uint32
	// waiting: parked at a warp-synchronous instruction until the other
	// member lanes arrive; not runnable.
	waiting bool
}

// allocCache is how many allocations a warp remembers.
const allocCache = 4

// sliceSteps is how many instructions a warp runs before the next warp of
// its block gets a turn.
const sliceSteps = 2048

// warp is the state of 32 threads.
type warp struct {
	blk    *blockState
	code   []inst
	regs   []uint64 // register r of lane l at regs[32*r+l]
	preds  []uint32 // predicate p of lane l is bit l of preds[p]
	index  int      // warp number in the block
	exists uint32   // lanes that are threads of the block
	live   uint32   // lanes that have not exited

	pc     int32
	active uint32
	groups []group
	minPC  int32 // lowest pc of groups; math.MaxInt32 if none or while rotated
	forced bool  // running a rotated-in group: no switching on pc until the slice ends

	barMask  uint32 // lanes waiting at a bar.sync
	barPC    int32
	barVotes uint32 // bar.red: the arriving lanes whose predicate held

	switched bool // a group switch or merge happened in this slice
	steps    uint64
	fault    *Fault

	// The allocations global accesses hit last, most recent first: a
	// bounds check is then a few comparisons (kernels typically touch a
	// handful of buffers).
	gLo, gLen [allocCache]uint64
	local     []byte // per lane frames of the kernel's local memory
	st        *Stats

	// prof holds the counts per instruction of a profiled launch (nil
	// otherwise), lanes the scratch of its counters.
	prof  []pcCount
	lanes *[2]laneAddrs
}

// r returns register i's lanes.
func (w *warp) r(i int32) *[32]uint64 { return (*[32]uint64)(w.regs[int(i)*32:]) }

// setPred writes the lanes of mask of predicate p from v.
func (w *warp) setPred(p int32, v, mask uint32) { w.preds[p] = w.preds[p]&^mask | v&mask }

// run executes up to budget instructions and returns early when the warp
// blocks (barrier, warp-synchronous wait), ends or faults. Every
// rotateSteps instructions in which the active group ran alone while
// others waited, the next group gets a turn.
func (w *warp) run(budget int) {
	for budget > 0 && w.active != 0 && w.fault == nil {
		n := min(budget, rotateSteps)
		budget -= n
		if w.forced {
			w.forced = false
			w.updateMin()
		}
		w.switched = false
		if w.steps1(n) && len(w.groups) > 0 && !w.switched {
			w.rotate()
		}
	}
}

// rotateSteps is how long a group of lanes runs alone before another
// group of its warp that is ready gets a turn. Long enough that lanes
// which leave a loop early normally wait for the others and reconverge
// (as %activemask and the old non-.sync warp instructions expect); short
// enough that a lane spinning on a lock another lane holds lets it go on
// after a few microseconds.
const rotateSteps = 4096

// steps1 executes up to n instructions and reports whether it did all n.
func (w *warp) steps1(n int) bool {
	code := w.code
	first := w.steps
	var executed uint64
	for ; n > 0 && w.active != 0 && w.fault == nil; n-- {
		in := &code[w.pc]
		mask := w.active
		if in.guard >= 0 {
			g := w.preds[in.guard]
			if in.guardNeg {
				g = ^g
			}
			mask &= g
		}
		w.steps++
		executed += uint64(bits.OnesCount32(mask))
		if in.ctrl {
			in.fn(w, in, mask)
			continue
		}
		if mask != 0 {
			in.fn(w, in, mask)
		}
		w.pc++
		if w.pc >= w.minPC {
			w.reschedule()
		}
	}
	w.st.Instructions += w.steps - first
	w.st.ThreadInstructions += executed
	return n == 0
}

// jump moves the active lanes to pc and merges or switches groups.
func (w *warp) jump(pc int32) {
	w.pc = pc
	if pc >= w.minPC {
		w.reschedule()
	}
}

// park sets the lanes of mask aside at pc.
func (w *warp) park(pc int32, mask uint32, waiting bool) {
	for i := range w.groups {
		if g := &w.groups[i]; g.pc == pc && g.waiting == waiting {
			g.mask |= mask
			return
		}
	}
	w.groups = append(w.groups, group{pc, mask, waiting})
	if pc < w.minPC && !w.forced {
		w.minPC = pc
	}
}

// updateMin recomputes minPC.
func (w *warp) updateMin() {
	w.minPC = math.MaxInt32
	for _, g := range w.groups {
		w.minPC = min(w.minPC, g.pc)
	}
}

// reschedule merges the groups parked at the current pc into the active
// lanes and, if a runnable group is at a lower pc, switches to it.
func (w *warp) reschedule() {
	if w.forced {
		return
	}
	w.switched = true
	keep := w.groups[:0]
	for _, g := range w.groups {
		if g.pc == w.pc && w.active != 0 {
			w.active |= g.mask
			continue
		}
		keep = append(keep, g)
	}
	w.groups = keep
	w.updateMin()
	if w.active == 0 {
		w.pickNext()
		return
	}
	best := -1
	for i, g := range w.groups {
		if !g.waiting && g.pc < w.pc && (best < 0 || g.pc < w.groups[best].pc) {
			best = i
		}
	}
	if best >= 0 {
		cur := group{pc: w.pc, mask: w.active}
		next := w.groups[best]
		w.groups[best] = cur
		w.pc, w.active = next.pc, next.mask
		w.updateMin()
		if w.pc == w.minPC {
			w.reschedule()
		}
	}
}

// pickNext makes the runnable group with the lowest pc active, after the
// active lanes have exited or parked. With none left the warp is done,
// waits at a barrier, or is stuck at a warp-synchronous instruction.
func (w *warp) pickNext() {
	w.switched, w.forced = true, false
	best := -1
	for i, g := range w.groups {
		if !g.waiting && (best < 0 || g.pc < w.groups[best].pc) {
			best = i
		}
	}
	if best < 0 {
		w.active = 0
		if len(w.groups) > 0 && w.barMask == 0 {
			w.stuck()
		}
		return
	}
	g := w.groups[best]
	w.groups = append(w.groups[:best], w.groups[best+1:]...)
	w.pc, w.active = g.pc, g.mask
	w.updateMin()
	if w.pc == w.minPC {
		w.reschedule()
	}
}

// rotate gives the processor to the next group in pc order (the first
// runnable one above the current pc, else the lowest) after a slice in
// which the active group ran alone, and lets it run for a whole slice.
func (w *warp) rotate() {
	if w.active == 0 {
		return
	}
	above, lowest := -1, -1
	for i, g := range w.groups {
		if g.waiting {
			continue
		}
		if g.pc > w.pc && (above < 0 || g.pc < w.groups[above].pc) {
			above = i
		}
		if lowest < 0 || g.pc < w.groups[lowest].pc {
			lowest = i
		}
	}
	next := above
	if next < 0 {
		next = lowest
	}
	if next < 0 {
		return
	}
	g := w.groups[next]
	w.groups[next] = group{pc: w.pc, mask: w.active}
	w.pc, w.active = g.pc, g.mask
	w.forced, w.minPC = true, math.MaxInt32
}

// stuck reports lanes waiting at a warp-synchronous instruction for member
// lanes that will never arrive.
func (w *warp) stuck() {
	for _, g := range w.groups {
		if g.waiting {
			in := &w.code[g.pc]
			w.faultAt(in, bits.TrailingZeros32(g.mask), WarpSyncMisuse,
				"lanes %s wait for member lanes %s, which ended or went elsewhere",
				laneList(g.mask), laneList(w.exists&uint32(w.r(in.e)[bits.TrailingZeros32(g.mask)])&^g.mask))
			return
		}
	}
}

// exit ends the lanes of mask.
func opExit(w *warp, in *inst, mask uint32) {
	w.live &^= mask
	w.active &^= mask
	if w.active == 0 {
		w.pickNext()
		return
	}
	w.jump(w.pc + 1)
}

// opBra branches the lanes of mask to in.target.
func opBra(w *warp, in *inst, mask uint32) {
	switch {
	case mask == w.active:
		w.jump(in.target)
	case mask == 0:
		w.jump(w.pc + 1)
	default:
		fall := w.active &^ mask
		if in.target <= w.pc {
			w.park(w.pc+1, fall, false)
			w.active = mask
			w.jump(in.target)
		} else {
			w.park(in.target, mask, false)
			w.active = fall
			w.jump(w.pc + 1)
		}
	}
}

// opBarSync parks the lanes of mask at the block barrier; lanes whose
// guard is false go on. For bar.red, in.pa is the predicate to reduce.
func opBarSync(w *warp, in *inst, mask uint32) {
	if w.barMask != 0 && w.barPC != w.pc {
		w.faultAt(in, bits.TrailingZeros32(mask), DivergentBarrier,
			"lanes %s of this warp wait at the barrier of PTX line %d, lanes %s arrive at this one",
			laneList(w.barMask), w.code[w.barPC].line, laneList(mask))
		return
	}
	if in.pa >= 0 {
		v := w.preds[in.pa]
		if in.paNeg {
			v = ^v
		}
		w.barVotes |= v & mask
	}
	w.barMask |= mask
	w.barPC = w.pc
	w.st.BarrierWaits += uint64(bits.OnesCount32(mask))
	w.active &^= mask
	if w.active == 0 {
		w.pickNext()
		return
	}
	w.jump(w.pc + 1)
}

// gather implements the convergence rule of the .sync warp instructions:
// the lanes of membermask (register in.e) must all execute this
// instruction together. It returns the member lanes when they are all
// here; otherwise it parks the active lanes to wait, or faults, and
// returns false.
func (w *warp) gather(in *inst, mask uint32) (uint32, bool) {
	if w.active == 0 {
		return 0, false
	}
	if in.e < 0 {
		return w.active, true // the non-.sync forms: the lanes that are here
	}
	lane := bits.TrailingZeros32(w.active)
	member := uint32(w.r(in.e)[lane])
	if mask&^member != 0 {
		w.faultAt(in, bits.TrailingZeros32(mask&^member), WarpSyncMisuse,
			"lanes %s execute it but are not in its membermask %#08x", laneList(mask&^member), member)
		return 0, false
	}
	need := member & w.exists
	if gone := need &^ w.live; gone != 0 {
		w.faultAt(in, lane, WarpSyncMisuse, "membermask %#08x names lanes %s, which have exited", member, laneList(gone))
		return 0, false
	}
	if need&^w.active == 0 {
		return member, true
	}
	w.park(w.pc, w.active, true)
	w.active = 0
	w.pickNext()
	return 0, false
}

// opWarpSync is bar.warp.sync.
func opWarpSync(w *warp, in *inst, mask uint32) {
	if _, ok := w.gather(in, mask); ok {
		w.st.WarpSyncs++
		w.jump(w.pc + 1)
	}
}

// laneList formats a lane mask as "0-3,7".
func laneList(m uint32) string {
	s := ""
	for m != 0 {
		lo := bits.TrailingZeros32(m)
		hi := lo
		for hi+1 < 32 && m&(1<<(hi+1)) != 0 {
			hi++
		}
		if s != "" {
			s += ","
		}
		if hi == lo {
			s += itoa(lo)
		} else {
			s += itoa(lo) + "-" + itoa(hi)
		}
		m &^= uint32((uint64(1)<<(hi+1) - 1) &^ (uint64(1)<<lo - 1))
	}
	return s
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

package ptxemu

import (
	"math/bits"
	"slices"
	"sort"
)

// Profiling counts, per launch, what a profiler such as Nsight Compute
// counts on a card for the memory system: the warp-level requests of
// global and shared accesses, the 32-byte sectors each global request
// touches, and the wavefronts each shared request takes on 32 banks of 4
// bytes. It is off unless Device.SetProfiler turns it on; a launch then
// runs a copy of the kernel's code whose memory instructions and branches
// count before they execute, so that launches without a profiler pay
// nothing for it.

// Access classes of instructions, for the profile (inst.acc).
const (
	accNone uint8 = iota
	accLoad
	accStore
	accAtomic
	accBranch
)

// Indices of Profile.Global and Profile.Shared.
const (
	Load = iota
	Store
	Atomic
)

// AccessNames name the entries of Profile.Global and Profile.Shared, in
// index order.
var AccessNames = [...]string{"load", "store", "atomic"}

// SectorBytes is the size of the unit in which global memory moves
// between the L1 and L2 caches and DRAM on every NVIDIA card since
// Maxwell: a request moves whole 32-byte sectors.
const SectorBytes = 32

// Banks and BankBytes describe shared memory: 32 banks of 4-byte words,
// each of which serves one word per wavefront (cycle).
const (
	Banks     = 32
	BankBytes = 4
)

// MemCounts count the accesses of one kind (loads, stores or atomics) to
// one state space.
type MemCounts struct {
	// Requests counts warp-level instructions that had at least one active
	// lane: one per execution of a ld, st or atom by a warp.
	Requests uint64
	// Bytes is what the active lanes asked for: lanes × access size.
	Bytes uint64
	// Sectors (global memory) counts the distinct 32-byte sectors each
	// request touched, summed: 4 for 32 lanes reading consecutive 4-byte
	// words, 32 for 32 lanes reading words 128 bytes apart.
	Sectors uint64
	// Wavefronts (shared memory) counts the passes the banks needed, and
	// Conflicts those beyond the ideal (one per 128 distinct bytes, in
	// each half-warp for 8- and 16-byte accesses): the extra passes that
	// bank conflicts cost. Lanes reading the same word share a pass
	// (broadcast).
	Wavefronts, Conflicts uint64
}

// SectorsPerRequest is Sectors / Requests (0 without requests).
func (c MemCounts) SectorsPerRequest() float64 { return ratio(c.Sectors, c.Requests) }

// Moved is the bytes the requests moved in whole sectors: 32 × Sectors.
func (c MemCounts) Moved() uint64 { return SectorBytes * c.Sectors }

// add accumulates o into c.
func (c *MemCounts) add(o *MemCounts) {
	c.Requests += o.Requests
	c.Bytes += o.Bytes
	c.Sectors += o.Sectors
	c.Wavefronts += o.Wavefronts
	c.Conflicts += o.Conflicts
}

func ratio(a, b uint64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Profile is what launches of one kernel did, counted per warp as a
// profiler counts on a card. Device.SetProfiler hands one to its function
// after every launch; Add sums the profiles of several launches.
type Profile struct {
	Kernel      string
	Grid, Block Dim3
	// SharedBytes is the shared memory of a block: static and dynamic.
	SharedBytes int
	Launches    int
	Warps       uint64 // warps launched
	Threads     uint64
	// Instructions counts warp instructions and ThreadInstructions the
	// lanes that executed them (guard predicate true), as Stats does.
	Instructions, ThreadInstructions uint64
	// Branches counts warp-level executions of bra, and Divergent those
	// that split the warp's active lanes between the target and the next
	// instruction.
	Branches, Divergent uint64
	// Global and Shared count the accesses to global and shared memory,
	// indexed Load, Store, Atomic (ld and ldu, st, atom and red); generic
	// accesses count in the space they resolve to, lane by lane.
	Global, Shared [3]MemCounts
	// Lines are the memory instructions and branches that ran, in the
	// order of the PTX, with their own counts.
	Lines []LineCounts
}

// LineCounts are the counts of one instruction of the kernel's PTX.
type LineCounts struct {
	Line int    // the instruction's line in the PTX text
	Text string // the instruction as written
	// File and SourceLine are where the instruction came from in the
	// source the PTX was compiled from, as its .loc says (nvcc -lineinfo,
	// NVRTC --generate-line-info, clang -gline-tables-only); "" and 0
	// without one.
	File       string
	SourceLine int
	// Access is Load, Store or Atomic for a memory instruction; -1 for a
	// branch.
	Access int
	// Global and Shared count the instruction's accesses (a generic
	// address may reach either).
	Global, Shared      MemCounts
	Branches, Divergent uint64
}

// AvgThreads is the average number of active lanes per warp instruction
// (32 when no warp ever diverges or runs partly empty).
func (p *Profile) AvgThreads() float64 { return ratio(p.ThreadInstructions, p.Instructions) }

// Add sums o into p: the counts, and the lines by PTX line. The grid and
// block stay p's.
func (p *Profile) Add(o *Profile) {
	p.Launches += o.Launches
	p.Warps += o.Warps
	p.Threads += o.Threads
	p.Instructions += o.Instructions
	p.ThreadInstructions += o.ThreadInstructions
	p.Branches += o.Branches
	p.Divergent += o.Divergent
	for i := range p.Global {
		p.Global[i].add(&o.Global[i])
		p.Shared[i].add(&o.Shared[i])
	}
	for _, ol := range o.Lines {
		i := sort.Search(len(p.Lines), func(i int) bool { return p.Lines[i].Line >= ol.Line })
		if i < len(p.Lines) && p.Lines[i].Line == ol.Line {
			l := &p.Lines[i]
			l.Global.add(&ol.Global)
			l.Shared.add(&ol.Shared)
			l.Branches += ol.Branches
			l.Divergent += ol.Divergent
			continue
		}
		p.Lines = slices.Insert(p.Lines, i, ol)
	}
}

// SetProfiler turns profiling on for every later launch on d, handing each
// launch's Profile to f when the launch ends (a launch that faults or is
// cancelled too: it counts what ran); nil turns it off. f runs while d is
// locked and must not call d's methods. Profiling slows the interpreter
// down, by about a third on blocked Floyd-Warshall (BenchmarkInterpreter).
func (d *Device) SetProfiler(f func(*Profile)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.profiler = f
}

// StaticShared returns the bytes of the kernel's static .shared variables
// (the dynamic array comes on top, at launch).
func (k *Kernel) StaticShared() int { return k.dynOffset }

// pcCount holds the counts of one instruction in one worker.
type pcCount struct {
	global, shared      MemCounts
	branches, divergent uint64
}

// profiledCode returns the kernel's code with the memory instructions and
// branches wrapped by counters, building it once. The device is locked.
func (k *Kernel) profiledCode() []inst {
	if k.profCode != nil {
		return k.profCode
	}
	code := slices.Clone(k.code)
	for i := range code {
		in := &code[i]
		switch {
		case in.acc == accBranch:
			in.fn = countBranch(in.fn)
		case in.acc != accNone && (in.space == spaceGlobal || in.space == spaceShared || in.space == spaceGeneric):
			in.fn = countAccess(in.fn)
		}
	}
	k.profCode = code
	return code
}

// countBranch wraps a bra: a branch whose active lanes do not all go the
// same way diverges.
func countBranch(run execFn) execFn {
	return func(w *warp, in *inst, mask uint32) {
		c := &w.prof[w.pc]
		c.branches++
		if mask != 0 && mask != w.active {
			c.divergent++
		}
		run(w, in, mask)
	}
}

// countAccess wraps a memory instruction: it counts the request before
// the instruction runs (which may overwrite its address register).
func countAccess(run execFn) execFn {
	return func(w *warp, in *inst, mask uint32) {
		w.countAccess(in, mask)
		run(w, in, mask)
	}
}

// countAccess counts one warp-level access of the lanes of mask.
func (w *warp) countAccess(in *inst, mask uint32) {
	c := &w.prof[w.pc]
	size := uint64(in.size) * uint64(max(len(in.vec), 1))
	if in.acc == accAtomic {
		size = uint64(in.size)
	}
	lanes := uint64(bits.OnesCount32(mask))
	switch {
	case in.space == spaceGlobal:
		c.global.Requests++
		c.global.Bytes += size * lanes
		c.global.Sectors += w.globalSectors(in, mask, size)
		return
	case in.space == spaceShared && size <= BankBytes && in.acc != accAtomic:
		c.shared.Requests++
		c.shared.Bytes += size * lanes
		c.shared.Wavefronts++
		if waves := w.sharedPasses(in, mask, size); waves > 1 {
			c.shared.Wavefronts += waves - 1
			c.shared.Conflicts += waves - 1
		}
		return
	}
	// Generic addresses, wide shared accesses and shared atomics.
	global, shared := &w.lanes[0], &w.lanes[1]
	global.n, shared.n = 0, 0
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		addr := in.addrOf(w, l)
		sp := in.space
		if sp == spaceGeneric {
			switch {
			case addr&^windowMask == sharedWindow:
				sp, addr = spaceShared, addr&windowMask
			case addr&^windowMask == 0 && addr >= globalBase:
				sp = spaceGlobal
			default:
				continue // local, const or param: not counted
			}
		}
		if sp == spaceGlobal {
			global.add(l, addr)
		} else {
			shared.add(l, addr)
		}
	}
	if global.n > 0 {
		m := &c.global
		m.Requests++
		m.Bytes += size * uint64(global.n)
		m.Sectors += global.sectors(size)
	}
	if shared.n > 0 {
		m := &c.shared
		m.Requests++
		m.Bytes += size * uint64(shared.n)
		if in.acc != accAtomic {
			waves, ideal := shared.wavefronts(size)
			m.Wavefronts += waves
			m.Conflicts += waves - ideal
		}
	}
}

// globalSectors counts the distinct sectors of a global access of size
// bytes (at most 16, aligned: one sector a lane) by the lanes of mask.
func (w *warp) globalSectors(in *inst, mask uint32, size uint64) uint64 {
	base := in.base(w)
	var secs [32]uint64
	n, sorted := 0, true
	for m := mask; m != 0; m &= m - 1 {
		a := base[bits.TrailingZeros32(m)]
		if in.addr32 {
			a = uint64(uint32(a))
		}
		s := (a + in.off) / SectorBytes
		if (a+in.off+size-1)/SectorBytes != s {
			return w.lanesSectors(in, mask, size) // misaligned: it faults
		}
		sorted = sorted && (n == 0 || s >= secs[n-1])
		secs[n] = s
		n++
	}
	if !sorted {
		slices.Sort(secs[:n])
	}
	var d uint64
	for i, s := range secs[:n] {
		if i == 0 || s != secs[i-1] {
			d++
		}
	}
	return d
}

// lanesSectors is the general count of globalSectors.
func (w *warp) lanesSectors(in *inst, mask uint32, size uint64) uint64 {
	a := &w.lanes[0]
	a.n = 0
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		a.add(l, in.addrOf(w, l))
	}
	return a.sectors(size)
}

// sharedPasses returns the wavefronts of a shared access of size bytes
// (at most 4) by the lanes of mask: 1 unless two lanes ask one bank for
// different words. The common cases, every lane at one address (a
// broadcast) or lane l at size·l past the first, are settled without a
// table of banks.
func (w *warp) sharedPasses(in *inst, mask uint32, size uint64) uint64 {
	base := in.base(w)
	if in.addr32 && broadcastOrConsecutive(base, mask, uint32(size)) ||
		!in.addr32 && broadcastOrConsecutive(base, mask, size) {
		return 1
	}
	word := func(l int) uint64 {
		a := base[l]
		if in.addr32 {
			a = uint64(uint32(a))
		}
		return (a + in.off) / BankBytes
	}
	var occupied uint32
	var words [Banks]uint64
	for m := mask; m != 0; m &= m - 1 {
		wd := word(bits.TrailingZeros32(m))
		b := wd % Banks
		switch {
		case occupied>>b&1 == 0:
			occupied |= 1 << b
			words[b] = wd
		case words[b] != wd:
			waves, _ := w.lanesWavefronts(in, mask, size)
			return waves
		}
	}
	return 1
}

// broadcastOrConsecutive reports whether the lanes of mask all have the
// address of the first, or lane l the first's plus size·l, with addresses
// of T's width (the instruction's constant offset changes neither).
func broadcastOrConsecutive[T uint32 | uint64](base *[32]uint64, mask uint32, size T) bool {
	first := bits.TrailingZeros32(mask)
	a0 := T(base[first])
	same, consecutive := true, true
	for m := mask & (mask - 1); m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		a := T(base[l])
		same = same && a == a0
		consecutive = consecutive && a == a0+size*T(l-first)
	}
	return same || consecutive
}

// lanesWavefronts is the general count of sharedPasses.
func (w *warp) lanesWavefronts(in *inst, mask uint32, size uint64) (waves, ideal uint64) {
	a := &w.lanes[1]
	a.n = 0
	for m := mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		a.add(l, in.addrOf(w, l))
	}
	return a.wavefronts(size)
}

// laneAddrs are the addresses of the active lanes of one access, in lane
// order.
type laneAddrs struct {
	n     int
	lane  [32]uint8
	addr  [32]uint64
	words [32 * 4]uint64 // scratch for wavefronts
}

func (a *laneAddrs) add(l int, addr uint64) {
	a.lane[a.n], a.addr[a.n] = uint8(l), addr
	a.n++
}

// sectors counts the distinct 32-byte sectors the lanes' accesses of size
// bytes touch.
func (a *laneAddrs) sectors(size uint64) uint64 {
	s := a.words[:0]
	for _, addr := range a.addr[:a.n] {
		for sec := addr / SectorBytes; sec <= (addr+size-1)/SectorBytes; sec++ {
			s = append(s, sec)
		}
	}
	return distinct(s)
}

// distinct counts the distinct values of s, sorting it unless it is
// sorted already (the common, coalesced case).
func distinct(s []uint64) uint64 {
	if !slices.IsSorted(s) {
		slices.Sort(s)
	}
	var n uint64
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			n++
		}
	}
	return n
}

// wavefronts returns the passes the banks need for the lanes' accesses of
// size bytes, and the ideal: the lanes are taken in phases, all 32
// together for accesses of up to 4 bytes, each half-warp apart for 8- and
// 16-byte ones; each phase needs as many passes as the most distinct words
// any one bank must deliver, and ideally one per 128 distinct bytes. (On
// an H100, Nsight Compute counts 2 wavefronts for a 16-byte load that
// every lane makes at one address, 4 for consecutive 16-byte words and 8
// with a stride of 32 bytes, as this model does.)
func (a *laneAddrs) wavefronts(size uint64) (waves, ideal uint64) {
	per := 32
	if size > BankBytes {
		per = 16
	}
	for i := 0; i < a.n; {
		phase := int(a.lane[i]) / per
		words := a.words[:0]
		for ; i < a.n && int(a.lane[i])/per == phase; i++ {
			addr := a.addr[i]
			for w := addr / BankBytes; w <= (addr+size-1)/BankBytes; w++ {
				words = append(words, w)
			}
		}
		waves += bankPasses(words)
		ideal += (distinct(words) + Banks - 1) / Banks
	}
	return waves, ideal
}

// bankPasses is the largest number of distinct words that fall in one
// bank.
func bankPasses(words []uint64) uint64 {
	// Fast path: every bank asked for one word at most.
	var first [Banks]uint64 // word+1, 0 for none
	clash := false
	for _, w := range words {
		b := w % Banks
		switch first[b] {
		case 0:
			first[b] = w + 1
		case w + 1:
		default:
			clash = true
		}
	}
	if !clash {
		return 1
	}
	slices.Sort(words)
	var per [Banks]uint64
	var most uint64
	for i, w := range words {
		if i > 0 && w == words[i-1] {
			continue
		}
		b := w % Banks
		per[b]++
		most = max(most, per[b])
	}
	return most
}

// profile builds the launch's Profile from the workers' counts and st.
func (l *launch) profile(st *Stats) *Profile {
	k := l.k
	p := &Profile{Kernel: k.name, Grid: l.grid, Block: l.block, SharedBytes: l.sharedBytes, Launches: 1,
		Warps: st.Warps, Threads: st.Threads, Instructions: st.Instructions, ThreadInstructions: st.ThreadInstructions}
	for pc := range k.code {
		var c pcCount
		for _, w := range l.counts {
			o := &w[pc]
			c.global.add(&o.global)
			c.shared.add(&o.shared)
			c.branches += o.branches
			c.divergent += o.divergent
		}
		in := &k.code[pc]
		if in.acc == accNone || c.global.Requests+c.shared.Requests+c.branches == 0 {
			continue
		}
		lc := LineCounts{Line: int(in.line), Text: in.text, Access: -1, Global: c.global, Shared: c.shared,
			Branches: c.branches, Divergent: c.divergent}
		if in.acc != accBranch {
			lc.Access = int(in.acc - accLoad)
			p.Global[lc.Access].add(&c.global)
			p.Shared[lc.Access].add(&c.shared)
		}
		p.Branches += c.branches
		p.Divergent += c.divergent
		if k.src != nil && k.src[pc].line > 0 {
			lc.File, lc.SourceLine = k.mod.files[int(k.src[pc].file)], int(k.src[pc].line)
		}
		p.Lines = append(p.Lines, lc)
	}
	sort.SliceStable(p.Lines, func(i, j int) bool { return p.Lines[i].Line < p.Lines[j].Line })
	return p
}

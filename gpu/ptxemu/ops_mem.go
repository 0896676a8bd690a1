package ptxemu

import (
	"math/bits"
	"sync/atomic"
	"unsafe"
)

// Loads and stores in every state space (atomics and reductions are in
// ops_atom.go).
//
// Every access is checked against what it may touch: a global access must
// lie inside one live allocation (its requested size, not the padding), a
// shared access inside the block's static plus dynamic shared memory, a
// local access inside the thread's frame, and each must be aligned to its
// size. Global memory is shared by blocks running on several goroutines,
// so every global access is an atomic operation of its size (byte and
// halfword stores update their word with compare-and-swap): the result is
// a sequentially consistent memory, stronger than a GPU's, in which the
// fences are no-ops.

func init() {
	decoders["ld"] = decodeLdSt
	decoders["ldu"] = decodeLdSt
	decoders["st"] = decodeLdSt
}

// memOpts consumes the modifiers of a memory access and returns its state
// space: ordering and scope (meaningless here, where every access is
// sequentially consistent) and cache operators (hints).
func memOpts(m *modset) space {
	m.takeAny("weak", "volatile", "relaxed", "acquire", "release", "acq_rel")
	m.takeAny("cta", "gpu", "sys", "cluster")
	m.takeAny("ca", "cg", "cs", "lu", "cv", "wb", "wt")
	m.take("nc")
	switch m.takeAny("global", "shared", "local", "const", "param") {
	case "global":
		return spaceGlobal
	case "shared":
		return spaceShared
	case "local":
		return spaceLocal
	case "const":
		return spaceConst
	case "param":
		return spaceParam
	}
	return spaceGeneric
}

// decodeLdSt decodes ld, ldu and st.
func decodeLdSt(d *decoder, s *stmt, m *modset, in *inst) error {
	store := s.op[:2] == "st"
	in.space = memOpts(m)
	n := 1
	switch m.takeAny("v2", "v4") {
	case "v2":
		n = 2
	case "v4":
		n = 4
	}
	t, ok := m.takeType()
	if !ok || t.kind == kindPred {
		return unsupported(s, "")
	}
	if err := args(s, 2); err != nil {
		return err
	}
	addrOp, valOp := s.args[1], s.args[0]
	if store {
		addrOp, valOp = s.args[0], s.args[1]
	}
	if in.space == spaceParam && d.callParam(addrOp) {
		in.space = spaceLocal // a call's argument or return value
	}
	if store && (in.space == spaceConst || in.space == spaceParam) {
		return unsupported(s, "stores to ."+in.space.String())
	}
	var err error
	if in.a, in.off, err = d.address(s, addrOp, in.space); err != nil {
		return err
	}
	in.addr32 = in.a >= 0 && d.regWidth(operand{kind: argWord, word: addrOp.word}) == 4
	in.size, in.signed, in.t = t.size, t.kind == kindSint, t
	// The value registers: one, or a vector.
	vals := []operand{valOp}
	if valOp.kind == argVec {
		vals = valOp.elems
	}
	if len(vals) != n {
		return errorf(s, "%d values for a .v%d access", len(vals), n)
	}
	for _, v := range vals {
		var r int32
		if store {
			r, err = d.src(s, v, t)
		} else {
			r, err = d.dst(s, v)
		}
		if err != nil {
			return err
		}
		in.vec = append(in.vec, r)
	}
	in.d = in.vec[0]
	in.acc = accLoad
	if store {
		in.acc = accStore
	}
	switch {
	case store && n == 1 && t.size == 4 && in.space == spaceGlobal && in.a >= 0 && !in.addr32:
		in.fn = opStGlobal32
	case store && n == 1 && t.size == 4 && in.space == spaceShared:
		in.fn = opStShared32
	case store:
		in.fn = opSt
	case n == 1 && t.size == 4 && in.space == spaceGlobal && in.a >= 0 && !in.addr32:
		in.fn = opLdGlobal32
	case n == 1 && t.size == 4 && in.space == spaceShared:
		in.fn = opLdShared32
	case n == 1 && in.space == spaceParam && in.a < 0 && in.off%uint64(t.size) == 0 && in.off+uint64(t.size) <= uint64(d.k.paramBytes):
		in.fn = opLdParam
	default:
		in.fn = opLd
	}
	return nil
}

// addr is lane l's address of a memory instruction.
func (in *inst) addrOf(w *warp, l int) uint64 {
	if in.a < 0 {
		return in.off
	}
	a := w.r(in.a)[l]
	if in.addr32 {
		a = uint64(uint32(a))
	}
	return a + in.off
}

// global checks a global access of size bytes at addr and returns a
// pointer to it; on failure it faults the warp and returns nil.
func (w *warp) global(in *inst, l int, addr, size uint64, write bool) unsafe.Pointer {
	if addr&(size-1) != 0 {
		w.memFault(in, l, spaceGlobal, addr, size)
		return nil
	}
	if r := addr - w.gLo[0]; r >= w.gLen[0] || w.gLen[0]-r < size {
		if !w.cachedAlloc(addr, size) {
			w.memFault(in, l, spaceGlobal, addr, size)
			return nil
		}
	}
	m := w.blk.l.dev.mem
	off := addr - globalBase
	if m.written != nil {
		if write {
			m.markWritten(off, size, true)
		} else if !m.isWritten(off, size) {
			w.faultAt(in, l, Uninitialized, "reading %d bytes at %#x that nothing wrote (offset %d in %s)",
				size, addr, addr-w.gLo[0], allocation{addr: w.gLo[0], size: w.gLen[0]}.describe())
			return nil
		}
	}
	return unsafe.Pointer(&m.data[off])
}

// cachedAlloc finds the allocation holding [addr, addr+size) among the
// ones the warp remembers, or in the table, and moves it to the front of
// the cache; false if there is none.
func (w *warp) cachedAlloc(addr, size uint64) bool {
	hit := -1
	for i := 1; i < allocCache; i++ {
		if r := addr - w.gLo[i]; r < w.gLen[i] && w.gLen[i]-r >= size {
			hit = i
			break
		}
	}
	lo, n := uint64(0), uint64(0)
	if hit > 0 {
		lo, n = w.gLo[hit], w.gLen[hit]
	} else {
		a, ok := w.blk.l.dev.mem.find(addr, size)
		if !ok {
			return false
		}
		lo, n, hit = a.addr, a.size, allocCache-1
	}
	copy(w.gLo[1:hit+1], w.gLo[:hit])
	copy(w.gLen[1:hit+1], w.gLen[:hit])
	w.gLo[0], w.gLen[0] = lo, n
	return true
}

// resolve checks an access of size bytes at addr in space sp for lane l
// and returns a pointer to it and the space it is in (generic addresses
// resolve through their window); nil after a fault.
func (w *warp) resolve(in *inst, l int, sp space, addr, size uint64, write bool) (unsafe.Pointer, space) {
	if sp == spaceGeneric {
		switch addr &^ windowMask {
		case sharedWindow:
			sp, addr = spaceShared, addr&windowMask
		case localWindow:
			sp, addr = spaceLocal, addr&windowMask
		case constWindow:
			sp, addr = spaceConst, addr&windowMask
		case paramWindow:
			sp, addr = spaceParam, addr&windowMask
		case 0:
			if addr < globalBase {
				w.memFault(in, l, spaceGeneric, addr, size)
				return nil, sp
			}
			sp = spaceGlobal
		default:
			w.memFault(in, l, spaceGeneric, addr, size)
			return nil, sp
		}
	}
	if sp == spaceGlobal {
		return w.global(in, l, addr, size, write), sp
	}
	var mem []byte
	switch sp {
	case spaceShared:
		mem = w.blk.shared
	case spaceLocal:
		n := uint64(w.blk.l.k.localBytes)
		if addr < n && n-addr >= size {
			mem = w.local[uint64(l)*n : uint64(l+1)*n]
		}
	case spaceConst:
		mem = w.blk.l.k.mod.constBank
	case spaceParam:
		mem = w.blk.l.params
	}
	if write && (sp == spaceConst || sp == spaceParam) || addr >= uint64(len(mem)) ||
		uint64(len(mem))-addr < size || addr&(size-1) != 0 {
		w.memFault(in, l, sp, addr, size)
		return nil, sp
	}
	return unsafe.Pointer(&mem[addr]), sp
}

// loadRaw reads size bytes at p, atomically for global memory.
func loadRaw(p unsafe.Pointer, size uint8, atomicAccess bool) uint64 {
	if atomicAccess {
		switch size {
		case 4:
			return uint64(atomic.LoadUint32((*uint32)(p)))
		case 8:
			return atomic.LoadUint64((*uint64)(p))
		}
		word, shift := wordOf(p)
		return uint64(atomic.LoadUint32(word)>>shift) & widthMask(8*uint(size))
	}
	switch size {
	case 1:
		return uint64(*(*uint8)(p))
	case 2:
		return uint64(*(*uint16)(p))
	case 4:
		return uint64(*(*uint32)(p))
	}
	return *(*uint64)(p)
}

// storeRaw writes the low size bytes of v at p, atomically for global
// memory.
func storeRaw(p unsafe.Pointer, size uint8, v uint64, atomicAccess bool) {
	if atomicAccess {
		switch size {
		case 4:
			atomic.StoreUint32((*uint32)(p), uint32(v))
			return
		case 8:
			atomic.StoreUint64((*uint64)(p), v)
			return
		}
		word, shift := wordOf(p)
		keep := uint32(widthMask(8*uint(size))) << shift
		for {
			old := atomic.LoadUint32(word)
			if atomic.CompareAndSwapUint32(word, old, old&^keep|uint32(v)<<shift&keep) {
				return
			}
		}
	}
	switch size {
	case 1:
		*(*uint8)(p) = uint8(v)
	case 2:
		*(*uint16)(p) = uint16(v)
	case 4:
		*(*uint32)(p) = uint32(v)
	default:
		*(*uint64)(p) = v
	}
}

// wordOf returns the aligned 32-bit word holding the byte at p, and the
// byte's bit offset in it (little endian).
func wordOf(p unsafe.Pointer) (*uint32, uint) {
	mis := uintptr(p) & 3
	return (*uint32)(unsafe.Add(p, -int(mis))), uint(8 * mis)
}

// extend widens a loaded value to the register: sign extension for signed
// types.
func extend(v uint64, size uint8, signed bool) uint64 {
	if signed && size < 8 {
		n := 64 - 8*uint(size)
		return uint64(int64(v<<n) >> n)
	}
	return v
}

func opLd(w *warp, in *inst, mask uint32) {
	size := uint64(in.size)
	total := size * uint64(len(in.vec))
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		p, sp := w.resolve(in, l, in.space, in.addrOf(w, l), total, false)
		if p == nil {
			return
		}
		for i, r := range in.vec {
			v := loadRaw(unsafe.Add(p, i*int(size)), in.size, sp == spaceGlobal)
			w.r(r)[l] = extend(v, in.size, in.signed)
		}
		w.st.Loaded[sp] += total
	}
}

func opSt(w *warp, in *inst, mask uint32) {
	size := uint64(in.size)
	total := size * uint64(len(in.vec))
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		p, sp := w.resolve(in, l, in.space, in.addrOf(w, l), total, true)
		if p == nil {
			return
		}
		for i, r := range in.vec {
			storeRaw(unsafe.Add(p, i*int(size)), in.size, w.r(r)[l], sp == spaceGlobal)
		}
		w.st.Stored[sp] += total
	}
}

// opLdParam loads a kernel parameter (its bounds were checked when the
// kernel was decoded): the same value for every lane.
func opLdParam(w *warp, in *inst, mask uint32) {
	v := extend(loadRaw(unsafe.Pointer(&w.blk.l.params[in.off]), in.size, false), in.size, in.signed)
	d := w.r(in.d)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = v
		}
	}
	w.st.Loaded[spaceParam] += uint64(in.size) * uint64(bits.OnesCount32(mask))
}

// opLdGlobal32 is ld.global of 4 bytes, the most frequent load.
func opLdGlobal32(w *warp, in *inst, mask uint32) {
	d, a := w.r(in.d), w.r(in.a)
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		p := w.global(in, l, a[l]+in.off, 4, false)
		if p == nil {
			return
		}
		d[l] = extend(uint64(atomic.LoadUint32((*uint32)(p))), 4, in.signed)
	}
	w.st.Loaded[spaceGlobal] += 4 * uint64(bits.OnesCount32(mask))
}

func opStGlobal32(w *warp, in *inst, mask uint32) {
	v, a := w.r(in.d), w.r(in.a)
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		p := w.global(in, l, a[l]+in.off, 4, true)
		if p == nil {
			return
		}
		atomic.StoreUint32((*uint32)(p), uint32(v[l]))
	}
	w.st.Stored[spaceGlobal] += 4 * uint64(bits.OnesCount32(mask))
}

// zeroLanes is the base register of an absolute address.
var zeroLanes [32]uint64

// base returns the lanes of a memory instruction's address register.
func (in *inst) base(w *warp) *[32]uint64 {
	if in.a < 0 {
		return &zeroLanes
	}
	return w.r(in.a)
}

// sharedAddr is lane l's shared-memory address, or ok = false after
// faulting when a 4-byte access there is out of bounds or misaligned.
func (w *warp) sharedAddr(in *inst, base *[32]uint64, l int) (uint64, bool) {
	addr := base[l]
	if in.addr32 {
		addr = uint64(uint32(addr))
	}
	addr += in.off
	if addr+4 > uint64(len(w.blk.shared)) || addr+4 < addr || addr&3 != 0 {
		w.memFault(in, l, spaceShared, addr, 4)
		return 0, false
	}
	return addr, true
}

func opLdShared32(w *warp, in *inst, mask uint32) {
	d, base, sh := w.r(in.d), in.base(w), w.blk.shared
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		addr, ok := w.sharedAddr(in, base, l)
		if !ok {
			return
		}
		v := *(*uint32)(unsafe.Pointer(&sh[addr]))
		if in.signed {
			d[l] = uint64(int32(v))
		} else {
			d[l] = uint64(v)
		}
	}
	w.st.Loaded[spaceShared] += 4 * uint64(bits.OnesCount32(mask))
}

func opStShared32(w *warp, in *inst, mask uint32) {
	v, base, sh := w.r(in.d), in.base(w), w.blk.shared
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		addr, ok := w.sharedAddr(in, base, l)
		if !ok {
			return
		}
		*(*uint32)(unsafe.Pointer(&sh[addr])) = uint32(v[l])
	}
	w.st.Stored[spaceShared] += 4 * uint64(bits.OnesCount32(mask))
}

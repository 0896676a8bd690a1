package ptxemu

import (
	"sync/atomic"
	"unsafe"
)

// Atomic operations and reductions: atom returns the old value, red does
// not. Both act on global or shared memory as ops_mem.go's accesses do.

func init() {
	decoders["atom"] = decodeAtom
	decoders["red"] = decodeAtom
}

const (
	atomAdd = iota
	atomMin
	atomMax
	atomInc
	atomDec
	atomAnd
	atomOr
	atomXor
	atomExch
	atomCas
)

var atomOps = map[string]uint8{"add": atomAdd, "min": atomMin, "max": atomMax, "inc": atomInc, "dec": atomDec,
	"and": atomAnd, "or": atomOr, "xor": atomXor, "exch": atomExch, "cas": atomCas}

// decodeAtom decodes atom (which returns the old value) and red (which
// does not).
func decodeAtom(d *decoder, s *stmt, m *modset, in *inst) error {
	isRed := s.op[:3] == "red"
	in.space = memOpts(m)
	if in.space == spaceConst || in.space == spaceParam || in.space == spaceLocal {
		return unsupported(s, "")
	}
	var opName string
	for name := range atomOps {
		if m.take(name) {
			opName = name
			break
		}
	}
	if opName == "" || m.takeAny("v2", "v4", "v8") != "" {
		return unsupported(s, "")
	}
	in.mode = atomOps[opName]
	t, ok := m.takeType()
	if !ok || t.size < 4 {
		return unsupported(s, "")
	}
	valid := false
	switch in.mode {
	case atomAdd:
		valid = t.kind == kindUint || t.kind == kindSint && t.size == 4 || t.kind == kindFloat
	case atomMin, atomMax:
		valid = t.isInt() && t.kind != kindBits
	case atomInc, atomDec:
		valid = t.kind == kindUint && t.size == 4
	default:
		valid = t.kind == kindBits
	}
	if !valid {
		return unsupported(s, "")
	}
	nsrc := 1
	if in.mode == atomCas {
		nsrc = 2
	}
	first := 1
	if isRed {
		first = 0
	}
	if err := args(s, first+1+nsrc); err != nil {
		return err
	}
	var err error
	if isRed {
		in.d = -1
	} else if in.d, err = d.dst(s, s.args[0]); err != nil {
		return err
	}
	addrOp := s.args[first]
	if in.a, in.off, err = d.address(s, addrOp, in.space); err != nil {
		return err
	}
	in.addr32 = in.a >= 0 && d.regWidth(operand{kind: argWord, word: addrOp.word}) == 4
	if in.b, err = d.src(s, s.args[first+1], t); err != nil {
		return err
	}
	if nsrc == 2 {
		if in.c, err = d.src(s, s.args[first+2], t); err != nil {
			return err
		}
	}
	in.t, in.size = t, t.size
	in.fn, in.acc = opAtom, accAtomic
	return nil
}

// atomNew computes an atomic operation's new value from the old one.
func atomNew(op uint8, t ptxType, old, b, c uint64) uint64 {
	n := t.bits()
	m := widthMask(n)
	old, b = old&m, b&m
	switch op {
	case atomAdd:
		if t.isFloat() {
			if t.size == 4 {
				return fput(ftz(ftz(fget[float32](old), true)+ftz(fget[float32](b), true), true))
			}
			return fput(fget[float64](old) + fget[float64](b))
		}
		return (old + b) & m
	case atomMin, atomMax:
		less := old < b
		if t.signed() {
			less = signExtend(old, n) < signExtend(b, n)
		}
		if less == (op == atomMin) {
			return old
		}
		return b
	case atomInc:
		if old >= b {
			return 0
		}
		return old + 1
	case atomDec:
		if old == 0 || old > b {
			return b
		}
		return old - 1
	case atomAnd:
		return old & b
	case atomOr:
		return old | b
	case atomXor:
		return old ^ b
	case atomExch:
		return b
	}
	// cas
	if old == b {
		return c & m
	}
	return old
}

func opAtom(w *warp, in *inst, mask uint32) {
	size := uint64(in.size)
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		p, sp := w.resolve(in, l, in.space, in.addrOf(w, l), size, true)
		if p == nil {
			return
		}
		var b, c uint64
		b = w.r(in.b)[l]
		if in.c >= 0 {
			c = w.r(in.c)[l]
		}
		var old uint64
		if sp == spaceGlobal {
			old = atomicRMW(p, in, b, c)
		} else {
			old = loadRaw(p, in.size, false)
			storeRaw(p, in.size, atomNew(in.mode, in.t, old, b, c), false)
		}
		if in.d >= 0 {
			w.r(in.d)[l] = extend(old, in.size, in.t.signed())
		}
		w.st.Atomics++
		w.st.Loaded[sp] += size
		w.st.Stored[sp] += size
	}
}

// atomicRMW performs the atomic operation on global memory with a
// compare-and-swap loop and returns the old value.
func atomicRMW(p unsafe.Pointer, in *inst, b, c uint64) uint64 {
	if in.size == 4 {
		q := (*uint32)(p)
		if in.mode == atomAdd && in.t.isInt() {
			return uint64(atomic.AddUint32(q, uint32(b)) - uint32(b))
		}
		for {
			old := atomic.LoadUint32(q)
			nw := uint32(atomNew(in.mode, in.t, uint64(old), b, c))
			if nw == old || atomic.CompareAndSwapUint32(q, old, nw) {
				return uint64(old)
			}
		}
	}
	q := (*uint64)(p)
	for {
		old := atomic.LoadUint64(q)
		nw := atomNew(in.mode, in.t, old, b, c)
		if nw == old || atomic.CompareAndSwapUint64(q, old, nw) {
			return old
		}
	}
}

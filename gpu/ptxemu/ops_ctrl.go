package ptxemu

import (
	"math/bits"
	"time"
)

// Control flow, barriers, fences, moves and address conversions.

func init() {
	decoders["bra"] = decodeBra
	decoders["ret"] = decodeExit
	decoders["exit"] = decodeExit
	decoders["trap"] = decodeTrap
	decoders["bar"] = decodeBar
	decoders["barrier"] = decodeBar
	decoders["membar"] = decodeFence
	decoders["fence"] = decodeFence
	decoders["nanosleep"] = decodeNanosleep
	decoders["prefetch"] = decodePrefetch
	decoders["prefetchu"] = decodePrefetch
	decoders["mov"] = decodeMov
	decoders["cvta"] = decodeCvta
}

func decodeBra(d *decoder, s *stmt, m *modset, in *inst) error {
	m.take("uni")
	if err := args(s, 1); err != nil {
		return err
	}
	if s.args[0].kind != argWord {
		return unsupported(s, "indirect branches")
	}
	d.fixups = append(d.fixups, fixup{at: len(d.k.code), label: s.args[0].word, line: s.line})
	in.fn, in.ctrl, in.acc = opBra, true, accBranch
	return nil
}

func decodeExit(d *decoder, s *stmt, m *modset, in *inst) error {
	m.take("uni")
	in.fn, in.ctrl = opExit, true
	return args(s, 0)
}

func decodeTrap(d *decoder, s *stmt, m *modset, in *inst) error {
	in.fn, in.ctrl = opTrap, true
	return args(s, 0)
}

func opTrap(w *warp, in *inst, mask uint32) {
	if mask != 0 {
		w.faultAt(in, bits.TrailingZeros32(mask), Trap, "the kernel executed trap")
		return
	}
	w.jump(w.pc + 1)
}

// Modes of bar.red.
const (
	barRedPopc = iota + 1
	barRedAnd
	barRedOr
)

// decodeBar decodes bar.sync, barrier.sync, bar.red and bar.warp.sync.
// Barriers with a thread count and bar.arrive (producer-consumer
// barriers) are not supported: every barrier waits for the whole block.
func decodeBar(d *decoder, s *stmt, m *modset, in *inst) error {
	m.take("cta")
	m.take("aligned")
	switch {
	case m.take("warp"):
		if !m.take("sync") {
			return unsupported(s, "")
		}
		if err := args(s, 1); err != nil {
			return err
		}
		r, err := d.src(s, s.args[0], typeNames["b32"])
		in.e, in.fn, in.ctrl = r, opWarpSync, true
		return err
	case m.take("sync"):
		if err := args(s, 1, 2); err != nil {
			return err
		}
		if len(s.args) == 2 {
			return unsupported(s, "barriers with a thread count")
		}
		// Every thread waits for every other: the barrier number does
		// not matter (only where each thread waits).
		_, err := d.src(s, s.args[0], typeNames["u32"])
		in.fn, in.ctrl = opBarSync, true
		return err
	case m.take("red"):
		switch m.takeAny("popc", "and", "or") {
		case "popc":
			in.mode = barRedPopc
			if !m.take("u32") {
				return unsupported(s, "")
			}
		case "and":
			in.mode = barRedAnd
		case "or":
			in.mode = barRedOr
		default:
			return unsupported(s, "")
		}
		if in.mode != barRedPopc && !m.take("pred") {
			return unsupported(s, "")
		}
		if err := args(s, 3, 4); err != nil {
			return err
		}
		if len(s.args) == 4 {
			return unsupported(s, "barriers with a thread count")
		}
		if err := d.countOrPred(s, in, in.mode == barRedPopc, 2); err != nil {
			return err
		}
		in.fn, in.ctrl = opBarSync, true
		return nil
	}
	return unsupported(s, "")
}

// decodeFence decodes membar and fence: no-ops here, because every
// global access is a sequentially consistent atomic operation and a
// block's threads all run on one goroutine.
func decodeFence(d *decoder, s *stmt, m *modset, in *inst) error {
	if m.take("proxy") || m.take("mbarrier_init") {
		return unsupported(s, "proxy fences")
	}
	m.takeAny("cta", "gl", "sys", "gpu", "cluster")
	m.takeAny("sc", "acq_rel")
	m.takeAny("cta", "gl", "sys", "gpu", "cluster")
	in.fn = opNop
	return args(s, 0)
}

// decodeNanosleep decodes nanosleep.u32 t: a hint that the thread may be
// suspended up to t ns, here a no-op (other warps run in turn anyway).
func decodeNanosleep(d *decoder, s *stmt, m *modset, in *inst) error {
	if !m.take("u32") {
		return unsupported(s, "")
	}
	in.fn = opNop
	if err := args(s, 1); err != nil {
		return err
	}
	_, err := d.src(s, s.args[0], typeNames["u32"])
	return err
}

func decodePrefetch(d *decoder, s *stmt, m *modset, in *inst) error {
	m.takeAny("global", "local")
	m.takeAny("L1", "L2")
	in.fn = opNop
	return args(s, 1)
}

func opNop(w *warp, in *inst, mask uint32) {}

// Clock sources of mov.
const (
	clockLo = iota
	clockHi
	clock64
	timer64
	timerLo
	timerHi
)

func decodeMov(d *decoder, s *stmt, m *modset, in *inst) error {
	t, ok := m.takeType()
	if !ok {
		return unsupported(s, "")
	}
	if err := args(s, 2); err != nil {
		return err
	}
	dst, src := s.args[0], s.args[1]
	var err error
	switch {
	case t.kind == kindPred:
		if in.pd, err = d.predDst(s, dst); err != nil {
			return err
		}
		if src.kind == argNum {
			// mov.pred %p, 0 (or 1): nvcc emits it for conditions it
			// folded to a constant in an unrolled loop.
			switch src.word {
			case "0":
				in.mode = 0
			case "1":
				in.mode = 1
			default:
				return errorf(s, "a predicate constant must be 0 or 1, not %s", src.word)
			}
			in.fn = opMovPredConst
			return nil
		}
		in.pa, in.paNeg, err = d.predSrc(s, src)
		in.fn = opMovPred
		return err
	case src.kind == argVec || dst.kind == argVec:
		return d.decodePack(s, t, in)
	}
	if in.d, err = d.dst(s, dst); err != nil {
		return err
	}
	if c, ok := clockNames[src.word]; ok && src.kind == argWord {
		in.mode, in.fn = c, opClock
		return nil
	}
	in.a, err = d.src(s, src, t)
	in.fn = opMov
	return err
}

// decodePack decodes mov between a register and a vector of narrower
// registers: {lo, hi} packs, the other way round unpacks.
func (d *decoder) decodePack(s *stmt, t ptxType, in *inst) error {
	vec, scalar, pack := s.args[1], s.args[0], true
	if s.args[0].kind == argVec {
		vec, scalar, pack = s.args[0], s.args[1], false
	}
	if n := len(vec.elems); n != 2 && n != 4 || int(t.size)%n != 0 || t.size/uint8(n) < 1 {
		return errorf(s, "a vector of %d elements does not fit .%s", len(vec.elems), t)
	}
	in.size = t.size / uint8(len(vec.elems))
	et := ptxType{kindBits, in.size}
	for _, e := range vec.elems {
		var r int32
		var err error
		if pack {
			r, err = d.src(s, e, et)
		} else {
			r, err = d.dst(s, e)
		}
		if err != nil {
			return err
		}
		in.vec = append(in.vec, r)
	}
	var err error
	if pack {
		in.d, err = d.dst(s, scalar)
		in.fn = opPack
	} else {
		in.a, err = d.src(s, scalar, t)
		in.fn = opUnpack
	}
	return err
}

func opMov(w *warp, in *inst, mask uint32) {
	d, a := w.r(in.d), w.r(in.a)
	if mask == ^uint32(0) {
		*d = *a
		return
	}
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = a[l]
		}
	}
}

func opMovPred(w *warp, in *inst, mask uint32) {
	v := w.preds[in.pa]
	if in.paNeg {
		v = ^v
	}
	w.setPred(in.pd, v, mask)
}

func opMovPredConst(w *warp, in *inst, mask uint32) {
	w.setPred(in.pd, -uint32(in.mode), mask)
}

func opPack(w *warp, in *inst, mask uint32) {
	d := w.r(in.d)
	shift := 8 * uint(in.size)
	keep := uint64(1)<<shift - 1
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		var v uint64
		for i, r := range in.vec {
			v |= (w.r(r)[l] & keep) << (shift * uint(i))
		}
		d[l] = v
	}
}

func opUnpack(w *warp, in *inst, mask uint32) {
	a := w.r(in.a)
	shift := 8 * uint(in.size)
	keep := uint64(1)<<shift - 1
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		v := a[l]
		for i, r := range in.vec {
			w.r(r)[l] = v >> (shift * uint(i)) & keep
		}
	}
}

// opClock reads %clock (the warp's instruction count: the interpreter has
// no cycles) or %globaltimer (host nanoseconds).
func opClock(w *warp, in *inst, mask uint32) {
	v := w.steps
	if in.mode >= timer64 {
		v = uint64(time.Now().UnixNano())
	}
	switch in.mode {
	case clockLo, timerLo:
		v = uint64(uint32(v))
	case clockHi, timerHi:
		v >>= 32
	}
	d := w.r(in.d)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = v
		}
	}
}

// decodeCvta decodes cvta (a state-space address to a generic one: add
// the space's window) and cvta.to (back: subtract it). Global addresses
// are their own generic addresses.
func decodeCvta(d *decoder, s *stmt, m *modset, in *inst) error {
	to := m.take("to")
	var window uint64
	switch m.takeAny("global", "shared", "local", "const", "param") {
	case "global":
	case "shared":
		window = sharedWindow
	case "local":
		window = localWindow
	case "const":
		window = constWindow
	case "param":
		window = paramWindow
	default:
		return unsupported(s, "")
	}
	t, ok := m.takeType()
	if !ok || t.size != 4 && t.size != 8 || !t.isInt() {
		return unsupported(s, "")
	}
	if err := d.dstArgs(s, in, 2); err != nil {
		return err
	}
	var err error
	if in.a, err = d.src(s, s.args[1], t); err != nil {
		return err
	}
	in.fn = opMov
	if window != 0 {
		in.b = d.constant(window)
		in.fn = opAdd
		if to {
			in.fn = opSub
		}
	}
	return nil
}

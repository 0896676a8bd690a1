package ptxemu

import (
	"math"
	"math/bits"
)

// Integer arithmetic and logic.
//
// A register holds its value in the low bits of a 64-bit slot; readers
// convert to their type, so they see the low bits only. Operations whose
// low result bits do not depend on the operand width or signedness (add,
// sub, mul.lo, mad.lo, and, or, xor, not, neg, shl) therefore run on the
// whole 64 bits for every type; the others are generic over the Go type
// of their PTX type.

func init() {
	for _, op := range []string{"add", "sub", "mul", "mad", "min", "max", "div", "rem", "abs", "neg",
		"and", "or", "xor", "not", "cnot", "shl", "shr", "popc", "clz", "brev", "bfind", "bfe", "bfi",
		"sad", "mul24", "mad24", "prmt"} {
		decoders[op] = decodeArith
	}
}

// anyInt are the Go types of the PTX integer types of arithmetic (8-bit
// values only appear in memory and conversions).
type anyInt interface {
	~int16 | ~int32 | ~int64 | ~uint16 | ~uint32 | ~uint64
}

// intFns holds one operation's instantiations, by PTX type.
type intFns struct{ s16, s32, s64, u16, u32, u64 execFn }

// pick returns the instantiation for t (.b types are unsigned).
func (f intFns) pick(t ptxType) execFn {
	signed := t.kind == kindSint
	switch t.size {
	case 2:
		return choose(signed, f.s16, f.u16)
	case 4:
		return choose(signed, f.s32, f.u32)
	case 8:
		return choose(signed, f.s64, f.u64)
	}
	return nil
}

func choose(c bool, a, b execFn) execFn {
	if c {
		return a
	}
	return b
}

var (
	minFns   = intFns{opMin[int16], opMin[int32], opMin[int64], opMin[uint16], opMin[uint32], opMin[uint64]}
	maxFns   = intFns{opMax[int16], opMax[int32], opMax[int64], opMax[uint16], opMax[uint32], opMax[uint64]}
	shrFns   = intFns{opShr[int16], opShr[int32], opShr[int64], opShr[uint16], opShr[uint32], opShr[uint64]}
	divFns   = intFns{opDiv[int16], opDiv[int32], opDiv[int64], opDiv[uint16], opDiv[uint32], opDiv[uint64]}
	remFns   = intFns{opRem[int16], opRem[int32], opRem[int64], opRem[uint16], opRem[uint32], opRem[uint64]}
	absFns   = intFns{opAbs[int16], opAbs[int32], opAbs[int64], nil, nil, nil}
	hiFns    = intFns{opMulHi[int16], opMulHi[int32], opMulHi64s, opMulHi[uint16], opMulHi[uint32], opMulHi64u}
	madHiFns = intFns{opMadHi[int16], opMadHi[int32], opMadHi64s, opMadHi[uint16], opMadHi[uint32], opMadHi64u}
	wideFns  = intFns{opMulWide[int16, int32], opMulWide[int32, int64], nil, opMulWide[uint16, uint32], opMulWide[uint32, uint64], nil}
	madWFns  = intFns{opMadWide[int16, int32], opMadWide[int32, int64], nil, opMadWide[uint16, uint32], opMadWide[uint32, uint64], nil}
	// The bit operations take the width from in.t; 32 and 64 bits only.
	bits3264 = func(f execFn) intFns { return intFns{nil, f, f, nil, f, f} }
	popcFns  = bits3264(opPopc)
	clzFns   = bits3264(opClz)
	brevFns  = bits3264(opBrev)
	bfindFns = bits3264(opBfind)
	bfeFns   = bits3264(opBfe)
	bfiFns   = bits3264(opBfi)
	cnotFns  = intFns{opCnot, opCnot, opCnot, opCnot, opCnot, opCnot}
	sadFns   = intFns{opSad[int16], opSad[int32], opSad[int64], opSad[uint16], opSad[uint32], opSad[uint64]}
	m24Fns   = intFns{nil, opMul24[int32], nil, nil, opMul24[uint32], nil}
)

// decodeArith decodes the integer operations and hands float types to
// decodeFloat, packed .u16x2 and .s16x2 to decodePacked16.
func decodeArith(d *decoder, s *stmt, m *modset, in *inst) error {
	op := s.op
	if i := indexDot(op); i >= 0 {
		op = op[:i]
	}
	if packed := m.takeAny("u16x2", "s16x2"); packed != "" {
		return decodePacked16(d, s, m, in, op, packed == "s16x2")
	}
	// The type is the last modifier; find it without consuming others.
	var t ptxType
	for _, name := range m.list {
		if tt, ok := typeFor(name); ok {
			t = tt
		}
	}
	if t.kind == kindFloat {
		return decodeFloat(d, s, m, in, op)
	}
	if t.kind == kindPred {
		return decodePredLogic(d, s, m, in, op)
	}
	if !t.isInt() {
		return unsupported(s, "")
	}
	m.takeType()
	nsrc := 2
	var fn execFn
	switch op {
	case "add", "sub":
		if m.take("sat") {
			if t.kind != kindSint || t.size != 4 {
				return unsupported(s, "")
			}
			fn = choose(op == "add", opAddSat, opSubSat)
			break
		}
		if m.takeAny("cc") != "" {
			return unsupported(s, "carry flags")
		}
		fn = choose(op == "add", opAdd, opSub)
	case "mul", "mad":
		mode := m.takeAny("lo", "hi", "wide")
		if op == "mad" {
			nsrc = 3
			if m.take("sat") {
				return unsupported(s, "")
			}
		}
		switch mode {
		case "lo":
			fn = choose(op == "mul", opMulLo, opMadLo)
		case "hi":
			fn = choose(op == "mul", hiFns.pick(t), madHiFns.pick(t))
		case "wide":
			fn = choose(op == "mul", wideFns.pick(t), madWFns.pick(t))
		default:
			return unsupported(s, "")
		}
	case "mul24", "mad24":
		mode := m.takeAny("lo", "hi")
		if mode == "" {
			return unsupported(s, "")
		}
		in.mode = choose8(mode == "hi")
		fn = m24Fns.pick(t)
		if op == "mad24" {
			nsrc = 3
			in.sat = true // marks the accumulate
		}
	case "min", "max":
		fn = choose(op == "min", minFns.pick(t), maxFns.pick(t))
		if m.take("relu") {
			return unsupported(s, "")
		}
	case "div":
		fn = divFns.pick(t)
	case "rem":
		fn = remFns.pick(t)
	case "abs":
		fn, nsrc = absFns.pick(t), 1
	case "neg":
		fn, nsrc = opNeg, 1
	case "and":
		fn = opAnd
	case "or":
		fn = opOr
	case "xor":
		fn = opXor
	case "not":
		fn, nsrc = opNot, 1
	case "cnot":
		fn, nsrc = cnotFns.pick(t), 1
	case "shl":
		fn = opShl
	case "shr":
		fn = shrFns.pick(t)
	case "popc":
		fn, nsrc = popcFns.pick(t), 1
	case "clz":
		fn, nsrc = clzFns.pick(t), 1
	case "brev":
		fn, nsrc = brevFns.pick(t), 1
	case "bfind":
		fn, nsrc = bfindFns.pick(t), 1
		in.sat = m.take("shiftamt")
	case "bfe":
		fn, nsrc = bfeFns.pick(t), 3
	case "bfi":
		fn, nsrc = bfiFns.pick(t), 4
	case "sad":
		fn, nsrc = sadFns.pick(t), 3
	case "prmt":
		if t.size != 4 || m.takeAny("f4e", "b4e", "rc8", "ecl", "ecr", "rc16") != "" {
			return unsupported(s, "prmt modes")
		}
		fn, nsrc = opPrmt, 3
	}
	if fn == nil {
		return unsupported(s, "")
	}
	in.t = t
	if err := d.dstArgs(s, in, nsrc+1); err != nil {
		return err
	}
	// Shift amounts and bit positions are .u32 whatever the type.
	srcT := []ptxType{t, t, t, t}
	switch op {
	case "shl", "shr":
		srcT[1] = typeNames["u32"]
	case "bfe":
		srcT[1], srcT[2] = typeNames["u32"], typeNames["u32"]
	case "bfi":
		srcT[2], srcT[3] = typeNames["u32"], typeNames["u32"]
	case "mad":
		if contains(m.list, "wide") {
			srcT[2] = ptxType{t.kind, 2 * t.size}
		}
	}
	regs := []*int32{&in.a, &in.b, &in.c, &in.e}
	for i := range nsrc {
		var err error
		if *regs[i], err = d.src(s, s.args[1+i], srcT[i]); err != nil {
			return err
		}
	}
	in.fn = fn
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func indexDot(s string) int {
	for i := range len(s) {
		if s[i] == '.' {
			return i
		}
	}
	return -1
}

func choose8(c bool) uint8 {
	if c {
		return 1
	}
	return 0
}

// Width-independent operations.

func opAdd(w *warp, in *inst, mask uint32) {
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = a[l] + b[l]
		}
	}
}

func opSub(w *warp, in *inst, mask uint32) {
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = a[l] - b[l]
		}
	}
}

func opMulLo(w *warp, in *inst, mask uint32) {
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = a[l] * b[l]
		}
	}
}

func opMadLo(w *warp, in *inst, mask uint32) {
	d, a, b, c := w.r(in.d), w.r(in.a), w.r(in.b), w.r(in.c)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = a[l]*b[l] + c[l]
		}
	}
}

func opAnd(w *warp, in *inst, mask uint32) {
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = a[l] & b[l]
		}
	}
}

func opOr(w *warp, in *inst, mask uint32) {
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = a[l] | b[l]
		}
	}
}

func opXor(w *warp, in *inst, mask uint32) {
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = a[l] ^ b[l]
		}
	}
}

func opNot(w *warp, in *inst, mask uint32) {
	d, a := w.r(in.d), w.r(in.a)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = ^a[l]
		}
	}
}

func opNeg(w *warp, in *inst, mask uint32) {
	d, a := w.r(in.d), w.r(in.a)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = -a[l]
		}
	}
}

// opShl shifts left; amounts of the width or more give 0 (Go's << on 64
// bits does that for 64 and more, and truncation does it for narrower
// types). The amount is .u32.
func opShl(w *warp, in *inst, mask uint32) {
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = a[l] << uint32(b[l])
		}
	}
}

// Typed operations.

func opMin[T anyInt](w *warp, in *inst, mask uint32) {
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = uint64(min(T(a[l]), T(b[l])))
		}
	}
}

func opMax[T anyInt](w *warp, in *inst, mask uint32) {
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = uint64(max(T(a[l]), T(b[l])))
		}
	}
}

// opShr shifts right, arithmetically for signed types; amounts past the
// width give 0 or, for negative signed values, -1 (Go's >> does both).
func opShr[T anyInt](w *warp, in *inst, mask uint32) {
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = uint64(T(a[l]) >> uint32(b[l]))
		}
	}
}

// opDiv divides, truncating toward zero; dividing by zero is undefined in
// PTX and a fault here. MinInt/-1 gives MinInt, as on a GPU (and in Go).
func opDiv[T anyInt](w *warp, in *inst, mask uint32) {
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	for l := range 32 {
		if mask>>l&1 != 0 {
			if T(b[l]) == 0 {
				w.faultAt(in, l, DivideByZero, "dividing %d by zero", T(a[l]))
				return
			}
			d[l] = uint64(T(a[l]) / T(b[l]))
		}
	}
}

func opRem[T anyInt](w *warp, in *inst, mask uint32) {
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	for l := range 32 {
		if mask>>l&1 != 0 {
			if T(b[l]) == 0 {
				w.faultAt(in, l, DivideByZero, "remainder of %d divided by zero", T(a[l]))
				return
			}
			d[l] = uint64(T(a[l]) % T(b[l]))
		}
	}
}

// opAbs: abs(MinInt) is MinInt, as in PTX.
func opAbs[T anyInt](w *warp, in *inst, mask uint32) {
	d, a := w.r(in.d), w.r(in.a)
	for l := range 32 {
		if mask>>l&1 != 0 {
			v := T(a[l])
			if v < 0 {
				v = -v
			}
			d[l] = uint64(v)
		}
	}
}

// mulHi returns the high half of the double-width product of n-bit
// values (16 or 32).
func mulHi[T anyInt](a, b T, n uint) T {
	if ^T(0) < 0 {
		return T(int64(a) * int64(b) >> n)
	}
	return T(uint64(a) * uint64(b) >> n)
}

func opMulHi[T anyInt](w *warp, in *inst, mask uint32) {
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	n := in.t.bits()
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = uint64(mulHi(T(a[l]), T(b[l]), n))
		}
	}
}

func opMadHi[T anyInt](w *warp, in *inst, mask uint32) {
	d, a, b, c := w.r(in.d), w.r(in.a), w.r(in.b), w.r(in.c)
	n := in.t.bits()
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = uint64(mulHi(T(a[l]), T(b[l]), n) + T(c[l]))
		}
	}
}

// mulHi64s is the high 64 bits of the signed 128-bit product.
func mulHi64s(a, b uint64) uint64 {
	hi, _ := bits.Mul64(a, b)
	if int64(a) < 0 {
		hi -= b
	}
	if int64(b) < 0 {
		hi -= a
	}
	return hi
}

func opMulHi64s(w *warp, in *inst, mask uint32) {
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = mulHi64s(a[l], b[l])
		}
	}
}

func opMulHi64u(w *warp, in *inst, mask uint32) {
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l], _ = bits.Mul64(a[l], b[l])
		}
	}
}

func opMadHi64s(w *warp, in *inst, mask uint32) {
	d, a, b, c := w.r(in.d), w.r(in.a), w.r(in.b), w.r(in.c)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = mulHi64s(a[l], b[l]) + c[l]
		}
	}
}

func opMadHi64u(w *warp, in *inst, mask uint32) {
	d, a, b, c := w.r(in.d), w.r(in.a), w.r(in.b), w.r(in.c)
	for l := range 32 {
		if mask>>l&1 != 0 {
			hi, _ := bits.Mul64(a[l], b[l])
			d[l] = hi + c[l]
		}
	}
}

// opMulWide multiplies T values into the double-width type W.
func opMulWide[T, W anyInt](w *warp, in *inst, mask uint32) {
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = uint64(W(T(a[l])) * W(T(b[l])))
		}
	}
}

func opMadWide[T, W anyInt](w *warp, in *inst, mask uint32) {
	d, a, b, c := w.r(in.d), w.r(in.a), w.r(in.b), w.r(in.c)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = uint64(W(T(a[l]))*W(T(b[l])) + W(c[l]))
		}
	}
}

// opMul24 multiplies the low 24 bits (sign-extended for .s32) into a
// 48-bit product and keeps bits 0-31 (.lo, in.mode 0) or 16-47 (.hi);
// mad24 (in.sat) adds c.
func opMul24[T anyInt](w *warp, in *inst, mask uint32) {
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	signed := ^T(0) < 0
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		x, y := int64(a[l]&0xFFFFFF), int64(b[l]&0xFFFFFF)
		if signed {
			x, y = x<<40>>40, y<<40>>40
		}
		p := uint64(x * y)
		if in.mode == 1 {
			p >>= 16
		}
		if in.sat {
			p += w.r(in.c)[l]
		}
		d[l] = uint64(uint32(p))
	}
}

func opAddSat(w *warp, in *inst, mask uint32) {
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = uint64(int32(min(max(int64(int32(a[l]))+int64(int32(b[l])), math.MinInt32), math.MaxInt32)))
		}
	}
}

func opSubSat(w *warp, in *inst, mask uint32) {
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = uint64(int32(min(max(int64(int32(a[l]))-int64(int32(b[l])), math.MinInt32), math.MaxInt32)))
		}
	}
}

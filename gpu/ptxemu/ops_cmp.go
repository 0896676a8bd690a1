package ptxemu

// Comparisons and selections: setp, set, selp, slct.

func init() {
	decoders["setp"] = decodeSetp
	decoders["set"] = decodeSetp
	decoders["selp"] = decodeSelp
	decoders["slct"] = decodeSlct
}

// Comparisons after decoding: gt, ge, hi, hs (and their unordered float
// forms) become lt and le with the operands swapped; lo, ls, hi, hs
// compare as unsigned.
const (
	cmpEq = iota
	cmpNe
	cmpLt
	cmpLe
	cmpEqu
	cmpNeu
	cmpLtu
	cmpLeu
	cmpNum
	cmpNan
)

// cmpModes maps a comparison to its mode, whether the operands swap, and
// whether it forces an unsigned comparison.
var cmpModes = map[string]struct {
	mode     uint8
	swap     bool
	unsigned bool
	float    bool // float only
}{
	"eq": {cmpEq, false, false, false}, "ne": {cmpNe, false, false, false},
	"lt": {cmpLt, false, false, false}, "le": {cmpLe, false, false, false},
	"gt": {cmpLt, true, false, false}, "ge": {cmpLe, true, false, false},
	"lo": {cmpLt, false, true, false}, "ls": {cmpLe, false, true, false},
	"hi": {cmpLt, true, true, false}, "hs": {cmpLe, true, true, false},
	"equ": {cmpEqu, false, false, true}, "neu": {cmpNeu, false, false, true},
	"ltu": {cmpLtu, false, false, true}, "leu": {cmpLeu, false, false, true},
	"gtu": {cmpLtu, true, false, true}, "geu": {cmpLeu, true, false, true},
	"num": {cmpNum, false, false, true}, "nan": {cmpNan, false, false, true},
}

// Boolean operators combining a comparison with predicate c.
const (
	boolNone = iota
	boolAnd
	boolOr
	boolXor
)

// decodeSetp decodes setp (into predicates) and set (into a register:
// all ones or 1.0f for true, 0 for false).
func decodeSetp(d *decoder, s *stmt, m *modset, in *inst) error {
	isSet := s.op[:4] != "setp"
	var cmpName string
	for name := range cmpModes {
		if m.take(name) {
			cmpName = name
			break
		}
	}
	if cmpName == "" {
		return unsupported(s, "")
	}
	c := cmpModes[cmpName]
	var boolOp uint8
	switch m.takeAny("and", "or", "xor") {
	case "and":
		boolOp = boolAnd
	case "or":
		boolOp = boolOr
	case "xor":
		boolOp = boolXor
	}
	in.ftz = m.take("ftz")
	var dt ptxType
	if isSet {
		var ok bool
		if dt, ok = m.takeType(); !ok || !(dt.size == 4 && (dt.kind == kindUint || dt.kind == kindSint || dt.kind == kindFloat)) {
			return unsupported(s, "")
		}
	}
	t, ok := m.takeType()
	if !ok || t.kind == kindPred || t.size == 1 || c.float && !t.isFloat() {
		return unsupported(s, "")
	}
	if c.unsigned {
		t.kind = kindUint
	}
	n := 3
	if boolOp != boolNone {
		n = 4
	}
	if err := args(s, n); err != nil {
		return err
	}
	var err error
	if isSet {
		if in.d, err = d.dst(s, s.args[0]); err != nil {
			return err
		}
		in.t2 = dt
	} else if s.args[0].kind == argPair {
		if in.pd, err = d.predDst(s, s.args[0].elems[0]); err != nil {
			return err
		}
		if in.pd2, err = d.predDst(s, s.args[0].elems[1]); err != nil {
			return err
		}
	} else if in.pd, err = d.predDst(s, s.args[0]); err != nil {
		return err
	}
	if err := d.srcs(s, in, t, 1, 2); err != nil {
		return err
	}
	if c.swap {
		in.a, in.b = in.b, in.a
	}
	if boolOp != boolNone {
		if in.pb, in.pbNeg, err = d.predSrc(s, s.args[3]); err != nil {
			return err
		}
	}
	in.t, in.mode = t, c.mode|boolOp<<4
	if isSet {
		in.fn = opSet
		return nil
	}
	if t.isFloat() {
		in.fn = floatCmpFns[c.mode].pick(t)
		return nil
	}
	fns := intCmpFns[c.mode]
	if fns == nil {
		return unsupported(s, "")
	}
	in.fn = fns.pick(t)
	return nil
}

// setpResult writes a comparison's lanes to the destination predicates,
// combined with predicate c when there is a boolean operator: p = r OP c,
// q = !r OP c.
func (w *warp) setpResult(in *inst, r, mask uint32) {
	p, q := r, ^r
	if op := in.mode >> 4; op != boolNone {
		c := w.preds[in.pb]
		if in.pbNeg {
			c = ^c
		}
		switch op {
		case boolAnd:
			p, q = p&c, q&c
		case boolOr:
			p, q = p|c, q|c
		case boolXor:
			p, q = p^c, q^c
		}
	}
	w.setPred(in.pd, p, mask)
	if in.pd2 >= 0 {
		w.setPred(in.pd2, q, mask)
	}
}

// intKey maps a T value to a uint64 whose unsigned order is T's order
// (the sign bit of signed values flipped).
func intKey[T anyInt](v uint64) uint64 {
	x := T(v)
	if ^T(0) < 0 {
		return uint64(int64(x)) ^ 1<<63
	}
	return uint64(x)
}

var intCmpFns = map[uint8]*intFns{
	cmpEq: {opSetpEq[int16], opSetpEq[int32], opSetpEq[int64], opSetpEq[uint16], opSetpEq[uint32], opSetpEq[uint64]},
	cmpNe: {opSetpNe[int16], opSetpNe[int32], opSetpNe[int64], opSetpNe[uint16], opSetpNe[uint32], opSetpNe[uint64]},
	cmpLt: {opSetpLt[int16], opSetpLt[int32], opSetpLt[int64], opSetpLt[uint16], opSetpLt[uint32], opSetpLt[uint64]},
	cmpLe: {opSetpLe[int16], opSetpLe[int32], opSetpLe[int64], opSetpLe[uint16], opSetpLe[uint32], opSetpLe[uint64]},
}

func opSetpEq[T anyInt](w *warp, in *inst, mask uint32) {
	a, b := w.r(in.a), w.r(in.b)
	var r uint32
	for l := range 32 {
		if T(a[l]) == T(b[l]) {
			r |= 1 << l
		}
	}
	w.setpResult(in, r, mask)
}

func opSetpNe[T anyInt](w *warp, in *inst, mask uint32) {
	a, b := w.r(in.a), w.r(in.b)
	var r uint32
	for l := range 32 {
		if T(a[l]) != T(b[l]) {
			r |= 1 << l
		}
	}
	w.setpResult(in, r, mask)
}

func opSetpLt[T anyInt](w *warp, in *inst, mask uint32) {
	a, b := w.r(in.a), w.r(in.b)
	var r uint32
	for l := range 32 {
		if T(a[l]) < T(b[l]) {
			r |= 1 << l
		}
	}
	w.setpResult(in, r, mask)
}

func opSetpLe[T anyInt](w *warp, in *inst, mask uint32) {
	a, b := w.r(in.a), w.r(in.b)
	var r uint32
	for l := range 32 {
		if T(a[l]) <= T(b[l]) {
			r |= 1 << l
		}
	}
	w.setpResult(in, r, mask)
}

// Float comparisons, ordered (false when either operand is NaN) and
// unordered (true then).
type (
	eqC  struct{}
	neC  struct{}
	ltC  struct{}
	leC  struct{}
	equC struct{}
	neuC struct{}
	ltuC struct{}
	leuC struct{}
	numC struct{}
	nanC struct{}
)

type floatCmp interface{ test(a, b float64) bool }

func (eqC) test(a, b float64) bool  { return a == b }
func (neC) test(a, b float64) bool  { return a < b || a > b }
func (ltC) test(a, b float64) bool  { return a < b }
func (leC) test(a, b float64) bool  { return a <= b }
func (equC) test(a, b float64) bool { return !(a < b || a > b) }
func (neuC) test(a, b float64) bool { return a != b }
func (ltuC) test(a, b float64) bool { return !(a >= b) }
func (leuC) test(a, b float64) bool { return !(a > b) }
func (numC) test(a, b float64) bool { return a == a && b == b }
func (nanC) test(a, b float64) bool { return a != a || b != b }

var floatCmpFns = map[uint8]floatFns{
	cmpEq: {opSetpF[float32, eqC], opSetpF[float64, eqC]}, cmpNe: {opSetpF[float32, neC], opSetpF[float64, neC]},
	cmpLt: {opSetpF[float32, ltC], opSetpF[float64, ltC]}, cmpLe: {opSetpF[float32, leC], opSetpF[float64, leC]},
	cmpEqu: {opSetpF[float32, equC], opSetpF[float64, equC]}, cmpNeu: {opSetpF[float32, neuC], opSetpF[float64, neuC]},
	cmpLtu: {opSetpF[float32, ltuC], opSetpF[float64, ltuC]}, cmpLeu: {opSetpF[float32, leuC], opSetpF[float64, leuC]},
	cmpNum: {opSetpF[float32, numC], opSetpF[float64, numC]}, cmpNan: {opSetpF[float32, nanC], opSetpF[float64, nanC]},
}

func opSetpF[T anyFloat, C floatCmp](w *warp, in *inst, mask uint32) {
	var c C
	a, b := w.r(in.a), w.r(in.b)
	var r uint32
	for l := range 32 {
		if mask>>l&1 != 0 && c.test(float64(ftz(fget[T](a[l]), in.ftz)), float64(ftz(fget[T](b[l]), in.ftz))) {
			r |= 1 << l
		}
	}
	w.setpResult(in, r, mask)
}

// compare evaluates comparison mode on register bits of type t, for the
// rarely used set instruction.
func compare(mode uint8, t ptxType, a, b uint64, flush bool) bool {
	if t.isFloat() {
		var x, y float64
		if t.size == 4 {
			x, y = float64(ftz(fget[float32](a), flush)), float64(ftz(fget[float32](b), flush))
		} else {
			x, y = fget[float64](a), fget[float64](b)
		}
		var cs = [...]floatCmp{eqC{}, neC{}, ltC{}, leC{}, equC{}, neuC{}, ltuC{}, leuC{}, numC{}, nanC{}}
		return cs[mode].test(x, y)
	}
	var ka, kb uint64
	switch {
	case t.signed() && t.size == 2:
		ka, kb = intKey[int16](a), intKey[int16](b)
	case t.signed() && t.size == 4:
		ka, kb = intKey[int32](a), intKey[int32](b)
	case t.signed():
		ka, kb = intKey[int64](a), intKey[int64](b)
	default:
		ka, kb = a&widthMask(t.bits()), b&widthMask(t.bits())
	}
	switch mode {
	case cmpEq:
		return ka == kb
	case cmpNe:
		return ka != kb
	case cmpLt:
		return ka < kb
	}
	return ka <= kb
}

// opSet is set: the comparison, combined with c, as all ones (1.0f for an
// .f32 destination) or 0.
func opSet(w *warp, in *inst, mask uint32) {
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	var c uint32
	if in.mode>>4 != boolNone {
		c = w.preds[in.pb]
		if in.pbNeg {
			c = ^c
		}
	}
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		r := compare(in.mode&15, in.t, a[l], b[l], in.ftz)
		cl := c>>l&1 != 0
		switch in.mode >> 4 {
		case boolAnd:
			r = r && cl
		case boolOr:
			r = r || cl
		case boolXor:
			r = r != cl
		}
		switch {
		case !r:
			d[l] = 0
		case in.t2.isFloat():
			d[l] = fput[float32](1)
		default:
			d[l] = 0xFFFFFFFF
		}
	}
}

func decodeSelp(d *decoder, s *stmt, m *modset, in *inst) error {
	t, ok := m.takeType()
	if !ok || t.kind == kindPred {
		return unsupported(s, "")
	}
	if err := d.dstArgs(s, in, 4); err != nil {
		return err
	}
	var err error
	if err := d.srcs(s, in, t, 1, 2); err != nil {
		return err
	}
	in.pa, in.paNeg, err = d.predSrc(s, s.args[3])
	in.fn = opSelp
	return err
}

func opSelp(w *warp, in *inst, mask uint32) {
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	c := w.preds[in.pa]
	if in.paNeg {
		c = ^c
	}
	for l := range 32 {
		if mask>>l&1 != 0 {
			if c>>l&1 != 0 {
				d[l] = a[l]
			} else {
				d[l] = b[l]
			}
		}
	}
}

// decodeSlct decodes slct.dtype.s32 (a if c >= 0) and slct.dtype.f32
// (a if c >= 0.0).
func decodeSlct(d *decoder, s *stmt, m *modset, in *inst) error {
	in.ftz = m.take("ftz")
	t, ok1 := m.takeType()
	ct, ok2 := m.takeType()
	if !ok1 || !ok2 || !(ct.kind == kindSint && ct.size == 4 || ct.kind == kindFloat && ct.size == 4) {
		return unsupported(s, "")
	}
	if err := d.dstArgs(s, in, 4); err != nil {
		return err
	}
	var err error
	if err := d.srcs(s, in, t, 1, 2); err != nil {
		return err
	}
	in.t2 = ct
	in.c, err = d.src(s, s.args[3], ct)
	in.fn = opSlct
	return err
}

func opSlct(w *warp, in *inst, mask uint32) {
	d, a, b, c := w.r(in.d), w.r(in.a), w.r(in.b), w.r(in.c)
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		var ge bool
		if in.t2.isFloat() {
			ge = ftz(fget[float32](c[l]), in.ftz) >= 0
		} else {
			ge = int32(c[l]) >= 0
		}
		if ge {
			d[l] = a[l]
		} else {
			d[l] = b[l]
		}
	}
}

package ptxemu

import (
	"math"
	"math/big"
	"unsafe"
)

// Floating-point arithmetic, .f32 and .f64, IEEE 754 with round to
// nearest even (the default .rn), and the directed roundings (.rz, .rm,
// .rp) of add, sub, mul and fma (ops_round.go); those of div, sqrt and
// rcp are not supported. Approximate instructions (.approx:
// sin, cos, lg2, ex2, rcp, rsqrt, tanh, div) are computed in float64 and
// rounded once, so they are at least as accurate as a GPU's, whose results
// may differ in the last bits (within the error bounds PTX documents).
// .ftz flushes single-precision subnormal inputs and results to zero of
// the same sign, as a GPU does.

func init() {
	for _, op := range []string{"fma", "sqrt", "rcp", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh", "copysign"} {
		decoders[op] = decodeArith
	}
	decoders["testp"] = decodeTestp
}

// anyFloat are the Go types of .f32 and .f64.
type anyFloat interface{ ~float32 | ~float64 }

// fget reads a register's bits as a float of type T.
func fget[T anyFloat](u uint64) T { return *(*T)(unsafe.Pointer(&u)) }

// fput encodes v as register bits (zero-extended).
func fput[T anyFloat](v T) uint64 {
	var u uint64
	*(*T)(unsafe.Pointer(&u)) = v
	return u
}

// minNormal32 is the smallest normal float32.
const minNormal32 = 0x1p-126

// ftz flushes a subnormal float32 to zero of the same sign (float64
// values are never flushed).
func ftz[T anyFloat](x T, on bool) T {
	if on && unsafe.Sizeof(x) == 4 && x != 0 && x > -minNormal32 && x < minNormal32 {
		return T(math.Copysign(0, float64(x)))
	}
	return x
}

// saturate clamps to [0, 1], NaN to 0.
func saturate[T anyFloat](x T, on bool) T {
	if !on {
		return x
	}
	switch {
	case x != x || x <= 0:
		return 0
	case x > 1:
		return 1
	}
	return x
}

// floatFns holds one operation's instantiations.
type floatFns struct{ f32, f64 execFn }

func (f floatFns) pick(t ptxType) execFn {
	if t.size == 4 {
		return f.f32
	}
	return f.f64
}

// unary float operations, by opcode.
var floatUnary = map[string]floatFns{
	"abs":   {opFUnary[float32, absF], opFUnary[float64, absF]},
	"neg":   {opFUnary[float32, negF], opFUnary[float64, negF]},
	"sqrt":  {opFUnary[float32, sqrtF], opFUnary[float64, sqrtF]},
	"rcp":   {opFUnary[float32, rcpF], opFUnary[float64, rcpF]},
	"rsqrt": {opFUnary[float32, rsqrtF], opFUnary[float64, rsqrtF]},
	"sin":   {opFUnary[float32, sinF], nil},
	"cos":   {opFUnary[float32, cosF], nil},
	"lg2":   {opFUnary[float32, lg2F], nil},
	"ex2":   {opFUnary[float32, ex2F], nil},
	"tanh":  {opFUnary[float32, tanhF], nil},
}

// decodeFloat decodes the float forms of the arithmetic opcodes.
func decodeFloat(d *decoder, s *stmt, m *modset, in *inst, op string) error {
	t, _ := m.takeType()
	dir := m.takeAny("rz", "rm", "rp")
	if dir != "" && op != "add" && op != "sub" && op != "mul" && op != "fma" && op != "mad" {
		return unsupported(s, "directed rounding ."+dir+" of "+op)
	}
	rn := m.take("rn")
	approx := m.takeAny("approx", "full")
	in.ftz = m.take("ftz")
	in.sat = m.take("sat")
	if in.ftz && t.size != 4 {
		return unsupported(s, "")
	}
	nsrc := 2
	var fn execFn
	switch op {
	case "add":
		fn = floatFns{opFBinary[float32, addF], opFBinary[float64, addF]}.pick(t)
	case "sub":
		fn = floatFns{opFBinary[float32, subF], opFBinary[float64, subF]}.pick(t)
	case "mul":
		fn = floatFns{opFBinary[float32, mulF], opFBinary[float64, mulF]}.pick(t)
	case "div":
		if !rn && approx == "" {
			return unsupported(s, "div without .rn, .approx or .full")
		}
		fn = floatFns{opFBinary[float32, divF], opFBinary[float64, divF]}.pick(t)
	case "min":
		fn = floatFns{opFBinary[float32, minF], opFBinary[float64, minF]}.pick(t)
	case "max":
		fn = floatFns{opFBinary[float32, maxF], opFBinary[float64, maxF]}.pick(t)
	case "copysign":
		fn = floatFns{opFBinary[float32, copysignF], opFBinary[float64, copysignF]}.pick(t)
	case "fma", "mad":
		fn, nsrc = floatFns{opFma32, opFma64}.pick(t), 3
	default:
		f, ok := floatUnary[op]
		if !ok {
			return unsupported(s, "")
		}
		fn, nsrc = f.pick(t), 1
	}
	if dir != "" {
		in.mode = uint8(map[string]big.RoundingMode{"rz": big.ToZero, "rm": big.ToNegativeInf, "rp": big.ToPositiveInf}[dir])
		in.size = map[string]uint8{"add": dirAdd, "sub": dirSub, "mul": dirMul, "fma": dirFma, "mad": dirFma}[op]
		fn = opFDirected
	}
	if fn == nil {
		return unsupported(s, "")
	}
	in.t = t
	if err := d.dstArgs(s, in, nsrc+1); err != nil {
		return err
	}
	in.fn = fn
	return d.srcs(s, in, t, 1, nsrc)
}

// Scalar float operations, as types for the generic lane loops (a type
// argument inlines where a function value would cost a call per lane).
type (
	absF      struct{}
	negF      struct{}
	sqrtF     struct{}
	rcpF      struct{}
	rsqrtF    struct{}
	sinF      struct{}
	cosF      struct{}
	lg2F      struct{}
	ex2F      struct{}
	tanhF     struct{}
	addF      struct{}
	subF      struct{}
	mulF      struct{}
	divF      struct{}
	minF      struct{}
	maxF      struct{}
	copysignF struct{}
)

// unaryOp and binaryOp are implemented by the types above.
type unaryOp interface{ f64(x float64) float64 }
type binaryOp interface{ apply(a, b float64) float64 }

func (absF) f64(x float64) float64   { return math.Abs(x) }
func (negF) f64(x float64) float64   { return -x }
func (sqrtF) f64(x float64) float64  { return math.Sqrt(x) }
func (rcpF) f64(x float64) float64   { return 1 / x }
func (rsqrtF) f64(x float64) float64 { return 1 / math.Sqrt(x) }
func (sinF) f64(x float64) float64   { return math.Sin(x) }
func (cosF) f64(x float64) float64   { return math.Cos(x) }
func (lg2F) f64(x float64) float64   { return math.Log2(x) }
func (ex2F) f64(x float64) float64   { return math.Exp2(x) }
func (tanhF) f64(x float64) float64  { return math.Tanh(x) }

// addF etc. compute in float64, then the lane loop rounds once to T: for
// float32 operands the float64 sum, difference and product are exact or
// (the sum of very different magnitudes) rounded so that a second
// rounding to float32 equals the direct one, as for the quotient and the
// square root; float64 operations are the IEEE operations themselves.
func (addF) apply(a, b float64) float64 { return a + b }
func (subF) apply(a, b float64) float64 { return a - b }
func (mulF) apply(a, b float64) float64 { return a * b }
func (divF) apply(a, b float64) float64 { return a / b }

// minF returns the smaller, the other operand when one is NaN, and -0
// for min(-0, +0).
func (minF) apply(a, b float64) float64 {
	switch {
	case a != a:
		return b
	case b != b:
		return a
	case a == b && a == 0:
		if math.Signbit(a) {
			return a
		}
		return b
	case a < b:
		return a
	}
	return b
}

// maxF is minF mirrored: the larger, the other operand when one is NaN,
// and +0 for max(-0, +0).
func (maxF) apply(a, b float64) float64 { return -minF{}.apply(-a, -b) }

// copysignF is PTX's copysign: b's magnitude with a's sign.
func (copysignF) apply(a, b float64) float64 { return math.Copysign(b, a) }

func opFUnary[T anyFloat, O unaryOp](w *warp, in *inst, mask uint32) {
	var op O
	d, a := w.r(in.d), w.r(in.a)
	for l := range 32 {
		if mask>>l&1 != 0 {
			x := ftz(fget[T](a[l]), in.ftz)
			d[l] = fput(ftz(saturate(T(op.f64(float64(x))), in.sat), in.ftz))
		}
	}
}

func opFBinary[T anyFloat, O binaryOp](w *warp, in *inst, mask uint32) {
	var op O
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	for l := range 32 {
		if mask>>l&1 != 0 {
			x, y := ftz(fget[T](a[l]), in.ftz), ftz(fget[T](b[l]), in.ftz)
			d[l] = fput(ftz(saturate(T(op.apply(float64(x), float64(y))), in.sat), in.ftz))
		}
	}
}

func opFma64(w *warp, in *inst, mask uint32) {
	d, a, b, c := w.r(in.d), w.r(in.a), w.r(in.b), w.r(in.c)
	for l := range 32 {
		if mask>>l&1 != 0 {
			r := math.FMA(fget[float64](a[l]), fget[float64](b[l]), fget[float64](c[l]))
			d[l] = fput(saturate(r, in.sat))
		}
	}
}

func opFma32(w *warp, in *inst, mask uint32) {
	d, a, b, c := w.r(in.d), w.r(in.a), w.r(in.b), w.r(in.c)
	for l := range 32 {
		if mask>>l&1 != 0 {
			x, y, z := ftz(fget[float32](a[l]), in.ftz), ftz(fget[float32](b[l]), in.ftz), ftz(fget[float32](c[l]), in.ftz)
			d[l] = fput(ftz(saturate(fma32(x, y, z), in.sat), in.ftz))
		}
	}
}

// fma32 is the single-precision fused multiply-add, rounded once. The
// float64 FMA is exact up to its own rounding; rounding that again to
// float32 can differ from a single rounding only when the float64 result
// lies exactly halfway between two float32 values, and then the exact sum
// decides.
func fma32(a, b, c float32) float32 {
	r := math.FMA(float64(a), float64(b), float64(c))
	f := float32(r)
	if float64(f) == r || math.IsInf(r, 0) || r != r {
		return f
	}
	other := math.Nextafter32(f, float32(math.Copysign(math.Inf(1), r-float64(f))))
	if (float64(f)+float64(other))/2 != r {
		return f
	}
	exact := new(big.Float).SetPrec(1024).SetFloat64(float64(a))
	exact.Mul(exact, new(big.Float).SetFloat64(float64(b)))
	exact.Add(exact, new(big.Float).SetFloat64(float64(c)))
	v, _ := exact.Float32()
	return v
}

// Classes of testp.
const (
	testFinite = iota
	testInfinite
	testNumber
	testNaN
	testNormal
	testSubnormal
)

func decodeTestp(d *decoder, s *stmt, m *modset, in *inst) error {
	var ok bool
	if in.mode, ok = m.takeMode("finite", "infinite", "number", "notanumber", "normal", "subnormal"); !ok { // testFinite...testSubnormal
		return unsupported(s, "")
	}
	t, ok := m.takeType()
	if !ok || !t.isFloat() {
		return unsupported(s, "")
	}
	if err := args(s, 2); err != nil {
		return err
	}
	var err error
	if in.pd, err = d.predDst(s, s.args[0]); err != nil {
		return err
	}
	in.t = t
	in.a, err = d.src(s, s.args[1], t)
	in.fn = opTestp
	return err
}

func opTestp(w *warp, in *inst, mask uint32) {
	a := w.r(in.a)
	var res uint32
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		var x, minNormal float64
		if in.t.size == 4 {
			x, minNormal = float64(fget[float32](a[l])), minNormal32
		} else {
			x, minNormal = fget[float64](a[l]), 0x1p-1022
		}
		abs := math.Abs(x)
		var r bool
		switch in.mode {
		case testFinite:
			r = !math.IsInf(x, 0) && x == x
		case testInfinite:
			r = math.IsInf(x, 0)
		case testNumber:
			r = x == x
		case testNaN:
			r = x != x
		case testNormal:
			r = abs >= minNormal && !math.IsInf(x, 0)
		case testSubnormal:
			r = abs > 0 && abs < minNormal
		}
		if r {
			res |= 1 << l
		}
	}
	w.setPred(in.pd, res, mask)
}

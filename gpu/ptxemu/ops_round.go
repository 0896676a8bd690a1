package ptxemu

import (
	"math"
	"math/big"
)

// Directed rounding (.rz, .rm, .rp) of add, sub, mul and fma, which
// nvcc's libdevice emits in powf and the like. The exact result is
// computed with math/big (wide enough for any sum of two floats of the
// type, and for a product plus a third), then rounded once to the
// type's precision, subnormals and overflow included, in the direction
// asked for.

// directedOps are the operations with directed rounding.
const (
	dirAdd uint8 = iota
	dirSub
	dirMul
	dirFma
)

// exactBits is a precision in which every sum, product and fused
// multiply-add of float32 (float64) values is exact: the exponent range
// plus the product's mantissa.
func exactBits(size uint8) uint {
	if size == 4 {
		return 400
	}
	return 2400
}

// opFDirected runs add, sub, mul or fma (in.size holds which) rounded
// by in.mode, a big.RoundingMode.
func opFDirected(w *warp, in *inst, mask uint32) {
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	var c *[32]uint64
	if in.c >= 0 {
		c = w.r(in.c)
	}
	f32 := in.t.size == 4
	get := func(u uint64) float64 {
		if f32 {
			return float64(ftz(fget[float32](u), in.ftz))
		}
		return fget[float64](u)
	}
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		x, y, z := get(a[l]), get(b[l]), 0.0
		if c != nil {
			z = get(c[l])
		}
		r := directed(in.size, x, y, z, in.t.size, big.RoundingMode(in.mode))
		if f32 {
			d[l] = fput(ftz(saturate(float32(r), in.sat), in.ftz))
		} else {
			d[l] = fput(saturate(r, in.sat))
		}
	}
}

// directed computes op(x, y[, z]) rounded to a float of size bytes in
// mode. The result is exactly representable in that type (as a float64).
func directed(op uint8, x, y, z float64, size uint8, mode big.RoundingMode) float64 {
	native := func() float64 {
		switch op {
		case dirAdd:
			return x + y
		case dirSub:
			return x - y
		case dirMul:
			return x * y
		}
		return math.FMA(x, y, z)
	}
	for _, v := range []float64{x, y, z} {
		if math.IsInf(v, 0) || v != v {
			return native() // infinities and NaN do not depend on the rounding
		}
	}
	prec := exactBits(size)
	bx := new(big.Float).SetPrec(prec).SetFloat64(x)
	by := new(big.Float).SetPrec(prec).SetFloat64(y)
	r := new(big.Float).SetPrec(prec)
	switch op {
	case dirAdd:
		r.Add(bx, by)
	case dirSub:
		r.Sub(bx, by)
	case dirMul:
		r.Mul(bx, by)
	default:
		r.Mul(bx, by)
		r.Add(r, new(big.Float).SetPrec(prec).SetFloat64(z))
	}
	if r.Sign() == 0 {
		// An exact zero: its sign is the native one, except that a sum
		// of nonzero values that cancel is -0 when rounding toward -∞.
		n := native()
		cancel := op == dirAdd && x != 0 || op == dirSub && x != 0 || op == dirFma && x != 0 && y != 0
		if cancel && mode == big.ToNegativeInf {
			return math.Copysign(0, -1)
		}
		return n
	}
	return roundTo(r, size, mode)
}

// roundTo rounds the exact nonzero value r to the float type of size
// bytes, toward zero, -∞ or +∞.
func roundTo(r *big.Float, size uint8, mode big.RoundingMode) float64 {
	mbits, emin, maxVal := 53, -1022, math.MaxFloat64
	if size == 4 {
		mbits, emin, maxVal = 24, -126, math.MaxFloat32
	}
	neg := r.Sign() < 0
	exp := r.MantExp(nil) - 1 // r = 1.m × 2^exp
	p := mbits
	if exp < emin {
		p = mbits - (emin - exp) // a subnormal has fewer bits
	}
	tiny := math.Ldexp(1, emin-mbits+1) // the smallest subnormal
	if p <= 0 {
		// Below the smallest subnormal: 0 or the smallest subnormal.
		switch {
		case mode == big.ToZero, mode == big.ToNegativeInf && !neg, mode == big.ToPositiveInf && neg:
			return math.Copysign(0, float64(r.Sign()))
		case neg:
			return -tiny
		}
		return tiny
	}
	v, _ := new(big.Float).SetMode(mode).SetPrec(uint(p)).Set(r).Float64()
	if math.Abs(v) > maxVal {
		// Overflow: the largest finite value unless rounding away from zero.
		switch {
		case mode == big.ToZero, mode == big.ToNegativeInf && !neg, mode == big.ToPositiveInf && neg:
			return math.Copysign(maxVal, v)
		}
		return math.Copysign(math.Inf(1), v)
	}
	return v
}

package ptxemu

import (
	"math"
	"math/big"
	"testing"
)

// perLane builds 32 lane values from f.
func perLane(f func(l int) uint64) []uint64 {
	v := make([]uint64, 32)
	for l := range v {
		v[l] = f(l)
	}
	return v
}

// cycle repeats values over the 32 lanes.
func cycle(v ...uint64) []uint64 { return perLane(func(l int) uint64 { return v[l%len(v)] }) }

func TestIntegerArithmetic(t *testing.T) {
	const s32 = "cvt.s64.s32 %rd10, %r4;"
	const u32 = "cvt.u64.u32 %rd10, %r4;"
	runCases(t, []laneCase{
		{"add.s32 wraps", "add.s32 %r4, %r1, %r2;" + s32, vals(0x7FFFFFFF), vals(1), nil, vals(i64(math.MinInt32))},
		{"add.u32 wraps", "add.u32 %r4, %r1, %r2;" + u32, vals(0xFFFFFFFF), vals(2), nil, vals(1)},
		{"add.s64 immediate", "add.s64 %rd10, %rd1, -3;", vals(1), nil, nil, vals(i64(-2))},
		{"sub.s64 wraps", "sub.s64 %rd10, %rd1, %rd2;", vals(1 << 63), vals(1), nil, vals(math.MaxInt64)},
		{"sub.u16 wraps", "sub.u16 %h4, %h1, %h2; cvt.u64.u16 %rd10, %h4;", vals(0), vals(1), nil, vals(0xFFFF)},
		{"add.sat.s32 clamps", "add.sat.s32 %r4, %r1, %r2;" + s32, cycle(0x7FFFFFFF, 0x80000000), cycle(5, i64(-5)), nil,
			cycle(math.MaxInt32, i64(math.MinInt32))},
		{"mul.lo.s32 wraps", "mul.lo.s32 %r4, %r1, %r2;" + s32, vals(0x10001), vals(0x10000), nil, vals(0x10000)},
		{"mul.hi.s32", "mul.hi.s32 %r4, %r1, %r2;" + s32, vals(0xFFFFFFFE), vals(3), nil, vals(i64(-1))},
		{"mul.hi.u32", "mul.hi.u32 %r4, %r1, %r2;" + u32, vals(0xFFFFFFFE), vals(3), nil, vals(2)},
		{"mul.hi.u64", "mul.hi.u64 %rd10, %rd1, %rd2;", vals(1 << 63), vals(4), nil, vals(2)},
		{"mul.hi.s64", "mul.hi.s64 %rd10, %rd1, %rd2;", vals(i64(-1)), vals(5), nil, vals(i64(-1))},
		{"mul.hi.s64 large", "mul.hi.s64 %rd10, %rd1, %rd2;", vals(i64(math.MinInt64)), vals(i64(math.MinInt64)), nil, vals(1 << 62)},
		{"mul.wide.s32", "mul.wide.s32 %rd10, %r1, %r2;", vals(0xFFFFFFFE), vals(0x40000000), nil, vals(i64(-0x80000000))},
		{"mul.wide.u32", "mul.wide.u32 %rd10, %r1, %r2;", vals(0xFFFFFFFF), vals(0xFFFFFFFF), nil, vals(0xFFFFFFFE00000001)},
		{"mul.wide.s16", "mul.wide.s16 %r4, %h1, %h2;" + s32, vals(0xFFFF), vals(0x7FFF), nil, vals(i64(-0x7FFF))},
		{"mad.lo.s32", "mad.lo.s32 %r4, %r1, %r2, %r3;" + s32, vals(6), vals(7), vals(i64(-50)), vals(i64(-8))},
		{"mad.wide.u32", "mad.wide.u32 %rd10, %r1, %r2, %rd3;", vals(0xFFFFFFFF), vals(2), vals(1), vals(0x1FFFFFFFF)},
		{"mad.hi.u32", "mad.hi.u32 %r4, %r1, %r2, %r3;" + u32, vals(0x80000000), vals(4), vals(1), vals(3)},
		{"mul24.lo.u32", "mul24.lo.u32 %r4, %r1, %r2;" + u32, vals(0x1000003), vals(5), nil, vals(15)},
		{"mul24.lo.s32", "mul24.lo.s32 %r4, %r1, %r2;" + s32, vals(0xFFFFFF), vals(5), nil, vals(i64(-5))},
		{"mul24.hi.u32", "mul24.hi.u32 %r4, %r1, %r2;" + u32, vals(0x800000), vals(0x800000), nil, vals(0x40000000)},
		{"mad24.lo.u32", "mad24.lo.u32 %r4, %r1, %r2, %r3;" + u32, vals(3), vals(4), vals(5), vals(17)},
		{"sad.u32", "sad.u32 %r4, %r1, %r2, %r3;" + u32, cycle(3, 10), cycle(10, 3), vals(1), vals(8)},
		{"div.s32 truncates", "div.s32 %r4, %r1, %r2;" + s32, cycle(i64(-7), 7), vals(2), nil, cycle(i64(-3), 3)},
		{"rem.s32 sign of dividend", "rem.s32 %r4, %r1, %r2;" + s32, cycle(i64(-7), 7), vals(i64(-2)), nil, cycle(i64(-1), 1)},
		{"div.u32", "div.u32 %r4, %r1, %r2;" + u32, vals(0xFFFFFFF9), vals(2), nil, vals(0x7FFFFFFC)},
		{"div.s32 MinInt by -1", "div.s32 %r4, %r1, %r2;" + s32, vals(0x80000000), vals(0xFFFFFFFF), nil, vals(i64(math.MinInt32))},
		{"rem.u64", "rem.u64 %rd10, %rd1, %rd2;", vals(1<<64 - 1), vals(10), nil, vals(5)},
		{"abs.s32", "abs.s32 %r4, %r1;" + s32, cycle(i64(-5), 5, 0x80000000), nil, nil, cycle(5, 5, i64(math.MinInt32))},
		{"neg.s32", "neg.s32 %r4, %r1;" + s32, cycle(5, 0x80000000), nil, nil, cycle(i64(-5), i64(math.MinInt32))},
		{"neg.s64", "neg.s64 %rd10, %rd1;", vals(7), nil, nil, vals(i64(-7))},
	})
}

func TestShiftsPastTheWidth(t *testing.T) {
	amounts := cycle(0, 1, 31, 32, 33, 40, 63, 64, 100)
	pick := func(f func(s uint64) uint64) []uint64 {
		return perLane(func(l int) uint64 { return f(amounts[l]) })
	}
	runCases(t, []laneCase{
		{"shl.b32", "shl.b32 %r4, %r1, %r2; cvt.u64.u32 %rd10, %r4;", vals(1), amounts, nil,
			pick(func(s uint64) uint64 { return uint64(uint32(1) << s) })},
		{"shr.u32", "shr.u32 %r4, %r1, %r2; cvt.u64.u32 %rd10, %r4;", vals(0x80000000), amounts, nil,
			pick(func(s uint64) uint64 { return uint64(uint32(0x80000000) >> s) })},
		{"shr.s32 negative fills with the sign", "shr.s32 %r4, %r1, %r2; cvt.s64.s32 %rd10, %r4;", vals(0x80000000), amounts, nil,
			pick(func(s uint64) uint64 { return uint64(int64(int32(math.MinInt32) >> s)) })},
		{"shr.s32 positive", "shr.s32 %r4, %r1, %r2; cvt.s64.s32 %rd10, %r4;", vals(0x40000000), amounts, nil,
			pick(func(s uint64) uint64 { return uint64(int64(int32(0x40000000) >> s)) })},
		{"shl.b64", "shl.b64 %rd10, %rd1, %r2;", vals(3), amounts, nil, pick(func(s uint64) uint64 { return 3 << s })},
		{"shr.s64", "shr.s64 %rd10, %rd1, %r2;", vals(i64(-8)), amounts, nil,
			pick(func(s uint64) uint64 { return uint64(int64(-8) >> s) })},
		{"shr.u16", "shr.u16 %h4, %h1, %r2; cvt.u64.u16 %rd10, %h4;", vals(0x8000), amounts, nil,
			pick(func(s uint64) uint64 { return uint64(uint16(0x8000) >> s) })},
		{"shl.b16", "shl.b16 %h4, %h1, %r2; cvt.u64.u16 %rd10, %h4;", vals(1), amounts, nil,
			pick(func(s uint64) uint64 { return uint64(uint16(1) << s) })},
	})
}

func TestMinMaxSignedness(t *testing.T) {
	runCases(t, []laneCase{
		{"min.s32", "min.s32 %r4, %r1, %r2; cvt.s64.s32 %rd10, %r4;", vals(0xFFFFFFFF), vals(1), nil, vals(i64(-1))},
		{"min.u32", "min.u32 %r4, %r1, %r2; cvt.u64.u32 %rd10, %r4;", vals(0xFFFFFFFF), vals(1), nil, vals(1)},
		{"max.s32", "max.s32 %r4, %r1, %r2; cvt.s64.s32 %rd10, %r4;", vals(0xFFFFFFFF), vals(1), nil, vals(1)},
		{"max.u32", "max.u32 %r4, %r1, %r2; cvt.u64.u32 %rd10, %r4;", vals(0xFFFFFFFF), vals(1), nil, vals(0xFFFFFFFF)},
		{"min.s64", "min.s64 %rd10, %rd1, %rd2;", vals(1 << 63), vals(0), nil, vals(1 << 63)},
		{"min.u64", "min.u64 %rd10, %rd1, %rd2;", vals(1 << 63), vals(0), nil, vals(0)},
		{"max.s16", "max.s16 %h4, %h1, %h2; cvt.s64.s16 %rd10, %h4;", vals(0x8000), vals(0x7FFF), nil, vals(0x7FFF)},
		{"max.u16", "max.u16 %h4, %h1, %h2; cvt.u64.u16 %rd10, %h4;", vals(0x8000), vals(0x7FFF), nil, vals(0x8000)},
		{"max.s32 immediate", "max.s32 %r4, %r1, -1073741823; cvt.s64.s32 %rd10, %r4;", cycle(i64(-2000000000), 5), nil, nil,
			cycle(i64(-1073741823), 5)},
	})
}

func TestBitOperations(t *testing.T) {
	const u32 = "cvt.u64.u32 %rd10, %r4;"
	const s32 = "cvt.s64.s32 %rd10, %r4;"
	runCases(t, []laneCase{
		{"and.b32", "and.b32 %r4, %r1, %r2;" + u32, vals(0xF0F0), vals(0xFF00), nil, vals(0xF000)},
		{"or.b64", "or.b64 %rd10, %rd1, %rd2;", vals(1 << 40), vals(1), nil, vals(1<<40 | 1)},
		{"xor.b32", "xor.b32 %r4, %r1, %r2;" + u32, vals(0xFFFF), vals(0xF0F0), nil, vals(0x0F0F)},
		{"not.b32", "not.b32 %r4, %r1;" + u32, vals(0x0F0F0F0F), nil, nil, vals(0xF0F0F0F0)},
		{"cnot.b32", "cnot.b32 %r4, %r1;" + u32, cycle(0, 7, 1<<32), nil, nil, cycle(1, 0, 1)},
		{"popc.b32", "popc.b32 %r4, %r1;" + u32, vals(0xF0F0), nil, nil, vals(8)},
		{"popc.b64", "popc.b64 %r4, %rd1;" + u32, vals(1<<64 - 1), nil, nil, vals(64)},
		{"clz.b32", "clz.b32 %r4, %r1;" + u32, cycle(1, 0, 0x80000000), nil, nil, cycle(31, 32, 0)},
		{"clz.b64", "clz.b64 %r4, %rd1;" + u32, cycle(1, 0), nil, nil, cycle(63, 64)},
		{"brev.b32", "brev.b32 %r4, %r1;" + u32, vals(1), nil, nil, vals(0x80000000)},
		{"brev.b64", "brev.b64 %rd10, %rd1;", vals(3), nil, nil, vals(0xC000000000000000)},
		{"bfind.u32", "bfind.u32 %r4, %r1;" + u32, cycle(0x10, 0, 1), nil, nil, cycle(4, 0xFFFFFFFF, 0)},
		{"bfind.s32", "bfind.s32 %r4, %r1;" + u32, cycle(0xFFFFFFFF, 0xFFFF0000, 0x10), nil, nil, cycle(0xFFFFFFFF, 15, 4)},
		{"bfind.shiftamt.u32", "bfind.shiftamt.u32 %r4, %r1;" + u32, vals(0x10), nil, nil, vals(27)},
		{"bfe.u32", "bfe.u32 %r4, %r1, %r2, %r3;" + u32, vals(0xABCD1234), vals(8), vals(8), vals(0x12)},
		{"bfe.s32 sign-extends", "bfe.s32 %r4, %r1, %r2, %r3;" + s32, vals(0x0000F000), vals(12), cycle(4, 0, 8),
			cycle(i64(-1), 0, 0xF)},
		{"bfe.u32 past the top", "bfe.u32 %r4, %r1, %r2, %r3;" + u32, vals(0xF0000000), vals(28), vals(16), vals(0xF)},
		{"bfi.b32", "bfi.b32 %r4, %r1, %r2, %r3, 4;" + u32, vals(0xF), vals(0xFFFF0000), vals(4), vals(0xFFFF00F0)},
		{"prmt.b32", "prmt.b32 %r4, %r1, %r2, %r3;" + u32, vals(0x33221100), vals(0x77665544), cycle(0x7531, 0x8880),
			cycle(0x77553311, 0x00000000)},
		{"prmt.b32 replicates signs", "prmt.b32 %r4, %r1, %r2, 0x0008;" + u32, vals(0x80), vals(0), nil, vals(0x808080FF)},
	})
}

func TestComparisonsAndPredicates(t *testing.T) {
	sel := "selp.u64 %rd10, 1, 0, %p1;"
	runCases(t, []laneCase{
		{"setp.lt.s32", "setp.lt.s32 %p1, %r1, %r2;" + sel, vals(0xFFFFFFFF), vals(1), nil, vals(1)},
		{"setp.lt.u32", "setp.lt.u32 %p1, %r1, %r2;" + sel, vals(0xFFFFFFFF), vals(1), nil, vals(0)},
		{"setp.lo.u32", "setp.lo.u32 %p1, %r1, %r2;" + sel, vals(1), vals(0xFFFFFFFF), nil, vals(1)},
		{"setp.hi.u32", "setp.hi.u32 %p1, %r1, %r2;" + sel, vals(0xFFFFFFFF), vals(1), nil, vals(1)},
		{"setp.gt.s32", "setp.gt.s32 %p1, %r1, %r2;" + sel, cycle(5, 4, 3), vals(4), nil, cycle(1, 0, 0)},
		{"setp.ge.s32", "setp.ge.s32 %p1, %r1, %r2;" + sel, cycle(5, 4, 3), vals(4), nil, cycle(1, 1, 0)},
		{"setp.le.s64", "setp.le.s64 %p1, %rd1, %rd2;" + sel, cycle(i64(-5), 4, 3), vals(4), nil, cycle(1, 1, 1)},
		{"setp.ls.u64", "setp.ls.u64 %p1, %rd1, %rd2;" + sel, cycle(i64(-5), 4, 3), vals(4), nil, cycle(0, 1, 1)},
		{"setp.hs.u16", "setp.hs.u16 %p1, %h1, %h2;" + sel, cycle(0xFFFF, 4, 3), vals(4), nil, cycle(1, 1, 0)},
		{"setp.eq.s32 against an immediate", "setp.eq.s32 %p1, %r1, 2147483647;" + sel, cycle(0x7FFFFFFF, 0), nil, nil, cycle(1, 0)},
		{"setp.ne.s16", "setp.ne.s16 %p1, %h1, 0;" + sel, cycle(0x10000, 1), nil, nil, cycle(0, 1)},
		{"setp pair and not.pred", "setp.lt.s32 %p1|%p2, %r1, %r2; selp.u64 %rd10, 10, 20, %p2; not.pred %p3, %p2; selp.u64 %rd11, 1, 2, %p3; add.s64 %rd10, %rd10, %rd11;",
			cycle(1, 5), vals(3), nil, cycle(21, 12)},
		{"setp.and combines", "setp.ne.s32 %p2, %r3, 0; setp.lt.and.s32 %p1, %r1, %r2, %p2;" + sel, vals(1), vals(2), cycle(0, 1), cycle(0, 1)},
		{"setp.or with a negated predicate", "setp.ne.s32 %p2, %r3, 0; setp.gt.or.s32 %p1, %r1, %r2, !%p2;" + sel, vals(1), vals(2), cycle(0, 1), cycle(1, 0)},
		{"setp.xor second result", "setp.ne.s32 %p2, %r3, 0; setp.eq.xor.s32 %p3|%p1, %r1, %r2, %p2;" + sel, vals(1), cycle(1, 2), cycle(0, 0, 1, 1), cycle(0, 1, 1, 0)},
		{"and/or/xor.pred", "setp.ne.s32 %p2, %r1, 0; setp.ne.s32 %p3, %r2, 0; and.pred %p4, %p2, %p3; or.pred %p5, %p2, %p3; xor.pred %p1, %p4, %p5;" + sel,
			cycle(0, 1, 0, 1), cycle(0, 0, 1, 1), nil, cycle(0, 1, 1, 0)},
		{"guards", "setp.ne.s32 %p1, %r1, 0; @%p1 mov.u64 %rd10, 7; @!%p1 mov.u64 %rd10, 9;", cycle(0, 1), nil, nil, cycle(9, 7)},
		{"selp.f32", "setp.ne.s32 %p1, %r1, 0; selp.f32 %f4, %f2, 0f3F800000, %p1; mov.b32 %r4, %f4; cvt.u64.u32 %rd10, %r4;",
			cycle(0, 1), vals(f32(2.5)), nil, cycle(f32(1), f32(2.5))},
		{"set.lt.u32.s32", "set.lt.u32.s32 %r4, %r1, %r2; cvt.u64.u32 %rd10, %r4;", cycle(1, 3), vals(2), nil, cycle(0xFFFFFFFF, 0)},
		{"set.gt.f32.f32", "set.gt.f32.f32 %f4, %f1, %f2; mov.b32 %r4, %f4; cvt.u64.u32 %rd10, %r4;", cycle(f32(1), f32(3)), vals(f32(2)), nil,
			cycle(0, f32(1))},
		{"slct.u32.s32", "slct.u32.s32 %r4, %r1, %r2, %r3; cvt.u64.u32 %rd10, %r4;", vals(1), vals(2), cycle(0, 0xFFFFFFFF), cycle(1, 2)},
	})
}

func TestFloatComparisons(t *testing.T) {
	nan := f32(float32(math.NaN()))
	sel := "selp.u64 %rd10, 1, 0, %p1;"
	runCases(t, []laneCase{
		{"setp.lt.f32 ordered", "setp.lt.f32 %p1, %f1, %f2;" + sel, cycle(f32(1), nan, f32(3)), vals(f32(2)), nil, cycle(1, 0, 0)},
		{"setp.ltu.f32 unordered", "setp.ltu.f32 %p1, %f1, %f2;" + sel, cycle(f32(1), nan, f32(3)), vals(f32(2)), nil, cycle(1, 1, 0)},
		{"setp.ne.f32 ordered", "setp.ne.f32 %p1, %f1, %f2;" + sel, cycle(f32(1), nan, f32(2)), vals(f32(2)), nil, cycle(1, 0, 0)},
		{"setp.neu.f32", "setp.neu.f32 %p1, %f1, %f2;" + sel, cycle(f32(1), nan, f32(2)), vals(f32(2)), nil, cycle(1, 1, 0)},
		{"setp.geu.f32", "setp.geu.f32 %p1, %f1, %f2;" + sel, cycle(f32(1), nan, f32(2)), vals(f32(2)), nil, cycle(0, 1, 1)},
		{"setp.num.f32", "setp.num.f32 %p1, %f1, %f2;" + sel, cycle(f32(1), nan), vals(f32(2)), nil, cycle(1, 0)},
		{"setp.nan.f64", "setp.nan.f64 %p1, %fd1, %fd2;" + sel, cycle(f64(1), f64(math.NaN())), vals(f64(2)), nil, cycle(0, 1)},
		{"setp.eq.f32 zeros", "setp.eq.f32 %p1, %f1, %f2;" + sel, vals(f32(float32(math.Copysign(0, -1)))), vals(0), nil, vals(1)},
		{"testp.subnormal.f32", "testp.subnormal.f32 %p1, %f1;" + sel, cycle(1, f32(1), 0), nil, nil, cycle(1, 0, 0)},
		{"testp.infinite.f64", "testp.infinite.f64 %p1, %fd1;" + sel, cycle(f64(math.Inf(-1)), f64(1)), nil, nil, cycle(1, 0)},
	})
}

func TestFloatArithmetic(t *testing.T) {
	out32 := "mov.b32 %r4, %f4; cvt.u64.u32 %rd10, %r4;"
	out64 := "mov.b64 %rd10, %fd4;"
	nan := float32(math.NaN())
	negZero := float32(math.Copysign(0, -1))
	a, b := float32(0.1), float32(0.2)
	third := float32(1) / float32(3)
	runCases(t, []laneCase{
		{"add.f32 rounds like IEEE", "add.f32 %f4, %f1, %f2;" + out32, vals(f32(a)), vals(f32(b)), nil, vals(f32(a + b))},
		{"sub.rn.f32", "sub.rn.f32 %f4, %f1, %f2;" + out32, vals(f32(a)), vals(f32(b)), nil, vals(f32(a - b))},
		{"mul.rn.f32 overflows to inf", "mul.rn.f32 %f4, %f1, %f2;" + out32, vals(f32(1e30)), vals(f32(1e10)), nil, vals(f32(float32(math.Inf(1))))},
		{"div.rn.f32", "div.rn.f32 %f4, %f1, %f2;" + out32, vals(f32(1)), vals(f32(3)), nil, vals(f32(third))},
		{"div.approx.f32", "div.approx.f32 %f4, %f1, %f2;" + out32, vals(f32(1)), vals(f32(4)), nil, vals(f32(0.25))},
		{"div.rn.f64", "div.rn.f64 %fd4, %fd1, %fd2;" + out64, vals(f64(1)), vals(f64(3)), nil, vals(f64(1.0 / 3))},
		{"sqrt.rn.f32", "sqrt.rn.f32 %f4, %f1;" + out32, vals(f32(2)), nil, nil, vals(f32(float32(math.Sqrt(2))))},
		{"rcp.rn.f64", "rcp.rn.f64 %fd4, %fd1;" + out64, vals(f64(8)), nil, nil, vals(f64(0.125))},
		{"fma.rn.f32 rounds once", "fma.rn.f32 %f4, %f1, %f2, %f3;" + out32,
			vals(f32(math.Float32frombits(0x39800020))), vals(f32(math.Float32frombits(0x397FFFC0))), vals(0x3F800001), vals(0x3F800001)},
		{"fma.rn.f64", "fma.rn.f64 %fd4, %fd1, %fd2, %fd3;" + out64, vals(f64(0.1)), vals(f64(10)), vals(f64(-1)),
			vals(f64(math.FMA(0.1, 10, -1)))},
		{"min.f32 ignores NaN", "min.f32 %f4, %f1, %f2;" + out32, cycle(f32(nan), f32(1)), cycle(f32(1), f32(nan)), nil, vals(f32(1))},
		{"min.f32 of zeros is -0", "min.f32 %f4, %f1, %f2;" + out32, cycle(0, f32(negZero)), cycle(f32(negZero), 0), nil, vals(f32(negZero))},
		{"max.f32 of zeros is +0", "max.f32 %f4, %f1, %f2;" + out32, cycle(0, f32(negZero)), cycle(f32(negZero), 0), nil, vals(0)},
		{"max.f64", "max.f64 %fd4, %fd1, %fd2;" + out64, vals(f64(-1)), vals(f64(2)), nil, vals(f64(2))},
		{"abs.f32", "abs.f32 %f4, %f1;" + out32, cycle(f32(negZero), f32(-3)), nil, nil, cycle(0, f32(3))},
		{"neg.f64", "neg.f64 %fd4, %fd1;" + out64, vals(f64(3)), nil, nil, vals(f64(-3))},
		{"add.ftz.f32 flushes", "add.ftz.f32 %f4, %f1, %f2;" + out32, vals(1), vals(0), nil, vals(0)},
		{"add.f32 keeps subnormals", "add.f32 %f4, %f1, %f2;" + out32, vals(1), vals(0), nil, vals(1)},
		{"mul.sat.f32", "mul.sat.f32 %f4, %f1, %f2;" + out32, cycle(f32(3), f32(-3), f32(0.25)), vals(f32(1)), nil, cycle(f32(1), 0, f32(0.25))},
		{"ex2.approx.f32", "ex2.approx.f32 %f4, %f1;" + out32, vals(f32(3)), nil, nil, vals(f32(8))},
		{"lg2.approx.f32", "lg2.approx.f32 %f4, %f1;" + out32, vals(f32(8)), nil, nil, vals(f32(3))},
		{"sin.approx.f32", "sin.approx.f32 %f4, %f1;" + out32, vals(0), nil, nil, vals(0)},
		{"rsqrt.approx.f32", "rsqrt.approx.f32 %f4, %f1;" + out32, vals(f32(4)), nil, nil, vals(f32(0.5))},
		{"copysign.f32", "copysign.f32 %f4, %f1, %f2;" + out32, vals(f32(-1)), vals(f32(2)), nil, vals(f32(-2))},
		{"mov.f32 literal", "mov.f32 %f4, 0fBF800000;" + out32, nil, nil, nil, vals(f32(-1))},
	})
}

func TestConversions(t *testing.T) {
	nan := f32(float32(math.NaN()))
	runCases(t, []laneCase{
		{"cvt.s64.s32 sign-extends", "cvt.s64.s32 %rd10, %r1;", vals(0xFFFFFFFF), nil, nil, vals(i64(-1))},
		{"cvt.u64.u32 zero-extends", "cvt.u64.u32 %rd10, %r1;", vals(0xFFFFFFFF), nil, nil, vals(0xFFFFFFFF)},
		{"cvt.u32.u64 truncates", "cvt.u32.u64 %r4, %rd1; cvt.u64.u32 %rd10, %r4;", vals(0x123456789), nil, nil, vals(0x23456789)},
		{"cvt.s8.s32", "cvt.s8.s32 %r4, %r1; cvt.s64.s32 %rd10, %r4;", vals(0x1FF), nil, nil, vals(i64(-1))},
		{"cvt.u8.u32", "cvt.u8.u32 %r4, %r1; cvt.u64.u32 %rd10, %r4;", vals(0x1FF), nil, nil, vals(0xFF)},
		{"cvt.s32.s16", "cvt.s32.s16 %r4, %h1; cvt.s64.s32 %rd10, %r4;", vals(0x8000), nil, nil, vals(i64(-32768))},
		{"cvt.sat.u8.s32", "cvt.sat.u8.s32 %r4, %r1; cvt.u64.u32 %rd10, %r4;", cycle(i64(-5), 300, 7), nil, nil, cycle(0, 255, 7)},
		{"cvt.sat.s32.u32", "cvt.sat.s32.u32 %r4, %r1; cvt.s64.s32 %rd10, %r4;", vals(0xFFFFFFFF), nil, nil, vals(math.MaxInt32)},
		{"cvt.sat.s16.s64", "cvt.sat.s16.s64 %h4, %rd1; cvt.s64.s16 %rd10, %h4;", cycle(i64(-100000), 100000), nil, nil,
			cycle(i64(-32768), 32767)},
		{"cvt.rzi.s32.f32", "cvt.rzi.s32.f32 %r4, %f1; cvt.s64.s32 %rd10, %r4;",
			cycle(f32(2.7), f32(-2.7), f32(1e10), f32(-1e10), nan), nil, nil,
			cycle(2, i64(-2), math.MaxInt32, i64(math.MinInt32), 0)},
		{"cvt.rni.s32.f32 ties to even", "cvt.rni.s32.f32 %r4, %f1; cvt.s64.s32 %rd10, %r4;",
			cycle(f32(2.5), f32(3.5), f32(-2.5)), nil, nil, cycle(2, 4, i64(-2))},
		{"cvt.rmi.s32.f32", "cvt.rmi.s32.f32 %r4, %f1; cvt.s64.s32 %rd10, %r4;", vals(f32(-2.5)), nil, nil, vals(i64(-3))},
		{"cvt.rpi.s32.f32", "cvt.rpi.s32.f32 %r4, %f1; cvt.s64.s32 %rd10, %r4;", vals(f32(2.1)), nil, nil, vals(3)},
		{"cvt.rzi.u32.f32 saturates", "cvt.rzi.u32.f32 %r4, %f1; cvt.u64.u32 %rd10, %r4;", cycle(f32(-1), f32(5e9)), nil, nil,
			cycle(0, 0xFFFFFFFF)},
		{"cvt.rzi.s64.f64", "cvt.rzi.s64.f64 %rd10, %fd1;", cycle(f64(-1e19), f64(-3.9)), nil, nil, cycle(1<<63, i64(-3))},
		{"cvt.rn.f32.s32", "cvt.rn.f32.s32 %f4, %r1; mov.b32 %r4, %f4; cvt.u64.u32 %rd10, %r4;",
			cycle(16777217, 16777219, 0xFFFFFFFF), nil, nil, cycle(f32(16777216), f32(16777220), f32(-1))},
		{"cvt.rz.f32.s32", "cvt.rz.f32.s32 %f4, %r1; mov.b32 %r4, %f4; cvt.u64.u32 %rd10, %r4;", vals(16777219), nil, nil, vals(f32(16777218))},
		{"cvt.rm.f32.s32", "cvt.rm.f32.s32 %f4, %r1; mov.b32 %r4, %f4; cvt.u64.u32 %rd10, %r4;", vals(i64(-16777219)), nil, nil, vals(f32(-16777220))},
		{"cvt.rp.f32.s32", "cvt.rp.f32.s32 %f4, %r1; mov.b32 %r4, %f4; cvt.u64.u32 %rd10, %r4;", vals(16777217), nil, nil, vals(f32(16777218))},
		{"cvt.rn.f32.u64", "cvt.rn.f32.u64 %f4, %rd1; mov.b32 %r4, %f4; cvt.u64.u32 %rd10, %r4;", vals(1<<64 - 1), nil, nil, vals(f32(1 << 64))},
		{"cvt.rn.f64.s64", "cvt.rn.f64.s64 %fd4, %rd1; mov.b64 %rd10, %fd4;", vals(i64(-3)), nil, nil, vals(f64(-3))},
		{"cvt.f64.f32 is exact", "cvt.f64.f32 %fd4, %f1; mov.b64 %rd10, %fd4;", vals(f32(0.1)), nil, nil, vals(f64(float64(float32(0.1))))},
		{"cvt.rn.f32.f64", "cvt.rn.f32.f64 %f4, %fd1; mov.b32 %r4, %f4; cvt.u64.u32 %rd10, %r4;", vals(f64(0.1)), nil, nil, vals(f32(0.1))},
		{"cvt.rz.f32.f64", "cvt.rz.f32.f64 %f4, %fd1; mov.b32 %r4, %f4; cvt.u64.u32 %rd10, %r4;", cycle(f64(0.1), f64(1e300)), nil, nil,
			cycle(f32(math.Nextafter32(0.1, 0)), f32(math.MaxFloat32))},
		{"cvt.rp.f32.f64", "cvt.rp.f32.f64 %f4, %fd1; mov.b32 %r4, %f4; cvt.u64.u32 %rd10, %r4;", vals(f64(0.1)), nil, nil, vals(f32(0.1))},
		{"cvt.rni.f32.f32", "cvt.rni.f32.f32 %f4, %f1; mov.b32 %r4, %f4; cvt.u64.u32 %rd10, %r4;", cycle(f32(2.5), f32(-2.7)), nil, nil,
			cycle(f32(2), f32(-3))},
		{"cvt.rzi.f64.f64", "cvt.rzi.f64.f64 %fd4, %fd1; mov.b64 %rd10, %fd4;", vals(f64(-2.7)), nil, nil, vals(f64(-2))},
		{"cvt.sat.f32.f32", "cvt.sat.f32.f32 %f4, %f1; mov.b32 %r4, %f4; cvt.u64.u32 %rd10, %r4;", cycle(f32(1.5), f32(-0.5), nan, f32(0.5)), nil, nil,
			cycle(f32(1), 0, 0, f32(0.5))},
		{"cvt.ftz.f32.f32", "cvt.ftz.f32.f32 %f4, %f1; mov.b32 %r4, %f4; cvt.u64.u32 %rd10, %r4;", vals(1), nil, nil, vals(0)},
		{"mov.b64 pack", "mov.b64 %rd10, {%r1, %r2};", vals(0x11111111), vals(0x22222222), nil, vals(0x2222222211111111)},
		{"mov.b64 unpack", "mov.b64 {%r4, %r5}, %rd1; cvt.u64.u32 %rd10, %r5;", vals(0x2222222211111111), nil, nil, vals(0x22222222)},
		{"mov.b32 pack halves", "mov.b32 %r4, {%h1, %h2}; cvt.u64.u32 %rd10, %r4;", vals(0x1234), vals(0xABCD), nil, vals(0xABCD1234)},
	})
}

// TestFMA32 checks the single-precision fused multiply-add where rounding
// the double-precision result again would be wrong: a·b + c lies just
// below the midpoint between two float32 values, and float64 rounds it to
// the midpoint itself.
func TestFMA32(t *testing.T) {
	a := math.Float32frombits(0x39800020) // 2^-12 (1 + 2^-18)
	b := math.Float32frombits(0x397FFFC0) // 2^-12 (1 - 2^-18)
	c := math.Float32frombits(0x3F800001) // 1 + 2^-23
	if naive := float32(math.FMA(float64(a), float64(b), float64(c))); naive == c {
		t.Fatalf("the case does not exercise double rounding: %v", naive)
	}
	if got := fma32(a, b, c); got != c {
		t.Errorf("fma32 = %#x, want %#x", math.Float32bits(got), math.Float32bits(c))
	}
	if got := fma32(2, 3, 1); got != 7 {
		t.Errorf("fma32(2, 3, 1) = %v", got)
	}
}

// TestDirectedRounding checks add, sub, mul and fma rounded toward zero,
// -∞ and +∞ against values worked out by hand: 1 + 2^-30 lies between
// 1 and 1+2^-23 in float32; overflow, subnormals and the sign of an exact
// zero follow IEEE 754.
func TestDirectedRounding(t *testing.T) {
	up, down, zero := big.ToPositiveInf, big.ToNegativeInf, big.ToZero
	eps := math.Ldexp(1, -23)
	tiny := math.Ldexp(1, -149)
	for _, c := range []struct {
		op      uint8
		x, y, z float64
		size    uint8
		mode    big.RoundingMode
		want    float64
	}{
		{dirAdd, 1, math.Ldexp(1, -30), 0, 4, up, 1 + eps},
		{dirAdd, 1, math.Ldexp(1, -30), 0, 4, down, 1},
		{dirAdd, -1, -math.Ldexp(1, -30), 0, 4, zero, -1},
		{dirAdd, -1, -math.Ldexp(1, -30), 0, 4, down, -1 - eps},
		{dirSub, 1, math.Ldexp(1, -60), 0, 8, down, 1 - math.Ldexp(1, -53)},
		{dirSub, 1, math.Ldexp(1, -60), 0, 8, up, 1},
		{dirMul, 3, 1.0 / 3, 0, 8, zero, math.Nextafter(1, 0)}, // the exact product is just below 1
		{dirMul, math.MaxFloat32, 2, 0, 4, zero, math.MaxFloat32},
		{dirMul, math.MaxFloat32, 2, 0, 4, up, math.Inf(1)},
		{dirMul, -math.MaxFloat32, 2, 0, 4, up, -math.MaxFloat32},
		{dirMul, tiny, 0.5, 0, 4, up, tiny},
		{dirMul, tiny, 0.5, 0, 4, down, 0},
		{dirMul, -tiny, 0.5, 0, 4, down, -tiny},
		{dirFma, 1 + eps, 1 - eps, -1, 4, up, -math.Ldexp(1, -46)},
		{dirFma, 2, 3, math.Ldexp(1, -40), 4, up, 6 + 4*eps},
		{dirFma, 2, 3, math.Ldexp(1, -40), 4, down, 6},
		{dirAdd, 1, -1, 0, 4, down, math.Copysign(0, -1)},
		{dirAdd, 0, 0, 0, 4, down, 0},
	} {
		got := directed(c.op, c.x, c.y, c.z, c.size, c.mode)
		if got != c.want || math.Signbit(got) != math.Signbit(c.want) {
			t.Errorf("op %d (%g, %g, %g) size %d mode %v = %g, want %g", c.op, c.x, c.y, c.z, c.size, c.mode, got, c.want)
		}
	}
}

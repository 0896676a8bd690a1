package ptxemu

import (
	"math"
	"testing"
)

func TestMoreAtomics(t *testing.T) {
	// The atomics work on the input buffer's first words (%rd31), which
	// every lane has already read; the result is read back after them.
	final32 := "ld.global.u32 %r9, [%rd31]; cvt.u64.u32 %rd10, %r9;"
	runCases(t, []laneCase{
		{"atom.dec wraps to the bound", "atom.global.dec.u32 %r4, [%rd31], 5;" + final32, vals(2), nil, nil, vals(0)},
		{"atom.inc", "atom.global.inc.u32 %r4, [%rd31], 100;" + final32, vals(7), nil, nil, vals(39)},
		{"atom.and", "mov.u32 %r5, 1; shl.b32 %r5, %r5, %r31; not.b32 %r5, %r5; atom.global.and.b32 %r4, [%rd31], %r5;" + final32,
			vals(0xFFFFFFFF), nil, nil, vals(0)},
		{"atom.xor", "mov.u32 %r5, 1; shl.b32 %r5, %r5, %r31; atom.global.xor.b32 %r4, [%rd31], %r5;" + final32,
			vals(0), nil, nil, vals(0xFFFFFFFF)},
		{"atom.cas returns the old value", "setp.eq.u32 %p1, %r31, 3; @%p1 atom.global.cas.b32 %r4, [%rd31], 9, 11; @%p1 cvt.u64.u32 %rd10, %r4; bar.warp.sync -1; @!%p1 ld.global.u32 %r9, [%rd31]; @!%p1 cvt.u64.u32 %rd10, %r9;",
			vals(9), nil, nil, perLane(func(l int) uint64 { return map[bool]uint64{true: 9, false: 11}[l == 3] })},
		{"atom.cas that fails", "atom.global.cas.b32 %r4, [%rd31], 5, 11;" + final32, vals(9), nil, nil, vals(9)},
		{"atom.max.s64", "cvt.s64.s32 %rd5, %r31; neg.s64 %rd5, %rd5; atom.global.max.s64 %rd4, [%rd31], %rd5; ld.global.u64 %rd10, [%rd31];",
			vals(i64(-100)), nil, nil, vals(0)},
		{"atom.min.u64", "cvt.u64.u32 %rd5, %r31; atom.global.min.u64 %rd4, [%rd31], %rd5; ld.global.u64 %rd10, [%rd31];",
			vals(1 << 63), nil, nil, vals(0)},
		{"atom.exch.b64", "atom.global.exch.b64 %rd4, [%rd31], 77; ld.global.u64 %rd10, [%rd31];", vals(5), nil, nil, vals(77)},
		{"atom.add.f64", "atom.global.add.f64 %fd4, [%rd31], 0d3FE0000000000000; ld.global.u64 %rd10, [%rd31];", vals(f64(1)), nil, nil, vals(f64(17))},
		{"red.global.max.u32", "red.global.max.u32 [%rd31], %r31;" + final32, vals(5), nil, nil, vals(31)},
	})
}

func TestNoOpsAndHints(t *testing.T) {
	runCases(t, []laneCase{
		{"fences, barriers of memory, hints", `
	membar.gl;
	membar.cta;
	fence.sc.gpu;
	fence.acq_rel.sys;
	prefetch.global.L2 [%rd28];
	nanosleep.u32 100;
	ld.global.nc.u32 %r4, [%rd28];
	ldu.global.u32 %r5, [%rd28];
	ld.volatile.global.u32 %r6, [%rd28];
	ld.relaxed.gpu.global.u32 %r7, [%rd28];
	add.u32 %r4, %r4, %r5;
	add.u32 %r4, %r4, %r6;
	add.u32 %r4, %r4, %r7;
	cvt.u64.u32 %rd10, %r4;`, perLane(func(l int) uint64 { return uint64(l) }), nil, nil, perLane(func(l int) uint64 { return uint64(4 * l) })},
		{"cvta.to.global is the identity", "cvta.to.global.u64 %rd4, %rd28; ld.global.u32 %r4, [%rd4]; cvt.u64.u32 %rd10, %r4;", vals(6), nil, nil, vals(6)},
		{"lane masks", "mov.u32 %r4, %lanemask_lt; mov.u32 %r5, %lanemask_ge; xor.b32 %r4, %r4, %r5; mov.u32 %r6, %lanemask_eq; mov.u32 %r7, %lanemask_le; xor.b32 %r6, %r6, %r7; cvt.u64.u32 %rd10, %r4; cvt.u64.u32 %rd11, %r6; shl.b64 %rd11, %rd11, 32; or.b64 %rd10, %rd10, %rd11;",
			nil, nil, nil, perLane(func(l int) uint64 { return 0xFFFFFFFF | (uint64(1)<<l-1)<<32 })},
		{"lanemask_gt", "mov.u32 %r4, %lanemask_gt; cvt.u64.u32 %rd10, %r4;", nil, nil, nil,
			perLane(func(l int) uint64 { return uint64(^uint32(0) << l << 1) })},
		{"smid and nsmid with one worker", "mov.u32 %r4, %smid; mov.u32 %r5, %nsmid; mad.lo.s32 %r4, %r5, 10, %r4; cvt.u64.u32 %rd10, %r4;", nil, nil, nil, vals(10)},
		{"dynamic_smem_size", "mov.u32 %r4, %dynamic_smem_size; cvt.u64.u32 %rd10, %r4;", nil, nil, nil, vals(0)},
		{"slct.f32", "slct.u32.f32 %r4, %r1, %r2, %f3; cvt.u64.u32 %rd10, %r4;", vals(1), vals(2), cycle(f32(0.5), f32(-0.5), f32(float32(math.Copysign(0, -1)))), cycle(1, 2, 1)},
		{"set with a boolean operator", "setp.ne.s32 %p2, %r3, 0; set.lt.and.u32.s32 %r4, %r1, %r2, %p2; cvt.u64.u32 %rd10, %r4;", vals(1), vals(2), cycle(0, 1), cycle(0, 0xFFFFFFFF)},
		{"cos.approx.f32 and tanh", "cos.approx.f32 %f4, %f1; tanh.approx.f32 %f5, %f1; add.f32 %f4, %f4, %f5; mov.b32 %r4, %f4; cvt.u64.u32 %rd10, %r4;", vals(0), nil, nil, vals(f32(1))},
		{"sqrt.rn.f64", "sqrt.rn.f64 %fd4, %fd1; mov.b64 %rd10, %fd4;", vals(f64(2)), nil, nil, vals(f64(math.Sqrt2))},
		{"testp.finite and normal", "testp.finite.f32 %p1, %f1; testp.normal.f32 %p2, %f1; selp.u64 %rd10, 1, 0, %p1; selp.u64 %rd11, 2, 0, %p2; add.s64 %rd10, %rd10, %rd11;",
			cycle(f32(1), 1, f32(float32(math.Inf(1))), f32(float32(math.NaN()))), nil, nil, cycle(3, 1, 0, 0)},
		{"mov.pred", "setp.ne.s32 %p2, %r1, 0; mov.pred %p1, %p2; selp.u64 %rd10, 1, 0, %p1;", cycle(0, 5), nil, nil, cycle(0, 1)},
		{"mov.pred of constants", "setp.ne.s32 %p2, %r1, 0; mov.pred %p1, 0; xor.pred %p3, %p2, %p1; mov.pred %p4, 1; and.pred %p3, %p3, %p4; selp.u64 %rd10, 1, 0, %p3;",
			cycle(0, 5), nil, nil, cycle(0, 1)},
	})
}

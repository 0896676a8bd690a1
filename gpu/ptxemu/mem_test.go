package ptxemu

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

func TestMemoryAccesses(t *testing.T) {
	runCases(t, []laneCase{
		{"local array per thread", `
	.local .align 8 .b8 frame[32];
	mov.u64 %rd4, frame;
	st.local.u64 [frame+8], %rd1;
	st.local.u32 [%rd4+16], %r2;
	ld.local.u64 %rd5, [frame+8];
	ld.local.u32 %r5, [%rd4+16];
	cvt.u64.u32 %rd6, %r5;
	add.s64 %rd10, %rd5, %rd6;`, perLane(func(l int) uint64 { return uint64(l) << 32 }), perLane(func(l int) uint64 { return uint64(l) }), nil,
			perLane(func(l int) uint64 { return uint64(l)<<32 | uint64(l) })},
		{"local through generic addresses", `
	.local .align 4 .b8 frame[16];
	mov.u64 %rd4, frame;
	cvta.local.u64 %rd5, %rd4;
	st.u32 [%rd5+4], %r1;
	ld.local.u32 %r5, [frame+4];
	cvta.to.local.u64 %rd6, %rd5;
	ld.local.u32 %r6, [%rd6+4];
	add.s32 %r5, %r5, %r6;
	cvt.u64.u32 %rd10, %r5;`, perLane(func(l int) uint64 { return uint64(l) }), nil, nil, perLane(func(l int) uint64 { return uint64(2 * l) })},
		{"shared through generic addresses", `
	.shared .align 4 .b8 tab[128];
	mov.u32 %r4, tab;
	shl.b32 %r5, %r31, 2;
	add.s32 %r4, %r4, %r5;
	cvt.u64.u32 %rd4, %r4;
	cvta.shared.u64 %rd5, %rd4;
	st.u32 [%rd5], %r1;
	bar.sync 0;
	xor.b32 %r6, %r5, 4;
	ld.shared.u32 %r7, [tab+0];
	mov.u32 %r8, tab;
	add.s32 %r8, %r8, %r6;
	ld.shared.u32 %r9, [%r8];
	cvt.u64.u32 %rd10, %r9;`, perLane(func(l int) uint64 { return uint64(100 + l) }), nil, nil, perLane(func(l int) uint64 { return uint64(100 + l ^ 1) })},
		{"global byte and halfword loads", `
	ld.global.s8 %r4, [%rd28];
	ld.global.u8 %r5, [%rd28+1];
	ld.global.s16 %r6, [%rd28+2];
	cvt.s64.s32 %rd4, %r4;
	cvt.u64.u32 %rd5, %r5;
	cvt.s64.s32 %rd6, %r6;
	add.s64 %rd10, %rd4, %rd5;
	add.s64 %rd10, %rd10, %rd6;`, vals(0x8001_80_FF), nil, nil, vals(i64(-1 + 0x80 - 0x7FFF))},
		{"vector loads", `
	ld.global.v2.u32 {%r4, %r5}, [%rd28];
	ld.global.v4.u16 {%h4, %h5, %h6, %h7}, [%rd28];
	cvt.u32.u16 %r6, %h7;
	add.u32 %r4, %r4, %r5;
	add.u32 %r4, %r4, %r6;
	cvt.u64.u32 %rd10, %r4;`, vals(0x0003_0000_0000_0002), nil, nil, vals(2 + 0x30000 + 3)},
	})
}

// TestByteStores has the threads of several blocks store single bytes
// into shared words: each store must leave its neighbours alone.
func TestByteStores(t *testing.T) {
	src := ptxHeader + `
.visible .entry k(.param .u64 k_buf)
{
	.reg .b16 %h<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [k_buf];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %nctaid.x;
	mad.lo.s32 %r4, %r1, %r3, %r2;
	cvt.u64.u32 %rd2, %r4;
	add.s64 %rd3, %rd1, %rd2;
	add.s32 %r5, %r4, 1;
	cvt.u16.u32 %h1, %r5;
	st.global.u8 [%rd3], %h1;
	ret;
}`
	out, st, err := runKernel(t, Options{}, src, Dim3{4, 1, 1}, Dim3{64, 1, 1}, 0, 64, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 256 {
		if b := byte(out[i/4] >> (8 * (i % 4))); b != byte(i+1) {
			t.Fatalf("byte %d = %d, want %d", i, b, byte(i+1))
		}
	}
	if st.Stored[spaceGlobal] != 256 {
		t.Errorf("%d bytes stored, want 256", st.Stored[spaceGlobal])
	}
}

func TestModuleVariables(t *testing.T) {
	src := ptxHeader + `
.const .align 4 .u32 tab[4] = {10, 20, 30, 40};
.global .align 4 .u32 g[2] = {5, 6};
.global .align 8 .f64 scale = 0d4000000000000000;
.visible .entry k(.param .u64 k_buf)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	.reg .f64 %fd<4>;
	ld.param.u64 %rd1, [k_buf];
	ld.const.u32 %r1, [tab+8];
	mov.u64 %rd2, tab;
	cvta.const.u64 %rd3, %rd2;
	ld.u32 %r2, [%rd3+12];
	mov.u64 %rd4, g;
	ld.global.u32 %r3, [%rd4+4];
	ld.global.u32 %r4, [g];
	ld.global.f64 %fd1, [scale];
	cvt.rzi.s32.f64 %r5, %fd1;
	st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
	st.global.u32 [%rd1+16], %r5;
	st.global.u32 [g], 99;
	ret;
}`
	d := New(Options{})
	m, err := d.Load("vars", src)
	if err != nil {
		t.Fatal(err)
	}
	k, _ := m.Kernel("k")
	buf := mustAlloc(t, d, 20)
	if _, err := d.Launch(context.Background(), k, Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0, []uint64{buf}); err != nil {
		t.Fatal(err)
	}
	out := make([]int32, 5)
	if err := d.ReadInt32(buf, out); err != nil {
		t.Fatal(err)
	}
	if want := []int32{30, 40, 6, 5, 2}; fmt.Sprint(out) != fmt.Sprint(want) {
		t.Errorf("read %v, want %v", out, want)
	}
	addr, size, err := m.Global("g")
	if err != nil || size != 8 {
		t.Fatalf("Global(g) = %#x, %d, %v", addr, size, err)
	}
	g := make([]int32, 2)
	if err := d.ReadInt32(addr, g); err != nil || g[0] != 99 || g[1] != 6 {
		t.Errorf("g after the kernel: %v, %v; want [99 6]", g, err)
	}
	if _, _, err := m.Global("nope"); err == nil {
		t.Error("Global(nope) did not fail")
	}
}

// oneStore stores %tid.x to buf[%tid.x + param 1] with 4-byte stores at
// byte offset param 2.
const oneStore = ptxHeader + `
.visible .entry k(.param .u64 k_buf, .param .u32 k_shift, .param .u32 k_bytes)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [k_buf];
	ld.param.u32 %r2, [k_shift];
	ld.param.u32 %r3, [k_bytes];
	mov.u32 %r1, %tid.x;
	add.s32 %r2, %r2, %r1;
	mul.wide.s32 %rd2, %r2, 4;
	add.s64 %rd3, %rd1, %rd2;
	cvt.u64.u32 %rd4, %r3;
	add.s64 %rd5, %rd3, %rd4;
	st.global.u32 [%rd5], %r1;
	ret;
}`

func TestIllegalAddresses(t *testing.T) {
	line := fmt.Sprintf("PTX line %d", lineOf(oneStore, "st.global.u32"))
	// 40 threads store into 32 words: thread 32 is the first outside.
	_, _, err := runKernel(t, Options{}, oneStore, Dim3{1, 1, 1}, Dim3{40, 1, 1}, 0, 32, nil, 0, 0)
	f := wantFault(t, "store past the end", err, IllegalAddress, "kernel k, block (0,0,0), thread (32,0,0)", line,
		"st.global.u32 [%rd5], %r1", "0 bytes past the end of the 128-byte allocation")
	if f != nil && (f.Space != "global" || f.Line != lineOf(oneStore, "st.global.u32")) {
		t.Errorf("fault space %q line %d", f.Space, f.Line)
	}
	_, _, err = runKernel(t, Options{}, oneStore, Dim3{1, 1, 1}, Dim3{8, 1, 1}, 0, 32, nil, uint64(uint32(0xFFFFFFFE)), 0)
	wantFault(t, "store before the start", err, IllegalAddress, "thread (0,0,0)", "8 bytes before the start of the 128-byte allocation")
	_, _, err = runKernel(t, Options{}, oneStore, Dim3{1, 1, 1}, Dim3{8, 1, 1}, 0, 32, nil, 0, 2)
	wantFault(t, "misaligned store", err, MisalignedAddress, "is not 4-byte aligned")
	_, _, err = runKernel(t, Options{}, oneStore, Dim3{1, 1, 1}, Dim3{8, 1, 1}, 0, 33, nil, 30, 0)
	wantFault(t, "partly outside", err, IllegalAddress, "thread (3,0,0)")

	// A null pointer and a freed buffer.
	d := New(Options{})
	k := mustKernel(t, d, oneStore)
	_, err = d.Launch(context.Background(), k, Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0, []uint64{0, 0, 0})
	wantFault(t, "null pointer", err, IllegalAddress, "null pointer")
	p := mustAlloc(t, d, 64)
	if err := d.Free(p); err != nil {
		t.Fatal(err)
	}
	_, err = d.Launch(context.Background(), k, Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0, []uint64{p, 0, 0})
	wantFault(t, "freed buffer", err, IllegalAddress, "no device memory is allocated")
}

func TestSharedAndLocalBounds(t *testing.T) {
	src := ptxHeader + `
.extern .shared .align 16 .b8 dyn[];
.visible .entry k(.param .u64 k_buf, .param .u32 k_off)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	.shared .align 4 .u32 fixed[4];
	.local .align 4 .b8 frame[8];
	ld.param.u32 %r1, [k_off];
	mov.u32 %r2, dyn;
	add.s32 %r2, %r2, %r1;
	st.shared.u32 [fixed+12], %r1;
	ld.shared.u32 %r3, [%r2];
	mov.u64 %rd1, frame;
	st.local.u32 [%rd1+4], %r3;
	ret;
}`
	if _, _, err := runKernel(t, Options{}, src, Dim3{1, 1, 1}, Dim3{32, 1, 1}, 64, 1, nil, 60); err != nil {
		t.Errorf("in bounds: %v", err)
	}
	_, _, err := runKernel(t, Options{}, src, Dim3{1, 1, 1}, Dim3{32, 1, 1}, 64, 1, nil, 64)
	wantFault(t, "shared past the dynamic array", err, IllegalAddress, "shared offset 0x50", "80 bytes of the block's shared memory (16 static, 64 dynamic)")
	local := strings.Replace(src, "[%rd1+4]", "[%rd1+8]", 1)
	_, _, err = runKernel(t, Options{}, local, Dim3{1, 1, 1}, Dim3{32, 1, 1}, 64, 1, nil, 0)
	wantFault(t, "local past the frame", err, IllegalAddress, "local offset 0x8", "the thread's local memory")
}

func TestOtherFaults(t *testing.T) {
	_, err := runLanes(t, "div.u32 %r4, %r1, %r2;", vals(7), cycle(1, 1, 1, 0), nil)
	wantFault(t, "division by zero", err, DivideByZero, "dividing 7 by zero", "thread (3,0,0)")
	_, err = runLanes(t, "setp.eq.s32 %p1, %r31, 5; @%p1 trap;", nil, nil, nil)
	wantFault(t, "trap", err, Trap, "thread (5,0,0)")

	// Reading memory nothing wrote, with the check on.
	src := ptxHeader + `
.visible .entry k(.param .u64 k_buf, .param .u64 k_other)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [k_buf];
	ld.param.u64 %rd2, [k_other];
	st.global.u32 [%rd1], 1;
	ld.global.u32 %r1, [%rd1];
	ld.global.u32 %r1, [%rd2+4];
	ret;
}`
	for _, check := range []bool{false, true} {
		d := New(Options{CheckUninitialized: check})
		k := mustKernel(t, d, src)
		a, b := mustAlloc(t, d, 4), mustAlloc(t, d, 8)
		if err := d.Write(b, []byte{1, 2, 3, 4}); err != nil {
			t.Fatal(err)
		}
		_, err = d.Launch(context.Background(), k, Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0, []uint64{a, b})
		if !check {
			if err != nil {
				t.Errorf("without the check: %v", err)
			}
			continue
		}
		wantFault(t, "uninitialized read", err, Uninitialized, "reading 4 bytes", "that nothing wrote (offset 4 in the 8-byte allocation")
	}
}

func TestCancel(t *testing.T) {
	src := ptxHeader + `
.visible .entry k(.param .u64 k_buf)
{
LOOP:
	bra LOOP;
}`
	d := New(Options{})
	k := mustKernel(t, d, src)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := d.Launch(ctx, k, Dim3{64, 1, 1}, Dim3{64, 1, 1}, 0, []uint64{0})
	wantFault(t, "endless kernel", err, Cancelled, "context deadline exceeded")
	if time.Since(start) > 5*time.Second {
		t.Errorf("cancelling took %v", time.Since(start))
	}
	cancel()
	_, err = d.Launch(ctx, k, Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0, []uint64{0})
	wantFault(t, "launch on a cancelled context", err, Cancelled, "0 of 1 blocks")
}

// atomics has thread t of every block apply the atomic operations the
// test checks to words of buf.
const atomics = ptxHeader + `
.visible .entry k(.param .u64 k_buf)
{
	.reg .pred %p<2>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<8>;
	.reg .f32 %f<2>;
	.shared .align 4 .u32 count;
	ld.param.u64 %rd1, [k_buf];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mad.lo.s32 %r4, %r2, %r3, %r1;
	atom.global.add.u32 %r5, [%rd1], 1;
	neg.s32 %r6, %r4;
	atom.global.min.s32 %r7, [%rd1+4], %r6;
	atom.global.max.u32 %r7, [%rd1+8], %r4;
	atom.global.inc.u32 %r7, [%rd1+12], 9;
	atom.global.add.f32 %f1, [%rd1+16], 0f3F800000;
	and.b32 %r8, %r4, 31;
	mov.u32 %r9, 1;
	shl.b32 %r9, %r9, %r8;
	red.global.or.b32 [%rd1+20], %r9;
	atom.global.add.u64 %rd2, [%rd1+24], 4294967296;
	setp.eq.s32 %p1, %r1, 0;
	@%p1 st.shared.u32 [count], 0;
	bar.sync 0;
	atom.shared.add.u32 %r10, [count], 2;
	mov.u32 %r11, count;
	cvt.u64.u32 %rd3, %r11;
	cvta.shared.u64 %rd4, %rd3;
	atom.add.u32 %r12, [%rd4], 1;
	bar.sync 0;
	ld.shared.u32 %r13, [count];
	atom.global.max.u32 %r14, [%rd1+32], %r13;
	mul.wide.u32 %rd5, %r5, 4;
	add.s64 %rd6, %rd1, %rd5;
	atom.global.exch.b32 %r15, [%rd6+64], 1;
	ret;
}`

func TestAtomicsUnderContention(t *testing.T) {
	const blocks, threads = 8, 256
	const n = blocks * threads
	init := make([]uint32, 16+n)
	init[1] = 1000
	out, st, err := runKernel(t, Options{}, atomics, Dim3{blocks, 1, 1}, Dim3{threads, 1, 1}, 0, 16+n, init)
	if err != nil {
		t.Fatal(err)
	}
	if out[0] != n {
		t.Errorf("atom.add: %d, want %d", out[0], n)
	}
	if int32(out[1]) != -(n - 1) {
		t.Errorf("atom.min.s32: %d, want %d", int32(out[1]), -(n - 1))
	}
	if out[2] != n-1 {
		t.Errorf("atom.max.u32: %d, want %d", out[2], n-1)
	}
	if out[3] != n%10 {
		t.Errorf("atom.inc wrapping at 9: %d, want %d", out[3], n%10)
	}
	if f := math.Float32frombits(out[4]); f != n {
		t.Errorf("atom.add.f32: %v, want %d", f, n)
	}
	if out[5] != 0xFFFFFFFF {
		t.Errorf("red.or: %#x", out[5])
	}
	if out[6] != 0 || out[7] != n {
		t.Errorf("atom.add.u64: %#x%08x, want %d<<32", out[7], out[6], n)
	}
	if out[8] != 3*threads {
		t.Errorf("shared atomics: %d, want %d", out[8], 3*threads)
	}
	// Every old value of the counter was returned to exactly one thread.
	for i, v := range out[16:] {
		if v != 1 {
			t.Fatalf("old value %d returned %d times", i, v)
		}
	}
	if st.Atomics != 11*n {
		t.Errorf("%d atomics counted, want %d", st.Atomics, 11*n)
	}
}

package ptxemu

import (
	"context"
	"strings"
	"testing"
)

// The profile tests run small kernels written as nvcc writes them and
// compare the counts with those worked out by hand from their access
// patterns, in the comments.

// copyPTX is out[i] = in[i*stride] for i < n, with .loc lines for the
// load (line 3 of copy.cu) and the store (line 4), none before.
const copyPTX = ptxHeader + `
.file 1 "copy.cu"
.visible .entry k(.param .u64 p_out, .param .u64 p_in, .param .u32 p_stride, .param .u32 p_n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [p_out];
	ld.param.u64 %rd2, [p_in];
	ld.param.u32 %r1, [p_stride];
	ld.param.u32 %r2, [p_n];
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mov.u32 %r5, %tid.x;
	mad.lo.s32 %r6, %r3, %r4, %r5;
	setp.ge.s32 %p1, %r6, %r2;
	@%p1 bra DONE;
	cvta.to.global.u64 %rd3, %rd2;
	mul.lo.s32 %r7, %r6, %r1;
	mul.wide.s32 %rd4, %r7, 4;
	add.s64 %rd5, %rd3, %rd4;
.loc 1 3 5
	ld.global.u32 %r7, [%rd5];
.loc 1 4 5
	cvta.to.global.u64 %rd6, %rd1;
	mul.wide.s32 %rd4, %r6, 4;
	add.s64 %rd7, %rd6, %rd4;
	st.global.u32 [%rd7], %r7;
DONE:
	ret;
}
`

// profileLaunch loads src, allocates the buffers of sizes bytes (their
// addresses are the first arguments, before args), launches kernel k with
// profiling on, and returns its profile.
func profileLaunch(t *testing.T, src string, grid, block Dim3, shared int, sizes []uint64, args ...uint64) *Profile {
	t.Helper()
	d := New(Options{Workers: 2})
	k := mustKernel(t, d, src)
	var ptrs []uint64
	for _, n := range sizes {
		p := mustAlloc(t, d, n)
		if err := d.Write(p, make([]byte, n)); err != nil {
			t.Fatal(err)
		}
		ptrs = append(ptrs, p)
	}
	var got []*Profile
	d.SetProfiler(func(p *Profile) { got = append(got, p) })
	if _, err := d.Launch(context.Background(), k, grid, block, shared, append(ptrs, args...)); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("%d profiles for one launch", len(got))
	}
	return got[0]
}

// wantCounts compares c with want, naming what.
func wantCounts(t *testing.T, what string, c, want MemCounts) {
	t.Helper()
	if c != want {
		t.Errorf("%s: %+v, want %+v", what, c, want)
	}
}

func TestProfileCopy(t *testing.T) {
	const n = 1000 // 8 blocks of 128: 32 warps, the last with 8 lanes inside n
	for _, c := range []struct {
		stride  uint64
		sectors uint64 // of the loads
	}{
		// Stride 1: a full warp reads 128 consecutive bytes, 4 sectors;
		// the last warp's 8 lanes read bytes 3968..3999, one sector:
		// 31·4 + 1.
		{1, 125},
		// Stride 2: a full warp spans 256 bytes, 8 sectors; the last
		// warp reads words 1984..1998, bytes 7936..7995: sectors 248
		// and 249. 31·8 + 2.
		{2, 250},
		// Stride 32: every lane its own sector, 1000 in all.
		{32, 1000},
	} {
		p := profileLaunch(t, copyPTX, Dim3{8, 1, 1}, Dim3{128, 1, 1}, 0, []uint64{4 * n, 4 * n * c.stride}, c.stride, n)
		what := "stride " + itoa(int(c.stride))
		wantCounts(t, what+" loads", p.Global[Load], MemCounts{Requests: 32, Bytes: 4 * n, Sectors: c.sectors})
		wantCounts(t, what+" stores", p.Global[Store], MemCounts{Requests: 32, Bytes: 4 * n, Sectors: 125})
		if p.Shared != [3]MemCounts{} || p.Global[Atomic] != (MemCounts{}) {
			t.Errorf("%s: shared %+v, atomics %+v, want none", what, p.Shared, p.Global[Atomic])
		}
		// Every warp runs the bound check's branch once; only the last
		// splits (8 lanes in, 24 out).
		if p.Warps != 32 || p.Branches != 32 || p.Divergent != 1 || p.Launches != 1 {
			t.Errorf("%s: %d warps, %d branches, %d divergent, %d launches; want 32, 32, 1, 1", what, p.Warps, p.Branches, p.Divergent, p.Launches)
		}
		// 10 instructions up to the branch for every warp, 9 after it
		// for the lanes inside n, and ret, where the last warp's two
		// groups meet again: 32·(10 + 9 + 1) warp instructions. Thread
		// instructions count the lanes whose guard holds: all 1024 but
		// at the branch, which only the 24 lanes outside n take.
		if p.Instructions != 32*20 || p.ThreadInstructions != 1024*9+24+1000*9+1024 {
			t.Errorf("%s: %d warp and %d thread instructions, want %d and %d", what,
				p.Instructions, p.ThreadInstructions, 32*20, 1024*9+24+1000*9+1024)
		}
		if len(p.Lines) != 3 {
			t.Fatalf("%s: lines %+v, want the branch, the load and the store", what, p.Lines)
		}
		br, ld, st := p.Lines[0], p.Lines[1], p.Lines[2]
		if br.Access != -1 || br.Branches != 32 || br.Divergent != 1 || br.File != "" || br.SourceLine != 0 {
			t.Errorf("%s: branch line %+v", what, br)
		}
		if ld.Access != Load || ld.Global.Sectors != c.sectors || ld.File != "copy.cu" || ld.SourceLine != 3 ||
			!strings.HasPrefix(ld.Text, "ld.global.u32") {
			t.Errorf("%s: load line %+v", what, ld)
		}
		if st.Access != Store || st.File != "copy.cu" || st.SourceLine != 4 || st.Line <= ld.Line {
			t.Errorf("%s: store line %+v", what, st)
		}
	}
}

// transposePTX transposes an n×n float matrix through a 32×32 tile in
// shared memory whose rows are pitch bytes apart: 128 (no padding) or 132
// (one float of padding).
func transposePTX(pitch int) string {
	return ptxHeader + strings.ReplaceAll(strings.ReplaceAll(`
.visible .entry k(.param .u64 p_out, .param .u64 p_in, .param .u32 p_n)
{
	.shared .align 4 .b8 tile[SIZE];
	.reg .b32 %r<24>;
	.reg .f32 %f<2>;
	.reg .b64 %rd<12>;
	ld.param.u64 %rd1, [p_out];
	ld.param.u64 %rd2, [p_in];
	ld.param.u32 %r1, [p_n];
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, %tid.y;
	mov.u32 %r4, %ctaid.x;
	mov.u32 %r5, %ctaid.y;
	shl.b32 %r6, %r4, 5;
	add.s32 %r7, %r6, %r2;          // x = blockIdx.x*32 + tx
	shl.b32 %r8, %r5, 5;
	add.s32 %r9, %r8, %r3;          // y = blockIdx.y*32 + ty
	mad.lo.s32 %r10, %r9, %r1, %r7; // y*n + x
	cvta.to.global.u64 %rd3, %rd2;
	mul.wide.s32 %rd4, %r10, 4;
	add.s64 %rd5, %rd3, %rd4;
	ld.global.f32 %f1, [%rd5];
	mov.u32 %r11, tile;
	mad.lo.s32 %r12, %r3, PITCH, %r11; // &tile[ty][0]
	shl.b32 %r13, %r2, 2;
	add.s32 %r14, %r12, %r13;          // &tile[ty][tx]
	st.shared.f32 [%r14], %f1;
	bar.sync 0;
	mad.lo.s32 %r15, %r2, PITCH, %r11; // &tile[tx][0]
	shl.b32 %r16, %r3, 2;
	add.s32 %r17, %r15, %r16;          // &tile[tx][ty]
	ld.shared.f32 %f1, [%r17];
	add.s32 %r18, %r8, %r2;            // x' = blockIdx.y*32 + tx
	add.s32 %r19, %r6, %r3;            // y' = blockIdx.x*32 + ty
	mad.lo.s32 %r20, %r19, %r1, %r18;
	cvta.to.global.u64 %rd6, %rd1;
	mul.wide.s32 %rd7, %r20, 4;
	add.s64 %rd8, %rd6, %rd7;
	st.global.f32 [%rd8], %f1;
	ret;
}
`, "PITCH", itoa(pitch)), "SIZE", itoa(32*pitch))
}

func TestProfileTranspose(t *testing.T) {
	const n = 64 // 2×2 blocks of 32×32 threads: 128 warps
	// Each warp reads and writes 32 consecutive floats of a row of global
	// memory: 4 sectors per request. It stores tile[ty][tx], 32
	// consecutive words: one wavefront. It loads tile[tx][ty]: word
	// tx·pitch/4 + ty, which without padding is in bank ty for every lane
	// (32 words in one bank: 32 wavefronts, 31 of them conflicts) and with
	// one float of padding in bank (tx+ty) mod 32, all different.
	for _, c := range []struct {
		pitch       int
		loadWaves   uint64
		loadConflct uint64
	}{{128, 128 * 32, 128 * 31}, {132, 128, 0}} {
		p := profileLaunch(t, transposePTX(c.pitch), Dim3{2, 2, 1}, Dim3{32, 32, 1}, 0, []uint64{4 * n * n, 4 * n * n}, n)
		what := "pitch " + itoa(c.pitch)
		wantCounts(t, what+" global loads", p.Global[Load], MemCounts{Requests: 128, Bytes: 4 * n * n, Sectors: 512})
		wantCounts(t, what+" global stores", p.Global[Store], MemCounts{Requests: 128, Bytes: 4 * n * n, Sectors: 512})
		wantCounts(t, what+" shared stores", p.Shared[Store], MemCounts{Requests: 128, Bytes: 4 * n * n, Wavefronts: 128})
		wantCounts(t, what+" shared loads", p.Shared[Load], MemCounts{Requests: 128, Bytes: 4 * n * n, Wavefronts: c.loadWaves, Conflicts: c.loadConflct})
		if p.Warps != 128 || p.Divergent != 0 || p.AvgThreads() != 32 || p.SharedBytes != 32*c.pitch {
			t.Errorf("%s: %d warps, %d divergent, %.1f threads per instruction, %d shared bytes", what, p.Warps, p.Divergent, p.AvgThreads(), p.SharedBytes)
		}
	}
}

// divergePTX sends the odd lanes one way and the even ones the other.
const divergePTX = ptxHeader + `
.visible .entry k(.param .u64 p_out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p_out];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 1;
	setp.eq.u32 %p1, %r2, 0;
	@%p1 bra EVEN;
	mov.u32 %r3, 1;
	bra.uni DONE;
EVEN:
	mov.u32 %r3, 2;
DONE:
	cvta.to.global.u64 %rd2, %rd1;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd2, %rd2, %rd3;
	st.global.u32 [%rd2], %r3;
	ret;
}
`

func TestProfileDivergentBranch(t *testing.T) {
	p := profileLaunch(t, divergePTX, Dim3{1, 1, 1}, Dim3{64, 1, 1}, 0, []uint64{4 * 64})
	// Per warp: the @%p1 bra splits the lanes (divergent); the odd lanes'
	// bra.uni goes as one (not divergent). 2 warps.
	if p.Branches != 4 || p.Divergent != 2 {
		t.Errorf("%d branches, %d divergent; want 4, 2", p.Branches, p.Divergent)
	}
	// Per warp: 5 instructions for 32 lanes, mov and bra.uni for the 16
	// odd ones, mov for the 16 even ones, then 5 for 32 after they meet
	// again: 13 warp instructions, 352 thread instructions.
	if p.Instructions != 2*13 || p.ThreadInstructions != 2*352 {
		t.Errorf("%d warp and %d thread instructions, want 26 and 704", p.Instructions, p.ThreadInstructions)
	}
	wantCounts(t, "stores", p.Global[Store], MemCounts{Requests: 2, Bytes: 256, Sectors: 8})
}

// atomicPTX counts into hist[tid % 8] with atom (result used) and into
// wide[tid * 8] with red (result unused).
const atomicPTX = ptxHeader + `
.visible .entry k(.param .u64 p_hist, .param .u64 p_wide)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [p_hist];
	ld.param.u64 %rd2, [p_wide];
	cvta.to.global.u64 %rd1, %rd1;
	cvta.to.global.u64 %rd2, %rd2;
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 7;
	mul.wide.u32 %rd3, %r2, 4;
	add.s64 %rd4, %rd1, %rd3;
	atom.global.add.u32 %r3, [%rd4], 1;
	shl.b32 %r4, %r1, 3;
	mul.wide.u32 %rd5, %r4, 4;
	add.s64 %rd6, %rd2, %rd5;
	red.global.add.u32 [%rd6], %r3;
	ret;
}
`

func TestProfileAtomic(t *testing.T) {
	p := profileLaunch(t, atomicPTX, Dim3{1, 1, 1}, Dim3{64, 1, 1}, 0, []uint64{4 * 8, 4 * 8 * 64})
	// 2 warps × 2 atomics. hist[tid % 8]: 8 words in one sector per
	// warp; wide[tid * 8]: lanes 32 bytes apart, 32 sectors per warp.
	wantCounts(t, "atomics", p.Global[Atomic], MemCounts{Requests: 4, Bytes: 2 * 4 * 64, Sectors: 2*1 + 2*32})
	if len(p.Lines) != 2 || p.Lines[0].Global.Sectors != 2 || p.Lines[1].Global.Sectors != 64 || p.Lines[0].Access != Atomic {
		t.Errorf("lines %+v, want the atom with 2 sectors and the red with 64", p.Lines)
	}
	if p.Global[Load] != (MemCounts{}) || p.Global[Store] != (MemCounts{}) {
		t.Errorf("loads %+v, stores %+v: atomics count apart", p.Global[Load], p.Global[Store])
	}
}

// widePTX loads 8-byte words of shared memory, lane l the word at
// 8·l·stride, and reads one word of global memory (lanes 0-15) or of
// shared memory (lanes 16-31) through a generic address.
const widePTX = ptxHeader + `
.visible .entry k(.param .u64 p_g, .param .u32 p_stride)
{
	.shared .align 8 .b8 sh[1024];
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<12>;
	ld.param.u64 %rd1, [p_g];
	ld.param.u32 %r1, [p_stride];
	mov.u32 %r2, %tid.x;
	mul.lo.s32 %r3, %r2, %r1;
	shl.b32 %r4, %r3, 3;
	mov.u32 %r5, sh;
	add.s32 %r6, %r5, %r4;
	ld.shared.u64 %rd2, [%r6];
	mul.wide.u32 %rd3, %r2, 4;
	add.s64 %rd4, %rd1, %rd3;
	mov.u64 %rd5, sh;
	cvta.shared.u64 %rd6, %rd5;
	add.s64 %rd7, %rd6, %rd3;
	setp.lt.u32 %p1, %r2, 16;
	selp.b64 %rd8, %rd4, %rd7, %p1;
	ld.u32 %r7, [%rd8];
	ret;
}
`

func TestProfileWideAndGeneric(t *testing.T) {
	for _, c := range []struct {
		stride           uint64
		waves, conflicts uint64
	}{
		// Stride 1: each half-warp reads 128 consecutive bytes, one
		// wavefront each: 2, no conflict.
		{1, 2, 0},
		// Stride 2: lanes l and l+8 of a half-warp hit the same banks
		// (16·8 bytes apart = 128): two passes per half-warp, where its
		// 128 distinct bytes need one.
		{2, 4, 2},
	} {
		p := profileLaunch(t, widePTX, Dim3{1, 1, 1}, Dim3{32, 1, 1}, 0, []uint64{4 * 32}, c.stride)
		what := "stride " + itoa(int(c.stride))
		if len(p.Lines) != 2 {
			t.Fatalf("%s: lines %+v", what, p.Lines)
		}
		wantCounts(t, what+" 8-byte shared load", p.Lines[0].Shared, MemCounts{Requests: 1, Bytes: 256, Wavefronts: c.waves, Conflicts: c.conflicts})
		// The generic load: lanes 0-15 read 64 consecutive bytes of
		// global memory (2 sectors), lanes 16-31 16 words of shared.
		g := p.Lines[1]
		wantCounts(t, what+" generic load, global part", g.Global, MemCounts{Requests: 1, Bytes: 64, Sectors: 2})
		wantCounts(t, what+" generic load, shared part", g.Shared, MemCounts{Requests: 1, Bytes: 64, Wavefronts: 1})
	}
}

// vec4PTX loads 16 bytes of shared memory per lane, lane l at 16·l·stride.
const vec4PTX = ptxHeader + `
.visible .entry k(.param .u32 p_stride)
{
	.shared .align 16 .b8 sh[1024];
	.reg .b32 %r<12>;
	ld.param.u32 %r1, [p_stride];
	mov.u32 %r2, %tid.x;
	mul.lo.s32 %r3, %r2, %r1;
	shl.b32 %r4, %r3, 4;
	mov.u32 %r5, sh;
	add.s32 %r6, %r5, %r4;
	ld.shared.v4.u32 {%r7, %r8, %r9, %r10}, [%r6];
	ret;
}
`

func TestProfileVector(t *testing.T) {
	// Each half-warp is a phase. Stride 0: every lane one address, one
	// pass per half. Stride 1: a half reads 256 consecutive bytes, two
	// passes, both needed. Stride 2: lanes l, l+4, l+8 and l+12 hit the
	// same banks, 4 passes where 2 would do. These are the wavefronts and
	// conflicts Nsight Compute counts on an H100 (the suite's shared128).
	for _, c := range []struct {
		stride           uint64
		waves, conflicts uint64
	}{{0, 2, 0}, {1, 4, 0}, {2, 8, 4}} {
		p := profileLaunch(t, vec4PTX, Dim3{1, 1, 1}, Dim3{32, 1, 1}, 0, nil, c.stride)
		wantCounts(t, "stride "+itoa(int(c.stride)), p.Shared[Load], MemCounts{Requests: 1, Bytes: 512, Wavefronts: c.waves, Conflicts: c.conflicts})
	}
}

func TestProfileOffAndAdd(t *testing.T) {
	const n = 256
	d := New(Options{Workers: 2})
	k := mustKernel(t, d, copyPTX)
	in, out := mustAlloc(t, d, 4*n), mustAlloc(t, d, 4*n)
	src := make([]int32, n)
	for i := range src {
		src[i] = int32(3*i + 1)
	}
	if err := d.WriteInt32(in, src); err != nil {
		t.Fatal(err)
	}
	var got []*Profile
	launch := func() {
		t.Helper()
		if _, err := d.Launch(context.Background(), k, Dim3{2, 1, 1}, Dim3{128, 1, 1}, 0, []uint64{out, in, 1, n}); err != nil {
			t.Fatal(err)
		}
		dst := make([]int32, n)
		if err := d.ReadInt32(out, dst); err != nil {
			t.Fatal(err)
		}
		for i := range dst {
			if dst[i] != src[i] {
				t.Fatalf("out[%d] = %d, want %d", i, dst[i], src[i])
			}
		}
	}
	launch() // off: nothing
	d.SetProfiler(func(p *Profile) { got = append(got, p) })
	launch()
	launch()
	d.SetProfiler(nil)
	launch()
	if len(got) != 2 {
		t.Fatalf("%d profiles, want 2 (profiling on for two launches)", len(got))
	}
	sum := *got[0]
	sum.Lines = append([]LineCounts(nil), sum.Lines...)
	sum.Add(got[1])
	if sum.Launches != 2 || sum.Global[Load].Requests != 16 || sum.Global[Load].Sectors != 64 || len(sum.Lines) != 3 ||
		sum.Lines[1].Global.Sectors != 64 || sum.Warps != 16 {
		t.Errorf("sum of two launches: %+v", sum)
	}
	if got[0].Global[Load].SectorsPerRequest() != 4 || got[0].Global[Load].Moved() != 4*n {
		t.Errorf("sectors per request %v, moved %d; want 4 and %d", got[0].Global[Load].SectorsPerRequest(), got[0].Global[Load].Moved(), 4*n)
	}
}

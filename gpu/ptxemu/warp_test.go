package ptxemu

import (
	"fmt"
	"strings"
	"testing"
)

func TestDivergenceReconverges(t *testing.T) {
	full := uint64(0xFFFFFFFF) << 32
	runCases(t, []laneCase{
		{"if/else then activemask", `
	and.b32 %r4, %r31, 1;
	setp.eq.s32 %p1, %r4, 0;
	@%p1 bra EVEN;
	mov.u64 %rd10, 100;
	bra JOIN;
EVEN:
	mov.u64 %rd10, 200;
JOIN:
	activemask.b32 %r5;
	cvt.u64.u32 %rd11, %r5;
	shl.b64 %rd11, %rd11, 32;
	or.b64 %rd10, %rd10, %rd11;`, nil, nil, nil, cycle(200|full, 100|full)},
		{"activemask inside a branch", `
	and.b32 %r4, %r31, 1;
	setp.eq.s32 %p1, %r4, 0;
	@%p1 bra EVEN;
	activemask.b32 %r5;
	cvt.u64.u32 %rd10, %r5;
EVEN:`, nil, nil, nil, cycle(0, 0xAAAAAAAA)},
		{"loops of different trip counts", `
	mov.u32 %r4, 0;
	mov.u32 %r5, 0;
LOOP:
	setp.ge.u32 %p1, %r4, %r1;
	@%p1 bra DONE;
	and.b32 %r6, %r4, 1;
	setp.eq.s32 %p2, %r6, 0;
	@%p2 bra NEXT;
	add.u32 %r5, %r5, %r4;
NEXT:
	add.u32 %r4, %r4, 1;
	bra LOOP;
DONE:
	activemask.b32 %r6;
	cvt.u64.u32 %rd10, %r5;
	cvt.u64.u32 %rd11, %r6;
	shl.b64 %rd11, %rd11, 32;
	or.b64 %rd10, %rd10, %rd11;`, perLane(func(l int) uint64 { return uint64(l) }), nil, nil,
			perLane(func(l int) uint64 {
				s := uint64(0)
				for i := 1; i < l; i += 2 {
					s += uint64(i)
				}
				return s | full
			})},
		{"shuffle after a divergent loop", `
	mov.u32 %r4, 0;
LOOP:
	add.u32 %r4, %r4, 1;
	setp.lt.u32 %p1, %r4, %r1;
	@%p1 bra LOOP;
	shfl.sync.idx.b32 %r5, %r4, 7, 31, -1;
	cvt.u64.u32 %rd10, %r5;`, perLane(func(l int) uint64 { return uint64(l % 5) }), nil, nil, vals(2)},
		{"guarded exit leaves the others", `
	setp.lt.u32 %p1, %r31, 16;
	mov.u64 %rd10, 1;
	add.s64 %rd27, %rd30, %rd29;
	st.global.u64 [%rd27], %rd10;
	@%p1 exit;
	mov.u64 %rd10, 2;`, nil, nil, nil, perLane(func(l int) uint64 { return map[bool]uint64{true: 1, false: 2}[l < 16] })},
	})
}

func TestShuffles(t *testing.T) {
	lanes := perLane(func(l int) uint64 { return uint64(10 * l) })
	pred := "selp.u64 %rd11, 1, 0, %p1; shl.b64 %rd11, %rd11, 32; cvt.u64.u32 %rd10, %r4; or.b64 %rd10, %rd10, %rd11;"
	runCases(t, []laneCase{
		{"shfl.sync.down", "shfl.sync.down.b32 %r4|%p1, %r1, 1, 31, -1;" + pred, lanes, nil, nil, perLane(func(l int) uint64 {
			if l == 31 {
				return 310
			}
			return uint64(10*(l+1)) | 1<<32
		})},
		{"shfl.sync.up in segments of 8", "shfl.sync.up.b32 %r4|%p1, %r1, 1, 0x1800, -1;" + pred, lanes, nil, nil, perLane(func(l int) uint64 {
			if l%8 == 0 {
				return uint64(10 * l)
			}
			return uint64(10*(l-1)) | 1<<32
		})},
		{"shfl.sync.idx broadcast", "shfl.sync.idx.b32 %r4, %r1, 5, 31, -1; cvt.u64.u32 %rd10, %r4;", lanes, nil, nil, vals(50)},
		{"shfl.sync.idx in segments of 16", "shfl.sync.idx.b32 %r4, %r1, 5, 0x101F, -1; cvt.u64.u32 %rd10, %r4;", lanes, nil, nil,
			perLane(func(l int) uint64 { return uint64(10 * (l&16 | 5)) })},
		{"shfl.sync.bfly", "shfl.sync.bfly.b32 %r4, %r1, 1, 31, -1; cvt.u64.u32 %rd10, %r4;", lanes, nil, nil,
			perLane(func(l int) uint64 { return uint64(10 * (l ^ 1)) })},
		{"shfl.sync among the even lanes only", `
	and.b32 %r4, %r31, 1;
	setp.ne.s32 %p2, %r4, 0;
	@%p2 bra SKIP;
	shfl.sync.bfly.b32 %r5, %r1, 2, 31, 0x55555555;
	cvt.u64.u32 %rd10, %r5;
SKIP:`, lanes, nil, nil, perLane(func(l int) uint64 {
			if l%2 == 1 {
				return 0
			}
			return uint64(10 * (l ^ 2))
		})},
		{"bar.warp.sync", "bar.warp.sync -1; mov.u64 %rd10, 3;", nil, nil, nil, vals(3)},
	})
}

// oddShuffle has the even lanes read odd ones, which do not execute it.
const oddShuffle = `
	and.b32 %r4, %r31, 1;
	setp.ne.s32 %p2, %r4, 0;
	@%p2 bra SKIP;
	shfl.sync.bfly.b32 %r5, %r1, 1, 31, 0x55555555;
SKIP:`

// lineOf returns the line of src on which substr first appears.
func lineOf(src, substr string) int {
	return strings.Count(src[:strings.Index(src, substr)], "\n") + 1
}

func TestShuffleFaults(t *testing.T) {
	_, err := runLanes(t, oddShuffle, nil, nil, nil)
	wantFault(t, "shuffle from a lane that does not take part", err, WarpSyncMisuse, "lane 0 reads lane 1, which is not executing it",
		fmt.Sprintf("line %d", lineOf(laneKernel(oddShuffle), "shfl.sync")))
	_, err = runLanes(t, `
	and.b32 %r4, %r31, 1;
	setp.ne.s32 %p2, %r4, 0;
	@%p2 bra SKIP;
	shfl.sync.bfly.b32 %r5, %r1, 2, 31, -1;
SKIP:`, nil, nil, nil)
	wantFault(t, "membermask naming lanes that never come", err, WarpSyncMisuse, "wait for member lanes 1,3,5")
	_, err = runLanes(t, `
	setp.lt.u32 %p2, %r31, 4;
	@%p2 bra SKIP;
	shfl.sync.idx.b32 %r5, %r1, 0, 31, 0x0F;
SKIP:`, nil, nil, nil)
	wantFault(t, "executing lanes outside the membermask", err, WarpSyncMisuse, "not in its membermask")

	// A block of 48 threads: the second warp has 16 lanes, and reading
	// lane 16 + k of it reads a thread that does not exist.
	src := ptxHeader + `
.visible .entry k(.param .u64 k_buf)
{
	.reg .b32 %r<4>;
	mov.u32 %r1, %tid.x;
	shfl.sync.down.b32 %r2, %r1, 8, 31, -1;
	ret;
}`
	_, _, err = runKernel(t, Options{}, src, Dim3{1, 1, 1}, Dim3{48, 1, 1}, 0, 1, nil)
	f := wantFault(t, "shuffle past the last thread", err, WarpSyncMisuse, "reads lane 16, which is not a thread of the block")
	if f != nil && f.Thread != (Dim3{40, 0, 0}) {
		t.Errorf("fault reported for thread %v, want (40,0,0)", f.Thread)
	}
}

func TestVotes(t *testing.T) {
	body := `
	and.b32 %r4, %r1, 1;
	setp.ne.s32 %p1, %r4, 0;
	vote.sync.ballot.b32 %r5, %p1, -1;
	vote.sync.all.pred %p2, %p1, -1;
	vote.sync.any.pred %p3, %p1, -1;
	vote.sync.uni.pred %p4, %p1, -1;
	cvt.u64.u32 %rd10, %r5;
	selp.u64 %rd11, 1, 0, %p2;
	shl.b64 %rd11, %rd11, 32;
	or.b64 %rd10, %rd10, %rd11;
	selp.u64 %rd11, 1, 0, %p3;
	shl.b64 %rd11, %rd11, 33;
	or.b64 %rd10, %rd10, %rd11;
	selp.u64 %rd11, 1, 0, %p4;
	shl.b64 %rd11, %rd11, 34;
	or.b64 %rd10, %rd10, %rd11;`
	runCases(t, []laneCase{
		{"votes on alternating lanes", body, perLane(func(l int) uint64 { return uint64(l) }), nil, nil, vals(0xAAAAAAAA | 1<<33)},
		{"votes on all lanes", body, vals(1), nil, nil, vals(0xFFFFFFFF | 7<<32)},
		{"votes on none", body, vals(0), nil, nil, vals(1 << 34)},
		{"ballot of a negated predicate", "setp.lt.u32 %p1, %r31, 3; vote.sync.ballot.b32 %r5, !%p1, -1; cvt.u64.u32 %rd10, %r5;",
			nil, nil, nil, vals(0xFFFFFFF8)},
		{"old vote.ballot inside a branch", `
	setp.lt.u32 %p1, %r31, 8;
	@!%p1 bra SKIP;
	setp.lt.u32 %p2, %r31, 2;
	vote.ballot.b32 %r5, %p2;
	cvt.u64.u32 %rd10, %r5;
SKIP:`, nil, nil, nil, perLane(func(l int) uint64 { return map[bool]uint64{true: 3, false: 0}[l < 8] })},
		{"match.any.sync", "match.any.sync.b32 %r5, %r1, -1; cvt.u64.u32 %rd10, %r5;", perLane(func(l int) uint64 { return uint64(l % 4) }), nil, nil,
			perLane(func(l int) uint64 { return 0x11111111 << (l % 4) })},
		{"match.all.sync", "match.all.sync.b32 %r5|%p1, %r1, -1; selp.u64 %rd11, 1, 0, %p1; cvt.u64.u32 %rd10, %r5; shl.b64 %rd11, %rd11, 32; or.b64 %rd10, %rd10, %rd11;",
			vals(7), nil, nil, vals(0xFFFFFFFF | 1<<32)},
		{"redux.sync.add", "redux.sync.add.u32 %r5, %r31, -1; cvt.u64.u32 %rd10, %r5;", nil, nil, nil, vals(496)},
		{"redux.sync.min.s32", "redux.sync.min.s32 %r5, %r1, -1; cvt.s64.s32 %rd10, %r5;", perLane(func(l int) uint64 { return uint64(int64(5 - l)) }), nil, nil,
			vals(i64(-26))},
	})
}

// spinLock has every thread take a global lock with atom.cas, increment a
// counter under it with plain loads and stores, and release it: lanes of
// one warp wait for each other, which needs independent progress.
const spinLock = ptxHeader + `
.visible .entry k(.param .u64 k_buf)
{
	.reg .pred %p<4>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [k_buf];
SPIN:
	atom.global.cas.b32 %r1, [%rd1], 0, 1;
	setp.ne.s32 %p1, %r1, 0;
	@%p1 bra SPIN;
	ld.volatile.global.u32 %r2, [%rd1+4];
	add.s32 %r2, %r2, 1;
	st.volatile.global.u32 [%rd1+4], %r2;
	atom.global.exch.b32 %r3, [%rd1], 0;
	ret;
}`

func TestSpinLockAmongLanes(t *testing.T) {
	out, _, err := runKernel(t, Options{}, spinLock, Dim3{1, 1, 1}, Dim3{48, 1, 1}, 0, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out[0] != 0 || out[1] != 48 {
		t.Errorf("lock %d, counter %d, want 0 and 48", out[0], out[1])
	}
}

// blockSum sums tid+1 over a block of 256 threads with a shared-memory
// tree and bar.sync between the steps; thread 0 stores the sum.
const blockSum = ptxHeader + `
.visible .entry k(.param .u64 k_buf)
{
	.reg .pred %p<4>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<8>;
	.shared .align 4 .b8 sh[1024];
	ld.param.u64 %rd1, [k_buf];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, sh;
	shl.b32 %r3, %r1, 2;
	add.s32 %r4, %r2, %r3;
	add.s32 %r5, %r1, 1;
	st.shared.u32 [%r4], %r5;
	bar.sync 0;
	mov.u32 %r6, 128;
LOOP:
	setp.ge.u32 %p1, %r1, %r6;
	@%p1 bra SKIP;
	shl.b32 %r7, %r6, 2;
	add.s32 %r8, %r4, %r7;
	ld.shared.u32 %r9, [%r8];
	ld.shared.u32 %r10, [%r4];
	add.s32 %r10, %r10, %r9;
	st.shared.u32 [%r4], %r10;
SKIP:
	bar.sync 0;
	shr.u32 %r6, %r6, 1;
	setp.ne.s32 %p2, %r6, 0;
	@%p2 bra LOOP;
	setp.ne.s32 %p3, %r1, 0;
	@%p3 bra END;
	ld.shared.u32 %r11, [sh];
	mov.u32 %r12, %ctaid.x;
	mul.wide.u32 %rd2, %r12, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r11;
END:
	ret;
}`

func TestBarrierReduction(t *testing.T) {
	out, st, err := runKernel(t, Options{}, blockSum, Dim3{3, 1, 1}, Dim3{256, 1, 1}, 0, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	for b, v := range out {
		if v != 256*257/2 {
			t.Errorf("block %d: sum %d, want %d", b, v, 256*257/2)
		}
	}
	if st.Barriers != 3*9 || st.BarrierWaits != 3*9*256 {
		t.Errorf("%d barriers, %d waits, want %d and %d", st.Barriers, st.BarrierWaits, 27, 27*256)
	}
}

func TestDivergentBarriers(t *testing.T) {
	exited := ptxHeader + `
.visible .entry k(.param .u64 k_buf)
{
	.reg .pred %p<2>;
	.reg .b32 %r<2>;
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p1, %r1, 40;
	@%p1 bra OUT;
	bar.sync 0;
OUT:
	ret;
}`
	_, _, err := runKernel(t, Options{Workers: 1}, exited, Dim3{2, 1, 1}, Dim3{64, 1, 1}, 0, 1, nil)
	f := wantFault(t, "threads leaving before a barrier", err, DivergentBarrier, "exited without reaching the bar.sync",
		fmt.Sprintf("line %d", lineOf(exited, "bar.sync")))
	if f != nil && (f.Thread != Dim3{40, 0, 0} || f.Block != Dim3{0, 0, 0}) {
		t.Errorf("fault at block %v thread %v, want block (0,0,0) thread (40,0,0)", f.Block, f.Thread)
	}

	two := ptxHeader + `
.visible .entry k(.param .u64 k_buf)
{
	.reg .pred %%p<2>;
	.reg .b32 %%r<2>;
	mov.u32 %%r1, %%tid.x;
	setp.ge.u32 %%p1, %%r1, %d;
	@%%p1 bra OTHER;
	bar.sync 0;
	bra OUT;
OTHER:
	bar.sync 0;
OUT:
	ret;
}`
	for split, want := range map[int]string{32: "threads wait at two different barriers", 16: "of this warp wait at the barrier of PTX line"} {
		_, _, err := runKernel(t, Options{}, fmt.Sprintf(two, split), Dim3{1, 1, 1}, Dim3{64, 1, 1}, 0, 1, nil)
		wantFault(t, fmt.Sprintf("two barriers split at %d", split), err, DivergentBarrier, want)
	}
}

func TestBarrierReductions(t *testing.T) {
	src := ptxHeader + `
.visible .entry k(.param .u64 k_buf)
{
	.reg .pred %p<4>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [k_buf];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 1;
	setp.ne.s32 %p1, %r2, 0;
	bar.red.popc.u32 %r3, 0, %p1;
	bar.red.or.pred %p2, 0, %p1;
	setp.lt.u32 %p3, %r1, 1000;
	bar.red.and.pred %p3, 0, %p3;
	setp.ne.s32 %p1, %r1, 0;
	@%p1 bra END;
	selp.u32 %r4, 1, 0, %p2;
	selp.u32 %r5, 1, 0, %p3;
	st.global.v2.u32 [%rd1], {%r3, %r4};
	st.global.u32 [%rd1+8], %r5;
END:
	ret;
}`
	out, _, err := runKernel(t, Options{}, src, Dim3{1, 1, 1}, Dim3{100, 1, 1}, 0, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out[0] != 50 || out[1] != 1 || out[2] != 1 {
		t.Errorf("bar.red: popc %d, or %d, and %d; want 50, 1, 1", out[0], out[1], out[2])
	}
}

func TestSpecialRegisters(t *testing.T) {
	src := ptxHeader + `
.visible .entry k(.param .u64 k_buf)
{
	.reg .b32 %r<32>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [k_buf];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %tid.y;
	mov.u32 %r3, %tid.z;
	mov.u32 %r4, %ctaid.x;
	mov.u32 %r5, %ctaid.y;
	mov.u32 %r6, %ctaid.z;
	mov.u32 %r7, %ntid.x;
	mov.u32 %r8, %ntid.y;
	mov.u32 %r9, %ntid.z;
	mov.u32 %r10, %nctaid.x;
	mov.u32 %r11, %nctaid.y;
	mov.u32 %r12, %nctaid.z;
	mov.u32 %r13, %laneid;
	mov.u32 %r14, %warpid;
	mov.u32 %r15, %nwarpid;
	mad.lo.s32 %r16, %r3, %r8, %r2;
	mad.lo.s32 %r16, %r16, %r7, %r1;
	mad.lo.s32 %r17, %r6, %r11, %r5;
	mad.lo.s32 %r17, %r17, %r10, %r4;
	mul.lo.s32 %r18, %r7, %r8;
	mul.lo.s32 %r18, %r18, %r9;
	mad.lo.s32 %r19, %r17, %r18, %r16;
	mul.wide.u32 %rd2, %r19, 16;
	add.s64 %rd3, %rd1, %rd2;
	shl.b32 %r20, %r2, 8;
	or.b32 %r20, %r20, %r1;
	shl.b32 %r21, %r3, 16;
	or.b32 %r20, %r20, %r21;
	shl.b32 %r21, %r13, 24;
	or.b32 %r20, %r20, %r21;
	shl.b32 %r22, %r5, 8;
	or.b32 %r22, %r22, %r4;
	shl.b32 %r21, %r6, 16;
	or.b32 %r22, %r22, %r21;
	shl.b32 %r21, %r14, 24;
	or.b32 %r22, %r22, %r21;
	shl.b32 %r23, %r8, 8;
	or.b32 %r23, %r23, %r7;
	shl.b32 %r21, %r9, 16;
	or.b32 %r23, %r23, %r21;
	shl.b32 %r21, %r15, 24;
	or.b32 %r23, %r23, %r21;
	shl.b32 %r24, %r11, 8;
	or.b32 %r24, %r24, %r10;
	shl.b32 %r21, %r12, 16;
	or.b32 %r24, %r24, %r21;
	st.global.v4.u32 [%rd3], {%r20, %r22, %r23, %r24};
	ret;
}`
	grid, block := Dim3{2, 3, 2}, Dim3{8, 4, 2}
	n := grid.Count() * block.Count()
	out, _, err := runKernel(t, Options{}, src, grid, block, 0, 4*n, nil)
	if err != nil {
		t.Fatal(err)
	}
	for g := range n {
		b, th := grid.unflatten(g/block.Count()), block.unflatten(g%block.Count())
		lin := g % block.Count()
		want := [4]uint32{
			uint32(th.X | th.Y<<8 | th.Z<<16 | lin%32<<24),
			uint32(b.X | b.Y<<8 | b.Z<<16 | lin/32<<24),
			uint32(8 | 4<<8 | 2<<16 | 2<<24),
			uint32(2 | 3<<8 | 2<<16),
		}
		if got := [4]uint32(out[4*g : 4*g+4]); got != want {
			t.Fatalf("thread %d (block %v, thread %v): %#x, want %#x", g, b, th, got, want)
		}
	}
}

func TestClockCounts(t *testing.T) {
	got, err := runLanes(t, "mov.u64 %rd4, %clock64; add.s32 %r4, %r1, 1; add.s32 %r4, %r4, 1; mov.u64 %rd5, %clock64; sub.s64 %rd10, %rd5, %rd4;", nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != 3 {
		t.Errorf("clock64 advanced by %d over 3 instructions", got[0])
	}
}

package gpu

import (
	"cmp"
	"context"
	"fmt"
	"math"

	"github.com/pathnotes/pathnotes/gpu/driver"
	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/ptx"
)

// VariantSSSPFast is pathnotes' own fast single-source variant.
const VariantSSSPFast = "sssp-fast"

// fastTuning holds the tunables of sssp-fast, bf-fast and apsp-batched,
// so that a benchmark can sweep them; a zero field takes its default.
//
// The defaults come from sweeps on an H100 (BenchmarkFastSSSP on grid1024,
// road264k, rmat20 and p2p-Gnutella30; kernel ms in docs/gpu-benchmarks.md):
// one block per multiprocessor beat the fully occupied grid on the grid and
// the road graph and tied on the others; delta 4× the first rule was better
// on all four; whole warps per vertex beat 16 lanes on R-MAT. Block size
// and hub handling depend on the degrees: on graphs without hubs (grid,
// road) 256-thread blocks beat 1024 (grid 18.9 against 28.1 ms, road 7.7
// against 10.4), on skewed ones (R-MAT) 1024 beat 256 (6.1 against 8.4)
// and relaxing vertices of more than 128 arcs with a whole block won
// (5.0 against 6.1). Local rounds (Local) pay on graphs without hubs:
// 16 rounds with solo mode off took the grid from 16.2 to 9.8 ms and the
// road graph from 7.8 to 4.3 (bf-fast: 30.3 to 13.5 and 8.8 to 4.0), but
// slowed R-MAT (4.3 to 7.4) and p2p-Gnutella30 (0.27 to 1.0), so they are
// on only without hubs. Solo mode lost or tied everywhere (grid 16.2 with
// it against 15.3 without, R-MAT 4.3 against 3.9) and is off by default.
// An asynchronous worklist without per-step barriers was tried and lost
// badly on the grid (165 ms at best); the asynchronous ring of local work
// (Async) keeps the per-step barriers and drops only the block's. The
// later sweeps, on an H200, set the wide grid's and the ring's defaults;
// their numbers are beside each field and in docs/gpu-benchmarks.md.
type fastTuning struct {
	// Delta is the bucket width of the near-far split (sssp-fast,
	// apsp-batched); 0 means autoDelta(g), and for sssp-fast on meshes
	// meshPoolDelta times that.
	Delta int
	// Block is the threads per block, a multiple of 32 up to 1024; 0
	// means, for sssp-fast and bf-fast, 1024 on graphs with hubs (see
	// autoGroup), meshPoolBlock for sssp-fast on meshes (see meshDegree)
	// and 256 on others, and 256 for apsp-batched.
	Block int
	// Group is the lanes that share one worklist vertex's arcs, a power of
	// two up to 32; 0 means autoGroup(g, hubs(g)).
	Group int
	// Blocks caps the persistent grid of sssp-fast and bf-fast (and the
	// blocks of an apsp-batched launch); 0 means one block per
	// multiprocessor for sssp-fast and bf-fast, every resident block for
	// apsp-batched, and never more than one per Block vertices.
	Blocks int
	// Solo is the worklist size at or below which block 0 of sssp-fast's
	// and bf-fast's grid runs steps alone, with block barriers instead of
	// grid-wide ones; 0 or a negative value means never (the default: it
	// measured no faster); try two passes of a block, 2 × Block / Group.
	Solo int
	// Heavy is the out-degree above which a worklist vertex is handled by
	// a whole block instead of Group lanes (the hubs of R-MAT and other
	// skewed graphs); 0 means 128 on graphs with hubs and Block on others,
	// a negative value means never.
	Heavy int
	// Split, for sssp-fast and bf-fast, queues a heavy vertex as parts of
	// at most Split arcs on a worklist of their own, a warp a part, so that
	// a hub's arcs are spread over the grid instead of one block; 0 means
	// splitDefault on graphs with hubs and never on others, a negative
	// value never (a whole block a heavy vertex).
	Split int
	// Steps is how many steps a persistent launch runs before it returns
	// to the host, which then checks for cancellation and completion; 0
	// means 4096.
	Steps int
	// Batch is how many sources apsp-batched solves per launch; 0 means
	// as many as three quarters of the free device memory hold.
	Batch int
	// Local is how many rounds a block of sssp-fast's and bf-fast's grid
	// may run on its own within a grid step, following the vertices it has
	// just improved through a queue in its shared memory with block
	// barriers only, before the grid-wide barrier; 0 means 16 on graphs
	// without hubs (see autoGroup; 32 for bf-fast on meshes, see
	// meshDegree) and none on others, a negative value none. With Async
	// the local work runs through the ring instead, not in rounds.
	Local int
	// LocalQueue is the entries of that shared-memory queue (two halves of
	// this many, 8 bytes an entry in all); what overflows it joins the
	// next step's worklist. 0 means 1024, and 4096 on graphs without hubs
	// of mean out-degree above meshDegree; at most 4096.
	LocalQueue int
	// Wide is the worklist size above which sssp-fast and bf-fast leave
	// the narrow grid for the wide one (every block the device holds, no
	// local rounds) at the next launch; they go back when a split finds
	// fewer than Wide/16 vertices left in the far pile. 0 means 32768, a
	// negative value never.
	Wide int
	// WideDelta is sssp-fast's bucket width on the wide grid; 0 means
	// autoWideDelta(g).
	WideDelta int
	// WideBlock is the threads per block of the wide grid, a multiple of
	// 32 up to 1024; 0 means 512 (R-MAT scale 20 4.6 ms against 6.4 with
	// 256, out-degree 7 with 10^7 vertices 20.2 against 21.9, on an H200).
	WideBlock int
	// Preread and WidePreread say whether the narrow and the wide grid
	// read a target's distance before the atomic that lowers it: 1 yes,
	// -1 no, 0 the default (no on the narrow grid, where a hop's latency
	// counts: grid 6.8 ms without against 7.6 with, road-like 3.05
	// against 3.40; yes on the wide one, where most arcs do not improve
	// and the read saves their atomics: 10^7 vertices of out-degree 7
	// 20.6 with against 26.6 without). It is always on unless every
	// weight is positive (see shapes).
	Preread, WidePreread int
	// Async makes local work asynchronous: 1 a ring in shared memory
	// (of twice LocalQueue entries) from which each warp takes what to
	// relax next, with no block barrier between hops, for as long as the
	// ring holds work (Local only turns it on); -1 rounds separated by
	// block barriers; 0 the default (the ring, on graphs without hubs but
	// bf-fast's meshes: grid 8.9 ms with rounds against 6.8 with the ring,
	// road-like 3.8 against 3.05, on an H200).
	Async int
	// Head gives every vertex Group slots of its first arcs, (target,
	// weight) pairs in an array of their own (sssp_head in ptx/sssp.cu),
	// which the lanes of a worklist entry read beside the entry's distance:
	// a hop then costs one memory round trip before its atomics instead of
	// two (the CSR's offsets, then its arcs), and a vertex of more arcs
	// takes the rest from the CSR. 1 on, -1 off, 0 the default: on meshes
	// (no hubs, mean out-degree at most meshDegree), off elsewhere. It is
	// off on graphs of 2^30 arcs or more, whose positions its rest marker
	// cannot hold.
	Head int
	// Pool keeps an idle block of the narrow grid at work within a step
	// (help_pool in ptx/sssp.cu): once its share of the worklist and its
	// ring are done, it takes entries that the other blocks have queued on
	// the next worklist instead of waiting at the grid barrier for the
	// slowest block. 1 on, -1 off, 0 the default: on where the local work
	// runs through the ring (Async) and no vertex is heavy (ring-based
	// steps on meshes); it is off wherever a vertex has more than Heavy
	// arcs or Split is set, and for bf-fast, whose steps around a negative
	// cycle would take entries until n of them a step (n times the ring's
	// work) instead of going on to the step that finds the cycle.
	Pool int
	// Switches bounds the changes between the narrow and the wide grid in
	// one run, so that a worklist hovering around the bounds cannot make
	// every launch a short one; 0 means 4.
	Switches int
	// Trace, when set, receives the counts of the run (sweeps only: the
	// counting slows the kernel down).
	Trace *frontierTrace
}

// splitDefault is fastTuning.Split on graphs with hubs. On an H200
// (BenchmarkFastSSSP, R-MAT scale 20, kernel ms, medians of 9) parts of
// 16, 32, 64, 128, 256 and 1024 arcs took 2.78, 2.59, 2.58, 3.07, 3.09
// and 3.95, and a block a heavy vertex 3.51; on p2p-Gnutella30 all were
// within 0.255 to 0.277.
const splitDefault = 64

// meshPoolBlock and meshPoolDelta are sssp-fast's block and the factor of
// autoDelta on meshes, where idle blocks take spilled work (Pool). On an
// H200 (pathnotes bench, kernel ms, medians of 9; grid 1024×1024 and the
// road-like graph of 264,346 vertices) blocks of 256, 512 and 1024 took
// 5.59, 4.59 and 4.41 ms and 2.10, 1.87 and 1.98; with 512, buckets of
// 0.5, 1, 2 and 4 times autoDelta took 5.28, 4.59, 4.41 and 4.82 and
// 2.19, 1.87, 1.70 and 1.66 (docs/gpu-benchmarks.md).
const (
	meshPoolBlock = 512
	meshPoolDelta = 2
)

// wideBack divides Wide into the far pile below which a run on the wide
// grid goes back to the narrow one.
const wideBack = 16

// maxLocalQueue is LQ_MAX of ptx/sssp.cu: two halves of it and two
// counters stay within the 48 KB of shared memory a block gets without
// opting in.
const maxLocalQueue = 4096

// localShared is the dynamic shared memory of sssp_run for t when local
// rounds are on: four counters and two halves of LocalQueue entries (or
// the asynchronous ring of as many).
func (t fastTuning) localShared() int {
	if t.Local <= 0 {
		return 0
	}
	return 4 * (4 + 2*t.LocalQueue)
}

// autoDelta is sssp-fast's default bucket width: 256 times the mean arc
// weight over the mean out-degree, at least 1. A bucket then spans about
// 256/degree "average hops": wide buckets on sparse graphs (grids, roads:
// few arcs per vertex, long paths, where parallelism is scarce) and
// narrower ones on dense or skewed graphs (R-MAT), where a wide bucket
// would relax many arcs more than once. The factor comes from the H100
// sweeps: 32 was the first guess, 4× it won on all four graphs, and with
// local rounds 2× that again (grid 9.4 against 9.9 ms, road 4.0 against
// 4.3; R-MAT 3.9 against 4.3 in an earlier sweep; Gnutella even).
func autoDelta(g *graph.Graph) int {
	if g == nil || g.M() == 0 {
		return 1
	}
	meanW := float64(max(g.ArcStats().WeightSum, 0)) / float64(g.M())
	meanDeg := float64(g.M()) / float64(g.N())
	d := 256 * meanW / meanDeg
	return int(max(1, min(d, float64(graph.MaxDistance))))
}

// autoWideDelta is sssp-fast's default bucket width on the wide grid:
// 16 times the mean arc weight over the mean out-degree (4 times on
// graphs with hubs), at least 1. A worklist that outgrows the narrow grid
// belongs to a graph of few hops between vertices (random graphs,
// R-MAT), where the work done, not the number of steps, sets the time,
// and narrow buckets relax each arc about once. Measured on an H200
// (BenchmarkFastSSSP, kernel ms): out-degree 7 with 10^7 vertices 20.3,
// 20.2, 33.9 at 4, 16 and 64 times; R-MAT scale 20 4.8, 3.5, 4.1-4.6,
// 3.7 at 1, 4, 16 and 64 times.
func autoWideDelta(g *graph.Graph, skewed bool) int {
	if skewed {
		return max(1, autoDelta(g)/64)
	}
	return max(1, autoDelta(g)/16)
}

// meshDegree is the mean out-degree up to which a graph without hubs is
// taken for a mesh or road network: its worklists stay on the narrow grid
// and its asynchronous local work runs in a ring of 2048 entries (grid
// 6.8 ms against 7.7 with 8192, road-like 264k 3.0 against 3.3, on an
// H200); above it, the worklist engine's ring has 8192 (10^7 vertices of
// out-degree 7: 20.6 ms against 24.7 with 2048), and sssp-fast takes the
// flag frontier instead (flagFrontier).
const meshDegree = 4.5

// meanDegree is g's mean out-degree (0 without vertices).
func meanDegree(g *graph.Graph) float64 {
	if g == nil || g.N() == 0 {
		return 0
	}
	return float64(g.M()) / float64(g.N())
}

// autoGroup is the default lanes per worklist vertex: a whole warp (32)
// when the out-degrees are skewed (skewed = hubs(g): the largest above 8
// times the mean, as in R-MAT or p2p graphs, where a narrow group leaves a
// hub's arcs to a few lanes while the rest of the warp waits), otherwise
// the power of two at or above the mean out-degree, between 1 and 32.
func autoGroup(g *graph.Graph, skewed bool) int {
	if g == nil || g.N() == 0 {
		return 1
	}
	if skewed {
		return 32
	}
	deg := float64(g.M()) / float64(g.N())
	grp := 1
	for grp < 32 && float64(grp) < deg {
		grp *= 2
	}
	return grp
}

// hubs reports whether g's out-degrees are skewed: the largest above 8
// times the mean.
func hubs(g *graph.Graph) bool {
	if g == nil || g.N() == 0 {
		return false
	}
	deg := float64(g.M()) / float64(g.N())
	return float64(g.ArcStats().MaxOutDegree) > 8*max(deg, 1)
}

// maxSteps bounds fastTuning.Steps so that a launch's last step number
// stays an int32.
const maxSteps = 1 << 24

// resolve fills t's zero fields with the defaults for g (block is the
// default threads per block; 0 picks it by the degrees, as for sssp-fast
// and bf-fast; bf: the defaults of bf-fast's engine) and checks the
// others. On a mesh (no hubs, mean out-degree at most meshDegree) the run
// stays on the narrow grid: sssp-fast's worklists there never outgrew it
// (grid 6.79 ms with the wide grid allowed, 6.79 without; road-like 3.05
// and 2.97), while bf-fast's hover around the bound and went wide in some
// runs and not in others (grid 13 to 42 ms); bf-fast keeps rounds there,
// 32 of them on 4096-entry halves (grid 10.2 and 10.6 ms in two runs,
// against 26.2 with 16 rounds on 1024-entry halves; road-like 3.6 and 3.8
// against 3.6).
func (t fastTuning) resolve(g *graph.Graph, what string, block int, bf bool) (fastTuning, error) {
	skewed := hubs(g)
	mesh := !skewed && meanDegree(g) <= meshDegree
	// sssp-fast on a mesh: the ring, the idle blocks' pool and the
	// arcs' heads, with blocks of 512 threads and buckets twice autoDelta
	// (meshPool).
	pooled := block == 0 && mesh && !bf
	if t.Delta == 0 {
		t.Delta = autoDelta(g)
		if pooled {
			t.Delta = min(meshPoolDelta*t.Delta, int(graph.MaxDistance))
		}
	}
	if block == 0 {
		block = 256
		switch {
		case skewed:
			block = 1024
		case pooled:
			block = meshPoolBlock
		}
	}
	if t.Block == 0 {
		t.Block = block
	}
	if t.Group == 0 {
		t.Group = autoGroup(g, skewed)
	}
	if t.Steps == 0 {
		t.Steps = 4096
	}
	if t.WideDelta == 0 {
		t.WideDelta = autoWideDelta(g, skewed)
	}
	if t.WideBlock == 0 {
		t.WideBlock = 512
	}
	switch {
	case t.Wide == 0 && mesh:
		t.Wide = -1
	case t.Wide == 0:
		t.Wide = 32768
	}
	if t.Switches == 0 {
		t.Switches = 4
	}
	t.Preread, t.WidePreread = cmp.Or(t.Preread, -1), cmp.Or(t.WidePreread, 1)
	switch {
	case t.Delta < 1:
		return t, fmt.Errorf("%s: delta %d, want at least 1", what, t.Delta)
	case t.Block < 32 || t.Block > 1024 || t.Block%32 != 0:
		return t, fmt.Errorf("%s: block of %d threads, want a multiple of 32 in 32..1024", what, t.Block)
	case t.WideBlock < 32 || t.WideBlock > 1024 || t.WideBlock%32 != 0:
		return t, fmt.Errorf("%s: wide block of %d threads, want a multiple of 32 in 32..1024", what, t.WideBlock)
	case t.WideDelta < 1:
		return t, fmt.Errorf("%s: wide delta %d, want at least 1", what, t.WideDelta)
	case t.Group < 1 || t.Group > 32 || t.Group&(t.Group-1) != 0:
		return t, fmt.Errorf("%s: group of %d lanes, want a power of two in 1..32", what, t.Group)
	case t.LocalQueue < 0 || t.LocalQueue > maxLocalQueue:
		return t, fmt.Errorf("%s: local queue of %d entries, want 1..%d (0: 1024)", what, t.LocalQueue, maxLocalQueue)
	case t.Blocks < 0 || t.Steps < 1 || t.Steps > maxSteps || t.Batch < 0:
		return t, fmt.Errorf("%s: blocks %d, steps %d, batch %d: want blocks ≥ 0, steps in 1..%d, batch ≥ 0", what, t.Blocks, t.Steps, t.Batch, maxSteps)
	}
	t.Solo = max(t.Solo, 0)
	switch {
	case t.Heavy == 0 && skewed:
		t.Heavy = 128
	case t.Heavy == 0:
		t.Heavy = t.Block
	case t.Heavy < 0:
		t.Heavy = 0
	}
	switch {
	case t.Split < 0 || t.Heavy == 0:
		t.Split = 0
	case t.Split == 0 && skewed:
		t.Split = splitDefault
	}
	// A part never needs more arcs than the graph has (nor than keep the
	// kernel's sums within an int32).
	t.Split = min(t.Split, max(g.M(), 1), 1<<24)
	if t.LocalQueue == 0 {
		t.LocalQueue = 1024
		if !skewed && (!mesh || bf) {
			t.LocalQueue = 4096
		}
	}
	if t.Local == 0 && !skewed {
		t.Local = 16
		if mesh && bf {
			t.Local = 32
		}
	}
	if t.Async == 0 && !skewed {
		t.Async = 1
		if mesh && bf {
			t.Async = -1
		}
	}
	if t.Head == 0 && mesh {
		t.Head = 1
	}
	if g.M() >= 1<<30 {
		t.Head = -1
	}
	if t.Pool == 0 && pooled {
		t.Pool = 1
	}
	if bf || t.Async <= 0 || t.Local <= 0 || t.Split > 0 || t.Heavy > 0 && g.ArcStats().MaxOutDegree > t.Heavy {
		t.Pool = -1
	}
	t.Local = max(t.Local, 0)
	t.Delta = min(t.Delta, math.MaxInt32)
	t.WideDelta = min(t.WideDelta, math.MaxInt32)
	return t, nil
}

// The words of a run's state array (ST_* in ptx/sssp.cu).
const (
	stNear    = 0 // three worklist counters
	stFar     = 3 // two far-pile counters
	stFarSel  = 5 // which far pile is current
	stStep    = 6 // steps done
	stDone    = 7 // 0 running, 1 finished, 2 negative cycle
	stNeg     = 8 // 1 + a vertex still on the worklist at round n
	stMin     = 9 // two slots of the least pending far distance
	stBar     = 11
	stHeavy   = 16 // three counters of heavy worklist entries
	stTake    = 20 // three counts of worklist entries taken by idle blocks (Pool)
	stWords   = 25
	doneOK    = 1
	doneNegC  = 2
	traceSize = 5 // TR_* counters of ptx/sssp.cu, 64 bits each
)

// frontierTrace receives what a traced sssp-fast or bf-fast run did, for
// the sweeps (fastTuning.Trace): the device's counters (TR_* in
// ptx/sssp.cu) and the host loop's.
type frontierTrace struct {
	// Expanded is how many times a vertex relaxed its out-arcs, Arcs how
	// many arcs those expansions looked at.
	Expanded, Arcs uint64
	// LocalRounds is the local rounds run, summed over blocks; Spilled the
	// improvements a full local queue sent to the worklist instead.
	LocalRounds, Spilled uint64
	// Pooled is the worklist entries that idle blocks took within their
	// step (fastTuning.Pool).
	Pooled uint64
	// Steps and WideSteps are the steps run in all and on the wide grid;
	// Launches and Switches the persistent launches and the changes
	// between the narrow and the wide grid.
	Steps, WideSteps, Launches, Switches int
}

// residentBlocks returns how many blocks of kernel with threads threads
// the device runs at once: occupancy × multiprocessors on a card. The
// emulator runs Options.Workers blocks at once (one per goroutine) and
// reports Workers as its multiprocessor count, so there it is exactly that:
// a grid barrier over more blocks than run at once would wait forever for
// blocks that never start.
func (r *run) residentBlocks(kernel string, threads, shared int) (int, error) {
	if r.dev.Driver() == "emu" {
		return max(r.dev.info.SMs, 1), nil
	}
	k, err := r.occupancy(ptx.SSSP, kernel, threads, shared)
	if err != nil {
		return 0, err
	}
	if k < 1 {
		return 0, fmt.Errorf("%s: kernel %s cannot run %d threads per block with %d bytes of shared memory on %s", r.what, kernel, threads, shared, r.dev.info.Name)
	}
	return k * max(r.dev.info.SMs, 1), nil
}

// frontier is the device state of one sssp_run problem.
type frontier struct {
	dist                                      buffer // n packed int64 words (2n int32)
	relaxed, stamp, infar, q0, q1, f0, f1, st buffer
	hp0, hp1                                  buffer // the heavy parts' worklists (Split), two ints an entry
	trace                                     buffer // traceSize int64 counters, when traced
	head                                      buffer // the arcs' heads (fastTuning.Head): 2 × group × n int32
}

// frontierVectors is how many n-vectors of int32 a single-source run
// allocates: the packed distances (2), the seven bookkeeping vectors and
// the unpacked distances and predecessors.
const frontierVectors = 11

// gridShape is one of the two grids a single-source run launches sssp_run
// on: its blocks, threads per block, dynamic shared memory, and the
// arguments that differ between them.
type gridShape struct {
	blocks, threads int
	shared          int
	delta, local    int
	async           int // 1: local work through the asynchronous ring
	preread         int // 1: read a target's distance before the atomic
}

// shapes returns the narrow grid (one block per multiprocessor, local
// rounds) and the wide one (every block the device holds) for g.
//
// Without the distance read before the atomic, an atomicMin with the same
// distance and a lower predecessor word would replace the predecessor of a
// vertex that reached that distance earlier, and along zero-weight arcs
// (a zero-weight cycle, or one back to the source) the predecessors could
// close a cycle: the read is what lets a relaxation write only after it
// has seen a larger distance. So it stays on unless every weight is
// positive, where a predecessor's distance is always below its vertex's.
func (r *run) shapes(g *graph.Graph, negative bool, tun fastTuning) (narrow, wide gridShape, err error) {
	n := g.N()
	if g.ArcStats().MinWeight <= 0 {
		tun.Preread, tun.WidePreread = 1, 1
	}
	delta, wideDelta := tun.Delta, tun.WideDelta
	if negative {
		delta, wideDelta = math.MaxInt32, math.MaxInt32 // every improvement stays near: one Bellman-Ford round per step
	}
	narrow = gridShape{threads: tun.Block, shared: tun.localShared(), delta: delta, local: tun.Local,
		async: flag(tun.Async), preread: flag(tun.Preread)}
	if narrow.blocks, err = r.residentBlocks("sssp_run", narrow.threads, narrow.shared); err != nil {
		return
	}
	if tun.Blocks > 0 {
		narrow.blocks = min(narrow.blocks, tun.Blocks)
	} else {
		narrow.blocks = min(narrow.blocks, max(r.dev.info.SMs, 1))
	}
	wide = gridShape{threads: tun.WideBlock, delta: wideDelta, preread: flag(tun.WidePreread)}
	if wide.blocks, err = r.residentBlocks("sssp_run", wide.threads, 0); err != nil {
		return
	}
	for _, s := range []*gridShape{&narrow, &wide} {
		s.blocks = max(min(s.blocks, ceilDiv(n, s.threads)), 1)
	}
	return narrow, wide, nil
}

// flag is 1 for a positive tunable and 0 otherwise.
func flag(v int) int {
	if v > 0 {
		return 1
	}
	return 0
}

// workOf is work() of ptx/sssp.cu on the host: what the next step of the
// run whose state is st has to look at, and whether it is a split (then
// the far pile, all that is left of the run).
func workOf(st []int32) (work int, split bool) {
	it := int(st[stStep])
	if cur := int(st[stNear+it%3] - st[stTake+it%3] + st[stHeavy+it%3]); cur > 0 {
		return cur, false
	}
	return int(st[stFar+st[stFarSel]]), true
}

// runFrontier is the host side of sssp-fast (negative = false) and bf-fast
// (negative = true, an infinite threshold, and the negative-cycle check).
// pin says when the graph's CSR is page-locked (sssp-fast's; pinNever
// for bf-fast and sweeps).
func runFrontier(ctx context.Context, g *graph.Graph, source int, opts Options, name string, negative bool, tun fastTuning, pin csrPinning) (*graph.SingleSource, error) {
	tun, err := tun.resolve(g, name, 0, negative)
	if err != nil {
		return nil, err
	}
	if tun.Split > 0 && g.N()+g.M()/tun.Split+1 >= 1<<30 {
		tun.Split = 0 // the parts' worklists would need 2^31 ints or more: a block a heavy vertex
	}
	vectors := frontierVectors
	if tun.Split > 0 {
		vectors += 4 + ceilDiv(4*(g.M()/tun.Split+1), g.N()+1) // the parts' worklists
	}
	if tun.Head > 0 {
		vectors += 2 * tun.Group // the arcs' heads
	}
	if tun.Pool > 0 {
		vectors += 2 // worklists of 2n entries
	}
	r, gr, out, err := startSingle(ctx, g, source, opts, name, negative, vectors, pin)
	if err != nil {
		return nil, err
	}
	defer r.end()
	defer out.done()
	n := g.N()
	// One allocation for the packed distances and the seven vectors:
	// each allocation costs the driver time on a graph of millions.
	var f frontier
	// With Pool the worklists hold 2n entries (see help_pool).
	qlen, qfill := n, 0 // qfill: the worklists' slots set to -1 (Pool)
	if tun.Pool > 0 {
		qlen, qfill = 2*n, 2*n
	}
	all, err := r.alloc(7*n + 2*qlen)
	if err != nil {
		return nil, err
	}
	f.dist = buffer{all.ptr, 2 * n}
	at := 2 * n
	for _, b := range []*buffer{&f.relaxed, &f.stamp, &f.infar, &f.f0, &f.f1, &f.q0, &f.q1} {
		size := n
		if b == &f.q0 || b == &f.q1 {
			size = qlen
		}
		*b = buffer{all.ptr + DevicePtr(4*at), size}
		at += size
	}
	if tun.Split > 0 {
		// Each vertex is queued once a step, a heavy one as at most
		// deg/Split + 1 parts.
		parts := n + g.M()/tun.Split + 1
		hp, err := r.alloc(4 * parts)
		if err != nil {
			return nil, err
		}
		f.hp0, f.hp1 = buffer{hp.ptr, 2 * parts}, buffer{hp.ptr + DevicePtr(8*parts), 2 * parts}
	}
	state := make([]int32, stWords)
	state[stNear] = 1
	state[stMin], state[stMin+1] = graph.Inf, graph.Inf
	if f.st, err = r.upload(state); err != nil {
		return nil, err
	}
	if tun.Trace != nil {
		if f.trace, err = r.alloc(2 * traceSize); err != nil {
			return nil, err
		}
		if err := r.fill(f.trace, 0); err != nil {
			return nil, err
		}
	}
	if tun.Head > 0 {
		if f.head, err = r.alloc(2 * tun.Group * n); err != nil {
			return nil, err
		}
	}
	dist, pred, err := r.allocOut(n, opts.Pred)
	if err != nil {
		return nil, err
	}
	narrow, wide, err := r.shapes(g, negative, tun)
	if err != nil {
		return nil, err
	}
	negcheck := 0
	if negative {
		negcheck = 1
	}
	var tr frontierTrace
	err = r.kernels(func() error {
		if tun.Head > 0 {
			if err := r.launch(ptx.SSSP, "sssp_head", grid1D(tun.Group*n, 256), Dim(256, 1, 1), 0, i32(n), i32(tun.Group),
				gr.off.arg(), gr.tgt.arg(), gr.w.arg(), f.head.arg()); err != nil {
				return err
			}
		}
		if err := r.launch(ptx.SSSP, "sssp_init", grid1D(max(n, qfill), 256), Dim(256, 1, 1), 0, i32(n), i32(source),
			f.dist.arg(), f.relaxed.arg(), f.stamp.arg(), f.infar.arg(), f.q0.arg(), f.q1.arg(), i32(qfill)); err != nil {
			return err
		}
		isWide := false
		for {
			s, lo, hi := narrow, 0, math.MaxInt32
			if isWide {
				s = wide
			}
			if tun.Wide > 0 && tr.Switches < tun.Switches {
				if isWide {
					lo = tun.Wide / wideBack
				} else {
					hi = tun.Wide
				}
			}
			before := int(state[stStep])
			if err := r.launch(ptx.SSSP, "sssp_run", Dim(s.blocks, 1, 1), Dim(s.threads, 1, 1), s.shared, i32(n), gr.off.arg(), gr.tgt.arg(), gr.w.arg(),
				f.dist.arg(), f.relaxed.arg(), f.stamp.arg(), f.infar.arg(), f.q0.arg(), f.q1.arg(), f.f0.arg(), f.f1.arg(),
				f.st.arg(), i32(s.delta), i32(tun.Group), i32(tun.Steps), i32(negcheck), i32(tun.Solo), i32(tun.Heavy),
				i32(tun.Split), f.hp0.arg(), f.hp1.arg(), i32(s.local), i32(tun.LocalQueue), i32(s.async), i32(s.preread), i32(lo), i32(hi), uint64(uint32(state[stBar])), f.trace.arg(), f.head.arg(), i32(flag(tun.Pool))); err != nil {
				return err
			}
			if err := r.readInts(state, f.st); err != nil {
				return err
			}
			tr.Launches++
			if isWide {
				tr.WideSteps += int(state[stStep]) - before
			}
			if state[stDone] != 0 {
				break
			}
			if w, split := workOf(state); isWide && split && w > 0 && w < lo || !isWide && w > hi {
				isWide = !isWide
				tr.Switches++
			}
		}
		return r.unpack(f.dist, n, dist, pred)
	})
	if err != nil {
		return nil, err
	}
	if tun.Trace != nil {
		if err := r.readTrace(&tr, f.trace, int(state[stStep])); err != nil {
			return nil, err
		}
		*tun.Trace = tr
	}
	if state[stDone] == doneNegC {
		start := make([]int32, n)
		if err := r.download(start, dist); err != nil {
			return nil, err
		}
		return nil, negativeCycle(r.ctx, g, start, int(state[stNeg])-1)
	}
	return finishSingle(r, g, source, out, dist, pred, opts.Pred)
}

// readTrace fills tr with the device's counters in b and the run's steps.
func (r *run) readTrace(tr *frontierTrace, b buffer, steps int) error {
	words := make([]int32, 2*traceSize)
	if err := r.readInts(words, b); err != nil {
		return err
	}
	c := func(k int) uint64 { return uint64(uint32(words[2*k])) | uint64(uint32(words[2*k+1]))<<32 }
	tr.Expanded, tr.Arcs, tr.LocalRounds, tr.Spilled, tr.Pooled = c(0), c(1), c(2), c(3), c(4)
	tr.Steps = steps
	return nil
}

// allocOut allocates count int32 distances and, with pred, predecessors.
func (r *run) allocOut(count int, withPred bool) (dist, pred buffer, err error) {
	if dist, err = r.alloc(count); err != nil {
		return
	}
	if withPred {
		pred, err = r.alloc(count)
	}
	return
}

// unpack splits count packed (distance, predecessor) words into dist and,
// when pred was allocated, pred.
func (r *run) unpack(packed buffer, count int, dist, pred buffer) error {
	return r.unpackOn(0, packed, count, dist, pred)
}

// unpackOn is unpack on stream s.
func (r *run) unpackOn(s driver.Stream, packed buffer, count int, dist, pred buffer) error {
	if count == 0 {
		return nil
	}
	grid := Dim(min(ceilDiv(count, 256), 4096), 1, 1)
	return r.launchOn(s, ptx.SSSP, "sssp_unpack", grid, Dim(256, 1, 1), 0, uint64(count), packed.arg(), dist.arg(), pred.arg())
}

// SSSPFast runs variant "sssp-fast", pathnotes' fastest single-source
// shortest paths for non-negative weights. It picks its engine by the
// graph's out-degrees (flagFrontier):
//
// On graphs without hubs whose mean out-degree is above meshDegree (such
// as [Musap 2016]'s random graphs of out-degree 7, where most vertices are
// a few hops from the source and the frontier soon holds a good part of
// the graph), it runs the flag frontier Bellman-Ford of bf-flag ([Bodra]
// §2.1.3, see BFFlag), stopping at the first pass that changes nothing:
// one thread per vertex scans the flags in order, so a frontier of
// millions costs no queue. On an H200 it took 1.27 to 9.98 ms on those
// graphs of 1 to 10 million vertices, where the worklist engine below took
// 2.2 to 20.7 and dijkstra-martin 2.2 to 14.2.
//
// On other graphs it runs near-far worklists (a two-bucket form of
// delta-stepping) on one persistent grid. Each step relaxes the out-arcs
// of the vertices on the current worklist (a group of lanes shares a
// vertex's arcs: a warp on graphs with hubs, else the mean out-degree
// rounded up to a power of two; a whole block shares those of a vertex
// with very many arcs); an improved target below the threshold joins the
// next worklist, one at or above it the far pile. When the worklist runs
// dry, the threshold becomes the least pending far distance plus delta
// and the far pile is split. Steps are separated by a grid-wide barrier:
// the grid is narrow (one block per multiprocessor) while the worklist is
// small, and on graphs with hubs it goes wide (every block the device
// holds, narrower buckets) while the worklist is large. On graphs without
// hubs (meshes, road networks) each block also follows the vertices it
// improves below the threshold within a step, through a ring in its
// shared memory from which its warps take work without block barriers, so
// that a shortest-path tree thousands of arcs deep needs few grid-wide
// barriers; a block whose ring and share are done takes what the others
// spilled onto the next worklist instead of waiting for them at the
// barrier (fastTuning.Pool), and each vertex's first arcs sit beside one
// another in slots read with its distance (fastTuning.Head). On an H200
// these took a 1024×1024 grid from 6.9 to 4.4 ms and a road-like graph of
// 264,346 vertices from 3.1 to 1.7 ms. The host relaunches the kernel every 4096 steps (and to change
// grids), reading a few words, which is when ctx is checked. A distance
// and its predecessor travel packed in one 64-bit word lowered with
// atomicMin, so predecessors (opts.Pred) come from the arcs that set the
// final distances and never form cycles, zero-weight arcs included.
//
// From the second call on the same graph, the graph's CSR arrays are
// page-locked and stay so until the graph is collected, so that uploads
// run at the bus's speed (csrPinning). The environment variable
// PATHNOTES_SSSP selects measured alternatives (ssspEnv); without it, the
// defaults above.
func SSSPFast(ctx context.Context, g *graph.Graph, source int, opts Options) (*graph.SingleSource, error) {
	k, err := readSSSPKnobs()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", VariantSSSPFast, err)
	}
	if k.engine == "flag" || k.engine == "" && flagFrontier(g) {
		return runBF(ctx, g, source, opts, bfKernels{name: VariantSSSPFast, relax: "bf_relax_flag", update: "bf_update_flag",
			grid: strideGrid, flag: true, nonNegative: true, early: true, check: k.flagCheck, pin: k.pin})
	}
	return runFrontier(ctx, g, source, opts, VariantSSSPFast, false, k.tuning(g), k.pin)
}

// flagFrontier is SSSPFast's rule for the flag frontier Bellman-Ford: no
// hubs (see hubs) and a mean out-degree above meshDegree. Measured on an
// H200 (pathnotes bench, kernel ms, sssp-fast's worklists against the flag
// frontier): out-degree 7 with 1, 2, 4, 6, 8, 10 million vertices 2.20,
// 4.28, 8.34, 12.8, 16.2, 20.7 against 1.27, 1.90, 3.85, 6.03, 7.64, 9.98;
// below the bound the flag frontier loses badly (grid 6.7 against 66,
// road-like 264k 3.0 against 32), and with hubs too (R-MAT scale 20 3.5
// against 67, p2p-Gnutella30 0.26 against 0.76).
func flagFrontier(g *graph.Graph) bool {
	return g != nil && g.N() > 0 && !hubs(g) && meanDegree(g) > meshDegree
}

// ssspFastTuned is SSSPFast's worklist engine with explicit tunables, for
// sweeps (whatever the graph).
func ssspFastTuned(ctx context.Context, g *graph.Graph, source int, opts Options, tun fastTuning) (*graph.SingleSource, error) {
	return runFrontier(ctx, g, source, opts, VariantSSSPFast, false, tun, pinNever)
}

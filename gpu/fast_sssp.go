package gpu

import (
	"context"
	"fmt"
	"math"

	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/ptx"
)

// VariantSSSPFast is pathnotes' own work-efficient single-source variant.
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
// badly on the grid (165 ms at best).
type fastTuning struct {
	// Delta is the bucket width of the near-far split (sssp-fast,
	// apsp-batched); 0 means autoDelta(g).
	Delta int
	// Block is the threads per block, a multiple of 32 up to 1024; 0
	// means, for sssp-fast and bf-fast, 1024 on graphs with hubs (see
	// autoGroup) and 256 on others, and 256 for apsp-batched.
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
	// without hubs (see autoGroup) and none on others, a negative value
	// none.
	Local int
	// LocalQueue is the entries of that shared-memory queue (two halves of
	// this many, 8 bytes an entry in all); what overflows it joins the
	// next step's worklist. 0 means 1024; at most 4096.
	LocalQueue int
}

// maxLocalQueue is LQ_MAX of ptx/sssp.cu: two halves of it and two
// counters stay within the 48 KB of shared memory a block gets without
// opting in.
const maxLocalQueue = 4096

// localShared is the dynamic shared memory of sssp_run for t: two counters
// and two halves of LocalQueue entries when local rounds are on.
func (t fastTuning) localShared() int {
	if t.Local <= 0 {
		return 0
	}
	return 4 * (2 + 2*t.LocalQueue)
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
	var sum float64
	for _, w := range g.Weights() {
		sum += float64(max(w, 0))
	}
	meanW := sum / float64(g.M())
	meanDeg := float64(g.M()) / float64(g.N())
	d := 256 * meanW / meanDeg
	return int(max(1, min(d, float64(graph.MaxDistance))))
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
	maxDeg := 0
	for u := range g.N() {
		maxDeg = max(maxDeg, g.OutDegree(u))
	}
	return float64(maxDeg) > 8*max(deg, 1)
}

// maxSteps bounds fastTuning.Steps so that a launch's last step number
// stays an int32.
const maxSteps = 1 << 24

// resolve fills t's zero fields with the defaults for g (block is the
// default threads per block; 0 picks it by the degrees, as for sssp-fast
// and bf-fast) and checks the others.
func (t fastTuning) resolve(g *graph.Graph, what string, block int) (fastTuning, error) {
	skewed := hubs(g)
	if t.Delta == 0 {
		t.Delta = autoDelta(g)
	}
	if block == 0 {
		block = 256
		if skewed {
			block = 1024
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
	switch {
	case t.Delta < 1:
		return t, fmt.Errorf("%s: delta %d, want at least 1", what, t.Delta)
	case t.Block < 32 || t.Block > 1024 || t.Block%32 != 0:
		return t, fmt.Errorf("%s: block of %d threads, want a multiple of 32 in 32..1024", what, t.Block)
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
	if t.LocalQueue == 0 {
		t.LocalQueue = 1024
	}
	if t.Local == 0 && !skewed {
		t.Local = 16
	}
	t.Local = max(t.Local, 0)
	t.Delta = min(t.Delta, math.MaxInt32)
	return t, nil
}

// The words of a run's state array (ST_* in ptx/sssp.cu).
const (
	stNear   = 0 // three worklist counters
	stDone   = 7 // 0 running, 1 finished, 2 negative cycle
	stNeg    = 8 // 1 + a vertex still on the worklist at round n
	stMin    = 9 // two slots of the least pending far distance
	stThr    = 13
	stWords  = 20
	doneOK   = 1
	doneNegC = 2
)

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
}

// frontierVectors is how many n-vectors of int32 a single-source run
// allocates: the packed distances (2), the seven bookkeeping vectors and
// the unpacked distances and predecessors.
const frontierVectors = 11

// runFrontier is the host side of sssp-fast (negative = false) and bf-fast
// (negative = true, an infinite threshold, and the negative-cycle check).
func runFrontier(ctx context.Context, g *graph.Graph, source int, opts Options, name string, negative bool, tun fastTuning) (*graph.SingleSource, error) {
	tun, err := tun.resolve(g, name, 0)
	if err != nil {
		return nil, err
	}
	r, gr, err := startSingle(ctx, g, source, opts, name, negative, frontierVectors)
	if err != nil {
		return nil, err
	}
	defer r.end()
	n := g.N()
	var f frontier
	if f.dist, err = r.alloc(2 * n); err != nil {
		return nil, err
	}
	for _, b := range []*buffer{&f.relaxed, &f.stamp, &f.infar, &f.q0, &f.q1, &f.f0, &f.f1} {
		if *b, err = r.alloc(n); err != nil {
			return nil, err
		}
	}
	thr := tun.Delta
	if negative {
		thr = math.MaxInt32 // every improvement stays near: one Bellman-Ford round per step
	}
	state := make([]int32, stWords)
	state[stNear] = 1
	state[stMin], state[stMin+1] = graph.Inf, graph.Inf
	state[stThr] = int32(thr)
	if f.st, err = r.upload(state); err != nil {
		return nil, err
	}
	dist, pred, err := r.allocOut(n, opts.Pred)
	if err != nil {
		return nil, err
	}
	shared := tun.localShared()
	blocks, err := r.residentBlocks("sssp_run", tun.Block, shared)
	if err != nil {
		return nil, err
	}
	if tun.Blocks > 0 {
		blocks = min(blocks, tun.Blocks)
	} else {
		blocks = min(blocks, max(r.dev.info.SMs, 1))
	}
	blocks = min(blocks, max(ceilDiv(n, tun.Block), 1))
	negcheck := 0
	if negative {
		negcheck = 1
	}
	block := Dim3{tun.Block, 1, 1}
	err = r.kernels(func() error {
		if err := r.launch(ptx.SSSP, "sssp_init", grid1D(n, 256), Dim3{256, 1, 1}, 0, i32(n), i32(source),
			f.dist.arg(), f.relaxed.arg(), f.stamp.arg(), f.infar.arg(), f.q0.arg()); err != nil {
			return err
		}
		for {
			if err := r.launch(ptx.SSSP, "sssp_run", Dim3{blocks, 1, 1}, block, shared, i32(n), gr.off.arg(), gr.tgt.arg(), gr.w.arg(),
				f.dist.arg(), f.relaxed.arg(), f.stamp.arg(), f.infar.arg(), f.q0.arg(), f.q1.arg(), f.f0.arg(), f.f1.arg(),
				f.st.arg(), i32(tun.Delta), i32(tun.Group), i32(tun.Steps), i32(negcheck), i32(tun.Solo), i32(tun.Heavy),
				i32(tun.Local), i32(tun.LocalQueue)); err != nil {
				return err
			}
			if err := r.readInts(state, f.st); err != nil {
				return err
			}
			if state[stDone] != 0 {
				break
			}
		}
		return r.unpack(f.dist, n, dist, pred)
	})
	if err != nil {
		return nil, err
	}
	if state[stDone] == doneNegC {
		start := make([]int32, n)
		if err := r.download(start, dist); err != nil {
			return nil, err
		}
		return nil, negativeCycle(r.ctx, g, start, int(state[stNeg])-1)
	}
	return finishSingle(r, g, source, dist, pred, opts.Pred)
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
	if count == 0 {
		return nil
	}
	grid := Dim3{min(ceilDiv(count, 256), 4096), 1, 1}
	return r.launch(ptx.SSSP, "sssp_unpack", grid, Dim3{256, 1, 1}, 0, uint64(count), packed.arg(), dist.arg(), pred.arg())
}

// SSSPFast runs variant "sssp-fast", pathnotes' work-efficient
// single-source shortest paths for non-negative weights: near-far
// worklists (a two-bucket form of delta-stepping) on one persistent grid.
//
// Each step relaxes the out-arcs of the vertices on the current worklist
// (a group of lanes shares a vertex's arcs: a warp on graphs with hubs, else
// the mean out-degree rounded up to a power of two; a whole block shares
// those of a vertex with very many arcs); an improved
// target below the threshold joins the next worklist, one at or above it
// the far pile. When the worklist runs dry, the threshold becomes the least
// pending far distance plus delta (by default 128 × mean weight / mean
// out-degree) and the far pile is split. Steps are separated by a
// grid-wide barrier, so the grid holds only blocks the device keeps
// resident (by default one 1024-thread block per multiprocessor, at most
// one per 1024 vertices). While a step has few vertices to look at (at
// most two passes of one block, by default), block 0 runs
// the steps alone with block barriers, which cost a fraction of a
// grid-wide one, and the other blocks wait until the worklist grows: a
// grid or road network spends most of its thousands of steps on such
// narrow wavefronts. A tuning that is off by default lets a block also
// follow the vertices it improves below the threshold through a queue in
// its shared memory for some rounds within a grid step,
// with block barriers only, so that a deep shortest-path tree needs fewer
// grid-wide barriers. The host relaunches the kernel every 4096 steps, reading one
// flag, which is when ctx is checked: there is no host round trip per
// step. A distance and its predecessor travel packed in one 64-bit word
// lowered with atomicMin, so predecessors (opts.Pred) come from the arcs
// that set the final distances and never form cycles, zero-weight arcs
// included. Weights must be non-negative.
func SSSPFast(ctx context.Context, g *graph.Graph, source int, opts Options) (*graph.SingleSource, error) {
	return ssspFastTuned(ctx, g, source, opts, fastTuning{})
}

// ssspFastTuned is SSSPFast with explicit tunables, for sweeps.
func ssspFastTuned(ctx context.Context, g *graph.Graph, source int, opts Options, tun fastTuning) (*graph.SingleSource, error) {
	return runFrontier(ctx, g, source, opts, VariantSSSPFast, false, tun)
}

package gpu

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/ptx"
)

// VariantAPSPBatched is pathnotes' all-pairs variant for sparse graphs.
const VariantAPSPBatched = "apsp-batched"

// apspScratch is the int32 scratch of one apsp_batch block, in n-vectors:
// relaxed, stamp, infar, two worklists and two far piles.
const apspScratch = 7

// APSPBatched runs variant "apsp-batched": all pairs of a sparse graph
// with non-negative weights as n independent single-source problems, many
// at once. Each block of a launch takes the next source of the batch from
// a counter and solves it alone with sssp-fast's near-far worklists (block
// barriers instead of grid ones, its own 7n ints of scratch), writing a
// row of packed (distance, predecessor) words into a batch×n slab; an
// unpack launch splits the slab into distance and predecessor rows, which
// are copied straight into the result's rows. The batch is as many sources
// as three quarters of the free device memory hold (16 bytes per vertex
// per source with predecessors, 12 without), so that a graph of tens of
// thousands of vertices runs in one batch; ctx is checked between
// batches. The host result needs one n×n int32 matrix (two with
// opts.Pred), checked with graph.CheckMatrixSize.
func APSPBatched(ctx context.Context, g *graph.Graph, opts Options) (*graph.AllPairs, error) {
	return apspBatchedTuned(ctx, g, opts, fastTuning{})
}

// apspBatchedTuned is APSPBatched with explicit tunables (Delta, Block,
// Group, Batch; Blocks caps the blocks per launch). With several devices
// in opts.Devices, each solves a contiguous share of the sources at the
// same time as the others, from a goroutine of its own.
func apspBatchedTuned(ctx context.Context, g *graph.Graph, opts Options, tun fastTuning) (*graph.AllPairs, error) {
	const name = VariantAPSPBatched
	tun, err := tun.resolve(g, name, 256)
	if err != nil {
		return nil, err
	}
	grp, err := startGroup(ctx, g, name, false, opts, g.N())
	if err != nil {
		return nil, err
	}
	defer grp.end()
	return grp.apspBatched(g, opts, tun)
}

// apspBatched is apsp-batched's body on the started group grp, whose name
// the result carries: g's weights must be non-negative, its paths checked
// by the caller to stay within graph.MaxDistance, tun resolved.
func (grp *group) apspBatched(g *graph.Graph, opts Options, tun fastTuning) (*graph.AllPairs, error) {
	runs := grp.runs
	name := runs[0].what
	n := g.N()
	if err := graph.CheckMatrixSize(n, opts.matrices()); err != nil {
		return nil, fmt.Errorf("%s: host memory: %w", name, err)
	}
	res := &graph.AllPairs{N: n, Dist: make([]int32, n*n), Labels: slices.Clone(g.Labels()), Solver: name}
	if opts.Pred {
		res.Pred = make([]int32, n*n)
	}
	if n == 0 {
		return res, nil
	}
	prog := &sharedProgress{report: opts.Progress, total: n}
	errs := make([]error, len(runs))
	var wg sync.WaitGroup
	for c, r := range runs {
		r.progress = prog.add
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[c] = r.apspRows(g, res, c*n/len(runs), (c+1)*n/len(runs), tun)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := checkResult(res.Dist, n, false, name); err != nil {
		return nil, err
	}
	return res, nil
}

// apspRows solves the sources lo..hi-1 of g on r's device in batches,
// writing their rows of res; r.progress gets the sources of each batch.
func (r *run) apspRows(g *graph.Graph, res *graph.AllPairs, lo, hi int, tun fastTuning) error {
	n := g.N()
	pred := res.Pred != nil
	matrices := 1
	if pred {
		matrices = 2
	}
	gr, err := r.uploadCSR(g)
	if err != nil {
		return err
	}
	blocks, err := r.residentBlocks("apsp_batch", tun.Block, 0)
	if err != nil {
		return err
	}
	if r.dev.Driver() == "emu" {
		// No grid barrier here: any grid runs; keep a few blocks per worker
		// so that sources of different lengths balance.
		blocks *= 4
	}
	if tun.Blocks > 0 {
		blocks = min(blocks, tun.Blocks)
	}
	perSource := uint64(n) * uint64(2+1+matrices-1) * 4 // packed slab (2), distances, predecessors
	batch, blocks, err := r.batchSize(n, min(tun.Batch, hi-lo), blocks, perSource)
	if err != nil {
		return err
	}
	batch = min(batch, hi-lo)
	slab, err := r.alloc(2 * batch * n)
	if err != nil {
		return err
	}
	dist, pb, err := r.allocOut(batch*n, pred)
	if err != nil {
		return err
	}
	scratch, err := r.alloc(blocks * apspScratch * n)
	if err != nil {
		return err
	}
	next, err := r.alloc(1)
	if err != nil {
		return err
	}
	for first := lo; first < hi; first += batch {
		count := min(batch, hi-first)
		err := r.kernels(func() error {
			if err := r.fill(next, 0); err != nil {
				return err
			}
			if err := r.launch(ptx.SSSP, "apsp_batch", Dim3{min(blocks, count), 1, 1}, Dim3{tun.Block, 1, 1}, 0,
				i32(n), gr.off.arg(), gr.tgt.arg(), gr.w.arg(), slab.arg(), i32(first), i32(count), scratch.arg(), next.arg(),
				i32(tun.Delta), i32(tun.Group), i32(tun.Heavy)); err != nil {
				return err
			}
			return r.unpack(slab, count*n, dist, pb)
		})
		if err != nil {
			return err
		}
		if err := r.download(res.Dist[first*n:(first+count)*n], buffer{dist.ptr, count * n}); err != nil {
			return err
		}
		if pred {
			if err := r.download(res.Pred[first*n:(first+count)*n], buffer{pb.ptr, count * n}); err != nil {
				return err
			}
		}
		r.report(count, n)
	}
	return nil
}

// batchSize picks how many sources one apsp_batch launch solves: want if
// set, else as many as three quarters of the free device memory hold
// beside the blocks' scratch (at most n), and trims the blocks to the
// batch. It reports the memory needed when not even one source fits.
func (r *run) batchSize(n, want, blocks int, perSource uint64) (batch, blocksOut int, err error) {
	free, _, err := r.memFree()
	if err != nil {
		return 0, 0, r.fail(err, "reading free device memory")
	}
	scratchPerBlock := uint64(apspScratch*n) * 4
	batch = want
	if batch == 0 {
		budget := free / 4 * 3
		blocks = max(1, min(blocks, int(budget/2/scratchPerBlock)))
		left := budget - min(budget, uint64(blocks)*scratchPerBlock)
		batch = int(min(uint64(n), left/perSource))
	}
	batch = max(1, min(batch, n))
	blocks = max(1, min(blocks, batch))
	need := uint64(batch)*perSource + uint64(blocks)*scratchPerBlock
	if err := r.reserve(need, fmt.Sprintf("n=%d, a batch of %d sources on %d blocks", n, batch, blocks)); err != nil {
		return 0, 0, err
	}
	return batch, blocks, nil
}

// PickAllPairs is the rule by which AllPairs chooses a variant for name ""
// or "auto": Floyd-Warshall (fw-fast, or fw-blocked where fw-fast is not
// built in) for graphs of at most 64 vertices (everything takes
// microseconds) and for all but the sparsest graphs; for sparse ones
// (m < n²/1024) apsp-batched when no arc is negative, and johnson-fast
// when some are (the Dijkstra family cannot take them), unless the weights
// are beyond johnson-fast's range (2·n·max|w| > graph.MaxDistance): those
// go to Floyd-Warshall too.
//
// The constant is measured for apsp-batched (`pathnotes bench --cross-n
// 4096`, H100, random graphs, docs/gpu-benchmarks.md): at n = 4096 fw-fast
// takes 7.4 ms whatever the arcs, apsp-batched 3.4 ms at 2 arcs a vertex,
// 7.5 ms at 4 (= n/1024) and 12.4 ms at 8, growing with the arcs. On
// p2p-Gnutella30 (n = 36,682, 2.4 arcs a vertex) apsp-batched takes 0.16 s
// and fw-fast 3.3 s. johnson-fast keeps the same bound without a
// measurement of its own: it adds one bf-fast run and host passes over
// the arcs and the result to apsp-batched's work.
func PickAllPairs(g *graph.Graph) string {
	fw := VariantFWBlocked
	if _, err := Lookup("fw-fast"); err == nil {
		fw = "fw-fast"
	}
	if g == nil {
		return fw
	}
	n, m := int64(g.N()), int64(g.M())
	switch {
	case n <= 64 || 1024*m >= n*n:
		return fw
	case !g.HasNegative():
		return VariantAPSPBatched
	case johnsonRange(g) == nil:
		return VariantJohnsonFast
	}
	return fw
}

package gpu

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/pathnotes/pathnotes/gpu/driver"
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
// in opts.Devices, each solves its share of the sources (apspShare says
// how they are shared) at the same time as the others, from a goroutine
// of its own.
func apspBatchedTuned(ctx context.Context, g *graph.Graph, opts Options, tun fastTuning) (*graph.AllPairs, error) {
	const name = VariantAPSPBatched
	tun, err := tun.resolve(g, name, 256, false)
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
// by the caller to stay within graph.MaxDistance, tun resolved. The
// result's host memory is allocated (not zeroed) while the first batch
// runs.
func (grp *group) apspBatched(g *graph.Graph, opts Options, tun fastTuning) (*graph.AllPairs, error) {
	runs := grp.runs
	name := runs[0].what
	n := g.N()
	res, err := newAllPairs(g, name, opts.Pred)
	if err != nil || n == 0 {
		return res, err
	}
	host := runs[0].newHostResult(opts.matrices(), n, n, false, false)
	defer host.release()
	prog := &sharedProgress{report: opts.Progress, total: n}
	feed := newSourceFeed(g, len(runs), apspShare, opts.matrices())
	for _, r := range runs {
		r.progress = prog.add
	}
	if err := inParallel(len(runs), func(c int) error { return runs[c].apspRows(g, host, feed, c, tun) }); err != nil {
		return nil, err
	}
	mats := host.wait()
	res.Dist = mats[0]
	if opts.Pred {
		res.Pred = mats[1]
	}
	if err := host.release(); err != nil {
		return nil, runs[0].fail(err, "copying the result from the device")
	}
	return res, nil
}

// apspPipe is the fewest batches a result of apspPipeBytes or more is
// cut into, so that the copy of one batch's rows back to the host
// overlaps the next batch's kernels.
const (
	apspPipe      = 4
	apspPipeBytes = 64 << 20
)

// apspRows solves g's sources that feed hands device c, on r's device in
// batches, writing their rows of the result h (with predecessors when h
// has two matrices); r.progress gets the sources of each batch. Each
// batch's rows are checked on the device (ff_finish: poison, range,
// predecessors) and copied back on a stream of their own while the next
// batch runs, into one of two output buffers that the batches take in
// turn. A batch is taken from feed only once the one two before it has
// finished its kernels, so that the device always has the next batch
// queued and a shared feed hands out batches as the devices need them.
// With apspOverlap the batches take two compute streams (and two sets of
// slab and scratch) in turn, so that a batch's blocks start on the
// multiprocessors that the one before leaves idle in its tail; the kernel
// time is then the union of the batches' intervals.
func (r *run) apspRows(g *graph.Graph, h *hostResult, feed *sourceFeed, c int, tun fastTuning) error {
	n := g.N()
	sources, want := feed.plan(c)
	if sources == 0 {
		return nil
	}
	matrices := len(h.mats)
	pred := matrices > 1
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
	sets := 1
	if apspOverlap {
		sets = 2
	}
	perSource := uint64(n) * uint64(2*sets+2*matrices) * 4 // packed slabs (2 each), two sets of output rows
	if tun.Batch > 0 {
		want = tun.Batch
	}
	batch, blocks, err := r.batchSize(n, min(want, sources), blocks, perSource, sets)
	if err != nil {
		return err
	}
	batch = min(batch, sources)
	var slab, scratch [2]buffer
	for i := range sets {
		if slab[i], err = r.alloc(2 * batch * n); err != nil {
			return err
		}
		if scratch[i], err = r.alloc(blocks * apspScratch * n); err != nil {
			return err
		}
	}
	// A source counter for each batch (at most one a source), zeroed once.
	next, err := r.alloc(sources)
	if err != nil {
		return err
	}
	if err := r.fill(next, 0); err != nil {
		return err
	}
	// ff_finish's flags: the least bad row of all batches.
	flags, err := r.alloc(3)
	if err != nil {
		return err
	}
	if err := r.fill(flags, graph.Inf); err != nil {
		return err
	}
	cx := r.dev.ctx
	cs, err := cx.NewStream()
	if err != nil {
		return r.fail(err, "creating a stream")
	}
	defer cx.DestroyStream(cs)
	// Distances and predecessors, twice when there are several batches
	// (batch b writes set b%2 while set (b-1)%2 is copied back); on one
	// compute stream the second set is allocated when the second batch
	// comes.
	var out [2][2]buffer
	var ks [2]driver.Stream // the compute streams: the default one, and one more with apspOverlap
	if sets == 2 {
		// Every buffer is made (and filled with poison on the default
		// stream) before any batch is queued, and the second stream starts
		// after that filling: it does not wait for the default stream by
		// itself (a card's test found a second batch's rows overwritten by
		// the poison of their buffer, queued behind the first batch).
		for i := range out {
			if out[i][0], out[i][1], err = r.allocOut(batch*n, pred); err != nil {
				return err
			}
		}
		if ks[1], err = cx.NewStream(); err != nil {
			return r.fail(err, "creating a stream")
		}
		defer cx.DestroyStream(ks[1])
		ready, err := r.event()
		if err != nil {
			return err
		}
		if err := cx.RecordOn(ready, 0); err != nil {
			return r.fail(err, "recording an event")
		}
		if err := cx.WaitEvent(ks[1], ready); err != nil {
			return r.fail(err, "ordering the streams")
		}
	}
	var copied [2]driver.Event
	for i := range copied {
		if copied[i], err = r.event(); err != nil {
			return err
		}
	}
	var parts []span
	var kstart, kstop []driver.Event
	// rows is batch b's output buffers, addressed as the whole n×n matrix
	// so that rows keep their numbers.
	rows := func(b int) (first, count int, d, p buffer) {
		first, count = parts[b].first, parts[b].count
		shift := DevicePtr(first) * DevicePtr(n) * 4
		d = buffer{out[b%2][0].ptr - shift, n * n}
		if pred {
			p = buffer{out[b%2][1].ptr - shift, n * n}
		}
		return
	}
	var pending []pendingFetch
	// Batch b's kernels are queued before batch b-1's rows are copied
	// back, so that the copy (and, on the staged path, the host's part of
	// it) runs while the device works on b.
	for b, done := 0, false; ; b++ {
		if !done {
			if b >= 2 {
				if err := cx.SyncEvent(kstop[b-2]); err != nil {
					return r.fail(err, "kernel %s failed (%d launches)", r.last, r.stats.Launches)
				}
			}
			part := feed.take(c, batch, blocks)
			done = part.count == 0
			if !done {
				parts = append(parts, part)
			}
		}
		if !done {
			if b < 2 && sets == 1 {
				if out[b][0], out[b][1], err = r.allocOut(batch*n, pred); err != nil {
					return err
				}
			}
			start, stop, err := r.eventPair()
			if err != nil {
				return err
			}
			kstart, kstop = append(kstart, start), append(kstop, stop)
			first, count, d, p := rows(b)
			s, k := ks[b%sets], b%sets
			if b >= 2 { // the copy of batch b-2 out of these buffers is done
				if err := cx.WaitEvent(s, copied[b%2]); err != nil {
					return r.fail(err, "waiting for a copy")
				}
			}
			if err := cx.RecordOn(start, s); err != nil {
				return r.fail(err, "recording an event")
			}
			if err := r.launchOn(s, ptx.SSSP, "apsp_batch", Dim(min(blocks, count), 1, 1), Dim(tun.Block, 1, 1), 0,
				i32(n), gr.off.arg(), gr.tgt.arg(), gr.w.arg(), slab[k].arg(), i32(first), i32(count), scratch[k].arg(), buffer{next.ptr + DevicePtr(4*b), 1}.arg(),
				i32(tun.Delta), i32(tun.Group), i32(tun.Heavy)); err != nil {
				return err
			}
			if err := r.unpackOn(s, slab[k], count*n, out[b%2][0], out[b%2][1]); err != nil {
				return err
			}
			if err := r.ffCheck(n, n, first, first+count, ffGen, d, p, flags, s); err != nil {
				return err
			}
			if err := cx.RecordOn(stop, s); err != nil {
				return r.fail(err, "recording an event")
			}
		}
		if b > 0 && b <= len(parts) {
			first, count, d, p := rows(b - 1)
			if err := cx.WaitEvent(cs, kstop[b-1]); err != nil {
				return r.fail(err, "waiting for the kernels")
			}
			for k, m := range []buffer{d, p}[:matrices] {
				f, err := r.queueFetch(h, k, m.ptr, n, first, first+count, cs)
				if err != nil {
					return err
				}
				pending = append(pending, f)
			}
			if err := cx.RecordOn(copied[(b-1)%2], cs); err != nil {
				return r.fail(err, "recording an event")
			}
			r.report(count, n)
		}
		if done {
			break
		}
	}
	if err := r.kernelUnion(kstart, kstop); err != nil {
		return err
	}
	for _, f := range pending {
		if err := r.fetched(f); err != nil {
			return err
		}
	}
	f := make([]int32, 3)
	if err := r.readInts(f, flags); err != nil {
		return err
	}
	if v := [3]int32(f); v != [3]int32{graph.Inf, graph.Inf, graph.Inf} {
		return r.ffVerdict(g, v, n, ffGen, func(m, i int) ([]int32, error) { return h.mats[m][i*n : (i+1)*n], nil })
	}
	return nil
}

// kernelUnion adds to the run's kernel time the time during which any of
// the intervals start[i]..stop[i] (events recorded on any stream) ran.
func (r *run) kernelUnion(start, stop []driver.Event) error {
	type interval struct{ from, to time.Duration }
	spans := make([]interval, len(start))
	for i := range start {
		from, err := r.dev.ctx.Elapsed(start[0], start[i])
		if err != nil {
			return r.fail(err, "kernel %s failed (%d launches)", r.last, r.stats.Launches)
		}
		to, err := r.dev.ctx.Elapsed(start[0], stop[i])
		if err != nil {
			return r.fail(err, "kernel %s failed (%d launches)", r.last, r.stats.Launches)
		}
		spans[i] = interval{from, to}
	}
	slices.SortFunc(spans, func(a, b interval) int { return cmp.Compare(a.from, b.from) })
	var end time.Duration
	for i, s := range spans {
		if i == 0 || s.from > end {
			r.stats.Kernel += s.to - s.from
			end = s.to
		} else if s.to > end {
			r.stats.Kernel += s.to - end
			end = s.to
		}
	}
	return nil
}

// batchSize picks how many sources one apsp_batch launch solves: as many
// as three quarters of the free device memory hold beside the blocks'
// scratch, sets times (at most n), or want if set and no more than that,
// and trims the blocks to the batch; perSource is the bytes a source of
// the batch takes. It reports the memory needed when not even one source fits.
func (r *run) batchSize(n, want, blocks int, perSource uint64, sets int) (batch, blocksOut int, err error) {
	free, _, err := r.memFree()
	if err != nil {
		return 0, 0, r.fail(err, "reading free device memory")
	}
	scratchPerBlock := uint64(apspScratch*n) * 4 * uint64(sets)
	budget := free / 4 * 3
	if want == 0 {
		blocks = max(1, min(blocks, int(budget/2/scratchPerBlock)))
	}
	left := budget - min(budget, uint64(blocks)*scratchPerBlock)
	batch = int(min(uint64(n), left/perSource))
	if want > 0 {
		batch = min(want, max(batch, 1))
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

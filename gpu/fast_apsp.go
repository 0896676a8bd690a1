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
// barriers instead of grid ones, its own 7n ints of scratch and a row of n
// packed (distance, predecessor) words), then unpacks the row into the
// batch's distance and predecessor rows, checks it as ff_finish would
// (range, negative diagonal, predecessors) and counts it done; the host
// compares each batch's count with its sources (apspFused; see apspRows).
// The rows are copied straight into the result's rows. A batch is as many
// sources as three quarters of the free device memory hold beside the
// blocks' scratch (two sets of output rows: 16 bytes per vertex per source
// with predecessors, 8 without), a result of apspPipeBytes or more cut
// into apspPipe batches at least (each device's share, when several
// share it), so that copies back overlap kernels; ctx is checked between
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

// apspPipe is the fewest batches a device's share of a result of
// apspPipeBytes or more is cut into, so that the copy of one batch's rows
// back to the host overlaps the next batch's kernels and the last copy,
// which nothing hides, is a small part of the share. Each batch is a
// launch that ends with a tail of blocks left idle by its last searches,
// about 6 ms on an H200 whatever the batch's size (p2p-Gnutella30,
// BenchmarkAPSPCards: one card's kernels took 140.0, 147.1, 157.3 and
// 182.2 ms in 1, 2, 4 and 8 batches; docs/gpu-benchmarks.md). Fewer
// batches a card would speed several cards' kernels up, but not their
// whole call: on two H200s, two batches a card took the kernels to 1.96×
// one card (80.2 ms, against 93.2 with four), and the whole call from
// 123.1 to 134.1 ms, its last copy back being twice as long. A variable,
// so that benchmarks time other counts.
var apspPipe = 4

// apspPipeBytes is the smallest result that apsp-batched cuts into
// batches for the copies back (apspPipe).
const apspPipeBytes = 64 << 20

// apspFused makes apsp_batch unpack and check each source's row as its
// block finishes it, so that a batch's kernels end with its last block
// (on two compute streams, apspOverlap, nothing of a batch then waits
// for multiprocessors that the next batch's resident blocks hold). Off,
// each batch's rows stay packed in a slab of the whole batch, which
// sssp_unpack and ff_finish take in launches of their own after it.
// BenchmarkAPSPCards times both.
var apspFused = true

// apspBatches is what every apsp_batch launch of one device's run takes.
type apspBatches struct {
	n, blocks int
	fused     bool // apspFused, read once for the run
	tun       fastTuning
	gr        csr
	// slab holds the packed rows (a block's own when fused, else one a
	// source of the batch) and scratch the blocks' scratch, a set for
	// each compute stream.
	slab, scratch [2]buffer
	next          buffer // a source counter for each batch, zeroed once
	// checks is ff_finish's three flags (the least bad row of all
	// batches, set to graph.Inf), then, when fused, each batch's count
	// of the rows its blocks finished (zeroed once).
	checks buffer
}

// apspCounters allocates a's source counters and checks for a device
// that solves at most sources sources (so runs at most that many batches).
func (r *run) apspCounters(a *apspBatches, sources int) (err error) {
	if a.next, err = r.alloc(sources); err != nil {
		return err
	}
	if err := r.fill(a.next, 0); err != nil {
		return err
	}
	if a.checks, err = r.alloc(3 + sources); err != nil {
		return err
	}
	if err := r.fill(buffer{a.checks.ptr, 3}, graph.Inf); err != nil {
		return err
	}
	return r.fill(buffer{a.checks.ptr + 3*4, sources}, 0)
}

// queueBatch queues batch b, the sources of part, on compute stream s
// with set k's slab and scratch, its rows into out (distances, and
// predecessors unless out[1] is empty): apsp_batch, whose blocks unpack
// and check the rows themselves when fused (each finished row counted in
// the batch's word of a.checks), else followed by sssp_unpack and
// ff_finish.
func (r *run) queueBatch(a *apspBatches, s driver.Stream, b, k int, part span, out [2]buffer) error {
	n := a.n
	var d, p, flags, done buffer
	if a.fused {
		d, p, flags, done = out[0], out[1], a.checks, buffer{a.checks.ptr + DevicePtr(4*(3+b)), 1}
	}
	if err := r.launchOn(s, ptx.SSSP, "apsp_batch", Dim(min(a.blocks, part.count), 1, 1), Dim(a.tun.Block, 1, 1), 0,
		i32(n), a.gr.off.arg(), a.gr.tgt.arg(), a.gr.w.arg(), a.slab[k].arg(), i32(part.first), i32(part.count),
		a.scratch[k].arg(), buffer{a.next.ptr + DevicePtr(4*b), 1}.arg(), i32(a.tun.Delta), i32(a.tun.Group),
		i32(a.tun.Heavy), d.arg(), p.arg(), flags.arg(), done.arg()); err != nil || a.fused {
		return err
	}
	if err := r.unpackOn(s, a.slab[k], part.count*n, out[0], out[1]); err != nil {
		return err
	}
	d, p = batchRows(out, part.first, n)
	return r.ffCheck(n, n, part.first, part.first+part.count, ffGen, d, p, a.checks, s)
}

// batchRows addresses a batch's output rows out (distances, predecessors
// unless out[1] is empty), whose first is source first's, as the whole
// n×n matrices, so that rows keep their numbers.
func batchRows(out [2]buffer, first, n int) (d, p buffer) {
	shift := DevicePtr(first) * DevicePtr(n) * 4
	d = buffer{out[0].ptr - shift, n * n}
	if out[1].ptr != 0 {
		p = buffer{out[1].ptr - shift, n * n}
	}
	return d, p
}

// apspVerdict turns a's checks, read back into f after every batch of
// parts (the sources of each) has run, into the run's error: a batch
// whose blocks did not finish each of its rows exactly once (when fused),
// or what ffVerdict makes of the flags, reading the rows with row.
func (r *run) apspVerdict(g *graph.Graph, a *apspBatches, f []int32, parts []span, row func(m, i int) ([]int32, error)) error {
	if a.fused {
		for b, part := range parts {
			if done := int(f[3+b]); done != part.count {
				return fmt.Errorf("%s: internal error: batch %d on %s (sources %d..%d) finished %d rows of its %d",
					r.what, b, r.dev.Info().Name, part.first, part.first+part.count-1, done, part.count)
			}
		}
	}
	if v := [3]int32(f); v != [3]int32{graph.Inf, graph.Inf, graph.Inf} {
		return r.ffVerdict(g, v, a.n, ffGen, row)
	}
	return nil
}

// apspRows solves g's sources that feed hands device c, on r's device in
// batches, writing their rows of the result h (with predecessors when h
// has two matrices); r.progress gets the sources of each batch. Each
// batch's rows are checked on the device (range, negative diagonal,
// predecessors, and with apspFused that each row was finished, else that
// none holds poison; see queueBatch) and copied back on a stream of their
// own while the next batch runs, into one of two output buffers that the
// batches take in turn. A batch is taken from feed only once the one two
// before it has finished its kernels, so that the device always has the
// next batch queued and a shared feed hands out batches as the devices
// need them. With apspOverlap the batches take two compute streams (and
// two sets of slab and scratch) in turn, so that a batch's blocks start
// on the multiprocessors that the one before leaves idle in its tail; the
// kernel time is then the union of the batches' intervals.
//
// The fused check sees each row as its block writes it, so it cannot see
// the row overwritten later, as ff_finish over the output after the batch
// could (by luck of timing): such a write would come from work on another
// stream that is not ordered against the batch and its copy back (the
// poison fill of a new buffer on the default stream, which does not wait
// for the non-blocking streams, would be one). The emulator tests run
// every stream's work, the default stream's included, in a random order
// that the events allow (driver.EmulatorLazyDefault,
// driver.EmulatorShuffle) and compare every result with the CPU's: a
// missing order shows there.
func (r *run) apspRows(g *graph.Graph, h *hostResult, feed *sourceFeed, c int, tun fastTuning) error {
	n := g.N()
	sources, want := feed.plan(c)
	if sources == 0 {
		return nil
	}
	matrices := len(h.mats)
	pred := matrices > 1
	a := &apspBatches{n: n, fused: apspFused, tun: tun}
	var err error
	if a.gr, err = r.uploadCSR(g); err != nil {
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
	// Two sets of output rows a source; a set of the blocks' scratch and
	// packed rows (8 bytes a vertex: a block's own when fused, else one a
	// source) for each compute stream.
	perSource := uint64(n) * uint64(2*matrices) * 4
	perBlock := uint64(n) * apspScratch * 4 * uint64(sets)
	if a.fused {
		perBlock += uint64(n) * 8 * uint64(sets)
	} else {
		perSource += uint64(n) * 8 * uint64(sets)
	}
	if tun.Batch > 0 {
		want = tun.Batch
	}
	batch, blocks, err := r.batchSize(n, min(want, sources), blocks, perSource, perBlock)
	if err != nil {
		return err
	}
	batch = min(batch, sources)
	a.blocks = blocks
	packed := batch
	if a.fused {
		packed = blocks
	}
	for i := range sets {
		if a.slab[i], err = r.alloc(2 * packed * n); err != nil {
			return err
		}
		if a.scratch[i], err = r.alloc(blocks * apspScratch * n); err != nil {
			return err
		}
	}
	if err := r.apspCounters(a, sources); err != nil {
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
			s := ks[b%sets]
			if b >= 2 { // the copy of batch b-2 out of these buffers is done
				if err := cx.WaitEvent(s, copied[b%2]); err != nil {
					return r.fail(err, "waiting for a copy")
				}
			}
			if err := cx.RecordOn(start, s); err != nil {
				return r.fail(err, "recording an event")
			}
			if err := r.queueBatch(a, s, b, b%sets, parts[b], out[b%2]); err != nil {
				return err
			}
			if err := cx.RecordOn(stop, s); err != nil {
				return r.fail(err, "recording an event")
			}
		}
		if b > 0 && b <= len(parts) {
			part := parts[b-1]
			d, p := batchRows(out[(b-1)%2], part.first, n)
			if err := cx.WaitEvent(cs, kstop[b-1]); err != nil {
				return r.fail(err, "waiting for the kernels")
			}
			for k, m := range []buffer{d, p}[:matrices] {
				f, err := r.queueFetch(h, k, m.ptr, n, part.first, part.first+part.count, cs)
				if err != nil {
					return err
				}
				pending = append(pending, f)
			}
			if err := cx.RecordOn(copied[(b-1)%2], cs); err != nil {
				return r.fail(err, "recording an event")
			}
			r.report(part.count, n)
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
	f := make([]int32, 3+len(parts))
	if err := r.readInts(f, buffer{a.checks.ptr, len(f)}); err != nil {
		return err
	}
	return r.apspVerdict(g, a, f, parts, func(m, i int) ([]int32, error) { return h.mats[m][i*n : (i+1)*n], nil })
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
// scratch (at most n), or want if set and no more than that, and trims the
// blocks to the batch; perSource is the bytes a source of the batch takes,
// perBlock those a block takes. It reports the memory needed when not
// even one source fits.
func (r *run) batchSize(n, want, blocks int, perSource, perBlock uint64) (batch, blocksOut int, err error) {
	free, _, err := r.memFree()
	if err != nil {
		return 0, 0, r.fail(err, "reading free device memory")
	}
	budget := free / 4 * 3
	if want == 0 {
		blocks = max(1, min(blocks, int(budget/2/perBlock)))
	}
	left := budget - min(budget, uint64(blocks)*perBlock)
	batch = int(min(uint64(n), left/perSource))
	if want > 0 {
		batch = min(want, max(batch, 1))
	}
	batch = max(1, min(batch, n))
	blocks = max(1, min(blocks, batch))
	need := uint64(batch)*perSource + uint64(blocks)*perBlock
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

package gpu

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/pathnotes/pathnotes/gpu/driver"
	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/ptx"
)

// VariantAPSPBatched is pathnotes' all-pairs variant for sparse graphs.
const VariantAPSPBatched = "apsp-batched"

// apspBlock is apsp-batched's threads a block (one search) for a graph of
// n vertices: 1024, the most a block takes, from apspBigBlockN vertices
// on, and 256 below. Fewer searches at once, each faster, leave a shorter
// tail when a launch's last searches run alone, while a small graph needs
// many searches at once to fill the card. On an H200
// (BenchmarkAPSPCards, BenchmarkAPSPBlocks, distances;
// docs/gpu-benchmarks.md):
//   - p2p-Gnutella30: one card's kernels took 118.3 ms with 1024 threads,
//     124.6 with 512 and 129.6 with 256; two cards' 60.3, 64.5 and 69.5;
//   - whole calls with 1024 against 256: 1.49× faster at n = 4096 with 8
//     arcs a vertex, 1.44× at 16384, 1.35× on a road-like graph of 16384
//     (512: 1.38×), 1.33× and 1.17× on p2p-Gnutella04 and 25;
//   - but 0.74× at n = 1024, where 256 threads a block run all the
//     sources at once.
func apspBlock(n int) int {
	if n >= apspBigBlockN {
		return 1024
	}
	return 256
}

// apspBigBlockN is the fewest vertices for which apsp-batched's blocks
// take 1024 threads (apspBlock): measured at 1024 (256 faster) and 4096
// (1024 faster).
const apspBigBlockN = 4096

// apspScratch is the int32 scratch of one apsp_batch block, in n-vectors:
// relaxed, stamp, infar, two worklists and two far piles.
const apspScratch = 7

// APSPBatched runs variant "apsp-batched": all pairs of a sparse graph
// with non-negative weights as n independent single-source problems, many
// at once. Each block of a launch takes the next source from a counter
// and solves it alone with sssp-fast's near-far worklists (block barriers
// instead of grid ones, its own 7n ints of scratch and a row of n packed
// (distance, predecessor) words), then unpacks the row into the
// distance and predecessor rows, checks it as ff_finish would (range,
// negative diagonal, predecessors) and counts it done; the host compares
// each launch's count with its sources. A launch is as many sources as
// three quarters of the free device memory hold beside the blocks'
// scratch (room for two sets of output rows: 16 bytes per vertex per
// source with predecessors, 8 without), so usually one a device, and its
// rows go back to the host in pieces (apspPieces), each as soon as its
// rows are done, while the launch goes on. ctx is checked between
// pieces; a cancelled call stops its launches after the sources they
// have started. The host result needs one n×n int32 matrix (two with
// opts.Pred), checked with graph.CheckMatrixSize.
func APSPBatched(ctx context.Context, g *graph.Graph, opts Options) (*graph.AllPairs, error) {
	return apspBatchedTuned(ctx, g, opts, fastTuning{})
}

// apspBatchedTuned is APSPBatched with explicit tunables (Delta, Block,
// Group, Batch: the sources a launch; Blocks caps the blocks per launch).
// With several devices in opts.Devices, each solves its share of the
// sources (sourceShares) at the same time as the others, from a goroutine
// of its own.
func apspBatchedTuned(ctx context.Context, g *graph.Graph, opts Options, tun fastTuning) (*graph.AllPairs, error) {
	const name = VariantAPSPBatched
	tun, err := tun.resolve(g, name, apspBlock(g.N()), false)
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
// result's host memory is allocated (not zeroed) while the first launch
// runs.
func (grp *group) apspBatched(g *graph.Graph, opts Options, tun fastTuning) (*graph.AllPairs, error) {
	runs := grp.runs
	name := runs[0].what
	n := g.N()
	res, err := newAllPairs(g, name, opts.Pred)
	if err != nil || n == 0 {
		return res, err
	}
	host := runs[0].newHostResult(opts.matrices(), n, n, apspTouch, false)
	defer host.release()
	prog := &sharedProgress{report: opts.Progress, total: n}
	shares := sourceShares(g, len(runs))
	for _, r := range runs {
		r.progress = prog.add
	}
	if err := inParallel(len(runs), func(c int) error { return runs[c].apspRows(g, host, shares[c], tun) }); err != nil {
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

// apspTouch makes apsp-batched touch its result's pages on every core
// before its launch (newHostResult's touch), instead of leaving the
// faults to the copies. Off: on an H200's host, with the result in memory
// the process had not touched (BenchmarkAPSPCall, p2p-Gnutella30 with Π)
// the call took 413-453 ms with it and 346-451 without (1280 once;
// docs/gpu-benchmarks.md). A variable, so that benchmarks time both ways.
var apspTouch = false

// apspPieces is how many pieces of rows a launch of apspPipeBytes or more
// of rows goes back to the host in: the copy of a piece waits on a stream
// for the count of its finished rows (driver WaitValue), not for the
// launch's end, so that the copies overlap the launch and only the last
// piece's copy is left after it. A launch ends with a tail, its last
// searches running alone on a few blocks, about 6 ms on an H200 whatever
// its size (p2p-Gnutella30, BenchmarkAPSPCards: one card's kernels took
// 140.0, 147.1, 157.3 and 182.2 ms in 1, 2, 4 and 8 launches;
// docs/gpu-benchmarks.md): pieces overlap the copies without adding
// launches. A variable, so that benchmarks time other counts.
var apspPieces = 16

// apspPipeBytes is the least of a launch's rows that go back in
// apspPieces pieces; less goes back in one, after the launch. A variable,
// so that tests cut small results into pieces.
var apspPipeBytes uint64 = 64 << 20

// apspStop is the value at which apsp_batch's counters stand for "all
// done": the host writes it into a launch's source counter to stop the
// launch, and the default stream into its pieces' counts after it, so
// that no copy's wait outlasts the launch.
const apspStop = 1 << 30

// apspBatches is what every apsp_batch launch of one device's run takes.
type apspBatches struct {
	n, blocks int
	tun       fastTuning
	gr        csr
	// The device's sources, by position 0..count-1: order[p], or base+p
	// when order is nil; list is order on the device.
	order       []int32
	list        buffer
	base, count int
	// slab holds the blocks' packed rows, a row each, and scratch their
	// scratch.
	slab, scratch buffer
	next          buffer // a source counter for each launch, zeroed once
	// checks is ff_finish's three flags (the least bad row of all
	// launches, set to graph.Inf), then each launch's count of the rows
	// its blocks finished (zeroed once).
	checks buffer
	// pieces is each launch's counts of finished rows by piece, stride
	// words a launch (zeroed once).
	pieces buffer
	stride int
}

// source is the source at position p.
func (a *apspBatches) source(p int) int {
	if a.order != nil {
		return int(a.order[p])
	}
	return a.base + p
}

// apspCounters allocates a's source counters, checks and pieces' counts
// (a.stride a launch) for a device that runs launches launches.
func (r *run) apspCounters(a *apspBatches, launches int) (err error) {
	if a.next, err = r.allocRaw(launches); err != nil {
		return err
	}
	if err := r.fill(a.next, 0); err != nil {
		return err
	}
	if a.pieces, err = r.allocRaw(launches * a.stride); err != nil {
		return err
	}
	if err := r.fill(a.pieces, 0); err != nil {
		return err
	}
	if a.checks, err = r.allocRaw(3 + launches); err != nil {
		return err
	}
	if err := r.fill(buffer{a.checks.ptr, 3}, graph.Inf); err != nil {
		return err
	}
	return r.fill(buffer{a.checks.ptr + 3*4, launches}, 0)
}

// word is the address of b's int32 k.
func word(b buffer, k int) DevicePtr { return b.ptr + DevicePtr(4*k) }

// queueLaunch queues launch b, the sources at the positions of part, on
// the default stream, its rows into out (distances, and predecessors
// unless out[1] is empty; a row a position, from part.first's), counted
// by pieces of piece rows in a.pieces when pieced.
func (r *run) queueLaunch(a *apspBatches, b int, part span, out [2]buffer, piece int, pieced bool) error {
	var counts buffer
	if pieced {
		counts = buffer{word(a.pieces, b*a.stride), a.stride}
	}
	first := part.first
	if a.order == nil {
		first += a.base
	}
	return r.launch(ptx.SSSP, "apsp_batch", Dim(min(a.blocks, part.count), 1, 1), Dim(a.tun.Block, 1, 1), 0,
		i32(a.n), a.gr.off.arg(), a.gr.tgt.arg(), a.gr.w.arg(), a.slab.arg(), i32(first), i32(part.count),
		a.scratch.arg(), buffer{word(a.next, b), 1}.arg(), i32(a.tun.Delta), i32(a.tun.Group),
		i32(a.tun.Heavy), out[0].arg(), out[1].arg(), a.checks.arg(), buffer{word(a.checks, 3+b), 1}.arg(),
		counts.arg(), i32(piece), a.list.arg())
}

// apspVerdict turns a's checks, read back into f after every launch of
// parts (the positions of its sources) has run, into the run's error: a
// launch whose blocks did not finish each of its rows exactly once, or
// what ffVerdict makes of the flags, reading the rows with row.
func (r *run) apspVerdict(g *graph.Graph, a *apspBatches, f []int32, parts []span, row func(m, i int) ([]int32, error)) error {
	for b, part := range parts {
		if done := int(f[3+b]); done != part.count {
			return fmt.Errorf("%s: internal error: launch %d on %s (sources %d..%d) finished %d rows of its %d",
				r.what, b, r.dev.Info().Name, a.source(part.first), a.source(part.first+part.count-1), done, part.count)
		}
	}
	if v := [3]int32(f); v != [3]int32{graph.Inf, graph.Inf, graph.Inf} {
		return r.ffVerdict(g, v, a.n, ffGen, row)
	}
	return nil
}

// sinkRows writes into mats (distances, predecessors when there are two)
// the rows of the sources rows, which have no out-arcs and so reach only
// themselves: distances graph.Inf but 0 on the diagonal, predecessors
// graph.Nil. All cores copy rows made once; they stop early once ctx is
// done.
func sinkRows(ctx context.Context, mats [][]int32, n int, rows []int32) {
	inf, nils := make([]int32, n), make([]int32, n)
	for v := range inf {
		inf[v], nils[v] = graph.Inf, graph.Nil
	}
	var wg sync.WaitGroup
	parallelRanges(&wg, len(rows), func(lo, hi int) {
		for i, s := range rows[lo:hi] {
			if i%64 == 0 && ctx.Err() != nil {
				return
			}
			at := int(s) * n
			copy(mats[0][at:at+n], inf)
			mats[0][at+int(s)] = 0
			if len(mats) > 1 {
				copy(mats[1][at:at+n], nils)
			}
		}
	})
	wg.Wait()
}

// apspRows solves g's sources of share on r's device, writing their rows
// of the result h (with predecessors when h has two matrices); r.progress
// gets the sources of each piece. The device's sources are cut into
// launches of as many as memory holds (usually one). Each launch's rows
// are checked on the device (range, negative diagonal, predecessors, and
// that each row was finished; see apsp_batch) and copied back on a
// stream of their own, into one of two output buffers that the launches
// take in turn; launch b+1 is queued before the host copies launch b's
// rows, after the copies of launch b-1 on the device.
//
// Launches of apspPipeBytes or more of rows go back in pieces, each once
// its rows are done (a stream wait on its count): on the staged path a
// staging buffer's worth each, as one stream of jobs (stagedJobs), else
// apspPieces a launch. On the staged path the device solves only the
// sources that have out-arcs, taken from a list: the host writes the
// others' rows (sinkRows: three in four of p2p-Gnutella30's sources)
// while it works, and copies each row that comes back to its place.
//
// ctx is checked before each piece: a cancelled run sets every launch's
// source counter to apspStop through a third stream, so that the
// launches end after the sources they have started.
//
// The check in apsp_batch sees each row as its block writes it, so it
// cannot see the row overwritten later, as ff_finish over the output
// after the launch could (by luck of timing): such a write would come
// from work on another stream that is not ordered against the launch and
// its copy back. The emulator tests run every stream's work, the default
// stream's included, in a random order that the events allow
// (driver.EmulatorLazyDefault, driver.EmulatorShuffle) and compare every
// result with the CPU's: a missing order shows there.
func (r *run) apspRows(g *graph.Graph, h *hostResult, share span, tun fastTuning) error {
	n := g.N()
	if share.count == 0 {
		return nil
	}
	matrices := len(h.mats)
	pred := matrices > 1
	a := &apspBatches{n: n, tun: tun, base: share.first, count: share.count}
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
	// Two sets of output rows a source; a block's scratch and its row of
	// packed words (8 bytes a vertex).
	perSource := uint64(n) * uint64(2*matrices) * 4
	perBlock := uint64(n)*apspScratch*4 + uint64(n)*8
	batch, blocks, err := r.batchSize(n, min(tun.Batch, share.count), blocks, perSource, perBlock)
	if err != nil {
		return err
	}
	a.blocks = blocks
	cx := r.dev.ctx
	var cs, ctl driver.Stream // the copies back; the stop of a cancelled run
	for _, s := range []*driver.Stream{&cs, &ctl} {
		if *s, err = cx.NewStream(); err != nil {
			return r.fail(err, "creating a stream")
		}
		defer cx.DestroyStream(*s)
	}
	pieced := uint64(min(batch, share.count))*uint64(n)*4*uint64(matrices) >= apspPipeBytes
	if pieced {
		if pieced, err = r.canWaitValue(cs); err != nil {
			return err
		}
	}
	// Only the staged path needs the host's matrices (and the staging
	// buffers) before the launch.
	staged, per := false, 0
	if h.path == viaStaged && pieced {
		var err error
		per, err = r.stagedRows(n)
		staged = err == nil
	}
	var mats [][]int32
	if staged {
		mats = h.wait()
		var sinks []int32
		for s := share.first; s < share.first+share.count; s++ {
			if g.OutDegree(s) == 0 {
				sinks = append(sinks, int32(s))
			} else {
				a.order = append(a.order, int32(s))
			}
		}
		if len(sinks) == 0 {
			a.order = nil
		} else {
			a.base, a.count = 0, len(a.order)
			if a.list, err = r.upload(a.order); err != nil {
				return err
			}
			var wg sync.WaitGroup
			wg.Go(func() {
				sinkRows(r.ctx, mats, n, sinks)
				r.report(len(sinks), n)
			})
			defer wg.Wait()
		}
	}
	if a.count == 0 {
		return nil
	}
	batch = min(batch, a.count)
	piece := batch
	switch {
	case staged:
		piece = per
	case pieced:
		piece = ceilDiv(batch, apspPieces)
	}
	a.stride = ceilDiv(batch, piece)
	if a.slab, err = r.alloc(2 * blocks * n); err != nil {
		return err
	}
	if a.scratch, err = r.alloc(blocks * apspScratch * n); err != nil {
		return err
	}
	launches := ceilDiv(a.count, batch)
	if err := r.apspCounters(a, launches); err != nil {
		return err
	}
	parts := make([]span, launches)
	for b := range parts {
		parts[b] = span{b * batch, min(batch, a.count-b*batch)}
	}
	// Distances and predecessors, twice when there are several launches
	// (launch b writes set b%2 while set (b-1)%2 is copied back).
	var out [2][2]buffer
	var copied [2]driver.Event
	for i := range copied {
		if copied[i], err = r.event(); err != nil {
			return err
		}
	}
	kstart, kstop := make([]driver.Event, launches), make([]driver.Event, launches)
	queue := func(b int) error {
		if b < 2 {
			if out[b][0], out[b][1], err = r.allocOut(batch*n, pred); err != nil {
				return err
			}
		}
		if kstart[b], kstop[b], err = r.eventPair(); err != nil {
			return err
		}
		if b >= 2 { // the copy of launch b-2 out of these buffers is done
			if err := cx.WaitEvent(0, copied[b%2]); err != nil {
				return r.fail(err, "waiting for a copy")
			}
		}
		if err := cx.Record(kstart[b]); err != nil {
			return r.fail(err, "recording an event")
		}
		if err := r.queueLaunch(a, b, parts[b], out[b%2], piece, pieced); err != nil {
			return err
		}
		if pieced {
			// Whatever the counts, no wait for them outlasts the launch.
			if err := r.fill(buffer{word(a.pieces, b*a.stride), a.stride}, apspStop); err != nil {
				return err
			}
		}
		if err := cx.Record(kstop[b]); err != nil {
			return r.fail(err, "recording an event")
		}
		return nil
	}
	if err := queue(0); err != nil {
		return err
	}
	var pending []pendingFetch
	for b, part := range parts {
		if b+1 < launches {
			if err := queue(b + 1); err != nil {
				return err
			}
		}
		// The waits for the pieces' counts come after the counts' zeroing
		// (which a spare buffer needs: it may hold an earlier run's
		// apspStop); the other copies after the launch.
		after := kstop[b]
		if pieced {
			after = kstart[b]
		}
		if err := cx.WaitEvent(cs, after); err != nil {
			return r.fail(err, "waiting for the kernels")
		}
		if staged {
			err = r.queueStagedPieces(a, b, part, out[b%2], mats, piece, cs)
		} else {
			err = r.queuePieces(a, b, part, out[b%2], h, piece, pieced, cs, &pending)
		}
		if err != nil {
			if cause := r.ctx.Err(); cause != nil {
				return r.apspStopAll(a, launches, ctl, cause)
			}
			return err
		}
		if err := cx.RecordOn(copied[b%2], cs); err != nil {
			return r.fail(err, "recording an event")
		}
	}
	for b := range parts {
		dt, err := cx.Elapsed(kstart[b], kstop[b])
		if err != nil {
			return r.fail(err, "kernel %s failed (%d launches)", r.last, r.stats.Launches)
		}
		r.stats.Kernel += dt
	}
	for _, f := range pending {
		if err := r.fetched(f); err != nil {
			return err
		}
	}
	f := make([]int32, 3+launches)
	if err := r.readInts(f, buffer{a.checks.ptr, len(f)}); err != nil {
		return err
	}
	return r.apspVerdict(g, a, f, parts, func(m, i int) ([]int32, error) { return h.mats[m][i*n : (i+1)*n], nil })
}

// queueStagedPieces copies launch b's rows (the positions of part, in
// out) back through the staging buffers on stream s into mats, a
// staging buffer's worth (piece rows) at a time, each once its count in
// a.pieces says that its rows are done, each row to its source's row.
func (r *run) queueStagedPieces(a *apspBatches, b int, part span, out [2]buffer, mats [][]int32, piece int, s driver.Stream) error {
	n := a.n
	var jobs []stagedJob
	for lo := 0; lo < part.count; lo += piece {
		hi := min(lo+piece, part.count)
		for k, m := range out[:len(mats)] {
			j := stagedJob{host: mats[k], src: m.ptr, devPitch: n, w: n, lo: lo, hi: hi}
			if a.order != nil {
				j.rows = a.order[part.first+lo : part.first+hi]
			} else {
				j.lo, j.hi = a.base+part.first+lo, a.base+part.first+hi
				j.src -= DevicePtr(a.base+part.first) * DevicePtr(n) * 4
			}
			if k == 0 {
				j.wait, j.value = word(a.pieces, b*a.stride+lo/piece), uint32(hi-lo)
			}
			if k == len(mats)-1 {
				j.done = hi - lo
			}
			jobs = append(jobs, j)
		}
	}
	return r.stagedJobs(jobs, s, true)
}

// queuePieces queues the copies of launch b's rows (the positions of
// part, sources a.base onwards, in out) back into h on stream s, piece
// rows at a time, each after a wait for its count in a.pieces when
// pieced, and appends them to pending; it reports each piece's sources
// once queued. The run's context is checked before each piece: a
// cancelled run returns ctx.Err() itself.
func (r *run) queuePieces(a *apspBatches, b int, part span, out [2]buffer, h *hostResult, piece int, pieced bool, s driver.Stream, pending *[]pendingFetch) error {
	n, first := a.n, a.base+part.first
	shift := DevicePtr(first) * DevicePtr(n) * 4 // rows by source number
	for lo := 0; lo < part.count; lo += piece {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+piece, part.count)
		if pieced {
			if err := r.dev.ctx.WaitValue(s, word(a.pieces, b*a.stride+lo/piece), uint32(hi-lo)); err != nil {
				return r.fail(err, "waiting for rows %d..%d", first+lo, first+hi-1)
			}
		}
		for k, m := range out[:len(h.mats)] {
			f, err := r.queueFetch(h, k, m.ptr-shift, n, first+lo, first+hi, s)
			if err != nil {
				return err
			}
			*pending = append(*pending, f)
		}
		r.report(hi-lo, n)
	}
	return nil
}

// canWaitValue tells whether the driver waits for a device word on a
// stream (driver WaitValue; a CUDA driver library before 11.7 does not),
// by a wait on stream s for a word that has the value already, asked once
// a device (Device.waitValue).
func (r *run) canWaitValue(s driver.Stream) (bool, error) {
	if w := r.dev.waitValue; w != 0 {
		return w > 0, nil
	}
	probe, err := r.alloc(1) // poison, a positive int32
	if err != nil {
		return false, err
	}
	filled, err := r.event()
	if err != nil {
		return false, err
	}
	cx := r.dev.ctx
	if err := cx.Record(filled); err != nil {
		return false, r.fail(err, "recording an event")
	}
	if err := cx.WaitEvent(s, filled); err != nil {
		return false, r.fail(err, "waiting for a fill")
	}
	err = cx.WaitValue(s, probe.ptr, 0)
	if driver.IsSticky(err) {
		return false, r.fail(err, "waiting for a word on a stream")
	}
	r.dev.waitValue = -1
	if err == nil {
		r.dev.waitValue = 1
	}
	return err == nil, nil
}

// apspStopAll stops a's launches after the sources they have started, by
// setting each launch's source counter to apspStop on stream s, and
// returns the run's interruption by cause.
func (r *run) apspStopAll(a *apspBatches, launches int, s driver.Stream, cause error) error {
	stop := make([]int32, launches)
	for i := range stop {
		stop[i] = apspStop
	}
	var pin runtime.Pinner
	pin.Pin(&stop[0])
	defer pin.Unpin()
	err := r.dev.ctx.CopyInAsync(a.next.ptr, asBytes(stop), s)
	if err == nil {
		err = r.dev.ctx.SyncStream(s)
	}
	if err != nil {
		return r.fail(err, "stopping the launches")
	}
	return fmt.Errorf("%s: interrupted after %d launches: %w", r.what, r.stats.Launches, cause)
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

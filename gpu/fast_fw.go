package gpu

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/pathnotes/pathnotes/gpu/driver"
	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/ptx"
)

// VariantFWFast is pathnotes' own Floyd-Warshall, built for speed rather
// than to follow a document.
const VariantFWFast = "fw-fast"

// Tile side and padding of fw-fast; the internal infinities of its modes
// (ptx/fwfast.cu explains them).
const (
	ffTile    = 128
	ffInfDist = int32(graph.MaxDistance)
	ffInfPack = 1<<22 - 1
	// ffStage is the most values one staging copy moves (64 MiB).
	ffStage = 16 << 20
)

// ffPhase1Block is the block of ff_phase1, which closes the primary tile.
var ffPhase1Block = Dim(256, 1, 1)

// ffMode is one of fw-fast's kernel sets.
type ffMode struct {
	suffix string // kernel name suffix in ptx/fwfast.cu
	module string // the module of its stages' kernels: ptx.FWFast, or ptx.FWFastGen for MODE_GEN
	inf    int32  // internal infinity
	tight  bool   // distances only in the stages, Π from the tight arcs after (ff_tight)
	narrow bool   // the stages on 16-bit distances (ptx/fw16.cu, ffNarrowFits)
}

// checks is the module of the kernels that end m's runs, ff_finish and
// ff_tight_r* (ptx/ffcheck.cuh): fw16's own copies on the 16-bit path, so
// that it loads no other module, and fwfast's for every other mode.
func (m ffMode) checks() string {
	if m.narrow {
		return ptx.FW16
	}
	return ptx.FWFast
}

var (
	ffDist    = ffMode{suffix: "dist", module: ptx.FWFast, inf: ffInfDist}
	ffPack    = ffMode{suffix: "pack", module: ptx.FWFast, inf: ffInfPack}
	ffGen     = ffMode{suffix: "gen", module: ptx.FWFastGen, inf: graph.Inf}
	ffGenPred = ffMode{suffix: "genpred", module: ptx.FWFastGen, inf: graph.Inf}
	ffTight   = ffMode{suffix: "dist", module: ptx.FWFast, inf: ffInfDist, tight: true}
)

// ffTightPi lets one card in memory compute Π with ff_tight where
// ffTightFits allows (benchmarks and TestFWFastSamePi turn it off: the
// stages' Π is then the one of every other path).
var ffTightPi = true

// ffTightMin: graphs of at most ffTightMin vertices (one 128-wide tile)
// keep the stages' Π, which on one tile is the plain triple loop's, cell
// for cell (the documents' worked examples print it), and costs next to
// nothing. (A variable for the tests, which run ff_tight on smaller
// graphs too.)
var ffTightMin = ffTile

// ffTightDegree: ff_tight runs where the mean out-degree is at most
// ffTightDegree (or the graph has at most 4096 arcs). It checks every arc
// once a row, n·m checks, at about 1.2 to 1.6 T a second on an H200 from
// n = 2048 to 8192 (0.9 T at 1024), where Π in the stages adds a fixed
// share of the n³ steps; the two cost the same at 140 to 250 arcs a
// vertex at those sizes (docs/gpu-benchmarks.md), so denser graphs keep Π
// in the stages.
const ffTightDegree = 128

// ffTightFits says whether fw-fast computes g's predecessors with ff_tight
// after distance-only stages, where a row of distances fits a block's
// shared memory (ffTightRows; f16_tight's 16-bit row, f16TightFits, past
// it): more than ffTightMin vertices, every arc weighs at least 1 (so
// tight arcs cannot close a cycle), every finite distance stays below
// MODE_DIST's internal infinity, and the graph is sparse enough
// (ffTightDegree).
func ffTightFits(g *graph.Graph) bool {
	n := g.N()
	lo, hi := g.WeightRange()
	return ffTightPi && n > ffTightMin && (lo >= 1 || g.M() == 0) &&
		int64(n-1)*int64(hi) < int64(ffInfDist) &&
		(g.M() <= 4096 || int64(g.M()) <= ffTightDegree*int64(n))
}

// fwFastMode picks the kernels for g: without negative arcs, the fast
// paths whose inner loop is one min(c, a + b) per cell, as long as every
// finite distance stays below their internal infinity ((n-1)·max weight is
// the bound that is checked); otherwise the general kernels, which test for
// graph.Inf before each addition and clamp sums of negative cycles.
func fwFastMode(g *graph.Graph, pred bool) ffMode {
	lo, hi := g.WeightRange()
	bound := int64(max(g.N()-1, 0)) * int64(max(hi, 0))
	switch {
	case lo < 0:
	case !pred && bound < int64(ffInfDist):
		return ffDist
	case pred && bound < ffInfPack:
		return ffPack
	}
	if pred {
		return ffGenPred
	}
	return ffGen
}

// FWFast runs variant "fw-fast", pathnotes' own Floyd-Warshall (see
// ptx/fwfast.cu): blocked with 128×128 tiles on a matrix padded to a
// multiple of 128, the primary row and column computed as one min-plus
// product with the closed primary tile, and all other tiles as a
// register-tiled min-plus product (8×8 cells per thread), whose inner
// statement Hopper GPUs run as one VIADDMNMX instruction; up to
// ffQuarterMax block rows (n ≤ 4096) a block takes a 64×64 quarter of a
// tile instead, which keeps more SMs busy, and up to ffSmallMax vertices
// (ffSmallPredMax with predecessors) one launch of ff_small runs every
// stage with 64×64 tiles, its blocks meeting at a grid barrier between
// the phases.
// Graphs without negative arcs take the fast kernels: distances only, or
// predecessors packed into the low byte of each value while distances stay
// below 2^22; other graphs (negative arcs, larger distances with
// predecessors) take general kernels that test for infinity and track
// predecessors explicitly, at about half the speed. With predecessors on
// a sparse graph whose arcs all weigh at least 1 (ffTightFits), one card
// runs the distance-only kernels and then ff_tight, which takes each vertex's
// predecessor from the arcs that end a shortest path (n·m checks instead
// of Π through every stage); past the n whose row of distances fits its
// shared memory, f16_tight does the same from the 16-bit stages' matrix.
// A negative cycle is reported as a *graph.NegativeCycleError. Device
// memory: the padded matrix (two with predecessors) and the graph's arcs,
// which the device turns into the matrix itself. Host memory: the result,
// allocated (not zeroed) and touched while the kernels run, and filled
// by 2D copies from the padded matrix through the page-locked staging
// buffers (pieces that the cores copy out as they come, up to 128 MiB of
// results; above, 64 MiB at a time). Up to the copy back, the run queues
// its work and waits for the device once (ffOneWait).
//
// With several devices in opts.Devices, each card holds a stripe of block
// rows (and needs only its share of the memory, plus the primary row of
// each stage, which the card that owns it copies to the others), builds it
// from the arcs, and copies its rows into the result, every card at once.
func FWFast(ctx context.Context, g *graph.Graph, opts Options) (*graph.AllPairs, error) {
	if len(opts.Devices) > 1 {
		return fwFastMulti(ctx, g, opts)
	}
	r, err := start(ctx, g, VariantFWFast, true, opts)
	if err != nil {
		return nil, err
	}
	defer r.end()
	n := g.N()
	mode := fwFastMode(g, opts.Pred)
	matrices := opts.matrices()
	ld := ceilDiv(n, ffTile) * ffTile
	// Π from the tight arcs where ff_tight holds a row of distances, or
	// where f16_tight holds one of the 16-bit stages' (the stages must then
	// be the 16-bit ones, else Π goes back into the stages below).
	limit := r.sharedLimit()
	wideRows := ffTightRows(n, limit)
	tight := opts.Pred && ffTightFits(g) && (wideRows > 0 || f16TightFits(n, limit) && r.ffNarrowFits(g, ffTight))
	need := uint64(ld)*uint64(ld)*4*uint64(matrices) + csrBytes(g) + 16
	if tight {
		need += uint64(g.M()) * 4 // the arcs' sources (ff_tight)
	}
	what := fmt.Sprintf("n=%d (padded to %d; %d int32 matrices and the arcs)", n, ld, matrices)
	// The decision to stream counts a staging buffer (min(n², 16 Mi)
	// values) that neither path needs now, so that a cap streams exactly
	// where it did when both did.
	// One reading of the free memory serves both decisions.
	stage := uint64(min(n*n, ffStage)) * 4
	free, total, err := r.memFreeFor(need + stage)
	if err != nil {
		return nil, r.fail(err, "reading free device memory")
	}
	budget := capped(free, opts.DeviceMemory)
	if need+stage > budget && n > 0 {
		return fwFastStreamed(&group{runs: []*run{r}, direct: [][]bool{{false}}}, g, opts, mode, budget)
	}
	if err := r.fits(need, what, free, total); err != nil {
		return nil, fmt.Errorf("%w; n up to %d would fit", err, fwFastMaxN(free, matrices))
	}
	res, err := newAllPairs(g, VariantFWFast, opts.Pred)
	if err != nil || n == 0 {
		return res, err
	}
	if tight {
		mode = ffTight
	}
	// The 16-bit stages take a matrix of their own (half the size), where it
	// fits beside the rest.
	mode.narrow = r.ffNarrowFits(g, mode) && need+stage+uint64(ld)*uint64(ld)*2 <= budget
	if mode.tight && !mode.narrow && wideRows == 0 {
		mode = fwFastMode(g, true) // no 16-bit matrix beside the rest: Π in the stages
	}
	host := r.newHostResult(matrices, n, n, true, true)
	defer host.release()
	// Every path writes the whole of d and p before reading them (ff_init,
	// f16_widen, a fill of NIL), so no poison goes into them first.
	d, err := r.allocRaw(ld * ld)
	if err != nil {
		return nil, err
	}
	p := buffer{}
	if opts.Pred {
		if p, err = r.allocRaw(ld * ld); err != nil {
			return nil, err
		}
	}
	r.mark("start")
	arcs, flags, err := r.uploadArcs(g, ffFlagsStart[:])
	r.hostMark("uploaded")
	if err != nil {
		return nil, err
	}
	r.mark("arcs")
	if mode.tight {
		if arcs.src, err = r.alloc(max(g.M(), 1)); err != nil {
			return nil, err
		}
	}
	small, h := ffSmall(n, opts.Pred && !mode.tight), buffer{}
	if mode.narrow {
		// The 16-bit matrix, built from the arcs in place of the 32-bit
		// one, which f16_widen fills.
		small = ffNarrowOne(n)
		if h, err = r.allocRaw(ld * ld / 2); err == nil {
			r.hostMark("h")
			err = r.ffNarrowFill(g, arcs, ld, h, p, small)
		}
	} else {
		err = r.ffFill(g, arcs, ld, 0, ld/ffTile, d.arg(), p.arg(), mode)
	}
	if err != nil {
		return nil, err
	}
	r.mark("fill")
	done, err := r.ffRun(g, arcs, ld, mode, opts.Pred, small, d, p, h, host, flags)
	if err == nil && !done {
		// ff_small's grid was not all on the card at once (or could not
		// be), or a 16-bit result failed its check: start again on the
		// 32-bit stages, three launches a stage.
		mode.narrow = false
		if mode.tight && wideRows == 0 {
			mode = fwFastMode(g, true) // f16_tight's distances failed: Π in the stages
		}
		if err = r.ffFill(g, arcs, ld, 0, ld/ffTile, d.arg(), p.arg(), mode); err == nil {
			_, err = r.ffRun(g, arcs, ld, mode, opts.Pred, false, d, p, buffer{}, host, buffer{})
		}
	}
	if err != nil {
		return nil, err
	}
	mats := host.wait()
	res.Dist = mats[0]
	if opts.Pred {
		res.Pred = mats[1]
	}
	if err := host.release(); err != nil {
		return nil, r.fail(err, "copying the result from the device")
	}
	host.keepLater()
	r.ffRepair(g, res)
	return res, nil
}

// ffStages queues fw-fast's stages on the padded matrix of side ld, three
// launches a stage: phase 1 (ff_phase1 closes tile (s, s)), the panels
// (block row and column s, each tile a product with the closed one) and
// the rest (every other tile (i, j), a product of tiles (i, s) and (s, j)).
func (r *run) ffStages(n, ld int, mode ffMode, pred bool, d, p buffer) error {
	nb := ld / ffTile
	quarter := nb <= ffQuarterMax
	for s := range nb {
		args := []uint64{i32(ld), i32(s), d.arg(), p.arg()}
		if err := r.launch(mode.module, "ff_phase1_"+mode.suffix, Dim(1, 1, 1), ffPhase1Block, 0, args...); err != nil {
			return err
		}
		if nb == 1 {
			r.report(min((s+1)*ffTile, n), n)
			continue
		}
		// The panels: quarters without predecessors (ff_qpanels' race
		// is harmless for distances); with them halves (ff_hpanels), which
		// read nothing another block writes, so that Π is the one every
		// path of fw-fast returns.
		panels, grid := "ff_panels_", Dim(nb, 2, 1)
		switch {
		case quarter && !pred:
			panels, grid = "ff_qpanels_", Dim(nb, 2, 4)
		case quarter:
			panels, grid = "ff_hpanels_", Dim(nb, 2, 2)
		}
		if err := r.launch(mode.module, panels+mode.suffix, grid, Dim(256, 1, 1), 0, args...); err != nil {
			return err
		}
		rest, grid := "ff_rest_", Dim(nb, nb, 1)
		if quarter {
			rest, grid = "ff_qrest_", Dim(2*nb, 2*nb, 1)
		}
		if err := r.launch(mode.module, rest+mode.suffix, grid, Dim(256, 1, 1), 0, args...); err != nil {
			return err
		}
		r.report(min((s+1)*ffTile, n), n)
	}
	return nil
}

// ffOneWait makes ffRun queue the kernels, ff_finish, the read of their
// flags into page-locked memory and the copy back of the result at once,
// and wait for the device once, at the copy back. Off, it waits after the
// kernels (their timing events), for ff_small's barrier flag and for
// ff_finish's flags before the copy back: three round trips between host
// and device, in which the device has nothing queued. Benchmarks compare.
var ffOneWait = true

// ffRun runs fw-fast on the built padded matrices d and p of side ld:
// ff_small when small (in one launch, 64-wide tiles, the stages separated
// by a grid barrier, timed as the kernels), the stages on the built
// 16-bit matrix h when mode.narrow (ffNarrowStages, which fill d;
// f16_small when small), else the 128-wide stages;
// then ff_finish checks them, and the result is copied into host's
// matrices.
// ff_small's grid is as many blocks as the card runs at once (ffSmallPerSM
// a multiprocessor, fewer if the kernel's occupancy allows fewer; one a
// worker on the emulator, which runs each block to its end on a worker of
// its own), and no more than the tiles of a stage. ffRun returns false
// when ff_small could not run or a block waited for the others in vain
// (the grid was not all on the card at once, say beside another
// context's kernels), and when a 16-bit result fails its check: the
// matrices are then not the result, nor are host's, and the caller builds
// them again and runs the 32-bit stages.
func (r *run) ffRun(g *graph.Graph, arcs csr, ld int, mode ffMode, pred, small bool, d, p, h buffer, host *hostResult, flags buffer) (bool, error) {
	n := g.N()
	sp := p // the stages' predecessors
	if mode.tight {
		sp = buffer{}
	}
	stages := func() error { return r.ffStages(n, ld, mode, pred && !mode.tight, d, sp) }
	// inf is the infinity of the stages' result: the 16-bit path's
	// f16_widen writes graph.Inf, and every distance it writes is one
	// that ff_finish would pass, so that without Π no ff_finish runs
	// (finish), and with Π only the one that checks Π.
	inf, finish := mode.inf, true
	if mode.narrow {
		inf, finish = graph.Inf, pred
	}
	// flags (ffFlagsStart): given, they hold their starting values;
	// otherwise they are allocated and set here.
	var err error
	if flags.n == 0 {
		if flags, err = r.allocRaw(nflags); err != nil {
			return false, err
		}
		if finish {
			if err := r.fill(buffer{flags.ptr, 3}, graph.Inf); err != nil {
				return false, err
			}
		}
		if small || mode.narrow {
			if err := r.fill(buffer{flags.ptr + 3*4, 4}, 0); err != nil {
				return false, err
			}
		}
	}
	fin, bar, wide := buffer{flags.ptr, 3}, buffer{flags.ptr + 3*4, 3}, buffer{flags.ptr + 6*4, 1}
	r.hostMark("flags")
	blocks := 0 // ff_small's (f16_small's) grid
	if small {
		mod, name := mode.module, "ff_small_"+mode.suffix
		if mode.narrow {
			mod, name = ptx.FW16, "f16_small"
		}
		if blocks, err = r.ffSmallGrid(mod, n, name); err != nil || blocks == 0 {
			return false, err
		}
		r.hostMark("grid")
		stages = func() error {
			return r.launch(mod, name, Dim(blocks, 1, 1), Dim(256, 1, 1), 0,
				i32(n), i32(ld), d.arg(), sp.arg(), bar.arg())
		}
	}
	if mode.narrow {
		stages = func() error { return r.ffNarrowStages(n, ld, arcs, d, h, wide, blocks, bar) }
	}
	var f [nflags]int32
	var hf []int32
	if ffOneWait {
		hf, _ = r.dev.hostFlags() // without it, the run waits as before
	}
	r.hostMark("queue")
	// With one wait and ffTightOverlap, the distances go back on the copy
	// stream (dstream) while ff_tight computes Π from them.
	dstream := driver.Stream(0)
	if mode.tight && hf != nil && ffTightOverlap {
		if dstream, err = r.dev.copyStream(); err != nil {
			return false, r.fail(err, "creating a stream")
		}
	}
	compute := stages
	if mode.tight && dstream == 0 {
		compute = func() error {
			if err := stages(); err != nil {
				return err
			}
			return r.ffTightPred(n, ld, mode, inf, arcs, g.M(), d, p, h)
		}
	}
	if hf == nil {
		if err := r.kernels(compute); err != nil {
			return false, err
		}
		if mode.narrow {
			if err := r.readInts(f[6:], wide); err != nil || f[6] != 0 {
				return false, err
			}
		}
		if small {
			r.report(n, n)
			if err := r.readInts(f[3:], bar); err != nil {
				return false, err
			}
			if f[4] != 0 {
				return false, nil
			}
		}
		f[0], f[1], f[2] = graph.Inf, graph.Inf, graph.Inf
		if finish {
			check := mode
			check.inf = inf
			if err := r.ffCheck(n, ld, 0, n, check, d, p, fin, 0); err != nil {
				return false, err
			}
			if err := r.readInts(f[:3], fin); err != nil {
				return false, err
			}
		}
		if err := r.ffVerdict(g, [3]int32(f[:3]), n, mode, r.ffRow(n, ld, d, p)); err != nil {
			return false, err
		}
		return true, r.ffFetch(host, n, ld, d, p, 0)
	}
	if err := r.kernelsQueued(compute); err != nil {
		return false, err
	}
	r.mark("stages")
	if small {
		r.report(n, n)
	}
	check := mode
	check.inf = inf
	if dstream != 0 {
		// ff_finish turns the kernels' infinity into graph.Inf and checks
		// the distances (f16_widen's are final already), which are then
		// final: they go back on dstream, ff_tight computes Π from them
		// meanwhile (graph.Inf its infinity), and a second ff_finish
		// checks Π (and the distances again, unchanged).
		if !mode.narrow {
			if err := r.ffCheck(n, ld, 0, n, mode, d, buffer{}, fin, 0); err != nil {
				return false, err
			}
		}
		e, err := r.event()
		if err != nil {
			return false, err
		}
		if err := r.signal(e, 0, dstream); err != nil {
			return false, err
		}
		if err := r.kernelsQueued(func() error { return r.ffTightPred(n, ld, mode, graph.Inf, arcs, g.M(), d, p, h) }); err != nil {
			return false, err
		}
		check.inf = graph.Inf
	}
	if finish {
		if err := r.ffCheck(n, ld, 0, n, check, d, p, fin, 0); err != nil {
			return false, err
		}
	}
	r.mark("finish")
	if err := r.dev.ctx.CopyOutAsync(asBytes(hf[:nflags]), flags.ptr, 0); err != nil {
		return false, r.fail(err, "reading the flags back (after kernel %s)", r.last)
	}
	// The copy back waits for the kernels and the flags, queued before it
	// (the distances, on dstream, for the stages only).
	if err := r.ffFetch(host, n, ld, d, p, dstream); err != nil {
		return false, err
	}
	r.mark("fetched")
	copy(f[:], hf[:nflags])
	if !finish {
		f[0], f[1], f[2] = graph.Inf, graph.Inf, graph.Inf
	}
	if small && f[4] != 0 || mode.narrow && f[6] != 0 {
		return false, nil
	}
	return true, r.ffVerdict(g, [3]int32(f[:3]), n, mode, r.ffRow(n, ld, d, p))
}

// ffTightPred queues ff_tight on the n rows of the finished distances d,
// whose infinity is inf, which writes their predecessors into p (NIL
// there before): ffTightRows rows a block, and the arcs split by
// ffTightSplit. Where not even one row fits, a run of the 16-bit stages
// (mode.narrow, h their matrix) takes Π with f16_tight from h, one row a
// block (f16TightFits).
func (r *run) ffTightPred(n, ld int, mode ffMode, inf int32, arcs csr, m int, d, p, h buffer) error {
	limit := r.sharedLimit()
	rows := ffTightRows(n, limit)
	if rows == 0 && mode.narrow && h.n > 0 && f16TightFits(n, limit) {
		shared := f16TightBytes(n)
		by := r.ffTightSplit(ptx.FW16, "f16_tight", n, m, f16TightThreads, shared)
		return r.launch(ptx.FW16, "f16_tight", Dim(n, by, 1), Dim(f16TightThreads, 1, 1), shared,
			i32(n), i32(m), i32(ld/2), i32(ld), h.arg(), p.arg(), arcs.src.arg(), arcs.tgt.arg(), arcs.w.arg())
	}
	if rows == 0 {
		return fmt.Errorf("%s: ff_tight: a row of %d distances does not fit a block's shared memory (%d bytes)", r.what, n, limit)
	}
	bx, name, threads := ceilDiv(n, rows), fmt.Sprintf("ff_tight_r%d", rows), 512
	if rows == 1 {
		threads = ffTightOneThreads
	}
	by := r.ffTightSplit(mode.checks(), name, bx, m, threads, rows*n*4)
	return r.launch(mode.checks(), name, Dim(bx, by, 1), Dim(threads, 1, 1), rows*n*4,
		i32(n), i32(m), i32(ld), i32(0), i32(n), uint64(uint32(inf)), d.arg(), p.arg(),
		arcs.src.arg(), arcs.tgt.arg(), arcs.w.arg())
}

// ffTightOneThreads is the block of ff_tight_r1, which holds one row a
// block past n = 8192: 1024 threads, its launch bound, since from
// n = 32768 on a row leaves room for one block a multiprocessor (on an
// H200, 7 % less kernel time with Π at 32768 than 512 threads, level at
// 16384; the benchmarks' "tight-512" cases time 512).
var ffTightOneThreads = 1024

// f16TightThreads is the block of f16_tight (ptx/fw16.cu), whose row of
// distances leaves room for one block a multiprocessor.
const f16TightThreads = 1024

// f16TightFits says whether f16_tight can take Π on n vertices: a row of
// n 16-bit distances fits limit bytes of shared memory (up to n = 116224
// on an H100 or H200).
func f16TightFits(n, limit int) bool {
	return f16TightBytes(n) <= limit
}

// f16TightBytes is the shared memory of a block of f16_tight: a row of n
// 16-bit distances, in whole words.
func f16TightBytes(n int) int {
	return ceilDiv(n, 2) * 4
}

// ffTightSplit is how many parts ff_tight (kernel name of module mod, bx
// blocks of rows, of threads threads and shared bytes each) cuts the m
// arcs into, each part a block of each row block: the count, of at most
// m / ffTightArcs, whose blocks take the fewest waves of the blocks the
// card runs at once for the arcs each checks (waves ÷ parts), the fewest
// parts among equals. At n = 1024 on an H200 (three blocks a
// multiprocessor) that is 6 parts, one wave of 384 blocks, where a guess
// of four blocks a multiprocessor took 9, 576 blocks in two waves.
// Without an occupancy, that guess.
func (r *run) ffTightSplit(mod, name string, bx, m, threads, shared int) int {
	most := max(m/ffTightArcs, 1)
	per, err := r.occupancy(mod, name, threads, shared)
	resident := per * r.dev.info.SMs
	if err != nil || resident <= 0 {
		return min(ceilDiv(4*max(r.dev.info.SMs, 1), bx), most)
	}
	return fewestWaves(bx, most, resident)
}

// fewestWaves is the count of parts, 1 to most, that takes the least time
// for bx blocks a part on a card that runs resident blocks at once, when
// a block's time is its part's share of the work: waves ÷ parts, the
// fewest parts among equals. Where the bx blocks alone fill the card it is
// one part: every further part reads its rows of the matrix again, which
// at n = 4096 (three parts in 2.67 waves' time against one part in three)
// made ff_tight slower on an H200, not faster.
func fewestWaves(bx, most, resident int) int {
	if bx >= resident {
		return 1
	}
	best, cost := 1, 0.0
	for by := 1; by <= min(most, 4*ceilDiv(resident, bx)); by++ {
		if c := float64(ceilDiv(bx*by, resident)) / float64(by); by == 1 || c < cost-1e-9 {
			best, cost = by, c
		}
	}
	return best
}

// ffFetchBoth makes ffFetch bring the distances and Π back in one pipe
// where they come back on two streams (a variable, so that benchmarks
// time both ways).
var ffFetchBoth = true

// ffTightOverlap makes a run whose Π comes from ff_tight copy the
// distances back on the device's copy stream while ff_tight runs, instead
// of after it (with ffOneWait only). A variable, so that benchmarks time
// both ways.
var ffTightOverlap = true

// ffTightLaunches is how many launches ff_tight adds to a run: itself,
// and where the distances go back beside it (ffTightOverlap with
// ffOneWait, and the device's page-locked flag memory made) an ff_finish
// of the distances before it.
func ffTightLaunches() int {
	if ffOneWait && ffTightOverlap {
		return 2
	}
	return 1
}

// ffTightShared is the most shared memory ff_tight takes a block (bytes):
// 64 KiB leaves room for three blocks of 512 threads a multiprocessor on
// an H100 or H200. (A variable for the tests, which give it less to run
// each row count.)
var ffTightShared = 64 << 10

// ffTightRows is how many rows of n distances a block of ff_tight holds in
// shared memory: the most, a power of two up to 16, that fit ffTightShared
// bytes, or one row where even one does not, as long as it fits the
// device's limit of limit bytes a block; 0 where it does not (past
// n = 58112 on an H100 or H200, whose limit is 227 KiB), and f16_tight
// computes Π on the 16-bit path (f16TightFits), else the stages do. Past
// n = 8192 a block holds one row and reads every arc for it, n·m·12 bytes
// in all from L2, which still costs far less than Π in the stages beside
// the 16-bit distance-only ones (docs/gpu-benchmarks.md).
func ffTightRows(n, limit int) int {
	rows := 16
	for rows > 1 && rows*n*4 > min(ffTightShared, limit) {
		rows /= 2
	}
	if rows*n*4 > limit {
		return 0
	}
	return rows
}

// sharedLimit is the most dynamic shared memory a block of r's device may
// take (bytes), opting in past 48 KiB, or ffSharedCap where that is less.
func (r *run) sharedLimit() int {
	limit := max(r.dev.info.SharedPerBlock, r.dev.info.SharedPerBlockOptin)
	if ffSharedCap > 0 {
		limit = min(limit, ffSharedCap)
	}
	return limit
}

// ffSharedCap, when positive, caps the shared memory fw-fast's Π kernels
// may take a block (bytes): the tests give them less, to run on small
// graphs the paths that large graphs take (f16_tight, Π in the stages).
var ffSharedCap = 0

// ffTightArcs is the fewest arcs a block of ff_tight checks.
const ffTightArcs = 4096

// ffFetch copies the n×n result from the padded matrices d (and p, when
// it is not empty) of side ld into host's matrices: d on stream ds, p on
// the default stream; on two streams (ds set) in one pipe through the two
// staging buffers (fetchBoth, with ffFetchBoth), else one after the
// other (they may share the staging buffers).
func (r *run) ffFetch(host *hostResult, n, ld int, d, p buffer, ds driver.Stream) error {
	if ds != 0 && p.n > 0 && ffFetchBoth {
		if piped, err := r.fetchBoth(host, d.ptr, p.ptr, ld, n, ds); piped || err != nil {
			return err
		}
	}
	if err := r.fetch(host, 0, d.ptr, ld, 0, n, ds); err != nil {
		return err
	}
	if p.n == 0 {
		return nil
	}
	return r.fetch(host, 1, p.ptr, ld, 0, n, 0)
}

// nflags is how many flags ffRun's kernels use: ff_finish's three, then
// ff_small's barrier counter and abort flag, f16_small's count of
// look-ahead panels, and f16_widen's check. ffFlagsStart holds their
// starting values, which fw-fast uploads after the arcs (uploadArcs).
const nflags = 7

var ffFlagsStart = [nflags]int32{graph.Inf, graph.Inf, graph.Inf, 0, 0, 0, 0}

// ffSmallGrid is ff_small's grid (kernel name of module mod: ff_small_*
// or f16_small) for n vertices, 0 when the card runs none of its blocks at
// once (ffRun).
func (r *run) ffSmallGrid(mod string, n int, name string) (int, error) {
	per, err := r.occupancy(mod, name, 256, 0)
	if err != nil {
		return 0, err
	}
	if r.dev.drv.Name() == "emu" {
		per = 1
	}
	per = min(per, ffSmallPerSM)
	if per < 1 {
		return 0, nil
	}
	if ffSmallBlocks > 0 {
		return ffSmallBlocks, nil
	}
	tiles := ceilDiv(n, 64)
	return max(min(per*r.dev.info.SMs, tiles*tiles), 1), nil
}

// ffSmallMax is the largest n that fw-fast runs with ff_small, in one
// launch, and ffSmallPredMax the same with predecessors. On an H200 (one
// of a four-H200 host, BenchmarkFWFastCall, medians of 10 calls, build
// 2d92d00, ff_small with its two-barrier stage) ff_small took 0.2795 ms at
// n = 1024 and 1.122 ms at 2048 against 1.202 for the quarter-tile stages,
// but 8.23 against 6.25 ms at 4096; with Π 0.484 against 0.892 ms at 1024,
// 1.541 against 2.256 at 2048 and 11.37 against 8.96 at 4096. ff_small's Π,
// valid, breaks some ties otherwise than the 128-wide stages, so up to
// ffSmallPredMax one card in memory may return another valid Π than
// several cards or the streamed path (TestFWFastSamePi compares those with
// the stages). ffSmallBlocks, when above 0, is ff_small's grid (tests: a
// grid too large to be all on the device at once).
var (
	ffSmallMax     = 2048
	ffSmallPredMax = 2048
	ffSmallBlocks  = 0
)

// ffSmall says whether fw-fast runs n vertices with ff_small.
func ffSmall(n int, pred bool) bool {
	if pred {
		return n <= ffSmallPredMax
	}
	return n <= ffSmallMax
}

// ffSmallPerSM caps ff_small's blocks a multiprocessor (below its
// occupancy: fewer blocks meet at each grid barrier).
const ffSmallPerSM = 2

// ffQuarterMax is the most block rows (of 128) for which fw-fast runs its
// quarter-tile kernels (ff_qpanels, ff_qrest): below it the card has more
// SMs than 128-wide tiles.
var ffQuarterMax = 32

// ffRepair rebuilds the predecessor rows that loop round a zero-weight
// cycle (graph.AllPairs.RepairPredecessors): only a graph with an arc of
// weight 0 or less has such cycles, so other graphs skip the O(n²) check.
func (r *run) ffRepair(g *graph.Graph, res *graph.AllPairs) {
	if lo, _ := g.WeightRange(); res.Pred != nil && lo <= 0 {
		res.RepairPredecessors(g)
	}
}

// ffBuild writes block rows y0 .. y0+h-1 of the padded matrix of side ld
// (d, and p when not 0: kernel arguments that address it as the whole
// matrix) from g's arcs, uploaded as CSR: the internal infinity of mode, 0
// on the diagonal, the lightest arc of each pair of vertices, and Π⁰ (ff_init,
// ff_arcs). Only the arcs, not n² cells, cross the bus.
func (r *run) ffBuild(g *graph.Graph, ld, y0, h int, d, p uint64, mode ffMode) error {
	c, err := r.uploadCSR(g)
	if err != nil {
		return err
	}
	return r.ffFill(g, c, ld, y0, h, d, p, mode)
}

// ffFill is ffBuild with g's arcs on the device already, as c.
func (r *run) ffFill(g *graph.Graph, c csr, ld, y0, h int, d, p uint64, mode ffMode) error {
	n := g.N()
	rows := h * ffTile
	if err := r.launch(ptx.FWFast, "ff_init", Dim(ceilDiv(ld, 512), min(rows, 65535), 1), Dim(128, 1, 1), 0,
		i32(n), i32(ld), i32(y0*ffTile), i32(rows), uint64(uint32(mode.inf)), d, p); err != nil {
		return err
	}
	lo, hi := min(y0*ffTile, n), min((y0+h)*ffTile, n)
	if hi <= lo {
		return nil
	}
	if mode.tight {
		p = 0 // Π⁰ is not needed: ff_tight starts from NIL
	}
	return r.launch(ptx.FWFast, "ff_arcs", Dim(ceilDiv(hi-lo, 8), 1, 1), Dim(256, 1, 1), 0,
		i32(ld), i32(lo), i32(hi), c.off.arg(), c.tgt.arg(), c.w.arg(), d, p, c.src.arg())
}

// ffRow returns the reader of one row of the padded matrices d (m = 0)
// and p (m = 1) of side ld that ffVerdict takes.
func (r *run) ffRow(n, ld int, d, p buffer) func(m, i int) ([]int32, error) {
	return func(m, i int) ([]int32, error) {
		row := make([]int32, n)
		src := d
		if m == 1 {
			src = p
		}
		err := r.readInts(row, buffer{src.ptr + DevicePtr(i)*DevicePtr(ld)*4, n})
		return row, err
	}
}

// ffCheck queues ff_finish on rows lo..hi-1 of d and p (addressed as the
// whole matrix of side ld) on stream s, with its three flags in flags
// (set to graph.Inf before).
func (r *run) ffCheck(n, ld, lo, hi int, mode ffMode, d, p, flags buffer, s driver.Stream) error {
	return r.launchOn(s, mode.checks(), "ff_finish", Dim(min(ceilDiv(n, 256), 64), min(hi-lo, 65535), 1), Dim(256, 1, 1), 0,
		i32(n), i32(ld), i32(lo), i32(hi), uint64(uint32(mode.inf)), d.arg(), p.arg(), flags.arg())
}

// ffVerdict turns ff_finish's flags into the run's error: the negative
// cycle, or the first bad value of the flagged row, which row(m, i) reads
// (m = 0 distances, 1 predecessors).
func (r *run) ffVerdict(g *graph.Graph, f [3]int32, n int, mode ffMode, row func(m, i int) ([]int32, error)) error {
	bad := func(m int, what string, i int32, isBad func(int32) bool) error {
		vals, err := row(m, int(i))
		if err != nil {
			return err
		}
		return r.ffBadRow(vals, what, int(i), isBad)
	}
	switch {
	case f[1] != graph.Inf:
		return negativeCycle(r.ctx, g, nil, int(f[1]))
	case f[0] != graph.Inf:
		return bad(0, "dist", f[0], func(v int32) bool { return ffBadDist(v, mode.inf) })
	case f[2] != graph.Inf:
		return bad(1, "pred", f[2], func(v int32) bool { return v < graph.Nil || v >= int32(n) })
	}
	return nil
}

// ffBadDist is ff_finish's test of a distance (after its conversion of the
// internal infinity inf).
func ffBadDist(v, inf int32) bool {
	if inf != graph.Inf {
		return v > inf || v < -graph.MaxDistance
	}
	return v != graph.Inf && (v > graph.MaxDistance || v < -graph.MaxDistance)
}

// ffBadRow reports the first value of row i that bad says no result may
// hold.
func (r *run) ffBadRow(row []int32, what string, i int, bad func(int32) bool) error {
	for j, v := range row {
		if !bad(v) {
			continue
		}
		if uint32(v) == poison {
			return fmt.Errorf("%s: internal error: %s[%d][%d] was never written by the kernels (it still holds the poison value %#x)", r.what, what, i, j, poison)
		}
		return fmt.Errorf("%s: internal error: %s[%d][%d] = %d is a value no result may hold", r.what, what, i, j, v)
	}
	return fmt.Errorf("%s: internal error: ff_finish flagged row %d of %s, which holds no bad value", r.what, i, what)
}

// newAllPairs checks that the host can hold g's all-pairs result (one n×n
// matrix, two with pred) and returns it without its matrices, which the
// caller fills: empty slices, as a graph of no vertices has them.
func newAllPairs(g *graph.Graph, name string, pred bool) (*graph.AllPairs, error) {
	matrices := 1
	if pred {
		matrices = 2
	}
	if err := graph.CheckMatrixSize(g.N(), matrices); err != nil {
		return nil, fmt.Errorf("%s: host memory: %w", name, err)
	}
	res := &graph.AllPairs{N: g.N(), Dist: []int32{}, Labels: slices.Clone(g.Labels()), Solver: name}
	if pred {
		res.Pred = []int32{}
	}
	return res, nil
}

// ffResult checks that the host holds the result's matrices and makes the
// result, rows on every core: the dense weight matrix as distances
// (graph.Dense), and Π⁰ when asked for (initialPred). The runs that keep
// their matrices in host memory solve it in place.
func ffResult(g *graph.Graph, pred bool, matrices int) (*graph.AllPairs, error) {
	n := g.N()
	if err := graph.CheckMatrixSize(n, matrices); err != nil {
		return nil, fmt.Errorf("%s: host memory: %w", VariantFWFast, err)
	}
	// Not zeroed: the loop below writes every cell.
	res := &graph.AllPairs{N: n, Dist: uninitInt32s(n * n), Labels: slices.Clone(g.Labels()), Solver: VariantFWFast}
	if pred {
		res.Pred = uninitInt32s(n * n)
	}
	workers := min(runtime.GOMAXPROCS(0), max(n/64, 1))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w * n / workers; i < (w+1)*n/workers; i++ {
				row := res.Dist[i*n : (i+1)*n]
				for j := range row {
					row[j] = graph.Inf
				}
				row[i] = 0
				ts, ws := g.Out(i)
				for k, t := range ts {
					row[t] = min(row[t], ws[k])
				}
				if pred {
					prow := res.Pred[i*n : (i+1)*n]
					for j, v := range row {
						prow[j] = graph.Nil
						if j != i && v != graph.Inf {
							prow[j] = int32(i)
						}
					}
				}
			}
		})
	}
	wg.Wait()
	return res, nil
}

// fwFastMaxN is the largest vertex count whose padded matrices fit in free
// bytes of device memory.
func fwFastMaxN(free uint64, matrices int) int {
	side := int(math.Sqrt(float64(free-min(free, ffStage*4)) / 4 / float64(matrices)))
	return side / ffTile * ffTile
}

package gpu

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"weak"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/gpu/driver"
	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/ptx"
)

// TestFWFastModes runs fw-fast on the emulator in each of its kernel modes
// (picked by the weights: small non-negative, large non-negative, negative)
// with and without predecessors, on sizes around its 128-wide tile, and
// compares with the CPU; predecessors are checked by rebuilding every path.
func TestFWFastModes(t *testing.T) {
	sizes := []int{1, 2, 127, 128, 129, 300}
	if testing.Short() {
		sizes = []int{1, 129}
	}
	fwFastModes(t, emulator(t), sizes)
}

// fwFastModes is TestFWFastModes on dev for the given sizes.
func fwFastModes(t *testing.T, dev *Device, sizes []int) {
	v, err := Lookup(VariantFWFast)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range sizes {
		for _, w := range []struct {
			name    string
			weights graph.WeightRange
			want    [2]string // mode without, with predecessors
		}{
			{"small", graph.WeightRange{Min: 0, Max: 100}, [2]string{"dist", "pack"}},
			{"large", graph.WeightRange{Min: 1, Max: 200000}, [2]string{"dist", "genpred"}},
		} {
			g, err := graph.GNM(n, min(3*n, n*(n-1)), w.weights, uint64(n))
			if err != nil {
				t.Fatal(err)
			}
			if n < 3 {
				w.want[1] = "pack" // (n-1)·max weight is small
			}
			ref, err := cpu.FloydWarshallBlocked(context.Background(), g, cpu.FWOptions{})
			if err != nil {
				t.Fatal(err)
			}
			tg := testGraph{name: fmt.Sprintf("%s n=%d", w.name, n), g: g, all: ref}
			for i, pred := range []bool{false, true} {
				if got := fwFastMode(g, pred).suffix; got != w.want[i] {
					t.Errorf("%s pred=%v: mode %s, want %s", tg.name, pred, got, w.want[i])
				}
				checkVariant(t, dev, v, tg, pred)
			}
		}
		for _, tg := range randomGraphs(t, n, uint64(7*n)) {
			checkVariant(t, dev, v, tg, true)
			checkVariant(t, dev, v, tg, false)
		}
	}
}

// TestFWFastEdges covers the empty graph, zero-weight cycles (predecessors
// must not loop) and a negative cycle.
func TestFWFastEdges(t *testing.T) {
	dev := emulator(t)
	ctx := context.Background()
	empty, err := graph.FromArcs(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := FWFast(ctx, empty, Options{Device: dev, Pred: true})
	if err != nil || res.N != 0 {
		t.Fatalf("n=0: %v, %v", res, err)
	}
	zero := mustGraph(t, 140, "0->1 0, 1->2 0, 2->0 0, 2->139 5, 139->130 0, 130->2 0")
	res, err = FWFast(ctx, zero, Options{Device: dev, Pred: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Verify(zero); err != nil {
		t.Errorf("zero-weight cycles: %v", err)
	}
	if d := res.Dist[1*140+130]; d != 5 {
		t.Errorf("dist[1][130] = %d, want 5", d)
	}
	cyc := mustGraph(t, 200, "0->1 3, 1->150 -4, 150->3 1, 3->1 1, 3->4 2")
	for _, pred := range []bool{false, true} {
		_, err = FWFast(ctx, cyc, Options{Device: dev, Pred: pred})
		var nc *graph.NegativeCycleError
		if !errors.As(err, &nc) {
			t.Fatalf("negative cycle (pred %v): got %v", pred, err)
		}
		if len(nc.Cycle) != 3 || nc.Weight != -2 {
			t.Errorf("negative cycle (pred %v): %v", pred, nc)
		}
	}
}

// TestFWFastTooLarge checks the error when the padded matrices do not fit
// in device memory (the emulator has 4 GiB): it names the need and the
// largest n that would fit.
func TestFWFastTooLarge(t *testing.T) {
	g, err := graph.FromArcs(40000, []graph.Arc{{From: 0, To: 1, Weight: 1}})
	if err != nil {
		t.Fatal(err)
	}
	// 60 MiB hold neither the matrices nor two bands of them (streamed:
	// 2 × 128 rows × 40064 columns × 8 bytes, 82 MB).
	_, ferr := FWFast(context.Background(), g, Options{Device: emulator(t), Pred: true, DeviceMemory: 60 << 20})
	if ferr == nil || !strings.Contains(ferr.Error(), "n=40000") || !strings.Contains(ferr.Error(), "would fit") {
		t.Fatalf("got %v, want a device-memory error naming n and what fits", ferr)
	}
	free, _, err := emulator(t).MemInfo()
	if err != nil {
		t.Fatal(err)
	}
	fit := fwFastMaxN(free, 2)
	if fit < ffTile || uint64(fit)*uint64(fit)*8+ffStage*4 > free {
		t.Errorf("fwFastMaxN(%d, 2) = %d does not fit", free, fit)
	}
	t.Log(ferr)
}

// TestLargeDownload copies a 96 MiB buffer to the device and back, both
// ways through the staging buffers in chunks (not a multiple of their
// size), and checks every value, and
// checks that the parallel result scan finds the first bad cell.
func TestLargeDownload(t *testing.T) {
	dev := emulator(t)
	n := stagingValues + stagingValues/2 + 12345
	host := make([]int32, n)
	for i := range host {
		host[i] = int32(i * 7)
	}
	r, err := dev.begin(context.Background(), "download test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.end()
	b, err := r.upload(host)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]int32, n)
	if err := r.download(got, b); err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != int32(i*7) {
			t.Fatalf("value %d = %d, want %d", i, v, i*7)
		}
	}
	for i := range got {
		got[i] = graph.Inf
	}
	got[n-5], got[n-3] = graph.MaxDistance+1, -graph.MaxDistance-1
	if i := firstOutOfRange(got); i != n-5 {
		t.Errorf("firstOutOfRange = %d, want %d", i, n-5)
	}
	got[n-5], got[n-3] = 0, 0
	if i := firstOutOfRange(got); i != -1 {
		t.Errorf("firstOutOfRange = %d on a good result", i)
	}
}

// TestFWFastFullTiles runs fw-fast's modes with the 128-wide tile kernels
// (ff_panels, ff_rest) at sizes where it would take ff_small or the
// quarter-tile ones.
func TestFWFastFullTiles(t *testing.T) {
	setFFPath(t, ffPath{name: "full"})
	sizes := []int{129, 300}
	if testing.Short() {
		sizes = []int{129}
	}
	fwFastModes(t, emulator(t), sizes)
}

// TestFWFastResultPaths brings fw-fast's results back by each path (the
// result's own memory registered, the staging buffers, pageable memory,
// pieces through the staging buffer) and checks them against the CPU,
// predecessors included. The staging buffers take the result whole, 3 rows
// of 257 at a time (a chunk that is not a whole number of rows) and one row
// at a time (a chunk smaller than a row); the pieces are the default
// (512 KiB: the whole result in one), 3 rows, one row (more pieces than
// are queued ahead), and 17 rows (pieces of one row asked for, at most 16
// pieces a matrix); the piped cases run again on an emulator that runs
// the streams' work in random orders their events allow.
func TestFWFastResultPaths(t *testing.T) {
	defer func(p, c, q, k, sp, ss int) {
		resultPath, fetchChunk, pipedPiece, pipedPieces, pipedSplit, pipedWorkers = p, c, q, k, sp, ss
	}(resultPath, fetchChunk, pipedPiece, pipedPieces, pipedSplit, pipedWorkers)
	v, err := Lookup(VariantFWFast)
	if err != nil {
		t.Fatal(err)
	}
	graphs := randomGraphs(t, 257, 11)
	piece, pieces, split := pipedPiece, pipedPieces, pipedSplit
	for _, c := range []struct{ path, chunk, piece, pieces, split, workers int }{
		{viaRegistered, stagingValues, piece, pieces, split, 1}, {viaStaged, stagingValues, piece, pieces, split, 1},
		{viaStaged, 1000, piece, pieces, split, 1}, {viaStaged, 100, piece, pieces, split, 1},
		{viaPageable, stagingValues, piece, pieces, split, 1},
		{viaPiped, stagingValues, piece, pieces, split, 1}, {viaPiped, stagingValues, 1000, 1000, split, 1},
		{viaPiped, stagingValues, 100, 1000, split, 1}, {viaPiped, stagingValues, 100, 16, split, 1},
		// Parts that cut rows, copied by spinning workers (one, three) or
		// by a goroutine each (0).
		{viaPiped, stagingValues, 1000, 1000, 333, 3}, {viaPiped, stagingValues, 100, 16, 7, 1},
		{viaPiped, stagingValues, 100, 15, 50, 0},
	} {
		resultPath, fetchChunk, pipedPiece, pipedPieces, pipedSplit, pipedWorkers = c.path, c.chunk, c.piece, c.pieces, c.split, c.workers
		for _, tg := range graphs {
			tg.name = fmt.Sprintf("%s (path %d, chunk %d, piece %d, at most %d, split %d, %d workers)",
				tg.name, c.path, c.chunk, c.piece, c.pieces, c.split, c.workers)
			checkVariant(t, emulator(t), v, tg, true)
			checkVariant(t, emulator(t), v, tg, false)
			if c.path == viaPiped {
				checkVariant(t, shuffledEmulators(t, 1, uint64(c.piece))[0], v, tg, true)
			}
		}
	}
}

// TestFWFastPoison checks that ff_finish reports a cell that no kernel
// wrote (it still holds the poison of a new buffer), naming it, and a
// predecessor out of range.
func TestFWFastPoison(t *testing.T) {
	dev := emulator(t)
	g := mustGraph(t, 130, "0->1 1")
	r, err := dev.begin(context.Background(), VariantFWFast, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.end()
	const ld = 256
	d, err := r.alloc(ld * ld)
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.alloc(ld * ld)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.ffBuild(g, ld, 0, 2, d.arg(), p.arg(), ffGenPred); err != nil {
		t.Fatal(err)
	}
	// finish runs ff_finish on the matrices and turns its flags into the
	// run's error, as ffRun does.
	finish := func() error {
		flags, err := r.alloc(3)
		if err != nil {
			return err
		}
		if err := r.fill(flags, graph.Inf); err != nil {
			return err
		}
		if err := r.ffCheck(130, ld, 0, 130, ffGenPred, d, p, flags, 0); err != nil {
			return err
		}
		var f [3]int32
		if err := r.readInts(f[:], flags); err != nil {
			return err
		}
		return r.ffVerdict(g, f, 130, ffGenPred, r.ffRow(130, ld, d, p))
	}
	if err := finish(); err != nil {
		t.Fatalf("a built matrix: %v", err)
	}
	// Poison one cell of row 77 and one predecessor of row 5.
	if err := dev.ctx.Memset32(d.ptr+DevicePtr(77*ld+3)*4, poison, 1); err != nil {
		t.Fatal(err)
	}
	err = finish()
	if err == nil || !strings.Contains(err.Error(), "dist[77][3] was never written") {
		t.Errorf("a poisoned distance: %v", err)
	}
	if err := dev.ctx.Memset32(d.ptr+DevicePtr(77*ld+3)*4, 0, 1); err != nil {
		t.Fatal(err)
	}
	if err := dev.ctx.Memset32(p.ptr+DevicePtr(5*ld+129)*4, 130, 1); err != nil {
		t.Fatal(err)
	}
	err = finish()
	if err == nil || !strings.Contains(err.Error(), "pred[5][129] = 130") {
		t.Errorf("a predecessor out of range: %v", err)
	}
}

// ffPath is one of fw-fast's ways through the stages, by its knobs.
type ffPath struct {
	name                      string
	small, smallPred, quarter int
	blocks                    int
	narrow                    bool // the 16-bit stages wherever they apply (ffNarrow, ffNarrowMin 0)
	panelRows                 int  // ffNarrowPanelRows, when not 0
	buildApart                bool // ffNarrowBuildApart
}

// ffPaths are the paths TestFWFastPaths and the card's tests compare:
// ff_small with and without predecessors, the stages with quarter panels
// (half panels with predecessors), the 128-wide tiles, and ff_small with a
// grid larger than the device runs at once (whose barrier gives up, and
// the stages run again), and the 16-bit stages (64-wide tiles in one
// launch, and that launch with a grid too large, which gives up at its
// first barrier, and after a launch that builds the matrix; 128-wide ones,
// half tiles a block with the panels in quarters, or in halves, and whole
// tiles) where the weights allow them.
func ffPaths(workers int) []ffPath {
	return []ffPath{
		{name: "small", small: 1 << 20, smallPred: 1 << 20, quarter: 32},
		{name: "stages-quarter", quarter: 32},
		{name: "full", quarter: 0},
		{name: "small-aborted", small: 1 << 20, smallPred: 1 << 20, quarter: 32, blocks: workers + 1},
		{name: "narrow-one", small: 1 << 20, quarter: 32, narrow: true},
		{name: "narrow-one-aborted", small: 1 << 20, quarter: 32, narrow: true, blocks: workers + 1},
		{name: "narrow-one-apart", small: 1 << 20, quarter: 32, narrow: true, buildApart: true},
		{name: "narrow-half", quarter: 32, narrow: true},
		{name: "narrow-half-p64", quarter: 32, narrow: true, panelRows: 64},
		{name: "narrow-full", quarter: 0, narrow: true},
	}
}

// setFFPath sets fw-fast's knobs to p until the test ends.
func setFFPath(t testing.TB, p ffPath) {
	s, sp, q, b, nw, nm, pr, no, ba := ffSmallMax, ffSmallPredMax, ffQuarterMax, ffSmallBlocks, ffNarrow, ffNarrowMin, ffNarrowPanelRows, ffNarrowOneMax, ffNarrowBuildApart
	t.Cleanup(func() {
		ffSmallMax, ffSmallPredMax, ffQuarterMax, ffSmallBlocks, ffNarrow, ffNarrowMin, ffNarrowPanelRows, ffNarrowOneMax, ffNarrowBuildApart = s, sp, q, b, nw, nm, pr, no, ba
	})
	ffSmallMax, ffSmallPredMax, ffQuarterMax, ffSmallBlocks, ffNarrow, ffNarrowBuildApart = p.small, p.smallPred, p.quarter, p.blocks, p.narrow, p.buildApart
	ffNarrowPanelRows = cmp.Or(p.panelRows, pr)
	if p.narrow {
		ffNarrowMin, ffNarrowOneMax = 0, 1<<20
	}
}

// TestFWFastPaths runs every path of fw-fast through its stages on the
// emulator against the CPU (distances cell by cell, every path rebuilt
// from Π), on sizes around the 64- and 128-wide tiles, sparse graphs with
// unreachable pairs, dense ones, negative arcs and both predecessor
// modes; checks from the launch count that the path asked for ran (the
// 16-bit stages where the weights allow them); that
// the half panels give the Π of the 128-wide tiles; and that every path
// reports a negative cycle.
func TestFWFastPaths(t *testing.T) {
	dev := emulator(t)
	ctx := context.Background()
	sizes := []int{1, 2, 63, 64, 65, 129, 300}
	if testing.Short() {
		sizes = []int{65, 129}
	}
	var graphs []testGraph
	for _, n := range sizes {
		graphs = append(graphs, randomGraphs(t, n, uint64(11*n))...)
		g, err := graph.GNM(n, min(3*n, n*(n-1)), graph.WeightRange{Min: 1, Max: 200000}, uint64(n))
		if err != nil {
			t.Fatal(err)
		}
		ref, err := cpu.FloydWarshallBlocked(ctx, g, cpu.FWOptions{})
		if err != nil {
			t.Fatal(err)
		}
		graphs = append(graphs, testGraph{name: fmt.Sprintf("large weights n=%d", n), g: g, all: ref})
	}
	cyc := mustGraph(t, 150, "0->1 3, 1->140 -4, 140->3 1, 3->1 1, 3->4 2")
	empty, err := graph.FromArcs(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	preds := map[string][]int32{} // graph and pred mode -> Π of the 128-wide tiles
	for _, p := range ffPaths(dev.info.SMs) {
		t.Run(p.name, func(t *testing.T) {
			setFFPath(t, p)
			for _, tg := range graphs {
				for _, pred := range []bool{false, true} {
					var st Stats
					res, err := FWFast(ctx, tg.g, Options{Device: dev, Pred: pred, Stats: &st})
					if err != nil {
						t.Fatalf("%s pred=%v: %v", tg.name, pred, err)
					}
					if !res.SameDistances(tg.all) {
						t.Fatalf("%s pred=%v: distances differ from the CPU:\n%s", tg.name, pred, res.Diff(tg.all, 5))
					}
					if pred {
						if err := res.Verify(tg.g); err != nil {
							t.Fatalf("%s: %v", tg.name, err)
						}
					}
					// ff_init, ff_arcs, ff_finish, and the stages: one
					// launch for ff_small, three a 128-wide stage (one
					// when there is one stage), and ff_small, ff_init,
					// ff_arcs and (queued behind ff_small before its
					// flag is read: ffOneWait) ff_finish more when
					// ff_small gave up.
					// With Π on a graph ff_tight takes, the stages run
					// without Π, and ff_tight after them, with an
					// ff_finish of the distances before it
					// (ffTightLaunches; after ff_small too when it gives
					// up).
					tight := pred && ffTightFits(tg.g)
					extra := 0
					if tight {
						extra = ffTightLaunches()
					}
					// Or the 16-bit path (ffNarrowLaunches, ff_tight's
					// launches and ff_finish included), and the 32-bit
					// one after it when f16_small gave up.
					n := tg.g.N()
					oneLaunch, stages := 3+1+extra, 3+1+extra
					if nb := ceilDiv(n, ffTile); nb > 1 {
						stages = 3 + 3*nb + extra
					}
					want, gaveUp := stages, stages+4+extra
					narrow := p.narrow && (tight || !pred && fwFastMode(tg.g, false) == ffDist) && ffNarrowWeights(tg.g)
					switch small := p.small > 0 && (!pred || tight || p.smallPred > 0); {
					case narrow:
						want = ffNarrowLaunches(n, ceilDiv(n, ffTile)*ffTile, tight)
						if ffNarrowOne(n) {
							// f16_small, as ff_small, meets at a
							// barrier only past 64 vertices.
							oneLaunch, gaveUp = want, want+stages
							if p.blocks > 0 && n > 64 {
								want = gaveUp
							}
						}
					case small && (p.blocks == 0 || n <= 64):
						want = oneLaunch
					case small:
						want = gaveUp
					}
					// On a loaded machine an emulated block can starve past
					// ff_small's barrier limit, and the stages run instead:
					// right, but not the path asked for. Try it again.
					for try := 0; want == oneLaunch && int(st.Launches) == gaveUp && try < 3; try++ {
						t.Logf("%s pred=%v: ff_small gave up at a barrier; again", tg.name, pred)
						st = Stats{}
						again, err := FWFast(ctx, tg.g, Options{Device: dev, Pred: pred, Stats: &st})
						if err != nil || !again.SameDistances(tg.all) {
							t.Fatalf("%s pred=%v, again: %v", tg.name, pred, err)
						}
					}
					if int(st.Launches) != want {
						t.Errorf("%s pred=%v: %d launches, want %d", tg.name, pred, st.Launches, want)
					}
					key := fmt.Sprintf("%s pred=%v", tg.name, pred)
					switch {
					case !pred || p.small > 0 && p.blocks == 0:
					case preds[key] == nil:
						preds[key] = res.Pred
					case !slices.Equal(preds[key], res.Pred):
						t.Errorf("%s: Π differs from the other paths through 128-wide stages", key)
					}
				}
			}
			for _, pred := range []bool{false, true} {
				_, err := FWFast(ctx, cyc, Options{Device: dev, Pred: pred})
				var nc *graph.NegativeCycleError
				if !errors.As(err, &nc) || len(nc.Cycle) != 3 || nc.Weight != -2 {
					t.Errorf("negative cycle (pred %v): got %v", pred, err)
				}
				res, err := FWFast(ctx, empty, Options{Device: dev, Pred: pred})
				if err != nil || res.N != 0 {
					t.Errorf("n=0 (pred %v): %v, %v", pred, res, err)
				}
			}
		})
	}
}

// TestFWFastOldWays runs fw-fast's in-memory call the ways it took before
// the one wait (ffOneWait), the arcs through the staging buffer
// (arcsStaged) and the results in pieces (pipedMaxBytes), which the
// benchmarks keep for comparison: ff_small, ff_small giving up, and the
// stages, with and without Π, against the CPU.
func TestFWFastOldWays(t *testing.T) {
	defer func(w, a bool, m uint64) { ffOneWait, arcsStaged, pipedMaxBytes = w, a, m }(ffOneWait, arcsStaged, pipedMaxBytes)
	ffOneWait, arcsStaged, pipedMaxBytes = false, false, 0
	v, err := Lookup(VariantFWFast)
	if err != nil {
		t.Fatal(err)
	}
	dev := emulator(t)
	graphs := append(randomGraphs(t, 65, 5), randomGraphs(t, 129, 6)...)
	for _, p := range ffPaths(dev.info.SMs) {
		if p.name == "full" {
			continue
		}
		t.Run(p.name, func(t *testing.T) {
			setFFPath(t, p)
			for _, tg := range graphs {
				checkVariant(t, dev, v, tg, true)
				checkVariant(t, dev, v, tg, false)
			}
		})
	}
}

// TestFFSmallGrids runs ff_small on grids of one and two blocks and on
// the grid the host sizes (as many blocks as the device holds at once): with one block, block 0 updates every tile and closes
// the next primary tile after them (the order without look-ahead); with
// more, block 0 closes it beside the others' rest of the stage. Distances
// equal the CPU's, every path rebuilds from Π, and Π is the same on every
// grid, value for value.
func TestFFSmallGrids(t *testing.T) {
	dev := emulator(t)
	ctx := context.Background()
	defer func(tight bool) { ffTightPi = tight }(ffTightPi)
	ffTightPi = false // ff_small's own Π
	var graphs []testGraph
	for _, n := range []int{65, 130, 200} {
		graphs = append(graphs, randomGraphs(t, n, uint64(7*n))...)
	}
	for _, tg := range graphs {
		var first []int32
		grids := []int{1, 0} // one block, and the grid the host sizes
		if dev.info.SMs >= 2 {
			grids = []int{1, 2, 0}
		}
		for _, blocks := range grids {
			setFFPath(t, ffPath{small: 1 << 20, smallPred: 1 << 20, quarter: 32, blocks: blocks})
			name := fmt.Sprintf("%s, %d blocks", tg.name, blocks)
			var res *graph.AllPairs
			var err error
			var st Stats
			for try := 0; try < 3; try++ {
				st = Stats{}
				res, err = FWFast(ctx, tg.g, Options{Device: dev, Pred: true, Stats: &st})
				if err != nil || st.Launches == 4 { // ff_init, ff_arcs, ff_small, ff_finish
					break
				}
				t.Logf("%s: ff_small gave up at a barrier (%d launches); again", name, st.Launches)
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if st.Launches != 4 {
				t.Fatalf("%s: %d launches, want ff_small's 4", name, st.Launches)
			}
			if !res.SameDistances(tg.all) {
				t.Fatalf("%s: distances differ from the CPU:\n%s", name, res.Diff(tg.all, 5))
			}
			if err := res.Verify(tg.g); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if first == nil {
				first = res.Pred
			} else if !slices.Equal(first, res.Pred) {
				t.Errorf("%s: Π differs from the one-block grid's", name)
			}
		}
	}
}

// TestFWFastManyArcs runs fw-fast on a graph whose CSR (more than
// arcsParallel values) is copied into the staging buffer on every core,
// with and without Π, on one emulated card and on two, and compares with
// the CPU.
func TestFWFastManyArcs(t *testing.T) {
	defer func(v int) { arcsParallel = v }(arcsParallel)
	arcsParallel = 1 << 16
	g, err := graph.GNM(260, 40000, graph.WeightRange{Min: 1, Max: 50}, 7)
	if err != nil {
		t.Fatal(err)
	}
	if c := g.N() + 1 + 2*g.M(); c < arcsParallel {
		t.Fatalf("the CSR holds %d values, fewer than arcsParallel (%d)", c, arcsParallel)
	}
	want, err := cpu.FloydWarshallBlocked(context.Background(), g, cpu.FWOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tg := testGraph{name: "GNM(260, 40000)", g: g, all: want}
	for _, pred := range []bool{false, true} {
		for _, o := range []Options{{Device: emulator(t)}, {Devices: emulators(t, 2)}} {
			o.Pred = pred
			res, err := FWFast(context.Background(), g, o)
			matchesCPU(t, fmt.Sprintf("%s, pred %v, %d cards", tg.name, pred, max(len(o.Devices), 1)), tg, res, err, pred)
		}
	}
}

// TestFWFastMirrorsArcs checks that fw-fast makes a page-locked copy of a
// graph's CSR and its flags' starting values on its second call (not its
// first) and uploads them from there, leaving the graph's own arrays
// alone, with results equal to the CPU's on every call, with and without
// Π; and that a graph below csrMirrorMin gets no copy.
func TestFWFastMirrorsArcs(t *testing.T) {
	dev := emulator(t)
	g, err := graph.GNM(150, 20000, graph.WeightRange{Min: 1, Max: 50}, 3)
	if err != nil {
		t.Fatal(err)
	}
	small, err := graph.GNM(40, 300, graph.WeightRange{Min: 1, Max: 50}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if b := csrBytes(small); b >= csrMirrorMin || csrBytes(g) < csrMirrorMin {
		t.Fatalf("CSRs of %d and %d bytes: want one below csrMirrorMin (%d) and one above", b, csrBytes(g), csrMirrorMin)
	}
	registered := registeredProbe(t, dev)
	mirror := func(g *graph.Graph) []int32 {
		csrPins.Lock()
		defer csrPins.Unlock()
		if p := csrPins.m[csrPinKey{dev, weak.Make(g)}]; p != nil {
			return p.mirror
		}
		return nil
	}
	for _, c := range []struct {
		g    *graph.Graph
		name string
		big  bool
	}{{g, "GNM(150, 20000)", true}, {small, "GNM(40, 300)", false}} {
		want, err := cpu.FloydWarshallBlocked(context.Background(), c.g, cpu.FWOptions{})
		if err != nil {
			t.Fatal(err)
		}
		tg := testGraph{name: c.name, g: c.g, all: want}
		for call := range 3 {
			res, err := FWFast(context.Background(), c.g, Options{Device: dev, Pred: call == 2})
			matchesCPU(t, fmt.Sprintf("%s, call %d", tg.name, call+1), tg, res, err, call == 2)
			m := mirror(c.g)
			if want := c.big && call > 0; (m != nil) != want {
				t.Fatalf("%s, after call %d: a copy %v, want %v", c.name, call+1, m != nil, want)
			}
			if m != nil {
				arcs := slices.Concat(c.g.Offsets(), c.g.Targets(), c.g.Weights())
				if !registered(m) || !slices.Equal(m[:len(arcs)], arcs) || !slices.Equal(m[len(arcs):], ffFlagsStart[:]) {
					t.Errorf("%s, after call %d: the copy is not the registered CSR and flags", c.name, call+1)
				}
			}
			for i, a := range [][]int32{c.g.Offsets(), c.g.Targets(), c.g.Weights()} {
				if registered(a) {
					t.Errorf("%s, after call %d: the graph's array %d is registered", c.name, call+1, i+1)
				}
			}
		}
	}
}

// TestFWFastTight runs fw-fast with predecessors on graphs that take
// ff_tight (Π from the finished distances): weights 1..4 so that ties are
// common, parallel arcs, self-loops, a part of the graph that the rest
// cannot reach, sizes around the tiles, through ff_small and the stages,
// and with each number of rows a block (shared memory for 1, 2, 4, 8 or
// 16 rows; one row also in blocks of 512 threads, ffTightOneThreads being
// 1024), and past ff_tight's n (ffSharedCap: f16_tight, or Π in the
// stages). Every run's Π must be
// valid, and but for Π in the stages equal, cell for cell, to the
// greatest tight predecessor computed here from the CPU's distances.
func TestFWFastTight(t *testing.T) {
	fwFastTight(t, emulator(t), []int{1, 2, 5, 70, 130, 257})
}

// TestFWFastTightShuffled is TestFWFastTight on emulators that run the
// streams' queued work, the default stream's included, in random orders
// their events allow (shuffledEmulators): the distances go back on the
// copy stream while ff_tight runs (ffTightOverlap), after the stages and
// no sooner.
func TestFWFastTightShuffled(t *testing.T) {
	if !ffTightOverlap || !ffOneWait {
		t.Fatal("ffTightOverlap and ffOneWait are on by default")
	}
	for seed := range uint64(3) {
		fwFastTight(t, shuffledEmulators(t, 1, seed)[0], []int{70, 257})
	}
}

// fwFastTight is TestFWFastTight on dev with graphs of the given sizes.
func fwFastTight(t *testing.T, dev *Device, sizes []int) {
	t.Helper()
	ctx := context.Background()
	shared, small, least, narrow, narrowMin, one := ffTightShared, ffSmallMax, ffTightMin, ffNarrow, ffNarrowMin, ffTightOneThreads
	defer func() {
		ffTightShared, ffSmallMax, ffTightMin, ffNarrow, ffNarrowMin, ffSharedCap, ffTightOneThreads = shared, small, least, narrow, narrowMin, 0, one
	}()
	ffTightMin = 0
	for _, n := range sizes {
		g := tightGraph(t, n, uint64(n))
		if !ffTightFits(g) {
			t.Fatalf("n=%d: graph of %d arcs does not take ff_tight", n, g.M())
		}
		ref, err := cpu.FloydWarshall(ctx, g, cpu.FWOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := greatestTight(g, ref)
		tg := testGraph{name: fmt.Sprintf("tight n=%d m=%d", n, g.M()), g: g, all: ref}
		for _, rows := range []int{16, 8, 4, 2, 1} {
			if rows*n*4 > shared {
				continue // more than a block's shared memory
			}
			for _, viaSmall := range []bool{true, false} {
				if viaSmall && n > small {
					continue // the stages either way: run them once
				}
				ffTightShared, ffSmallMax = rows*n*4, small
				if !viaSmall {
					ffSmallMax = 0
				}
				name := fmt.Sprintf("%s, %d rows a block, ff_small %v", tg.name, rows, viaSmall)
				got, err := FWFast(ctx, g, Options{Device: dev, Pred: true})
				if !matchesCPU(t, name, tg, got, err, true) {
					continue
				}
				samePred(t, name, got.Pred, want, n)
			}
		}
		ffTightShared, ffSmallMax = shared, small
		// One row a block in blocks of 512 threads (ffTightOneThreads
		// is 1024).
		ffTightShared, ffTightOneThreads = n*4, 512
		got, err := FWFast(ctx, g, Options{Device: dev, Pred: true})
		ffTightShared, ffTightOneThreads = shared, one
		if name := tg.name + ", one row a block of 512 threads"; matchesCPU(t, name, tg, got, err, true) {
			samePred(t, name, got.Pred, want, n)
		}
		if n < 2 {
			continue // a cap of 0 bytes is no cap
		}
		// Past ff_tight's n, as when a row of 32-bit distances outgrows
		// the device's shared memory: with room for a row of 16 bits,
		// the 16-bit stages and f16_tight, whose Π is ff_tight's; with
		// room for neither, Π in the stages, valid but not the same.
		ffNarrow, ffNarrowMin = true, 0
		for _, c := range []struct {
			limit int
			f16   bool
		}{{4*n - 1, true}, {ceilDiv(n, 2)*4 - 1, false}} {
			ffSharedCap = c.limit
			before := emuLaunches(dev, ptx.FW16, "f16_tight")
			name := fmt.Sprintf("%s, %d bytes of shared memory a block", tg.name, c.limit)
			got, err := FWFast(ctx, g, Options{Device: dev, Pred: true})
			if matchesCPU(t, name, tg, got, err, true) && c.f16 {
				samePred(t, name, got.Pred, want, n)
			}
			if ran := emuLaunches(dev, ptx.FW16, "f16_tight") - before; driver.Emulated(dev.ctx) && (ran > 0) != c.f16 {
				t.Errorf("%s: f16_tight ran %d times, want it to run: %v", name, ran, c.f16)
			}
		}
		ffSharedCap, ffNarrow, ffNarrowMin = 0, narrow, narrowMin
	}
}

// samePred reports the first cell where got, n×n predecessors, differs
// from want.
func samePred(t *testing.T, name string, got, want []int32, n int) {
	t.Helper()
	for c := range want {
		if got[c] != want[c] {
			t.Errorf("%s: pred[%d][%d] = %d, want the greatest tight predecessor %d", name, c/n, c%n, got[c], want[c])
			return
		}
	}
}

// emuLaunches is how many times the emulated device dev has launched
// kernel name of PTX module mod: 0 before the module is loaded, and on a
// card.
func emuLaunches(dev *Device, mod, name string) int {
	for _, m := range driver.EmulatorModules(dev.ctx) {
		if k, err := m.Kernel(name); m.Name() == mod && err == nil {
			return k.Launches()
		}
	}
	return 0
}

// tightGraph is a sparse graph of n vertices for TestFWFastTight: about
// 1.5 arcs a vertex of weight 1..4 among the first two thirds, parallel
// arcs and self-loops among them, and arcs from the last third into the
// rest but none back, so that most pairs (i, j) with j in the last third
// and i outside it have no path.
func tightGraph(t *testing.T, n int, seed uint64) *graph.Graph {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 11))
	head := max(2*n/3, 1)
	var arcs []graph.Arc
	for range 3 * n / 2 {
		u, v := rng.IntN(head), rng.IntN(head)
		w := int32(1 + rng.IntN(4))
		arcs = append(arcs, graph.Arc{From: u, To: v, Weight: w})
		if rng.IntN(8) == 0 {
			arcs = append(arcs, graph.Arc{From: u, To: v, Weight: w + int32(rng.IntN(2))})
		}
	}
	for u := head; u < n; u++ {
		arcs = append(arcs, graph.Arc{From: u, To: rng.IntN(head), Weight: int32(1 + rng.IntN(4))})
	}
	g, err := graph.NewBuilder(n).Duplicates(graph.KeepAll).KeepLoops().AddArcs(arcs).Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// greatestTight is ff_tight's Π from all's distances, computed on the host:
// for each row i and vertex v ≠ i, the greatest k with an arc k → v of
// weight w and dist(i, k) + w = dist(i, v), else graph.Nil.
func greatestTight(g *graph.Graph, all *graph.AllPairs) []int32 {
	n := g.N()
	pred := make([]int32, n*n)
	for c := range pred {
		pred[c] = graph.Nil
	}
	for _, a := range g.Arcs() {
		for i := range n {
			dk, dv := all.Dist[i*n+a.From], all.Dist[i*n+a.To]
			if a.To != i && dk != graph.Inf && dk+a.Weight == dv {
				pred[i*n+a.To] = max(pred[i*n+a.To], int32(a.From))
			}
		}
	}
	return pred
}

// TestFewestWaves checks ff_tight's split of the arcs (fewestWaves) on
// fw-fast's benchmark graphs on an H200 (132 multiprocessors, three
// blocks each), and at the edges.
func TestFewestWaves(t *testing.T) {
	for _, c := range []struct{ bx, most, resident, want int }{
		{64, 15, 396, 6},   // n = 1024: one wave of 384 blocks
		{256, 60, 396, 3},  // n = 2048: two waves, a third of the arcs each
		{1024, 60, 396, 1}, // n = 4096: the row blocks fill the card, one part
		{395, 60, 396, 1},  // one block short of a wave: every split takes as many waves as parts
		{200, 60, 396, 7},  // 1400 blocks in four waves (0.57), not 200 in one
		{396, 60, 396, 1},  // exactly a wave: one part
		{64, 1, 396, 1},    // a graph of few arcs: one part
		{1, 3, 1, 1},       // one block at a time: one part
	} {
		if got := fewestWaves(c.bx, c.most, c.resident); got != c.want {
			t.Errorf("fewestWaves(%d, %d, %d) = %d, want %d", c.bx, c.most, c.resident, got, c.want)
		}
	}
}

// TestFFTightRows checks how many rows a block of ff_tight holds, and
// whether f16_tight's one row fits, on an H200's limit of 227 KiB a block
// and on a card of 48 KiB.
func TestFFTightRows(t *testing.T) {
	const h200, old = 227 << 10, 48 << 10
	for _, c := range []struct{ n, limit, want int }{
		{1024, h200, 16}, // 64 KiB: ffTightShared
		{1025, h200, 8},  // 16 rows would take 65.6 KB
		{8192, h200, 2},  // 64 KiB
		{16384, h200, 1}, // 64 KiB
		{32768, h200, 1}, // 128 KiB: one row past ffTightShared, within the limit
		{58112, h200, 1}, // 227 KiB exactly
		{58113, h200, 0}, // a row past the limit: f16_tight, or Π in the stages
		{65536, h200, 0},
		{1024, old, 8},  // 32 KiB
		{12288, old, 1}, // 48 KiB
		{12289, old, 0},
	} {
		if got := ffTightRows(c.n, c.limit); got != c.want {
			t.Errorf("ffTightRows(%d, %d) = %d, want %d", c.n, c.limit, got, c.want)
		}
	}
	// Past them, f16_tight's row of 16-bit distances.
	for _, c := range []struct {
		n, limit int
		want     bool
	}{
		{58113, h200, true},
		{65536, h200, true},   // 128 KiB
		{116224, h200, true},  // 227 KiB exactly
		{116225, h200, false}, // odd: a word for the last one
		{24576, old, true},
		{24577, old, false},
	} {
		if got := f16TightFits(c.n, c.limit); got != c.want {
			t.Errorf("f16TightFits(%d, %d) = %v, want %v", c.n, c.limit, got, c.want)
		}
	}
}

package gpu

// apsp-batched and the auto pick on the emulator, against the CPU.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/graph"
)

// TestEmuAPSPBatched checks apsp-batched with batches that do not divide
// n, one source per batch, a single block, and the awkward graphs, with
// and without predecessors.
func TestEmuAPSPBatched(t *testing.T) {
	ctx := context.Background()
	dev := emulator(t)
	check := func(name string, g *graph.Graph, tun fastTuning, pred bool) {
		t.Helper()
		want, err := cpu.DijkstraAll(ctx, g, cpu.APSPOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var s Stats
		got, err := apspBatchedTuned(ctx, g, Options{Device: dev, Pred: pred, Stats: &s}, tun)
		if err != nil {
			t.Errorf("%s (%+v): %v", name, tun, err)
			return
		}
		if got.Solver != VariantAPSPBatched || s.Variant != VariantAPSPBatched {
			t.Errorf("%s: solver %q, stats %q", name, got.Solver, s.Variant)
		}
		if !got.SameDistances(want) {
			t.Errorf("%s (%+v, pred %v): distances differ from the CPU:\n%s", name, tun, pred, got.Diff(want, 5))
			return
		}
		if pred {
			if err := got.Verify(g); err != nil {
				t.Errorf("%s (%+v): %v", name, tun, err)
			}
		} else if got.Pred != nil {
			t.Errorf("%s: predecessors without Pred", name)
		}
	}
	for _, n := range []int{1, 2, 45, 130} {
		for _, tg := range randomGraphs(t, n, uint64(900+n)) {
			if tg.g.HasNegative() {
				continue
			}
			for i, tun := range []fastTuning{{}, {Batch: 7, Group: 1, Delta: 1}, {Batch: 1, Blocks: 1, Group: 32}, {Batch: n - 1, Block: 64, Delta: 1 << 29}, {Batch: 5, Block: 32, Heavy: 2, Group: 2}} {
				if n > 100 && i == 2 {
					continue // one source per batch is slow on the interpreter at n = 130
				}
				check(tg.name, tg.g, tun, i%2 == 0)
			}
		}
	}
	for name, g := range awkwardGraphs(t) {
		check(name, g, fastTuning{Batch: 3}, true)
	}
	empty, err := graph.NewBuilder(0).Build()
	if err != nil {
		t.Fatal(err)
	}
	if res, err := APSPBatched(ctx, empty, Options{Device: dev, Pred: true}); err != nil || res.N != 0 || len(res.Dist) != 0 {
		t.Errorf("n = 0: %v, %v", res, err)
	}
	neg := mustGraph(t, 3, "0->1 2, 1->2 -3")
	if _, err := APSPBatched(ctx, neg, Options{Device: dev}); err == nil || !strings.Contains(err.Error(), "negative weight -3") {
		t.Errorf("negative arc: %v", err)
	}
	if _, err := apspBatchedTuned(ctx, neg, Options{Device: dev}, fastTuning{Batch: -1}); err == nil || !strings.Contains(err.Error(), "batch -1") {
		t.Errorf("batch -1: %v", err)
	}
}

// TestEmuAllPairsAuto checks the pick of AllPairs(ctx, "auto", ...): the
// batched Dijkstra for a sparse graph, Johnson for a sparse one with
// negative arcs, Floyd-Warshall for small and dense ones, with or without
// negative arcs, and for negative arcs too heavy for johnson-fast, with
// the choice in Solver and Stats.Variant.
func TestEmuAllPairsAuto(t *testing.T) {
	ctx := context.Background()
	dev := emulator(t)
	fw := VariantFWBlocked
	if _, err := Lookup("fw-fast"); err == nil {
		fw = "fw-fast"
	}
	sparse, err := graph.GNM(200, 30, graph.WeightRange{Min: 1, Max: 9}, 3)
	if err != nil {
		t.Fatal(err)
	}
	dense, err := graph.GNM(100, 2000, graph.WeightRange{Min: 1, Max: 9}, 3)
	if err != nil {
		t.Fatal(err)
	}
	small := randomGraphs(t, 70, 11)
	sparseNeg := withPotentials(t, sparse, 5)
	if !sparseNeg.HasNegative() {
		t.Fatal("the sparse graph has no negative arc under potentials")
	}
	// n·|w| fits the int32 kernels' range, 2·n·|w| does not.
	heavyNeg, err := graph.FromArcs(200, []graph.Arc{{From: 0, To: 1, Weight: 4_000_000}, {From: 1, To: 2, Weight: -4_000_000}})
	if err != nil {
		t.Fatal(err)
	}
	if got := PickAllPairs(heavyNeg); got != fw {
		t.Errorf("PickAllPairs(heavy negative) = %s, want %s", got, fw)
	}
	for _, c := range []struct {
		name, want string
		g          *graph.Graph
	}{
		{"sparse", VariantAPSPBatched, sparse},
		{"dense", fw, dense},
		{"sparse negative", VariantJohnsonFast, sparseNeg},
		{"negative", fw, small[2].g},
		{"tiny", fw, mustGraph(t, 3, "0->1 1")},
		{"tiny negative", fw, mustGraph(t, 3, "0->1 -1")},
	} {
		if got := PickAllPairs(c.g); got != c.want {
			t.Errorf("PickAllPairs(%s) = %s, want %s", c.name, got, c.want)
		}
		for _, name := range []string{"", "auto"} {
			var s Stats
			res, err := AllPairs(ctx, name, c.g, Options{Device: dev, Stats: &s, Pred: true})
			if err != nil {
				t.Errorf("AllPairs(%q) on %s: %v", name, c.name, err)
				continue
			}
			if res.Solver != c.want || s.Variant != c.want {
				t.Errorf("AllPairs(%q) on %s: solver %q, stats %q, want %s", name, c.name, res.Solver, s.Variant, c.want)
			}
			if err := res.Verify(c.g); err != nil {
				t.Errorf("AllPairs(%q) on %s: %v", name, c.name, err)
			}
		}
	}
	if _, err := AllPairs(ctx, "auto", nil, Options{Device: dev}); err == nil {
		t.Error("AllPairs(auto) on a nil graph: no error")
	}
}

// TestEmuAPSPResultPaths brings apsp-batched's rows back by each path, in
// batches whose copies overlap the next batch's kernels (two output
// buffers taken in turn), and checks them against the CPU.
func TestEmuAPSPResultPaths(t *testing.T) {
	defer func(p int) { resultPath = p }(resultPath)
	ctx := context.Background()
	g, err := graph.GNM(70, 200, graph.WeightRange{Min: 0, Max: 9}, 4)
	if err != nil {
		t.Fatal(err)
	}
	want, err := cpu.DijkstraAll(ctx, g, cpu.APSPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []int{viaRegistered, viaStaged, viaPageable} {
		resultPath = path
		got, err := apspBatchedTuned(ctx, g, Options{Device: emulator(t), Pred: true}, fastTuning{Batch: 9})
		if err != nil {
			t.Fatalf("path %d: %v", path, err)
		}
		if !got.SameDistances(want) {
			t.Fatalf("path %d: distances differ from the CPU:\n%s", path, got.Diff(want, 5))
		}
		if err := got.Verify(g); err != nil {
			t.Fatalf("path %d: %v", path, err)
		}
	}
}

// sinkyGraph is a graph of n vertices of which only every third has
// out-arcs (two, to random vertices), so that two in three sources settle
// at once, as most of p2p-Gnutella30's do.
func sinkyGraph(t *testing.T, n int, seed uint64) *graph.Graph {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	var arcs []graph.Arc
	for u := 0; u < n; u += 3 {
		for range 2 {
			arcs = append(arcs, graph.Arc{From: u, To: rng.IntN(n), Weight: int32(1 + rng.IntN(50))})
		}
	}
	g, err := graph.FromArcs(n, arcs)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestSourceShares checks the shares of the sources among devices: each
// source in exactly one, in order, and each share's weight (a source with
// out-arcs weighing apspLiveWeight) within one source's weight of an even
// part, on graphs whose sources with out-arcs lie evenly, at one end and
// nowhere, with weight 1 (equal counts) too.
func TestSourceShares(t *testing.T) {
	defer func(w int) { apspLiveWeight = w }(apspLiveWeight)
	ends := func(n, live int) *graph.Graph { // the first live sources have an arc each
		var arcs []graph.Arc
		for u := range live {
			arcs = append(arcs, graph.Arc{From: u, To: (u + 1) % n, Weight: 1})
		}
		g, err := graph.FromArcs(n, arcs)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	graphs := map[string]*graph.Graph{
		"sinky 1": sinkyGraph(t, 1, 1), "sinky 97": sinkyGraph(t, 97, 1), "sinky 1000": sinkyGraph(t, 1000, 2),
		"front 100": ends(100, 10), "none 50": ends(50, 0), "all 7": ends(7, 7), "empty": ends(0, 0),
	}
	for _, weight := range []int{1, 8} {
		apspLiveWeight = weight
		for name, g := range graphs {
			for _, devices := range []int{1, 2, 3, 4} {
				label := fmt.Sprintf("%s, weight %d, %d devices", name, weight, devices)
				shares := sourceShares(g, devices)
				if len(shares) != devices {
					t.Fatalf("%s: %d shares", label, len(shares))
				}
				w := func(s int) int {
					if g.OutDegree(s) > 0 {
						return weight
					}
					return 1
				}
				total := 0
				for s := range g.N() {
					total += w(s)
				}
				next := 0
				for c, sh := range shares {
					if sh.first != next || sh.count < 0 {
						t.Fatalf("%s: share %d is %v after source %d", label, c, sh, next)
					}
					next += sh.count
					sum := 0
					for s := sh.first; s < sh.first+sh.count; s++ {
						sum += w(s)
					}
					// Even within one source's weight, but for a share cut
					// short where a source straddles two devices' parts.
					if d := sum*devices - total; d > weight*devices || d < -2*weight*devices {
						t.Errorf("%s: share %d %v weighs %d of %d", label, c, sh, sum, total)
					}
				}
				if next != g.N() {
					t.Errorf("%s: the shares end at %d of %d sources", label, next, g.N())
				}
				if weight == 1 && g.N() >= devices {
					for c, sh := range shares {
						if sh.count == 0 {
							t.Errorf("%s: share %d is empty", label, c)
						}
					}
				}
			}
		}
	}
	// p2p-Gnutella30's shape in small: the first tenth of the sources have
	// out-arcs, so two devices split them, not the count.
	apspLiveWeight = 8
	if sh := sourceShares(ends(100, 10), 2); sh[0].count != 15 {
		t.Errorf("front-loaded graph: shares %v, want the first of 15 sources (80 + 5 of 170)", sh)
	}
}

// TestEmuAPSPShares runs apsp-batched on two and three emulated devices
// (and on one), with launches that cut the shares (and do not divide
// them) and with narrow launches, their rows copied back in pieces as
// they are done (apspPipeBytes 0, and apspPieces that do not divide the
// rows; on the staged path, a staging buffer of 400 values a piece) or
// after each launch, the streams' work, the default stream's
// included (driver.EmulatorLazyDefault), run in orders their events and
// waits allow (driver.EmulatorShuffle), on random graphs and on one whose
// sources mostly have no out-arc, with and without predecessors: the
// distances must be the CPU's, Π valid, and the progress reported must
// add up to every source exactly once.
func TestEmuAPSPShares(t *testing.T) {
	defer func(b uint64, p, path, chunk int) {
		apspPipeBytes, apspPieces, resultPath, fetchChunk = b, p, path, chunk
	}(apspPipeBytes, apspPieces, resultPath, fetchChunk)
	fetchChunk = 400 // staged: 4 or 5 rows a piece
	ctx := context.Background()
	devs := shuffledEmulators(t, 3, 4)
	graphs := map[string]*graph.Graph{"sinky n=97": sinkyGraph(t, 97, 1)}
	for _, tg := range randomGraphs(t, 83, 5)[:2] {
		graphs[tg.name] = tg.g
	}
	for name, g := range graphs {
		ref, err := cpu.FloydWarshall(ctx, g, cpu.FWOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range []struct {
			tun    fastTuning
			k      int  // devices
			pieces int  // apspPieces, 0: the whole launch after it (apspPipeBytes as it is)
			staged bool // the result back through the staging buffers, pieces of fetchChunk
		}{
			{fastTuning{Batch: 3}, 2, 0, false}, {fastTuning{Blocks: 2}, 3, 5, false}, {fastTuning{Batch: 10, Blocks: 3}, 2, 3, false},
			{fastTuning{Batch: 4}, 1, 2, false}, {fastTuning{}, 2, 0, false}, {fastTuning{}, 1, 7, false}, {fastTuning{Batch: 30}, 3, 4, false},
			{fastTuning{}, 2, 1, true}, {fastTuning{Batch: 12, Blocks: 2}, 1, 1, true}, {fastTuning{Batch: 30}, 3, 1, true},
			{fastTuning{Batch: 7}, 2, 0, true},
		} {
			apspPipeBytes, apspPieces, resultPath = 64<<20, 16, viaAuto
			if c.pieces > 0 {
				apspPipeBytes, apspPieces = 0, c.pieces
			}
			if c.staged {
				resultPath = viaStaged
			}
			tun, k, pred := c.tun, c.k, i%3 != 1
			label := fmt.Sprintf("%s, %d devices, %d pieces, staged %v, %+v, pred %v", name, k, c.pieces, c.staged, tun, pred)
			done := 0
			progress := func(d, total int) {
				if total != g.N() {
					t.Errorf("%s: progress total %d", label, total)
				}
				done = d
			}
			var st Stats
			got, err := apspBatchedTuned(ctx, g, Options{Devices: devs[:k], Pred: pred, Progress: progress, Stats: &st}, tun)
			if err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			if st.Kernel <= 0 || st.Devices != k {
				t.Errorf("%s: %s", label, st)
			}
			if !got.SameDistances(ref) {
				t.Errorf("%s: distances differ from the CPU:\n%s", label, got.Diff(ref, 5))
			}
			if pred {
				if err := got.Verify(g); err != nil {
					t.Errorf("%s: %v", label, err)
				}
			} else if got.Pred != nil {
				t.Errorf("%s: predecessors without Pred", label)
			}
			if done != g.N() {
				t.Errorf("%s: progress counted %d sources of %d", label, done, g.N())
			}
		}
	}
}

// TestEmuAPSPChecks runs apsp_batch on one launch of all the sources,
// counted in pieces of 7 rows, and checks the counts of the pieces and
// what apspVerdict makes of the checks it leaves: a good result passes
// (and is the CPU's), a launch whose source counter starts past its first
// sources (so that no block takes them and their rows hold what the
// buffer held) is reported with its rows, and a distance beyond
// ±graph.MaxDistance and a negative diagonal, which the blocks' own
// checks flag, are reported as ff_finish's flags are.
func TestEmuAPSPChecks(t *testing.T) {
	ctx := context.Background()
	dev := emulator(t)
	sinky := sinkyGraph(t, 40, 2)
	far := fmt.Sprintf("0->1 %d, 1->2 %d", graph.MaxDistance, graph.MaxDistance)
	cycle := fmt.Sprintf("0->1 %d, 1->0 %d, 1->2 1", -graph.MaxDistance, -graph.MaxDistance)
	for _, c := range []struct {
		name string
		g    *graph.Graph
		skip int // sources of the batch that no block takes
		want string
	}{
		{"good", sinky, 0, ""},
		{"a row left", sinky, 1, "internal error: launch 0 on %s (sources 0..39) finished 39 rows of its 40"},
		{"three rows left", sinky, 3, "(sources 0..39) finished 37 rows of its 40"},
		{"beyond MaxDistance", mustGraph(t, 3, far), 0, "dist[0][2] = 2147483646 is a value no result may hold"},
		{"negative diagonal", mustGraph(t, 3, cycle), 0, "negative cycle"},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := c.g.N()
			r, err := dev.begin(ctx, VariantAPSPBatched, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer r.end()
			a := &apspBatches{n: n, blocks: 3, stride: apspPieces, tun: fastTuning{Block: 64, Group: 1, Delta: 1 << 29}}
			if a.gr, err = r.uploadCSR(c.g); err != nil {
				t.Fatal(err)
			}
			if a.slab, err = r.alloc(2 * a.blocks * n); err != nil {
				t.Fatal(err)
			}
			if a.scratch, err = r.alloc(a.blocks * apspScratch * n); err != nil {
				t.Fatal(err)
			}
			if err := r.apspCounters(a, 1); err != nil {
				t.Fatal(err)
			}
			var out [2]buffer
			if out[0], out[1], err = r.allocOut(n*n, true); err != nil {
				t.Fatal(err)
			}
			if err := r.fill(buffer{a.next.ptr, 1}, int32(c.skip)); err != nil {
				t.Fatal(err)
			}
			parts := []span{{0, n}}
			const piece = 7
			if err := r.queueLaunch(a, 0, parts[0], out, piece, true); err != nil {
				t.Fatal(err)
			}
			f := make([]int32, 4)
			if err := r.readInts(f, buffer{a.checks.ptr, len(f)}); err != nil {
				t.Fatal(err)
			}
			counts := make([]int32, apspPieces)
			if err := r.readInts(counts, a.pieces); err != nil {
				t.Fatal(err)
			}
			for k, got := range counts {
				// Rows k*piece.. of those that some block took (from c.skip).
				lo, hi := max(k*piece, c.skip), min((k+1)*piece, n)
				if want := max(hi-lo, 0); int(got) != want {
					t.Errorf("piece %d (rows %d..%d) counted %d rows, want %d", k, k*piece, (k+1)*piece-1, got, want)
				}
			}
			err = r.apspVerdict(c.g, a, f, parts, r.ffRow(n, n, out[0], out[1]))
			want := c.want
			if strings.Contains(want, "%s") {
				want = fmt.Sprintf(want, dev.Info().Name)
			}
			if want != "" {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("error %v, want one with %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			ref, err := cpu.DijkstraAll(ctx, c.g, cpu.APSPOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got := make([]int32, n*n)
			if err := r.readInts(got, out[0]); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, ref.Dist) {
				t.Errorf("distances differ from the CPU's")
			}
		})
	}
}

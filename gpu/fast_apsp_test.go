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

// TestDealSources checks the contiguous and dealt shares: every source
// goes to exactly one device, a contiguous share is one span, each dealt
// share spans the range of sources (its first chunk in the first devices'
// worth of chunks, its last in the last), and the chunks' sizes differ by
// at most one.
func TestDealSources(t *testing.T) {
	for _, c := range []struct{ n, devices int }{{0, 1}, {1, 1}, {5, 1}, {2, 2}, {3, 3}, {17, 2}, {100, 3}, {36682, 2}, {36682, 4}} {
		for _, chunks := range []int{1, apspPipe} {
			shares := dealSources(c.n, c.devices, chunks)
			seen := make([]int, c.n)
			sizes := map[int]bool{}
			for d, share := range shares {
				for _, s := range share {
					sizes[s.count] = true
					for v := s.first; v < s.first+s.count; v++ {
						seen[v]++
					}
				}
				if chunks == 1 && len(share) > 1 {
					t.Errorf("n=%d, %d devices: contiguous share %v", c.n, c.devices, share)
				}
				if chunks > 1 && c.n >= chunks*c.devices && c.devices > 1 {
					// Within a chunk per device of either end.
					edge := c.devices * (c.n/(chunks*c.devices) + 1)
					if first, last := share[0].first, share[len(share)-1]; first >= edge || last.first+last.count <= c.n-edge {
						t.Errorf("n=%d, %d devices: device %d's share %v does not span the sources", c.n, c.devices, d, share)
					}
				}
				if c.n >= c.devices && len(share) == 0 {
					t.Errorf("n=%d, %d devices: device %d gets nothing", c.n, c.devices, d)
				}
			}
			for v, k := range seen {
				if k != 1 {
					t.Fatalf("n=%d, %d devices, %d chunks: source %d dealt %d times", c.n, c.devices, chunks, v, k)
				}
			}
			lo, hi := c.n, 0
			for k := range sizes {
				lo, hi = min(lo, k), max(hi, k)
			}
			if hi-lo > 1 {
				t.Errorf("n=%d, %d devices: chunk sizes %d to %d", c.n, c.devices, lo, hi)
			}
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

// TestSourceFeedPlan checks the batch each device asks for: none below
// apspPipeBytes, and above it its share in apspPipe batches on one, two
// and four devices, contiguous or dealt, and half a device's share of the
// sources with claims.
func TestSourceFeedPlan(t *testing.T) {
	small, large := sinkyGraph(t, 1000, 1), sinkyGraph(t, 4096, 2) // 4 MB and 64 MiB a matrix
	for _, c := range []struct {
		g       *graph.Graph
		devices int
		way     shareWay
		want    int // the batch device 0 asks for
	}{
		{small, 1, shareHalves, 0},
		{small, 2, shareDynamic, 0},
		{large, 1, shareHalves, 1024},
		{large, 2, shareHalves, 512},
		{large, 2, shareDealt, 512},
		{large, 4, shareHalves, 256},
		{large, 2, shareDynamic, 1024},
	} {
		if c.g == large && apspPipe != 4 {
			t.Fatalf("the cases assume apspPipe 4, not %d", apspPipe)
		}
		f := newSourceFeed(c.g, c.devices, c.way, 1)
		sources, want := f.plan(0)
		if want != c.want {
			t.Errorf("n=%d, %d devices, %s: batch %d, want %d", c.g.N(), c.devices, c.way, want, c.want)
		}
		if share := ceilDiv(c.g.N(), c.devices); c.way != shareDynamic && sources != share {
			t.Errorf("n=%d, %d devices, %s: %d sources, want %d", c.g.N(), c.devices, c.way, sources, share)
		}
	}
}

// TestSourceFeed has devices take batches from each way's feed in a
// random order and checks that every source is handed out exactly once,
// in batches of at most the device's batch, each device's sources only
// from its own share (halves, dealt) and, for the dynamic feed, that the
// claims follow one another up the range, that a claim not cut by the
// batch or the end holds a whole number of launches' worth of sources
// with out-arcs (a positive multiple of blocks) and ends at one, that the
// claims not cut by the batch shrink, and that the last holds at most one launch's worth.
func TestSourceFeed(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, c := range []struct{ n, devices, most, blocks int }{
		{1, 2, 5, 4}, {2, 3, 1, 1}, {50, 2, 50, 4}, {301, 2, 40, 8}, {301, 3, 1000, 5}, {1000, 4, 90, 16}, {999, 2, 1000, 1},
	} {
		g := sinkyGraph(t, c.n, uint64(c.n))
		for _, way := range []shareWay{shareHalves, shareDealt, shareDynamic} {
			name := fmt.Sprintf("%s n=%d devices=%d most=%d blocks=%d", way, c.n, c.devices, c.most, c.blocks)
			feed := newSourceFeed(g, c.devices, way, 1)
			var own [][]span
			if way != shareDynamic {
				own = dealSources(c.n, c.devices, map[shareWay]int{shareHalves: 1, shareDealt: apspPipe}[way])
			}
			seen := make([]int, c.n)
			left := make([]int, c.devices)
			for d := range left {
				left[d] = d
			}
			live := func(s span) (k int) {
				for v := s.first; v < s.first+s.count; v++ {
					if g.OutDegree(v) > 0 {
						k++
					}
				}
				return k
			}
			next, lastLive, last := 0, c.n+1, 0
			for len(left) > 0 {
				i := rng.IntN(len(left))
				d := left[i]
				s := feed.take(d, c.most, c.blocks)
				if s.count == 0 {
					left = append(left[:i], left[i+1:]...)
					continue
				}
				if s.count > c.most || s.first < 0 || s.first+s.count > c.n {
					t.Fatalf("%s: device %d took %v", name, d, s)
				}
				for v := s.first; v < s.first+s.count; v++ {
					seen[v]++
				}
				if way != shareDynamic {
					in := false
					for _, o := range own[d] {
						in = in || s.first >= o.first && s.first+s.count <= o.first+o.count
					}
					if !in {
						t.Errorf("%s: device %d took %v outside its share %v", name, d, s, own[d])
					}
					continue
				}
				if s.first != next {
					t.Errorf("%s: claim %v after source %d", name, s, next)
				}
				next = s.first + s.count
				k := live(s)
				if s.count < c.most {
					if k > lastLive {
						t.Errorf("%s: claim %v holds %d sources with out-arcs, more than the one before (%d)", name, s, k, lastLive)
					}
					lastLive = k
				}
				if s.count < c.most && next < c.n && (k == 0 || k%c.blocks != 0 || g.OutDegree(next-1) == 0) {
					t.Errorf("%s: claim %v holds %d sources with out-arcs, not a multiple of %d ending at one", name, s, k, c.blocks)
				}
				last = k
			}
			for v, k := range seen {
				if k != 1 {
					t.Fatalf("%s: source %d handed out %d times", name, v, k)
				}
			}
			if way == shareDynamic && last > c.blocks {
				t.Errorf("%s: the last claim holds %d sources with out-arcs, more than a launch's %d", name, last, c.blocks)
			}
		}
	}
}

// TestEmuAPSPShares runs apsp-batched on two and three emulated devices
// with each way of sharing the sources (and on one), with batches that cut
// the shares and claims (and do not divide them) and with narrow
// launches, on one compute stream and on two (apspOverlap), with the rows
// unpacked and checked by apsp_batch's blocks and by launches of their own
// (apspFused), the streams' work, the default stream's included
// (driver.EmulatorLazyDefault), run in orders their events allow
// (driver.EmulatorShuffle), on random graphs and on one whose sources
// mostly have no out-arc, with and without predecessors: the distances
// must be the CPU's, Π valid, and the progress reported must add up to
// every source exactly once.
func TestEmuAPSPShares(t *testing.T) {
	defer func(w shareWay, o, f bool) { apspShare, apspOverlap, apspFused = w, o, f }(apspShare, apspOverlap, apspFused)
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
		for _, way := range []shareWay{shareHalves, shareDealt, shareDynamic} {
			apspShare = way
			for i, c := range []struct {
				tun     fastTuning
				k       int // devices
				overlap bool
				fused   bool
			}{
				{fastTuning{Batch: 3}, 2, false, true}, {fastTuning{Blocks: 2}, 3, true, true}, {fastTuning{Batch: 10, Blocks: 3}, 2, true, false},
				{fastTuning{Batch: 4}, 1, true, true}, {fastTuning{Batch: 5}, 2, false, false},
			} {
				apspOverlap, apspFused = c.overlap, c.fused
				tun, k, pred := c.tun, c.k, i != 1
				label := fmt.Sprintf("%s, %s, %d devices, overlap %v, fused %v, %+v, pred %v", name, way, k, c.overlap, apspFused, tun, pred)
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
}

// TestEmuAPSPFusedChecks runs apsp_batch fused on one batch of all the
// sources and checks what apspVerdict makes of the checks it leaves: a
// good result passes (and is the CPU's), a batch whose source counter
// starts past its first sources (so that no block takes them and their
// rows hold what the buffer held) is reported with its rows, and a
// distance beyond ±graph.MaxDistance and a negative diagonal, which the
// blocks' own checks flag, are reported as ff_finish's flags are.
func TestEmuAPSPFusedChecks(t *testing.T) {
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
		{"a row left", sinky, 1, "internal error: batch 0 on %s (sources 0..39) finished 39 rows of its 40"},
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
			a := &apspBatches{n: n, blocks: 3, fused: true, tun: fastTuning{Block: 64, Group: 1, Delta: 1 << 29}}
			if a.gr, err = r.uploadCSR(c.g); err != nil {
				t.Fatal(err)
			}
			if a.slab[0], err = r.alloc(2 * a.blocks * n); err != nil {
				t.Fatal(err)
			}
			if a.scratch[0], err = r.alloc(a.blocks * apspScratch * n); err != nil {
				t.Fatal(err)
			}
			if err := r.apspCounters(a, n); err != nil {
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
			if err := r.queueBatch(a, 0, 0, 0, parts[0], out); err != nil {
				t.Fatal(err)
			}
			f := make([]int32, 4)
			if err := r.readInts(f, buffer{a.checks.ptr, len(f)}); err != nil {
				t.Fatal(err)
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

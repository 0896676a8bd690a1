package gpu

// apsp-batched and the auto pick on the emulator, against the CPU.

import (
	"context"
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

// TestDealSources checks that every source goes to exactly one device,
// that each device's share spans the range of sources (its first chunk in
// the first devices' worth of chunks, its last in the last), that the
// chunks' sizes differ by at most one, and that apsp-batched on two
// emulated devices, with batches smaller than a chunk (which split it)
// and not dividing it, gives the CPU's distances and a valid Π.
func TestDealSources(t *testing.T) {
	for _, c := range []struct{ n, devices int }{{0, 1}, {1, 1}, {5, 1}, {2, 2}, {3, 3}, {17, 2}, {100, 3}, {36682, 2}, {36682, 4}} {
		shares := dealSources(c.n, c.devices)
		seen := make([]int, c.n)
		sizes := map[int]bool{}
		for d, share := range shares {
			for _, s := range share {
				sizes[s.count] = true
				for v := s.first; v < s.first+s.count; v++ {
					seen[v]++
				}
			}
			if c.n >= apspDeal*c.devices && c.devices > 1 {
				// Within a chunk per device of either end.
				edge := c.devices * (c.n/(apspDeal*c.devices) + 1)
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
				t.Fatalf("n=%d, %d devices: source %d dealt %d times", c.n, c.devices, v, k)
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
	ctx := context.Background()
	devs := emulators(t, 2)
	for _, tg := range randomGraphs(t, 83, 5) {
		if tg.g.HasNegative() {
			continue
		}
		ref, err := cpu.FloydWarshall(ctx, tg.g, cpu.FWOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := apspBatchedTuned(ctx, tg.g, Options{Devices: devs, Pred: true}, fastTuning{Batch: 3})
		if err != nil {
			t.Fatalf("%s: %v", tg.name, err)
		}
		if !got.SameDistances(ref) {
			t.Errorf("%s: distances differ from the CPU:\n%s", tg.name, got.Diff(ref, 5))
		}
		if err := got.Verify(tg.g); err != nil {
			t.Errorf("%s: %v", tg.name, err)
		}
	}
}

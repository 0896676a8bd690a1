package gpu

// johnson-fast on the emulator, against cpu.Johnson and cpu.FloydWarshall.

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/graph"
)

// TestEmuJohnsonFast checks johnson-fast on graphs with negative arcs and
// no negative cycle (random graphs and the awkward shapes under random
// potentials) and on graphs without negative arcs, with and without
// predecessors, under batches that do not divide n, against cpu.Johnson
// and cpu.FloydWarshall; the launches show that both phases are counted.
func TestEmuJohnsonFast(t *testing.T) {
	ctx := context.Background()
	dev := emulator(t)
	check := func(name string, g *graph.Graph, tun fastTuning, pred bool) {
		t.Helper()
		johnson, err := cpu.Johnson(ctx, g, cpu.APSPOptions{})
		if err != nil {
			t.Fatalf("%s: cpu.Johnson: %v", name, err)
		}
		fw, err := cpu.FloydWarshall(ctx, g, cpu.FWOptions{})
		if err != nil {
			t.Fatalf("%s: cpu.FloydWarshall: %v", name, err)
		}
		var s Stats
		got, err := johnsonFastTuned(ctx, g, Options{Device: dev, Pred: pred, Stats: &s}, tun)
		if err != nil {
			t.Errorf("%s (%+v): %v", name, tun, err)
			return
		}
		if got.Solver != VariantJohnsonFast || s.Variant != VariantJohnsonFast {
			t.Errorf("%s: solver %q, stats %q", name, got.Solver, s.Variant)
		}
		for ref, want := range map[string]*graph.AllPairs{"cpu.Johnson": johnson, "cpu.FloydWarshall": fw} {
			if !got.SameDistances(want) {
				t.Errorf("%s (%+v, pred %v): distances differ from %s:\n%s", name, tun, pred, ref, got.Diff(want, 5))
				return
			}
		}
		if pred {
			if err := got.Verify(g); err != nil {
				t.Errorf("%s (%+v): %v", name, tun, err)
			}
		} else if got.Pred != nil {
			t.Errorf("%s: predecessors without Pred", name)
		}
		if n := g.N(); tun.Batch > 0 && n > 0 {
			// apsp-batched: one launch per batch (whose blocks unpack and
			// check their rows); bf-fast: init, at least one run and an
			// unpack, only with negative arcs.
			dijkstra := (n + tun.Batch - 1) / tun.Batch
			if (g.HasNegative() && s.Launches < dijkstra+3) || (!g.HasNegative() && s.Launches != dijkstra) {
				t.Errorf("%s (%+v): %d launches for %d batches (negative arcs %v)", name, tun, s.Launches, dijkstra, g.HasNegative())
			}
		}
	}
	tunings := []fastTuning{{}, {Batch: 7, Group: 1, Delta: 1}, {Batch: 3, Block: 32, Heavy: 2, Group: 2}}
	for _, n := range []int{1, 2, 45, 130} {
		for j, tg := range randomGraphs(t, n, uint64(1300+n)) {
			g := tg.g
			if j < 2 && n != 45 {
				g = withPotentials(t, g, uint64(j+n))
			}
			for i, tun := range tunings {
				if n > 100 && i == 2 {
					continue // three sources a batch on 32 threads is slow on the interpreter at n = 130
				}
				check(tg.name, g, tun, i%2 == 0)
			}
		}
	}
	for name, g := range awkwardGraphs(t) {
		neg := withPotentials(t, g, uint64(len(name)))
		check(name+" with potentials", neg, fastTuning{Batch: 2}, true)
		check(name+" with potentials", neg, fastTuning{}, false)
	}
	empty, err := graph.NewBuilder(0).Build()
	if err != nil {
		t.Fatal(err)
	}
	if res, err := JohnsonFast(ctx, empty, Options{Device: dev, Pred: true}); err != nil || res.N != 0 || len(res.Dist) != 0 {
		t.Errorf("n = 0: %v, %v", res, err)
	}
}

// TestEmuJohnsonFastNegativeCycles checks that a negative cycle, a
// negative self-loop among them, is reported as a *graph.NegativeCycleError
// holding a real cycle of the graph with the graph's labels, although
// bf-fast ran on a copy with a virtual source, and that the search is in
// opts.Stats.
func TestEmuJohnsonFastNegativeCycles(t *testing.T) {
	ctx := context.Background()
	labelled := graph.NewBuilder(0)
	for _, a := range []struct {
		u, v string
		w    int32
	}{{"s", "a", 3}, {"a", "b", 2}, {"b", "c", -6}, {"c", "a", 1}, {"c", "d", 1}, {"x", "y", -1}} {
		labelled.AddLabeled(a.u, a.v, a.w)
	}
	lg, err := labelled.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		g    *graph.Graph
		want []int // the cycle, from its smallest vertex
	}{
		{"cycle", mustGraph(t, 7, "0->1 3, 1->2 -4, 2->3 1, 3->1 1, 3->4 2, 5->6 1"), []int{1, 2, 3}},
		{"unreachable from 0", mustGraph(t, 5, "0->1 1, 2->3 -2, 3->4 1, 4->2 -1"), []int{2, 3, 4}},
		{"negative self-loop", mustGraph(t, 3, "0->1 1, 1->1 -1, 1->2 1"), []int{1}},
		{"labelled", lg, []int{1, 2, 3}},
	} {
		var s Stats
		_, err := JohnsonFast(ctx, c.g, Options{Device: emulator(t), Pred: true, Stats: &s})
		if s.Variant != VariantJohnsonFast || s.Launches < 2 || s.Wall <= 0 {
			t.Errorf("%s: stats %+v, want bf-fast's launches under johnson-fast", c.name, s)
		}
		var nc *graph.NegativeCycleError
		if !errors.As(err, &nc) {
			t.Errorf("%s: %v, want a *graph.NegativeCycleError", c.name, err)
			continue
		}
		for i, u := range nc.Cycle {
			if _, ok := c.g.Weight(u, nc.Cycle[(i+1)%len(nc.Cycle)]); !ok {
				t.Errorf("%s: cycle %v has no arc %d->%d", c.name, nc.Cycle, u, nc.Cycle[(i+1)%len(nc.Cycle)])
			}
		}
		if !slices.Equal(nc.Cycle, c.want) || nc.Weight >= 0 || nc.Weight != c.g.CycleWeight(nc.Cycle) || !slices.Contains(nc.Cycle, nc.Vertex) {
			t.Errorf("%s: cycle %v of weight %d through %d, want %v", c.name, nc.Cycle, nc.Weight, nc.Vertex, c.want)
		}
		if !slices.Equal(nc.Labels, c.g.Labels()) {
			t.Errorf("%s: labels %v, want the graph's %v", c.name, nc.Labels, c.g.Labels())
		}
	}
	if _, err := JohnsonFast(ctx, lg, Options{Device: emulator(t)}); err == nil || !strings.Contains(err.Error(), "a -> b -> c -> a (weight -3)") {
		t.Errorf("labelled: %v, want the cycle by its labels", err)
	}
}

// TestJohnsonFastRange checks the refusal of graphs whose reweighted paths
// could leave the int32 range, which fw-fast still takes, and of results
// too large for the host before bf-fast runs, and the internal error of
// potentials that are not shortest distances.
func TestJohnsonFastRange(t *testing.T) {
	ctx := context.Background()
	g := mustGraph(t, 4, "0->1 200000000, 1->2 -200000000, 2->3 5")
	_, err := JohnsonFast(ctx, g, Options{Device: emulator(t)})
	if err == nil || !strings.Contains(err.Error(), "johnson-fast: weights up to |200000000| on 4 vertices: reweighted paths could weigh up to 2·n·|w| = 1600000000") {
		t.Errorf("heavy negative arcs: %v", err)
	}
	if err := johnsonRange(mustGraph(t, 4, "0->1 200000000, 1->2 5")); err != nil {
		t.Errorf("heavy arcs without negative ones: %v", err)
	}
	huge, err := graph.FromArcs(1<<21, []graph.Arc{{From: 0, To: 1, Weight: -1}})
	if err != nil {
		t.Fatal(err)
	}
	var s Stats
	if _, err := JohnsonFast(ctx, huge, Options{Device: emulator(t), Stats: &s}); err == nil || !strings.Contains(err.Error(), "johnson-fast: host memory: graph: 1 n×n int32 matrices for n=2097152") || s.Launches != 0 {
		t.Errorf("a 16 TiB result: %v after %d launches", err, s.Launches)
	}
	if _, err := reweight(mustGraph(t, 2, "0->1 -1"), []int32{0, 0}); err == nil || !strings.Contains(err.Error(), "internal error: arc 0->1 reweighs to -1") {
		t.Errorf("reweighting by wrong potentials: %v", err)
	}
}

package gpu

// The comparison of GPU variants with the CPU solvers, shared by the tests
// on a card (device_test.go, cuda build) and on the emulator (emu_test.go).

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/graph"
)

// testGraph is one generated input with its CPU references.
type testGraph struct {
	name string
	g    *graph.Graph
	all  *graph.AllPairs // cpu.FloydWarshallBlocked
}

// randomGraphs returns sparse and dense random graphs on n vertices and, a
// sparse one with negative arcs but no negative cycle (weights reduced by
// random potentials, w(u,v) + p(u) - p(v)).
func randomGraphs(t *testing.T, n int, seed uint64) []testGraph {
	t.Helper()
	possible := n * (n - 1)
	specs := []struct {
		name string
		m    int
	}{{"sparse", min(2*n, possible)}, {"dense", possible / 3}}
	var out []testGraph
	for i, s := range specs {
		g, err := graph.GNM(n, s.m, graph.WeightRange{Min: 1, Max: 100}, seed+uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, testGraph{name: fmt.Sprintf("%s n=%d m=%d", s.name, n, g.M()), g: g})
	}
	neg := withPotentials(t, out[0].g, seed)
	out = append(out, testGraph{name: fmt.Sprintf("negative n=%d m=%d", n, neg.M()), g: neg})
	for i := range out {
		var err error
		out[i].all, err = cpu.FloydWarshallBlocked(context.Background(), out[i].g, cpu.FWOptions{})
		if err != nil {
			t.Fatalf("%s: cpu reference: %v", out[i].name, err)
		}
	}
	return out
}

// withPotentials returns g with every arc u→v reweighted by random vertex
// potentials in 0..59 drawn from seed, w + p(u) - p(v): arcs may turn
// negative, but every cycle keeps its weight, so there is no negative
// cycle where g had none. Parallel arcs are kept.
func withPotentials(t *testing.T, g *graph.Graph, seed uint64) *graph.Graph {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	p := make([]int32, g.N())
	for v := range p {
		p[v] = int32(rng.IntN(60))
	}
	arcs := g.Arcs()
	for k := range arcs {
		arcs[k].Weight += p[arcs[k].From] - p[arcs[k].To]
	}
	out, err := graph.NewBuilder(g.N()).Duplicates(graph.KeepAll).AddArcs(arcs).Build()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkVariant runs variant v on dev (nil: the default device) on tg (all
// pairs, or from a few sources) and compares with the CPU; with
// predecessors it also rebuilds every path.
func checkVariant(t *testing.T, dev *Device, v Variant, tg testGraph, pred bool) {
	t.Helper()
	ctx := context.Background()
	if !v.Negative && tg.g.HasNegative() {
		return
	}
	opts := Options{Pred: pred, Device: dev}
	if v.AllPairs {
		res, err := v.SolveAll(ctx, tg.g, opts)
		if err != nil {
			t.Errorf("%s on %s: %v", v.Name, tg.name, err)
			return
		}
		if res.Solver != v.Name {
			t.Errorf("%s on %s: Solver = %q", v.Name, tg.name, res.Solver)
		}
		if !res.SameDistances(tg.all) {
			t.Errorf("%s on %s (pred %v): distances differ from the CPU:\n%s", v.Name, tg.name, pred, res.Diff(tg.all, 5))
			return
		}
		if pred {
			if err := res.Verify(tg.g); err != nil {
				t.Errorf("%s on %s: %v", v.Name, tg.name, err)
			}
		} else if res.Pred != nil {
			t.Errorf("%s on %s: predecessors without Pred", v.Name, tg.name)
		}
		return
	}
	n := tg.g.N()
	for _, s := range slices.Compact([]int{0, n / 2, n - 1}) {
		res, err := v.SolveFrom(ctx, tg.g, s, opts)
		if err != nil {
			t.Errorf("%s on %s from %d: %v", v.Name, tg.name, s, err)
			return
		}
		want := tg.all.Row(s)
		if !res.SameDistances(want) {
			t.Errorf("%s on %s from %d (pred %v): distances differ from the CPU:\n%s", v.Name, tg.name, s, pred, res.Diff(want, 5))
			return
		}
		if pred {
			if err := res.Verify(tg.g); err != nil {
				t.Errorf("%s on %s from %d: %v", v.Name, tg.name, s, err)
			}
		}
	}
}

// checkExamples runs every variant on dev (nil: the default device) on the
// documents' example graphs. On these (n ≤ 32) every Floyd-Warshall
// variant relaxes in plain k order, so its Π must equal the CPU triple
// loop's cell for cell.
func checkExamples(t *testing.T, dev *Device) {
	t.Helper()
	ctx := context.Background()
	for _, name := range graph.ExampleNames() {
		g, err := graph.Example(name)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := cpu.FloydWarshall(ctx, g, cpu.FWOptions{Pred: true})
		if err != nil {
			t.Fatal(err)
		}
		tg := testGraph{name: name, g: g, all: ref}
		for _, v := range Variants() {
			checkVariant(t, dev, v, tg, true)
			if v.Algorithm != "Floyd-Warshall" || g.N() > 32 {
				continue
			}
			res, err := v.SolveAll(ctx, g, Options{Device: dev, Pred: true})
			if err != nil {
				t.Errorf("%s on %s: %v", v.Name, name, err)
			} else if !slices.Equal(res.Pred, ref.Pred) {
				t.Errorf("%s on %s: Π = %v, the CPU triple loop's is %v", v.Name, name, res.Pred, ref.Pred)
			}
		}
	}
}

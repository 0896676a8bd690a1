package cpu

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pathnotes/pathnotes/graph"
	"gonum.org/v1/gonum/graph/path"
	"gonum.org/v1/gonum/graph/simple"
)

// simpleGraph is gonum's weighted digraph, the reference's input.
type simpleGraph = simple.WeightedDirectedGraph

// gonumGraph builds gonum's view of g: the lightest arc of each pair, as
// float64 weights. gonum's simple graphs take no self-loops: loops that are
// not negative are left out, since they change no distance, and graphs
// with negative self-loops have no gonum reference.
func gonumGraph(t testing.TB, g *graph.Graph) *simpleGraph {
	gg := simple.NewWeightedDirectedGraph(0, math.Inf(1))
	for v := 0; v < g.N(); v++ {
		gg.AddNode(simple.Node(v))
	}
	for _, a := range g.Arcs() {
		if a.From == a.To && a.Weight >= 0 {
			continue // kept by Builder.KeepLoops: it changes no distance
		}
		if a.From == a.To {
			t.Fatalf("gonumGraph: %s has a negative self-loop at %d", g.Name(), a.From)
		}
		w, _ := g.Weight(a.From, a.To)
		gg.SetWeightedEdge(gg.NewWeightedEdge(simple.Node(a.From), simple.Node(a.To), float64(w)))
	}
	return gg
}

// fromFloat converts a gonum distance to ours.
func fromFloat(t testing.TB, w float64) int32 {
	if math.IsInf(w, 1) {
		return graph.Inf
	}
	if w != math.Trunc(w) || math.Abs(w) > float64(graph.MaxDistance) {
		t.Fatalf("gonum distance %v is not an in-range integer", w)
	}
	return int32(w)
}

// gonumAllPairs returns gonum's Floyd-Warshall distances, or ok = false
// when gonum finds a negative cycle.
func gonumAllPairs(t testing.TB, g *graph.Graph) (dist []int32, ok bool) {
	n := g.N()
	paths, ok := path.FloydWarshall(gonumGraph(t, g))
	if !ok {
		return nil, false
	}
	dist = make([]int32, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			dist[i*n+j] = fromFloat(t, paths.Weight(int64(i), int64(j)))
		}
	}
	return dist, true
}

// gonumFrom returns gonum's single-source distances: DijkstraFrom when the
// weights are non-negative, BellmanFordFrom otherwise (ok = false on a
// negative cycle).
func gonumFrom(t testing.TB, gg *simpleGraph, n, source int, negative bool) (dist []int32, ok bool) {
	var sp path.Shortest
	if negative {
		sp, ok = path.BellmanFordFrom(simple.Node(source), gg)
		if !ok {
			return nil, false
		}
	} else {
		sp = path.DijkstraFrom(simple.Node(source), gg)
	}
	dist = make([]int32, n)
	for v := range dist {
		dist[v] = fromFloat(t, sp.WeightTo(int64(v)))
	}
	return dist, true
}

// testGraph is one random test case.
type testGraph struct {
	g        *graph.Graph
	negCycle bool // the generator planted a negative cycle
	selfLoop bool // it has a self-loop, so gonum cannot take it
}

func (c testGraph) String() string { return c.g.Name() }

// potentials reweights g's non-negative arcs by w + p(u) - p(v) for random
// p in 0..spread: arcs turn negative, every cycle keeps its non-negative
// weight, so there is no negative cycle.
func potentials(t testing.TB, g *graph.Graph, spread int32, seed uint64) *graph.Graph {
	rng := rand.New(rand.NewPCG(seed, 7))
	p := make([]int32, g.N())
	for v := range p {
		p[v] = rng.Int32N(spread + 1)
	}
	arcs := g.Arcs()
	for i := range arcs {
		arcs[i].Weight += p[arcs[i].From] - p[arcs[i].To]
	}
	h, err := graph.FromArcs(g.N(), arcs)
	if err != nil {
		t.Fatal(err)
	}
	return h.WithName(g.Name() + "+potentials")
}

// withArcs returns g plus extra arcs, keeping parallel arcs (KeepAll) so
// that solvers see duplicates.
func withArcs(t testing.TB, g *graph.Graph, name string, extra ...graph.Arc) *graph.Graph {
	h, err := graph.NewBuilder(g.N()).Duplicates(graph.KeepAll).AddArcs(g.Arcs()).AddArcs(extra).Build()
	if err != nil {
		t.Fatal(err)
	}
	return h.WithName(g.Name() + "+" + name)
}

// randomGraphs returns the seeded families every solver is checked on:
// sparse and dense G(n,m) (unreachable pairs come with sparsity), negative
// arcs without negative cycles, parallel arcs, kept non-negative loops,
// planted negative cycles and negative self-loops, over sizes that are not
// multiples of any tile.
func randomGraphs(t testing.TB, sizes []int, seeds int) []testGraph {
	var out []testGraph
	gnm := func(n, m int, lo, hi int32, seed uint64) *graph.Graph {
		g, err := graph.GNM(n, m, graph.WeightRange{Min: lo, Max: hi}, seed)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	for _, n := range sizes {
		possible := n * max(n-1, 0)
		for s := range seeds {
			seed := uint64(n*1000 + s)
			sparse := gnm(n, min(2*n, possible), 0, 100, seed)
			dense := gnm(n, possible/2, 1, 1000, seed+1)
			out = append(out,
				testGraph{g: sparse},
				testGraph{g: dense},
				testGraph{g: potentials(t, sparse, 50, seed)},
				testGraph{g: potentials(t, dense, 500, seed)},
			)
			if n < 2 {
				continue
			}
			rng := rand.New(rand.NewPCG(seed, 11))
			u, v := rng.IntN(n), rng.IntN(n-1)
			if v >= u {
				v++
			}
			out = append(out, testGraph{g: withArcs(t, sparse, "dups",
				graph.Arc{From: u, To: v, Weight: 7}, graph.Arc{From: u, To: v, Weight: 3}, graph.Arc{From: v, To: u, Weight: 0})})
			// Loops that are not negative, kept as a drawing keeps them:
			// no solver may take one.
			loops, err := graph.NewBuilder(n).KeepLoops().Duplicates(graph.KeepAll).AddArcs(sparse.Arcs()).
				AddArc(u, u, 0).AddArc(v, v, 5).Build()
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, testGraph{g: loops.WithName(sparse.Name() + "+loops")})
			// A planted cycle u -> v -> u of weight -1 among heavier arcs.
			out = append(out, testGraph{g: withArcs(t, dense, "negcycle",
				graph.Arc{From: u, To: v, Weight: -1001}, graph.Arc{From: v, To: u, Weight: 1000}), negCycle: true})
			if s == 0 {
				out = append(out, testGraph{g: withArcs(t, sparse, "negloop",
					graph.Arc{From: v, To: v, Weight: -1}), negCycle: true, selfLoop: true})
			}
		}
	}
	return out
}

// checkNegativeCycle asserts that err reports a real negative cycle of g;
// withCycle says whether the solver was asked for the cycle itself.
func checkNegativeCycle(t testing.TB, g *graph.Graph, err error, withCycle bool, solver string) {
	var nc *graph.NegativeCycleError
	if !errors.As(err, &nc) {
		t.Fatalf("%s on %s: error %v, want a negative cycle", solver, g.Name(), err)
	}
	if nc.Vertex < 0 || nc.Vertex >= g.N() {
		t.Fatalf("%s on %s: negative cycle vertex %d out of range", solver, g.Name(), nc.Vertex)
	}
	if !withCycle {
		return
	}
	if len(nc.Cycle) == 0 {
		t.Fatalf("%s on %s: no cycle in %v", solver, g.Name(), err)
	}
	if !slices.Contains(nc.Cycle, nc.Vertex) {
		t.Errorf("%s on %s: vertex %d is not on the cycle %v", solver, g.Name(), nc.Vertex, nc.Cycle)
	}
	var sum int64
	for i, u := range nc.Cycle {
		v := nc.Cycle[(i+1)%len(nc.Cycle)]
		w, ok := g.Weight(u, v)
		if !ok {
			t.Fatalf("%s on %s: cycle %v uses a missing arc %d->%d", solver, g.Name(), nc.Cycle, u, v)
		}
		sum += int64(w)
	}
	if sum >= 0 || sum != nc.Weight {
		t.Errorf("%s on %s: cycle %v weighs %d, error says %d (want negative)", solver, g.Name(), nc.Cycle, sum, nc.Weight)
	}
}

// sameDist compares two distance matrices and reports the first few cells
// that differ.
func sameDist(t testing.TB, got, want []int32, n int, what string) {
	if len(got) != len(want) {
		t.Fatalf("%s: %d cells, want %d", what, len(got), len(want))
	}
	bad := 0
	for c := range got {
		if got[c] != want[c] {
			if bad < 5 {
				t.Errorf("%s: dist[%d][%d] = %s, want %s", what, c/max(n, 1), c%max(n, 1), graph.FormatDist(got[c]), graph.FormatDist(want[c]))
			}
			bad++
		}
	}
	if bad > 0 {
		t.Fatalf("%s: %d cells differ", what, bad)
	}
}

func name(parts ...any) string { return fmt.Sprint(parts...) }

package cpu

import (
	"context"
	"testing"

	"github.com/pathnotes/pathnotes/graph"
)

// apspSolver is one all-pairs configuration under test.
type apspSolver struct {
	name string
	run  func(g *graph.Graph, pred bool) (*graph.AllPairs, error)
}

// apspSolvers lists every all-pairs configuration for a graph of n
// vertices: every Floyd-Warshall variant (naive, as written, and blocked
// with tiles that do and do not divide n, one and two workers), DijkstraAll
// and Johnson.
func apspSolvers(n int) []apspSolver {
	ctx := context.Background()
	solvers := []apspSolver{
		{"naive", func(g *graph.Graph, pred bool) (*graph.AllPairs, error) {
			return FloydWarshall(ctx, g, FWOptions{Pred: pred})
		}},
		{"as-written", func(g *graph.Graph, pred bool) (*graph.AllPairs, error) {
			return FloydWarshallAsWritten(ctx, g, FWOptions{Pred: pred})
		}},
		{"dijkstra-all", func(g *graph.Graph, pred bool) (*graph.AllPairs, error) {
			return DijkstraAll(ctx, g, APSPOptions{Pred: pred, Workers: 2})
		}},
		{"johnson", func(g *graph.Graph, pred bool) (*graph.AllPairs, error) {
			return Johnson(ctx, g, APSPOptions{Pred: pred})
		}},
	}
	tiles := []int{1, 2, 3, 8, 32, 64, n + 1}
	if n > 100 {
		tiles = []int{3, 8, 32, 64, n + 1} // tiles of 1 or 2 cost up to n³ tile calls
	}
	for i, tile := range tiles {
		workers := 1 + i%2
		solvers = append(solvers, apspSolver{name("blocked/tile=", tile, "/workers=", workers),
			func(g *graph.Graph, pred bool) (*graph.AllPairs, error) {
				return FloydWarshallBlocked(ctx, g, FWOptions{Pred: pred, Tile: tile, Workers: workers})
			}})
	}
	if simd != nil {
		// The Go loops alone, as on a CPU without the vector kernels.
		for _, tile := range []int{3, 32, n + 1} {
			solvers = append(solvers, apspSolver{name("blocked-go/tile=", tile),
				func(g *graph.Graph, pred bool) (*graph.AllPairs, error) {
					defer withoutSIMD()()
					return FloydWarshallBlocked(ctx, g, FWOptions{Pred: pred, Tile: tile, Workers: 2})
				}})
		}
	}
	return solvers
}

// withoutSIMD turns the vector kernels off until the returned function
// runs. Tests that use it must not run in parallel.
func withoutSIMD() (restore func()) {
	saved := simd
	simd = nil
	return func() { simd = saved }
}

func TestAllPairsAgainstGonum(t *testing.T) {
	cases := randomGraphs(t, []int{0, 1, 2, 3, 5, 8, 31, 33, 63, 65, 100}, 4)
	if !testing.Short() {
		cases = append(cases, randomGraphs(t, []int{257, 300}, 1)...)
	}
	count := 0
	for _, c := range cases {
		g, n := c.g, c.g.N()
		var want []int32
		if !c.selfLoop {
			var ok bool
			want, ok = gonumAllPairs(t, g)
			if ok == c.negCycle {
				t.Fatalf("%s: gonum's negative-cycle verdict %v disagrees with the generator", g.Name(), !ok)
			}
		}
		for _, s := range apspSolvers(n) {
			if s.name == "dijkstra-all" && g.HasNegative() {
				if _, err := DijkstraAll(context.Background(), g, APSPOptions{}); err == nil {
					t.Errorf("DijkstraAll on %s accepted a negative arc", g.Name())
				}
				continue
			}
			for _, pred := range []bool{true, false} {
				what := name(s.name, " pred=", pred, " on ", g.Name())
				res, err := s.run(g, pred)
				if c.negCycle {
					checkNegativeCycle(t, g, err, pred || s.name == "johnson", what)
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				sameDist(t, res.Dist, want, n, what)
				if (res.Pred != nil) != pred {
					t.Fatalf("%s: predecessor matrix present = %v", what, res.Pred != nil)
				}
				if err := res.Verify(g); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				count++
			}
		}
	}
	t.Logf("%d graphs, %d solver runs checked against gonum", len(cases), count)
}

func TestSingleSourceAgainstGonum(t *testing.T) {
	ctx := context.Background()
	cases := randomGraphs(t, []int{1, 2, 3, 5, 8, 31, 33, 63, 65, 100}, 3)
	if !testing.Short() {
		cases = append(cases, randomGraphs(t, []int{257, 300}, 1)...)
	}
	count := 0
	for _, c := range cases {
		g, n := c.g, c.g.N()
		var ref *gonumRef
		if !c.selfLoop {
			ref = &gonumRef{gg: gonumGraph(t, g)}
		}
		sources := []int{0, n / 2, n - 1}
		if n > 100 {
			sources = sources[:1] // gonum's Bellman-Ford is slow on the dense ones
		}
		for _, src := range sources {
			if ref != nil {
				ref.dist, ref.ok = gonumFrom(t, ref.gg, n, src, g.HasNegative())
			}
			for _, pred := range []bool{true, false} {
				what := name("BellmanFord from ", src, " pred=", pred, " on ", g.Name())
				res, err := BellmanFord(ctx, g, src, BFOptions{Pred: pred})
				checkSingle(t, g, ref, src, res, err, pred, what)
				if g.HasNegative() {
					if _, err := Dijkstra(ctx, g, src, DijkstraOptions{}); err == nil {
						t.Fatalf("Dijkstra on %s accepted a negative arc", g.Name())
					}
					continue
				}
				what = name("Dijkstra from ", src, " pred=", pred, " on ", g.Name())
				res, err = Dijkstra(ctx, g, src, DijkstraOptions{Pred: pred})
				checkSingle(t, g, ref, src, res, err, pred, what)
				count++
			}
		}
	}
	t.Logf("%d graphs, %d Dijkstra runs checked against gonum", len(cases), count)
}

// gonumRef is gonum's answer for one source: its graph, the distances, and
// ok = false when it found a negative cycle.
type gonumRef struct {
	gg   *simpleGraph
	dist []int32
	ok   bool
}

// checkSingle checks one single-source result against gonum's, or, for
// graphs gonum cannot take (ref == nil), by Verify alone.
func checkSingle(t *testing.T, g *graph.Graph, ref *gonumRef, src int, res *graph.SingleSource, err error, pred bool, what string) {
	if (ref != nil && !ref.ok) || (ref == nil && err != nil) {
		checkNegativeCycle(t, g, err, true, what)
		return
	}
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if ref != nil {
		sameDist(t, res.Dist, ref.dist, 0, what)
	}
	if (res.Pred != nil) != pred {
		t.Fatalf("%s: predecessors present = %v", what, res.Pred != nil)
	}
	if res.Source != src || res.Solver == "" {
		t.Fatalf("%s: source %d solver %q", what, res.Source, res.Solver)
	}
	if err := res.Verify(g); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

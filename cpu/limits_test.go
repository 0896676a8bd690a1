package cpu

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/graph"
)

// countdownCtx is a context whose Err turns to Canceled after a number of
// calls, so that a test can cancel a solver mid-run at a known check
// without relying on timing.
type countdownCtx struct {
	context.Context
	left int
}

func (c *countdownCtx) Err() error {
	if c.left <= 0 {
		return context.Canceled
	}
	c.left--
	return nil
}

// solverRuns lists every solver as a function of a context.
func solverRuns(g *graph.Graph) map[string]func(ctx context.Context) error {
	run := func(f func(ctx context.Context) (any, error)) func(ctx context.Context) error {
		return func(ctx context.Context) error { _, err := f(ctx); return err }
	}
	return map[string]func(ctx context.Context) error{
		"FloydWarshall": run(func(ctx context.Context) (any, error) { return FloydWarshall(ctx, g, FWOptions{Pred: true}) }),
		"FloydWarshallAsWritten": run(func(ctx context.Context) (any, error) {
			return FloydWarshallAsWritten(ctx, g, FWOptions{Pred: true})
		}),
		"FloydWarshallBlocked/1": run(func(ctx context.Context) (any, error) {
			return FloydWarshallBlocked(ctx, g, FWOptions{Pred: true, Tile: 16, Workers: 1})
		}),
		"FloydWarshallBlocked/2": run(func(ctx context.Context) (any, error) {
			return FloydWarshallBlocked(ctx, g, FWOptions{Tile: 16, Workers: 2})
		}),
		"Dijkstra":    run(func(ctx context.Context) (any, error) { return Dijkstra(ctx, g, 0, DijkstraOptions{Pred: true}) }),
		"DijkstraAll": run(func(ctx context.Context) (any, error) { return DijkstraAll(ctx, g, APSPOptions{Workers: 2}) }),
		"BellmanFord": run(func(ctx context.Context) (any, error) { return BellmanFord(ctx, g, 0, BFOptions{}) }),
		"Johnson":     run(func(ctx context.Context) (any, error) { return Johnson(ctx, g, APSPOptions{}) }),
	}
}

func TestCancelledBeforeStart(t *testing.T) {
	g := example(t, "karaula-fig3.1")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, run := range solverRuns(g) {
		err := run(ctx)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context: %v", name, err)
		} else if !strings.Contains(err.Error(), "interrupted") {
			t.Errorf("%s: error %q does not say what was interrupted", name, err)
		}
	}
}

func TestCancelledMidRun(t *testing.T) {
	g, err := graph.GNM(600, 6000, graph.WeightRange{Min: 1, Max: 100}, 1)
	if err != nil {
		t.Fatal(err)
	}
	big, err := graph.GNM(20000, 60000, graph.WeightRange{Min: 1, Max: 100}, 2)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		solver string
		g      *graph.Graph
		checks int    // calls to Err that pass before it reports Canceled
		want   string // progress named in the error
	}{
		{"FloydWarshall", g, 3, "3 of 600 pivots"},
		{"FloydWarshallBlocked/1", g, 2, "of 600 pivots"},
		{"FloydWarshallBlocked/2", g, 2, "of 600 pivots"},
		{"Dijkstra", big, 2, "8192 vertices settled"},
		{"DijkstraAll", g, 10, "interrupted"},
		{"BellmanFord", big, 2, "2 passes"},
		{"Johnson", g, 10, "interrupted"},
	}
	for _, c := range cases {
		ctx := &countdownCtx{Context: context.Background(), left: c.checks}
		err := solverRuns(c.g)[c.solver](ctx)
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s cancelled after %d checks: %v (want %q)", c.solver, c.checks, err, c.want)
		}
	}
}

func TestTooLargeForMemory(t *testing.T) {
	// 3·10^6 vertices: a distance matrix would take 36 TB.
	g, err := graph.NewBuilder(3_000_000).AddArc(0, 1, 1).Build()
	if err != nil {
		t.Fatal(err)
	}
	for name, run := range solverRuns(g) {
		if name == "Dijkstra" || name == "BellmanFord" {
			continue // single-source needs no matrix
		}
		err := run(context.Background())
		if err == nil || !strings.Contains(err.Error(), "3000000") {
			t.Errorf("%s on n=3e6: %v, want a size error naming n", name, err)
		}
	}
	res, err := Dijkstra(context.Background(), g, 0, DijkstraOptions{})
	if err != nil || res.Dist[1] != 1 || res.Dist[2] != graph.Inf {
		t.Errorf("Dijkstra on n=3e6: %v", err)
	}
}

func TestTraceTooLarge(t *testing.T) {
	g, err := graph.GNM(graph.MaxTraceN+1, 100, graph.WeightRange{Min: 1, Max: 9}, 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, err1 := FloydWarshall(ctx, g, FWOptions{Trace: &graph.FWTrace{}})
	_, err2 := FloydWarshallBlocked(ctx, g, FWOptions{Trace: &graph.FWTrace{}})
	_, err3 := Dijkstra(ctx, g, 0, DijkstraOptions{Trace: &graph.DijkstraTrace{}})
	for _, err := range []error{err1, err2, err3} {
		if err == nil || !strings.Contains(err.Error(), "cannot trace") {
			t.Errorf("tracing n=%d: %v", g.N(), err)
		}
	}
}

func TestBadArguments(t *testing.T) {
	ctx := context.Background()
	g := example(t, "karaula-fig3.1")
	neg, err := graph.Parse("0->1 -2, 1->2 1")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{second(FloydWarshall(ctx, nil, FWOptions{})), "nil graph"},
		{second(FloydWarshallBlocked(ctx, g, FWOptions{Tile: -1})), "tile"},
		{second(FloydWarshallBlocked(ctx, g, FWOptions{Workers: -2})), "worker"},
		{second(Dijkstra(ctx, g, 5, DijkstraOptions{})), "source 5 out of range 0..4"},
		{second(BellmanFord(ctx, g, -1, BFOptions{})), "source -1"},
		{second(Dijkstra(ctx, neg, 0, DijkstraOptions{})), "arc 0->1 has negative weight -2"},
		{second(DijkstraAll(ctx, neg, APSPOptions{})), "arc 0->1"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", c.err, c.want)
		}
	}
	// Absurd sizes are clamped, not allocated.
	res, err := FloydWarshallBlocked(ctx, g, FWOptions{Tile: 1 << 62, Workers: 1 << 40})
	if err != nil || res.At(3, 0) != 2 { // d -> e -> a
		t.Errorf("huge tile and worker counts: %v", err)
	}
	if _, err := DijkstraAll(ctx, g, APSPOptions{Workers: 1 << 40}); err != nil {
		t.Errorf("DijkstraAll with 2^40 workers: %v", err)
	}
	// A nil context is taken as Background.
	//lint:ignore SA1012 a notebook cell may pass nil
	if _, err := FloydWarshall(nil, g, FWOptions{}); err != nil { //nolint:staticcheck
		t.Errorf("nil context: %v", err)
	}
}

func second[T any](_ T, err error) error { return err }

// TestDistanceRange checks the int32 contract: distances that would leave
// ±MaxDistance are errors naming the pair, and heavy graphs whose distances
// fit take the checked paths and still agree with gonum.
func TestDistanceRange(t *testing.T) {
	ctx := context.Background()
	half := graph.MaxDistance/2 + 1
	far, err := graph.FromTriples(3, [][3]int{{0, 1, int(half)}, {1, 2, int(half)}})
	if err != nil {
		t.Fatal(err)
	}
	for name, run := range solverRuns(far) {
		err := run(ctx)
		if err == nil || !strings.Contains(err.Error(), "0->2") || !strings.Contains(err.Error(), "beyond") {
			t.Errorf("%s on a path of weight %d: %v, want an error naming 0->2", name, 2*int64(half), err)
		} else if prefix := strings.SplitN(err.Error(), ": ", 2)[0] + ": "; strings.Count(err.Error(), prefix) > 1 {
			t.Errorf("%s: %q repeats its prefix %q", name, err, prefix)
		}
	}
	// Distances in range, but (n-1)·max|w| is not: the checked paths.
	fits, err := graph.FromTriples(4, [][3]int{{0, 1, int(graph.MaxDistance)}, {1, 2, -int(graph.MaxDistance)}, {2, 3, 5}})
	if err != nil {
		t.Fatal(err)
	}
	heavy := []*graph.Graph{fits}
	for _, c := range []struct {
		n      int
		lo, hi int32
	}{{40, 1_000_000, 20_000_000}, {80, 1_000_000, 20_000_000}} {
		g, err := graph.GNM(c.n, c.n*4, graph.WeightRange{Min: c.lo, Max: c.hi}, uint64(c.n))
		if err != nil {
			t.Fatal(err)
		}
		heavy = append(heavy, g, potentials(t, g, c.lo, 3))
	}
	for _, g := range heavy {
		want, ok := gonumAllPairs(t, g)
		if !ok {
			t.Fatalf("%s: gonum found a negative cycle", g.Name())
		}
		for _, s := range apspSolvers(g.N()) {
			if s.name == "dijkstra-all" && g.HasNegative() {
				continue
			}
			res, err := s.run(g, true)
			if err != nil {
				t.Fatalf("%s on %s: %v", s.name, g, err)
			}
			sameDist(t, res.Dist, want, g.N(), s.name+" on "+g.String())
			if err := res.Verify(g); err != nil {
				t.Fatalf("%s on %s: %v", s.name, g, err)
			}
		}
	}
}

// TestNegativeCycleThroughVertex checks that Floyd-Warshall names a vertex
// on the cycle, not merely one that reaches it: vertex 0 reaches the
// negative cycle 1 -> 2 -> 1 and has a negative closed walk, but is not on
// any negative cycle.
func TestNegativeCycleThroughVertex(t *testing.T) {
	g, err := graph.Parse("0->1 1, 1->0 1, 1->2 -5, 2->1 1")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range apspSolvers(3) {
		if s.name == "dijkstra-all" {
			continue // refuses the negative arc
		}
		_, err := s.run(g, true)
		checkNegativeCycle(t, g, err, true, s.name)
		var nc *graph.NegativeCycleError
		if errors.As(err, &nc) && nc.Vertex == 0 {
			t.Errorf("%s names vertex 0, which is on no negative cycle: %v", s.name, err)
		}
	}
}

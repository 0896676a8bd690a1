package scaleout

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/graph"
)

// grids are the process grids every simulation test runs on.
var grids = []Grid{{1, 1}, {2, 2}, {2, 3}, {3, 1}, {1, 3}}

// randomGraph returns a graph of n vertices and about m arcs whose weights are base +
// pot(u) − pot(v), base in 1..20 and pot in 0..negative: with negative > 0 some arcs are
// negative, yet every cycle weighs its bases, so there is no negative (or zero) cycle. The
// last vertex has no arcs, so that unreachable pairs occur whatever m is.
func randomGraph(t *testing.T, n, m, negative int, seed uint64) *graph.Graph {
	rng := rand.New(rand.NewPCG(seed, 7))
	pot := make([]int, n)
	for i := range pot {
		pot[i] = rng.IntN(negative + 1)
	}
	var arcs []graph.Arc
	for len(arcs) < m && n > 2 {
		u, v := rng.IntN(n-1), rng.IntN(n-1)
		if u == v {
			continue
		}
		arcs = append(arcs, graph.Arc{From: u, To: v, Weight: int32(1 + rng.IntN(20) + pot[u] - pot[v])})
	}
	g, err := graph.FromArcs(n, arcs)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestSimulationMatchesCPU checks the simulated distances cell for cell against
// cpu.FloydWarshall, its predecessors by walking them (AllPairs.Verify), and every round's
// traffic on every rank against the model's formulas, on sizes that are and are not a
// multiple of the block, with and without negative arcs, on every grid.
func TestSimulationMatchesCPU(t *testing.T) {
	ctx := context.Background()
	cases := []struct{ n, m, b, negative int }{
		{1, 0, 4, 0},
		{2, 1, 4, 0},
		{13, 30, 4, 0},
		{13, 30, 4, 15},
		{24, 60, 4, 10}, // n a multiple of b·P and b·Q for 2×2, 2×3, 3×1
		{37, 90, 8, 25},
		{37, 400, 5, 0},
		{70, 300, 16, 30},
		{5, 12, 8, 3}, // one partial tile: fewer tiles than ranks
	}
	sawUnreachable, sawNegative := false, false
	for ci, c := range cases {
		g := randomGraph(t, c.n, c.m, c.negative, uint64(ci+1))
		sawNegative = sawNegative || g.HasNegative()
		want, err := cpu.FloydWarshall(ctx, g, cpu.FWOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range want.Dist {
			sawUnreachable = sawUnreachable || d == graph.Inf
		}
		for _, grid := range grids {
			for _, pred := range []bool{false, true} {
				name := fmt.Sprintf("n=%d b=%d neg=%d grid=%d×%d pred=%v", c.n, c.b, c.negative, grid.P, grid.Q, pred)
				got, tr, err := FloydWarshall(ctx, g, c.b, grid, pred)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !got.SameDistances(want) {
					t.Fatalf("%s: distances differ from cpu.FloydWarshall:\n%s", name, got.Diff(want, 5))
				}
				if pred {
					if err := got.Verify(g); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
				} else if got.Pred != nil {
					t.Fatalf("%s: predecessors returned without being asked for", name)
				}
				checkTraffic(t, name, tr, Layout{N: c.n, B: c.b, Grid: grid, Pred: pred})
			}
		}
	}
	if !sawUnreachable || !sawNegative {
		t.Fatalf("the cases had unreachable pairs: %v, negative arcs: %v; both are needed", sawUnreachable, sawNegative)
	}
}

// checkTraffic compares the simulation's counts with the layout's, round by round and rank by
// rank, and its total with the closed form.
func checkTraffic(t *testing.T, name string, tr *Traffic, l Layout) {
	if tr.Grid != l.Grid {
		t.Fatalf("%s: traffic of grid %v, want %v", name, tr.Grid, l.Grid)
	}
	if len(tr.Received) != l.Rounds() || len(tr.Sent) != l.Rounds() {
		t.Fatalf("%s: traffic of %d/%d rounds, want %d", name, len(tr.Received), len(tr.Sent), l.Rounds())
	}
	var sent int64
	for k := range l.Rounds() {
		for p := range l.Grid.P {
			for q := range l.Grid.Q {
				id := p*l.Grid.Q + q
				if got, want := tr.Received[k][id], l.Received(k, p, q); got != want {
					t.Fatalf("%s: round %d rank (%d,%d) received %d bytes, the model says %d", name, k, p, q, got, want)
				}
				if got, want := tr.Sent[k][id], l.Sent(k, p, q); got != want {
					t.Fatalf("%s: round %d rank (%d,%d) sent %d bytes, the model says %d", name, k, p, q, got, want)
				}
				sent += tr.Sent[k][id]
			}
		}
	}
	if got, want := tr.Total(), l.TotalBytes(); got != want {
		t.Fatalf("%s: %d bytes received in all, the closed form says %d", name, got, want)
	}
	if l.Grid.Ranks() == 1 && sent != 0 {
		t.Fatalf("%s: one rank sent %d bytes", name, sent)
	}
}

// TestRankBytesIsBNOverQPlusBNOverP checks, where the tiles divide evenly among the ranks,
// that a rank outside the pivot row and column receives exactly b·n/Q row-panel cells and
// b·n/P column-panel cells in a round (the volume the time model charges), 4 bytes each and
// 8 for the row panel's with Π.
func TestRankBytesIsBNOverQPlusBNOverP(t *testing.T) {
	const n, b = 48, 4
	g := randomGraph(t, n, 150, 5, 99)
	for _, grid := range []Grid{{2, 2}, {2, 3}, {3, 2}} {
		for _, pred := range []bool{false, true} {
			_, tr, err := FloydWarshall(context.Background(), g, b, grid, pred)
			if err != nil {
				t.Fatal(err)
			}
			row := int64(4)
			if pred {
				row = 8
			}
			want := row*b*n/int64(grid.Q) + 4*b*n/int64(grid.P)
			l := Layout{N: n, B: b, Grid: grid, Pred: pred}
			if l.RankBytes() != want {
				t.Fatalf("grid %v pred %v: RankBytes %d, want %d", grid, pred, l.RankBytes(), want)
			}
			// Round 1 on a 2-row grid pivots on process row 1 and column 1: rank (0,0) is outside both.
			if got := tr.Received[1][0]; got != want {
				t.Fatalf("grid %v pred %v: rank (0,0) received %d bytes in round 1, want b·n/Q+b·n/P = %d", grid, pred, got, want)
			}
		}
	}
}

// TestNegativeCycle checks that the simulation stops every rank and reports the vertex that
// cpu.FloydWarshall reports, on every grid.
func TestNegativeCycle(t *testing.T) {
	ctx := context.Background()
	arcs := []graph.Arc{{From: 0, To: 1, Weight: 4}, {From: 1, To: 2, Weight: 1}, {From: 7, To: 8, Weight: 2},
		{From: 8, To: 9, Weight: -3}, {From: 9, To: 7, Weight: -1}, {From: 2, To: 7, Weight: 5}}
	g, err := graph.FromArcs(11, arcs)
	if err != nil {
		t.Fatal(err)
	}
	_, err = cpu.FloydWarshall(ctx, g, cpu.FWOptions{})
	var want *graph.NegativeCycleError
	if !errors.As(err, &want) {
		t.Fatalf("cpu.FloydWarshall: %v, want a negative cycle", err)
	}
	for _, grid := range grids {
		_, _, err := FloydWarshall(ctx, g, 3, grid, true)
		var got *graph.NegativeCycleError
		if !errors.As(err, &got) || got.Vertex != want.Vertex {
			t.Fatalf("grid %v: %v, want a negative cycle through %d", grid, err, want.Vertex)
		}
	}
}

// TestCancelled checks that a cancelled context stops every rank with its error.
func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g := randomGraph(t, 20, 40, 0, 3)
	for _, grid := range grids {
		if _, _, err := FloydWarshall(ctx, g, 4, grid, false); !errors.Is(err, context.Canceled) {
			t.Fatalf("grid %v: %v, want context.Canceled", grid, err)
		}
	}
}

// TestRefused checks the inputs the simulation turns down.
func TestRefused(t *testing.T) {
	g := randomGraph(t, 4, 4, 0, 1)
	heavy, err := graph.FromArcs(3, []graph.Arc{{From: 0, To: 1, Weight: graph.MaxDistance}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		g    *graph.Graph
		b    int
		grid Grid
	}{{nil, 4, Grid{1, 1}}, {g, 0, Grid{1, 1}}, {g, 4, Grid{0, 2}}, {heavy, 2, Grid{1, 1}}} {
		if _, _, err := FloydWarshall(context.Background(), c.g, c.b, c.grid, false); err == nil {
			t.Fatalf("b=%d grid %v: no error", c.b, c.grid)
		}
	}
}

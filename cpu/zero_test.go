package cpu

import (
	"context"
	"testing"

	"github.com/pathnotes/pathnotes/graph"
)

// Zero-weight arcs make zero-weight cycles, round which the blocked order
// can leave predecessors looping; every Π must still rebuild every path.
func TestZeroWeightCyclesKeepPathsValid(t *testing.T) {
	for seed := uint64(0); seed < 12; seed++ {
		g, err := graph.GNM(100, 3000, graph.WeightRange{Min: 0, Max: 3}, seed)
		if err != nil {
			t.Fatal(err)
		}
		for _, tile := range []int{8, 32, 64} {
			r, err := FloydWarshallBlocked(context.Background(), g, FWOptions{Pred: true, Tile: tile})
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Verify(g); err != nil {
				t.Fatalf("seed %d tile %d: %v", seed, tile, err)
			}
		}
	}
}

// Progress reports pivots done, increasing, ending at n, for both solvers.
func TestFWProgress(t *testing.T) {
	g, err := graph.GNM(150, 600, graph.WeightRange{Min: 1, Max: 9}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for name, solve := range map[string]func(context.Context, *graph.Graph, FWOptions) (*graph.AllPairs, error){
		"naive": FloydWarshall, "blocked": FloydWarshallBlocked,
	} {
		var seen []int
		_, err := solve(context.Background(), g, FWOptions{Tile: 64, Progress: func(done, total int) {
			if total != g.N() {
				t.Errorf("%s: total %d, want %d", name, total, g.N())
			}
			seen = append(seen, done)
		}})
		if err != nil {
			t.Fatal(err)
		}
		if len(seen) == 0 || seen[len(seen)-1] != g.N() {
			t.Fatalf("%s: progress %v does not end at %d", name, seen, g.N())
		}
		for i := 1; i < len(seen); i++ {
			if seen[i] <= seen[i-1] {
				t.Fatalf("%s: progress %v not increasing", name, seen)
			}
		}
	}
}

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

package gpu

import (
	"context"
	"testing"

	"github.com/pathnotes/pathnotes/graph"
)

// The tiled Floyd-Warshall variants relax in an order that can leave
// predecessors looping round zero-weight cycles; their results must still
// rebuild every path (checked on the emulator, which runs the same PTX).
func TestZeroWeightCyclesKeepPathsValid(t *testing.T) {
	t.Setenv(EnvDriver, "emu")
	g, err := graph.GNM(70, 1500, graph.WeightRange{Min: 0, Max: 3}, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"fw-tiled-global", "fw-blocked", "fw-gaioso"} {
		r, err := AllPairs(context.Background(), name, g, Options{Pred: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := r.Verify(g); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

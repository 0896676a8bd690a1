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

// Progress reports increasing counts that end at n for every
// Floyd-Warshall variant (on the emulator).
func TestFWProgress(t *testing.T) {
	t.Setenv(EnvDriver, "emu")
	g, err := graph.GNM(70, 300, graph.WeightRange{Min: 1, Max: 9}, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range Variants() {
		if v.Algorithm != "Floyd-Warshall" {
			continue
		}
		var seen []int
		_, err := v.SolveAll(context.Background(), g, Options{Progress: func(done, total int) {
			if total != g.N() {
				t.Errorf("%s: total %d", v.Name, total)
			}
			seen = append(seen, done)
		}})
		if err != nil {
			t.Fatal(err)
		}
		if len(seen) == 0 || seen[len(seen)-1] != g.N() {
			t.Fatalf("%s: progress %v does not end at %d", v.Name, seen, g.N())
		}
		for i := 1; i < len(seen); i++ {
			if seen[i] <= seen[i-1] {
				t.Fatalf("%s: progress %v not increasing", v.Name, seen)
			}
		}
	}
}

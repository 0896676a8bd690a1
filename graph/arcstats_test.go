package graph

import (
	"math"
	"testing"
)

// TestArcStats compares the cached summary with a direct scan on graphs
// with negative, zero and large weights, on copies that share the cache,
// and on the empty graph and a graph without arcs.
func TestArcStats(t *testing.T) {
	big, err := GNM(1500, 1_100_000, WeightRange{Min: -7, Max: MaxDistance / 4}, 9) // more arcs than one scan chunk
	if err != nil {
		t.Fatal(err)
	}
	small, err := Parse("0->1 0, 0->2 -3, 2->3 9, 2->1 4, 2->0 1")
	if err != nil {
		t.Fatal(err)
	}
	noArcs, err := NewBuilder(5).Build()
	if err != nil {
		t.Fatal(err)
	}
	empty, err := NewBuilder(0).Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []*Graph{big, big.WithName("copy"), small, small.WithNotes("a note"), noArcs, empty, nil} {
		want := ArcStats{}
		if g.M() > 0 {
			want.MinWeight, want.MaxWeight = math.MaxInt32, math.MinInt32
		}
		for u := 0; u < g.N(); u++ {
			_, ws := g.Out(u)
			want.MaxOutDegree = max(want.MaxOutDegree, len(ws))
			for _, w := range ws {
				want.MinWeight, want.MaxWeight, want.WeightSum = min(want.MinWeight, w), max(want.MaxWeight, w), want.WeightSum+int64(w)
			}
		}
		for range 2 { // computed, then cached
			if got := g.ArcStats(); got != want {
				t.Errorf("%s: ArcStats %+v, want %+v", g.Name(), got, want)
			}
		}
		if lo, hi := g.WeightRange(); lo != want.MinWeight || hi != want.MaxWeight {
			t.Errorf("%s: WeightRange %d, %d, want %d, %d", g.Name(), lo, hi, want.MinWeight, want.MaxWeight)
		}
	}
	if small.ArcStats().MaxOutDegree != 3 || !small.HasNegative() || big.WithName("x").stats != big.stats {
		t.Error("copies do not share the cache, or the small graph's summary is off")
	}
}

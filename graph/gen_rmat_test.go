package graph

import (
	"math"
	"testing"
)

func TestRMATSizesAndArcs(t *testing.T) {
	w := WeightRange{-5, 20}
	for _, c := range []struct {
		scale, ef int
		p         RMATParams
	}{{0, 4, Graph500}, {1, 3, SSCA2}, {6, 8, Graph500}, {10, 16, SSCA2}, {9, 0, Graph500}} {
		g, err := RMAT(c.scale, c.ef, c.p, w, 3)
		if err != nil {
			t.Fatal(err)
		}
		n := 1 << c.scale
		if g.M() > c.ef*n || (c.scale >= 6 && c.ef > 0 && g.M() < c.ef*n/2) {
			t.Fatalf("%s: m=%d for %d generated arcs", g.Name(), g.M(), c.ef*n)
		}
		checkSimpleGraph(t, g, n, g.M(), w)
	}
}

// TestRMATMergesLikeBuilder checks the counting-sort CSR against the
// Builder's sort-based one on the same raw arcs: self-loops gone, parallel
// arcs merged into the lightest.
func TestRMATMergesLikeBuilder(t *testing.T) {
	const scale = 7
	w := WeightRange{1, 9} // positive, so that the Builder drops every self-loop too
	from, to := rmatArcs(scale, 16<<scale, Graph500, w, 11)
	arcs := make([]Arc, len(from))
	loops := 0
	for i := range from {
		v, wt := unpackArc(to[i])
		arcs[i] = Arc{int(from[i]), int(v), wt}
		if from[i] == v {
			loops++
		}
	}
	want, err := FromArcs(1<<scale, arcs)
	if err != nil {
		t.Fatal(err)
	}
	dups := len(arcs) - loops - want.M()
	if loops == 0 || dups == 0 {
		t.Fatalf("raw arcs have %d self-loops and %d parallel arcs: the test needs some of both", loops, dups)
	}
	got := packCSR(1<<scale, from, to)
	if !sameGraph(got, want) {
		t.Fatalf("packCSR differs from the Builder (m=%d vs %d)", got.M(), want.M())
	}
	g, err := RMAT(scale, 16, Graph500, w, 11)
	if err != nil || !sameGraph(g, want) {
		t.Fatalf("RMAT differs from its raw arcs merged by the Builder: %v", err)
	}
}

func TestRMATReproducible(t *testing.T) {
	checkReproducible(t, func(seed uint64) (*Graph, error) {
		return RMAT(9, 8, Graph500, WeightRange{1, 100}, seed)
	})
	g, _ := RMAT(3, 2, SSCA2, WeightRange{1, 100}, 5)
	if want := "rmat(scale=3,ef=2,a=0.45,b=0.15,c=0.15,d=0.25,w=1..100,seed=5)"; g.Name() != want {
		t.Fatalf("name %q, want %q", g.Name(), want)
	}
}

// degreeStats returns the largest and the mean out-degree, and the share
// of arcs that leave the lower half of the vertex ids.
func degreeStats(g *Graph) (maxDeg int, mean, lowerShare float64) {
	lower := 0
	for u := range g.N() {
		maxDeg = max(maxDeg, g.OutDegree(u))
		if u < g.N()/2 {
			lower += g.OutDegree(u)
		}
	}
	return maxDeg, float64(g.M()) / float64(g.N()), float64(lower) / float64(g.M())
}

func TestRMATDegreeSkew(t *testing.T) {
	skewed, err := RMAT(14, 16, Graph500, WeightRange{1, 1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	maxDeg, mean, lower := degreeStats(skewed)
	t.Logf("Graph500 scale 14: max out-degree %d, mean %.1f, lower-half share %.3f", maxDeg, mean, lower)
	if float64(maxDeg) < 20*mean {
		t.Errorf("Graph500: max out-degree %d is not much above the mean %.1f", maxDeg, mean)
	}
	// Without the permutation, ids below n/2 would send A+B = 76% of arcs.
	if math.Abs(lower-0.5) > 0.1 {
		t.Errorf("Graph500: %.3f of arcs leave the lower half of the ids; the ids look unpermuted", lower)
	}
	uniform, err := RMAT(14, 16, RMATParams{0.25, 0.25, 0.25, 0.25}, WeightRange{1, 1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	maxDeg, mean, _ = degreeStats(uniform)
	t.Logf("uniform scale 14: max out-degree %d, mean %.1f", maxDeg, mean)
	if float64(maxDeg) > 3*mean {
		t.Errorf("uniform: max out-degree %d is far above the mean %.1f", maxDeg, mean)
	}
	if uniform.M() < 16<<14*99/100 {
		t.Errorf("uniform: %d arcs left of %d; merging should remove well under 1%%", uniform.M(), 16<<14)
	}
}

func TestRMATZeroQuarter(t *testing.T) {
	// With only B, every arc goes from the lower half to the upper half of
	// the unpermuted ids at every level: u = 0 and v = n-1, one arc.
	g, err := RMAT(5, 4, RMATParams{0, 1, 0, 0}, WeightRange{1, 9}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if g.M() != 1 {
		t.Fatalf("B=1 gave %d arcs, want the single arc perm(0) → perm(31)", g.M())
	}
}

func TestRMATArgErrors(t *testing.T) {
	w := WeightRange{1, 10}
	checkArgErrors(t, []argError{
		{"negative scale", func() (*Graph, error) { return RMAT(-1, 16, Graph500, w, 1) }, "scale -1"},
		{"scale 31", func() (*Graph, error) { return RMAT(31, 1, Graph500, w, 1) }, "scale 31 outside 0..30"},
		{"negative edge factor", func() (*Graph, error) { return RMAT(4, -2, Graph500, w, 1) }, "edge factor -2"},
		{"too many arcs", func() (*Graph, error) { return RMAT(28, 16, Graph500, w, 1) }, "int32 offsets"},
		{"sum", func() (*Graph, error) { return RMAT(4, 4, RMATParams{0.5, 0.2, 0.2, 0.2}, w, 1) }, "sum to 1.1"},
		{"negative", func() (*Graph, error) { return RMAT(4, 4, RMATParams{0.7, 0.3, 0.1, -0.1}, w, 1) }, "D=-0.1"},
		{"NaN", func() (*Graph, error) { return RMAT(4, 4, RMATParams{math.NaN(), 0.5, 0.25, 0.25}, w, 1) }, "A=NaN"},
		{"weights", func() (*Graph, error) { return RMAT(4, 4, Graph500, WeightRange{5, 1}, 1) }, "empty weight range"},
	})
}

func BenchmarkRMAT20(b *testing.B) {
	for b.Loop() {
		g, err := RMAT(20, 16, Graph500, WeightRange{1, 100}, 1)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(g.M()), "arcs")
	}
}

package graph

import (
	"testing"
)

// checkGridArcs fails unless every arc of g joins grid neighbours (same
// row and adjacent columns, or same column and adjacent rows, in a layout
// with cols columns), every vertex has at most 4 arcs, and every arc u → v
// has a reverse v → u of the same weight.
func checkGridArcs(t *testing.T, g *Graph, cols int) {
	t.Helper()
	for u := range g.N() {
		if d := g.OutDegree(u); d > 4 {
			t.Fatalf("%s: vertex %d has %d arcs", g.Name(), u, d)
		}
		ts, ws := g.Out(u)
		for i, t32 := range ts {
			v := int(t32)
			ru, cu, rv, cv := u/cols, u%cols, v/cols, v%cols
			if !(ru == rv && (cu-cv == 1 || cv-cu == 1)) && !(cu == cv && (ru-rv == 1 || rv-ru == 1)) {
				t.Fatalf("%s: arc %d->%d joins (%d,%d) and (%d,%d), not grid neighbours", g.Name(), u, v, ru, cu, rv, cv)
			}
			if back, ok := g.Weight(v, u); !ok || back != ws[i] {
				t.Fatalf("%s: arc %d->%d weight %d, reverse %d (present %v)", g.Name(), u, v, ws[i], back, ok)
			}
		}
	}
}

func TestGrid(t *testing.T) {
	w := WeightRange{1, 1000}
	for _, c := range []struct{ rows, cols int }{{0, 0}, {0, 5}, {5, 0}, {1, 1}, {1, 6}, {6, 1}, {3, 4}, {17, 9}} {
		g, err := Grid(c.rows, c.cols, w, 2)
		if err != nil {
			t.Fatal(err)
		}
		m := 2 * (c.rows*max(c.cols-1, 0) + max(c.rows-1, 0)*c.cols)
		checkSimpleGraph(t, g, c.rows*c.cols, m, w)
		checkGridArcs(t, g, max(c.cols, 1))
		checkStronglyConnected(t, g)
	}
	g, _ := Grid(3, 4, w, 2)
	for u, want := range []int{2, 3, 3, 2, 3, 4, 4, 3, 2, 3, 3, 2} {
		if g.OutDegree(u) != want {
			t.Fatalf("3×4 grid: vertex %d has degree %d, want %d", u, g.OutDegree(u), want)
		}
	}
	if g.Name() != "grid(rows=3,cols=4,w=1..1000,seed=2)" {
		t.Fatalf("name %q", g.Name())
	}
	checkReproducible(t, func(seed uint64) (*Graph, error) { return Grid(20, 30, w, seed) })
}

func TestRoadLike(t *testing.T) {
	w := WeightRange{1, 50}
	for _, c := range []struct{ n, m int }{
		{0, 0}, {1, 0}, {2, 2}, {3, 4}, {5, 8}, {5, 10}, {10, 18}, {10, 26},
		{1000, 1998}, {1000, 2800}, {1000, 3872}, {2000, 5550},
	} {
		g, err := RoadLike(c.n, c.m, w, 4)
		if err != nil {
			t.Fatalf("RoadLike(%d, %d): %v", c.n, c.m, err)
		}
		checkSimpleGraph(t, g, c.n, c.m, w)
		checkGridArcs(t, g, max(ceilSqrt(c.n), 1))
		checkStronglyConnected(t, g)
	}
	checkReproducible(t, func(seed uint64) (*Graph, error) { return RoadLike(900, 2400, w, seed) })
}

// TestRoadLikeNYC builds the stand-in of [Bodra]'s nyc road graph (Table 1).
func TestRoadLikeNYC(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 264,346-vertex graph")
	}
	w := WeightRange{1, 1000}
	g, err := RoadLike(264346, 733846, w, 1)
	if err != nil {
		t.Fatal(err)
	}
	checkSimpleGraph(t, g, 264346, 733846, w)
	checkStronglyConnected(t, g)
}

func TestGridLayout(t *testing.T) {
	for n := range 200 {
		c := ceilSqrt(n)
		if c*c < n || (c > 0 && (c-1)*(c-1) >= n) {
			t.Fatalf("ceilSqrt(%d) = %d", n, c)
		}
		l := gridLayout{n: n, cols: max(c, 1)}
		edges := 0
		for e := range 2 * n {
			if l.exists(e) {
				edges++
			}
		}
		if 2*edges != l.fullArcs() {
			t.Fatalf("n=%d: %d edges exist but fullArcs says %d arcs", n, edges, l.fullArcs())
		}
	}
	for _, n := range []int{1 << 40, 1<<62 - 1} {
		if c := ceilSqrt(n); c*c < n || (c-1)*(c-1) >= n {
			t.Fatalf("ceilSqrt(%d) = %d", n, c)
		}
	}
}

func TestGridArgErrors(t *testing.T) {
	w := WeightRange{1, 10}
	checkArgErrors(t, []argError{
		{"negative rows", func() (*Graph, error) { return Grid(-1, 3, w, 1) }, "negative size -1×3"},
		{"huge grid", func() (*Graph, error) { return Grid(1<<20, 1<<20, w, 1) }, "int32 vertex ids"},
		{"too many arcs", func() (*Graph, error) { return Grid(1<<15, 1<<15, w, 1) }, "int32 offsets"},
		{"grid weights", func() (*Graph, error) { return Grid(2, 2, WeightRange{0, MaxDistance + 1}, 1) }, "beyond"},
		{"negative n", func() (*Graph, error) { return RoadLike(-3, 0, w, 1) }, "n=-3"},
		{"odd m", func() (*Graph, error) { return RoadLike(10, 19, w, 1) }, "m=19 is odd"},
		{"below tree", func() (*Graph, error) { return RoadLike(10, 16, w, 1) }, "below 2(n-1)=18"},
		{"above grid", func() (*Graph, error) { return RoadLike(10, 28, w, 1) }, "26 arcs of the full grid"},
		{"no vertices", func() (*Graph, error) { return RoadLike(0, 2, w, 1) }, "0 arcs of the full grid"},
		{"road weights", func() (*Graph, error) { return RoadLike(4, 6, WeightRange{3, 2}, 1) }, "empty weight range"},
	})
}

func BenchmarkGrid1024(b *testing.B) {
	benchMake(b, func() (*Graph, error) { return Grid(1024, 1024, WeightRange{1, 1000}, 1) })
}

func BenchmarkRoadLikeNYC(b *testing.B) {
	benchMake(b, func() (*Graph, error) { return RoadLike(264346, 733846, WeightRange{1, 1000}, 1) })
}

// BenchmarkRoadLike1M is a million-vertex road stand-in with the average
// degree of nyc (about 2.8).
func BenchmarkRoadLike1M(b *testing.B) {
	benchMake(b, func() (*Graph, error) { return RoadLike(1<<20, 2776000, WeightRange{1, 1000}, 1) })
}

package graph

import (
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/graph/path"
	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/mat"
)

func TestGonumRoundTrip(t *testing.T) {
	for name, g := range formatTestGraphs(t) {
		if name == "self-loop" {
			continue // TestGonumNegativeSelfLoop
		}
		gg, err := g.Gonum()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := gg.Nodes().Len(); got != g.N() {
			t.Fatalf("%s: gonum graph has %d nodes, want %d", name, got, g.N())
		}
		for u := 0; u < g.N(); u++ {
			for v := 0; v < g.N(); v++ {
				want, ok := g.Weight(u, v)
				switch {
				case u == v:
					want, ok = 0, true
				case !ok:
					want = Inf
				}
				w, gok := gg.Weight(int64(u), int64(v))
				if gok != ok || (ok && w != float64(want)) || (!ok && !math.IsInf(w, 1)) {
					t.Fatalf("%s: gonum Weight(%d,%d) = %v, %v; want %d, %v", name, u, v, w, gok, want, ok)
				}
			}
		}
		back, err := FromGonum(gg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// Gonum keeps the lightest of parallel arcs, as KeepLightest does.
		sameAsLightest(t, name, back, g)
		if back.Labels() != nil {
			t.Errorf("%s: ids 0..n-1 gave labels %v", name, back.Labels())
		}
	}
}

// TestGonumShortestPaths checks the conversion through an independent
// solver: gonum's Dijkstra on g.Gonum() must give distances that Verify
// accepts for g, and DistMat must hold them.
func TestGonumShortestPaths(t *testing.T) {
	g, err := GNM(40, 160, WeightRange{0, 20}, 9)
	if err != nil {
		t.Fatal(err)
	}
	gg, err := g.Gonum()
	if err != nil {
		t.Fatal(err)
	}
	all := path.DijkstraAllPaths(gg)
	r, err := NewAllPairs(g.N(), false)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < g.N(); i++ {
		for j := 0; j < g.N(); j++ {
			if w := all.Weight(int64(i), int64(j)); !math.IsInf(w, 1) {
				r.Dist[i*r.N+j] = int32(w)
			}
		}
	}
	if err := r.Verify(g); err != nil {
		t.Fatalf("gonum's distances on the converted graph: %v", err)
	}
	m, err := r.DistMat()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < g.N(); i++ {
		for j := 0; j < g.N(); j++ {
			if got, want := m.At(i, j), all.Weight(int64(i), int64(j)); got != want {
				t.Fatalf("DistMat(%d,%d) = %v, want %v", i, j, got, want)
			}
		}
	}
}

func TestGonumNegativeSelfLoop(t *testing.T) {
	g, err := Parse("a->b 1, b->b -2")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Gonum(); err == nil || !strings.Contains(err.Error(), "vertex b has a negative self-loop (weight -2)") {
		t.Fatalf("Gonum of a negative self-loop: %v", err)
	}
}

func TestFromGonum(t *testing.T) {
	// Ids that are not 0..n-1 are renumbered in increasing order.
	d := simple.NewWeightedDirectedGraph(0, math.Inf(1))
	for _, id := range []int64{30, -4, 10} {
		d.AddNode(simple.Node(id))
	}
	d.SetWeightedEdge(d.NewWeightedEdge(simple.Node(30), simple.Node(-4), 7))
	d.SetWeightedEdge(d.NewWeightedEdge(simple.Node(10), simple.Node(30), -2))
	g, err := FromGonum(d)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Arc{{1, 2, -2}, {2, 0, 7}}; !slices.Equal(g.Arcs(), want) {
		t.Errorf("arcs %v, want %v", g.Arcs(), want)
	}
	if want := []string{"-4", "10", "30"}; !slices.Equal(g.Labels(), want) {
		t.Errorf("labels %v, want %v", g.Labels(), want)
	}

	// An undirected gonum graph gives both arcs of every edge.
	u := simple.NewWeightedUndirectedGraph(0, math.Inf(1))
	u.SetWeightedEdge(u.NewWeightedEdge(simple.Node(0), simple.Node(1), 3))
	u.SetWeightedEdge(u.NewWeightedEdge(simple.Node(2), simple.Node(1), 4))
	g, err = FromGonum(u)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Arc{{0, 1, 3}, {1, 0, 3}, {1, 2, 4}, {2, 1, 4}}; !slices.Equal(g.Arcs(), want) {
		t.Errorf("undirected: arcs %v, want %v", g.Arcs(), want)
	}

	for _, c := range []struct {
		w    float64
		want string
	}{
		{2.5, "edge 0->1: weight 2.5 is not an integer"},
		{math.NaN(), "edge 0->1: weight NaN is not a finite number"},
		{math.Inf(1), "edge 0->1: weight +Inf is not a finite number"},
		{1e10, "edge 0->1: weight 1e+10 beyond ±1073741823"},
	} {
		bad := simple.NewWeightedDirectedGraph(0, math.Inf(1))
		bad.SetWeightedEdge(bad.NewWeightedEdge(simple.Node(0), simple.Node(1), c.w))
		if _, err := FromGonum(bad); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("weight %v: %v, want %q", c.w, err, c.want)
		}
	}
}

func TestMatRoundTrip(t *testing.T) {
	for name, g := range formatTestGraphs(t) {
		m, err := g.Mat()
		if err != nil {
			t.Fatal(err)
		}
		dense := g.Dense()
		if r, c := m.Dims(); r != g.N() || c != g.N() {
			t.Fatalf("%s: Mat is %d×%d, want n=%d", name, r, c, g.N())
		}
		for i := 0; i < g.N(); i++ {
			for j := 0; j < g.N(); j++ {
				want := float64(dense[i*g.N()+j])
				if dense[i*g.N()+j] == Inf {
					want = math.Inf(1)
				}
				if got := m.At(i, j); got != want {
					t.Fatalf("%s: Mat(%d,%d) = %v, want %v", name, i, j, got, want)
				}
			}
		}
		back, err := FromMat(m)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sameAsLightest(t, name, back, g)
	}
}

func TestFromMatErrors(t *testing.T) {
	for _, c := range []struct {
		m    mat.Matrix
		want string
	}{
		{mat.NewDense(2, 3, nil), "matrix is 2×3, want a square matrix"},
		{mat.NewDense(2, 2, []float64{0, 2.5, 0, 0}), "entry (0,1): weight 2.5 is not an integer"},
		{mat.NewDense(2, 2, []float64{0, 0, math.NaN(), 0}), "entry (1,0): weight NaN is not a finite number"},
		{mat.NewDense(2, 2, []float64{0, math.Inf(-1), 0, 0}), "entry (0,1): weight -Inf is not a finite number"},
		{mat.NewDense(2, 2, []float64{0, 0, 0, -2e9}), "entry (1,1): weight -2e+09 beyond ±1073741823"},
	} {
		if _, err := FromMat(c.m); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("FromMat: %v, want %q", err, c.want)
		}
	}
}

func TestDistMat(t *testing.T) {
	r := &AllPairs{N: 2, Dist: []int32{0, Inf, -3, 0}}
	m, err := r.DistMat()
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0, math.Inf(1), -3, 0}; !slices.Equal(m.RawMatrix().Data, want) {
		t.Errorf("DistMat = %v, want %v", m.RawMatrix().Data, want)
	}
	empty, err := (&AllPairs{}).DistMat()
	if err != nil || !empty.IsEmpty() {
		t.Errorf("DistMat of n=0: %v, %v", empty, err)
	}
	if _, err := (&AllPairs{N: 3, Dist: make([]int32, 4)}).DistMat(); err == nil || !strings.Contains(err.Error(), "result has 4 distances, want 3×3") {
		t.Errorf("DistMat of a short result: %v", err)
	}
}

func TestGonumNil(t *testing.T) {
	if _, err := FromGonum(nil); err == nil {
		t.Error("FromGonum(nil): no error")
	}
	if _, err := FromMat(nil); err == nil {
		t.Error("FromMat(nil): no error")
	}
	g, err := FromMat(&mat.Dense{})
	if err != nil || g.N() != 0 {
		t.Errorf("FromMat of an empty matrix: %v, %v", g, err)
	}
}

// sameAsLightest checks that back is g with only the lightest of its
// parallel arcs, as KeepLightest builds it.
func sameAsLightest(t *testing.T, name string, back, g *Graph) {
	t.Helper()
	lightest, err := NewBuilder(g.N()).AddArcs(g.Arcs()).Build()
	if err != nil {
		t.Fatal(err)
	}
	formatSameGraph(t, name, back, lightest)
}

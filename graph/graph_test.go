package graph

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestBuilderDuplicatesAndLoops(t *testing.T) {
	arcs := []Arc{{0, 1, 5}, {0, 1, 3}, {0, 1, 4}, {1, 1, 2}, {2, 2, -1}, {1, 0, 7}}
	cases := []struct {
		policy Duplicates
		want   []int32 // weights of 0->1 in CSR order
	}{
		{KeepLightest, []int32{3}},
		{KeepLast, []int32{4}},
		{KeepFirst, []int32{5}},
		{KeepAll, []int32{3, 4, 5}},
	}
	for _, c := range cases {
		g, err := NewBuilder(3).Duplicates(c.policy).AddArcs(arcs).Build()
		if err != nil {
			t.Fatal(err)
		}
		_, ws := g.Out(0)
		if len(ws) != len(c.want) {
			t.Fatalf("%v: 0->1 weights %v, want %v", c.policy, ws, c.want)
		}
		for i := range ws {
			if ws[i] != c.want[i] {
				t.Fatalf("%v: 0->1 weights %v, want %v", c.policy, ws, c.want)
			}
		}
		if _, ok := g.Weight(1, 1); ok {
			t.Errorf("%v: positive self-loop kept", c.policy)
		}
		if w, ok := g.Weight(2, 2); !ok || w != -1 {
			t.Errorf("%v: negative self-loop dropped", c.policy)
		}
	}
}

// KeepLoops keeps every self-loop, and the loops change no distance: the
// graph gonum sees, which leaves them out, is the one without them.
func TestBuilderKeepLoops(t *testing.T) {
	arcs := []Arc{{0, 0, 1}, {0, 1, 2}, {1, 0, 2}, {1, 2, 3}, {1, 2, 4}, {2, 2, 0}}
	g, err := NewBuilder(3).KeepLoops().Duplicates(KeepAll).AddArcs(arcs).Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []int{0, 2} {
		if _, ok := g.Weight(v, v); !ok {
			t.Errorf("loop at %d dropped", v)
		}
	}
	if g.M() != len(arcs) {
		t.Errorf("%d arcs kept, want %d", g.M(), len(arcs))
	}
	plain, err := NewBuilder(3).Duplicates(KeepAll).AddArcs(arcs).Build()
	if err != nil {
		t.Fatal(err)
	}
	a, err := g.Gonum()
	if err != nil {
		t.Fatal(err)
	}
	b, err := plain.Gonum()
	if err != nil {
		t.Fatal(err)
	}
	if a.Edges().Len() != b.Edges().Len() {
		t.Errorf("gonum sees %d edges with the loops kept, %d without", a.Edges().Len(), b.Edges().Len())
	}
}

func TestBuilderErrors(t *testing.T) {
	_, err := NewBuilder(3).AddArc(0, 1, 1).AddArc(0, 7, 1).Build()
	if err == nil || !strings.Contains(err.Error(), "arc #2") || !strings.Contains(err.Error(), "vertex 7") {
		t.Fatalf("out-of-range error = %v", err)
	}
	_, err = NewBuilder(2).AddArc(0, 1, Inf).Build()
	if err == nil || !strings.Contains(err.Error(), "Inf") {
		t.Fatalf("Inf weight error = %v", err)
	}
	_, err = FromMatrix([][]int32{{0, 1}, {2}})
	if err == nil || !strings.Contains(err.Error(), "row 1") {
		t.Fatalf("ragged matrix error = %v", err)
	}
}

func TestUndirectedAndLabels(t *testing.T) {
	g, err := NewBuilder(0).Undirected().AddLabeled("x", "y", 4).AddLabeled("y", "z", 1).Build()
	if err != nil {
		t.Fatal(err)
	}
	if g.N() != 3 || g.M() != 4 {
		t.Fatalf("n=%d m=%d, want 3 4", g.N(), g.M())
	}
	if w, ok := g.Weight(2, 1); !ok || w != 1 {
		t.Fatalf("z->y = %d %v", w, ok)
	}
	if v, err := g.Vertex("z"); err != nil || v != 2 {
		t.Fatalf("Vertex(z) = %d %v", v, err)
	}
	if g.Label(0) != "x" {
		t.Fatalf("Label(0) = %q", g.Label(0))
	}
}

func TestParse(t *testing.T) {
	g, err := Parse("a->b 5, b->c 2; c->a -1\n# comment\nc-d 3  # edge\n d->e")
	if err != nil {
		t.Fatal(err)
	}
	if g.N() != 5 || g.M() != 6 {
		t.Fatalf("n=%d m=%d arcs=%v", g.N(), g.M(), g.Arcs())
	}
	if w, _ := g.Weight(2, 0); w != -1 {
		t.Fatalf("c->a = %d", w)
	}
	if w, _ := g.Weight(4-1, 4); w != 1 {
		t.Fatalf("d->e default weight = %d", w)
	}
	g, err = Parse("0->3 1, 3->1 2")
	if err != nil || g.N() != 4 || g.Labels() != nil {
		t.Fatalf("numeric parse: %v %v", g, err)
	}
	for _, bad := range []string{"a->", "a b", "a->b x", "a->b 1 2", "->b"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
}

func TestDenseRoundTrip(t *testing.T) {
	g, _ := Parse("0->1 4, 1->2 -2, 2->0 9, 0->1 3")
	w := g.Dense()
	if w[0*3+1] != 3 || w[1*3+1] != 0 || w[2*3+1] != Inf {
		t.Fatalf("dense = %v", w)
	}
	h, err := FromDense(3, w)
	if err != nil || h.M() != 3 {
		t.Fatalf("FromDense: %v %v", h, err)
	}
}

func TestPathAndVerify(t *testing.T) {
	g, _ := Parse("a->b 1, b->c 2, a->c 5")
	r, _ := NewAllPairs(3, true)
	set := func(i, j int, d, p int32) { r.Dist[i*3+j], r.Pred[i*3+j] = d, p }
	set(0, 0, 0, Nil)
	set(1, 1, 0, Nil)
	set(2, 2, 0, Nil)
	set(0, 1, 1, 0)
	set(0, 2, 3, 1)
	set(1, 2, 2, 1)
	r.Labels = g.Labels()
	if err := r.Verify(g); err != nil {
		t.Fatal(err)
	}
	p, err := r.Path(0, 2)
	if err != nil || p.String() != "a -> b -> c (weight 3)" {
		t.Fatalf("path = %v %v", p, err)
	}
	if p, _ := r.Path(2, 0); p.Reachable() || p.String() != "unreachable" {
		t.Fatalf("unreachable path = %v", p)
	}
	// A wrong distance is caught by the rebuilt path weight.
	r.Dist[0*3+2] = 4
	if err := r.Verify(g); err == nil {
		t.Fatal("Verify accepted dist[a][c]=4")
	}
	// A too-small distance is caught by the triangle inequality or attainment.
	r.Dist[0*3+2] = 3
	r.Dist[0*3+1] = 0
	if err := r.Verify(g); err == nil {
		t.Fatal("Verify accepted dist[a][b]=0")
	}
	r.Dist[0*3+1] = 1
	r.Pred = nil
	if err := r.Verify(g); err != nil {
		t.Fatalf("Verify without preds: %v", err)
	}
	r.Dist[1*3+0] = 7 // finite but no path
	if err := r.Verify(g); err == nil {
		t.Fatal("Verify accepted an unattainable distance")
	}
}

func TestNegativeCycleError(t *testing.T) {
	var err error = &NegativeCycleError{Vertex: 1, Cycle: []int{1, 2}, Weight: -3, Labels: []string{"a", "b", "c"}}
	var nc *NegativeCycleError
	if !errors.As(err, &nc) || err.Error() != "negative cycle through vertex b: b -> c -> b (weight -3)" {
		t.Fatalf("error = %q", err)
	}
}

func TestCheckMatrixSize(t *testing.T) {
	if err := CheckMatrixSize(1000, 2); err != nil {
		t.Fatal(err)
	}
	err := CheckMatrixSize(10_000_000, 2)
	if err == nil || !strings.Contains(err.Error(), "available") {
		t.Fatalf("huge matrix: %v", err)
	}
}

func TestGNM(t *testing.T) {
	for _, c := range []struct{ n, m int }{{0, 0}, {1, 0}, {2, 2}, {10, 0}, {10, 45}, {10, 89}, {10, 90}, {300, 5000}} {
		g, err := GNM(c.n, c.m, WeightRange{-3, 7}, 42)
		if err != nil {
			t.Fatalf("GNM(%d,%d): %v", c.n, c.m, err)
		}
		if g.N() != c.n || g.M() != c.m {
			t.Fatalf("GNM(%d,%d) gave n=%d m=%d", c.n, c.m, g.N(), g.M())
		}
		seen := map[[2]int]bool{}
		for _, a := range g.Arcs() {
			if a.From == a.To || seen[[2]int{a.From, a.To}] || a.Weight < -3 || a.Weight > 7 {
				t.Fatalf("GNM(%d,%d): bad arc %v", c.n, c.m, a)
			}
			seen[[2]int{a.From, a.To}] = true
		}
		h, _ := GNM(c.n, c.m, WeightRange{-3, 7}, 42)
		if fmt.Sprint(h.Arcs()) != fmt.Sprint(g.Arcs()) {
			t.Fatalf("GNM(%d,%d) not reproducible", c.n, c.m)
		}
	}
	if _, err := GNM(3, 7, WeightRange{1, 1}, 1); err == nil {
		t.Fatal("GNM accepted 7 arcs on 3 vertices")
	}
}

// VerifyWorkers gives Verify's verdict, and the error of the lowest failing
// row, with any number of workers; a cancelled context stops it.
func TestVerifyWorkers(t *testing.T) {
	g, err := GNM(60, 300, WeightRange{Min: 1, Max: 9}, 3)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := NewAllPairs(g.N(), false)
	// Distances by Bellman-Ford from every source: a right result.
	for s := 0; s < g.N(); s++ {
		d := r.Dist[s*g.N() : (s+1)*g.N()]
		for i := range d {
			d[i] = Inf
		}
		d[s] = 0
		for range g.N() {
			for _, a := range g.Arcs() {
				if d[a.From] != Inf && d[a.From]+a.Weight < d[a.To] {
					d[a.To] = d[a.From] + a.Weight
				}
			}
		}
	}
	ctx := context.Background()
	for _, workers := range []int{0, 1, 3, 100} {
		if err := r.VerifyWorkers(ctx, g, workers); err != nil {
			t.Fatalf("%d workers: %v", workers, err)
		}
	}
	bad := *r
	bad.Dist = slices.Clone(r.Dist)
	bad.Dist[7*g.N()+9]++ // row 7 and row 40 wrong
	bad.Dist[40*g.N()+1]++
	want := bad.Verify(g)
	if want == nil {
		t.Fatal("Verify accepted a wrong distance")
	}
	// Many tries, so that a worker stopping early at row 40 before row 7
	// is checked would show.
	for try := range 50 {
		workers := 1 + try%8
		if err := bad.VerifyWorkers(ctx, g, workers); err == nil || err.Error() != want.Error() {
			t.Fatalf("%d workers: %v, want Verify's %v", workers, err, want)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := r.VerifyWorkers(cancelled, g, 2); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
	other, err := Parse("a->b 1")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.VerifyWorkers(ctx, other, 2); err == nil {
		t.Error("a result for another n passed")
	}
}

package cpu

import (
	"context"
	"slices"
	"testing"

	"github.com/pathnotes/pathnotes/graph"
)

// matrix parses a matrix written as the documents print it (graph.ParseMatrix).
func matrix(t *testing.T, text string, oneBased bool) []int32 {
	t.Helper()
	m, err := graph.ParseMatrix(text, oneBased)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func example(t *testing.T, name string) *graph.Graph {
	g, err := graph.Example(name)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// allPairsSolvers runs every all-pairs solver with predecessors.
func allPairsSolvers(t *testing.T, g *graph.Graph) map[string]*graph.AllPairs {
	out := map[string]*graph.AllPairs{}
	for _, s := range apspSolvers(g.N()) {
		res, err := s.run(g, true)
		if err != nil {
			t.Fatalf("%s on %s: %v", s.name, g.Name(), err)
		}
		out[s.name] = res
	}
	return out
}

// TestKaraulaFig23 checks [Karaula 2017] §2.2-§2.3.3 (Fig. 2.3, matrices (1) and (2)): matrices (1) and (2), the
// path a->b->c->e->d of weight 12 against d(a,d) = 5, and the cycle
// b->c->d->b of weight 5.
func TestKaraulaFig23(t *testing.T) {
	hops := matrix(t, `0 1 2 3 3 | ∞ 0 1 2 2 | ∞ 2 0 1 1 | ∞ 1 1 0 2 | ∞ 2 2 1 0`, false)
	weighted := matrix(t, `0 1 3 5 7 | ∞ 0 2 4 6 | ∞ 3 0 2 4 | ∞ 1 3 0 7 | ∞ 6 8 5 0`, false)
	for name, want := range map[string][]int32{"karaula-fig2.3-hops": hops, "karaula-fig2.3": weighted} {
		g := example(t, name)
		for solver, res := range allPairsSolvers(t, g) {
			sameDist(t, res.Dist, want, 5, solver+" on "+name)
			if err := res.Verify(g); err != nil {
				t.Fatalf("%s on %s: %v", solver, name, err)
			}
		}
	}
	g := example(t, "karaula-fig2.3")
	walk := func(labels ...string) int64 {
		var sum int64
		for i := 0; i+1 < len(labels); i++ {
			u, _ := g.Vertex(labels[i])
			v, _ := g.Vertex(labels[i+1])
			w, ok := g.Weight(u, v)
			if !ok {
				t.Fatalf("no arc %s->%s", labels[i], labels[i+1])
			}
			sum += int64(w)
		}
		return sum
	}
	if w := walk("a", "b", "c", "e", "d"); w != 12 {
		t.Errorf("a->b->c->e->d weighs %d, want 12", w)
	}
	if w := walk("b", "c", "d", "b"); w != 5 {
		t.Errorf("cycle b->c->d->b weighs %d, want 5", w)
	}
	res, err := FloydWarshall(context.Background(), g, FWOptions{Pred: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := res.Path(0, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.String(); got != "a -> b -> c -> d (weight 5)" {
		t.Errorf("shortest a->d = %s, want a -> b -> c -> d (weight 5)", got)
	}
}

// TestKaraulaFig31Trace checks [Karaula 2017] §3.1, Fig. 3.1: D^(k) and Π^(k) for
// k = 0..5, Π converted from the thesis's 1-based numbering.
func TestKaraulaFig31Trace(t *testing.T) {
	steps := []struct{ d, p string }{
		{"0 5 ∞ 2 ∞ | ∞ 0 2 ∞ ∞ | 3 ∞ 0 ∞ 7 | ∞ ∞ 4 0 1 | 1 3 ∞ ∞ 0",
			"NIL 1 NIL 1 NIL | NIL NIL 2 NIL NIL | 3 NIL NIL NIL 3 | NIL NIL 4 NIL 4 | 5 5 NIL NIL NIL"},
		{"0 5 ∞ 2 ∞ | ∞ 0 2 ∞ ∞ | 3 8 0 5 7 | ∞ ∞ 4 0 1 | 1 3 ∞ 3 0",
			"NIL 1 NIL 1 NIL | NIL NIL 2 NIL NIL | 3 1 NIL 1 3 | NIL NIL 4 NIL 4 | 5 5 NIL 1 NIL"},
		{"0 5 7 2 ∞ | ∞ 0 2 ∞ ∞ | 3 8 0 5 7 | ∞ ∞ 4 0 1 | 1 3 5 3 0",
			"NIL 1 2 1 NIL | NIL NIL 2 NIL NIL | 3 1 NIL 1 3 | NIL NIL 4 NIL 4 | 5 5 2 1 NIL"},
		{"0 5 7 2 14 | 5 0 2 7 9 | 3 8 0 5 7 | 7 12 4 0 1 | 1 3 5 3 0",
			"NIL 1 2 1 3 | 3 NIL 2 1 3 | 3 1 NIL 1 3 | 3 1 4 NIL 4 | 5 5 2 1 NIL"},
		{"0 5 6 2 3 | 5 0 2 7 8 | 3 8 0 5 6 | 7 12 4 0 1 | 1 3 5 3 0",
			"NIL 1 4 1 4 | 3 NIL 2 1 4 | 3 1 NIL 1 4 | 3 1 4 NIL 4 | 5 5 2 1 NIL"},
		{"0 5 6 2 3 | 5 0 2 7 8 | 3 8 0 5 6 | 2 4 4 0 1 | 1 3 5 3 0",
			"NIL 1 4 1 4 | 3 NIL 2 1 4 | 3 1 NIL 1 4 | 5 5 4 NIL 4 | 5 5 2 1 NIL"},
	}
	g := example(t, "karaula-fig3.1")
	var tr graph.FWTrace
	res, err := FloydWarshall(context.Background(), g, FWOptions{Pred: true, Trace: &tr})
	if err != nil {
		t.Fatal(err)
	}
	if tr.N != 5 || tr.Solver != VariantFWNaive || tr.Tile != 0 || !slices.Equal(tr.Labels, []string{"a", "b", "c", "d", "e"}) {
		t.Errorf("trace header N=%d solver=%q tile=%d labels=%v", tr.N, tr.Solver, tr.Tile, tr.Labels)
	}
	if len(tr.Steps) != len(steps) {
		t.Fatalf("%d trace steps, want %d", len(tr.Steps), len(steps))
	}
	for k, want := range steps {
		got := tr.Steps[k]
		if got.K != k || got.Round != -1 || got.Phase != 0 {
			t.Errorf("step %d: K=%d Round=%d Phase=%d", k, got.K, got.Round, got.Phase)
		}
		sameDist(t, got.Dist, matrix(t, want.d, false), 5, name("D^(", k, ")"))
		if p := matrix(t, want.p, true); !slices.Equal(got.Pred, p) {
			t.Errorf("Π^(%d) = %v, want %v", k, got.Pred, p)
		}
	}
	if !slices.Equal(res.Dist, tr.Steps[5].Dist) || !slices.Equal(res.Pred, tr.Steps[5].Pred) {
		t.Error("the result differs from the last trace step")
	}
	// Paths rebuilt from Π^(5) (Karaula prints Π^(5) in §3.1).
	for _, c := range []struct {
		from, to int
		want     string
	}{{0, 4, "a -> d -> e (weight 3)"}, {3, 0, "d -> e -> a (weight 2)"}, {3, 1, "d -> e -> b (weight 4)"}} {
		p, err := res.Path(c.from, c.to)
		if err != nil || p.String() != c.want {
			t.Errorf("path %d->%d = %v (%v), want %s", c.from, c.to, p, err, c.want)
		}
	}
}

// TestKaraulaFig410BlockedTrace checks [Karaula 2017] §4.5, Fig. 4.10: blocked FW with
// tile 2, state after each phase of rounds 0 and 1.
func TestKaraulaFig410BlockedTrace(t *testing.T) {
	w := struct{ d, p string }{"0 5 9 ∞ | ∞ 0 1 ∞ | ∞ ∞ 0 2 | ∞ 3 ∞ 0",
		"NIL 1 1 NIL | NIL NIL 2 NIL | NIL NIL NIL 3 | NIL 4 NIL NIL"}
	r0p2 := struct{ d, p string }{"0 5 6 ∞ | ∞ 0 1 ∞ | ∞ ∞ 0 2 | ∞ 3 ∞ 0",
		"NIL 1 2 NIL | NIL NIL 2 NIL | NIL NIL NIL 3 | NIL 4 NIL NIL"}
	r0p3 := struct{ d, p string }{"0 5 6 ∞ | ∞ 0 1 ∞ | ∞ ∞ 0 2 | ∞ 3 4 0",
		"NIL 1 2 NIL | NIL NIL 2 NIL | NIL NIL NIL 3 | NIL 4 2 NIL"}
	r1p2 := struct{ d, p string }{"0 5 6 8 | ∞ 0 1 3 | ∞ 5 0 2 | ∞ 3 4 0",
		"NIL 1 2 3 | NIL NIL 2 3 | NIL 4 NIL 3 | NIL 4 2 NIL"}
	want := []struct {
		round, phase, k int
		tiles           [][2]int
		d, p            string
	}{
		{-1, 0, 0, nil, w.d, w.p},
		{0, 1, 2, [][2]int{{0, 0}}, w.d, w.p}, // unchanged
		{0, 2, 2, [][2]int{{0, 1}, {1, 0}}, r0p2.d, r0p2.p},
		{0, 3, 2, [][2]int{{1, 1}}, r0p3.d, r0p3.p},
		{1, 1, 4, [][2]int{{1, 1}}, r0p3.d, r0p3.p}, // unchanged from previous
		{1, 2, 4, [][2]int{{0, 1}, {1, 0}}, r1p2.d, r1p2.p},
		{1, 3, 4, [][2]int{{0, 0}}, r1p2.d, r1p2.p}, // final, identical
	}
	g := example(t, "karaula-fig4.10")
	for _, workers := range []int{1, 2} {
		var tr graph.FWTrace
		res, err := FloydWarshallBlocked(context.Background(), g, FWOptions{Pred: true, Tile: 2, Workers: workers, Trace: &tr})
		if err != nil {
			t.Fatal(err)
		}
		if tr.Tile != 2 || tr.Solver != VariantFWBlocked || len(tr.Steps) != len(want) {
			t.Fatalf("trace tile=%d solver=%q with %d steps, want 2, %q, %d", tr.Tile, tr.Solver, len(tr.Steps), VariantFWBlocked, len(want))
		}
		for i, s := range want {
			got := tr.Steps[i]
			what := got.Title()
			if got.Round != s.round || got.Phase != s.phase || got.K != s.k || !slices.Equal(got.Updated, s.tiles) {
				t.Errorf("step %d: round %d phase %d K %d tiles %v, want %d %d %d %v", i, got.Round, got.Phase, got.K, got.Updated, s.round, s.phase, s.k, s.tiles)
			}
			sameDist(t, got.Dist, matrix(t, s.d, false), 4, what)
			if p := matrix(t, s.p, true); !slices.Equal(got.Pred, p) {
				t.Errorf("%s: Π = %v, want %v", what, got.Pred, p)
			}
		}
		plain, err := FloydWarshall(context.Background(), g, FWOptions{Pred: true})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Equal(plain) {
			t.Errorf("blocked result differs from plain FW:\n%s", res.Diff(plain, 10))
		}
	}
}

// TestMusapDijkstraTrace checks [Musap 2016] §2.5: distances, settle order,
// the sequential table and the frontier (Algorithm 2) table.
func TestMusapDijkstraTrace(t *testing.T) {
	g := example(t, "musap-sabcd")
	var tr graph.DijkstraTrace
	res, err := Dijkstra(context.Background(), g, 0, DijkstraOptions{Pred: true, Trace: &tr})
	if err != nil {
		t.Fatal(err)
	}
	sameDist(t, res.Dist, []int32{0, 2, 5, 6, 7}, 0, "distances")
	if err := res.Verify(g); err != nil {
		t.Fatal(err)
	}
	if got := tr.SettleOrder(); !slices.Equal(got, []int{0, 1, 2, 3, 4}) {
		t.Errorf("settle order %v, want s,a,b,c,d", got)
	}
	const inf = graph.Inf
	sameDist(t, tr.Initial, []int32{0, inf, inf, inf, inf}, 0, "initial")
	sequential := [][]int32{
		{0, 2, 7, inf, inf}, // s
		{0, 2, 5, 10, 8},    // a (d = 2 + W[a,d], 8 with the assumed arc)
		{0, 2, 5, 6, 7},     // b
		{0, 2, 5, 6, 7},     // c: 6+4 = 10 > 7, no change
		{0, 2, 5, 6, 7},     // d
	}
	if len(tr.Steps) != len(sequential) {
		t.Fatalf("%d sequential steps, want %d", len(tr.Steps), len(sequential))
	}
	for i, want := range sequential {
		sameDist(t, tr.Steps[i].Dist, want, 0, name("sequential step ", i+1))
	}
	frontier := []struct {
		f, next, unsettled []int
		c                  []int32
		min                int32
	}{
		{[]int{0}, []int{1}, []int{2, 3, 4}, []int32{0, 2, 7, inf, inf}, 2},
		{[]int{1}, []int{2}, []int{3, 4}, []int32{0, 2, 5, 10, 8}, 5},
		{[]int{2}, []int{3}, []int{4}, []int32{0, 2, 5, 6, 7}, 6},
		{[]int{3}, []int{4}, nil, []int32{0, 2, 5, 6, 7}, 7},
		{[]int{4}, nil, nil, []int32{0, 2, 5, 6, 7}, inf},
	}
	checkFrontier(t, tr.Frontier, frontier)
}

// TestMusapTiesFrontier checks the designed tie example: the frontier
// holds several vertices, so Algorithm 2 needs fewer iterations.
func TestMusapTiesFrontier(t *testing.T) {
	g := example(t, "musap-ties")
	var tr graph.DijkstraTrace
	res, err := Dijkstra(context.Background(), g, 0, DijkstraOptions{Trace: &tr})
	if err != nil {
		t.Fatal(err)
	}
	sameDist(t, res.Dist, []int32{0, 1, 1, 2, 2, 2, 3, 4}, 0, "distances")
	if res.Pred != nil {
		t.Error("predecessors returned without Pred")
	}
	if got := tr.SettleOrder(); !slices.Equal(got, []int{0, 1, 2, 3, 4, 5, 6, 7}) {
		t.Errorf("settle order %v (ties settle the smaller vertex first)", got)
	}
	const inf = graph.Inf
	checkFrontier(t, tr.Frontier, []struct {
		f, next, unsettled []int
		c                  []int32
		min                int32
	}{
		{[]int{0}, []int{1, 2}, []int{3, 4, 5, 6, 7}, []int32{0, 1, 1, 3, inf, inf, inf, inf}, 1},
		{[]int{1, 2}, []int{3, 4, 5}, []int{6, 7}, []int32{0, 1, 1, 2, 2, 2, inf, inf}, 2},
		{[]int{3, 4, 5}, []int{6}, []int{7}, []int32{0, 1, 1, 2, 2, 2, 3, 6}, 3},
		{[]int{6}, []int{7}, nil, []int32{0, 1, 1, 2, 2, 2, 3, 4}, 4},
		{[]int{7}, nil, nil, []int32{0, 1, 1, 2, 2, 2, 3, 4}, inf},
	})
	if len(tr.Steps) != 8 {
		t.Errorf("%d sequential steps, want 8", len(tr.Steps))
	}
}

func checkFrontier(t *testing.T, got []graph.FrontierStep, want []struct {
	f, next, unsettled []int
	c                  []int32
	min                int32
}) {
	if len(got) != len(want) {
		t.Fatalf("%d frontier iterations, want %d", len(got), len(want))
	}
	for i, w := range want {
		s := got[i]
		if !slices.Equal(s.Frontier, w.f) || !slices.Equal(s.Next, w.next) || !slices.Equal(s.Unsettled, w.unsettled) || s.Min != w.min {
			t.Errorf("iteration %d: F=%v min=%s next=%v U=%v, want F=%v min=%s next=%v U=%v", i+1,
				s.Frontier, graph.FormatDist(s.Min), s.Next, s.Unsettled, w.f, graph.FormatDist(w.min), w.next, w.unsettled)
		}
		sameDist(t, s.Dist, w.c, 0, name("frontier iteration ", i+1))
	}
}

// TestBodraFig1 checks the race toy graph: d[C] = 6, not the lost update's 9.
func TestBodraFig1(t *testing.T) {
	g := example(t, "bodra-fig1")
	for _, run := range []func() (*graph.SingleSource, error){
		func() (*graph.SingleSource, error) {
			return Dijkstra(context.Background(), g, 0, DijkstraOptions{Pred: true})
		},
		func() (*graph.SingleSource, error) {
			return BellmanFord(context.Background(), g, 0, BFOptions{Pred: true})
		},
	} {
		res, err := run()
		if err != nil {
			t.Fatal(err)
		}
		sameDist(t, res.Dist, []int32{0, 1, 2, 6}, 0, res.Solver)
		if p, _ := res.PathTo(3); p.String() != "S -> A -> C (weight 6)" {
			t.Errorf("%s: path to C = %v", res.Solver, p)
		}
	}
}

// TestBlockedTraceMatchesPlainAtRoundEnds checks the property the trace
// documents and the thesis proves: after the last phase of round r the
// blocked matrix equals the plain algorithm's D^(K), K = min((r+1)·tile, n).
func TestBlockedTraceMatchesPlainAtRoundEnds(t *testing.T) {
	ctx := context.Background()
	for _, c := range randomGraphs(t, []int{5, 17, 40, 64}, 1) {
		if c.negCycle {
			continue
		}
		g := c.g
		var plain graph.FWTrace
		if _, err := FloydWarshall(ctx, g, FWOptions{Pred: true, Trace: &plain}); err != nil {
			t.Fatal(err)
		}
		for _, tile := range []int{2, 3, 8, 32} {
			var tr graph.FWTrace
			res, err := FloydWarshallBlocked(ctx, g, FWOptions{Pred: true, Tile: tile, Trace: &tr})
			if err != nil {
				t.Fatal(err)
			}
			rounds := 0
			for i, s := range tr.Steps {
				if i+1 < len(tr.Steps) && tr.Steps[i+1].Round == s.Round {
					continue // not the last phase of its round
				}
				sameDist(t, s.Dist, plain.Steps[s.K].Dist, g.N(), name(g.Name(), " tile ", tile, " ", s.Title(), " against D^(", s.K, ")"))
				rounds++
			}
			if want := (g.N() + tile - 1) / tile; rounds != want+1 { // +1: the initial state
				t.Errorf("%s tile %d: %d round ends in the trace, want %d", g.Name(), tile, rounds-1, want)
			}
			last := tr.Steps[len(tr.Steps)-1]
			if !slices.Equal(last.Dist, res.Dist) || !slices.Equal(last.Pred, res.Pred) {
				t.Errorf("%s tile %d: the result differs from the last trace step", g.Name(), tile)
			}
		}
	}
}

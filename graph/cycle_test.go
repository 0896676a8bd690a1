package graph

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// onCycle is the brute-force check: v lies on a cycle of pred when
// following pred from v comes back to v.
func onCycle(pred []int32, v int) bool {
	x := v
	for range len(pred) {
		if pred[x] < 0 || int(pred[x]) >= len(pred) {
			return false
		}
		if x = int(pred[x]); x == v {
			return true
		}
	}
	return false
}

// checkPredCycle fails t unless cycle is a cycle of pred in arc order,
// starting at its smallest vertex, whose vertices all lie on it.
func checkPredCycle(t *testing.T, pred []int32, cycle []int) {
	t.Helper()
	if len(cycle) == 0 {
		t.Fatalf("pred %v: empty cycle", pred)
	}
	if cycle[0] != slices.Min(cycle) {
		t.Errorf("pred %v: cycle %v does not start at its smallest vertex", pred, cycle)
	}
	seen := map[int]bool{}
	for k, v := range cycle {
		if seen[v] {
			t.Errorf("pred %v: cycle %v repeats %d", pred, cycle, v)
		}
		seen[v] = true
		next := cycle[(k+1)%len(cycle)]
		if int(pred[next]) != v {
			t.Errorf("pred %v: cycle %v has %d->%d, but pred[%d] = %d", pred, cycle, v, next, next, pred[next])
		}
	}
}

// randomPred is a predecessor array of n vertices with some vertices
// without a predecessor (Nil, or a value beyond n).
func randomPred(r *rand.Rand, n int) []int32 {
	pred := make([]int32, n)
	for v := range pred {
		switch r.IntN(6) {
		case 0:
			pred[v] = Nil
		case 1:
			pred[v] = int32(n + r.IntN(3))
		default:
			pred[v] = int32(r.IntN(n))
		}
	}
	return pred
}

// TestPredCycle compares PredCycle and PredCycleFrom with the brute-force
// walk on fixed cases and random arrays.
func TestPredCycle(t *testing.T) {
	for _, c := range []struct {
		pred []int32
		want []int
	}{
		{nil, nil},
		{[]int32{Nil}, nil},
		{[]int32{0}, []int{0}},
		{[]int32{-1, 0, 1, 2}, nil},
		{[]int32{-1, 3, 1, 2}, []int{1, 2, 3}},
		{[]int32{-1, 0, 0, 4, 3}, []int{3, 4}},
		{[]int32{1, 2, 0}, []int{0, 2, 1}}, // arcs 1->0, 2->1, 0->2
		{[]int32{2, 0, 1}, []int{0, 1, 2}},
		{[]int32{-1, 7, 1}, nil},
	} {
		if got := PredCycle(c.pred); !slices.Equal(got, c.want) {
			t.Errorf("PredCycle(%v) = %v, want %v", c.pred, got, c.want)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		n := r.IntN(12)
		pred := randomPred(r, n)
		any := false
		for v := range pred {
			any = any || onCycle(pred, v)
		}
		got := PredCycle(pred)
		if (got != nil) != any {
			t.Fatalf("PredCycle(%v) = %v, brute force says a cycle exists: %v", pred, got, any)
		}
		if got != nil {
			checkPredCycle(t, pred, got)
		}
		for v := range pred {
			from := PredCycleFrom(pred, v)
			// The walk from v meets a cycle when some vertex within n
			// steps of it is on one.
			meets, x := false, v
			for range len(pred) + 1 {
				if onCycle(pred, x) {
					meets = true
					break
				}
				if pred[x] < 0 || int(pred[x]) >= n {
					break
				}
				x = int(pred[x])
			}
			if (from != nil) != meets {
				t.Fatalf("PredCycleFrom(%v, %d) = %v, brute force says it meets a cycle: %v", pred, v, from, meets)
			}
			if from != nil {
				checkPredCycle(t, pred, from)
				if !slices.Contains(from, x) {
					t.Errorf("PredCycleFrom(%v, %d) = %v, not the cycle through %d", pred, v, from, x)
				}
			}
		}
	}
}

// TestRowCycle checks that RepairPredecessors' test ignores the source's
// own predecessor and leaves the row as it was.
func TestRowCycle(t *testing.T) {
	stamp := make([]int32, 3)
	row := []int32{2, 0, 1} // every walk goes round through the source 0
	if rowCycle(0, row, stamp) {
		t.Error("a cycle through the source counted")
	}
	if !slices.Equal(row, []int32{2, 0, 1}) {
		t.Errorf("row changed to %v", row)
	}
	if !rowCycle(0, []int32{Nil, 2, 1}, stamp) {
		t.Error("the cycle 1, 2 away from the source was missed")
	}
}

// randomGraph is a graph of n vertices and about m arcs with weights in
// lo..hi, self-loops and parallel arcs included.
func randomGraph(t *testing.T, r *rand.Rand, n, m int, lo, hi int32) *Graph {
	t.Helper()
	b := NewBuilder(n).Duplicates(KeepAll)
	for range m {
		b.AddArc(r.IntN(n), r.IntN(n), lo+r.Int32N(hi-lo+1))
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// bruteNegative reports whether g has a negative cycle, by Floyd-Warshall
// on the lightest arcs: some vertex reaches itself at negative weight.
func bruteNegative(g *Graph) bool {
	n := g.N()
	const inf = int64(1) << 60
	d := make([]int64, n*n)
	for i := range d {
		d[i] = inf
	}
	for _, a := range g.Arcs() {
		d[a.From*n+a.To] = min(d[a.From*n+a.To], int64(a.Weight))
	}
	for k := range n {
		for i := range n {
			for j := range n {
				if d[i*n+k] < inf && d[k*n+j] < inf {
					d[i*n+j] = min(d[i*n+j], d[i*n+k]+d[k*n+j])
				}
			}
		}
	}
	for i := range n {
		if d[i*n+i] < 0 {
			return true
		}
	}
	return false
}

// bruteCycleWeight adds the lightest arc between consecutive vertices, from
// the list of arcs.
func bruteCycleWeight(t *testing.T, g *Graph, cycle []int) int64 {
	t.Helper()
	var sum int64
	for k, u := range cycle {
		v := cycle[(k+1)%len(cycle)]
		best, found := int32(0), false
		for _, a := range g.Arcs() {
			if a.From == u && a.To == v && (!found || a.Weight < best) {
				best, found = a.Weight, true
			}
		}
		if !found {
			t.Fatalf("cycle %v: no arc %d->%d", cycle, u, v)
		}
		sum += int64(best)
	}
	return sum
}

// TestCycleWeight takes the lightest of parallel arcs.
func TestCycleWeight(t *testing.T) {
	g, err := NewBuilder(3).Duplicates(KeepAll).AddArc(0, 1, 5).AddArc(0, 1, -2).AddArc(1, 2, 3).AddArc(2, 0, 4).AddArc(1, 1, -7).Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cycle []int
		want  int64
	}{{[]int{0, 1, 2}, 5}, {[]int{1, 2, 0}, 5}, {[]int{1}, -7}} {
		if got := g.CycleWeight(c.cycle); got != c.want || got != bruteCycleWeight(t, g, c.cycle) {
			t.Errorf("CycleWeight(%v) = %d, want %d", c.cycle, got, c.want)
		}
	}
}

// TestFindNegativeCycle compares FindNegativeCycle with Floyd-Warshall on
// random graphs with and without negative cycles, self-loops included, and
// on n = 0 and 1.
func TestFindNegativeCycle(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{0, 1} {
		g := randomGraph(t, rand.New(rand.NewPCG(3, uint64(n))), max(n, 1), 0, 0, 0)
		if n == 0 {
			g, _ = NewBuilder(0).Build()
		}
		if c := FindNegativeCycle(ctx, g, nil); c != nil {
			t.Errorf("n = %d: cycle %v in a graph without arcs", n, c)
		}
	}
	loop, err := NewBuilder(1).AddArc(0, 0, -1).Build()
	if err != nil {
		t.Fatal(err)
	}
	if c := FindNegativeCycle(ctx, loop, nil); !slices.Equal(c, []int{0}) {
		t.Errorf("negative self-loop: %v, want [0]", c)
	}
	r := rand.New(rand.NewPCG(5, 6))
	found, clean := 0, 0
	for trial := range 600 {
		n := 1 + r.IntN(9)
		g := randomGraph(t, r, n, r.IntN(3*n+1), int32(-3+trial%3), 9)
		want := bruteNegative(g)
		cycle := FindNegativeCycle(ctx, g, nil)
		if (cycle != nil) != want {
			t.Fatalf("graph %v: FindNegativeCycle = %v, Floyd-Warshall says a negative cycle exists: %v", g.Arcs(), cycle, want)
		}
		if cycle == nil {
			clean++
			continue
		}
		found++
		if w := bruteCycleWeight(t, g, cycle); w >= 0 || w != g.CycleWeight(cycle) {
			t.Errorf("graph %v: cycle %v of weight %d (CycleWeight %d), want negative", g.Arcs(), cycle, w, g.CycleWeight(cycle))
		}
		if slices.Min(cycle) != cycle[0] {
			t.Errorf("cycle %v does not start at its smallest vertex", cycle)
		}
	}
	if found < 50 || clean < 50 {
		t.Errorf("random graphs: %d with a negative cycle, %d without; want both kinds", found, clean)
	}
	// Distances from a source that cannot reach the cycle: none is found.
	g, err := FromTriples(5, [][3]int{{0, 1, 2}, {1, 2, 1}, {2, 3, -4}, {3, 1, 1}, {3, 4, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if c := FindNegativeCycle(ctx, g, []int32{Inf, Inf, Inf, Inf, 0}); c != nil {
		t.Errorf("unreachable cycle found: %v", c)
	}
	if c := FindNegativeCycle(ctx, g, []int32{0, Inf, Inf, Inf, Inf}); !slices.Equal(c, []int{1, 2, 3}) {
		t.Errorf("cycle from 0: %v, want [1 2 3]", c)
	}
}

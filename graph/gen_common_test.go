package graph

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// benchMake times gen, a generator or reader call, failing on its error.
func benchMake(b *testing.B, gen func() (*Graph, error)) {
	for b.Loop() {
		if _, err := gen(); err != nil {
			b.Fatal(err)
		}
	}
}

// checkSimpleGraph fails unless g has exactly n vertices and m arcs, a
// well-formed CSR, targets in range, no self-loops, strictly increasing
// targets within each row (so no parallel arcs) and weights within w.
func checkSimpleGraph(t *testing.T, g *Graph, n, m int, w WeightRange) {
	t.Helper()
	if g.N() != n || g.M() != m {
		t.Fatalf("%s: n=%d m=%d, want n=%d m=%d", g.Name(), g.N(), g.M(), n, m)
	}
	off := g.Offsets()
	if len(off) != n+1 || off[0] != 0 || int(off[n]) != m {
		t.Fatalf("%s: offsets length %d, first %d, last %d", g.Name(), len(off), off[0], off[len(off)-1])
	}
	for u := range n {
		if off[u+1] < off[u] {
			t.Fatalf("%s: offsets decrease at vertex %d", g.Name(), u)
		}
		ts, ws := g.Out(u)
		for i, v := range ts {
			switch {
			case v < 0 || int(v) >= n:
				t.Fatalf("%s: arc %d->%d leaves the graph", g.Name(), u, v)
			case int(v) == u:
				t.Fatalf("%s: self-loop at %d", g.Name(), u)
			case i > 0 && v <= ts[i-1]:
				t.Fatalf("%s: row %d not strictly increasing: %v", g.Name(), u, ts)
			case ws[i] < w.Min || ws[i] > w.Max:
				t.Fatalf("%s: arc %d->%d weight %d outside %d..%d", g.Name(), u, v, ws[i], w.Min, w.Max)
			}
		}
	}
}

// sameGraph reports whether a and b have identical CSR arrays.
func sameGraph(a, b *Graph) bool {
	return slices.Equal(a.Offsets(), b.Offsets()) && slices.Equal(a.Targets(), b.Targets()) &&
		slices.Equal(a.Weights(), b.Weights())
}

// checkReproducible builds a graph with seeds 7, 7 and 8 and fails unless
// the first two are identical and the third differs.
func checkReproducible(t *testing.T, build func(seed uint64) (*Graph, error)) {
	t.Helper()
	var gs [3]*Graph
	for i, seed := range []uint64{7, 7, 8} {
		g, err := build(seed)
		if err != nil {
			t.Fatal(err)
		}
		gs[i] = g
	}
	if !sameGraph(gs[0], gs[1]) || gs[0].Name() != gs[1].Name() {
		t.Fatalf("%s: two builds with seed 7 differ", gs[0].Name())
	}
	if sameGraph(gs[0], gs[2]) {
		t.Fatalf("%s: seeds 7 and 8 give the same graph", gs[0].Name())
	}
}

// reached returns how many vertices a breadth-first search from s reaches.
func reached(g *Graph, s int) int {
	seen := make([]bool, g.N())
	seen[s] = true
	for queue := []int{s}; len(queue) > 0; queue = queue[1:] {
		ts, _ := g.Out(queue[0])
		for _, v := range ts {
			if !seen[v] {
				seen[v] = true
				queue = append(queue, int(v))
			}
		}
	}
	count := 0
	for _, s := range seen {
		if s {
			count++
		}
	}
	return count
}

// checkStronglyConnected fails unless every vertex reaches vertex 0 and
// vertex 0 reaches every vertex.
func checkStronglyConnected(t *testing.T, g *Graph) {
	t.Helper()
	if g.N() == 0 {
		return
	}
	if got := reached(g, 0); got != g.N() {
		t.Fatalf("%s: vertex 0 reaches %d of %d vertices", g.Name(), got, g.N())
	}
	if got := reached(g.Reverse(), 0); got != g.N() {
		t.Fatalf("%s: only %d of %d vertices reach vertex 0", g.Name(), got, g.N())
	}
}

// argError is one bad call of a generator and a piece of the error it must give.
type argError struct {
	name  string
	build func() (*Graph, error)
	want  string
}

func checkArgErrors(t *testing.T, cases []argError) {
	t.Helper()
	for _, c := range cases {
		g, err := c.build()
		if err == nil {
			t.Errorf("%s: no error, got %v", c.name, g)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not mention %q", c.name, err, c.want)
		}
	}
}

func TestPackArcOrder(t *testing.T) {
	arcs := [][2]int32{{3, -MaxDistance}, {3, -1}, {3, 0}, {3, MaxDistance}, {4, -5}, {math.MaxInt32, 2}}
	for i, a := range arcs {
		p := packArc(a[0], a[1])
		if to, w := unpackArc(p); to != a[0] || w != a[1] {
			t.Fatalf("unpack(pack(%v)) = %d %d", a, to, w)
		}
		if i > 0 && p <= packArc(arcs[i-1][0], arcs[i-1][1]) {
			t.Fatalf("pack(%v) does not sort after pack(%v)", a, arcs[i-1])
		}
	}
}

func TestForChunksIndependentOfWorkers(t *testing.T) {
	draw := func() []uint64 {
		out := make([]uint64, 1000)
		forChunks(len(out), 7, 42, func(lo, hi int, rng *rand.Rand) {
			for i := lo; i < hi; i++ {
				out[i] = rng.Uint64()
			}
		})
		return out
	}
	first := draw()
	old := runtime.GOMAXPROCS(1)
	second := draw()
	runtime.GOMAXPROCS(old)
	if !slices.Equal(first, second) {
		t.Fatal("forChunks output depends on GOMAXPROCS")
	}
}

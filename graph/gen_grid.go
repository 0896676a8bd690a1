package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Grid returns the rows×cols four-neighbour grid: vertex r·cols+c is joined
// to the vertices left, right, above and below it by a two-way road, that
// is two arcs with the same weight, drawn uniformly from w. It has
// n = rows·cols vertices and m = 2·(rows·(cols-1) + (rows-1)·cols) arcs.
func Grid(rows, cols int, w WeightRange, seed uint64) (*Graph, error) {
	if rows < 0 || cols < 0 {
		return nil, fmt.Errorf("graph.Grid: negative size %d×%d", rows, cols)
	}
	if err := w.Check(); err != nil {
		return nil, err
	}
	if cols > 0 && rows > math.MaxInt32/cols {
		return nil, fmt.Errorf("graph.Grid: %d×%d vertices is more than int32 vertex ids allow", rows, cols)
	}
	l := gridLayout{n: rows * cols, cols: max(cols, 1)}
	if err := l.checkSize("Grid", l.fullArcs()); err != nil {
		return nil, err
	}
	keep := make([]bool, 2*l.n)
	for e := range keep {
		keep[e] = l.exists(e)
	}
	g := l.build(keep, w, newRand(seed))
	g.name = fmt.Sprintf("grid(rows=%d,cols=%d,%s,seed=%d)", rows, cols, weightName(w), seed)
	return g, nil
}

// RoadLike returns a stand-in for a road network with exactly n vertices
// and exactly m arcs, for example DIMACS nyc (n=264346, m=733846) when the
// real file is not at hand. The vertices fill a near-square grid row by row
// (cols = ⌈√n⌉, the last row may be partial). A random spanning tree of the
// grid is kept, so every vertex reaches every other; of the remaining grid
// edges a random subset is kept and the rest removed, which makes detours
// as missing streets do. Every kept edge is a two-way road: two arcs with
// the same weight, drawn uniformly from w.
//
// m must be even (arcs come in pairs), at least 2(n-1) (the spanning tree)
// and at most the full grid's arc count; RoadLike says which bound failed.
func RoadLike(n, m int, w WeightRange, seed uint64) (*Graph, error) {
	if n < 0 || m < 0 {
		return nil, fmt.Errorf("graph.RoadLike: negative size n=%d m=%d", n, m)
	}
	if err := w.Check(); err != nil {
		return nil, err
	}
	if n > math.MaxInt32/2 {
		return nil, fmt.Errorf("graph.RoadLike: n=%d is too large: a spanning tree alone needs 2(n-1) arcs, more than the %d that int32 offsets can index", n, math.MaxInt32)
	}
	l := gridLayout{n: n, cols: max(ceilSqrt(n), 1)}
	full := l.fullArcs()
	switch {
	case m%2 != 0:
		return nil, fmt.Errorf("graph.RoadLike: m=%d is odd, but every road is two arcs", m)
	case n > 0 && m < 2*(n-1):
		return nil, fmt.Errorf("graph.RoadLike: m=%d is below 2(n-1)=%d, the arcs of a spanning tree that keeps %d vertices connected", m, 2*(n-1), n)
	case m > full:
		return nil, fmt.Errorf("graph.RoadLike: m=%d is more than the %d arcs of the full grid for n=%d (%d columns)", m, full, n, l.cols)
	}
	if err := l.checkSize("RoadLike", m); err != nil {
		return nil, err
	}
	rng := newRand(seed)
	keep := l.spanningTreePlus(m/2-max(n-1, 0), rng)
	g := l.build(keep, w, rng)
	g.name = fmt.Sprintf("roadlike(n=%d,m=%d,%s,seed=%d)", n, m, weightName(w), seed)
	return g, nil
}

// gridLayout places vertex v at row v/cols, column v%cols of a grid filled
// row by row; its last row may be partial. Edge 2v joins v to its right
// neighbour and edge 2v+1 to the one below, where those exist.
type gridLayout struct{ n, cols int }

// exists reports whether edge e is part of the grid.
func (l gridLayout) exists(e int) bool {
	v := e / 2
	if e%2 == 0 {
		return (v+1)%l.cols != 0 && v+1 < l.n
	}
	return v+l.cols < l.n
}

// ends returns the two vertices of edge e.
func (l gridLayout) ends(e int) (int, int) {
	v := e / 2
	if e%2 == 0 {
		return v, v + 1
	}
	return v, v + l.cols
}

// fullArcs returns the number of arcs of the whole grid (two per edge).
func (l gridLayout) fullArcs() int {
	if l.n == 0 {
		return 0
	}
	fullRows, last := l.n/l.cols, l.n%l.cols
	horizontal := fullRows*(l.cols-1) + max(last-1, 0)
	vertical := l.n - min(l.n, l.cols) // every vertex below the first row has one above
	return 2 * (horizontal + vertical)
}

// checkSize checks that a graph of this layout with m arcs can be built:
// the peak holds the CSR arrays (8 bytes an arc, 4 a vertex), the edge marks
// and weights (10 a vertex) and, for RoadLike, the shuffled edges and the
// union-find forest (16 a vertex).
func (l gridLayout) checkSize(fn string, m int) error {
	return checkGenSize(fn, uint64(l.n), uint64(m), 8*uint64(m)+30*uint64(l.n))
}

// spanningTreePlus returns the edge marks of a random spanning tree of the
// grid plus extra further random edges. It visits the edges in random order
// and keeps one when it joins two parts not yet connected (Kruskal's
// algorithm with random weights); of the other edges the first extra seen
// are kept too.
func (l gridLayout) spanningTreePlus(extra int, rng *rand.Rand) []bool {
	order := make([]int32, 0, l.fullArcs()/2)
	for e := range 2 * l.n {
		if l.exists(e) {
			order = append(order, int32(e))
		}
	}
	shuffle(order, rng)
	parts := newDisjointSets(l.n)
	keep := make([]bool, 2*l.n)
	for _, e := range order {
		u, v := l.ends(int(e))
		switch {
		case parts.union(u, v):
			keep[e] = true
		case extra > 0:
			keep[e] = true
			extra--
		}
	}
	return keep
}

// build returns the graph of the kept edges, two arcs each with one weight
// drawn from w, in edge order. Rows come out sorted: above, left, right,
// below.
func (l gridLayout) build(keep []bool, w WeightRange, rng *rand.Rand) *Graph {
	weight := make([]int32, len(keep))
	m := 0
	for e, k := range keep {
		if k {
			weight[e] = w.draw(rng)
			m += 2
		}
	}
	g := newCSR(l.n, m)
	out := int32(0)
	add := func(e, to int) {
		if keep[e] {
			g.targets[out], g.weights[out] = int32(to), weight[e]
			out++
		}
	}
	for v := range l.n {
		if v >= l.cols {
			add(2*(v-l.cols)+1, v-l.cols)
		}
		if v%l.cols != 0 {
			add(2*(v-1), v-1)
		}
		add(2*v, v+1)
		add(2*v+1, v+l.cols)
		g.offsets[v+1] = out
	}
	return g
}

// disjointSets is a union-find forest over 0..n-1 with path halving and
// union by size.
type disjointSets struct{ parent, size []int32 }

func newDisjointSets(n int) disjointSets {
	d := disjointSets{make([]int32, n), make([]int32, n)}
	for i := range d.parent {
		d.parent[i], d.size[i] = int32(i), 1
	}
	return d
}

func (d disjointSets) find(x int32) int32 {
	for d.parent[x] != x {
		d.parent[x] = d.parent[d.parent[x]]
		x = d.parent[x]
	}
	return x
}

// union joins the sets of u and v and reports whether they were apart.
func (d disjointSets) union(u, v int) bool {
	a, b := d.find(int32(u)), d.find(int32(v))
	if a == b {
		return false
	}
	if d.size[a] < d.size[b] {
		a, b = b, a
	}
	d.parent[b] = a
	d.size[a] += d.size[b]
	return true
}

// ceilSqrt returns ⌈√n⌉ for n ≥ 0, exactly.
func ceilSqrt(n int) int {
	r := int(math.Sqrt(float64(n)))
	for r*r < n {
		r++
	}
	for r > 0 && (r-1)*(r-1) >= n {
		r--
	}
	return r
}

package graph

import (
	"fmt"
	"math"
	"strconv"
)

// Inf is the distance of an unreachable vertex and, in dense matrices, the
// weight of a missing arc.
const Inf int32 = math.MaxInt32

// Nil is the predecessor of a vertex that has none: the source itself, or a
// vertex that cannot be reached.
const Nil int32 = -1

// MaxDistance is the largest magnitude a finite weight or distance may have.
// It leaves headroom below Inf so that GPU kernels can use a sentinel such as
// 2^30 and add two distances without wrapping; every solver reports an error
// instead of returning a distance beyond it.
const MaxDistance int32 = 1<<30 - 1

// Arc is one directed, weighted arc From → To.
type Arc struct {
	From, To int
	Weight   int32
}

// String formats the arc as "u->v w".
func (a Arc) String() string { return fmt.Sprintf("%d->%d %d", a.From, a.To, a.Weight) }

// Graph is an immutable directed graph with int32 arc weights in compressed
// sparse row (CSR) form: the arcs leaving u are Targets()[Offsets()[u]:Offsets()[u+1]]
// with the matching Weights(). Within a row, arcs are sorted by target.
//
// Build one with a Builder, FromArcs, FromMatrix, Parse, a generator, or a
// file reader. An undirected graph is stored as two arcs per edge.
type Graph struct {
	offsets []int32 // len n+1
	targets []int32 // len m
	weights []int32 // len m
	labels  []string
	index   map[string]int // label → vertex, nil without labels
	name    string
	notes   []string
	stats   *arcStatsCache // shared by copies; nil: not cached
}

// N returns the number of vertices.
func (g *Graph) N() int {
	if g == nil || len(g.offsets) == 0 {
		return 0
	}
	return len(g.offsets) - 1
}

// M returns the number of arcs (an undirected edge counts twice).
func (g *Graph) M() int {
	if g == nil {
		return 0
	}
	return len(g.targets)
}

// Offsets returns the CSR row offsets, of length N()+1. The slice is shared
// with the graph: do not modify it.
func (g *Graph) Offsets() []int32 { return g.offsets }

// Targets returns the CSR arc targets, of length M(). Shared: do not modify.
func (g *Graph) Targets() []int32 { return g.targets }

// Weights returns the CSR arc weights, of length M(). Shared: do not modify.
func (g *Graph) Weights() []int32 { return g.weights }

// OutDegree returns the number of arcs leaving u.
func (g *Graph) OutDegree(u int) int { return int(g.offsets[u+1] - g.offsets[u]) }

// Out returns the targets and weights of the arcs leaving u (shared slices).
func (g *Graph) Out(u int) (targets, weights []int32) {
	lo, hi := g.offsets[u], g.offsets[u+1]
	return g.targets[lo:hi], g.weights[lo:hi]
}

// Weight returns the weight of the lightest arc u → v and whether one exists.
func (g *Graph) Weight(u, v int) (int32, bool) {
	if u < 0 || v < 0 || u >= g.N() || v >= g.N() {
		return 0, false
	}
	ts, ws := g.Out(u)
	best, found := Inf, false
	for i, t := range ts {
		if int(t) == v && ws[i] < best {
			best, found = ws[i], true
		}
	}
	return best, found
}

// Arcs returns every arc, in CSR order (by source, then target).
func (g *Graph) Arcs() []Arc {
	arcs := make([]Arc, 0, g.M())
	for u := 0; u < g.N(); u++ {
		ts, ws := g.Out(u)
		for i, t := range ts {
			arcs = append(arcs, Arc{u, int(t), ws[i]})
		}
	}
	return arcs
}

// Labels returns the vertex labels, or nil if the graph has none.
func (g *Graph) Labels() []string { return g.labels }

// Label returns the label of v, or its number when the graph has no labels.
func (g *Graph) Label(v int) string {
	if v >= 0 && v < len(g.labels) {
		return g.labels[v]
	}
	return strconv.Itoa(v)
}

// Vertex returns the vertex with the given label. A label that is a plain
// number names that vertex when the graph has no labels.
func (g *Graph) Vertex(label string) (int, error) {
	if g.index != nil {
		if v, ok := g.index[label]; ok {
			return v, nil
		}
		return 0, fmt.Errorf("graph: no vertex labelled %q", label)
	}
	v, err := strconv.Atoi(label)
	if err != nil || v < 0 || v >= g.N() {
		return 0, fmt.Errorf("graph: no vertex %q (the graph has vertices 0..%d and no labels)", label, g.N()-1)
	}
	return v, nil
}

// Name returns the name a generator or reader gave the graph ("" if none).
func (g *Graph) Name() string { return g.name }

// Notes returns remarks a generator attached to the graph, for example which
// arcs of a document's example were assumed rather than stated.
func (g *Graph) Notes() []string { return g.notes }

// WithName returns a copy of g (sharing its arrays) with the given name.
func (g *Graph) WithName(name string) *Graph {
	c := *g
	c.name = name
	return &c
}

// WithNotes returns a copy of g (sharing its arrays) with notes appended.
func (g *Graph) WithNotes(notes ...string) *Graph {
	c := *g
	c.notes = append(append([]string(nil), g.notes...), notes...)
	return &c
}

// WithLabels returns a copy of g (sharing its arcs) with the given labels,
// one per vertex. Labels must be distinct and non-empty.
func (g *Graph) WithLabels(labels ...string) (*Graph, error) {
	if len(labels) != g.N() {
		return nil, fmt.Errorf("graph: %d labels for %d vertices", len(labels), g.N())
	}
	index, err := labelIndex(labels)
	if err != nil {
		return nil, err
	}
	c := *g
	c.labels = append([]string(nil), labels...)
	c.index = index
	return &c, nil
}

func labelIndex(labels []string) (map[string]int, error) {
	index := make(map[string]int, len(labels))
	for v, l := range labels {
		if l == "" {
			return nil, fmt.Errorf("graph: vertex %d has an empty label", v)
		}
		if w, dup := index[l]; dup {
			return nil, fmt.Errorf("graph: label %q names both vertex %d and vertex %d", l, w, v)
		}
		index[l] = v
	}
	return index, nil
}

// Density returns m / (n(n-1)), the density ρ of [Karaula 2017] §2.1 (Remark 3); 0 for n < 2.
func (g *Graph) Density() float64 {
	n := float64(g.N())
	if n < 2 {
		return 0
	}
	return float64(g.M()) / (n * (n - 1))
}

// WeightRange returns the smallest and largest arc weight (0, 0 without arcs).
func (g *Graph) WeightRange() (lo, hi int32) {
	s := g.ArcStats()
	return s.MinWeight, s.MaxWeight
}

// HasNegative reports whether some arc has a negative weight.
func (g *Graph) HasNegative() bool {
	lo, _ := g.WeightRange()
	return lo < 0
}

// Reverse returns the graph with every arc turned around (labels kept).
func (g *Graph) Reverse() *Graph {
	arcs := g.Arcs()
	for i := range arcs {
		arcs[i].From, arcs[i].To = arcs[i].To, arcs[i].From
	}
	r := fromSortedUnique(g.N(), arcs, true)
	r.labels, r.index, r.name = g.labels, g.index, g.name
	return r
}

// Dense returns the n×n row-major weight matrix W of the documents: 0 on the
// diagonal (or a negative self-loop's weight), the lightest arc weight where
// there is an arc, Inf elsewhere. It is the starting matrix of Floyd-Warshall.
//
// A matrix that would not fit in the memory left (CheckMatrixSize) is a
// panic whose value is CheckMatrixSize's error, rather than the end of the
// process; call CheckMatrixSize(g.N(), 1) first to get the error instead.
func (g *Graph) Dense() []int32 {
	n := g.N()
	if err := CheckMatrixSize(n, 1); err != nil {
		panic(fmt.Errorf("graph: Dense: %w", err))
	}
	w := make([]int32, n*n)
	for i := range w {
		w[i] = Inf
	}
	for i := 0; i < n; i++ {
		w[i*n+i] = 0
	}
	for u := 0; u < n; u++ {
		ts, ws := g.Out(u)
		for k, t := range ts {
			if c := &w[u*n+int(t)]; ws[k] < *c {
				*c = ws[k]
			}
		}
	}
	return w
}

// String summarises the graph in one line.
func (g *Graph) String() string {
	lo, hi := g.WeightRange()
	name := g.name
	if name == "" {
		name = "graph"
	}
	return fmt.Sprintf("%s: n=%d m=%d density=%.3g weights %d..%d", name, g.N(), g.M(), g.Density(), lo, hi)
}

package graph

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Duplicates says what a Builder does with several arcs u → v.
type Duplicates int

const (
	// KeepLightest keeps the lightest of parallel arcs (the default): it is
	// the only choice that never changes a shortest-path distance.
	KeepLightest Duplicates = iota
	// KeepLast keeps the arc added last, as a dense reader that overwrites
	// W[u][v] does ([Karaula 2017] Appendix 1, [Bodra] Listing 3's fileToCostMatrix).
	KeepLast
	// KeepFirst keeps the arc added first.
	KeepFirst
	// KeepAll keeps every parallel arc, as an adjacency-list reader does
	// ([Bodra] Listing 3's adjacencyListToCSR). Weight(u, v) and Dense then see the lightest.
	KeepAll
)

// String names the policy.
func (d Duplicates) String() string { return enumName(duplicatesNames[:], int(d), "Duplicates") }

var duplicatesNames = [...]string{
	KeepLightest: "keep-lightest",
	KeepLast:     "keep-last",
	KeepFirst:    "keep-first",
	KeepAll:      "keep-all",
}

// enumName is names[v], or "typeName(v)" for a value without a name.
func enumName(names []string, v int, typeName string) string {
	if v >= 0 && v < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typeName, v)
}

// Builder collects arcs and makes a Graph. Its methods return the builder so
// that calls chain in a notebook cell:
//
//	g, err := graph.NewBuilder(3).AddArc(0, 1, 5).AddArc(1, 2, 2).Build()
//
// The first bad call (an out-of-range vertex, a weight beyond MaxDistance)
// is remembered, later calls are ignored, and Build returns that error with
// the arc's position.
//
// Defaults: directed arcs, parallel arcs resolved by KeepLightest. Self-loops
// are kept only when negative (a non-negative loop never shortens a path; a
// negative one is a negative cycle that solvers must see), unless KeepLoops.
type Builder struct {
	n          int
	undirected bool
	keepLoops  bool
	dups       Duplicates
	arcs       []Arc
	labels     []string
	index      map[string]int
	name       string
	count      int // arcs offered so far, for error positions
	err        error
}

// NewBuilder starts a graph with n vertices 0..n-1. With labelled arcs
// (AddLabeled) n may be 0: each new label adds a vertex.
func NewBuilder(n int) *Builder {
	b := &Builder{n: n}
	if n < 0 {
		b.err = fmt.Errorf("graph: negative vertex count %d", n)
		b.n = 0
	}
	return b
}

// Undirected makes every later and earlier AddArc add both u → v and v → u.
func (b *Builder) Undirected() *Builder { b.undirected = true; return b }

// KeepLoops keeps non-negative self-loops too, for a graph that is drawn
// as a document draws it ([Karaula 2017] §2.1, Fig. 2.1, a multigraph with
// a loop). Solvers ignore them: a loop that is not negative never shortens
// a path.
func (b *Builder) KeepLoops() *Builder { b.keepLoops = true; return b }

// Duplicates sets the policy for parallel arcs (default KeepLightest).
func (b *Builder) Duplicates(d Duplicates) *Builder {
	if d < KeepLightest || d > KeepAll {
		b.fail(fmt.Errorf("graph: unknown duplicate policy %d", int(d)))
		return b
	}
	b.dups = d
	return b
}

// Name sets the graph's name.
func (b *Builder) Name(name string) *Builder { b.name = name; return b }

// Labels names the vertices 0..len(labels)-1, growing the vertex count if
// needed. Labels must be distinct and non-empty.
func (b *Builder) Labels(labels ...string) *Builder {
	if b.err != nil {
		return b
	}
	for _, l := range labels {
		if _, dup := b.index[l]; dup {
			b.fail(fmt.Errorf("graph: label %q given twice", l))
			return b
		}
		if l == "" {
			b.fail(fmt.Errorf("graph: empty vertex label"))
			return b
		}
		b.vertexFor(l)
	}
	return b
}

// AddArc adds the arc u → v with weight w (and v → u when undirected).
func (b *Builder) AddArc(u, v int, w int32) *Builder {
	b.count++
	if b.err != nil {
		return b
	}
	if u < 0 || u >= b.n || v < 0 || v >= b.n {
		bad := u
		if u >= 0 && u < b.n {
			bad = v
		}
		b.fail(fmt.Errorf("graph: arc #%d (%d->%d): vertex %d out of range 0..%d", b.count, u, v, bad, b.n-1))
		return b
	}
	if w > MaxDistance || w < -MaxDistance {
		what := fmt.Sprint(w)
		if w == Inf {
			what = "Inf (use no arc instead)"
		}
		b.fail(fmt.Errorf("graph: arc #%d (%d->%d): weight %s beyond ±%d", b.count, u, v, what, MaxDistance))
		return b
	}
	b.arcs = append(b.arcs, Arc{u, v, w})
	return b
}

// AddArcs adds every arc of the slice.
func (b *Builder) AddArcs(arcs []Arc) *Builder {
	for _, a := range arcs {
		b.AddArc(a.From, a.To, a.Weight)
	}
	return b
}

// AddTriples adds arcs given as {u, v, w} triples, a form that is short to
// type in a cell: [][3]int{{0, 1, 5}, {1, 2, 2}}.
func (b *Builder) AddTriples(triples [][3]int) *Builder {
	for _, t := range triples {
		w := t[2]
		if w > math.MaxInt32 || w < math.MinInt32 {
			b.count++
			b.fail(fmt.Errorf("graph: arc #%d (%d->%d): weight %d does not fit in int32", b.count, t[0], t[1], w))
			return b
		}
		b.AddArc(t[0], t[1], int32(w))
	}
	return b
}

// AddLabeled adds the arc from → to between labelled vertices, creating
// each label's vertex on first use.
func (b *Builder) AddLabeled(from, to string, w int32) *Builder {
	if b.err != nil {
		b.count++
		return b
	}
	if from == "" || to == "" {
		b.count++
		b.fail(fmt.Errorf("graph: arc #%d (%q->%q): empty vertex label", b.count, from, to))
		return b
	}
	return b.AddArc(b.vertexFor(from), b.vertexFor(to), w)
}

func (b *Builder) vertexFor(label string) int {
	if b.index == nil {
		b.index = make(map[string]int)
	}
	if v, ok := b.index[label]; ok {
		return v
	}
	v := len(b.labels)
	b.labels = append(b.labels, label)
	b.index[label] = v
	if v >= b.n {
		b.n = v + 1
	}
	return v
}

func (b *Builder) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// Err returns the first error met so far, if any.
func (b *Builder) Err() error { return b.err }

// Build makes the graph. The builder may be used again afterwards.
func (b *Builder) Build() (*Graph, error) {
	if b.err != nil {
		return nil, b.err
	}
	if len(b.labels) > 0 && len(b.labels) < b.n {
		return nil, fmt.Errorf("graph: %d labels for %d vertices (label every vertex or none)", len(b.labels), b.n)
	}
	if b.n > math.MaxInt32 {
		return nil, fmt.Errorf("graph: %d vertices is more than int32 vertex ids allow (%d)", b.n, math.MaxInt32)
	}
	if err := checkBytes(uint64(b.n+1) * 4); err != nil {
		return nil, fmt.Errorf("graph: the CSR offsets of %d vertices %w", b.n, err)
	}
	arcs := make([]Arc, 0, len(b.arcs)*2)
	for _, a := range b.arcs {
		arcs = append(arcs, a)
		if b.undirected && a.From != a.To {
			arcs = append(arcs, Arc{a.To, a.From, a.Weight})
		}
	}
	if len(arcs) > math.MaxInt32 {
		return nil, fmt.Errorf("graph: %d arcs is more than the %d that int32 offsets can index", len(arcs), math.MaxInt32)
	}
	g := buildCSR(b.n, arcs, b.dups, b.keepLoops)
	g.name = b.name
	if len(b.labels) > 0 {
		g.labels = append([]string(nil), b.labels...)
		index, err := labelIndex(g.labels)
		if err != nil {
			return nil, err
		}
		g.index = index
	}
	return g, nil
}

// buildCSR drops non-negative self-loops unless keepLoops, resolves
// parallel arcs by policy and packs the rest into CSR. arcs keeps insertion
// order on entry.
func buildCSR(n int, arcs []Arc, dups Duplicates, keepLoops bool) *Graph {
	kept := make([]Arc, 0, len(arcs))
	for _, a := range arcs {
		if a.From == a.To && a.Weight >= 0 && !keepLoops {
			continue
		}
		kept = append(kept, a)
	}
	slices.SortStableFunc(kept, func(x, y Arc) int {
		return cmp.Or(cmp.Compare(x.From, y.From), cmp.Compare(x.To, y.To))
	})
	out := kept[:0]
	for i := 0; i < len(kept); {
		j := i
		for j < len(kept) && kept[j].From == kept[i].From && kept[j].To == kept[i].To {
			j++
		}
		run := kept[i:j]
		switch dups {
		case KeepAll:
			slices.SortStableFunc(run, func(x, y Arc) int { return cmp.Compare(x.Weight, y.Weight) })
			out = append(out, run...)
		case KeepFirst:
			out = append(out, run[0])
		case KeepLast:
			out = append(out, run[len(run)-1])
		default:
			best := run[0]
			for _, a := range run[1:] {
				if a.Weight < best.Weight {
					best = a
				}
			}
			out = append(out, best)
		}
		i = j
	}
	return fromSortedUnique(n, out, false)
}

// fromSortedUnique packs arcs into CSR; unless sorted is already true it
// sorts them by (from, to, weight) first.
func fromSortedUnique(n int, arcs []Arc, needSort bool) *Graph {
	if needSort {
		slices.SortFunc(arcs, func(x, y Arc) int {
			return cmp.Or(cmp.Compare(x.From, y.From), cmp.Compare(x.To, y.To), cmp.Compare(x.Weight, y.Weight))
		})
	}
	g := &Graph{
		offsets: make([]int32, n+1),
		targets: make([]int32, len(arcs)),
		weights: make([]int32, len(arcs)),
		stats:   new(arcStatsCache),
	}
	for i, a := range arcs {
		g.offsets[a.From+1]++
		g.targets[i] = int32(a.To)
		g.weights[i] = a.Weight
	}
	for u := 0; u < n; u++ {
		g.offsets[u+1] += g.offsets[u]
	}
	return g
}

// FromArcs builds a directed graph on n vertices from a slice of arcs with
// the default policies (see Builder).
func FromArcs(n int, arcs []Arc) (*Graph, error) {
	return NewBuilder(n).AddArcs(arcs).Build()
}

// FromTriples builds a directed graph on n vertices from {u, v, w} triples.
func FromTriples(n int, triples [][3]int) (*Graph, error) {
	return NewBuilder(n).AddTriples(triples).Build()
}

// FromMatrix builds a directed graph from a square weight matrix: w[i][j] is
// the weight of arc i → j, and Inf means no arc. Diagonal entries are
// ignored unless negative (see Builder on self-loops).
func FromMatrix(w [][]int32) (*Graph, error) {
	n := len(w)
	b := NewBuilder(n)
	for i, row := range w {
		if len(row) != n {
			return nil, fmt.Errorf("graph: matrix row %d has %d entries, want %d", i, len(row), n)
		}
		for j, x := range row {
			if x != Inf {
				b.AddArc(i, j, x)
			}
		}
	}
	return b.Build()
}

// FromDense builds a directed graph from an n×n row-major weight matrix with
// Inf for "no arc", the layout Dense returns.
func FromDense(n int, w []int32) (*Graph, error) {
	if n < 0 || len(w) != n*n {
		return nil, fmt.Errorf("graph: dense matrix has %d entries, want %d×%d", len(w), n, n)
	}
	b := NewBuilder(n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if x := w[i*n+j]; x != Inf {
				b.AddArc(i, j, x)
			}
		}
	}
	return b.Build()
}

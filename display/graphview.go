package display

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/spatial/r2"

	"github.com/pathnotes/pathnotes/graph"
)

// DefaultMaxVertices is the largest graph a GraphView draws whole; larger
// graphs are drawn as a breadth-first sample with a summary beside it.
const DefaultMaxVertices = 300

// maxDrawLimit is the most vertices MaxVertices accepts: layout and
// overlap removal grow quadratically, and beyond it the picture is noise.
const maxDrawLimit = 1000

// maxWeightLabels is the largest number of drawn arcs whose weights are
// written; above it the weights would hide the drawing.
const maxWeightLabels = 100

// maxTextArcs is how many arcs the text form lists.
const maxTextArcs = 40

// The title's font size and line height, in pixels.
const (
	titleFont = 14
	titleLine = 18
)

// Colours and strokes of the drawing.
const (
	arcColor      = "#666666"
	pathColor     = "#d62728"
	treeColor     = "#1f77b4"
	vertexFill    = "#ffffff"
	vertexStroke  = "#333333"
	pathFill      = "#fde0dd"
	sourceFill    = "#c6dbef"
	unreachedFill = "#eeeeee"
	unreachedText = "#999999"
)

// GraphView draws a graph as SVG: labelled vertices, arcs with arrowheads
// and weights, a pair u→v, v→u as two curves, negative self-loops as loops.
// It can highlight a shortest path or a shortest-path tree. Graphs with up
// to 12 vertices go on a circle, larger ones get a seeded force-directed
// layout, and graphs beyond MaxVertices are sampled, with a summary of the
// whole graph. The same view always gives the same picture.
//
//	p, _ := r.Path(0, 4)
//	display.Graph(g).Path(p)
type GraphView struct {
	g        *graph.Graph
	layout   Layout
	seed     uint64
	maxDraw  int
	title    string
	path     *graph.Path
	tree     *graph.SingleSource
	err      error
	rendered *drawing // cache: a view is drawn once however often it is shown
}

// Graph starts a drawing of g.
func Graph(g *graph.Graph) *GraphView {
	v := &GraphView{g: g, maxDraw: DefaultMaxVertices, seed: 1}
	if g == nil {
		v.fail(fmt.Errorf("display: Graph of a nil graph"))
	}
	return v
}

func (v *GraphView) fail(err error) *GraphView {
	if v.err == nil {
		v.err = err
	}
	return v
}

// changed drops the cached drawing after an option changes.
func (v *GraphView) changed() *GraphView { v.rendered = nil; return v }

// Err returns the first problem with the view's graph or options, if any.
func (v *GraphView) Err() error {
	if v == nil {
		return fmt.Errorf("display: nil *GraphView")
	}
	return v.err
}

// Layout chooses the vertex placement (AutoLayout unless set).
func (v *GraphView) Layout(l Layout) *GraphView {
	if l < AutoLayout || l > IsomapLayout {
		return v.fail(fmt.Errorf("display: unknown layout %d", int(l)))
	}
	v.layout = l
	return v.changed()
}

// Seed sets the seed of the force-directed layout's starting positions
// (1 unless set); another seed gives another, equally valid, picture.
func (v *GraphView) Seed(seed uint64) *GraphView { v.seed = seed; return v.changed() }

// MaxVertices sets how many vertices are drawn at most (DefaultMaxVertices
// unless set, 1000 at most). A larger graph is drawn as a breadth-first sample of k
// vertices, starting from the highlighted path or tree source.
func (v *GraphView) MaxVertices(k int) *GraphView {
	if k < 1 || k > maxDrawLimit {
		return v.fail(fmt.Errorf("display: MaxVertices(%d), want 1..%d (a larger drawing is unreadable and slow to lay out)", k, maxDrawLimit))
	}
	v.maxDraw = k
	return v.changed()
}

// Title sets a heading drawn above the graph.
func (v *GraphView) Title(s string) *GraphView { v.title = s; return v.changed() }

// Path highlights p in red: its arcs thicker, its vertices filled. Every
// step of p must be an arc of the graph.
func (v *GraphView) Path(p graph.Path) *GraphView {
	if v.g == nil {
		return v
	}
	for i, u := range p.Vertices {
		if u < 0 || u >= v.g.N() {
			return v.fail(fmt.Errorf("display: path vertex %d (position %d) is out of range 0..%d", u, i, v.g.N()-1))
		}
		if i > 0 {
			if _, ok := v.g.Weight(p.Vertices[i-1], u); !ok {
				return v.fail(fmt.Errorf("display: path step %s→%s (position %d) is not an arc of the graph",
					v.g.Label(p.Vertices[i-1]), v.g.Label(u), i))
			}
		}
	}
	v.path = &p
	return v.changed()
}

// Tree highlights the shortest-path tree of s in blue: the arc into each
// reached vertex from its predecessor, the source ringed, each vertex's
// distance written under it and unreached vertices greyed.
func (v *GraphView) Tree(s *graph.SingleSource) *GraphView {
	if v.g == nil {
		return v
	}
	n := v.g.N()
	switch {
	case s == nil:
		return v.fail(fmt.Errorf("display: Tree of a nil result"))
	case len(s.Dist) != n:
		return v.fail(fmt.Errorf("display: Tree: result has %d vertices, graph %d", len(s.Dist), n))
	case s.Pred == nil:
		return v.fail(fmt.Errorf("display: Tree: the result has no predecessors (ask the solver for them)"))
	case len(s.Pred) != n:
		return v.fail(fmt.Errorf("display: Tree: result has %d predecessors, graph %d vertices", len(s.Pred), n))
	case s.Source < 0 || s.Source >= n:
		return v.fail(fmt.Errorf("display: Tree: source %d out of range 0..%d", s.Source, n-1))
	}
	for u, p := range s.Pred {
		if p == graph.Nil {
			continue
		}
		if p < 0 || int(p) >= n {
			return v.fail(fmt.Errorf("display: Tree: predecessor of %s is %d, out of range 0..%d", v.g.Label(u), p, n-1))
		}
		if _, ok := v.g.Weight(int(p), u); !ok {
			return v.fail(fmt.Errorf("display: Tree: predecessor arc %s→%s is not an arc of the graph", v.g.Label(int(p)), v.g.Label(u)))
		}
	}
	v.tree = s
	return v.changed()
}

// arcKind says how an arc is highlighted.
type arcKind int

const (
	plainArc arcKind = iota
	treeArc
	pathArc
)

// drawnArc is every arc u→v between two drawn vertices (local numbers),
// with all their weights (parallel arcs share one curve).
type drawnArc struct {
	u, v    int
	weights []int32
	kind    arcKind
	// twoWay is set when v→u exists with the same weights: the pair is
	// one edge of an undirected graph, drawn as a single line, without
	// arrowhead unless highlighted, and the arc v→u is not drawn on its own.
	twoWay bool
}

// drawing is a laid-out view, ready to be written.
type drawing struct {
	g       *graph.Graph
	verts   []int // graph vertex of each drawn vertex
	arcs    []drawnArc
	pos     []r2.Vec // pixel centres
	layout  Layout
	sampled bool
	radius  float64
	font    float64
	w, h    float64
	top     float64  // height of the title band
	title   []string // the title's lines
	notes   []string
}

// draw lays out the view once and caches the result.
func (v *GraphView) draw() (*drawing, error) {
	if v.err != nil {
		return nil, v.err
	}
	if v.rendered != nil {
		return v.rendered, nil
	}
	d := &drawing{g: v.g}
	d.verts, d.sampled = v.choose()
	local := make(map[int]int, len(d.verts))
	for i, u := range d.verts {
		local[u] = i
	}
	marked := v.highlightedArcs()
	var pairs [][2]int
	for i, u := range d.verts {
		ts, ws := v.g.Out(u)
		for k := 0; k < len(ts); k++ {
			j, ok := local[int(ts[k])]
			if !ok {
				continue
			}
			if n := len(d.arcs); n > 0 && d.arcs[n-1].u == i && d.arcs[n-1].v == j {
				d.arcs[n-1].weights = append(d.arcs[n-1].weights, ws[k]) // parallel arc
				continue
			}
			d.arcs = append(d.arcs, drawnArc{u: i, v: j, weights: []int32{ws[k]}, kind: marked[[2]int{u, int(ts[k])}]})
			pairs = append(pairs, [2]int{i, j})
		}
	}
	d.arcs = mergeTwoWay(d.arcs)
	coords, used, err := place(v.layout, len(d.verts), pairs, v.seed)
	if err != nil {
		return nil, err
	}
	d.layout = used
	d.fit(coords, v.title)
	d.notes = v.notes(d)
	v.rendered = d
	return d, nil
}

// mergeTwoWay replaces each pair u→v, v→u with equal weights by one
// two-way arc, so that undirected graphs draw as plain edges rather than
// as pairs of curves. The stronger highlight of the two is kept, with its
// direction.
func mergeTwoWay(arcs []drawnArc) []drawnArc {
	index := make(map[[2]int]int, len(arcs))
	for i, a := range arcs {
		index[[2]int{a.u, a.v}] = i
	}
	drop := make([]bool, len(arcs))
	for i := range arcs {
		a := &arcs[i]
		j, ok := index[[2]int{a.v, a.u}]
		if a.u >= a.v || !ok || !slices.Equal(slices.Sorted(slices.Values(a.weights)), slices.Sorted(slices.Values(arcs[j].weights))) {
			continue
		}
		a.twoWay = true
		if arcs[j].kind > a.kind {
			// Orient the edge as its highlighted direction, which keeps
			// its arrowhead.
			a.u, a.v, a.kind = a.v, a.u, arcs[j].kind
		}
		drop[j] = true
	}
	kept := arcs[:0]
	for i, a := range arcs {
		if !drop[i] {
			kept = append(kept, a)
		}
	}
	return kept
}

// highlightedArcs maps (graph u, graph v) to the arc's highlight.
func (v *GraphView) highlightedArcs() map[[2]int]arcKind {
	marked := map[[2]int]arcKind{}
	if v.tree != nil {
		for u, p := range v.tree.Pred {
			if p != graph.Nil {
				marked[[2]int{int(p), u}] = treeArc
			}
		}
	}
	if v.path != nil {
		for i := 1; i < len(v.path.Vertices); i++ {
			marked[[2]int{v.path.Vertices[i-1], v.path.Vertices[i]}] = pathArc
		}
	}
	return marked
}

// choose returns the vertices to draw: all of them, or a breadth-first
// sample of maxDraw that starts at the highlighted path and tree source.
func (v *GraphView) choose() (verts []int, sampled bool) {
	n := v.g.N()
	if n <= v.maxDraw {
		verts = make([]int, n)
		for i := range verts {
			verts[i] = i
		}
		return verts, false
	}
	seen := make([]bool, n)
	var queue []int
	add := func(u int) {
		if !seen[u] && len(verts) < v.maxDraw {
			seen[u] = true
			verts = append(verts, u)
			queue = append(queue, u)
		}
	}
	if v.path != nil {
		for _, u := range v.path.Vertices {
			add(u)
		}
	}
	if v.tree != nil {
		add(v.tree.Source)
	}
	for next := 0; len(verts) < v.maxDraw; {
		if len(queue) == 0 {
			for seen[next] {
				next++
			}
			add(next)
		}
		u := queue[0]
		queue = queue[1:]
		ts, _ := v.g.Out(u)
		for _, t := range ts {
			add(int(t))
		}
	}
	return verts, true
}

// fit sizes the canvas and the vertices for the number of vertices, and
// maps layout coordinates onto it, keeping the aspect ratio; the title
// wraps at the canvas's width.
func (d *drawing) fit(coords []r2.Vec, title string) {
	n := len(d.verts)
	switch {
	case n <= 30:
		d.radius, d.font = 14, 12
	case n <= 100:
		d.radius, d.font = 10, 9
	default:
		d.radius, d.font = 7, 7
	}
	widest := 0
	for _, u := range d.verts {
		widest = max(widest, width(d.label(u)))
	}
	// Long labels widen the circles so that the text stays inside.
	d.radius = min(max(d.radius, 0.3*d.font*float64(widest)+4), 40)
	side := min(240+60*math.Sqrt(float64(n)), 1000)
	d.w = side
	if title != "" {
		d.title = wrapSVGText(title, titleFont, true, d.w-12)
		d.top = float64(26 + titleLine*(len(d.title)-1))
	}
	margin := d.radius*3.4 + 14 // room for self-loops and their weights
	lo, hi := r2.Vec{X: math.Inf(1), Y: math.Inf(1)}, r2.Vec{X: math.Inf(-1), Y: math.Inf(-1)}
	for _, p := range coords {
		lo = r2.Vec{X: min(lo.X, p.X), Y: min(lo.Y, p.Y)}
		hi = r2.Vec{X: max(hi.X, p.X), Y: max(hi.Y, p.Y)}
	}
	span := max(hi.X-lo.X, hi.Y-lo.Y)
	inner := side - 2*margin
	d.pos = make([]r2.Vec, n)
	for i, p := range coords {
		if span == 0 {
			d.pos[i] = r2.Vec{X: side / 2, Y: side / 2}
			continue
		}
		// Centre the layout's bounding box on the square.
		d.pos[i] = r2.Vec{
			X: margin + (p.X-lo.X)/span*inner + (inner-(hi.X-lo.X)/span*inner)/2,
			Y: margin + (p.Y-lo.Y)/span*inner + (inner-(hi.Y-lo.Y)/span*inner)/2,
		}
	}
	d.separate(margin, side)
	// Shrink the canvas to what the layout uses (force layouts are rarely square).
	bottom := 0.0
	for _, p := range d.pos {
		bottom = max(bottom, p.Y)
	}
	d.h = min(side, bottom+margin)
	for i := range d.pos {
		d.pos[i].Y += d.top
	}
}

// separate pushes apart vertices whose circles would touch, so that no
// vertex hides another or the arrowheads entering it.
func (d *drawing) separate(margin, side float64) {
	gap := 2*d.radius + 8
	for pass := 0; pass < 60; pass++ {
		moved := false
		for i := range d.pos {
			for j := i + 1; j < len(d.pos); j++ {
				delta := r2.Sub(d.pos[j], d.pos[i])
				dist := r2.Norm(delta)
				if dist >= gap {
					continue
				}
				dir := r2.Vec{X: math.Cos(float64(i + j)), Y: math.Sin(float64(i + j))} // any fixed direction for coincident points
				if dist > 1e-9 {
					dir = r2.Scale(1/dist, delta)
				}
				push := r2.Scale((gap-dist)/2, dir)
				d.pos[i], d.pos[j] = r2.Sub(d.pos[i], push), r2.Add(d.pos[j], push)
				moved = true
			}
		}
		for i, p := range d.pos {
			d.pos[i] = r2.Vec{X: min(max(p.X, margin), side-margin), Y: min(max(p.Y, margin), side-margin)}
		}
		if !moved {
			return
		}
	}
}

// label returns the label of graph vertex u.
func (d *drawing) label(u int) string { return d.g.Label(u) }

// notes lists what the drawing leaves out or highlights, shown under it.
func (v *GraphView) notes(d *drawing) []string {
	var notes []string
	if d.sampled {
		start := "vertex " + v.g.Label(d.verts[0])
		arcs := 0
		for _, a := range d.arcs {
			if a.twoWay {
				arcs += len(a.weights)
			}
			arcs += len(a.weights)
		}
		notes = append(notes, fmt.Sprintf("showing %d of %d vertices (breadth-first from %s) and the %d arcs among them",
			len(d.verts), v.g.N(), start, arcs))
	}
	if len(d.arcs) > maxWeightLabels {
		notes = append(notes, fmt.Sprintf("weights not written (%d lines drawn)", len(d.arcs)))
	}
	if v.path != nil {
		notes = append(notes, "path "+pathText(v.g, *v.path))
	}
	if v.tree != nil {
		reached := 0
		for _, x := range v.tree.Dist {
			if x != graph.Inf {
				reached++
			}
		}
		// Distances and tree arcs' weights are both blue numbers; the note
		// says which is which.
		notes = append(notes, fmt.Sprintf("shortest-path tree from %s: %d of %d vertices reached; the bold number by a vertex is its distance",
			v.g.Label(v.tree.Source), reached, v.g.N()))
	}
	return notes
}

// pathText writes a path with the graph's labels and arrows.
func pathText(g *graph.Graph, p graph.Path) string {
	if !p.Reachable() {
		return "unreachable"
	}
	parts := make([]string, len(p.Vertices))
	for i, u := range p.Vertices {
		parts[i] = g.Label(u)
	}
	return fmt.Sprintf("%s (weight %d)", strings.Join(parts, " → "), p.Weight)
}

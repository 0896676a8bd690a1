package display

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	gonum "gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/iterator"
	"gonum.org/v1/gonum/graph/layout"
	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/spatial/r2"
)

// Layout chooses where a graph drawing puts its vertices.
type Layout int

const (
	// AutoLayout uses CircleLayout up to 12 vertices and ForceLayout above.
	AutoLayout Layout = iota
	// CircleLayout puts the vertices on a circle in vertex order, clockwise
	// from the top: the clearest picture of the documents' small examples.
	CircleLayout
	// ForceLayout is the force-directed layout of Eades (gonum's EadesR2):
	// connected vertices pull together, all vertices push apart. Random
	// starting points come from the view's seed, so a drawing is the same
	// every time.
	ForceLayout
	// IsomapLayout places vertices by multidimensional scaling of their
	// hop distances (gonum's IsomapR2). It needs a connected graph of at
	// most 300 vertices (it takes O(n³) time) and gives even spacing on
	// meshes and grids.
	IsomapLayout
)

// String names the layout.
func (l Layout) String() string {
	switch l {
	case AutoLayout:
		return "auto"
	case CircleLayout:
		return "circle"
	case ForceLayout:
		return "force-directed (Eades)"
	case IsomapLayout:
		return "isomap"
	}
	return fmt.Sprintf("Layout(%d)", int(l))
}

// isomapMax is the largest graph IsomapLayout accepts (its all-pairs
// hop distances take O(n³) time).
const isomapMax = 300

// circleMax is the largest graph AutoLayout draws on a circle.
const circleMax = 12

// eadesUpdates is the number of force-directed steps: enough for a few
// hundred vertices to settle at the rate place uses.
const eadesUpdates = 300

// undirectedView is the drawn graph as gonum sees it: vertices 0..n-1, one
// undirected edge per adjacent pair, neighbours in increasing order. The
// order matters: gonum's layouts visit nodes in iteration order, and a
// sorted order is what makes a seeded layout reproducible. It also stores
// the coordinates the layout sets (layout.LayoutR2).
type undirectedView struct {
	adj    [][]int64
	coords []r2.Vec
	set    int // how many SetCoord2 calls happened
}

var (
	_ gonum.Undirected = (*undirectedView)(nil)
	_ layout.LayoutR2  = (*undirectedView)(nil)
)

// newUndirectedView builds the view from arcs between local vertices
// 0..n-1; directions, weights, parallel arcs and loops are dropped.
func newUndirectedView(n int, arcs [][2]int) *undirectedView {
	adj := make([][]int64, n)
	for _, a := range arcs {
		if a[0] != a[1] {
			adj[a[0]] = append(adj[a[0]], int64(a[1]))
			adj[a[1]] = append(adj[a[1]], int64(a[0]))
		}
	}
	for i := range adj {
		slices.Sort(adj[i])
		adj[i] = slices.Compact(adj[i])
	}
	return &undirectedView{adj: adj, coords: make([]r2.Vec, n)}
}

func (u *undirectedView) has(id int64) bool { return id >= 0 && id < int64(len(u.adj)) }

// Node returns the node with the id, or nil.
func (u *undirectedView) Node(id int64) gonum.Node {
	if !u.has(id) {
		return nil
	}
	return simple.Node(id)
}

func nodesOf(ids []int64) gonum.Nodes {
	nodes := make([]gonum.Node, len(ids))
	for i, id := range ids {
		nodes[i] = simple.Node(id)
	}
	return iterator.NewOrderedNodes(nodes)
}

// Nodes returns all nodes in id order.
func (u *undirectedView) Nodes() gonum.Nodes {
	ids := make([]int64, len(u.adj))
	for i := range ids {
		ids[i] = int64(i)
	}
	return nodesOf(ids)
}

// From returns the neighbours of id in id order.
func (u *undirectedView) From(id int64) gonum.Nodes {
	if !u.has(id) {
		return nodesOf(nil)
	}
	return nodesOf(u.adj[id])
}

// HasEdgeBetween reports whether x and y are adjacent.
func (u *undirectedView) HasEdgeBetween(x, y int64) bool {
	if !u.has(x) || !u.has(y) {
		return false
	}
	_, found := slices.BinarySearch(u.adj[x], y)
	return found
}

// Edge returns the edge x–y, or nil.
func (u *undirectedView) Edge(x, y int64) gonum.Edge {
	if !u.HasEdgeBetween(x, y) {
		return nil
	}
	return simple.Edge{F: simple.Node(x), T: simple.Node(y)}
}

// EdgeBetween is Edge: the view is undirected.
func (u *undirectedView) EdgeBetween(x, y int64) gonum.Edge { return u.Edge(x, y) }

// IsInitialized reports whether a layout has placed any node yet.
func (u *undirectedView) IsInitialized() bool { return u.set > 0 }

// SetCoord2 records the position of node id.
func (u *undirectedView) SetCoord2(id int64, pos r2.Vec) {
	if u.has(id) {
		u.coords[id] = pos
		u.set++
	}
}

// Coord2 returns the position of node id.
func (u *undirectedView) Coord2(id int64) r2.Vec {
	if !u.has(id) {
		return r2.Vec{}
	}
	return u.coords[id]
}

// place computes positions for n local vertices joined by arcs, in
// arbitrary units (the caller scales them to the canvas).
func place(l Layout, n int, arcs [][2]int, seed uint64) ([]r2.Vec, Layout, error) {
	if l == AutoLayout {
		l = ForceLayout
		if n <= circleMax {
			l = CircleLayout
		}
	}
	switch l {
	case CircleLayout:
		pos := make([]r2.Vec, n)
		for i := range pos {
			a := -math.Pi/2 + 2*math.Pi*float64(i)/float64(max(n, 1))
			pos[i] = r2.Vec{X: math.Cos(a), Y: math.Sin(a)}
		}
		return pos, l, nil
	case ForceLayout:
		view := newUndirectedView(n, arcs)
		maxDeg := 1
		for _, nb := range view.adj {
			maxDeg = max(maxDeg, len(nb))
		}
		// A vertex's pull grows with its degree; a rate inversely
		// proportional to the largest degree keeps the steps from
		// overshooting (with gonum's example rate of 0.05, graphs of a few
		// hundred vertices oscillate and fly apart).
		eades := layout.EadesR2{Repulsion: 1, Rate: 0.05 / float64(maxDeg), Updates: eadesUpdates, Theta: 0.2,
			Src: rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)}
		opt := layout.NewOptimizerR2(view, eades.Update)
		for opt.Update() {
			if !bounded(view.coords) {
				// Diverging coordinates would break the next step's
				// Barnes-Hut tree: give up on this layout.
				return place(CircleLayout, n, arcs, seed)
			}
		}
		if !view.IsInitialized() {
			// Eades stops before its first move when no force acts (a
			// single vertex): the circle layout places that too.
			return place(CircleLayout, n, arcs, seed)
		}
		pullIn(view.coords)
		return view.coords, l, nil
	case IsomapLayout:
		if n > isomapMax {
			return nil, l, fmt.Errorf("display: isomap layout of %d vertices: it takes O(n³) time, so at most %d (use ForceLayout)", n, isomapMax)
		}
		view := newUndirectedView(n, arcs)
		opt := layout.NewOptimizerR2(view, layout.IsomapR2{}.Update)
		opt.Update()
		if view.set < n {
			return nil, l, fmt.Errorf("display: isomap layout failed: it needs a connected graph of at least 3 vertices (use ForceLayout)")
		}
		return view.coords, l, nil
	}
	return nil, l, fmt.Errorf("display: unknown layout %d", int(l))
}

// bounded reports whether every coordinate is finite and not absurdly far
// out (the start positions lie in the unit square).
func bounded(coords []r2.Vec) bool {
	for _, p := range coords {
		if !(math.Abs(p.X) < 1e6 && math.Abs(p.Y) < 1e6) {
			return false
		}
	}
	return true
}

// pullIn moves far outliers, mostly small components that repulsion alone
// pushes away, to at most twice the median distance from the centroid, so
// that they do not squeeze the rest of the drawing into a corner.
func pullIn(coords []r2.Vec) {
	if len(coords) < 3 {
		return
	}
	var centre r2.Vec
	for _, p := range coords {
		centre = r2.Add(centre, p)
	}
	centre = r2.Scale(1/float64(len(coords)), centre)
	dist := make([]float64, len(coords))
	for i, p := range coords {
		dist[i] = r2.Norm(r2.Sub(p, centre))
	}
	sorted := slices.Sorted(slices.Values(dist))
	limit := 2 * sorted[len(sorted)/2]
	for i, p := range coords {
		if dist[i] > limit {
			coords[i] = r2.Add(centre, r2.Scale(limit/dist[i], r2.Sub(p, centre)))
		}
	}
}

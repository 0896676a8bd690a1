package graph

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	gonum "gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/mat"
)

// Gonum returns g as a gonum weighted directed graph with nodes 0..n-1, so
// that gonum's graph/path algorithms can check ours or fill a gap. Its
// Weight(u, u) is 0 and the weight of a missing arc +Inf; of parallel arcs
// only the lightest is kept, since a simple graph holds one edge per pair.
//
// A negative self-loop is a negative cycle, and a simple graph cannot hold
// a self-loop at all: rather than drop it and let gonum report distances
// that do not exist, Gonum returns an error naming the vertex. A loop that
// is not negative (kept by Builder.KeepLoops) changes no distance and is
// left out.
func (g *Graph) Gonum() (*simple.WeightedDirectedGraph, error) {
	out := simple.NewWeightedDirectedGraph(0, math.Inf(1))
	for u := 0; u < g.N(); u++ {
		out.AddNode(simple.Node(u))
	}
	for u := 0; u < g.N(); u++ {
		ts, ws := g.Out(u)
		for k := 0; k < len(ts); {
			t, w := ts[k], ws[k]
			for k++; k < len(ts) && ts[k] == t; k++ {
				w = min(w, ws[k])
			}
			if int(t) == u && w >= 0 {
				continue // a loop that never shortens a path (Builder.KeepLoops)
			}
			if int(t) == u {
				return nil, fmt.Errorf("graph.Gonum: vertex %s has a negative self-loop (weight %d), a negative cycle that a gonum simple graph cannot hold", g.Label(u), w)
			}
			out.SetWeightedEdge(out.NewWeightedEdge(simple.Node(u), simple.Node(int(t)), float64(w)))
		}
	}
	return out, nil
}

// FromGonum builds a graph from any gonum weighted graph: an arc u → v for
// every v in From(u), weighted by WeightedEdge(u, v). An undirected gonum
// graph therefore gives both arcs of each edge. Node ids that are exactly
// 0..n-1 are the vertices; any other ids are renumbered 0..n-1 in
// increasing order, and the graph's labels hold the original ids. Weights
// must be integers within ±MaxDistance; non-negative self-loops are
// dropped as Builder does.
func FromGonum(g gonum.Weighted) (*Graph, error) {
	if g == nil {
		return nil, errors.New("graph.FromGonum: nil graph")
	}
	var ids []int64
	for nodes := g.Nodes(); nodes.Next(); {
		ids = append(ids, nodes.Node().ID())
	}
	if len(ids) > math.MaxInt32 {
		return nil, fmt.Errorf("graph.FromGonum: %d nodes is more than the %d that int32 CSR can index", len(ids), math.MaxInt32)
	}
	slices.Sort(ids)
	n := len(ids)
	identity := n == 0 || (ids[0] == 0 && ids[n-1] == int64(n-1))
	vertex := make(map[int64]int, n)
	for v, id := range ids {
		vertex[id] = v
	}
	b := NewBuilder(n)
	for u, uid := range ids {
		for to := g.From(uid); to.Next(); {
			vid := to.Node().ID()
			v, ok := vertex[vid]
			if !ok {
				return nil, fmt.Errorf("graph.FromGonum: edge %d->%d leads to a node that Nodes() does not list", uid, vid)
			}
			e := g.WeightedEdge(uid, vid)
			if e == nil {
				return nil, fmt.Errorf("graph.FromGonum: From(%d) lists %d, but WeightedEdge(%d, %d) is nil", uid, vid, uid, vid)
			}
			w, err := intWeight(e.Weight())
			if err != nil {
				return nil, fmt.Errorf("graph.FromGonum: edge %d->%d: %v", uid, vid, err)
			}
			b.AddArc(u, v, w)
		}
	}
	out, err := b.Build()
	if err != nil || identity {
		return out, err
	}
	labels := make([]string, n)
	for v, id := range ids {
		labels[v] = strconv.FormatInt(id, 10)
	}
	return out.WithLabels(labels...)
}

// Mat returns the n×n weight matrix W of Dense as float64, with +Inf for
// "no arc" and 0 (or a negative self-loop's weight) on the diagonal, the
// form gonum's mat routines and plots expect. For n = 0 it returns an
// empty matrix (gonum has no 0×0 matrix). It fails when the matrix would
// not fit in memory.
func (g *Graph) Mat() (*mat.Dense, error) {
	// Dense's int32 matrix lives beside the float64 one for a while: 3 int32 matrices.
	if err := CheckMatrixSize(g.N(), 3); err != nil {
		return nil, fmt.Errorf("graph.Mat: %w", err)
	}
	return denseMat(g.N(), g.Dense()), nil
}

// FromMat builds a directed graph from a square matrix: entry (i, j) is the
// weight of arc i → j and +Inf means no arc. Diagonal entries are ignored
// unless negative (see Builder on self-loops). Every other entry must be an
// integer within ±MaxDistance.
func FromMat(m mat.Matrix) (*Graph, error) {
	if m == nil {
		return nil, errors.New("graph.FromMat: nil matrix")
	}
	r, c := m.Dims()
	if r != c {
		return nil, fmt.Errorf("graph.FromMat: matrix is %d×%d, want a square matrix", r, c)
	}
	b := NewBuilder(r)
	for i := 0; i < r; i++ {
		for j := 0; j < r; j++ {
			x := m.At(i, j)
			if math.IsInf(x, 1) {
				continue
			}
			w, err := intWeight(x)
			if err != nil {
				return nil, fmt.Errorf("graph.FromMat: entry (%d,%d): %v", i, j, err)
			}
			b.AddArc(i, j, w)
		}
	}
	return b.Build()
}

// DistMat returns the distance matrix as float64, with +Inf where j is
// unreachable from i, for gonum's mat routines. For n = 0 it returns an
// empty matrix. It fails when the matrix would not fit in memory.
func (r *AllPairs) DistMat() (*mat.Dense, error) {
	if len(r.Dist) != r.N*r.N {
		return nil, fmt.Errorf("graph.DistMat: result has %d distances, want %d×%d", len(r.Dist), r.N, r.N)
	}
	if err := CheckMatrixSize(r.N, 2); err != nil {
		return nil, fmt.Errorf("graph.DistMat: %w", err)
	}
	return denseMat(r.N, r.Dist), nil
}

// denseMat converts an n×n row-major int32 matrix with Inf to float64.
func denseMat(n int, cells []int32) *mat.Dense {
	if n == 0 {
		return &mat.Dense{}
	}
	data := make([]float64, len(cells))
	for i, x := range cells {
		if x == Inf {
			data[i] = math.Inf(1)
		} else {
			data[i] = float64(x)
		}
	}
	return mat.NewDense(n, n, data)
}

// intWeight converts a float64 weight to an arc weight: it must be an
// integer within ±MaxDistance.
func intWeight(x float64) (int32, error) {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return 0, fmt.Errorf("weight %v is not a finite number", x)
	case x != math.Trunc(x):
		return 0, fmt.Errorf("weight %v is not an integer (arc weights are int32)", x)
	case math.Abs(x) > float64(MaxDistance):
		return 0, fmt.Errorf("weight %v beyond ±%d", x, MaxDistance)
	}
	return int32(x), nil
}

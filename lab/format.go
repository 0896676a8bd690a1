package lab

import (
	"strings"

	"github.com/pathnotes/pathnotes/graph"
)

// VertexSet names the vertices vs of g by their labels, as a document
// writes a set of vertices: "{a, b}", "{}" for none.
func VertexSet(g *graph.Graph, vs []int) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = g.Label(v)
	}
	return "{" + strings.Join(names, ", ") + "}"
}

// DistList writes a row of distances as a document prints an array,
// ∞ for graph.Inf: "[0,2,∞]".
func DistList(d []int32) string {
	cells := make([]string, len(d))
	for i, x := range d {
		cells[i] = graph.FormatDist(x)
	}
	return "[" + strings.Join(cells, ",") + "]"
}

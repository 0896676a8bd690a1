package lab

import (
	"fmt"

	"github.com/pathnotes/pathnotes/graph"
)

// A stand-in is a synthetic graph with the size of a document's input
// that is not stored here (or too large for the scale a notebook runs
// at), times a scale factor f.

// Scaled is x times f, rounded down, and at least lo.
func Scaled(x int, f float64, lo int) int { return max(int(float64(x)*f), lo) }

// RoadStandIn is graph.RoadLike with n vertices and m arcs, the size of
// the road network name, times f: at least 4 vertices, and an even number
// of arcs, at least a spanning tree's both ways, as RoadLike needs. Its
// name is "<name> stand-in".
func RoadStandIn(name string, n, m int, f float64, w graph.WeightRange, seed uint64) (*graph.Graph, error) {
	n = Scaled(n, f, 4)
	m = max(Scaled(m, f, 0)/2*2, 2*(n-1))
	g, err := graph.RoadLike(n, m, w, seed)
	if err != nil {
		return nil, fmt.Errorf("%s stand-in: %w", name, err)
	}
	return g.WithName(name + " stand-in"), nil
}

// GNMStandIn is graph.GNM with n vertices and m arcs, the size of the
// graph name, times f: at least 8 vertices, and at least as many arcs,
// at most n(n−1). Its name is "<name> stand-in".
func GNMStandIn(name string, n, m int, f float64, w graph.WeightRange, seed uint64) (*graph.Graph, error) {
	n = Scaled(n, f, 8)
	g, err := graph.GNM(n, min(Scaled(m, f, n), n*(n-1)), w, seed)
	if err != nil {
		return nil, fmt.Errorf("%s stand-in: %w", name, err)
	}
	return g.WithName(name + " stand-in"), nil
}

// Sinks counts the vertices of g without out-arcs.
func Sinks(g *graph.Graph) int {
	c := 0
	for v := 0; v < g.N(); v++ {
		if g.OutDegree(v) == 0 {
			c++
		}
	}
	return c
}

// GNM is graph.GNM with n vertices and m arcs, capped at n(n−1), named
// "GNM(n, arcs)".
func GNM(n, m int, w graph.WeightRange, seed uint64) (*graph.Graph, error) {
	g, err := graph.GNM(n, min(m, n*(n-1)), w, seed)
	if err != nil {
		return nil, err
	}
	return g.WithName(fmt.Sprintf("GNM(%d, %d)", n, g.M())), nil
}

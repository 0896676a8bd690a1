package cpu

import (
	"context"
	"fmt"

	"github.com/pathnotes/pathnotes/graph"
)

// Johnson solves all pairs on graphs with negative arcs but no negative
// cycle (variant "johnson-cpu"): Bellman-Ford from a virtual source joined
// to every vertex by a 0-weight arc gives potentials h, the reweighted arcs
// w'(u,v) = w(u,v) + h(u) - h(v) are non-negative, Dijkstra runs from every
// source on them (opts.Workers at a time), and d(s,v) = d'(s,v) - h(s) +
// h(v). Predecessors are those of the reweighted runs: reweighting changes
// every s→v path by the same amount, so shortest paths stay the same.
//
// A negative cycle is a *graph.NegativeCycleError with the cycle. A
// reweighted arc or distance beyond graph.MaxDistance, or a final distance
// beyond ±graph.MaxDistance, is an error naming it (FloydWarshall's checked
// path handles such graphs). Without negative arcs it is DijkstraAll.
func Johnson(ctx context.Context, g *graph.Graph, opts APSPOptions) (*graph.AllPairs, error) {
	const what = "cpu.Johnson"
	ctx, err := start(ctx, g, what)
	if err != nil {
		return nil, err
	}
	if !g.HasNegative() {
		return allSources(ctx, g, g.Weights(), opts, what, VariantJohnson)
	}
	n := g.N()
	h, _, err := bellmanFord(ctx, g, -1, n, what, nil)
	if err != nil {
		return nil, err
	}
	offsets, targets := g.Offsets(), g.Targets()
	weights := make([]int32, g.M())
	for u := 0; u < n; u++ {
		for a := offsets[u]; a < offsets[u+1]; a++ {
			v := targets[a]
			w := int64(g.Weights()[a]) + h[u] - h[v]
			if w > int64(graph.MaxDistance) {
				return nil, fmt.Errorf("%s: arc %s reweighs to %d, beyond %d (use FloydWarshall)", what, arcName(g, u, int(v)), w, graph.MaxDistance)
			}
			weights[a] = int32(w)
		}
	}
	res, err := allSources(ctx, g, weights, opts, what, VariantJohnson)
	if err != nil {
		return nil, err
	}
	for s := 0; s < n; s++ {
		row := res.Dist[s*n : s*n+n]
		for v, d := range row {
			if d == graph.Inf {
				continue
			}
			x := int64(d) - h[s] + h[v]
			if x > int64(graph.MaxDistance) || x < -int64(graph.MaxDistance) {
				return nil, fmt.Errorf("%s: the distance %s->%s is %d, beyond ±%d", what, g.Label(s), g.Label(v), x, graph.MaxDistance)
			}
			row[v] = int32(x)
		}
	}
	return res, nil
}

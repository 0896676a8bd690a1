package cpu

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pathnotes/pathnotes/graph"
)

// BellmanFord solves single-source shortest paths with negative arcs
// allowed (variant "bf-cpu").
//
// It runs Bellman-Ford in passes, relaxing in place, and each pass scans
// only the vertices whose distance changed since their last scan (the
// queue form of Bellman, Ford and Moore), so it exits as soon as a pass
// changes nothing. After pass p every distance is at most the lightest walk
// of p arcs; a change in pass n therefore proves a negative cycle. The
// cycle is found by walking predecessors n steps back from a vertex that
// changed, which lands on the cycle, and then once around it; the
// predecessor graph is also searched for a cycle at passes 8, 16, 32, …,
// which finds one early (any cycle there is negative). The error is a
// *graph.NegativeCycleError with the cycle and its weight.
//
// Distances are summed in int64; a distance beyond ±graph.MaxDistance is an
// error naming the vertex.
func BellmanFord(ctx context.Context, g *graph.Graph, source int, opts BFOptions) (*graph.SingleSource, error) {
	const what = "cpu.BellmanFord"
	ctx, err := startSingle(ctx, g, source, what)
	if err != nil {
		return nil, err
	}
	tr := opts.Trace
	if tr != nil {
		if err := graph.CheckTraceSize(what, g.N()); err != nil {
			return nil, err
		}
		*tr = graph.BFTrace{N: g.N(), Labels: cloneLabels(g), Source: source, Solver: VariantBF}
	}
	dist, pred, err := bellmanFord(ctx, g, source, g.N(), what, tr)
	if err != nil {
		var nc *graph.NegativeCycleError
		if tr != nil && errors.As(err, &nc) {
			tr.NegativeCycle = nc.Cycle
		}
		return nil, err
	}
	res := &graph.SingleSource{Source: source, Dist: make([]int32, len(dist)), Labels: cloneLabels(g), Solver: VariantBF}
	for v, d := range dist {
		switch {
		case d == noDist:
			res.Dist[v] = graph.Inf
		case d > int64(graph.MaxDistance) || d < -int64(graph.MaxDistance):
			return nil, fmt.Errorf("%s: the distance %s->%s is %d, beyond ±%d", what, g.Label(source), g.Label(v), d, graph.MaxDistance)
		default:
			res.Dist[v] = int32(d)
		}
	}
	if opts.Pred {
		res.Pred = pred
	}
	return res, nil
}

// noDist marks an unreached vertex in bellmanFord's int64 distances.
const noDist = math.MaxInt64

// bellmanFord runs the passes of BellmanFord over the vertices 0..limit-1
// only (arcs leaving that range are ignored), from source, or from every
// vertex at distance 0 when source < 0 (Johnson's virtual source, without
// building the extra vertex). A negative cycle is returned as a
// *graph.NegativeCycleError. A non-nil tr gets the initial distances and
// every pass (see graph.BFTrace).
func bellmanFord(ctx context.Context, g *graph.Graph, source, limit int, what string, tr *graph.BFTrace) (dist []int64, pred []int32, err error) {
	n := limit
	dist = make([]int64, n)
	pred = make([]int32, n)
	queued := make([]bool, n)
	var cur, next []int32
	for v := range dist {
		dist[v], pred[v] = noDist, graph.Nil
		if source < 0 {
			dist[v], queued[v] = 0, true
			cur = append(cur, int32(v))
		}
	}
	if source >= 0 {
		dist[source], queued[source] = 0, true
		cur = append(cur, int32(source))
	}
	offsets, targets, weights := g.Offsets(), g.Targets(), g.Weights()
	if tr != nil {
		tr.Initial = traceDist(dist)
	}
	for pass := 1; len(cur) > 0; pass++ {
		if ctx.Err() != nil {
			return nil, nil, cancelled(ctx, what, fmt.Sprintf("%d passes", pass-1))
		}
		late := -1 // a vertex that changed in pass n or later
		var step *graph.BFPass
		if tr != nil {
			tr.Passes = append(tr.Passes, graph.BFPass{})
			step = &tr.Passes[len(tr.Passes)-1]
		}
		for _, u := range cur {
			if step != nil {
				step.Scanned = append(step.Scanned, int(u))
			}
			queued[u] = false
			du := dist[u]
			ts, ws := targets[offsets[u]:offsets[u+1]], weights[offsets[u]:offsets[u+1]]
			ws = ws[:len(ts)]
			for a, v := range ts {
				if int(v) >= n {
					continue
				}
				if nd := du + int64(ws[a]); nd < dist[v] {
					dist[v], pred[v] = nd, u
					if step != nil {
						step.Relaxed = append(step.Relaxed, [2]int{int(u), int(v)})
					}
					if pass >= n {
						late = int(v)
					}
					if !queued[v] {
						queued[v] = true
						next = append(next, v)
					}
				}
			}
		}
		cur, next = next, cur[:0]
		if step != nil {
			step.Dist, step.Pred = traceDist(dist), append([]int32(nil), pred...)
		}
		var cycle []int
		switch {
		case late >= 0:
			// n steps back from late lie on a cycle; failing that, any
			// cycle of the predecessor graph is negative.
			if cycle = graph.PredCycleFrom(pred, late); cycle == nil {
				cycle = graph.PredCycle(pred)
			}
			if cycle == nil && pass > 3*n {
				// Not expected: report the vertex without its cycle
				// rather than run on.
				return nil, nil, negativeCycle(g, late, nil)
			}
		case pass >= 8 && pass&(pass-1) == 0:
			cycle = graph.PredCycle(pred)
		}
		if cycle != nil {
			return nil, nil, negativeCycle(g, cycle[0], cycle)
		}
	}
	return dist, pred, nil
}

// traceDist converts bellmanFord's distances for a trace: Inf where
// unreached, beyond-range values saturated at ±graph.MaxDistance.
func traceDist(dist []int64) []int32 {
	out := make([]int32, len(dist))
	for v, d := range dist {
		out[v] = graph.Inf
		if d != noDist {
			out[v] = int32(max(min(d, int64(graph.MaxDistance)), -int64(graph.MaxDistance)))
		}
	}
	return out
}

// rotateTo rotates a cycle so that it starts at v (unchanged if v is not on
// it).
func rotateTo(cycle []int, v int) []int {
	i := slices.Index(cycle, v)
	if i <= 0 {
		return cycle
	}
	return append(cycle[i:], cycle[:i]...)
}

// cycleThrough returns a negative cycle through k when vertices 0..k-1
// carry none but some cycle among 0..k is negative (Floyd-Warshall's
// situation when D[k,k] < 0 before pivot k): every such cycle passes
// through k, so Bellman-Ford from k on those vertices finds one.
func cycleThrough(ctx context.Context, g *graph.Graph, k int) ([]int, error) {
	_, _, err := bellmanFord(ctx, g, k, k+1, "negative cycle search", nil)
	var nc *graph.NegativeCycleError
	if !errors.As(err, &nc) {
		return nil, err // nil when (unexpectedly) no cycle is found
	}
	return rotateTo(nc.Cycle, k), nil
}

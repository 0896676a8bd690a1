package gpu

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/pathnotes/pathnotes/graph"
)

// checkInput rejects a nil graph and graphs a variant cannot solve exactly
// in int32: any
// negative arc for Dijkstra (negative = false), and weights so large that a
// path of n arcs could leave ±graph.MaxDistance (the kernels add without
// overflow checks beyond the INF guard).
func checkInput(g *graph.Graph, what string, negative bool) error {
	if g == nil {
		return fmt.Errorf("%s: nil graph", what)
	}
	if !negative && g.ArcStats().MinWeight < 0 {
		for u := 0; u < g.N(); u++ {
			ts, ws := g.Out(u)
			for k, w := range ws {
				if w < 0 {
					return fmt.Errorf("%s: arc %s->%s has negative weight %d; Dijkstra needs non-negative weights (use a Bellman-Ford or Floyd-Warshall variant)",
						what, g.Label(u), g.Label(int(ts[k])), w)
				}
			}
		}
	}
	lo, hi := g.WeightRange()
	maxAbs := max(-int64(lo), int64(hi))
	if bound := int64(g.N()) * maxAbs; bound > int64(graph.MaxDistance) {
		return fmt.Errorf("%s: weights up to |%d| on %d vertices allow paths of weight up to %d, beyond the int32 kernels' range ±%d",
			what, maxAbs, g.N(), bound, graph.MaxDistance)
	}
	return nil
}

// checkSource reports a source vertex outside the graph.
func checkSource(g *graph.Graph, source int, what string) error {
	if g == nil {
		return fmt.Errorf("%s: nil graph", what)
	}
	if source < 0 || source >= g.N() {
		return fmt.Errorf("%s: source %d out of range 0..%d", what, source, g.N()-1)
	}
	return nil
}

// checkResult makes sure every distance the kernels returned is Inf or
// within ±graph.MaxDistance: a poisoned cell was never written, anything
// else out of range is a kernel fault. single selects the single-source
// wording of the cell.
func checkResult(dist []int32, n int, single bool, what string) error {
	c := firstOutOfRange(dist)
	if c < 0 {
		return nil
	}
	d := dist[c]
	where := fmt.Sprintf("dist[%d][%d]", c/max(n, 1), c%max(n, 1))
	if single {
		where = fmt.Sprintf("dist[%d]", c)
	}
	if uint32(d) == poison {
		return fmt.Errorf("%s: internal error: %s was never written by the kernels (it still holds the poison value %#x)", what, where, poison)
	}
	return fmt.Errorf("%s: internal error: %s = %d is beyond ±%d", what, where, d, graph.MaxDistance)
}

// firstOutOfRange returns the index of the first value of dist that is
// neither graph.Inf nor within ±graph.MaxDistance, or -1; results of
// 2^18 values and more are scanned on every core.
func firstOutOfRange(dist []int32) int {
	scan := func(part []int32) int {
		for lo := 0; lo < len(part); lo += rangeChunk {
			chunk := part[lo:min(lo+rangeChunk, len(part))]
			if !anyOutOfRange(chunk) {
				continue
			}
			for i, d := range chunk {
				if outOfRange(d) {
					return lo + i
				}
			}
		}
		return -1
	}
	if len(dist) < 1<<18 || runtime.GOMAXPROCS(0) == 1 {
		return scan(dist)
	}
	var found []int
	var mu sync.Mutex
	var wg sync.WaitGroup
	parallelRanges(&wg, len(dist), func(lo, hi int) {
		if i := scan(dist[lo:hi]); i >= 0 {
			mu.Lock()
			found = append(found, lo+i)
			mu.Unlock()
		}
	})
	wg.Wait()
	if len(found) == 0 {
		return -1
	}
	return slices.Min(found)
}

// rangeChunk is how many values anyOutOfRange looks at before
// firstOutOfRange stops to see whether one of them was out of range.
const rangeChunk = 4096

// outOfRange says whether d is neither graph.Inf nor within
// ±graph.MaxDistance.
func outOfRange(d int32) bool {
	return d != graph.Inf && (d > graph.MaxDistance || d < -graph.MaxDistance)
}

// anyOutOfRange says whether some value of part is outOfRange, without a
// branch per value: a result with unreachable pairs strewn among the
// reachable ones made outOfRange's branches guess wrong half the time (a
// single-source result of 2^20 values on R-MAT took 5.7 ms instead of
// 0.3 on a grid, on an H200's host). Each value is shifted by MaxDistance
// into 0 .. 2·MaxDistance when in range, graph.Inf counts as 0, and the
// largest shifted value is compared once.
func anyOutOfRange(part []int32) bool {
	var worst uint32
	for _, d := range part {
		u := uint32(d) + uint32(graph.MaxDistance)
		if d == graph.Inf {
			u = 0
		}
		worst = max(worst, u)
	}
	return worst > 2*uint32(graph.MaxDistance)
}

// negativeCycle finds a negative cycle once a kernel has shown there is
// one, with graph.FindNegativeCycle from the distances start (nil: 0
// everywhere; graph.Inf marks vertices not reached), and returns it as a
// *graph.NegativeCycleError. hint names a vertex the kernel saw on or
// behind the cycle, reported if the search finds none.
func negativeCycle(ctx context.Context, g *graph.Graph, start []int32, hint int) error {
	if cycle := graph.FindNegativeCycle(ctx, g, start); cycle != nil {
		return &graph.NegativeCycleError{Vertex: cycle[0], Cycle: cycle, Weight: g.CycleWeight(cycle), Labels: slices.Clone(g.Labels())}
	}
	return &graph.NegativeCycleError{Vertex: hint, Labels: slices.Clone(g.Labels())}
}

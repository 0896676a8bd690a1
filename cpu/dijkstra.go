package cpu

import (
	"context"
	"fmt"
	"slices"

	"github.com/pathnotes/pathnotes/graph"
)

// Dijkstra solves single-source shortest paths for non-negative arc
// weights (variant "dijkstra-cpu") with a 4-ary heap and lazy deletion:
// an improved vertex is pushed again and stale entries are skipped when
// popped. Each heap entry packs distance and vertex into one uint64, so a
// comparison is a single integer compare and ties settle the smaller vertex
// first, as Musap's Algorithm 1 does.
//
// A negative arc is an error naming it (use BellmanFord or Johnson). With
// opts.Trace both of Musap's tables are recorded: the settle order with the
// tentative distances after each step, and the frontier iterations of
// Algorithm 2 (all unsettled vertices at the minimum distance settle
// together), computed by running that algorithm too.
func Dijkstra(ctx context.Context, g *graph.Graph, source int, opts DijkstraOptions) (*graph.SingleSource, error) {
	const what = "cpu.Dijkstra"
	ctx, err := startSingle(ctx, g, source, what)
	if err != nil {
		return nil, err
	}
	if err := checkNonNegative(g, what); err != nil {
		return nil, err
	}
	n := g.N()
	if opts.Trace != nil {
		if err := graph.CheckTraceSize(what, n); err != nil {
			return nil, err
		}
	}
	res, err := graph.NewSingleSource(n, source, opts.Pred || opts.Trace != nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	res.Labels, res.Solver = cloneLabels(g), VariantDijkstra
	var onSettle func(int)
	if t := opts.Trace; t != nil {
		*t = graph.DijkstraTrace{N: n, Labels: res.Labels, Source: source, Solver: VariantDijkstra,
			Initial: slices.Clone(res.Dist)}
		onSettle = func(v int) {
			t.Steps = append(t.Steps, graph.DijkstraStep{Settled: v, Dist: slices.Clone(res.Dist), Pred: slices.Clone(res.Pred)})
		}
	}
	var h heap4
	far, err := dijkstra(ctx, g.Offsets(), g.Targets(), g.Weights(), source, res.Dist, res.Pred, &h, onSettle)
	if err != nil {
		return nil, cancelled(ctx, what, err.Error())
	}
	if far >= 0 {
		return nil, tooFar(g, what, source, far)
	}
	if opts.Trace != nil {
		opts.Trace.Frontier = frontierSteps(g, source)
	}
	if !opts.Pred {
		res.Pred = nil
	}
	return res, nil
}

// DijkstraAll solves all pairs for non-negative arc weights by running
// Dijkstra from every source, opts.Workers sources at a time (variant
// "dijkstra-cpu"). It is the better all-pairs method on sparse graphs,
// where it costs O(n·m log n) against Floyd-Warshall's n³.
func DijkstraAll(ctx context.Context, g *graph.Graph, opts APSPOptions) (*graph.AllPairs, error) {
	const what = "cpu.DijkstraAll"
	ctx, err := start(ctx, g, what)
	if err != nil {
		return nil, err
	}
	if err := checkNonNegative(g, what); err != nil {
		return nil, err
	}
	return allSources(ctx, g, g.Weights(), opts, what, VariantDijkstra)
}

// allSources fills an all-pairs result with one Dijkstra run per source on
// g's arcs with the given weights (g's own, or Johnson's reweighted ones).
func allSources(ctx context.Context, g *graph.Graph, weights []int32, opts APSPOptions, what, solver string) (*graph.AllPairs, error) {
	workers, err := workerCount(what, opts.Workers)
	if err != nil {
		return nil, err
	}
	n := g.N()
	res, err := graph.NewAllPairs(n, opts.Pred)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	res.Labels, res.Solver = cloneLabels(g), solver
	heaps := make([]heap4, min(workers, max(n, 1))) // parallelFor numbers workers below min(workers, n)
	var fail firstError
	parallelFor(workers, n, func(w, s int) {
		if fail.failed() {
			return
		}
		if ctx.Err() != nil {
			fail.set(cancelled(ctx, what, fmt.Sprintf("source %d of %d", s, n)))
			return
		}
		var pred []int32
		if res.Pred != nil {
			pred = res.Pred[s*n : s*n+n]
		}
		far, err := dijkstra(ctx, g.Offsets(), g.Targets(), weights, s, res.Dist[s*n:s*n+n], pred, &heaps[w], nil)
		switch {
		case err != nil:
			fail.set(cancelled(ctx, what, fmt.Sprintf("source %d (%v)", s, err)))
		case far >= 0:
			fail.set(tooFar(g, what, s, far))
		}
	})
	if fail.err != nil {
		return nil, fail.err
	}
	return res, nil
}

// dijkstra is the heap loop shared by every Dijkstra entry point. dist
// (and pred, when not nil) must hold Inf (Nil) everywhere; weights are
// non-negative and aligned with targets. Each sum of a settled distance and
// a weight is at most 2·MaxDistance, so it stays in int32; a candidate
// beyond MaxDistance is dropped and remembered, and far is a vertex left
// unreached only because of that (-1 if none). err is a progress note
// when ctx was cancelled (checked first and every 4096 settles).
func dijkstra(ctx context.Context, offsets, targets, weights []int32, source int, dist, pred []int32, h *heap4, onSettle func(int)) (far int, err error) {
	if ctx.Err() != nil {
		return -1, fmt.Errorf("0 vertices settled")
	}
	var over []bool // allocated on the first dropped candidate
	dist[source] = 0
	*h = append((*h)[:0], uint64(source))
	settled := 0
	for len(*h) > 0 {
		top := h.pop()
		d, u := int32(top>>32), int32(uint32(top))
		if d > dist[u] {
			continue // stale: u was improved after this entry was pushed
		}
		settled++
		if settled&4095 == 0 && ctx.Err() != nil {
			return -1, fmt.Errorf("%d vertices settled", settled)
		}
		lo, hi := offsets[u], offsets[u+1]
		ts, ws := targets[lo:hi], weights[lo:hi]
		ws = ws[:len(ts)]
		for a, v := range ts {
			nd := d + ws[a]
			if nd >= dist[v] {
				continue
			}
			if nd > graph.MaxDistance {
				if over == nil {
					over = make([]bool, len(dist))
				}
				over[v] = true
				continue
			}
			dist[v] = nd
			if pred != nil {
				pred[v] = u
			}
			h.push(uint64(nd)<<32 | uint64(v))
		}
		if onSettle != nil {
			onSettle(int(u))
		}
	}
	for v, o := range over {
		if o && dist[v] == graph.Inf {
			return v, nil
		}
	}
	return -1, nil
}

// tooFar is the error for a vertex whose distance exceeds MaxDistance.
func tooFar(g *graph.Graph, what string, source, v int) error {
	return fmt.Errorf("%s: the distance %s->%s is beyond %d (weights too large for int32 distances)",
		what, g.Label(source), g.Label(v), graph.MaxDistance)
}

// checkNonNegative names the first negative arc, which Dijkstra cannot take.
func checkNonNegative(g *graph.Graph, what string) error {
	if !g.HasNegative() {
		return nil
	}
	for _, a := range g.Arcs() {
		if a.Weight < 0 {
			return fmt.Errorf("%s: arc %s has negative weight %d; Dijkstra needs non-negative weights (use BellmanFord or Johnson)",
				what, arcName(g, a.From, a.To), a.Weight)
		}
	}
	return nil
}

// heap4 is a 4-ary min-heap of packed (distance<<32 | vertex) keys. Four
// children per node halve the depth of a binary heap and keep siblings in
// one cache line.
type heap4 []uint64

func (h *heap4) push(x uint64) {
	s := append(*h, x)
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 4
		if s[p] <= x {
			break
		}
		s[i] = s[p]
		i = p
	}
	s[i] = x
	*h = s
}

func (h *heap4) pop() uint64 {
	s := *h
	top := s[0]
	last := s[len(s)-1]
	s = s[:len(s)-1]
	*h = s
	n := len(s)
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m, mv := c, s[c]
		for q := c + 1; q < min(c+4, n); q++ {
			if s[q] < mv {
				m, mv = q, s[q]
			}
		}
		if mv >= last {
			break
		}
		s[i] = mv
		i = m
	}
	s[i] = last
	return top
}

// frontierSteps runs Musap's Algorithm 2 (after Martín et al.) on the CPU
// and records each while-iteration: the frontier relaxes its arcs into
// unsettled vertices, mssp is the least distance over unsettled vertices,
// and every unsettled vertex at mssp settles and forms the next frontier.
// It stops when mssp is Inf. Weights are non-negative and the graph small
// (a trace), so sums stay in int32 and beyond-range candidates are dropped
// as in dijkstra.
func frontierSteps(g *graph.Graph, source int) []graph.FrontierStep {
	n := g.N()
	c := make([]int32, n)
	settled := make([]bool, n)
	for v := range c {
		c[v] = graph.Inf
	}
	c[source], settled[source] = 0, true
	frontier := []int{source}
	var steps []graph.FrontierStep
	for {
		for _, f := range frontier {
			ts, ws := g.Out(f)
			for a, t := range ts {
				if s := c[f] + ws[a]; !settled[t] && s < c[t] && s <= graph.MaxDistance {
					c[t] = s
				}
			}
		}
		step := graph.FrontierStep{Frontier: frontier, Dist: slices.Clone(c), Min: graph.Inf}
		for v := range c {
			if !settled[v] {
				step.Min = min(step.Min, c[v])
			}
		}
		for v := range c {
			if !settled[v] && step.Min != graph.Inf && c[v] == step.Min {
				settled[v] = true
				step.Next = append(step.Next, v)
			}
		}
		for v := range c {
			if !settled[v] {
				step.Unsettled = append(step.Unsettled, v)
			}
		}
		steps = append(steps, step)
		if step.Min == graph.Inf {
			return steps
		}
		frontier = step.Next
	}
}

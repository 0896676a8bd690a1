package cpu

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/pathnotes/pathnotes/graph"
)

// Variant names, as docs/design.md lists them; they go in the results' Solver
// field and in traces.
const (
	VariantFWNaive     = "fw-cpu-naive"
	VariantFWAsWritten = "fw-cpu-as-written"
	VariantFWBlocked   = "fw-cpu-blocked"
	VariantDijkstra    = "dijkstra-cpu"
	VariantBF          = "bf-cpu"
	VariantJohnson     = "johnson-cpu"
)

// FWOptions configures FloydWarshall, FloydWarshallAsWritten and
// FloydWarshallBlocked. The zero
// value computes distances only, with the default tile and one worker per
// core.
type FWOptions struct {
	// Pred asks for the predecessor matrix Π (and, on a negative cycle, for
	// the cycle itself in the error).
	Pred bool
	// Tile is the tile side of FloydWarshallBlocked; 0 means DefaultTile.
	// FloydWarshall and FloydWarshallAsWritten ignore it.
	Tile int
	// Workers is how many goroutines FloydWarshallBlocked runs phases 2
	// and 3 on; 0 means runtime.GOMAXPROCS(0). FloydWarshall and
	// FloydWarshallAsWritten run on one goroutine, as the documents' CPU
	// programs do, unless Workers is above 1: then each pivot's rows are
	// split over that many goroutines, with the same result.
	Workers int
	// Trace, when not nil, is filled with D (and Π when Pred is set) after
	// every step: each k for FloydWarshall, each phase of each round for
	// FloydWarshallBlocked. Tracing is limited to graph.MaxTraceN vertices.
	Trace *graph.FWTrace
	// Progress, when not nil, is called with the pivots done so far and n,
	// after every pivot (FloydWarshall) or every round of tiles
	// (FloydWarshallBlocked), from the goroutine that called the solver:
	// a display.Progress's Report method fits, so long runs show a bar.
	Progress func(done, total int)
}

// DijkstraOptions configures Dijkstra. The zero value computes distances
// only.
type DijkstraOptions struct {
	// Pred asks for the predecessor of every vertex on its shortest path.
	Pred bool
	// Trace, when not nil, is filled with both of Musap's tables: the
	// sequential steps and the frontier iterations (graph.MaxTraceN
	// vertices at most).
	Trace *graph.DijkstraTrace
}

// BFOptions configures BellmanFord. The zero value computes distances only.
type BFOptions struct {
	// Pred asks for the predecessor of every vertex on its shortest path.
	Pred bool
	// Trace, when not nil, is filled with the distances and predecessors
	// after every pass, the vertices each pass scanned and the arcs it
	// relaxed (graph.MaxTraceN vertices at most). A run that stops on a
	// negative cycle keeps its passes so far and the cycle.
	Trace *graph.BFTrace
}

// APSPOptions configures the all-pairs solvers built from single-source
// runs, DijkstraAll and Johnson.
type APSPOptions struct {
	// Pred asks for the predecessor matrix.
	Pred bool
	// Workers is how many sources run at once; 0 means
	// runtime.GOMAXPROCS(0).
	Workers int
}

// workerCount resolves a Workers option.
func workerCount(what string, w int) (int, error) {
	switch {
	case w < 0:
		return 0, fmt.Errorf("%s: negative worker count %d", what, w)
	case w == 0:
		return runtime.GOMAXPROCS(0), nil
	}
	return w, nil
}

// start checks the arguments every solver shares. A nil context is taken
// as context.Background(), so that a notebook cell may pass nil.
func start(ctx context.Context, g *graph.Graph, what string) (context.Context, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if g == nil {
		return ctx, fmt.Errorf("%s: nil graph", what)
	}
	return ctx, nil
}

// startSingle is start for a single-source solver: it also reports a
// source vertex outside the graph.
func startSingle(ctx context.Context, g *graph.Graph, source int, what string) (context.Context, error) {
	ctx, err := start(ctx, g, what)
	if err == nil && (source < 0 || source >= g.N()) {
		err = fmt.Errorf("%s: source %d out of range 0..%d", what, source, g.N()-1)
	}
	return ctx, err
}

// cancelled wraps ctx's error with what was interrupted and how far it got.
func cancelled(ctx context.Context, what, progress string) error {
	return fmt.Errorf("%s: interrupted after %s: %w", what, progress, ctx.Err())
}

// cloneLabels copies the graph's labels for a result (nil without labels).
func cloneLabels(g *graph.Graph) []string { return slices.Clone(g.Labels()) }

// arcName formats the arc u->v with the graph's labels.
func arcName(g *graph.Graph, u, v int) string { return g.Label(u) + "->" + g.Label(v) }

// maxAbsWeight returns the largest arc weight magnitude, as int64.
func maxAbsWeight(g *graph.Graph) int64 {
	lo, hi := g.WeightRange()
	return max(-int64(lo), int64(hi))
}

// pathBound is the cheap bound on the magnitude of any simple path's
// weight, (n-1)·max|w|.
func pathBound(g *graph.Graph) int64 {
	return int64(max(g.N()-1, 0)) * maxAbsWeight(g)
}

// parallelFor runs body(worker, i) for i = 0..count-1 on up to workers
// goroutines numbered 0..workers-1 (so that each may own scratch space),
// handing out indices one at a time so that uneven items balance out; with
// one worker it runs in the caller's goroutine.
func parallelFor(workers, count int, body func(worker, i int)) {
	if workers <= 1 || count <= 1 {
		for i := range count {
			body(0, i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range min(workers, count) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= count {
					return
				}
				body(w, i)
			}
		})
	}
	wg.Wait()
}

// firstError keeps the first error reported by concurrent workers.
type firstError struct {
	mu  sync.Mutex
	err error
	bad atomic.Bool
}

func (f *firstError) set(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = err
		f.bad.Store(true)
	}
}

// failed reports, cheaply, whether an error was set.
func (f *firstError) failed() bool { return f.bad.Load() }

// negativeCycle is the error for a negative cycle through v found by a
// solver; cycle may be nil when it was not asked for.
func negativeCycle(g *graph.Graph, v int, cycle []int) error {
	e := &graph.NegativeCycleError{Vertex: v, Labels: cloneLabels(g)}
	if len(cycle) > 0 {
		e.Cycle = cycle
		e.Weight = g.CycleWeight(cycle)
	}
	return e
}

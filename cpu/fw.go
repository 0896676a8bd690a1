package cpu

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/pathnotes/pathnotes/graph"
)

// number is the element type of a working distance matrix: int32 on the
// fast paths, int64 on the checked paths for graphs whose weights could
// carry a sum out of int32.
type number interface{ ~int32 | ~int64 }

// FloydWarshall solves all pairs with the triple loop of [Karaula 2017]
// §3.2 plus one shortcut (variant "fw-cpu-naive"): for pivot k, a row i
// whose D[i,k] is ∞ is skipped as a whole, since no cell of it can improve
// through k. On sparse graphs most rows are skipped, so it runs far faster
// than the thesis's program; FloydWarshallAsWritten runs that program's
// loop without the shortcut. Otherwise the two are the same: for k, i, j in
// order, D[i,j] is relaxed through k only when D[i,k] and D[k,j] are both
// finite, and Π[i,j] becomes Π[k,j] only on a strict improvement, so that Π
// matches the documents' traces cell for cell. Π starts as Nil on the
// diagonal and where there is no arc, and as i where there is one. W takes
// the lightest of parallel arcs, where the thesis's C++ program (Appendix 1)
// kept the last one read (build the graph with graph.KeepLast to reproduce
// that).
//
// It is the reference the fast variants are checked against and the
// algorithm the documents trace: with opts.Trace it records D^(k) and
// Π^(k) for k = 0..n.
//
// Negative arcs are allowed. A negative cycle is a *graph.NegativeCycleError
// naming a vertex on it (and, with opts.Pred, the cycle): before k is used
// as a pivot, D[k,k] < 0 means a cycle through k. Sums stay in int32 when
// (n-1)·max|w| ≤ graph.MaxDistance, the cheap bound on any path weight;
// heavier graphs run in int64 and an error names the first pair whose
// distance leaves ±graph.MaxDistance.
func FloydWarshall(ctx context.Context, g *graph.Graph, opts FWOptions) (*graph.AllPairs, error) {
	return floydWarshall(ctx, g, opts, "cpu.FloydWarshall", VariantFWNaive, true)
}

// FloydWarshallAsWritten runs the triple loop of [Karaula 2017] §3.2
// (Appendix 1) as the thesis writes it (variant "fw-cpu-as-written"): for
// every k, every i and every j it tests D[i,k] < ∞ and D[k,j] < ∞ and only
// then compares D[i,j] with D[i,k] + D[k,j], so it does n³ steps whatever
// the graph, as the CPU column of the thesis's Tables 1–6 did. Results,
// Π, traces, errors and limits are those of FloydWarshall, which skips a
// row i whose D[i,k] is ∞ and so runs much faster on sparse graphs.
func FloydWarshallAsWritten(ctx context.Context, g *graph.Graph, opts FWOptions) (*graph.AllPairs, error) {
	return floydWarshall(ctx, g, opts, "cpu.FloydWarshallAsWritten", VariantFWAsWritten, false)
}

// floydWarshall runs FloydWarshall (skipRows) or FloydWarshallAsWritten,
// reporting errors under the name what and results under variant.
func floydWarshall(ctx context.Context, g *graph.Graph, opts FWOptions, what, variant string, skipRows bool) (*graph.AllPairs, error) {
	ctx, err := start(ctx, g, what)
	if err != nil {
		return nil, err
	}
	if opts.Workers < 0 {
		return nil, fmt.Errorf("%s: negative worker count %d", what, opts.Workers)
	}
	workers := max(opts.Workers, 1)
	res, err := newFW(g, opts, what, variant)
	if err != nil {
		return nil, err
	}
	n := g.N()
	tr := newFWTracer(opts.Trace, res, variant, 0)
	if pathBound(g) <= int64(graph.MaxDistance) {
		// Finite entries are path weights within ±MaxDistance, so the sum of
		// two never wraps; Inf itself marks "no path".
		if err := record(tr, res.Dist, res.Pred, graph.MaxDistance, graph.FWStep{Round: -1}); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		neg, k, err := fwPlain(ctx, res.Dist, res.Pred, n, graph.Inf, skipRows, workers, func(k int) error {
			report(opts.Progress, k, n)
			return record(tr, res.Dist, res.Pred, graph.MaxDistance, graph.FWStep{K: k, Round: -1})
		})
		if err != nil {
			return nil, fwStopped(ctx, err, what, k, n)
		}
		if neg >= 0 {
			return nil, fwNegativeCycle(ctx, g, neg, opts.Pred)
		}
		return res, nil
	}
	if err := graph.CheckMatrixSize(n, 2); err != nil { // the int64 copy, beside the result
		return nil, fmt.Errorf("%s: checked int64 path: %w", what, err)
	}
	d := widen(res.Dist, graph.Inf, math.MaxInt64)
	const noPath = math.MaxInt64 - 1 // export: every value above it is "no path"
	if err := record(tr, d, res.Pred, noPath, graph.FWStep{Round: -1}); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	neg, k, err := fwPlain(ctx, d, res.Pred, n, math.MaxInt64, skipRows, workers, func(k int) error {
		report(opts.Progress, k, n)
		return record(tr, d, res.Pred, noPath, graph.FWStep{K: k, Round: -1})
	})
	if err != nil {
		return nil, fwStopped(ctx, err, what, k, n)
	}
	if neg >= 0 {
		return nil, fwNegativeCycle(ctx, g, neg, opts.Pred)
	}
	if err := export(res, d, res.Pred, noPath, g); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return res, nil
}

// fwPlain runs the triple loop in place on the n×n matrix d, with inf
// marking "no path". With skipRows a row whose D[i,k] is inf is skipped
// as a whole; without, every cell tests D[i,k] itself, as [Karaula 2017]
// §3.2 writes the loop. Before pivot k it checks D[k,k]: a negative value is a
// negative cycle through k, returned as neg (otherwise -1). Checking there,
// pivot by pivot, also keeps every entry a simple path's weight until then,
// which is what bounds the sums. after(k) runs once pivots 0..k-1 are done;
// k is how many pivots completed when it returns.
//
// With workers > 1 each pivot's rows are split into that many contiguous
// runs, relaxed at once. The result is the same cell for cell: with
// D[k,k] ≥ 0, pivot k never improves row k or column k, so no worker
// writes what another reads.
func fwPlain[T number](ctx context.Context, d []T, pred []int32, n int, inf T, skipRows bool, workers int, after func(k int) error) (neg, k int, err error) {
	workers = min(workers, n)
	var wg sync.WaitGroup
	for k = 0; k < n; k++ {
		if err := ctx.Err(); err != nil {
			return -1, k, err
		}
		if d[k*n+k] < 0 {
			return k, k, nil
		}
		if workers <= 1 {
			fwRows(d, pred, n, k, 0, n, inf, skipRows)
		} else {
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					fwRows(d, pred, n, k, w*n/workers, (w+1)*n/workers, inf, skipRows)
				}()
			}
			wg.Wait()
		}
		if after != nil {
			if err := after(k + 1); err != nil {
				return -1, k + 1, err
			}
		}
	}
	return -1, n, nil
}

// fwRows relaxes rows lo..hi-1 of d through pivot k, as fwPlain describes.
func fwRows[T number](d []T, pred []int32, n, k, lo, hi int, inf T, skipRows bool) {
	dk := d[k*n : k*n+n]
	var pk []int32
	if pred != nil {
		pk = pred[k*n : k*n+n]
	}
	for i := lo; i < hi; i++ {
		dik := d[i*n+k]
		if !skipRows {
			fwRowAsWritten(d[i*n:i*n+n], dk, pred, pk, i, n, dik, inf)
			continue
		}
		if dik == inf {
			continue
		}
		di := d[i*n : i*n+n]
		if pred == nil {
			for j, dkj := range dk {
				if dkj != inf && di[j] > dik+dkj {
					di[j] = dik + dkj
				}
			}
			continue
		}
		pi := pred[i*n : i*n+n]
		pk := pk[:len(dk)]
		for j, dkj := range dk {
			if dkj != inf && di[j] > dik+dkj {
				di[j] = dik + dkj
				pi[j] = pk[j]
			}
		}
	}
}

// fwRowAsWritten relaxes row i through pivot k cell by cell as [Karaula
// 2017] §3.2 does: each j tests both D[i,k] and D[k,j] against inf before
// it compares, even when D[i,k] is inf for the whole row. pred and pk are
// nil without Π.
func fwRowAsWritten[T number](di, dk []T, pred, pk []int32, i, n int, dik, inf T) {
	var pi []int32
	if pred != nil {
		pi = pred[i*n : i*n+n]
	}
	for j := range dk {
		if dik != inf && dk[j] != inf {
			if di[j] > dik+dk[j] {
				di[j] = dik + dk[j]
				if pi != nil {
					pi[j] = pk[j]
				}
			}
		}
	}
}

// newFW allocates a Floyd-Warshall result and fills it with W and Π^(0).
func newFW(g *graph.Graph, opts FWOptions, what, solver string) (*graph.AllPairs, error) {
	n := g.N()
	if opts.Trace != nil {
		if err := graph.CheckTraceSize(what, n); err != nil {
			return nil, err
		}
	}
	res, err := graph.NewAllPairs(n, opts.Pred)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	res.Labels = cloneLabels(g)
	res.Solver = solver
	for i := 0; i < n; i++ {
		res.Dist[i*n+i] = 0
	}
	for u := 0; u < n; u++ {
		ts, ws := g.Out(u)
		for a, t := range ts {
			if c := u*n + int(t); ws[a] < res.Dist[c] {
				res.Dist[c] = ws[a]
				if res.Pred != nil && int(t) != u {
					res.Pred[c] = int32(u)
				}
			}
		}
	}
	return res, nil
}

// widen copies an int32 matrix into int64, mapping from (no path) to to.
func widen(d []int32, from int32, to int64) []int64 {
	w := make([]int64, len(d))
	for i, v := range d {
		if v == from {
			w[i] = to
		} else {
			w[i] = int64(v)
		}
	}
	return w
}

// export writes a working matrix back into res: entries above noPath
// become Inf (and their predecessor Nil); any other entry beyond
// ±MaxDistance is an error naming the pair. dst and src may be the same
// int32 matrix. The error has no prefix: the solver adds its name.
func export[T number](res *graph.AllPairs, src []T, srcPred []int32, noPath T, g *graph.Graph) error {
	if c, v := exportTo(res.Dist, res.Pred, src, srcPred, noPath); c >= 0 {
		return fmt.Errorf("the distance %s->%s is %d, beyond ±%d (weights too large for int32 distances)",
			g.Label(c/res.N), g.Label(c%res.N), v, graph.MaxDistance)
	}
	return nil
}

// exportTo converts src into dst as export does and returns the first cell
// out of range with its value, or -1.
func exportTo[T number](dst, dstPred []int32, src []T, srcPred []int32, noPath T) (cell int, value int64) {
	bad := -1
	var badValue int64
	for c, v := range src {
		switch {
		case v > noPath:
			dst[c] = graph.Inf
			if dstPred != nil {
				dstPred[c] = graph.Nil
			}
			continue
		case int64(v) > int64(graph.MaxDistance) || int64(v) < -int64(graph.MaxDistance):
			if bad < 0 {
				bad, badValue = c, int64(v)
			}
			continue
		}
		dst[c] = int32(v)
		if dstPred != nil {
			dstPred[c] = srcPred[c]
		}
	}
	return bad, badValue
}

// fwTracer appends snapshots to an FWTrace; it does nothing without one.
type fwTracer struct {
	t   *graph.FWTrace
	n   int
	err error
}

func newFWTracer(t *graph.FWTrace, res *graph.AllPairs, solver string, tile int) *fwTracer {
	if t != nil {
		*t = graph.FWTrace{N: res.N, Labels: res.Labels, Solver: solver, Tile: tile}
	}
	return &fwTracer{t: t, n: res.N}
}

// record appends the state of d (entries above noPath mean no path) as
// step; a snapshot entry beyond ±MaxDistance is an error.
func record[T number](tr *fwTracer, d []T, pred []int32, noPath T, step graph.FWStep) error {
	if tr.t == nil || tr.err != nil {
		return tr.err
	}
	step.Dist = make([]int32, len(d))
	if pred != nil {
		step.Pred = make([]int32, len(pred))
	}
	if c, v := exportTo(step.Dist, step.Pred, d, pred, noPath); c >= 0 {
		tr.err = fmt.Errorf("trace: at %s, D[%d,%d] = %d is beyond ±%d", step.Title(), c/tr.n, c%tr.n, v, graph.MaxDistance)
		return tr.err
	}
	tr.t.Steps = append(tr.t.Steps, step)
	return nil
}

// report calls a Progress option, if any.
func report(progress func(done, total int), done, total int) {
	if progress != nil {
		progress(done, total)
	}
}

// fwStopped wraps an error that ended a Floyd-Warshall run after k pivots.
func fwStopped(ctx context.Context, err error, what string, k, n int) error {
	if ctx.Err() != nil {
		return cancelled(ctx, what, fmt.Sprintf("%d of %d pivots", k, n))
	}
	return fmt.Errorf("%s: %w", what, err)
}

// fwNegativeCycle builds the error for a negative diagonal found before
// pivot k. Pivots are checked in order, so vertices 0..k-1 carry no
// negative cycle, and every negative cycle among 0..k passes through k;
// with cycle set, Bellman-Ford from k on those vertices finds one.
func fwNegativeCycle(ctx context.Context, g *graph.Graph, k int, cycle bool) error {
	if !cycle {
		return negativeCycle(g, k, nil)
	}
	c, err := cycleThrough(ctx, g, k)
	if err != nil {
		return err
	}
	return negativeCycle(g, k, c)
}

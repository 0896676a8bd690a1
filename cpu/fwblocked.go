package cpu

import (
	"context"
	"fmt"

	"github.com/pathnotes/pathnotes/graph"
)

// DefaultTile is the tile side FloydWarshallBlocked uses when
// FWOptions.Tile is 0. At 64, the three int32 tiles of phase 3 take 48 KiB
// (80 KiB with predecessors) and stay in the core's L2 cache. In
// BENCHMARKS.md's sweep at n = 1024, sides 64, 96 and 128 were within 5% of
// each other; the smallest leaves the most tiles to share among workers on
// small graphs.
const DefaultTile = 64

// fastBlockedBound is the largest (n-1)·max|w| for which the blocked
// kernels run on int32. They mark "no path" with the finite sentinel
// MaxDistance instead of Inf, so that the inner loops need no guard and
// compile to plain adds and minimums; a sum that touches the sentinel must
// stay above every real distance and must not wrap. Within a round, phase 2
// can hold the sum of two path weights, so real entries lie in [-L, 2L]
// for L = (n-1)·max|w|, and sentinel-derived ones in [S-2L, S]; L ≤ S/8
// keeps the two apart (threshold S/2) and every sum inside int32.
const fastBlockedBound = int64(graph.MaxDistance) / 8

// FloydWarshallBlocked solves all pairs with the 3-phase blocked
// Floyd-Warshall of Venkataraman et al. as [Karaula 2017] §4.5 and [Lab handout]
// §2.4 describe it (variant "fw-cpu-blocked"), the fast CPU path. The
// matrix is cut into Tile×Tile tiles (the last row and column of tiles may
// be smaller, so any n works); each round r takes the diagonal tile r as
// primary and runs
//
//	phase 1: plain FW on the primary tile, pivots k in tile r in order;
//	phase 2: the tiles of row r and of column r, from the primary tile;
//	phase 3: every other tile (i, j), from tiles (i, r) and (r, j).
//
// Phases 2 and 3 run in parallel over their tiles on opts.Workers
// goroutines, with a barrier after each phase; on amd64 CPUs with AVX2 the
// tile loops run as vector kernels (kernels_amd64.s) with the same results
// as the Go loops. Predecessors follow the same
// rule as FloydWarshall (Π[i,j] = Π[k,j] on a strict improvement, pivots in
// increasing order within each cell), so traces match the documents' cell
// for cell; with opts.Trace the state after each phase of each round is
// recorded ([Karaula 2017] §4.5, Fig. 4.10 with Tile 2).
//
// Unlike the thesis's CUDA code, the edge tiles are bounded rather than
// read past the matrix. Negative arcs are allowed; a negative cycle is
// reported as FloydWarshall does (the pivot check runs in phase 1). Graphs
// with (n-1)·max|w| above graph.MaxDistance/8 run on int64 and report a
// pair whose distance leaves ±graph.MaxDistance.
func FloydWarshallBlocked(ctx context.Context, g *graph.Graph, opts FWOptions) (*graph.AllPairs, error) {
	const what = "cpu.FloydWarshallBlocked"
	ctx, err := start(ctx, g, what)
	if err != nil {
		return nil, err
	}
	tile := opts.Tile
	switch {
	case tile < 0:
		return nil, fmt.Errorf("%s: negative tile side %d", what, tile)
	case tile == 0:
		tile = DefaultTile
	}
	tile = min(tile, max(g.N(), 1)) // one tile covers any smaller graph
	workers, err := workerCount(what, opts.Workers)
	if err != nil {
		return nil, err
	}
	res, err := newFW(g, opts, what, VariantFWBlocked)
	if err != nil {
		return nil, err
	}
	n := g.N()
	tr := newFWTracer(opts.Trace, res, VariantFWBlocked, tile)
	var neg, done int
	if pathBound(g) <= fastBlockedBound {
		const big = graph.MaxDistance
		for c, v := range res.Dist {
			if v == graph.Inf {
				res.Dist[c] = big
			}
		}
		b := newBlocked(res.Dist, res.Pred, n, tile, workers, big)
		b.progress = opts.Progress
		neg, done, err = b.run(ctx, tr)
		if err == nil && neg < 0 {
			err = export(res, res.Dist, res.Pred, b.noPath, g)
		}
	} else {
		if err := graph.CheckMatrixSize(n, 2); err != nil { // the int64 copy, beside the result
			return nil, fmt.Errorf("%s: checked int64 path: %w", what, err)
		}
		const big = 1<<62 - 1
		b := newBlocked(widen(res.Dist, graph.Inf, big), res.Pred, n, tile, workers, big)
		b.progress = opts.Progress
		neg, done, err = b.run(ctx, tr)
		if err == nil && neg < 0 {
			err = export(res, b.d, res.Pred, b.noPath, g)
		}
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, cancelled(ctx, what, fmt.Sprintf("%d of %d pivots", done, n))
	case err != nil:
		return nil, fmt.Errorf("%s: %w", what, err)
	case neg >= 0:
		return nil, fwNegativeCycle(ctx, g, neg, opts.Pred)
	}
	// The blocked order can leave Π cycling round a zero-weight cycle.
	res.RepairPredecessors(g)
	return res, nil
}

// blocked is one blocked Floyd-Warshall run on a working matrix d in which
// big marks "no path" and every entry above noPath = big/2 is one.
type blocked[T number] struct {
	progress    func(done, total int) // FWOptions.Progress
	d           []T
	d32         []int32 // d again when T is int32, for the vector kernels
	pred        []int32 // nil without predecessors
	n, tile, nb int
	big, noPath T
	workers     int
}

func newBlocked[T number](d []T, pred []int32, n, tile, workers int, big T) *blocked[T] {
	d32, _ := any(d).([]int32)
	return &blocked[T]{d: d, d32: d32, pred: pred, n: n, tile: tile, nb: (n + tile - 1) / tile,
		big: big, noPath: big / 2, workers: workers}
}

// span returns the vertices lo..hi-1 that tile t covers.
func (b *blocked[T]) span(t int) (lo, hi int) { return t * b.tile, min((t+1)*b.tile, b.n) }

// run performs every round. It returns the vertex of a negative cycle (or
// -1), how many pivots completed, and ctx's or the tracer's error.
func (b *blocked[T]) run(ctx context.Context, tr *fwTracer) (neg, done int, err error) {
	if err := record(tr, b.d, b.pred, b.noPath, graph.FWStep{Round: -1}); err != nil {
		return -1, 0, err
	}
	others := b.nb - 1
	for r := 0; r < b.nb; r++ {
		k0, k1 := b.span(r)
		if err := ctx.Err(); err != nil {
			return -1, k0, err
		}
		if v := b.phase1(k0, k1); v >= 0 {
			return v, k0, nil
		}
		if err := b.snap(tr, r, 1, k1); err != nil {
			return -1, k0, err
		}
		if others == 0 {
			report(b.progress, k1, b.n)
			continue
		}
		// Phase 2: items 0..others-1 are the row tiles (r, o), the rest
		// the column tiles (o, r); o skips the primary tile.
		parallelFor(b.workers, 2*others, func(_, t int) {
			if ctx.Err() != nil {
				return
			}
			o0, o1 := b.span(skip(t%others, r))
			if t < others {
				b.relax(k0, k1, k0, k1, o0, o1)
			} else {
				b.relax(k0, k1, o0, o1, k0, k1)
			}
		})
		if err := ctx.Err(); err != nil {
			return -1, k0, err
		}
		if err := b.snap(tr, r, 2, k1); err != nil {
			return -1, k0, err
		}
		parallelFor(b.workers, others*others, func(_, t int) {
			if ctx.Err() != nil {
				return
			}
			b.phase3(skip(t/others, r), skip(t%others, r), k0, k1)
		})
		if err := ctx.Err(); err != nil {
			return -1, k0, err
		}
		if err := b.snap(tr, r, 3, k1); err != nil {
			return -1, k0, err
		}
		report(b.progress, k1, b.n)
	}
	return -1, b.n, nil
}

// skip maps 0..nb-2 onto the tile indices other than r.
func skip(o, r int) int {
	if o >= r {
		return o + 1
	}
	return o
}

// snap records the state after a phase, with the tiles it updated.
func (b *blocked[T]) snap(tr *fwTracer, round, phase, k int) error {
	if tr.t == nil {
		return nil
	}
	var tiles [][2]int
	for i := 0; i < b.nb; i++ {
		for j := 0; j < b.nb; j++ {
			onRow, onCol := i == round, j == round
			switch {
			case phase == 1 && onRow && onCol,
				phase == 2 && onRow != onCol,
				phase == 3 && !onRow && !onCol:
				tiles = append(tiles, [2]int{i, j})
			}
		}
	}
	return record(tr, b.d, b.pred, b.noPath, graph.FWStep{K: k, Round: round, Phase: phase, Updated: tiles})
}

// phase1 closes the primary tile k0..k1-1 on itself, checking each pivot's
// diagonal before using it; it returns the vertex of a negative cycle or -1.
func (b *blocked[T]) phase1(k0, k1 int) int {
	for k := k0; k < k1; k++ {
		if b.d[k*b.n+k] < 0 {
			return k
		}
		b.relax(k, k+1, k0, k1, k0, k1)
	}
	return -1
}

// relax applies pivots k0..k1-1, in order, to rows i0..i1-1 and columns
// j0..j1-1: the plain FW update, used where a tile reads values it is
// itself updating (phases 1 and 2).
func (b *blocked[T]) relax(k0, k1, i0, i1, j0, j1 int) {
	for k := k0; k < k1; k++ {
		b.pivot(k, i0, i1, b.pivotSIMD(k, i0, i1, j0, j1), j1)
	}
}

// pivot applies pivot k to rows i0..i1-1, columns j0..j1-1, in Go.
func (b *blocked[T]) pivot(k, i0, i1, j0, j1 int) {
	n, d, pred, noPath := b.n, b.d, b.pred, b.noPath
	w := j1 - j0
	if w <= 0 {
		return
	}
	dk := d[k*n+j0 : k*n+j0+w]
	for i := i0; i < i1; i++ {
		dik := d[i*n+k]
		if dik > noPath {
			continue
		}
		di := d[i*n+j0 : i*n+j0+w]
		if pred == nil {
			for j, x := range dk {
				di[j] = min(di[j], dik+x)
			}
			continue
		}
		pk := pred[k*n+j0 : k*n+j0+w]
		pi := pred[i*n+j0 : i*n+j0+w]
		for j, x := range dk {
			if s := dik + x; s < di[j] {
				di[j] = s
				pi[j] = pk[j]
			}
		}
	}
}

// phase3 updates tile (ti, tj) from column tile (ti, r) and row tile
// (r, tj), whose cells it does not write: a min-plus product, so four
// pivots are taken per pass over a row, which quarters the loads and stores
// of the output row. Comparisons stay in pivot order with strict
// improvement, so Π is what the one-pivot loop would give.
func (b *blocked[T]) phase3(ti, tj, k0, k1 int) {
	n, d, noPath := b.n, b.d, b.noPath
	i0, i1 := b.span(ti)
	j0, j1 := b.span(tj)
	j0 = b.phase3SIMD(i0, i1, j0, j1, k0, k1)
	w := j1 - j0
	if w <= 0 {
		return
	}
	for i := i0; i < i1; i++ {
		ci := d[i*n+j0 : i*n+j0+w]
		ai := d[i*n+k0 : i*n+k1]
		var pi []int32
		if b.pred != nil {
			pi = b.pred[i*n+j0 : i*n+j0+w]
		}
		k := 0
		for ; k+4 <= len(ai); k += 4 {
			a0, a1, a2, a3 := ai[k], ai[k+1], ai[k+2], ai[k+3]
			if a0 > noPath && a1 > noPath && a2 > noPath && a3 > noPath {
				continue
			}
			r0 := (k0+k)*n + j0
			r1, r2, r3 := r0+n, r0+2*n, r0+3*n
			if pi == nil {
				minPlus4(ci, d[r0:r0+w], d[r1:r1+w], d[r2:r2+w], d[r3:r3+w], a0, a1, a2, a3)
				continue
			}
			p := b.pred
			minPlus4Pred(ci, pi, d[r0:r0+w], d[r1:r1+w], d[r2:r2+w], d[r3:r3+w],
				p[r0:r0+w], p[r1:r1+w], p[r2:r2+w], p[r3:r3+w], a0, a1, a2, a3)
		}
		for ; k < len(ai); k++ {
			a := ai[k]
			if a > noPath {
				continue
			}
			r := (k0+k)*n + j0
			bk := d[r : r+w]
			if pi == nil {
				for j, x := range bk {
					ci[j] = min(ci[j], a+x)
				}
				continue
			}
			pk := b.pred[r : r+w]
			for j, x := range bk {
				if s := a + x; s < ci[j] {
					ci[j] = s
					pi[j] = pk[j]
				}
			}
		}
	}
}

// minPlus4 sets c[j] = min(c[j], a0+b0[j], …, a3+b3[j]).
func minPlus4[T number](c, b0, b1, b2, b3 []T, a0, a1, a2, a3 T) {
	b0, b1, b2, b3 = b0[:len(c)], b1[:len(c)], b2[:len(c)], b3[:len(c)]
	for j := range c {
		c[j] = min(c[j], a0+b0[j], a1+b1[j], a2+b2[j], a3+b3[j])
	}
}

// minPlus4Pred is minPlus4 that also sets pc[j] to the predecessor that
// came with the first strictly better sum.
func minPlus4Pred[T number](c []T, pc []int32, b0, b1, b2, b3 []T, p0, p1, p2, p3 []int32, a0, a1, a2, a3 T) {
	b0, b1, b2, b3 = b0[:len(c)], b1[:len(c)], b2[:len(c)], b3[:len(c)]
	p0, p1, p2, p3 = p0[:len(c)], p1[:len(c)], p2[:len(c)], p3[:len(c)]
	pc = pc[:len(c)]
	for j := range c {
		s0, s1, s2, s3 := a0+b0[j], a1+b1[j], a2+b2[j], a3+b3[j]
		m := min(s0, s1, s2, s3)
		if m >= c[j] {
			continue
		}
		c[j] = m
		switch m {
		case s0:
			pc[j] = p0[j]
		case s1:
			pc[j] = p1[j]
		case s2:
			pc[j] = p2[j]
		default:
			pc[j] = p3[j]
		}
	}
}

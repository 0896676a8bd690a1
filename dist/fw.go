// Package dist runs fw-fast, pathnotes' Floyd-Warshall, over many GPUs
// and hosts: one process a GPU (a rank), started by a cluster's launcher
// (`pathnotes apsp`), the ranks on a P×Q grid, the matrix cut into
// fw-fast's 128×128 tiles and dealt 2-D block-cyclically (tile (I, J) to
// rank (I mod P, J mod Q)), the pivot panels of each round broadcast along
// the process rows and down the process columns through a comm.Transport
// (NCCL, or TCP), and the result left where it was computed: each rank
// writes its tiles, rank 0 a manifest last (graph.OpenAllPairs reads it
// back). docs/scale-out.md describes the rounds, what they send and the
// model of their time.
//
// The results are fw-fast's, cell for cell: the same kernels (mp_prod in
// ptx/fwfast.cu) relax the same tiles through the same pivots in the same
// order, so the distances and Π are equal. A negative cycle is reported as
// the same *graph.NegativeCycleError on every rank.
package dist

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/pathnotes/pathnotes/dist/comm"
	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/gpu/cells"
	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/ptx"
)

// Solver is the Solver name of the distributed results.
const Solver = "fw-fast-2d"

// Tile is the side of fw-fast's tiles, the unit of the distribution.
const Tile = 128

// Grid is a P×Q process grid: rank (p, q) is number p·Q + q.
type Grid struct{ P, Q int }

// Ranks returns P·Q.
func (g Grid) Ranks() int { return g.P * g.Q }

// String formats the grid as "PxQ".
func (g Grid) String() string { return fmt.Sprintf("%dx%d", g.P, g.Q) }

// Config is one rank's run.
type Config struct {
	Grid      Grid
	Pred      bool
	Device    *gpu.Device
	Control   *comm.Control
	Transport comm.Transport
	// Progress, if set, is called after each round with the rounds done
	// and their number.
	Progress func(done, rounds int)
}

// Part is one rank's share of the result: its tiles of the distances (and
// of Π), as graph.TiledFile lays them out, with what the run cost.
type Part struct {
	N          int
	Grid       Grid
	P, Q       int // the rank's place in the grid
	Rows, Cols int
	Dist, Pred []int32 // Rows×Cols, row-major; Pred nil without predecessors
	Labels     []string
	// Traffic is what this rank's broadcasts carried in each round (the
	// panels of pivot K, whichever round sent them): bytes sent as a
	// root, once per broadcast, and received.
	Sent, Received []int64
	// Setup is the time to build and upload the tiles; Rounds the time
	// from the first round's start (all ranks together) to the last
	// one's end on this rank; Download the copy back.
	Setup, Rounds, Download time.Duration
	Kernels                 string // the kernel set ("dist", "pack", "gen", "genpred")
}

// kernelMode is one of fw-fast's kernel sets and its internal infinity
// (ptx/fwfast.cu explains them).
type kernelMode struct {
	suffix string
	module string // ptx.FWFast, or ptx.FWFastGen for the general kernels
	inf    int32
}

// pickMode chooses fw-fast's kernels for g as fw-fast does: without
// negative arcs the fast ones, distances only or with Π packed, as long as
// every finite distance stays below their infinity ((n−1)·the largest
// weight); otherwise the general ones.
func pickMode(g *graph.Graph, pred bool) kernelMode {
	lo, hi := g.WeightRange()
	bound := int64(max(g.N()-1, 0)) * int64(max(hi, 0))
	switch {
	case lo < 0:
	case !pred && bound < int64(graph.MaxDistance):
		return kernelMode{"dist", ptx.FWFast, graph.MaxDistance}
	case pred && bound < 1<<22-1:
		return kernelMode{"pack", ptx.FWFast, 1<<22 - 1}
	}
	if pred {
		return kernelMode{"genpred", ptx.FWFastGen, graph.Inf}
	}
	return kernelMode{"gen", ptx.FWFastGen, graph.Inf}
}

// checkGraph refuses what fw-fast refuses: a nil graph, and weights whose
// paths could leave the int32 kernels' range.
func checkGraph(g *graph.Graph) error {
	if g == nil {
		return errors.New("dist: nil graph")
	}
	lo, hi := g.WeightRange()
	maxAbs := max(-int64(lo), int64(hi))
	if bound := int64(g.N()) * maxAbs; bound > int64(graph.MaxDistance) {
		return fmt.Errorf("dist: weights up to |%d| on %d vertices allow paths of weight up to %d, beyond the int32 kernels' range ±%d",
			maxAbs, g.N(), bound, graph.MaxDistance)
	}
	return nil
}

// rank is one rank's run.
type rank struct {
	Config
	ctx        context.Context
	n, nb      int
	p, q       int
	mI, mJ     int // local tile rows and columns
	lr, lc     int // local padded rows and columns (mI·Tile, mJ·Tile)
	mode       kernelMode
	phase1     *cells.Kernel
	update     *cells.Kernel
	copyK      *cells.Kernel
	d, dp      *cells.Buffer // the local matrix (and Π)
	diag, diaP *cells.Buffer
	row, rowP  [2][2]*cells.Buffer // [slot][gap]: the pivot row's tiles, without the pivot tile when gap
	col        [2][2]*cells.Buffer // [slot][gap]: the pivot column's
	rowG, colG comm.Group
	buffers    []*cells.Buffer
	sent, recv []int64
}

// FloydWarshall runs this rank's part of 2-D block-cyclic fw-fast on g
// (which every rank holds) and returns its tiles. Every rank of the grid
// must call it at once with the same graph, grid and predecessor choice.
// Round K of ⌈n/128⌉ runs, on every rank at once:
//
//  1. the owner of the diagonal tile (K, K), rank (K mod P, K mod Q),
//     closes it (ff_phase1) and broadcasts it along its process row and
//     down its process column;
//  2. the ranks of that row update their tiles of pivot row K with it and
//     broadcast them down their columns; the ranks of that column update
//     their tiles of pivot column K and broadcast them along their rows
//     (each panel without the pivot tile, which its receivers have);
//  3. every rank relaxes each of its other tiles (I, J) through the
//     received column tile (I, K) and row tile (K, J) (ff_dist_update).
//
// With look-ahead: in round K, the ranks that hold tiles of row and
// column K+1 update those first, then steps 1 and 2 of round K+1 run and
// their broadcasts travel while every rank does step 3 of round K. The
// diagonal tile and the row panel carry Π with predecessors; the column
// panel carries distances only.
func FloydWarshall(ctx context.Context, g *graph.Graph, cfg Config) (*Part, error) {
	if err := checkGraph(g); err != nil {
		return nil, err
	}
	if cfg.Grid.P < 1 || cfg.Grid.Q < 1 || cfg.Grid.Ranks() != cfg.Control.Size() {
		return nil, fmt.Errorf("dist: grid %s for %d ranks", cfg.Grid, cfg.Control.Size())
	}
	id := cfg.Control.Rank()
	r := &rank{Config: cfg, ctx: ctx, n: g.N(), p: id / cfg.Grid.Q, q: id % cfg.Grid.Q, mode: pickMode(g, cfg.Pred)}
	r.nb = (r.n + Tile - 1) / Tile
	r.mI, r.mJ = tilesOf(r.nb, cfg.Grid.P, r.p), tilesOf(r.nb, cfg.Grid.Q, r.q)
	r.lr, r.lc = r.mI*Tile, r.mJ*Tile
	r.sent, r.recv = make([]int64, r.nb), make([]int64, r.nb)
	defer r.free()
	part := &Part{N: r.n, Grid: cfg.Grid, P: r.p, Q: r.q, Labels: slices.Clone(g.Labels()), Kernels: r.mode.suffix,
		Rows: graph.TileShare(r.n, Tile, cfg.Grid.P, r.p), Cols: graph.TileShare(r.n, Tile, cfg.Grid.Q, r.q)}
	start := time.Now()
	if err := r.setup(g); err != nil {
		return nil, r.fail(err)
	}
	part.Setup = time.Since(start)
	// Every rank starts the rounds at once, so that Rounds measures the
	// run and not the slowest rank's setup.
	if _, err := cfg.Control.AllGather(ctx, nil); err != nil {
		return nil, err
	}
	start = time.Now()
	if err := r.rounds(); err != nil {
		return nil, r.fail(err)
	}
	part.Rounds = time.Since(start)
	start = time.Now()
	var err error
	if part.Dist, part.Pred, err = r.download(part.Rows, part.Cols); err != nil {
		return nil, r.fail(err)
	}
	part.Download = time.Since(start)
	part.Sent, part.Received = r.sent, r.recv
	// A negative cycle shows on the diagonal of some rank's tiles: the
	// ranks agree on the least such vertex, and each reports the same
	// cycle, found on the graph.
	neg := r.negativeVertex(part)
	all, err := cfg.Control.AllGather(ctx, binary.LittleEndian.AppendUint64(nil, uint64(neg)))
	if err != nil {
		return nil, err
	}
	least := int64(math.MaxInt64)
	for _, b := range all {
		least = min(least, int64(binary.LittleEndian.Uint64(b)))
	}
	if least != math.MaxInt64 {
		return nil, negativeCycle(ctx, g, int(least))
	}
	if err := checkRange(part); err != nil {
		return nil, err
	}
	return part, nil
}

// fail stops the run on every rank for err, unless it stopped already,
// and returns the run's stop (or err, when ctx ended). The transport is
// aborted first, so that the buffers can be freed without waiting for
// broadcasts that will never end.
func (r *rank) fail(err error) error {
	r.Transport.Abort()
	if e := r.Control.Err(); e != nil {
		return e
	}
	if r.ctx.Err() != nil {
		r.Control.Abort("interrupted")
		return fmt.Errorf("dist: rank %d: %w", r.Control.Rank(), context.Cause(r.ctx))
	}
	r.Control.Abort(err.Error())
	return err
}

// tilesOf returns how many of nb tile indices t have t mod parts = i.
func tilesOf(nb, parts, i int) int {
	if i >= nb {
		return 0
	}
	return (nb - i + parts - 1) / parts
}

// negativeCycle returns the error of a negative cycle that the diagonal
// shows at vertex hint: the cycle as the graph has it (graph.
// FindNegativeCycle), or only the vertex when none is found in time.
func negativeCycle(ctx context.Context, g *graph.Graph, hint int) error {
	if cycle := graph.FindNegativeCycle(ctx, g, nil); cycle != nil {
		return &graph.NegativeCycleError{Vertex: cycle[0], Cycle: cycle, Weight: g.CycleWeight(cycle), Labels: slices.Clone(g.Labels())}
	}
	return &graph.NegativeCycleError{Vertex: hint, Labels: slices.Clone(g.Labels())}
}

// negativeVertex returns the least vertex v with D[v][v] < 0 among the
// rank's tiles, or math.MaxInt64.
func (r *rank) negativeVertex(part *Part) int64 {
	v := int64(math.MaxInt64)
	for I := r.p; I < r.nb; I += r.Grid.P {
		if I%r.Grid.Q != r.q {
			continue
		}
		li, lj := I/r.Grid.P, I/r.Grid.Q
		for i := range min(Tile, r.n-I*Tile) {
			if part.Dist[(li*Tile+i)*part.Cols+lj*Tile+i] < 0 {
				return min(v, int64(I*Tile+i))
			}
		}
	}
	return v
}

// checkRange makes sure every distance is graph.Inf or within
// ±graph.MaxDistance: anything else is a kernel fault.
func checkRange(part *Part) error {
	for c, d := range part.Dist {
		if d != graph.Inf && (d > graph.MaxDistance || d < -graph.MaxDistance) {
			return fmt.Errorf("dist: internal error: rank (%d, %d)'s local cell (%d, %d) = %d is beyond ±%d",
				part.P, part.Q, c/part.Cols, c%part.Cols, d, graph.MaxDistance)
		}
	}
	return nil
}

// alloc allocates a buffer of n int32 values and keeps it for free.
func (r *rank) alloc(n int, what string) (*cells.Buffer, error) {
	b, err := cells.NewBuffer(r.Device, cells.Int32, n)
	if err != nil {
		return nil, fmt.Errorf("dist: rank (%d, %d): %s: %w", r.p, r.q, what, err)
	}
	r.buffers = append(r.buffers, b)
	return b, nil
}

// free releases the rank's device buffers.
func (r *rank) free() {
	for _, b := range r.buffers {
		_ = b.Free()
	}
	r.buffers = nil
}

// setup loads the kernels, builds the rank's tiles of the weight matrix
// (and of Π⁰) on the host, uploads them, allocates the panel buffers and
// makes the row and column groups.
func (r *rank) setup(g *graph.Graph) error {
	// The mode's kernels, and ff_dist_copy, which fwfast.ptx holds; each
	// module loaded once.
	var err error
	mods := map[string]*cells.Module{}
	for _, k := range []struct {
		dst          **cells.Kernel
		module, name string
	}{
		{&r.phase1, r.mode.module, "ff_phase1_" + r.mode.suffix},
		{&r.update, r.mode.module, "ff_dist_update_" + r.mode.suffix},
		{&r.copyK, ptx.FWFast, "ff_dist_copy"},
	} {
		mod := mods[k.module]
		if mod == nil {
			text, err := ptx.PTX(k.module)
			if err != nil {
				return err
			}
			if mod, err = cells.LoadPTX(r.Device, k.module, text); err != nil {
				return err
			}
			mods[k.module] = mod
		}
		if *k.dst, err = mod.Kernel(k.name); err != nil {
			return err
		}
	}
	d, dp := r.localMatrix(g)
	if r.d, err = r.alloc(len(d), fmt.Sprintf("its %d×%d tiles", r.lr, r.lc)); err != nil {
		return err
	}
	if err := r.d.CopyInt32s(d); err != nil {
		return err
	}
	d = nil
	if r.Pred {
		if r.dp, err = r.alloc(len(dp), fmt.Sprintf("the predecessors of its %d×%d tiles", r.lr, r.lc)); err != nil {
			return err
		}
		if err := r.dp.CopyInt32s(dp); err != nil {
			return err
		}
		dp = nil
	}
	runtime.GC() // the host copies are gone: give their memory back before the result's
	if r.diag, err = r.alloc(Tile*Tile, "the diagonal tile"); err != nil {
		return err
	}
	if r.Pred {
		if r.diaP, err = r.alloc(Tile*Tile, "the diagonal tile's predecessors"); err != nil {
			return err
		}
	}
	for slot := range 2 {
		for gap := range 2 {
			w, h := max(r.lc-gap*Tile, 0), max(r.lr-gap*Tile, 0)
			if r.row[slot][gap], err = r.alloc(Tile*w, "a row panel"); err != nil {
				return err
			}
			if r.Pred {
				if r.rowP[slot][gap], err = r.alloc(Tile*w, "a row panel's predecessors"); err != nil {
					return err
				}
			}
			if r.col[slot][gap], err = r.alloc(h*Tile, "a column panel"); err != nil {
				return err
			}
		}
	}
	P, Q := r.Grid.P, r.Grid.Q
	rowMembers, colMembers := make([]int, Q), make([]int, P)
	for q := range Q {
		rowMembers[q] = r.p*Q + q
	}
	for p := range P {
		colMembers[p] = p*Q + r.q
	}
	if r.rowG, err = r.Transport.Group(r.ctx, rowMembers); err != nil {
		return err
	}
	r.colG, err = r.Transport.Group(r.ctx, colMembers)
	return err
}

// localMatrix builds the rank's tiles of the weight matrix as fw-fast's
// starts it (graph.Dense's values, the mode's infinity for no arc and in
// the padding), and of Π⁰ (u where there is an arc u → v, v ≠ u; Nil
// elsewhere) when predecessors are asked for.
func (r *rank) localMatrix(g *graph.Graph) (d, dp []int32) {
	P, Q := r.Grid.P, r.Grid.Q
	d = make([]int32, r.lr*r.lc)
	for i := range d {
		d[i] = r.mode.inf
	}
	if r.Pred {
		dp = make([]int32, r.lr*r.lc)
		for i := range dp {
			dp[i] = graph.Nil
		}
	}
	// col maps a global column to its local one, or -1.
	col := func(v int) int {
		J := v / Tile
		if J%Q != r.q {
			return -1
		}
		return J/Q*Tile + v%Tile
	}
	for li := range r.mI {
		I := li*P + r.p
		for i := range min(Tile, r.n-I*Tile) {
			u := I*Tile + i
			row := d[(li*Tile+i)*r.lc : (li*Tile+i+1)*r.lc]
			if c := col(u); c >= 0 {
				row[c] = 0
			}
			ts, ws := g.Out(u)
			for k, t := range ts {
				c := col(int(t))
				if c < 0 || ws[k] >= row[c] {
					continue
				}
				row[c] = ws[k]
				if dp != nil && int(t) != u {
					dp[(li*Tile+i)*r.lc+c] = int32(u)
				}
			}
		}
	}
	return d, dp
}

// download copies the local matrix back, cut to rows × cols (the
// padding, which only the last tile has, dropped) with the mode's
// infinity turned back into graph.Inf.
func (r *rank) download(rows, cols int) (d, dp []int32, err error) {
	crop := func(b *cells.Buffer, inf int32) ([]int32, error) {
		v, err := b.ToInt32s()
		if err != nil {
			return nil, err
		}
		for i := range rows {
			copy(v[i*cols:(i+1)*cols], v[i*r.lc:i*r.lc+cols]) // forward: i·cols ≤ i·lc
		}
		v = v[: rows*cols : rows*cols]
		if inf != graph.Inf {
			for i, x := range v {
				if x >= inf {
					v[i] = graph.Inf
				}
			}
		}
		return v, nil
	}
	if d, err = crop(r.d, r.mode.inf); err != nil || !r.Pred {
		return d, nil, err
	}
	dp, err = crop(r.dp, graph.Inf)
	return d, dp, err
}

// at returns the address of local cell (i, j) of b, whose rows are ld
// values long.
func at(b *cells.Buffer, i, j, ld int) gpu.DevicePtr {
	if b == nil {
		return 0
	}
	return b.Ptr() + gpu.DevicePtr(4*(i*ld+j))
}

// inRow and inCol report whether the rank holds tiles of pivot row (column) K.
func (r *rank) inRow(K int) bool { return K < r.nb && r.p == K%r.Grid.P }
func (r *rank) inCol(K int) bool { return K < r.nb && r.q == K%r.Grid.Q }

// b2i is 1 for true.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ifElse returns a when c holds, else −1.
func ifElse(c bool, a int) int {
	if c {
		return a
	}
	return -1
}

// mp launches ff_dist_update on a grid of gx × gy tiles (see
// ptx/fwfast.cu: C at c, A's column of tiles at a, B's row at b).
func (r *rank) mp(gx, gy int, c, cp gpu.DevicePtr, ldc int, a gpu.DevicePtr, lda, agap int,
	b, bp gpu.DevicePtr, ldb, bgap, sy0, sy1, sx0, sx1 int) error {
	if gx == 0 || gy == 0 {
		return nil
	}
	return r.update.LaunchAsync(gpu.Dim(gx, gy), gpu.Dim(256), ldc, c, cp, lda, a, agap, ldb, b, bp, bgap, sy0, sy1, sx0, sx1)
}

// copyBlock launches ff_dist_copy: rows × cols values from src (rows lds
// long) to dst (rows ldd long).
func (r *rank) copyBlock(rows, cols int, src gpu.DevicePtr, lds int, dst gpu.DevicePtr, ldd int) error {
	if rows == 0 || cols == 0 {
		return nil
	}
	gx := min((cols/4+255)/256, 64)
	return r.copyK.LaunchAsync(gpu.Dim(gx, min(rows, 1024)), gpu.Dim(256), rows, cols, lds, src, ldd, dst)
}

// broadcast broadcasts buf in group g from member root, counting it for
// pivot K; a buffer of nothing, or a group of one, moves nothing.
func (r *rank) broadcast(K int, g comm.Group, buf *cells.Buffer, values, root int) error {
	if buf == nil || values == 0 || g.Size() == 1 {
		return nil
	}
	if err := g.Broadcast(r.ctx, buf, root); err != nil {
		return err
	}
	if g.Rank() == root {
		r.sent[K] += int64(values) * 4
	} else {
		r.recv[K] += int64(values) * 4
	}
	return nil
}

// pivot runs steps 1 and 2 of round K: the diagonal tile closed and
// broadcast, the pivot row and column updated with it and broadcast into
// slot K mod 2. The tiles of row and column K must hold round K−1's
// values.
func (r *rank) pivot(K int) error {
	P, Q, lc := r.Grid.P, r.Grid.Q, r.lc
	inR, inC := r.inRow(K), r.inCol(K)
	li, lj := K/P, K/Q
	if inR && inC {
		// ff_phase1 is one block of 256 threads (ptx/fwfast.cu).
		if err := r.phase1.LaunchAsync(gpu.Dim(1), gpu.Dim(256), lc, 0, at(r.d, li*Tile, lj*Tile, lc), at(r.dp, li*Tile, lj*Tile, lc)); err != nil {
			return err
		}
		if err := r.copyBlock(Tile, Tile, at(r.d, li*Tile, lj*Tile, lc), lc, r.diag.Ptr(), Tile); err != nil {
			return err
		}
		if r.Pred {
			if err := r.copyBlock(Tile, Tile, at(r.dp, li*Tile, lj*Tile, lc), lc, r.diaP.Ptr(), Tile); err != nil {
				return err
			}
		}
	}
	for _, g := range []struct {
		on   bool
		grp  comm.Group
		root int
	}{{inR, r.rowG, K % Q}, {inC, r.colG, K % P}} {
		if !g.on {
			continue
		}
		if err := r.broadcast(K, g.grp, r.diag, Tile*Tile, g.root); err != nil {
			return err
		}
		if err := r.broadcast(K, g.grp, r.diaP, Tile*Tile, g.root); err != nil {
			return err
		}
	}
	if inR || inC {
		if err := r.Transport.Join(); err != nil {
			return err
		}
	}
	slot := K % 2
	rowBuf, rowBufP := r.row[slot][b2i(inC)], r.rowP[slot][b2i(inC)]
	colBuf := r.col[slot][b2i(inR)]
	w, h := r.lc-b2i(inC)*Tile, r.lr-b2i(inR)*Tile
	if inR {
		// The pivot row: C = B = its tiles, A = the diagonal tile.
		c, cp := at(r.d, li*Tile, 0, lc), at(r.dp, li*Tile, 0, lc)
		if err := r.mp(r.mJ, 1, c, cp, lc, r.diag.Ptr(), Tile, -1, c, cp, lc, -1, -1, -1, ifElse(inC, lj), -1); err != nil {
			return err
		}
		if err := r.pack(li*Tile, Tile, 0, lc, ifElse(inC, lj*Tile), rowBuf, r.d); err != nil {
			return err
		}
		if r.Pred {
			if err := r.pack(li*Tile, Tile, 0, lc, ifElse(inC, lj*Tile), rowBufP, r.dp); err != nil {
				return err
			}
		}
	}
	if inC {
		// The pivot column: C = A = its tiles, B = the diagonal tile.
		c, cp := at(r.d, 0, lj*Tile, lc), at(r.dp, 0, lj*Tile, lc)
		if err := r.mp(1, r.mI, c, cp, lc, c, lc, -1, r.diag.Ptr(), at(r.diaP, 0, 0, 0), Tile, -1, ifElse(inR, li), -1, -1, -1); err != nil {
			return err
		}
		if err := r.packCol(lj*Tile, ifElse(inR, li*Tile), colBuf); err != nil {
			return err
		}
	}
	if err := r.broadcast(K, r.colG, rowBuf, Tile*w, K%P); err != nil {
		return err
	}
	if err := r.broadcast(K, r.colG, rowBufP, Tile*w, K%P); err != nil {
		return err
	}
	return r.broadcast(K, r.rowG, colBuf, h*Tile, K%Q)
}

// pack copies rows row0 .. row0+rows−1 of src's local matrix, columns
// 0 .. lc−1 less the tile at column gap (−1: none), into dst.
func (r *rank) pack(row0, rows, _ int, lc, gap int, dst, src *cells.Buffer) error {
	w := lc - b2i(gap >= 0)*Tile
	if gap < 0 {
		return r.copyBlock(rows, lc, at(src, row0, 0, lc), lc, dst.Ptr(), w)
	}
	if err := r.copyBlock(rows, gap, at(src, row0, 0, lc), lc, dst.Ptr(), w); err != nil {
		return err
	}
	return r.copyBlock(rows, lc-gap-Tile, at(src, row0, gap+Tile, lc), lc, at(dst, 0, gap, w), w)
}

// packCol copies the tiles of local column col0 .. col0+Tile−1, less the
// tile at row gap (−1: none), into dst (rows Tile long).
func (r *rank) packCol(col0, gap int, dst *cells.Buffer) error {
	src := func(i int) gpu.DevicePtr { return at(r.d, i, col0, r.lc) }
	if gap < 0 {
		return r.copyBlock(r.lr, Tile, src(0), r.lc, dst.Ptr(), Tile)
	}
	if err := r.copyBlock(gap, Tile, src(0), r.lc, dst.Ptr(), Tile); err != nil {
		return err
	}
	return r.copyBlock(r.lr-gap-Tile, Tile, src(gap+Tile), r.lc, at(dst, gap, 0, Tile), Tile)
}

// begin tells every rank, in the background, that this one has begun a
// round; the channel gives the exchange's error once every rank has said
// the same (an AllGather of the control plane, a message to rank 0 and
// back, hidden behind the round's work).
func (r *rank) begin() <-chan error {
	ch := make(chan error, 1)
	go func() {
		_, err := r.Control.AllGather(r.ctx, nil)
		ch <- err
	}()
	return ch
}

// roundHook, when set (by tests), is called on every rank after it
// queued each round.
var roundHook func(rank, round int)

// rounds runs the ⌈n/128⌉ rounds with look-ahead (see FloydWarshall).
func (r *rank) rounds() error {
	if r.nb == 0 {
		return nil
	}
	P, Q, lc := r.Grid.P, r.Grid.Q, r.lc
	if err := r.pivot(0); err != nil {
		return err
	}
	var began <-chan error
	for K := range r.nb {
		// One round in flight: the previous round's update and this
		// round's panels end before the host queues more. A stopped run
		// or an interrupt ends here, or in a broadcast.
		if err := r.Transport.Fence(r.ctx); err != nil {
			return err
		}
		if err := r.Transport.Join(); err != nil {
			return err
		}
		// No rank begins round K before every rank has begun round K-1,
		// so that a rank that dies stops the others within a round of
		// where it was, however late the news of its death comes: a
		// rank's panels may not be needed again for many rounds.
		if began != nil {
			if err := <-began; err != nil {
				return err
			}
		}
		began = r.begin()
		slot := K % 2
		inR, inC := r.inRow(K), r.inCol(K)
		A := r.col[slot][b2i(inR)]
		B, BP := r.row[slot][b2i(inC)], r.rowP[slot][b2i(inC)]
		agap, bgap := ifElse(inR, K/P), ifElse(inC, K/Q)
		ldb := lc - b2i(inC)*Tile
		sy0, sx0, sy1, sx1 := agap, bgap, -1, -1
		// aRow and bCol address A's tile for local tile row li and B's
		// for local tile column lj, past the gap.
		aRow := func(li int) gpu.DevicePtr { return at(A, (li-b2i(agap >= 0 && li > agap))*Tile, 0, Tile) }
		bCol := func(b *cells.Buffer, lj int) gpu.DevicePtr {
			return at(b, 0, (lj-b2i(bgap >= 0 && lj > bgap))*Tile, ldb)
		}
		if K+1 < r.nb {
			// Look-ahead: the tiles of row and column K+1 first.
			if r.inRow(K + 1) {
				li := (K + 1) / P
				sy1 = li
				c, cp := at(r.d, li*Tile, 0, lc), at(r.dp, li*Tile, 0, lc)
				if err := r.mp(r.mJ, 1, c, cp, lc, aRow(li), Tile, -1, B.Ptr(), at(BP, 0, 0, 0), ldb, bgap, -1, -1, sx0, -1); err != nil {
					return err
				}
			}
			if r.inCol(K + 1) {
				lj := (K + 1) / Q
				sx1 = lj
				c, cp := at(r.d, 0, lj*Tile, lc), at(r.dp, 0, lj*Tile, lc)
				if err := r.mp(1, r.mI, c, cp, lc, A.Ptr(), Tile, agap, bCol(B, lj), bCol(BP, lj), ldb, -1, sy0, sy1, -1, -1); err != nil {
					return err
				}
			}
			if err := r.pivot(K + 1); err != nil {
				return err
			}
		}
		if err := r.mp(r.mJ, r.mI, r.d.Ptr(), at(r.dp, 0, 0, 0), lc, A.Ptr(), Tile, agap, B.Ptr(), at(BP, 0, 0, 0), ldb, bgap, sy0, sy1, sx0, sx1); err != nil {
			return err
		}
		if r.Progress != nil {
			r.Progress(K+1, r.nb)
		}
		if roundHook != nil {
			roundHook(r.Control.Rank(), K)
		}
	}
	if err := <-began; err != nil {
		return err
	}
	return r.Transport.Fence(r.ctx)
}

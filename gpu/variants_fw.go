package gpu

import (
	"context"
	"fmt"
	"slices"

	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/ptx"
)

// fwCompute runs one Floyd-Warshall variant's host loop on the device
// matrices d and p (p is a null buffer without predecessors).
type fwCompute func(r *run, n int, d, p buffer) error

// FWHN runs variant "fw-hn": Harish & Narayanan's Floyd-Warshall as
// [Karaula 2017] (§4.4, "CUDA v1") and [Bodra]
// (§2.3.1, "Super Naive") write it. The host loops over k and launches one
// kernel per k, 32×32 blocks on a ⌈n/32⌉² grid, one thread per cell in
// global memory. With opts.Pred the kernel keeps Karaula's Π
// (Π[i][j] ← Π[k][j] on a strict improvement); Bodra's parent = k, which
// loses the hops between, is not used.
//
// Negative arcs are allowed; a negative cycle is a *graph.NegativeCycleError.
func FWHN(ctx context.Context, g *graph.Graph, opts Options) (*graph.AllPairs, error) {
	return runFW(ctx, g, opts, VariantFWHN, 0, perPivot("fw_hn", func(n int) Dim3 { return Dim(tiles(n), tiles(n), 1) }, block2D))
}

// FWHNShared runs variant "fw-hn-shared", Bodra's "Super Naive Shared"
// ([Bodra] §2.3.2): one launch per k, 1-D blocks of 1024 threads on a
// (⌈n/1024⌉, n) grid, row i = blockIdx.y, with d[i][k] loaded once per block
// into shared memory and broadcast. Bodra's barrier sits inside the
// "j < V" branch, a divergent __syncthreads for the last block of a row
// when n is not a multiple of 1024; here every thread reaches it. Π as in
// FWHN. The grid's y extent limits n to the device's maximum grid height
// (65535 on current GPUs).
func FWHNShared(ctx context.Context, g *graph.Graph, opts Options) (*graph.AllPairs, error) {
	return runFW(ctx, g, opts, VariantFWHNShared, 0, perPivot("fw_hn_shared", func(n int) Dim3 { return Dim(ceilDiv(n, 1024), n, 1) }, block1024))
}

// FWRow runs variant "fw-row", Bodra's "Naive" ([Bodra] §2.3.3): one
// launch per k, one thread per row i (1024-thread blocks), each looping
// over every j. Its accesses are not coalesced (a warp's threads walk 32
// different rows), which is why the document finds it slowest. Π as in
// FWHN.
func FWRow(ctx context.Context, g *graph.Graph, opts Options) (*graph.AllPairs, error) {
	return runFW(ctx, g, opts, VariantFWRow, 0, perPivot("fw_row", func(n int) Dim3 { return grid1D(n, 1024) }, block1024))
}

// perPivot is the body of the variants that launch kernel once per pivot
// k, on grid(n) blocks of block, with the arguments (n, k, d, Π).
func perPivot(kernel string, grid func(n int) Dim3, block Dim3) func(r *run, n int, d, p buffer) error {
	return func(r *run, n int, d, p buffer) error {
		g := grid(n)
		for k := range n {
			if err := r.launch(ptx.FloydWarshall, kernel, g, block, 0, i32(n), i32(k), d.arg(), p.arg()); err != nil {
				return err
			}
			r.report(k+1, n)
		}
		return nil
	}
}

// FWTiledGlobal runs variant "fw-tiled-global", Bodra's "Tiled"
// ([Bodra] §2.3.4; the lab handout's task 2.2): the three-phase
// blocked algorithm on 32×32 tiles, working in global memory. For each
// primary tile r: phase 1 on a (1,1) grid, phase 2 on (nb,2) (the block on
// the primary tile exits), phase 3 on (nb,nb) (blocks in the primary row
// or column exit), nb = ⌈n/32⌉. Fixed here: Bodra's phase 1 has its
// __syncthreads between k steps commented out, a race inside the tile;
// the barrier is back, and phase 2 has one too. Bodra's parent = k is
// replaced by Karaula's Π.
func FWTiledGlobal(ctx context.Context, g *graph.Graph, opts Options) (*graph.AllPairs, error) {
	return runFW(ctx, g, opts, VariantFWTiledGlobal, 0, func(r *run, n int, d, p buffer) error {
		nb := tiles(n)
		for round := range nb {
			args := []uint64{i32(n), i32(round), d.arg(), p.arg()}
			if err := r.launch(ptx.FloydWarshall, "fw_tiled_global_phase1", Dim(1, 1, 1), block2D, 0, args...); err != nil {
				return err
			}
			if err := r.launch(ptx.FloydWarshall, "fw_tiled_global_phase2", Dim(nb, 2, 1), block2D, 0, args...); err != nil {
				return err
			}
			if err := r.launch(ptx.FloydWarshall, "fw_tiled_global_phase3", Dim(nb, nb, 1), block2D, 0, args...); err != nil {
				return err
			}
			r.report(min((round+1)*tile, n), n)
		}
		return nil
	})
}

// FWBlocked runs variant "fw-blocked": the Katz & Kider three-phase
// blocked Floyd-Warshall with shared-memory tiles as Karaula 2017 writes it
// ([Karaula 2017] §4.5, "CUDA v2"), the same design as Bodra's "Tiled with
// Shared Memory" ([Bodra] §2.3.5) and the lab handout's task 2.3.
// 32×32 tiles and blocks; per primary tile r: phase 1 on a (1,1) grid,
// phase 2 on (nb-1, 2) and phase 3 on (nb-1, nb-1), skipping the primary
// tile with Karaula's offset; phases 2 and 3 are skipped when nb = 1.
// Dynamic shared memory: one tile of distances per tile the phase keeps
// (1, 2, 2), plus one of predecessors each with opts.Pred (phase 3 keeps
// the current cell in a register instead of a third tile). Fixed here:
// Karaula loads the primary and the phase-3 tiles without a bounds guard,
// reading past the matrix when n is not a multiple of 32; every load is
// guarded and padded with INF. Π as in Karaula.
func FWBlocked(ctx context.Context, g *graph.Graph, opts Options) (*graph.AllPairs, error) {
	return runFW(ctx, g, opts, VariantFWBlocked, 0, func(r *run, n int, d, p buffer) error {
		nb := tiles(n)
		withPred := 0
		if p.ptr != 0 {
			withPred = 1
		}
		for round := range nb {
			args := []uint64{i32(n), i32(round), d.arg(), p.arg()}
			if err := r.launch(ptx.FloydWarshall, "fw_blocked_phase1", Dim(1, 1, 1), block2D, (1+withPred)*tileBytes, args...); err != nil {
				return err
			}
			if nb == 1 {
				r.report(n, n)
				break
			}
			if err := r.launch(ptx.FloydWarshall, "fw_blocked_phase2", Dim(nb-1, 2, 1), block2D, 2*(1+withPred)*tileBytes, args...); err != nil {
				return err
			}
			if err := r.launch(ptx.FloydWarshall, "fw_blocked_phase3", Dim(nb-1, nb-1, 1), block2D, (2+withPred)*tileBytes, args...); err != nil {
				return err
			}
			r.report(min((round+1)*tile, n), n)
		}
		return nil
	})
}

// FWGaioso runs variant "fw-gaioso", the two-kernel Floyd-Warshall of
// [Gaioso et al.] (§V, Algorithm 3). Per stage (primary tile r):
// phase 1 is a persistent kernel whose grid is the number of 32×32 blocks
// the GPU holds at once (SMs × resident blocks per SM, capped at the
// 2(nb-1) tiles there are to share); every block computes the primary tile
// itself in shared memory, then the blocks share out the tiles of the
// primary row and column; phase 2 updates the remaining tiles on an
// (nb,nb) grid. The primary tile is handed from phase 1 to phase 2 through
// a scratch tile (the paper's "a different SM stores the primary block"
// would race with blocks still reading it). The paper computes distances
// only; opts.Pred adds Karaula's Π.
func FWGaioso(ctx context.Context, g *graph.Graph, opts Options) (*graph.AllPairs, error) {
	return runFW(ctx, g, opts, VariantFWGaioso, 2*tile*tile, func(r *run, n int, d, p buffer) error {
		nb := tiles(n)
		withPred := 0
		if p.ptr != 0 {
			withPred = 1
		}
		primD, err := r.alloc(tile * tile)
		if err != nil {
			return err
		}
		primP := buffer{}
		if withPred == 1 {
			if primP, err = r.alloc(tile * tile); err != nil {
				return err
			}
		}
		shared1 := 2 * (1 + withPred) * tileBytes
		perSM, err := r.occupancy(ptx.FloydWarshall, "fw_gaioso_phase1", block2D.Threads(), shared1)
		if err != nil {
			return err
		}
		persistent := Dim(gaiosoBlocks(r.dev.info.SMs, perSM, nb), 1, 1)
		for round := range nb {
			if err := r.launch(ptx.FloydWarshall, "fw_gaioso_phase1", persistent, block2D, shared1,
				i32(n), i32(round), i32(nb), d.arg(), p.arg(), primD.arg(), primP.arg()); err != nil {
				return err
			}
			if err := r.launch(ptx.FloydWarshall, "fw_gaioso_phase2", Dim(nb, nb, 1), block2D, (2+withPred)*tileBytes,
				i32(n), i32(round), d.arg(), p.arg(), primD.arg(), primP.arg()); err != nil {
				return err
			}
			r.report(min((round+1)*tile, n), n)
		}
		return nil
	})
}

// gaiosoBlocks is the persistent phase-1 grid: every block the device can
// hold at once (sms × perSM), but no more than the 2(nb-1) row and column
// tiles to share out, and at least one.
func gaiosoBlocks(sms, perSM, nb int) int {
	return max(min(sms*max(perSM, 1), 2*(nb-1)), 1)
}

// runFW is the frame of every Floyd-Warshall variant: checks, device
// memory, W (and Π) in, the variant's host loop, D (and Π) out, and the
// negative-cycle check on the diagonal. extra is device memory (in int32
// values) the variant allocates besides the matrices.
func runFW(ctx context.Context, g *graph.Graph, opts Options, name string, extra int, compute fwCompute) (*graph.AllPairs, error) {
	r, err := start(ctx, g, name, true, opts)
	if err != nil {
		return nil, err
	}
	defer r.end()
	n := g.N()
	matrices := opts.matrices()
	cells := uint64(n) * uint64(n)
	if err := r.reserve((cells*uint64(matrices)+uint64(extra))*4, fmt.Sprintf("n=%d (%d int32 matrices)", n, matrices)); err != nil {
		return nil, err
	}
	if err := graph.CheckMatrixSize(n, matrices); err != nil {
		return nil, fmt.Errorf("%s: host memory: %w", name, err)
	}
	res := &graph.AllPairs{N: n, Dist: g.Dense(), Labels: slices.Clone(g.Labels()), Solver: name}
	d, err := r.upload(res.Dist)
	if err != nil {
		return nil, err
	}
	p := buffer{}
	if opts.Pred {
		res.Pred = initialPred(res.Dist, n)
		if p, err = r.upload(res.Pred); err != nil {
			return nil, err
		}
	}
	if n > 0 {
		if err := r.kernels(func() error { return compute(r, n, d, p) }); err != nil {
			return nil, err
		}
	}
	if err := r.download(res.Dist, d); err != nil {
		return nil, err
	}
	if opts.Pred {
		if err := r.download(res.Pred, p); err != nil {
			return nil, err
		}
	}
	return r.finishFW(g, res)
}

// finishFW ends every Floyd-Warshall variant once the matrices are back:
// checkFW, then the Π rows that the tiled orders left cycling round a
// zero-weight cycle (as the blocked CPU solver's can) are rebuilt.
func (r *run) finishFW(g *graph.Graph, res *graph.AllPairs) (*graph.AllPairs, error) {
	if err := r.checkFW(g, res); err != nil {
		return nil, err
	}
	res.RepairPredecessors(g)
	return res, nil
}

// finishFWFast is finishFW for fw-fast's results computed on the host's
// side (several cards, streamed): the rows are rebuilt only where a
// zero-weight cycle can exist (ffRepair), as for one card in memory.
func (r *run) finishFWFast(g *graph.Graph, res *graph.AllPairs) (*graph.AllPairs, error) {
	if err := r.checkFW(g, res); err != nil {
		return nil, err
	}
	r.ffRepair(g, res)
	return res, nil
}

// checkFW reports a negative diagonal entry of res as the negative cycle
// and a value no result may hold as an internal error.
func (r *run) checkFW(g *graph.Graph, res *graph.AllPairs) error {
	n := res.N
	for i := range n {
		if res.Dist[i*n+i] < 0 {
			return negativeCycle(r.ctx, g, nil, i)
		}
	}
	return checkResult(res.Dist, n, false, res.Solver)
}

// initialPred is Π⁰ of [Karaula 2017] §3.1: i where there is an arc i → j
// (i ≠ j), Nil on the diagonal and where there is none. w is the matrix
// from graph.Dense.
func initialPred(w []int32, n int) []int32 {
	p := make([]int32, len(w))
	for i := range n {
		for j := range n {
			p[i*n+j] = graph.Nil
			if i != j && w[i*n+j] != graph.Inf {
				p[i*n+j] = int32(i)
			}
		}
	}
	return p
}

// occupancy returns how many blocks of kernel name one SM runs at once,
// as the driver answered the device's first such query.
func (r *run) occupancy(mod, name string, threads, shared int) (int, error) {
	key := occupancyKey{mod + "." + name, threads, shared}
	if k, ok := r.dev.occupancy[key]; ok {
		return k, nil
	}
	f, err := r.dev.function(mod, name)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", r.what, err)
	}
	k, err := r.dev.ctx.MaxActiveBlocks(f, threads, shared)
	if err != nil {
		return 0, r.fail(err, "occupancy of %s", name)
	}
	if r.dev.occupancy == nil {
		r.dev.occupancy = map[occupancyKey]int{}
	}
	r.dev.occupancy[key] = k
	return k, nil
}

// occupancyKey names a kernel (module.name) and the block and dynamic
// shared memory that an occupancy is for.
type occupancyKey struct {
	kernel          string
	threads, shared int
}

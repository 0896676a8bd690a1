package gpu

import (
	"context"
	"fmt"
	"slices"

	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/ptx"
)

// csr is a graph's CSR arrays on the device, and the source of each arc
// where a kernel needs it (fw-fast's ff_tight; ff_arcs writes it).
type csr struct{ off, tgt, w, src buffer }

// uploadCSR copies g's offsets (n+1 of them, so that a vertex without
// out-arcs has an empty range), targets and weights to the device.
func (r *run) uploadCSR(g *graph.Graph) (csr, error) {
	var c csr
	var err error
	if c.off, err = r.upload(g.Offsets()); err != nil {
		return c, err
	}
	if c.tgt, err = r.upload(g.Targets()); err != nil {
		return c, err
	}
	c.w, err = r.upload(g.Weights())
	return c, err
}

// csrBytes is the device memory of g's CSR arrays.
func csrBytes(g *graph.Graph) uint64 { return uint64(g.N()+1+2*g.M()) * 4 }

// startSingle is the common beginning of the single-source variants: it
// checks the source, starts the run, reserves the CSR and vectors n+1
// int32 vectors, starts making the result's host memory (singleResult)
// and uploads the CSR, page-locked as pin says. On success the caller ends the run
// and releases the result's memory (hostResult.done; finishSingle does it
// on the way out).
func startSingle(ctx context.Context, g *graph.Graph, source int, opts Options, name string, negative bool, vectors int, pin csrPinning) (*run, csr, *hostResult, error) {
	if err := checkSource(g, source, name); err != nil {
		return nil, csr{}, nil, err
	}
	r, err := start(ctx, g, name, negative, opts)
	if err != nil {
		return nil, csr{}, nil, err
	}
	need := csrBytes(g) + uint64(vectors)*uint64(g.N()+1)*4
	if err := r.reserve(need, fmt.Sprintf("n=%d, m=%d", g.N(), g.M())); err != nil {
		r.end()
		return nil, csr{}, nil, err
	}
	out := r.singleResult(g.N(), opts.Pred)
	gr, err := r.uploadCSRFor(g, pin)
	if err != nil {
		out.done()
		r.end()
		return nil, csr{}, nil, err
	}
	return r, gr, out, nil
}

// finishSingle copies distances (and predecessors) back into a result, in
// out's memory. Before the copy, the device checks what the host would
// otherwise scan (ff_finish over the result as the source's row of an n×n
// matrix: a distance never written or beyond ±graph.MaxDistance, a
// predecessor outside Nil..n−1), and its flags come back with the result;
// the host looks at the values only to name a bad one.
func finishSingle(r *run, g *graph.Graph, source int, out *hostResult, dist, pred buffer, withPred bool) (*graph.SingleSource, error) {
	n := g.N()
	res := &graph.SingleSource{Source: source, Labels: slices.Clone(g.Labels()), Solver: r.what}
	mats := out.wait()
	res.Dist = mats[0]
	if !withPred {
		pred = buffer{}
	}
	flags, err := r.checkSingle(n, source, dist, pred)
	if err != nil {
		return nil, err
	}
	if err := r.fetch(out, 0, dist.ptr, n, 0, 1, 0); err != nil {
		return nil, err
	}
	if withPred {
		res.Pred = mats[1]
		if err := r.fetch(out, 1, pred.ptr, n, 0, 1, 0); err != nil {
			return nil, err
		}
	}
	if err := out.release(); err != nil {
		return nil, r.fail(err, "copying the result from the device")
	}
	f, err := flags()
	if err != nil {
		return nil, err
	}
	if f[0] != graph.Inf {
		if err := checkResult(res.Dist, n, true, r.what); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%s: internal error: ff_finish flagged the distances, which hold no bad value", r.what)
	}
	if f[2] != graph.Inf {
		for v, p := range res.Pred {
			if p < graph.Nil || p >= int32(n) {
				return nil, fmt.Errorf("%s: internal error: pred[%d] = %d is a value no result may hold", r.what, v, p)
			}
		}
		return nil, fmt.Errorf("%s: internal error: ff_finish flagged the predecessors, which hold no bad value", r.what)
	}
	return res, nil
}

// checkSingle queues ff_finish over a single-source result of n values
// (dist, and pred unless empty) on the default stream, and the read of
// its flags into page-locked memory behind it; the returned function
// gives the flags once a later copy on that stream has ended (or, without
// page-locked flags, reads them itself).
func (r *run) checkSingle(n, source int, dist, pred buffer) (func() ([3]int32, error), error) {
	none := func() ([3]int32, error) { return [3]int32{graph.Inf, graph.Inf, graph.Inf}, nil }
	if n == 0 {
		return none, nil
	}
	flags, err := r.alloc(3)
	if err != nil {
		return nil, err
	}
	if err := r.fill(flags, graph.Inf); err != nil {
		return nil, err
	}
	// The result as row `source` of an n×n matrix: addresses that ff_finish
	// offsets by source·n again.
	at := func(b buffer) buffer {
		if b.n == 0 {
			return b
		}
		return buffer{b.ptr - DevicePtr(source)*DevicePtr(n)*4, b.n}
	}
	if err := r.ffCheck(n, n, source, source+1, ffGen, at(dist), at(pred), flags, 0); err != nil {
		return nil, err
	}
	hf, _ := r.dev.hostFlags()
	if hf == nil {
		return func() ([3]int32, error) {
			var f [3]int32
			return f, r.readInts(f[:], flags)
		}, nil
	}
	if err := r.dev.ctx.CopyOutAsync(asBytes(hf[:3]), flags.ptr, 0); err != nil {
		return nil, r.fail(err, "reading the flags back (after kernel %s)", r.last)
	}
	return func() ([3]int32, error) { return [3]int32(hf[:3]), nil }, nil
}

// DijkstraMartin runs variant "dijkstra-martin": the parallel Dijkstra of
// Martín et al. as Musap 2016 implements it ([Musap 2016] §2.7-2.8,
// Algorithm 2). One thread per vertex, 512 per block; each while-iteration
// launches relax (the frontier pushes along its out-arcs with atomicMin),
// minimum (a block-wise reduction of the unsettled distances; the host
// reads the partial minima and takes theirs) and update (every unsettled
// vertex at that minimum is settled and becomes the frontier, ties
// together), until the minimum is INF.
//
// Fixed here: the reduction's last warp synchronises with __syncwarp
// (Musap's warp-synchronous tail races on Volta and later); update skips
// settled vertices; the host buffer of partial minima is allocated once
// (Musap's loop allocates one per iteration and never frees it); the CSR
// has n+1 offsets, so vertices without out-arcs need no special case. With
// opts.Pred, predecessors (Musap computes none) are chosen after the run
// among tight arcs from vertices settled in earlier iterations, which is
// always possible and never cycles, zero-weight arcs included. Weights
// must be non-negative; ctx is checked between launches.
func DijkstraMartin(ctx context.Context, g *graph.Graph, source int, opts Options) (*graph.SingleSource, error) {
	const name = VariantDijkstraMartin
	r, gr, out, err := startSingle(ctx, g, source, opts, name, false, 5, pinNever)
	if err != nil {
		return nil, err
	}
	defer r.end()
	defer out.done()
	n := g.N()
	var c, f, u, round, pred buffer
	for _, b := range []*buffer{&c, &f, &u, &round} {
		if *b, err = r.alloc(n); err != nil {
			return nil, err
		}
	}
	grid := grid1D(n, block512.X)
	partial, err := r.alloc(grid.X)
	if err != nil {
		return nil, err
	}
	mins := make([]int32, grid.X)
	if opts.Pred {
		if pred, err = r.alloc(n); err != nil {
			return nil, err
		}
	}
	err = r.kernels(func() error {
		if err := r.launch(ptx.Dijkstra, "dm_init", grid, block512, 0, i32(n), i32(source), c.arg(), f.arg(), u.arg(), round.arg()); err != nil {
			return err
		}
		for iter := 1; ; iter++ {
			if err := r.launch(ptx.Dijkstra, "dm_relax", grid, block512, 0, i32(n), gr.off.arg(), gr.tgt.arg(), gr.w.arg(), c.arg(), f.arg(), u.arg()); err != nil {
				return err
			}
			if err := r.launch(ptx.Dijkstra, "dm_minimum", grid, block512, block512.X*4, i32(n), c.arg(), u.arg(), partial.arg()); err != nil {
				return err
			}
			if err := r.readInts(mins, partial); err != nil {
				return err
			}
			mssp := slices.Min(mins)
			if mssp == graph.Inf {
				break
			}
			if err := r.launch(ptx.Dijkstra, "dm_update", grid, block512, 0, i32(n), c.arg(), f.arg(), u.arg(), i32(int(mssp)), round.arg(), i32(iter)); err != nil {
				return err
			}
		}
		if !opts.Pred {
			return nil
		}
		if err := r.fill(pred, graph.Nil); err != nil {
			return err
		}
		return r.launch(ptx.Dijkstra, "dm_pred", grid, block512, 0, i32(n), gr.off.arg(), gr.tgt.arg(), gr.w.arg(), c.arg(), round.arg(), pred.arg())
	})
	if err != nil {
		return nil, err
	}
	return finishSingle(r, g, source, out, c, pred, opts.Pred)
}

// bfKernels names one Bellman-Ford variant's kernels and grid.
type bfKernels struct {
	name, relax, update string
	grid                func(n int) Dim3
	flag                bool // the relax and update kernels take the flag array
	// nonNegative refuses negative arcs and early stops at the first pass
	// that changes nothing whatever opts.EarlyExit says (sssp-fast's use).
	nonNegative, early bool
	// check is how many passes run between two reads of the changed word
	// when stopping early (0 or 1: every pass; sssp-fast's flagCheck, see
	// ssspEnv). The word then says whether any of them changed anything,
	// and a run stops up to check-1 passes after the first that changed
	// nothing: those passes change nothing either.
	check int
	pin   csrPinning // when the CSR is page-locked (sssp-fast's, see ssspEnv)
}

// BFNaive runs variant "bf-naive", Bodra's naive Bellman-Ford ([Bodra]
// §2.1.1): per pass a relax launch (thread i relaxes vertex i's out-arcs
// from the previous pass's distances, lowering targets with atomicMin) and
// an update launch (copying the new distances over the old), one thread
// per vertex on 1024-thread blocks, n-1 passes (or fewer with
// opts.EarlyExit). See BFFlag for what all three variants fix and add.
func BFNaive(ctx context.Context, g *graph.Graph, source int, opts Options) (*graph.SingleSource, error) {
	return runBF(ctx, g, source, opts, bfKernels{name: VariantBFNaive, relax: "bf_relax_naive", update: "bf_update_naive",
		grid: func(n int) Dim3 { return grid1D(n, 1024) }})
}

// BFStride runs variant "bf-stride", Bodra's grid-stride Bellman-Ford
// ([Bodra] §2.1.2): as bf-naive, but with grid-stride loops on half as
// many blocks. Bodra's block count ((V-1)/1024+1)/2 is 0, an invalid
// launch, for V ≤ 1024; it is at least 1 here. See BFFlag.
func BFStride(ctx context.Context, g *graph.Graph, source int, opts Options) (*graph.SingleSource, error) {
	return runBF(ctx, g, source, opts, bfKernels{name: VariantBFStride, relax: "bf_relax_stride", update: "bf_update_stride", grid: strideGrid})
}

// BFFlag runs variant "bf-flag", Bodra's "Stride with Flag" ([Bodra]
// §2.1.3, after Agarwal & Dutta): the stride loops, but only vertices
// whose distance changed in the previous pass relax their out-arcs.
//
// What all three Bellman-Ford variants fix and add: the block count is at
// least 1; the CSR has n+1 offsets, so vertices without out-arcs are
// handled; after the n-1 passes one more pass checks for a negative cycle
// reachable from the source (any change then proves one), reported as a
// *graph.NegativeCycleError with the cycle; with opts.EarlyExit the passes
// stop as soon as one changes nothing (Bodra always runs n-1). With
// opts.Pred, predecessors are computed after the passes like Bodra's
// parent kernel, from tight arcs (d[u] + w = d[v]), but only from vertices
// that reached their final distance in an earlier pass: Bodra's
// last-writer-wins choice can close a cycle of zero-weight arcs, this one
// cannot. ctx is checked between launches.
func BFFlag(ctx context.Context, g *graph.Graph, source int, opts Options) (*graph.SingleSource, error) {
	return runBF(ctx, g, source, opts, bfKernels{name: VariantBFFlag, relax: "bf_relax_flag", update: "bf_update_flag", grid: strideGrid, flag: true})
}

// runBF is the host loop shared by the Bellman-Ford variants.
func runBF(ctx context.Context, g *graph.Graph, source int, opts Options, k bfKernels) (*graph.SingleSource, error) {
	r, gr, out, err := startSingle(ctx, g, source, opts, k.name, !k.nonNegative, 6, k.pin)
	if err != nil {
		return nil, err
	}
	defer r.end()
	defer out.done()
	n := g.N()
	var dist, prev, flag, last, changed, pred buffer
	for _, b := range []*buffer{&dist, &prev, &flag, &last} {
		if *b, err = r.alloc(n); err != nil {
			return nil, err
		}
	}
	if changed, err = r.alloc(1); err != nil {
		return nil, err
	}
	grid := k.grid(n)
	relaxArgs := []uint64{i32(n), gr.off.arg(), gr.tgt.arg(), gr.w.arg(), prev.arg(), dist.arg()}
	if k.flag {
		relaxArgs = append(relaxArgs, flag.arg())
	}
	pass := func(p int) error {
		if err := r.launch(ptx.BellmanFord, k.relax, grid, block1024, 0, relaxArgs...); err != nil {
			return err
		}
		args := []uint64{i32(n), prev.arg(), dist.arg(), last.arg(), i32(p), changed.arg()}
		if k.flag {
			args = append(args, flag.arg())
		}
		return r.launch(ptx.BellmanFord, k.update, grid, block1024, 0, args...)
	}
	// readChanged returns the vertex (plus one) some pass changed, 0 if none,
	// and clears the device flag.
	host := make([]int32, 1)
	readChanged := func() (int, error) {
		if err := r.readInts(host, changed); err != nil {
			return 0, err
		}
		return int(host[0]), r.fill(changed, 0)
	}
	if opts.Pred {
		if pred, err = r.alloc(n); err != nil {
			return nil, err
		}
	}
	negative := 0
	err = r.kernels(func() error {
		if err := r.launch(ptx.BellmanFord, "bf_init", grid1D(n, 1024), block1024, 0, i32(n), i32(source), dist.arg(), prev.arg(), flag.arg(), last.arg()); err != nil {
			return err
		}
		if err := r.fill(changed, 0); err != nil {
			return err
		}
		converged := false
		for p := 1; p < n && !converged; p++ {
			if err := pass(p); err != nil {
				return err
			}
			if opts.EarlyExit || k.early {
				if k.check > 1 && p%k.check != 0 && p+1 < n {
					continue
				}
				c, err := readChanged()
				if err != nil {
					return err
				}
				converged = c == 0
			}
		}
		if !converged {
			// One more pass: a change now proves a negative cycle.
			if err := r.fill(changed, 0); err != nil {
				return err
			}
			if err := pass(n); err != nil {
				return err
			}
			c, err := readChanged()
			if err != nil || c > 0 {
				negative = c
				return err
			}
		}
		if !opts.Pred {
			return nil
		}
		if err := r.fill(pred, graph.Nil); err != nil {
			return err
		}
		return r.launch(ptx.BellmanFord, "bf_pred", strideGrid(n), block1024, 0, i32(n), gr.off.arg(), gr.tgt.arg(), gr.w.arg(), prev.arg(), last.arg(), pred.arg())
	})
	if err != nil {
		return nil, err
	}
	if negative > 0 {
		start := make([]int32, n)
		if err := r.download(start, prev); err != nil {
			return nil, err
		}
		return nil, negativeCycle(r.ctx, g, start, negative-1)
	}
	return finishSingle(r, g, source, out, prev, pred, opts.Pred)
}

// DijkstraAPSPRow runs variant "dijkstra-apsp-row", Bodra's all-pairs
// Dijkstra ([Bodra] §2.2.1, kernel dijkstraNaive): one thread per
// source on 1024-thread blocks, each running the array form of Dijkstra on
// its own row of n×n distance, parent and visited matrices, with a linear
// scan for extract-min and the dense weight matrix for the arcs; O(n³)
// work in all and 13n² bytes of device memory. The kernel is launched in
// slices of rounds (64 extract-min rounds per launch) so that ctx is
// checked between launches; Bodra launches it once. Bodra never copies the
// parents back; with opts.Pred they are returned (they follow Π: the
// vertex before j). Weights must be non-negative.
func DijkstraAPSPRow(ctx context.Context, g *graph.Graph, opts Options) (*graph.AllPairs, error) {
	const name = VariantDijkstraAPSP
	r, err := start(ctx, g, name, false, opts)
	if err != nil {
		return nil, err
	}
	defer r.end()
	n := g.N()
	cells := n * n
	if err := r.reserve(uint64(cells)*13, fmt.Sprintf("n=%d (3 int32 matrices and a byte matrix)", n)); err != nil {
		return nil, err
	}
	if err := graph.CheckMatrixSize(n, 3); err != nil {
		return nil, fmt.Errorf("%s: host memory: %w", name, err)
	}
	res := &graph.AllPairs{N: n, Dist: g.Dense(), Labels: slices.Clone(g.Labels()), Solver: name}
	cost, err := r.upload(res.Dist)
	if err != nil {
		return nil, err
	}
	dist, err := r.alloc(cells)
	if err != nil {
		return nil, err
	}
	parent, err := r.alloc(cells)
	if err != nil {
		return nil, err
	}
	visited, err := r.alloc(ceilDiv(cells, 4))
	if err != nil {
		return nil, err
	}
	const rounds = 64
	err = r.kernels(func() error {
		for first := 0; first < n; first += rounds {
			if err := r.launch(ptx.Dijkstra, "dijkstra_apsp_row", grid1D(n, 1024), block1024, 0,
				i32(n), i32(first), i32(rounds), cost.arg(), dist.arg(), parent.arg(), visited.arg()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := r.download(res.Dist, dist); err != nil {
		return nil, err
	}
	if opts.Pred {
		res.Pred = make([]int32, cells)
		if err := r.download(res.Pred, parent); err != nil {
			return nil, err
		}
	}
	if err := checkResult(res.Dist, n, false, name); err != nil {
		return nil, err
	}
	return res, nil
}

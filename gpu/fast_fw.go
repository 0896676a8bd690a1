package gpu

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/ptx"
)

// VariantFWFast is pathnotes' own Floyd-Warshall, built for speed rather
// than to follow a document.
const VariantFWFast = "fw-fast"

// Tile side and padding of fw-fast; the internal infinities of its modes
// (ptx/fwfast.cu explains them).
const (
	ffTile    = 128
	ffInfDist = int32(graph.MaxDistance)
	ffInfPack = 1<<22 - 1
	// ffStage is the most values one staging copy moves (64 MiB).
	ffStage = 16 << 20
)

// ffMode is one of fw-fast's kernel sets.
type ffMode struct {
	suffix string // kernel name suffix in ptx/fwfast.cu
	inf    int32  // internal infinity
}

var (
	ffDist    = ffMode{"dist", ffInfDist}
	ffPack    = ffMode{"pack", ffInfPack}
	ffGen     = ffMode{"gen", graph.Inf}
	ffGenPred = ffMode{"genpred", graph.Inf}
)

// fwFastMode picks the kernels for g: without negative arcs, the fast
// paths whose inner loop is one min(c, a + b) per cell, as long as every
// finite distance stays below their internal infinity ((n-1)·max weight is
// the bound that is checked); otherwise the general kernels, which test for
// graph.Inf before each addition and clamp sums of negative cycles.
func fwFastMode(g *graph.Graph, pred bool) ffMode {
	lo, hi := g.WeightRange()
	bound := int64(max(g.N()-1, 0)) * int64(max(hi, 0))
	switch {
	case lo < 0:
	case !pred && bound < int64(ffInfDist):
		return ffDist
	case pred && bound < ffInfPack:
		return ffPack
	}
	if pred {
		return ffGenPred
	}
	return ffGen
}

// FWFast runs variant "fw-fast", pathnotes' own Floyd-Warshall (see
// ptx/fwfast.cu): blocked with 128×128 tiles on a matrix padded to a
// multiple of 128, the primary row and column computed as one min-plus
// product with the closed primary tile, and all other tiles as a
// register-tiled min-plus product (8×8 cells per thread), whose inner
// statement Hopper GPUs run as one VIADDMNMX instruction. Graphs without
// negative arcs take the fast kernels: distances only, or predecessors
// packed into the low byte of each value while distances stay below 2^22;
// other graphs (negative arcs, larger distances with predecessors) take
// general kernels that test for infinity and track predecessors
// explicitly, at about half the speed. A negative cycle is reported as a
// *graph.NegativeCycleError. Device memory: the padded matrix (two with
// predecessors) and a 64 MiB staging buffer.
//
// With several devices in opts.Devices, each card holds a stripe of block
// rows (and needs only its share of the memory, plus the primary row of
// each stage, which the card that owns it copies to the others).
func FWFast(ctx context.Context, g *graph.Graph, opts Options) (*graph.AllPairs, error) {
	if len(opts.Devices) > 1 {
		return fwFastMulti(ctx, g, opts)
	}
	r, err := start(ctx, g, VariantFWFast, true, opts)
	if err != nil {
		return nil, err
	}
	defer r.end()
	n := g.N()
	mode := fwFastMode(g, opts.Pred)
	matrices := opts.matrices()
	ld := ceilDiv(n, ffTile) * ffTile
	stage := min(n*n, ffStage)
	need := uint64(ld)*uint64(ld)*4*uint64(matrices) + uint64(stage)*4
	what := fmt.Sprintf("n=%d (padded to %d; %d int32 matrices and a staging buffer)", n, ld, matrices)
	if budget, err := r.budget(opts.DeviceMemory); err == nil && need > budget && n > 0 {
		return r.fwFastStreamed(g, opts, mode, budget)
	}
	if err := r.reserve(need, what); err != nil {
		if free, _, e := r.dev.ctx.MemInfo(); e == nil {
			return nil, fmt.Errorf("%w; n up to %d would fit", err, fwFastMaxN(free, matrices))
		}
		return nil, err
	}
	res, err := ffResult(g, opts.Pred, matrices)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return res, nil
	}
	buf, err := r.alloc(stage)
	if err != nil {
		return nil, err
	}
	d, err := r.alloc(ld * ld)
	if err != nil {
		return nil, err
	}
	if err := r.fill(d, mode.inf); err != nil {
		return nil, err
	}
	if err := r.ffMove(res.Dist, d.arg(), buf, n, ld, 0, n, mode.inf, true); err != nil {
		return nil, err
	}
	p := buffer{}
	if opts.Pred {
		if p, err = r.alloc(ld * ld); err != nil {
			return nil, err
		}
		if err := r.fill(p, graph.Nil); err != nil {
			return nil, err
		}
		if err := r.ffMove(res.Pred, p.arg(), buf, n, ld, 0, n, graph.Inf, true); err != nil {
			return nil, err
		}
	}
	err = r.kernels(func() error {
		nb := ld / ffTile
		for s := range nb {
			args := []uint64{i32(ld), i32(s), d.arg(), p.arg()}
			if err := r.launch(ptx.FWFast, "ff_phase1_"+mode.suffix, Dim3{1, 1, 1}, Dim3{1024, 1, 1}, 0, args...); err != nil {
				return err
			}
			if nb > 1 {
				if err := r.launch(ptx.FWFast, "ff_panels_"+mode.suffix, Dim3{nb, 2, 1}, Dim3{256, 1, 1}, 0, args...); err != nil {
					return err
				}
				if err := r.launch(ptx.FWFast, "ff_rest_"+mode.suffix, Dim3{nb, nb, 1}, Dim3{256, 1, 1}, 0, args...); err != nil {
					return err
				}
			}
			r.report(min((s+1)*ffTile, n), n)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := r.ffMove(res.Dist, d.arg(), buf, n, ld, 0, n, mode.inf, false); err != nil {
		return nil, err
	}
	if opts.Pred {
		if err := r.ffMove(res.Pred, p.arg(), buf, n, ld, 0, n, graph.Inf, false); err != nil {
			return nil, err
		}
	}
	return r.finishFW(g, res)
}

// ffResult checks that the host holds the result's matrices and makes the
// result: the dense weight matrix as distances, and Π⁰ when asked for.
func ffResult(g *graph.Graph, pred bool, matrices int) (*graph.AllPairs, error) {
	n := g.N()
	if err := graph.CheckMatrixSize(n, matrices); err != nil {
		return nil, fmt.Errorf("%s: host memory: %w", VariantFWFast, err)
	}
	res := &graph.AllPairs{N: n, Dist: g.Dense(), Labels: slices.Clone(g.Labels()), Solver: VariantFWFast}
	if pred {
		res.Pred = initialPred(res.Dist, n)
	}
	return res, nil
}

// ffMove copies rows lo..hi-1 of the n×n host matrix host to or from (in)
// the padded device matrix of side ld at m (an address as a kernel
// argument: on several cards, that of a stripe offset to global rows),
// through the staging buffer buf, a band of rows at a time: ff_scatter
// turns graph.Inf into the internal infinity inf on the way in, ff_gather
// turns values at or above it back into graph.Inf on the way out (inf =
// graph.Inf moves values unchanged, as for predecessors).
func (r *run) ffMove(host []int32, m uint64, buf buffer, n, ld, lo, hi int, inf int32, in bool) error {
	rows := max(buf.n/max(n, 1), 1)
	for row0 := lo; row0 < hi; row0 += rows {
		band := min(rows, hi-row0)
		part := host[row0*n : (row0+band)*n]
		stage := buffer{buf.ptr, len(part)}
		args := []uint64{i32(n), i32(ld), i32(row0), i32(band), uint64(uint32(inf)), stage.arg(), m}
		grid := grid1D(len(part), 256)
		if in {
			if err := r.copyIn(stage, part); err != nil {
				return err
			}
			if err := r.launch(ptx.FWFast, "ff_scatter", grid, Dim3{256, 1, 1}, 0, args...); err != nil {
				return err
			}
			continue
		}
		args[5], args[6] = m, stage.arg()
		if err := r.launch(ptx.FWFast, "ff_gather", grid, Dim3{256, 1, 1}, 0, args...); err != nil {
			return err
		}
		if err := r.download(part, stage); err != nil {
			return err
		}
	}
	return nil
}

// fwFastMaxN is the largest vertex count whose padded matrices fit in free
// bytes of device memory.
func fwFastMaxN(free uint64, matrices int) int {
	side := int(math.Sqrt(float64(free-min(free, ffStage*4)) / 4 / float64(matrices)))
	return side / ffTile * ffTile
}

// copyIn copies host into the start of the existing buffer b, timed as a
// host-to-device transfer.
func (r *run) copyIn(b buffer, host []int32) error {
	err := r.timed(&r.stats.HostToDevice, func() error { return r.dev.ctx.CopyIn(b.ptr, host) })
	if err != nil {
		return r.fail(err, "copying %s to the device", graph.FormatBytes(uint64(len(host))*4))
	}
	r.stats.BytesToDevice += uint64(len(host)) * 4
	return nil
}

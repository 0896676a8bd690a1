package gpu

import (
	"fmt"

	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/ptx"
)

// budget is the device memory a run may use: what is free, capped by
// limit when it is set (Options.DeviceMemory).
func (r *run) budget(limit uint64) (uint64, error) {
	free, _, err := r.memFree()
	if err != nil {
		return 0, r.fail(err, "reading free device memory")
	}
	if limit > 0 {
		free = min(free, limit)
	}
	return free, nil
}

// ffBand is a band of block rows of the padded matrix on the device:
// block rows y0 .. y0+h-1 in buffers sized for the widest band.
type ffBand struct {
	y0, h int
	d, p  buffer
}

// args returns the band's distances and predecessors as kernel arguments
// addressing it as the whole matrix.
func (b ffBand) args(ld int) (d, p uint64) {
	d = stripeArg(b.d, b.y0, ld)
	if b.p.n > 0 {
		p = stripeArg(b.p, b.y0, ld)
	}
	return d, p
}

// fwFastStreamed is fw-fast for matrices that do not fit the device: they
// stay in host memory (res), and bands of block rows go through the
// device. For each band S of block rows (in order), S is loaded and its
// own stages are run on it as on one card (ff_phase1, the primary row,
// ff_stripe_col and ff_stripe_rest with S as the primary rows); then every
// other band T is loaded, updated by the stages of S with S's final rows
// as the primary rows, and stored back; last S is stored. Using S's rows
// after all of S's stages rather than as they were at each stage gives the
// same result: they are lengths of real paths, never above the values of
// the stage, so every cell still reaches its shortest distance. The matrix
// crosses the bus twice per band; the copies are not overlapped with the
// kernels, so the bus and the kernels take turns (Stats.Kernel spans both).
func (r *run) fwFastStreamed(g *graph.Graph, opts Options, mode ffMode, budget uint64) (*graph.AllPairs, error) {
	n := g.N()
	matrices := opts.matrices()
	ld := ceilDiv(n, ffTile) * ffTile
	nb := ld / ffTile
	stage := min(n*n, ffStage)
	rowBytes := uint64(ffTile) * uint64(ld) * 4 * uint64(matrices)
	h := int((budget - min(budget, uint64(stage)*4)) / rowBytes / 2)
	if h < 1 {
		return nil, fmt.Errorf("%s: n=%d does not fit %s of device memory even streamed: that needs two bands of 128 rows (%s) and a staging buffer (%s); n up to %d would fit in it",
			VariantFWFast, n, graph.FormatBytes(budget), graph.FormatBytes(2*rowBytes), graph.FormatBytes(uint64(stage)*4), fwFastMaxN(budget, matrices))
	}
	h = min(h, nb)
	res, err := ffResult(g, opts.Pred, matrices)
	if err != nil {
		return nil, err
	}
	buf, err := r.alloc(stage)
	if err != nil {
		return nil, err
	}
	var bands [2]ffBand
	for i := range bands {
		if bands[i].d, err = r.alloc(h * ffTile * ld); err != nil {
			return nil, err
		}
		if opts.Pred {
			if bands[i].p, err = r.alloc(h * ffTile * ld); err != nil {
				return nil, err
			}
		}
	}
	S, T := &bands[0], &bands[1]
	err = r.kernels(func() error {
		for s0 := 0; s0 < nb; s0 += h {
			S.y0, S.h = s0, min(h, nb-s0)
			if err := r.ffBandMove(res, S, buf, n, ld, mode, true); err != nil {
				return err
			}
			sd, sp := S.args(ld)
			for s := s0; s < s0+S.h; s++ {
				args := []uint64{i32(ld), i32(s), sd, sp}
				if err := r.launch(ptx.FWFast, "ff_phase1_"+mode.suffix, Dim3{1, 1, 1}, ffPhase1Block, 0, args...); err != nil {
					return err
				}
				if err := r.launch(ptx.FWFast, "ff_panels_"+mode.suffix, Dim3{nb, 1, 1}, Dim3{256, 1, 1}, 0, args...); err != nil {
					return err
				}
				if err := r.ffStripeStage(S, s, ld, sd, sp, mode); err != nil {
					return err
				}
			}
			for t0 := 0; t0 < nb; t0 += h {
				if t0 == s0 {
					continue
				}
				T.y0, T.h = t0, min(h, nb-t0)
				if err := r.ffBandMove(res, T, buf, n, ld, mode, true); err != nil {
					return err
				}
				for s := s0; s < s0+S.h; s++ {
					if err := r.ffStripeStage(T, s, ld, sd, sp, mode); err != nil {
						return err
					}
				}
				if err := r.ffBandMove(res, T, buf, n, ld, mode, false); err != nil {
					return err
				}
			}
			if err := r.ffBandMove(res, S, buf, n, ld, mode, false); err != nil {
				return err
			}
			r.stats.Passes++
			r.report(min((s0+S.h)*ffTile, n), n)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r.finishFW(g, res)
}

// ffStripeStage queues stage s on band b: its part of the primary column,
// then the rest of it, with the primary row at bd and bp.
func (r *run) ffStripeStage(b *ffBand, s, ld int, bd, bp uint64, mode ffMode) error {
	d, p := b.args(ld)
	args := []uint64{i32(ld), i32(s), i32(b.y0), d, p, bd, bp}
	if err := r.launch(ptx.FWFast, "ff_stripe_col_"+mode.suffix, Dim3{b.h, 1, 1}, Dim3{256, 1, 1}, 0, args...); err != nil {
		return err
	}
	return r.launch(ptx.FWFast, "ff_stripe_rest_"+mode.suffix, Dim3{ld / ffTile, b.h, 1}, Dim3{256, 1, 1}, 0, args...)
}

// ffBandMove copies band b's rows of res to the device (in: after filling
// the band with the internal infinity, so that the padding is set) or back.
func (r *run) ffBandMove(res *graph.AllPairs, b *ffBand, buf buffer, n, ld int, mode ffMode, in bool) error {
	lo, hi := min(b.y0*ffTile, n), min((b.y0+b.h)*ffTile, n)
	d, p := b.args(ld)
	if in {
		if err := r.fill(buffer{b.d.ptr, b.h * ffTile * ld}, mode.inf); err != nil {
			return err
		}
		if b.p.n > 0 {
			if err := r.fill(buffer{b.p.ptr, b.h * ffTile * ld}, graph.Nil); err != nil {
				return err
			}
		}
	}
	if err := r.ffMove(res.Dist, d, buf, n, ld, lo, hi, mode.inf, in); err != nil {
		return err
	}
	if b.p.n > 0 {
		return r.ffMove(res.Pred, p, buf, n, ld, lo, hi, graph.Inf, in)
	}
	return nil
}

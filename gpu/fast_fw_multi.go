package gpu

import (
	"context"
	"fmt"

	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/ptx"
)

// ffStripe is one card's share of fw-fast on several cards: block rows
// y0 .. y0+h-1 of the padded matrix, and a buffer for the primary row.
type ffStripe struct {
	y0, h        int
	d, p         buffer // the stripe's distances and predecessors
	rowD, rowP   buffer // the copy of the primary row (cards that do not own it)
	stage        buffer
	lo, hi       int // the graph's rows in the stripe
	virtD, virtP uint64
}

// stripeArg returns the kernel argument that addresses b, which holds block rows
// from y0 on, as if it were the whole matrix of side ld.
func stripeArg(b buffer, y0, ld int) uint64 {
	return b.arg() - uint64(y0)*ffTile*uint64(ld)*4
}

// fwFastMulti is fw-fast on the devices of opts.Devices: card c holds a
// stripe of the block rows. At stage s, the card that owns block row s
// closes the primary tile and updates the primary row (ff_phase1, the row
// half of ff_panels) and copies that row to the other cards, directly where
// they can reach each other (NVLink or PCIe peer access) and through host
// memory where they cannot; then every card updates its part of the
// primary column and the rest of its stripe (ff_stripe_col, ff_stripe_rest).
// The copy is ordered after the work queued on both cards, so no card
// overwrites a primary row another is still reading.
func fwFastMulti(ctx context.Context, g *graph.Graph, opts Options) (*graph.AllPairs, error) {
	n := g.N()
	ld := max(ceilDiv(n, ffTile), 1) * ffTile
	nb := ld / ffTile
	grp, err := startGroup(ctx, g, VariantFWFast, true, opts, nb)
	if err != nil {
		return nil, err
	}
	defer grp.end()
	mode := fwFastMode(g, opts.Pred)
	matrices := opts.matrices()
	stripes := make([]ffStripe, len(grp.runs))
	for c := range stripes {
		y0, y1 := c*nb/len(grp.runs), (c+1)*nb/len(grp.runs)
		stripes[c] = ffStripe{y0: y0, h: y1 - y0, lo: min(y0*ffTile, n), hi: min(y1*ffTile, n)}
	}
	if budget, stream, err := stripesFit(grp, stripes, n, ld, matrices, opts.DeviceMemory); err != nil || stream {
		if err != nil {
			return nil, err
		}
		return fwFastStreamed(grp, g, opts, mode, budget)
	}
	res, err := ffResult(g, opts.Pred, matrices)
	if err != nil {
		return nil, err
	}
	for c, r := range grp.runs {
		if err := stripes[c].alloc(r, res, n, ld, matrices, mode); err != nil {
			return nil, err
		}
	}
	err = grp.kernels(func() error {
		for s := range nb {
			if err := ffMultiStage(grp, stripes, s, ld, mode); err != nil {
				return err
			}
			grp.runs[0].report(min((s+1)*ffTile, n), n)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for c, r := range grp.runs {
		st := &stripes[c]
		if err := r.ffMove(res.Dist, st.virtD, st.stage, n, ld, st.lo, st.hi, mode.inf, false); err != nil {
			return nil, err
		}
		if opts.Pred {
			if err := r.ffMove(res.Pred, st.virtP, st.stage, n, ld, st.lo, st.hi, graph.Inf, false); err != nil {
				return nil, err
			}
		}
	}
	return grp.runs[0].finishFWFast(g, res)
}

// stripesFit reports whether some card's stripe does not fit its device
// memory (limit, when set, caps each card's: Options.DeviceMemory), so
// that the run must stream, and the least memory of the cards.
func stripesFit(grp *group, stripes []ffStripe, n, ld, matrices int, limit uint64) (budget uint64, stream bool, err error) {
	for c, r := range grp.runs {
		b, err := r.budget(limit)
		if err != nil {
			return 0, false, err
		}
		if c == 0 || b < budget {
			budget = b
		}
		if stripes[c].need(n, ld, matrices) > b {
			stream = true
		}
	}
	return budget, stream, nil
}

// need is the device memory the stripe takes: its rows of the matrices, a
// copy of the primary row and the staging buffer.
func (st *ffStripe) need(n, ld, matrices int) uint64 {
	stage := min(max(n*n, 1), ffStage)
	return (uint64(st.h*ffTile*ld)+ffTile*uint64(ld))*4*uint64(matrices) + uint64(stage)*4
}

// alloc reserves and fills the stripe's device memory on r's card and
// copies the stripe's rows of res in.
func (st *ffStripe) alloc(r *run, res *graph.AllPairs, n, ld, matrices int, mode ffMode) error {
	cells := st.h * ffTile * ld
	stage := min(max(n*n, 1), ffStage)
	need := st.need(n, ld, matrices)
	what := fmt.Sprintf("a stripe of %d of the %d rows (padded to %d; %d int32 matrices, a copy of the primary row and a staging buffer)",
		st.h*ffTile, ld, ld, matrices)
	if err := r.reserve(need, what); err != nil {
		return err
	}
	var err error
	if st.stage, err = r.alloc(stage); err != nil {
		return err
	}
	if st.d, err = r.alloc(cells); err != nil {
		return err
	}
	if st.rowD, err = r.alloc(ffTile * ld); err != nil {
		return err
	}
	if err := r.fill(st.d, mode.inf); err != nil {
		return err
	}
	st.virtD = stripeArg(st.d, st.y0, ld)
	if err := r.ffMove(res.Dist, st.virtD, st.stage, n, ld, st.lo, st.hi, mode.inf, true); err != nil {
		return err
	}
	if res.Pred == nil {
		return nil
	}
	if st.p, err = r.alloc(cells); err != nil {
		return err
	}
	if st.rowP, err = r.alloc(ffTile * ld); err != nil {
		return err
	}
	if err := r.fill(st.p, graph.Nil); err != nil {
		return err
	}
	st.virtP = stripeArg(st.p, st.y0, ld)
	return r.ffMove(res.Pred, st.virtP, st.stage, n, ld, st.lo, st.hi, graph.Inf, true)
}

// owns reports whether the stripe holds block row s.
func (st *ffStripe) owns(s int) bool { return s >= st.y0 && s < st.y0+st.h }

// ffMultiStage queues stage s on every card of grp.
func ffMultiStage(grp *group, stripes []ffStripe, s, ld int, mode ffMode) error {
	nb := ld / ffTile
	owner := 0
	for c := range stripes {
		if stripes[c].owns(s) {
			owner = c
		}
	}
	o, ro := &stripes[owner], grp.runs[owner]
	args := []uint64{i32(ld), i32(s), o.virtD, o.virtP}
	if err := ro.launch(ptx.FWFast, "ff_phase1_"+mode.suffix, Dim(1, 1, 1), ffPhase1Block, 0, args...); err != nil {
		return err
	}
	if err := ro.launch(ptx.FWFast, "ff_panels_"+mode.suffix, Dim(nb, 1, 1), Dim(256, 1, 1), 0, args...); err != nil {
		return err
	}
	row := DevicePtr(s-o.y0) * ffTile * DevicePtr(ld) * 4 // the primary row's offset in the owner's stripe
	for c, r := range grp.runs {
		st := &stripes[c]
		bd, bp := o.virtD, o.virtP
		if c != owner {
			if err := grp.copyPanel(owner, c, o.d.ptr+row, st.rowD.ptr, ffTile*ld); err != nil {
				return err
			}
			bd = stripeArg(st.rowD, s, ld)
			if st.p.n > 0 {
				if err := grp.copyPanel(owner, c, o.p.ptr+row, st.rowP.ptr, ffTile*ld); err != nil {
					return err
				}
				bp = stripeArg(st.rowP, s, ld)
			}
		}
		args := []uint64{i32(ld), i32(s), i32(st.y0), st.virtD, st.virtP, bd, bp}
		if err := r.launch(ptx.FWFast, "ff_stripe_col_"+mode.suffix, Dim(st.h, 1, 1), Dim(256, 1, 1), 0, args...); err != nil {
			return err
		}
		if err := r.launch(ptx.FWFast, "ff_stripe_rest_"+mode.suffix, Dim(nb, st.h, 1), Dim(256, 1, 1), 0, args...); err != nil {
			return err
		}
	}
	return nil
}

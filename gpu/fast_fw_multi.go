package gpu

import (
	"context"
	"fmt"

	"github.com/pathnotes/pathnotes/graph"
)

// ffStripe is one card's share of fw-fast on several cards: block rows
// y0 .. y0+h-1 of the padded matrix, and a buffer for the primary row.
type ffStripe struct {
	y0, h        int
	d, p         buffer // the stripe's distances and predecessors
	rowD, rowP   buffer // the copy of the primary row (cards that do not own it)
	lo, hi       int    // the graph's rows in the stripe
	virtD, virtP uint64
	flags        [3]int32 // ff_finish's flags over the stripe's rows
}

// stripeArg returns the kernel argument that addresses b, which holds block rows
// from y0 on, as if it were the whole matrix of side ld.
func stripeArg(b buffer, y0, ld int) uint64 {
	return b.arg() - uint64(y0)*ffTile*uint64(ld)*4
}

// fwFastMulti is fw-fast on the devices of opts.Devices: card c holds a
// stripe of the block rows, which it builds from the graph's arcs (each
// card gets the arcs, not its n²/cards cells). At stage s, the card that
// owns block row s
// closes the primary tile and updates the primary row (ff_phase1, the row
// half of ff_panels) and copies that row to the other cards, directly where
// they can reach each other (NVLink or PCIe peer access) and through host
// memory where they cannot; then every card updates its part of the
// primary column and the rest of its stripe (ff_stripe_col, ff_stripe_rest).
// The copy is ordered after the work queued on both cards, so no card
// overwrites a primary row another is still reading. Then every card
// checks its rows (ff_finish) and copies them into the result, all cards
// at once, as one card in memory does (hostResult).
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
	if budget, stream, err := stripesFit(grp, stripes, g, ld, matrices, opts.DeviceMemory); err != nil || stream {
		if err != nil {
			return nil, err
		}
		return fwFastStreamed(grp, g, opts, mode, budget)
	}
	res, err := newAllPairs(g, VariantFWFast, opts.Pred)
	if err != nil || n == 0 {
		return res, err
	}
	host := grp.runs[0].newHostResult(matrices, n, n, true, false)
	defer host.release()
	for c, r := range grp.runs {
		if err := stripes[c].build(r, g, ld, matrices, mode); err != nil {
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
	mats := host.wait()
	if err := inParallel(len(grp.runs), func(c int) error { return stripes[c].check(grp.runs[c], n, ld, mode) }); err != nil {
		return nil, err
	}
	// The verdicts in the order of the rows, so that a graph with several
	// bad rows always gets the same error.
	for c, r := range grp.runs {
		st := &stripes[c]
		if err := r.ffVerdict(g, st.flags, n, mode, r.ffRow(n, ld, st.view(st.virtD), st.view(st.virtP))); err != nil {
			return nil, err
		}
	}
	if err := inParallel(len(grp.runs), func(c int) error { return stripes[c].fetch(grp.runs[c], host, ld) }); err != nil {
		return nil, err
	}
	res.Dist = mats[0]
	if opts.Pred {
		res.Pred = mats[1]
	}
	if err := host.release(); err != nil {
		return nil, grp.runs[0].fail(err, "copying the result from the device")
	}
	grp.runs[0].ffRepair(g, res)
	return res, nil
}

// stripesFit reports whether some card's stripe does not fit its device
// memory (limit, when set, caps each card's: Options.DeviceMemory), so
// that the run must stream, and the least memory of the cards. As for one
// card, the decision counts a staging buffer (min(n², 16 Mi) values) that
// the path in memory no longer needs, so that a cap streams where it did.
func stripesFit(grp *group, stripes []ffStripe, g *graph.Graph, ld, matrices int, limit uint64) (budget uint64, stream bool, err error) {
	n := g.N()
	stage := uint64(min(max(n*n, 1), ffStage)) * 4
	for c, r := range grp.runs {
		b, err := r.budget(limit)
		if err != nil {
			return 0, false, err
		}
		if c == 0 || b < budget {
			budget = b
		}
		if stripes[c].need(g, ld, matrices)+stage > b {
			stream = true
		}
	}
	return budget, stream, nil
}

// need is the device memory the stripe takes: its rows of the matrices, a
// copy of the primary row, the graph's arcs and ff_finish's flags.
func (st *ffStripe) need(g *graph.Graph, ld, matrices int) uint64 {
	return (uint64(st.h*ffTile*ld)+ffTile*uint64(ld))*4*uint64(matrices) + csrBytes(g) + 16
}

// build reserves the stripe's device memory on r's card and builds its
// rows of the padded matrices there from g's arcs (ffFill).
func (st *ffStripe) build(r *run, g *graph.Graph, ld, matrices int, mode ffMode) error {
	cells := st.h * ffTile * ld
	what := fmt.Sprintf("a stripe of %d of the %d rows (padded to %d; %d int32 matrices, a copy of the primary row and the arcs)",
		st.h*ffTile, ld, ld, matrices)
	if err := r.reserve(st.need(g, ld, matrices), what); err != nil {
		return err
	}
	var err error
	if st.d, err = r.alloc(cells); err != nil {
		return err
	}
	if st.rowD, err = r.alloc(ffTile * ld); err != nil {
		return err
	}
	st.virtD = stripeArg(st.d, st.y0, ld)
	if matrices > 1 {
		if st.p, err = r.alloc(cells); err != nil {
			return err
		}
		if st.rowP, err = r.alloc(ffTile * ld); err != nil {
			return err
		}
		st.virtP = stripeArg(st.p, st.y0, ld)
	}
	arcs, _, err := r.uploadArcs(g, nil)
	if err != nil {
		return err
	}
	return r.ffFill(g, arcs, ld, st.y0, st.h, st.virtD, st.virtP, mode)
}

// view is the buffer at the kernel argument virt (virtD or virtP), as
// ffCheck and ffRow take the whole matrix; 0 stays the empty buffer.
func (st *ffStripe) view(virt uint64) buffer {
	if virt == 0 {
		return buffer{}
	}
	return buffer{DevicePtr(virt), 1}
}

// check runs ff_finish over the stripe's rows of the graph on r's card
// and reads its flags into st.flags.
func (st *ffStripe) check(r *run, n, ld int, mode ffMode) error {
	st.flags = [3]int32{graph.Inf, graph.Inf, graph.Inf}
	if st.hi <= st.lo {
		return nil
	}
	flags, err := r.alloc(3)
	if err != nil {
		return err
	}
	if err := r.fill(flags, graph.Inf); err != nil {
		return err
	}
	if err := r.ffCheck(n, ld, st.lo, st.hi, mode, st.view(st.virtD), st.view(st.virtP), flags, 0); err != nil {
		return err
	}
	return r.readInts(st.flags[:], flags)
}

// fetch copies the stripe's rows of the graph into host's matrices.
func (st *ffStripe) fetch(r *run, host *hostResult, ld int) error {
	if st.hi <= st.lo {
		return nil
	}
	if err := r.fetch(host, 0, DevicePtr(st.virtD), ld, st.lo, st.hi, 0); err != nil {
		return err
	}
	if st.virtP == 0 {
		return nil
	}
	return r.fetch(host, 1, DevicePtr(st.virtP), ld, st.lo, st.hi, 0)
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
	if err := ro.launch(mode.module, "ff_phase1_"+mode.suffix, Dim(1, 1, 1), ffPhase1Block, 0, args...); err != nil {
		return err
	}
	if err := ro.launch(mode.module, "ff_panels_"+mode.suffix, Dim(nb, 1, 1), Dim(256, 1, 1), 0, args...); err != nil {
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
		if err := r.launch(mode.module, "ff_stripe_col_"+mode.suffix, Dim(st.h, 1, 1), Dim(256, 1, 1), 0, args...); err != nil {
			return err
		}
		if err := r.launch(mode.module, "ff_stripe_rest_"+mode.suffix, Dim(nb, st.h, 1), Dim(256, 1, 1), 0, args...); err != nil {
			return err
		}
	}
	return nil
}

package gpu

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/pathnotes/pathnotes/gpu/driver"
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

// ffSlot is one band buffer of a streamed fw-fast run, with the events
// that order the three streams' work on it.
type ffSlot struct {
	band  int // the band it holds, -1 none
	d, p  buffer
	dirty bool // holds the device's latest values of its band, which the host has not got
	// done is the pass in which the band was last updated (-1 none);
	// used the enqueue count of that update, for choosing a victim.
	done, used int
	// loaded, computed and free are recorded after the slot's last copy
	// in, update and copy out.
	loaded, computed, free driver.Event
}

// ffStream is the state of a streamed fw-fast run: the host result,
// the shape (bands of h block rows, P of them), the slots, and the three
// streams: in (copies to the device and the conversion after them),
// compute (the stage kernels) and out (the conversion and copies back).
type ffStream struct {
	r                *run
	res              *graph.AllPairs
	mode             ffMode
	n, ld, nb, h, P  int
	in, compute, out driver.Stream
	slots            []*ffSlot
	regs             *hostBands
	updates          int // updates enqueued so far
}

// ffStreamSlots is how many band buffers a streamed run keeps when the
// budget allows: the pass's primary band, one band being updated, one
// being copied in and one being copied out.
const ffStreamSlots = 4

// fwFastStreamed is fw-fast for matrices that do not fit the device: they
// stay in host memory (res), and bands of block rows go through the
// device. A pass takes one band S as the primary rows: S's own stages run
// on S (ff_phase1, the primary row, ff_stripe_col and ff_stripe_rest with
// S as the primary rows), then every other band T gets the stages of S
// with S's final rows as the primary rows. Using S's rows after all of
// S's stages rather than as they were at each stage gives the same
// result: they are lengths of real paths, never above the values of the
// stage, so every cell still reaches its shortest distance. And
// Floyd-Warshall may take its intermediate vertices in any order, so the
// passes may take the bands in any order, each once.
//
// The device holds up to four bands at once (fewer, wider ones only when
// the budget leaves no room for four of one block row): while the compute
// stream updates one, a second is copied in on a stream of its own and a
// third copied out on another, each copy straight between the host
// matrix (page-locked band by band, on goroutines, as the first pass
// reaches it) and the padded band (2D copies), with the conversion of
// graph.Inf to the kernels' infinity and back done in place on the device.
// A band's copy out starts as soon as the pass has updated it, except for
// the last bands of the pass: they stay on the device, the last becomes
// the next pass's S, and the next pass updates the others first, so that
// each pass copies three bands fewer each way than it updates.
func (r *run) fwFastStreamed(g *graph.Graph, opts Options, mode ffMode, budget uint64) (*graph.AllPairs, error) {
	n := g.N()
	matrices := opts.matrices()
	ld := ceilDiv(n, ffTile) * ffTile
	nb := ld / ffTile
	rowBytes := uint64(ffTile) * uint64(ld) * 4 * uint64(matrices)
	slots, h := ffStreamSlots, 0
	for ; slots >= 2; slots-- {
		if h = int(budget / rowBytes / uint64(slots)); h >= 1 {
			break
		}
	}
	if h < 1 {
		return nil, fmt.Errorf("%s: n=%d does not fit %s of device memory even streamed: that needs two bands of 128 rows (%s); n up to %d would fit in it",
			VariantFWFast, n, graph.FormatBytes(budget), graph.FormatBytes(2*rowBytes), fwFastMaxN(budget, matrices))
	}
	h = min(h, nb)
	res, err := ffResult(g, opts.Pred, matrices)
	if err != nil {
		return nil, err
	}
	s := &ffStream{r: r, res: res, mode: mode, n: n, ld: ld, nb: nb, h: h, P: ceilDiv(nb, h)}
	for range slots {
		sl := &ffSlot{band: -1, done: -1}
		if sl.d, err = r.alloc(h * ffTile * ld); err != nil {
			return nil, err
		}
		if err := r.fill(sl.d, mode.inf); err != nil { // the padding columns, for good
			return nil, err
		}
		if opts.Pred {
			if sl.p, err = r.alloc(h * ffTile * ld); err != nil {
				return nil, err
			}
		}
		for _, e := range []*driver.Event{&sl.loaded, &sl.computed, &sl.free} {
			if *e, err = r.event(); err != nil {
				return nil, err
			}
		}
		s.slots = append(s.slots, sl)
	}
	if err := s.open(); err != nil {
		return nil, err
	}
	err = r.kernels(s.passes)
	if cerr := s.close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return r.finishFW(g, res)
}

// open creates the streams, orders them after the default stream's work so
// far (the slots' allocation and fill), and starts page-locking the host
// matrices band by band.
func (s *ffStream) open() error {
	r := s.r
	for _, st := range []*driver.Stream{&s.in, &s.compute, &s.out} {
		var err error
		if *st, err = r.dev.ctx.NewStream(); err != nil {
			return r.fail(err, "creating a stream")
		}
	}
	if err := s.join(0, s.in, s.compute, s.out); err != nil {
		return err
	}
	mats := [][]int32{s.res.Dist}
	if s.res.Pred != nil {
		mats = append(mats, s.res.Pred)
	}
	s.regs = registerBands(r.dev.ctx, mats, s.n, s.h*ffTile, s.P, regPiece)
	return nil
}

// join makes the work queued later on each of to wait for what is queued
// on from now.
func (s *ffStream) join(from driver.Stream, to ...driver.Stream) error {
	r := s.r
	e, err := r.event()
	if err != nil {
		return err
	}
	if err := r.dev.ctx.RecordOn(e, from); err != nil {
		return r.fail(err, "recording an event")
	}
	for _, st := range to {
		if err := r.dev.ctx.WaitEvent(st, e); err != nil {
			return r.fail(err, "waiting for an event")
		}
	}
	return nil
}

// close waits for the streams, releases the host matrices' page locks and
// destroys the streams.
func (s *ffStream) close() error {
	r := s.r
	err := r.dev.ctx.Synchronize()
	if err != nil {
		err = r.fail(err, "streamed fw-fast")
	}
	if s.regs != nil {
		s.regs.release()
	}
	for _, st := range []driver.Stream{s.in, s.compute, s.out} {
		if st != 0 {
			_ = r.dev.ctx.DestroyStream(st) // nothing left to do about a failed destroy
		}
	}
	return err
}

// rows returns the matrix rows of band b (block rows b·h .. b·h+h-1,
// those below n).
func (s *ffStream) rows(b int) (lo, hi int) {
	return min(b*s.h*ffTile, s.n), min((b+1)*s.h*ffTile, s.n)
}

// blocks returns the block rows of band b.
func (s *ffStream) blocks(b int) (y0, h int) {
	return b * s.h, min(s.h, s.nb-b*s.h)
}

// args returns slot sl's distances and predecessors as kernel arguments
// addressing its band as the whole matrix.
func (s *ffStream) args(sl *ffSlot) (d, p uint64) {
	y0, _ := s.blocks(sl.band)
	d = stripeArg(sl.d, y0, s.ld)
	if sl.p.n > 0 {
		p = stripeArg(sl.p, y0, s.ld)
	}
	return d, p
}

// passes runs every pass, the compute stream's work and the copies, and
// makes the default stream wait for all of it (so that the kernel time's
// closing event follows it).
func (s *ffStream) passes() error {
	var S *ffSlot
	usedS := make([]bool, s.P)
	rowsDone := 0
	for pass := range s.P {
		if pass == 0 {
			S = s.slots[0]
			if err := s.load(S, 0); err != nil {
				return err
			}
		}
		usedS[S.band] = true
		if err := s.ownStages(S, pass); err != nil {
			return err
		}
		order := s.order(S, usedS)
		keep := len(s.slots) - 1 // the last bands of a pass stay for the next
		if pass == s.P-1 {
			keep = 0
		}
		for i, t := range order {
			T := s.slotOf(t)
			if T == nil {
				var err error
				if T, err = s.victim(S, pass); err != nil {
					return err
				}
				if err := s.load(T, t); err != nil {
					return err
				}
			}
			if err := s.update(T, S, pass); err != nil {
				return err
			}
			if i < len(order)-keep {
				if err := s.store(T); err != nil {
					return err
				}
			}
		}
		lo, hi := s.rows(S.band)
		rowsDone += hi - lo
		if pass < s.P-1 && len(order) > 0 {
			S = s.slotOf(order[len(order)-1])
		} else if err := s.store(S); err != nil {
			return err
		}
		s.r.stats.Passes++
		s.r.report(rowsDone, s.n)
	}
	for _, sl := range s.slots {
		if sl.dirty {
			if err := s.store(sl); err != nil {
				return err
			}
		}
	}
	if err := s.join(s.compute, 0); err != nil {
		return err
	}
	return s.join(s.out, 0)
}

// order lists the bands that pass takes as T with S as the primary
// band: first those on the device already, then the others; the last is
// one that has not been S yet (when one is left), to be the next S.
func (s *ffStream) order(S *ffSlot, usedS []bool) []int {
	var order, rest []int
	for _, sl := range s.slots {
		if sl != S && sl.band >= 0 {
			order = append(order, sl.band)
		}
	}
	for b := range s.P {
		if b != S.band && s.slotOf(b) == nil {
			rest = append(rest, b)
		}
	}
	order = append(order, rest...)
	for i := len(order) - 1; i >= 0; i-- {
		if !usedS[order[i]] {
			order = append(append(order[:i:i], order[i+1:]...), order[i])
			break
		}
	}
	return order
}

// slotOf returns the slot holding band b, or nil.
func (s *ffStream) slotOf(b int) *ffSlot {
	for _, sl := range s.slots {
		if sl.band == b {
			return sl
		}
	}
	return nil
}

// victim returns a slot for a band to be copied in during pass: an empty
// one, else the one updated earliest among those the pass has updated
// already (never S), copied out first if the host has not got its values.
func (s *ffStream) victim(S *ffSlot, pass int) (*ffSlot, error) {
	var best *ffSlot
	for _, sl := range s.slots {
		switch {
		case sl == S:
		case sl.band < 0:
			return sl, nil
		case sl.done == pass && (best == nil || sl.used < best.used):
			best = sl
		}
	}
	if best == nil {
		return nil, fmt.Errorf("%s: internal error: no band buffer to copy band into in pass %d", VariantFWFast, pass)
	}
	if best.dirty {
		if err := s.store(best); err != nil {
			return nil, err
		}
	}
	best.band = -1
	return best, nil
}

// load queues the copy of band b into slot sl on the in stream, after sl's
// last copy out, and the conversion of graph.Inf to the kernels' infinity.
func (s *ffStream) load(sl *ffSlot, b int) error {
	r := s.r
	s.regs.wait(b)
	ctx := r.dev.ctx
	if err := ctx.WaitEvent(s.in, sl.free); err != nil {
		return r.fail(err, "waiting for an event")
	}
	if err := s.copyBand(sl.d, 0, b, true); err != nil {
		return err
	}
	if s.mode.inf != graph.Inf {
		if err := s.convert(s.in, "ff_scatter", sl); err != nil {
			return err
		}
	}
	if sl.p.n > 0 {
		if err := s.copyBand(sl.p, 1, b, true); err != nil {
			return err
		}
	}
	if err := ctx.RecordOn(sl.loaded, s.in); err != nil {
		return r.fail(err, "recording an event")
	}
	sl.band, sl.dirty, sl.done = b, false, -1
	return ctx.WaitEvent(s.compute, sl.loaded)
}

// store queues slot sl's copy back on the out stream, after its last
// update: the kernels' infinity turned back into graph.Inf in place, then
// the copies. The slot no longer holds a band the kernels can use.
func (s *ffStream) store(sl *ffSlot) error {
	r := s.r
	ctx := r.dev.ctx
	if err := ctx.WaitEvent(s.out, sl.computed); err != nil {
		return r.fail(err, "waiting for an event")
	}
	if s.mode.inf != graph.Inf {
		if err := s.convert(s.out, "ff_gather", sl); err != nil {
			return err
		}
	}
	if err := s.copyBand(sl.d, 0, sl.band, false); err != nil {
		return err
	}
	if sl.p.n > 0 {
		if err := s.copyBand(sl.p, 1, sl.band, false); err != nil {
			return err
		}
	}
	if err := ctx.RecordOn(sl.free, s.out); err != nil {
		return r.fail(err, "recording an event")
	}
	sl.band, sl.dirty = -1, false
	return nil
}

// copyBand queues the copy of band b of host matrix k (0 distances, 1
// predecessors) to (in) or from the band buffer buf, whose rows are ld
// values apart: one 2D copy per registered piece (a copy must not span two
// registrations), or row by row from a piece the driver would not
// register.
func (s *ffStream) copyBand(buf buffer, k, b int, in bool) error {
	r := s.r
	lo, _ := s.rows(b)
	for _, p := range s.regs.of(k, b) {
		dev := buf.ptr + DevicePtr(4*(p.row0-lo)*s.ld)
		rows := len(p.mem) / s.n
		host := asBytes(p.mem)
		var err error
		switch {
		case in && p.ok:
			err = r.dev.ctx.CopyIn2DAsync(dev, 4*s.ld, host, 4*s.n, 4*s.n, rows, s.in)
		case p.ok:
			err = r.dev.ctx.CopyOut2DAsync(host, 4*s.n, dev, 4*s.ld, 4*s.n, rows, s.out)
		default:
			for i := 0; i < rows && err == nil; i++ {
				row, at := host[4*i*s.n:4*(i+1)*s.n], dev+DevicePtr(4*i*s.ld)
				if in {
					err = r.dev.ctx.CopyInAsync(at, row, s.in)
				} else {
					err = r.dev.ctx.CopyOutAsync(row, at, s.out)
				}
			}
		}
		if err != nil {
			return r.fail(err, "copying rows %d..%d of a %d×%d matrix", p.row0, p.row0+rows-1, s.n, s.n)
		}
		if in {
			r.stats.BytesToDevice += uint64(len(host))
		} else {
			r.stats.BytesToHost += uint64(len(host))
		}
	}
	return nil
}

// convert queues kernel (ff_scatter or ff_gather) on stream st over slot
// sl's whole band in place: its rows taken as ld wide, every value maps
// to itself but for the infinities.
func (s *ffStream) convert(st driver.Stream, kernel string, sl *ffSlot) error {
	count := sl.d.n
	rows := count / s.ld
	return s.r.launchOn(st, ptx.FWFast, kernel, grid1D(count, 256), Dim(256, 1, 1), 0,
		i32(s.ld), i32(s.ld), 0, i32(rows), uint64(uint32(s.mode.inf)), sl.d.arg(), sl.d.arg())
}

// ownStages queues S's own stages on the compute stream.
func (s *ffStream) ownStages(S *ffSlot, pass int) error {
	r := s.r
	sd, sp := s.args(S)
	y0, h := s.blocks(S.band)
	for st := y0; st < y0+h; st++ {
		args := []uint64{i32(s.ld), i32(st), sd, sp}
		if err := r.launchOn(s.compute, ptx.FWFast, "ff_phase1_"+s.mode.suffix, Dim(1, 1, 1), ffPhase1Block, 0, args...); err != nil {
			return err
		}
		if err := r.launchOn(s.compute, ptx.FWFast, "ff_panels_"+s.mode.suffix, Dim(s.nb, 1, 1), Dim(256, 1, 1), 0, args...); err != nil {
			return err
		}
		if err := s.stripeStage(S, st, sd, sp); err != nil {
			return err
		}
	}
	return s.updated(S, pass)
}

// update queues the stages of S on band T on the compute stream.
func (s *ffStream) update(T, S *ffSlot, pass int) error {
	sd, sp := s.args(S)
	y0, h := s.blocks(S.band)
	for st := y0; st < y0+h; st++ {
		if err := s.stripeStage(T, st, sd, sp); err != nil {
			return err
		}
	}
	return s.updated(T, pass)
}

// updated records that slot sl's band has had pass's stages.
func (s *ffStream) updated(sl *ffSlot, pass int) error {
	if err := s.r.dev.ctx.RecordOn(sl.computed, s.compute); err != nil {
		return s.r.fail(err, "recording an event")
	}
	s.updates++
	sl.dirty, sl.done, sl.used = true, pass, s.updates
	return nil
}

// stripeStage queues stage st on slot b's band: its part of the primary
// column, then the rest of it, with the primary row at bd and bp.
func (s *ffStream) stripeStage(b *ffSlot, st int, bd, bp uint64) error {
	r := s.r
	d, p := s.args(b)
	y0, h := s.blocks(b.band)
	args := []uint64{i32(s.ld), i32(st), i32(y0), d, p, bd, bp}
	if err := r.launchOn(s.compute, ptx.FWFast, "ff_stripe_col_"+s.mode.suffix, Dim(h, 1, 1), Dim(256, 1, 1), 0, args...); err != nil {
		return err
	}
	return r.launchOn(s.compute, ptx.FWFast, "ff_stripe_rest_"+s.mode.suffix, Dim(s.ld/ffTile, h, 1), Dim(256, 1, 1), 0, args...)
}

// hostBands page-locks (registers) n-wide matrices band by band on
// goroutines of their own, in band order, so that the first copies need
// not wait for the whole matrices; wait(b) returns once band b of every
// matrix is registered. Each band is registered in pieces of whole rows,
// at most regPiece bytes each, several at once (the driver pins pages on
// several cores). A piece that cannot be registered is copied from
// pageable memory (pinned against the collector), more slowly: the run
// goes on.
type hostBands struct {
	ctx    driver.Context
	pieces []hostPiece
	span   [][][2]int // [matrix][band]: the band's pieces, from and to
	ready  []chan struct{}
	pin    runtime.Pinner
	wg     sync.WaitGroup
}

// hostPiece is one registration: rows of a band of a matrix.
type hostPiece struct {
	band, row0 int
	mem        []int32
	ok         bool // registered
}

// regPiece is the most bytes one registration of a streamed run takes
// (64 MiB; a variable so that tests can make bands of several pieces),
// regWorkers the most registrations at once.
var regPiece = 64 << 20

const regWorkers = 8

// registerBands starts registering the n-wide matrices mats in bands of
// band rows, bands of them, in pieces of at most piece bytes (one row at
// least).
func registerBands(ctx driver.Context, mats [][]int32, n, band, bands, piece int) *hostBands {
	h := &hostBands{ctx: ctx, ready: make([]chan struct{}, bands), span: make([][][2]int, len(mats))}
	per := max(1, piece/(4*max(n, 1))) // rows per piece
	left := make([]atomic.Int32, bands)
	for k := range mats {
		h.span[k] = make([][2]int, bands)
	}
	for b := range bands {
		h.ready[b] = make(chan struct{})
		for k, m := range mats {
			h.span[k][b][0] = len(h.pieces)
			for r0 := b * band; r0 < min((b+1)*band, n); r0 += per {
				r1 := min(r0+per, (b+1)*band, n)
				h.pieces = append(h.pieces, hostPiece{band: b, row0: r0, mem: m[r0*n : r1*n]})
				left[b].Add(1)
			}
			h.span[k][b][1] = len(h.pieces)
		}
		if left[b].Load() == 0 {
			close(h.ready[b])
		}
	}
	for _, m := range mats {
		if len(m) > 0 {
			h.pin.Pin(&m[0])
		}
	}
	h.each(func(p *hostPiece) {
		p.ok = ctx.HostRegister(asBytes(p.mem)) == nil
		if left[p.band].Add(-1) == 0 {
			close(h.ready[p.band])
		}
	})
	return h
}

// of returns the pieces of band b of matrix k.
func (h *hostBands) of(k, b int) []hostPiece { return h.pieces[h.span[k][b][0]:h.span[k][b][1]] }

// wait blocks until band b is registered (or given up on).
func (h *hostBands) wait(b int) { <-h.ready[b] }

// release unregisters what was registered (after the copies that use it;
// the caller has synchronised) and unpins the matrices.
func (h *hostBands) release() {
	h.wg.Wait()
	h.each(func(p *hostPiece) {
		if p.ok {
			_ = h.ctx.HostUnregister(asBytes(p.mem)) // nothing left to do about a failed unregister
		}
	})
	h.wg.Wait()
	h.pin.Unpin()
}

// each calls f on every piece in order, regWorkers at a time, on
// goroutines counted in h.wg.
func (h *hostBands) each(f func(p *hostPiece)) {
	var next atomic.Int64
	for range min(regWorkers, runtime.GOMAXPROCS(0), len(h.pieces)) {
		h.wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(h.pieces) {
					return
				}
				f(&h.pieces[i])
			}
		})
	}
}

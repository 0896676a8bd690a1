package gpu

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

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
	return capped(free, limit), nil
}

// capped is free capped by limit when it is set (Options.DeviceMemory).
func capped(free, limit uint64) uint64 {
	if limit > 0 {
		return min(free, limit)
	}
	return free
}

// blocks is a range of block rows, from y0 to y1 (not included).
type blocks struct{ y0, y1 int }

// rows is the range's block row count.
func (s blocks) rows() int { return s.y1 - s.y0 }

// ffPlan is the shape of a streamed fw-fast run on cards devices. Pass p
// takes the consecutive block rows segs[p] as its primary rows (so that
// the passes take the stages in the order of fw-fast in memory), cut into
// one chunk a card, in card order: chunks[c][p]. Card c owns its chunks of
// every pass, holds all of the pass's primary rows at once in its primary
// buffer (a region per card, regions[q] block rows for card q's chunks),
// and sends every other block row it owns through the card in bands
// (units[c], each inside one chunk, of at most unit block rows), slots band
// buffers at a time.
type ffPlan struct {
	n, ld, nb, matrices int
	passes              int
	segs                []blocks
	chunks              [][]blocks
	units               [][]blocks
	unitPass            [][]int // the pass whose chunk holds each unit
	regions             []int
	unit, slots         int
}

// ffUnitMax is the most block rows of a band: wider ones only take memory
// from the primary rows. ffUnitMin is the fewest a plan with ffSlotsMax
// band buffers takes (narrower bands make small kernels, whose latency
// shows); a variable, so that tests can cut chunks into several bands.
const ffUnitMax = 16

var ffUnitMin = 4

// ffSlotsMax is how many band buffers a card keeps when its memory allows:
// two being updated (one on each compute stream, so that one's small
// kernels overlap the other's large ones), one being copied in and one
// being copied out.
const ffSlotsMax = 4

// planFWStream shapes a streamed run of n vertices (matrices int32
// matrices) on cards devices with budget bytes each: the fewest passes
// whose primary rows leave room for ffSlotsMax bands of at least ffUnitMin
// block rows (or of the whole chunk, when chunks are smaller); failing that, the
// fewest passes that leave room for two bands, then one, of one block row.
func planFWStream(n, matrices, cards int, budget uint64) (ffPlan, error) {
	ld := max(ceilDiv(n, ffTile), 1) * ffTile
	nb := ld / ffTile
	rowBytes := uint64(ffTile) * uint64(ld) * 4 * uint64(matrices)
	fit := int((budget - min(budget/64, 256<<20)) / rowBytes) // block rows that fit, less room for the driver's rounding
	for _, try := range []struct{ slots, unit int }{{ffSlotsMax, ffUnitMin}, {2, 1}, {1, 1}} {
		for passes := 1; passes <= ceilDiv(nb, cards); passes++ { // past that, a pass would leave cards without rows
			pl := ffPlan{n: n, ld: ld, nb: nb, matrices: matrices, passes: passes}
			pl.cut(cards)
			primary, chunk := 0, 0
			for _, r := range pl.regions {
				primary += r
				chunk = max(chunk, r)
			}
			unit := min((fit-primary)/try.slots, ffUnitMax, chunk)
			if fit-primary < try.slots || unit < min(try.unit, chunk) {
				continue
			}
			pl.unit, pl.slots = unit, try.slots
			pl.cutUnits()
			return pl, nil
		}
	}
	return ffPlan{}, fmt.Errorf("%s: n=%d does not fit %s of device memory even streamed: that needs %d block rows of 128 (%s each) on each of %d devices; n up to %d would fit in it",
		VariantFWFast, n, graph.FormatBytes(budget), cards+1, graph.FormatBytes(rowBytes), cards, fwFastMaxN(budget, matrices))
}

// cut splits the block rows into pl.passes consecutive segments, near
// equal, and every segment into one chunk a card, near equal, in card
// order; each card's region is its widest chunk.
func (pl *ffPlan) cut(cards int) {
	pl.chunks = make([][]blocks, cards)
	pl.regions = make([]int, cards)
	for p := range pl.passes {
		seg := blocks{p * pl.nb / pl.passes, (p + 1) * pl.nb / pl.passes}
		pl.segs = append(pl.segs, seg)
		for c := range cards {
			ch := blocks{seg.y0 + c*seg.rows()/cards, seg.y0 + (c+1)*seg.rows()/cards}
			pl.chunks[c] = append(pl.chunks[c], ch)
			pl.regions[c] = max(pl.regions[c], ch.rows())
		}
	}
}

// cutUnits splits every chunk into units of at most pl.unit block rows,
// near-equal.
func (pl *ffPlan) cutUnits() {
	for _, chunks := range pl.chunks {
		var units []blocks
		var unitPass []int
		for p, ch := range chunks {
			k := ceilDiv(ch.rows(), pl.unit)
			for i := range k {
				units = append(units, blocks{ch.y0 + i*ch.rows()/k, ch.y0 + (i+1)*ch.rows()/k})
				unitPass = append(unitPass, p)
			}
		}
		pl.units = append(pl.units, units)
		pl.unitPass = append(pl.unitPass, unitPass)
	}
}

// rows returns the graph's rows in block rows s.
func (pl *ffPlan) rows(s blocks) (lo, hi int) {
	return min(s.y0*ffTile, pl.n), min(s.y1*ffTile, pl.n)
}

// chunkUnits lists the units of card c's chunk of pass p, in order.
func (pl *ffPlan) chunkUnits(c, p int) []int {
	var units []int
	for i, q := range pl.unitPass[c] {
		if q == p {
			units = append(units, i)
		}
	}
	return units
}

// firstUse returns, for every card, the units it owns in the order in
// which the passes first copy them from the host (useOrder).
func (pl *ffPlan) firstUse() [][]blocks {
	lanes := make([][]blocks, len(pl.units))
	for c := range lanes {
		for _, i := range pl.useOrder(c) {
			lanes[c] = append(lanes[c], pl.units[c][i])
		}
	}
	return lanes
}

// useOrder lists card c's units in the order in which the passes first
// copy them in: each pass's chunk (swapChunk), then its bands (bandOrder),
// every unit once. As the passes stand, the first copies in every unit,
// its chunk's and then the others in order, so that this is the order of
// the units and the later passes add none.
func (pl *ffPlan) useOrder(c int) []int {
	var order []int
	seen := make([]bool, len(pl.units[c]))
	for p := range pl.passes {
		for _, i := range append(pl.chunkUnits(c, p), pl.bandOrder(c, p)...) {
			if !seen[i] {
				seen[i] = true
				order = append(order, i)
			}
		}
	}
	return order
}

// ffSlot is one band buffer of a streamed fw-fast run, with the stream
// that updates its bands and the events that order the streams' work on it.
type ffSlot struct {
	d, p    buffer
	compute driver.Stream
	// loaded, computed and free are recorded after the slot's last copy
	// in, update and copy out.
	loaded, computed, free driver.Event
}

// ffCard is one card's part of a streamed run: its primary buffer
// (regions[q] at block row offset at[q], holding card q's chunk of the
// pass), its band buffers and its streams: in (copies to the card and the
// conversions after them), out (conversions and copies back), two
// compute streams for the bands and peer (the other cards' primary rows,
// peerAsync); the primary rows' own stages run on the default stream.
type ffCard struct {
	r       *run
	c       int
	sd, sp  buffer
	at      []int
	slots   []*ffSlot
	next    int // the slot the next band takes
	in, out driver.Stream
	compute [2]driver.Stream
	// doneWith[k] is recorded on compute stream k after a pass's bands,
	// stored[i] on the out stream after unit i's latest copy out (0
	// before the first): its next copy in waits for it.
	doneWith [2]driver.Event
	stored   []driver.Event
	// marks holds each pass's events for StreamSplit: on the default
	// stream before the chunk's swap, after it and after the own stages;
	// then doneWith of both compute streams; then on the default stream
	// before and after the later stages of the chunk (laterStages).
	marks [][7]driver.Event
	// peer, on a card that reaches another directly, receives that card's
	// primary rows (sendRow); rowIn[q][i] is recorded on it after row i of
	// card q's chunk of the pass came in, copied after the pass's last.
	peer   driver.Stream
	rowIn  [][]driver.Event
	copied driver.Event
}

// ffStream is a streamed fw-fast run on the cards of grp.
type ffStream struct {
	grp   *group
	pl    ffPlan
	res   *graph.AllPairs
	mode  ffMode
	cards []*ffCard
	regs  *hostBands
	split *StreamSplit
}

// fwFastStreamed is fw-fast for matrices that do not fit the devices of
// grp: they stay in host memory (the result, built in place), and block
// rows go through the devices. Pass p takes the next consecutive block
// rows S as its primary rows, a chunk of them on each card (planFWStream),
// so that the passes take the stages in fw-fast's order. The cards run
// S's own stages together, as fw-fast on several cards runs every stage
// (the owner of each block row closes its tile, updates its row and
// copies it to the other cards), but each stage updates only the primary
// rows below it: every primary row then stays as its own stage left it,
// which is the primary row fw-fast in memory gives the other rows at that
// stage, and every card holds all of S. Each card then streams the other
// block rows it owns through its band buffers, giving each band the stages
// of S in order, and last gives each row of its chunk the stages of the
// rows of S below it, which it lacks (laterStages). Every tile thus takes every stage in
// fw-fast's order with the operands it takes in memory, so the result is
// the in-memory one value for value, Π included.
//
// The primary rows take most of a card's memory (the fewer passes, the
// fewer copies), the bands the rest (planFWStream). While the compute
// streams update two bands, a third is copied in and a fourth out, each
// copy straight between the host matrix (registered, page-locked, piece
// by piece in the order in which the cards first copy the pieces, beside
// the first pass with registerAhead) and the padded band; graph.Inf and
// the kernels' infinity are converted in place on the device. At the end
// of a pass each card copies its chunk out and the next one in, unit by
// unit, the copy in of each unit waiting only for the copies out that free
// its rows.
func fwFastStreamed(grp *group, g *graph.Graph, opts Options, mode ffMode, budget uint64) (*graph.AllPairs, error) {
	pl, err := planFWStream(g.N(), opts.matrices(), len(grp.runs), budget)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	res, err := ffResult(g, opts.Pred, pl.matrices)
	if err != nil {
		return nil, err
	}
	split := &grp.runs[0].stats.Streamed
	split.Build = time.Since(t0)
	s := &ffStream{grp: grp, pl: pl, res: res, mode: mode, split: split}
	for c, r := range grp.runs {
		card, err := s.newCard(c, r)
		if err != nil {
			return nil, err
		}
		s.cards = append(s.cards, card)
	}
	mats := [][]int32{res.Dist}
	if res.Pred != nil {
		mats = append(mats, res.Pred)
	}
	s.regs = registerBands(grp.runs[0].dev.ctx, mats, pl.n, pl.firstUse(), regPiece)
	for _, r := range grp.runs {
		r.prepare()
	}
	err = grp.kernels(s.passes)
	if cerr := s.close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	for _, r := range grp.runs {
		r.fetchedAt = time.Now()
	}
	t0 = time.Now()
	res, err = grp.runs[0].finishFWFast(g, res)
	split.Finish = time.Since(t0)
	return res, err
}

// newCard allocates card c's buffers (the padding columns filled with the
// kernels' infinity for good), streams and events.
func (s *ffStream) newCard(c int, r *run) (*ffCard, error) {
	pl := &s.pl
	card := &ffCard{r: r, c: c, stored: make([]driver.Event, len(pl.units[c]))}
	rows := 0
	for _, h := range pl.regions {
		card.at = append(card.at, rows)
		rows += h
	}
	var err error
	newBuf := func(blocks int, pred bool) (buffer, error) {
		b, err := r.alloc(blocks * ffTile * pl.ld)
		if err != nil {
			return b, err
		}
		v := s.mode.inf
		if pred {
			v = graph.Nil
		}
		return b, r.fill(b, v)
	}
	if card.sd, err = newBuf(rows, false); err != nil {
		return nil, err
	}
	if pl.matrices == 2 {
		if card.sp, err = newBuf(rows, true); err != nil {
			return nil, err
		}
	}
	streams := []*driver.Stream{&card.in, &card.out, &card.compute[0], &card.compute[1]}
	for from := range s.grp.runs {
		if peerAsync && from != c && s.grp.direct[from][c] {
			streams = append(streams, &card.peer) // one peer stream, whatever the cards that reach c
			break
		}
	}
	for _, st := range streams {
		if *st, err = r.dev.ctx.NewStream(); err != nil {
			return nil, r.fail(err, "creating a stream")
		}
	}
	for i := range pl.slots {
		sl := &ffSlot{compute: card.compute[i%2]}
		if sl.d, err = newBuf(pl.unit, false); err != nil {
			return nil, err
		}
		if pl.matrices == 2 {
			if sl.p, err = newBuf(pl.unit, true); err != nil {
				return nil, err
			}
		}
		for _, e := range []*driver.Event{&sl.loaded, &sl.computed, &sl.free} {
			if *e, err = r.event(); err != nil {
				return nil, err
			}
		}
		card.slots = append(card.slots, sl)
	}
	// The streams start after the default stream's work so far (the
	// buffers' fills).
	to := []driver.Stream{card.in, card.out, card.compute[0], card.compute[1]}
	if card.peer != 0 {
		to = append(to, card.peer)
	}
	return card, card.join(0, to...)
}

// join makes the work queued later on each of to wait for what is queued
// on from now.
func (card *ffCard) join(from driver.Stream, to ...driver.Stream) error {
	e, err := card.r.event()
	if err != nil {
		return err
	}
	return card.r.signal(e, from, to...)
}

// close waits for the cards, releases the host matrices' page locks and
// destroys the streams.
func (s *ffStream) close() error {
	var err error
	for _, card := range s.cards {
		if e := card.r.dev.ctx.Synchronize(); e != nil && err == nil {
			err = card.r.fail(e, "streamed fw-fast")
		}
	}
	if s.regs != nil {
		t0 := time.Now()
		s.regs.release()
		s.split.Unregister = time.Since(t0)
		s.split.Register = s.regs.took
	}
	for _, card := range s.cards {
		for _, st := range []driver.Stream{card.in, card.out, card.compute[0], card.compute[1], card.peer} {
			if st != 0 {
				_ = card.r.dev.ctx.DestroyStream(st) // nothing left to do about a failed destroy
			}
		}
	}
	return err
}

// region returns card's primary buffer for card q's chunk of pass p as
// kernel arguments that address it as the whole matrix.
func (s *ffStream) region(card *ffCard, q, p int) (d, p2 uint64) {
	off := DevicePtr(card.at[q]) * ffTile * DevicePtr(s.pl.ld) * 4
	y0 := s.pl.chunks[q][p].y0
	d = stripeArg(buffer{card.sd.ptr + off, 1}, y0, s.pl.ld)
	if card.sp.n > 0 {
		p2 = stripeArg(buffer{card.sp.ptr + off, 1}, y0, s.pl.ld)
	}
	return d, p2
}

// passes queues every pass on every card, then makes each card's default
// stream wait for all of its streams (so that the kernel time's closing
// event follows them), and times the parts of the passes.
func (s *ffStream) passes() error {
	rowsDone := 0
	for p := range s.pl.passes {
		for _, card := range s.cards {
			card.marks = append(card.marks, [7]driver.Event{})
			if err := card.mark(&card.marks[p][0], 0); err != nil {
				return err
			}
			if err := s.swapChunk(card, p); err != nil {
				return err
			}
			if err := card.mark(&card.marks[p][1], 0); err != nil {
				return err
			}
		}
		if err := s.ownStages(p); err != nil {
			return err
		}
		// Each card's bands from a goroutine of its own: a card's queue of
		// launches is bounded, and the host must not wait on one card's
		// while another's runs dry.
		err := s.eachCard(func(card *ffCard) error {
			if err := card.mark(&card.marks[p][2], 0); err != nil {
				return err
			}
			if err := card.join(0, card.compute[0], card.compute[1]); err != nil {
				return err
			}
			if err := s.bands(card, p); err != nil {
				return err
			}
			for k, st := range card.compute {
				if err := card.mark(&card.doneWith[k], st); err != nil {
					return err
				}
				card.marks[p][3+k] = card.doneWith[k]
			}
			if err := s.afterBands(card, 0); err != nil {
				return err
			}
			if err := card.mark(&card.marks[p][5], 0); err != nil {
				return err
			}
			if err := s.laterStages(card, p); err != nil {
				return err
			}
			return card.mark(&card.marks[p][6], 0)
		})
		if err != nil {
			return err
		}
		for q := range s.cards {
			lo, hi := s.pl.rows(s.pl.chunks[q][p])
			rowsDone += hi - lo
		}
		s.grp.runs[0].stats.Passes++
		s.grp.runs[0].report(rowsDone, s.pl.n)
	}
	for _, card := range s.cards {
		if err := s.storeChunk(card, s.pl.passes-1); err != nil {
			return err
		}
		if err := card.join(card.compute[0], 0); err != nil {
			return err
		}
		if err := card.join(card.compute[1], 0); err != nil {
			return err
		}
		if err := card.join(card.in, 0); err != nil {
			return err
		}
		if err := card.join(card.out, 0); err != nil {
			return err
		}
		if card.peer != 0 {
			if err := card.join(card.peer, 0); err != nil {
				return err
			}
		}
	}
	return s.time()
}

// eachCard calls f on every card, each from a goroutine of its own, and
// returns their errors joined.
func (s *ffStream) eachCard(f func(card *ffCard) error) error {
	return inParallel(len(s.cards), func(i int) error { return f(s.cards[i]) })
}

// mark records a new event on stream st of card into e.
func (card *ffCard) mark(e *driver.Event, st driver.Stream) error {
	var err error
	if *e, err = card.r.event(); err != nil {
		return err
	}
	if err := card.r.dev.ctx.RecordOn(*e, st); err != nil {
		return card.r.fail(err, "recording an event")
	}
	return nil
}

// time adds up the parts of every pass into the split, the slowest card's
// of each part; the own stages are those before the bands and the later
// ones after them.
func (s *ffStream) time() error {
	for p := range s.pl.passes {
		var part [3]time.Duration
		for _, card := range s.cards {
			m := card.marks[p]
			ctx := card.r.dev.ctx
			var dts [5]time.Duration
			for i, pair := range [][2]driver.Event{{m[0], m[1]}, {m[1], m[2]}, {m[5], m[6]}, {m[2], m[3]}, {m[2], m[4]}} {
				var err error
				if dts[i], err = ctx.Elapsed(pair[0], pair[1]); err != nil {
					return card.r.fail(err, "streamed fw-fast, pass %d", p)
				}
			}
			part[0] = max(part[0], dts[0])
			part[1] = max(part[1], dts[1]+dts[2])
			part[2] = max(part[2], dts[3], dts[4])
		}
		s.split.Load += part[0]
		s.split.Own += part[1]
		s.split.Bands += part[2]
	}
	return nil
}

// swapChunk queues, on card, the copy out of its chunk of pass p-1 (after
// the bands of pass p-1, the last work that reads it) and the copy in of
// its chunk of pass p, unit by unit: each unit in after the units out
// whose rows it takes. The default stream, which runs the own stages,
// waits for both.
func (s *ffStream) swapChunk(card *ffCard, p int) error {
	ctx := card.r.dev.ctx
	var freed []driver.Event // after the copy out of each unit of the old chunk
	var ends []int           // the block row (in the region) where each ends
	if p > 0 {
		old := s.pl.chunks[card.c][p-1]
		for _, i := range s.pl.chunkUnits(card.c, p-1) {
			if err := s.storeChunkUnit(card, i, old, len(freed) == 0); err != nil {
				return err
			}
			freed = append(freed, card.stored[i])
			ends = append(ends, s.pl.units[card.c][i].y1-old.y0)
		}
	}
	ch := s.pl.chunks[card.c][p]
	k := 0
	for _, i := range s.pl.chunkUnits(card.c, p) {
		u := s.pl.units[card.c][i]
		for k < len(freed)-1 && ends[k] < u.y1-ch.y0 {
			k++
		}
		if k < len(freed) {
			if err := ctx.WaitEvent(card.in, freed[k]); err != nil {
				return card.r.fail(err, "waiting for an event")
			}
		}
		d, pr := s.regionBuf(card, card.c, u.y0-ch.y0, u.rows())
		if err := s.load(card, i, d, pr); err != nil {
			return err
		}
	}
	// The other cards' regions, which the bands of the last pass read,
	// are written by the next own stages' copies: on the peer stream,
	// which ownStages makes wait for the default stream (itself after
	// those bands, through the later stages), or by cuMemcpyPeer, after
	// all work queued.
	return card.join(card.in, 0)
}

// afterBands makes stream st of card wait for the bands queued so far.
func (s *ffStream) afterBands(card *ffCard, st driver.Stream) error {
	for _, e := range card.doneWith {
		if e == 0 {
			continue
		}
		if err := card.r.dev.ctx.WaitEvent(st, e); err != nil {
			return card.r.fail(err, "waiting for an event")
		}
	}
	return nil
}

// storeChunk queues the copy out of card's chunk of pass p, after the
// pass's bands.
func (s *ffStream) storeChunk(card *ffCard, p int) error {
	ch := s.pl.chunks[card.c][p]
	for j, i := range s.pl.chunkUnits(card.c, p) {
		if err := s.storeChunkUnit(card, i, ch, j == 0); err != nil {
			return err
		}
	}
	return nil
}

// storeChunkUnit queues the copy out of unit i of card's chunk ch from its
// region; first makes the out stream wait for the bands queued so far.
func (s *ffStream) storeChunkUnit(card *ffCard, i int, ch blocks, first bool) error {
	u := s.pl.units[card.c][i]
	if first {
		if err := s.afterBands(card, card.out); err != nil {
			return err
		}
		if err := card.join(0, card.out); err != nil { // the own and later stages
			return err
		}
	}
	d, p := s.regionBuf(card, card.c, u.y0-ch.y0, u.rows())
	return s.store(card, i, d, p)
}

// regionBuf returns block rows from .. from+rows-1 of region q of card's
// primary buffers.
func (s *ffStream) regionBuf(card *ffCard, q, from, rows int) (d, p buffer) {
	row := ffTile * s.pl.ld
	off := (card.at[q] + from) * row
	d = buffer{card.sd.ptr + DevicePtr(4*off), rows * row}
	if card.sp.n > 0 {
		p = buffer{card.sp.ptr + DevicePtr(4*off), rows * row}
	}
	return d, p
}

// load queues on card's in stream, after unit i's latest copy out, its
// copy from the host matrices into d and p, and the conversion of
// graph.Inf to the kernels' infinity.
func (s *ffStream) load(card *ffCard, i int, d, p buffer) error {
	u := s.pl.units[card.c][i]
	if e := card.stored[i]; e != 0 {
		if err := card.r.dev.ctx.WaitEvent(card.in, e); err != nil {
			return card.r.fail(err, "waiting for an event")
		}
	}
	if err := s.copyUnit(card, d, 0, u, true); err != nil {
		return err
	}
	if s.mode.inf != graph.Inf {
		if err := s.convert(card, card.in, "ff_scatter", d, u.rows()); err != nil {
			return err
		}
	}
	if p.n > 0 {
		return s.copyUnit(card, p, 1, u, true)
	}
	return nil
}

// store queues on card's out stream the conversion of the kernels'
// infinity back to graph.Inf in d, in place, and the copies of unit i
// from d and p to the host matrices, and records its stored event.
func (s *ffStream) store(card *ffCard, i int, d, p buffer) error {
	u := s.pl.units[card.c][i]
	if s.mode.inf != graph.Inf {
		if err := s.convert(card, card.out, "ff_gather", d, u.rows()); err != nil {
			return err
		}
	}
	if err := s.copyUnit(card, d, 0, u, false); err != nil {
		return err
	}
	if p.n > 0 {
		if err := s.copyUnit(card, p, 1, u, false); err != nil {
			return err
		}
	}
	return card.mark(&card.stored[i], card.out)
}

// ownStages queues pass p's own stages on every card's default stream, in
// order: for each stage (block row st of card q's chunk), card q closes
// the primary tile and updates the primary row in its region q, copies the
// row into the other cards' regions q, and every card updates the rows of
// its chunk below st. The rows above st take stage st after the pass's
// bands (laterStages): until then each primary row stays as its own stage
// left it, the primary row that fw-fast in memory gives every other row at
// that stage, so that the bands, whose stages read it, get the in-memory
// result, Π included. Every card then holds the pass's primary rows.
func (s *ffStream) ownStages(p int) error {
	pl := &s.pl
	for _, card := range s.cards {
		if card.peer != 0 {
			// The rows come in after the card's work so far: the last
			// pass's bands and later stages, which read the regions.
			if err := card.join(0, card.peer); err != nil {
				return err
			}
			card.rowIn = make([][]driver.Event, len(s.cards))
		}
	}
	for q, owner := range s.cards {
		ch := pl.chunks[q][p]
		od, op := s.region(owner, q, p)
		for st := ch.y0; st < ch.y1; st++ {
			args := []uint64{i32(pl.ld), i32(st), od, op}
			r := owner.r
			if err := r.launch(s.mode.module, "ff_phase1_"+s.mode.suffix, Dim(1, 1, 1), ffPhase1Block, 0, args...); err != nil {
				return err
			}
			if err := r.launch(s.mode.module, "ff_panels_"+s.mode.suffix, Dim(pl.nb, 1, 1), Dim(256, 1, 1), 0, args...); err != nil {
				return err
			}
			// The row is final: the copies to the cards that take it on
			// their peer streams wait for this event, not for the
			// owner's later work.
			var final driver.Event
			for _, card := range s.cards {
				if card != owner && card.peer != 0 && s.grp.direct[owner.c][card.c] {
					if err := owner.mark(&final, 0); err != nil {
						return err
					}
					break
				}
			}
			for _, card := range s.cards {
				if card != owner {
					if err := s.sendRow(owner, card, q, st-ch.y0, final); err != nil {
						return err
					}
				}
				own := pl.chunks[card.c][p]
				below := blocks{max(own.y0, st+1), own.y1}
				if below.rows() <= 0 {
					continue
				}
				if err := s.rowWait(card, 0, q, st-ch.y0); err != nil {
					return err
				}
				d, pr := s.region(card, card.c, p)
				bd, bp := s.region(card, q, p)
				if err := s.stripeStage(card, 0, below, d, pr, st, bd, bp); err != nil {
					return err
				}
			}
		}
	}
	// Each owner's default stream, whose later work (the later stages,
	// the next pass's swap) overwrites its rows, waits for their copies.
	for _, card := range s.cards {
		if card.peer == 0 {
			continue
		}
		if err := card.mark(&card.copied, card.peer); err != nil {
			return err
		}
		for _, owner := range s.cards {
			if owner != card && s.grp.direct[owner.c][card.c] {
				if err := owner.r.dev.ctx.(driver.Peer).WaitPeerEvent(0, card.r.dev.ctx, card.copied); err != nil {
					return owner.r.fail(err, "waiting for %s's copies", card.r.dev.info.Name)
				}
			}
		}
	}
	return nil
}

// laterStages queues on card's default stream (which the caller has
// made wait for the card's bands of pass p, which read the chunk) the stages of pass p that its chunk's rows above them still lack: for
// each stage st after the chunk's first row, the chunk's rows above st,
// with the primary row of st as its own stage left it (ownStages).
func (s *ffStream) laterStages(card *ffCard, p int) error {
	own := s.pl.chunks[card.c][p]
	if own.rows() == 0 {
		return nil
	}
	d, pr := s.region(card, card.c, p)
	for q := range s.cards {
		ch := s.pl.chunks[q][p]
		bd, bp := s.region(card, q, p)
		for st := max(ch.y0, own.y0+1); st < ch.y1; st++ {
			above := blocks{own.y0, min(own.y1, st)}
			if err := s.rowWait(card, 0, q, st-ch.y0); err != nil {
				return err
			}
			if err := s.stripeStage(card, 0, above, d, pr, st, bd, bp); err != nil {
				return err
			}
		}
	}
	return nil
}

// peerAsync makes streamed fw-fast copy each primary row to a card that
// reaches its owner directly on the receiving card's peer stream
// (sendRow), ordered by events: the row after its own stage, the card's
// work that reads it after the row, the owner's later work that
// overwrites it after the copy. Off, each copy is cuMemcpyPeer's, which
// comes after all work queued on both cards and before all work queued
// later: a barrier of both cards for every primary row, so that one
// card's bands waited for the other's own stages. A variable, so that
// benchmarks time both ways.
var peerAsync = true

// sendRow copies block row at of region q (card q's chunk) from one
// card's primary buffers to another's. Where to reaches from directly the
// copy runs on to's peer stream, after event final of from's default
// stream (recorded when the row was done), and rowIn records its end;
// otherwise the copy (copyPanel: cuMemcpyPeer, or through the host) comes
// after all work queued on both cards, and later work on either after it.
func (s *ffStream) sendRow(from, to *ffCard, q, at int, final driver.Event) error {
	fd, fp := s.regionBuf(from, q, at, 1)
	td, tp := s.regionBuf(to, q, at, 1)
	if to.peer == 0 || !s.grp.direct[from.c][to.c] {
		if err := s.grp.copyPanel(from.c, to.c, fd.ptr, td.ptr, fd.n); err != nil {
			return err
		}
		if fp.n > 0 {
			return s.grp.copyPanel(from.c, to.c, fp.ptr, tp.ptr, fp.n)
		}
		return nil
	}
	peer := to.r.dev.ctx.(driver.Peer)
	if err := peer.WaitPeerEvent(to.peer, from.r.dev.ctx, final); err != nil {
		return to.r.fail(err, "waiting for %s's row", from.r.dev.info.Name)
	}
	for _, b := range [][2]buffer{{fd, td}, {fp, tp}} {
		if b[0].n == 0 {
			continue
		}
		bytes := uint64(b[0].n) * 4
		s.grp.peer += bytes
		if err := peer.CopyPeerAsync(b[1].ptr, from.r.dev.ctx, b[0].ptr, bytes, to.peer); err != nil {
			return to.r.fail(err, "copying a row from %s", from.r.dev.info.Name)
		}
	}
	for len(to.rowIn[q]) <= at {
		to.rowIn[q] = append(to.rowIn[q], 0)
	}
	return to.mark(&to.rowIn[q][at], to.peer)
}

// rowWait makes stream st of card wait for row at of card q's chunk of
// the pass, where sendRow copied it on card's peer stream.
func (s *ffStream) rowWait(card *ffCard, st driver.Stream, q, at int) error {
	if q == card.c || card.rowIn == nil || at >= len(card.rowIn[q]) {
		return nil
	}
	if err := card.r.dev.ctx.WaitEvent(st, card.rowIn[q][at]); err != nil {
		return card.r.fail(err, "waiting for an event")
	}
	return nil
}

// bands queues pass p's updates of card's other block rows: each unit of
// its chunks outside that of pass p goes through the next band
// buffer: copied in on the in stream after the buffer's last copy out,
// given every stage of the pass on the buffer's compute stream (the
// primary rows in card's primary buffer), and copied out on the out
// stream.
func (s *ffStream) bands(card *ffCard, p int) error {
	ctx := card.r.dev.ctx
	fail := func(err error) error { return card.r.fail(err, "ordering the streams") }
	for _, i := range s.pl.bandOrder(card.c, p) {
		u := s.pl.units[card.c][i]
		sl := card.slots[card.next]
		card.next = (card.next + 1) % len(card.slots)
		if err := ctx.WaitEvent(card.in, sl.free); err != nil {
			return fail(err)
		}
		if err := s.load(card, i, sl.d, sl.p); err != nil {
			return err
		}
		if err := ctx.RecordOn(sl.loaded, card.in); err != nil {
			return fail(err)
		}
		if err := ctx.WaitEvent(sl.compute, sl.loaded); err != nil {
			return fail(err)
		}
		d, pr := stripeArg(sl.d, u.y0, s.pl.ld), uint64(0)
		if sl.p.n > 0 {
			pr = stripeArg(sl.p, u.y0, s.pl.ld)
		}
		for q := range s.cards {
			bd, bp := s.region(card, q, p)
			ch := s.pl.chunks[q][p]
			for st := ch.y0; st < ch.y1; st++ {
				if err := s.rowWait(card, sl.compute, q, st-ch.y0); err != nil {
					return err
				}
				if err := s.stripeStage(card, sl.compute, u, d, pr, st, bd, bp); err != nil {
					return err
				}
			}
		}
		if err := ctx.RecordOn(sl.computed, sl.compute); err != nil {
			return fail(err)
		}
		if err := ctx.WaitEvent(card.out, sl.computed); err != nil {
			return fail(err)
		}
		if err := s.store(card, i, sl.d, sl.p); err != nil {
			return err
		}
		if err := ctx.RecordOn(sl.free, card.out); err != nil {
			return fail(err)
		}
	}
	return nil
}

// bandOrder lists the units card c updates in pass p: those of its chunk
// of pass p+1 first, so that their copies out, which the next pass's
// copies in of its chunk wait for, are done early; then the others after
// it, and those before it.
func (pl *ffPlan) bandOrder(c, p int) []int {
	var next, later, before []int
	for i, q := range pl.unitPass[c] {
		switch {
		case q == p+1:
			next = append(next, i)
		case q > p+1:
			later = append(later, i)
		case q < p:
			before = append(before, i)
		}
	}
	return append(append(next, later...), before...)
}

// stripeStage queues stage st on stream st of card for block rows u
// (addressed as the whole matrix by d and p): their part of the primary
// column, then the rest of them, with the primary row at bd and bp.
func (s *ffStream) stripeStage(card *ffCard, on driver.Stream, u blocks, d, p uint64, st int, bd, bp uint64) error {
	r := card.r
	args := []uint64{i32(s.pl.ld), i32(st), i32(u.y0), d, p, bd, bp}
	if err := r.launchOn(on, s.mode.module, "ff_stripe_col_"+s.mode.suffix, Dim(u.rows(), 1, 1), Dim(256, 1, 1), 0, args...); err != nil {
		return err
	}
	return r.launchOn(on, s.mode.module, "ff_stripe_rest_"+s.mode.suffix, Dim(s.pl.nb, u.rows(), 1), Dim(256, 1, 1), 0, args...)
}

// convert queues kernel (ff_scatter or ff_gather) on stream st over the
// first rows block rows of b in place: every value maps to itself but
// for the infinities.
func (s *ffStream) convert(card *ffCard, st driver.Stream, kernel string, b buffer, rows int) error {
	count := rows * ffTile * s.pl.ld
	return card.r.launchOn(st, ptx.FWFast, kernel, grid1D(count, 256), Dim(256, 1, 1), 0,
		i32(s.pl.ld), i32(s.pl.ld), 0, i32(rows*ffTile), uint64(uint32(s.mode.inf)), b.arg(), b.arg())
}

// copyUnit queues the copy of unit u of host matrix k (0 distances, 1
// predecessors) to (in, on the in stream) or from (on the out stream)
// buf, whose rows are ld values apart: one 2D copy per registered piece
// (a copy must not span two registrations), or row by row from a piece
// the driver would not register.
func (s *ffStream) copyUnit(card *ffCard, buf buffer, k int, u blocks, in bool) error {
	r, n, ld := card.r, s.pl.n, s.pl.ld
	lo, _ := s.pl.rows(u)
	pieces := s.regs.of(k, u.y0)
	for i := range pieces {
		pc := &pieces[i]
		<-pc.ready // registered in the background (registerAhead)
		dev := buf.ptr + DevicePtr(4*(pc.row0-lo)*ld)
		rows := len(pc.mem) / n
		host := asBytes(pc.mem)
		var err error
		switch {
		case in && pc.ok:
			err = r.dev.ctx.CopyIn2DAsync(dev, 4*ld, host, 4*n, 4*n, rows, card.in)
		case pc.ok:
			err = r.dev.ctx.CopyOut2DAsync(host, 4*n, dev, 4*ld, 4*n, rows, card.out)
		default:
			for i := 0; i < rows && err == nil; i++ {
				row, at := host[4*i*n:4*(i+1)*n], dev+DevicePtr(4*i*ld)
				if in {
					err = r.dev.ctx.CopyInAsync(at, row, card.in)
				} else {
					err = r.dev.ctx.CopyOutAsync(row, at, card.out)
				}
			}
		}
		if err != nil {
			return r.fail(err, "copying rows %d..%d of a %d×%d matrix", pc.row0, pc.row0+rows-1, n, n)
		}
		if in {
			r.stats.BytesToDevice += uint64(len(host))
		} else {
			r.stats.BytesToHost += uint64(len(host))
		}
	}
	return nil
}

// hostBands page-locks (registers) n-wide matrices band by band, each
// band in pieces of whole rows, at most regPiece bytes each, regWorkers at
// once (the driver pins pages on several cores). A piece that cannot be
// registered is copied from pageable memory (pinned against the
// collector), more slowly: the run goes on.
type hostBands struct {
	ctx    driver.Context
	pieces []hostPiece
	order  []int             // the pieces' indices in the order they are handed out (each)
	at     map[[2]int][2]int // (matrix, band's first block row): its pieces, from and to
	pin    runtime.Pinner
	done   chan struct{} // closed once every piece is registered or given up on
	took   time.Duration // the registering's time, set before done closes
}

// hostPiece is one registration: rows from row0 of a matrix.
type hostPiece struct {
	row0  int
	mem   []int32
	ok    bool          // registered; read it once ready is closed
	ready chan struct{} // closed once ok is set
}

// regPiece is the most bytes one registration of a streamed run takes
// (64 MiB; a variable so that tests can make bands of several pieces),
// regWorkers the most registrations at once.
var regPiece = 64 << 20

const regWorkers = 8

// registerAhead makes registerBands return at once and register in the
// background while the first pass runs, the pieces in the order in which
// the cards first copy them (ffPlan.firstUse, the cards taking turns): a
// copy waits only for its own piece (copyUnit). Off (the default),
// registerBands returns once everything is registered. On one card the
// order of first use is the order of the bands; on several, that order
// registered each card's pieces only after those of the cards before it.
// On an H200 (BenchmarkFWFastStreamedCall, n = 32768 with Π, one card)
// the whole call took 4104 against 4309 ms, but the kernels 3500 against
// 3086, below issue 26's 75 % of the in-memory rate: the first pass,
// which copies in every piece, waited 470 ms for registrations that could
// not keep up with it. Several cards in the order of first use are not
// measured yet. A variable so that one process can time both.
var registerAhead = false

// registerBands registers the n-wide matrices mats in bands (of block
// rows), in pieces of at most piece bytes (one row at least). lanes[c]
// holds card c's bands in the order in which it first copies them
// (ffPlan.firstUse), each band's pieces matrix by matrix, as copyUnit
// takes them; the lanes take turns, a piece each in lane order, so that
// every card's next piece comes early. With registerAhead it
// returns at once, else when every piece is registered or given up on.
func registerBands(ctx driver.Context, mats [][]int32, n int, lanes [][]blocks, piece int) *hostBands {
	h := &hostBands{ctx: ctx, at: map[[2]int][2]int{}, done: make(chan struct{})}
	per := max(1, piece/(4*max(n, 1))) // rows per piece
	spans := make([][2]int, len(lanes))
	for c, lane := range lanes {
		spans[c][0] = len(h.pieces)
		for _, b := range lane {
			h.cut(mats, n, b, per)
		}
		spans[c][1] = len(h.pieces)
	}
	h.order = takeTurns(spans)
	for _, m := range mats {
		if len(m) > 0 {
			h.pin.Pin(&m[0])
		}
	}
	register := func() {
		t0 := time.Now()
		h.each(func(p *hostPiece) {
			p.ok = ctx.HostRegister(asBytes(p.mem)) == nil
			close(p.ready)
		})
		h.took = time.Since(t0)
		close(h.done)
	}
	if !registerAhead {
		register()
		return h
	}
	go register()
	return h
}

// cut adds band b's pieces, matrix by matrix, of per rows each (the
// last fewer), and records where each matrix's are.
func (h *hostBands) cut(mats [][]int32, n int, b blocks, per int) {
	for k, m := range mats {
		from := len(h.pieces)
		for r0 := min(b.y0*ffTile, n); r0 < min(b.y1*ffTile, n); r0 += per {
			r1 := min(r0+per, b.y1*ffTile, n)
			h.pieces = append(h.pieces, hostPiece{row0: r0, mem: m[r0*n : r1*n], ready: make(chan struct{})})
		}
		h.at[[2]int{k, b.y0}] = [2]int{from, len(h.pieces)}
	}
}

// takeTurns returns the indices of the spans (from and to, not included)
// taken in turns: the first of every span in order, then the second of
// every span that has one, and so on.
func takeTurns(spans [][2]int) []int {
	total := 0
	for _, sp := range spans {
		total += sp[1] - sp[0]
	}
	order := make([]int, 0, total)
	for k := 0; len(order) < total; k++ {
		for _, sp := range spans {
			if sp[0]+k < sp[1] {
				order = append(order, sp[0]+k)
			}
		}
	}
	return order
}

// of returns the pieces of matrix k's band from block row y0.
func (h *hostBands) of(k, y0 int) []hostPiece {
	at := h.at[[2]int{k, y0}]
	return h.pieces[at[0]:at[1]]
}

// release waits for the registering to end, then unregisters what was
// registered (after the copies that use it; the caller has synchronised)
// and unpins the matrices.
func (h *hostBands) release() {
	<-h.done
	h.each(func(p *hostPiece) {
		if p.ok {
			_ = h.ctx.HostUnregister(asBytes(p.mem)) // nothing left to do about a failed unregister
		}
	})
	h.pin.Unpin()
}

// each calls f on every piece, regWorkers at a time, handing the pieces
// out in h.order, and returns when all calls have.
func (h *hostBands) each(f func(p *hostPiece)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(regWorkers, runtime.GOMAXPROCS(0), len(h.order)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(h.order) {
					return
				}
				f(&h.pieces[h.order[i]])
			}
		})
	}
	wg.Wait()
}

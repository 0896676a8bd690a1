package gpu

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/gpu/driver"
	"github.com/pathnotes/pathnotes/graph"
)

// streamCap is a device memory cap under which planFWStream finds room for
// rows block rows of fw-fast's matrices (matrices of them) of n vertices.
func streamCap(n, matrices, rows int) uint64 {
	ld := ceilDiv(n, ffTile) * ffTile
	b := uint64(rows * ffTile * ld * 4 * matrices)
	if b*64/63 < 256<<20*64 {
		return b*64/63 + 1024
	}
	return b + 256<<20 + 1024
}

// TestPlanFWStream checks the plans of a few budgets: the fewest passes
// that leave room for the band buffers, chunks and units that cover every
// stripe in order, and the error of a budget too small.
func TestPlanFWStream(t *testing.T) {
	for _, c := range []struct {
		n, cards, rows, unitMin int
		passes, slots, unit     int
		regions                 []int
	}{
		{300, 1, 5, 4, 3, 4, 1, []int{1}},
		{300, 1, 3, 4, 3, 2, 1, []int{1}},
		{300, 1, 2, 4, 3, 1, 1, []int{1}},
		{600, 1, 7, 1, 2, 4, 1, []int{3}},
		{600, 2, 5, 4, 2, 2, 1, []int{1, 2}},
		{600, 3, 5, 4, 2, 2, 1, []int{1, 1, 1}},
		{32768, 1, 87, 4, 4, 4, 5, []int{64}},
		{163840, 2, 464, 4, 3, 4, 9, []int{213, 214}},
	} {
		ffUnitMin = c.unitMin
		pl, err := planFWStream(c.n, 2, c.cards, streamCap(c.n, 2, c.rows))
		ffUnitMin = 4
		name := fmt.Sprintf("n=%d on %d cards, %d block rows", c.n, c.cards, c.rows)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if pl.passes != c.passes || pl.slots != c.slots || pl.unit != c.unit || fmt.Sprint(pl.regions) != fmt.Sprint(c.regions) {
			t.Errorf("%s: %d passes, %d slots of %d, regions %v; want %d, %d of %d, %v", name, pl.passes, pl.slots, pl.unit, pl.regions, c.passes, c.slots, c.unit, c.regions)
		}
		used := pl.slots * pl.unit
		for _, r := range pl.regions {
			used += r
		}
		if used > c.rows {
			t.Errorf("%s: the plan takes %d block rows", name, used)
		}
		next := 0
		for p, seg := range pl.segs {
			if seg.y0 != next || seg.rows() < 1 {
				t.Fatalf("%s: pass %d's rows are %v after block row %d", name, p, seg, next)
			}
			for q := range pl.chunks {
				ch := pl.chunks[q][p]
				if ch.y0 != next || ch.rows() > pl.regions[q] {
					t.Fatalf("%s: card %d's chunk %d is %v after block row %d (region %d)", name, q, p, ch, next, pl.regions[q])
				}
				next = ch.y1
			}
			if next != seg.y1 {
				t.Fatalf("%s: pass %d's chunks end at %d, its rows at %d", name, p, next, seg.y1)
			}
		}
		if next != pl.nb {
			t.Errorf("%s: the passes end at %d of %d block rows", name, next, pl.nb)
		}
		for q, chunks := range pl.chunks {
			i := 0
			for p, ch := range chunks {
				at := ch.y0
				for ; i < len(pl.units[q]) && pl.unitPass[q][i] == p; i++ {
					u := pl.units[q][i]
					if u.y0 != at || u.rows() < 1 || u.rows() > pl.unit {
						t.Fatalf("%s: card %d's unit %d is %v (from %d, in chunk %v)", name, q, i, u, at, ch)
					}
					at = u.y1
				}
				if at != ch.y1 {
					t.Errorf("%s: card %d's units of chunk %v end at %d", name, q, ch, at)
				}
			}
			if i != len(pl.units[q]) {
				t.Errorf("%s: card %d has %d units, %d in its chunks", name, q, len(pl.units[q]), i)
			}
		}
	}
	_, err := planFWStream(300, 1, 2, streamCap(300, 1, 2))
	if err == nil || !strings.Contains(err.Error(), "does not fit") || !strings.Contains(err.Error(), "3 block rows of 128") {
		t.Errorf("a budget too small: %v", err)
	}
}

// TestFWFastStreamed caps the emulated device's memory below fw-fast's
// matrices, so that it streams block rows through the device, and compares
// with the CPU in every kernel mode (the graphs of multiGraphs: distances
// only, packed predecessors, negative arcs, large weights), predecessors
// included: one, two and four band buffers of one block row, n not a
// multiple of the tile, chunks of several units, the host matrices
// registered (and copied) in pieces of a few rows. The device's default
// stream queues its work, as a card's (lazyEmulators). A cap too small
// even for streaming is an error that says what it needs.
func TestFWFastStreamed(t *testing.T) {
	ctx := context.Background()
	dev := lazyEmulators(t, 1)[0]
	defer func(p int) { regPiece = p }(regPiece)
	regPiece = 40 * 300 * 4 // bands of 128 rows in pieces of 40 and 8 rows
	small := multiGraphs(t, 300)
	for _, c := range []struct {
		n, rows, unitMin, passes int
	}{{300, 2, 4, 3}, {300, 3, 4, 3}, {600, 7, 1, 2}} {
		gs := small
		if c.n != 300 {
			gs = []testGraph{sparseWithCPU(t, c.n)}
		}
		ffUnitMin = c.unitMin
		for _, tg := range gs {
			for _, pred := range []bool{false, true} {
				checkStreamed(t, ctx, tg, pred, Options{Device: dev}, c.rows, c.passes)
			}
		}
		ffUnitMin = 4
	}
	g := mustGraph(t, 300, "0->1 1")
	_, err := FWFast(ctx, g, Options{Device: dev, DeviceMemory: 100000})
	if err == nil || !strings.Contains(err.Error(), "does not fit") {
		t.Errorf("a cap too small: %v", err)
	}
	var st Stats
	if _, err := FWFast(ctx, g, Options{Device: dev, Stats: &st}); err != nil || st.Passes != 0 {
		t.Errorf("without a cap: %d passes, %v", st.Passes, err)
	}
}

// checkStreamed runs fw-fast on tg with opts and each device capped at
// rows block rows, compares with the CPU, and checks the passes, the bytes
// copied (every pass copies every block row in and out once, at most) and
// that the split of the time was filled in.
func checkStreamed(t *testing.T, ctx context.Context, tg testGraph, pred bool, opts Options, rows, passes int) {
	t.Helper()
	m := 1
	if pred {
		m = 2
	}
	n := tg.g.N()
	opts.Pred, opts.DeviceMemory = pred, streamCap(n, m, rows)
	var st Stats
	opts.Stats = &st
	name := fmt.Sprintf("%s, pred %v, %d block rows, %d devices", tg.name, pred, rows, max(1, len(opts.Devices)))
	res, err := FWFast(ctx, tg.g, opts)
	if !matchesCPU(t, name, tg, res, err, pred) {
		return
	}
	if st.Passes != passes {
		t.Errorf("%s: %d passes, want %d", name, st.Passes, passes)
	}
	matrix := uint64(n) * uint64(n) * 4 * uint64(m)
	if st.BytesToDevice > uint64(passes)*matrix || st.BytesToHost > uint64(passes)*matrix || st.BytesToHost < matrix || st.BytesToDevice < matrix {
		t.Errorf("%s: %d bytes in and %d out for a %d-byte matrix in %d passes", name, st.BytesToDevice, st.BytesToHost, matrix, passes)
	}
	sp := st.Streamed
	if sp.Own <= 0 || sp.Load <= 0 || sp.Build <= 0 || sp.Register <= 0 || sp.Unregister <= 0 || sp.Finish <= 0 {
		t.Errorf("%s: split %v", name, sp)
	}
	// The host's parts are parts of the call's: Build before the first
	// copy (Register runs beside the first pass), Finish after the last.
	if st.Prepare < sp.Build || st.Result < sp.Finish || st.Wall < st.Prepare+st.Kernel+st.Result || st.Wall < sp.Build+sp.Register {
		t.Errorf("%s: prepare %v (build %v, register %v), result %v (finish %v), kernels %v, wall %v",
			name, st.Prepare, sp.Build, sp.Register, st.Result, sp.Finish, st.Kernel, st.Wall)
	}
}

// TestFWFastStreamedCards streams fw-fast on two and three emulated
// devices, each streaming its stripe, with the rows copied between them
// directly and through the host: uneven stripes, a card whose chunk of a
// pass is empty, every kernel mode, predecessors included; the devices'
// default streams queue their work, as a card's (lazyEmulators).
func TestFWFastStreamedCards(t *testing.T) {
	ctx := context.Background()
	defer func(p int) { regPiece = p }(regPiece)
	regPiece = 40 * 600 * 4
	for _, c := range []struct {
		cards, n, rows, passes int
		staged                 bool
	}{{2, 300, 3, 2, false}, {2, 600, 5, 2, true}, {3, 600, 5, 2, false}} {
		devs := lazyEmulators(t, c.cards)
		stagePeerCopies = c.staged
		gs := []testGraph{sparseWithCPU(t, c.n)}
		if c.n == 300 {
			gs = multiGraphs(t, 300)
		}
		for _, tg := range gs {
			for _, pred := range []bool{false, true} {
				checkStreamed(t, ctx, tg, pred, Options{Devices: devs}, c.rows, c.passes)
			}
		}
	}
	stagePeerCopies = false
}

// sparseWithCPU is a random graph of n vertices and 3n arcs with its CPU
// result.
func sparseWithCPU(t *testing.T, n int) testGraph {
	t.Helper()
	g, err := graph.GNM(n, 3*n, graph.WeightRange{Min: 1, Max: 100}, uint64(n))
	if err != nil {
		t.Fatal(err)
	}
	ref, err := cpu.FloydWarshallBlocked(context.Background(), g, cpu.FWOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return testGraph{name: fmt.Sprintf("sparse n=%d", n), g: g, all: ref}
}

// TestFWFastStreamedNegativeCycle streams a graph whose negative cycle
// spans bands, on one device and on two, and one with unreachable pairs
// and zero-weight arcs.
func TestFWFastStreamedNegativeCycle(t *testing.T) {
	ctx := context.Background()
	dev := emulator(t)
	g := mustGraph(t, 300, "0->200 3, 200->130 -2, 130->0 -4, 5->6 1")
	for _, opts := range []Options{{Device: dev}, {Devices: emulators(t, 2)}} {
		opts.Pred, opts.DeviceMemory = true, streamCap(300, 2, 3)
		_, err := FWFast(ctx, g, opts)
		if _, ok := err.(*graph.NegativeCycleError); !ok {
			t.Errorf("%d devices: err = %v, want a *graph.NegativeCycleError", len(opts.Devices), err)
		}
	}
	z := mustGraph(t, 260, "0->1 0, 1->259 0, 259->0 5, 130->131 2, 3->3 0")
	want, err := FWFast(ctx, z, Options{Device: dev, Pred: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := FWFast(ctx, z, Options{Device: dev, Pred: true, DeviceMemory: streamCap(260, 2, 4)})
	if err != nil || !got.SameDistances(want) {
		t.Fatalf("streamed: %v", err)
	}
	if err := got.Verify(z); err != nil {
		t.Error(err)
	}
}

// TestRegisterBands checks the pieces in which a streamed run registers
// its host matrices: whole rows, at most the piece size, covering each
// band of each matrix in order, handed out with the lanes taking turns,
// all registered and released.
func TestRegisterBands(t *testing.T) {
	defer func(a bool) { registerAhead = a }(registerAhead)
	for _, ahead := range []bool{true, false} {
		registerAhead = ahead
		testRegisterBands(t)
	}
}

// testRegisterBands is TestRegisterBands under one registerAhead.
func testRegisterBands(t *testing.T) {
	dev := emulator(t)
	const n = 300 // bands of 128, 128 and 44 rows
	mats := [][]int32{make([]int32, n*n), make([]int32, n*n)}
	bands := []blocks{{0, 1}, {1, 2}, {2, 3}}
	// Lane 0: bands 0 and 2, 3+3 pieces of 50, 50, 28 rows and 1+1 of 44;
	// lane 1: band 1, 3+3 pieces.
	h := registerBands(dev.ctx, mats, n, [][]blocks{{bands[0], bands[2]}, {bands[1]}}, 50*n*4+7)
	if want := []int{0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 7}; !slices.Equal(h.order, want) {
		t.Errorf("pieces handed out in the order %v, want %v", h.order, want)
	}
	if !registerAhead {
		select {
		case <-h.done:
		default:
			t.Fatal("registerBands returned before registering, with registerAhead off")
		}
	}
	for _, b := range bands {
		for k := range mats {
			row := b.y0 * ffTile
			pieces := h.of(k, b.y0)
			for i := range pieces {
				p := &pieces[i]
				<-p.ready
				if !p.ok || p.row0 != row || len(p.mem) > 50*n || len(p.mem)%n != 0 || &p.mem[0] != &mats[k][row*n] {
					t.Fatalf("matrix %d band %v: piece at row %d of %d values (registered %v), want row %d", k, b, p.row0, len(p.mem), p.ok, row)
				}
				row += len(p.mem) / n
			}
			if want := min(b.y1*ffTile, n); row != want {
				t.Errorf("matrix %d band %v: pieces end at row %d, want %d", k, b, row, want)
			}
		}
	}
	h.release()
	if err := dev.ctx.HostRegister(asBytes(mats[0][:n])); err != nil {
		t.Errorf("registering again after release: %v", err)
	}
	if err := dev.ctx.HostUnregister(asBytes(mats[0][:n])); err != nil {
		t.Error(err)
	}
}

// TestFFResult checks the result fw-fast's host paths start from, built
// on every core, against graph.Dense and initialPred: duplicate arcs (the
// lightest kept), self-loops (a negative one on the diagonal), unreachable
// pairs, n = 0, 1 and sizes that split unevenly among the workers.
func TestFFResult(t *testing.T) {
	for _, n := range []int{0, 1, 7, 130, 1000} {
		g, err := graph.GNM(n, min(4*n, n*max(n-1, 0)), graph.WeightRange{Min: -5, Max: 50}, uint64(n))
		if err != nil {
			t.Fatal(err)
		}
		if n == 7 {
			g = mustGraph(t, n, "0->1 9, 0->1 4, 1->1 -3, 6->6 0, 2->5 1")
		}
		for _, pred := range []bool{false, true} {
			res, err := ffResult(g, pred, 2)
			if err != nil {
				t.Fatal(err)
			}
			want := g.Dense()
			if fmt.Sprint(res.Dist) != fmt.Sprint(want) {
				t.Errorf("n=%d: distances differ from graph.Dense", n)
			}
			if pred && fmt.Sprint(res.Pred) != fmt.Sprint(initialPred(want, n)) {
				t.Errorf("n=%d: predecessors differ from initialPred", n)
			}
			if !pred && res.Pred != nil {
				t.Errorf("n=%d: predecessors without pred", n)
			}
		}
	}
}

// shuffledEmulators opens k emulated devices whose streams, the default
// one's work queued too (lazyEmulators), run their queued work in orders
// drawn from seed (driver.EmulatorShuffle), an order a device.
func shuffledEmulators(t *testing.T, k int, seed uint64) []*Device {
	t.Helper()
	devs := lazyEmulators(t, k)
	for i, d := range devs {
		if !driver.EmulatorShuffle(d.ctx, seed<<4|uint64(i)) {
			t.Fatal("EmulatorShuffle refused the emulator's context")
		}
	}
	return devs
}

// streamedOn is the options of a streamed fw-fast run on devs, each capped
// at rows block rows.
func streamedOn(devs []*Device, n int, pred bool, rows int) Options {
	m := 1
	if pred {
		m = 2
	}
	opts := Options{Devices: devs, Pred: pred, DeviceMemory: streamCap(n, m, rows)}
	if len(devs) == 1 {
		opts.Device, opts.Devices = devs[0], nil
	}
	return opts
}

// TestFWFastStreamedShuffled runs the streamed fw-fast, whose four streams
// a card (copies in, two computing bands, copies out) and the default one
// are ordered by events only, on emulators that run the streams' queued
// work, the default stream's included (driver.EmulatorLazyDefault), in
// random orders those events allow (driver.EmulatorShuffle), a seed per run,
// every kernel mode, with and without Π, the runs taking turns on one card
// (one band buffer, and two on the two compute streams) and on two. The
// result must equal the same run's in the emulator's usual order value for
// value, Π included, and have the CPU's distances.
func TestFWFastStreamedShuffled(t *testing.T) {
	ctx := context.Background()
	defer func(p int) { regPiece = p }(regPiece)
	regPiece = 40 * 300 * 4
	configs := []struct{ cards, rows int }{{1, 2}, {1, 3}, {2, 3}}
	seed := uint64(0)
	for _, tg := range multiGraphs(t, 300) {
		for _, pred := range []bool{false, true} {
			seed++
			c := configs[seed%3]
			name := fmt.Sprintf("%s pred=%v, %d cards of %d block rows, seed %d", tg.name, pred, c.cards, c.rows, seed)
			want, err := FWFast(ctx, tg.g, streamedOn(emulators(t, c.cards), 300, pred, c.rows))
			if err != nil || !want.SameDistances(tg.all) {
				t.Fatalf("%s, the usual order: %v", name, err)
			}
			var st Stats
			opts := streamedOn(shuffledEmulators(t, c.cards, seed), 300, pred, c.rows)
			opts.Stats = &st
			got, err := FWFast(ctx, tg.g, opts)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if st.Passes < 2 {
				t.Errorf("%s: %d passes: not streamed", name, st.Passes)
			}
			if !slices.Equal(got.Dist, want.Dist) || !slices.Equal(got.Pred, want.Pred) {
				t.Fatalf("%s: the result differs from the usual order's:\n%s", name, got.Diff(want, 5))
			}
		}
	}
}

// TestFWFastSamePi runs fw-fast with Π on every path, one card in memory
// (ff_small, whose Π need only be valid, and the quarter-tile stages, with
// ffSmallPredMax at 0), two and three cards in memory (stripes of
// block rows), and streamed on one card, two and three, with chunks of
// several block rows and passes whose primary rows fall in several
// cards' chunks, on random graphs of n = 385 (dense, with many ties, and
// sparse with negative arcs and unreachable pairs); each result must have the CPU's distances and a
// Π that Verify accepts, and all but ff_small's must have the same Π, value for
// value.
func TestFWFastSamePi(t *testing.T) {
	ctx := context.Background()
	const n = 385
	paths := []struct {
		name         string
		cards, rows  int // rows: the block rows that fit a card, 0 in memory
		streamPasses int
	}{
		{"two cards in memory", 2, 0, 0},
		{"three cards in memory", 3, 0, 0},
		{"one card streamed", 1, 4, 2},
		{"two cards streamed", 2, 3, 2},
		{"three cards streamed", 3, 4, 2},
	}
	small, tight := ffSmallPredMax, ffTightPi
	defer func() { ffSmallPredMax, ffTightPi = small, tight }()
	ffTightPi = false // Π from the stages, which every other path computes
	for _, tg := range randomGraphs(t, n, 7)[1:] {
		// One card in memory takes ff_small, whose Π is valid but may
		// break ties otherwise; the stages give the Π of every other path.
		ffSmallPredMax = small
		viaSmall, err := FWFast(ctx, tg.g, Options{Device: emulator(t), Pred: true})
		if !matchesCPU(t, tg.name+", one card in memory, ff_small", tg, viaSmall, err, true) {
			continue
		}
		ffSmallPredMax = 0
		want, err := FWFast(ctx, tg.g, Options{Device: emulator(t), Pred: true})
		if !matchesCPU(t, tg.name+", one card in memory, stages", tg, want, err, true) {
			continue
		}
		for _, p := range paths {
			name := fmt.Sprintf("%s, %s", tg.name, p.name)
			opts := Options{Devices: emulators(t, p.cards), Pred: true}
			if p.rows > 0 {
				opts = streamedOn(opts.Devices, n, true, p.rows)
			}
			var st Stats
			opts.Stats = &st
			got, err := FWFast(ctx, tg.g, opts)
			if !matchesCPU(t, name, tg, got, err, true) {
				continue
			}
			if st.Passes != p.streamPasses {
				t.Errorf("%s: %d passes, want %d", name, st.Passes, p.streamPasses)
			}
			if !slices.Equal(got.Pred, want.Pred) {
				t.Errorf("%s: Π differs from one card's in memory:\n%s", name, got.Diff(want, 5))
			}
		}
	}
}

// watchedCtx is an emulated device's context that records the host memory
// it registers and that of its 2D copies, each by its first byte, in the
// order of the calls.
type watchedCtx struct {
	driver.Context
	mu         sync.Mutex // guards registered: HostRegister runs on other goroutines
	registered []*byte
	copied     []*byte
}

// HostRegister records b and registers it.
func (w *watchedCtx) HostRegister(b []byte) error {
	w.mu.Lock()
	w.registered = append(w.registered, &b[0])
	w.mu.Unlock()
	return w.Context.HostRegister(b)
}

// CopyIn2DAsync records src and queues the copy.
func (w *watchedCtx) CopyIn2DAsync(dst driver.DevicePtr, devPitch int, src []byte, hostPitch, width, rows int, s driver.Stream) error {
	w.copied = append(w.copied, &src[0])
	return w.Context.CopyIn2DAsync(dst, devPitch, src, hostPitch, width, rows, s)
}

// CopyOut2DAsync records dst and queues the copy.
func (w *watchedCtx) CopyOut2DAsync(dst []byte, hostPitch int, src driver.DevicePtr, devPitch, width, rows int, s driver.Stream) error {
	w.copied = append(w.copied, &dst[0])
	return w.Context.CopyOut2DAsync(dst, hostPitch, src, devPitch, width, rows, s)
}

// watchedEmulators opens k emulated devices whose contexts are watched
// (watchedCtx).
func watchedEmulators(t *testing.T, k int) ([]*Device, []*watchedCtx) {
	t.Helper()
	devs := emulators(t, k)
	watched := make([]*watchedCtx, k)
	for i, d := range devs {
		watched[i] = &watchedCtx{Context: d.ctx}
		d.ctx = watched[i]
	}
	return devs, watched
}

// TestRegisterFirstUse runs streamed fw-fast with Π (pieces of 40 rows,
// two matrices) on one, two and three emulated cards (chunks of several
// units, a card with an empty chunk) whose contexts are watched, and
// checks that the host pieces are registered in the order in which the
// cards first copy them (copyUnit), the cards taking turns, a piece each.
// One worker registers (GOMAXPROCS 1), so that the registrations come in
// the order in which the pieces are handed out: several take them in that
// order but may end out of it. On one card the order of first use is the
// plan's order of the bands; on several, that order (card after card) must
// fail the check.
func TestRegisterFirstUse(t *testing.T) {
	ctx := context.Background()
	defer func(p int, a bool) { regPiece, registerAhead = p, a }(regPiece, registerAhead)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	registerAhead = true
	for _, c := range []struct{ cards, n, rows int }{{1, 300, 2}, {2, 300, 3}, {3, 600, 5}} {
		regPiece = 40 * c.n * 4
		devs, watched := watchedEmulators(t, c.cards)
		tg := sparseWithCPU(t, c.n)
		name := fmt.Sprintf("%d cards, n=%d", c.cards, c.n)
		res, err := FWFast(ctx, tg.g, streamedOn(devs, c.n, true, c.rows))
		if !matchesCPU(t, name, tg, res, err, true) {
			continue
		}
		got := watched[0].registered
		lanes := firstCopies(watched, got)
		want := inTurns(lanes)
		if !slices.Equal(got, want) || len(got) == 0 {
			t.Errorf("%s: %d pieces registered out of the order of first use (%d pieces copied)", name, len(got), len(want))
		}
		if c.cards > 1 && slices.Equal(want, slices.Concat(lanes...)) {
			t.Errorf("%s: the plan's order of the bands passes too", name)
		}
	}
}

// firstCopies returns, for every watched card, the pieces of registered
// that it copies, in the order of their first copies.
func firstCopies(watched []*watchedCtx, registered []*byte) [][]*byte {
	lanes := make([][]*byte, len(watched))
	for c, w := range watched {
		for _, p := range w.copied {
			if slices.Contains(registered, p) && !slices.Contains(lanes[c], p) {
				lanes[c] = append(lanes[c], p)
			}
		}
	}
	return lanes
}

// inTurns returns the lanes' pieces taken in turns: the first of every
// lane, in order, then the second of every lane that has one, and so on.
func inTurns(lanes [][]*byte) []*byte {
	var all []*byte
	for k := 0; len(all) < len(slices.Concat(lanes...)); k++ {
		for _, lane := range lanes {
			if k < len(lane) {
				all = append(all, lane[k])
			}
		}
	}
	return all
}

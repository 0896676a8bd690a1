//go:build cuda

package gpu

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/graph"
)

// TestMultiCards runs fw-fast, apsp-batched and johnson-fast over every
// card of the host (it needs two) and compares with the CPU, predecessors
// included, with the primary rows copied peer to peer and through the
// host.
func TestMultiCards(t *testing.T) {
	testDevice(t)
	devs, err := OpenAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) < 2 {
		t.Skipf("one card on this host (%s)", devs[0].Info().Name)
	}
	ctx := context.Background()
	for _, n := range []int{300, 1000, 1500} {
		for _, tg := range multiGraphs(t, n) {
			for _, pred := range []bool{false, true} {
				for _, staged := range []bool{false, true} {
					stagePeerCopies = staged
					var st Stats
					name := fmt.Sprintf("%s pred %v staged %v", tg.name, pred, staged)
					res, err := FWFast(ctx, tg.g, Options{Devices: devs, Pred: pred, Stats: &st})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if !res.SameDistances(tg.all) {
						t.Errorf("%s: distances differ from the CPU:\n%s", name, res.Diff(tg.all, 5))
					} else if pred {
						if err := res.Verify(tg.g); err != nil {
							t.Errorf("%s: %v", name, err)
						}
					}
					// A card takes at least one block row: n = 300 (three
					// rows) runs on three cards of a four-card host.
					if st.Devices != min(len(devs), ceilDiv(n, ffTile)) || st.BytesPeer == 0 {
						t.Errorf("%s: %s", name, st)
					}
				}
				stagePeerCopies = false
				solve := APSPBatched
				if tg.g.HasNegative() {
					solve = JohnsonFast
				}
				res, err := solve(ctx, tg.g, Options{Devices: devs, Pred: pred})
				if err != nil {
					t.Fatalf("%s pred %v: %v", tg.name, pred, err)
				}
				if !res.SameDistances(tg.all) {
					t.Errorf("%s (%s) pred %v: distances differ from the CPU:\n%s", res.Solver, tg.name, pred, res.Diff(tg.all, 5))
				}
			}
		}
	}
}

// TestCardFWFastStreamed runs fw-fast on the default card, and on every
// card of the host (at most one card fewer than the block rows), with each card's memory capped below its share of the
// matrices, so that block rows stream through the cards, and compares
// with the CPU (n up to 1000, every kernel mode) or with fw-fast in
// memory (n = 4000 and 5000, chunks of several bands: the same Π as the
// in-memory stages, value for value, with ffTightPi off there),
// predecessors included and checked by rebuilding every path;
// on several cards with the rows copied directly and through the host.
func TestCardFWFastStreamed(t *testing.T) {
	testDevice(t)
	dev, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	all, err := OpenAll()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cards := [][]*Device{{dev}}
	if len(all) > 1 {
		cards = append(cards, all)
	}
	for _, n := range []int{300, 1000, 4000, 5000} {
		var gs []testGraph
		if n <= 1000 {
			gs = multiGraphs(t, n)
		} else {
			g, err := graph.GNM(n, 8*n, graph.WeightRange{Min: 1, Max: 100}, uint64(n))
			if err != nil {
				t.Fatal(err)
			}
			// The in-memory Π of the stages (ff_tight's breaks ties
			// otherwise), which the streamed path gives value for value.
			ffTightPi = false
			ref, err := FWFast(ctx, g, Options{Device: dev, Pred: true})
			ffTightPi = true
			if err != nil {
				t.Fatal(err)
			}
			gs = []testGraph{{name: fmt.Sprintf("GNM n=%d, 8n arcs", n), g: g, all: ref}}
		}
		ld := uint64(ceilDiv(n, ffTile) * ffTile)
		for _, tg := range gs {
			for i, devs := range cards {
				// A card with one block row has nothing to stream: use at
				// most one card fewer than the rows (n = 300, three rows,
				// streams on two cards of a four-card host).
				devs = devs[:min(len(devs), max(1, ceilDiv(n, ffTile)-1))]
				if i > 0 && len(devs) == 1 {
					continue
				}
				for _, staged := range []bool{false, true} {
					if staged && len(devs) == 1 {
						continue
					}
					stagePeerCopies = staged
					share := ld * ld * 8 / uint64(len(devs))
					var st Stats
					name := fmt.Sprintf("%s on %d cards, staged %v", tg.name, len(devs), staged)
					res, err := FWFast(ctx, tg.g, Options{Devices: devs, Pred: true, Stats: &st, DeviceMemory: max(share/3, streamCap(n, 2, len(devs)+1))})
					stagePeerCopies = false
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if !res.SameDistances(tg.all) || st.Passes < 2 {
						t.Errorf("%s: %d passes, distances differ:\n%s", name, st.Passes, res.Diff(tg.all, 5))
					}
					if err := res.Verify(tg.g); err != nil {
						t.Errorf("%s: %v", name, err)
					}
					if tg.all.Solver == VariantFWFast && !slices.Equal(res.Pred, tg.all.Pred) {
						t.Errorf("%s: Π differs from fw-fast's in memory on one card", name)
					}
					t.Logf("%s: %d passes (%s), distances and predecessors checked", name, st.Passes, st.Streamed)
				}
			}
		}
	}
}

// TestCardAPSPShares runs apsp-batched on the default card and on every
// card of the host, with predecessors, its rows copied back in pieces
// (apspPieces of 16, 3 and 33, apspPipeBytes 0 so that every launch is
// cut) and after each launch, in one launch a card and in several
// (fastTuning.Batch), its shares cut by weight and by count
// (apspLiveWeight 8 and 1), with blocks of 1024 threads (the default),
// 512 and 256, on a graph of n = 5000 whose sources mostly
// have no out-arcs and on a smaller random one: Π must prove every
// distance (graph.AllPairs.Verify) and the distances must equal the
// CPU's.
func TestCardAPSPShares(t *testing.T) {
	dev := testDevice(t)
	defer func(b uint64, p, w int) { apspPipeBytes, apspPieces, apspLiveWeight = b, p, w }(apspPipeBytes, apspPieces, apspLiveWeight)
	all, err := OpenAll()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	gnm, err := graph.GNM(3000, 7000, graph.WeightRange{Min: 0, Max: 50}, 9)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []*graph.Graph{sinkyGraph(t, 5000, 2), gnm} {
		ref, err := cpu.DijkstraAll(ctx, g, cpu.APSPOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, cards := range [][]*Device{{dev}, all} {
			for _, c := range []struct {
				pieces, weight, batch, block int // apspPieces (0: after each launch), apspLiveWeight, fastTuning.Batch, .Block
			}{{16, 8, 0, 0}, {0, 8, 0, 0}, {3, 1, 0, 256}, {33, 8, 700, 512}, {0, 1, 1100, 0}} {
				apspPipeBytes, apspPieces, apspLiveWeight = 0, c.pieces, c.weight
				if c.pieces == 0 {
					apspPipeBytes, apspPieces = 1<<62, 16
				}
				name := fmt.Sprintf("n=%d, %d cards, %+v", g.N(), len(cards), c)
				res, err := apspBatchedTuned(ctx, g, Options{Devices: cards, Pred: true}, fastTuning{Batch: c.batch, Block: c.block})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !res.SameDistances(ref) {
					t.Errorf("%s: distances differ from the CPU:\n%s", name, res.Diff(ref, 5))
				} else if err := res.Verify(g); err != nil {
					t.Errorf("%s: %v", name, err)
				}
			}
		}
	}
}

// TestCardAPSPStop cancels apsp-batched on p2p-Gnutella30 with
// predecessors once its first piece of rows is back (from Options.Progress),
// on the default card and on every card of the host: the call must return
// an error that wraps context.Canceled and says it was interrupted, in
// less than half the time of a whole call (its launches stop after the
// sources they have started, and the host's rows of sources without
// out-arcs stop too), and the card must then solve the graph again, to
// the distances of the first call (TestCardAPSPShares checks Π).
func TestCardAPSPStop(t *testing.T) {
	dev := testDevice(t)
	all, err := OpenAll()
	if err != nil {
		t.Fatal(err)
	}
	g := gnutella30().get(t)
	for _, cards := range [][]*Device{{dev}, all} {
		start := time.Now()
		want, err := APSPBatched(context.Background(), g, Options{Devices: cards, Pred: true})
		if err != nil {
			t.Fatal(err)
		}
		whole := time.Since(start)
		ctx, cancel := context.WithCancel(context.Background())
		var at time.Time
		opts := Options{Devices: cards, Pred: true, Progress: func(done, total int) {
			if at.IsZero() {
				at = time.Now()
				cancel()
			}
		}}
		_, stopErr := APSPBatched(ctx, g, opts)
		stopped := time.Since(at)
		cancel()
		if !errors.Is(stopErr, context.Canceled) || !strings.Contains(stopErr.Error(), "interrupted") {
			t.Fatalf("%d cards: cancelled call: %v, want an interruption wrapping context.Canceled", len(cards), stopErr)
		}
		if stopped > whole/2 {
			t.Errorf("%d cards: the cancelled call returned %v after its cancel, the whole call takes %v", len(cards), stopped, whole)
		}
		again, err := APSPBatched(context.Background(), g, Options{Devices: cards, Pred: true})
		if err != nil {
			t.Fatalf("%d cards: after the cancelled call: %v", len(cards), err)
		}
		if !again.SameDistances(want) {
			t.Errorf("%d cards: the call after the cancelled one differs from the one before", len(cards))
		}
		t.Logf("%d cards: whole call %v, stopped %v after its cancel: %v", len(cards), whole, stopped, stopErr)
	}
}

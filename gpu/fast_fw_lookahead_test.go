package gpu

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/gpu/driver"
	"github.com/pathnotes/pathnotes/gpu/ptxemu"
	"github.com/pathnotes/pathnotes/graph"
)

// shuffledEmulator opens an emulated device whose streams run their work
// in an order drawn from seed (driver.EmulatorShuffle).
func shuffledEmulator(t *testing.T, seed uint64) *Device {
	t.Helper()
	dev, err := OpenEmulator(ptxemu.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !driver.EmulatorShuffle(dev.ctx, seed) {
		t.Fatal("EmulatorShuffle refused the emulator's context")
	}
	return dev
}

// ringGraph is a directed cycle through the n vertices in a random order
// (arcs of weight 1..3), with k random chords of weight 50..99, a
// self-loop on every tenth vertex and a second, heavier copy of every
// fifth arc: a shortest path crosses many block rows, so that a stage
// that ran out of order leaves wrong distances behind.
func ringGraph(t *testing.T, n, k int, seed uint64) *graph.Graph {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	order := rng.Perm(n)
	b := graph.NewBuilder(n).Duplicates(graph.KeepAll).KeepLoops()
	for i, u := range order {
		v, w := order[(i+1)%n], int32(1+rng.IntN(3))
		b.AddArc(u, v, w)
		if i%5 == 0 {
			b.AddArc(u, v, w+7)
		}
		if i%10 == 0 {
			b.AddArc(u, u, 4)
		}
	}
	for range k {
		b.AddArc(rng.IntN(n), rng.IntN(n), int32(50+rng.IntN(50)))
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// lookaheadGraphs are the graphs of the look-ahead tests at n vertices:
// randomGraphs' (sparse with unreachable pairs, dense, negative arcs with
// parallel arcs), a ring with chords, self-loops and parallel arcs, and
// the ring with weights large enough for the general kernels with Π.
func lookaheadGraphs(t *testing.T, n int) []testGraph {
	t.Helper()
	graphs := randomGraphs(t, n, uint64(13*n))
	ring := ringGraph(t, n, n/8, uint64(n))
	arcs := ring.Arcs()
	for i := range arcs {
		arcs[i].Weight *= 5000
	}
	large, err := graph.NewBuilder(n).Duplicates(graph.KeepAll).KeepLoops().AddArcs(arcs).Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []*graph.Graph{ring, large} {
		ref, err := cpu.FloydWarshallBlocked(context.Background(), g, cpu.FWOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, hi := g.WeightRange()
		graphs = append(graphs, testGraph{name: fmt.Sprintf("ring n=%d m=%d weights up to %d", n, g.M(), hi), g: g, all: ref})
	}
	return graphs
}

// TestFWFastLookahead runs fw-fast's 128-wide stages (quarter and full
// tiles) in the look-ahead schedule on emulators whose streams run their
// work in random orders, a seed per graph, and in the sequential
// schedule, on 3 and 5 block rows, not multiples of 128: every mode (the
// ring's large weights take the general kernels with Π), with and without
// Π. The look-ahead result must equal the CPU's distances and the
// sequential schedule's result value for value, Π included, and Π must
// rebuild every path; a negative cycle is reported alike by both.
func TestFWFastLookahead(t *testing.T) {
	ctx := context.Background()
	sizes := []int{300, 513}
	if testing.Short() {
		sizes = []int{385}
	}
	seq := emulator(t)
	cyc := mustGraph(t, 420, "0->1 3, 1->300 -4, 300->3 1, 3->1 1, 3->4 2, 5->400 1, 400->5 1")
	seed := uint64(1)
	for _, quarter := range []int{32, 0} {
		t.Run(fmt.Sprintf("quarter=%d", quarter), func(t *testing.T) {
			for _, n := range sizes {
				for _, tg := range lookaheadGraphs(t, n) {
					for _, pred := range []bool{false, true} {
						seed++
						name := fmt.Sprintf("%s pred=%v seed=%d", tg.name, pred, seed)
						setFFPath(t, ffPath{quarter: quarter, sequential: true})
						want, err := FWFast(ctx, tg.g, Options{Device: seq, Pred: pred})
						if err != nil {
							t.Fatalf("%s, sequential: %v", name, err)
						}
						setFFPath(t, ffPath{quarter: quarter})
						var st Stats
						got, err := FWFast(ctx, tg.g, Options{Device: shuffledEmulator(t, seed), Pred: pred, Stats: &st})
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						if int(st.Launches) != 3+ffStageLaunches(n, false) {
							t.Errorf("%s: %d launches, want the look-ahead's %d", name, st.Launches, 3+ffStageLaunches(n, false))
						}
						if !got.SameDistances(tg.all) {
							t.Fatalf("%s: distances differ from the CPU:\n%s", name, got.Diff(tg.all, 5))
						}
						if !slices.Equal(got.Dist, want.Dist) || !slices.Equal(got.Pred, want.Pred) {
							t.Fatalf("%s: the result differs from the sequential schedule's", name)
						}
						if pred {
							if err := got.Verify(tg.g); err != nil {
								t.Fatalf("%s: %v", name, err)
							}
						}
					}
				}
			}
			for _, pred := range []bool{false, true} {
				setFFPath(t, ffPath{quarter: quarter, sequential: true})
				_, want := FWFast(ctx, cyc, Options{Device: seq, Pred: pred})
				setFFPath(t, ffPath{quarter: quarter})
				_, err := FWFast(ctx, cyc, Options{Device: shuffledEmulator(t, 7), Pred: pred})
				var nc *graph.NegativeCycleError
				if !errors.As(err, &nc) || len(nc.Cycle) != 3 || nc.Weight != -2 || want == nil || err.Error() != want.Error() {
					t.Errorf("negative cycle (pred %v): got %v, the sequential schedule %v", pred, err, want)
				}
			}
		})
	}
}

// dropWaits is an emulated context that leaves out the WaitEvent calls of
// one stream: a schedule missing those events.
type dropWaits struct {
	driver.Context
	stream driver.Stream
}

func (c dropWaits) WaitEvent(s driver.Stream, e driver.Event) error {
	if s == c.stream {
		return nil
	}
	return c.Context.WaitEvent(s, e)
}

// TestEmuShuffleCatchesMissingWait checks that the shuffled emulator
// catches a look-ahead schedule that misses its events: with the waits of
// the aside stream (phase 1 of s+1 before the cross of stage s), of the
// main one (stage s+1 before the panels of s+1), or of the default stream
// (the result read before the stages end) left out, some seed gives
// wrong distances or reports a bad value, while the complete schedule gives
// the right ones with every seed.
func TestEmuShuffleCatchesMissingWait(t *testing.T) {
	setFFPath(t, ffPath{quarter: 32})
	g := ringGraph(t, 385, 40, 5)
	ref, err := cpu.FloydWarshallBlocked(context.Background(), g, cpu.FWOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const seeds = 6
	for _, which := range []int{-1, 0, 1, 2} { // -1: no wait left out; else the stream: main, aside, default
		caught := 0
		for seed := range uint64(seeds) {
			dev := shuffledEmulator(t, seed)
			// Make the streams now, to know their handles.
			r, err := dev.begin(context.Background(), "streams", nil)
			if err != nil {
				t.Fatal(err)
			}
			main, aside, err := r.lookaheadStreams()
			r.end()
			if err != nil {
				t.Fatal(err)
			}
			switch which {
			case 0:
				dev.ctx = dropWaits{dev.ctx, main}
			case 1:
				dev.ctx = dropWaits{dev.ctx, aside}
			case 2:
				dev.ctx = dropWaits{dev.ctx, 0}
			}
			res, err := FWFast(context.Background(), g, Options{Device: dev})
			if err != nil || !res.SameDistances(ref) {
				caught++
			}
		}
		switch {
		case which < 0 && caught > 0:
			t.Errorf("the complete schedule failed with %d of %d seeds", caught, seeds)
		case which >= 0 && caught == 0:
			t.Errorf("waits of stream %d left out: every one of %d seeds gave the right distances", which, seeds)
		default:
			t.Logf("waits left out of stream %d: %d of %d seeds caught it", which, caught, seeds)
		}
	}
}

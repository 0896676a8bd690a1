package gpu

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/gpu/driver"
	"github.com/pathnotes/pathnotes/gpu/ptxemu"
	"github.com/pathnotes/pathnotes/graph"
)

// emulators opens k separate emulated devices, the several cards of a
// multi-device run.
func emulators(t *testing.T, k int) []*Device {
	t.Helper()
	devs := make([]*Device, k)
	for i := range devs {
		d, err := OpenEmulator(ptxemu.Options{})
		if err != nil {
			t.Fatal(err)
		}
		devs[i] = d
	}
	return devs
}

// lazyEmulators is emulators whose default stream queues its work and
// runs it when something waits for it, in order, as a card's does beside
// the other streams (driver.EmulatorLazyDefault): work on another stream
// that misses its wait for the default stream's comes out wrong, the
// default stream's running last when the host waits for everything.
func lazyEmulators(t *testing.T, k int) []*Device {
	t.Helper()
	devs := emulators(t, k)
	for _, d := range devs {
		if !driver.EmulatorLazyDefault(d.ctx) {
			t.Fatal("EmulatorLazyDefault refused the emulator's context")
		}
	}
	return devs
}

// TestFWFastMulti runs fw-fast on two and three emulated cards, with the
// primary row copied directly and through the host, in every kernel mode,
// on sizes whose stripes are uneven, a tile and a half wide, or would leave
// a card without rows; it compares with the CPU and checks predecessors by
// rebuilding every path, and that the copies between cards are counted.
func TestFWFastMulti(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		cards, n int
		staged   bool
	}{
		{2, 0, false}, {2, 1, false}, {3, 100, false}, {2, 129, false}, {2, 300, true}, {3, 257, false}, {3, 300, true},
	}
	if testing.Short() {
		cases = cases[:4]
	}
	for _, c := range cases {
		devs := emulators(t, c.cards)
		stagePeerCopies = c.staged
		for _, tg := range multiGraphs(t, c.n) {
			for _, pred := range []bool{false, true} {
				name := fmt.Sprintf("%d cards, %s, pred %v, staged %v", c.cards, tg.name, pred, c.staged)
				var st Stats
				res, err := FWFast(ctx, tg.g, Options{Devices: devs, Pred: pred, Stats: &st})
				if !matchesCPU(t, name, tg, res, err, pred) {
					continue
				}
				ld := max(ceilDiv(c.n, ffTile), 1) * ffTile
				cards := min(c.cards, ld/ffTile)
				want := uint64(0)
				if cards > 1 {
					want = uint64(ld/ffTile) * uint64(cards-1) * ffTile * uint64(ld) * 4
					if pred {
						want *= 2
					}
				}
				if st.BytesPeer != want || (cards > 1 && st.Devices != cards) {
					t.Errorf("%s: %d devices, %d bytes between them; want %d devices, %d bytes", name, st.Devices, st.BytesPeer, cards, want)
				}
			}
		}
	}
	stagePeerCopies = false
}

// matchesCPU reports whether a solver's answer (res, err) has the CPU's
// distances of tg, and, with pred, valid predecessors; it reports what
// differs.
func matchesCPU(t *testing.T, name string, tg testGraph, res *graph.AllPairs, err error, pred bool) bool {
	t.Helper()
	switch {
	case err != nil:
		t.Errorf("%s: %v", name, err)
	case !res.SameDistances(tg.all):
		t.Errorf("%s: distances differ from the CPU:\n%s", name, res.Diff(tg.all, 5))
	default:
		if pred {
			if err := res.Verify(tg.g); err != nil {
				t.Errorf("%s: %v", name, err)
				return false
			}
		}
		return true
	}
	return false
}

// multiGraphs returns the graphs of TestFWFastMulti on n vertices with
// their CPU results: random sparse and dense ones, one with negative arcs
// (fw-fast's general kernels), and one with weights large enough to leave
// the packed-predecessor kernels.
func multiGraphs(t *testing.T, n int) []testGraph {
	t.Helper()
	gs := randomGraphs(t, n, uint64(31*n+5))
	large, err := graph.GNM(n, min(3*n, n*max(n-1, 0)), graph.WeightRange{Min: 1, Max: 200000}, uint64(n))
	if err != nil {
		t.Fatal(err)
	}
	gs = append(gs, testGraph{name: fmt.Sprintf("large weights n=%d", n), g: large})
	for i := range gs {
		ref, err := cpu.FloydWarshall(context.Background(), gs[i].g, cpu.FWOptions{})
		if err != nil {
			t.Fatal(err)
		}
		gs[i].all = ref
	}
	return gs
}

// TestFWFastMultiNegativeCycle checks that a negative cycle whose arcs lie
// in different cards' stripes is reported with a real cycle.
func TestFWFastMultiNegativeCycle(t *testing.T) {
	g := mustGraph(t, 260, "0->200 3, 200->130 -2, 130->0 -4, 5->6 1")
	_, err := FWFast(context.Background(), g, Options{Devices: emulators(t, 2), Pred: true})
	ce, ok := err.(*graph.NegativeCycleError)
	if !ok {
		t.Fatalf("err = %v, want a *graph.NegativeCycleError", err)
	}
	for i, u := range ce.Cycle {
		if _, ok := g.Weight(u, ce.Cycle[(i+1)%len(ce.Cycle)]); !ok {
			t.Fatalf("cycle %v: %d→%d is not an arc", ce.Cycle, u, ce.Cycle[(i+1)%len(ce.Cycle)])
		}
	}
	if w := g.CycleWeight(ce.Cycle); w >= 0 {
		t.Errorf("cycle %v: weight %d, want negative", ce.Cycle, w)
	}
}

// TestDevicesOption checks the errors of Options.Devices: both fields set,
// a device named twice, a nil entry, and a one-device variant asked to run
// on several; one device in Devices is the same as Device.
func TestDevicesOption(t *testing.T) {
	ctx := context.Background()
	devs := emulators(t, 2)
	g := mustGraph(t, 3, "0->1 2, 1->2 3")
	for _, c := range []struct {
		name string
		opts Options
		run  func(Options) error
		want string
	}{
		{"both", Options{Device: devs[0], Devices: devs}, fwFast(ctx, g), "both Device and Devices"},
		{"twice", Options{Devices: []*Device{devs[0], devs[0]}}, fwFast(ctx, g), "twice"},
		{"nil", Options{Devices: []*Device{devs[0], nil}}, fwFast(ctx, g), "Devices[1] is nil"},
		{"one-device variant", Options{Devices: devs}, func(o Options) error {
			_, err := FWBlocked(ctx, g, o)
			return err
		}, "runs on one device"},
	} {
		err := c.run(c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one containing %q", c.name, err, c.want)
		}
	}
	res, err := FWBlocked(ctx, g, Options{Devices: devs[1:]})
	if err != nil || res.At(0, 2) != 5 {
		t.Errorf("one device in Devices: %v, %v", res, err)
	}
}

// fwFast returns a function running fw-fast on g with given options.
func fwFast(ctx context.Context, g *graph.Graph) func(Options) error {
	return func(o Options) error {
		_, err := FWFast(ctx, g, o)
		return err
	}
}

// TestEmuDevices checks PATHNOTES_EMU_DEVICES: OpenAll opens that many
// separate emulated devices, Describe lists each, and a bad count or
// ordinal is an error that names the variable.
func TestEmuDevices(t *testing.T) {
	t.Setenv(EnvDriver, "emu")
	t.Setenv(driver.EnvEmuDevices, "3")
	devs, err := OpenAll()
	if err != nil || len(devs) != 3 || devs[0] == devs[1] || devs[1] == devs[2] {
		t.Fatalf("OpenAll: %v, %v", devs, err)
	}
	for i, d := range devs {
		if d.Info().Ordinal != i {
			t.Errorf("device %d has ordinal %d", i, d.Info().Ordinal)
		}
	}
	if text := Describe(); strings.Count(text, "\ngpu ") != 3 || !strings.Contains(text, "gpu 2: PTX emulator") {
		t.Errorf("Describe lists not 3 devices:\n%s", text)
	}
	if _, err := Open(3); err == nil || !strings.Contains(err.Error(), "no device 3") {
		t.Errorf("Open(3): %v", err)
	}
	t.Setenv(driver.EnvEmuDevices, "zero")
	if _, err := OpenAll(); err == nil || !strings.Contains(err.Error(), driver.EnvEmuDevices) {
		t.Errorf("bad count: %v", err)
	}
}

// TestAPSPBatchedMulti runs apsp-batched (johnson-fast on graphs with
// negative arcs) with its sources split over two and three emulated devices (fewer when there are fewer sources) and
// compares with the CPU, predecessors included, and checks that the
// progress reports add up to n.
func TestAPSPBatchedMulti(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ cards, n int }{{2, 0}, {2, 1}, {3, 2}, {2, 57}, {3, 131}} {
		devs := emulators(t, c.cards)
		for _, tg := range randomGraphs(t, c.n, uint64(c.n+3)) {
			solve := APSPBatched
			if tg.g.HasNegative() {
				solve = JohnsonFast // its Dijkstra runs are apsp-batched's
			}
			ref, err := cpu.FloydWarshall(ctx, tg.g, cpu.FWOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var st Stats
			var done int
			res, err := solve(ctx, tg.g, Options{Devices: devs, Pred: true, Stats: &st, Progress: func(d, total int) { done = d }})
			name := fmt.Sprintf("%d cards, %s", c.cards, tg.name)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if !res.SameDistances(ref) {
				t.Errorf("%s: distances differ from the CPU:\n%s", name, res.Diff(ref, 5))
			}
			if err := res.Verify(tg.g); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			if want := max(1, min(c.cards, c.n)); st.Devices != want || done != c.n {
				t.Errorf("%s: %d devices, progress %d; want %d devices, progress %d", name, st.Devices, done, want, c.n)
			}
		}
	}
}

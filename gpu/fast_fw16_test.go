package gpu

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/gpu/ptxemu"
	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/ptx"
)

// TestFWFastNarrowCheck runs fw-fast's 16-bit stages on graphs whose
// longest distances sit on either side of the check's bound (f16Exact)
// and of the 16-bit infinity, with and without Π (with Π also where only
// a row of 16-bit distances fits the shared memory: f16_tight), against
// the CPU: where
// a result reaches f16Exact the run must start again on the 32-bit stages
// (more launches) and still be exact, and below it the 16-bit result
// stands. Without the check, a pair at 36000 would come back unreachable.
// One graph has a vertex with two arcs to every other, whose weights
// f16_build takes in by compare-and-swap on words that neighbouring lanes
// share.
func TestFWFastNarrowCheck(t *testing.T) {
	dev := emulator(t)
	ctx := context.Background()
	setFFPath(t, ffPath{name: "narrow-half", quarter: 32, narrow: true})
	const n = 200 // two block rows: panels and rest run
	for _, c := range []struct {
		name   string
		arcs   string
		narrow bool // the 16-bit result stands
	}{
		{"longest 16383", "0->1 8000, 1->150 8382, 150->7 1, 9->9 5", true},
		{"longest 16384", "0->1 8000, 1->150 8384, 5->6 1, 5->6 3", false},
		{"beyond the 16-bit infinity", "0->1 12000, 1->2 12000, 2->199 12000, 199->0 1", false},
		{"two arcs of 16383", "3->4 16383, 4->5 16383, 5->3 16383", false},
		{"parallel arcs to neighbouring columns", fanOut(n), true},
	} {
		g := mustGraph(t, n, c.arcs)
		ref, err := cpu.FloydWarshall(ctx, g, cpu.FWOptions{})
		if err != nil {
			t.Fatal(err)
		}
		tg := testGraph{name: c.name, g: g, all: ref}
		for _, k := range []struct {
			pred  bool
			limit int // ffSharedCap
		}{{false, 0}, {true, 0}, {true, 4*n - 1}} {
			pred := k.pred
			ffSharedCap = k.limit
			name := fmt.Sprintf("%s pred=%v shared=%d", c.name, pred, k.limit)
			var st Stats
			got, err := FWFast(ctx, g, Options{Device: dev, Pred: pred, Stats: &st})
			ffSharedCap = 0
			if !matchesCPU(t, name, tg, got, err, pred) {
				continue
			}
			// The 16-bit path (ffNarrowLaunches: f16_build, the stages,
			// f16_widen, and ff_tight and ff_finish with Π); when the
			// check fails (read after the copy back: ffOneWait), ff_init,
			// ff_arcs, the 32-bit stages, ff_finish and ff_tight's
			// launches. Where a row of 32-bit distances exceeds the
			// shared memory (k.limit), f16_tight takes ff_tight's place,
			// and when the check fails Π goes into the 32-bit stages,
			// which ff_tight does not follow.
			nb, extra := ceilDiv(n, ffTile), 0
			if pred {
				if !ffTightFits(g) {
					t.Fatalf("%s: the graph does not take ff_tight", name)
				}
				if k.limit == 0 {
					extra = ffTightLaunches()
				}
			}
			want := ffNarrowLaunches(n, nb*ffTile, pred)
			if !c.narrow {
				want += 3 + 3*nb + extra
			}
			if st.Launches != want {
				t.Errorf("%s: %d launches, want %d (16-bit result standing: %v)", name, st.Launches, want, c.narrow)
			}
		}
	}
	// A weight of f16Exact keeps the 32-bit stages.
	g := mustGraph(t, n, fmt.Sprintf("0->1 %d", f16Exact))
	if ffNarrowWeights(g) {
		t.Errorf("a weight of %d takes the 16-bit stages", f16Exact)
	}
	if neg := mustGraph(t, n, "0->1 -1"); ffNarrowWeights(neg) {
		t.Error("a negative weight takes the 16-bit stages")
	}
	empty, err := graph.FromArcs(n, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !ffNarrowWeights(empty) {
		t.Error("a graph without arcs does not take the 16-bit stages")
	}
}

// fanOut is arcs from vertex 0 to every other of n, two each (the lighter
// second for odd targets, first for even ones), and back from each to 0.
func fanOut(n int) string {
	var b strings.Builder
	for v := 1; v < n; v++ {
		fmt.Fprintf(&b, "0->%d %d, 0->%d %d, %d->0 %d, ", v, 5+v%7, v, 1+v%5+(v%2)*9, v, 1+v%3)
	}
	return strings.TrimSuffix(b.String(), ", ")
}

// TestFWFastModules checks which PTX modules fw-fast loads, on fresh
// emulated devices: a graph of the fast modes loads fwfast alone (the
// driver compiles a module whole on its first load, and fwfastgen's
// general kernels were most of that time), the 16-bit stages fw16 alone
// (with its own ff_finish and ff_tight), and a graph with a negative arc
// fwfastgen too.
func TestFWFastModules(t *testing.T) {
	ctx := context.Background()
	defer func(m int) { ffNarrowMin = m }(ffNarrowMin)
	small, err := graph.GNM(200, 800, graph.WeightRange{Min: 1, Max: 9}, 3)
	if err != nil {
		t.Fatal(err)
	}
	neg := mustGraph(t, 200, "0->1 4, 1->2 -3, 2->150 2")
	for _, c := range []struct {
		name      string
		g         *graph.Graph
		narrowMin int
		want      []string
	}{
		{"fast modes", small, 1 << 20, []string{ptx.FWFast}},
		{"16-bit stages", small, 0, []string{ptx.FW16}},
		{"a negative arc", neg, 0, []string{ptx.FWFast, ptx.FWFastGen}},
	} {
		ffNarrowMin = c.narrowMin
		for _, pred := range []bool{false, true} {
			dev, err := OpenEmulator(ptxemu.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := FWFast(ctx, c.g, Options{Device: dev, Pred: pred}); err != nil {
				t.Fatalf("%s pred=%v: %v", c.name, pred, err)
			}
			got := slices.Sorted(maps.Keys(dev.modules))
			if !slices.Equal(got, c.want) {
				t.Errorf("%s pred=%v: modules %v loaded, want %v", c.name, pred, got, c.want)
			}
		}
	}
}

// TestCallMarks checks fw-fast's marks (callMarks) on the emulator: the
// 16-bit path queues them in the order of the call, the device times
// from the first mark and the host times from the call's start never go
// back, and without callMarks a call keeps none.
func TestCallMarks(t *testing.T) {
	dev := emulator(t)
	g, err := graph.GNM(200, 800, graph.WeightRange{Min: 1, Max: 9}, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer func(m, on bool, min int) { callMarks, ffNarrow, ffNarrowMin = m, on, min }(callMarks, ffNarrow, ffNarrowMin)
	ffNarrow, ffNarrowMin = true, 0
	for _, on := range []bool{true, false} {
		callMarks = on
		var st Stats
		if _, err := FWFast(context.Background(), g, Options{Device: dev, Stats: &st}); err != nil {
			t.Fatal(err)
		}
		var names []string
		last := 0 // the last mark with an event
		for i, m := range st.marks {
			names = append(names, m.name)
			if i > 0 && m.host < st.marks[i-1].host || !m.hostOnly && m.device < st.marks[last].device {
				t.Errorf("mark %s at device %v, host %v: before %s (%v, %v)", m.name, m.device, m.host,
					st.marks[i-1].name, st.marks[i-1].device, st.marks[i-1].host)
			}
			if !m.hostOnly {
				last = i
			}
		}
		want := []string{"start", "pinned", "uploaded", "arcs", "h", "fill", "flags", "grid", "queue", "stages", "finish", "fetched"}
		if !on {
			want = nil
		}
		if !slices.Equal(names, want) {
			t.Errorf("callMarks %v: marks %v, want %v", on, names, want)
		}
	}
}

// TestFWFastNarrowResultPaths runs the 16-bit stages without Π (whose
// distances f16_widen writes final, with no ff_finish after it) with the
// result coming back by each path, on odd and even sizes, against the
// CPU.
func TestFWFastNarrowResultPaths(t *testing.T) {
	dev := emulator(t)
	defer func(p int) { resultPath = p }(resultPath)
	setFFPath(t, ffPath{name: "narrow-one", small: 1 << 20, quarter: 32, narrow: true})
	ran := 0
	for _, n := range []int{128, 130, 131} {
		for _, tg := range randomGraphs(t, n, uint64(n)) {
			if !ffNarrowWeights(tg.g) || fwFastMode(tg.g, false) != ffDist {
				continue
			}
			ran++
			for _, path := range []int{viaAuto, viaStaged, viaPageable, viaRegistered} {
				resultPath = path
				res, err := FWFast(context.Background(), tg.g, Options{Device: dev})
				matchesCPU(t, fmt.Sprintf("%s path %d", tg.name, path), tg, res, err, false)
			}
		}
	}
	if ran < 4 {
		t.Errorf("%d graphs took the 16-bit stages, want 4 or more", ran)
	}
}

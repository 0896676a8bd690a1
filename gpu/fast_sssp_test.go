package gpu

// sssp-fast and bf-fast on the emulator against the CPU solvers, on random
// graphs, on the awkward shapes (duplicate arcs, zero-weight cycles,
// self-loops, unreachable vertices, n = 0 and 1) and under every tunable's
// extremes, which change the schedule but must not change a result.

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"weak"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/graph"
)

// frontierSolver is ssspFastTuned or bfFastTuned.
type frontierSolver func(context.Context, *graph.Graph, int, Options, fastTuning) (*graph.SingleSource, error)

// awkwardGraphs returns small graphs with the cases a worklist SSSP gets
// wrong most easily. All weights are non-negative.
func awkwardGraphs(t *testing.T) map[string]*graph.Graph {
	t.Helper()
	build := func(n int, arcs string) *graph.Graph {
		return buildArcs(t, graph.NewBuilder(n).Duplicates(graph.KeepAll), arcs)
	}
	return map[string]*graph.Graph{
		"duplicates":      build(4, "0->1 5, 0->1 2, 0->1 9, 1->2 1, 1->2 1, 2->3 0, 0->3 3"),
		"zero cycle":      build(5, "0->1 0, 1->2 0, 2->0 0, 2->3 4, 3->4 0, 4->3 0, 1->3 4"),
		"self-loops":      build(3, "0->0 0, 0->0 7, 0->1 2, 1->1 0, 1->2 1, 2->2 5"),
		"unreachable":     build(6, "0->1 1, 2->3 1, 3->2 1, 4->5 0"),
		"single":          build(1, "0->0 3"),
		"zero weights":    build(6, "0->1 0, 0->2 0, 1->3 0, 2->3 0, 3->4 0, 4->5 0, 5->0 0"),
		"ties":            build(4, "0->1 1, 0->2 1, 1->3 1, 2->3 1"),
		"heavy and light": build(4, "0->3 1000000, 0->1 1, 1->2 1, 2->3 1"),
	}
}

// checkFrontier runs solve from each source and compares distances with
// the CPU's (Bellman-Ford when the graph has negative arcs); with pred it
// verifies every path.
func checkFrontier(t *testing.T, name string, solve frontierSolver, g *graph.Graph, tun fastTuning, pred bool, sources ...int) {
	t.Helper()
	ctx := context.Background()
	for _, s := range sources {
		var want *graph.SingleSource
		var err error
		if g.HasNegative() {
			want, err = cpu.BellmanFord(ctx, g, s, cpu.BFOptions{})
		} else {
			want, err = cpu.Dijkstra(ctx, g, s, cpu.DijkstraOptions{})
		}
		if err != nil {
			t.Fatalf("%s: cpu from %d: %v", name, s, err)
		}
		got, err := solve(ctx, g, s, Options{Device: emulator(t), Pred: pred}, tun)
		if err != nil {
			t.Errorf("%s from %d (%+v): %v", name, s, tun, err)
			continue
		}
		if !got.SameDistances(want) {
			t.Errorf("%s from %d (%+v, pred %v): distances differ from the CPU:\n%s", name, s, tun, pred, got.Diff(want, 5))
			continue
		}
		if pred {
			if err := got.Verify(g); err != nil {
				t.Errorf("%s from %d (%+v): %v", name, s, tun, err)
			}
		} else if got.Pred != nil {
			t.Errorf("%s from %d: predecessors without Pred", name, s)
		}
	}
}

// tunings are the schedules every graph is checked under: defaults, one
// lane per vertex with the narrowest buckets on one block, whole warps per
// vertex with one step per launch, wide buckets on small blocks, and on
// grids of 32-thread blocks (several blocks even for small graphs): the
// defaults and the defaults without local rounds, grid steps only, solo
// steps only (the other blocks waiting in the barrier throughout), and a
// small solo bound that switches between the two modes
// many times, across launches of a few steps; then with heavy vertices
// (more than 2 or 1 arcs, a block each) on grid steps only, and switching;
// then local rounds in grid steps: queues of 1 and 3 entries that overflow
// onto the worklist all the time (with heavy vertices, which never go on
// them, and with wide buckets), many rounds, and a single round with solo
// steps in between; then runs that change between the narrow and the wide
// grid at almost every launch (worklists above 1 to 3 entries are wide),
// with buckets of width 1 on the wide grid, without the distance read
// before the atomic on either grid, with a wide grid of sssp_run's
// 512-thread blocks, with narrow buckets that make many splits (the run
// going back to the narrow grid when a far pile is small), with local
// work through the asynchronous ring (rings of 2 and 4 entries that
// overflow all the time, one lane and whole warps per vertex, with heavy
// vertices and switching grids), with solo steps on the narrow one; and
// with heavy vertices queued in parts (Split) of 1, 2 and 3 arcs, on grid
// steps only, with solo steps (block 0 taking the parts alone), and
// switching grids; with the arcs' heads (Head) of 1, 2, 4 and 8 slots,
// whose rest markers send most vertices' later arcs to the CSR, on grid
// steps, through the ring, with parts and switching grids, and with
// solo steps; without heads where a mesh would take them; and with idle
// blocks taking the next worklist's entries (Pool) behind rings of 2 to 6
// entries that overflow all the time, with heads, switching grids and
// solo steps, and without them where a mesh would take them. The last
// schedule is also the negative-cycle tests'.
var tunings = []fastTuning{
	{},
	{Local: -1},
	{Delta: 1, Group: 1, Blocks: 1, Block: 32},
	{Group: 32, Steps: 1},
	{Delta: 1 << 29, Group: 4, Block: 64, Steps: 3},
	{Block: 32, Group: 2, Solo: -1},
	{Block: 32, Group: 1, Solo: 1 << 30, Delta: 3},
	{Block: 32, Group: 1, Solo: 4, Steps: 5},
	{Block: 32, Group: 2, Heavy: 2, Solo: -1},
	{Block: 64, Group: 1, Heavy: 1, Solo: 6, Steps: 7},
	{Block: 32, Group: 1, Solo: -1, Local: 2, LocalQueue: 1},
	{Block: 64, Group: 2, Solo: -1, Heavy: 2, Local: 64, LocalQueue: 3, Delta: 1 << 29},
	{Block: 32, Group: 4, Solo: -1, Local: 1000, Steps: 2},
	{Wide: 2, WideBlock: 32, WideDelta: 1, Switches: 1000, Steps: 3, Block: 64, Group: 2},
	{Wide: 3, WideBlock: 64, Preread: -1, WidePreread: -1, Switches: 1000, Block: 32, Group: 1, Local: 4, LocalQueue: 2, Heavy: 2},
	{Wide: 1, WideBlock: 512, Switches: 7, Steps: 2, Block: 32, Solo: 2, Delta: 5},
	{Wide: 32, WideBlock: 64, Switches: 1000, Delta: 20, WideDelta: 3, Block: 32, Group: 2, Local: 3},
	{Async: 1, Block: 64, Group: 1, Solo: -1},
	{Async: 1, Block: 96, Group: 4, LocalQueue: 2, Heavy: 3, Wide: 40, WideBlock: 32, Switches: 1000, Steps: 4},
	{Async: 1, Block: 32, Group: 32, LocalQueue: 1, Preread: -1, Delta: 1 << 29},
	{Block: 32, Group: 2, Heavy: 2, Split: 1, Solo: -1},
	{Block: 64, Group: 1, Heavy: 1, Split: 2, Solo: 6, Steps: 7},
	{Wide: 3, WideBlock: 64, Switches: 1000, Steps: 4, Block: 32, Group: 1, Heavy: 2, Split: 3, Delta: 2},
	{Head: 1, Block: 32, Group: 1, Solo: -1},
	{Head: 1, Async: 1, Block: 64, Group: 2, LocalQueue: 3, Solo: -1},
	{Head: 1, Block: 32, Group: 4, Heavy: 2, Split: 1, Wide: 3, WideBlock: 64, Switches: 1000, Steps: 3},
	{Head: 1, Block: 64, Group: 8, Local: 2, LocalQueue: 2, Delta: 3, Solo: 3},
	{Head: -1, Async: 1, Block: 64, Group: 4},
	{Pool: 1, Async: 1, Block: 32, Group: 1, LocalQueue: 1, Solo: -1},
	{Pool: 1, Head: 1, Async: 1, Block: 64, Group: 2, LocalQueue: 2, Wide: 3, WideBlock: 32, Switches: 1000, Steps: 3},
	{Pool: 1, Async: 1, Block: 32, Group: 4, LocalQueue: 3, Solo: 4, Steps: 5, Delta: 2},
	{Pool: -1, Head: -1, Async: 1, Block: 32, Group: 2, LocalQueue: 2},
	{Block: 32, Group: 1, Solo: 4, Local: 1, LocalQueue: 2, Steps: 5, Wide: 2, WideBlock: 32, Switches: 1000},
}

func TestEmuFrontierAwkward(t *testing.T) {
	for _, solver := range []struct {
		name  string
		solve frontierSolver
	}{{VariantSSSPFast, ssspFastTuned}, {VariantBFFast, bfFastTuned}} {
		for gname, g := range awkwardGraphs(t) {
			for _, tun := range tunings {
				all := make([]int, g.N())
				for i := range all {
					all[i] = i
				}
				checkFrontier(t, solver.name+" on "+gname, solver.solve, g, tun, true, all...)
			}
		}
	}
}

func TestEmuFrontierRandom(t *testing.T) {
	sizes := []int{2, 33, 100, 257}
	if testing.Short() {
		sizes = []int{2, 100}
	}
	for _, n := range sizes {
		for _, tg := range randomGraphs(t, n, uint64(500+n)) {
			srcs := slices.Compact([]int{0, n / 3, n - 1})
			for i, tun := range tunings {
				if !tg.g.HasNegative() {
					checkFrontier(t, VariantSSSPFast+" on "+tg.name, ssspFastTuned, tg.g, tun, i%2 == 0, srcs...)
				}
				checkFrontier(t, VariantBFFast+" on "+tg.name, bfFastTuned, tg.g, tun, i%2 == 1, srcs...)
			}
		}
	}
}

// TestEmuFrontierErrors checks the refusals: sources out of range, n = 0,
// negative arcs for sssp-fast, bad tunables.
func TestEmuFrontierErrors(t *testing.T) {
	ctx := context.Background()
	dev := emulator(t)
	empty, err := graph.NewBuilder(0).Build()
	if err != nil {
		t.Fatal(err)
	}
	g := mustGraph(t, 3, "0->1 2, 1->2 3")
	neg := mustGraph(t, 3, "0->1 2, 1->2 -3")
	for _, solve := range []frontierSolver{ssspFastTuned, bfFastTuned} {
		for _, c := range []struct {
			g    *graph.Graph
			src  int
			tun  fastTuning
			want string
		}{
			{empty, 0, fastTuning{}, "source 0 out of range"},
			{g, -1, fastTuning{}, "source -1 out of range 0..2"},
			{g, 3, fastTuning{}, "source 3 out of range 0..2"},
			{nil, 0, fastTuning{}, "nil graph"},
			{g, 0, fastTuning{Block: 48}, "block of 48 threads"},
			{g, 0, fastTuning{Group: 3}, "group of 3 lanes"},
			{g, 0, fastTuning{Delta: -2}, "delta -2"},
			{g, 0, fastTuning{Steps: maxSteps + 1}, "steps 16777217"},
			{g, 0, fastTuning{Local: 2, LocalQueue: maxLocalQueue + 1}, "local queue of 4097 entries"},
			{g, 0, fastTuning{LocalQueue: -1}, "local queue of -1 entries"},
		} {
			if _, err := solve(ctx, c.g, c.src, Options{Device: dev}, c.tun); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("source %d, %+v: %v, want an error saying %q", c.src, c.tun, err, c.want)
			}
		}
	}
	if _, err := SSSPFast(ctx, neg, 0, Options{Device: dev}); err == nil || !strings.Contains(err.Error(), "negative weight -3") {
		t.Errorf("sssp-fast with a negative arc: %v", err)
	}
	if res, err := BFFast(ctx, neg, 0, Options{Device: dev, Pred: true}); err != nil || res.Dist[2] != -1 || res.Pred[2] != 1 {
		t.Errorf("bf-fast with a negative arc: %v, %v", res, err)
	}
}

// TestEmuBFFastNegativeCycles checks that bf-fast stops on a negative
// cycle reachable from the source, names it, and ignores one that is not.
func TestEmuBFFastNegativeCycles(t *testing.T) {
	ctx := context.Background()
	dev := emulator(t)
	for _, c := range []struct {
		name string
		g    *graph.Graph
		src  int
	}{
		{"self-loop", mustGraph(t, 1, "0->0 -1"), 0},
		{"two arcs", mustGraph(t, 2, "0->1 1, 1->0 -2"), 0},
		{"behind a path", mustGraph(t, 6, "0->1 3, 1->2 1, 2->3 1, 3->4 1, 4->2 -4, 4->5 1"), 0},
		{"long", ringWithChord(t, 300), 0},
	} {
		// The last schedule, and heavy vertices in parts, the vertex named
		// at round n then taken from the parts' worklist.
		for _, tun := range append(tunings[:2:2], tunings[len(tunings)-1], fastTuning{Block: 32, Group: 1, Heavy: 1, Split: 1, Solo: -1, Local: -1}, fastTuning{Head: 1, Block: 32, Group: 2, Async: 1}) {
			_, err := bfFastTuned(ctx, c.g, c.src, Options{Device: dev, Pred: true}, tun)
			var nc *graph.NegativeCycleError
			if !errors.As(err, &nc) || nc.Weight >= 0 || !slices.Contains(nc.Cycle, nc.Vertex) {
				t.Errorf("%s (%+v): %v, want a negative cycle through the vertex named", c.name, tun, err)
			}
		}
	}
	g := mustGraph(t, 5, "0->1 1, 1->2 1, 3->4 -1, 4->3 -1")
	res, err := BFFast(ctx, g, 0, Options{Device: dev, Pred: true})
	if err != nil || res.Dist[2] != 2 || res.Dist[3] != graph.Inf {
		t.Errorf("cycle not reachable from the source: %v, %v", res, err)
	}
}

// ringWithChord is a ring of n vertices with weight 1 whose closing arc
// makes the ring's total -1: the cycle shows only after about n rounds.
func ringWithChord(t *testing.T, n int) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder(n)
	for v := 0; v+1 < n; v++ {
		b.AddArc(v, v+1, 1)
	}
	b.AddArc(n-1, 0, -int32(n))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestEmuFrontierTrace checks a traced run's counts on a grid whose
// worklists outgrow a small wide bound: every vertex is reached, so each
// is expanded at least once and its arcs looked at; the run goes wide and,
// with sssp-fast's narrow buckets (far piles that shrink at the end), comes
// back, within its switch budget; local work runs in rounds, and through
// the asynchronous ring.
func TestEmuFrontierTrace(t *testing.T) {
	g, err := graph.Grid(20, 30, graph.WeightRange{Min: 1, Max: 9}, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		solve    frontierSolver
		switches int
		async    int
	}{{ssspFastTuned, 2, 0}, {bfFastTuned, 1, 0}, {ssspFastTuned, 2, 1}} {
		var tr frontierTrace
		tun := fastTuning{Wide: 32, Switches: 3, Block: 64, WideBlock: 64, Local: 2, LocalQueue: 4, Delta: 4, WideDelta: 4,
			Async: s.async, Trace: &tr}
		if _, err := s.solve(context.Background(), g, 0, Options{Device: emulator(t)}, tun); err != nil {
			t.Fatal(err)
		}
		if tr.Expanded < uint64(g.N()) || tr.Arcs < uint64(g.M()) || tr.Steps < 1 || tr.WideSteps < 1 ||
			tr.WideSteps >= tr.Steps || tr.Switches < s.switches || tr.Switches > 3 || tr.Launches <= tr.Switches || tr.LocalRounds < 1 {
			t.Errorf("trace %+v on %d vertices and %d arcs", tr, g.N(), g.M())
		}
	}
	// Idle blocks take spilled entries within their step with Pool, and
	// none without it.
	for _, pool := range []int{1, -1} {
		var tr frontierTrace
		tun := fastTuning{Pool: pool, Async: 1, Local: 2, LocalQueue: 1, Block: 32, Group: 1, Trace: &tr}
		if _, err := ssspFastTuned(context.Background(), g, 0, Options{Device: emulator(t)}, tun); err != nil {
			t.Fatal(err)
		}
		if (tr.Pooled > 0) != (pool > 0) || tr.Spilled == 0 {
			t.Errorf("pool %d: %d entries taken from the worklist by idle blocks, %d spilled", pool, tr.Pooled, tr.Spilled)
		}
	}
}

// TestEmuSSSPFastEngines checks SSSPFast's choice of engine and the flag
// frontier engine's results: graphs without hubs of mean out-degree above
// meshDegree (one of notebook 02's, and one with duplicate arcs,
// self-loops, zero weights, large weights and unreachable vertices) take
// it, a grid, a road-like graph and an R-MAT graph (hubs) do not; every
// result matches the CPU with its predecessors verified and names
// sssp-fast, and negative arcs are refused.
func TestEmuSSSPFastEngines(t *testing.T) {
	ctx := context.Background()
	dev := emulator(t)
	for _, c := range engineGraphs(t) {
		if got := flagFrontier(c.g); got != c.flag {
			t.Errorf("%s: flagFrontier = %v, want %v", c.name, got, c.flag)
		}
		checkSSSPFast(t, c.name, c.g, dev)
	}
	arcs := engineGraphs(t)[0].g.Arcs()
	arcs[10].Weight = -1
	neg, err := graph.FromArcs(engineGraphs(t)[0].g.N(), arcs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := SSSPFast(ctx, neg, 0, Options{Device: dev}); err == nil || !strings.Contains(err.Error(), "negative weight -1") {
		t.Errorf("a negative arc on the flag frontier's graphs: %v", err)
	}
}

// engineGraph is one of TestEmuSSSPFastEngines' graphs and whether
// SSSPFast takes the flag frontier on it.
type engineGraph struct {
	name string
	g    *graph.Graph
	flag bool
}

// engineGraphs builds TestEmuSSSPFastEngines' graphs: one of notebook 02's
// (out-degree 7), one with duplicate arcs, self-loops, zero and large
// weights and unreachable vertices, a grid, a road-like graph, an R-MAT
// graph (hubs) and a single vertex.
func engineGraphs(t *testing.T) []engineGraph {
	t.Helper()
	deg7, err := graph.ConstantDegree(3000, 7, graph.WeightRange{Min: 1, Max: 10}, 2016)
	if err != nil {
		t.Fatal(err)
	}
	b := graph.NewBuilder(300).Duplicates(graph.KeepAll)
	rng := rand.New(rand.NewPCG(5, 6))
	for u := range 280 { // vertices 280..299 have no in-arcs: unreachable from the others
		for k := range 6 {
			v := rng.IntN(280)
			if k == 0 {
				v = u // a self-loop
			}
			w := int32(rng.IntN(4)) // zero weights among them
			if k == 5 {
				w = graph.MaxDistance / 400
			}
			b.AddArc(u, v, w)
			if k == 1 {
				b.AddArc(u, v, w+1) // a duplicate
			}
		}
	}
	awkward, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	grid, err := graph.Grid(30, 40, graph.WeightRange{Min: 1, Max: 9}, 1)
	if err != nil {
		t.Fatal(err)
	}
	road, err := graph.RoadLike(1200, 3000, graph.WeightRange{Min: 1, Max: 50}, 1)
	if err != nil {
		t.Fatal(err)
	}
	rmat, err := graph.RMAT(11, 8, graph.Graph500, graph.WeightRange{Min: 0, Max: 50}, 1)
	if err != nil {
		t.Fatal(err)
	}
	return []engineGraph{{"out-degree 7", deg7, true}, {"awkward", awkward, true}, {"grid", grid, false},
		{"road-like", road, false}, {"R-MAT", rmat, false}, {"single", mustGraph(t, 1, "0->0 3"), false}}
}

// checkSSSPFast runs SSSPFast on g from its first, middle and last vertex
// with predecessors and checks the result against cpu.Dijkstra, the paths
// against g, and the solver's name.
func checkSSSPFast(t *testing.T, name string, g *graph.Graph, dev *Device) {
	t.Helper()
	ctx := context.Background()
	for _, s := range slices.Compact([]int{0, g.N() / 2, g.N() - 1}) {
		want, err := cpu.Dijkstra(ctx, g, s, cpu.DijkstraOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var st Stats
		got, err := SSSPFast(ctx, g, s, Options{Device: dev, Pred: true, Stats: &st})
		switch {
		case err != nil:
			t.Errorf("%s from %d: %v", name, s, err)
		case !got.SameDistances(want):
			t.Errorf("%s from %d: distances differ from the CPU:\n%s", name, s, got.Diff(want, 5))
		case got.Solver != VariantSSSPFast || st.Variant != VariantSSSPFast:
			t.Errorf("%s from %d: solver %q, stats %q", name, s, got.Solver, st.Variant)
		default:
			if err := got.Verify(g); err != nil {
				t.Errorf("%s from %d: %v", name, s, err)
			}
		}
	}
}

// TestEmuSSSPFastKnobs checks every alternative that PATHNOTES_SSSP
// selects on the engines' graphs, each engine forced on every graph, and
// the errors of bad settings.
func TestEmuSSSPFastKnobs(t *testing.T) {
	dev := emulator(t)
	for _, set := range []string{"", "heavy=1,block=64,group=2", "block=512,blocks=3,ring=16",
		"delta=0.5,widedelta=4", "delta=3", "wide=2,wideblock=32,heavy=2,steps=3", "engine=worklist",
		"engine=flag,flagcheck=3", "engine=auto,flagcheck=1000", "engine=flag,flagcheck=1", "pin=1", "pin=0,engine=flag", "pin=auto"} {
		t.Setenv(ssspEnv, set)
		for _, c := range engineGraphs(t) {
			checkSSSPFast(t, set+" on "+c.name, c.g, dev)
		}
	}
	g := mustGraph(t, 3, "0->1 2, 1->2 3")
	for set, want := range map[string]string{
		"heavy":         `"heavy" is not key=value`,
		"heavy=x":       `heavy="x": want an integer ≥ -1`,
		"block=16":      `block="16": want an integer ≥ 32`,
		"block=48":      "block of 48 threads",
		"delta=0":       `delta="0": want a positive factor`,
		"widedelta=-1":  `widedelta="-1": want a positive factor`,
		"engine=fast":   `engine="fast": want auto, worklist or flag`,
		"pin=2":         `pin="2": want auto, 1 or 0`,
		"flagcheck=0":   `flagcheck="0": want an integer ≥ 1`,
		"pin=1,speed=9": `unknown key "speed"`,
	} {
		t.Setenv(ssspEnv, set)
		if _, err := SSSPFast(context.Background(), g, 0, Options{Device: dev}); err == nil || !strings.Contains(err.Error(), want) ||
			!strings.Contains(err.Error(), VariantSSSPFast) {
			t.Errorf("%s=%s: %v, want an error saying %q", ssspEnv, set, err, want)
		}
	}
}

// TestEmuSSSPFastPin checks pin: by default the first call on a graph
// only remembers it and the second registers its arrays (here every array,
// the threshold lowered); pin=1 registers on the first call and pin=0
// never; later calls reuse the registration, and once a graph is
// collected its arrays are unregistered and forgotten.
func TestEmuSSSPFastPin(t *testing.T) {
	dev := emulator(t)
	defer func(v int) { csrPinMin = v }(csrPinMin)
	csrPinMin = 1
	registered := registeredProbe(t, dev)
	var weaks []weak.Pointer[graph.Graph]
	var arrays [][]int32
	for _, c := range []struct {
		set   string
		after []bool // registered after each call
	}{{"", []bool{false, true, true}}, {"pin=auto", []bool{false, true}}, {"pin=1", []bool{true, true}}, {"pin=0", []bool{false, false, false}}} {
		t.Setenv(ssspEnv, c.set)
		g, err := graph.Grid(7, 9, graph.WeightRange{Min: 1, Max: 9}, 4)
		if err != nil {
			t.Fatal(err)
		}
		for call, want := range c.after {
			if _, err := SSSPFast(context.Background(), g, call, Options{Device: dev}); err != nil {
				t.Fatal(err)
			}
			for i, a := range [][]int32{g.Offsets(), g.Targets(), g.Weights()} {
				if registered(a) != want {
					t.Errorf("%s=%q, after call %d: array %d registered %v, want %v", ssspEnv, c.set, call+1, i, !want, want)
				}
			}
		}
		checkSSSPFast(t, c.set+" grid", g, dev)
		weaks = append(weaks, weak.Make(g))
		arrays = append(arrays, g.Offsets(), g.Targets(), g.Weights())
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		left := 0
		for _, a := range arrays {
			if registered(a) {
				left++
			}
		}
		entries := 0
		csrPins.Lock()
		for k := range csrPins.m {
			if slices.Contains(weaks, k.g) {
				entries++
			}
		}
		csrPins.Unlock()
		if left == 0 && entries == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("10 s after the graphs became garbage: %d of their arrays registered, %d graphs remembered", left, entries)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFinishSinglePoison checks finishSingle's device check (ff_finish
// over the result as the source's row): a good result passes with every
// source, and a distance never written, one beyond ±MaxDistance and a
// predecessor outside Nil..n−1 are each reported, naming the vertex.
func TestFinishSinglePoison(t *testing.T) {
	dev := emulator(t)
	const n = 300
	g := mustGraph(t, n, "0->1 1")
	for _, c := range []struct {
		source, at int
		dist, pred int32
		want       string
	}{
		{0, -1, 0, 0, ""}, {n - 1, -1, 0, 0, ""}, {137, -1, 0, 0, ""},
		{137, 5, int32(poison), 0, "dist[5] was never written"},
		{0, n - 1, graph.MaxDistance + 1, 0, "dist[299] = 1073741824 is beyond"},
		{n - 1, 0, -graph.MaxDistance - 1, 0, "dist[0] = -1073741824 is beyond"},
		{42, 7, 3, n, "pred[7] = 300 is a value no result may hold"},
		{42, 8, 3, graph.Nil - 1, "pred[8] = -2 is a value no result may hold"},
	} {
		r, err := dev.begin(context.Background(), "check", nil)
		if err != nil {
			t.Fatal(err)
		}
		dist, pred := make([]int32, n), make([]int32, n)
		for v := range n {
			dist[v], pred[v] = int32(v), int32(max(v-1, -1))
			if v%3 == 0 {
				dist[v], pred[v] = graph.Inf, graph.Nil
			}
		}
		if c.at >= 0 {
			dist[c.at] = c.dist
			if c.pred != 0 {
				dist[c.at], pred[c.at] = 1, c.pred
			}
		}
		db, err := r.upload(dist)
		if err != nil {
			t.Fatal(err)
		}
		pb, err := r.upload(pred)
		if err != nil {
			t.Fatal(err)
		}
		out := r.singleResult(n, true)
		res, err := finishSingle(r, g, c.source, out, db, pb, true)
		out.done()
		r.end()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("source %d, a good result: %v", c.source, err)
		case c.want == "" && (!slices.Equal(res.Dist, dist) || !slices.Equal(res.Pred, pred)):
			t.Errorf("source %d: the result differs from what the device held", c.source)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("source %d, bad value at %d: got %v, want %q", c.source, c.at, err, c.want)
		}
	}
}

// registeredProbe returns a probe of whether host memory is registered
// on the emulated dev: the emulator refuses to register memory that
// overlaps registered memory, and what it accepts is unregistered again.
func registeredProbe(t *testing.T, dev *Device) func(a []int32) bool {
	return func(a []int32) bool {
		if dev.ctx.HostRegister(asBytes(a)) != nil {
			return true
		}
		if err := dev.ctx.HostUnregister(asBytes(a)); err != nil {
			t.Fatal(err)
		}
		return false
	}
}

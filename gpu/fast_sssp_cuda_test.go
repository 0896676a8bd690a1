//go:build cuda

package gpu

// sssp-fast, bf-fast and apsp-batched on a real GPU: correctness on graphs
// large enough to fill the persistent grid (where the grid-wide barrier
// really runs hundreds of blocks), and the benchmarks that sweep their
// tunables. Build and run on the GPU machine:
//
//	CGO_CFLAGS="-I$PWD/gpu/cudacompat" go test -tags cuda -c -o .gpu/gpu.test ./gpu
//	.gpu/gpu.test -test.run 'TestFast' -test.v
//	.gpu/gpu.test -test.run '^$' -test.bench 'BenchmarkFast(SSSP|Baselines)' -test.benchtime 3x
//
// The second is the single-source sweep (a few minutes); BenchmarkFastAllPairs
// and BenchmarkFastCrossover are the all-pairs ones.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/graph"
)

// fastGraph is one named input of the tests and benchmarks, built once.
type fastGraph struct {
	name  string
	build func() (*graph.Graph, error)
	once  sync.Once
	g     *graph.Graph
	err   error
}

func (f *fastGraph) get(tb testing.TB) *graph.Graph {
	tb.Helper()
	f.once.Do(func() { f.g, f.err = f.build() })
	if f.err != nil {
		tb.Fatalf("%s: %v", f.name, f.err)
	}
	return f.g
}

var roads = graph.WeightRange{Min: 1, Max: 1000}

// deg7Weights are notebook 02's weights for the graphs of [Musap 2016]
// §2.9 (out-degree 7, graph.ConstantDegree, seed 2016 for the first graph
// of each size).
var deg7Weights = graph.WeightRange{Min: 1, Max: 10}

// The performance targets' graphs (weights as the benches assign them).
var fastBenchGraphs = []*fastGraph{
	{name: "grid1024", build: func() (*graph.Graph, error) { return graph.Grid(1024, 1024, roads, 1) }},
	{name: "road264k", build: func() (*graph.Graph, error) { return graph.RoadLike(264346, 733846, roads, 1) }},
	{name: "rmat20", build: func() (*graph.Graph, error) { return graph.RMAT(20, 16, graph.Graph500, roads, 1) }},
	{name: "deg7-1m", build: func() (*graph.Graph, error) { return graph.ConstantDegree(1_000_000, 7, deg7Weights, 2016) }},
	{name: "deg7-10m", build: func() (*graph.Graph, error) { return graph.ConstantDegree(10_000_000, 7, deg7Weights, 2016) }},
	{name: "gnutella30", build: func() (*graph.Graph, error) {
		// The test binary may run from the repository root or from gpu/.
		path := "data/snap/p2p-Gnutella30.txt.gz"
		if _, err := os.Stat(path); err != nil {
			path = filepath.Join("..", path)
		}
		return graph.ReadFile(path, graph.ReadOptions{Weights: graph.WeightRange{Min: 1, Max: 100}, Seed: 1})
	}},
}

// gnutella30 is the bench graph p2p-Gnutella30.
func gnutella30() *fastGraph { return fastBenchGraphs[len(fastBenchGraphs)-1] }

// fastTestGraphs are smaller inputs for the correctness tests.
var fastTestGraphs = []*fastGraph{
	{name: "grid200", build: func() (*graph.Graph, error) { return graph.Grid(200, 200, roads, 2) }},
	{name: "road50k", build: func() (*graph.Graph, error) { return graph.RoadLike(50000, 140000, roads, 2) }},
	{name: "rmat15", build: func() (*graph.Graph, error) { return graph.RMAT(15, 16, graph.Graph500, roads, 2) }},
	{name: "gnm-zero", build: func() (*graph.Graph, error) {
		return graph.GNM(30000, 90000, graph.WeightRange{Min: 0, Max: 3}, 2)
	}},
}

// TestFastSingleSource checks sssp-fast and bf-fast against cpu.Dijkstra
// on large graphs under several schedules, predecessors verified. Of the
// six before the last three, three go wide at small worklists (one
// switching at almost every launch, two without the distance read before
// the atomic where the weights allow), and three run local work through
// the asynchronous ring (one that overflows all the time); the last three
// queue heavy vertices in parts of 5 and 1 arcs (the latter while
// switching grids) and whole, a block each.
func TestFastSingleSource(t *testing.T) {
	testDevice(t)
	ctx := context.Background()
	schedules := []fastTuning{{}, {Group: 1, Block: 128}, {Group: 32, Delta: 1}, {Blocks: 1, Steps: 100},
		{Solo: -1}, {Solo: 1 << 30, Steps: 1000}, {Solo: 64, Block: 256, Blocks: 1 << 20}, {Heavy: 16, Solo: -1}, {Heavy: -1},
		{Local: 4}, {Local: 64, LocalQueue: 16, Solo: -1}, {Local: 8, Block: 1024, LocalQueue: maxLocalQueue},
		{Local: 2, Heavy: 16, Group: 1, Solo: -1, Steps: 50},
		{Wide: 256, Switches: 1000, Steps: 5}, {Wide: 1000, Preread: -1, WidePreread: -1, WideBlock: 1024, WideDelta: 1},
		{Wide: 64, WideBlock: 128, Local: 64, LocalQueue: maxLocalQueue, Preread: -1, Switches: 50},
		{Async: 1, Local: 1}, {Async: 1, LocalQueue: maxLocalQueue, Preread: -1, Group: 2, Block: 512},
		{Async: 1, LocalQueue: 8, Block: 1024, Group: 32, Heavy: 16},
		{Heavy: 16, Split: 5, Solo: -1}, {Heavy: 8, Split: 1, Wide: 256, Switches: 1000, Steps: 5}, {Split: -1}}
	for _, fg := range fastTestGraphs {
		g := fg.get(t)
		for _, src := range []int{0, g.N() / 2, g.N() - 1} {
			want, err := cpu.Dijkstra(ctx, g, src, cpu.DijkstraOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, tun := range schedules {
				for _, s := range []struct {
					name  string
					solve frontierSolver
				}{{VariantSSSPFast, ssspFastTuned}, {VariantBFFast, bfFastTuned}} {
					got, err := s.solve(ctx, g, src, Options{Pred: true}, tun)
					if err != nil {
						t.Errorf("%s on %s from %d (%+v): %v", s.name, fg.name, src, tun, err)
						continue
					}
					if !got.SameDistances(want) {
						t.Errorf("%s on %s from %d (%+v): distances differ:\n%s", s.name, fg.name, src, tun, got.Diff(want, 5))
					} else if err := got.Verify(g); err != nil {
						t.Errorf("%s on %s from %d (%+v): %v", s.name, fg.name, src, tun, err)
					}
				}
			}
		}
	}
}

// TestFastSSSPKnobs checks SSSPFast under every PATHNOTES_SSSP
// alternative against cpu.Dijkstra, predecessors verified, on the test
// graphs and one of out-degree 7 (the flag engine's); pin page-locks
// each graph's arrays for real, and they are unregistered once the graphs
// are collected.
func TestFastSSSPKnobs(t *testing.T) {
	testDevice(t)
	ctx := context.Background()
	graphs := map[string]*graph.Graph{}
	for _, fg := range fastTestGraphs {
		graphs[fg.name] = fg.get(t)
	}
	deg7, err := graph.ConstantDegree(300_000, 7, deg7Weights, 7)
	if err != nil {
		t.Fatal(err)
	}
	graphs["deg7-300k"] = deg7
	for name, g := range graphs {
		want, err := cpu.Dijkstra(ctx, g, 0, cpu.DijkstraOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, set := range []string{"", "heavy=32,wideblock=1024", "split=-1", "heavy=16,split=7", "block=512,blocks=264",
			"delta=0.5,widedelta=2", "engine=worklist", "engine=flag,flagcheck=1", "pin=1", "pin=0", "pin=1,flagcheck=8",
			"pin=auto,engine=flag", "head=-1", "head=1,group=2", "head=1,engine=worklist", "pool=-1", "pool=1,ring=8,engine=worklist"} {
			t.Setenv(ssspEnv, set)
			got, err := SSSPFast(ctx, g, 0, Options{Pred: true})
			if err != nil {
				t.Errorf("%s with %q: %v", name, set, err)
				continue
			}
			if !got.SameDistances(want) {
				t.Errorf("%s with %q: distances differ:\n%s", name, set, got.Diff(want, 5))
			} else if err := got.Verify(g); err != nil {
				t.Errorf("%s with %q: %v", name, set, err)
			}
		}
	}
	csrPins.Lock()
	registered := csrPins.bytes
	csrPins.Unlock()
	if registered == 0 {
		t.Errorf("pin page-locked no array (rmat15's and deg7-300k's are above csrPinMin)")
	}
	clear(graphs)
	deg7 = nil
	for _, fg := range fastTestGraphs {
		fg.once, fg.g = sync.Once{}, nil // the cached graphs go too (they are rebuilt on demand)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		csrPins.Lock()
		pinned, bytes := len(csrPins.m), csrPins.bytes
		csrPins.Unlock()
		if pinned == 0 && bytes == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("10 s after the graphs became garbage, %d are still pinned (%d bytes)", pinned, bytes)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFastNegative checks bf-fast with negative arcs (reduced by random
// potentials: no negative cycle) and with a long negative cycle.
func TestFastNegative(t *testing.T) {
	testDevice(t)
	ctx := context.Background()
	g := fastTestGraphs[1].get(t)
	arcs := g.Arcs()
	for k := range arcs {
		arcs[k].Weight += int32(arcs[k].From%97) - int32(arcs[k].To%97)
	}
	neg, err := graph.FromArcs(g.N(), arcs)
	if err != nil {
		t.Fatal(err)
	}
	want, err := cpu.BellmanFord(ctx, neg, 7, cpu.BFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := BFFast(ctx, neg, 7, Options{Pred: true})
	if err != nil || !got.SameDistances(want) {
		t.Fatalf("bf-fast with negative arcs: %v", err)
	}
	if err := got.Verify(neg); err != nil {
		t.Error(err)
	}
	_, err = BFFast(ctx, ringWithChord(t, 20000), 0, Options{})
	var nc *graph.NegativeCycleError
	if !errors.As(err, &nc) || nc.Weight >= 0 {
		t.Errorf("bf-fast on a ring of 20000 with weight -1: %v", err)
	}
}

// TestFastAllPairs checks apsp-batched against cpu.DijkstraAll with
// batches that do not divide n, and the auto pick.
func TestFastAllPairs(t *testing.T) {
	testDevice(t)
	ctx := context.Background()
	g, err := graph.GNM(3001, 9000, graph.WeightRange{Min: 0, Max: 50}, 4)
	if err != nil {
		t.Fatal(err)
	}
	want, err := cpu.DijkstraAll(ctx, g, cpu.APSPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tun := range []fastTuning{{}, {Batch: 1000}, {Batch: 7, Group: 1}, {Batch: 2999, Group: 32, Delta: 1}} {
		got, err := apspBatchedTuned(ctx, g, Options{Pred: true}, tun)
		if err != nil {
			t.Fatalf("%+v: %v", tun, err)
		}
		if !got.SameDistances(want) {
			t.Errorf("apsp-batched %+v: distances differ:\n%s", tun, got.Diff(want, 5))
		} else if err := got.Verify(g); err != nil {
			t.Errorf("apsp-batched %+v: %v", tun, err)
		}
	}
	sparse, err := graph.GNM(3001, 6000, graph.WeightRange{Min: 0, Max: 50}, 5) // below n²/1024 arcs
	if err != nil {
		t.Fatal(err)
	}
	var s Stats
	got, err := AllPairs(ctx, "auto", sparse, Options{Stats: &s})
	if err != nil || got.Solver != VariantAPSPBatched || s.Variant != VariantAPSPBatched {
		t.Errorf("auto on a sparse graph: %v, solver %q, stats %q", err, got.Solver, s.Variant)
	}
}

// TestFastGnutellaAllPairs runs the all-pairs target: every pair of
// p2p-Gnutella30 with predecessors, checked against the CPU row by row on
// a sample of sources (the whole check would need another 10 GB).
func TestFastGnutellaAllPairs(t *testing.T) {
	testDevice(t)
	if testing.Short() {
		t.Skip("-short: the 36,682² result takes 10.8 GB of host memory")
	}
	ctx := context.Background()
	g := gnutella30().get(t)
	var s Stats
	start := time.Now()
	got, err := APSPBatched(ctx, g, Options{Pred: true, Stats: &s})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("apsp-batched on %s: %v in all; %v", gnutella30().name, time.Since(start), s)
	for _, src := range []int{0, 1, 12345, g.N() - 1} {
		want, err := cpu.Dijkstra(ctx, g, src, cpu.DijkstraOptions{})
		if err != nil {
			t.Fatal(err)
		}
		row := &graph.SingleSource{Source: src, Dist: got.Dist[src*g.N() : (src+1)*g.N()], Pred: got.Pred[src*g.N() : (src+1)*g.N()]}
		if !row.SameDistances(want) {
			t.Errorf("row %d differs:\n%s", src, row.Diff(want, 5))
		} else if err := row.Verify(g); err != nil {
			t.Errorf("row %d: %v", src, err)
		}
	}
}

// reportStats adds the device kernel time and launch count of the last
// run to a benchmark's output.
func reportStats(b *testing.B, s Stats) {
	b.ReportMetric(float64(s.Kernel.Microseconds())/1000, "kernel-ms")
	b.ReportMetric(float64(s.Launches), "launches")
}

// sweepPoint is one schedule of a sweep.
type sweepPoint struct {
	name string
	tun  fastTuning
}

// fastSweep lists the schedules a sweep tries on g, each a change from
// the defaults (see fastTuning), on a device of sms multiprocessors: the
// heavy bound at 1024; heavy vertices whole (a block each, split=off) and
// in parts of 16 to 1024 arcs; narrow
// blocks of 512 and 1024 threads with the ring; two and four narrow
// blocks per multiprocessor; delta at half, twice and four times its
// default; the ring at 1024 and 4096 entries (the latter with 512-thread
// blocks); 16 lanes per vertex; the wide delta at half and twice its
// default. The earlier rounds' points and what they measured are in
// docs/gpu-benchmarks.md.
func fastSweep(g *graph.Graph, sms int) []sweepPoint {
	// The delta points are factors of the default (twice autoDelta with
	// the pool on meshes).
	def, err := fastTuning{}.resolve(g, VariantSSSPFast, 0, false)
	if err != nil {
		panic(err)
	}
	d, wd := def.Delta, def.WideDelta
	// before is the default of the build before the pool and the heads.
	before := fastTuning{Pool: -1, Head: -1, Delta: autoDelta(g)}
	if def.Pool > 0 {
		before.Block = 256
	}
	scale := func(v int, f float64) int { return max(1, int(float64(v)*f)) }
	return []sweepPoint{{"default", fastTuning{}},
		{"heavy=1024", fastTuning{Heavy: 1024}}, {"wide-block=1024", fastTuning{WideBlock: 1024}},
		{"split=off", fastTuning{Split: -1}}, {"split=16", fastTuning{Split: 16}}, {"split=32", fastTuning{Split: 32}},
		{"split=64", fastTuning{Split: 64}}, {"split=128", fastTuning{Split: 128}}, {"split=256", fastTuning{Split: 256}},
		{"split=1024", fastTuning{Split: 1024}},
		{"block=512", fastTuning{Block: 512}}, {"block=1024", fastTuning{Block: 1024}},
		{"blocks=2/sm", fastTuning{Blocks: 2 * sms}}, {"blocks=4/sm", fastTuning{Blocks: 4 * sms}},
		{"delta=x0.5", fastTuning{Delta: scale(d, 0.5)}}, {"delta=x2", fastTuning{Delta: scale(d, 2)}},
		{"delta=x4", fastTuning{Delta: scale(d, 4)}},
		{"ring=1024", fastTuning{LocalQueue: 512}}, {"ring=4096", fastTuning{LocalQueue: 2048}},
		{"block=512,ring=4096", fastTuning{Block: 512, LocalQueue: 2048}},
		{"group=16", fastTuning{Group: 16}},
		{"wide-delta=x0.5", fastTuning{WideDelta: scale(wd, 0.5)}}, {"wide-delta=x2", fastTuning{WideDelta: scale(wd, 2)}},
		{"head=off", fastTuning{Head: -1}}, {"head=on", fastTuning{Head: 1}}, {"head=on,group=8", fastTuning{Head: 1, Group: 8}},
		{"head=on,block=512", fastTuning{Head: 1, Block: 512}}, {"head=on,ring=4096", fastTuning{Head: 1, LocalQueue: 2048}},
		{"pool=off", fastTuning{Pool: -1}}, {"pool=off,head=off", fastTuning{Pool: -1, Head: -1}},
		{"before", before},
		{"pool,ring=1024", fastTuning{LocalQueue: 512}}, {"pool,ring=512", fastTuning{LocalQueue: 256}},
		{"pool,delta=x0.5", fastTuning{Delta: scale(d, 0.5)}}, {"pool,delta=x2", fastTuning{Delta: scale(d, 2)}},
		{"pool,delta=x4", fastTuning{Delta: scale(d, 4)}}, {"pool,block=512", fastTuning{Block: 512}},
		{"pool,blocks=2", fastTuning{Blocks: 2 * sms}}}
}

// bfSweep names the points of fastSweep that bf-fast is timed at: it
// shares sssp-fast's engine.
var bfSweep = map[string]bool{"default": true, "head=off": true}

// BenchmarkFastSSSP sweeps sssp-fast's and bf-fast's tunables on the
// target graphs, from vertex 0, distances only (as pathnotes bench times
// them); kernel-ms is the median device time of the timed runs, ns/op
// the whole call (CSR upload included). One more, traced run gives the
// work done: steps (wide-steps of them on the wide grid), launches and
// switches, expansions per vertex and arcs looked at per arc, local
// rounds per step (summed over blocks) and spills. Filter with e.g.
// -test.bench 'BenchmarkFastSSSP/grid1024/sssp-fast'.
func BenchmarkFastSSSP(b *testing.B) {
	dev := testDevice(b)
	ctx := context.Background()
	for _, fg := range fastBenchGraphs {
		b.Run(fg.name, func(b *testing.B) {
			g := fg.get(b)
			for _, s := range []struct {
				name  string
				solve frontierSolver
			}{{VariantSSSPFast, ssspFastTuned}, {VariantBFFast, bfFastTuned}} {
				for _, p := range fastSweep(g, dev.info.SMs) {
					if s.name == VariantBFFast && !bfSweep[p.name] {
						continue
					}
					b.Run(s.name+"/"+p.name, func(b *testing.B) {
						var kernels []time.Duration
						var st Stats
						for b.Loop() {
							if _, err := s.solve(ctx, g, 0, Options{Device: dev, Stats: &st}, p.tun); err != nil {
								b.Fatal(err)
							}
							kernels = append(kernels, st.Kernel)
						}
						slices.Sort(kernels)
						b.ReportMetric(float64(kernels[len(kernels)/2].Microseconds())/1000, "kernel-ms")
						var tr frontierTrace
						tun := p.tun
						tun.Trace = &tr
						if _, err := s.solve(ctx, g, 0, Options{Device: dev}, tun); err != nil {
							b.Fatal(err)
						}
						reportTrace(b, g, tr)
					})
				}
			}
		})
	}
}

// reportTrace adds a traced run's counts to a benchmark's output.
func reportTrace(b *testing.B, g *graph.Graph, tr frontierTrace) {
	b.ReportMetric(float64(tr.Steps), "steps")
	b.ReportMetric(float64(tr.WideSteps), "wide-steps")
	b.ReportMetric(float64(tr.Launches), "launches")
	b.ReportMetric(float64(tr.Switches), "switches")
	b.ReportMetric(float64(tr.Expanded)/float64(max(g.N(), 1)), "expand/n")
	b.ReportMetric(float64(tr.Arcs)/float64(max(g.M(), 1)), "arcs/m")
	b.ReportMetric(float64(tr.LocalRounds)/float64(max(tr.Steps, 1)), "local/step")
	b.ReportMetric(float64(tr.Spilled), "spilled")
	b.ReportMetric(float64(tr.Pooled), "pooled")
}

// BenchmarkFastBaselines times what the targets compare with, on the same
// graphs from vertex 0 with predecessors:
//
//   - cpu-dijkstra: the CPU's binary-heap Dijkstra (ns/op; sssp-fast is to
//     be ≥ 20× faster on grid1024);
//   - dijkstra-martin, Musap's GPU Dijkstra (sssp-fast ≥ 30× faster), only
//     on rmat20 and gnutella30: on grid1024 and road264k one run took 12.2
//     and 5.0 s on the H100 in round 1, which alone would pass the time
//     budget of one sweep;
//   - bf-flag with early exit (Bodra's best), on every graph;
//   - bf-flag-full on road264k: Bodra's own setting, n-1 passes and the
//     check pass (bf-fast ≥ 50× faster). It first runs the same variant
//     on a road-like graph a tenth the size and extrapolates its kernel
//     time per pass to n passes (est-kernel-ms); when that estimate is at
//     most 20 s it also times the real thing (kernel-ms), otherwise it
//     reports the estimate only and says so in the log.
func BenchmarkFastBaselines(b *testing.B) {
	testDevice(b)
	ctx := context.Background()
	for _, fg := range fastBenchGraphs {
		b.Run(fg.name+"/cpu-dijkstra", func(b *testing.B) {
			g := fg.get(b)
			for b.Loop() {
				if _, err := cpu.Dijkstra(ctx, g, 0, cpu.DijkstraOptions{Pred: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
		names := []string{VariantBFFlag}
		if fg.name == "rmat20" || fg.name == "gnutella30" {
			names = append(names, VariantDijkstraMartin)
		}
		for _, name := range names {
			b.Run(fg.name+"/"+name, func(b *testing.B) {
				g := fg.get(b)
				var st Stats
				for b.Loop() {
					if _, err := SingleSource(ctx, name, g, 0, Options{Pred: true, EarlyExit: true, Stats: &st}); err != nil {
						b.Fatal(err)
					}
				}
				reportStats(b, st)
			})
		}
	}
	b.Run("road264k/bf-flag-full", func(b *testing.B) {
		const n, m = 264346, 733846
		small, err := graph.RoadLike(n/10, m/10, roads, 1)
		if err != nil {
			b.Fatal(err)
		}
		var st Stats
		if _, err := BFFlag(ctx, small, 0, Options{Pred: true, Stats: &st}); err != nil {
			b.Fatal(err)
		}
		perPass := float64(st.Kernel.Microseconds()) / 1000 / float64(small.N())
		est := perPass * n
		b.ReportMetric(est, "est-kernel-ms")
		if est > 20000 {
			b.Logf("bf-flag-full on road264k: %.1f s estimated from %d passes on %d vertices (%.3f ms per pass); not run", est/1000, small.N(), small.N(), perPass)
			return
		}
		g := fastBenchGraphs[1].get(b)
		for b.Loop() {
			if _, err := BFFlag(ctx, g, 0, Options{Pred: true, Stats: &st}); err != nil {
				b.Fatal(err)
			}
		}
		reportStats(b, st)
	})
}

// BenchmarkFastAllPairs sweeps apsp-batched on p2p-Gnutella30, with
// predecessors; ns/op is the whole call (copies of the 2 × 5.4 GB result
// included), kernel-ms the device time.
func BenchmarkFastAllPairs(b *testing.B) {
	testDevice(b)
	ctx := context.Background()
	g := gnutella30().get(b)
	points := []sweepPoint{{"default", fastTuning{}}}
	for _, grp := range []int{4, 8, 16, 32} {
		points = append(points, sweepPoint{fmt.Sprintf("group=%d", grp), fastTuning{Group: grp}})
	}
	for _, blk := range []int{128, 512} {
		points = append(points, sweepPoint{fmt.Sprintf("block=%d", blk), fastTuning{Block: blk}})
	}
	for _, batch := range []int{1024, 4096, 12288} {
		points = append(points, sweepPoint{fmt.Sprintf("batch=%d", batch), fastTuning{Batch: batch}})
	}
	for _, p := range points {
		b.Run(p.name, func(b *testing.B) {
			var st Stats
			for b.Loop() {
				if _, err := apspBatchedTuned(ctx, g, Options{Pred: true, Stats: &st}, p.tun); err != nil {
					b.Fatal(err)
				}
			}
			reportStats(b, st)
		})
	}
}

// BenchmarkFastCrossover times apsp-batched against Floyd-Warshall (the
// variant PickAllPairs would take for dense graphs) on n = 4096 at
// densities around PickAllPairs's n²/1024 rule, to measure the crossover.
func BenchmarkFastCrossover(b *testing.B) {
	testDevice(b)
	ctx := context.Background()
	const n = 4096
	fw := VariantFWBlocked
	if slices.ContainsFunc(Variants(), func(v Variant) bool { return v.Name == "fw-fast" }) {
		fw = "fw-fast"
	}
	for _, density := range []float64{0.0005, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.3} {
		g, err := graph.GNM(n, int(density*n*n), graph.WeightRange{Min: 1, Max: 100}, 5)
		if err != nil {
			b.Fatal(err)
		}
		for _, name := range []string{VariantAPSPBatched, fw} {
			b.Run(fmt.Sprintf("density=%g/%s", density, name), func(b *testing.B) {
				var st Stats
				for b.Loop() {
					if _, err := AllPairs(ctx, name, g, Options{Pred: true, Stats: &st}); err != nil {
						b.Fatal(err)
					}
				}
				reportStats(b, st)
			})
		}
	}
}

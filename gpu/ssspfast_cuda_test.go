//go:build cuda

package gpu

// sssp-fast, bf-fast and apsp-batched on a real GPU: correctness on graphs
// large enough to fill the persistent grid (where the grid-wide barrier
// really runs hundreds of blocks), and the benchmarks that sweep their
// tunables. Build and run on the GPU machine:
//
//	CGO_CFLAGS="-I$PWD/gpu/cudacompat" go test -tags cuda -c -o .gpu/gpu.test ./gpu
//	.gpu/gpu.test -test.run 'TestFast' -test.v
//	.gpu/gpu.test -test.run '^$' -test.bench 'BenchmarkFast' -test.benchtime 10x

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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

// The performance targets' graphs (weights as the benches assign them).
var fastBenchGraphs = []*fastGraph{
	{name: "grid1024", build: func() (*graph.Graph, error) { return graph.Grid(1024, 1024, roads, 1) }},
	{name: "road264k", build: func() (*graph.Graph, error) { return graph.RoadLike(264346, 733846, roads, 1) }},
	{name: "rmat20", build: func() (*graph.Graph, error) { return graph.RMAT(20, 16, graph.Graph500, roads, 1) }},
	{name: "gnutella30", build: func() (*graph.Graph, error) {
		// The test binary may run from the repository root or from gpu/.
		path := "data/snap/p2p-Gnutella30.txt.gz"
		if _, err := os.Stat(path); err != nil {
			path = filepath.Join("..", path)
		}
		return graph.ReadFile(path, graph.ReadOptions{Weights: graph.WeightRange{Min: 1, Max: 100}, Seed: 1})
	}},
}

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
// on large graphs under several schedules, predecessors verified.
func TestFastSingleSource(t *testing.T) {
	fastDevice(t)
	ctx := context.Background()
	schedules := []FastTuning{{}, {Group: 1, Block: 128}, {Group: 32, Delta: 1}, {Blocks: 1, Steps: 100}}
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
				}{{VariantSSSPFast, SSSPFastTuned}, {VariantBFFast, BFFastTuned}} {
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

// TestFastNegative checks bf-fast with negative arcs (reduced by random
// potentials: no negative cycle) and with a long negative cycle.
func TestFastNegative(t *testing.T) {
	fastDevice(t)
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
	fastDevice(t)
	ctx := context.Background()
	g, err := graph.GNM(3001, 9000, graph.WeightRange{Min: 0, Max: 50}, 4)
	if err != nil {
		t.Fatal(err)
	}
	want, err := cpu.DijkstraAll(ctx, g, cpu.APSPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tun := range []FastTuning{{}, {Batch: 1000}, {Batch: 7, Group: 1}, {Batch: 2999, Group: 32, Delta: 1}} {
		got, err := APSPBatchedTuned(ctx, g, Options{Pred: true}, tun)
		if err != nil {
			t.Fatalf("%+v: %v", tun, err)
		}
		if !got.SameDistances(want) {
			t.Errorf("apsp-batched %+v: distances differ:\n%s", tun, got.Diff(want, 5))
		} else if err := got.Verify(g); err != nil {
			t.Errorf("apsp-batched %+v: %v", tun, err)
		}
	}
	var s Stats
	got, err := AllPairs(ctx, "auto", g, Options{Stats: &s})
	if err != nil || got.Solver != VariantAPSPBatched || s.Variant != VariantAPSPBatched {
		t.Errorf("auto on a sparse graph: %v, solver %q, stats %q", err, got.Solver, s.Variant)
	}
}

// TestFastGnutellaAllPairs runs the all-pairs target: every pair of
// p2p-Gnutella30 with predecessors, checked against the CPU row by row on
// a sample of sources (the whole check would need another 10 GB).
func TestFastGnutellaAllPairs(t *testing.T) {
	fastDevice(t)
	if testing.Short() {
		t.Skip("-short: the 36,682² result takes 10.8 GB of host memory")
	}
	ctx := context.Background()
	g := fastBenchGraphs[3].get(t)
	var s Stats
	start := time.Now()
	got, err := APSPBatched(ctx, g, Options{Pred: true, Stats: &s})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("apsp-batched on %s: %v in all; %v", fastBenchGraphs[3].name, time.Since(start), s)
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

// fastDevice returns the default device or skips (fails under CI=true),
// for tests and benchmarks alike.
func fastDevice(tb testing.TB) *Device {
	tb.Helper()
	d, err := Default()
	if err == nil && d.Driver() != "cuda" {
		err = fmt.Errorf("the default device runs on the %s driver", d.Driver())
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("no CUDA device: %v", err)
		}
		tb.Skipf("no CUDA device: %v", err)
	}
	return d
}

// reportStats adds the device kernel time and launch count of the last
// run to a benchmark's output.
func reportStats(b *testing.B, s Stats) {
	b.ReportMetric(float64(s.Kernel.Microseconds())/1000, "kernel-ms")
	b.ReportMetric(float64(s.Launches), "launches")
}

// fastSweep lists the schedules a sweep tries on g: the defaults, then one
// tunable at a time around them.
func fastSweep(g *graph.Graph, dev *Device) []struct {
	name string
	tun  FastTuning
} {
	type point = struct {
		name string
		tun  FastTuning
	}
	d := AutoDelta(g)
	out := []point{{"default", FastTuning{}}}
	for _, f := range []float64{0.125, 0.25, 0.5, 2, 4, 16, 1 << 20} {
		out = append(out, point{fmt.Sprintf("delta=%d", max(1, int(float64(d)*f))), FastTuning{Delta: max(1, int(min(float64(d)*f, 1<<29)))}})
	}
	for _, grp := range []int{1, 2, 4, 8, 16, 32} {
		out = append(out, point{fmt.Sprintf("group=%d", grp), FastTuning{Group: grp}})
	}
	for _, blk := range []int{64, 128, 512, 1024} {
		out = append(out, point{fmt.Sprintf("block=%d", blk), FastTuning{Block: blk}})
	}
	sms := dev.Info().SMs
	for _, k := range []int{1, 2, 4} {
		out = append(out, point{fmt.Sprintf("blocks=%d", k*sms), FastTuning{Blocks: k * sms}})
	}
	return out
}

// BenchmarkFastSSSP sweeps sssp-fast's and bf-fast's tunables on the
// target graphs, from vertex 0, with predecessors; kernel-ms is the device
// time. Filter with e.g. -test.bench 'BenchmarkFastSSSP/grid1024/sssp-fast'.
func BenchmarkFastSSSP(b *testing.B) {
	dev := fastDevice(b)
	ctx := context.Background()
	for _, fg := range fastBenchGraphs {
		b.Run(fg.name, func(b *testing.B) {
			g := fg.get(b)
			for _, s := range []struct {
				name  string
				solve frontierSolver
			}{{VariantSSSPFast, SSSPFastTuned}, {VariantBFFast, BFFastTuned}} {
				for _, p := range fastSweep(g, dev) {
					if s.name == VariantBFFast && p.tun.Delta != 0 {
						continue // bf-fast has no buckets
					}
					b.Run(s.name+"/"+p.name, func(b *testing.B) {
						var st Stats
						for b.Loop() {
							if _, err := s.solve(ctx, g, 0, Options{Pred: true, Stats: &st}, p.tun); err != nil {
								b.Fatal(err)
							}
						}
						reportStats(b, st)
					})
				}
			}
		})
	}
}

// BenchmarkFastBaselines times the documents' single-source variants on
// the same graphs, for the speed-up targets (sssp-fast ≥ 30× faster than
// dijkstra-martin, bf-fast ≥ 50× faster than bf-flag on road264k).
func BenchmarkFastBaselines(b *testing.B) {
	fastDevice(b)
	ctx := context.Background()
	for _, fg := range fastBenchGraphs {
		for _, name := range []string{VariantDijkstraMartin, VariantBFFlag} {
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
}

// BenchmarkFastAllPairs sweeps apsp-batched on p2p-Gnutella30, with
// predecessors; ns/op is the whole call (copies of the 2 × 5.4 GB result
// included), kernel-ms the device time.
func BenchmarkFastAllPairs(b *testing.B) {
	dev := fastDevice(b)
	ctx := context.Background()
	g := fastBenchGraphs[3].get(b)
	points := fastSweep(g, dev)
	for _, batch := range []int{1024, 4096, 12288} {
		points = append(points, struct {
			name string
			tun  FastTuning
		}{fmt.Sprintf("batch=%d", batch), FastTuning{Batch: batch}})
	}
	for _, p := range points {
		b.Run(p.name, func(b *testing.B) {
			var st Stats
			for b.Loop() {
				if _, err := APSPBatchedTuned(ctx, g, Options{Pred: true, Stats: &st}, p.tun); err != nil {
					b.Fatal(err)
				}
			}
			reportStats(b, st)
		})
	}
}

// BenchmarkFastCrossover times apsp-batched against Floyd-Warshall (the
// variant PickAllPairs would take for dense graphs) on n = 4096 at
// densities around PickAllPairs's n²/50 rule, to measure the crossover.
func BenchmarkFastCrossover(b *testing.B) {
	fastDevice(b)
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

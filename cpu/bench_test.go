package cpu

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pathnotes/pathnotes/graph"
	"gonum.org/v1/gonum/graph/path"
	"gonum.org/v1/gonum/graph/simple"
)

// The benchmarks compare each solver with gonum's graph/path in the same
// run; BENCHMARKS.md records the command and the numbers.

// fwBenchGraph is a G(n,m) graph of density 0.15 with weights 1..100, the
// density of [Karaula 2017]'s "dense" class (§5).
func fwBenchGraph(b *testing.B, n int) *graph.Graph {
	g, err := graph.GNP(n, 0.15, graph.WeightRange{Min: 1, Max: 100}, 1)
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// reportRelax reports Floyd-Warshall's n³ relaxations per second.
func reportRelax(b *testing.B, n int) {
	b.ReportMetric(float64(n)*float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds(), "relax/s")
}

func BenchmarkFloydWarshall(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{512, 1024, 2048} {
		g := fwBenchGraph(b, n)
		runs := []struct {
			name string
			run  func() error
		}{
			{"naive", func() error { _, err := FloydWarshall(ctx, g, FWOptions{}); return err }},
			{"naive+pred", func() error { _, err := FloydWarshall(ctx, g, FWOptions{Pred: true}); return err }},
			{"blocked-1", func() error { _, err := FloydWarshallBlocked(ctx, g, FWOptions{Workers: 1}); return err }},
			{"blocked-1+pred", func() error {
				_, err := FloydWarshallBlocked(ctx, g, FWOptions{Workers: 1, Pred: true})
				return err
			}},
			{"blocked-par", func() error { _, err := FloydWarshallBlocked(ctx, g, FWOptions{}); return err }},
			{"blocked-par+pred", func() error { _, err := FloydWarshallBlocked(ctx, g, FWOptions{Pred: true}); return err }},
			// The Go loops alone, as on a CPU without the vector kernels.
			{"blocked-par-go", func() error {
				defer withoutSIMD()()
				_, err := FloydWarshallBlocked(ctx, g, FWOptions{})
				return err
			}},
			{"blocked-par+pred-go", func() error {
				defer withoutSIMD()()
				_, err := FloydWarshallBlocked(ctx, g, FWOptions{Pred: true})
				return err
			}},
		}
		for _, r := range runs {
			b.Run(fmt.Sprintf("n=%d/%s", n, r.name), func(b *testing.B) {
				for b.Loop() {
					if err := r.run(); err != nil {
						b.Fatal(err)
					}
				}
				reportRelax(b, n)
			})
		}
		if n > 1024 {
			continue // gonum needs minutes per run at n = 2048
		}
		b.Run(fmt.Sprintf("n=%d/gonum", n), func(b *testing.B) {
			gg := gonumGraph(b, g)
			for b.Loop() {
				if _, ok := path.FloydWarshall(gg); !ok {
					b.Fatal("gonum found a negative cycle")
				}
			}
			reportRelax(b, n)
		})
	}
}

// BenchmarkFWTile sweeps the tile side of the blocked kernel (parallel,
// with predecessors) at n = 1024, the evidence for DefaultTile.
func BenchmarkFWTile(b *testing.B) {
	const n = 1024
	g := fwBenchGraph(b, n)
	for _, tile := range []int{16, 32, 48, 64, 96, 128, 256} {
		b.Run(fmt.Sprintf("tile=%d", tile), func(b *testing.B) {
			for b.Loop() {
				if _, err := FloydWarshallBlocked(context.Background(), g, FWOptions{Pred: true, Tile: tile}); err != nil {
					b.Fatal(err)
				}
			}
			reportRelax(b, n)
		})
	}
}

// ssspBenchGraphs returns the single-source benchmark graphs: SNAP's
// p2p-Gnutella30 with weights 1..100 (seed 1) and a 1000×1000 grid.
func ssspBenchGraphs(b *testing.B) []*graph.Graph {
	file := filepath.Join("..", "data", "snap", "p2p-Gnutella30.txt.gz")
	if _, err := os.Stat(file); err != nil {
		b.Fatalf("benchmark data: %v", err)
	}
	gnutella, err := graph.ReadFile(file, graph.ReadOptions{Weights: graph.WeightRange{Min: 1, Max: 100}, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	grid, err := graph.Grid(1000, 1000, graph.WeightRange{Min: 1, Max: 100}, 1)
	if err != nil {
		b.Fatal(err)
	}
	return []*graph.Graph{gnutella.WithName("p2p-Gnutella30"), grid.WithName("grid-1000x1000")}
}

func BenchmarkSingleSource(b *testing.B) {
	ctx := context.Background()
	for _, g := range ssspBenchGraphs(b) {
		var gg *simple.WeightedDirectedGraph
		gonumOnce := func(b *testing.B) *simple.WeightedDirectedGraph {
			if gg == nil {
				gg = gonumGraph(b, g)
			}
			return gg
		}
		b.Run(g.Name()+"/dijkstra", func(b *testing.B) {
			for b.Loop() {
				if _, err := Dijkstra(ctx, g, 0, DijkstraOptions{Pred: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(g.Name()+"/gonum-dijkstra", func(b *testing.B) {
			gg := gonumOnce(b)
			for b.Loop() {
				path.DijkstraFrom(simple.Node(0), gg)
			}
		})
		b.Run(g.Name()+"/bellman-ford", func(b *testing.B) {
			for b.Loop() {
				if _, err := BellmanFord(ctx, g, 0, BFOptions{Pred: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(g.Name()+"/gonum-bellman-ford", func(b *testing.B) {
			if testing.Short() && g.N() > 100_000 {
				b.Skip("gonum's Bellman-Ford takes minutes on the grid; run without -short")
			}
			gg := gonumOnce(b)
			for b.Loop() {
				if _, ok := path.BellmanFordFrom(simple.Node(0), gg); !ok {
					b.Fatal("gonum found a negative cycle")
				}
			}
		})
	}
}

package dist

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/dist/comm"
	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/internal/scaleout"
	"github.com/pathnotes/pathnotes/ptx"
)

// inProcess runs f as every rank of a grid, each a goroutine with its own
// emulated device, control plane (met through a rendezvous file) and TCP
// transport, and returns their results and errors by rank.
func inProcess[T any](t *testing.T, grid Grid, f func(ctx context.Context, cfg Config) (T, error)) ([]T, []error) {
	t.Helper()
	G := grid.Ranks()
	rv := comm.Rendezvous{File: filepath.Join(t.TempDir(), "rendezvous")}
	out, errs := make([]T, G), make([]error, G)
	var wg sync.WaitGroup
	for id := range G {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			dev, err := gpu.Emulator()
			if err != nil {
				errs[id] = err
				return
			}
			l := comm.Launch{Rank: id, Size: G, By: "test"}
			ctl, err := comm.Connect(ctx, l, rv, "test", time.Minute)
			if err != nil {
				errs[id] = err
				return
			}
			defer ctl.Close()
			tr, err := comm.NewTCP(ctx, ctl, dev, comm.Options{Timeout: time.Minute})
			if err != nil {
				errs[id] = err
				return
			}
			defer tr.Close()
			out[id], errs[id] = f(ctx, Config{Grid: grid, Device: dev, Control: ctl, Transport: tr})
		}()
	}
	wg.Wait()
	return out, errs
}

// gather assembles the ranks' parts into one result.
func gather(t *testing.T, parts []*Part) *graph.AllPairs {
	t.Helper()
	n := parts[0].N
	res, err := graph.NewAllPairs(n, parts[0].Pred != nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		for r := range p.Rows {
			I := (r/Tile)*p.Grid.P + p.P
			u := I*Tile + r%Tile
			for c := range p.Cols {
				J := (c/Tile)*p.Grid.Q + p.Q
				v := J*Tile + c%Tile
				res.Dist[u*n+v] = p.Dist[r*p.Cols+c]
				if p.Pred != nil {
					res.Pred[u*n+v] = p.Pred[r*p.Cols+c]
				}
			}
		}
	}
	return res
}

// runGrid runs FloydWarshall on every rank of grid and gathers the
// result; the first error wins.
func runGrid(t *testing.T, g *graph.Graph, grid Grid, pred bool) (*graph.AllPairs, []*Part, error) {
	t.Helper()
	parts, errs := inProcess(t, grid, func(ctx context.Context, cfg Config) (*Part, error) {
		cfg.Pred = pred
		return FloydWarshall(ctx, g, cfg)
	})
	for _, err := range errs {
		if err != nil {
			return nil, parts, err
		}
	}
	return gather(t, parts), parts, nil
}

// shifted returns a random graph whose weights are shifted by vertex
// potentials, so that some arcs are negative but no cycle is.
func shifted(n, m int, seed uint64) (*graph.Graph, error) {
	g, err := graph.GNM(n, m, graph.WeightRange{Min: 5, Max: 40}, seed)
	if err != nil {
		return nil, err
	}
	b := graph.NewBuilder(n)
	pot := func(v int) int32 { return int32((v * 7919) % 13) }
	for u := range n {
		ts, ws := g.Out(u)
		for k, v := range ts {
			b.AddArc(u, int(v), ws[k]+pot(u)-pot(int(v)))
		}
	}
	return b.Build()
}

// TestFloydWarshallGrids checks the distances cell for cell against
// cpu.FloydWarshall, and Π against fw-fast's on two emulated cards, on grids
// with more and fewer tiles than ranks, sizes that are and are not
// multiples of the tile, unreachable pairs, and negative arcs (the
// general kernels).
func TestFloydWarshallGrids(t *testing.T) {
	cases := []struct {
		n, m int
		grid Grid
		neg  bool
	}{
		{300, 900, Grid{2, 2}, false}, // 3 tiles a side, the last partial
		{129, 300, Grid{1, 3}, false}, // a column of ranks with no tiles
		{300, 600, Grid{3, 1}, true},
		{1, 0, Grid{2, 1}, false},
		{0, 0, Grid{1, 2}, false},
	}
	if testing.Short() {
		cases = cases[:2]
	}
	for _, c := range cases {
		for _, pred := range []bool{false, true} {
			name := fmt.Sprintf("n=%d,grid=%s,neg=%v,pred=%v", c.n, c.grid, c.neg, pred)
			t.Run(name, func(t *testing.T) {
				var g *graph.Graph
				var err error
				if c.neg {
					g, err = shifted(c.n, c.m, uint64(c.n))
				} else {
					g, err = graph.GNM(c.n, c.m, graph.WeightRange{Min: 1, Max: 50}, uint64(c.n))
				}
				if err != nil {
					t.Fatal(err)
				}
				got, _, err := runGrid(t, g, c.grid, pred)
				if err != nil {
					t.Fatal(err)
				}
				want, err := cpu.FloydWarshall(context.Background(), g, cpu.FWOptions{})
				if err != nil {
					t.Fatal(err)
				}
				for i := range want.Dist {
					if got.Dist[i] != want.Dist[i] {
						t.Fatalf("dist[%d][%d] = %d, want %d", i/c.n, i%c.n, got.Dist[i], want.Dist[i])
					}
				}
				if !pred {
					return
				}
				// fw-fast on two cards runs the 128-wide stages, whose Π
				// (one card's ff_small, for small n, breaks some ties
				// otherwise).
				var devs []*gpu.Device
				for range 2 {
					dev, err := gpu.Emulator()
					if err != nil {
						t.Fatal(err)
					}
					devs = append(devs, dev)
				}
				fast, err := gpu.FWFast(context.Background(), g, gpu.Options{Pred: true, Devices: devs})
				if err != nil {
					t.Fatal(err)
				}
				got.RepairPredecessors(g)
				for i := range fast.Pred {
					if got.Pred[i] != fast.Pred[i] {
						t.Fatalf("pred[%d][%d] = %d, fw-fast's %d", i/c.n, i%c.n, got.Pred[i], fast.Pred[i])
					}
				}
				if err := got.Verify(g); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestTrafficMatchesModel checks what every rank sent and received in
// every round against scaleout.Layout, the model's account, where the
// tiles divide evenly (the transport moves whole padded tiles).
func TestTrafficMatchesModel(t *testing.T) {
	for _, c := range []struct {
		n    int
		grid Grid
		pred bool
	}{{384, Grid{2, 2}, true}, {512, Grid{1, 3}, false}} {
		g, err := graph.GNM(c.n, 2*c.n, graph.WeightRange{Min: 1, Max: 9}, 3)
		if err != nil {
			t.Fatal(err)
		}
		parts, errs := inProcess(t, c.grid, func(ctx context.Context, cfg Config) (*Part, error) {
			cfg.Pred = c.pred
			part, err := FloydWarshall(ctx, g, cfg)
			if err != nil {
				return nil, err
			}
			// The transport's own count is the engine's.
			sent, recv := cfg.Transport.Traffic()
			var s, r int64
			for k := range part.Sent {
				s, r = s+part.Sent[k], r+part.Received[k]
			}
			if s != sent || r != recv {
				return nil, fmt.Errorf("rank %d: the engine counts %d sent, %d received; the transport %d, %d", cfg.Control.Rank(), s, r, sent, recv)
			}
			return part, nil
		})
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		l := scaleout.Layout{N: c.n, B: Tile, Grid: scaleout.Grid{P: c.grid.P, Q: c.grid.Q}, Pred: c.pred}
		var total int64
		for id, part := range parts {
			p, q := id/c.grid.Q, id%c.grid.Q
			for k := range l.Rounds() {
				if got, want := part.Received[k], l.Received(k, p, q); got != want {
					t.Errorf("n=%d grid %s: rank (%d, %d) received %d bytes in round %d, the model says %d", c.n, c.grid, p, q, got, k, want)
				}
				if got, want := part.Sent[k], l.Sent(k, p, q); got != want {
					t.Errorf("n=%d grid %s: rank (%d, %d) sent %d bytes in round %d, the model says %d", c.n, c.grid, p, q, got, k, want)
				}
				total += part.Received[k]
			}
		}
		if total != l.TotalBytes() {
			t.Errorf("n=%d grid %s: %d bytes received in all, the model's closed form says %d", c.n, c.grid, total, l.TotalBytes())
		}
	}
}

// TestNegativeCycleEveryRank checks that every rank reports the same
// negative cycle, the one the graph has.
func TestNegativeCycleEveryRank(t *testing.T) {
	b := graph.NewBuilder(200)
	for v := range 199 {
		b.AddArc(v, v+1, 3)
	}
	b.AddArc(150, 20, -400) // 20 → … → 150 → 20 weighs 390 − 400
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	_, errs := inProcess(t, Grid{2, 2}, func(ctx context.Context, cfg Config) (*Part, error) {
		return FloydWarshall(ctx, g, cfg)
	})
	var first string
	for id, err := range errs {
		var nc *graph.NegativeCycleError
		if !errors.As(err, &nc) || nc.Weight != -10 || len(nc.Cycle) != 131 {
			t.Fatalf("rank %d: %v, want the negative cycle of weight -10 through 131 vertices", id, err)
		}
		if first == "" {
			first = err.Error()
		} else if err.Error() != first {
			t.Errorf("rank %d reports %q, rank 0 %q", id, err, first)
		}
	}
}

// TestEveryKernelRuns runs the grid with every kind of weights, with and
// without Π, under a profiler, and checks that each of the ff_dist_
// kernels of fwfast and fwfastgen was launched: package gpu's TestEmuEveryKernelRuns, which runs
// every other kernel of the embedded PTX, leaves these to this package.
func TestEveryKernelRuns(t *testing.T) {
	neg, err := shifted(130, 400, 3)
	if err != nil {
		t.Fatal(err)
	}
	var graphs []*graph.Graph
	for _, w := range []graph.WeightRange{{Min: 1, Max: 50}, {Min: 1, Max: 1 << 20}} {
		g, err := graph.GNM(130, 400, w, 3)
		if err != nil {
			t.Fatal(err)
		}
		graphs = append(graphs, g)
	}
	graphs = append(graphs, neg)
	launches, err := gpu.Profile(func() error {
		for _, g := range graphs {
			for _, pred := range []bool{false, true} {
				if _, _, err := runGrid(t, g, Grid{2, 1}, pred); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]bool{}
	for _, l := range launches {
		ran[l.Kernel] = true
	}
	for _, m := range []string{ptx.FWFast, ptx.FWFastGen} {
		text, err := ptx.PTX(m)
		if err != nil {
			t.Fatal(err)
		}
		kernels := regexp.MustCompile(`\.entry (ff_dist_\w+)\(`).FindAllStringSubmatch(text, -1)
		if len(kernels) == 0 {
			t.Fatalf("%s's PTX has no ff_dist_ kernels", m)
		}
		for _, k := range kernels {
			if !ran[k[1]] {
				t.Errorf("kernel %s (%s) never ran", k[1], m)
			}
		}
	}
}

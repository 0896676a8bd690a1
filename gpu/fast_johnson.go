package gpu

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/pathnotes/pathnotes/graph"
)

// VariantJohnsonFast is pathnotes' all-pairs variant for sparse graphs
// with negative arcs.
const VariantJohnsonFast = "johnson-fast"

// JohnsonFast runs variant "johnson-fast": Johnson's algorithm on the
// device, for all pairs of a sparse graph with negative arcs.
//
// bf-fast, run from a virtual source joined to every vertex by a 0-weight
// arc (a copy of g with one more vertex), gives the potentials h, or a
// *graph.NegativeCycleError holding a negative cycle of g. The arcs are
// reweighted on the host, w'(u,v) = w(u,v) + h(u) - h(v) ≥ 0, and
// apsp-batched's batched Dijkstra solves every source on the reweighted
// copy; the host then undoes the weights, d(u,v) = d'(u,v) - h(u) + h(v)
// for finite entries, on every core. Reweighting adds the same amount to
// every u→v path, so the predecessors (opts.Pred) of the reweighted runs
// are those of g. Without negative arcs h is 0 and only the batched
// Dijkstra runs.
//
// Memory: the phases run one after the other, each freeing its device
// memory. bf-fast takes the CSR of the copy (m+n arcs) and 11 int32
// vectors over its n+1 vertices; apsp-batched the reweighted CSR and its
// batches (16 bytes per vertex per source with predecessors, 12 without,
// as many sources as three quarters of the free memory hold). The host
// keeps the two copies of g and the result's n×n int32 matrix (two with
// opts.Pred), checked with graph.CheckMatrixSize. opts.Stats adds up both
// phases' device times, launches and copies (bf-fast's alone after a
// negative cycle); opts.Progress follows the batched Dijkstra's batches.
//
// Range: h lies in [-(n-1)·|w|, 0], so reweighted paths can weigh up to
// about twice what g's paths can. Graphs with negative arcs whose weights
// allow 2·n·max|w| > graph.MaxDistance are refused with an error that
// says so (fw-fast takes graphs up to n·max|w| ≤ graph.MaxDistance).
//
// ctx is checked as each phase's variant checks it. AllPairs(ctx, "auto",
// ...) picks johnson-fast for sparse graphs (more than 64 vertices, fewer
// than n²/1024 arcs) with negative arcs within that range; see
// PickAllPairs.
func JohnsonFast(ctx context.Context, g *graph.Graph, opts Options) (*graph.AllPairs, error) {
	return johnsonFastTuned(ctx, g, opts, fastTuning{})
}

// johnsonFastTuned is JohnsonFast with explicit tunables for the batched
// Dijkstra (those of apsp-batched); bf-fast takes its defaults for g.
func johnsonFastTuned(ctx context.Context, g *graph.Graph, opts Options, tun fastTuning) (*graph.AllPairs, error) {
	const name = VariantJohnsonFast
	began := time.Now()
	if err := checkInput(g, name, true); err != nil {
		return nil, err
	}
	if err := johnsonRange(g); err != nil {
		return nil, err
	}
	if err := graph.CheckMatrixSize(g.N(), opts.matrices()); err != nil {
		return nil, fmt.Errorf("%s: host memory: %w", name, err) // before bf-fast runs for nothing
	}
	reweighted, h := g, []int32(nil)
	var bf Stats
	if g.HasNegative() {
		var err error
		dev := opts.Device
		if len(opts.Devices) > 0 {
			dev = opts.Devices[0] // the potentials are one run; the Dijkstra runs share the devices
		}
		if h, bf, err = potentials(ctx, g, dev); err != nil {
			if opts.Stats != nil { // a negative cycle's search is timed too
				bf.Variant, bf.Wall = name, time.Since(began)
				*opts.Stats = bf
			}
			return nil, err
		}
		if reweighted, err = reweight(g, h); err != nil {
			return nil, err
		}
	}
	tun, err := tun.resolve(reweighted, name, apspBlock(reweighted.N()), false)
	if err != nil {
		return nil, err
	}
	grp, err := startGroup(ctx, g, name, true, opts, g.N())
	if err != nil {
		return nil, err
	}
	defer grp.end()
	grp.start = began
	grp.runs[0].stats.add(bf)
	res, err := grp.apspBatched(reweighted, opts, tun)
	if err != nil {
		return nil, err
	}
	res.Labels = slices.Clone(g.Labels())
	if h == nil {
		return res, nil
	}
	unweight(res.Dist, h)
	if err := checkResult(res.Dist, res.N, false, name); err != nil {
		return nil, err
	}
	return res, nil
}

// johnsonRange refuses a graph with negative arcs whose reweighted paths
// could leave ±graph.MaxDistance. With W the largest weight magnitude, h
// lies in [-(n-1)W, 0] and a reweighted arc in [0, nW]; a distance or a
// relaxation sum of the batched Dijkstra is a simple path of g plus one
// arc (at most nW) plus h(s) - h(v) (at most (n-1)W), below 2nW, and so is
// every undone distance and intermediate sum.
func johnsonRange(g *graph.Graph) error {
	if !g.HasNegative() {
		return nil
	}
	lo, hi := g.WeightRange()
	w := max(-int64(lo), int64(hi))
	if bound := 2 * int64(g.N()) * w; bound > int64(graph.MaxDistance) {
		return fmt.Errorf("%s: weights up to |%d| on %d vertices: reweighted paths could weigh up to 2·n·|w| = %d, beyond the int32 kernels' range ±%d (use fw-fast, which needs only n·|w| = %d within it)",
			VariantJohnsonFast, w, g.N(), bound, graph.MaxDistance, int64(g.N())*w)
	}
	return nil
}

// potentials runs bf-fast on dev from a virtual source n joined to every
// vertex of g by a 0-weight arc and returns the distances h of g's
// vertices, with the run's statistics, or the negative cycle it found
// (a cycle of g: nothing enters the virtual source). bf-fast's tunables
// are resolved for g, not for the copy, whose virtual source would count
// as a hub.
func potentials(ctx context.Context, g *graph.Graph, dev *Device) ([]int32, Stats, error) {
	var s Stats
	n := g.N()
	arcs := slices.Grow(g.Arcs(), n)
	for v := range n {
		arcs = append(arcs, graph.Arc{From: n, To: v})
	}
	aug, err := graph.FromArcs(n+1, arcs)
	if err != nil {
		return nil, s, fmt.Errorf("%s: the graph with a virtual source: %w", VariantJohnsonFast, err)
	}
	tun, err := fastTuning{}.resolve(g, VariantBFFast, 0, true)
	if err != nil {
		return nil, s, err
	}
	res, err := bfFastTuned(ctx, aug, n, Options{Device: dev, Stats: &s}, tun)
	var nc *graph.NegativeCycleError
	if errors.As(err, &nc) {
		return nil, s, &graph.NegativeCycleError{Vertex: nc.Vertex, Cycle: nc.Cycle, Weight: nc.Weight, Labels: slices.Clone(g.Labels())}
	}
	if err != nil {
		return nil, s, fmt.Errorf("%s: potentials: %w", VariantJohnsonFast, err)
	}
	return res.Dist[:n], s, nil
}

// reweight returns g with every arc u→v weighing w + h(u) - h(v), parallel
// arcs kept. Each is at least 0 when h holds shortest distances from the
// virtual source; a negative one means they do not, an internal error.
// johnsonRange keeps every sum within int32.
func reweight(g *graph.Graph, h []int32) (*graph.Graph, error) {
	arcs := g.Arcs()
	for k, a := range arcs {
		w := a.Weight + h[a.From] - h[a.To]
		if w < 0 {
			return nil, fmt.Errorf("%s: internal error: arc %s->%s reweighs to %d < 0 (potentials %d, %d)",
				VariantJohnsonFast, g.Label(a.From), g.Label(a.To), w, h[a.From], h[a.To])
		}
		arcs[k].Weight = w
	}
	return graph.NewBuilder(g.N()).Duplicates(graph.KeepAll).AddArcs(arcs).Build()
}

// unweight turns the n×n reweighted distances dist back into g's, d(s,v)
// = d'(s,v) - h(s) + h(v) for finite entries, rows spread over the cores.
// johnsonRange keeps the sums within int32.
func unweight(dist, h []int32) {
	n := len(h)
	var wg sync.WaitGroup
	parallelRanges(&wg, n, func(lo, hi int) {
		for s := lo; s < hi; s++ {
			row := dist[s*n : (s+1)*n]
			for v, d := range row {
				if d != graph.Inf {
					row[v] = d - h[s] + h[v]
				}
			}
		}
	})
	wg.Wait()
}

// add counts another run's device times, launches and copies into s.
func (s *Stats) add(o Stats) {
	s.Kernel += o.Kernel
	s.HostToDevice += o.HostToDevice
	s.DeviceToHost += o.DeviceToHost
	s.Launches += o.Launches
	s.BytesToDevice += o.BytesToDevice
	s.BytesToHost += o.BytesToHost
}

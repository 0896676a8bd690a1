package lab

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/display"
	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/graph"
)

// MeanVerified is MeanAllPairs followed by a check of the first result's
// predecessor matrix on g (VerifyWorkers, on every core): the mean wall
// and kernel seconds of times runs of run, and the first result, which
// has ref's distances when ref is not nil.
func MeanVerified(ctx context.Context, times int, g *graph.Graph, ref *graph.AllPairs, run AllPairsRun) (wall, kernel float64, first *graph.AllPairs, err error) {
	wall, kernel, first, err = MeanAllPairs(times, ref, run)
	if err == nil {
		err = first.VerifyWorkers(ctx, g, 0)
	}
	if err != nil {
		return 0, 0, nil, err
	}
	return wall, kernel, first, nil
}

// AgreeCell runs the all-pairs GPU variant name on g once, with Π, and
// checks it against ref (Agree). It returns what a table's cell says of
// the run — NoGPU without a device, "not run (|V| > maxN)" when g has
// more than maxN vertices, else Agree's words — and the run's statistics
// (zero when it did not run).
func (m *Machine) AgreeCell(ctx context.Context, name string, g *graph.Graph, ref *graph.AllPairs, maxN int) (string, gpu.Stats, error) {
	switch {
	case m.NoGPU != "":
		return m.NoGPU, gpu.Stats{}, nil
	case g.N() > maxN:
		return fmt.Sprintf("not run (|V| > %d)", maxN), gpu.Stats{}, nil
	}
	r, st, err := m.AllPairs(ctx, name, g, true)
	if err != nil {
		return "", st, err
	}
	same, err := Agree(ctx, g, r, ref)
	return same, st, err
}

// DocumentedApart draws the values ys at xs that a document prints as its
// series name on p, except the points where apart(i) holds (a printed
// value that a check found wrong): each of those is a series of its own,
// named by the format label with name and xs[i], such as "a typo: %s
// printed at |V| = %g".
func DocumentedApart(p *display.Plot, name string, xs, ys []float64, apart func(i int) bool, label string) *display.Plot {
	var x, y []float64
	var out []int
	for i := range xs {
		if apart(i) {
			out = append(out, i)
			continue
		}
		x, y = append(x, xs[i]), append(y, ys[i])
	}
	if len(x) > 0 {
		p.Documented(name, x, y)
	}
	for _, i := range out {
		p.Documented(fmt.Sprintf(label, name, xs[i]), xs[i:i+1], ys[i:i+1])
	}
	return p
}

// MeasuredLine draws the positive values of ys, measured at sizes, as the
// line name on p; nothing when none is positive (nothing ran).
func MeasuredLine(p *display.Plot, name string, sizes []int, ys []float64) *display.Plot {
	if x, y, _ := Both(sizes, ys, ys); len(x) > 0 {
		p.Line(name, x, y)
	}
	return p
}

// MeasuredSpeedup draws baseline ÷ times as the speed-up name on p (see
// display.Plot.Speedup), at the sizes where both were measured; nothing
// when there are none.
func MeasuredSpeedup(p *display.Plot, name string, sizes []int, baseline, times []float64) *display.Plot {
	if x, a, b := Both(sizes, baseline, times); len(x) > 0 {
		p.Speedup(name, x, a, b)
	}
	return p
}

// Run makes an AllPairsRun of the all-pairs GPU variant name on g, with
// Π when pred (AllPairs): what MeanAllPairs and MeanVerified run.
func (m *Machine) Run(ctx context.Context, name string, g *graph.Graph, pred bool) AllPairsRun {
	return func() (*graph.AllPairs, gpu.Stats, error) { return m.AllPairs(ctx, name, g, pred) }
}

// WalkWeight adds the arc weights along a walk through the vertices of g
// labelled as in walk, separated by spaces ("a b c e d"), as a document
// adds them by hand. An unknown label or a missing arc is an error.
func WalkWeight(g *graph.Graph, walk string) (int64, error) {
	labels := strings.Fields(walk)
	var sum int64
	prev := -1
	for i, l := range labels {
		v, err := g.Vertex(l)
		if err != nil {
			return 0, fmt.Errorf("walk %q: %w", walk, err)
		}
		if i > 0 {
			w, ok := g.Weight(prev, v)
			if !ok {
				return 0, fmt.Errorf("walk %q: %s has no arc %s->%s", walk, g.Name(), labels[i-1], l)
			}
			sum += int64(w)
		}
		prev = v
	}
	return sum, nil
}

// MeanSingleSource runs the single-source GPU variant name on g from
// source on the machine's device up to three times (Mean: once when a run
// takes a second or more), checks each result's distances against ref,
// and returns the mean wall and kernel seconds and the last run's
// statistics. The error names the variant and the graph.
func (m *Machine) MeanSingleSource(ctx context.Context, name string, g *graph.Graph, source int, ref *graph.SingleSource) (wall, kernel float64, last gpu.Stats, err error) {
	v, err := gpu.Lookup(name)
	if err != nil {
		return 0, 0, last, err
	}
	return m.MeanChecked(ctx, v, g, source, nil, ref)
}

// WarmSingleSource runs each single-source GPU variant of names once on g
// from vertex 0, untimed: the first launches of a session pay for loading
// the module and for first-touch allocations, which a timed run should
// not.
func (m *Machine) WarmSingleSource(ctx context.Context, g *graph.Graph, names ...string) error {
	for _, name := range names {
		if _, err := gpu.SingleSource(ctx, name, g, 0, gpu.Options{Device: m.Device}); err != nil {
			return fmt.Errorf("%s on %s: %w", name, g.Name(), err)
		}
	}
	return nil
}

// Capped is a GPU time's cell in a table whose runs over a time cap were
// left out: "not run: ≈ E s" for a run left out (seconds is 0) with its
// estimate E, else Seconds(seconds, true).
func (m *Machine) Capped(seconds, estimate float64) any {
	if seconds == 0 && estimate > 0 && m.NoGPU == "" {
		return fmt.Sprintf("not run: ≈ %.3g s", estimate)
	}
	return m.Seconds(seconds, true)
}

// SampleRows checks an all-pairs result too large to compare whole: row
// 0 and k rows from sources drawn with a PCG seeded (seed, 3) must have
// cpu.Dijkstra's distances (g's weights must not be negative). The error
// names the solver, the graph and the row.
func SampleRows(ctx context.Context, g *graph.Graph, r *graph.AllPairs, k int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 3))
	for i := 0; i <= k; i++ {
		src := 0
		if i > 0 {
			src = rng.IntN(g.N())
		}
		ref, err := cpu.Dijkstra(ctx, g, src, cpu.DijkstraOptions{})
		if err != nil {
			return err
		}
		if row := r.Row(src); !row.SameDistances(ref) {
			return fmt.Errorf("%s on %s, row %d:\n%s", r.Solver, g.Name(), src, row.Diff(ref, 5))
		}
	}
	return nil
}

// SolveChecked runs the GPU variant v on g with opts — all pairs when
// v.AllPairs, else from source — and checks its distances against the
// reference of that kind: all, or one. The error names the variant and
// the graph.
func SolveChecked(ctx context.Context, v gpu.Variant, g *graph.Graph, source int, opts gpu.Options, all *graph.AllPairs, one *graph.SingleSource) error {
	if v.AllPairs {
		r, err := v.SolveAll(ctx, g, opts)
		switch {
		case err != nil:
			return fmt.Errorf("%s on %s: %w", v.Name, g.Name(), err)
		case all == nil:
			return fmt.Errorf("%s on %s: no all-pairs reference", v.Name, g.Name())
		case !r.SameDistances(all):
			return fmt.Errorf("%s on %s:\n%s", v.Name, g.Name(), r.Diff(all, 5))
		}
		return nil
	}
	r, err := v.SolveFrom(ctx, g, source, opts)
	switch {
	case err != nil:
		return fmt.Errorf("%s on %s: %w", v.Name, g.Name(), err)
	case one == nil:
		return fmt.Errorf("%s on %s: no single-source reference", v.Name, g.Name())
	case !r.SameDistances(one):
		return fmt.Errorf("%s on %s:\n%s", v.Name, g.Name(), r.Diff(one, 5))
	}
	return nil
}

// MeanChecked times SolveChecked on the machine's device up to three
// times (Mean: once when a run takes a second or more) and returns the
// mean wall and kernel seconds and the last run's statistics; the first
// failure is the error.
func (m *Machine) MeanChecked(ctx context.Context, v gpu.Variant, g *graph.Graph, source int, all *graph.AllPairs, one *graph.SingleSource) (wall, kernel float64, last gpu.Stats, err error) {
	if m.Device == nil {
		return 0, 0, last, fmt.Errorf("%s on %s: %s", v.Name, g.Name(), m.NoGPU)
	}
	wall, kernel = Mean(func() gpu.Stats {
		last = gpu.Stats{}
		if err == nil {
			err = SolveChecked(ctx, v, g, source, gpu.Options{Device: m.Device, Stats: &last}, all, one)
		}
		return last
	})
	if err != nil {
		return 0, 0, gpu.Stats{}, err
	}
	return wall, kernel, last, nil
}

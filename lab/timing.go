package lab

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/display"
	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/gpu/cells"
	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/internal/bench"
)

// APSPEntry names a student's all-pairs function for TimeAPSP.
type APSPEntry struct {
	Name string
	Func APSPFunc
}

// SSSPEntry names a student's single-source function for TimeSSSP.
type SSSPEntry struct {
	Name string
	Func SSSPFunc
}

func (e APSPEntry) entry() (string, bool) { return e.Name, e.Func != nil }
func (e SSSPEntry) entry() (string, bool) { return e.Name, e.Func != nil }

// entryNames returns the names of the student's entries, and an error for
// the first one without a function; what names the caller.
func entryNames[E interface{ entry() (string, bool) }](what string, fns []E) ([]string, error) {
	names := make([]string, len(fns))
	for i, e := range fns {
		name, ok := e.entry()
		if !ok {
			return nil, fmt.Errorf("lab: %s: entry %d (%q) has no function", what, i, name)
		}
		names[i] = name
	}
	return names, nil
}

// DefaultAPSPVariants are the project's GPU Floyd-Warshall variants that
// TimeAPSP runs beside the student's functions: one launch per pivot,
// tiled in global memory, tiled in shared memory, and the fastest.
var DefaultAPSPVariants = []string{gpu.VariantFWHN, gpu.VariantFWTiledGlobal, gpu.VariantFWBlocked, gpu.VariantFWFast}

// DefaultSSSPVariants are the project's GPU single-source variants that
// TimeSSSP runs beside the student's functions.
var DefaultSSSPVariants = []string{gpu.VariantDijkstraMartin, gpu.VariantSSSPFast}

// TimeOptions configures TimeAPSP and TimeSSSP.
type TimeOptions struct {
	// Device runs the student's functions and the GPU variants; nil means
	// gpu.Default().
	Device *gpu.Device
	// Variants are the project's GPU variants to time; nil means
	// DefaultAPSPVariants or DefaultSSSPVariants, an empty slice none.
	Variants []string
	// CPUMaxN is the largest n the CPU baseline runs at (it is also the
	// reference the results are checked against, so larger sizes go
	// unchecked); 0 means every size.
	CPUMaxN int
	// SkipCPU leaves the CPU baseline out, and with it the check of the
	// results: for comparisons among functions that CheckAPSP or
	// CheckSSSP has already passed, at sizes where the CPU is slow.
	SkipCPU bool
	// Repeats runs everything this many times per size and keeps the
	// fastest time; 0 means 1.
	Repeats int
	// Seed seeds the graphs; 0 means DefaultSeed.
	Seed uint64
}

// cpuAt says whether the CPU baseline runs at size n.
func (o TimeOptions) cpuAt(n int) bool { return !o.SkipCPU && (o.CPUMaxN == 0 || n <= o.CPUMaxN) }

// Timing is a table of times: one column per solver (the CPU baseline
// first), one row per size. Seconds holds NaN where a solver did not run
// (or gave a wrong result: Failures says so).
type Timing struct {
	Title    string
	Sizes    []int
	Names    []string             // the solvers, in column order
	Baseline string               // the CPU baseline's name, the speed-ups' numerator
	Seconds  map[string][]float64 // per solver, one per size
	// Methods says how each solver was timed.
	Methods  map[string]string
	Failures []string // wrong results and errors, one line each
	Device   string
	Driver   string
}

// column adds a solver's column of NaN.
func (t *Timing) column(name, method string) {
	t.Names = append(t.Names, name)
	t.Seconds[name] = slices.Repeat([]float64{math.NaN()}, len(t.Sizes))
	t.Methods[name] = method
}

// keep records the time of solver name at size index i.
func (t *Timing) keep(name string, i int, d time.Duration) { t.Seconds[name][i] = d.Seconds() }

// fail records a failure and marks the cell as not timed.
func (t *Timing) fail(name string, n int, i int, err error) {
	t.Failures = append(t.Failures, fmt.Sprintf("%s at n=%d: %v", name, n, err))
	t.Seconds[name][i] = math.Inf(1)
}

// At returns the seconds of solver name at size n: NaN when it did not
// run there (or there is no such solver or size), +Inf when it failed.
func (t *Timing) At(name string, n int) float64 {
	i := slices.Index(t.Sizes, n)
	col, ok := t.Seconds[name]
	if i < 0 || !ok {
		return math.NaN()
	}
	return col[i]
}

// Speedup returns how many times faster solver name was than the baseline
// at each size (NaN where either did not run).
func (t *Timing) Speedup(name string) []float64 {
	out := make([]float64, len(t.Sizes))
	for i := range out {
		b, s := t.Seconds[t.Baseline][i], t.Seconds[name][i]
		out[i] = math.NaN()
		if isTime(b) && isTime(s) && s > 0 {
			out[i] = b / s
		}
	}
	return out
}

// Fastest returns the one of names with the least measured time at size
// n, and that time: "" and NaN when none of them ran there.
func (t *Timing) Fastest(names []string, n int) (string, float64) {
	best, bestS := "", math.NaN()
	for _, name := range names {
		if s := t.At(name, n); isTime(s) && (best == "" || s < bestS) {
			best, bestS = name, s
		}
	}
	return best, bestS
}

// Growth returns the exponent e of time ∝ n^e for solver name between the
// first and the last sizes it was measured at; ok is false with fewer
// than two.
func (t *Timing) Growth(name string) (e float64, ok bool) {
	first, last := -1, -1
	for i, s := range t.Seconds[name] {
		if isTime(s) && s > 0 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 || first == last {
		return 0, false
	}
	col := t.Seconds[name]
	return math.Log(col[last]/col[first]) / math.Log(float64(t.Sizes[last])/float64(t.Sizes[first])), true
}

// LastSpeedup returns solver name's speed-up over the baseline (Speedup)
// at the largest size where both ran, and that size: NaN and 0 when there
// is none.
func (t *Timing) LastSpeedup(name string) (float64, int) {
	sp := t.Speedup(name)
	for i := len(sp) - 1; i >= 0; i-- {
		if !math.IsNaN(sp[i]) {
			return sp[i], t.Sizes[i]
		}
	}
	return math.NaN(), 0
}

// isTime says whether s is a measured time (not NaN for "not run", not
// +Inf for "failed").
func isTime(s float64) bool { return !math.IsNaN(s) && !math.IsInf(s, 0) }

// Err returns an error listing the failures, or nil.
func (t *Timing) Err() error {
	if len(t.Failures) == 0 {
		return nil
	}
	return fmt.Errorf("lab: %s: %d failures: %s", t.Title, len(t.Failures), failures(t.Failures))
}

// Table returns the times in seconds, one row per size, with a speed-up
// column over the baseline for every other solver; "—" where a solver did
// not run, "failed" where it failed. A baseline that never ran (SkipCPU)
// is left out, with the speed-ups.
func (t *Timing) Table() *display.Table {
	names := t.Names
	baseline := slices.ContainsFunc(t.Seconds[t.Baseline], isTime)
	if !baseline {
		names = slices.DeleteFunc(slices.Clone(names), func(s string) bool { return s == t.Baseline })
	}
	units := []string{""}
	for range names {
		units = append(units, "s")
	}
	tab := display.NewTable(t.Title, append([]string{"n"}, names...)...).Units(units...)
	for i, n := range t.Sizes {
		row := []any{n}
		for _, name := range names {
			switch s := t.Seconds[name][i]; {
			case math.IsNaN(s):
				row = append(row, "—")
			case math.IsInf(s, 1):
				row = append(row, "failed")
			default:
				row = append(row, s)
			}
		}
		tab.Add(row...)
	}
	for _, name := range names {
		if baseline && name != t.Baseline {
			tab.Ratio(name+" speed-up", t.Baseline, name)
		}
	}
	for _, name := range names {
		tab.Note(name + ": " + t.Methods[name])
	}
	if !baseline {
		tab.Note("no CPU baseline: results not checked here, no speed-ups")
	}
	if t.Driver == "emu" {
		tab.Note("GPU columns ran on the " + t.Device + ": emulator time on the CPU, not GPU time")
	}
	for _, f := range t.Failures {
		tab.Note("FAILED: " + f)
	}
	return tab
}

// points returns the sizes and values where values are measured.
func (t *Timing) points(values []float64) (xs, ys []float64) {
	for i, v := range values {
		if isTime(v) {
			xs, ys = append(xs, float64(t.Sizes[i])), append(ys, v)
		}
	}
	return xs, ys
}

// Plot draws time against n, log-log, one line per solver that ran.
func (t *Timing) Plot() *display.Plot {
	p := display.NewPlot(t.Title, "n (vertices)", "time (s)").LogLog()
	for _, name := range t.Names {
		if xs, ys := t.points(t.Seconds[name]); len(xs) > 0 {
			p.Line(name, xs, ys)
		}
	}
	return p
}

// SpeedupPlot draws every solver's speed-up over the baseline against n.
func (t *Timing) SpeedupPlot() *display.Plot {
	p := display.NewPlot(t.Title+": speed-up over "+t.Baseline, "n (vertices)", "speed-up (×)").LogX()
	for _, name := range t.Names {
		if name == t.Baseline {
			continue
		}
		if xs, ys := t.points(t.Speedup(name)); len(xs) > 0 {
			p.Line(name, xs, ys)
		}
	}
	return p
}

// String returns the table as text.
func (t *Timing) String() string { return t.Table().Text() }

// MIMEBundle shows the table.
func (t *Timing) MIMEBundle() (data, metadata map[string]any) { return t.Table().MIMEBundle() }

// Timing methods, shown under the tables.
const (
	methodStudent = "your function, host clock from the call to the end of Device.Synchronize (launch overhead included)"
	methodVariant = "gpu variant, CUDA events from the first compute launch to the end of the last (Stats.Kernel)"
	methodCPU     = "host clock around the call"
)

// newTiming is the frame TimeAPSP and TimeSSSP share: options checked, the
// device and the table's columns.
func newTiming(title string, sizes []int, opts TimeOptions, defaults []string, baseline string, students []string) (*Timing, *gpu.Device, []string, error) {
	for _, n := range sizes {
		if n < 1 {
			return nil, nil, nil, fmt.Errorf("lab: %s: size %d: want at least 1 vertex", title, n)
		}
	}
	dev, err := device(opts.Device)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("lab: %s: %w", title, err)
	}
	variants := opts.Variants
	if variants == nil {
		variants = defaults
	}
	t := &Timing{Title: title, Sizes: slices.Clone(sizes), Baseline: baseline, Seconds: map[string][]float64{},
		Methods: map[string]string{}, Device: dev.Info().Name, Driver: dev.Driver()}
	t.column(baseline, methodCPU)
	for _, v := range variants {
		if _, err := gpu.Lookup(v); err != nil {
			return nil, nil, nil, fmt.Errorf("lab: %s: %w", title, err)
		}
		t.column(v, methodVariant)
	}
	for _, s := range students {
		if s == "" || t.Methods[s] != "" {
			return nil, nil, nil, fmt.Errorf("lab: %s: solver name %q is empty or used twice (columns: %v)", title, s, t.Names)
		}
		t.column(s, methodStudent)
	}
	return t, dev, variants, nil
}

// TimeAPSP times the student's all-pairs functions, the GPU variants of
// opts (DefaultAPSPVariants) and the CPU baseline cpu.FloydWarshallBlocked
// (the tiled CPU version the handout compares with), at every size of
// sizes, on a random graph with 16·n arcs and weights 1..100 per size
// (Floyd-Warshall's work does not depend on the arcs). Every GPU result is
// checked against the CPU's where the CPU ran; a wrong one is a failure,
// shown in the table and in the error.
func TimeAPSP(ctx context.Context, fns []APSPEntry, sizes []int, opts TimeOptions) (*Timing, error) {
	names, err := entryNames("TimeAPSP", fns)
	if err != nil {
		return nil, err
	}
	t, dev, variants, err := newTiming("Floyd-Warshall times", sizes, opts, DefaultAPSPVariants, cpu.VariantFWBlocked, names)
	if err != nil {
		return nil, err
	}
	return t, t.timeSizes(ctx, "TimeAPSP", opts, variants, names, func(n int) (sizeRuns, error) {
		g, err := graph.GNM(n, min(16*n, n*(n-1)), weights, caseSeed(opts.Seed, n, 0))
		return sizeRuns{
			baseline: func() (any, error) { return cpu.FloydWarshallBlocked(ctx, g, cpu.FWOptions{}) },
			variant: func(v string, st *gpu.Stats) (any, error) {
				return gpu.AllPairs(ctx, v, g, gpu.Options{Device: dev, Stats: st})
			},
			student: func(k int) ([]int32, time.Duration, error) {
				return runOnDevice(dev, g.Dense(), func(d *cells.Buffer) error { return fns[k].Func(dev, d, n) })
			},
		}, err
	})
}

// TimeSSSP times the student's single-source functions, the GPU variants
// of opts (DefaultSSSPVariants) and cpu.Dijkstra at every size of sizes,
// from vertex 0 of a graph where every vertex has out-degree 7 and weights
// 1..10 (Musap's graphs, [Musap 2016] §2.9). Results are checked against
// the CPU's as in TimeAPSP.
func TimeSSSP(ctx context.Context, fns []SSSPEntry, sizes []int, opts TimeOptions) (*Timing, error) {
	names, err := entryNames("TimeSSSP", fns)
	if err != nil {
		return nil, err
	}
	t, dev, variants, err := newTiming("Single-source times", sizes, opts, DefaultSSSPVariants, cpu.VariantDijkstra, names)
	if err != nil {
		return nil, err
	}
	return t, t.timeSizes(ctx, "TimeSSSP", opts, variants, names, func(n int) (sizeRuns, error) {
		g, err := degree7.build(n, caseSeed(opts.Seed, n, 1))
		return sizeRuns{
			baseline: func() (any, error) { return cpu.Dijkstra(ctx, g, 0, cpu.DijkstraOptions{}) },
			variant: func(v string, st *gpu.Stats) (any, error) {
				return gpu.SingleSource(ctx, v, g, 0, gpu.Options{Device: dev, Stats: st})
			},
			student: func(k int) ([]int32, time.Duration, error) { return timeSSSPStudent(dev, g, fns[k].Func) },
		}, err
	})
}

// sizeRuns are the runs that TimeAPSP or TimeSSSP times at one size: the
// CPU baseline and a GPU variant, each giving a *graph.AllPairs or a
// *graph.SingleSource, and the student's function number k, timed on the
// host clock.
type sizeRuns struct {
	baseline func() (any, error)
	variant  func(v string, st *gpu.Stats) (any, error)
	student  func(k int) ([]int32, time.Duration, error)
}

// timeSizes is the loop TimeAPSP and TimeSSSP (what) share: at every size
// n, the runs of runsAt(n) (its error: the graph could not be built); the
// CPU baseline where opts lets it run, then every variant and every
// student's function (named students[k]), checked against the baseline. It stops at the
// first size after which ctx is done, and returns t.Err() otherwise.
func (t *Timing) timeSizes(ctx context.Context, what string, opts TimeOptions, variants, students []string, runsAt func(n int) (sizeRuns, error)) error {
	repeats := max(opts.Repeats, 1)
	for i, n := range t.Sizes {
		r, err := runsAt(n)
		if err != nil {
			return fmt.Errorf("lab: %s: graph with n=%d: %w", what, n, err)
		}
		var want []int32
		if opts.cpuAt(n) {
			ref, s, err := bench.Measure(bench.Plan{Runs: repeats}, bench.HostRun(r.baseline))
			if err != nil {
				return fmt.Errorf("lab: %s: CPU baseline at n=%d: %w", what, n, err)
			}
			t.keep(t.Baseline, i, s.Min)
			want = distances(ref)
		}
		for _, v := range variants {
			t.measure(v, n, i, repeats, want, func(st *gpu.Stats) ([]int32, error) {
				res, err := r.variant(v, st)
				if err != nil {
					return nil, err
				}
				return distances(res), nil
			})
		}
		for k, name := range students {
			t.measure(name, n, i, repeats, want, hostTimed(func() ([]int32, time.Duration, error) { return r.student(k) }))
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("lab: %s: interrupted at n=%d: %w", what, n, err)
		}
	}
	return t.Err()
}

// distances returns the distances of a *graph.AllPairs or a
// *graph.SingleSource.
func distances(res any) []int32 {
	switch r := res.(type) {
	case *graph.AllPairs:
		return r.Dist
	case *graph.SingleSource:
		return r.Dist
	}
	panic(fmt.Sprintf("lab: distances of a %T", res))
}

// measure times solver name at size n (index i) through bench.Measure:
// repeats runs, the fastest kept. Every run's distances are checked
// against want (nil: not checked); an error or a wrong result is the
// cell's failure.
func (t *Timing) measure(name string, n, i, repeats int, want []int32, run func(st *gpu.Stats) ([]int32, error)) {
	_, s, err := bench.Measure(bench.Plan{Runs: repeats}, func(st *gpu.Stats) (any, error) {
		dist, err := run(st)
		if err != nil {
			return nil, err
		}
		return nil, t.check(n, dist, want)
	})
	if err != nil {
		t.fail(name, n, i, err)
		return
	}
	t.keep(name, i, s.Min)
}

// hostTimed turns a student's run, timed on the host clock (runOnDevice),
// into the run measure wants.
func hostTimed(f func() ([]int32, time.Duration, error)) func(st *gpu.Stats) ([]int32, error) {
	return func(st *gpu.Stats) ([]int32, error) {
		dist, dt, err := f()
		st.Kernel, st.Wall = dt, dt
		return dist, err
	}
}

// check compares a solver's distances at size n with the CPU's (want nil:
// not checked).
func (t *Timing) check(n int, got, want []int32) error {
	switch {
	case want == nil:
		return nil
	case len(got) != len(want):
		return fmt.Errorf("%d values, want %d", len(got), len(want))
	case !slices.Equal(want, got):
		m := compare(want, got, nil, n, "")
		where := fmt.Sprintf("vertex %d", m.J)
		if t.Baseline == cpu.VariantFWBlocked { // a distance matrix
			where = fmt.Sprintf("cell (%d, %d)", m.J/n, m.J%n)
		}
		return fmt.Errorf("wrong result: %d values differ from the CPU's, the first at %s: expected %s, got %s",
			m.Wrong, where, formatValue(m.Expected), formatValue(m.Actual))
	}
	return nil
}

// timeSSSPStudent runs a student's single-source function from vertex 0,
// returning its distances and host-clock time.
func timeSSSPStudent(dev *gpu.Device, g *graph.Graph, fn SSSPFunc) ([]int32, time.Duration, error) {
	off, tgt, w, err := cells.GraphCSR(dev, g)
	if err != nil {
		return nil, 0, fmt.Errorf("copying the graph to the device: %w", err)
	}
	defer free(off, tgt, w)
	host := slices.Repeat([]int32{Poison}, g.N())
	return runOnDevice(dev, host, func(dist *cells.Buffer) error { return fn(dev, off, tgt, w, dist, g.N(), 0) })
}

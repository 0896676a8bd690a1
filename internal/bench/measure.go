// Package bench is the one timing and checking core of pathnotes: the runs
// of a solver summarised as median, minimum and maximum (Measure), the
// extrapolation that skips cells that would run too long (Predictor), the
// min-plus ceiling of a Hopper GPU (DPXCeiling), the sampled check of an
// all-pairs result too large for a CPU reference (SampleRows), and the
// records `pathnotes bench` prints and writes as JSON. `pathnotes bench`
// and lab's timing tables (lab.TimeAPSP, lab.TimeSSSP) both time through it.
//
// Suite is what `pathnotes bench` times (suite.go, and devices.go for the
// cells on several devices and out of core); internal/cli only reads the
// command's flags into one.
package bench

import (
	"fmt"
	"slices"
	"time"

	"github.com/pathnotes/pathnotes/gpu"
)

// Summary condenses the timed runs of one cell.
type Summary struct {
	Runs int
	// Kernel is the median of the runs' Stats.Kernel, Min and Max their
	// extremes, Wall the median of their Stats.Wall.
	Kernel, Min, Max, Wall time.Duration
	// Prepare, HostToDevice, DeviceToHost and Result are the medians of
	// the runs' parts of the call (gpu.Stats.Split); Launches is the first
	// timed run's.
	Prepare, HostToDevice, DeviceToHost, Result time.Duration
	Launches                                    int
}

// Summarize condenses the statistics of timed runs; it needs at least one.
func Summarize(runs []gpu.Stats) Summary {
	if len(runs) == 0 {
		return Summary{}
	}
	part := func(f func(gpu.Stats) time.Duration) []time.Duration {
		out := make([]time.Duration, len(runs))
		for i, s := range runs {
			out[i] = f(s)
		}
		return out
	}
	kernel := part(func(s gpu.Stats) time.Duration { return s.Kernel })
	return Summary{
		Runs:   len(runs),
		Kernel: Median(kernel), Min: slices.Min(kernel), Max: slices.Max(kernel),
		Wall:         Median(part(func(s gpu.Stats) time.Duration { return s.Wall })),
		Prepare:      Median(part(func(s gpu.Stats) time.Duration { return s.Prepare })),
		HostToDevice: Median(part(func(s gpu.Stats) time.Duration { return s.HostToDevice })),
		DeviceToHost: Median(part(func(s gpu.Stats) time.Duration { return s.DeviceToHost })),
		Result:       Median(part(func(s gpu.Stats) time.Duration { return s.Result })),
		Launches:     runs[0].Launches,
	}
}

// Median returns the median of x (the mean of the middle two for an even
// count), or 0 for none. x is not changed.
func Median[T ~int64 | ~float64](x []T) T {
	if len(x) == 0 {
		return 0
	}
	s := slices.Clone(x)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Run is one run of a solver: it fills st (gpu.Options.Stats for a GPU
// variant; Kernel and Wall from the host clock for code timed on the host)
// and returns its result. An error, a wrong result included, ends the
// measurement.
type Run func(st *gpu.Stats) (result any, err error)

// Plan says how many times Measure runs a solver.
type Plan struct {
	// Runs is the number of timed runs; less than 1 means 1.
	Runs int
	// WarmUp adds one untimed run first (module load, first-touch
	// allocations), and cuts the timed runs to 3 when it took a second or
	// more of kernel time and to 1 when it took 10 s or more.
	WarmUp bool
}

// runsAfter is the number of timed runs after a warm-up of kernel time d.
func (p Plan) runsAfter(d time.Duration) int {
	n := max(p.Runs, 1)
	switch {
	case d >= 10*time.Second:
		return 1
	case d >= time.Second:
		return min(n, 3)
	}
	return n
}

// Measure runs run as plan says and summarises the timed runs. It returns
// the first run's result (the warm-up's, with a warm-up), for checks that
// need it. The first error stops it; the error names the run.
func Measure(plan Plan, run Run) (first any, s Summary, err error) {
	n := max(plan.Runs, 1)
	if plan.WarmUp {
		var warm gpu.Stats
		if first, err = run(&warm); err != nil {
			return nil, Summary{}, err
		}
		n = plan.runsAfter(warm.Kernel)
	}
	all := make([]gpu.Stats, n)
	for i := range all {
		res, err := run(&all[i])
		if err != nil {
			if n > 1 {
				err = fmt.Errorf("run %d of %d: %w", i+1, n, err)
			}
			return nil, Summary{}, err
		}
		if i == 0 && !plan.WarmUp {
			first = res
		}
	}
	return first, Summarize(all), nil
}

// HostRun times f on the host clock as a Run: Kernel and Wall are the time
// of the call.
func HostRun(f func() (any, error)) Run {
	return func(st *gpu.Stats) (any, error) {
		t0 := time.Now()
		res, err := f()
		st.Wall = time.Since(t0)
		st.Kernel = st.Wall
		return res, err
	}
}

// Predictor extrapolates a solver's time to a cell from its last cell, so
// that a benchmark can skip cells that would run too long. The zero value
// is ready to use.
type Predictor struct {
	last map[string]observation
}

// observation is a solver's last cell: its cost and its time.
type observation struct {
	cost float64
	time time.Duration
}

// Observe records that solver name took d on a cell of the given cost (n³
// for all pairs, n·(n+m) for Bellman-Ford's n passes, n+m for Dijkstra).
func (p *Predictor) Observe(name string, cost float64, d time.Duration) {
	if p.last == nil {
		p.last = map[string]observation{}
	}
	p.last[name] = observation{cost, d}
}

// Predict returns solver name's time on a cell of the given cost, scaled
// linearly from its last observed cell; 0 when it has none.
func (p *Predictor) Predict(name string, cost float64) time.Duration {
	l, ok := p.last[name]
	if !ok || l.cost == 0 {
		return 0
	}
	return time.Duration(float64(l.time) * cost / l.cost)
}

package bench

import (
	"encoding/json"
	"fmt"
	"github.com/pathnotes/pathnotes/internal/atomicfile"
	"time"
)

// Record is one cell of `pathnotes bench`: a solver on one input.
type Record struct {
	Variant  string  `json:"variant"`
	Graph    string  `json:"graph"`
	N        int     `json:"n"`
	M        int     `json:"m"`
	Source   int     `json:"source,omitempty"`
	Runs     int     `json:"runs"`
	KernelMs float64 `json:"kernel_ms_median"`
	MinMs    float64 `json:"kernel_ms_min"`
	MaxMs    float64 `json:"kernel_ms_max"`
	WallMs   float64 `json:"wall_ms_median"`
	// The parts of the call (gpu.Stats.Split), medians: the host's
	// preparation, the copies in, the copies out, the host's part after.
	PrepMs   float64 `json:"prepare_ms"`
	H2DMs    float64 `json:"h2d_ms"`
	D2HMs    float64 `json:"d2h_ms"`
	ResultMs float64 `json:"result_ms"`
	Launches int     `json:"launches"`
	// RelaxPerSec is n³ / kernel time for the all-pairs variants: the
	// min-plus relaxations Floyd-Warshall does, per second.
	RelaxPerSec float64 `json:"relaxations_per_s,omitempty"`
	// Ceiling is RelaxPerSec over DPXCeiling, on Hopper.
	Ceiling float64 `json:"fraction_of_dpx_ceiling,omitempty"`
	// EdgesPerSec is m / kernel time for the single-source variants.
	EdgesPerSec float64 `json:"edges_per_s,omitempty"`
	// Host marks a CPU solver's row: its times are host-clock times of
	// one run, not CUDA events.
	Host    bool   `json:"host,omitempty"`
	Check   string `json:"check,omitempty"`
	Skipped string `json:"skipped,omitempty"`
}

// ms converts a duration to milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// SetSummary fills the record's times from a measurement.
func (r *Record) SetSummary(s Summary) {
	r.Runs, r.Launches = s.Runs, s.Launches
	r.KernelMs, r.MinMs, r.MaxMs, r.WallMs = ms(s.Kernel), ms(s.Min), ms(s.Max), ms(s.Wall)
	r.PrepMs, r.H2DMs, r.D2HMs, r.ResultMs = ms(s.Prepare), ms(s.HostToDevice), ms(s.DeviceToHost), ms(s.Result)
}

// SetHost fills the record of a CPU solver that ran once in d: cost is
// its relaxations (all pairs), or 0 for a single-source solver, whose
// rate is arcs per second.
func (r *Record) SetHost(d time.Duration, cost float64) {
	r.Runs, r.Host = 1, true
	r.KernelMs, r.MinMs, r.MaxMs, r.WallMs = ms(d), ms(d), ms(d), ms(d)
	r.Check = "host clock, one run"
	if cost > 0 {
		r.RelaxPerSec = cost / d.Seconds()
	} else {
		r.EdgesPerSec = float64(r.M) / d.Seconds()
	}
}

// TableHeader is the header of the Markdown table whose rows are
// Record.Row.
const TableHeader = "| variant | graph | n | m | runs | kernel ms (median) | min | max | wall ms | wall split: prepare / upload / kernels / download / result ms | launches | relax/s (of ceiling) or edges/s | check |\n" +
	"|---|---|---|---|---|---|---|---|---|---|---|---|---|"

// Row formats the record as a row of a Markdown table under TableHeader.
func (r *Record) Row() string {
	if r.Skipped != "" {
		return fmt.Sprintf("| %s | %s | %d | %d | – | skipped: %s | | | | | | | |", r.Variant, r.Graph, r.N, r.M, r.Skipped)
	}
	rate := ""
	switch {
	case r.Ceiling > 0:
		rate = fmt.Sprintf("%.3g (%.0f%%)", r.RelaxPerSec, 100*r.Ceiling)
	case r.RelaxPerSec > 0:
		rate = fmt.Sprintf("%.3g", r.RelaxPerSec)
	case r.EdgesPerSec > 0:
		rate = fmt.Sprintf("%.3g e/s", r.EdgesPerSec)
	}
	split := ""
	if !r.Host {
		split = fmt.Sprintf("%.3f / %.3f / %.3f / %.3f / %.3f", r.PrepMs, r.H2DMs, r.KernelMs, r.D2HMs, r.ResultMs)
	}
	return fmt.Sprintf("| %s | %s | %d | %d | %d | %.3f | %.3f | %.3f | %.3f | %s | %d | %s | %s |", r.Variant, r.Graph, r.N, r.M,
		r.Runs, r.KernelMs, r.MinMs, r.MaxMs, r.WallMs, split, r.Launches, rate, r.Check)
}

// Report is what `pathnotes bench --json` writes.
type Report struct {
	Version string   `json:"version"`
	Device  string   `json:"device"`
	Driver  string   `json:"driver"`
	Date    string   `json:"date"`
	Config  string   `json:"config"`
	Records []Record `json:"records"`
}

// WriteFile writes the report as indented JSON to path.
func (r *Report) WriteFile(path string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("bench: encoding the report: %w", err)
	}
	return atomicfile.WriteFile(path, append(data, '\n'), 0o644)
}

package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/graph"
)

// Suite is what `pathnotes bench` times: the GPU variants and the CPU
// solvers over sizes and data sets, every result checked. Its fields are
// the command's flags.
type Suite struct {
	FWSizes    []int           // vertex counts of the Floyd-Warshall random graphs
	Density    int             // arcs per vertex of the random graphs
	SNAP       []string        // SNAP files for the single-source variants
	APSPSizes  []int           // vertex counts of the random graphs of the all-pairs Dijkstra variants
	FWSNAP     int             // the Floyd-Warshall variants also run on the first FWSNAP SNAP files
	APSPSNAP   int             // the all-pairs Dijkstra variants run on the first APSPSNAP SNAP files
	SSSP       []string        // generated single-source graphs (SSSPGraphs keys)
	CrossN     int             // vertex count of the all-pairs crossover cells (0: none)
	CrossDens  []int           // arcs per vertex of the crossover cells
	Variants   map[string]bool // the variants to time; nil: all
	Runs       int             // timed runs per cell after the warm-up
	MaxRun     time.Duration   // a cell whose extrapolated kernel time exceeds it is skipped
	MaxAPSP    time.Duration   // as MaxRun, for the all-pairs Dijkstra and crossover cells
	CPUMax     int             // all-pairs results are checked against the CPU up to this n
	Source     int             // source vertex of the single-source variants
	Pred       bool            // time with predecessors
	Seed       uint64          // seed of the random graphs and of the SNAP weights
	JSONPath   string          // the records are written there as JSON after every cell ("": not)
	Devices    []int           // device ordinals; the first runs the one-device cells
	MultiSizes []int           // sizes of the fw-fast cells on every device of Devices
	OutOfCore  int             // n of the fw-fast cells in and out of core (0: none)
	// OutOfCoreCap is the device memory each device may use in the
	// streamed out-of-core cells (0: a third of the matrices' share), and
	// OutOfCoreCells which of those cells run: "in" (in the first device's
	// memory), "one" (streamed on it), "all" (streamed on every device of
	// Devices); nil: all three.
	OutOfCoreCap   uint64
	OutOfCoreCells map[string]bool

	// Version names the build, and Args the command line, for the report.
	Version, Args string
	// Out receives the Markdown table, a row a cell.
	Out io.Writer
	// Usage wraps the errors of settings the suite finds bad only as it
	// runs (a source outside a graph).
	Usage error
}

// Run times the suite's cells: it prints the driver's description and a
// Markdown table row for each cell to Out, and, with JSONPath, rewrites
// the JSON records after every cell. A result that differs from its
// reference is an error, and so is a cancelled ctx.
func (s Suite) Run(ctx context.Context) error {
	devs, err := openDevices(s.Devices)
	if err != nil {
		return err
	}
	dev := devs[0]
	b := &run{s: s, dev: dev, devs: devs, report: Report{Version: s.Version, Device: dev.Info().String(),
		Driver: gpu.Describe(), Date: time.Now().UTC().Format(time.RFC3339), Config: s.Args}}
	fmt.Fprintln(s.Out, gpu.Describe())
	fmt.Fprintln(s.Out, "\n"+TableHeader)
	var snaps []*graph.Graph
	for _, path := range s.SNAP {
		g, err := graph.ReadFileContext(ctx, path, graph.ReadOptions{Weights: graph.WeightRange{Min: 1, Max: 100}, Seed: s.Seed})
		if err != nil {
			return err
		}
		snaps = append(snaps, g.WithName(strings.TrimSuffix(filepath.Base(path), ".txt.gz")))
	}
	if err := b.floydWarshall(ctx, snaps[:min(s.FWSNAP, len(snaps))]); err != nil {
		return err
	}
	if err := b.crossover(ctx); err != nil {
		return err
	}
	gens := slices.Clone(snaps)
	for _, name := range s.SSSP {
		g, err := SSSPGraphs[name]()
		if err != nil {
			return err
		}
		gens = append(gens, g.WithName(name))
	}
	if err := b.singleSource(ctx, snaps[:min(s.APSPSNAP, len(snaps))], gens); err != nil {
		return err
	}
	if err := b.multiDevice(ctx, snaps); err != nil {
		return err
	}
	return b.streamed(ctx)
}

// SSSPGraphs are the generated graphs `--sssp-graphs` names: with the
// weights 1..1000 of road networks, the 1024×1024 grid, R-MAT scale 20
// with edge factor 16 (Graph500's parameters), and a road-like graph of
// DIMACS NY's size (264,346 vertices, 733,846 arcs; Bodra's Table 1);
// and deg7-1m .. deg7-10m, the graphs of [Musap 2016] §2.9 as notebook 02
// builds them (k million vertices of out-degree 7, weights 1..10, the
// notebook's first graph of each size).
var SSSPGraphs = func() map[string]func() (*graph.Graph, error) {
	gs := map[string]func() (*graph.Graph, error){
		"grid1024": func() (*graph.Graph, error) { return graph.Grid(1024, 1024, roadWeights, 1) },
		"rmat20":   func() (*graph.Graph, error) { return graph.RMAT(20, 16, graph.Graph500, roadWeights, 1) },
		"road264k": func() (*graph.Graph, error) { return graph.RoadLike(264346, 733846, roadWeights, 1) },
	}
	for k := 1; k <= 10; k++ {
		gs[fmt.Sprintf("deg7-%dm", k)] = func() (*graph.Graph, error) {
			return graph.ConstantDegree(k*1_000_000, 7, deg7Weights, 2016)
		}
	}
	return gs
}()

var (
	roadWeights = graph.WeightRange{Min: 1, Max: 1000}
	deg7Weights = graph.WeightRange{Min: 1, Max: 10}
)

// SSSPGraphNames lists the keys of SSSPGraphs, sorted.
func SSSPGraphNames() []string {
	names := make([]string, 0, len(SSSPGraphs))
	for name := range SSSPGraphs {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// run runs the cells of a suite; its predictor knows each variant's last
// cell, to skip cells that would run too long.
type run struct {
	s       Suite
	dev     *gpu.Device
	devs    []*gpu.Device // --devices; dev is the first
	report  Report
	predict Predictor
}

func (b *run) want(v string) bool { return b.s.Variants == nil || b.s.Variants[v] }

// measure times one GPU cell through Measure (a warm-up run, whose
// result it returns for the checks, then Runs runs), fills rec, and
// records the cell's cost and time for the predictor.
func (b *run) measure(rec *Record, cost float64, run func(opts gpu.Options) (any, error)) (any, error) {
	first, s, err := Measure(Plan{Runs: b.s.Runs, WarmUp: true}, func(st *gpu.Stats) (any, error) {
		return run(gpu.Options{Pred: b.s.Pred, Device: b.dev, Stats: st})
	})
	if err != nil {
		return nil, err
	}
	rec.SetSummary(s)
	b.predict.Observe(rec.Variant, cost, s.Kernel)
	return first, nil
}

// emit prints a cell as a table row and rewrites the JSON file.
func (b *run) emit(rec Record) error {
	b.report.Records = append(b.report.Records, rec)
	fmt.Fprintln(b.s.Out, rec.Row())
	if b.s.JSONPath == "" {
		return nil
	}
	return b.report.WriteFile(b.s.JSONPath)
}

// emitHost emits the row of a CPU solver that ran once in dt; cost is its
// relaxations (all pairs) or 0.
func (b *run) emitHost(rec Record, dt time.Duration, cost float64) error {
	rec.SetHost(dt, cost)
	return b.emit(rec)
}

// allPairsVariants lists the selected all-pairs variants of one algorithm.
func (b *run) allPairsVariants(algorithm string) []gpu.Variant {
	var out []gpu.Variant
	for _, v := range gpu.Variants() {
		if v.AllPairs && v.Algorithm == algorithm && b.want(v.Name) {
			out = append(out, v)
		}
	}
	return out
}

// floydWarshall times the Floyd-Warshall variants on GTgraph-style random
// graphs (graph.GNM, density·n arcs, weights 1..100), then on the given
// SNAP graphs.
func (b *run) floydWarshall(ctx context.Context, snaps []*graph.Graph) error {
	variants := b.allPairsVariants("Floyd-Warshall")
	if len(variants) == 0 {
		return nil
	}
	for _, n := range b.s.FWSizes {
		g, err := graph.GNM(n, min(b.s.Density*n, n*(n-1)), graph.WeightRange{Min: 1, Max: 100}, b.s.Seed)
		if err != nil {
			return err
		}
		if err := b.allPairsCells(ctx, g, fmt.Sprintf("GNM %d|V|", b.s.Density), variants, b.s.MaxRun, true); err != nil {
			return err
		}
	}
	for _, g := range snaps {
		if err := b.allPairsCells(ctx, g, g.Name(), variants, b.s.MaxRun, true); err != nil {
			return err
		}
	}
	return nil
}

// allPairsCells times the given all-pairs variants on g, checking every
// result against the CPU (with cpuRef, n ≤ cpuMax; the CPU solver's time
// is a row of its own) or against the first GPU result and sampled rows.
func (b *run) allPairsCells(ctx context.Context, g *graph.Graph, name string, variants []gpu.Variant, maxRun time.Duration, cpuRef bool) error {
	n := g.N()
	cost := float64(n) * float64(n) * float64(n)
	var ref *graph.AllPairs
	check := ""
	if cpuRef && n <= b.s.CPUMax {
		t0 := time.Now()
		var err error
		if ref, err = cpu.FloydWarshallBlocked(ctx, g, cpu.FWOptions{}); err != nil {
			return err
		}
		check = "= cpu"
		if err := b.emitHost(Record{Variant: "fw-cpu-blocked", Graph: name, N: n, M: g.M()}, time.Since(t0), cost); err != nil {
			return err
		}
	}
	for _, v := range variants {
		rec := Record{Variant: v.Name, Graph: name, N: n, M: g.M()}
		if p := b.predict.Predict(v.Name, cost); p > maxRun {
			rec.Skipped = fmt.Sprintf("about %.0f s per run, extrapolated (n³) from its last size", p.Seconds())
			if err := b.emit(rec); err != nil {
				return err
			}
			continue
		}
		res, err := b.measure(&rec, cost, func(opts gpu.Options) (any, error) { return v.SolveAll(ctx, g, opts) })
		if err != nil {
			return err
		}
		got := res.(*graph.AllPairs)
		switch {
		case ref == nil:
			if err := SampleRows(g, got, 64, b.s.Seed); err != nil {
				return fmt.Errorf("%s on %s n=%d: %w", v.Name, name, n, err)
			}
			ref, check = got, "= "+v.Name+", 64 rows verified"
			rec.Check = "64 rows verified"
		case !got.SameDistances(ref):
			return fmt.Errorf("%s on %s n=%d: distances differ (%s):\n%s", v.Name, name, n, check, got.Diff(ref, 5))
		default:
			rec.Check = check
		}
		rec.RelaxPerSec = cost / (rec.KernelMs / 1000)
		if v.Algorithm == "Floyd-Warshall" {
			rec.Ceiling = rec.RelaxPerSec / DPXCeiling(b.dev.Info())
		}
		if err := b.emit(rec); err != nil {
			return err
		}
	}
	return nil
}

// crossover times fw-fast against apsp-batched on random graphs of one
// size and growing density, to show where all pairs by batched
// single-source runs stops beating Floyd-Warshall (gpu.AllPairs's
// automatic pick follows it).
func (b *run) crossover(ctx context.Context) error {
	var vs []gpu.Variant
	for _, name := range []string{gpu.VariantFWFast, gpu.VariantAPSPBatched} {
		if v, err := gpu.Lookup(name); err == nil && b.want(name) {
			vs = append(vs, v)
		}
	}
	if b.s.CrossN < 1 || len(vs) < 2 {
		return nil
	}
	n := b.s.CrossN
	for _, d := range b.s.CrossDens {
		g, err := graph.GNM(n, min(d*n, n*(n-1)), graph.WeightRange{Min: 1, Max: 100}, b.s.Seed)
		if err != nil {
			return err
		}
		name := fmt.Sprintf("GNM %d|V| (auto picks %s)", d, gpu.PickAllPairs(g))
		if err := b.allPairsCells(ctx, g, name, vs, b.s.MaxAPSP, false); err != nil {
			return err
		}
	}
	return nil
}

// singleSource times the all-pairs Dijkstra variants (dijkstra-apsp-row,
// apsp-batched) on random graphs and on apspSnaps, and the single-source
// variants and cpu.Dijkstra on graphs (the SNAP files, weights 1..100
// drawn with Seed, then the generated ones), from Source, checked
// against the CPU.
func (b *run) singleSource(ctx context.Context, apspSnaps, graphs []*graph.Graph) error {
	if apsp := b.allPairsVariants("Dijkstra"); len(apsp) > 0 {
		for _, n := range b.s.APSPSizes {
			g, err := graph.GNM(n, min(4*n, n*(n-1)), graph.WeightRange{Min: 1, Max: 100}, b.s.Seed)
			if err != nil {
				return err
			}
			if err := b.allPairsCells(ctx, g, "GNM 4|V|", apsp, b.s.MaxAPSP, true); err != nil {
				return err
			}
		}
		for _, g := range apspSnaps {
			if err := b.allPairsCells(ctx, g, g.Name(), apsp, b.s.MaxAPSP, true); err != nil {
				return err
			}
		}
	}
	type cell struct {
		name  string
		early bool
	}
	var cells []cell
	for _, v := range gpu.Variants() {
		if !v.AllPairs && b.want(v.Name) {
			cells = append(cells, cell{v.Name, false})
			if v.Algorithm == "Bellman-Ford" {
				cells = append(cells, cell{v.Name, true})
			}
		}
	}
	for _, g := range graphs {
		if b.s.Source < 0 || b.s.Source >= g.N() {
			return fmt.Errorf("%w: --source %d outside %s (n=%d)", b.s.Usage, b.s.Source, g.Name(), g.N())
		}
		t0 := time.Now()
		want, err := cpu.Dijkstra(ctx, g, b.s.Source, cpu.DijkstraOptions{Pred: b.s.Pred})
		if err != nil {
			return err
		}
		rec := Record{Variant: "dijkstra-cpu", Graph: g.Name(), N: g.N(), M: g.M(), Source: b.s.Source}
		if err := b.emitHost(rec, time.Since(t0), 0); err != nil {
			return err
		}
		for _, c := range cells {
			label := c.name
			if c.early {
				label += " (early exit)"
			}
			rec := Record{Variant: label, Graph: g.Name(), N: g.N(), M: g.M(), Source: b.s.Source}
			cost := float64(g.N()) * float64(g.N()+g.M())
			if strings.HasPrefix(c.name, "dijkstra") {
				cost = float64(g.N() + g.M())
			}
			if p := b.predict.Predict(label, cost); p > b.s.MaxRun {
				rec.Skipped = fmt.Sprintf("about %.0f s per run, extrapolated from its last graph", p.Seconds())
				if err := b.emit(rec); err != nil {
					return err
				}
				continue
			}
			res, err := b.measure(&rec, cost, func(opts gpu.Options) (any, error) {
				opts.EarlyExit = c.early
				return gpu.SingleSource(ctx, c.name, g, b.s.Source, opts)
			})
			if err != nil {
				return err
			}
			if got := res.(*graph.SingleSource); !got.SameDistances(want) {
				return fmt.Errorf("%s on %s: distances differ from cpu.Dijkstra:\n%s", label, g.Name(), got.Diff(want, 5))
			}
			rec.Check = "= cpu"
			rec.EdgesPerSec = float64(g.M()) / (rec.KernelMs / 1000)
			if err := b.emit(rec); err != nil {
				return err
			}
		}
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return ctx.Err()
	}
	return nil
}

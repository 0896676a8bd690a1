package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/graph"
)

func init() {
	commands["bench"] = command{"time the GPU variants over sizes and data sets (CUDA events, median of runs)", runBench}
}

// benchConfig holds the flags of `pathnotes bench`.
type benchConfig struct {
	fwSizes   []int
	density   int
	snap      []string
	apspSizes []int
	fwSnap    int
	variants  map[string]bool // nil: all
	runs      int
	maxRun    time.Duration
	maxAPSP   time.Duration
	cpuMax    int
	source    int
	pred      bool
	seed      uint64
	jsonPath  string
}

// benchRecord is one cell of the benchmark: a variant on one input.
type benchRecord struct {
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
	H2DMs    float64 `json:"h2d_ms"`
	D2HMs    float64 `json:"d2h_ms"`
	Launches int     `json:"launches"`
	// RelaxPerSec is n³ / kernel time for the all-pairs variants: the
	// min-plus relaxations Floyd-Warshall does, per second.
	RelaxPerSec float64 `json:"relaxations_per_s,omitempty"`
	Check       string  `json:"check,omitempty"`
	Skipped     string  `json:"skipped,omitempty"`
}

// benchReport is what --json writes.
type benchReport struct {
	Version string        `json:"version"`
	Device  string        `json:"device"`
	Driver  string        `json:"driver"`
	Date    string        `json:"date"`
	Config  string        `json:"config"`
	Records []benchRecord `json:"records"`
}

func runBench(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fwSizes := fs.String("fw-sizes", "1024,2048,4096,8192,16384", "vertex counts of the Floyd-Warshall random graphs")
	density := fs.Int("density", 60, "arcs per vertex of the random graphs (Gaioso et al.'s 60|V|)")
	snap := fs.String("snap", "data/snap/p2p-Gnutella04.txt.gz,data/snap/p2p-Gnutella25.txt.gz,data/snap/p2p-Gnutella30.txt.gz",
		"SNAP files for the single-source variants (weights 1..100, seeded)")
	fwSnap := fs.Int("fw-snap", 2, "also time the Floyd-Warshall variants on the first `K` SNAP files (Bodra's Table 3)")
	apspSizes := fs.String("apsp-sizes", "1024,2048,4096", "vertex counts of the random graphs for dijkstra-apsp-row (before the first SNAP file)")
	variants := fs.String("variants", "", "comma-separated variants to time (default: all)")
	runs := fs.Int("runs", 5, "timed runs per cell after the warm-up (3 when the warm-up takes a second or more)")
	maxRun := fs.Duration("max-run", 6*time.Second, "skip a cell whose kernel time, extrapolated from the variant's last cell, exceeds this")
	maxAPSP := fs.Duration("max-apsp", 30*time.Second, "as --max-run, for dijkstra-apsp-row")
	cpuMax := fs.Int("cpu-max", 4096, "check all-pairs results against the CPU up to this n (beyond it: against the first GPU variant and sampled rows)")
	source := fs.Int("source", 0, "source vertex of the single-source variants")
	pred := fs.Bool("pred", false, "time with predecessors")
	seed := fs.Uint64("seed", 1, "seed of the random graphs and of the SNAP weights")
	jsonPath := fs.String("json", "", "write the results as JSON to `FILE` (rewritten after every cell)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	cfg := benchConfig{fwSnap: *fwSnap, density: *density, runs: *runs, maxRun: *maxRun, maxAPSP: *maxAPSP, cpuMax: *cpuMax, source: *source,
		pred: *pred, seed: *seed, jsonPath: *jsonPath}
	var err error
	if cfg.fwSizes, err = parseSizes(*fwSizes); err != nil {
		return err
	}
	if cfg.apspSizes, err = parseSizes(*apspSizes); err != nil {
		return err
	}
	if *snap != "" {
		cfg.snap = strings.Split(*snap, ",")
	}
	if *variants != "" {
		cfg.variants = map[string]bool{}
		for _, v := range strings.Split(*variants, ",") {
			if _, err := gpu.Lookup(v); err != nil {
				return fmt.Errorf("%w: %v", errUsage, err)
			}
			cfg.variants[v] = true
		}
	}
	if cfg.runs < 1 || cfg.density < 1 {
		return fmt.Errorf("%w: --runs and --density must be positive", errUsage)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	dev, err := gpu.Default()
	if err != nil {
		return err
	}
	b := &bench{cfg: cfg, dev: dev, report: benchReport{Version: versionString(), Device: dev.Info().String(),
		Driver: gpu.Describe(), Date: time.Now().UTC().Format(time.RFC3339), Config: strings.Join(args, " ")}}
	fmt.Println(gpu.Describe())
	fmt.Println("\n| variant | graph | n | m | runs | kernel ms (median) | min | max | wall ms | launches | relax/s | check |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|")
	var snaps []*graph.Graph
	for _, path := range cfg.snap {
		g, err := graph.ReadFileContext(ctx, path, graph.ReadOptions{Weights: graph.WeightRange{Min: 1, Max: 100}, Seed: cfg.seed})
		if err != nil {
			return err
		}
		snaps = append(snaps, g.WithName(strings.TrimSuffix(filepath.Base(path), ".txt.gz")))
	}
	if err := b.floydWarshall(ctx, snaps[:min(cfg.fwSnap, len(snaps))]); err != nil {
		return err
	}
	return b.singleSource(ctx, snaps)
}

// parseSizes parses a comma-separated list of vertex counts.
func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%w: bad size %q", errUsage, f)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return out, nil
}

// bench runs the cells and keeps, per variant, its last cell's cost and
// time, to skip cells that would run too long.
type bench struct {
	cfg    benchConfig
	dev    *gpu.Device
	report benchReport
	last   map[string][2]float64 // variant → {cost, kernel seconds}
}

func (b *bench) want(v string) bool { return b.cfg.variants == nil || b.cfg.variants[v] }

// predict extrapolates a variant's kernel time to a cell of the given cost
// (n³ for all pairs, n·(n+m) for Bellman-Ford's n passes) from its last
// cell; 0 when there is none.
func (b *bench) predict(v string, cost float64) time.Duration {
	l, ok := b.last[v]
	if !ok || l[0] == 0 {
		return 0
	}
	return time.Duration(l[1] * cost / l[0] * float64(time.Second))
}

// measure runs once to warm up (and returns that run's result for the
// checks), then times the cell: cfg.runs runs, 3 when the warm-up took a
// second or more, 1 when it took 10 s or more. Kernel times come from CUDA
// events.
func (b *bench) measure(rec *benchRecord, cost float64, run func(opts gpu.Options) (any, error)) (any, error) {
	opts := gpu.Options{Pred: b.cfg.pred, Device: b.dev}
	var warm gpu.Stats
	opts.Stats = &warm
	first, err := run(opts)
	if err != nil {
		return nil, err
	}
	n := b.cfg.runs
	switch {
	case warm.Kernel >= 10*time.Second:
		n = 1
	case warm.Kernel >= time.Second:
		n = min(n, 3)
	}
	all := make([]gpu.Stats, n)
	for i := range all {
		opts.Stats = &all[i]
		if _, err := run(opts); err != nil {
			return nil, err
		}
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	kernel := make([]float64, n)
	wall := make([]float64, n)
	for i, s := range all {
		kernel[i], wall[i] = ms(s.Kernel), ms(s.Wall)
	}
	rec.Runs, rec.Launches = n, all[0].Launches
	rec.KernelMs, rec.MinMs, rec.MaxMs = median(kernel), slices.Min(kernel), slices.Max(kernel)
	rec.WallMs, rec.H2DMs, rec.D2HMs = median(wall), ms(all[0].HostToDevice), ms(all[0].DeviceToHost)
	if b.last == nil {
		b.last = map[string][2]float64{}
	}
	b.last[rec.Variant] = [2]float64{cost, rec.KernelMs / 1000}
	return first, nil
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// emit prints a cell as a table row and rewrites the JSON file.
func (b *bench) emit(rec benchRecord) error {
	b.report.Records = append(b.report.Records, rec)
	if rec.Skipped != "" {
		fmt.Printf("| %s | %s | %d | %d | – | skipped: %s | | | | | | |\n", rec.Variant, rec.Graph, rec.N, rec.M, rec.Skipped)
	} else {
		relax := ""
		if rec.RelaxPerSec > 0 {
			relax = fmt.Sprintf("%.3g", rec.RelaxPerSec)
		}
		fmt.Printf("| %s | %s | %d | %d | %d | %.3f | %.3f | %.3f | %.1f | %d | %s | %s |\n", rec.Variant, rec.Graph, rec.N, rec.M,
			rec.Runs, rec.KernelMs, rec.MinMs, rec.MaxMs, rec.WallMs, rec.Launches, relax, rec.Check)
	}
	if b.cfg.jsonPath == "" {
		return nil
	}
	data, err := json.MarshalIndent(b.report, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(b.cfg.jsonPath, append(data, '\n'), 0o644)
}

// allPairsVariants lists the selected all-pairs variants of one algorithm.
func (b *bench) allPairsVariants(algorithm string) []gpu.Variant {
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
func (b *bench) floydWarshall(ctx context.Context, snaps []*graph.Graph) error {
	variants := b.allPairsVariants("Floyd-Warshall")
	if len(variants) == 0 {
		return nil
	}
	for _, n := range b.cfg.fwSizes {
		g, err := graph.GNM(n, min(b.cfg.density*n, n*(n-1)), graph.WeightRange{Min: 1, Max: 100}, b.cfg.seed)
		if err != nil {
			return err
		}
		if err := b.allPairsCells(ctx, g, fmt.Sprintf("GNM %d|V|", b.cfg.density), variants, b.cfg.maxRun); err != nil {
			return err
		}
	}
	for _, g := range snaps {
		if err := b.allPairsCells(ctx, g, g.Name(), variants, b.cfg.maxRun); err != nil {
			return err
		}
	}
	return nil
}

// allPairsCells times the given all-pairs variants on g, checking every
// result against the CPU (n ≤ cpuMax) or against the first GPU result and
// sampled rows.
func (b *bench) allPairsCells(ctx context.Context, g *graph.Graph, name string, variants []gpu.Variant, maxRun time.Duration) error {
	n := g.N()
	cost := float64(n) * float64(n) * float64(n)
	var ref *graph.AllPairs
	check := ""
	if n <= b.cfg.cpuMax {
		var err error
		if ref, err = cpu.FloydWarshallBlocked(ctx, g, cpu.FWOptions{}); err != nil {
			return err
		}
		check = "= cpu"
	}
	for _, v := range variants {
		rec := benchRecord{Variant: v.Name, Graph: name, N: n, M: g.M()}
		if p := b.predict(v.Name, cost); p > maxRun {
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
			if err := sampleRows(g, got, 64, b.cfg.seed); err != nil {
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
		if err := b.emit(rec); err != nil {
			return err
		}
	}
	return nil
}

// sampleRows verifies k random rows of r against g (triangle inequality on
// every arc, every finite distance attained by an arc).
func sampleRows(g *graph.Graph, r *graph.AllPairs, k int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 11))
	for range k {
		if err := r.Row(rng.IntN(r.N)).Verify(g); err != nil {
			return err
		}
	}
	return nil
}

// singleSource times dijkstra-apsp-row on random graphs and the first SNAP
// graph, and the single-source variants on every SNAP graph (weights
// 1..100 drawn with cfg.seed), from cfg.source, checked against the CPU.
func (b *bench) singleSource(ctx context.Context, snaps []*graph.Graph) error {
	if apsp := b.allPairsVariants("Dijkstra"); len(apsp) > 0 {
		for _, n := range b.cfg.apspSizes {
			g, err := graph.GNM(n, min(4*n, n*(n-1)), graph.WeightRange{Min: 1, Max: 100}, b.cfg.seed)
			if err != nil {
				return err
			}
			if err := b.allPairsCells(ctx, g, "GNM 4|V|", apsp, b.cfg.maxAPSP); err != nil {
				return err
			}
		}
		if len(snaps) > 0 {
			if err := b.allPairsCells(ctx, snaps[0], snaps[0].Name(), apsp, b.cfg.maxAPSP); err != nil {
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
	for _, g := range snaps {
		if b.cfg.source < 0 || b.cfg.source >= g.N() {
			return fmt.Errorf("%w: --source %d outside %s (n=%d)", errUsage, b.cfg.source, g.Name(), g.N())
		}
		want, err := cpu.Dijkstra(ctx, g, b.cfg.source, cpu.DijkstraOptions{})
		if err != nil {
			return err
		}
		for _, c := range cells {
			label := c.name
			if c.early {
				label += " (early exit)"
			}
			rec := benchRecord{Variant: label, Graph: g.Name(), N: g.N(), M: g.M(), Source: b.cfg.source}
			cost := float64(g.N()) * float64(g.N()+g.M())
			if strings.HasPrefix(c.name, "dijkstra") {
				cost = float64(g.N() + g.M())
			}
			if p := b.predict(label, cost); p > b.cfg.maxRun {
				rec.Skipped = fmt.Sprintf("about %.0f s per run, extrapolated from its last graph", p.Seconds())
				if err := b.emit(rec); err != nil {
					return err
				}
				continue
			}
			res, err := b.measure(&rec, cost, func(opts gpu.Options) (any, error) {
				opts.EarlyExit = c.early
				return gpu.SingleSource(ctx, c.name, g, b.cfg.source, opts)
			})
			if err != nil {
				return err
			}
			if got := res.(*graph.SingleSource); !got.SameDistances(want) {
				return fmt.Errorf("%s on %s: distances differ from cpu.Dijkstra:\n%s", label, g.Name(), got.Diff(want, 5))
			}
			rec.Check = "= cpu"
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

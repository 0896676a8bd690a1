package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
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
	"github.com/pathnotes/pathnotes/internal/bench"
)

// benchConfig holds the flags of `pathnotes bench`.
type benchConfig struct {
	fwSizes   []int
	density   int
	snap      []string
	apspSizes []int
	fwSnap    int
	apspSnap  int
	sssp      []string // generated single-source graphs (ssspGraphs keys)
	crossN    int
	crossDens []int
	variants  map[string]bool // nil: all
	runs      int
	maxRun    time.Duration
	maxAPSP   time.Duration
	cpuMax    int
	source    int
	pred      bool
	seed      uint64
	jsonPath  string
	devices   []int // device ordinals; the first runs the one-device cells
	multi     []int // sizes of the fw-fast cells on every device of devices
	outOfCore int   // n of the fw-fast cells in and out of core (0: none)
	oocCap    uint64
	oocCells  map[string]bool // which of the out-of-core cells run: in, one, all
}

// Bench is `pathnotes bench`: it times the GPU variants and the CPU
// solvers over sizes and data sets (CUDA events, median of runs), checks
// every result, and prints a Markdown table (and, with --json, writes the
// records).
func Bench(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fwSizes := fs.String("fw-sizes", "1024,2048,4096,8192,16384", "vertex counts of the Floyd-Warshall random graphs")
	density := fs.Int("density", 60, "arcs per vertex of the random graphs (Gaioso et al.'s 60|V|)")
	snap := fs.String("snap", "data/snap/p2p-Gnutella04.txt.gz,data/snap/p2p-Gnutella25.txt.gz,data/snap/p2p-Gnutella30.txt.gz",
		"SNAP files for the single-source variants (weights 1..100, seeded)")
	fwSnap := fs.Int("fw-snap", 2, "also time the Floyd-Warshall variants on the first `K` SNAP files (Bodra's Table 3)")
	apspSizes := fs.String("apsp-sizes", "1024,2048,4096", "vertex counts of the random graphs for dijkstra-apsp-row (before the first SNAP file)")
	apspSnap := fs.Int("apsp-snap", 1, "time the all-pairs Dijkstra variants on the first `K` SNAP files")
	sssp := fs.String("sssp-graphs", "grid1024,rmat20,road264k", "generated graphs for the single-source variants, after the SNAP files: "+strings.Join(ssspGraphNames(), ", "))
	crossN := fs.Int("cross-n", 4096, "vertex count of the all-pairs crossover cells (fw-fast against apsp-batched; 0: none)")
	crossDens := fs.String("cross-density", "2,8,32,128,512", "arcs per vertex of the crossover cells")
	variants := fs.String("variants", "", "comma-separated variants to time (default: all)")
	runs := fs.Int("runs", 5, "timed runs per cell after the warm-up (3 when the warm-up takes a second or more)")
	maxRun := fs.Duration("max-run", 6*time.Second, "skip a cell whose kernel time, extrapolated from the variant's last cell, exceeds this")
	maxAPSP := fs.Duration("max-apsp", 30*time.Second, "as --max-run, for dijkstra-apsp-row")
	cpuMax := fs.Int("cpu-max", 4096, "check all-pairs results against the CPU up to this n (beyond it: against the first GPU variant and sampled rows)")
	source := fs.Int("source", 0, "source vertex of the single-source variants")
	pred := fs.Bool("pred", false, "time with predecessors")
	seed := fs.Uint64("seed", 1, "seed of the random graphs and of the SNAP weights")
	jsonPath := fs.String("json", "", "write the results as JSON to `FILE` (rewritten after every cell)")
	devices := fs.String("devices", "0", "comma-separated device ordinals: the first runs every cell; with several, fw-fast also runs on all of them (--multi-sizes)")
	multi := fs.String("multi-sizes", "8192,16384,32768", "vertex counts of the fw-fast cells on one device and on all of --devices")
	outOfCore := fs.Int("out-of-core", 0, "also time fw-fast at this `n` on the first device in its memory and with the memory capped at a third of its matrices, streamed, on the first device and on all of --devices (0: not)")
	oocCap := fs.Uint64("out-of-core-cap", 0, "the device memory `BYTES` each device may use in the streamed --out-of-core cells (0: a third of the matrices' share)")
	oocCells := fs.String("out-of-core-cells", "in,one,all", "which --out-of-core cells run: in (in the first device's memory), one (streamed on the first device), all (streamed on every device of --devices)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", ErrUsage, fs.Args())
	}
	cfg := benchConfig{fwSnap: *fwSnap, apspSnap: *apspSnap, crossN: *crossN, density: *density, runs: *runs, maxRun: *maxRun, maxAPSP: *maxAPSP, cpuMax: *cpuMax, source: *source,
		pred: *pred, seed: *seed, jsonPath: *jsonPath, outOfCore: *outOfCore, oocCap: *oocCap, oocCells: map[string]bool{}}
	var err error
	if cfg.fwSizes, err = parseSizes(*fwSizes); err != nil {
		return err
	}
	if cfg.apspSizes, err = parseSizes(*apspSizes); err != nil {
		return err
	}
	if cfg.crossDens, err = parseSizes(*crossDens); err != nil {
		return err
	}
	if cfg.multi, err = parseSizes(*multi); err != nil {
		return err
	}
	if cfg.devices, err = parseOrdinals(*devices); err != nil {
		return err
	}
	for _, c := range strings.Split(*oocCells, ",") {
		if c = strings.TrimSpace(c); c != "in" && c != "one" && c != "all" {
			return fmt.Errorf("%w: --out-of-core-cells: no cell %q (in, one, all)", ErrUsage, c)
		}
		cfg.oocCells[c] = true
	}
	for _, name := range strings.Split(*sssp, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		if _, ok := ssspGraphs[name]; !ok {
			return fmt.Errorf("%w: --sssp-graphs: no graph %q (known: %s)", ErrUsage, name, strings.Join(ssspGraphNames(), ", "))
		}
		cfg.sssp = append(cfg.sssp, name)
	}
	if *snap != "" {
		cfg.snap = strings.Split(*snap, ",")
	}
	if *variants != "" {
		cfg.variants = map[string]bool{}
		for _, v := range strings.Split(*variants, ",") {
			if _, err := gpu.Lookup(v); err != nil {
				return fmt.Errorf("%w: %v", ErrUsage, err)
			}
			cfg.variants[v] = true
		}
	}
	if cfg.runs < 1 || cfg.density < 1 {
		return fmt.Errorf("%w: --runs and --density must be positive", ErrUsage)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	devs, err := openDevices(cfg.devices)
	if err != nil {
		return err
	}
	dev := devs[0]
	b := &benchRun{cfg: cfg, dev: dev, devs: devs, report: bench.Report{Version: Version(), Device: dev.Info().String(),
		Driver: gpu.Describe(), Date: time.Now().UTC().Format(time.RFC3339), Config: strings.Join(args, " ")}}
	fmt.Println(gpu.Describe())
	fmt.Println("\n" + bench.TableHeader)
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
	if err := b.crossover(ctx); err != nil {
		return err
	}
	gens := slices.Clone(snaps)
	for _, name := range cfg.sssp {
		g, err := ssspGraphs[name]()
		if err != nil {
			return err
		}
		gens = append(gens, g.WithName(name))
	}
	if err := b.singleSource(ctx, snaps[:min(cfg.apspSnap, len(snaps))], gens); err != nil {
		return err
	}
	if err := b.multiDevice(ctx, snaps); err != nil {
		return err
	}
	return b.streamed(ctx)
}

// ssspGraphs are the generated graphs `--sssp-graphs` names: with the
// weights 1..1000 of road networks, the 1024×1024 grid, R-MAT scale 20
// with edge factor 16 (Graph500's parameters), and a road-like graph of
// DIMACS NY's size (264,346 vertices, 733,846 arcs; Bodra's Table 1);
// and deg7-1m .. deg7-10m, the graphs of [Musap 2016] §2.9 as notebook 02
// builds them (k million vertices of out-degree 7, weights 1..10, the
// notebook's first graph of each size).
var ssspGraphs = func() map[string]func() (*graph.Graph, error) {
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

func ssspGraphNames() []string {
	names := make([]string, 0, len(ssspGraphs))
	for name := range ssspGraphs {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
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
			return nil, fmt.Errorf("%w: bad size %q", ErrUsage, f)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return out, nil
}

// benchRun runs the cells; its predictor knows each variant's last cell,
// to skip cells that would run too long.
type benchRun struct {
	cfg     benchConfig
	dev     *gpu.Device
	devs    []*gpu.Device // --devices; dev is the first
	report  bench.Report
	predict bench.Predictor
}

func (b *benchRun) want(v string) bool { return b.cfg.variants == nil || b.cfg.variants[v] }

// measure times one GPU cell through bench.Measure (a warm-up run, whose
// result it returns for the checks, then cfg.runs runs), fills rec, and
// records the cell's cost and time for the predictor.
func (b *benchRun) measure(rec *bench.Record, cost float64, run func(opts gpu.Options) (any, error)) (any, error) {
	first, s, err := bench.Measure(bench.Plan{Runs: b.cfg.runs, WarmUp: true}, func(st *gpu.Stats) (any, error) {
		return run(gpu.Options{Pred: b.cfg.pred, Device: b.dev, Stats: st})
	})
	if err != nil {
		return nil, err
	}
	rec.SetSummary(s)
	b.predict.Observe(rec.Variant, cost, s.Kernel)
	return first, nil
}

// emit prints a cell as a table row and rewrites the JSON file.
func (b *benchRun) emit(rec bench.Record) error {
	b.report.Records = append(b.report.Records, rec)
	fmt.Println(rec.Row())
	if b.cfg.jsonPath == "" {
		return nil
	}
	return b.report.WriteFile(b.cfg.jsonPath)
}

// emitHost emits the row of a CPU solver that ran once in dt; cost is its
// relaxations (all pairs) or 0.
func (b *benchRun) emitHost(rec bench.Record, dt time.Duration, cost float64) error {
	rec.SetHost(dt, cost)
	return b.emit(rec)
}

// allPairsVariants lists the selected all-pairs variants of one algorithm.
func (b *benchRun) allPairsVariants(algorithm string) []gpu.Variant {
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
func (b *benchRun) floydWarshall(ctx context.Context, snaps []*graph.Graph) error {
	variants := b.allPairsVariants("Floyd-Warshall")
	if len(variants) == 0 {
		return nil
	}
	for _, n := range b.cfg.fwSizes {
		g, err := graph.GNM(n, min(b.cfg.density*n, n*(n-1)), graph.WeightRange{Min: 1, Max: 100}, b.cfg.seed)
		if err != nil {
			return err
		}
		if err := b.allPairsCells(ctx, g, fmt.Sprintf("GNM %d|V|", b.cfg.density), variants, b.cfg.maxRun, true); err != nil {
			return err
		}
	}
	for _, g := range snaps {
		if err := b.allPairsCells(ctx, g, g.Name(), variants, b.cfg.maxRun, true); err != nil {
			return err
		}
	}
	return nil
}

// allPairsCells times the given all-pairs variants on g, checking every
// result against the CPU (with cpuRef, n ≤ cpuMax; the CPU solver's time
// is a row of its own) or against the first GPU result and sampled rows.
func (b *benchRun) allPairsCells(ctx context.Context, g *graph.Graph, name string, variants []gpu.Variant, maxRun time.Duration, cpuRef bool) error {
	n := g.N()
	cost := float64(n) * float64(n) * float64(n)
	var ref *graph.AllPairs
	check := ""
	if cpuRef && n <= b.cfg.cpuMax {
		t0 := time.Now()
		var err error
		if ref, err = cpu.FloydWarshallBlocked(ctx, g, cpu.FWOptions{}); err != nil {
			return err
		}
		check = "= cpu"
		if err := b.emitHost(bench.Record{Variant: "fw-cpu-blocked", Graph: name, N: n, M: g.M()}, time.Since(t0), cost); err != nil {
			return err
		}
	}
	for _, v := range variants {
		rec := bench.Record{Variant: v.Name, Graph: name, N: n, M: g.M()}
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
			if err := bench.SampleRows(g, got, 64, b.cfg.seed); err != nil {
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
			rec.Ceiling = rec.RelaxPerSec / bench.DPXCeiling(b.dev.Info())
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
func (b *benchRun) crossover(ctx context.Context) error {
	var vs []gpu.Variant
	for _, name := range []string{gpu.VariantFWFast, gpu.VariantAPSPBatched} {
		if v, err := gpu.Lookup(name); err == nil && b.want(name) {
			vs = append(vs, v)
		}
	}
	if b.cfg.crossN < 1 || len(vs) < 2 {
		return nil
	}
	n := b.cfg.crossN
	for _, d := range b.cfg.crossDens {
		g, err := graph.GNM(n, min(d*n, n*(n-1)), graph.WeightRange{Min: 1, Max: 100}, b.cfg.seed)
		if err != nil {
			return err
		}
		name := fmt.Sprintf("GNM %d|V| (auto picks %s)", d, gpu.PickAllPairs(g))
		if err := b.allPairsCells(ctx, g, name, vs, b.cfg.maxAPSP, false); err != nil {
			return err
		}
	}
	return nil
}

// singleSource times the all-pairs Dijkstra variants (dijkstra-apsp-row,
// apsp-batched) on random graphs and on apspSnaps, and the single-source
// variants and cpu.Dijkstra on graphs (the SNAP files, weights 1..100
// drawn with cfg.seed, then the generated ones), from cfg.source, checked
// against the CPU.
func (b *benchRun) singleSource(ctx context.Context, apspSnaps, graphs []*graph.Graph) error {
	if apsp := b.allPairsVariants("Dijkstra"); len(apsp) > 0 {
		for _, n := range b.cfg.apspSizes {
			g, err := graph.GNM(n, min(4*n, n*(n-1)), graph.WeightRange{Min: 1, Max: 100}, b.cfg.seed)
			if err != nil {
				return err
			}
			if err := b.allPairsCells(ctx, g, "GNM 4|V|", apsp, b.cfg.maxAPSP, true); err != nil {
				return err
			}
		}
		for _, g := range apspSnaps {
			if err := b.allPairsCells(ctx, g, g.Name(), apsp, b.cfg.maxAPSP, true); err != nil {
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
		if b.cfg.source < 0 || b.cfg.source >= g.N() {
			return fmt.Errorf("%w: --source %d outside %s (n=%d)", ErrUsage, b.cfg.source, g.Name(), g.N())
		}
		t0 := time.Now()
		want, err := cpu.Dijkstra(ctx, g, b.cfg.source, cpu.DijkstraOptions{Pred: b.cfg.pred})
		if err != nil {
			return err
		}
		rec := bench.Record{Variant: "dijkstra-cpu", Graph: g.Name(), N: g.N(), M: g.M(), Source: b.cfg.source}
		if err := b.emitHost(rec, time.Since(t0), 0); err != nil {
			return err
		}
		for _, c := range cells {
			label := c.name
			if c.early {
				label += " (early exit)"
			}
			rec := bench.Record{Variant: label, Graph: g.Name(), N: g.N(), M: g.M(), Source: b.cfg.source}
			cost := float64(g.N()) * float64(g.N()+g.M())
			if strings.HasPrefix(c.name, "dijkstra") {
				cost = float64(g.N() + g.M())
			}
			if p := b.predict.Predict(label, cost); p > b.cfg.maxRun {
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

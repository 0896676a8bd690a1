package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/internal/bench"
)

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
	sssp := fs.String("sssp-graphs", "grid1024,rmat20,road264k", "generated graphs for the single-source variants, after the SNAP files: "+strings.Join(bench.SSSPGraphNames(), ", "))
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
	cfg := bench.Suite{FWSNAP: *fwSnap, APSPSNAP: *apspSnap, CrossN: *crossN, Density: *density, Runs: *runs, MaxRun: *maxRun, MaxAPSP: *maxAPSP,
		CPUMax: *cpuMax, Source: *source, Pred: *pred, Seed: *seed, JSONPath: *jsonPath, OutOfCore: *outOfCore,
		OutOfCoreCap: *oocCap, OutOfCoreCells: map[string]bool{},
		Version: Version(), Args: strings.Join(args, " "), Out: os.Stdout, Usage: ErrUsage}
	var err error
	if cfg.FWSizes, err = parseSizes(*fwSizes); err != nil {
		return err
	}
	if cfg.APSPSizes, err = parseSizes(*apspSizes); err != nil {
		return err
	}
	if cfg.CrossDens, err = parseSizes(*crossDens); err != nil {
		return err
	}
	if cfg.MultiSizes, err = parseSizes(*multi); err != nil {
		return err
	}
	if cfg.Devices, err = parseOrdinals(*devices); err != nil {
		return err
	}
	for _, c := range strings.Split(*oocCells, ",") {
		if c = strings.TrimSpace(c); c != "in" && c != "one" && c != "all" {
			return fmt.Errorf("%w: --out-of-core-cells: no cell %q (in, one, all)", ErrUsage, c)
		}
		cfg.OutOfCoreCells[c] = true
	}
	for _, name := range strings.Split(*sssp, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		if _, ok := bench.SSSPGraphs[name]; !ok {
			return fmt.Errorf("%w: --sssp-graphs: no graph %q (known: %s)", ErrUsage, name, strings.Join(bench.SSSPGraphNames(), ", "))
		}
		cfg.SSSP = append(cfg.SSSP, name)
	}
	if *snap != "" {
		cfg.SNAP = strings.Split(*snap, ",")
	}
	if *variants != "" {
		cfg.Variants = map[string]bool{}
		for _, v := range strings.Split(*variants, ",") {
			if _, err := gpu.Lookup(v); err != nil {
				return fmt.Errorf("%w: %v", ErrUsage, err)
			}
			cfg.Variants[v] = true
		}
	}
	if cfg.Runs < 1 || cfg.Density < 1 {
		return fmt.Errorf("%w: --runs and --density must be positive", ErrUsage)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return cfg.Run(ctx)
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

// parseOrdinals parses --devices: distinct device ordinals, in the given
// order.
func parseOrdinals(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		k, err := strconv.Atoi(f)
		if err != nil || k < 0 {
			return nil, fmt.Errorf("%w: --devices: bad ordinal %q", ErrUsage, f)
		}
		for _, o := range out {
			if o == k {
				return nil, fmt.Errorf("%w: --devices names device %d twice", ErrUsage, k)
			}
		}
		out = append(out, k)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: --devices names no device", ErrUsage)
	}
	return out, nil
}

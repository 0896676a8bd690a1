package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/pathnotes/pathnotes/dist"
	"github.com/pathnotes/pathnotes/dist/comm"
	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/internal/atomicfile"
)

// APSP is `pathnotes apsp GRAPH --out DIR`: all pairs of GRAPH by fw-fast
// over many GPUs, one process (rank) a GPU, started by a cluster's
// launcher (or by --local-ranks), the result written in tiles under DIR
// (package dist).
func APSP(args []string) error {
	fs := flag.NewFlagSet("apsp", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: pathnotes apsp GRAPH --out DIR [flags]

All pairs of GRAPH by fw-fast over many GPUs: one process a GPU, started by
a launcher (srun, mpirun, torchrun) or by --local-ranks. GRAPH is a graph
file (edge list, DIMACS, SNAP, Matrix Market, gzipped or not) or a random
graph gnm:n=N[,density=D][,w=LO..HI][,seed=S] (density·n arcs, weights
1..100 lowered so that (n-1)·HI < 2^22, seed 1: pathnotes bench's). Ranks
meet at MASTER_ADDR:MASTER_PORT, or through --rendezvous-file. Each rank
writes its tiles under DIR, rank 0 the manifest last (read it back with
graph.OpenAllPairs).

`)
		fs.PrintDefaults()
	}
	out := fs.String("out", "", "the result's `DIR` (required)")
	gridFlag := fs.String("grid", "", "process grid `PxQ` (default: the squarest for the ranks)")
	pred := fs.Bool("pred", false, "compute predecessors (Π) too")
	transport := fs.String("transport", "auto", "nccl, tcp, or auto (nccl on a CUDA device, tcp on the emulator)")
	local := fs.Int("local-ranks", 0, "start `N` ranks on this host (a launcher of its own)")
	rvFile := fs.String("rendezvous-file", "", "meet through `FILE` on a path every rank sees, instead of MASTER_ADDR:MASTER_PORT")
	timeout := fs.Duration("timeout", comm.DefaultTimeout, "bound on the rendezvous and on every wait for the other ranks")
	device := fs.Int("device", -1, "GPU ordinal (default: the local rank modulo the GPUs this process sees)")
	probe := fs.Int("probe", 0, "time `K` broadcasts of a panel's size in each process column and row first")
	check := fs.Int("check", 0, "rank 0 reads `K` sampled rows back and compares them with sssp-fast, and checks the files' checksums")
	jsonPath := fs.String("json", "", "rank 0 writes the run's summary as JSON to `FILE`")
	// The flags may come before or after GRAPH.
	if err := fs.Parse(args); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) > 0 {
		if err := fs.Parse(rest[1:]); err != nil {
			return err
		}
		rest = append(rest[:1], fs.Args()...)
	}
	if len(rest) != 1 || *out == "" {
		fs.Usage()
		return fmt.Errorf("%w: want one GRAPH and --out DIR", ErrUsage)
	}
	var grid dist.Grid
	if *gridFlag != "" {
		p, q, ok := strings.Cut(strings.ToLower(*gridFlag), "x")
		var e1, e2 error
		grid.P, e1 = strconv.Atoi(p)
		grid.Q, e2 = strconv.Atoi(q)
		if !ok || e1 != nil || e2 != nil || grid.P < 1 || grid.Q < 1 {
			return fmt.Errorf("%w: --grid %q: want PxQ, such as 2x4", ErrUsage, *gridFlag)
		}
	}
	if *local > 0 {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		return dist.SpawnLocal(context.Background(), *local, append([]string{exe, "apsp"}, withoutFlag(args, "local-ranks")...),
			os.Environ(), os.Stdout, os.Stderr)
	}
	l, err := comm.FromEnv(os.Getenv)
	if err != nil {
		return err
	}
	g, err := loadAPSPGraph(rest[0])
	if err != nil {
		return fmt.Errorf("rank %d: %w", l.Rank, err)
	}
	ctx, stop := dist.OnInterrupt(l.Rank)
	defer stop()
	job := &dist.Job{Graph: g, Source: rest[0], Out: *out, Grid: grid, Pred: *pred, Transport: *transport, Device: *device,
		Rendezvous: comm.Rendezvous{Addr: l.Addr, File: *rvFile}, Key: strings.Join(withoutFlag(args, "local-ranks"), "\x00"),
		Timeout: *timeout, Probe: *probe, Check: *check, Log: os.Stdout,
		Stuck: func(err error) {
			fmt.Fprintln(os.Stderr, "pathnotes apsp:", err)
			os.Exit(1)
		}}
	if *rvFile != "" {
		job.Rendezvous.Addr = ""
	}
	sum, err := job.Run(ctx, l)
	if err != nil {
		return fmt.Errorf("rank %d of %d: %w", l.Rank, l.Size, err)
	}
	if sum == nil {
		return nil
	}
	printSummary(os.Stdout, sum)
	if *jsonPath != "" {
		data, err := json.MarshalIndent(sum, "", "  ")
		if err != nil {
			return err
		}
		return atomicfile.WriteFile(*jsonPath, append(data, '\n'), 0o644)
	}
	return nil
}

// withoutFlag drops -name / --name and its value from args.
func withoutFlag(args []string, name string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := strings.TrimLeft(args[i], "-")
		if len(a) < len(args[i]) {
			if a == name {
				i++ // its value follows
				continue
			}
			if strings.HasPrefix(a, name+"=") {
				continue
			}
		}
		out = append(out, args[i])
	}
	return out
}

// loadAPSPGraph reads GRAPH: gnm:n=N[,density=D][,w=LO..HI][,seed=S], or
// a file.
func loadAPSPGraph(spec string) (*graph.Graph, error) {
	rest, ok := strings.CutPrefix(spec, "gnm:")
	if !ok {
		return graph.ReadFile(spec, graph.ReadOptions{})
	}
	n, density, seed := -1, 60, uint64(1)
	var w *graph.WeightRange
	for _, kv := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(kv, "=")
		var err error
		switch k {
		case "n":
			n, err = strconv.Atoi(v)
		case "density":
			density, err = strconv.Atoi(v)
		case "seed":
			seed, err = strconv.ParseUint(v, 10, 64)
		case "w":
			lo, hi, ok := strings.Cut(v, "..")
			a, e1 := strconv.Atoi(lo)
			b, e2 := strconv.Atoi(hi)
			if !ok || e1 != nil || e2 != nil {
				err = errors.New("want LO..HI")
			}
			w = &graph.WeightRange{Min: int32(a), Max: int32(b)}
		default:
			err = errors.New("unknown key")
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %q: %v (keys: n, density, w, seed)", ErrUsage, spec, kv, err)
		}
	}
	if n < 0 || density < 1 {
		return nil, fmt.Errorf("%w: %s: want n=N (N ≥ 0) and a positive density", ErrUsage, spec)
	}
	if w == nil {
		w = &graph.WeightRange{Min: 1, Max: int32(min(100, (1<<22-2)/max(n-1, 1)))}
	}
	return graph.GNM(n, min(density*n, n*max(n-1, 0)), *w, seed)
}

// printSummary prints rank 0's account of the run.
func printSummary(w io.Writer, s *dist.Summary) {
	tr := s.Transport
	if s.NCCL != "" {
		tr += " " + s.NCCL
	}
	fmt.Fprintf(w, "%s: n=%d m=%d, grid %s on %s, %s, kernels %s, predecessors %v\n",
		dist.Solver, s.N, s.M, s.Grid, s.Device, tr, s.Kernels, s.Pred)
	rounds := s.MaxRounds()
	rate := float64(s.N) * float64(s.N) * float64(s.N) / rounds
	fmt.Fprintf(w, "rounds %.3f s (the slowest rank; %.3g relaxations/s), setup %.3f s, download %.3f s, write %.3f s (slowest ranks)\n",
		rounds, rate, dist.Slowest(s.Setup), dist.Slowest(s.Download), dist.Slowest(s.Write))
	for r := range s.Sent {
		fmt.Fprintf(w, "rank %d: rounds %.3f s, sent %s as a root, received %s\n", r, s.Rounds[r],
			graph.FormatBytes(uint64(s.Sent[r])), graph.FormatBytes(uint64(s.Received[r])))
	}
	for _, p := range s.Probe {
		fmt.Fprintf(w, "probe: %d broadcasts of %s in a process %s of %d ranks: %.3f s, %.3g GB/s\n",
			p.Times, graph.FormatBytes(uint64(p.Bytes)), p.Group, p.Ranks, p.Seconds, p.Rate/1e9)
	}
	if s.Check != "" {
		fmt.Fprintf(w, "check: %s\n", s.Check)
	}
	fmt.Fprintf(w, "wrote %s (%s last)\n", s.Out, graph.ManifestName)
}

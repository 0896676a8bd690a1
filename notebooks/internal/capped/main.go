// Command capped runs the measurements that notebooks 01 and 03 leave out
// at PATHNOTES_SCALE=1 because they would take too long inside one
// notebook run, spread over every GPU and the cores of one host, and
// writes them to a JSON file that the notebooks' "run apart" cells read
// (notebooks/capped.json):
//
//   - 03, Table 1: bf-naive, bf-stride and bf-flag with the report's |V|−1
//     passes on the stand-in of Bodra's largest road network "e";
//   - 03, Table 3: fw-row on gnutella25 and 30, fw-hn and fw-hn-shared on
//     gnutella30;
//   - 01, Tables 1, 3 and 5: the thesis's CPU triple loop as written
//     (cpu.FloydWarshallAsWritten with Π) on the graphs beyond |V| = 2000.
//
// Each GPU job runs once on a device of its own (the longest first, on the
// least loaded device). Each CPU job runs once on a core of its own when
// one core ends it before -deadline; the others, one after another, on the
// cores left, with each pivot's rows split over them (FWOptions.Workers),
// and the result says on how many cores it ran. A job starts only when its
// estimate (the H100 run's for the GPU jobs, a calibration at |V| = 1000
// for the CPU ones) ends before -deadline. The
// file is rewritten after every job, and with -resume the jobs it already
// holds are not run again, so that several short calls can fill it, even
// calls of another build or on another host: each result names its build,
// and the file lists every build and host. Run it
// from the repository root (it reads data/snap). Every result is checked:
// the GPU ones against a reference (cpu.Dijkstra; fw-blocked's matrix,
// itself checked on 64 sampled rows), the CPU ones with VerifyWorkers.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/internal/atomicfile"
	"github.com/pathnotes/pathnotes/lab"
)

// Result is one measurement, keyed by its notebook, table, row and column
// as the notebook's table names them; the notebooks read it with
// lab.ReadApart.
type Result = lab.ApartResult

// File is what capped writes.
type File = lab.ApartFile

// job is one measurement to make.
type job struct {
	Result
	gpu bool
	// run makes the measurement on dev (GPU jobs) or on cores (CPU jobs).
	run func(ctx context.Context, dev *gpu.Device, cores int) (Result, error)
}

func (j job) key() string { return j.Notebook + "|" + j.Table + "|" + j.Row + "|" + j.Column }

func main() {
	out := flag.String("out", "capped.json", "the JSON `file` to write")
	resume := flag.Bool("resume", false, "keep the results already in -out and run only the jobs it lacks")
	deadline := flag.Duration("deadline", 9*time.Minute, "start no job that would end later than this after the start")
	only := flag.String("only", "gpu,cpu", "which jobs: gpu (03's Tables 1 and 3), cpu (01's CPU column), or both")
	cpuMaxN := flag.Int("cpu-max-n", 12500, "01's CPU column up to this |V|")
	flag.Parse()
	if err := run(*out, *resume, *deadline, *only, *cpuMaxN); err != nil {
		fmt.Fprintln(os.Stderr, "capped:", err)
		os.Exit(1)
	}
}

func run(out string, resume bool, deadline time.Duration, only string, cpuMaxN int) error {
	start := time.Now()
	ctx, cancel := context.WithDeadline(context.Background(), start.Add(deadline))
	defer cancel()
	thisBuild := build()
	f := &File{Build: thisBuild, Host: fmt.Sprintf("%s, %d logical CPUs", lab.CPUModel(), runtime.NumCPU()),
		Command: strings.Join(os.Args, " ")}
	done := map[string]bool{}
	if resume {
		if b, err := os.ReadFile(out); err == nil {
			var old File
			if err := json.Unmarshal(b, &old); err != nil {
				return fmt.Errorf("-resume: %s: %w", out, err)
			}
			// Results made by another build or on another host stay, each
			// naming its build; the file names every build and host.
			f.Build, f.Host = joinDistinct(old.Build, f.Build), joinDistinct(old.Host, f.Host)
			f.Results, f.GPUs = old.Results, old.GPUs
			for i := range f.Results {
				if f.Results[i].Build == "" {
					f.Results[i].Build = old.Build
				}
			}
			for _, r := range old.Results {
				done[job{Result: r}.key()] = true
			}
		}
	}
	var mu sync.Mutex
	save := func(r *Result, skipped string) error {
		mu.Lock()
		defer mu.Unlock()
		if r != nil {
			f.Results = append(f.Results, *r)
			fmt.Printf("%s %s %s %s: %.4g s wall (%.4g estimated) on %s\n", r.Notebook, r.Table, r.Row, r.Column, r.Wall, r.Estimate, r.Device)
		}
		if skipped != "" {
			f.Skipped = append(f.Skipped, skipped)
			fmt.Println("skipped:", skipped)
		}
		b, err := json.MarshalIndent(f, "", " ")
		if err != nil {
			return err
		}
		return atomicfile.WriteFile(out, append(b, '\n'), 0o644)
	}

	var gpuJobs, cpuJobs []job
	if strings.Contains(only, "gpu") {
		jobs, err := bodraJobs()
		if err != nil {
			return err
		}
		gpuJobs = jobs
	}
	var devs []*gpu.Device
	if len(gpuJobs) > 0 {
		var err error
		if devs, err = gpu.OpenAll(); err != nil {
			return err
		}
		for _, d := range devs {
			name := d.Info().Name + " (" + d.Driver() + " driver)"
			if !slices.Contains(f.GPUs, name) {
				f.GPUs = append(f.GPUs, name)
			}
		}
	}
	if strings.Contains(only, "cpu") {
		cpuJobs = karaulaJobs(cpuMaxN)
	}
	var todo []job
	for _, j := range append(gpuJobs, cpuJobs...) {
		if !done[j.key()] {
			todo = append(todo, j)
		}
	}
	if err := save(nil, ""); err != nil {
		return err
	}

	var wg sync.WaitGroup
	errc := make(chan error, len(todo))
	launch := func(j job, dev *gpu.Device, cores int) {
		r, err := j.run(ctx, dev, cores)
		if err != nil {
			if ctx.Err() != nil {
				err = save(nil, fmt.Sprintf("%s: stopped at the deadline", j.key()))
			}
			errc <- err
			return
		}
		r.Notebook, r.Table, r.Row, r.Column, r.Graph, r.Estimate, r.Build = j.Notebook, j.Table, j.Row, j.Column, j.Graph, j.Estimate, thisBuild
		errc <- save(&r, "")
	}

	// GPU jobs: the longest first, each on the device that frees first,
	// one queue per device.
	sort.SliceStable(todo, func(a, b int) bool { return todo[a].Estimate > todo[b].Estimate })
	if len(devs) > 0 {
		free := make([]time.Duration, len(devs)) // when each device's queue ends, from start
		queues := make([][]job, len(devs))
		for _, j := range todo {
			if !j.gpu {
				continue
			}
			d := 0
			for i := range free {
				if free[i] < free[d] {
					d = i
				}
			}
			est := time.Duration(j.Estimate * 1.1 * float64(time.Second))
			if time.Since(start)+free[d]+est > deadline {
				if err := save(nil, fmt.Sprintf("%s: ≈ %.0f s would end after the deadline", j.key(), j.Estimate)); err != nil {
					return err
				}
				continue
			}
			free[d] += est
			queues[d] = append(queues[d], j)
		}
		for d, q := range queues {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, j := range q {
					launch(j, devs[d], 0)
				}
			}()
		}
	}

	// CPU jobs: calibrate each graph class at |V| = 1000, then plan them:
	// one core each where that ends before the deadline, rows split over
	// the cores left for the others.
	var cpuTodo []job
	for _, j := range todo {
		if !j.gpu {
			cpuTodo = append(cpuTodo, j)
		}
	}
	if len(cpuTodo) > 0 {
		rate, err := calibrate(ctx)
		if err != nil {
			return err
		}
		p := planCPU(cpuTodo, rate, max(1, hostCores()-len(devs)-1), deadline-time.Since(start))
		for _, why := range p.skipped {
			if err := save(nil, why); err != nil {
				return err
			}
		}
		sem := make(chan struct{}, p.slots)
		for _, j := range p.single {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				launch(j, nil, 1)
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, j := range p.split {
				launch(j, nil, p.cores)
			}
		}()
	}
	wg.Wait()
	close(errc)
	var errs []error
	for err := range errc {
		if err != nil {
			errs = append(errs, err)
		}
	}
	fmt.Printf("capped: %d results in %s after %s\n", len(f.Results), out, time.Since(start).Round(time.Second))
	return errors.Join(errs...)
}

// Notebook 03's parameters: [Bodra]'s randint(1, 100), seed 1, source 0.
var (
	bodraWeights = graph.WeightRange{Min: 1, Max: 100}
	bodraSeed    = uint64(1)
)

// bodraJobs are 03's cells that its 60-second cap leaves out, with the
// estimates that its H100 run printed for them.
func bodraJobs() ([]job, error) {
	var jobs []job
	// Table 1: the "e" stand-in, graph.RoadLike with the report's |V|, |E|.
	const eN, eM = 3598623, 8778114
	var roadOnce sync.Once
	var road *graph.Graph
	var roadRef *graph.SingleSource
	var roadErr error
	loadRoad := func(ctx context.Context) error {
		roadOnce.Do(func() {
			road, roadErr = graph.RoadLike(eN, max(eM/2*2, 2*(eN-1)), bodraWeights, bodraSeed)
			if roadErr == nil {
				roadRef, roadErr = cpu.Dijkstra(ctx, road, 0, cpu.DijkstraOptions{})
			}
		})
		return roadErr
	}
	for name, est := range map[string]float64{gpu.VariantBFNaive: 277, gpu.VariantBFStride: 264, gpu.VariantBFFlag: 73.5} {
		jobs = append(jobs, job{gpu: true, Result: Result{Notebook: "03-bodra-cuda-sp", Table: "Table 1", Row: "e", Column: name,
			Graph: fmt.Sprintf("graph.RoadLike(%d, %d, weights 1..100, seed 1), from vertex 0, |V|−1 passes", eN, eM), Estimate: est},
			run: func(ctx context.Context, dev *gpu.Device, _ int) (Result, error) {
				if err := loadRoad(ctx); err != nil {
					return Result{}, err
				}
				var st gpu.Stats
				r, err := gpu.SingleSource(ctx, name, road, 0, gpu.Options{Device: dev, Stats: &st})
				if err != nil {
					return Result{}, fmt.Errorf("%s on e: %w", name, err)
				}
				if !r.SameDistances(roadRef) {
					return Result{}, fmt.Errorf("%s on e differs from cpu.Dijkstra:\n%s", name, r.Diff(roadRef, 5))
				}
				return Result{N: road.N(), M: road.M(), Wall: st.Wall.Seconds(), Kernel: st.Kernel.Seconds(),
					Device: dev.Info().Name, Checked: "cpu.Dijkstra's distances"}, nil
			}})
	}
	// Table 3: the Gnutella graphs, each checked against fw-blocked's
	// matrix on the same device.
	type snapGraph struct {
		once sync.Once
		g    *graph.Graph
		ref  *graph.AllPairs
		err  error
	}
	snaps := map[string]*snapGraph{"gnutella25": {}, "gnutella30": {}}
	load := func(ctx context.Context, name string, dev *gpu.Device) (*snapGraph, error) {
		s := snaps[name]
		s.once.Do(func() {
			path := "data/snap/p2p-Gnutella" + strings.TrimPrefix(name, "gnutella") + ".txt.gz"
			if s.g, s.err = graph.ReadFile(path, graph.ReadOptions{Weights: bodraWeights, Seed: bodraSeed}); s.err != nil {
				return
			}
			if s.ref, s.err = gpu.AllPairs(ctx, gpu.VariantFWBlocked, s.g, gpu.Options{Device: dev}); s.err != nil {
				return
			}
			s.err = lab.SampleRows(ctx, s.g, s.ref, 64, bodraSeed)
		})
		return s, s.err
	}
	for _, c := range []struct {
		graph, variant string
		est            float64
	}{{"gnutella25", gpu.VariantFWRow, 101}, {"gnutella30", gpu.VariantFWRow, 427},
		{"gnutella30", gpu.VariantFWHN, 113}, {"gnutella30", gpu.VariantFWHNShared, 125}} {
		jobs = append(jobs, job{gpu: true, Result: Result{Notebook: "03-bodra-cuda-sp", Table: "Table 3", Row: c.graph, Column: c.variant,
			Graph: "SNAP p2p-Gnutella" + strings.TrimPrefix(c.graph, "gnutella") + ", weights 1..100, seed 1", Estimate: c.est},
			run: func(ctx context.Context, dev *gpu.Device, _ int) (Result, error) {
				s, err := load(ctx, c.graph, dev)
				if err != nil {
					return Result{}, err
				}
				var st gpu.Stats
				r, err := gpu.AllPairs(ctx, c.variant, s.g, gpu.Options{Device: dev, Stats: &st})
				if err != nil {
					return Result{}, fmt.Errorf("%s on %s: %w", c.variant, c.graph, err)
				}
				if !r.SameDistances(s.ref) {
					return Result{}, fmt.Errorf("%s and fw-blocked differ on %s:\n%s", c.variant, c.graph, r.Diff(s.ref, 5))
				}
				return Result{N: s.g.N(), M: s.g.M(), Wall: st.Wall.Seconds(), Kernel: st.Kernel.Seconds(),
					Device: dev.Info().Name, Checked: "fw-blocked's matrix, itself checked on 64 sampled rows against cpu.Dijkstra"}, nil
			}})
	}
	return jobs, nil
}

// Notebook 01's parameters: weights 1..100, seed 2017.
var (
	karaulaWeights = graph.WeightRange{Min: 1, Max: 100}
	karaulaSeed    = uint64(2017)
)

// karaulaSizes are the thesis's |V| and |E| beyond 2000 for each class:
// Tables 1, 3 and 5 of [Karaula 2017].
var karaulaSizes = []struct {
	class, table string
	n, m         []int
}{
	{"dense", "Table 1", []int{5000, 7500, 10000, 12500}, []int{500000, 1125000, 2000000, 3125000}},
	{"sparse", "Table 3", []int{5000, 7500, 10000, 12500}, []int{2500, 3750, 5000, 6250}},
	{"medium", "Table 5", []int{5000, 7500, 10000, 12500}, []int{30000, 45000, 65000, 81250}},
}

// karaulaJobs are 01's CPU cells beyond |V| = 2000, up to maxN.
func karaulaJobs(maxN int) []job {
	var jobs []job
	for _, c := range karaulaSizes {
		for i, n := range c.n {
			if n > maxN {
				continue
			}
			m := c.m[i]
			jobs = append(jobs, job{Result: Result{Notebook: "01-karaula-fw", Table: c.table, Row: fmt.Sprintf("%s %d", c.class, n), Column: "CPU", N: n, M: m,
				Graph: fmt.Sprintf("graph.GNM(%d, %d, weights 1..100, seed 2017)", n, m)},
				run: func(ctx context.Context, _ *gpu.Device, cores int) (Result, error) {
					wall, err := asWritten(ctx, n, m, cores, true)
					if err != nil {
						return Result{}, err
					}
					device := lab.CPUModel() + ", one core"
					if cores > 1 {
						device = fmt.Sprintf("%s, %d cores, each pivot's rows split over them", lab.CPUModel(), cores)
					}
					return Result{N: n, M: m, Wall: wall, Cores: cores, Device: device, Checked: "VerifyWorkers: every path rebuilt from Π, the triangle inequality on every arc"}, nil
				}})
		}
	}
	return jobs
}

// asWritten times cpu.FloydWarshallAsWritten with Π on graph.GNM(n, m)
// once, on cores goroutines, and verifies the result when verify is set.
func asWritten(ctx context.Context, n, m, cores int, verify bool) (float64, error) {
	g, err := graph.GNM(n, m, karaulaWeights, karaulaSeed)
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	r, err := cpu.FloydWarshallAsWritten(ctx, g, cpu.FWOptions{Pred: true, Workers: cores})
	wall := time.Since(t0).Seconds()
	if err != nil {
		return 0, err
	}
	if verify {
		if err := r.VerifyWorkers(ctx, g, 0); err != nil {
			return 0, fmt.Errorf("fw-cpu-as-written on GNM(%d, %d): %w", n, m, err)
		}
	}
	return wall, nil
}

// calibrationN is the |V| at which calibrate times each class.
var calibrationN = 1000

// calibrate times the triple loop on one core at |V| = calibrationN for
// each class, with the density of the class's smallest size, and returns
// seconds per |V|³ by class. A variable, so that a test can set the rates.
var calibrate = func(ctx context.Context) (map[string]float64, error) {
	rate := map[string]float64{}
	for _, c := range karaulaSizes {
		n := calibrationN
		m := int(float64(c.m[0]) * float64(n) * float64(n-1) / (float64(c.n[0]) * float64(c.n[0]-1)))
		wall, err := asWritten(ctx, n, max(m, 1), 1, false)
		if err != nil {
			return nil, err
		}
		rate[c.class] = wall / math.Pow(float64(n), 3)
	}
	return rate, nil
}

// hostCores is how many logical CPUs the host has; a variable, so that a
// test can plan for a larger host.
var hostCores = runtime.NumCPU

// splitEfficiency is the share of its cores that a run with its rows split
// is planned to use. Each pivot streams the whole matrix through memory,
// so memory bandwidth, not the cores, bounds it on a large host; the plan
// only decides what to start, and a run cut by the deadline is run again
// by the next -resume.
const splitEfficiency = 0.6

// cpuPlan is how the CPU jobs run: single on one core each, at most slots
// at once; split one after another on cores cores; skipped says why each
// other job does not run in this call.
type cpuPlan struct {
	single, split []job
	slots, cores  int
	skipped       []string
}

// planCPU plans jobs (rate: one core's seconds per |V|³ by class) on cores
// free cores within left. A job runs on one core when its estimate, with a
// fifth to spare, ends within left; the rest run with their rows split
// over the cores that the one-core jobs leave (at least two), smallest
// first, while the queue ends within left.
func planCPU(jobs []job, rate map[string]float64, cores int, left time.Duration) cpuPlan {
	jobs = slices.Clone(jobs)
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].N < jobs[b].N })
	fits := func(seconds float64) bool { return time.Duration(seconds*1.2*float64(time.Second)) <= left }
	var p cpuPlan
	var rest []job
	for _, j := range jobs {
		j.Estimate = rate[j.Row[:strings.IndexByte(j.Row, ' ')]] * math.Pow(float64(j.N), 3)
		if fits(j.Estimate) {
			p.single = append(p.single, j)
		} else {
			rest = append(rest, j)
		}
	}
	p.slots = max(1, min(len(p.single), cores))
	if len(rest) > 0 && cores >= 3 {
		p.slots = max(1, min(len(p.single), cores-2))
		p.cores = cores - p.slots
		if len(p.single) == 0 {
			p.cores = cores
		}
	}
	queue := 0.0
	for _, j := range rest {
		one := j.Estimate
		if p.cores >= 2 {
			j.Estimate = one / (float64(p.cores) * splitEfficiency)
			if fits(queue + j.Estimate) {
				queue += j.Estimate
				p.split = append(p.split, j)
				continue
			}
		}
		p.skipped = append(p.skipped, fmt.Sprintf("%s: ≈ %.0f s on one core (%d cores to split it over) would end after the deadline", j.key(), one, p.cores))
	}
	return p
}

// build names this binary's build (lab.Build); a variable, so that a test
// can resume a file as another build.
var build = lab.Build

// joinDistinct adds next to the "; "-separated list old unless it is
// there already.
func joinDistinct(old, next string) string {
	if old == "" || slices.Contains(strings.Split(old, "; "), next) {
		return cmp.Or(old, next)
	}
	return old + "; " + next
}

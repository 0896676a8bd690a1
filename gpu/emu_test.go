package gpu

// The GPU variants on the PTX emulator, against the CPU solvers: these run
// in every `go test ./...`, GPU or not.

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/gpu/driver"
	"github.com/pathnotes/pathnotes/gpu/ptxemu"
	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/ptx"
)

var (
	emuOnce sync.Once
	emuDev  *Device
	emuErr  error
)

// emulator returns the shared emulated device of these tests.
func emulator(t *testing.T) *Device {
	t.Helper()
	emuOnce.Do(func() { emuDev, emuErr = OpenEmulator(ptxemu.Options{}) })
	if emuErr != nil {
		t.Fatal(emuErr)
	}
	return emuDev
}

// TestEmuVariants runs every GPU variant on the emulator on graphs around
// the warp, tile and block edges and compares with the CPU. At the largest
// size the variants whose work grows fastest on the interpreter (one
// launch of ⌈n/32⌉² or n blocks per k, one thread per source) run once.
func TestEmuVariants(t *testing.T) {
	sizes := []int{1, 2, 31, 33, 100, 257}
	if testing.Short() {
		sizes = []int{1, 2, 33, 100}
	}
	slow := map[string]bool{VariantFWHN: true, VariantFWHNShared: true, VariantDijkstraAPSP: true}
	for i, n := range sizes {
		for j, c := range randomGraphs(t, n, uint64(100+n)) {
			for _, v := range Variants() {
				if n > 200 && slow[v.Name] && j != 1 {
					continue
				}
				checkVariant(t, emulator(t), v, c, true)
				if i%2 == 1 && !(n > 200 && slow[v.Name]) {
					checkVariant(t, emulator(t), v, c, false)
				}
			}
		}
	}
}

// TestEmuExamples runs every variant on the documents' example graphs; on
// these (n ≤ 32) every Floyd-Warshall variant relaxes in plain k order, so
// its Π equals the CPU triple loop's.
func TestEmuExamples(t *testing.T) {
	checkExamples(t, emulator(t))
}

// TestEmuNegativeCycles checks the negative-cycle reports on the emulator,
// and that Bellman-Ford from a vertex that cannot reach the cycle is fine.
func TestEmuNegativeCycles(t *testing.T) {
	ctx := context.Background()
	g := mustGraph(t, 7, "0->1 3, 1->2 -4, 2->3 1, 3->1 1, 3->4 2, 5->6 1")
	for _, v := range Variants() {
		if !v.Negative {
			continue
		}
		var err error
		if v.AllPairs {
			_, err = v.SolveAll(ctx, g, Options{Device: emulator(t)})
		} else {
			_, err = v.SolveFrom(ctx, g, 0, Options{Device: emulator(t), EarlyExit: true})
		}
		var nc *graph.NegativeCycleError
		if !errors.As(err, &nc) || nc.Weight >= 0 || !slices.Contains(nc.Cycle, nc.Vertex) {
			t.Errorf("%s: %v, want a negative cycle through the vertex named", v.Name, err)
		}
		if !v.AllPairs {
			res, err := v.SolveFrom(ctx, g, 5, Options{Device: emulator(t), Pred: true})
			if err != nil || res.Dist[6] != 1 || res.Dist[0] != graph.Inf {
				t.Errorf("%s from 5: %v, %v", v.Name, res, err)
			}
		}
	}
}

// TestEmuEveryKernelRuns checks that every entry point of every embedded
// PTX module decodes on the emulator and that running every variant (with
// predecessors, on a graph of two tiles) launches each one.
func TestEmuEveryKernelRuns(t *testing.T) {
	dev, err := OpenEmulator(ptxemu.Options{})
	if err != nil {
		t.Fatal(err)
	}
	other, err := OpenEmulator(ptxemu.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := graph.GNM(40, 120, graph.WeightRange{Min: 1, Max: 9}, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range Variants() {
		if v.AllPairs {
			_, err = v.SolveAll(context.Background(), g, Options{Device: dev, Pred: true})
		} else {
			_, err = v.SolveFrom(context.Background(), g, 0, Options{Device: dev, Pred: true})
		}
		if err != nil {
			t.Errorf("%s: %v", v.Name, err)
		}
	}
	// fw-fast picks its kernels by the weights and needs two 128-wide
	// tiles for its panel and rest kernels: run each of its modes, with Π
	// in the stages (ff_tight, which would take it on these graphs, runs
	// below).
	defaults := ffPath{small: ffSmallMax, smallPred: ffSmallPredMax, quarter: ffQuarterMax, blocks: ffSmallBlocks}
	defer func(tight bool, shared int) { ffTightPi, ffTightShared = tight, shared }(ffTightPi, ffTightShared)
	ffTightPi = false
	big, err := graph.GNM(130, 400, graph.WeightRange{Min: -2, Max: 9}, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []graph.WeightRange{{Min: 1, Max: 9}, {Min: 1, Max: 1 << 20}} {
		pos, err := graph.GNM(130, 400, w, 5)
		if err != nil {
			t.Fatal(err)
		}
		for _, pred := range []bool{false, true} {
			for _, h := range []*graph.Graph{pos, big} {
				// One device, and two (the stripe kernels run on dev too).
				for _, o := range []Options{{Device: dev, Pred: pred}, {Devices: []*Device{dev, other}, Pred: pred}} {
					if _, err := FWFast(context.Background(), h, o); err != nil && !errors.As(err, new(*graph.NegativeCycleError)) {
						t.Errorf("fw-fast: %v", err)
					}
				}
				// Every path through the stages (ff_small with and
				// without Π, quarter- and 128-wide tiles, ff_small giving
				// up), which the defaults pick by size.
				for _, p := range ffPaths(dev.info.SMs) {
					setFFPath(t, p)
					if _, err := FWFast(context.Background(), h, Options{Device: dev, Pred: pred}); err != nil && !errors.As(err, new(*graph.NegativeCycleError)) {
						t.Errorf("fw-fast, path %s: %v", p.name, err)
					}
				}
				setFFPath(t, defaults)
			}
		}
	}
	// ff_tight with each of its rows a block.
	ffTightPi = true
	pos, err := graph.GNM(130, 400, graph.WeightRange{Min: 1, Max: 9}, 5)
	if err != nil {
		t.Fatal(err)
	}
	// The same on the 16-bit path too, which runs fw16's own ff_tight.
	for _, narrow := range []bool{false, true} {
		p := defaults
		p.narrow = narrow
		setFFPath(t, p)
		for _, rows := range []int{1, 2, 4, 8, 16} {
			ffTightShared = rows * pos.N() * 4
			if _, err := FWFast(context.Background(), pos, Options{Device: dev, Pred: true}); err != nil {
				t.Errorf("fw-fast, ff_tight with %d rows a block (16-bit stages %v): %v", rows, narrow, err)
			}
		}
	}
	// f16_tight: the 16-bit stages where a 32-bit row outgrows the
	// shared memory.
	ffSharedCap = 4*pos.N() - 1
	_, err = FWFast(context.Background(), pos, Options{Device: dev, Pred: true})
	ffSharedCap = 0
	if err != nil {
		t.Errorf("fw-fast, f16_tight: %v", err)
	}
	setFFPath(t, defaults)
	// Streamed through a device that holds two of its four block rows
	// (ff_scatter, ff_gather).
	wide, err := graph.GNM(390, 1200, graph.WeightRange{Min: 1, Max: 9}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := FWFast(context.Background(), wide, Options{Device: dev, Pred: true, DeviceMemory: streamCap(390, 2, 2)}); err != nil {
		t.Errorf("fw-fast streamed: %v", err)
	}
	loaded := map[string]*ptxemu.Module{}
	for _, m := range driver.EmulatorModules(dev.ctx) {
		loaded[m.Name()] = m
	}
	for _, name := range ptx.Names() {
		text, err := ptx.PTX(name)
		if err != nil {
			t.Fatal(err)
		}
		m, ok := loaded[name]
		if !ok {
			t.Errorf("module %s: no variant loaded it", name)
			continue
		}
		if got, entries := len(m.Kernels()), strings.Count(text, ".entry "); got != entries || got == 0 {
			t.Errorf("module %s: %d kernels decoded, the text has %d entries", name, got, entries)
		}
		for _, kn := range m.Kernels() {
			if strings.HasPrefix(kn, "ff_dist_") {
				continue // fw-fast over many ranks: package dist's TestEveryKernelRuns runs them
			}
			k, err := m.Kernel(kn)
			if err != nil || k.Launches() == 0 {
				t.Errorf("kernel %s.%s never ran (%v)", name, kn, err)
			}
		}
	}
}

// TestEmuDriverSelection checks PATHNOTES_GPU=emu and the default's
// fallback to the emulator when CUDA is unusable.
func TestEmuDriverSelection(t *testing.T) {
	t.Setenv(EnvDriver, "emu")
	drv, err := driver.Active()
	if err != nil || drv.Name() != "emu" {
		t.Fatalf("%s=emu: driver.Active() = %v, %v", EnvDriver, drv, err)
	}
	want := "gpu driver: emu (PTX interpreter on the CPU; selected by PATHNOTES_GPU=emu); PTX modules "
	if d := Describe(); !strings.HasPrefix(d, want) || !strings.Contains(d, "PTX emulator (") {
		t.Errorf("Describe() = %q, want it to start with %q", d, want)
	}
	dev, err := Open(0)
	if err != nil || dev.Driver() != "emu" {
		t.Fatalf("Open(0) = %v, %v", dev, err)
	}
	res, err := FWBlocked(context.Background(), mustGraph(t, 3, "0->1 2, 1->2 3"), Options{})
	if err != nil || res.At(0, 2) != 5 {
		t.Errorf("FWBlocked on the selected emulator: %v, %v", res, err)
	}
	if _, err := driver.CUDA(); err == nil {
		t.Setenv(EnvDriver, "cuda")
		if drv, err := driver.Active(); err != nil || drv.Name() != "cuda" {
			t.Errorf("%s=cuda: %v, %v", EnvDriver, drv, err)
		}
	} else {
		t.Setenv(EnvDriver, "cuda")
		if _, err2 := driver.Active(); !errors.Is(err2, err) {
			t.Errorf("%s=cuda without CUDA: %v, want %v", EnvDriver, err2, err)
		}
	}
	t.Setenv(EnvDriver, "")
	drv, err = driver.Active()
	if err != nil {
		t.Fatal(err)
	}
	if _, cerr := driver.CUDA(); cerr != nil {
		v, _ := drv.Version()
		if drv.Name() != "emu" || !strings.Contains(v, "built without CUDA") {
			t.Errorf("default without CUDA: %s (%s), want the emulator saying why", drv.Name(), v)
		}
		if d := Describe(); !strings.HasPrefix(d, "gpu driver: emu (PTX interpreter on the CPU; this binary was built without CUDA") {
			t.Errorf("Describe() = %q", d)
		}
	}
}

// envNoticeChild makes the test binary run TestEmuNoticeChild.
const envNoticeChild = "PATHNOTES_GPU_TEST_NOTICE_CHILD"

// TestEmuNotice checks, in a child process, that falling back to the
// emulator prints one line on stderr however many GPU calls follow.
func TestEmuNotice(t *testing.T) {
	if _, err := driver.CUDA(); err == nil {
		if d, err := Default(); err == nil && d.Driver() == "cuda" {
			t.Skip("CUDA works here: the default driver is cuda, there is no fallback to report")
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestEmuNoticeChild$")
	cmd.Env = append(os.Environ(), envNoticeChild+"=1", EnvDriver+"=")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "pathnotes: GPU work runs on the PTX emulator (CPU, exact, slow): ") {
		t.Errorf("child's stderr: %q, want one notice line", stderr.String())
	}
}

// TestEmuNoticeChild runs only as TestEmuNotice's child: two variants on
// the default device.
func TestEmuNoticeChild(t *testing.T) {
	if os.Getenv(envNoticeChild) == "" {
		t.Skip("runs as the child process of TestEmuNotice")
	}
	g := mustGraph(t, 3, "0->1 2, 1->2 3")
	for range 2 {
		if _, err := FWHN(context.Background(), g, Options{}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEmuIllegalAddress checks what a kernel's illegal access looks like
// through the gpu API: a sticky CUDA_ERROR_ILLEGAL_ADDRESS that names the
// kernel, block, thread, PTX line and address, after which the device
// resets and works again.
func TestEmuIllegalAddress(t *testing.T) {
	// One worker runs the blocks in order, so block (0,0,0) faults first.
	dev, err := OpenEmulator(ptxemu.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	err = nullMatrixLaunch(t, dev)
	var de *driver.Error
	if !errors.As(err, &de) || !de.Sticky || de.Name != "CUDA_ERROR_ILLEGAL_ADDRESS" {
		t.Fatalf("fw_hn on a null matrix: %v, want a sticky illegal-address error", err)
	}
	for _, part := range []string{"kernel fw_hn, block (0,0,0), thread (0,0,0), PTX line", "ld.global.u32", "null pointer", "context has been reset"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q does not say %q", err, part)
		}
	}
	g := mustGraph(t, 3, "0->1 1, 1->2 1")
	if res, err := FWBlocked(ctx, g, Options{Device: dev}); err != nil || res.At(0, 2) != 2 {
		t.Errorf("the run after the fault: %v, %v", res, err)
	}
}

// TestEmuDriverErrors checks the errors that leave the device usable: PTX
// the emulator cannot run (a JIT failure, with the list in Log) and a
// launch shape it refuses.
func TestEmuDriverErrors(t *testing.T) {
	dev, err := OpenEmulator(ptxemu.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = dev.ctx.LoadModule("broken", ".version 7.8\n.target sm_52\n.address_size 64\n.visible .entry broken()\n{\n\tbogus.instruction;\n}\n")
	var de *driver.Error
	if !errors.As(err, &de) || de.Sticky || de.Name != "CUDA_ERROR_INVALID_PTX" || !strings.Contains(de.Log, "unsupported PTX instruction bogus.instruction at line 6") {
		t.Errorf("loading broken PTX: %v", err)
	}
	f, err := dev.function(ptx.FloydWarshall, "fw_hn")
	if err != nil {
		t.Fatal(err)
	}
	err = dev.ctx.Launch(context.Background(), f, Dim(1, 1, 1), Dim(2048, 1, 1), 0, []uint64{i32(4), 0, 0, 0})
	if !errors.As(err, &de) || de.Sticky || de.Name != "CUDA_ERROR_INVALID_VALUE" {
		t.Errorf("launching 2048 threads per block: %v", err)
	}
	if _, err := dev.function(ptx.FloydWarshall, "no_such_kernel"); !errors.As(err, &de) || de.Name != "CUDA_ERROR_NOT_FOUND" {
		t.Errorf("a missing kernel: %v", err)
	}
	if res, err := FWHN(context.Background(), mustGraph(t, 2, "0->1 4"), Options{Device: dev}); err != nil || res.At(0, 1) != 4 {
		t.Errorf("the run after the errors: %v, %v", res, err)
	}
}

// TestEmuStats checks the run statistics on the emulator and the
// interpreter's own counts.
func TestEmuStats(t *testing.T) {
	dev, err := OpenEmulator(ptxemu.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := graph.GNM(100, 500, graph.WeightRange{Min: 1, Max: 9}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{VariantFWHN, VariantFWBlocked} {
		before, ok := dev.EmulatorStats()
		if !ok {
			t.Fatal("EmulatorStats on the emulator: not ok")
		}
		var s Stats
		if _, err := AllPairs(context.Background(), name, g, Options{Device: dev, Pred: true, Stats: &s}); err != nil {
			t.Fatal(err)
		}
		e, _ := dev.EmulatorStats()
		e = e.Sub(before)
		if s.Launches != launchesOf(name, 100) || s.Kernel <= 0 || s.BytesToDevice != 2*100*100*4 || int(e.Launches) != s.Launches {
			t.Errorf("%s: stats %+v, emulator %v", name, s, e)
		}
		// The run's end is part of the host's part after the copies back,
		// which is part of the call.
		if s.End <= 0 || s.End > s.Result || s.Result > s.Wall {
			t.Errorf("%s: end %v, result %v, wall %v", name, s.End, s.Result, s.Wall)
		}
		if e.Stored[0] == 0 || e.Instructions == 0 || e.ThreadInstructions < 32*e.Instructions/4 {
			t.Errorf("%s: implausible emulator counts %v", name, e)
		}
		if name == VariantFWBlocked && (e.Barriers == 0 || e.Loaded[1] == 0) {
			t.Errorf("%s: no barriers or shared loads counted: %v", name, e)
		}
	}
}

// TestEmuLaunchCounts runs every variant whose launches the registry
// counts, with and without predecessors, on graphs of one tile, of several
// and of a part-filled last one (and fw-fast on one that takes its 16-bit
// stages, in one launch and a launch a phase), and checks the count
// against the run's.
func TestEmuLaunchCounts(t *testing.T) {
	dev := emulator(t)
	defer func(m, o int) { ffNarrowMin, ffNarrowOneMax = m, o }(ffNarrowMin, ffNarrowOneMax)
	ffNarrowMin = 2*ffTile + 1
	for _, n := range []int{1, 33, 130, ffNarrowMin, ffNarrowMin + 1} {
		if n > ffNarrowMin {
			ffNarrowOneMax = 0 // a launch a phase
		}
		g, err := graph.GNM(n, min(4*n, n*(n-1)), graph.WeightRange{Min: 1, Max: 9}, uint64(n))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range Variants() {
			if v.Launches(n, false) < 0 || n > 130 && v.Name != VariantFWFast {
				continue
			}
			for _, pred := range []bool{false, true} {
				var s Stats
				if _, err := v.SolveAll(context.Background(), g, Options{Device: dev, Pred: pred, Stats: &s}); err != nil {
					t.Fatalf("%s, n=%d: %v", v.Name, n, err)
				}
				if s.Launches != v.Launches(n, pred) {
					t.Errorf("%s, n=%d, Π %v: %d launches, the registry says %d", v.Name, n, pred, s.Launches, v.Launches(n, pred))
				}
			}
		}
	}
}

// TestEmuSolverCancelInLaunch checks that a solver's context stops the
// emulator inside a long launch (apsp-batched runs its sources in one
// launch), not only between launches, and that the device works after.
func TestEmuSolverCancelInLaunch(t *testing.T) {
	d, err := OpenEmulator(ptxemu.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	g, err := graph.GNM(600, 6000, graph.WeightRange{Min: 1, Max: 100}, 5)
	if err != nil {
		t.Fatal(err)
	}
	// A small run first loads the module, so that the deadline falls in
	// the long launch, not in decoding the PTX (slow on a loaded machine).
	small, _ := graph.GNM(20, 80, graph.WeightRange{Min: 1, Max: 9}, 2)
	ref, _ := cpu.FloydWarshall(context.Background(), small, cpu.FWOptions{})
	if res, err := AllPairs(context.Background(), VariantAPSPBatched, small, Options{Device: d}); err != nil || !res.SameDistances(ref) {
		t.Fatalf("apsp-batched before the cancelled run: %v", err)
	}
	// The deadline must fall in the launch, after the host's preparation,
	// which a loaded machine slows: it doubles from 150 ms until it does.
	var start time.Time
	for deadline := 150 * time.Millisecond; ; deadline *= 2 {
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		start = time.Now()
		done := make(chan error, 1)
		go func() {
			_, err := AllPairs(ctx, VariantAPSPBatched, g, Options{Device: d})
			done <- err
		}()
		select {
		case err = <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("apsp-batched still runs 30 s after its context expired")
		}
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("apsp-batched with a %v deadline: %v, want an error wrapping context.DeadlineExceeded", deadline, err)
		}
		if strings.Contains(err.Error(), "in kernel") || deadline >= 5*time.Second {
			break
		}
		t.Logf("the %v deadline fell before the launch: %v", deadline, err)
	}
	for _, part := range []string{"apsp-batched: interrupted after", "in kernel apsp_batch"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("cancelled solver: error %q lacks %q", err, part)
		}
	}
	t.Logf("stopped after %v: %v", time.Since(start), err)
	res, err := AllPairs(context.Background(), VariantAPSPBatched, small, Options{Device: d})
	if err != nil || !res.SameDistances(ref) {
		t.Errorf("apsp-batched after the cancelled run: %v", err)
	}
}

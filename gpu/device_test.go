//go:build cuda

package gpu

// Tests on a real GPU. They are built only with the cuda tag: build the
// binary with `go test -tags cuda -c -o .gpu/gpu.test ./gpu` and run it on
// a machine with an NVIDIA GPU. Without a device they skip, or fail when
// CI=true.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/gpu/driver"
	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/ptx"
)

// testDevice returns the default device when it is a CUDA card, or skips
// (fails under CI=true): the default driver falls back to the emulator,
// and a card test run there would pass without a card.
func testDevice(tb testing.TB) *Device {
	tb.Helper()
	d, err := Default()
	if err == nil && d.Driver() != "cuda" {
		err = fmt.Errorf("the default device runs on the %s driver", d.Driver())
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("no CUDA device: %v", err)
		}
		tb.Skipf("no CUDA device: %v", err)
	}
	return d
}

func TestDeviceDescribe(t *testing.T) {
	d := testDevice(t)
	t.Logf("\n%s", Describe())
	info := d.Info()
	if info.Name == "" || info.SMs < 1 || info.Memory == 0 || info.MaxThreadsPerBlock < 1024 || info.SharedPerBlock < 3*tileBytes || info.MaxGrid[1] < 1 {
		t.Errorf("implausible device info: %+v", info)
	}
	free, total, err := d.MemInfo()
	if err != nil || free == 0 || free > total {
		t.Errorf("MemInfo() = %d, %d, %v", free, total, err)
	}
}

// TestVariantsRandom checks every variant against the CPU on seeded random
// graphs of the sizes around the tile and block edges, sparse (with
// unreachable pairs) and dense, and with negative arcs where allowed.
func TestVariantsRandom(t *testing.T) {
	testDevice(t)
	sizes := []int{1, 2, 31, 32, 33, 100, 257, 1000, 2049}
	if testing.Short() {
		sizes = []int{1, 2, 33, 100}
	}
	for i, n := range sizes {
		graphs := randomGraphs(t, n, uint64(1000+n))
		for _, v := range Variants() {
			for _, tg := range graphs {
				checkVariant(t, nil, v, tg, true)
				if i%2 == 0 {
					checkVariant(t, nil, v, tg, false)
				}
			}
		}
	}
}

// TestSmall runs every variant on small graphs only: the sanitizer runs
// (compute-sanitizer --tool memcheck / racecheck) use it.
func TestSmall(t *testing.T) {
	testDevice(t)
	for _, n := range []int{1, 33, 70} {
		for _, tg := range randomGraphs(t, n, uint64(7+n)) {
			for _, v := range Variants() {
				checkVariant(t, nil, v, tg, true)
			}
		}
	}
}

// TestExamples runs every variant on the documents' example graphs. For
// n ≤ 32 every Floyd-Warshall variant relaxes in plain k order, so its Π
// must equal the CPU triple loop's cell for cell, which reproduces
// Karaula's Π^(5) of Fig 3.1.
func TestExamples(t *testing.T) {
	testDevice(t)
	checkExamples(t, nil)
	ctx := context.Background()
	// [Karaula 2017] §3.1, Fig. 3.1: Π^(5), 1-based in the thesis (NIL = -1 here).
	g, _ := graph.Example("karaula-fig3.1")
	res, err := FWBlocked(ctx, g, Options{Pred: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []int32{-1, 1, 4, 1, 4, 3, -1, 2, 1, 4, 3, 1, -1, 1, 4, 5, 5, 4, -1, 4, 5, 5, 2, 1, -1}
	for i := range want {
		if want[i] > 0 {
			want[i]--
		}
	}
	if !slices.Equal(res.Pred, want) {
		t.Errorf("fw-blocked on karaula-fig3.1: Π = %v, Karaula's Π^(5) is %v", res.Pred, want)
	}
}

// TestNegativeCycles checks that the variants that allow negative arcs
// report a negative cycle with the cycle, and that Bellman-Ford from a
// source that cannot reach it does not.
func TestNegativeCycles(t *testing.T) {
	testDevice(t)
	ctx := context.Background()
	small := mustGraph(t, 6, "0->1 1, 1->2 -2, 2->3 -2, 3->1 1, 3->4 1")
	big, err := graph.GNM(300, 900, graph.WeightRange{Min: 1, Max: 100}, 3)
	if err != nil {
		t.Fatal(err)
	}
	arcs := append(big.Arcs(), graph.Arc{From: 10, To: 20, Weight: -100}, graph.Arc{From: 20, To: 30, Weight: -100}, graph.Arc{From: 30, To: 10, Weight: -100})
	if big, err = graph.FromArcs(300, arcs); err != nil {
		t.Fatal(err)
	}
	for _, g := range []*graph.Graph{small, big} {
		for _, v := range Variants() {
			if !v.Negative {
				continue
			}
			var err error
			if v.AllPairs {
				_, err = v.SolveAll(ctx, g, Options{Pred: true})
			} else {
				_, err = v.SolveFrom(ctx, g, 0, Options{Pred: true})
			}
			var nc *graph.NegativeCycleError
			if !errors.As(err, &nc) {
				t.Errorf("%s on n=%d: %v, want a *graph.NegativeCycleError", v.Name, g.N(), err)
				continue
			}
			if len(nc.Cycle) == 0 || nc.Weight >= 0 || !slices.Contains(nc.Cycle, nc.Vertex) {
				t.Errorf("%s on n=%d: %v: want a cycle of negative weight through the vertex named", v.Name, g.N(), nc)
			}
		}
	}
	for _, v := range []Variant{mustLookup(t, VariantBFNaive), mustLookup(t, VariantBFStride), mustLookup(t, VariantBFFlag)} {
		res, err := v.SolveFrom(ctx, small, 5, Options{Pred: true, EarlyExit: true})
		if err != nil || res.Dist[5] != 0 || res.Dist[0] != graph.Inf {
			t.Errorf("%s from the isolated vertex: %v, %v", v.Name, res, err)
		}
	}
}

// TestEarlyExit checks that EarlyExit gives the same distances in fewer
// launches.
func TestEarlyExit(t *testing.T) {
	testDevice(t)
	g, err := graph.GNM(2000, 8000, graph.WeightRange{Min: 1, Max: 100}, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{VariantBFNaive, VariantBFStride, VariantBFFlag} {
		var full, early Stats
		a, err := SingleSource(context.Background(), name, g, 0, Options{Stats: &full})
		if err != nil {
			t.Fatal(err)
		}
		b, err := SingleSource(context.Background(), name, g, 0, Options{Stats: &early, EarlyExit: true})
		if err != nil {
			t.Fatal(err)
		}
		if !a.SameDistances(b) || early.Launches >= full.Launches/4 {
			t.Errorf("%s: early exit: same distances %v, %d launches against %d", name, a.SameDistances(b), early.Launches, full.Launches)
		}
		if full.Launches != 2*2000+1 {
			t.Errorf("%s: %d launches, want 2n+1 (init, n-1 passes, the check pass)", name, full.Launches)
		}
	}
}

// TestStats checks the run statistics.
func TestStats(t *testing.T) {
	d := testDevice(t)
	g, err := graph.GNM(100, 500, graph.WeightRange{Min: 1, Max: 9}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{VariantFWHN, VariantFWBlocked, VariantFWGaioso, VariantFWTiledGlobal} {
		var s Stats
		if _, err := AllPairs(context.Background(), name, g, Options{Pred: true, Stats: &s}); err != nil {
			t.Fatal(err)
		}
		t.Log(s)
		if s.Variant != name || s.Device != d.Info().Name || s.Launches != launchesOf(name, 100) ||
			s.Kernel <= 0 || s.HostToDevice <= 0 || s.DeviceToHost <= 0 || s.Wall < s.Kernel ||
			s.BytesToDevice != 2*100*100*4 || s.BytesToHost != 2*100*100*4 {
			t.Errorf("%s: implausible stats %+v", name, s)
		}
	}
}

// TestDeviceErrors checks the errors a user can meet on the device that
// leave it usable: a graph too large for its memory, a JIT failure with
// its log, a launch the driver refuses; after each the next run must work.
// (Illegal addresses: TestIllegalAddress.)
func TestDeviceErrors(t *testing.T) {
	d := testDevice(t)
	ctx := context.Background()
	small := mustGraph(t, 4, "0->1 1, 1->2 2, 2->3 3, 3->0 -1")
	ref, err := cpu.FloydWarshall(ctx, small, cpu.FWOptions{})
	if err != nil {
		t.Fatal(err)
	}
	works := func(after string) {
		t.Helper()
		res, err := FWBlocked(ctx, small, Options{Pred: true})
		if err != nil || !res.SameDistances(ref) {
			t.Errorf("after %s the next run fails: %v", after, err)
		}
	}

	_, total, err := d.MemInfo()
	if err != nil {
		t.Fatal(err)
	}
	n := 1
	for uint64(n)*uint64(n)*4 <= total {
		n *= 2
	}
	huge, err := graph.NewBuilder(n).Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := FWHN(ctx, huge, Options{}); err == nil || !strings.Contains(err.Error(), "of device memory, but") || !strings.Contains(err.Error(), "free of") {
		t.Errorf("FW on n=%d: %v, want bytes needed against free", n, err)
	}
	works("a graph too large")

	r, err := d.begin(ctx, "jit-test", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.ctx.LoadModule("broken", ".version 7.8\n.target sm_52\n.address_size 64\n.visible .entry broken()\n{\n\tbogus.instruction;\n}\n")
	r.end()
	var de *driver.Error
	if !errors.As(err, &de) || de.Log == "" || de.Sticky {
		t.Errorf("loading broken PTX: %v, want a non-sticky driver error with the JIT log", err)
	} else {
		t.Logf("JIT error as reported:\n%v", err)
	}
	works("a JIT failure")

	r, err = d.begin(ctx, "refused-launch", nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := d.function(ptx.FloydWarshall, "fw_hn")
	if err != nil {
		t.Fatal(err)
	}
	err = d.ctx.Launch(ctx, f, Dim(1, 1, 1), Dim(2048, 1, 1), 0, []uint64{i32(4), 0, 0, 0})
	r.end()
	if !errors.As(err, &de) || de.Sticky {
		t.Errorf("launching 2048 threads per block: %v, want a non-sticky driver error", err)
	} else {
		t.Logf("refused launch as reported: %v", err)
	}
	works("a refused launch")
}

// envIllegalChild makes the test binary, started again by
// TestIllegalAddress, run TestIllegalAddressChild.
const envIllegalChild = "PATHNOTES_GPU_TEST_ILLEGAL_CHILD"

// TestIllegalAddress provokes an illegal memory access in a child process
// (after one, the CUDA driver may refuse all further GPU work in the
// process) and checks what the user sees there.
func TestIllegalAddress(t *testing.T) {
	testDevice(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestIllegalAddressChild$", "-test.v")
	cmd.Env = append(os.Environ(), envIllegalChild+"=1")
	out, err := cmd.CombinedOutput()
	t.Logf("child:\n%s", out)
	if err != nil {
		t.Errorf("child failed: %v", err)
	}
}

// TestIllegalAddressChild runs only as TestIllegalAddress's child: fw_hn
// on a null matrix faults at its first load; the error must be sticky and
// say what happened, and the next run must either work or fail at once
// saying to restart.
func TestIllegalAddressChild(t *testing.T) {
	if os.Getenv(envIllegalChild) == "" {
		t.Skip("runs as the child process of TestIllegalAddress")
	}
	d := testDevice(t)
	ctx := context.Background()
	err := nullMatrixLaunch(t, d)
	var de *driver.Error
	if !errors.As(err, &de) || !de.Sticky || !strings.Contains(err.Error(), "CUDA_ERROR_ILLEGAL_ADDRESS") {
		t.Fatalf("fw_hn on a null pointer: %v, want a sticky illegal-address error", err)
	}
	t.Logf("illegal address as reported: %v", err)
	small := mustGraph(t, 3, "0->1 1, 1->2 1")
	for i := range 2 {
		start := time.Now()
		_, err := FWBlocked(ctx, small, Options{})
		switch {
		case err == nil:
			t.Logf("run %d after the fault: works (the context was rebuilt)", i+1)
		case strings.Contains(err.Error(), "restart the kernel"):
			t.Logf("run %d after the fault fails in %v, as it must when the driver refuses further work: %v", i+1, time.Since(start), err)
		default:
			t.Errorf("run %d after the fault: %v, want success or an error that says to restart", i+1, err)
		}
	}
}

// TestCancel checks that a cancelled context stops a run between launches
// and leaves the device usable.
func TestCancel(t *testing.T) {
	testDevice(t)
	const n = 8000
	g, err := graph.GNM(n, 5*n, graph.WeightRange{Min: 1, Max: 100}, 9)
	if err != nil {
		t.Fatal(err)
	}
	// fw-hn needs about 2 s for n = 8000 on an H100 (0.27 ms per launch),
	// after a few hundred ms of set-up: 600 ms falls in the launch loop.
	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
	defer cancel()
	var s Stats
	_, err = FWHN(ctx, g, Options{Stats: &s})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "interrupted after") {
		t.Errorf("FWHN with a 600 ms deadline: %v", err)
	}
	if s.Launches == 0 || s.Launches >= n {
		t.Errorf("cancelled run made %d of %d launches, want some but not all", s.Launches, n)
	}
	t.Logf("cancelled after %d of %d launches, %v", s.Launches, n, s.Wall)
	small := mustGraph(t, 3, "0->1 1, 1->2 1")
	if _, err := FWHN(context.Background(), small, Options{}); err != nil {
		t.Errorf("run after a cancelled one: %v", err)
	}
}

func mustLookup(t *testing.T, name string) Variant {
	t.Helper()
	v, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

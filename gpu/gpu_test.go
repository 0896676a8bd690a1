package gpu

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/gpu/driver"
	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/ptx"
)

// launchesOf returns the launches the variant called name makes for n
// vertices with predecessors.
func launchesOf(name string, n int) int {
	v, err := Lookup(name)
	if err != nil {
		panic(err)
	}
	return v.Launches(n, true)
}

// TestRegistry checks that every GPU variant is registered once, with all
// its facts, and runs through the right entry: the documents' variants
// first, then pathnotes' own by name. (TestVariantTables checks the doc
// tables against the registry, TestEmuLaunchCounts the launch counts
// against runs.)
func TestRegistry(t *testing.T) {
	var got, owns []string
	docs := true
	for _, v := range Variants() {
		if slices.Contains(got, v.Name) {
			t.Errorf("%s registered twice", v.Name)
		}
		got = append(got, v.Name)
		if v.Source == "" || v.Launch == "" || v.Algorithm == "" || v.summary == "" || v.from == "" {
			t.Errorf("%s: missing source, launch, algorithm, summary or from: %+v", v.Name, v)
		}
		if v.from == own {
			docs = false
			owns = append(owns, v.Name)
		} else if !docs {
			t.Errorf("%s follows a document but comes after pathnotes' own variants", v.Name)
		}
		if (v.all == nil) == (v.single == nil) {
			t.Errorf("%s: needs exactly one of an all-pairs and a single-source entry", v.Name)
		}
		if v.AllPairs != (v.all != nil) {
			t.Errorf("%s: AllPairs = %v but all-pairs entry present = %v", v.Name, v.AllPairs, v.all != nil)
		}
		if v.Negative != (v.Algorithm != "Dijkstra") {
			t.Errorf("%s: Negative = %v for %s", v.Name, v.Negative, v.Algorithm)
		}
		l, err := Lookup(v.Name)
		if err != nil || l.Name != v.Name {
			t.Errorf("Lookup(%q) = %v, %v", v.Name, l.Name, err)
		}
	}
	if !slices.IsSorted(owns) || len(owns) == 0 || len(got) < 16 {
		t.Errorf("variants %v: pathnotes' own %v not sorted, or missing", got, owns)
	}
	if _, err := Lookup("fw-magic"); err == nil || !strings.Contains(err.Error(), "fw-gaioso") {
		t.Errorf("Lookup(fw-magic) = %v, want an error listing the variants", err)
	}
	g := mustGraph(t, 3, "0->1 1")
	if _, err := AllPairs(context.Background(), "bf-flag", g, Options{}); err == nil || !strings.Contains(err.Error(), "SolveFrom") {
		t.Errorf("AllPairs(bf-flag) = %v, want a pointer to SolveFrom", err)
	}
	if _, err := SingleSource(context.Background(), "fw-hn", g, 0, Options{}); err == nil || !strings.Contains(err.Error(), "SolveAll") {
		t.Errorf("SingleSource(fw-hn) = %v, want a pointer to SolveAll", err)
	}
}

// TestArgumentChecks exercises the checks that come before any device is
// touched, so they give the same errors with or without a GPU.
func TestArgumentChecks(t *testing.T) {
	ctx := context.Background()
	neg := mustGraph(t, 3, "0->1 4, 1->2 -2")
	heavy := mustGraph(t, 4, "0->1 500000000, 1->2 1")
	for _, v := range Variants() {
		run := func(g *graph.Graph, source int) error {
			if v.AllPairs {
				_, err := v.SolveAll(ctx, g, Options{})
				return err
			}
			_, err := v.SolveFrom(ctx, g, source, Options{})
			return err
		}
		if err := run(nil, 0); err == nil || !strings.Contains(err.Error(), v.Name+": nil graph") {
			t.Errorf("%s(nil graph) = %v", v.Name, err)
		}
		if err := run(heavy, 0); err == nil || !strings.Contains(err.Error(), "beyond the int32 kernels' range") {
			t.Errorf("%s(heavy weights) = %v", v.Name, err)
		}
		if !v.Negative {
			if err := run(neg, 0); err == nil || !strings.Contains(err.Error(), "arc 1->2 has negative weight -2") {
				t.Errorf("%s(negative arc) = %v", v.Name, err)
			}
		}
		if !v.AllPairs {
			for _, s := range []int{-1, 3} {
				if err := run(neg, s); err == nil || !strings.Contains(err.Error(), "out of range 0..2") {
					t.Errorf("%s(source %d) = %v", v.Name, s, err)
				}
			}
		}
	}
}

// TestDriverSelection checks PATHNOTES_GPU's values.
func TestDriverSelection(t *testing.T) {
	t.Setenv(EnvDriver, "emu")
	if drv, err := driver.Active(); err != nil || drv.Name() != "emu" {
		t.Errorf("%s=emu: driver.Active() = %v, %v, want the emulator", EnvDriver, drv, err)
	}
	if d := Describe(); !strings.HasPrefix(d, "gpu driver: emu (") || !strings.Contains(d, "PATHNOTES_GPU=emu") {
		t.Errorf("%s=emu: Describe() = %q", EnvDriver, d)
	}
	for value, want := range map[string]string{
		"off":   "switched off by PATHNOTES_GPU=off",
		"metal": `PATHNOTES_GPU="metal": want cuda, emu or off`,
	} {
		t.Setenv(EnvDriver, value)
		if _, err := driver.Active(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s=%s: driver.Active() = %v, want %q", EnvDriver, value, err, want)
		}
		if d := Describe(); !strings.HasPrefix(d, "gpu driver: none (") || !strings.Contains(d, want) {
			t.Errorf("%s=%s: Describe() = %q", EnvDriver, value, d)
		}
		if _, err := FWHN(context.Background(), mustGraph(t, 2, "0->1 1"), Options{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s=%s: FWHN = %v", EnvDriver, value, err)
		}
	}
}

// TestGridArithmetic checks launch shapes against the numbers that follow from
// the documents' code.
func TestGridArithmetic(t *testing.T) {
	// [Bodra] §2.3: diagonal tiles of gnutella04/25/30; Super Naive
	// Shared's grid for gnutella04 is 11 × 10,876.
	for n, nb := range map[int]int{10876: 340, 22687: 709, 36682: 1147, 1: 1, 32: 1, 33: 2, 0: 0} {
		if got := tiles(n); got != nb {
			t.Errorf("tiles(%d) = %d, want %d", n, got, nb)
		}
	}
	if got := ceilDiv(10876, 1024); got != 11 {
		t.Errorf("fw-hn-shared grid x for gnutella04 = %d, want 11", got)
	}
	// [Bodra] §2.1: Bellman-Ford blocks on nyc (264,346 vertices) and e
	// (3,598,623): naive 259 and 3,515, stride half of that; the stride
	// grid's 0 for V ≤ 1024 is fixed to 1.
	for _, c := range []struct{ n, naive, stride int }{{264346, 259, 129}, {3598623, 3515, 1757}, {6, 1, 1}, {1024, 1, 1}, {1025, 2, 1}, {4096, 4, 2}} {
		if got := grid1D(c.n, 1024).X; got != c.naive {
			t.Errorf("naive grid for V=%d: %d blocks, want %d", c.n, got, c.naive)
		}
		if got := strideGrid(c.n).X; got != c.stride {
			t.Errorf("stride grid for V=%d: %d blocks, want %d", c.n, got, c.stride)
		}
	}
	// [Gaioso et al.] §V: launches for n = 8192 with 32-wide tiles.
	for v, want := range map[string]int{VariantFWGaioso: 512, VariantFWBlocked: 768, VariantFWTiledGlobal: 768, VariantFWHN: 8192, VariantFWRow: 8192} {
		if got := launchesOf(v, 8192); got != want {
			t.Errorf("%s makes %d launches for n = 8192, want %d", v, got, want)
		}
	}
	if got := launchesOf(VariantFWBlocked, 20); got != 1 {
		t.Errorf("fw-blocked with one tile makes %d launches, want 1 (phases 2 and 3 skipped)", got)
	}
	for _, v := range Variants() {
		if got := v.Launches(100, true); (v.Algorithm == "Floyd-Warshall") != (got > 0) || (got <= 0 && got != -1) {
			t.Errorf("%s (%s).Launches(100) = %d", v.Name, v.Algorithm, got)
		}
	}
	// Gaioso's persistent grid: SMs × resident blocks, capped by the
	// 2(nb-1) tiles of the primary row and column, at least 1.
	for _, c := range []struct{ sms, perSM, nb, want int }{{14, 1, 256, 14}, {132, 2, 512, 264}, {132, 2, 3, 4}, {132, 2, 1, 1}, {132, 0, 100, 132}} {
		if got := gaiosoBlocks(c.sms, c.perSM, c.nb); got != c.want {
			t.Errorf("gaiosoBlocks(%d, %d, %d) = %d, want %d", c.sms, c.perSM, c.nb, got, c.want)
		}
	}
}

// TestCheckLaunch checks the shape limits against an H100's.
func TestCheckLaunch(t *testing.T) {
	h100 := DeviceInfo{MaxThreadsPerBlock: 1024, SharedPerBlock: 48 << 10,
		MaxBlock: [3]int{1024, 1024, 64}, MaxGrid: [3]int{1<<31 - 1, 65535, 65535}}
	ok := []struct {
		grid, block Dim3
		shared      int
	}{{Dim(1, 1, 1), block2D, 3 * tileBytes}, {Dim(36, 36682, 1), block1024, 0}, {Dim(1147, 1147, 1), block2D, 0}}
	for _, c := range ok {
		if err := checkLaunch(h100, c.grid, c.block, c.shared); err != nil {
			t.Errorf("checkLaunch(%v, %v, %d) = %v", c.grid, c.block, c.shared, err)
		}
	}
	bad := []struct {
		grid, block Dim3
		shared      int
		want        string
	}{
		{Dim(1, 70000, 1), block1024, 0, "grid (1,70000,1) is outside"},
		{Dim(0, 1, 1), block1024, 0, "grid (0,1,1) is outside"},
		{Dim(1, 1, 1), Dim(2048, 1, 1), 0, "block (2048,1,1) is outside"},
		{Dim(1, 1, 1), Dim(64, 32, 1), 0, "has 2048 threads"},
		{Dim(1, 1, 1), block2D, 64 << 10, "65536 bytes of shared memory"},
	}
	for _, c := range bad {
		if err := checkLaunch(h100, c.grid, c.block, c.shared); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("checkLaunch(%v, %v, %d) = %v, want %q", c.grid, c.block, c.shared, err, c.want)
		}
	}
}

// TestInitialPred checks Π⁰ on Karaula's Fig 3.1 ([Karaula 2017] §3.1, k=0,
// 1-based there, 0-based here).
func TestInitialPred(t *testing.T) {
	g, err := graph.Example("karaula-fig3.1")
	if err != nil {
		t.Fatal(err)
	}
	want := []int32{
		-1, 0, -1, 0, -1,
		-1, -1, 1, -1, -1,
		2, -1, -1, -1, 2,
		-1, -1, 3, -1, 3,
		4, 4, -1, -1, -1,
	}
	if got := initialPred(g.Dense(), g.N()); !slices.Equal(got, want) {
		t.Errorf("Π⁰ = %v, want %v", got, want)
	}
}

// TestCheckResult checks that unwritten and out-of-range cells are caught.
func TestCheckResult(t *testing.T) {
	if err := checkResult([]int32{0, graph.Inf, -graph.MaxDistance, graph.MaxDistance}, 2, false, "x"); err != nil {
		t.Errorf("valid matrix: %v", err)
	}
	if err := checkResult([]int32{0, int32(poison), 3, 0}, 2, false, "fw-x"); err == nil || !strings.Contains(err.Error(), "fw-x: internal error: dist[0][1] was never written") {
		t.Errorf("poisoned cell: %v", err)
	}
	if err := checkResult([]int32{0, 1, graph.MaxDistance + 1}, 3, true, "bf-x"); err == nil || !strings.Contains(err.Error(), "dist[2] = 1073741824 is beyond") {
		t.Errorf("out of range: %v", err)
	}
}

// TestNegativeCycleSearch checks the host search that names the cycle once
// a kernel has seen one, with and without starting distances.
func TestNegativeCycleSearch(t *testing.T) {
	g := mustGraph(t, 5, "0->1 2, 1->2 1, 2->3 -4, 3->1 1, 3->4 1")
	for _, start := range [][]int32{nil, {0, 2, 3, -1, 0}} {
		err := negativeCycle(context.Background(), g, start, 4)
		var nc *graph.NegativeCycleError
		if !errors.As(err, &nc) {
			t.Fatalf("start %v: %v, want a *graph.NegativeCycleError", start, err)
		}
		if len(nc.Cycle) != 3 || nc.Weight != -2 || !slices.Contains(nc.Cycle, nc.Vertex) {
			t.Errorf("start %v: cycle %v weight %d through %d, want the 3-cycle 1,2,3 of weight -2", start, nc.Cycle, nc.Weight, nc.Vertex)
		}
		for _, v := range nc.Cycle {
			if v < 1 || v > 3 {
				t.Errorf("start %v: vertex %d is not on the cycle", start, v)
			}
		}
	}
	// Distances from a source that cannot reach the cycle: nothing to find,
	// so the kernel's hint is reported.
	err := negativeCycle(context.Background(), g, []int32{graph.Inf, graph.Inf, graph.Inf, graph.Inf, 0}, 4)
	var nc *graph.NegativeCycleError
	if !errors.As(err, &nc) || nc.Vertex != 4 || nc.Cycle != nil {
		t.Errorf("unreachable cycle: %v", err)
	}
}

// TestStatsString checks the one-line summary.
func TestStatsString(t *testing.T) {
	s := Stats{Variant: "fw-hn", Device: "H100", Launches: 3, BytesToDevice: 4096}
	if got := s.String(); !strings.Contains(got, "fw-hn on H100") || !strings.Contains(got, "3 launches") || !strings.Contains(got, "4 KiB") {
		t.Errorf("Stats.String() = %q", got)
	}
}

// mustGraph parses arcs on n vertices.
func mustGraph(t testing.TB, n int, arcs string) *graph.Graph {
	t.Helper()
	return buildArcs(t, graph.NewBuilder(n), arcs)
}

// buildArcs adds arcs ("u->v w, ...") to b and builds the graph.
func buildArcs(t testing.TB, b *graph.Builder, arcs string) *graph.Graph {
	t.Helper()
	for _, a := range strings.Split(arcs, ",") {
		var u, v int
		var w int32
		if _, err := fmt.Sscanf(strings.TrimSpace(a), "%d->%d %d", &u, &v, &w); err != nil {
			t.Fatalf("arc %q: %v", a, err)
		}
		b.AddArc(u, v, w)
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// fakeContext is a driver.Context without a GPU: a fixed amount of memory and
// allocations that succeed (no copies or launches), for the checks that
// come before any kernel runs and for the handling of driver errors.
type fakeContext struct {
	free, total uint64
	launchErr   error // what Launch returns
	resetErr    error // what Reset returns
	resets      int
}

var errFake = errors.New("fake context: not supported")

func (f *fakeContext) MemInfo() (uint64, uint64, error)                    { return f.free, f.total, nil }
func (f *fakeContext) HostAlloc(n uint64) ([]byte, error)                  { return make([]byte, n), nil }
func (f *fakeContext) HostFree([]byte) error                               { return nil }
func (f *fakeContext) Alloc(uint64) (DevicePtr, error)                     { return 4096, nil }
func (f *fakeContext) Free(DevicePtr) error                                { return nil }
func (f *fakeContext) CopyIn(DevicePtr, []int32) error                     { return nil }
func (f *fakeContext) CopyOut([]int32, DevicePtr) error                    { return errFake }
func (f *fakeContext) Memset32(DevicePtr, uint32, uint64) error            { return nil }
func (f *fakeContext) LoadModule(string, string) (driver.Module, error)    { return 1, nil }
func (f *fakeContext) Function(driver.Module, string) (driver.Func, error) { return 1, nil }
func (f *fakeContext) MaxActiveBlocks(driver.Func, int, int) (int, error) {
	return 1, nil
}
func (f *fakeContext) Launch(context.Context, driver.Func, Dim3, Dim3, int, []uint64) error {
	return f.launchErr
}
func (f *fakeContext) Synchronize() error                                        { return nil }
func (f *fakeContext) NewEvent() (driver.Event, error)                           { return 1, nil }
func (f *fakeContext) Record(driver.Event) error                                 { return nil }
func (f *fakeContext) Elapsed(driver.Event, driver.Event) (time.Duration, error) { return 0, nil }
func (f *fakeContext) DestroyEvent(driver.Event) error                           { return nil }
func (f *fakeContext) Reset() error                                              { f.resets++; return f.resetErr }
func (f *fakeContext) NewStream() (driver.Stream, error)                         { return 1, nil }
func (f *fakeContext) DestroyStream(driver.Stream) error                         { return nil }
func (f *fakeContext) LaunchOn(context.Context, driver.Stream, driver.Func, Dim3, Dim3, int, []uint64) error {
	return f.launchErr
}
func (f *fakeContext) CopyInAsync(DevicePtr, []byte, driver.Stream) error  { return nil }
func (f *fakeContext) CopyOutAsync([]byte, DevicePtr, driver.Stream) error { return errFake }
func (f *fakeContext) CopyIn2DAsync(DevicePtr, int, []byte, int, int, int, driver.Stream) error {
	return nil
}
func (f *fakeContext) CopyOut2DAsync([]byte, int, DevicePtr, int, int, int, driver.Stream) error {
	return errFake
}
func (f *fakeContext) RecordOn(driver.Event, driver.Stream) error       { return nil }
func (f *fakeContext) WaitEvent(driver.Stream, driver.Event) error      { return nil }
func (f *fakeContext) SyncStream(driver.Stream) error                   { return nil }
func (f *fakeContext) SyncEvent(driver.Event) error                     { return nil }
func (f *fakeContext) WaitValue(driver.Stream, DevicePtr, uint32) error { return nil }
func (f *fakeContext) HostRegister([]byte) error                        { return nil }
func (f *fakeContext) HostUnregister([]byte) error                      { return nil }

func fakeDevice(ctx driver.Context) *Device {
	d := &Device{info: DeviceInfo{Name: "Fake GPU", MaxThreadsPerBlock: 1024, SharedPerBlock: 48 << 10,
		MaxBlock: [3]int{1024, 1024, 64}, MaxGrid: [3]int{1<<31 - 1, 65535, 65535}}, ctx: ctx}
	d.forget()
	return d
}

// TestDeviceMemoryCheck checks that a graph too large for the device's free
// memory is refused before anything is allocated, naming both sizes.
func TestDeviceMemoryCheck(t *testing.T) {
	d := fakeDevice(&fakeContext{free: 3 << 20, total: 80 << 30})
	g, err := graph.NewBuilder(1000).Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		want string
	}{
		{VariantFWBlocked, "fw-blocked: n=1000 (2 int32 matrices) needs 7.63 MiB of device memory, but Fake GPU (device 0) has 3 MiB free of 80 GiB"},
		{VariantDijkstraAPSP, "dijkstra-apsp-row: n=1000 (3 int32 matrices and a byte matrix) needs 12.4 MiB of device memory"},
	} {
		_, err := AllPairs(context.Background(), c.name, g, Options{Pred: true, Device: d})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestStickyErrors checks what follows a sticky driver error: the device
// resets its context at once; when the reset fails, every later run fails
// without touching the driver and says to restart; a non-sticky error
// leaves the device usable.
func TestStickyErrors(t *testing.T) {
	g := mustGraph(t, 3, "0->1 1, 1->2 1")
	sticky := &driver.Error{Op: "cuLaunchKernel", Code: 700, Name: "CUDA_ERROR_ILLEGAL_ADDRESS", Sticky: true}

	ok := &fakeContext{free: 1 << 30, total: 1 << 30, launchErr: sticky}
	d := fakeDevice(ok)
	_, err := FWHN(context.Background(), g, Options{Device: d})
	if !errors.As(err, new(*driver.Error)) || !strings.Contains(err.Error(), "context has been reset") || ok.resets != 1 || d.lost != nil {
		t.Errorf("sticky error with a working reset: %v (resets %d, lost %v)", err, ok.resets, d.lost)
	}

	broken := &fakeContext{free: 1 << 30, total: 1 << 30, launchErr: sticky, resetErr: errFake}
	d = fakeDevice(broken)
	_, err = FWHN(context.Background(), g, Options{Device: d})
	if err == nil || !strings.Contains(err.Error(), "restart the kernel") || d.lost == nil {
		t.Errorf("sticky error with a failing reset: %v", err)
	}
	broken.launchErr = nil
	for range 2 {
		if _, err := FWBlocked(context.Background(), g, Options{Device: d}); err == nil || !strings.Contains(err.Error(), "is unusable in this process") {
			t.Errorf("run on a lost device: %v", err)
		}
	}
	if broken.resets != 1 {
		t.Errorf("a lost device was reset %d times, want 1", broken.resets)
	}

	refused := &fakeContext{free: 1 << 30, total: 1 << 30, launchErr: &driver.Error{Op: "cuLaunchKernel", Code: 1, Name: "CUDA_ERROR_INVALID_VALUE"}}
	d = fakeDevice(refused)
	if _, err := FWHN(context.Background(), g, Options{Device: d}); err == nil || refused.resets != 0 || d.lost != nil {
		t.Errorf("non-sticky error: %v (resets %d)", err, refused.resets)
	}
}

// nullMatrixLaunch runs fw_hn on d with null matrices, which faults at
// the first load, and returns the run's error.
func nullMatrixLaunch(t *testing.T, d *Device) error {
	t.Helper()
	r, err := d.begin(context.Background(), "bad-launch", nil)
	if err != nil {
		t.Fatal(err)
	}
	err = r.kernels(func() error {
		return r.launch(ptx.FloydWarshall, "fw_hn", Dim(4, 4, 1), block2D, 0, i32(128), i32(0), 0, 0)
	})
	r.end()
	return err
}

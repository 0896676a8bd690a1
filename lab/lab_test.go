package lab

import (
	"context"
	_ "embed"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/gpu/cells"
)

// studentPTX holds the kernels of testdata/student.cu: correct ones and
// ones with planted bugs, compiled once so that the tests need no CUDA
// compiler.
//
//go:embed testdata/student.ptx
var studentPTX string

// student loads the test kernels on the emulator.
func student(t *testing.T) (*gpu.Device, *cells.Module) {
	t.Helper()
	t.Setenv(gpu.EnvDriver, "emu")
	dev, err := gpu.Default()
	if err != nil {
		t.Fatal(err)
	}
	m, err := cells.LoadPTX(dev, "student", studentPTX)
	if err != nil {
		t.Fatal(err)
	}
	return dev, m
}

// perPivot is a one-launch-per-k Floyd-Warshall with kernel name on 2-D
// blocks of 16×16 threads.
func perPivot(t *testing.T, m *cells.Module, name string) APSPFunc {
	k, err := m.Kernel(name)
	if err != nil {
		t.Fatal(err)
	}
	return func(dev *gpu.Device, d *cells.Buffer, n int) error {
		grid := gpu.Dim((n+15)/16, (n+15)/16)
		for p := 0; p < n; p++ {
			if err := k.Launch(grid, gpu.Dim(16, 16), d, n, p); err != nil {
				return err
			}
		}
		return nil
	}
}

// tiled is the 3-kernel tiled Floyd-Warshall of testdata/student.cu with
// rounds tiles per side; ceil says whether the last partial tile counts.
func tiled(t *testing.T, m *cells.Module, ceil bool) APSPFunc {
	var ks [3]*cells.Kernel
	for i, name := range []string{"tiledPhase1", "tiledPhase2", "tiledPhase3"} {
		k, err := m.Kernel(name)
		if err != nil {
			t.Fatal(err)
		}
		ks[i] = k
	}
	return func(dev *gpu.Device, d *cells.Buffer, n int) error {
		nb := n / 32
		if ceil {
			nb = (n + 31) / 32
		}
		block := gpu.Dim(32, 32)
		for r := 0; r < nb; r++ {
			for i, grid := range []gpu.Dim3{gpu.Dim(1), gpu.Dim(nb, 2), gpu.Dim(nb, nb)} {
				if err := ks[i].Launch(grid, block, d, n, r); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

// small keeps the emulator's work short: sizes around a tile and a
// 16-wide block.
var small = CheckOptions{Sizes: []int{1, 2, 31, 32, 33, 50}, Negative: true}

func TestCheckAPSPCorrect(t *testing.T) {
	_, m := student(t)
	for _, name := range []string{"fw2d", "tiled"} {
		fn := perPivot(t, m, "fw2d")
		if name == "tiled" {
			fn = tiled(t, m, true)
		}
		rep, err := CheckAPSP(context.Background(), fn, small)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, rep)
		}
		if got, want := len(rep.Cases), 6*3; got != want {
			t.Errorf("%s: %d cases, want %d (6 sizes × sparse, dense, negative)", name, got, want)
		}
		if !rep.OK() || rep.First() != nil || !strings.Contains(rep.String(), "all 18 cases ok") {
			t.Errorf("%s: report says failure:\n%s", name, rep)
		}
	}
}

func TestCheckAPSPOffByOne(t *testing.T) {
	dev, m := student(t)
	rep, err := CheckAPSP(context.Background(), perPivot(t, m, "fw2dOffByOne"), small)
	if err == nil {
		t.Fatalf("a kernel that skips row n-1 passed:\n%s", rep)
	}
	c := rep.First()
	if c == nil || c.Mismatch == nil {
		t.Fatalf("no first mismatch:\n%s", rep)
	}
	mm := c.Mismatch
	// Recompute the case outside the checker: rebuild its graph, run the
	// kernel on a plain buffer and find the first differing cell.
	fam := map[string]family{"sparse": sparse, "dense": dense, "negative": negative}[c.Graph]
	g, err2 := fam.build(c.N, c.Seed)
	if err2 != nil {
		t.Fatal(err2)
	}
	want, err2 := cpu.FloydWarshall(context.Background(), g, cpu.FWOptions{})
	if err2 != nil {
		t.Fatal(err2)
	}
	d, err2 := cells.GraphMatrix(dev, g)
	if err2 != nil {
		t.Fatal(err2)
	}
	if err2 := perPivot(t, m, "fw2dOffByOne")(dev, d, c.N); err2 != nil {
		t.Fatal(err2)
	}
	got, err2 := d.ToInt32s()
	if err2 != nil {
		t.Fatal(err2)
	}
	first := -1
	for x := range want.Dist {
		if got[x] != want.Dist[x] {
			first = x
			break
		}
	}
	if first < 0 {
		t.Fatalf("the kernel is right on %s n=%d outside the checker", c.Graph, c.N)
	}
	if mm.I != first/c.N || mm.J != first%c.N || mm.Expected != want.Dist[first] || mm.Actual != got[first] {
		t.Errorf("first mismatch %+v, want cell (%d, %d): expected %d, got %d", mm, first/c.N, first%c.N, want.Dist[first], got[first])
	}
	// row n-1 never changes, so every wrong cell there is its input value
	for j := range c.N {
		x := (c.N-1)*c.N + j
		if got[x] != g.Dense()[x] {
			t.Errorf("the planted bug wrote row n-1 at column %d", j)
		}
	}
	if mm.N != c.N || mm.Graph != c.Graph || mm.Wrong < 1 {
		t.Errorf("mismatch %+v inconsistent with its case %+v", mm, *c)
	}
	if !strings.Contains(err.Error(), c.Graph) || !strings.Contains(err.Error(), "cell (") {
		t.Errorf("error does not name the graph and the cell: %v", err)
	}
}

func TestCheckAPSPMissingLastTile(t *testing.T) {
	_, m := student(t)
	rep, err := CheckAPSP(context.Background(), tiled(t, m, false), small)
	if err == nil {
		t.Fatalf("a tiled kernel without the last partial tile passed:\n%s", rep)
	}
	// n = 31 has no full tile, so nothing runs: its first failure is a
	// cell left as the input. n = 32 is one whole tile and passes. n = 33
	// and 50 miss the pivots of their last partial tile: every wrong cell
	// is too long, since what did run only took minima over real paths.
	first := rep.First()
	if first.N != 31 || first.Mismatch == nil || !strings.Contains(first.Mismatch.Note, "unchanged since the input") {
		t.Errorf("first failure %s n=%d: %s; want n=31, a cell left as the input", first.Graph, first.N, first.Result())
	}
	for _, c := range rep.Cases {
		switch {
		case c.N == 32 && !c.OK():
			t.Errorf("%s n=32 (one whole tile) failed: %s", c.Graph, c.Result())
		case c.N > 32 && c.Mismatch == nil:
			t.Errorf("%s n=%d passed without its last partial tile", c.Graph, c.N)
		case c.N > 32 && c.Mismatch.Actual <= c.Mismatch.Expected:
			t.Errorf("%s n=%d: missing pivots left a cell shorter than its distance: %s", c.Graph, c.N, c.Result())
		}
	}
}

func TestCheckAPSPNothingWritten(t *testing.T) {
	_, m := student(t)
	rep, err := CheckAPSP(context.Background(), perPivot(t, m, "nothing"), small)
	if err == nil {
		t.Fatalf("a kernel that does nothing passed:\n%s", rep)
	}
	mm := rep.First().Mismatch
	if mm == nil || !strings.Contains(mm.Note, "unchanged since the input") {
		t.Errorf("first mismatch %+v does not say the cell was left as the input", mm)
	}
	if !rep.NotStarted() {
		t.Errorf("a kernel that writes nothing: NotStarted is false\n%s", rep)
	}
	for _, c := range rep.Cases {
		if !c.Untouched {
			t.Errorf("%s n=%d: not marked untouched, though the kernel writes nothing", c.Graph, c.N)
		}
	}
}

// TestNotStartedOnlyWhenNothingWritten checks that a kernel which writes
// something, right or wrong, is not reported as not started, and that a
// case it wrote is not marked untouched.
func TestNotStartedOnlyWhenNothingWritten(t *testing.T) {
	_, m := student(t)
	for _, c := range []struct {
		name string
		fn   APSPFunc
	}{
		{"correct", perPivot(t, m, "fw2d")},
		{"off by one", perPivot(t, m, "fw2dOffByOne")},
		{"missing last tile", tiled(t, m, false)},
	} {
		rep, _ := CheckAPSP(context.Background(), c.fn, small)
		if rep.NotStarted() {
			t.Errorf("%s: NotStarted is true\n%s", c.name, rep)
		}
		for _, k := range rep.Cases {
			if k.Untouched && k.N > 32 {
				t.Errorf("%s: %s n=%d marked untouched", c.name, k.Graph, k.N)
			}
		}
	}
	if (*Report)(nil).NotStarted() {
		t.Error("a nil report is NotStarted")
	}
}

func TestCheckAPSPWrapAndGuard(t *testing.T) {
	_, m := student(t)
	rep, err := CheckAPSP(context.Background(), perPivot(t, m, "fw2dNoGuard"), small)
	if err == nil {
		t.Fatal("a kernel adding Inf without a guard passed")
	}
	if mm := rep.First().Mismatch; mm == nil || mm.Actual >= 0 || !strings.Contains(mm.Note, "wrapped") {
		t.Errorf("Inf + w: first mismatch %+v is not a wrapped negative value", mm)
	}

	rep, err = CheckAPSP(context.Background(), perPivot(t, m, "fw2dNoBounds"), small)
	if err == nil {
		t.Fatal("a kernel without bounds checks passed")
	}
	c := rep.First()
	// n = 1: the 16×16 block's threads relax cells past the single cell.
	// Cell 1 stays: its sum d[0] + d[1] is poison, not below it; thread
	// (1, 1) writes cell 2 with d[1] + d[1], poison + poison wrapped.
	if c.N != 1 || c.Mismatch == nil || c.Mismatch.Expected != Poison || !strings.Contains(c.Mismatch.Note, "past the end") {
		t.Fatalf("first failure %+v is not a write past the end at n=1", c)
	}
	p := Poison
	wrapped := p + p // wraps round, as int in CUDA does
	if mm := c.Mismatch; mm.I != 2 || mm.J != 0 || mm.Actual != wrapped {
		t.Errorf("first write past the end %+v, want (2, 0) holding %d", mm, wrapped)
	}
}

func TestCheckAPSPFunctionError(t *testing.T) {
	_, _ = student(t)
	calls := 0
	boom := errors.New("boom")
	rep, err := CheckAPSP(context.Background(), func(dev *gpu.Device, d *cells.Buffer, n int) error {
		calls++
		return boom
	}, small)
	if !errors.Is(err, boom) && !strings.Contains(err.Error(), "boom") {
		t.Fatalf("error %v does not carry the function's error", err)
	}
	if calls != 1 {
		t.Errorf("function called %d times after its first error, want 1", calls)
	}
	if rep.Cases[0].Err == nil || !rep.Cases[1].NotRun || rep.Failed() != len(rep.Cases) {
		t.Errorf("after an error the other cases should be not run:\n%s", rep)
	}
	if _, err := CheckAPSP(context.Background(), nil, small); err == nil {
		t.Error("a nil function was accepted")
	}
	noop := func(dev *gpu.Device, d *cells.Buffer, n int) error { return nil }
	if _, err := CheckAPSP(context.Background(), noop, CheckOptions{Sizes: []int{0}}); err == nil {
		t.Error("size 0 was accepted")
	}
}

func TestCheckAPSPKernelFault(t *testing.T) {
	dev, m := student(t)
	k, err := m.Kernel("fw2d")
	if err != nil {
		t.Fatal(err)
	}
	small := CheckOptions{Sizes: []int{2, 3}}
	rep, err := CheckAPSP(context.Background(), func(dev *gpu.Device, d *cells.Buffer, n int) error {
		// a huge n makes the kernel read far outside the buffer
		return k.Launch(gpu.Dim(1), gpu.Dim(4), d, 1<<20, 1<<19)
	}, small)
	// gpu's Kernel.Launch waits for the kernel and returns its fault.
	if err == nil || rep.Cases[0].Err == nil || !strings.Contains(rep.Cases[0].Err.Error(), "kernel fw2d <<<(1,1,1),(4,1,1)>>>: cudaErrorIllegalAddress (700)") {
		t.Fatalf("a faulting kernel: err %v, report\n%s", err, rep)
	}
	if !rep.Cases[1].NotRun {
		t.Errorf("the check went on after a fault:\n%s", rep)
	}
	if _, err := cells.NewBuffer(dev, cells.Int32, 4); err != nil {
		t.Errorf("the device is unusable after the fault: %v", err)
	}
}

// bellmanFord is a student's SSSP: an init kernel, then relax rounds until
// nothing changes.
func bellmanFord(t *testing.T, m *cells.Module, initName string) SSSPFunc {
	init, err := m.Kernel(initName)
	if err != nil {
		t.Fatal(err)
	}
	relax, err := m.Kernel("ssspRelax")
	if err != nil {
		t.Fatal(err)
	}
	return func(dev *gpu.Device, off, tgt, w, dist *cells.Buffer, n, source int) error {
		changed, err := cells.NewBuffer(dev, cells.Int32, 1)
		if err != nil {
			return err
		}
		defer changed.Free()
		grid := gpu.Dim((n + 63) / 64)
		if err := init.Launch(grid, gpu.Dim(64), dist, n, source); err != nil {
			return err
		}
		for round := 0; round < n; round++ {
			if err := changed.Fill(0); err != nil {
				return err
			}
			if err := relax.Launch(grid, gpu.Dim(64), off, tgt, w, dist, n, changed); err != nil {
				return err
			}
			c, err := changed.ToInt32s()
			if err != nil {
				return err
			}
			if c[0] == 0 {
				break
			}
		}
		return nil
	}
}

func TestCheckSSSP(t *testing.T) {
	_, m := student(t)
	opts := CheckOptions{Sizes: []int{1, 2, 33, 100}}
	rep, err := CheckSSSP(context.Background(), bellmanFord(t, m, "ssspInit"), opts)
	if err != nil {
		t.Fatalf("correct SSSP failed: %v\n%s", err, rep)
	}
	// sizes 1 has one source, the others two; two graph families each
	if got, want := len(rep.Cases), 2*(1+2+2+2); got != want {
		t.Errorf("%d cases, want %d", got, want)
	}

	rep, err = CheckSSSP(context.Background(), bellmanFord(t, m, "ssspInitOffByOne"), opts)
	if err == nil {
		t.Fatalf("an init kernel that skips vertex n-1 passed:\n%s", rep)
	}
	c := rep.First()
	// n = 1: the source itself is never written.
	if c.N != 1 || c.Mismatch == nil {
		t.Fatalf("first failure %+v, want the n=1 case with a mismatch", c)
	}
	if mm := c.Mismatch; mm.I != 0 || mm.J != 0 || mm.Expected != 0 || mm.Actual != Poison || !strings.Contains(mm.Note, "never written") {
		t.Errorf("first mismatch %+v, want vertex 0 from 0: expected 0, never written", mm)
	}
}

func TestTimeAPSP(t *testing.T) {
	_, m := student(t)
	sizes := []int{20, 40}
	tm, err := TimeAPSP(context.Background(), []APSPEntry{
		{"naive 2-D", perPivot(t, m, "fw2d")},
		{"tiled", tiled(t, m, true)},
	}, sizes, TimeOptions{Variants: []string{gpu.VariantFWHN, gpu.VariantFWBlocked}})
	if err != nil {
		t.Fatalf("%v\n%s", err, tm)
	}
	want := []string{"fw-cpu-blocked", "fw-hn", "fw-blocked", "naive 2-D", "tiled"}
	if strings.Join(tm.Names, ",") != strings.Join(want, ",") {
		t.Errorf("columns %v, want %v", tm.Names, want)
	}
	for _, name := range tm.Names {
		for i, s := range tm.Seconds[name] {
			if !(s > 0) || math.IsInf(s, 0) {
				t.Errorf("%s at n=%d: %v s", name, sizes[i], s)
			}
		}
		if got := tm.At(name, sizes[1]); got != tm.Seconds[name][1] {
			t.Errorf("At(%q, %d) = %v, want %v", name, sizes[1], got, tm.Seconds[name][1])
		}
		if name != tm.Baseline {
			for i, x := range tm.Speedup(name) {
				if want := tm.Seconds[tm.Baseline][i] / tm.Seconds[name][i]; x != want {
					t.Errorf("%s speed-up at n=%d: %v, want %v", name, sizes[i], x, want)
				}
			}
		}
	}
	if !math.IsNaN(tm.At("naive 2-D", 30)) || !math.IsNaN(tm.At("nonesuch", 20)) {
		t.Error("At of a size or solver that did not run is not NaN")
	}
	text := tm.String()
	for _, s := range []string{"naive 2-D speed-up", "fw-hn speed-up", "emulator time", "host clock"} {
		if !strings.Contains(text, s) {
			t.Errorf("table lacks %q:\n%s", s, text)
		}
	}
	if err := tm.Table().Err(); err != nil {
		t.Error(err)
	}
	if err := tm.Plot().Err(); err != nil {
		t.Error(err)
	}
	if err := tm.SpeedupPlot().Err(); err != nil {
		t.Error(err)
	}

	// a wrong function is a failure, shown in the table
	tm, err = TimeAPSP(context.Background(), []APSPEntry{{"skipped row", perPivot(t, m, "fw2dOffByOne")}}, []int{40}, TimeOptions{Variants: []string{}})
	if err == nil || !strings.Contains(err.Error(), "skipped row at n=40: wrong result") || !strings.Contains(err.Error(), "the first at cell (") {
		t.Fatalf("a wrong function timed without failure: %v", err)
	}
	if !math.IsInf(tm.Seconds["skipped row"][0], 1) || !strings.Contains(tm.String(), "failed") {
		t.Errorf("the failure is not in the table:\n%s", tm)
	}
	// with repeats, every run is checked and the fastest kept
	tm, err = TimeAPSP(context.Background(), []APSPEntry{{"naive 2-D", perPivot(t, m, "fw2d")}, {"skipped row", perPivot(t, m, "fw2dOffByOne")}},
		[]int{20}, TimeOptions{Variants: []string{}, Repeats: 2})
	if err == nil || !strings.Contains(err.Error(), "skipped row at n=20: run 1 of 2: wrong result") || !(tm.At("naive 2-D", 20) > 0) {
		t.Errorf("two repeats: %v\n%s", err, tm)
	}
	tm, err = TimeAPSP(context.Background(), []APSPEntry{{"skipped row", perPivot(t, m, "fw2dOffByOne")}}, []int{40}, TimeOptions{Variants: []string{}, SkipCPU: true})
	if err != nil || !math.IsNaN(tm.At(tm.Baseline, 40)) || !(tm.At("skipped row", 40) > 0) {
		t.Errorf("without the CPU the result goes unchecked and the baseline untimed: err %v\n%s", err, tm)
	}
	if text := tm.String(); strings.Contains(text, "fw-cpu-blocked") || strings.Contains(text, "speed-up (") || !strings.Contains(text, "no CPU baseline") {
		t.Errorf("a table without a baseline shows its column or speed-ups:\n%s", text)
	}
	if _, err := TimeAPSP(context.Background(), nil, []int{8}, TimeOptions{Variants: []string{"fw-nonesuch"}}); err == nil {
		t.Error("an unknown variant was accepted")
	}
}

func TestTimeSSSP(t *testing.T) {
	_, m := student(t)
	tm, err := TimeSSSP(context.Background(), []SSSPEntry{{"bellman-ford", bellmanFord(t, m, "ssspInit")}}, []int{50, 200}, TimeOptions{})
	if err != nil {
		t.Fatalf("%v\n%s", err, tm)
	}
	want := []string{"dijkstra-cpu", "dijkstra-martin", "sssp-fast", "bellman-ford"}
	if strings.Join(tm.Names, ",") != strings.Join(want, ",") {
		t.Errorf("columns %v, want %v", tm.Names, want)
	}
	for _, name := range tm.Names {
		for i, s := range tm.Seconds[name] {
			if !(s > 0) || math.IsInf(s, 0) {
				t.Errorf("%s at size %d: %v s", name, i, s)
			}
		}
	}
}

func TestCheckCancelled(t *testing.T) {
	_, m := student(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := CheckAPSP(ctx, perPivot(t, m, "fw2d"), small); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled check: %v", err)
	}
}

package cells

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/graph"
)

// Kernel faults of the cell API and who reports them: the kernel's own
// launch (cells.Launch), or Synchronize after cells.LaunchAsync; never a solver
// that runs next. The checks use the default device and the registry, as a
// notebook does; the emulator runs them here, the card in
// cell_fault_cuda_test.go.

// TestCellLaunchFault: an out-of-bounds store launched with cells.Launch is
// that launch's error, naming the kernel, block, thread and PTX line; the
// next gpu.AllPairs runs and gives the CPU's distances.
func TestCellLaunchFault(t *testing.T) {
	t.Setenv(gpu.EnvDriver, "emu")
	checkLaunchFault(t)
}

// TestCellAsyncFault: with cells.LaunchAsync, Synchronize reports the fault
// naming the kernel, and a solver started while the fault is pending says
// that an earlier kernel launch failed, naming it.
func TestCellAsyncFault(t *testing.T) {
	t.Setenv(gpu.EnvDriver, "emu")
	checkAsyncFault(t)
}

// oobOffset is the element oob stores to past its 4-element buffer: 1 GiB
// beyond it, far enough that a card's memory protection catches it too
// (a store just past a small allocation lands in its padding there).
const oobOffset = 1 << 28

// loadFaultCells loads the test kernels as a cell module on the default
// device (again after a reset) and returns the device.
func loadFaultCells(t *testing.T) *gpu.Device {
	t.Helper()
	if _, err := testSession.Load("faults", cellTestPTX); err != nil {
		t.Fatal(err)
	}
	d, err := gpu.Default()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// wantOOB checks that err is the fault of oob<<<1, 2>>>: a *LaunchError
// with code 700 naming the kernel and its shape; on the emulator also the
// thread and the PTX line.
func wantOOB(t *testing.T, d *gpu.Device, what string, err error) {
	t.Helper()
	var le *LaunchError
	if !errors.As(err, &le) || le.Code != 700 || le.Kernel != "oob" || le.Grid != gpu.Dim(1) || le.Block != gpu.Dim(2) {
		t.Fatalf("%s: %v, want the *LaunchError of oob<<<1, 2>>> with code 700", what, err)
	}
	wantErr(t, what, err, "kernel oob <<<(1,1,1),(2,1,1)>>>: cudaErrorIllegalAddress (700): an illegal memory access was encountered")
	if d.Driver() == "emu" {
		wantErr(t, what, err, "illegal address in kernel oob, block (0,0,0), thread (", "PTX line ")
	}
	t.Logf("%s: %v", what, err)
}

// solverAfterFault runs fw-blocked by name and compares its distances with
// the CPU's. It returns false when the device is lost (on a card whose
// driver refuses all work after a fault), which the error must say, naming
// the kernel that faulted rather than the solver.
func solverAfterFault(t *testing.T, what string) bool {
	t.Helper()
	ctx := context.Background()
	g, err := graph.GNM(40, 300, graph.WeightRange{Min: 1, Max: 100}, 11)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := cpu.FloydWarshall(ctx, g, cpu.FWOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := gpu.AllPairs(ctx, gpu.VariantFWBlocked, g, gpu.Options{})
	if err != nil {
		if d, _ := gpu.Default(); d != nil && d.Driver() == "cuda" && strings.Contains(err.Error(), "restart the kernel") {
			wantErr(t, what, err, "since kernel oob <<<")
			t.Logf("%s: the driver refuses further work: %v", what, err)
			return false
		}
		t.Fatalf("%s: fw-blocked: %v", what, err)
	}
	if !res.SameDistances(ref) {
		t.Fatalf("%s: fw-blocked's distances differ from the CPU's", what)
	}
	return true
}

// checkLaunchFault is TestCellLaunchFault on the default device.
func checkLaunchFault(t *testing.T) {
	d := loadFaultCells(t)
	p, err := NewBuffer(d, Int32, 4)
	if err != nil {
		t.Fatal(err)
	}
	wantOOB(t, d, "Launch(oob)", testSession.Launch("oob", gpu.Dim(1), gpu.Dim(2), p, oobOffset))
	if !solverAfterFault(t, "after cells.Launch's fault") {
		return
	}
	if err := testSession.Synchronize(); err != nil {
		t.Errorf("cells.Synchronize after the fault was reported: %v", err)
	}
}

// checkAsyncFault is TestCellAsyncFault on the default device.
func checkAsyncFault(t *testing.T) {
	d := loadFaultCells(t)
	p, _ := NewBuffer(d, Int32, 4)
	if err := testSession.LaunchAsync("oob", gpu.Dim(1), gpu.Dim(2), p, oobOffset); err != nil {
		t.Fatalf("cells.LaunchAsync(oob): %v, want nil (the fault is reported later)", err)
	}
	wantOOB(t, d, "Synchronize after LaunchAsync(oob)", testSession.Synchronize())
	if !solverAfterFault(t, "after Synchronize reported the fault") {
		return
	}

	// A solver started while the fault is pending does not claim it.
	d = loadFaultCells(t)
	p, _ = NewBuffer(d, Int32, 4)
	if err := testSession.LaunchAsync("oob", gpu.Dim(1), gpu.Dim(2), p, oobOffset); err != nil {
		t.Fatal(err)
	}
	g, _ := graph.GNM(10, 30, graph.WeightRange{Min: 1, Max: 9}, 3)
	_, err := gpu.AllPairs(context.Background(), gpu.VariantFWBlocked, g, gpu.Options{})
	wantOOB(t, d, "fw-blocked with oob's fault pending", err)
	wantErr(t, "fw-blocked with oob's fault pending", err,
		"fw-blocked: not started: an earlier kernel launch (oob) failed: kernel oob <<<")
	if strings.Contains(err.Error(), "reading free device memory") {
		t.Errorf("fw-blocked blames itself: %v", err)
	}
	if !solverAfterFault(t, "after the solver reported the earlier fault") {
		return
	}

	// So does a kernel launched with cells.Launch.
	d = loadFaultCells(t)
	p, _ = NewBuffer(d, Int32, 4)
	a, _ := Float32s(d, []float32{1, 2})
	c, _ := NewBuffer(d, Float32, 2)
	if err := testSession.LaunchAsync("oob", gpu.Dim(1), gpu.Dim(2), p, oobOffset); err != nil {
		t.Fatal(err)
	}
	err = testSession.Launch("vecAdd", gpu.Dim(1), gpu.Dim(2), a, a, c, 2)
	wantOOB(t, d, "vecAdd with oob's fault pending", err)
	wantErr(t, "vecAdd with oob's fault pending", err, "gpu: kernel vecAdd not launched: an earlier kernel launch (oob) failed: kernel oob <<<")

	// Launched asynchronously, a correct kernel is waited for by a copy
	// and by Synchronize.
	d = loadFaultCells(t)
	a, _ = Float32s(d, []float32{1, 2})
	c, _ = NewBuffer(d, Float32, 2)
	for range 3 {
		if err := testSession.LaunchAsync("vecAdd", gpu.Dim(1), gpu.Dim(32), a, a, c, 2); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := c.ToFloat32s(); err != nil || !slices.Equal(got, []float32{2, 4}) {
		t.Errorf("vecAdd launched asynchronously: %v, %v", got, err)
	}
	if err := testSession.Synchronize(); err != nil {
		t.Errorf("Synchronize after correct kernels: %v", err)
	}
}

// TestCellAsyncCulprit checks on the emulator, which knows which launch
// faulted, that a fault among several pending launches names its kernel,
// also when a copy back reports it.
func TestCellAsyncCulprit(t *testing.T) {
	d := emuDevice(t)
	m := loadCellTest(t, d)
	vecAdd, _ := m.Kernel("vecAdd")
	oob, _ := m.Kernel("oob")
	a, _ := Float32s(d, []float32{1, 2})
	c, _ := NewBuffer(d, Float32, 2)
	p, _ := NewBuffer(d, Int32, 4)
	if err := vecAdd.LaunchAsync(gpu.Dim(1), gpu.Dim(2), a, a, c, 2); err != nil {
		t.Fatal(err)
	}
	if err := oob.LaunchSharedAsync(gpu.Dim(1), gpu.Dim(2), 0, p, oobOffset); err != nil {
		t.Fatal(err)
	}
	_, err := c.ToFloat32s()
	wantOOB(t, d, "a copy after vecAdd and oob", err)
	if strings.Contains(err.Error(), "one of the") {
		t.Errorf("the emulator knows which launch faulted: %v", err)
	}
}

// spinPTX is a kernel that never ends.
var spinPTX = mustReadFile("testdata/spin.ptx")

// TestCellLaunchCancel checks that the launch context stops an endless
// kernel on the emulator soon after it is cancelled, for both forms of
// launch, and that the device works afterwards.
func TestCellLaunchCancel(t *testing.T) {
	d := emuDevice(t)
	m, err := LoadPTX(d, "spin", spinPTX)
	if err != nil {
		t.Fatal(err)
	}
	spin, _ := m.Kernel("spin")
	m.sess = &Session{}
	for _, async := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		m.sess.Context = func() context.Context { return ctx }
		time.AfterFunc(100*time.Millisecond, cancel)
		start := time.Now()
		done := make(chan error, 1)
		go func() {
			if async {
				done <- spin.LaunchAsync(gpu.Dim(4), gpu.Dim(64), 0)
			} else {
				done <- spin.Launch(gpu.Dim(4), gpu.Dim(64), 0)
			}
		}()
		select {
		case err = <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("async %v: the endless kernel still runs 20 s after its context was cancelled", async)
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("async %v: %v, want an error wrapping context.Canceled", async, err)
		}
		wantErr(t, "cancelled launch", err, "gpu: kernel spin <<<(4,1,1),(64,1,1)>>> interrupted", "kernel spin cancelled")
		t.Logf("async %v: stopped after %v: %v", async, time.Since(start), err)
		cancel()
	}
	m.sess.Context = nil
	if err := d.Synchronize(); err != nil {
		t.Errorf("Synchronize after the cancelled launches: %v", err)
	}
	vecAdd, err := loadCellTest(t, d).Kernel("vecAdd")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := Float32s(d, []float32{1, 2})
	c, _ := NewBuffer(d, Float32, 2)
	if err := vecAdd.Launch(gpu.Dim(1), gpu.Dim(32), a, a, c, 2); err != nil {
		t.Fatal(err)
	}
	if got, err := c.ToFloat32s(); err != nil || !slices.Equal(got, []float32{2, 4}) {
		t.Errorf("vecAdd after the cancelled launches: %v, %v", got, err)
	}
}

// TestCellIntPointer passes an int where the kernel takes a pointer: a
// 64-bit integer, so the launch is allowed, and the store through address
// 256 faults.
func TestCellIntPointer(t *testing.T) {
	d := emuDevice(t)
	k, err := loadCellTest(t, d).Kernel("params")
	if err != nil {
		t.Fatal(err)
	}
	err = k.Launch(gpu.Dim(1), gpu.Dim(1), 256, 1, 2, 3, 4, float32(5), 6.0, 7)
	wantErr(t, "store through address 256", err, "kernel params", "cudaErrorIllegalAddress (700)")
}

// TestCellSticky checks a kernel fault: an out-of-bounds store is an
// illegal address (700) that the launch returns, the context is reset,
// old buffers and modules say they are gone, and new ones work.
func TestCellSticky(t *testing.T) {
	d := emuDevice(t)
	m := loadCellTest(t, d)
	p, _ := NewBuffer(d, Int32, 4)
	oob, _ := m.Kernel("oob")
	err := oob.Launch(gpu.Dim(1), gpu.Dim(2), p, 4)
	var le *LaunchError
	if !errors.As(err, &le) || le.Code != 700 || le.Kernel != "oob" || le.Block != gpu.Dim(2) {
		t.Fatalf("Launch of an out-of-bounds store: %v", err)
	}
	if err := d.Synchronize(); err != nil {
		t.Errorf("Synchronize after the fault was reported: %v", err)
	}
	wantErr(t, "sticky", err, "cudaErrorIllegalAddress (700): an illegal memory access was encountered", "context has been reset", "cells.Buffer, Module and Kernel")
	if ErrorString(err) != "an illegal memory access was encountered" {
		t.Errorf("ErrorString = %q", ErrorString(err))
	}
	_, err = p.ToInt32s()
	wantErr(t, "old buffer", err, "lost when the device's context was reset")
	wantErr(t, "old kernel", oob.Launch(gpu.Dim(1), gpu.Dim(1), 0, 0), "module celltest was lost")
	if err := p.Free(); err != nil {
		t.Errorf("Free of a lost buffer: %v", err)
	}
	m = loadCellTest(t, d)
	k, _ := m.Kernel("vecAdd")
	a, _ := Float32s(d, []float32{1, 2})
	b, _ := Float32s(d, []float32{10, 20})
	c, _ := NewBuffer(d, Float32, 2)
	if err := k.Launch(gpu.Dim(1), gpu.Dim(32), a, b, c, 2); err != nil {
		t.Fatal(err)
	}
	if got, err := c.ToFloat32s(); err != nil || !slices.Equal(got, []float32{11, 22}) {
		t.Errorf("vecAdd after the reset: %v, %v", got, err)
	}
}

package gpu

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/gpu/ptxemu"
	"github.com/pathnotes/pathnotes/graph"
)

// TestProfileSolver profiles a solver's launches: fw-blocked on n = 70,
// three rounds of three phases.
func TestProfileSolver(t *testing.T) {
	d, err := OpenEmulator(ptxemu.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	g, err := graph.GNM(70, 300, graph.WeightRange{Min: 1, Max: 9}, 3)
	if err != nil {
		t.Fatal(err)
	}
	p := StartProfile()
	if _, err := FWBlocked(context.Background(), g, Options{Device: d}); err != nil {
		t.Fatal(err)
	}
	ps := p.Stop()
	if again := p.Stop(); len(again) != len(ps) {
		t.Errorf("a second Stop returned %d launches, the first %d", len(again), len(ps))
	}
	comb := Combine(ps)
	if len(ps) != 9 || len(comb) != 3 {
		t.Fatalf("%d launches in %d kernels, want 9 in 3", len(ps), len(comb))
	}
	for i, lp := range comb {
		if !strings.HasSuffix(lp.Kernel, fmt.Sprint("phase", i+1)) || lp.Launches != 3 || lp.Block != Dim(32, 32) {
			t.Errorf("kernel %d: %s, %d launches, block %v", i, lp.Kernel, lp.Launches, lp.Block)
		}
		// 1024 threads a block: two blocks fill the 2048 threads.
		if o := lp.Occupancy; o.BlocksPerSM != 2 || o.Limiter != "threads" || lp.SharedBytes == 0 {
			t.Errorf("%s: shared %d, occupancy %+v", lp.Kernel, lp.SharedBytes, o)
		}
		if lp.Counts.Shared[ptxemu.Load].Requests == 0 || lp.Counts.Global[ptxemu.Load].Requests == 0 {
			t.Errorf("%s: no shared or global loads counted: %+v", lp.Kernel, lp.Counts)
		}
	}
	if comb[0].Grid != Dim(1) || comb[2].Grid != Dim(2, 2) {
		t.Errorf("grids %v and %v, want (1,1,1) for phase 1 and (2,2,1) for phase 3", comb[0].Grid, comb[2].Grid)
	}
}

// TestOccupancy checks the limits against the figures of CUDA's occupancy
// calculator for an H100 (compute capability 9.0).
func TestOccupancy(t *testing.T) {
	h100 := DeviceInfo{Major: 9, MaxThreadsPerSM: 2048, SharedPerSM: 228 << 10, RegistersPerBlock: 65536}
	for _, c := range []struct {
		threads, shared, regs int
		blocks                int
		limiter               string
	}{
		// 256 threads of 64 registers: 2048 registers a warp, 16 Ki a
		// block, 4 blocks in 64 Ki; threads would allow 8.
		{256, 0, 64, 4, "registers"},
		// 32 registers: 8 by registers and by threads; threads first.
		{256, 0, 32, 8, "threads"},
		// 64 KiB of shared memory (+1 KiB reserved): 3 blocks in 228 KiB.
		{128, 64 << 10, 32, 3, "shared memory"},
		// 32 threads: 64 warps would fit, but 32 block slots.
		{32, 0, 16, 32, "block slots"},
		// 40 registers round up to 1280 a warp: 51 warps' worth, 6
		// blocks of 8 warps.
		{256, 0, 40, 6, "registers"},
	} {
		o := occupancy(h100, c.threads, c.shared, c.regs, 0)
		if o.BlocksPerSM != c.blocks || o.Limiter != c.limiter || o.WarpsPerSM != c.blocks*((c.threads+31)/32) {
			t.Errorf("%d threads, %d shared, %d registers: %+v, want %d blocks limited by %s", c.threads, c.shared, c.regs, o, c.blocks, c.limiter)
		}
	}
	o := occupancy(h100, 256, 0, 64, 3)
	if o.BlocksPerSM != 3 || !strings.Contains(o.Limiter, "driver") {
		t.Errorf("the driver's answer should win: %+v", o)
	}
}

package gpu

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/gpu/ptxemu"
	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/internal/testenv"
)

// TestProfileCellLaunches profiles launches of the cell API on the
// emulator: what is recorded while a Profiler runs, and only then.
func TestProfileCellLaunches(t *testing.T) {
	d := emuDevice(t)
	m := loadCellTest(t, d)
	const n = 1000
	a, err := d.NewBuffer(Float32, n)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := d.NewBuffer(Float32, n)
	c, _ := d.NewBuffer(Float32, n)
	vecAdd, err := m.Kernel("vecAdd")
	if err != nil {
		t.Fatal(err)
	}
	blockSum, _ := m.Kernel("blockSum")
	out, _ := d.NewBuffer(Int32, 1)
	if err := vecAdd.Launch(Dim(4), Dim(256), a, b, c, n); err != nil { // not profiled
		t.Fatal(err)
	}
	ps, err := Profile(func() error {
		for range 2 {
			if err := vecAdd.Launch(Dim(4), Dim(256), a, b, c, n); err != nil {
				return err
			}
		}
		return blockSum.LaunchShared(Dim(4), Dim(256), 256*4, a, out, n)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := vecAdd.Launch(Dim(4), Dim(256), a, b, c, n); err != nil { // not profiled
		t.Fatal(err)
	}
	if len(ps) != 3 {
		t.Fatalf("%d launches recorded, want 3", len(ps))
	}
	v := ps[0]
	if v.Kernel != "vecAdd" || !v.Emulated || v.Counts == nil || v.Grid != Dim(4) || v.Block != Dim(256) || v.Registers != 0 {
		t.Fatalf("vecAdd: %+v", v)
	}
	// 32 warps, the last with 8 of its lanes inside n: each of the two
	// loads and the store is 32 requests of 4 sectors but one of 1.
	ld, st := v.Counts.Global[ptxemu.Load], v.Counts.Global[ptxemu.Store]
	if ld.Requests != 64 || ld.Sectors != 250 || ld.Bytes != 8*n || st.Requests != 32 || st.Sectors != 125 {
		t.Errorf("vecAdd global loads %+v, stores %+v", ld, st)
	}
	// 256 threads, no shared memory, on the emulator's limits (2048
	// threads and 32 blocks per multiprocessor): 8 blocks by threads.
	o := v.Occupancy
	if o.BlocksPerSM != 8 || o.WarpsPerSM != 64 || o.MaxWarpsPerSM != 64 || o.Limiter != "threads" || o.ByShared != 0 || o.ByRegisters != 0 || o.Fraction() != 1 {
		t.Errorf("vecAdd occupancy %+v", o)
	}
	s := ps[2]
	// 1 KiB of dynamic shared memory: 64 KiB per multiprocessor allows
	// 64 blocks, threads still 8.
	if s.Kernel != "blockSum" || s.SharedBytes != 1024 || s.Occupancy.ByShared != 64 || s.Occupancy.BlocksPerSM != 8 {
		t.Errorf("blockSum: shared %d, occupancy %+v", s.SharedBytes, s.Occupancy)
	}
	// One atomicAdd per block, by thread 0; the tree's shared accesses
	// are consecutive words: no conflict.
	sc := s.Counts
	if sc.Global[ptxemu.Atomic].Requests != 4 || sc.Shared[ptxemu.Load].Conflicts != 0 || sc.Shared[ptxemu.Store].Requests == 0 || sc.Divergent == 0 {
		t.Errorf("blockSum counts: atomics %+v, shared %+v, %d divergent", sc.Global[ptxemu.Atomic], sc.Shared, sc.Divergent)
	}
	ps = append(ps, &LaunchProfile{Kernel: "vecAdd", Device: v.Device, Block: v.Block, Grid: Dim(8), Launches: 1})
	comb := Combine(ps)
	if len(comb) != 2 || comb[0].Launches != 3 || comb[0].Grid != (Dim3{}) || comb[0].Counts.Global[ptxemu.Load].Sectors != 500 || ps[0].Counts.Global[ptxemu.Load].Sectors != 250 {
		t.Errorf("Combine: %d entries, first %+v (launches of two grids have none)", len(comb), comb[0])
	}
}

// TestProfileSolver profiles a solver's launches: fw-blocked on n = 70,
// three rounds of three phases.
func TestProfileSolver(t *testing.T) {
	d := emuDevice(t)
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

// TestProfileSourceLines compiles a cell with -lineinfo, by nvcc and by
// clang, and finds the cell's line of each access in the profile.
func TestProfileSourceLines(t *testing.T) {
	const cell = "#line 1 \"cell\"\n" + `__global__ void strided(float *out, const float *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[32 * i];
}
`
	for _, compiler := range []string{"nvcc", "clang"} {
		t.Run(compiler, func(t *testing.T) {
			if compiler == "nvcc" {
				testenv.NeedNVCC(t)
			} else {
				testenv.NeedClang(t)
			}
			t.Setenv(EnvPTXCache, "off")
			d := emuDevice(t)
			ptx, err := CompileCUDA(context.Background(), "strided", cell, CompileOptions{Compiler: compiler, Flags: []string{"-lineinfo"}})
			if err != nil {
				t.Fatal(err)
			}
			m, err := d.LoadPTX("strided", ptx)
			if err != nil {
				t.Fatal(err)
			}
			k, _ := m.Kernel("strided")
			in, _ := d.NewBuffer(Float32, 32*64)
			out, _ := d.NewBuffer(Float32, 64)
			ps, err := Profile(func() error { return k.Launch(Dim(2), Dim(32), out, in, 64) })
			if err != nil || len(ps) != 1 {
				t.Fatalf("%d launches, %v", len(ps), err)
			}
			for _, l := range ps[0].Counts.Lines {
				// The compilers make the file a path below the working directory.
				if l.Access >= 0 && (filepath.Base(l.File) != "cell" || l.SourceLine != 4) {
					t.Errorf("%s at %s line %d, want cell line 4", l.Text, l.File, l.SourceLine)
				}
			}
			if ld := ps[0].Counts.Global[ptxemu.Load]; ld.Sectors != 64 {
				t.Errorf("loads %+v, want 64 sectors: one a lane", ld)
			}
		})
	}
}

package cells

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/gpu/ptxemu"
	"github.com/pathnotes/pathnotes/internal/testenv"
)

// TestProfileCellLaunches profiles launches of the cell API on the
// emulator: what is recorded while a gpu.Profiler runs, and only then.
func TestProfileCellLaunches(t *testing.T) {
	d := emuDevice(t)
	m := loadCellTest(t, d)
	const n = 1000
	a, err := NewBuffer(d, Float32, n)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewBuffer(d, Float32, n)
	c, _ := NewBuffer(d, Float32, n)
	vecAdd, err := m.Kernel("vecAdd")
	if err != nil {
		t.Fatal(err)
	}
	blockSum, _ := m.Kernel("blockSum")
	out, _ := NewBuffer(d, Int32, 1)
	if err := vecAdd.Launch(gpu.Dim(4), gpu.Dim(256), a, b, c, n); err != nil { // not profiled
		t.Fatal(err)
	}
	ps, err := gpu.Profile(func() error {
		for range 2 {
			if err := vecAdd.Launch(gpu.Dim(4), gpu.Dim(256), a, b, c, n); err != nil {
				return err
			}
		}
		return blockSum.LaunchShared(gpu.Dim(4), gpu.Dim(256), 256*4, a, out, n)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := vecAdd.Launch(gpu.Dim(4), gpu.Dim(256), a, b, c, n); err != nil { // not profiled
		t.Fatal(err)
	}
	if len(ps) != 3 {
		t.Fatalf("%d launches recorded, want 3", len(ps))
	}
	v := ps[0]
	if v.Kernel != "vecAdd" || !v.Emulated || v.Counts == nil || v.Grid != gpu.Dim(4) || v.Block != gpu.Dim(256) || v.Registers != 0 {
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
	ps = append(ps, &gpu.LaunchProfile{Kernel: "vecAdd", Device: v.Device, Block: v.Block, Grid: gpu.Dim(8), Launches: 1})
	comb := gpu.Combine(ps)
	if len(comb) != 2 || comb[0].Launches != 3 || comb[0].Grid != (gpu.Dim3{}) || comb[0].Counts.Global[ptxemu.Load].Sectors != 500 || ps[0].Counts.Global[ptxemu.Load].Sectors != 250 {
		t.Errorf("gpu.Combine: %d entries, first %+v (launches of two grids have none)", len(comb), comb[0])
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
			m, err := LoadPTX(d, "strided", ptx)
			if err != nil {
				t.Fatal(err)
			}
			k, _ := m.Kernel("strided")
			in, _ := NewBuffer(d, Float32, 32*64)
			out, _ := NewBuffer(d, Float32, 64)
			ps, err := gpu.Profile(func() error { return k.Launch(gpu.Dim(2), gpu.Dim(32), out, in, 64) })
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

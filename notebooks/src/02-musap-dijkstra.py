#!/usr/bin/env python3
"""Writes notebooks/02-musap-dijkstra.ipynb, keeping the outputs of unchanged code cells.

The notebook reproduces [Musap 2016]: the CUDA exercises of
chapter 1, the worked Dijkstra example of §2.5 in its sequential and
frontier forms, the frontier with ties, the relax race, and the degree-7
experiment of §2.9 (Figs. 2.11-2.12). Run it with `pathnotes run` to fill in
the outputs:

    python3 notebooks/src/02-musap-dijkstra.py
    PATHNOTES_SCALE=0.05 pathnotes run notebooks/02-musap-dijkstra.ipynb --out notebooks
"""

import common

nb = common.Notebook("musap")
md, code = nb.md, nb.code


common.title(nb, r'''
# Musap (2016): Dijkstra's algorithm on the GPU

Loredana Musap's master's thesis [Musap 2016], *Implementacija algoritama na grafovima pomoću GPU*
(Implementing graph algorithms on the GPU; University of Zagreb, Faculty of Science, Department of
Mathematics, July 2016), has two halves. Chapter 1 teaches CUDA C from the ground up: kernels, the
grid of blocks of threads, indexing, the memory spaces, error checking and timing. Chapter 2 builds
a GPU Dijkstra after Martín, Torres and Gavilanes (2009): every unsettled vertex whose tentative
distance equals the current minimum settles at once and becomes the next *frontier*, with three
kernels per iteration — relax (with `atomicMin`), a minimum reduction, update. It is timed against
the CPU on graphs where every vertex has out-degree 7, from one to ten million vertices; the
results are two plots without numbers (Figs. 2.11 and 2.12).

This notebook follows the thesis:

1. the chapter-1 exercises, run as kernels written in notebook cells;
2. the worked example of §2.5, traced in both forms and asserted step by step;
3. a frontier with ties, where several vertices settle in one iteration;
4. the race in the relax step that `atomicMin` removes, and the compact adjacency list the
   kernels read (§2.8, Figs. 2.9–2.10);
5. the experiment of §2.9 rebuilt, with Figs. 2.11 and 2.12 redrawn.

The thesis has no numeric results to compare with, only claims; whatever is marked "(here)" was
measured when this notebook last ran. A worked example that differs from the thesis panics, so
the notebook fails.
''')

md(r'''
## Parameters

`PATHNOTES_SCALE` (1 when unset; CI runs 0.05) scales the experiment of §2.9: graphs of
1, 2, …, 10 million vertices times the scale. The thesis generated 10 graphs per size and reports
the mean; this notebook takes `graphsPerN` of them. Its weights are positive integers of an unstated
range; here they are 1..10 from the seed below.
''')

code(r'''
''' + common.SCALE + r'''
var seed uint64 = 2016                        // graph k of size n is graph.ConstantDegree(n, 7, weights, seed+k)
weights := graph.WeightRange{Min: 1, Max: 10} // the thesis's range is not stated: this one is ours
degree := 7                                   // every vertex has out-degree 7, as in §2.9
graphsPerN := 2                               // the thesis: 10 graphs per size
emuMaxN := 20000                              // on the emulator the largest graph has this |V|
fmt.Printf("scale %g: |V| = 1..10 million × %g, out-degree %d, weights %d..%d, %d graphs per size, seed %d\n",
	scale, scale, degree, weights.Min, weights.Max, graphsPerN, seed)
''')

md(r'''
## The machine behind these outputs

The thesis ran on a Tesla S2050 (Fermi). The first cell named this machine's GPU; this one names
its CPU. On the
emulator (the kernels' PTX interpreted on the CPU) the experiment's graphs shrink to at most
`emuMaxN` vertices and GPU times are emulator wall time on the CPU, not GPU time. Without any GPU
driver the GPU columns say why.
''')

code(r'''
''' + common.machine("GPU kernels", r'''
	sizeF = min(scale, float64(emuMaxN)/10e6)
	fmt.Printf("no GPU: the kernels run on the emulator (%s); the experiment's graphs shrink to |V| ≤ %d and its GPU times are emulator wall time\n",
		dev.Info().Name, emuMaxN)
''', decls="sizeF := scale // the factor applied to the thesis's sizes\n") + r'''
here := " (here" + gpuTag + ")"

''' + common.CHECK + r'''
''')

md(r'''
## Chapter 1: CUDA C, one exercise per cell

The thesis's first chapter is a short course in CUDA C. Its exercises run here as they would in a
CUDA program: a `%%cuda` cell holds the kernels (compiled to PTX by the CUDA compiler where one is
installed; elsewhere the PTX cached beside the notebook in `.pathnotes-ptx/` is loaded), and Go
cells allocate buffers, launch with `cells.Launch(name, grid, block, args...)` — the `<<<grid, block>>>`
of CUDA C — and read the results back. Every exercise checks its result.

The listings of the thesis have a few slips that are fixed here, not copied: the "final" 1-D
kernel swaps `threadIdx.x` and `blockIdx.x` in its index, and the matrix example launches 256×256
blocks, far over the limit (the cell below shows what that launch gets).

### §1.3 Device query (Fig. 1.6)

The thesis queries its device with `cudaGetDeviceProperties`. The same numbers for this device:
''')

code(r'''
if dev == nil {
	panic("the chapter-1 exercises need a GPU or the emulator: " + noGPU)
}
info := dev.Info()
query := display.NewTable("Device 0: the thesis's and this one", "property", "Tesla S2050 (thesis)", "here")
query.Add("name", "Tesla S2050", info.Name)
query.Add("max threads per block", 1024, info.MaxThreadsPerBlock)
query.Add("max blocks in x", "65,536 (as quoted; Fermi's limit is 65,535)", info.MaxGrid[0])
query.Add("max block (x, y, z)", "—", fmt.Sprintf("(%d, %d, %d)", info.MaxBlock[0], info.MaxBlock[1], info.MaxBlock[2]))
query.Add("multiprocessors", "—", info.SMs)
query.Add("max texture 1D", "(65536)", fmt.Sprintf("(%d)", info.MaxTexture1D))
query.Add("max texture 2D", "(65536, 65535)", fmt.Sprintf("(%d, %d)", info.MaxTexture2D[0], info.MaxTexture2D[1]))
query.Add("max texture 3D", "(2048, 2048, 2048)", fmt.Sprintf("(%d, %d, %d)", info.MaxTexture3D[0], info.MaxTexture3D[1], info.MaxTexture3D[2]))
query.Add("compute capability", "2.0 (not in the thesis; the S2050's)", fmt.Sprintf("%d.%d", info.Major, info.Minor))
query
''')

md(r'''
### §1.2–1.4 Kernels, grids and indices

The kernels of this section: each thread numbers itself (`globalIds`), a 2-D grid numbered row by
row (`index2D`, Fig. 1.9), a counter of the threads that run and of those that pass the `tid < N`
guard (`countThreads`), vector addition (`vecAdd`) and matrix addition (`matAdd`), with the index
the thesis means, `tid = threadIdx.x + blockIdx.x * blockDim.x`.
''')

code(r'''
%%cuda --name musapch1
// §1.3: every thread writes its global number.
__global__ void globalIds(int *out) {
    int block = blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y;
    int perBlock = blockDim.x * blockDim.y * blockDim.z;
    int t = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
    out[block * perBlock + t] = block * perBlock + t;
}

// Fig. 1.9: a 2-D grid of threads numbered row by row.
__global__ void index2D(int *out, int width, int height) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < width && row < height) {
        out[row * width + col] = row * width + col;
    }
}

// Counts the threads that ran and those that passed the guard.
__global__ void countThreads(int *ran, int *worked, int n) {
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    atomicAdd(ran, 1);
    if (tid < n) {
        atomicAdd(worked, 1);
    }
}

// §1.2 and §1.4: one thread per element; the guard keeps spare threads out.
__global__ void vecAdd(const float *a, const float *b, float *c, int n) {
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    if (tid < n) {
        c[tid] = a[tid] + b[tid];
    }
}

// §1.4: N×N matrices, element (i, j) at i + j*N.
__global__ void matAdd(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n) {
        c[i + j * n] = a[i + j * n] + b[i + j * n];
    }
}
''', subject="the kernels of §1.2-1.4 that the section launches")

md(r'''
Fig. 1.3's launch, `dim3(4,2,2)` threads per block on a `dim3(2,2)` grid, makes 2·2·1 = 4 blocks of
4·2·2 = 16 threads, 64 in all; each writes its global number. Fig. 1.9's grid is 8 threads wide and
6 tall, numbered 0…47 row by row; here it is launched as 2×2 blocks of 4×3 threads.
''')

code(r'''
// int32s copies a buffer back; a failure is a bug, so it panics.
func int32s(b *cells.Buffer) []int32 {
	v, err := b.ToInt32s()
	if err != nil {
		panic(err)
	}
	return v
}

// newInts allocates n zeroed int32s on the device.
func newInts(n int) *cells.Buffer {
	b, err := cells.NewBuffer(dev, cells.Int32, n)
	if err != nil {
		panic(err)
	}
	return b
}

// launch is cells.Launch that panics: an error here is a bug.
func launch(name string, grid, block gpu.Dim3, args ...any) {
	if err := cells.Launch(name, grid, block, args...); err != nil {
		panic(err)
	}
}

grid3, block3 := gpu.Dim(2, 2), gpu.Dim(4, 2, 2)
check(grid3.Threads() == 4 && block3.Threads() == 16, "dim3(2,2) × dim3(4,2,2) gives %d blocks of %d threads", grid3.Threads(), block3.Threads())
ids := newInts(grid3.Threads() * block3.Threads())
launch("globalIds", grid3, block3, ids)
for i, v := range int32s(ids) {
	check(v == int32(i), "globalIds: slot %d holds %d", i, v)
}
fmt.Printf("%d blocks × %d threads = %d threads, numbered 0..%d\n", grid3.Threads(), block3.Threads(), ids.Len(), ids.Len()-1)

width, height := 8, 6
grid2 := gpu.Dim(2, 2)
out2 := newInts(width * height)
launch("index2D", grid2, gpu.Dim(4, 3), out2, width, height)
cells2 := int32s(out2)
fig19 := display.NewTable("Fig. 1.9: an 8 × 6 grid of threads, numbered row by row", "row", "0", "1", "2", "3", "4", "5", "6", "7")
for r := 0; r < height; r++ {
	row := []any{r}
	for c := 0; c < width; c++ {
		check(cells2[r*width+c] == int32(r*width+c), "index2D: (%d, %d) holds %d", r, c, cells2[r*width+c])
		row = append(row, cells2[r*width+c])
	}
	fig19.Add(row...)
}
for _, b := range []*cells.Buffer{ids, out2} {
	b.Free()
}
fig19
''', subject="the section's experiment: Figs. 1.3 and 1.9's launches and the thread numbers they give")

md(r'''
### Grid size by ceiling division (§1.4)

With N elements and `tpb` threads per block, N / tpb blocks are too few whenever tpb does not divide
N: for N = 7 and tpb = 8 it is 0 blocks — not an empty run but an invalid launch. The thesis's
`(N + tpb − 1) / tpb` rounds up; then some threads have no element (3 of 8 for N = 5, Fig. 1.8),
and the `tid < N` guard keeps them out. The cell launches `countThreads` both ways.
''')

code(r'''
// blocksFor is the ceiling division of §1.4.
func blocksFor(n, tpb int) int { return (n + tpb - 1) / tpb }

// countRun launches countThreads on blocks × tpb threads for n elements and
// returns the threads that ran and those that passed the guard, or the
// launch's error.
func countRun(blocks, tpb, n int) (int32, int32, error) {
	ran, worked := newInts(1), newInts(1)
	defer ran.Free()
	defer worked.Free()
	if err := cells.Launch("countThreads", gpu.Dim(blocks), gpu.Dim(tpb), ran, worked, n); err != nil {
		return 0, 0, err
	}
	return int32s(ran)[0], int32s(worked)[0], nil
}

pitfalls := display.NewTable("N elements, 8 threads per block", "N", "grid", "blocks", "threads run", "passed tid < N", "spare", "launch")
for _, n := range []int{7, 5} {
	for _, way := range []string{"N / tpb", "(N + tpb − 1) / tpb"} {
		blocks := n / 8
		if way != "N / tpb" {
			blocks = blocksFor(n, 8)
		}
		ran, worked, err := countRun(blocks, 8, n)
		if err != nil {
			check(blocks == 0 && cells.ErrorCode(err) == 9, "N=%d, %d blocks: %v", n, blocks, err)
			pitfalls.Add(n, way, blocks, "—", "—", "—", fmt.Sprintf("Error %d : %s", cells.ErrorCode(err), cells.ErrorString(err)))
			continue
		}
		check(ran == int32(blocks*8) && worked == int32(min(n, blocks*8)), "N=%d, %d blocks: %d threads ran, %d passed", n, blocks, ran, worked)
		pitfalls.Add(n, way, blocks, ran, worked, ran-worked, "Error 0 : no error")
	}
}
check(blocksFor(7, 8) == 1 && 7/8 == 0 && blocksFor(5, 8)*8-5 == 3, "the thesis's pitfalls: 0 blocks for N=7, 3 spare threads for N=5")
pitfalls
''')

md(r'''
### Vector addition and "Error 9" (§1.3, Figs. 1.4–1.5)

The thesis adds vectors of 33,554,432 = 2²⁵ floats: at 1024 threads per block that is 32,768
blocks, within its card's limit. Its Fig. 1.4 launches 33,554,430 elements as 65,536 blocks of 512
and gets `Error 9 : invalid configuration argument`: the thesis (§1.3) and its program give the
limit as 65,536 blocks, but a Fermi card allows at most 65,535 in x, so 65,536 is one too many; Fig. 1.5 relaunches with 32,768 blocks of 1024 and gets `Error 0 : no error`. An invalid launch
fails silently unless the program asks, so every launch is checked here, as `cudaGetLastError`
does: `cells.ErrorCode` and `cells.ErrorString` give CUDA's number and message.

Since compute capability 3.0 a grid may have 2³¹−1 blocks in x, so the thesis's 65,536 × 512 is
valid on this device; a block of 2048 threads is what gets error 9 today. The vectors here have
2²⁵ × scale elements (fewer on the emulator), and every launch's sum is checked: every element up
to 2¹⁸ of them, beyond that every 61st and the last 1024.
''')

code(r'''
vecN := int(float64(1<<25) * scale) // the thesis's 2²⁵, scaled
switch {
case vecN < 1024:
	vecN = 1024
case gpuTag != "" && vecN > 1<<18:
	vecN = 1 << 18
}
vecN = vecN / 1024 * 1024 // a multiple of the fill pattern's length

// a[i] = i mod 1024 and b[i] = 3·(i mod 1024), copied forward in blocks
// (lab.FillRepeating): one by one, the interpreter would take seconds.
a, b := make([]float32, vecN), make([]float32, vecN)
lab.FillRepeating(a, 1024, func(i int) float32 { return float32(i) })
lab.FillRepeating(b, 1024, func(i int) float32 { return float32(3 * i) })
// The indices checked: every one up to 2¹⁸ elements, beyond that every
// 61st and the last 1024.
probes := lab.Probes(vecN, 1<<18, 61, 1024)
bufA, err := cells.Float32s(dev, a)
if err != nil {
	panic(err)
}
bufB, err := cells.Float32s(dev, b)
if err != nil {
	panic(err)
}
bufC, err := cells.NewBuffer(dev, cells.Float32, vecN)
if err != nil {
	panic(err)
}
''')

code(r'''
check(blocksFor(1<<25, 1024) == 32768 && blocksFor(33554430, 512) == 65536, "the thesis's block counts")
errs := display.NewTable(fmt.Sprintf("vecAdd on %d elements", vecN), "configuration", "blocks × threads", "on the Tesla S2050 (thesis)", "here", "elements reached (sums checked)")
// launchConfig is one launch of the table: what, its shape, the thesis's outcome.
type launchConfig struct {
	What            string
	Blocks, Threads int
	Thesis          string
}
for _, cfg := range []launchConfig{
	{"Fig. 1.4", 65536, 512, "Error 9 : invalid configuration argument"},
	{"Fig. 1.5", 32768, 1024, "Error 0 : no error"},
	{"ceiling division for this N", blocksFor(vecN, 1024), 1024, "—"},
	{"2048 threads per block", blocksFor(vecN, 2048), 2048, "Error 9 (over 1024 threads)"},
} {
	if err := bufC.Fill(-1); err != nil {
		panic(err)
	}
	err := cells.Launch("vecAdd", gpu.Dim(cfg.Blocks), gpu.Dim(cfg.Threads), bufA, bufB, bufC, vecN)
	summed := "—"
	if err == nil {
		if err := dev.Synchronize(); err != nil {
			panic(err)
		}
		c, err := bufC.ToFloat32s()
		if err != nil {
			panic(err)
		}
		covered := min(vecN, cfg.Blocks*cfg.Threads)
		for _, i := range probes {
			want := a[i] + b[i]
			if i >= covered {
				want = -1 // no thread reached it
			}
			check(c[i] == want, "%s: c[%d] = %g, want %g", cfg.What, i, c[i], want)
		}
		summed = fmt.Sprintf("%d of %d elements", covered, vecN)
	}
	errs.Add(cfg.What, fmt.Sprintf("%d × %d", cfg.Blocks, cfg.Threads), cfg.Thesis,
		fmt.Sprintf("Error %d : %s", cells.ErrorCode(err), cells.ErrorString(err)), summed)
	if cfg.Threads > info.MaxThreadsPerBlock {
		check(cells.ErrorCode(err) == 9, "%d threads per block: %v, want error 9", cfg.Threads, err)
	}
}
for _, buf := range []*cells.Buffer{bufA, bufB, bufC} {
	buf.Free()
}
errs
''', subject="the section's experiment: Figs. 1.4-1.5's launch configurations, the errors they get and the sums they reach")

md(r'''
### Matrix addition on 2-D blocks (§1.4)

The thesis adds N×N matrices with `i` from x and `j` from y and launches `dim3(256,256)` threads
per block: 65,536 threads, 64 times the limit. With 16×16 blocks and a ceiling-divided grid the
same kernel works for any N, here 100 (not a multiple of 16).
''')

code(r'''
matN := 100
ma, mb := make([]float32, matN*matN), make([]float32, matN*matN)
for i := range ma {
	ma[i], mb[i] = float32(i), float32(10*i)
}
bufMA, err := cells.Float32s(dev, ma)
if err != nil {
	panic(err)
}
bufMB, err := cells.Float32s(dev, mb)
if err != nil {
	panic(err)
}
bufMC, err := cells.NewBuffer(dev, cells.Float32, matN*matN)
if err != nil {
	panic(err)
}
errBig := cells.Launch("matAdd", gpu.Dim(1, 1), gpu.Dim(256, 256), bufMA, bufMB, bufMC, matN)
check(cells.ErrorCode(errBig) == 9, "a 256×256 block: %v, want error 9", errBig)
fmt.Printf("dim3(256,256) threads per block: Error %d : %s\n", cells.ErrorCode(errBig), cells.ErrorString(errBig))
tiles := blocksFor(matN, 16)
launch("matAdd", gpu.Dim(tiles, tiles), gpu.Dim(16, 16), bufMA, bufMB, bufMC, matN)
mc, err := bufMC.ToFloat32s()
if err != nil {
	panic(err)
}
for i := range mc {
	check(mc[i] == ma[i]+mb[i], "matAdd: element %d is %g, want %g", i, mc[i], ma[i]+mb[i])
}
fmt.Printf("dim3(16,16) threads per block on a %d×%d grid: all %d elements of the %d×%d sum are right\n", tiles, tiles, matN*matN, matN, matN)
for _, buf := range []*cells.Buffer{bufMA, bufMB, bufMC} {
	buf.Free()
}
''')

md(r'''
### §1.5 Memory: `__device__`, `__constant__` and `__shared__`

Three of the thesis's memory spaces in one module:

- a `__device__ float devData` in global memory: the host writes 3.14 (`cudaMemcpyToSymbol`; here
  `cells.GetVar("devData")` and a copy), a `<<<1,1>>>` kernel adds 2.0, the host reads 5.14 back
  (the thesis's kernel also prints the value with `printf`; here the host prints what it reads);
- a `__constant__` array, written by the host and read by every thread: the coefficients of a cubic;
- `__shared__` memory for a block sum (Fig. 2.8): 8 elements, then strides 1, 2 and 4, with a
  barrier between the steps; `steps` keeps the array after each step. `blockSum` is the same with
  `extern __shared__` memory sized at launch, for any power-of-two block; the host adds the
  blocks' sums, as in Fig. 2.7.

It also holds `busy`, a kernel with enough work per thread to be seen on a clock, for §1.6.
''')

code(r'''
%%cuda --name musapmem
// §1.5: a variable in global memory that host and kernels share.
__device__ float devData;

__global__ void addTwo() {
    devData += 2.0f;
}

// §1.5: constant memory, written by the host, read by every thread.
__constant__ float coef[4];

__global__ void cubic(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = ((coef[3] * v + coef[2]) * v + coef[1]) * v + coef[0];
    }
}

// Fig. 2.8: a block of 8 sums its elements in shared memory with strides
// 1, 2 and 4; steps[s*8 + t] keeps element t after step s (block 0).
__global__ void blockSum8(const int *in, int *out, int *steps) {
    __shared__ int s[8];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 8 + t];
    __syncthreads();
    int step = 0;
    #pragma unroll 1
    for (int stride = 1; stride < 8; stride *= 2) {
        if (t % (2 * stride) == 0) {
            s[t] += s[t + stride];
        }
        __syncthreads();
        if (blockIdx.x == 0) {
            steps[step * 8 + t] = s[t];
        }
        step++;
    }
    if (t == 0) {
        out[blockIdx.x] = s[0];
    }
}

// The same sum with dynamic shared memory (extern, sized at launch) for
// any power-of-two block size.
__global__ void blockSum(const int *in, int *out, int n) {
    extern __shared__ int sdata[];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    sdata[t] = i < n ? in[i] : 0;
    __syncthreads();
    for (int stride = 1; stride < blockDim.x; stride *= 2) {
        if (t % (2 * stride) == 0) {
            sdata[t] += sdata[t + stride];
        }
        __syncthreads();
    }
    if (t == 0) {
        out[blockIdx.x] = sdata[0];
    }
}

// §1.6: enough work per thread to be seen on a clock.
__global__ void busy(float *x, int n, int rounds) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        for (int r = 0; r < rounds; r++) {
            v = v * 0.999f + 1.0f;
        }
        x[i] = v;
    }
}
''', subject="the kernels of §1.5 (__device__, __constant__ and __shared__ memory) that the section runs")

code(r'''
import "math"

devData, err := cells.GetVar("devData")
if err != nil {
	panic(err)
}
if err := devData.CopyFloat32s([]float32{3.14}); err != nil {
	panic(err)
}
before, err := devData.ToFloat32s()
if err != nil {
	panic(err)
}
launch("addTwo", gpu.Dim(1), gpu.Dim(1))
after, err := devData.ToFloat32s()
if err != nil {
	panic(err)
}
check(after[0] == float32(3.14)+2, "devData after addTwo is %g, want 3.14 + 2", after[0])
fmt.Printf("__device__ devData: the host wrote %.2f, addTwo<<<1,1>>> added 2.0, the host read %.2f back\n", before[0], after[0])

coef, err := cells.GetVar("coef")
if err != nil {
	panic(err)
}
coefs := []float32{1, -2, 0.5, 0.25}
if err := coef.CopyFloat32s(coefs); err != nil {
	panic(err)
}
cubicX := make([]float32, 1000)
for i := range cubicX {
	cubicX[i] = float32(i)/100 - 5
}
bufX, err := cells.Float32s(dev, cubicX)
if err != nil {
	panic(err)
}
bufY, err := cells.NewBuffer(dev, cells.Float32, len(cubicX))
if err != nil {
	panic(err)
}
launch("cubic", gpu.Dim(blocksFor(len(cubicX), 256)), gpu.Dim(256), bufX, bufY, len(cubicX))
cubicY, err := bufY.ToFloat32s()
if err != nil {
	panic(err)
}
for i, x := range cubicX {
	want := ((coefs[3]*x+coefs[2])*x+coefs[1])*x + coefs[0]
	check(math.Abs(float64(cubicY[i]-want)) <= 1e-4*math.Max(1, math.Abs(float64(want))), "cubic(%g) = %g on the device, %g on the host", x, cubicY[i], want)
}
fmt.Printf("__constant__ coef = %v: the cubic at %d points agrees with the host\n", coefs, len(cubicX))
bufX.Free()
bufY.Free()
''', subject="the section's experiment: a __device__ variable and __constant__ coefficients written by the host and read by kernels")

code(r'''
in8 := []int32{3, 1, 4, 1, 5, 9, 2, 6}
bufIn8, err := cells.Int32s(dev, in8)
if err != nil {
	panic(err)
}
out8, steps := newInts(1), newInts(3*8)
launch("blockSum8", gpu.Dim(1), gpu.Dim(8), bufIn8, out8, steps)
stepVals := int32s(steps)
// After stride s, element t (t a multiple of 2s) holds the sum of in8[t : t+2s].
sumTable := display.NewTable("Fig. 2.8: the block sum in shared memory", "after", "s[0]", "s[1]", "s[2]", "s[3]", "s[4]", "s[5]", "s[6]", "s[7]", "threads that added")
start := []any{"loading"}
for _, v := range in8 {
	start = append(start, v)
}
sumTable.Add(append(start, "—")...)
for step, stride := 0, 1; stride < 8; step, stride = step+1, stride*2 {
	row := []any{fmt.Sprintf("stride %d", stride)}
	for t := 0; t < 8; t++ {
		v := stepVals[step*8+t]
		if t%(2*stride) == 0 {
			var want int32
			for _, x := range in8[t : t+2*stride] {
				want += x
			}
			check(v == want, "after stride %d, s[%d] = %d, want %d", stride, t, v, want)
		}
		row = append(row, v)
	}
	sumTable.Add(append(row, 8/(2*stride))...)
}
check(int32s(out8)[0] == 31, "blockSum8 gives %d, want 31", int32s(out8)[0])
if err := display.Show(sumTable); err != nil {
	panic(err)
}
''')

code(r'''
// The dynamic version over many blocks; the host adds the block sums.
sumN, tpb := 100000, 256
vals := make([]int32, sumN)
var hostSum int64
for i := range vals {
	vals[i] = int32(i % 97)
	hostSum += int64(vals[i])
}
bufVals, err := cells.Int32s(dev, vals)
if err != nil {
	panic(err)
}
partial := newInts(blocksFor(sumN, tpb))
sumKernel, err := cells.GetKernel("blockSum")
if err != nil {
	panic(err)
}
if err := sumKernel.LaunchShared(gpu.Dim(partial.Len()), gpu.Dim(tpb), tpb*4, bufVals, partial, sumN); err != nil {
	panic(err)
}
var deviceSum int64
for _, p := range int32s(partial) {
	deviceSum += int64(p)
}
check(deviceSum == hostSum, "blockSum over %d values: %d, want %d", sumN, deviceSum, hostSum)
fmt.Printf("blockSum with %d bytes of extern __shared__ per block: %d blocks, their sums add up to %d, as on the host\n", tpb*4, partial.Len(), deviceSum)
for _, buf := range []*cells.Buffer{bufIn8, out8, steps, bufVals, partial} {
	buf.Free()
}
''')

md(r'''
### §1.6–1.7 Timing, with and without synchronising

The thesis times GPU code with a host clock (`cpuSecond`, on `gettimeofday`) around the launch,
and insists on `cudaDeviceSynchronize()` before reading the clock: a launch only queues the kernel
and returns. `cells.Launch` waits for its kernel (so that a fault is its own error); the bare
`<<<...>>>` is `cells.LaunchAsync`. The cell times `busy` three ways: the host clock around
`LaunchAsync` alone, the host clock around `LaunchAsync` and `dev.Synchronize()`, and CUDA events
around the kernel (`Kernel.Time`, the modern way). Whether the launch returned early is read off
the numbers.
''')

code(r'''
import "time"

busyN, rounds := 1<<20, 2000
if gpuTag != "" {
	busyN, rounds = 1<<12, 200
}
bufBusy, err := cells.NewBuffer(dev, cells.Float32, busyN)
if err != nil {
	panic(err)
}
busyGrid, busyBlock := gpu.Dim(blocksFor(busyN, 256)), gpu.Dim(256)
launch("busy", busyGrid, busyBlock, bufBusy, busyN, rounds) // untimed: the first launch of a module pays for loading it
if err := dev.Synchronize(); err != nil {
	panic(err)
}
t0 := time.Now()
if err := cells.LaunchAsync("busy", busyGrid, busyBlock, bufBusy, busyN, rounds); err != nil {
	panic(err)
}
returned := time.Since(t0)
if err := dev.Synchronize(); err != nil {
	panic(err)
}
finished := time.Since(t0)
bk, err := cells.GetKernel("busy")
if err != nil {
	panic(err)
}
events, err := bk.Time(busyGrid, busyBlock, 0, bufBusy, busyN, rounds)
if err != nil {
	panic(err)
}
bufBusy.Free()
timing := display.NewTable(fmt.Sprintf("busy on %d threads × %d rounds%s", busyN, rounds, gpuTag), "what is timed", "time")
timing.Add("host clock, launch only", returned)
timing.Add("host clock, launch + synchronize", finished)
timing.Add("CUDA events around the kernel", events)
if err := display.Show(timing); err != nil {
	panic(err)
}
if returned < finished/2 {
	fmt.Printf("The launch returned after %v, the kernel finished after %v: without synchronising, the host clock would have measured the launch, not the kernel.\n", returned, finished)
} else {
	fmt.Printf("Here the launch returned only after %v of the %v: this driver ran the kernel before returning, so the two clocks agree. On a GPU a launch returns at once.\n", returned, finished)
}
''', subject="the section's experiment: one kernel timed by the host clock, with and without synchronising, and by CUDA events")

md(r'''
## §2.5 Dijkstra step by step (Figs. 2.4–2.6)

The thesis runs Dijkstra from s on a digraph with vertices s, a, b, c, d. Its text gives most arc
weights outright or through the distance changes it reports; one it never gives, a→d. (b→d = 2 is
forced: d changes when b, at distance 5, settles, and is 7 afterwards.) `graph.Example("musap-sabcd")`
completes a→d with 6 — an assumption, the smallest integer consistent with every change the text
reports: d changes when a, at 2, settles and again when b does, so a→d > 5. The value d takes when a
settles, 8, is not the thesis's: it follows from the assumed a→d = 6, and the text gives none. The
graph's notes say which arcs are which.

`cpu.Dijkstra` with a `Trace` records both of the thesis's forms: the sequential Algorithm 1 (one
vertex settled per step, the distances C after relaxing its arcs) and the frontier Algorithm 2 (per
while-iteration: the frontier F, C after the relax, the minimum mssp over the unsettled vertices,
then F and U after the update). The cell asserts every row against the thesis's trace, with that
one value of the assumption in it, and the final C = [0, 2, 5, 6, 7].
''')

code(r'''
sabcd, err := graph.Example("musap-sabcd")
if err != nil {
	panic(err)
}
for _, note := range sabcd.Notes() {
	fmt.Println("•", note)
}

// vertexSet names the vertices of vs, "{a, b}", as the thesis writes F and
// U; distText writes a distance row as the thesis does, ∞ for INT_MAX.
vertexSet, distText := lab.VertexSet, lab.DistList

var trSabcd graph.DijkstraTrace
resSabcd, err := cpu.Dijkstra(Ctx(), sabcd, 0, cpu.DijkstraOptions{Pred: true, Trace: &trSabcd})
if err != nil {
	panic(err)
}
// The thesis's sequential trace: the vertex settled and C after its step.
// After a settles, d = 8 is not the thesis's: it follows from the assumed
// a→d = 6 (the text says only that d changes).
wantSteps := []struct{ settled, c string }{
	{"s", "[0,2,7,∞,∞]"}, {"a", "[0,2,5,10,8]"}, {"b", "[0,2,5,6,7]"}, {"c", "[0,2,5,6,7]"}, {"d", "[0,2,5,6,7]"},
}
check(distText(trSabcd.Initial) == "[0,∞,∞,∞,∞]", "C before the first step is %s", distText(trSabcd.Initial))
check(len(trSabcd.Steps) == len(wantSteps), "%d sequential steps, the thesis has %d", len(trSabcd.Steps), len(wantSteps))
for i, w := range wantSteps {
	s := trSabcd.Steps[i]
	check(sabcd.Label(s.Settled) == w.settled && distText(s.Dist) == w.c,
		"step %d settles %s with C = %s; the thesis settles %s with C = %s", i+1, sabcd.Label(s.Settled), distText(s.Dist), w.settled, w.c)
}
// The frontier form: F before the relax, C after it, mssp, F and U after the update.
wantIters := []struct{ f, c, mssp, next, u string }{
	{"{s}", "[0,2,7,∞,∞]", "2", "{a}", "{b, c, d}"},
	{"{a}", "[0,2,5,10,8]", "5", "{b}", "{c, d}"},
	{"{b}", "[0,2,5,6,7]", "6", "{c}", "{d}"},
	{"{c}", "[0,2,5,6,7]", "7", "{d}", "{}"},
	{"{d}", "[0,2,5,6,7]", "∞", "{}", "{}"},
}
check(len(trSabcd.Frontier) == len(wantIters), "%d while-iterations, the thesis's trace has %d", len(trSabcd.Frontier), len(wantIters))
for i, w := range wantIters {
	it := trSabcd.Frontier[i]
	row := []string{vertexSet(sabcd, it.Frontier), distText(it.Dist), graph.FormatDist(it.Min), vertexSet(sabcd, it.Next), vertexSet(sabcd, it.Unsettled)}
	thesisRow := []string{w.f, w.c, w.mssp, w.next, w.u}
	check(strings.Join(row, " ") == strings.Join(thesisRow, " "), "iteration %d: F, C, mssp, F', U = %v; the thesis has %v", i+1, row, thesisRow)
}
check(distText(resSabcd.Dist) == "[0,2,5,6,7]", "final C = %s, the thesis has [0,2,5,6,7]", distText(resSabcd.Dist))
fmt.Println("both traces are the thesis's, step by step (d = 8 after a settles from the assumed a→d = 6); final C = [0,2,5,6,7], settle order", vertexSet(sabcd, trSabcd.SettleOrder()))
display.DijkstraTrace(&trSabcd)
''', subject="the section's worked example: Figs. 2.4-2.6's Dijkstra steps on the thesis's graph, checked step by step")

md(r'''
### The same example on the GPU

`dijkstra-martin` is the thesis's GPU version: one thread per vertex in blocks of 512, and per
while-iteration a relax launch, a minimum launch (a shared-memory reduction per block, whose
partial minima the host copies back and reduces, as the thesis does), and an update launch, until
the minimum is ∞. It fixes what a reading of the listing finds: the reduction's last warp
synchronises explicitly (the thesis's warp-synchronous tail races on Volta and later GPUs), the
host buffer of partial minima is allocated once, and the CSR has n+1 offsets. A run makes three
launches per while-iteration (the last has no update, the first launch initialises), so the
launch count gives the number of iterations: it must be the trace's 5.
''')

code(r'''
// vertexOf returns the vertex of g labelled name.
func vertexOf(g *graph.Graph, name string) int {
	v, err := g.Vertex(name)
	if err != nil {
		panic(err)
	}
	return v
}

// martinIterations is the number of while-iterations of a dijkstra-martin
// run without predecessors: one init launch, relax + minimum + update per
// iteration, and no update in the last.
func martinIterations(st gpu.Stats) int { return st.Launches / 3 }

if noGPU != "" {
	fmt.Println(noGPU + ": the GPU form is not run")
} else {
	var st gpu.Stats
	got, err := gpu.SingleSource(Ctx(), gpu.VariantDijkstraMartin, sabcd, 0, gpu.Options{Device: dev, Stats: &st})
	if err != nil {
		panic(err)
	}
	check(got.SameDistances(resSabcd), "dijkstra-martin on the §2.5 example:\n%s", got.Diff(resSabcd, 5))
	check(martinIterations(st) == len(trSabcd.Frontier), "dijkstra-martin made %d launches (%d iterations), the trace has %d iterations",
		st.Launches, martinIterations(st), len(trSabcd.Frontier))
	fmt.Printf("dijkstra-martin%s: C = %s in %d while-iterations (%d launches)\n", gpuTag, distText(got.Dist), martinIterations(st), st.Launches)
}
''')

md(r'''
The shortest path to d, from the predecessors the trace recorded:
''')

code(r'''
toD, err := resSabcd.PathTo(vertexOf(sabcd, "d"))
if err != nil {
	panic(err)
}
display.Graph(sabcd).Path(toD).Title("§2.5: the shortest s → d weighs 7 (a→d assumed)")
''')

md(r'''
## A frontier with ties

On the §2.5 graph no two vertices share a distance, so each frontier holds one vertex and the
parallel form needs as many iterations as the sequential one has steps. The thesis's point is the
other case: every vertex at the current minimum settles at once. `graph.Example("musap-ties")` (a
graph made for pathnotes, not from the thesis) has a and b at distance 1 and c, d, e at distance 2:
the frontier holds {a, b}, then {c, d, e}, and the loop ends after 5 iterations where the
sequential form takes 8 steps. The cell asserts that and that the GPU makes the same 5 iterations.
''')

code(r'''
ties, err := graph.Example("musap-ties")
if err != nil {
	panic(err)
}
var trTies graph.DijkstraTrace
resTies, err := cpu.Dijkstra(Ctx(), ties, 0, cpu.DijkstraOptions{Pred: true, Trace: &trTies})
if err != nil {
	panic(err)
}
var frontiers []string
largest := 0
for _, it := range trTies.Frontier {
	frontiers = append(frontiers, vertexSet(ties, it.Frontier))
	largest = max(largest, len(it.Frontier))
}
check(strings.Join(frontiers, " ") == "{s} {a, b} {c, d, e} {f} {g}", "frontiers %v", frontiers)
check(len(trTies.Steps) == 8 && len(trTies.Frontier) == 5, "%d sequential steps and %d while-iterations, want 8 and 5", len(trTies.Steps), len(trTies.Frontier))
check(distText(resTies.Dist) == "[0,1,1,2,2,2,3,4]", "distances %s", distText(resTies.Dist))
fmt.Printf("frontiers %s: %d while-iterations for %d sequential steps, up to |F| = %d\n", strings.Join(frontiers, " "), len(trTies.Frontier), len(trTies.Steps), largest)
if noGPU == "" {
	var st gpu.Stats
	got, err := gpu.SingleSource(Ctx(), gpu.VariantDijkstraMartin, ties, 0, gpu.Options{Device: dev, Stats: &st})
	if err != nil {
		panic(err)
	}
	check(got.SameDistances(resTies), "dijkstra-martin on the ties example:\n%s", got.Diff(resTies, 5))
	check(martinIterations(st) == 5, "dijkstra-martin made %d iterations on the ties example, want 5", martinIterations(st))
	fmt.Printf("dijkstra-martin%s: the same distances in %d while-iterations\n", gpuTag, martinIterations(st))
}
display.DijkstraTrace(&trTies).FrontierTable()
''')

md(r'''
## §2.7 The race in the relax step

When several frontier vertices have arcs into the same unsettled vertex t, their threads update
C[t] at the same time. Harish and Narayanan's relax reads C[t], compares and writes — and, as Martín
et al. pointed out, two threads can both read the old value, and the larger candidate can be
written last. The thesis fixes it with `atomicMin`. (Its other fix, letting each unsettled vertex
pull from its predecessors so that only one thread writes C[t], needs the reversed graph, and the
thesis did not take it.)

The two kernels below run the thesis's relax on its compact arrays V, E, W, C, F, U — one thread per
vertex, frontier vertices push along their arcs to unsettled targets — one with the plain update
and one with `atomicMin`. The graph is a star: s reaches k vertices with arcs of weight 1, so all
k form one frontier (a tie, as above), and each has one arc into t, with the weights 1..k in a
random order drawn anew for every launch. After one relax C[t] must be 1 + 1 = 2.
''')

code(r'''
%%cuda --name musaprace
// Musap §2.7-2.8: frontier vertices (F[i] == 1) push along their arcs to
// unsettled targets (U[t] == 1). relaxWrong reads, compares and writes C[t]
// (Harish & Narayanan's relax); relaxAtomic uses atomicMin, as the thesis does.
__device__ void relax(const int *V, const int *E, const int *W, int *C, const int *F, const int *U, int n, bool atomic) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || F[i] != 1) {
        return;
    }
    for (int j = V[i]; j < V[i + 1]; j++) {
        int t = E[j];
        if (U[t] != 1) {
            continue;
        }
        int alt = C[i] + W[j];
        if (atomic) {
            atomicMin(&C[t], alt);
        } else if (alt < C[t]) {
            C[t] = alt;
        }
    }
}

__global__ void relaxWrong(const int *V, const int *E, const int *W, int *C, const int *F, const int *U, int n) {
    relax(V, E, W, C, F, U, n, false);
}

__global__ void relaxAtomic(const int *V, const int *E, const int *W, int *C, const int *F, const int *U, int n) {
    relax(V, E, W, C, F, U, n, true);
}
''')

code(r'''
import "math/rand/v2"

// starGraph is s = 0 → 1..k (weight 1) and i → t = k+1 for every i, the
// weights of the arcs into t being 1..k.
func starGraph(k int) *graph.Graph {
	arcs := make([]graph.Arc, 0, 2*k)
	for i := 1; i <= k; i++ {
		arcs = append(arcs, graph.Arc{From: 0, To: i, Weight: 1}, graph.Arc{From: i, To: k + 1, Weight: int32(i)})
	}
	g, err := graph.FromArcs(k+2, arcs)
	if err != nil {
		panic(err)
	}
	return g.WithName(fmt.Sprintf("star with %d frontier vertices", k))
}

raceLaunches := 20                    // launches of each kernel on each star
rng := rand.New(rand.NewPCG(seed, 7)) // shuffles the weights into t before each launch
''')

code(r'''
raceRows := display.NewTable(fmt.Sprintf("One relax of the thesis's kernel, %d launches each, weights into t shuffled per launch%s", raceLaunches, gpuTag),
	"frontier vertices", "kernel", "wrong C[t]", "largest C[t] left")
wrongTotal := map[string]int{}
for _, k := range []int{32, 1024, 1 << 16} {
	g := starGraph(k)
	n := g.N()
	ref, err := cpu.Dijkstra(Ctx(), g, 0, cpu.DijkstraOptions{})
	if err != nil {
		panic(err)
	}
	check(ref.Dist[n-1] == 2, "d(s, t) = %d on the star, want 2", ref.Dist[n-1])
	offV, tgtE, wW, err := cells.GraphCSR(dev, g)
	if err != nil {
		panic(err)
	}
	weightsW := g.Weights()
	// The arcs into t are the last k of the CSR (rows 1..k, one arc each).
	intoT := make([]int32, k)
	for i := range intoT {
		intoT[i] = int32(i + 1)
	}
	c0, f0, u0 := make([]int32, n), make([]int32, n), make([]int32, n)
	c0[n-1], u0[n-1] = graph.Inf, 1
	for i := 1; i <= k; i++ {
		c0[i], f0[i] = 1, 1
	}
	bufs, err := lab.Int32Buffers(dev, c0, f0, u0)
	if err != nil {
		panic(err)
	}
	bufC, bufF, bufU := bufs[0], bufs[1], bufs[2]
	for _, name := range []string{"relaxWrong", "relaxAtomic"} {
		bad, worst := lab.RaceRuns(raceLaunches, 2, func() int32 {
			rng.Shuffle(k, func(i, j int) { intoT[i], intoT[j] = intoT[j], intoT[i] })
			copy(weightsW[k:], intoT)
			if err := wW.CopyInt32s(weightsW); err != nil {
				panic(err)
			}
			if err := bufC.CopyInt32s(c0); err != nil {
				panic(err)
			}
			launch(name, gpu.Dim(blocksFor(n, 512)), gpu.Dim(512), offV, tgtE, wW, bufC, bufF, bufU, n)
			return int32s(bufC)[n-1]
		})
		wrongTotal[name] += bad
		raceRows.Add(k, name, fmt.Sprintf("%d of %d", bad, raceLaunches), worst)
	}
	for _, b := range []*cells.Buffer{offV, tgtE, wW, bufC, bufF, bufU} {
		b.Free()
	}
}
if err := display.Show(raceRows); err != nil {
	panic(err)
}
said, err := lab.RaceVerdict(dev.Info().Name, wrongTotal["relaxWrong"], wrongTotal["relaxAtomic"], 3*raceLaunches)
if err != nil {
	panic(err)
}
fmt.Println(said)
''', subject="the section's experiment: the racing relax and its atomicMin twin on growing frontiers")

md(r'''
## §2.8 The compact adjacency list (Figs. 2.9 and 2.10)

The kernels above read the graph as the thesis stores it (§2.8): not an n×n adjacency matrix, which
takes 4n² bytes whatever the number of arcs, but an adjacency list packed into arrays. V_a has
one entry a vertex, the index in E_a where its arcs begin; E_a holds the arcs' targets, vertex by
vertex, and W_a their weights. Vertex i's arcs are E_a[V_a[i]] … E_a[V_a[i+1] − 1]. Fig. 2.9
draws a small digraph with its adjacency matrix and list, Fig. 2.10 the same list packed, with
weights "chosen at random".

The figures are not in the copy of the thesis used here, and the text gives only vertex 0's part:
V_a[0] = 0 and V_a[1] = 2, so vertex 0 has two arcs, to 2 with weight 5 and to 4 with weight 9. It
also writes those two targets as "E_a[0] = 8 and E_a[2 − 1] = E_a[1] = 6", which contradicts the
weights it reads beside them (the arcs 0→2 and 0→4): one of the two is a slip, and the schematic below
follows the arcs the weights name. Its other arcs are made up for the picture, labelled so. The
thesis's V_a has n entries; pathnotes' CSR (`g.Offsets()`, what `dev.GraphCSR` uploads) has n+1, the
last marking where the last vertex's arcs end, which the thesis's V_a[i+1] needs for i = n−1.
''')

code(r'''
// Vertex 0's arcs are the thesis's (§2.8); the others are made up for the picture.
csrExample, err := graph.NewBuilder(5).AddArc(0, 2, 5).AddArc(0, 4, 9).
	AddArc(1, 0, 3).AddArc(2, 1, 4).AddArc(2, 3, 8).AddArc(3, 4, 1).AddArc(4, 1, 6).Build()
if err != nil {
	panic(err)
}
check(csrExample.Offsets()[0] == 0 && csrExample.Offsets()[1] == 2, "V_a starts %v, the thesis has 0, 2", csrExample.Offsets()[:2])
display.Row(
	display.WeightMatrix(csrExample).Title("adjacency matrix"),
	display.CSR(csrExample).Names("V_a", "E_a", "W_a").WithoutEnd().
		Title("Figs. 2.9–2.10 (schematic): the adjacency list and its arrays; only vertex 0's arcs are the thesis's, and ∞ in the matrix is the thesis's 0, no arc"))
''')

md(r'''
## §2.9 The experiment: out-degree 7, one to ten million vertices

The thesis's graphs (taken from Martín et al.) give every vertex out-degree 7, with one arc per
vertex placed first so that the source reaches everything. `graph.ConstantDegree(n, 7, …)` builds
them: the ring arc i → i+1 mod n and six more to distinct random targets. For each size the
thesis made 10 graphs, ran the CPU version and then the GPU version on each, and plotted the means.

The thesis's CPU version is its Algorithm 1 with an array scan for the minimum, O(n²): about 10¹²
steps at a million vertices (tens of minutes) and 10¹⁴ at ten million (about a day), although the
thesis says its CPU run "does not take long enough to cause problems" at these sizes. The CPU
column here is `cpu.Dijkstra`, a binary heap, so whatever speed-up appears is the GPU's against a
good CPU algorithm, not against a quadratic one. For the GPU, **kernels** is the device time of the loop (launches, and the small
copy of partial minima every iteration), **wall** the whole call with the graph's upload. Every GPU
result has the CPU's distances. The thesis times neither generation nor, as far as its text says,
the upload; generation is left out here too.
''')

code(r'''
_, fastErr := gpu.Lookup("sssp-fast")
if fastErr != nil {
	fmt.Printf("sssp-fast: skipped, not registered in this build (%v)\n", fastErr)
}
withFast := fastErr == nil && noGPU == ""

// sizeRow is what one size measured, means over its graphs.
type sizeRow struct {
	N                                       int
	CPU, Wall, Kernel, FastWall, FastKernel float64
	Iterations                              float64
}
var rows []sizeRow
exp := display.NewTable("§2.9 rebuilt: out-degree 7, seconds (means over the graphs)", "|V|", "|E|", "graphs", "cpu.Dijkstra",
	"dijkstra-martin kernels"+here, "dijkstra-martin wall"+here, "while-iterations", "sssp-fast kernels"+here, "sssp-fast wall"+here).
	Ratio("CPU ÷ kernels", "cpu.Dijkstra", "dijkstra-martin kernels"+here).
	Ratio("CPU ÷ wall", "cpu.Dijkstra", "dijkstra-martin wall"+here)
exp.Note("thesis: Tesla S2050, 10 graphs per size, CPU = Algorithm 1 with an O(n²) array scan; no numbers, only Figs. 2.11-2.12")
exp.Note(fmt.Sprintf("here: %s; %s; graph.ConstantDegree(n, %d, weights %d..%d, seed %d+k), source 0; every GPU result has cpu.Dijkstra's distances",
	host, gpuHost, degree, weights.Min, weights.Max, seed))
exp.Note("while-iterations: dijkstra-martin's launches ÷ 3, the number of distinct finite distances")
if noGPU == "" { // one untimed run first (lab's Machine.WarmSingleSource)
	g, err := graph.ConstantDegree(max(int(1e6*sizeF), degree+1), degree, weights, seed)
	warm := []string{gpu.VariantDijkstraMartin}
	if withFast {
		warm = append(warm, "sssp-fast")
	}
	if err == nil {
		err = machine.WarmSingleSource(Ctx(), g, warm...)
	}
	if err != nil {
		panic(err)
	}
}
''')

code(r'''
for i := 1; i <= 10; i++ {
	n := max(int(float64(i)*1e6*sizeF), degree+1)
	row := sizeRow{N: n}
	for k := 0; k < graphsPerN; k++ {
		g, err := graph.ConstantDegree(n, degree, weights, seed+uint64(k))
		if err != nil {
			panic(err)
		}
		g = g.WithName(fmt.Sprintf("ConstantDegree(%d, %d), graph %d", n, degree, k))
		var ref *graph.SingleSource
		row.CPU += lab.HostSeconds(func() { ref, err = cpu.Dijkstra(Ctx(), g, 0, cpu.DijkstraOptions{}) }) / float64(graphsPerN)
		if err != nil {
			panic(err)
		}
		if noGPU != "" {
			continue
		}
		// Each GPU result has cpu.Dijkstra's distances (Machine.MeanSingleSource checks them).
		w, kt, st, err := machine.MeanSingleSource(Ctx(), gpu.VariantDijkstraMartin, g, 0, ref)
		row.Wall += w / float64(graphsPerN)
		row.Kernel += kt / float64(graphsPerN)
		row.Iterations += float64(martinIterations(st)) / float64(graphsPerN)
		if withFast && err == nil {
			w, kt, _, err = machine.MeanSingleSource(Ctx(), "sssp-fast", g, 0, ref)
			row.FastWall += w / float64(graphsPerN)
			row.FastKernel += kt / float64(graphsPerN)
		}
		if err != nil {
			panic(err)
		}
	}
	rows = append(rows, row)
	exp.Add(n, n*degree, graphsPerN, row.CPU, machine.Seconds(row.Kernel, true), machine.Seconds(row.Wall, true),
		machine.Seconds(row.Iterations, true), row.FastKernel, row.FastWall)
}
if !withFast {
	exp.Drop("sssp-fast kernels"+here, "sssp-fast wall"+here)
}
exp
''')

md(r'''
### Why sssp-fast lost to dijkstra-martin here, and now runs bf-flag's kernels

pathnotes' own `sssp-fast` is its fastest single-source variant on most graphs, yet in an earlier
run of this notebook (on an H100, build 262633d) its kernels took 2.4 to 3.3 times
dijkstra-martin's at every size. Its engine then was near-far worklists (a form of delta-stepping) on one persistent grid. It did
less work than dijkstra-martin, 1.17 expansions per vertex at 10⁷ vertices, but each expansion
is a chain of dependent random reads: the worklist entry, then that vertex's distance, then its
arcs, then each target's distance and an atomic. Nsight Compute on an H200 found its warps
waiting on those loads and atomics for 243 of the 281 cycles between two instructions, with DRAM
at 14 % of its bandwidth. dijkstra-martin reads the same arrays in index order, one thread per
vertex, and on these graphs it needs only about 50 rounds (the while-iterations column): out-degree
7 with random targets puts every vertex a few hops from the source.

`sssp-fast` now tells such graphs apart (no hubs, mean out-degree above 4.5) and runs the flag
frontier Bellman-Ford of bf-flag on them ([Bodra] §2.1.3: the threads walk the vertices in index
order and relax the out-arcs only of those flagged as changed in the pass before, and the run
stops at the first pass that changes nothing).
In the table above (this notebook's run on an H200) its kernels take 0.96 ms at 10⁶ vertices
and 9.91 ms at 10⁷, 0.50 to 0.71 times dijkstra-martin's 1.92 and 14.0 ms, and less at every size
between. Measured apart on an H200, the last worklist engine took 2.20 and 20.7 ms there; those
numbers and the profile are in [docs/gpu-benchmarks.md](../docs/gpu-benchmarks.md) (in this
repository), "Single source on every graph class". The walls stay level with dijkstra-martin's:
both are mostly the copies and the host's work around the kernels.
''')

md(r'''
### Figs. 2.11 and 2.12 redrawn

Fig. 2.11 plots CPU and GPU time against |V| with fitted curves; Fig. 2.12 the ratio CPU ÷ GPU,
which in the thesis grows with the size. The thesis's figures carry no numbers, so only their
shapes can be compared: the cell fits a straight line t = a + b·|V| to each series by least
squares, and says from the numbers whether the ratio grows.
''')

code(r'''
var xs, cpuT, gpuK, gpuW, fastW, ratioK, ratioW, ratioF []float64
for _, r := range rows {
	xs, cpuT = append(xs, float64(r.N)), append(cpuT, r.CPU)
	if r.Kernel > 0 {
		gpuK, gpuW = append(gpuK, r.Kernel), append(gpuW, r.Wall)
		ratioK, ratioW = append(ratioK, r.CPU/r.Kernel), append(ratioW, r.CPU/r.Wall)
	}
	if r.FastWall > 0 {
		fastW, ratioF = append(fastW, r.FastWall), append(ratioF, r.CPU/r.FastWall)
	}
}
// Each series in its own colour in both figures; a fitted line is drawn
// as the curve it is on the log y axis.
fig211 := display.NewPlot("Fig. 2.11 redrawn: CPU and GPU time, with least-squares lines", "|V|", "seconds").
	Sources("[Musap 2016]", "here"+gpuTag)
fits := display.NewTable("Least-squares lines t = a + b·|V|", "series", "a (s)", "b (s per million vertices)")
for _, s := range []struct {
	name string
	ys   []float64
}{{"cpu.Dijkstra", cpuT}, {"dijkstra-martin kernels", gpuK}, {"dijkstra-martin wall", gpuW}, {"sssp-fast wall", fastW}} {
	if len(s.ys) != len(xs) {
		continue
	}
	fa, fb := lab.FitLine(xs, s.ys)
	fig211.Line(s.name, xs, s.ys).Fit(s.name, func(x float64) float64 { return fa + fb*x })
	fits.Add(s.name+here, fa, fb*1e6)
}
if err := display.Show(display.Row(fig211, fits)); err != nil {
	panic(err)
}
if len(ratioK) == 0 {
	fmt.Println(noGPU + ": no ratio to draw")
} else {
	fig212 := display.NewPlot("Fig. 2.12 redrawn: cpu.Dijkstra's time ÷ each GPU time", "|V|", "times faster").
		Sources("[Musap 2016]", "here"+gpuTag).
		Line("dijkstra-martin kernels", xs, ratioK).Line("dijkstra-martin wall", xs, ratioW)
	if len(ratioF) == len(xs) {
		fig212.Line("sssp-fast wall", xs, ratioF)
	}
	// The ratio "grows" when its fitted slope is positive and the largest
	// size's ratio beats the smallest's.
	_, bk := lab.FitLine(xs, ratioK)
	grows := bk > 0 && ratioK[len(ratioK)-1] > ratioK[0]
	verdict := map[bool]string{true: "grows with |V|, as in the thesis", false: "does not grow with |V|, unlike the thesis's Fig. 2.12"}[grows]
	fmt.Printf("CPU ÷ GPU kernels runs from %.3g at |V| = %d to %.3g at |V| = %d: it %s\n", ratioK[0], int(xs[0]), ratioK[len(ratioK)-1], int(xs[len(xs)-1]), verdict)
	if gpuTag != "" {
		fmt.Println("These are emulator times: they count interpreted instructions on the CPU and say nothing about GPUs.")
	}
	if err := display.Show(fig212); err != nil {
		panic(err)
	}
}
''', subject="the section redraws Figs. 2.11 and 2.12 with their least-squares lines and reads the ratio's trend")

md(r'''
## What is not reproduced

- **The hardware.** A Tesla S2050 then; the machine named at the top now. The thesis gives no
  numbers, so only the shapes compare: whether the GPU is faster and whether its lead grows.
- **The CPU baseline.** The thesis's sequential Dijkstra scans an array for the minimum, O(n²);
  this notebook's is a binary-heap Dijkstra, far faster at these sizes, so the ratios here are
  smaller than the thesis's method would give and say more about the GPU.
- **The graphs.** The thesis does not say how it placed its first arc per vertex or which weights
  it drew; here the ring arc i → i+1 and weights 1..10 from a stated seed, `graphsPerN` graphs per
  size instead of 10.
- **The example's arc** a→d is assumed (6): the thesis's text does not give it; b→d = 2 follows
  from the text.
- **The listings' bugs** (the warp-synchronous reduction tail, the per-iteration allocation that is
  never freed, the swapped index in the chapter-1 kernel, the 256×256 block) are fixed, not copied.
''')


common.references(nb)
nb.write("02-musap-dijkstra.ipynb")

#!/usr/bin/env python3
"""Writes notebooks/05-apsp-lab-solutions.ipynb, keeping the outputs of unchanged code cells.

Working answers to the exercises of the Greek lab handout ([Lab handout] §2):
Floyd-Warshall in CUDA with one launch per pivot (1-D and 2-D blocks),
tiled in global memory, tiled in shared memory; each passes lab.CheckAPSP
and is timed against the CPU's tiled version, and the handout's questions
are answered from the measured numbers. Run it with `pathnotes run` to fill
in the outputs (the %%cuda cells' PTX is cached in notebooks/.pathnotes-ptx/):

    python3 notebooks/src/05-apsp-lab-solutions.py
    PATHNOTES_SCALE=0.05 pathnotes run notebooks/05-apsp-lab-solutions.ipynb --out notebooks
"""

import importlib.util
import os

_spec = importlib.util.spec_from_file_location(
    "lab05", os.path.join(os.path.dirname(os.path.abspath(__file__)), "05-apsp-lab-common.py"))
lab05 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lab05)

nb = lab05.Notebook("apsp-lab-sol")
md, code = nb.md, nb.code

lab05.title(nb, r'''
# Floyd-Warshall on the GPU: the lab's solutions

Worked answers to the exercises of a Greek parallel-systems lab handout ([Lab handout]; it names no
author, course or date): all-pairs shortest paths with Floyd-Warshall in CUDA, in
three versions,

1. the textbook algorithm, one launch per pivot k, with 1-D and with 2-D thread blocks (task 2.1);
2. the tiled algorithm in global memory only (task 2.2);
3. the tiled algorithm with tiles staged in each SM's shared memory (task 2.3);

each compared with the tiled CPU version for graphs of 1024 to 8192 vertices. The exercises
themselves, with skeleton kernels to fill in, are in `05-apsp-lab.ipynb`. Every version here passes
`lab.CheckAPSP` (the notebook fails otherwise), and every answer that depends on a measurement is
computed from this run's numbers.
''')

lab05.setup(nb)

md(r'''
## Task 2.1: the basic implementation

Algorithm 1 of the handout, for every k, relaxes every cell through k:
`w[i][j] = min(w[i][j], w[i][k] + w[k][j])`. For a fixed k the n² updates are independent (row k
and column k do not change during step k, since `w[k][k] = 0`), so one launch per k with one
thread per cell is the whole algorithm; the end of a launch is the barrier the handout asks for
after each k. Both kernels guard the sum against INF and give the consecutive j of a row to
consecutive threads (`threadIdx.x`), so that a warp reads 32 neighbouring words: coalesced.
''')

code(r'''
%%cuda --name naive
#define INF 2147483647 // graph.Inf: no path

// relax returns cur improved through the pivot, or cur: INF + w must not wrap.
__device__ __forceinline__ int relax(int cur, int ik, int kj) {
    return (ik != INF && kj != INF && ik + kj < cur) ? ik + kj : cur;
}

// One thread per cell, 1-D blocks: thread idx is cell (idx / n, idx % n).
__global__ void fwNaive1D(int *d, int n, int k) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= n * n) return;
    int i = idx / n, j = idx % n;
    d[idx] = relax(d[idx], d[i * n + k], d[k * n + j]);
}

// One thread per cell, 2-D blocks: x along j, y along i.
__global__ void fwNaive2D(int *d, int n, int k) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n) return;
    d[i * n + j] = relax(d[i * n + j], d[i * n + k], d[k * n + j]);
}
''')

code(r'''
''' + lab05.KERNEL + r'''

''' + lab05.CEIL_DIV + r'''

''' + lab05.NAIVE_1D + r'''

''' + lab05.NAIVE_2D + r'''

// mustPass checks fn and panics, so that the notebook fails, unless every case passes.
func mustPass(name string, fn lab.APSPFunc) *lab.Report {
	rep, err := lab.CheckAPSP(Ctx(), fn, lab.CheckOptions{Device: dev, Negative: true})
	if err != nil {
		fmt.Println(rep)
		panic(name + ": " + err.Error())
	}
	fmt.Printf("%s: all %d cases pass\n", name, len(rep.Cases))
	return rep
}

mustPass("naive, 1-D blocks of 256", naive1D(256))
mustPass("naive, 2-D blocks of 32×8", naive2D(32, 8))
''', subject="the answer to Task 2.1: the launch functions of the naive kernels, checked")

md(r'''
### 2.1 (a): 1-D or 2-D blocks?

Both map consecutive threads to consecutive j, so both coalesce; they differ in what a block
covers (a 1-D block of 256 threads is a run of 256 cells of one or two rows; a 32×8 block is a
32-wide strip of 8 rows) and in the 1-D kernel's division and remainder per thread. The shapes
below are timed at the largest size; the cell after it draws the answer from the times. A shape
with `threadIdx.x` along i instead (not timed here) would give each warp 32 cells a row apart:
32 memory transactions instead of one.
''')

code(r'''
// shapes are the block shapes tried: y = 0 means 1-D blocks of x threads.
shapes := []struct{ x, y int }{{128, 0}, {256, 0}, {1024, 0}, {16, 16}, {32, 8}, {32, 32}}

// shapeName names a block shape as the table shows it.
func shapeName(x, y int) string {
	if y == 0 {
		return fmt.Sprintf("1-D %d", x)
	}
	return fmt.Sprintf("2-D %d×%d", x, y)
}

var shapeEntries []lab.APSPEntry
for _, sh := range shapes {
	fn := naive1D(sh.x)
	if sh.y > 0 {
		fn = naive2D(sh.x, sh.y)
	}
	shapeEntries = append(shapeEntries, lab.APSPEntry{Name: shapeName(sh.x, sh.y), Func: fn})
}
shapeN := sizes[len(sizes)-1]
shapeTimes, err := lab.TimeAPSP(Ctx(), shapeEntries, []int{shapeN}, lab.TimeOptions{Device: dev, Variants: []string{}, SkipCPU: true, Seed: seed, Repeats: 2})
if err != nil {
	panic(err)
}
shapeTable := display.NewTable(fmt.Sprintf("Task 2.1 (a): block shapes at n = %d", shapeN), "block", "threads", "time").Units("", "", "s")
for _, sh := range shapes {
	shapeTable.Add(shapeName(sh.x, sh.y), sh.x*max(sh.y, 1), shapeTimes.At(shapeName(sh.x, sh.y), shapeN))
}
if onEmu {
	shapeTable.Note("emulator times on the CPU, not GPU times")
}
shapeTable

''')

code(r'''
var oneD, twoD []string
for _, sh := range shapes {
	if sh.y == 0 {
		oneD = append(oneD, shapeName(sh.x, sh.y))
	} else {
		twoD = append(twoD, shapeName(sh.x, sh.y))
	}
}
best1, s1 := shapeTimes.Fastest(oneD, shapeN)
best2, s2 := shapeTimes.Fastest(twoD, shapeN)
winner, ratio := "2-D", s1/s2
if s1 < s2 {
	winner, ratio = "1-D", s2/s1
}
fmt.Printf("At n = %d the best 1-D block is %s (%.4g s) and the best 2-D block is %s (%.4g s): %s blocks are %.2f× faster.\n",
	shapeN, best1, s1, best2, s2, winner, ratio)
switch {
case ratio < 1.1:
	fmt.Println("Within 10%: with threadIdx.x along j both coalesce, and the kernel is bound by memory traffic, which the shape does not change.")
case winner == "2-D":
	fmt.Println("Both coalesce; the 1-D kernel pays a division and a remainder per thread to find (i, j).")
default:
	fmt.Println("Both coalesce; 2-D blocks whose width does not divide n leave threads idle at the right edge (see the table of idle threads below), 1-D blocks only in the last block.")
}
if onEmu {
	fmt.Println("(emulator times: the handout's warning about emulated times applies)")
}
bestShape, _ := shapeTimes.Fastest(append(oneD, twoD...), shapeN)
var bestNaive lab.APSPFunc
for _, e := range shapeEntries {
	if e.Name == bestShape {
		bestNaive = e.Func
	}
}
fmt.Println("The timing table of §4.1 uses the fastest shape,", bestShape)
''')

md(r'''
A shape also decides how many threads a launch wastes. At the handout's sizes, all powers of two,
every block width and height divides n and no thread falls outside the matrix. At other sizes the
partial blocks at the right and bottom edges (2-D) or at the end (1-D) launch threads that only
test the bound and return. The share is computed, not timed:
''')

code(r'''
// idleShare is the fraction of a launch's threads that fall outside the n×n
// matrix: the partial blocks at its end (1-D) or at its right and bottom edges (2-D).
func idleShare(n, x, y int) float64 {
	launched := ceilDiv(n*n, x) * x
	if y > 0 {
		launched = ceilDiv(n, x) * x * ceilDiv(n, y) * y
	}
	return 1 - float64(n*n)/float64(launched)
}

idleSizes := []int{8192, 1000, 100}
idle := display.NewTable("Threads launched outside the matrix, % of the launch", "block", "n = 8192", "n = 1000", "n = 100")
for _, sh := range shapes {
	row := []any{shapeName(sh.x, sh.y)}
	for _, n := range idleSizes {
		row = append(row, fmt.Sprintf("%.2f", 100*idleShare(n, sh.x, sh.y)))
	}
	idle.Add(row...)
}
idle.Note("a 2-D block of width w leaves w − (n mod w) columns idle in its last column of blocks; a 1-D block idles only in the last block")
idle
''')

md(r'''
## Task 2.2: tiled, in global memory only

Algorithm 2 of the handout cuts the matrix into B×B tiles and, for each round r, runs three phases:
the diagonal tile T_rr on itself (phase 1); the tiles of row r and of column r from T_rr (phase 2);
every other tile T_ij from T_ir and T_rj (phase 3). Phase 2 needs the finished T_rr, phase 3 the
finished row and column: each phase must end, over the whole grid, before the next starts. A
kernel launch is the only grid-wide barrier an ordinary launch has, so each phase is a launch of
its own. Inside a tile, the pivots of the round go one after another with `__syncthreads()`
between them: one block per tile, one thread per cell, B = 32.
''')

code(r'''
%%cuda --name tiledglobal
#define INF 2147483647
#define B 32 // tile side: one thread per cell, 32×32 = 1024 threads per block

__device__ __forceinline__ int relax(int cur, int ik, int kj) {
    return (ik != INF && kj != INF && ik + kj < cur) ? ik + kj : cur;
}

// pivots relaxes cell (i, j) through the round's pivots in order, with a
// barrier after each: in phases 1 and 2 a tile reads cells of its own that
// other threads update. Threads outside the matrix (the last tile may be
// partial) do no work but still reach every barrier.
__device__ void pivots(int *d, int n, int r, int i, int j) {
    bool in = i < n && j < n;
    for (int k = r * B; k < min(r * B + B, n); k++) {
        if (in) d[i * n + j] = relax(d[i * n + j], d[i * n + k], d[k * n + j]);
        __syncthreads();
    }
}

// Phase 1: tile (r, r) on itself.
__global__ void globalPhase1(int *d, int n, int r) {
    pivots(d, n, r, r * B + threadIdx.y, r * B + threadIdx.x);
}

// Phase 2: blockIdx.y 0 takes tile (r, x) of row r, 1 takes tile (x, r) of column r.
__global__ void globalPhase2(int *d, int n, int r) {
    if (blockIdx.x == r) return;
    int i = blockIdx.y == 0 ? r * B + threadIdx.y : blockIdx.x * B + threadIdx.y;
    int j = blockIdx.y == 0 ? blockIdx.x * B + threadIdx.x : r * B + threadIdx.x;
    pivots(d, n, r, i, j);
}

// Phase 3: every other tile (y, x) from tiles (y, r) and (r, x), which do not
// change in this phase: no barrier, the cell stays in a register.
__global__ void globalPhase3(int *d, int n, int r) {
    if (blockIdx.x == r || blockIdx.y == r) return;
    int i = blockIdx.y * B + threadIdx.y, j = blockIdx.x * B + threadIdx.x;
    if (i >= n || j >= n) return;
    int v = d[i * n + j];
    for (int k = r * B; k < min(r * B + B, n); k++) v = relax(v, d[i * n + k], d[k * n + j]);
    d[i * n + j] = v;
}
''', subject="the answer to Task 2.2: the tiled kernels in global memory")

code(r'''
// launchCount counts the launches of the tiled functions' last run.
var launchCount int

// tiled runs the three phase kernels prefix+"Phase1", "Phase2", "Phase3" for
// every round, on tiles of side b with one thread per cell.
func tiled(prefix string, b int) lab.APSPFunc {
	return func(dev *gpu.Device, d *cells.Buffer, n int) error {
		p1, p2, p3 := kernel(prefix+"Phase1"), kernel(prefix+"Phase2"), kernel(prefix+"Phase3")
		tiles, block := ceilDiv(n, b), gpu.Dim(b, b)
		launchCount = 0
		for r := 0; r < tiles; r++ {
			for _, step := range []struct {
				k    *cells.Kernel
				grid gpu.Dim3
			}{{p1, gpu.Dim(1)}, {p2, gpu.Dim(tiles, 2)}, {p3, gpu.Dim(tiles, tiles)}} {
				if err := step.k.Launch(step.grid, block, d, n, r); err != nil {
					return err
				}
				launchCount++
			}
		}
		return nil
	}
}

tiledGlobal := tiled("global", 32)
mustPass("tiled, global memory", tiledGlobal)
''')

md(r'''
### 2.2 (a): how many different kernels at least?

Three, one per phase, in the straightforward design: phase 2 needs all of phase 1's tile and
phase 3 all of phase 2's row and column, and there is no barrier across blocks inside an ordinary
launch. Row and column tiles of phase 2 share one kernel (the block's `y` picks which). Strictly,
one `__global__` function with the phase as an argument would also do, so what cannot go below
three is the number of *launches* per round, not of functions. Gaioso et al. ([Gaioso et al.], variant
`fw-gaioso`) get to two launches per round by having every phase-2 block recompute the diagonal
tile itself, trading redundant work for a launch. The cell below counts the launches of the run
just checked.
''')

code(r'''
countN := sizes[len(sizes)-1]
gm, err := graph.GNM(countN, 4*countN, graph.WeightRange{Min: 1, Max: 100}, seed)
if err != nil {
	panic(err)
}
buf, err := cells.GraphMatrix(dev, gm)
if err != nil {
	panic(err)
}
if err := tiledGlobal(dev, buf, countN); err != nil {
	panic(err)
}
if err := dev.Synchronize(); err != nil {
	panic(err)
}
buf.Free()
if want := 3 * ceilDiv(countN, 32); launchCount != want {
	panic(fmt.Sprintf("%d launches, want 3·⌈%d/32⌉ = %d", launchCount, countN, want))
}
fmt.Printf("n = %d: ⌈n/32⌉ = %d rounds × 3 kernels = %d launches (the naive version: %d, one per k); at n = 8192 the tiled version makes %d launches, the naive %d.\n",
	countN, ceilDiv(countN, 32), launchCount, countN, 3*ceilDiv(8192, 32), 8192)
''')

md(r'''
## Task 2.3: tiles in shared memory

### 2.3 (a): what each phase needs

- **Phase 1** reads and writes only the diagonal tile T_rr: one tile in shared memory.
- **Phase 2** updates its own tile from T_rr: its own tile and T_rr, two tiles.
- **Phase 3** updates T_ij from T_ir and T_rj, which no block of the phase writes: those two tiles
  in shared memory, the own cell in a register (each thread owns one cell), two tiles.

Each tile is loaded once from global memory and then read B times from shared memory, so global
traffic drops by about a factor B against the global-memory version. The kernels below are
templates on the tile side, instantiated for B = 8, 16 and 32 to answer 2.3 (b).
''')

code(r'''
%%cuda --name tiledshared
#define INF 2147483647

__device__ __forceinline__ int relax(int cur, int ik, int kj) {
    return (ik != INF && kj != INF && ik + kj < cur) ? ik + kj : cur;
}

// load copies cell (i, j) into a tile, INF outside the matrix, so that the
// loops need no bound checks: INF never improves anything.
__device__ __forceinline__ int load(const int *d, int n, int i, int j) {
    return i < n && j < n ? d[i * n + j] : INF;
}

// Phase 1: tile (r, r) in shared memory. Row k and column k of the tile do not
// change at step k (w[k][k] = 0), so one barrier per step is enough.
template <int B> __device__ void phase1(int *d, int n, int r) {
    __shared__ int t[B][B];
    int y = threadIdx.y, x = threadIdx.x, i = r * B + y, j = r * B + x;
    t[y][x] = load(d, n, i, j);
    __syncthreads();
    for (int k = 0; k < B; k++) {
        t[y][x] = relax(t[y][x], t[y][k], t[k][x]);
        __syncthreads();
    }
    if (i < n && j < n) d[i * n + j] = t[y][x];
}

// Phase 2: the own tile (row r or column r) and the diagonal tile.
template <int B> __device__ void phase2(int *d, int n, int r) {
    if (blockIdx.x == r) return;
    __shared__ int p[B][B], o[B][B];
    int y = threadIdx.y, x = threadIdx.x;
    bool row = blockIdx.y == 0;
    int i = (row ? r : blockIdx.x) * B + y, j = (row ? blockIdx.x : r) * B + x;
    p[y][x] = load(d, n, r * B + y, r * B + x);
    o[y][x] = load(d, n, i, j);
    __syncthreads();
    for (int k = 0; k < B; k++) {
        o[y][x] = row ? relax(o[y][x], p[y][k], o[k][x]) : relax(o[y][x], o[y][k], p[k][x]);
        __syncthreads();
    }
    if (i < n && j < n) d[i * n + j] = o[y][x];
}

// Phase 3: tiles (y, r) and (r, x) in shared memory, the own cell in a register.
template <int B> __device__ void phase3(int *d, int n, int r) {
    if (blockIdx.x == r || blockIdx.y == r) return;
    __shared__ int a[B][B], b[B][B];
    int y = threadIdx.y, x = threadIdx.x, i = blockIdx.y * B + y, j = blockIdx.x * B + x;
    a[y][x] = load(d, n, i, r * B + x);
    b[y][x] = load(d, n, r * B + y, j);
    __syncthreads();
    if (i >= n || j >= n) return;
    int v = d[i * n + j];
    for (int k = 0; k < B; k++) v = relax(v, a[y][k], b[k][x]);
    d[i * n + j] = v;
}

// The instances the Go side launches by name: sharedB8Phase1 ... sharedB32Phase3.
#define TILE(B)                                                                            \
    extern "C" __global__ void sharedB##B##Phase1(int *d, int n, int r) { phase1<B>(d, n, r); } \
    extern "C" __global__ void sharedB##B##Phase2(int *d, int n, int r) { phase2<B>(d, n, r); } \
    extern "C" __global__ void sharedB##B##Phase3(int *d, int n, int r) { phase3<B>(d, n, r); }
TILE(8)
TILE(16)
TILE(32)
''', subject="the answer to Task 2.3: the tiled kernels in shared memory")

code(r'''
tileSides := []int{8, 16, 32}
var tileEntries []lab.APSPEntry
for _, b := range tileSides {
	fn := tiled(fmt.Sprintf("sharedB%d", b), b)
	mustPass(fmt.Sprintf("tiled, shared memory, B = %d", b), fn)
	tileEntries = append(tileEntries, lab.APSPEntry{Name: fmt.Sprintf("B = %d", b), Func: fn})
}
''')

md(r'''
### 2.3 (b): the ideal tile, and its constraints

With one thread per cell a B×B tile is a block of B² threads, so B ≤ 32 (1024 threads per block,
on Fermi as on every later GPU); phases 2 and 3 hold two B×B `int` tiles in shared memory,
8·B² bytes (8 KB at B = 32), far below the 48 KB a Fermi SM has, so threads, not shared memory,
bound B. Larger tiles (B = 64: 32 KB for two tiles) need several cells per thread. Smaller tiles
mean more rounds (n/B of them, three launches each) and less reuse per load (each loaded value is
read B times). The table gives the limits of this device and the times of the three instances at
the largest size.
''')

code(r'''
limits := display.NewTable("Tile side B: what a block needs, what "+info.Name+" allows",
	"B", "threads per block", "shared bytes (2 tiles)", "fits", "blocks per SM by threads", "rounds at n = 8192")
for _, b := range []int{8, 16, 32, 64} {
	threads, shared := b*b, 2*b*b*4
	fits := threads <= info.MaxThreadsPerBlock && shared <= info.SharedPerBlock
	perSM := "—"
	if info.MaxThreadsPerSM > 0 && threads <= info.MaxThreadsPerBlock {
		perSM = strconv.Itoa(info.MaxThreadsPerSM / threads)
	}
	limits.Add(b, threads, shared, fmt.Sprint(fits), perSM, ceilDiv(8192, b))
}
limits.Note(fmt.Sprintf("%s: at most %d threads per block, %d bytes of shared memory per block (%d when opted in)",
	info.Name, info.MaxThreadsPerBlock, info.SharedPerBlock, info.SharedPerBlockOptin))
limits
''')

code(r'''
tileTimes, err := lab.TimeAPSP(Ctx(), tileEntries, []int{shapeN}, lab.TimeOptions{Device: dev, Variants: []string{}, SkipCPU: true, Seed: seed, Repeats: 2})
if err != nil {
	panic(err)
}
var tileNames []string
for _, e := range tileEntries {
	tileNames = append(tileNames, e.Name)
}
bestTile, bestTileS := tileTimes.Fastest(tileNames, shapeN)
fmt.Printf("At n = %d the fastest tile is %s (%.4g s); ", shapeN, bestTile, bestTileS)
for _, name := range tileNames {
	if name != bestTile {
		fmt.Printf("%s takes %.2f× as long; ", name, tileTimes.At(name, shapeN)/bestTileS)
	}
}
fmt.Println()
if onEmu {
	fmt.Println("(emulator times: on a GPU, B = 32 is the usual winner: the most reuse per load that one thread per cell allows)")
}
tileTimes.Table()
''')

lab05.timing_intro(nb)

code(r'''
versions := []lab.APSPEntry{
	{Name: "naive", Func: bestNaive},
	{Name: "tiled global", Func: tiledGlobal},
	{Name: "tiled shared", Func: tiled("sharedB32", 32)},
}
times, err := lab.TimeAPSP(Ctx(), versions, sizes, lab.TimeOptions{Device: dev, Seed: seed})
if err != nil {
	panic(err)
}
times
''')

code(r'''
display.Row(times.Plot(), times.SpeedupPlot())
''')

md(r'''
## The handout's questions, answered from the table

"How does performance vary with n?" — Floyd-Warshall does n³ updates whatever the graph, so
doubling n should multiply the time by 8 (an exponent of 3); the exponent measured between the
smallest and the largest size says how far each version is from that (small sizes leave the GPU
idle and pay launch overheads, so the exponent starts below 3). "How much faster than the CPU's
tiled version?" — the speed-up at the largest size where both ran.
''')

code(r'''
answers := display.NewTable("Tasks 2.1-2.3 (b)-(d): growth with n and speed-up over the CPU's tiled version",
	"version", "task", "time ∝ n^e, e =", "speed-up over CPU", "at n")
for _, v := range []struct{ name, task string }{
	{"naive", "2.1"}, {"tiled global", "2.2"}, {"tiled shared", "2.3"},
	{gpu.VariantFWHN, "(reference)"}, {gpu.VariantFWTiledGlobal, "(reference)"}, {gpu.VariantFWBlocked, "(reference)"}, {gpu.VariantFWFast, "(reference)"},
} {
	e, ok := times.Growth(v.name) // time ∝ n^e between the first and last sizes measured
	eText := "one size only"
	if ok {
		eText = fmt.Sprintf("%.2f", e)
	}
	sp, at := times.LastSpeedup(v.name) // at the largest size where both ran
	answers.Add(v.name, v.task, eText, fmt.Sprintf("%.3g×", sp), at)
}
if onEmu {
	answers.Note("emulator: the GPU columns are CPU times of an interpreter; these answers only show the method")
}
answers
''')

code(r'''
versionNames := []string{"naive", "tiled global", "tiled shared"}
nTop := sizes[len(sizes)-1]
topVersion, topS := "", 0.0
for _, name := range versionNames {
	if s := times.At(name, nTop); topVersion == "" || s < topS {
		topVersion, topS = name, s
	}
}
cpuS := times.At(times.Baseline, nTop)
fmt.Printf("§4.1: at n = %d the fastest of the three versions is %s, %.2f× faster than the naive one and %.3g× as fast as the CPU's tiled version (%.4g s against %.4g s on %d CPUs).\n",
	nTop, topVersion, times.At("naive", nTop)/topS, cpuS/topS, topS, cpuS, runtime.NumCPU())
sharedVsGlobal := times.At("tiled global", nTop) / times.At("tiled shared", nTop)
fmt.Printf("Staging the tiles in shared memory changed the tiled version's time by a factor %.2f: ", sharedVsGlobal)
if sharedVsGlobal > 1 {
	fmt.Println("each value is loaded from global memory once per tile instead of once per use.")
} else {
	fmt.Println("here it did not help: the global version's reads already hit in the cache, or (on the emulator) memory costs nothing extra.")
}
if onEmu {
	fmt.Println("These numbers come from the emulator; rerun on a GPU for the answers the handout asks for.")
}
''')

md(r'''
## Why: what each version does to memory

The table says which version is fastest; a profile says why. The cell below runs each version
once on a 128-vertex graph with every launch profiled (`gpu.Profile`; a `%%profile` cell does the
same for a whole cell) and shows the kernels side by side, each kernel's launches summed. The
naive kernel reads d[i][k] (one word for the whole warp: one sector) and d[k][j] and d[i][j]
(coalesced: 4 sectors for 32 words), but the whole matrix again for every k; the tiled version in
global memory reads nearly as much (about three quarters of the naive kernel's loads in the profile
below); the shared-memory version loads each tile once per round and then
reads it B = 32 times from shared memory, without bank conflicts. On the emulator the counts are
those Nsight Compute takes on a card (docs/cell-kernels.md compares them); on a card the table
gives registers and occupancy, and the counters need Nsight Compute.
''')

code(r'''
whyN := 128
gWhy, err := graph.GNM(whyN, 16*whyN, graph.WeightRange{Min: 1, Max: 100}, seed)
if err != nil {
	panic(err)
}
var profiled []*gpu.LaunchProfile
moved := map[string]uint64{} // 32-byte sectors of global memory loaded and stored (emulator)
for _, v := range versions {
	d, err := cells.GraphMatrix(dev, gWhy)
	if err != nil {
		panic(err)
	}
	launches, err := gpu.Profile(func() error { return v.Func(dev, d, whyN) })
	d.Free()
	if err != nil {
		panic(err)
	}
	for _, p := range launches {
		if p.Counts != nil {
			moved[v.Name] += p.Counts.Global[gpu.AccessLoad].Sectors + p.Counts.Global[gpu.AccessStore].Sectors
		}
	}
	profiled = append(profiled, launches...)
}
if moved["tiled shared"] > 0 {
	fmt.Printf("Global memory moved at n = %d: naive %s, tiled global %s, tiled shared %s: the shared-memory tiles move %.0f× less than the global ones.\n",
		whyN, graph.FormatBytes(32*moved["naive"]), graph.FormatBytes(32*moved["tiled global"]), graph.FormatBytes(32*moved["tiled shared"]),
		float64(moved["tiled global"])/float64(moved["tiled shared"]))
}
display.Profile(profiled...)
''')

md(r'''
## What differs from the handout

- **Hardware.** The handout's Tesla M2050 (Fermi, 2010) is gone, and so is CUDA's emulation mode;
  the kernels here compile for compute capability 5.2 and run on any later GPU, or on the project's
  PTX emulator.
- **The CPU baseline** is `cpu.FloydWarshallBlocked` (Go, every core, vector kernels where the CPU
  has AVX2), not the handout's OpenMP code; the answers compare with it.
- **Infinity** is `INT_MAX` and every kernel guards its sums; the handout does not say how no-arc
  is stored (its `graph.c`, not included, builds the matrix).
- **Graphs.** The handout does not say how its graphs are generated; the timed ones here are
  uniform random graphs with 16·n arcs and weights 1..100 from the seed above.
''')

lab05.references(nb)
nb.write("05-apsp-lab-solutions.ipynb")

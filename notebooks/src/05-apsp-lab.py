#!/usr/bin/env python3
"""Writes notebooks/05-apsp-lab.ipynb without outputs: it is handed out clean.

The exercises of the Greek lab handout ([Lab handout] §2 and §4.1) as a
notebook: skeleton CUDA kernels to fill in, the Go functions that launch
them, lab.CheckAPSP after each version and lab.TimeAPSP at the end, and the
handout's questions. The skeleton runs as it is (its kernels compile and do
nothing, so the checks print what is wrong without failing the notebook);
worked answers are in 05-apsp-lab-solutions.ipynb. To see the outputs, run
a copy elsewhere (regenerating drops any outputs written here):

    python3 notebooks/src/05-apsp-lab.py
    PATHNOTES_SCALE=0.05 pathnotes run notebooks/05-apsp-lab.ipynb --out /tmp/lab
"""

import importlib.util
import os

_spec = importlib.util.spec_from_file_location(
    "lab05", os.path.join(os.path.dirname(os.path.abspath(__file__)), "05-apsp-lab-common.py"))
lab05 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lab05)

# Handed out clean: the skeleton's checks would only show failures.
nb = lab05.Notebook("apsp-lab", outputs=False)
md, code = nb.md, nb.code

lab05.title(nb, r'''
# Lab: Floyd-Warshall on the GPU

This notebook turns a Greek parallel-systems lab handout [Lab handout] into exercises you can run
here. You write all-pairs shortest paths with the Floyd-Warshall algorithm in CUDA, three times:

1. **Task 2.1** — the textbook algorithm (the handout's Algorithm 1), with 1-D and with 2-D thread
   blocks;
2. **Task 2.2** — the tiled algorithm (Algorithm 2) in global memory only;
3. **Task 2.3** — the tiled algorithm with tiles staged in each SM's shared memory;

and compare each with the tiled CPU version (§4.1) for graphs of 1024 to 8192 vertices (§2.1–2.3).

How to work: the kernels go in the `%%cuda` cells, compiled by the CUDA toolkit (NVRTC or `nvcc`)
where it is installed, otherwise by clang: on a laptop without a GPU or CUDA, install clang (`apt
install clang`, `brew install llvm`, or the LLVM installer) and the cells compile as they are
(`%%cuda --compiler=clang` asks for it by name; docs/cell-kernels.md lists what clang offers
without the toolkit). With no compiler at all, write PTX in a `%%ptx` cell or use a machine with
CUDA. The Go cell after each launches them; the check cell after that runs `lab.CheckAPSP` and prints
either "all N cases pass" or the first wrong cell. Every kernel below is a skeleton that compiles and
does nothing, so until you fill them in every check reports failures: that is expected. Fill in the
`TODO`s, rerun the cells, and answer the questions at the end. Worked answers are in
`05-apsp-lab-solutions.ipynb` — try first.

Without a GPU the kernels run on the PTX emulator: exact, so the checks mean what they say, but
slow, and its times say nothing about GPUs (the handout said the same of CUDA 2.3's emulation
mode).
''')

lab05.setup(nb)

md(r'''
The check cells use this function: while a version's kernels write nothing it prints one line
saying so; after that it prints the first failure in words (or that all cases pass) and the
report, without stopping the notebook.
''')

code(r'''
// tryCheck runs lab.CheckAPSP on fn and shows the outcome: one line while
// the kernels write nothing, else the first failure and the report's table.
func tryCheck(name string, fn lab.APSPFunc) {
	rep, err := lab.CheckAPSP(Ctx(), fn, lab.CheckOptions{Device: dev, Negative: true})
	switch {
	case rep.NotStarted():
		fmt.Printf("%s: not written yet (the kernels changed nothing; %d of %d cases fail)\n", name, rep.Failed(), len(rep.Cases))
		return
	case err != nil:
		fmt.Printf("%s: not yet. %v\n", name, err)
	default:
		fmt.Printf("%s: all %d cases pass\n", name, len(rep.Cases))
	}
	if rep != nil {
		display.Show(rep)
	}
}

''' + lab05.KERNEL + r'''

''' + lab05.CEIL_DIV + r'''
''')

md(r'''
## Task 2.1: the basic implementation

For each pivot k, Algorithm 1 relaxes every cell: `w[i][j] = min(w[i][j], w[i][k] + w[k][j])`.
For a fixed k these n² updates are independent, so the natural design is one launch per k with
one thread per cell; the end of a launch is the barrier the handout asks for after each k (§1.3).

Write two kernels: `fwNaive1D`, where a 1-D block's thread `idx` is cell (idx / n, idx % n), and
`fwNaive2D`, with 2-D blocks, `threadIdx.x` along j and `threadIdx.y` along i. Remember:

- threads past the matrix (the last block is usually partial) must not touch it;
- `INF` is `INT_MAX`: `INF + w` wraps round to a negative number, so add only when both terms
  are finite;
- negative arcs are allowed.
''')

code(r'''
%%cuda --name naive
#define INF 2147483647 // graph.Inf: no path

// Task 2.1, 1-D blocks: thread idx handles cell (idx / n, idx % n) for pivot k.
__global__ void fwNaive1D(int *d, int n, int k) {
    // TODO: compute idx from blockIdx, blockDim and threadIdx; return if idx >= n*n;
    // relax d[idx] through d[i*n + k] and d[k*n + j], guarding against INF.
}

// Task 2.1, 2-D blocks: x along j, y along i.
__global__ void fwNaive2D(int *d, int n, int k) {
    // TODO: compute i and j; return outside the matrix; relax d[i*n + j].
}
''')

md(r'''
The host side is written for you: one launch per k. Try other block sizes and shapes here.
''')

code(r'''
''' + lab05.NAIVE_1D + r'''

''' + lab05.NAIVE_2D + r'''

tryCheck("naive, 1-D blocks of 256", naive1D(256))
tryCheck("naive, 2-D blocks of 32×8", naive2D(32, 8))
''')

md(r'''
## Task 2.2: tiled, in global memory only

Algorithm 2 cuts the matrix into B×B tiles and, for each round r = 0 … ⌈n/B⌉−1, runs three
phases:

1. the diagonal tile T_rr on itself;
2. the tiles of row r and of column r, from T_rr (a row tile T_rj reads T_rr and itself, a column
   tile T_ir reads itself and T_rr);
3. every other tile T_ij, from T_ir and T_rj.

Each phase needs the whole previous one to be finished. Inside a tile the pivots k of the round
go in order. Use one block per tile and one thread per cell (B = 32); threads outside the matrix
(the last row and column of tiles are usually partial) must still reach every `__syncthreads()`.
Question 2.2 (a) asks how many different kernels you need at least: decide before you write them.
''')

code(r'''
%%cuda --name tiledglobal
#define INF 2147483647
#define B 32 // tile side

// TODO (task 2.2): your kernels, for example one per phase:
__global__ void globalPhase1(int *d, int n, int r) {
    // TODO: tile (r, r), pivots k = r*B ... min(r*B + B, n) - 1 in order, __syncthreads() between them.
}

__global__ void globalPhase2(int *d, int n, int r) {
    // TODO: the tiles of row r and of column r (blockIdx could pick which), from tile (r, r).
}

__global__ void globalPhase3(int *d, int n, int r) {
    // TODO: every tile (i, j) with i != r and j != r, from tiles (i, r) and (r, j).
}
''')

code(r'''
// tiledGlobal runs the tiled algorithm with the kernels above.
func tiledGlobal(dev *gpu.Device, d *cells.Buffer, n int) error {
	const b = 32
	rounds := ceilDiv(n, b)
	// TODO (task 2.2): for every round r < rounds, launch the phases in order, e.g.
	//     kernel("globalPhase1").Launch(gpu.Dim(1), gpu.Dim(b, b), d, n, r)
	// with grids that cover the tiles each phase updates; return the first error.
	_ = rounds
	return nil
}

// lab.APSPFunc(...) converts the named function: the interpreter cannot pass a
// named function where a function type is expected (a literal or a converted one works).
tryCheck("tiled, global memory", lab.APSPFunc(tiledGlobal))
''')

md(r'''
## Task 2.3: tiles in shared memory

Stage the tiles each phase reads in shared memory (`__shared__ int t[B][B];`), so that each value
comes from global memory once per tile instead of once per use. Question 2.3 (a) asks which data
each phase needs; 2.3 (b) which tile size is best and what limits it — the cell after the kernels
prints this device's limits.
''')

code(r'''
%%cuda --name tiledshared
#define INF 2147483647
#define B 32 // tile side: try others

__global__ void sharedPhase1(int *d, int n, int r) {
    // TODO: load tile (r, r) into shared memory (INF outside the matrix), run its pivots, store it back.
}

__global__ void sharedPhase2(int *d, int n, int r) {
    // TODO: load tile (r, r) and the block's own tile of row or column r; update; store.
}

__global__ void sharedPhase3(int *d, int n, int r) {
    // TODO: load tiles (i, r) and (r, j); keep the own cell in a register; update; store.
}
''')

code(r'''
// tiledShared runs the tiled algorithm with the shared-memory kernels above.
func tiledShared(dev *gpu.Device, d *cells.Buffer, n int) error {
	const b = 32 // keep equal to B in the cell above
	rounds := ceilDiv(n, b)
	// TODO (task 2.3): as tiledGlobal, with the shared* kernels.
	_ = rounds
	return nil
}

fmt.Printf("%s: at most %d threads per block, %d bytes of shared memory per block, %d threads per SM\n",
	info.Name, info.MaxThreadsPerBlock, info.SharedPerBlock, info.MaxThreadsPerSM)
tryCheck("tiled, shared memory", lab.APSPFunc(tiledShared))
''')

lab05.timing_intro(nb)

md(r'''
Your versions go in `versions`; a version that fails its check shows "failed" in the table and is
listed under it.
''')

code(r'''
versions := []lab.APSPEntry{
	{Name: "naive 1-D", Func: naive1D(256)},
	{Name: "naive 2-D", Func: naive2D(32, 8)},
	{Name: "tiled global", Func: tiledGlobal},
	{Name: "tiled shared", Func: tiledShared},
}
times, err := lab.TimeAPSP(Ctx(), versions, sizes, lab.TimeOptions{Device: dev, Seed: seed})
switch {
case err != nil && times != nil && len(times.Failures) > 0:
	fmt.Printf("not yet: %d runs failed; they are listed under the table\n", len(times.Failures))
case err != nil:
	fmt.Println("not yet:", err)
}
times
''')

code(r'''
display.Row(times.Plot(), times.SpeedupPlot())
''')

md(r'''
## Why: what your kernels do to memory

A `%%profile` cell runs its Go code with every kernel launch profiled and shows the kernels side by
side: global requests and the 32-byte sectors they touch (4 per warp when its 32 words are
consecutive, up to 32 when they are not), shared-memory bank conflicts, divergent branches and
occupancy. The cell below runs each of your versions once on a 128-vertex graph. Which kernel
moves the most sectors, and which of its lines? Does your shared-memory version have bank
conflicts? Without a GPU the emulator counts what Nsight Compute counts on a card; on a card the
table gives registers and occupancy.
''')

code(r'''
%%profile
whyN := 128
gWhy, err := graph.GNM(whyN, 16*whyN, graph.WeightRange{Min: 1, Max: 100}, seed)
if err != nil {
	panic(err)
}
for _, v := range versions {
	d, err := cells.GraphMatrix(dev, gWhy)
	if err != nil {
		panic(err)
	}
	if err := v.Func(dev, d, whyN); err != nil {
		fmt.Printf("%s: %v\n", v.Name, err)
	}
	d.Free()
}
''')

md(r'''
## Questions (the handout's §2 and §4.1, with a few added here)

Answer from your measurements; `times.At(name, n)` gives a time in seconds, `times.Speedup(name)`
the speed-ups over the CPU's tiled version.

**Task 2.1**
- (a) How do 1-D and 2-D thread blocks compare? Time a few shapes of each (for example 1-D 128,
  256, 1024; 2-D 16×16, 32×8, 32×32) and explain the differences. What happens if `threadIdx.x`
  runs along i instead of j? (added here)
- (b) How does the time change from n = 1024 to 8192? What growth do you expect, and what do you
  see? (the growth: added here)
- (c) How much faster than the CPU's tiled version (the handout's OpenMP code; here
  `cpu.FloydWarshallBlocked`) is it?

**Task 2.2**
- (a) What is the least number of different kernels the tiled version needs, and why?
- (b) How does the time change with n?
- (c) How much faster than the CPU's tiled version is it now?

**Task 2.3**
- (a) What data does each phase need to compute its tiles?
- (b) What is the ideal tile size? Which constraints decide it? (The handout asks which constraints
  arise; added here, as hints: threads per block, shared memory per block and per SM, occupancy.)
- (c) How does the time change with n?
- (d) How much faster than the CPU's tiled version is it now?

**§4.1** Compare the three GPU versions with each other and with the CPU's tiled version, with the
tile sizes and block shapes that work best, and explain the differences you see.

*Your answers:*
''')

lab05.references(nb)
nb.write("05-apsp-lab.ipynb")

"""Cells and Go helpers shared by the two notebooks of the Greek lab handout [Lab handout]:
notebooks/05-apsp-lab.ipynb (the exercises, with skeleton kernels) and
notebooks/05-apsp-lab-solutions.ipynb (working answers). The generators
05-apsp-lab.py and 05-apsp-lab-solutions.py load this file.
"""

from common import Notebook, references, title  # noqa: F401 (the generators use lab05.Notebook, lab05.references and lab05.title)
import common


def setup(nb):
    """The parameters, the machine and the sanity graph: the same in both notebooks."""
    nb.md(r'''
## Parameters

`PATHNOTES_SCALE` (1 when unset; CI runs 0.05) scales the handout's sizes, n = 1024, 2048, 4096
and 8192 vertices. The handout says "edges" but means vertices: its matrix is n×n. On the emulator
(the kernels' PTX interpreted on the CPU, when there is no GPU) the timed sizes stop at `emuMaxN`
and the checker's at 129.
''')
    nb.code(r'''
''' + common.SCALE + r'''
handoutSizes := []int{1024, 2048, 4096, 8192} // the handout's "1024 to 8192"
emuMaxN := 128                                  // largest timed n on the emulator
var seed uint64 = 2004                          // seeds the timed graphs (lab.TimeOptions.Seed)
fmt.Printf("scale %g: n in %v × %g\n", scale, handoutSizes, scale)
''')

    nb.md((r'''
## The machine behind these outputs
''' if nb.outputs else r'''
## The machine you run on
''') + r'''
The handout's lab machine had two six-core Xeon X5650 and a Tesla M2050 (Fermi, compute
capability 2.0, 14 SMs, 48 KB of shared memory per SM, at most 1024 threads per block; the SM
count and limits are the M2050's, not stated in the handout). Its
students debugged in CUDA 2.3's emulation mode on machines without a GPU, and the handout warns
that emulated times mean nothing. The same holds here: without a GPU the kernels run on the PTX
emulator, which checks them exactly but times the CPU.
''')
    nb.code(r'''
import "runtime"

fmt.Printf("CPU: %d logical CPUs (%s/%s)\n", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
dev, gpuErr := gpu.Default()
if gpuErr != nil {
	panic("this lab needs a GPU or the PTX emulator (PATHNOTES_GPU=emu): " + gpuErr.Error())
}
info := dev.Info()
onEmu := dev.Driver() == "emu"
var sizes []int // the timed sizes
for _, n := range handoutSizes {
	n = max(int(float64(n)*scale), 2)
	if onEmu && n > emuMaxN {
		continue
	}
	sizes = append(sizes, n)
}
if len(sizes) == 0 {
	sizes = []int{emuMaxN}
}
fmt.Printf("kernels on %s (%s driver); timed sizes %v\n", info.Name, dev.Driver(), sizes)
if onEmu {
	fmt.Println("emulator: times below are the CPU's, and the answers drawn from them say nothing about GPUs")
}
''')

    nb.md(r'''
## The contract: one Go function per version

Each version is a Go function of type `lab.APSPFunc`:

```go
func(dev *gpu.Device, d *cells.Buffer, n int) error
```

On entry `d` holds the n×n weight matrix, row-major `int32`, as `cells.GraphMatrix(dev, g)` makes it: the
weight of arc i → j at `d[i*n+j]`, `graph.Inf` (= 2³¹−1, `INT_MAX`) where there is no arc, 0 on
the diagonal. The function launches its kernels (`cells.GetKernel(name)` then `k.Launch(grid,
block, args...)`, the `<<<grid, block>>>` of CUDA) and leaves the shortest distances in `d`, Inf
where there is no path. The handout does not say how no-arc is stored (its `graph.c`, not
included, builds the matrix); here it is `INT_MAX`, so a kernel must not add to it: `INF + w` wraps round to a large negative number. Negative arcs are
allowed, negative cycles are not (§1.1).

`lab.CheckAPSP` runs a function on seeded graphs of 1 to 1000 vertices (129 on the emulator) —
sparse ones with unreachable pairs, dense ones, ones with negative arcs — and compares every cell
with the CPU's tiled Floyd-Warshall. It reports the first wrong cell with its graph, n, (i, j),
the expected and actual values and a guess at the cause; the matrix is followed by a guard zone
of poison values that catches writes past its end. This replaces the handout's debug-mode check
in `apsp_main.c`.

A small graph first, since the handout has none: five vertices, one negative arc, no negative
cycle, solved on the CPU by the textbook triple loop (Algorithm 1) and by the tiled version
(Algorithm 2) with 2×2 tiles, so that 5 is no multiple of the tile.
''')
    nb.code(r'''
small, err := graph.FromTriples(5, [][3]int{
	{0, 1, 3}, {0, 2, 8}, {1, 3, 1}, {1, 4, 7}, {2, 1, 4}, {3, 0, 2}, {3, 2, -5}, {4, 3, 6},
})
if err != nil {
	panic(err)
}
naiveSmall, err := cpu.FloydWarshall(Ctx(), small, cpu.FWOptions{})
if err != nil {
	panic(err)
}
tiledSmall, err := cpu.FloydWarshallBlocked(Ctx(), small, cpu.FWOptions{Tile: 2})
if err != nil {
	panic(err)
}
for x := range naiveSmall.Dist {
	if naiveSmall.Dist[x] != tiledSmall.Dist[x] {
		panic(fmt.Sprintf("cell (%d, %d): Algorithm 1 gives %d, Algorithm 2 gives %d", x/5, x%5, naiveSmall.Dist[x], tiledSmall.Dist[x]))
	}
}
// 0 → 1 → 3 → 2 weighs 3 + 1 − 5
if naiveSmall.Dist[2] != -1 {
	panic(fmt.Sprintf("d(0, 2) = %d, want -1", naiveSmall.Dist[2]))
}
display.Row(display.WeightMatrix(small), display.DistMatrix(naiveSmall))
''')

    nb.md(r'''
Figure 1 of the handout draws the three phases of a round k of Algorithm 2: (1) the diagonal tile
T_kk on itself; (2) the tiles T_ik of column k and T_ki of row k, from T_kk (the prose under the
figure says "T_ik and T_kk", a slip for T_ki, as Algorithm 2 shows); (3) every other tile T_ij,
from T_ik and T_kj. The schematics draw them one at a time for round k = 1 of a 128×128 matrix in
tiles of B = 32, the tile side the kernels below use: in colour the tiles a phase updates, pale
the ones it only reads.
''')
    nb.code(r'''
display.Row(display.BlockedFW(128, 32, 1).Phase(1), display.BlockedFW(128, 32, 1).Phase(2), display.BlockedFW(128, 32, 1).Phase(3))
''')


def timing_intro(nb):
    """The markdown before the timing table."""
    nb.md(r'''
## Timing (§4.1)

`lab.TimeAPSP` times each version beside the project's own GPU variants (`fw-hn`: one launch per
k; `fw-tiled-global` and `fw-blocked`: the tiled versions in global and in shared memory;
`fw-fast`: the fastest this project has) and the CPU's tiled Floyd-Warshall
(`cpu.FloydWarshallBlocked` on every core, the handout's OpenMP baseline), on a random graph with
16·n arcs per size (the work of Floyd-Warshall does not depend on the arcs). Each GPU result is
checked against the CPU's. Your functions are timed on the host clock from the call to the end of
`Device.Synchronize` (launch overhead included); the variants by CUDA events around their kernels.
''')


# Go helpers that both lab notebooks define, each one block without a
# trailing newline.

CEIL_DIV = r'''// ceilDiv is ⌈a/b⌉: the blocks that cover a cells, the tiles that cover a rows.
func ceilDiv(a, b int) int { return (a + b - 1) / b }'''

KERNEL = r'''// kernel returns the cell kernel called name, or panics: run its %%cuda cell first.
func kernel(name string) *cells.Kernel {
	k, err := cells.GetKernel(name)
	if err != nil {
		panic(err)
	}
	return k
}'''

NAIVE_1D = r'''// naive1D launches fwNaive1D for every k on 1-D blocks of threads threads.
func naive1D(threads int) lab.APSPFunc {
	return func(dev *gpu.Device, d *cells.Buffer, n int) error {
		k := kernel("fwNaive1D")
		grid, block := gpu.Dim(ceilDiv(n*n, threads)), gpu.Dim(threads)
		for p := 0; p < n; p++ {
			if err := k.Launch(grid, block, d, n, p); err != nil {
				return err
			}
		}
		return nil
	}
}'''

NAIVE_2D = r'''// naive2D launches fwNaive2D for every k on bx×by blocks.
func naive2D(bx, by int) lab.APSPFunc {
	return func(dev *gpu.Device, d *cells.Buffer, n int) error {
		k := kernel("fwNaive2D")
		grid, block := gpu.Dim(ceilDiv(n, bx), ceilDiv(n, by)), gpu.Dim(bx, by)
		for p := 0; p < n; p++ {
			if err := k.Launch(grid, block, d, n, p); err != nil {
				return err
			}
		}
		return nil
	}
}'''

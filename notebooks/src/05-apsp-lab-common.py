"""Cells shared by the two notebooks of the Greek lab handout [Lab handout]:
notebooks/05-apsp-lab.ipynb (the exercises, with skeleton kernels) and
notebooks/05-apsp-lab-solutions.ipynb (working answers). The generators
05-apsp-lab.py and 05-apsp-lab-solutions.py load this file.
"""

import json
import os


class Notebook:
    """Collects cells and writes them as an nbformat 4.5 notebook."""

    def __init__(self, prefix):
        self.prefix = prefix
        self.cells = []

    def md(self, text):
        """Adds a markdown cell."""
        self.cells.append(("markdown", text.strip("\n")))

    def code(self, text):
        """Adds a Go cell."""
        self.cells.append(("code", text.strip("\n")))

    def write(self, name):
        """Writes notebooks/<name> without outputs."""
        cells = []
        for i, (kind, text) in enumerate(self.cells, 1):
            cell = {"cell_type": kind, "id": "%s-%02d" % (self.prefix, i), "metadata": {}, "source": text}
            if kind == "code":
                cell["execution_count"] = None
                cell["outputs"] = []
            cells.append(cell)
        data = {
            "cells": cells,
            "metadata": {
                "kernelspec": {"display_name": "Go (pathnotes)", "language": "go", "name": "pathnotes"},
                "language_info": {"file_extension": ".go", "mimetype": "text/x-go", "name": "go"},
            },
            "nbformat": 4,
            "nbformat_minor": 5,
        }
        here = os.path.dirname(os.path.abspath(__file__))
        path = os.path.normpath(os.path.join(here, "..", name))
        with open(path, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print("wrote", path)


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
import (
	"os"
	"strconv"
)

scale := 1.0
if s := os.Getenv("PATHNOTES_SCALE"); s != "" {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0) || v > 1 {
		panic(fmt.Sprintf("PATHNOTES_SCALE=%q: want a number in (0, 1] such as 0.05 or 1", s))
	}
	scale = v
}
handoutSizes := []int{1024, 2048, 4096, 8192} // the handout's "1024 to 8192"
emuMaxN := 128                                  // largest timed n on the emulator
var seed uint64 = 2004                          // seeds the timed graphs (lab.TimeOptions.Seed)
fmt.Printf("scale %g: n in %v × %g\n", scale, handoutSizes, scale)
''')

    nb.md(r'''
## The machine behind these outputs

The handout's lab machine had two six-core Xeon X5650 and a Tesla M2050 (Fermi, compute
capability 2.0, 14 SMs, 48 KB of shared memory per SM, at most 1024 threads per block). Its
students debugged in CUDA 2.3's emulation mode on machines without a GPU, and the handout warns
that emulated times mean nothing. The same holds here: without a GPU the kernels run on the PTX
emulator, which checks them exactly but times the CPU.
''')
    nb.code(r'''
import "runtime"

fmt.Printf("CPU: %d logical CPUs (%s/%s)\n", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
fmt.Println(gpu.Describe())
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
func(dev *gpu.Device, d *gpu.Buffer, n int) error
```

On entry `d` holds the n×n weight matrix, row-major `int32`, as `dev.GraphMatrix(g)` makes it: the
weight of arc i → j at `d[i*n+j]`, `graph.Inf` (= 2³¹−1, `INT_MAX`) where there is no arc, 0 on
the diagonal. The function launches its kernels (`gpu.GetKernel(name)` then `k.Launch(grid,
block, args...)`, the `<<<grid, block>>>` of CUDA) and leaves the shortest distances in `d`, Inf
where there is no path. The handout leaves the infinity to its `graph.c`; here it is `INT_MAX`, so
a kernel must not add to it: `INF + w` wraps round to a large negative number. Negative arcs are
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

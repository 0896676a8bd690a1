#!/usr/bin/env python3
"""Writes notebooks/00-tour.ipynb, keeping the outputs of unchanged code cells.

Run it with `pathnotes run` to fill in the outputs:

    python3 notebooks/src/00-tour.py
    pathnotes run notebooks/00-tour.ipynb --out notebooks
"""

import common

nb = common.Notebook("cell", idfmt="%s-%d")
md, code = nb.md, nb.code


common.title(nb, """
# A tour of pathnotes

pathnotes is a Jupyter kernel for Go. Every cell is Go, run by an interpreter that keeps its
state between cells. The packages `graph` (graphs and results), `cpu` (CPU solvers), `gpu`
(GPU solvers) and `display` (pictures and tables) are there without an import line, and so is
`fmt`.

This tour builds a small graph, draws it, solves all pairs shortest paths with Floyd-Warshall,
shows the matrices and a path, checks the answer, asks for a GPU, and ends with a random graph and
a timing plot. Run it top to bottom; `Shift-Enter` runs a cell.
""")
md("""
## A small graph

`graph.Parse` reads a short text form: `a->b 1` is an arc from `a` to `b` with weight 1. This is
the weighted digraph of Fig. 2.3 of [Karaula 2017]. A graph at the end of a cell is drawn.
""")
code("""
g, err := graph.Parse("a->b 1, b->c 2, c->d 2, c->e 4, d->b 1, d->c 3, e->d 5")
if err != nil {
	panic(err)
}
g
""")
md("""
## All pairs shortest paths on the CPU

`cpu.FloydWarshall` is the textbook triple loop with the predecessor matrix Π. `Ctx()` is the
running cell's context: the kernel's interrupt button cancels it, so long runs stop cleanly.
A result shows its distance matrix D beside Π (∞ = unreachable, NIL = no predecessor).
""")
code("""
r, err := cpu.FloydWarshall(Ctx(), g, cpu.FWOptions{Pred: true})
if err != nil {
	panic(err)
}
r
""")
md("""
Predecessors give the paths themselves. Here is the shortest path from `a` to `e`, highlighted in
the drawing. `r.Verify(g)` rebuilds every path weight from the arcs and checks the triangle
inequality on every arc: `nil` means the whole result is right.
""")
code("""
a, _ := g.Vertex("a")
e, _ := g.Vertex("e")
p, err := r.Path(a, e)
if err != nil {
	panic(err)
}
fmt.Println(p)
fmt.Println("verify:", r.Verify(g))
display.Graph(g).Path(p).Title("shortest path a → e")
""")
md("""
## Watching Floyd-Warshall work

A trace records D⁽ᵏ⁾ and Π⁽ᵏ⁾ after every k. Starred (highlighted) cells are the ones that k
improved. This is the 9-arc example of Fig. 3.1 in the same thesis; Π is shown 1-based, as there.
""")
code("""
fig31, err := graph.Example("karaula-fig3.1")
if err != nil {
	panic(err)
}
var tr graph.FWTrace
if _, err := cpu.FloydWarshall(Ctx(), fig31, cpu.FWOptions{Pred: true, Trace: &tr}); err != nil {
	panic(err)
}
display.FWTrace(&tr).OneBased().Steps(4, 5)
""")
md("""
## The GPU

pathnotes runs the same algorithms as CUDA kernels when the kernel was built with CUDA and a GPU
is present. This cell says which driver is active.
""")
code("""
%gpu
""")
md("""
`gpu.AllPairs` runs a GPU variant by name — here `fw-blocked`, the 3-phase shared-memory
Floyd-Warshall of Katz and Kider that [Karaula 2017] calls "CUDA v2" — and returns the same
result type as the CPU. Without a GPU the cell says why instead.
""")
code("""
gr, err := gpu.AllPairs(Ctx(), "fw-blocked", g, gpu.Options{Pred: true})
if err != nil {
	fmt.Println("no GPU run:", err)
} else {
	fmt.Println("same distances as the CPU:", gr.SameDistances(r), "- verify:", gr.Verify(g))
	display.Show(gr)
}
""")
md("""
Besides the documents' variants, `gpu` has pathnotes' own fast solvers. `gpu.AllPairs` with the
name `"auto"` picks one for the graph — `apsp-batched` (many single-source runs at once) for very
sparse graphs, `fw-fast` otherwise — and the result's `Solver` says which. Stats hold the device
time of the kernels, measured with CUDA events (on the emulator: its run time on the CPU).
""")
code("""
import (
	"os"
	"strconv"
)

// The size suits the device: 2048 vertices on a card, 256 on the emulator
// (the kernels' PTX interpreted on the CPU). PATHNOTES_SCALE shrinks it.
big, where := 2048, "a card"
if dev, err := gpu.Default(); err == nil && dev.Driver() == "emu" {
	big, where = 256, "the emulator"
}
if s := os.Getenv("PATHNOTES_SCALE"); s != "" {
	if v, err := strconv.ParseFloat(s, 64); err == nil && v > 0 && v < 1 {
		big = max(int(float64(big)*v), 100)
	}
}
fmt.Printf("n = %d vertices, the size for %s\\n", big, where)
for _, perVertex := range []int{1, 32} {
	rg, err := graph.GNM(big, perVertex*big, graph.WeightRange{Min: 1, Max: 100}, 11)
	if err != nil {
		panic(err)
	}
	var st gpu.Stats
	res, err := gpu.AllPairs(Ctx(), "auto", rg, gpu.Options{Stats: &st})
	if err != nil {
		fmt.Println("no GPU run:", err)
		break
	}
	ref, err := gpu.AllPairs(Ctx(), "fw-blocked", rg, gpu.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("n = %d, %2d arcs a vertex: auto picked %-12s kernels %v, same distances as fw-blocked: %v\\n",
		big, perVertex, res.Solver, st.Kernel, res.SameDistances(ref))
}
""")
md("""
## Several cards

`gpu.OpenAll()` opens every device of the machine. Passed as `Options.Devices`, they share one
run: `fw-fast` gives each card a stripe of the matrix's rows and copies each round's pivot row
between them (directly over NVLink where the cards can reach each other), and `apsp-batched`
splits its sources. This cell times `fw-fast` on the first device and on all of them when there
are two or more, and says so when there is one. (`PATHNOTES_EMU_DEVICES=2` makes the emulator
offer two devices, to try the code without cards; its times mean nothing.)
""")
code("""
devs, err := gpu.OpenAll()
if err != nil {
	panic(err)
}
if len(devs) < 2 {
	fmt.Printf("one device here (%s): the comparison needs two or more\\n", devs[0].Info().Name)
} else {
	n := 8192
	if devs[0].Driver() == "emu" {
		n = 300
	}
	if s := os.Getenv("PATHNOTES_SCALE"); s != "" {
		if v, err := strconv.ParseFloat(s, 64); err == nil && v > 0 && v < 1 {
			n = max(int(float64(n)*v), 200)
		}
	}
	rg, err := graph.GNM(n, 60*n, graph.WeightRange{Min: 1, Max: 100}, 5)
	if err != nil {
		panic(err)
	}
	var one, all gpu.Stats
	a, err := gpu.FWFast(Ctx(), rg, gpu.Options{Device: devs[0], Stats: &one})
	if err != nil {
		panic(err)
	}
	b, err := gpu.FWFast(Ctx(), rg, gpu.Options{Devices: devs, Stats: &all})
	if err != nil {
		panic(err)
	}
	fmt.Printf("n = %d: one device %v, %d devices %v (%.2f×), %s copied between them; same distances: %v\\n",
		n, one.Kernel, len(devs), all.Kernel, one.Kernel.Seconds()/all.Kernel.Seconds(),
		graph.FormatBytes(all.BytesPeer), a.SameDistances(b))
}
""")
md("""
## A random graph

`graph.GNM(n, m, weights, seed)` draws m distinct arcs uniformly (no self-loops), with integer
weights in a range. The same seed always gives the same graph.
""")
code("""
h, err := graph.GNM(12, 26, graph.WeightRange{Min: 1, Max: 20}, 3)
if err != nil {
	panic(err)
}
src := 0
tree, err := cpu.Dijkstra(Ctx(), h, src, cpu.DijkstraOptions{Pred: true})
if err != nil {
	panic(err)
}
display.Graph(h).Tree(tree).Title("shortest-path tree from vertex 0")
""")
md("""
## Timing

The naive triple loop against the blocked, multi-core Floyd-Warshall on random graphs, on this
machine's CPU. `PATHNOTES_SCALE` (an environment variable, 1 by default) scales the sizes, so a
slow machine or a CI run can use a small value.
""")
code("""
import (
	"math"
	"os"
	"strconv"
)

scale := 1.0
if s := os.Getenv("PATHNOTES_SCALE"); s != "" {
	if v, err := strconv.ParseFloat(s, 64); err == nil && v > 0 {
		scale = v
	}
}
var sizes []int
for _, n := range []int{64, 128, 256, 512, 1024} {
	if m := int(float64(n) * math.Sqrt(scale)); m >= 16 {
		sizes = append(sizes, m)
	}
}
var naive, blocked []float64 // seconds (lab.HostSeconds times a call)
for _, n := range sizes {
	rg, err := graph.GNM(n, 4*n, graph.WeightRange{Min: 1, Max: 100}, 7)
	if err != nil {
		panic(err)
	}
	var a, b *graph.AllPairs
	naive = append(naive, lab.HostSeconds(func() { a, err = cpu.FloydWarshall(Ctx(), rg, cpu.FWOptions{Pred: true}) }))
	if err != nil {
		panic(err)
	}
	blocked = append(blocked, lab.HostSeconds(func() { b, err = cpu.FloydWarshallBlocked(Ctx(), rg, cpu.FWOptions{Pred: true}) }))
	if err != nil {
		panic(err)
	}
	if !a.SameDistances(b) {
		panic("the two Floyd-Warshall versions disagree")
	}
}
display.NewPlot("Floyd-Warshall on the CPU", "vertices n", "seconds").LogLog().
	Line("fw-cpu-naive", display.Ints(sizes), naive).
	Line("fw-cpu-blocked", display.Ints(sizes), blocked)
""")
md("""
## Where next

- `%help` lists the magics; `Tab` completes names (try `graph.` then Tab); `Shift-Tab` shows a
  function's documentation.
- The other notebooks in this folder reproduce the worked examples and experiments of the five
  documents pathnotes was built around: [Karaula 2017] in `01-karaula-fw.ipynb`, [Musap 2016] in
  `02-musap-dijkstra.ipynb`, [Bodra] in `03-bodra-cuda-sp.ipynb`, [Gaioso et al.] in
  `04-gaioso-fw.ipynb` and the [Lab handout] in `05-apsp-lab.ipynb` (with its solutions in
  `05-apsp-lab-solutions.ipynb`).
""")

common.references(nb)
nb.write("00-tour.ipynb")

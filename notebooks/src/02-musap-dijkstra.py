#!/usr/bin/env python3
"""Writes notebooks/02-musap-dijkstra.ipynb, without outputs.

The notebook reproduces Musap (2016), digest-001: the CUDA exercises of
chapter 1, the worked Dijkstra example of §2.5 in its sequential and
frontier forms, the frontier with ties, the relax race, and the degree-7
experiment of §2.9 (Figs. 2.11-2.12). Run it with `pathnotes run` to fill in
the outputs:

    python3 notebooks/src/02-musap-dijkstra.py
    PATHNOTES_SCALE=0.05 pathnotes run notebooks/02-musap-dijkstra.ipynb --out notebooks
"""

import json
import os

CELLS = []


def md(text):
    """Adds a markdown cell."""
    CELLS.append(("markdown", text.strip("\n")))


def code(text):
    """Adds a Go cell."""
    CELLS.append(("code", text.strip("\n")))


md(r'''
# Musap (2016): Dijkstra's algorithm on the GPU

Loredana Musap's master's thesis, *Implementacija algoritama na grafovima pomoću GPU* (University
of Zagreb, 2016), has two halves. Chapter 1 teaches CUDA C from the ground up: kernels, the
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
4. the race in the relax step that `atomicMin` removes;
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

The thesis ran on a Tesla S2050 (Fermi). The cell names this machine's CPU and GPU. On the
emulator (the kernels' PTX interpreted on the CPU) the experiment's graphs shrink to at most
`emuMaxN` vertices and GPU times are emulator wall time on the CPU, not GPU time. Without any GPU
driver the GPU columns say why.
''')

code(r'''
import (
	"errors"
	"runtime"
	"strings"
)

// cpuModel names this machine's processor (from /proc/cpuinfo on Linux).
func cpuModel() string {
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return runtime.GOARCH + " processor (model unknown)"
}

// shortReason keeps the first clause of a GPU error: table cells are narrow.
func shortReason(err error) string {
	if errors.Is(err, gpu.ErrNoCUDA) {
		return "built without CUDA"
	}
	s := strings.TrimPrefix(err.Error(), "gpu: ")
	if i := strings.Index(s, ";"); i > 0 {
		s = s[:i]
	}
	return s
}

host := fmt.Sprintf("%s, %d logical CPUs", cpuModel(), runtime.NumCPU())
fmt.Println("CPU:", host)
fmt.Println(gpu.Describe())

dev, gpuErr := gpu.Default()
noGPU := ""     // what the GPU cells say when there is no GPU
gpuTag := ""    // added to the GPU columns' "(here" on the emulator
gpuHost := ""   // the GPU side of the notes under the tables
sizeF := scale  // the factor applied to the thesis's sizes
switch {
case gpuErr != nil:
	noGPU = "no GPU: " + shortReason(gpuErr)
	gpuHost = noGPU
	fmt.Println(noGPU + " (the GPU columns say so; only the CPU runs)")
case dev.Driver() == "emu":
	sizeF = min(scale, float64(emuMaxN)/10e6)
	gpuTag = ", emulator"
	gpuHost = "GPU variants on the " + dev.Info().Name + ": wall time on the CPU, not GPU time"
	fmt.Printf("no GPU: the kernels run on the emulator (%s); the experiment's graphs shrink to |V| ≤ %d and its GPU times are emulator wall time\n",
		dev.Info().Name, emuMaxN)
default:
	gpuHost = dev.Info().Name + " (" + dev.Driver() + " driver)"
	fmt.Println("GPU kernels on", gpuHost)
}
here := " (here" + gpuTag + ")"

// check panics with the formatted message unless ok.
func check(ok bool, format string, args ...any) {
	if !ok {
		panic(fmt.Sprintf(format, args...))
	}
}
''')

md(r'''
## §2.5 Dijkstra step by step (Figs. 2.4–2.6)

The thesis runs Dijkstra from s on a digraph with vertices s, a, b, c, d. Its text gives most arc
weights outright or through the distance changes it reports; two it never gives, a→d and b→d.
`graph.Example("musap-sabcd")` completes them with a→d 6 and b→d 2 — an assumption, consistent
with every change the text reports (d is 8 after a settles, 7 after b). The graph's notes say which
arcs are which.

`cpu.Dijkstra` with a `Trace` records both of the thesis's forms: the sequential Algorithm 1 (one
vertex settled per step, the distances C after relaxing its arcs) and the frontier Algorithm 2 (per
while-iteration: the frontier F, C after the relax, the minimum mssp over the unsettled vertices,
then F and U after the update). The cell asserts every row against the thesis's trace, and the
final C = [0, 2, 5, 6, 7].
''')

code(r'''
sabcd, err := graph.Example("musap-sabcd")
if err != nil {
	panic(err)
}
for _, note := range sabcd.Notes() {
	fmt.Println("•", note)
}

// vertexSet names the vertices of vs, "{a, b}", as the thesis writes F and U.
func vertexSet(g *graph.Graph, vs []int) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = g.Label(v)
	}
	return "{" + strings.Join(names, ", ") + "}"
}

// distText writes a distance row as the thesis does, ∞ for INT_MAX.
func distText(d []int32) string {
	cells := make([]string, len(d))
	for i, x := range d {
		cells[i] = graph.FormatDist(x)
	}
	return "[" + strings.Join(cells, ",") + "]"
}

var trSabcd graph.DijkstraTrace
resSabcd, err := cpu.Dijkstra(Ctx(), sabcd, 0, cpu.DijkstraOptions{Pred: true, Trace: &trSabcd})
if err != nil {
	panic(err)
}
// The thesis's sequential trace: the vertex settled and C after its step.
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
	got := []string{vertexSet(sabcd, it.Frontier), distText(it.Dist), graph.FormatDist(it.Min), vertexSet(sabcd, it.Next), vertexSet(sabcd, it.Unsettled)}
	want := []string{w.f, w.c, w.mssp, w.next, w.u}
	check(strings.Join(got, " ") == strings.Join(want, " "), "iteration %d: F, C, mssp, F', U = %v; the thesis has %v", i+1, got, want)
}
check(distText(resSabcd.Dist) == "[0,2,5,6,7]", "final C = %s, the thesis has [0,2,5,6,7]", distText(resSabcd.Dist))
fmt.Println("both traces are the thesis's, step by step; final C = [0,2,5,6,7], settle order", vertexSet(sabcd, trSabcd.SettleOrder()))
display.DijkstraTrace(&trSabcd)
''')

md(r'''
### The same example on the GPU

`dijkstra-martin` is the thesis's GPU version: one thread per vertex in blocks of 512, and per
while-iteration a relax launch, a minimum launch (a shared-memory reduction per block, whose
partial minima the host copies back and reduces, as the thesis does), and an update launch, until
the minimum is ∞. It fixes what the digest found in the listing: the reduction's last warp
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
toD, err := resSabcd.PathTo(vertexOf(sabcd, "d"))
if err != nil {
	panic(err)
}
display.Graph(sabcd).Path(toD).Title("§2.5: the shortest s → d weighs 7 (a→d and b→d assumed)")
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
## §2.9 The experiment: out-degree 7, one to ten million vertices

The thesis's graphs (taken from Martín et al.) give every vertex out-degree 7, with one arc per
vertex placed first so that the source reaches everything. `graph.ConstantDegree(n, 7, …)` builds
them: the ring arc i → i+1 mod n and six more to distinct random targets. For each size the
thesis made 10 graphs, ran the CPU version and then the GPU version on each, and plotted the means.

The thesis's CPU version is its Algorithm 1 with an array scan for the minimum, O(n²): at a
million vertices that is about 10¹² steps, hours. The CPU column here is `cpu.Dijkstra`, a binary
heap, so whatever speed-up appears is the GPU's against a good CPU algorithm, not against a
quadratic one. For the GPU, **kernels** is the device time of the loop (launches, and the small
copy of partial minima every iteration), **wall** the whole call with the graph's upload. Every GPU
result has the CPU's distances. The thesis times neither generation nor, as far as its text says,
the upload; generation is left out here too.
''')

code(r'''
import (
	"math"
	"time"
)

// meanGPU runs a single-source variant up to three times (once when a run
// takes a second or more), checks each result against ref, and returns
// the mean wall and kernel seconds and the last run's Stats.
func meanGPU(name string, g *graph.Graph, ref *graph.SingleSource) (float64, float64, gpu.Stats) {
	var wall, kernel float64
	var st gpu.Stats
	runs := 0
	for runs < 3 {
		st = gpu.Stats{}
		got, err := gpu.SingleSource(Ctx(), name, g, 0, gpu.Options{Device: dev, Stats: &st})
		if err != nil {
			panic(fmt.Sprintf("%s on %s: %v", name, g.Name(), err))
		}
		check(got.SameDistances(ref), "%s on %s:\n%s", name, g.Name(), got.Diff(ref, 5))
		wall, kernel, runs = wall+st.Wall.Seconds(), kernel+st.Kernel.Seconds(), runs+1
		if st.Wall >= time.Second {
			break
		}
	}
	return wall / float64(runs), kernel / float64(runs), st
}

// secondsCell is a time for a table, or what to show instead.
func secondsCell(s float64, gpuSide bool) any {
	switch {
	case gpuSide && noGPU != "":
		return noGPU
	case s == 0:
		return "—"
	}
	return s
}

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
columns := []string{"|V|", "|E|", "graphs", "cpu.Dijkstra", "dijkstra-martin kernels" + here, "dijkstra-martin wall" + here, "while-iterations"}
if withFast {
	columns = append(columns, "sssp-fast kernels"+here, "sssp-fast wall"+here)
}
exp := display.NewTable("§2.9 rebuilt: out-degree 7, seconds (means over the graphs)", columns...).
	Ratio("CPU ÷ kernels", "cpu.Dijkstra", "dijkstra-martin kernels"+here).
	Ratio("CPU ÷ wall", "cpu.Dijkstra", "dijkstra-martin wall"+here)
if noGPU == "" {
	// One untimed run first: the first launches of a session pay for
	// loading the module and for first-touch allocations.
	g, err := graph.ConstantDegree(max(int(1e6*sizeF), degree+1), degree, weights, seed)
	if err != nil {
		panic(err)
	}
	warm := []string{gpu.VariantDijkstraMartin}
	if withFast {
		warm = append(warm, "sssp-fast")
	}
	for _, name := range warm {
		if _, err := gpu.SingleSource(Ctx(), name, g, 0, gpu.Options{Device: dev}); err != nil {
			panic(err)
		}
	}
}
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
		t0 := time.Now()
		ref, err = cpu.Dijkstra(Ctx(), g, 0, cpu.DijkstraOptions{})
		if err != nil {
			panic(err)
		}
		row.CPU += time.Since(t0).Seconds() / float64(graphsPerN)
		if noGPU != "" {
			continue
		}
		w, kt, st := meanGPU(gpu.VariantDijkstraMartin, g, ref)
		row.Wall += w / float64(graphsPerN)
		row.Kernel += kt / float64(graphsPerN)
		row.Iterations += float64(martinIterations(st)) / float64(graphsPerN)
		if withFast {
			w, kt, _ = meanGPU("sssp-fast", g, ref)
			row.FastWall += w / float64(graphsPerN)
			row.FastKernel += kt / float64(graphsPerN)
		}
	}
	rows = append(rows, row)
	cells := []any{n, n * degree, graphsPerN, row.CPU, secondsCell(row.Kernel, true), secondsCell(row.Wall, true), secondsCell(row.Iterations, true)}
	if withFast {
		cells = append(cells, row.FastKernel, row.FastWall)
	}
	exp.Add(cells...)
}
exp.Note("thesis: Tesla S2050, 10 graphs per size, CPU = Algorithm 1 with an O(n²) array scan; no numbers, only Figs. 2.11-2.12")
exp.Note(fmt.Sprintf("here: %s; %s; graph.ConstantDegree(n, %d, weights %d..%d, seed %d+k), source 0; every GPU result has cpu.Dijkstra's distances",
	host, gpuHost, degree, weights.Min, weights.Max, seed))
exp.Note("while-iterations: dijkstra-martin's launches ÷ 3, the number of distinct finite distances")
exp
''')

md(r'''
### Figs. 2.11 and 2.12 redrawn

Fig. 2.11 plots CPU and GPU time against |V| with fitted curves; Fig. 2.12 the ratio CPU ÷ GPU,
which in the thesis grows with the size. The thesis's figures carry no numbers, so only their
shapes can be compared: the cell fits a straight line t = a + b·|V| to each series by least
squares, and says from the numbers whether the ratio grows.
''')

code(r'''
// fitLine returns a and b of the least-squares line y = a + b·x.
func fitLine(xs, ys []float64) (float64, float64) {
	var sx, sy, sxx, sxy float64
	n := float64(len(xs))
	for i := range xs {
		sx, sy, sxx, sxy = sx+xs[i], sy+ys[i], sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
	}
	b := (n*sxy - sx*sy) / (n*sxx - sx*sx)
	return (sy - b*sx) / n, b
}

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
fig211 := display.NewPlot("Fig. 2.11 redrawn: CPU and GPU time", "|V|", "seconds")
fits := display.NewTable("Least-squares lines t = a + b·|V|", "series", "a (s)", "b (s per million vertices)")
for _, s := range []struct {
	name string
	ys   []float64
}{{"cpu.Dijkstra (here)", cpuT}, {"dijkstra-martin kernels" + here, gpuK}, {"dijkstra-martin wall" + here, gpuW}, {"sssp-fast wall" + here, fastW}} {
	if len(s.ys) != len(xs) {
		continue
	}
	fig211.Line(s.name, xs, s.ys)
	a, b := fitLine(xs, s.ys)
	fig211.Line(s.name+", fit", []float64{xs[0], xs[len(xs)-1]}, []float64{a + b*xs[0], a + b*xs[len(xs)-1]})
	fits.Add(s.name, a, b*1e6)
}
if err := display.Show(display.Row(fig211, fits)); err != nil {
	panic(err)
}
if len(ratioK) == 0 {
	fmt.Println(noGPU + ": no ratio to draw")
} else {
	fig212 := display.NewPlot("Fig. 2.12 redrawn: CPU ÷ GPU", "|V|", "times faster").
		Line("CPU ÷ kernels"+here, xs, ratioK).Line("CPU ÷ wall"+here, xs, ratioW)
	if len(ratioF) == len(xs) {
		fig212.Line("CPU ÷ sssp-fast wall"+here, xs, ratioF)
	}
	// The ratio "grows" when its fitted slope is positive and the largest
	// size's ratio beats the smallest's.
	_, bk := fitLine(xs, ratioK)
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
''')

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
- **The example's arcs** a→d and b→d are assumed (6 and 2): the thesis's text does not give them.
- **The listings' bugs** (the warp-synchronous reduction tail, the per-iteration allocation that is
  never freed, the swapped index in the chapter-1 kernel, the 256×256 block) are fixed, not copied.
''')


def notebook():
    """Returns the notebook as nbformat 4.5 JSON data."""
    cells = []
    for i, (kind, text) in enumerate(CELLS, 1):
        cell = {"cell_type": kind, "id": "musap-%02d" % i, "metadata": {}, "source": text}
        if kind == "code":
            cell["execution_count"] = None
            cell["outputs"] = []
        cells.append(cell)
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Go (pathnotes)", "language": "go", "name": "pathnotes"},
            "language_info": {"file_extension": ".go", "mimetype": "text/x-go", "name": "go"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "02-musap-dijkstra.ipynb")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(notebook(), f, indent=1, ensure_ascii=False)
        f.write("\n")
    print("wrote", os.path.normpath(path))

#!/usr/bin/env python3
"""Writes notebooks/01-karaula-fw.ipynb, keeping the outputs of unchanged code cells.

The notebook reproduces [Karaula 2017]: the worked examples of
§2-§4 asserted cell by cell, and the experiments of §5 rebuilt beside the
thesis's numbers. Run it with `pathnotes run` to fill in the outputs:

    python3 notebooks/src/01-karaula-fw.py
    PATHNOTES_SCALE=0.2 pathnotes run notebooks/01-karaula-fw.ipynb --out notebooks
"""

import common

nb = common.Notebook("karaula")
md, code = nb.md, nb.code


common.title(nb, r'''
# Karaula (2017): Floyd-Warshall on a CPU and on a GPU

Mislav Karaula's master's thesis [Karaula 2017], *Pronalaženje najkraćih putova u grafu korištenjem
hibridne CPU-GPU platforme* (Finding shortest paths in a graph using a hybrid CPU-GPU platform;
Josip Juraj Strossmayer University of Osijek, Department of Mathematics, 2017), builds all-pairs shortest paths with Floyd-Warshall three
ways — a CPU triple loop and two CUDA programs — and times them on graphs of up to 12,500
vertices. This notebook follows the thesis in its own order:

1. the multigraph and the digraph of Figs. 2.1–2.2, then the weighted digraph of Fig. 2.3 and its
   two distance matrices (§2.1–2.3);
2. Floyd-Warshall one k at a time on the graph of Fig. 3.1: D⁽ᵏ⁾ and Π⁽ᵏ⁾ for k = 0…5 (§3.1);
3. the blocked algorithm with 2×2 tiles on the graph of Fig. 4.10, phase by phase, and what each
   block of the GPU version keeps in shared memory (§4.5, Figs. 4.5–4.9);
4. the three programs, whether they agree, and the shared-memory budget of the blocked one
   (§4.4–4.5);
5. the experiments of §5: Tables 1–6 and Figs. 5.1–5.3 rebuilt on this machine, beside the
   thesis's own numbers.

Every worked example is asserted cell by cell: a value that differs from the thesis panics, so
the notebook fails. The thesis's timings appear only as data marked "(thesis)"; whatever is
marked "(here)" was measured when this notebook last ran.
''')

md(r'''
## Parameters

The one cell below reads `PATHNOTES_SCALE` (1 when unset; CI runs 0.05) and derives every size
of §5 from it. The CPU triple loop costs |V|³ steps whatever the graph — the thesis's own CPU run
at |V| = 12,500 took 24,007 s, more than six and a half hours — so it stops at |V| = 2000 × scale
(`PATHNOTES_CPU_MAX_N` sets another limit, up to the thesis's 12,500, for a run with hours to
spare). The GPU versions go up to 12,500 × scale.
''')

code(r'''
''' + common.SCALE_POSITIVE + r'''
var seed uint64 = 2017                         // every random graph is graph.GNM(|V|, |E|, weights, seed)
weights := graph.WeightRange{Min: 1, Max: 100} // the thesis gives no weight range: this one is ours
runs := 2                                      // each time is the mean of two runs, as in the thesis
cpuMaxN := int(2000 * scale)                   // the O(|V|³) CPU triple loop runs up to this |V| ...
if s := os.Getenv("PATHNOTES_CPU_MAX_N"); s != "" { // ... unless set here
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 {
		panic(fmt.Sprintf("PATHNOTES_CPU_MAX_N=%q: want a number of vertices", s))
	}
	cpuMaxN = v
}
gpuMaxN := int(12500 * scale)                  // the two CUDA versions up to this |V|
emuMaxN := 40                                  // ... but only up to this one on the CPU emulator of the GPU
fmt.Printf("scale %g: CPU triple loop for |V| ≤ %d, GPU versions for |V| ≤ %d; weights %d..%d, seed %d, mean of %d runs\n",
	scale, cpuMaxN, gpuMaxN, weights.Min, weights.Max, seed, runs)
''')

md(r'''
## The machine behind these outputs

The timings of §5 depend on the hardware: the first cell named the GPU driver and device, and this
one names the CPU. Without a usable GPU every GPU call returns an error: the notebook then
says "no GPU" and why in the GPU columns and times the CPU alone. When the GPU calls fall back to
the emulator (the kernels' PTX interpreted on the CPU), the GPU versions run only on the smallest
graphs, and their times are emulator wall time, not GPU time.
''')

code(r'''
''' + common.machine("GPU versions", r'''
	gpuMaxN = min(gpuMaxN, emuMaxN)
	fmt.Printf("no GPU: the GPU versions run on the emulator (%s) for |V| ≤ %d; their times are emulator wall time on the CPU, not GPU time\n",
		dev.Info().Name, gpuMaxN)
''') + r'''
''')

md(r'''
## §2.1 A multigraph and a digraph (Figs. 2.1 and 2.2, Examples 1 and 2)

The thesis's first two examples define the words. Example 1's graph (Fig. 2.1) has the vertices
a, b, c and four edges, ψ(e₁) = {a, a}, ψ(e₂) = {a, b}, ψ(e₃) = {b, c} and ψ(e₄) = {b, c}: a
*multigraph* (two edges join b and c) with a *loop* (e₁). Example 2 (Fig. 2.2) is a digraph, u and
v two of its vertices, to say that a digraph may hold the arc u→v and the arc v→u, of opposite
directions (the example does not say how many vertices Fig. 2.2 has). The figures themselves are not in the copy of the thesis used here, so the drawings
below are schematics built from the examples' text: Fig. 2.1's edges are drawn undirected and
weighted by their numbers (e₁ weighs 1, …), and Fig. 2.2 has the two arcs that Example 2 names.
pathnotes' graphs drop loops that are not negative and keep the lightest of parallel arcs, since
neither changes a distance; `KeepLoops` and `Duplicates(graph.KeepAll)` keep them for a drawing.
The summary under Fig. 2.1 counts arcs, as pathnotes stores an undirected graph: each of the three
edges between two vertices as two arcs, the loop as one, so m = 7 for the four edges.
''')

code(r'''
fig21, err := graph.NewBuilder(0).Undirected().KeepLoops().Duplicates(graph.KeepAll).
	AddLabeled("a", "a", 1).AddLabeled("a", "b", 2).AddLabeled("b", "c", 3).AddLabeled("b", "c", 4).Build()
if err != nil {
	panic(err)
}
fig22, err := graph.NewBuilder(0).AddLabeled("u", "v", 1).AddLabeled("v", "u", 2).Build()
if err != nil {
	panic(err)
}
display.Row(
	display.Graph(fig21).Title("Fig. 2.1 (schematic from Example 1): edges e₁…e₄ weighted 1…4"),
	display.Graph(fig22).Title("Fig. 2.2 (schematic from Example 2): the arcs u→v and v→u"))
''')

md(r'''
## §2.2 A weighted digraph (Fig. 2.3)

The thesis introduces walks, paths and distances on a digraph with five vertices and seven
weighted arcs. It is `graph.Example("karaula-fig2.3")`.
''')

code(r'''
fig23, err := graph.Example("karaula-fig2.3")
if err != nil {
	panic(err)
}
display.Graph(fig23).Title("Fig. 2.3 (Karaula 2017): 5 vertices, 7 arcs")
''')

md(r'''
### Its claims, checked

The thesis makes these claims about the graph, and the cell below checks each one:

- the walk a→b→c→e→d has 4 arcs and weighs 12, yet the shortest a→d path, a→b→c→d, weighs 5;
- the cycle b→c→d→b weighs 5;
- e cannot reach a, so d(e,a) = ∞ whether an arc counts 1 or its weight;
- matrix (1) holds the hop counts (every arc weighing 1) and matrix (2) the weighted distances;
- three distances are reached by two different paths each.

Where the thesis's text puts the hop distance from a to d at 4, matrix (1) and the check below
give 3: 4 is the length of the longer walk, not the distance.

The functions `expectMatrix` and `check` are this notebook's assertions. `expectMatrix` reads a
matrix written the way the thesis prints it (rows split by `|`, ∞, NIL, Π numbered from 1) with
`graph.ParseMatrix`, and panics at the first cell that differs.
''')

code(r'''
// asserted counts the matrix cells checked against the thesis.
var asserted int

// cellText writes one cell the way the thesis prints it.
func cellText(v int32, oneBased bool) string {
	switch {
	case v == graph.Inf:
		return "∞"
	case v == graph.Nil && oneBased:
		return "NIL"
	case oneBased:
		return strconv.Itoa(int(v) + 1)
	}
	return strconv.Itoa(int(v))
}

''' + common.CHECK + r'''

// expectMatrix panics, naming the first cell that differs, unless got (n×n,
// row-major, n = len(labels)) is the matrix the thesis prints as want.
func expectMatrix(what string, labels []string, got []int32, want string, oneBased bool) {
	w, err := graph.ParseMatrix(want, oneBased)
	check(err == nil, "%s: %v", what, err)
	n := len(labels)
	check(len(got) == n*n && len(w) == n*n, "%s: %d cells computed and %d in the thesis, want %d×%d", what, len(got), len(w), n, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			check(got[i*n+j] == w[i*n+j], "%s: cell (%s, %s) is %s, the thesis has %s",
				what, labels[i], labels[j], cellText(got[i*n+j], oneBased), cellText(w[i*n+j], oneBased))
		}
	}
	asserted += n * n
}
''')

md(r'''
The claims, one by one:
''')

code(r'''
''' + common.VERTEX + r'''

// walk adds the arc weights of fig23 along the walk through the named
// vertices, as the thesis adds them by hand (lab.WalkWeight).
func walk(names string) int64 {
	w, err := lab.WalkWeight(fig23, names)
	check(err == nil, "%v", err)
	return w
}

hops, err := graph.Example("karaula-fig2.3-hops")
if err != nil {
	panic(err)
}
m1, err := cpu.FloydWarshall(Ctx(), hops, cpu.FWOptions{Pred: true})
if err != nil {
	panic(err)
}
m2, err := cpu.FloydWarshall(Ctx(), fig23, cpu.FWOptions{Pred: true})
if err != nil {
	panic(err)
}
expectMatrix("matrix (1), hop counts", hops.Labels(), m1.Dist, "0 1 2 3 3 | ∞ 0 1 2 2 | ∞ 2 0 1 1 | ∞ 1 1 0 2 | ∞ 2 2 1 0", false)
expectMatrix("matrix (2), weighted distances", fig23.Labels(), m2.Dist, "0 1 3 5 7 | ∞ 0 2 4 6 | ∞ 3 0 2 4 | ∞ 1 3 0 7 | ∞ 6 8 5 0", false)

a, d, e := vertex(fig23, "a"), vertex(fig23, "d"), vertex(fig23, "e")
check(walk("a b c e d") == 12, "the walk a→b→c→e→d weighs %d, the thesis says 12", walk("a b c e d"))
shortest, err := m2.Path(a, d)
if err != nil {
	panic(err)
}
check(shortest.String() == "a -> b -> c -> d (weight 5)", "shortest a→d: %v, the thesis has a→b→c→d of weight 5", shortest)
check(m1.At(a, d) == 3, "hop distance a→d is %s, matrix (1) has 3", cellText(m1.At(a, d), false))
check(walk("b c d b") == 5, "the cycle b→c→d→b weighs %d, the thesis says 5", walk("b c d b"))
check(m1.At(e, a) == graph.Inf && m2.At(e, a) == graph.Inf, "e reaches a, but the thesis says it cannot")
fmt.Println("a→b→c→e→d weighs 12; the shortest a→d is", shortest)
fmt.Println("the cycle b→c→d→b weighs 5; d(e,a) = ∞ in both matrices")

// Distances the thesis reaches by two paths each.
for _, tie := range []struct{ one, other string }{
	{"e d b c", "e d c"}, {"d b c", "d c"}, {"d b c e", "d c e"},
} {
	p, q := strings.Fields(tie.one), strings.Fields(tie.other)
	dist := int64(m2.At(vertex(fig23, p[0]), vertex(fig23, p[len(p)-1])))
	check(walk(tie.one) == dist && walk(tie.other) == dist,
		"%s and %s should both weigh d = %d", tie.one, tie.other, dist)
	fmt.Printf("d(%s,%s) = %d: both %s and %s\n", p[0], p[len(p)-1], dist, strings.Join(p, "→"), strings.Join(q, "→"))
}
if err := display.Show(display.Graph(fig23).Path(shortest).Title("the shortest a → d weighs 5")); err != nil {
	panic(err)
}
display.Row(display.DistMatrix(m1).Title("matrix (1): hop counts"), display.DistMatrix(m2).Title("matrix (2): weighted distances"))
''', subject="the section checks the thesis's claims about Fig. 2.3 one by one: matrices (1) and (2), the walks and the ties it adds by hand")

md(r'''
## §3.1 Floyd-Warshall one k at a time (Fig. 3.1, Example 6)

D⁽ᵏ⁾ holds the shortest distances of paths whose intermediate vertices are among the first k;
Π⁽ᵏ⁾ holds, for each pair (i, j), the vertex just before j on such a path. Going from k−1 to k, a
pair improves only when going through vertex k is strictly shorter, and then takes Π from the pair
(k, j). The thesis lists both matrices for k = 0…5 on a digraph of nine arcs, numbering a…e as
1…5 and printing Π with those numbers. `cpu.FloydWarshall` with a `Trace` records the same states;
the cell asserts all twelve matrices, then shows them, with the cells each k changed highlighted.
''')

code(r'''
fig31, err := graph.Example("karaula-fig3.1")
if err != nil {
	panic(err)
}
var tr31 graph.FWTrace
r31, err := cpu.FloydWarshall(Ctx(), fig31, cpu.FWOptions{Pred: true, Trace: &tr31})
if err != nil {
	panic(err)
}
// D^(k) and Π^(k) for k = 0..5 as the thesis prints them (Π numbered from 1).
ex6D := []string{
	"0 5 ∞ 2 ∞ | ∞ 0 2 ∞ ∞ | 3 ∞ 0 ∞ 7 | ∞ ∞ 4 0 1 | 1 3 ∞ ∞ 0",
	"0 5 ∞ 2 ∞ | ∞ 0 2 ∞ ∞ | 3 8 0 5 7 | ∞ ∞ 4 0 1 | 1 3 ∞ 3 0",
	"0 5 7 2 ∞ | ∞ 0 2 ∞ ∞ | 3 8 0 5 7 | ∞ ∞ 4 0 1 | 1 3 5 3 0",
	"0 5 7 2 14 | 5 0 2 7 9 | 3 8 0 5 7 | 7 12 4 0 1 | 1 3 5 3 0",
	"0 5 6 2 3 | 5 0 2 7 8 | 3 8 0 5 6 | 7 12 4 0 1 | 1 3 5 3 0",
	"0 5 6 2 3 | 5 0 2 7 8 | 3 8 0 5 6 | 2 4 4 0 1 | 1 3 5 3 0",
}
ex6Pi := []string{
	"NIL 1 NIL 1 NIL | NIL NIL 2 NIL NIL | 3 NIL NIL NIL 3 | NIL NIL 4 NIL 4 | 5 5 NIL NIL NIL",
	"NIL 1 NIL 1 NIL | NIL NIL 2 NIL NIL | 3 1 NIL 1 3 | NIL NIL 4 NIL 4 | 5 5 NIL 1 NIL",
	"NIL 1 2 1 NIL | NIL NIL 2 NIL NIL | 3 1 NIL 1 3 | NIL NIL 4 NIL 4 | 5 5 2 1 NIL",
	"NIL 1 2 1 3 | 3 NIL 2 1 3 | 3 1 NIL 1 3 | 3 1 4 NIL 4 | 5 5 2 1 NIL",
	"NIL 1 4 1 4 | 3 NIL 2 1 4 | 3 1 NIL 1 4 | 3 1 4 NIL 4 | 5 5 2 1 NIL",
	"NIL 1 4 1 4 | 3 NIL 2 1 4 | 3 1 NIL 1 4 | 5 5 4 NIL 4 | 5 5 2 1 NIL",
}
check(len(tr31.Steps) == len(ex6D), "the trace has %d steps, the thesis %d (k = 0..5)", len(tr31.Steps), len(ex6D))
for k, s := range tr31.Steps {
	check(s.K == k, "step %d of the trace is k = %d", k, s.K)
	expectMatrix(fmt.Sprintf("D^(%d)", k), fig31.Labels(), s.Dist, ex6D[k], false)
	expectMatrix(fmt.Sprintf("Π^(%d)", k), fig31.Labels(), s.Pred, ex6Pi[k], true)
}
fmt.Printf("D^(k) and Π^(k) for k = 0..5 are the thesis's, cell by cell (%d cells checked so far)\n", asserted)
display.FWTrace(&tr31).OneBased()
''')

md(r'''
### Paths from Π⁽⁵⁾

The last Π gives every shortest path by walking predecessors back from the target. The thesis's
programs check their results this way: a recursive `getPath` rebuilds each path's weight from Π and
the arcs, and compares it with D. The cell does the same for all 25 pairs, and runs `Verify`, which
adds the triangle inequality on every arc (together the two prove the distances optimal).
''')

code(r'''
// getPath is the check of the thesis's three programs (§3.2, Appendices
// 1–3): the weight of the path i → j rebuilt from Π by recursion on the
// predecessor of j, and graph.Inf when there is no path.
func getPath(g *graph.Graph, r *graph.AllPairs, i, j int) int64 {
	if i == j {
		return 0
	}
	p := r.PredAt(i, j)
	if p == graph.Nil {
		return int64(graph.Inf)
	}
	head := getPath(g, r, i, int(p))
	w, ok := g.Weight(int(p), j)
	if head == int64(graph.Inf) || !ok {
		return int64(graph.Inf)
	}
	return head + int64(w)
}

for _, want := range []string{"a -> d -> e (weight 3)", "d -> e -> a (weight 2)", "d -> e -> b (weight 4)"} {
	ends := strings.Fields(want)
	p, err := r31.Path(vertex(fig31, ends[0]), vertex(fig31, ends[len(ends)-3]))
	if err != nil {
		panic(err)
	}
	check(p.String() == want, "path from Π^(5): %v, want %s", p, want)
	fmt.Println(p)
}
for i := 0; i < fig31.N(); i++ {
	for j := 0; j < fig31.N(); j++ {
		check(getPath(fig31, r31, i, j) == int64(r31.At(i, j)), "getPath(%s, %s) = %d, D has %s",
			fig31.Label(i), fig31.Label(j), getPath(fig31, r31, i, j), cellText(r31.At(i, j), false))
	}
}
check(r31.Verify(fig31) == nil, "Verify: %v", r31.Verify(fig31))
fmt.Println("getPath rebuilds all 25 distances from Π^(5); Verify: <nil>")
d3, a3 := vertex(fig31, "d"), vertex(fig31, "a")
da, _ := r31.Path(d3, a3)
display.Graph(fig31).Path(da).Title("Fig. 3.1: the shortest d → a goes through e")
''')

md(r'''
## §4.5 Blocked Floyd-Warshall with 2×2 tiles (Fig. 4.10, Example 7)

The blocked algorithm (Venkataraman et al. 2003; on GPUs, Katz & Kider 2008) cuts the matrix into
square tiles and walks down the diagonal. For each diagonal ("primary") tile B it runs three
phases: phase 1 closes the primary tile over its own vertices, phase 2 updates the tiles in its
row and its column through it, phase 3 updates every other tile through those. The thesis traces it
on a four-vertex digraph with 2×2 tiles: primary tile 0 covers a and b, tile 1 covers c and d.
Its Fig. 4.10 is not in the copy of the thesis used here, but Example 7's matrix W gives the five
arcs, a→b 5, a→c 9, b→c 1, c→d 2 and d→b 3: that graph is `graph.Example("karaula-fig4.10")`.
''')

code(r'''
fig410, err := graph.Example("karaula-fig4.10")
if err != nil {
	panic(err)
}
display.Graph(fig410).Title("Fig. 4.10 (Karaula 2017): 4 vertices, 5 arcs")
''')

md(r'''

`cpu.FloydWarshallBlocked` with `Tile: 2` and a `Trace` records the matrices after every phase.
The cell asserts the seven states the thesis prints (the start and three phases per round) and
that the blocked result, Π included, equals the plain algorithm's. The thesis's GPU program uses
32×32 tiles, with which this graph is one tile and only phase 1 runs; the figure needs tile 2.
''')

code(r'''
var tr410 graph.FWTrace
r410, err := cpu.FloydWarshallBlocked(Ctx(), fig410, cpu.FWOptions{Pred: true, Tile: 2, Trace: &tr410})
if err != nil {
	panic(err)
}
// The states the thesis prints: before round 0, then after each phase of
// rounds 0 and 1 (Π numbered from 1).
ex7 := []struct {
	round, phase int
	d, pi        string
}{
	{-1, 0, "0 5 9 ∞ | ∞ 0 1 ∞ | ∞ ∞ 0 2 | ∞ 3 ∞ 0", "NIL 1 1 NIL | NIL NIL 2 NIL | NIL NIL NIL 3 | NIL 4 NIL NIL"},
	{0, 1, "0 5 9 ∞ | ∞ 0 1 ∞ | ∞ ∞ 0 2 | ∞ 3 ∞ 0", "NIL 1 1 NIL | NIL NIL 2 NIL | NIL NIL NIL 3 | NIL 4 NIL NIL"},
	{0, 2, "0 5 6 ∞ | ∞ 0 1 ∞ | ∞ ∞ 0 2 | ∞ 3 ∞ 0", "NIL 1 2 NIL | NIL NIL 2 NIL | NIL NIL NIL 3 | NIL 4 NIL NIL"},
	{0, 3, "0 5 6 ∞ | ∞ 0 1 ∞ | ∞ ∞ 0 2 | ∞ 3 4 0", "NIL 1 2 NIL | NIL NIL 2 NIL | NIL NIL NIL 3 | NIL 4 2 NIL"},
	{1, 1, "0 5 6 ∞ | ∞ 0 1 ∞ | ∞ ∞ 0 2 | ∞ 3 4 0", "NIL 1 2 NIL | NIL NIL 2 NIL | NIL NIL NIL 3 | NIL 4 2 NIL"},
	{1, 2, "0 5 6 8 | ∞ 0 1 3 | ∞ 5 0 2 | ∞ 3 4 0", "NIL 1 2 3 | NIL NIL 2 3 | NIL 4 NIL 3 | NIL 4 2 NIL"},
	{1, 3, "0 5 6 8 | ∞ 0 1 3 | ∞ 5 0 2 | ∞ 3 4 0", "NIL 1 2 3 | NIL NIL 2 3 | NIL 4 NIL 3 | NIL 4 2 NIL"},
}
check(len(tr410.Steps) == len(ex7), "the blocked trace has %d steps, the thesis %d", len(tr410.Steps), len(ex7))
for i, s := range tr410.Steps {
	x := ex7[i]
	check(s.Round == x.round && s.Phase == x.phase, "step %d is %s, the thesis's is round %d, phase %d", i, s.Title(), x.round, x.phase)
	expectMatrix(s.Title()+": D", fig410.Labels(), s.Dist, x.d, false)
	expectMatrix(s.Title()+": Π", fig410.Labels(), s.Pred, x.pi, true)
}
plain410, err := cpu.FloydWarshall(Ctx(), fig410, cpu.FWOptions{Pred: true})
if err != nil {
	panic(err)
}
check(r410.Equal(plain410), "blocked and plain Floyd-Warshall differ:\n%s", r410.Diff(plain410, 5))
fmt.Printf("all seven blocked states are the thesis's, and the result (D and Π) is the plain one (%d cells checked in all)\n", asserted)
display.FWTrace(&tr410).OneBased()
''')

md(r'''
### Figs. 4.5 and 4.6: the phases of a round

The thesis draws the three phases twice, after Katz & Kider: Fig. 4.5 for the round whose primary
tile starts at element (1, 1), Fig. 4.6 for a round whose k-th tile is primary. The pictures
themselves are not in the copy of the thesis used here, so the schematics below take Example 7's
parameters — 4 vertices, block factor B = 2 — and draw its two rounds: round 0, the primary tile
{a, b} (Fig. 4.5's case), and round 1, the primary tile {c, d} (Fig. 4.6's, here the last tile).
The trace above went through exactly these phases.
''')

code(r'''
display.Row(display.BlockedFW(4, 2, 0), display.BlockedFW(4, 2, 1))
''')

md(r'''
### Figs. 4.7–4.9: what each block keeps in shared memory

§4.5 goes on to say which tiles each block of CUDA v2 loads into shared memory, and how the grid
of each phase is laid out; Figs. 4.7–4.9 draw it (they too are not in the copy used here, so the
schematics below are drawn from the text, on a matrix of 5 × 5 tiles with round k = 1):

- **phase 1** (Fig. 4.8, which draws phases 1 and 2): one block, and the primary tile alone in
  shared memory;
- **phase 2** (Fig. 4.8): the primary tile and the block's own tile; the grid has (B − 1) × 2
  blocks. The thesis writes B for the tile side here ("if the submatrices are B × B"), but the
  count only holds with B the number of tiles along a side. Row 0 of the grid takes the tiles in the
  primary row, row 1 those in the primary column, and a block's x index skips the primary tile by
  adding min((x + 1)/(k + 1), 1), which is 1 exactly when x ≥ k;
- **phase 3** (Figs. 4.7 and 4.9): three tiles, "the current block, and the blocks that shared the same
  column, or row, with the primary block"; the grid has (B − 1) × (B − 1) blocks, skipping the
  primary row and column the same way in x and in y. Fig. 4.7's data access is the same picture:
  tile (i, j) reads the tile (i, k) of the primary column and the tile (k, j) of the primary row.

Each schematic labels the tiles the phase updates with the block (blockIdx.x, blockIdx.y) that takes
them, and marks the tiles one block holds (A, B, C) beside its shared memory. pathnotes'
`fw-blocked` lays its grids out the same way, but in phase 3 keeps the block's own cell in a
register rather than a third tile (the budget below).
''')

code(r'''
display.Column(
	display.BlockedFW(160, 32, 1).Phase(1).Shared(1, 1).Blocks(),
	display.BlockedFW(160, 32, 1).Phase(2).Shared(3, 1).Blocks(),
	display.BlockedFW(160, 32, 1).Phase(3).Shared(3, 2).Blocks())
''')

md(r'''
## §4.4–4.5 The three programs

Karaula times three programs, and pathnotes has each as a variant:

- **CPU** (§3.2): the triple loop in one thread, relaxing (i, j) through k only when both
  d(i,k) and d(k,j) are finite, so that ∞ (INT_MAX) never overflows — run as written, |V|³ steps
  on any graph, by `cpu.FloydWarshallAsWritten`, variant `fw-cpu-as-written`. (pathnotes's
  reference, `cpu.FloydWarshall`, variant `fw-cpu-naive`, skips a whole row i when d(i,k) is ∞;
  it gives the same D and Π, but on sparse graphs it does far less work than the thesis's
  program, so the tables below do not use it.)
- **CUDA v1** (§4.4, after Harish & Narayanan 2007): the host loops over k and launches one kernel
  per k, with one thread per matrix cell — variant `fw-hn`;
- **CUDA v2** (§4.5, after Katz & Kider 2008): the three-phase blocked algorithm with 32×32 tiles
  held in shared memory — variant `fw-blocked`.

`fw-blocked` differs from the thesis's code in two places. A fix: the thesis loads the primary tile
(phase 2) and the row and column tiles (phase 3) without checking the matrix edge, and its guard
`i < max(32, |V|)` (phases 1 and 2) passes everything when |V| < 32, so when |V| is not a multiple
of 32 its kernels read past the matrix; pathnotes guards every load. And a saving: in phase 3 it
keeps the cell it updates in a register instead of a third tile (the budget below).
''')

code(r'''
programs := display.NewTable("Karaula's three programs as pathnotes variants", "thesis", "variant", "launch shape", "source")
programs.Add("CPU (§3.2)", cpu.VariantFWAsWritten, "one thread, k-i-j triple loop with the ∞ guard, as written", "Karaula 2017 §3.2")
for _, x := range []struct{ thesis, name string }{
	{"CUDA v1 (§4.4)", gpu.VariantFWHN}, {"CUDA v2 (§4.5)", gpu.VariantFWBlocked},
} {
	v, err := gpu.Lookup(x.name)
	if err != nil {
		panic(err)
	}
	programs.Add(x.thesis, v.Name, v.Launch, v.Source)
}
programs
''')

md(r'''
### Do the three agree?

All three must give the same D on every graph: here the three examples above and random graphs
whose |V| is and is not a multiple of 32 (5, 32, 40, 64, 200, 800, 1000, as far as the scale
allows). Predecessors may rightly differ where two paths tie, so each GPU Π is checked with
`Verify` — every path weight rebuilt from Π, the thesis's own check, plus the triangle inequality
on every arc (`VerifyWorkers` spreads the check over the cores). These runs also load the GPU
modules, so that the timings of §5 do not include that.
''')

code(r'''
cases := []*graph.Graph{fig23, fig31, fig410}
for _, n := range []int{5, 32, 40, 64, 200, 800, 1000} {
	if n > cpuMaxN {
		continue
	}
	g, err := lab.GNM(n, 5*n, weights, seed)
	if err != nil {
		panic(err)
	}
	cases = append(cases, g)
}
v1Col, v2Col := "CUDA v1 (fw-hn"+gpuTag+")", "CUDA v2 (fw-blocked"+gpuTag+")"
agree := display.NewTable("The three programs on the same graphs", "graph", "|V|", "|E|", "|V| mod 32", "CPU (fw-cpu-as-written)", v1Col, v2Col)
for _, g := range cases {
	ref, err := cpu.FloydWarshallAsWritten(Ctx(), g, cpu.FWOptions{Pred: true})
	if err != nil {
		panic(err)
	}
	if err := ref.VerifyWorkers(Ctx(), g, 0); err != nil { // every core: §5's large results need it
		panic(err)
	}
	row := []any{g.Name(), g.N(), g.M(), g.N() % 32, "verified"}
	for _, name := range []string{gpu.VariantFWHN, gpu.VariantFWBlocked} {
		same, _, err := machine.AgreeCell(Ctx(), name, g, ref, gpuMaxN) // the same D, and a Π that Verify accepts
		if err != nil {
			panic(err)
		}
		row = append(row, same)
	}
	agree.Add(row...)
}
agree
''')

md(r'''
### The shared-memory budget of CUDA v2

The thesis's blocked kernels keep their tiles in shared memory: in phase 3, three tiles of D and
three of Π, 6 × 32 × 32 × 4 B = 24 KiB per block. It notes the two limits this depends on: the
tiles must fit in a block's shared memory, and a tile has one thread per cell, so its side is
capped by the threads a block may have. Of its card, §5 says: "Na njoj je moguće pokrenuti 1024
niti po bloku i ima 64KB dijeljene memorije" — it runs 1024 threads per block "and has 64KB of
shared memory". The 1024 threads are right; the 64 KB are not all shared memory. On a Fermi card
(compute capability 2.0) 64 KB is the on-chip memory of each multiprocessor, split between the L1
cache and shared memory as 48 KB + 16 KB either way round, so a block may use at most 48 KB of
shared memory. The thesis's 24 KiB fit either way.
pathnotes' `fw-blocked` keeps the phase-3 cell it updates in a register instead of a third tile,
so it needs two tiles of D and one of Π there. The cell sets both budgets against the limits of
the device in use, when there is one.
''')

code(r'''
const tileBytes = 32 * 32 * 4 // one 32×32 tile of int32
fermiShared, fermiThreads := 48*1024, 1024
budget := display.NewTable("fw-blocked: dynamic shared memory per block (D and Π tiles)",
	"phase", "grid (nb = ⌈|V|/32⌉)", "thesis: tiles", "thesis: bytes", "pathnotes: tiles", "pathnotes: bytes")
thesisTiles, ourTiles := []int{2, 4, 6}, []int{2, 4, 3}
for i, grid := range []string{"1 × 1", "(nb−1) × 2", "(nb−1) × (nb−1)"} {
	budget.Add(i+1, grid, thesisTiles[i], thesisTiles[i]*tileBytes, ourTiles[i], ourTiles[i]*tileBytes)
}
check(6*tileBytes <= fermiShared && 32*32 <= fermiThreads, "the thesis's tiles do not fit its own Fermi card")
budget.Note(fmt.Sprintf("the thesis's Tesla C2050 (compute capability 2.0): %d B of shared memory and %d threads per block at most; both budgets fit",
	fermiShared, fermiThreads))
if dev != nil {
	info := dev.Info()
	fits := func(bytes int) string {
		if info.SharedPerBlock <= 0 {
			return "the device reports no limit"
		}
		if bytes <= info.SharedPerBlock {
			return "fits"
		}
		return "does NOT fit"
	}
	threads := "fit"
	if 32*32 > info.MaxThreadsPerBlock {
		threads = "do NOT fit"
	}
	budget.Note(fmt.Sprintf("%s (%s driver): %d B of shared memory (%d B opt-in) and %d threads per block: the thesis's %d B %s, pathnotes' %d B %s; 32×32 = 1024 threads %s",
		info.Name, dev.Driver(), info.SharedPerBlock, info.SharedPerBlockOptin, info.MaxThreadsPerBlock,
		6*tileBytes, fits(6*tileBytes), 4*tileBytes, fits(4*tileBytes), threads))
} else {
	budget.Note(noGPU + ": no device limits to compare with")
}
budget
''')

md(r'''
## §5 The experiments

### The thesis's numbers

Karaula timed the three programs on random digraphs in three density classes, with density
ρ = |E| / (|V|(|V|−1)), from 5 to 12,500 vertices, on an Intel Core i5-760 and an NVIDIA Tesla
C2050/C2070. Each graph ran twice and the tables give the mean, in seconds, measured with `clock()`
around the Floyd-Warshall call; for the GPU programs that span includes allocation, both copies
and a device reset, which is why no GPU time is below about 0.05 s. The thesis does not say how the
graphs were drawn, nor the range of the weights; only the (|V|, |E|) pairs are known.

The cells below hold the six tables as data (their types, then their rows); the third runs two
checks on them: every printed ρ is
|E| / (|V|(|V|−1)) rounded to the digits printed, and every printed speed-up agrees with the
printed times — except two, off by a factor of about ten: Table 4 at |V| = 20 and Table 6 at
|V| = 5, typos in a power of ten. (The thesis heads the speed-up columns "CUDA v1/CPU" and
"CUDA v2/CUDA v1", but the values are t_CPU / t_v1 and t_v1 / t_v2: how many times faster. They
are headed CPU÷v1 and v1÷v2 here.)
''')

code(r'''
import "math"

// thesisRow is one row of Tables 1, 3 or 5 (times, seconds) with the same
// row of Tables 2, 4 or 6 (speed-ups), as printed in Karaula (2017), §5.
type thesisRow struct {
	V, E                int
	Rho                 string // the density, as printed
	CPU, V1, V2         float64
	CPUOverV1, V1OverV2 float64
}

// densityClass is one of the thesis's three experiments.
type densityClass struct {
	Name                  string
	TimeTable, SpeedTable int
	Fig                   string
	Rows                  []thesisRow
}
''')

code(r'''
classes := []densityClass{
	{"dense", 1, 2, "5.1", []thesisRow{
		{5, 10, "50%", 3e-06, 0.05, 0.05, 6.034e-05, 0.98},
		{10, 40, "44.44%", 1.6e-05, 0.05, 0.05, 2.98e-04, 1.03},
		{20, 160, "42.11%", 1.18e-04, 0.05, 0.05, 2.29e-03, 0.97},
		{40, 640, "41.03%", 9.48e-04, 0.05, 0.05, 0.02, 1.08},
		{200, 6000, "15.08%", 0.1, 0.06, 0.05, 1.80, 1.2},
		{400, 24000, "15.04%", 0.81, 0.07, 0.06, 11.91, 1.14},
		{800, 96000, "15.02%", 6.46, 0.15, 0.09, 43.21, 1.59},
		{1000, 150000, "15.02%", 12.59, 0.26, 0.14, 49.18, 1.9},
		{2000, 400000, "10.01%", 99.66, 1.51, 0.71, 66.19, 2.12},
		{5000, 500000, "2%", 1531.97, 22.5, 9.93, 68.1, 2.27},
		{7500, 1125000, "2%", 5181.18, 76.98, 33.12, 67.31, 2.32},
		{10000, 2000000, "2%", 12297.75, 175.58, 78.08, 70.04, 2.25},
		{12500, 3125000, "2%", 24007.1, 350.86, 151.96, 68.42, 2.31},
	}},
	{"sparse", 3, 4, "5.2", []thesisRow{
		{5, 2, "10%", 2e-06, 0.05, 0.05, 3.923e-05, 1.04},
		{10, 5, "5.56%", 7e-06, 0.05, 0.05, 1.2e-04, 1.1},
		{20, 10, "2.63%", 3.95e-05, 0.05, 0.05, 7.79e-03, 1},
		{40, 20, "1.28%", 2.97e-04, 0.05, 0.05, 0.01, 1.01},
		{200, 100, "0.25%", 0.04, 0.06, 0.05, 0.65, 1.07},
		{400, 200, "0.13%", 0.28, 0.06, 0.05, 4.35, 1.21},
		{800, 400, "0.06%", 2.21, 0.1, 0.08, 22.38, 1.19},
		{1000, 500, "0.05%", 4.31, 0.15, 0.11, 29.29, 1.38},
		{2000, 1000, "0.03%", 34.51, 0.7, 0.5, 49.13, 1.41},
		{5000, 2500, "0.01%", 537.3, 9.27, 6.78, 57.93, 1.37},
		{7500, 3750, "6.67e-03%", 1811.47, 30.49, 22.6, 59.41, 1.35},
		{10000, 5000, "5e-03%", 4292.49, 69.29, 53.38, 61.94, 1.3},
		{12500, 6250, "4e-03%", 8384.87, 135.19, 103.4, 62.03, 1.3},
	}},
	{"medium", 5, 6, "5.3", []thesisRow{
		{5, 5, "25%", 2.5e-06, 0.05, 0.05, 4.65e-06, 1.05},
		{10, 15, "16.67%", 1.2e-05, 0.05, 0.05, 2.39e-04, 0.97},
		{20, 40, "10.53%", 7.6e-05, 0.05, 0.05, 1.5e-03, 0.97},
		{40, 100, "6.41%", 4.83e-4, 0.05, 0.05, 0.01, 0.98},
		{200, 700, "1.76%", 0.07, 0.06, 0.05, 1.27, 1.09},
		{400, 1600, "1%", 0.6, 0.06, 0.05, 9.64, 1.17},
		{800, 3200, "0.5%", 4.42, 0.12, 0.09, 35.53, 1.37},
		{1000, 4500, "0.45%", 9.23, 0.21, 0.13, 44.26, 1.64},
		{2000, 10000, "0.25%", 75.83, 1.19, 0.66, 63.75, 1.81},
		{5000, 30000, "0.12%", 1234.1, 18.11, 9.29, 68.14, 1.95},
		{7500, 45000, "0.08%", 4177.94, 61.43, 31.02, 68.02, 1.98},
		{10000, 65000, "0.07%", 9992.2, 141.69, 73.23, 70.52, 1.94},
		{12500, 81250, "0.05%", 19538.15, 281.27, 142.83, 69.46, 1.97},
	}},
}
''', subject="the section is the thesis's numbers: its six tables as data")

code(r'''
typos := display.NewTable("Printed speed-ups that disagree with the printed times", "table", "|V|", "column", "printed", "from the times")
var flagged []string // "table/|V|" of each disagreeing speed-up
typoAt := map[string]bool{} // "table/|V|/column" of each
for _, c := range classes {
	for _, r := range c.Rows {
		rho := 100 * float64(r.E) / float64(r.V*(r.V-1))
		printed, err := lab.RoundsTo(rho, r.Rho) // ρ rounded to the digits printed
		check(err == nil && printed, "Table %d, |V|=%d: ρ = %.4g%%, printed %s (%v)", c.TimeTable, r.V, rho, r.Rho, err)
		for _, s := range []struct {
			column           string
			printed, derived float64
		}{{"CPU÷v1", r.CPUOverV1, r.CPU / r.V1}, {"v1÷v2", r.V1OverV2, r.V1 / r.V2}} {
			if math.Abs(math.Log10(s.printed/s.derived)) > 0.5 { // more than a factor of √10 apart
				typos.Add(c.SpeedTable, r.V, s.column, s.printed, s.derived)
				flagged = append(flagged, fmt.Sprintf("%d/%d", c.SpeedTable, r.V))
				typoAt[fmt.Sprintf("%d/%d/%s", c.SpeedTable, r.V, s.column)] = true
			}
		}
	}
}
check(strings.Join(flagged, " ") == "4/20 6/5", "speed-ups that disagree with the times (table/|V|): %v, want the two typos 4/20 and 6/5", flagged)
fmt.Println("every printed ρ is |E|/(|V|(|V|−1)) rounded; all other printed speed-ups agree with the times within rounding")
typos
''')

md(r'''
### Rebuilt on this machine

Each (|V|, |E|) pair of the thesis becomes `graph.GNM(|V|, |E|, weights 1..100, seed)`: exactly
|E| distinct arcs drawn uniformly, no loops, so each graph's ρ is the thesis's. Each program runs
`runs` times and the tables give the mean. For the GPU programs "(here)" is `gpu.Stats.Wall`:
allocation, both copies, the kernels and a range check of the result, which is the thesis's span
without its device reset. "kernels" is the device time of the kernels alone, from CUDA events.
Every GPU result is compared with the CPU's where the CPU ran and with CUDA v1's where it did
not, and its Π is verified. A dash means not run at this scale. The two cells below hold the code
(the tables and figures, then the experiment); the three after them run one density class each.
''')

code(r'''
// outcome keeps what one class measured here: the times of each program
// (K1, K2: the kernels of CUDA v1 and v2), 0 where it did not run.
type outcome struct {
	V                   []int
	CPU, V1, V2, K1, K2 []float64
}

// showRebuilt shows what rebuild measured on class c beside the thesis:
// the time and speed-up tables, and the figure and its speed-ups with the
// thesis's values dashed and this run's solid, one colour a program.
func showRebuilt(c densityClass, out *outcome) {
	here := " (here" + gpuTag + ")"
	v1, v2 := "CUDA v1"+here, "CUDA v2"+here
	times := display.NewTable(fmt.Sprintf("Table %d rebuilt: %s graphs, seconds", c.TimeTable, c.Name), "|V|", "|E|", "ρ",
		"CPU (thesis)", "CPU (here)", "CUDA v1 (thesis)", v1, "v1 kernels"+here, "CUDA v2 (thesis)", v2, "v2 kernels"+here)
	speed := display.NewTable(fmt.Sprintf("Table %d rebuilt: %s graphs, speed-ups", c.SpeedTable, c.Name),
		"|V|", "CPU÷v1 (thesis)", "v1÷v2 (thesis)", "CPU (here)", v1, v2).
		Ratio("CPU÷v1 here", "CPU (here)", v1).Ratio("v1÷v2 here", v1, v2).Ratio("CPU÷v2 here", "CPU (here)", v2)
	var xs, tc, t1, t2, s1, s2 []float64
	for i, row := range c.Rows {
		xs, tc, t1, t2 = append(xs, float64(row.V)), append(tc, row.CPU), append(t1, row.V1), append(t2, row.V2)
		s1, s2 = append(s1, row.CPUOverV1), append(s2, row.V1OverV2)
		cpuT, v1T, v2T := machine.Seconds(out.CPU[i], false), machine.Seconds(out.V1[i], true), machine.Seconds(out.V2[i], true)
		times.Add(row.V, row.E, row.Rho, row.CPU, cpuT, row.V1, v1T, machine.Seconds(out.K1[i], true), row.V2, v2T, machine.Seconds(out.K2[i], true))
		speed.Add(row.V, row.CPUOverV1, row.V1OverV2, cpuT, v1T, v2T)
	}
	if noGPU != "" { // the kernel columns would only repeat the "no GPU" cells
		times.Drop("v1 kernels"+here, "v2 kernels"+here)
	}
	for _, t := range []*display.Table{times, speed} {
		t.Note("thesis: Intel Core i5-760 and NVIDIA Tesla C2050/C2070; mean of 2 runs; clock() around the call, GPU times with a device reset")
		t.Note(fmt.Sprintf("here: %s; %s; mean of %d runs on graph.GNM(|V|, |E|, weights %d..%d, seed %d)",
			host, gpuHost, runs, weights.Min, weights.Max, seed))
		t.Note(fmt.Sprintf("—: not run at scale %g (CPU for |V| ≤ %d, GPU for |V| ≤ %d)", scale, cpuMaxN, gpuMaxN))
	}
	sources := func(p *display.Plot) *display.Plot { return p.Sources("[Karaula 2017]", "here"+gpuTag) }
	fig := sources(display.NewPlot(fmt.Sprintf("Fig. %s redrawn: %s graphs", c.Fig, c.Name), "|V|", "seconds").LogLog()).
		Documented("CPU", xs, tc).Documented("CUDA v1", xs, t1).Documented("CUDA v2", xs, t2).
		Documented("GPU floor of the thesis, 0.05 s", []float64{xs[0], xs[len(xs)-1]}, []float64{0.05, 0.05})
	ups := sources(display.NewPlot(fmt.Sprintf("Fig. %s, speed-ups: %s graphs", c.Fig, c.Name), "|V|", "times faster").LogLog())
	for _, col := range []string{"CPU÷v1", "v1÷v2"} { // a printed typo (found above) is a mark of its own
		typo := func(i int) bool { return typoAt[fmt.Sprintf("%d/%d/%s", c.SpeedTable, c.Rows[i].V, col)] }
		lab.DocumentedApart(ups, col, xs, map[string][]float64{"CPU÷v1": s1, "v1÷v2": s2}[col], typo, "a typo: %s printed at |V| = %g")
	}
	lab.MeasuredLine(fig, "CPU", out.V, out.CPU)
	lab.MeasuredLine(fig, "CUDA v1", out.V, out.V1)
	lab.MeasuredLine(fig, "CUDA v2", out.V, out.V2)
	lab.MeasuredSpeedup(ups, "CPU÷v1", out.V, out.CPU, out.V1)
	lab.MeasuredSpeedup(ups, "v1÷v2", out.V, out.V1, out.V2)
	for _, v := range []any{times, speed, fig, ups} {
		if err := display.Show(v); err != nil {
			panic(err)
		}
	}
}
''', subject="the section's tables and figures: each thesis table and figure with this run's values beside the printed ones")

code(r'''
// rebuild runs one density class: every thesis row within this scale's
// caps, on a GNM graph with the thesis's |V| and |E|. Each program runs
// `runs` times (lab.MeanVerified: the mean times and the first result,
// whose Π is verified); both GPU results have the CPU's distances, or
// beyond the CPU's cap CUDA v2 has v1's. It shows the tables and figures
// (showRebuilt) and returns what it measured.
func rebuild(c densityClass) *outcome {
	out := &outcome{}
	for _, row := range c.Rows {
		var cpuT, v1T, v2T, k1, k2 float64
		runCPU, runGPU := row.V <= cpuMaxN, row.V <= gpuMaxN && noGPU == ""
		if runCPU || runGPU {
			g, err := graph.GNM(row.V, row.E, weights, seed)
			if err != nil {
				panic(err)
			}
			g = g.WithName(fmt.Sprintf("GNM(%d, %d)", row.V, row.E))
			check(g.M() == row.E && math.Abs(g.Density()-float64(row.E)/float64(row.V*(row.V-1))) < 1e-12,
				"GNM(%d, %d) has %d arcs", row.V, row.E, g.M())
			var ref, r1 *graph.AllPairs
			if runCPU { // the thesis's triple loop as written
				cpuT, _, ref, err = lab.MeanVerified(Ctx(), runs, g, nil, lab.OnHost(func() (*graph.AllPairs, error) {
					return cpu.FloydWarshallAsWritten(Ctx(), g, cpu.FWOptions{Pred: true})
				}))
			}
			if runGPU && err == nil {
				v1T, k1, r1, err = lab.MeanVerified(Ctx(), runs, g, ref, machine.Run(Ctx(), gpu.VariantFWHN, g, true))
				if ref == nil { // beyond the CPU's cap: v2 is checked against v1
					ref = r1
				}
			}
			if runGPU && err == nil {
				v2T, k2, _, err = lab.MeanVerified(Ctx(), runs, g, ref, machine.Run(Ctx(), gpu.VariantFWBlocked, g, true))
			}
			if err != nil {
				panic(err)
			}
		}
		out.V, out.CPU, out.V1, out.V2 = append(out.V, row.V), append(out.CPU, cpuT), append(out.V1, v1T), append(out.V2, v2T)
		out.K1, out.K2 = append(out.K1, k1), append(out.K2, k2)
	}
	showRebuilt(c, out)
	return out
}
measuredHere := map[string]*outcome{}
''', subject="the section's experiment: one density class rebuilt and measured, each result checked")

md(r'''
### Dense graphs: Tables 1 and 2, Fig. 5.1

"Dense" is relative: from |V| = 5000 on, the thesis's dense graphs have ρ = 2%.
''')

code(r'''
measuredHere["dense"] = rebuild(classes[0])
''')

md(r'''
### Sparse graphs: Tables 3 and 4, Fig. 5.2

With |E| = |V|/2, most vertices have no outgoing arc (about 61 %, e^(−1/2)) and most pairs are
unreachable.
''')

code(r'''
measuredHere["sparse"] = rebuild(classes[1])
''')

md(r'''
### Medium-density graphs: Tables 5 and 6, Fig. 5.3
''')

code(r'''
measuredHere["medium"] = rebuild(classes[2])
''')

md(r'''
### The CPU column beyond |V| = 2000, run apart

The thesis ran its CPU triple loop up to |V| = 12,500, for 24,007 s (6.7 hours) on the dense graph
alone; this notebook stops at 2000 (`cpuMaxN`). `notebooks/internal/capped` runs the larger ones
apart on the host of a GPU machine, the same graphs, `fw-cpu-as-written` with Π, each verified,
and writes `notebooks/capped.json`; this cell shows what that file holds beside the thesis's times.
A run that one core ends within the time limit of one call runs on one core, as the thesis's did.
One core would need about an hour at |V| = 12,500, longer than a GPU machine is lent for, so the
larger runs split each pivot's rows over the host's cores (`cpu.FWOptions.Workers`: the same loop
and the same D and Π, since pivot k changes neither row k nor column k); the `cores` column says
which. Their one-core time is estimated from the class's one-core run at 5000 times (|V|/5000)³,
and the thesis's time is set against that.
''')

code(r'''
apart, mine, err := lab.ReadApart("capped.json", "01-karaula-fw")
if err != nil {
	panic(err)
}
if apart == nil || len(mine) == 0 {
	fmt.Println(lab.NotRunApart)
} else {
	thesisCPU := map[string]float64{} // "dense 5000" → the thesis's seconds
	for _, c := range classes {
		for _, t := range c.Rows {
			thesisCPU[fmt.Sprintf("%s %d", c.Name, t.V)] = t.CPU
		}
	}
	oneCore5000 := map[string]float64{} // class → its one-core seconds at |V| = 5000
	for _, r := range mine {
		if r.Cores == 1 && r.N == 5000 {
			oneCore5000[strings.Fields(r.Row)[0]] = r.Wall
		}
	}
	ta := display.NewTable("Tables 1, 3 and 5: the CPU column beyond |V| = 2000, run apart, seconds", "table", "class and |V|", "|E|",
		"CPU (thesis)", "CPU (apart)", "cores", "one core").Ratio("thesis ÷ one core", "CPU (thesis)", "one core")
	for _, r := range mine {
		var one any = r.Wall
		if r.Cores > 1 {
			one = "" // no one-core run at 5000 to scale from
			if t5, ok := oneCore5000[strings.Fields(r.Row)[0]]; ok {
				one = t5 * math.Pow(float64(r.N)/5000, 3)
			}
		}
		ta.Add(r.Table, r.Row, r.M, thesisCPU[r.Row], r.Wall, r.Cores, one)
	}
	ta.Note(fmt.Sprintf("run apart by notebooks/internal/capped, %s, on %s: fw-cpu-as-written with Π, several runs at once; every result verified", apart.Build, apart.Host))
	ta.Note("one core: the run itself where cores is 1; where the rows were split, the class's one-core time at 5000 × (|V|/5000)³, an estimate")
	for _, why := range apart.SkippedFor("01-karaula-fw") {
		ta.Note("not run: " + why)
	}
	ta.Note("thesis: Intel Core i5-760, mean of 2 runs")
	display.Show(ta)
}
''')

md(r'''
### Why v2 is faster: a profile

The times say that CUDA v2 wins; a profile of the launches says why. The `%%profile` cell below
runs both versions on one 128-vertex graph and shows their kernels side by side. v1's `fw_hn`
reads d[i][k], d[k][j] and d[i][j] from global memory for every k, coalesced (4 sectors for a
warp's 32 words, one for the d[i][k] all its lanes share) but n times over; v2's phase kernels
read each tile from global memory once per round and then B = 32 times from shared memory,
without bank conflicts. On the emulator the counts are those Nsight Compute takes on a card
(docs/cell-kernels.md compares them); on a card the table gives registers and occupancy. The profile
computes distances only, without Π, so its kernels load none of the Π tiles of the budget above:
4, 8 and 8 KiB of shared memory in phases 1–3 instead of 8, 16 and 12.
''')

code(r'''
''' + common.profile_fw(["gpu.VariantFWHN", "gpu.VariantFWBlocked"], "CUDA v1 (fw-hn) and CUDA v2 (fw-blocked) on one graph, every launch profiled.") + r'''
''')

md(r'''
### What carries over

Three things the thesis's tables show can be set against this run. First, its CUDA v2 beat the CPU
by about 158× (dense), 81× (sparse) and 137× (medium) at |V| = 12,500 — figures derived from its
tables, not printed there. Second, the CPU time depends on density although Floyd-Warshall does
|V|³ steps on any graph; the likely cause is the ∞ guard, which skips the relaxation of pairs
that are not yet connected, and sparse graphs have many. The CPU column here runs that loop as
written (`fw-cpu-as-written`), so it keeps both the |V|³ steps and the guard. pathnotes's own
`fw-cpu-naive` tests d(i,k) once per row and then skips the row's whole inner loop, so on sparse
graphs it saves far more than a test per pair can, which is why it is not the CPU column. Third, small graphs run slower on the GPU than on the CPU (in the thesis up to
|V| = 40, and |V| = 200 for the sparse class), because every GPU call pays a fixed cost first.
The cell compares each with what this run measured, at the largest |V| both sides ran.
''')

code(r'''
summary := display.NewTable("CPU÷v2 at the largest |V| run here", "class", "|V|", "CPU÷v2 (thesis)", "CPU÷v2 (here)", "CPU÷v2 at 12,500 (thesis)")
density := display.NewTable("CPU time against the sparse class, same |V|", "class", "|V|", "CPU (thesis)", "÷ sparse (thesis)", "CPU (here)", "÷ sparse (here)")
sparse := measuredHere["sparse"]
for _, c := range classes {
	got := measuredHere[c.Name]
	last := c.Rows[len(c.Rows)-1]
	if i := lab.LastBoth(got.CPU, got.V2); i >= 0 {
		summary.Add(c.Name, got.V[i], c.Rows[i].CPU/c.Rows[i].V2, got.CPU[i]/got.V2[i], last.CPU/last.V2)
	} else {
		summary.Add(c.Name, "—", "—", "—", last.CPU/last.V2)
	}
	if i := lab.LastBoth(got.CPU, sparse.CPU); i >= 0 {
		density.Add(c.Name, got.V[i], c.Rows[i].CPU, c.Rows[i].CPU/classes[1].Rows[i].CPU, got.CPU[i], got.CPU[i]/sparse.CPU[i])
	}
}
if noGPU != "" {
	summary.Note(noGPU + ": nothing to compare on this machine")
}
crossover := display.NewTable("Smallest |V| at which a GPU program beat the CPU", "class", "thesis", "here")
for _, c := range classes {
	got := measuredHere[c.Name]
	thesisAt, hereAt := any("never"), any("—")
	for _, r := range c.Rows {
		if math.Min(r.V1, r.V2) < r.CPU {
			thesisAt = r.V
			break
		}
	}
	if i := lab.LastBoth(got.CPU, got.V1); i >= 0 {
		hereAt = "not within the sizes run"
		if v, ok := lab.FirstFaster(got.V, got.CPU, got.V1, got.V2); ok { // the faster of v1 and v2 beats the CPU
			hereAt = v
		}
	} else if noGPU != "" {
		hereAt = noGPU
	}
	crossover.Add(c.Name, thesisAt, hereAt)
}
display.Column(summary, density, crossover)
''')

md(r'''
## What is not reproduced

- **The hardware.** The thesis ran a Fermi card and a quad-core of about 2010; the "(here)" columns
  come from the machine named at the top, so only the shapes of the curves — the CPU's cubic
  growth, the GPU's fixed cost on small graphs, v2's lead over v1 — can be compared, not the
  numbers.
- **The graphs.** The thesis does not describe its generator, its weight range or any seed (only
  that the weights are random); ours are `graph.GNM` graphs with the thesis's (|V|, |E|), weights 1..100 and the seed stated above.
- **The clock.** The thesis's `clock()` counts the process's CPU time; ours is wall time, and the
  GPU times leave out the thesis's device reset and the one-time loading of the kernels.
- **The largest CPU runs.** The CPU triple loop stops at |V| = 2000 × scale: at 12,500 it would
  run for hours, as it did in the thesis.
''')


common.references(nb)
nb.write("01-karaula-fw.ipynb")

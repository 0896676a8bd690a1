package lab

import (
	"fmt"
	"math/rand/v2"

	"github.com/pathnotes/pathnotes/graph"
)

// DefaultSizes are the numbers of vertices the checkers try: 1 and 2, the
// sizes around a 32-wide tile or warp (31, 32, 33), powers of two, and
// sizes that are no multiple of any tile (100, 129, 257, 1000), where
// kernels that forget a bound or the last partial tile go wrong.
var DefaultSizes = []int{1, 2, 31, 32, 33, 64, 100, 129, 257, 1000}

// DefaultSeed seeds the checkers' and timers' graphs when the options give
// no seed.
const DefaultSeed uint64 = 20240407

// weights are the arc weights of the generated graphs.
var weights = graph.WeightRange{Min: 1, Max: 100}

// family is one kind of test graph: a name shown in reports and a
// generator of it on n vertices.
type family struct {
	name  string
	build func(n int, seed uint64) (*graph.Graph, error)
}

// sparse has about 2n arcs: many pairs have no path.
var sparse = family{"sparse", func(n int, seed uint64) (*graph.Graph, error) {
	return graph.GNM(n, min(2*n, n*(n-1)), weights, seed)
}}

// dense has an arc between 60% of the ordered pairs.
var dense = family{"dense", func(n int, seed uint64) (*graph.Graph, error) {
	return graph.GNP(n, 0.6, weights, seed)
}}

// negative has about 4n arcs, some negative, and no negative cycle: the
// weights of a non-negative graph shifted by vertex potentials
// (w'(u,v) = w(u,v) + p(u) - p(v)), which leave every cycle's weight as it
// was.
var negative = family{"negative", func(n int, seed uint64) (*graph.Graph, error) {
	g, err := graph.GNM(n, min(4*n, n*(n-1)), graph.WeightRange{Min: 0, Max: 40}, seed)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x6c6162))
	p := make([]int32, n)
	for v := range p {
		p[v] = int32(rng.IntN(60))
	}
	arcs := g.Arcs()
	for i, a := range arcs {
		arcs[i].Weight += p[a.From] - p[a.To]
	}
	h, err := graph.FromArcs(n, arcs)
	if err != nil {
		return nil, err
	}
	return h.WithName(fmt.Sprintf("%s shifted by potentials 0..59 (seed %d)", g.Name(), seed)), nil
}}

// degree7 gives every vertex out-degree 7 with weights 1..10, as Musap's
// single-source experiment does ([Musap 2016] §2.9): many equal distances.
var degree7 = family{"degree-7", func(n int, seed uint64) (*graph.Graph, error) {
	if n < 2 { // out-degree 1 needs two vertices
		return graph.GNM(n, 0, weights, seed)
	}
	return graph.ConstantDegree(n, min(7, n-1), graph.WeightRange{Min: 1, Max: 10}, seed)
}}

// caseSeed derives the seed of one graph from the options' seed, so that
// every (family, n) has its own graph and a report names how to rebuild it.
func caseSeed(seed uint64, n, familyIndex int) uint64 {
	if seed == 0 {
		seed = DefaultSeed
	}
	return seed + uint64(n)*16 + uint64(familyIndex)
}

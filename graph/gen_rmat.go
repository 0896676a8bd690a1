package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// RMATParams are the probabilities with which R-MAT (Chakrabarti, Zhan and
// Faloutsos 2004) sends an arc into each quarter of the adjacency matrix, at
// every level of its recursion: A top-left, B top-right, C bottom-left and
// D bottom-right. They must be non-negative and sum to 1. A much larger than
// D gives the skewed, power-law-like degrees of social and web graphs;
// A = B = C = D = 0.25 gives a uniform random graph.
type RMATParams struct{ A, B, C, D float64 }

// Graph500 are the Kronecker parameters of the Graph500 benchmark:
// A=0.57, B=0.19, C=0.19, D=0.05. Treat the variable as a constant.
var Graph500 = RMATParams{A: 0.57, B: 0.19, C: 0.19, D: 0.05}

// SSCA2 are GTgraph's R-MAT defaults for the SSCA#2 benchmark:
// A=0.45, B=0.15, C=0.15, D=0.25. Treat the variable as a constant.
var SSCA2 = RMATParams{A: 0.45, B: 0.15, C: 0.15, D: 0.25}

// Check returns an error unless every probability is a non-negative number
// and they sum to 1 within 1e-9.
func (p RMATParams) Check() error {
	for _, q := range []struct {
		name string
		x    float64
	}{{"A", p.A}, {"B", p.B}, {"C", p.C}, {"D", p.D}} {
		if !(q.x >= 0) || math.IsInf(q.x, 0) {
			return fmt.Errorf("graph: R-MAT probability %s=%g is not a finite non-negative number", q.name, q.x)
		}
	}
	if sum := p.A + p.B + p.C + p.D; math.Abs(sum-1) > 1e-9 {
		return fmt.Errorf("graph: R-MAT probabilities %v sum to %.12g, not 1", p, sum)
	}
	return nil
}

// String formats the parameters as "a=0.57,b=0.19,c=0.19,d=0.05".
func (p RMATParams) String() string {
	return fmt.Sprintf("a=%g,b=%g,c=%g,d=%g", p.A, p.B, p.C, p.D)
}

// maxRMATScale keeps 2^scale vertex ids inside int32.
const maxRMATScale = 30

// RMAT returns an R-MAT (Kronecker) random graph with n = 2^scale vertices,
// generated as edgeFactor·n directed arcs: each arc picks a quarter of the
// adjacency matrix with probabilities p, then a quarter of that quarter,
// scale times, and gets a weight drawn uniformly from w. As in Graph500,
// vertex ids are then shuffled by a random permutation (drawn from the
// seed), so that degree does not grow with id; this is done for every p.
//
// Self-loops are dropped and parallel arcs are merged into the lightest, so
// M() is a little below edgeFactor·n: a few percent for Graph500 at
// scale 20, edge factor 16, more for very skewed p or small graphs. The same
// arguments give the same graph on every machine, whatever its core count.
func RMAT(scale, edgeFactor int, p RMATParams, w WeightRange, seed uint64) (*Graph, error) {
	if scale < 0 || scale > maxRMATScale {
		return nil, fmt.Errorf("graph.RMAT: scale %d outside 0..%d (n = 2^scale vertices)", scale, maxRMATScale)
	}
	if edgeFactor < 0 {
		return nil, fmt.Errorf("graph.RMAT: negative edge factor %d", edgeFactor)
	}
	if err := p.Check(); err != nil {
		return nil, err
	}
	if err := w.Check(); err != nil {
		return nil, err
	}
	n := 1 << scale
	if edgeFactor > math.MaxInt32>>scale {
		return nil, fmt.Errorf("graph.RMAT: %d·2^%d arcs is more than the %d that int32 offsets can index", edgeFactor, scale, math.MaxInt32)
	}
	m := edgeFactor * n
	// Peak: the generated arcs (12 bytes each), their copy sorted by source
	// (8) and the CSR arrays (8), which the garbage collector may not have
	// thinned yet, plus the permutation and offsets.
	if err := checkGenSize("RMAT", uint64(n), uint64(m), 28*uint64(m)+12*uint64(n)); err != nil {
		return nil, err
	}
	from, to := rmatArcs(scale, m, p, w, seed)
	g := packCSR(n, from, to)
	g.name = fmt.Sprintf("rmat(scale=%d,ef=%d,%v,%s,seed=%d)", scale, edgeFactor, p, weightName(w), seed)
	return g, nil
}

// rmatArcs generates the m raw arcs of RMAT, self-loops and duplicates
// included: arc i is from[i] → to[i] in packArc form.
func rmatArcs(scale, m int, p RMATParams, w WeightRange, seed uint64) (from []int32, to []uint64) {
	perm := permutation(1<<scale, newRand(seed))
	q := newRMATThresholds(p)
	from, to = make([]int32, m), make([]uint64, m)
	forChunks(m, genChunk, seed, func(lo, hi int, rng *rand.Rand) {
		for i := lo; i < hi; i++ {
			var u, v uint32
			// One 64-bit draw serves two levels.
			for level := 0; level < scale; level += 2 {
				r := rng.Uint64()
				u, v = q.descend(u, v, r&math.MaxUint32)
				if level+1 < scale {
					u, v = q.descend(u, v, r>>32)
				}
			}
			from[i] = perm[u]
			to[i] = packArc(perm[v], w.draw(rng))
		}
	})
	return from, to
}

// rmatThresholds are the cumulative R-MAT probabilities scaled to 2^32, so
// that a uniform 32-bit number r picks quarter A when r < a, B when
// a ≤ r < ab, C when ab ≤ r < abc and D otherwise.
type rmatThresholds struct{ a, ab, abc uint64 }

func newRMATThresholds(p RMATParams) rmatThresholds {
	// Normalise so that D = 0 really never fires despite rounding.
	sum := p.A + p.B + p.C + p.D
	scaled := func(x float64) uint64 { return uint64(math.Min(x/sum, 1) * (1 << 32)) }
	return rmatThresholds{scaled(p.A), scaled(p.A + p.B), scaled(p.A + p.B + p.C)}
}

// descend appends one level's row and column bits to u and v. It is written
// without branches because the quarter is random and would be mispredicted.
func (q rmatThresholds) descend(u, v uint32, r uint64) (uint32, uint32) {
	row := bit(r >= q.ab)
	col := bit(r >= q.a)&^row | bit(r >= q.abc)
	return u<<1 | row, v<<1 | col
}

// bit converts a condition to 0 or 1; the compiler makes it a SETcc.
func bit(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// permutation returns a uniform random permutation of 0..n-1.
func permutation(n int, rng *rand.Rand) []int32 {
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	shuffle(perm, rng)
	return perm
}

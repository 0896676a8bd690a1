package graph

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// ConstantDegree returns the test graphs of [Musap 2016] (§2.9,
// after Martín, Torres and Gavilanes 2009): n vertices that all have
// out-degree exactly k. Vertex i has the ring arc i → i+1 mod n, so the
// ring alone already lets every vertex reach every other, and k-1 further
// arcs to distinct targets drawn uniformly from the n-2 vertices that are
// neither i nor i+1: no self-loops, no parallel arcs. Weights are drawn
// uniformly from w; the thesis gives none; positive ones such as 1..10 suit it.
//
// k must be at least 1 (the ring arc) and n at least k+1, since a vertex
// has only n-1 possible targets; smaller n is an error. The graph needs only
// its CSR arrays (8 bytes an arc): n = 10,000,000 with k = 7 is 70 million
// arcs, about 560 MB.
func ConstantDegree(n, k int, w WeightRange, seed uint64) (*Graph, error) {
	if n < 0 || k < 1 {
		return nil, fmt.Errorf("graph.ConstantDegree: need n ≥ 0 and out-degree k ≥ 1, got n=%d k=%d", n, k)
	}
	if n < k+1 {
		return nil, fmt.Errorf("graph.ConstantDegree: n=%d vertices cannot have out-degree k=%d without self-loops or parallel arcs (need n ≥ k+1 = %d)", n, k, k+1)
	}
	if err := w.Check(); err != nil {
		return nil, err
	}
	if k > math.MaxInt32/n {
		return nil, fmt.Errorf("graph.ConstantDegree: n·k = %d·%d arcs is more than the %d that int32 offsets can index", n, k, math.MaxInt32)
	}
	m := n * k
	if err := checkGenSize("ConstantDegree", uint64(n), uint64(m), 8*uint64(m)+4*uint64(n)); err != nil {
		return nil, err
	}
	g := newCSR(n, m)
	for u := range n {
		g.offsets[u+1] = int32((u + 1) * k)
	}
	forChunks(n, max(genChunk/k, 1), seed, func(lo, hi int, rng *rand.Rand) {
		chosen := newSmallSet(k - 1)
		for u := lo; u < hi; u++ {
			row := g.targets[u*k : (u+1)*k]
			row[0] = int32((u + 1) % n)
			// Robert Floyd's sampling: k-1 distinct indexes of the n-2
			// candidates (u+2+i) mod n with exactly k-1 draws, however
			// close k is to n.
			chosen.clear()
			for j, out := n-2-(k-1), 1; j < n-2; j, out = j+1, out+1 {
				t := int(rng.Uint64N(uint64(j) + 1))
				if !chosen.add(t) {
					chosen.add(j)
					t = j
				}
				row[out] = int32((u + 2 + t) % n)
			}
			slices.Sort(row)
			for i := range row {
				g.weights[u*k+i] = w.draw(rng)
			}
		}
	})
	g.name = fmt.Sprintf("constdegree(n=%d,k=%d,%s,seed=%d)", n, k, weightName(w), seed)
	return g, nil
}

// Complete returns the complete directed graph on n vertices: all n(n-1)
// arcs u → v with u ≠ v, each with a weight drawn uniformly from w. n may be
// at most 46341, where n(n-1) reaches the int32 arc limit.
func Complete(n int, w WeightRange, seed uint64) (*Graph, error) {
	if n < 0 {
		return nil, fmt.Errorf("graph.Complete: negative vertex count %d", n)
	}
	if err := w.Check(); err != nil {
		return nil, err
	}
	degree := max(n-1, 0)
	m := uint64(n) * uint64(degree)
	if err := checkGenSize("Complete", uint64(n), m, 8*m+4*uint64(n)); err != nil {
		return nil, err
	}
	g := newCSR(n, int(m))
	for u := range n {
		g.offsets[u+1] = int32((u + 1) * degree)
	}
	forChunks(n, max(genChunk/max(degree, 1), 1), seed, func(lo, hi int, rng *rand.Rand) {
		for u := lo; u < hi; u++ {
			row := g.targets[u*degree : (u+1)*degree]
			for i := range row {
				v := i
				if v >= u {
					v++
				}
				row[i] = int32(v)
				g.weights[u*degree+i] = w.draw(rng)
			}
		}
	})
	g.name = fmt.Sprintf("complete(n=%d,%s,seed=%d)", n, weightName(w), seed)
	return g, nil
}

// smallSet is an open-addressing set of non-negative ints sized for a
// known number of members: its table has 2-4 slots a member, so clear
// costs a pass over a handful of words for the rows of ConstantDegree.
type smallSet struct {
	slots []int32 // member+1; 0 is empty
	shift uint
}

func newSmallSet(members int) *smallSet {
	b := max(bits.Len(uint(2*members)), 1)
	return &smallSet{slots: make([]int32, 1<<b), shift: uint(32 - b)}
}

func (s *smallSet) clear() { clear(s.slots) }

// add inserts x and reports whether it was new.
func (s *smallSet) add(x int) bool {
	mask := len(s.slots) - 1
	for i := int(uint32(x)*0x9e3779b1>>s.shift) & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case 0:
			s.slots[i] = int32(x) + 1
			return true
		case int32(x) + 1:
			return false
		}
	}
}

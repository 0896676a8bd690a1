package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// checkGenSize returns an error when a generator's graph, with n vertices and
// m arcs, cannot be stored (vertex ids and CSR offsets are int32) or when the
// peak number of bytes the generator holds is more than the machine has free.
// fn names the generator in the message.
func checkGenSize(fn string, n, m, peakBytes uint64) error {
	if n > math.MaxInt32 {
		return fmt.Errorf("graph.%s: %d vertices is more than int32 vertex ids allow (%d)", fn, n, math.MaxInt32)
	}
	if m > math.MaxInt32 {
		return fmt.Errorf("graph.%s: %d arcs is more than the %d that int32 offsets can index", fn, m, math.MaxInt32)
	}
	if err := checkMemory(peakBytes); err != nil {
		return fmt.Errorf("graph.%s: n=%d m=%d: generating would %w", fn, n, m, err)
	}
	return nil
}

// weightName formats a weight range for a generator's graph name.
func weightName(w WeightRange) string { return fmt.Sprintf("w=%d..%d", w.Min, w.Max) }

// newCSR allocates an empty CSR graph with n vertices and room for m arcs.
func newCSR(n, m int) *Graph {
	return &Graph{
		offsets: make([]int32, n+1),
		targets: make([]int32, m),
		weights: make([]int32, m),
		stats:   new(arcStatsCache),
	}
}

// chunkRand returns the random stream of chunk c of a parallel generator.
// The first PCG word is the user's seed and the second a bijective mix of
// c, so distinct (seed, chunk) pairs never share a stream.
func chunkRand(seed uint64, c int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, mix64(uint64(c)+1)))
}

// mix64 is the SplitMix64 finalizer, a bijection on uint64 that spreads
// neighbouring inputs far apart.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// shuffle puts s in uniformly random order (Fisher-Yates). It is spelt out
// rather than left to rand.Shuffle so that the order a seed gives is fixed
// by this code alone.
func shuffle[T any](s []T, rng *rand.Rand) {
	for i := len(s) - 1; i > 0; i-- {
		j := rng.Uint64N(uint64(i) + 1)
		s[i], s[j] = s[j], s[i]
	}
}

// forRanges calls body on consecutive ranges [lo, hi) of at most size items
// that cover 0..total, from up to GOMAXPROCS goroutines. Range c is
// [c*size, min((c+1)*size, total)), whatever the number of goroutines.
func forRanges(total, size int, body func(c, lo, hi int)) {
	if total <= 0 {
		return
	}
	size = max(size, 1)
	chunks := (total + size - 1) / size
	workers := min(runtime.GOMAXPROCS(0), chunks)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				lo := c * size
				body(c, lo, min(lo+size, total))
			}
		})
	}
	wg.Wait()
}

// forChunks is forRanges for random generators: range c draws from its own
// stream chunkRand(seed, c), so the graph depends only on the arguments and
// on size (part of each generator's definition), not on how many goroutines
// ran or in which order.
func forChunks(total, size int, seed uint64, body func(lo, hi int, rng *rand.Rand)) {
	forRanges(total, size, func(c, lo, hi int) { body(lo, hi, chunkRand(seed, c)) })
}

// genChunk is how many arcs one random stream of a parallel generator
// covers: large enough that setting up a stream costs nothing, small enough
// to keep every core busy. Changing it changes the graph each seed gives.
const genChunk = 1 << 16

// packArc packs a target and a weight into one uint64 whose order is
// (target, weight): sorting packed arcs puts each target's lightest first.
func packArc(to int32, w int32) uint64 {
	return uint64(uint32(to))<<32 | uint64(uint32(w)^1<<31)
}

// unpackArc undoes packArc.
func unpackArc(p uint64) (to int32, w int32) {
	return int32(p >> 32), int32(uint32(p) ^ 1<<31)
}

// packCSR builds a graph from arcs from[i] → packArc'd to[i], dropping every
// self-loop and merging parallel arcs into the lightest, like a Builder with
// KeepLightest that also drops negative loops. It counting-sorts the arcs
// by source and sorts each row, so no map or Arc slice is needed.
func packCSR(n int, from []int32, to []uint64) *Graph {
	start := make([]int32, n+1)
	for i, u := range from {
		if v, _ := unpackArc(to[i]); v != u {
			start[u+1]++
		}
	}
	for u := range n {
		start[u+1] += start[u]
	}
	rows := make([]uint64, start[n])
	next := slices.Clone(start[:n])
	for i, u := range from {
		if v, _ := unpackArc(to[i]); v != u {
			rows[next[u]] = to[i]
			next[u]++
		}
	}
	// Sort and deduplicate each row in place; next[u] becomes its length.
	forRanges(n, genChunk/16, func(_, lo, hi int) {
		for u := lo; u < hi; u++ {
			row := rows[start[u]:start[u+1]]
			slices.Sort(row)
			kept := 0
			for i, p := range row {
				if i == 0 || p>>32 != row[kept-1]>>32 {
					row[kept] = p
					kept++
				}
			}
			next[u] = int32(kept)
		}
	})
	g := &Graph{offsets: make([]int32, n+1), stats: new(arcStatsCache)}
	for u := range n {
		g.offsets[u+1] = g.offsets[u] + next[u]
	}
	m := g.offsets[n]
	g.targets, g.weights = make([]int32, m), make([]int32, m)
	forRanges(n, genChunk/16, func(_, lo, hi int) {
		for u := lo; u < hi; u++ {
			out := g.offsets[u]
			for i, p := range rows[start[u] : start[u]+next[u]] {
				g.targets[out+int32(i)], g.weights[out+int32(i)] = unpackArc(p)
			}
		}
	})
	return g
}

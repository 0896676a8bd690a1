// common.cuh: conventions shared by every pathnotes kernel.
//
// Distances and weights are 32-bit ints. INF (INT_MAX, graph.Inf on the Go
// side) marks "no path" exactly as in the documents: a relaxation runs only
// when both of its operands are finite, so INF is never added to anything.
// Finite values stay within +-MAXDIST (graph.MaxDistance = 2^30 - 1), which
// the host checks before a run, so the sum of two finite values cannot wrap.
#pragma once

#define INF 2147483647
#define NIL (-1)
#define MAXDIST 1073741823

// relax_sum adds two finite distances. A negative cycle drives sums down
// without bound; clamping them at -MAXDIST keeps them from wrapping round to
// large positive values, so a negative diagonal entry, once there, stays
// negative and the host can report the cycle. Graphs without negative
// cycles never reach the floor.
__device__ __forceinline__ int relax_sum(int a, int b)
{
    return max(a + b, -MAXDIST);
}

// TILE is the side of the square tiles (and of the 2-D thread blocks) of
// every blocked Floyd-Warshall kernel: 32 x 32 = 1024 threads, as in
// Karaula 2017, Bodra and Gaioso et al.
#define TILE 32

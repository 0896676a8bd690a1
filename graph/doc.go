// Package graph holds the directed weighted graphs that every pathnotes solver
// reads, the result types that every solver writes, and the tools around them:
// builders, generators, file formats, path reconstruction and verification.
//
// Conventions shared by every backend (CPU, GPU, emulator):
//
//   - Vertices are 0..n-1. A graph may carry labels ("a", "b", …) that every
//     display uses; Label(v) falls back to the number.
//   - Weights and distances are int32. Inf (math.MaxInt32) means "unreachable"
//     in every result and "no arc" in every dense matrix.
//   - No result ever overflows: a solver returns an error rather than a
//     distance whose magnitude exceeds MaxDistance.
//   - Predecessors follow one convention: Pred[i][j] is the vertex before j on
//     the chosen shortest path from i to j, and Nil (-1) when there is none
//     (i == j, or j unreachable from i).
//
// The package imports nothing else from pathnotes.
package graph

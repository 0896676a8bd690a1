// Package cpu holds the CPU shortest-path solvers of pathnotes: the
// references that every GPU variant is checked against, and the fast paths
// that a notebook compares the GPU with.
//
//	FloydWarshall           fw-cpu-naive       [Karaula 2017] §3.2's triple loop with Π, skipping rows with D[i,k] = ∞
//	FloydWarshallAsWritten  fw-cpu-as-written  [Karaula 2017] §3.2's triple loop as written: n³ steps on any graph
//	FloydWarshallBlocked    fw-cpu-blocked     3-phase tiled FW, parallel over tiles
//	Dijkstra, DijkstraAll   dijkstra-cpu       heap SSSP; APSP as parallel SSSP
//	BellmanFord             bf-cpu             early exit, negative-cycle report
//	Johnson                 johnson-cpu        APSP with negative arcs
//
// Every solver takes a context.Context and stops soon after it is cancelled,
// returns errors rather than panicking (a negative cycle is a
// *graph.NegativeCycleError), never returns a distance beyond
// ±graph.MaxDistance, and writes the graph package's result types, so that
// CPU and GPU answers compare cell by cell. Options come in small structs
// whose zero value is the plain run: no predecessors, no trace, default
// tile and one worker per core.
package cpu

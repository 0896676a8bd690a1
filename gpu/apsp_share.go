package gpu

import "github.com/pathnotes/pathnotes/graph"

// How apsp-batched shares the sources among several devices. Each device
// solves one contiguous share, in as few launches of apsp_batch as its
// memory allows (apspRows), and the slowest device's share sets the
// time of the whole. The sources of a graph do not cost the same: in
// p2p-Gnutella30 about three in four have no out-arc and settle at once,
// costing only the writing of their rows, and nine in ten of the others
// reach more than half of it. So the shares are cut to hold equal
// weights, a source with out-arcs weighing apspLiveWeight sources
// without, not equal counts.

// apspLiveWeight is the weight of a source with out-arcs in the shares
// of apsp-batched's sources, a source without weighing 1: about what a
// search costs against a row's writing on p2p-Gnutella30. Cut in equal
// counts, its first half's searches reach 1.066 times as many vertices as
// the second's (counted on the CPU), and on an H200 its kernels took 1.047
// times as long (docs/gpu-benchmarks.md), which puts about 15 % of a
// half's time in costs alike for every source. With that model a weight
// of 8 cuts the halves within 0.2 % of even (sources 0..17801 and the
// rest), and equal numbers of sources with out-arcs (a weight without
// bound) would give the second half 3 % more. 1 cuts equal counts
// (benchmarks compare).
var apspLiveWeight = 8

// span is the sources first..first+count-1.
type span struct{ first, count int }

// sourceShares cuts g's sources into devices contiguous shares, in order,
// whose weights (apspLiveWeight) are as even as whole sources allow: share
// c ends at the first source that takes the running weight to c+1
// devices' parts of the total or past it. A share may be empty where a
// few sources weigh more than a device's part.
func sourceShares(g *graph.Graph, devices int) []span {
	n := g.N()
	weight := func(s int) int64 {
		if g.OutDegree(s) > 0 {
			return int64(apspLiveWeight)
		}
		return 1
	}
	var total int64
	for s := range n {
		total += weight(s)
	}
	shares := make([]span, devices)
	first, s := 0, 0
	var sum int64
	for c := range devices {
		for s < n && sum*int64(devices) < int64(c+1)*total {
			sum += weight(s)
			s++
		}
		if c == devices-1 {
			s = n
		}
		shares[c] = span{first, s - first}
		first = s
	}
	return shares
}

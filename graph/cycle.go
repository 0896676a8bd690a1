package graph

import (
	"context"
	"math"
	"slices"
)

// Cycles of predecessor arrays and negative cycles: one implementation each,
// used by the CPU solvers, the GPU variants and RepairPredecessors.

// PredCycle returns a cycle of the predecessor graph pred (pred[v] is the
// vertex before v; a value outside 0..len(pred)-1, such as Nil, means none)
// in arc order, starting at its smallest vertex, or nil if there is none.
// A vertex that is its own predecessor is a cycle of one. It runs in
// O(len(pred)): each vertex has at most one predecessor, so one walk per
// unvisited vertex, stamped with where it started, meets every cycle.
func PredCycle(pred []int32) []int {
	return predCycle(pred, make([]int32, len(pred)))
}

// predCycle is PredCycle with scratch space stamp of len(pred), so that a
// caller checking many rows allocates it once.
func predCycle(pred []int32, stamp []int32) []int {
	clear(stamp) // 0: unvisited, s+1: seen on the walk from s
	for s := range pred {
		if stamp[s] != 0 {
			continue
		}
		x := s
		for hasPred(pred, x) && stamp[x] == 0 {
			stamp[x] = int32(s + 1)
			x = int(pred[x])
		}
		if hasPred(pred, x) && stamp[x] == int32(s+1) {
			return cycleAt(pred, x)
		}
	}
	return nil
}

// hasPred reports whether x is a vertex of pred with a predecessor.
func hasPred(pred []int32, x int) bool {
	return x >= 0 && x < len(pred) && pred[x] >= 0 && int(pred[x]) < len(pred)
}

// PredCycleFrom returns the cycle that following pred from v runs into, in
// arc order and starting at its smallest vertex, or nil when the walk ends
// at a vertex without a predecessor. Bellman-Ford uses it on a vertex whose
// distance still changed after n passes: the walk back from it reaches a
// negative cycle.
func PredCycleFrom(pred []int32, v int) []int {
	x := v
	for range len(pred) {
		if !hasPred(pred, x) {
			return nil
		}
		x = int(pred[x])
	}
	return cycleAt(pred, x) // n steps from v: x is on the cycle
}

// cycleAt returns the cycle of pred through x in arc order, starting at its
// smallest vertex, or nil if x is on none.
func cycleAt(pred []int32, x int) []int {
	cycle := []int{x}
	for y := x; ; {
		if !hasPred(pred, y) || len(cycle) > len(pred) {
			return nil
		}
		y = int(pred[y])
		if y == x {
			break
		}
		cycle = append(cycle, y)
	}
	slices.Reverse(cycle) // the walk went against the arcs
	i := slices.Index(cycle, slices.Min(cycle))
	return append(cycle[i:], cycle[:i]...)
}

// CycleWeight returns the weight of a cycle of g given by its vertices in
// order (the first repeated implicitly), taking the lightest arc between
// consecutive vertices. Every consecutive pair must be an arc of g.
func (g *Graph) CycleWeight(cycle []int) int64 {
	var sum int64
	for i, u := range cycle {
		w, _ := g.Weight(u, cycle[(i+1)%len(cycle)])
		sum += int64(w)
	}
	return sum
}

// FindNegativeCycle looks for a negative cycle of g on the host, as a
// solver does once it knows (a kernel saw a distance still falling) that
// there is one. It runs in-place Bellman-Ford passes recording each
// vertex's predecessor, from the distances start (nil: 0 everywhere, which
// reaches every cycle; Inf marks vertices not reached), until the
// predecessor graph has a cycle: any such cycle is negative, because every
// arc on it was tight when set and the last one set was strictly
// improving. It returns the cycle as PredCycle does, or nil when none is
// reached within 2n passes or ctx is done.
func FindNegativeCycle(ctx context.Context, g *Graph, start []int32) []int {
	n := g.N()
	const unreached = math.MaxInt64
	d := make([]int64, n)
	for v := range d {
		if start != nil && start[v] == Inf {
			d[v] = unreached
		} else if start != nil {
			d[v] = int64(start[v])
		}
	}
	pred := make([]int32, n)
	for v := range pred {
		pred[v] = Nil
	}
	stamp := make([]int32, n)
	for pass := 0; pass < 2*n && ctx.Err() == nil; pass++ {
		changed := false
		for u := 0; u < n; u++ {
			if d[u] == unreached {
				continue
			}
			ts, ws := g.Out(u)
			for k, t := range ts {
				if nd := d[u] + int64(ws[k]); nd < d[t] {
					d[t], pred[t], changed = nd, int32(u), true
				}
			}
		}
		if !changed {
			return nil
		}
		if cycle := predCycle(pred, stamp); cycle != nil {
			return cycle
		}
	}
	return nil
}

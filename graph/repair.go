package graph

import (
	"runtime"
	"sync"
)

// RepairPredecessors rebuilds the predecessor rows of r that form a cycle
// and returns how many it rebuilt. Blocked Floyd-Warshall (3-phase, on the
// CPU and on the GPU) relaxes in an order that can leave such rows when the
// graph has cycles of weight zero: every distance is right, but following
// Π from j may go round the zero cycle forever instead of reaching i.
// A rebuilt row is a breadth-first tree of the tight arcs (u, v) with
// d(i,u) + w(u,v) = d(i,v), which is a shortest-path tree; rows without a
// cycle are left as they are. Checking costs O(n) per row, rebuilding a
// row O(n + m). r's distances must be right (no negative cycle).
func (r *AllPairs) RepairPredecessors(g *Graph) int {
	if r.Pred == nil || r.N == 0 || g.N() != r.N {
		return 0
	}
	n := r.N
	workers := min(runtime.GOMAXPROCS(0), n)
	var mu sync.Mutex
	repaired := 0
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			stamp := make([]int32, n)
			queue := make([]int32, 0, n)
			count := 0
			for i := w; i < n; i += workers {
				dist, pred := r.Dist[i*n:(i+1)*n], r.Pred[i*n:(i+1)*n]
				if !rowCycle(i, pred, stamp) {
					continue
				}
				rebuildRow(g, i, dist, pred, queue)
				count++
			}
			mu.Lock()
			repaired += count
			mu.Unlock()
		}(w)
	}
	wg.Wait()
	return repaired
}

// rowCycle reports whether following the predecessors of row i loops
// without reaching the source i (a cycle through i does not count: the
// source's own predecessor is ignored). stamp is scratch space of length n.
func rowCycle(i int, pred []int32, stamp []int32) bool {
	own := pred[i]
	pred[i] = Nil
	found := predCycle(pred, stamp) != nil
	pred[i] = own
	return found
}

// rebuildRow replaces pred with a breadth-first tree of the arcs that are
// tight for the distances dist from source i.
func rebuildRow(g *Graph, i int, dist, pred []int32, queue []int32) {
	for v := range pred {
		pred[v] = Nil
	}
	seen := make([]bool, len(pred))
	seen[i] = true
	queue = append(queue[:0], int32(i))
	for head := 0; head < len(queue); head++ {
		u := queue[head]
		du := int64(dist[u])
		ts, ws := g.Out(int(u))
		for k, t := range ts {
			if seen[t] || dist[t] == Inf || du+int64(ws[k]) != int64(dist[t]) {
				continue
			}
			seen[t] = true
			pred[t] = u
			queue = append(queue, t)
		}
	}
}

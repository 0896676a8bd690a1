package graph

import "sync"

// ArcStats summarises a graph's arcs: what solvers check and tune by before
// every run (the weight range for refusals, the mean weight and out-degrees
// for bucket widths and thread groups).
type ArcStats struct {
	// MinWeight and MaxWeight are the smallest and largest arc weight (0
	// without arcs).
	MinWeight, MaxWeight int32
	// WeightSum is the sum of all arc weights.
	WeightSum int64
	// MaxOutDegree is the largest out-degree (0 without vertices).
	MaxOutDegree int
}

// arcStatsCache holds a graph's ArcStats once computed. Copies of a graph
// (WithName, WithNotes, WithLabels) share their arcs and so their cache.
type arcStatsCache struct {
	once  sync.Once
	stats ArcStats
}

// ArcStats returns the summary of g's arcs. The first call scans the arcs
// (on every core for large graphs) and later calls return the same values:
// the graph is immutable.
func (g *Graph) ArcStats() ArcStats {
	if g == nil {
		return ArcStats{}
	}
	if g.stats == nil { // a Graph built without a constructor
		return computeArcStats(g)
	}
	g.stats.once.Do(func() { g.stats.stats = computeArcStats(g) })
	return g.stats.stats
}

// arcStatsChunk is the arcs (or vertices) one goroutine of computeArcStats
// scans at a time.
const arcStatsChunk = 1 << 20

// computeArcStats scans g's weights and offsets.
func computeArcStats(g *Graph) ArcStats {
	var s ArcStats
	if g.M() > 0 {
		s.MinWeight, s.MaxWeight = g.weights[0], g.weights[0]
	}
	var mu sync.Mutex
	forRanges(g.M(), arcStatsChunk, func(_, lo, hi int) {
		part := g.weights[lo:hi]
		pmin, pmax, sum := part[0], part[0], int64(0)
		for _, w := range part {
			pmin, pmax, sum = min(pmin, w), max(pmax, w), sum+int64(w)
		}
		mu.Lock()
		s.MinWeight, s.MaxWeight, s.WeightSum = min(s.MinWeight, pmin), max(s.MaxWeight, pmax), s.WeightSum+sum
		mu.Unlock()
	})
	forRanges(g.N(), arcStatsChunk, func(_, lo, hi int) {
		deg := 0
		for u := lo; u < hi; u++ {
			deg = max(deg, int(g.offsets[u+1]-g.offsets[u]))
		}
		mu.Lock()
		s.MaxOutDegree = max(s.MaxOutDegree, deg)
		mu.Unlock()
	})
	return s
}

package gpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pathnotes/pathnotes/graph"
)

// TestFirstOutOfRange plants each kind of bad value (just past ±MaxDistance,
// the int32 extremes but Inf) at chunk edges, in the middle of a chunk and
// at the end, among Inf and in-range values strewn at random, on results
// scanned by one core and by every core, and checks that the first one is
// found and that a result without one passes.
func TestFirstOutOfRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 11))
	bad := []int32{graph.MaxDistance + 1, -graph.MaxDistance - 1, math.MinInt32, graph.Inf - 1}
	good := []int32{graph.Inf, graph.MaxDistance, -graph.MaxDistance, 0}
	for _, n := range []int{0, 1, rangeChunk - 1, rangeChunk + 1, 3*rangeChunk + 17, 1<<18 + 5} {
		dist := make([]int32, n)
		for i := range dist {
			dist[i] = good[rng.IntN(len(good))]
		}
		if i := firstOutOfRange(dist); i != -1 {
			t.Fatalf("n=%d: firstOutOfRange = %d on a good result", n, i)
		}
		for _, at := range []int{0, rangeChunk - 1, rangeChunk, rangeChunk + 7, n / 2, n - 1} {
			if at < 0 || at >= n {
				continue
			}
			for _, v := range bad {
				later := min(at+1+rng.IntN(max(n-at-1, 1)), n-1)
				saved := []int32{dist[at], dist[later]}
				if later > at {
					dist[later] = bad[rng.IntN(len(bad))]
				}
				dist[at] = v
				if i := firstOutOfRange(dist); i != at {
					t.Errorf("n=%d: %d at %d (another bad value at %d): firstOutOfRange = %d", n, v, at, later, i)
				}
				dist[later], dist[at] = saved[1], saved[0]
			}
		}
	}
}

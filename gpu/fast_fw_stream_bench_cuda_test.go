//go:build cuda

package gpu

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/graph"
)

// BenchmarkFWFastStreamedCall times whole streamed fw-fast calls with Π on
// one card at n = 32768 (GNM, 60 arcs a vertex, weights 1..100), the card
// capped at a third of the two matrices as pathnotes bench --out-of-core
// caps it, with the host matrices registered before the kernels and in the
// background beside the first pass (registerAhead), two calls each in one
// process. Metrics: the medians of callParts, and the split's register-,
// unregister- and finish-ms. The first call's result is checked against
// the second's (the same D and Π).
func BenchmarkFWFastStreamedCall(b *testing.B) {
	dev := testDevice(b)
	defer func(a bool) { registerAhead = a }(registerAhead)
	const n = 32768
	g, err := graph.GNM(n, 60*n, graph.WeightRange{Min: 1, Max: 100}, 1)
	if err != nil {
		b.Fatal(err)
	}
	limit := uint64(n) * n * 4 * 2 / 3
	for _, ahead := range []bool{false, true} {
		b.Run(fmt.Sprintf("ahead=%v", ahead), func(b *testing.B) {
			registerAhead = ahead
			var all []Stats
			var first *graph.AllPairs
			for i := range max(b.N, 2) {
				var st Stats
				res, err := FWFast(context.Background(), g, Options{Device: dev, Pred: true, DeviceMemory: limit, Stats: &st})
				if err != nil {
					b.Fatal(err)
				}
				if st.Passes < 2 {
					b.Fatalf("%d passes: the run did not stream", st.Passes)
				}
				if i == 0 {
					first = res
				} else if !res.SameDistances(first) || !slices.Equal(res.Pred, first.Pred) {
					b.Fatal("two calls gave different results")
				}
				all = append(all, st)
				res = nil
				runtime.GC()
			}
			callParts(b, all)
			b.ReportMetric(medianMs(all, func(s Stats) time.Duration { return s.Streamed.Register }), "register-ms")
			b.ReportMetric(medianMs(all, func(s Stats) time.Duration { return s.Streamed.Unregister }), "unregister-ms")
			b.ReportMetric(medianMs(all, func(s Stats) time.Duration { return s.Streamed.Finish }), "finish-ms")
			b.Logf("%s", all[len(all)-1].Streamed)
		})
	}
}

//go:build cuda

package gpu

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/graph"
)

// ssspCallSettings are the PATHNOTES_SSSP settings BenchmarkSSSPCall
// times on g: the CSR never page-locked, then the defaults (page-locked
// from the graph's second call on); on the flag engine's graphs also the
// changed word read every pass and every 8. The settings without pin come
// first, so that the defaults' first call is the graph's first with pin
// and its second the one that registers it.
func ssspCallSettings(g *graph.Graph) []string {
	if flagFrontier(g) {
		return []string{"pin=0,flagcheck=1", "pin=0", "", "flagcheck=1", "flagcheck=8"}
	}
	return []string{"pin=0", ""}
}

// BenchmarkSSSPCall times whole sssp-fast calls (graph in Go memory to
// distances in Go memory, from vertex 0, distances only) on the target
// graphs under each of ssspCallSettings: the first call's wall time
// (first-wall-ms) and the medians
// of the timed calls' parts (callParts), with the bound, 1.3 ×
// kernels + bytes ÷ 40 GB/s (bound-ms; bytes are the CSR in and the
// distances out). One more, untimed call's result is checked against the
// graph (the triangle inequality on every arc and every finite distance
// attained through an arc: with positive weights, a proof) and against the
// default setting's. Filter with e.g.
// -test.bench 'BenchmarkSSSPCall/rmat20/'.
func BenchmarkSSSPCall(b *testing.B) {
	dev := testDevice(b)
	ctx := context.Background()
	for _, fg := range fastBenchGraphs {
		if fg == gnutella30() {
			continue
		}
		b.Run(fg.name, func(b *testing.B) {
			g := fg.get(b)
			var ref *graph.SingleSource
			for _, set := range ssspCallSettings(g) {
				name := cmp.Or(strings.ReplaceAll(set, ",", "+"), "default")
				b.Run(name, func(b *testing.B) {
					b.Setenv(ssspEnv, set)
					var first Stats
					if _, err := SSSPFast(ctx, g, 0, Options{Device: dev, Stats: &first}); err != nil {
						b.Fatal(err)
					}
					var all []Stats
					for b.Loop() {
						var s Stats
						if _, err := SSSPFast(ctx, g, 0, Options{Device: dev, Stats: &s}); err != nil {
							b.Fatal(err)
						}
						all = append(all, s)
					}
					b.ReportMetric(float64(first.Wall)/1e6, "first-wall-ms")
					callParts(b, all)
					kernels := make([]time.Duration, len(all))
					for i, s := range all {
						kernels[i] = s.Kernel
					}
					slices.Sort(kernels)
					bytes := float64(all[0].BytesToDevice + all[0].BytesToHost)
					b.ReportMetric(1.3*float64(kernels[len(kernels)/2])/1e6+bytes/40e9*1e3, "bound-ms")
					got, err := SSSPFast(ctx, g, 0, Options{Device: dev})
					if err != nil {
						b.Fatal(err)
					}
					if err := got.Verify(g); err != nil {
						b.Fatalf("%s=%q: %v", ssspEnv, set, err)
					}
					if ref == nil {
						ref = got
					} else if !got.SameDistances(ref) {
						b.Fatalf("%s=%q: distances differ from the default's:\n%s", ssspEnv, set, got.Diff(ref, 5))
					}
				})
			}
		})
	}
}

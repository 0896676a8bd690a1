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

// BenchmarkFWFastStreamedCall times whole streamed fw-fast calls with Π at
// n = 32768 (GNM, 60 arcs a vertex, weights 1..100) on one card capped at
// a third of the two matrices, as pathnotes bench --out-of-core caps it,
// and, where the host has two cards or more, on the first two capped at a
// sixth each (a third in all) and at a third each, both also with the
// primary rows copied as before (peerAsync off), and at a sixth each with
// each least band width (ffUnitMin) (and in memory on one card, the
// streamed rate's baseline);
// with the host matrices registered before the kernels and in
// the background beside the first pass (registerAhead), two calls each in
// one process. Metrics: the medians of callParts, and the split's
// register-, unregister- and finish-ms. The first call's result is checked
// against the second's (the same D and Π).
func BenchmarkFWFastStreamedCall(b *testing.B) {
	dev := testDevice(b)
	defer func(a bool) { registerAhead = a }(registerAhead)
	const n = 32768
	g, err := graph.GNM(n, 60*n, graph.WeightRange{Min: 1, Max: 100}, 1)
	if err != nil {
		b.Fatal(err)
	}
	devs, err := OpenAll()
	if err != nil {
		b.Fatal(err)
	}
	cards := [][]*Device{{dev}}
	if len(devs) > 1 {
		cards = append(cards, devs[:2])
	}
	b.Run("cards=1/in-memory", func(b *testing.B) { streamedCalls(b, g, cards[0], false, 0) })
	for _, on := range cards {
		for _, ahead := range []bool{false, true} {
			b.Run(fmt.Sprintf("cards=%d/ahead=%v", len(on), ahead), func(b *testing.B) {
				streamedCalls(b, g, on, ahead, 3*len(on))
			})
		}
		if len(on) > 1 {
			b.Run(fmt.Sprintf("cards=%d/third-each", len(on)), func(b *testing.B) {
				streamedCalls(b, g, on, false, 3)
			})
			// The primary rows copied by cuMemcpyPeer, a barrier of both
			// cards each (peerAsync off).
			for _, part := range []int{3 * len(on), 3} {
				b.Run(fmt.Sprintf("cards=%d/part=%d/peer-sync", len(on), part), func(b *testing.B) {
					peerAsync = false
					defer func() { peerAsync = true }()
					streamedCalls(b, g, on, false, part)
				})
			}
			// Bands of fewer block rows than ffUnitMin allows, for fewer
			// passes.
			for _, least := range []int{1, 2, 3, 4} {
				b.Run(fmt.Sprintf("cards=%d/part=%d/unit-min=%d", len(on), 3*len(on), least), func(b *testing.B) {
					defer func(u int) { ffUnitMin = u }(ffUnitMin)
					ffUnitMin = least
					streamedCalls(b, g, on, false, 3*len(on))
				})
			}
		}
	}
}

// streamedCalls is BenchmarkFWFastStreamedCall's measurement on cards,
// each capped at 1/part of the two matrices, or in memory (part 0), the
// baseline of the streamed rate.
func streamedCalls(b *testing.B, g *graph.Graph, cards []*Device, ahead bool, part int) {
	n := uint64(g.N())
	opts := Options{Device: cards[0], Pred: true}
	if len(cards) > 1 {
		opts = Options{Devices: cards, Pred: true}
	}
	streamed := part > 0
	if streamed {
		opts.DeviceMemory = n * n * 4 * 2 / uint64(part)
	}
	registerAhead = ahead
	var all []Stats
	var first *graph.AllPairs
	for i := range max(b.N, 2) {
		var st Stats
		o := opts
		o.Stats = &st
		res, err := FWFast(context.Background(), g, o)
		if err != nil {
			b.Fatal(err)
		}
		if streamed && st.Passes < 2 {
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
	b.ReportMetric(float64(all[0].Passes), "passes")
	b.Logf("%s", all[len(all)-1].Streamed)
}

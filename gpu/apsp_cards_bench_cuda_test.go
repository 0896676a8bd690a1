//go:build cuda

package gpu

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"
)

// apspCardsRuns is the fewest calls BenchmarkAPSPCards times for each
// configuration (b.N when larger: -benchtime=1x times this many).
const apspCardsRuns = 3

// BenchmarkAPSPCards times apsp-batched on p2p-Gnutella30 (weights
// 1..100) without and with predecessors: on the first card alone, on one
// compute stream and on two (apspOverlap), then on the first two cards
// (and on all of them, where the host has more; a host of one card runs
// the one-card configurations alone) with each way of sharing
// the sources (apspShare), on one stream and on two. Each configuration
// runs with the rows unpacked and checked by apsp_batch's blocks (the
// default, apspFused) and then, named with a last element fused=false,
// by launches of their own after each batch; and, named pipe=K, with
// each card's share of the result cut into K batches (the default:
// apspPipe), on one stream and on two. Besides the parts of the
// calls (callParts: medians of max(b.N, apspCardsRuns) calls) it reports
// kernel-x and wall-x, the speed-ups of the median kernel and wall times
// over the first card alone on one stream, fused, in the same process
// (that configuration must run first: do not filter it out).
func BenchmarkAPSPCards(b *testing.B) {
	testDevice(b)
	devs, err := OpenAll()
	if err != nil {
		b.Fatal(err)
	}

	defer func(w shareWay, o, f bool, p int) {
		apspShare, apspOverlap, apspFused, apspPipe = w, o, f, p
	}(apspShare, apspOverlap, apspFused, apspPipe)
	pipe := apspPipe
	g := gnutella30().get(b)
	var counts []int // the card counts besides one
	if len(devs) > 1 {
		counts = append(counts, 2)
	}
	if len(devs) > 2 {
		counts = append(counts, len(devs))
	}
	for _, pred := range []bool{false, true} {
		var base [2]float64 // median kernel and wall ms of the first card alone on one stream, fused
		// batches, when not 0, is how many batches a card's share is cut
		// into; 0 leaves the default's.
		measure := func(b *testing.B, cards []*Device, way shareWay, overlap, fused bool, batches int) {
			apspShare, apspOverlap, apspFused, apspPipe = way, overlap, fused, pipe
			if batches > 0 {
				apspPipe = batches
			}
			all := make([]Stats, max(b.N, apspCardsRuns))
			for i := range all {
				if _, err := APSPBatched(context.Background(), g, Options{Devices: cards, Pred: pred, Stats: &all[i]}); err != nil {
					b.Fatal(err)
				}
				runtime.GC()
			}
			callParts(b, all)
			kernel := medianMs(all, func(s Stats) time.Duration { return s.Kernel })
			wall := medianMs(all, func(s Stats) time.Duration { return s.Wall })
			if len(cards) == 1 && !overlap && fused && batches == 0 {
				base = [2]float64{kernel, wall}
			}
			if base[0] == 0 {
				b.Logf("no one-card baseline in this process: no speed-ups")
				return
			}
			b.ReportMetric(base[0]/kernel, "kernel-x")
			b.ReportMetric(base[1]/wall, "wall-x")
			b.Logf("%s: kernel %.2f ms, wall %.2f ms", all[0].Device, kernel, wall)
		}
		// both times a configuration fused and then unfused.
		both := func(name string, cards []*Device, way shareWay, overlap bool) {
			for _, fused := range []bool{true, false} {
				full := name
				if !fused {
					full += "/fused=false"
				}
				b.Run(full, func(b *testing.B) { measure(b, cards, way, overlap, fused, 0) })
			}
		}
		for _, overlap := range []bool{false, true} {
			both(fmt.Sprintf("pred=%v/cards=1/overlap=%v", pred, overlap), devs[:1], shareHalves, overlap)
		}
		// Each batch count a share (1, 2, 4, 8), contiguous shares, fused.
		for _, k := range append([]int{1}, counts...) {
			for _, batches := range []int{1, 2, 4, 8} {
				for _, overlap := range []bool{false, true} {
					b.Run(fmt.Sprintf("pred=%v/cards=%d/pipe=%d/overlap=%v", pred, k, batches, overlap), func(b *testing.B) {
						measure(b, devs[:k], shareHalves, overlap, true, batches)
					})
				}
			}
		}
		for _, k := range counts {
			for _, way := range []shareWay{shareHalves, shareDealt, shareDynamic} {
				for _, overlap := range []bool{false, true} {
					both(fmt.Sprintf("pred=%v/cards=%d/way=%s/overlap=%v", pred, k, way, overlap), devs[:k], way, overlap)
				}
			}
		}
	}
}

// BenchmarkAPSPHalves measures on one card what two cards' kernels take:
// it solves each half of p2p-Gnutella30's sources (the contiguous share
// of each of two cards) alone, as that card's run would, its share cut
// into 2 and into 4 batches (apspPipe), without and with predecessors.
// Each configuration reports the medians of max(b.N, 3) calls of each
// half (half0-ms, half1-ms) and two-x, the whole graph's kernels on the
// card (configuration whole, the default, which runs first) over the
// slower half's.
func BenchmarkAPSPHalves(b *testing.B) {
	dev := testDevice(b)
	defer func(p int) { apspPipe = p }(apspPipe)
	pipe := apspPipe
	g := gnutella30().get(b)
	ctx := context.Background()
	tun, err := fastTuning{}.resolve(g, VariantAPSPBatched, 256, false)
	if err != nil {
		b.Fatal(err)
	}
	for _, pred := range []bool{false, true} {
		opts := Options{Device: dev, Pred: pred}
		var whole float64
		b.Run(fmt.Sprintf("pred=%v/whole", pred), func(b *testing.B) {
			apspPipe = pipe
			all := make([]Stats, max(b.N, 3))
			for i := range all {
				opts.Stats = &all[i]
				if _, err := APSPBatched(ctx, g, opts); err != nil {
					b.Fatal(err)
				}
				runtime.GC()
			}
			whole = medianMs(all, func(s Stats) time.Duration { return s.Kernel })
			b.ReportMetric(whole, "kernel-ms")
		})
		for _, batches := range []int{2, 4} {
			b.Run(fmt.Sprintf("pred=%v/batches=%d", pred, batches), func(b *testing.B) {
				apspPipe = batches
				var all [2][]Stats
				for range max(b.N, 3) {
					for half := range 2 {
						var st Stats
						opts.Stats = &st
						grp, err := startGroup(ctx, g, VariantAPSPBatched, false, opts, g.N())
						if err != nil {
							b.Fatal(err)
						}
						r := grp.runs[0]
						host := r.newHostResult(opts.matrices(), g.N(), g.N(), false, false)
						err = r.apspRows(g, host, newSourceFeed(g, 2, shareHalves, opts.matrices()), half, tun)
						if rerr := host.release(); err == nil {
							err = rerr
						}
						grp.end()
						if err != nil {
							b.Fatal(err)
						}
						all[half] = append(all[half], st)
						runtime.GC()
					}
				}
				kernel := func(s Stats) time.Duration { return s.Kernel }
				h0, h1 := medianMs(all[0], kernel), medianMs(all[1], kernel)
				b.ReportMetric(h0, "half0-ms")
				b.ReportMetric(h1, "half1-ms")
				if whole > 0 {
					b.ReportMetric(whole/max(h0, h1), "two-x")
				}
			})
		}
	}
}

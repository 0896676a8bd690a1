//go:build cuda

package gpu

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/graph"
)

// apspCardsRuns is the fewest calls BenchmarkAPSPCards times for each
// configuration (b.N when larger: -benchtime=1x times this many).
const apspCardsRuns = 3

// apspConfig is one configuration of apsp-batched that the card
// benchmarks time: whether a launch's rows go back in pieces as they are
// done (else after the launch, as before pieces), the values of a piece
// (fetchChunk: a staging buffer's worth; 0 leaves it), the weight of a
// source with out-arcs in the shares (apspLiveWeight; 1: equal counts),
// and the launches a card's share is cut into (0: as memory allows, one
// here).
type apspConfig struct {
	pieced                  bool
	chunk, weight, launches int
	block                   int // fastTuning.Block (0: the default)
}

// set sets the package's knobs to c and returns the tuning of its
// launches for g's share on each of cards cards.
func (c apspConfig) set(n, cards int, chunk int) fastTuning {
	apspPipeBytes, apspLiveWeight, fetchChunk = 64<<20, c.weight, chunk
	if !c.pieced {
		apspPipeBytes = 1 << 62
	}
	if c.chunk > 0 {
		fetchChunk = c.chunk
	}
	tun := fastTuning{Block: c.block}
	if c.launches > 0 {
		tun.Batch = ceilDiv(ceilDiv(n, cards), c.launches)
	}
	return tun
}

// restoreAPSP returns a function that puts apsp-batched's knobs back as
// they are now.
func restoreAPSP() func() {
	b, w, c := apspPipeBytes, apspLiveWeight, fetchChunk
	return func() { apspPipeBytes, apspLiveWeight, fetchChunk = b, w, c }
}

// BenchmarkAPSPCards times apsp-batched on p2p-Gnutella30 (weights
// 1..100) without and with predecessors, on the first card alone and on
// the first two cards (and on all of them, where the host has more; a
// host of one card runs the one-card configurations alone): the default
// (named default; one launch a card, its rows back in pieces of a
// staging buffer as they are done, shares by weight), pieces of 16 MiB
// (chunk=16m), each launch's rows after it (pieces=0), shares of equal
// counts (weight=1), blocks of K threads (block=K; the default is
// apspBlock's), and the share cut into launches (launches=K; with
// pieces=0, the way before pieces). Besides the parts of the calls
// (callParts: medians of max(b.N, apspCardsRuns) calls) it reports
// kernel-x and wall-x, the speed-ups of the median kernel and wall times
// over the first card alone with the default, in the same process (that
// configuration must run first: do not filter it out).
func BenchmarkAPSPCards(b *testing.B) {
	testDevice(b)
	devs, err := OpenAll()
	if err != nil {
		b.Fatal(err)
	}
	defer restoreAPSP()()
	def, chunk := apspConfig{pieced: true, weight: apspLiveWeight}, fetchChunk
	g := gnutella30().get(b)
	counts := []int{1}
	if len(devs) > 1 {
		counts = append(counts, 2)
	}
	if len(devs) > 2 {
		counts = append(counts, len(devs))
	}
	for _, pred := range []bool{false, true} {
		var base [2]float64 // median kernel and wall ms of the first card alone, default
		for _, k := range counts {
			configs := map[string]apspConfig{"default": def}
			var names = []string{"default"}
			add := func(name string, c apspConfig) { configs[name] = c; names = append(names, name) }
			with := func(f func(*apspConfig)) apspConfig { c := def; f(&c); return c }
			add("chunk=16m", with(func(c *apspConfig) { c.chunk = 4 << 20 }))
			add("pieces=0", with(func(c *apspConfig) { c.pieced = false }))
			if k > 1 {
				add("weight=1", with(func(c *apspConfig) { c.weight = 1 }))
			}
			for _, bl := range []int{128, 256, 512} {
				add(fmt.Sprintf("block=%d", bl), with(func(c *apspConfig) { c.block = bl }))
			}
			for _, l := range []int{2, 4} {
				add(fmt.Sprintf("launches=%d", l), with(func(c *apspConfig) { c.launches = l }))
				add(fmt.Sprintf("launches=%d/pieces=0", l), with(func(c *apspConfig) { c.launches, c.pieced = l, false }))
			}
			for _, name := range names {
				c := configs[name]
				b.Run(fmt.Sprintf("pred=%v/cards=%d/%s", pred, k, name), func(b *testing.B) {
					tun := c.set(g.N(), k, chunk)
					all := make([]Stats, max(b.N, apspCardsRuns))
					for i := range all {
						if _, err := apspBatchedTuned(context.Background(), g, Options{Devices: devs[:k], Pred: pred, Stats: &all[i]}, tun); err != nil {
							b.Fatal(err)
						}
						runtime.GC()
					}
					callParts(b, all)
					kernel := medianMs(all, func(s Stats) time.Duration { return s.Kernel })
					wall := medianMs(all, func(s Stats) time.Duration { return s.Wall })
					if k == 1 && name == "default" {
						base = [2]float64{kernel, wall}
					}
					if base[0] == 0 {
						b.Logf("no one-card baseline in this process: no speed-ups")
						return
					}
					b.ReportMetric(base[0]/kernel, "kernel-x")
					b.ReportMetric(base[1]/wall, "wall-x")
					b.Logf("%s: kernel %.2f ms, wall %.2f ms", all[0].Device, kernel, wall)
				})
			}
		}
	}
}

// BenchmarkAPSPHalves measures on one card what two cards' kernels take:
// it solves each of the two shares of p2p-Gnutella30's sources
// (sourceShares) alone, as that card's run would, the shares cut by
// weight (the default) and by count (weight=1), without and with
// predecessors. Each configuration reports the medians of max(b.N, 3)
// calls of each half (half0-ms, half1-ms) and two-x, the whole graph's
// kernels on the card (configuration whole, the default, which runs
// first) over the slower half's.
func BenchmarkAPSPHalves(b *testing.B) {
	dev := testDevice(b)
	defer restoreAPSP()()
	weight := apspLiveWeight
	g := gnutella30().get(b)
	ctx := context.Background()
	tun, err := fastTuning{}.resolve(g, VariantAPSPBatched, apspBlock(g.N()), false)
	if err != nil {
		b.Fatal(err)
	}
	for _, pred := range []bool{false, true} {
		opts := Options{Device: dev, Pred: pred}
		var whole float64
		b.Run(fmt.Sprintf("pred=%v/whole", pred), func(b *testing.B) {
			apspLiveWeight = weight
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
		for _, w := range []int{weight, 1} {
			b.Run(fmt.Sprintf("pred=%v/weight=%d", pred, w), func(b *testing.B) {
				apspLiveWeight = w
				shares := sourceShares(g, 2)
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
						err = r.apspRows(g, host, shares[half], tun)
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
				b.Logf("shares %v", shares)
				if whole > 0 {
					b.ReportMetric(whole/max(h0, h1), "two-x")
				}
			})
		}
	}
}

// BenchmarkAPSPBlocks times apsp-batched on one card with blocks of 256,
// 512 and 1024 threads (fastTuning.Block), distances only, on random
// graphs of 1024 to 16384 vertices and 2 or 8 arcs a vertex (weights
// 1..100), a road-like graph and the three p2p-Gnutella graphs. It
// reports the parts of the calls (callParts: medians of max(b.N, 3)) and
// kernel-x and wall-x, the speed-ups over 256 threads on the same graph
// in the same process (256 runs first for each graph).
func BenchmarkAPSPBlocks(b *testing.B) {
	dev := testDevice(b)
	graphs := []struct {
		name  string
		build func() (*graph.Graph, error)
	}{
		{"gnm1024x2", func() (*graph.Graph, error) { return graph.GNM(1024, 2048, graph.WeightRange{Min: 1, Max: 100}, 1) }},
		{"gnm4096x2", func() (*graph.Graph, error) { return graph.GNM(4096, 8192, graph.WeightRange{Min: 1, Max: 100}, 1) }},
		{"gnm4096x8", func() (*graph.Graph, error) { return graph.GNM(4096, 32768, graph.WeightRange{Min: 1, Max: 100}, 1) }},
		{"gnm16384x2", func() (*graph.Graph, error) { return graph.GNM(16384, 32768, graph.WeightRange{Min: 1, Max: 100}, 1) }},
		{"road16k", func() (*graph.Graph, error) { return graph.RoadLike(16384, 45000, roads, 1) }},
	}
	for _, name := range []string{"04", "25", "30"} {
		graphs = append(graphs, struct {
			name  string
			build func() (*graph.Graph, error)
		}{"gnutella" + name, func() (*graph.Graph, error) {
			path := filepath.Join("..", "data", "snap", "p2p-Gnutella"+name+".txt.gz")
			return graph.ReadFile(path, graph.ReadOptions{Weights: graph.WeightRange{Min: 1, Max: 100}, Seed: 1})
		}})
	}
	for _, gr := range graphs {
		g, err := gr.build()
		if err != nil {
			b.Fatal(err)
		}
		var base [2]float64
		for _, block := range []int{256, 512, 1024} {
			b.Run(fmt.Sprintf("%s/block=%d", gr.name, block), func(b *testing.B) {
				all := make([]Stats, max(b.N, 3))
				for i := range all {
					if _, err := apspBatchedTuned(context.Background(), g, Options{Device: dev, Stats: &all[i]}, fastTuning{Block: block}); err != nil {
						b.Fatal(err)
					}
				}
				callParts(b, all)
				kernel := medianMs(all, func(s Stats) time.Duration { return s.Kernel })
				wall := medianMs(all, func(s Stats) time.Duration { return s.Wall })
				if block == 256 {
					base = [2]float64{kernel, wall}
				}
				b.ReportMetric(base[0]/kernel, "kernel-x")
				b.ReportMetric(base[1]/wall, "wall-x")
			})
		}
	}
}

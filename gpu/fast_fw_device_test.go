//go:build cuda

package gpu

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/graph"
)

// TestFWFastDevice runs fw-fast's modes on the card, on sizes around its
// tile and up to a few thousand vertices.
func TestFWFastDevice(t *testing.T) {
	fwFastModes(t, testDevice(t), []int{1, 2, 127, 128, 129, 300, 1000, 2049, 4000})
}

// TestFWFastTightDevice is TestFWFastTight on the card, up to a few
// thousand vertices.
func TestFWFastTightDevice(t *testing.T) {
	fwFastTight(t, testDevice(t), []int{1, 70, 257, 1000, 2049, 3100})
}

// TestFWFastKeptDevice is TestFWFastKeptResults on the card, where the
// driver page-locks the results (keepResults).
func TestFWFastKeptDevice(t *testing.T) {
	fwFastKept(t, []*Device{testDevice(t)}, []int{300, 1024, 2049})
}

// TestFWFastLarge spot-checks fw-fast at n = 12500 (not a multiple of its
// tile), with and without predecessors, against sssp-fast rows on the card
// and cpu.Dijkstra rows, and rebuilds the paths of those rows.
func TestFWFastLarge(t *testing.T) {
	dev := testDevice(t)
	ctx := context.Background()
	const n = 12500
	g, err := graph.GNM(n, 60*n, graph.WeightRange{Min: 1, Max: 100}, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, pred := range []bool{false, true} {
		res, err := FWFast(ctx, g, Options{Device: dev, Pred: pred})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(9, 9))
		for range 16 {
			s := rng.IntN(n)
			want, err := cpu.Dijkstra(ctx, g, s, cpu.DijkstraOptions{})
			if err != nil {
				t.Fatal(err)
			}
			fast, err := SSSPFast(ctx, g, s, Options{Device: dev})
			if err != nil {
				t.Fatal(err)
			}
			got := res.Row(s)
			if !got.SameDistances(want) || !got.SameDistances(fast) {
				t.Fatalf("pred %v: row %d differs from Dijkstra or sssp-fast:\n%s\n%s", pred, s, got.Diff(want, 5), got.Diff(fast, 5))
			}
			if pred {
				if err := got.Verify(g); err != nil {
					t.Fatalf("row %d: %v", s, err)
				}
			}
		}
	}
}

// TestFWFastDevicePaths runs fw-fast's modes on the card by every path
// through the stages (ffPaths), ff_small's abort included: a grid of 8
// blocks a multiprocessor and one more cannot all be on the card at once
// (each of those calls waits about 2^20 polls of the barrier, a fraction
// of a second, before it gives up, so it runs on fewer sizes).
func TestFWFastDevicePaths(t *testing.T) {
	dev := testDevice(t)
	for _, p := range ffPaths(8 * dev.info.SMs) {
		t.Run(p.name, func(t *testing.T) {
			setFFPath(t, p)
			sizes := []int{65, 129, 1000, 2049}
			if p.blocks > 0 {
				sizes = []int{129, 1000}
			}
			fwFastModes(t, dev, sizes)
		})
	}
}

// TestFWFastDeviceFullTiles runs fw-fast's modes on the card with the
// 128-wide tile kernels at sizes where it would take ff_small or the
// quarter-tile ones, and brings results back by each path (viaPiped cuts n = 1000
// into 8 pieces, 131 rows each but the last).
func TestFWFastDeviceFullTiles(t *testing.T) {
	dev := testDevice(t)
	defer func(p int) { resultPath = p }(resultPath)
	auto := ffPath{name: "auto", small: ffSmallMax, smallPred: ffSmallPredMax, quarter: ffQuarterMax}
	setFFPath(t, ffPath{name: "full"})
	fwFastModes(t, dev, []int{129, 1000})
	setFFPath(t, auto)
	v, err := Lookup(VariantFWFast)
	if err != nil {
		t.Fatal(err)
	}
	graphs := randomGraphs(t, 1000, 21)
	for _, path := range []int{viaRegistered, viaStaged, viaPageable, viaPiped} {
		resultPath = path
		for _, tg := range graphs {
			checkVariant(t, dev, v, tg, true)
			checkVariant(t, dev, v, tg, false)
		}
	}
}

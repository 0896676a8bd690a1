//go:build cuda

package gpu

import (
	"context"
	"fmt"
	"testing"

	"github.com/pathnotes/pathnotes/cpu"
)

// TestMultiCards runs fw-fast, apsp-batched and johnson-fast over every
// card of the host (it needs two) and compares with the CPU, predecessors
// included, with the primary rows copied peer to peer and through the
// host.
func TestMultiCards(t *testing.T) {
	testDevice(t)
	devs, err := OpenAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) < 2 {
		t.Skipf("one card on this host (%s)", devs[0].Info().Name)
	}
	ctx := context.Background()
	for _, n := range []int{300, 1000, 1500} {
		for _, tg := range multiGraphs(t, n) {
			for _, pred := range []bool{false, true} {
				for _, staged := range []bool{false, true} {
					stagePeerCopies = staged
					var st Stats
					name := fmt.Sprintf("%s pred %v staged %v", tg.name, pred, staged)
					res, err := FWFast(ctx, tg.g, Options{Devices: devs, Pred: pred, Stats: &st})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if !res.SameDistances(tg.all) {
						t.Errorf("%s: distances differ from the CPU:\n%s", name, res.Diff(tg.all, 5))
					} else if pred {
						if err := res.Verify(tg.g); err != nil {
							t.Errorf("%s: %v", name, err)
						}
					}
					if st.Devices != len(devs) || st.BytesPeer == 0 {
						t.Errorf("%s: %s", name, st)
					}
				}
				stagePeerCopies = false
				solve := APSPBatched
				if tg.g.HasNegative() {
					solve = JohnsonFast
				}
				res, err := solve(ctx, tg.g, Options{Devices: devs, Pred: pred})
				if err != nil {
					t.Fatalf("%s pred %v: %v", tg.name, pred, err)
				}
				if !res.SameDistances(tg.all) {
					t.Errorf("%s (%s) pred %v: distances differ from the CPU:\n%s", res.Solver, tg.name, pred, res.Diff(tg.all, 5))
				}
			}
		}
	}
}

// TestCardFWFastStreamed runs fw-fast on the default card with its memory
// capped below the matrices, so that bands of block rows stream through it
// with the stripe kernels, and compares with the CPU, predecessors
// included.
func TestCardFWFastStreamed(t *testing.T) {
	testDevice(t)
	dev, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, n := range []int{300, 1000, 1500} {
		g := multiGraphs(t, n)[1].g
		ref, err := cpu.FloydWarshall(ctx, g, cpu.FWOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ld := uint64(ceilDiv(n, ffTile) * ffTile)
		var st Stats
		res, err := FWFast(ctx, g, Options{Device: dev, Pred: true, Stats: &st, DeviceMemory: uint64(n*n)*4 + max(ld*ld*8/3, 2*ffTile*ld*8)})
		if err != nil {
			t.Fatal(err)
		}
		if !res.SameDistances(ref) || st.Passes < 2 {
			t.Errorf("streamed n=%d: %d passes, distances equal %v", n, st.Passes, res.SameDistances(ref))
		}
		if err := res.Verify(g); err != nil {
			t.Errorf("streamed n=%d: %v", n, err)
		}
		t.Logf("n=%d on %s: %d passes, distances and predecessors match the CPU", n, dev.Info().Name, st.Passes)
	}
}

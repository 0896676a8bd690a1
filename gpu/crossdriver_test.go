//go:build cuda

package gpu

import (
	"context"
	"slices"
	"testing"

	"github.com/pathnotes/pathnotes/gpu/ptxemu"
	"github.com/pathnotes/pathnotes/graph"
)

// TestCardMatchesEmulator runs every variant on the card and on the
// emulator, on the same graphs, and requires the same distances and, for
// the Floyd-Warshall variants, the same predecessors: both run the same
// PTX, so a difference is a bug in the emulator or a race in a kernel. The
// variants of the Dijkstra and Bellman-Ford families (apsp-batched too) pick a
// vertex's predecessor among tied candidates by whichever thread writes
// last, which differs between any two runs on a card too: for them the
// distances must be the same and both predecessor arrays must rebuild every
// path. Sources 0 and n/2 for single-source variants.
func TestCardMatchesEmulator(t *testing.T) {
	card := testDevice(t)
	emu, err := OpenEmulator(ptxemu.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, n := range []int{1, 2, 33, 100, 257} {
		for _, tg := range randomGraphs(t, n, uint64(n)) {
			for _, v := range Variants() {
				if !v.Negative && tg.g.HasNegative() {
					continue
				}
				if n > 100 && (v.Name == "fw-hn" || v.Name == "fw-hn-shared" || v.Name == "fw-row" || v.Name == "dijkstra-apsp-row") {
					continue // one launch per k on the emulator: slow at n = 257
				}
				same, total := 0, 0
				for _, pred := range []bool{false, true} {
					onCard, onEmu := Options{Pred: pred, Device: card}, Options{Pred: pred, Device: emu}
					if v.AllPairs {
						a, err := v.SolveAll(ctx, tg.g, onCard)
						if err != nil {
							t.Fatalf("%s on %s, card: %v", v.Name, tg.name, err)
						}
						b, err := v.SolveAll(ctx, tg.g, onEmu)
						if err != nil {
							t.Fatalf("%s on %s, emulator: %v", v.Name, tg.name, err)
						}
						total++
						switch {
						case a.Equal(b):
							same++
						case !a.SameDistances(b):
							t.Errorf("%s on %s (pred %v): distances differ:\n%s", v.Name, tg.name, pred, a.Diff(b, 5))
						case v.Algorithm == "Floyd-Warshall":
							// Floyd-Warshall's order is fixed: Π must match.
							t.Errorf("%s on %s: same distances, different predecessors", v.Name, tg.name)
						default:
							// A Dijkstra family variant settles ties by the
							// order of atomic updates: any shortest-path
							// predecessors will do, as long as they rebuild
							// every path.
							for _, r := range []*graph.AllPairs{a, b} {
								if err := r.Verify(tg.g); err != nil {
									t.Errorf("%s on %s: %v", v.Name, tg.name, err)
								}
							}
						}
						continue
					}
					for _, s := range []int{0, n / 2} {
						a, err := v.SolveFrom(ctx, tg.g, s, onCard)
						if err != nil {
							t.Fatalf("%s on %s from %d, card: %v", v.Name, tg.name, s, err)
						}
						b, err := v.SolveFrom(ctx, tg.g, s, onEmu)
						if err != nil {
							t.Fatalf("%s on %s from %d, emulator: %v", v.Name, tg.name, s, err)
						}
						total++
						if !slices.Equal(a.Dist, b.Dist) {
							t.Errorf("%s on %s from %d (pred %v): distances differ:\n%s", v.Name, tg.name, s, pred, a.Diff(b, 5))
							continue
						}
						if slices.Equal(a.Pred, b.Pred) {
							same++
						}
						for _, r := range []struct {
							where string
							err   error
						}{{"card", a.Verify(tg.g)}, {"emulator", b.Verify(tg.g)}} {
							if r.err != nil {
								t.Errorf("%s on %s from %d, %s: %v", v.Name, tg.name, s, r.where, r.err)
							}
						}
					}
				}
				t.Logf("%-18s %-24s same distances in all %d runs; same predecessors in %d", v.Name, tg.name, total, same)
			}
		}
	}
}

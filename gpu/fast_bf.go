package gpu

import (
	"context"

	"github.com/pathnotes/pathnotes/graph"
)

// VariantBFFast is pathnotes' own frontier Bellman-Ford.
const VariantBFFast = "bf-fast"

// BFFast runs variant "bf-fast": a frontier (worklist) Bellman-Ford for any
// weights. It is sssp-fast's worklist engine with an infinite threshold (on
// meshes with 32 local rounds per step instead of the ring), so every step
// is one round over the vertices whose distance improved in the round
// before (each queued once per round), and a vertex whose distance has not
// dropped since it last relaxed its arcs is skipped. It stops as soon as a
// round improves nothing (opts.EarlyExit is implied: there is nothing to
// gain from running on). After round k every distance is at most the weight
// of the shortest path of k+1 arcs, so without a negative cycle nothing
// improves from round n-1 on; an improvement there stops the run on the
// device and is reported as a *graph.NegativeCycleError, the cycle found on
// the host from the device's distances as for the other Bellman-Ford
// variants. Predecessors (opts.Pred) come packed with the distances, as in
// SSSPFast. ctx is checked every 4096 rounds.
func BFFast(ctx context.Context, g *graph.Graph, source int, opts Options) (*graph.SingleSource, error) {
	return bfFastTuned(ctx, g, source, opts, fastTuning{})
}

// bfFastTuned is BFFast with explicit tunables (Delta is not used).
func bfFastTuned(ctx context.Context, g *graph.Graph, source int, opts Options, tun fastTuning) (*graph.SingleSource, error) {
	return runFrontier(ctx, g, source, opts, VariantBFFast, true, tun, pinNever)
}

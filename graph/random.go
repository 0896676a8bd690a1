package graph

import (
	"fmt"
	"math/rand/v2"
)

// WeightRange is an inclusive range of integer arc weights, Min..Max.
type WeightRange struct{ Min, Max int32 }

// Check returns an error when the range is empty or beyond ±MaxDistance.
func (r WeightRange) Check() error {
	if r.Min > r.Max {
		return fmt.Errorf("graph: empty weight range %d..%d", r.Min, r.Max)
	}
	if r.Min < -MaxDistance || r.Max > MaxDistance {
		return fmt.Errorf("graph: weight range %d..%d beyond ±%d", r.Min, r.Max, MaxDistance)
	}
	return nil
}

// draw returns a uniform weight in the range.
func (r WeightRange) draw(rng *rand.Rand) int32 {
	span := uint64(int64(r.Max) - int64(r.Min) + 1)
	return int32(int64(r.Min) + int64(rng.Uint64N(span)))
}

// newRand returns the generators' random source: PCG, whose output is fixed
// by the Go specification of math/rand/v2, so a seed gives the same graph on
// every machine and Go release.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}

// GNM returns a uniform random directed graph with n vertices and exactly m
// distinct arcs, no self-loops, and weights drawn uniformly from w: the
// "random" model of GTgraph that [Gaioso et al.] §VI uses. The same seed gives the
// same graph.
func GNM(n, m int, w WeightRange, seed uint64) (*Graph, error) {
	if n < 0 || m < 0 {
		return nil, fmt.Errorf("graph.GNM: negative size n=%d m=%d", n, m)
	}
	if err := w.Check(); err != nil {
		return nil, err
	}
	possible := int64(n) * int64(n-1)
	if n == 0 {
		possible = 0
	}
	if int64(m) > possible {
		return nil, fmt.Errorf("graph.GNM: %d arcs requested but n=%d allows only %d without self-loops or duplicates", m, n, possible)
	}
	rng := newRand(seed)
	// Arc ids 0..n(n-1)-1 encode (u, v) with v ≠ u: id = u*(n-1) + v', where
	// v' skips u. Sample m distinct ids; for dense requests sample the ids to
	// leave out instead, so that rejection sampling stays fast.
	chosen := make(map[int64]struct{}, min(m, int(possible-int64(m)))+1)
	complement := int64(m) > possible/2
	want := int64(m)
	if complement {
		want = possible - int64(m)
	}
	ids := make([]int64, 0, want)
	for int64(len(ids)) < want {
		id := rng.Int64N(possible)
		if _, dup := chosen[id]; dup {
			continue
		}
		chosen[id] = struct{}{}
		ids = append(ids, id)
	}
	if complement {
		ids = ids[:0]
		for id := int64(0); id < possible; id++ {
			if _, out := chosen[id]; !out {
				ids = append(ids, id)
			}
		}
	}
	arcs := make([]Arc, len(ids))
	for i, id := range ids {
		u := int(id / int64(n-1))
		v := int(id % int64(n-1))
		if v >= u {
			v++
		}
		arcs[i] = Arc{u, v, w.draw(rng)}
	}
	g := fromSortedUnique(n, arcs, true)
	g.name = fmt.Sprintf("gnm(n=%d,m=%d,w=%d..%d,seed=%d)", n, m, w.Min, w.Max, seed)
	return g, nil
}

// GNP returns a random directed graph with n vertices and density rho
// (m = round(rho·n(n-1)) distinct arcs), as [Karaula 2017] §5 classes its graphs.
func GNP(n int, rho float64, w WeightRange, seed uint64) (*Graph, error) {
	if rho < 0 || rho > 1 {
		return nil, fmt.Errorf("graph.GNP: density %g outside [0, 1]", rho)
	}
	m := int(rho*float64(n)*float64(max(n-1, 0)) + 0.5)
	return GNM(n, m, w, seed)
}

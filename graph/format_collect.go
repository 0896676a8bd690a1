package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// collector gathers a reader's arcs and draws the weights of unweighted
// ones, then builds the graph with the options' policies.
type collector struct {
	opts ReadOptions
	arcs []Arc
	rng  *rand.Rand
}

// add appends an arc, or returns an error when the arcs would outgrow
// the memory left.
func (c *collector) add(u, v int, w int32) error {
	if err := checkGrowth(c.arcs, "arcs"); err != nil {
		return err
	}
	c.arcs = append(c.arcs, Arc{u, v, w})
	return nil
}

// draw returns the next weight for an unweighted arc.
func (c *collector) draw() int32 {
	if c.opts.Weights == (WeightRange{}) {
		return 1
	}
	if c.rng == nil {
		c.rng = newRand(c.opts.Seed)
	}
	return c.opts.Weights.draw(c.rng)
}

// checkVertices refuses a vertex count that int32 CSR cannot index, that
// exceeds MaxVertices, or whose CSR offsets alone would not fit in memory.
func (c *collector) checkVertices(n int64) error {
	if n > math.MaxInt32 {
		return fmt.Errorf("%d vertices is more than the %d that int32 CSR can index", n, math.MaxInt32)
	}
	if c.opts.MaxVertices > 0 && n > int64(c.opts.MaxVertices) {
		return fmt.Errorf("%d vertices is more than MaxVertices=%d", n, c.opts.MaxVertices)
	}
	if err := checkBytes(uint64(n+1) * 4); err != nil {
		return fmt.Errorf("the CSR offsets of %d vertices %w", n, err)
	}
	return nil
}

// checkArcs refuses an arc count beyond what int32 offsets index.
func checkArcs(m int64) error {
	if m > math.MaxInt32 {
		return fmt.Errorf("%d arcs is more than the %d that int32 CSR can index", m, math.MaxInt32)
	}
	return nil
}

// build makes the graph on n vertices from the collected arcs.
func (c *collector) build(n int, name string) (*Graph, error) {
	if c.opts.Undirected {
		if err := checkBytes(arcBytes(2 * len(c.arcs))); err != nil {
			return nil, fmt.Errorf("%s: adding the reverse of %d arcs would %w", name, len(c.arcs), err)
		}
		for _, a := range c.arcs {
			if a.From != a.To {
				c.arcs = append(c.arcs, Arc{a.To, a.From, a.Weight})
			}
		}
	}
	if err := checkArcs(int64(len(c.arcs))); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	// buildCSR copies the arcs, then packs them with the offsets.
	m := len(c.arcs)
	if err := checkBytes(arcBytes(m) + 8*uint64(m) + 4*uint64(n+1)); err != nil {
		return nil, fmt.Errorf("%s: building the graph of %d vertices and %d arcs would %w", name, n, m, err)
	}
	return buildCSR(n, c.arcs, c.opts.Duplicates, false), nil
}

// preallocMax caps the arcs allocated from a header's count, so that a
// lying header cannot make a reader allocate much more than the file holds.
const preallocMax = 1 << 17

// prealloc makes room for the m arcs a header announces, up to preallocMax.
func prealloc(m int64) []Arc { return make([]Arc, 0, min(m, preallocMax)) }

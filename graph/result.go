package graph

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pathnotes/pathnotes/internal/memlimit"
)

// AllPairs is the all-pairs shortest-path result of every backend: the
// n×n distance matrix and, when the solver kept them, the predecessor
// matrix, both row-major.
type AllPairs struct {
	N      int
	Dist   []int32  // Dist[i*N+j]: shortest distance i → j, Inf if unreachable
	Pred   []int32  // Pred[i*N+j]: vertex before j on the path from i, Nil if none; nil slice when not computed
	Labels []string // copied from the graph; nil when it has none
	Solver string   // the variant that produced the result, e.g. "fw-cpu-blocked"
}

// NewAllPairs allocates an n×n result with every distance Inf and every
// predecessor Nil, after checking that the matrices fit in memory.
func NewAllPairs(n int, withPred bool) (*AllPairs, error) {
	matrices := 1
	if withPred {
		matrices = 2
	}
	if err := CheckMatrixSize(n, matrices); err != nil {
		return nil, err
	}
	r := &AllPairs{N: n, Dist: make([]int32, n*n)}
	for i := range r.Dist {
		r.Dist[i] = Inf
	}
	if withPred {
		r.Pred = make([]int32, n*n)
		for i := range r.Pred {
			r.Pred[i] = Nil
		}
	}
	return r, nil
}

// CheckMatrixSize returns an error when `matrices` n×n int32 matrices cannot
// be indexed or would not fit in the memory the process can still allocate:
// the least of the machine's available memory, the room under the
// process's cgroup memory limit and under its address-space and data
// rlimits. The error says how many bytes the matrices need and how many
// there are.
func CheckMatrixSize(n, matrices int) error {
	if n < 0 {
		return fmt.Errorf("graph: negative vertex count %d", n)
	}
	if n > 0 && n > int(math.Sqrt(float64(math.MaxInt)/4/float64(max(matrices, 1)))) {
		return fmt.Errorf("graph: %d×%d matrices cannot be indexed", n, n)
	}
	need := uint64(n) * uint64(n) * 4 * uint64(matrices)
	// Small matrices always fit; reading the limits would cost more than
	// solving a small graph.
	if need < smallMatrixBytes {
		return nil
	}
	if err := checkMemory(need); err != nil {
		return fmt.Errorf("graph: %d n×n int32 matrices for n=%d %w", matrices, n, err)
	}
	return nil
}

// smallMatrixBytes is the size below which CheckMatrixSize does not ask the
// system how much memory is available.
const smallMatrixBytes = 64 << 20

// memoryAvailable tells how much memory the process can still allocate;
// tests replace it.
var memoryAvailable = memlimit.Available

// checkMemory returns an error "need X, but only Y of memory is available
// (what limits it)" when need bytes are more than the process can still
// allocate, and nil when they fit or nothing is known.
//
// Reading the limits takes a third of a millisecond (six files under /proc
// and the cgroup's: 0.31 ms on a two-core development machine, 0.46 ms in
// a traced fw-fast call on an H200's host, half of that call's preparation
// at n = 4096), so a reading serves the checks of the next second as long
// as what they let through, added up, stays within half of what it found;
// past that, and for every request that would not fit, the limits are read
// again.
func checkMemory(need uint64) error {
	c := &availCache
	c.Lock()
	defer c.Unlock()
	if !c.at.IsZero() && time.Since(c.at) < availFresh && c.granted+need <= c.avail/2 {
		c.granted += need
		return nil
	}
	avail, ok := memoryAvailable()
	c.at = time.Time{}
	if !ok {
		return nil
	}
	if need > avail.Bytes {
		return &memlimit.Error{Need: need, Avail: avail}
	}
	c.at, c.avail, c.granted = time.Now(), avail.Bytes, need
	return nil
}

// availCache is checkMemory's last reading of memoryAvailable: when (zero:
// none to use), the bytes it found, and the bytes let through since.
var availCache struct {
	sync.Mutex
	at             time.Time
	avail, granted uint64
}

// availFresh is how long checkMemory uses a reading.
const availFresh = time.Second

// FormatBytes formats a byte count with a binary unit, e.g. "5.38 GiB".
func FormatBytes(b uint64) string { return memlimit.FormatBytes(b) }

// At returns the distance i → j.
func (r *AllPairs) At(i, j int) int32 { return r.Dist[i*r.N+j] }

// PredAt returns the predecessor of j on the path from i (Nil if none or if
// predecessors were not computed).
func (r *AllPairs) PredAt(i, j int) int32 {
	if r.Pred == nil {
		return Nil
	}
	return r.Pred[i*r.N+j]
}

// Row returns the single-source result for source i (sharing no memory).
func (r *AllPairs) Row(i int) *SingleSource {
	s := &SingleSource{Source: i, Dist: append([]int32(nil), r.Dist[i*r.N:(i+1)*r.N]...), Labels: r.Labels, Solver: r.Solver}
	if r.Pred != nil {
		s.Pred = append([]int32(nil), r.Pred[i*r.N:(i+1)*r.N]...)
	}
	return s
}

// Path returns the shortest path i → j rebuilt from the predecessor matrix.
func (r *AllPairs) Path(i, j int) (Path, error) {
	if i < 0 || j < 0 || i >= r.N || j >= r.N {
		return Path{}, fmt.Errorf("graph: path %d->%d: vertex out of range 0..%d", i, j, r.N-1)
	}
	if r.Pred == nil {
		return Path{}, fmt.Errorf("graph: path %d->%d: this result has no predecessor matrix (ask the solver for predecessors)", i, j)
	}
	return walk(i, j, r.Dist[i*r.N+j], r.Pred[i*r.N:(i+1)*r.N], r.Labels)
}

// SingleSource is the single-source shortest-path result of every backend.
type SingleSource struct {
	Source int
	Dist   []int32  // Dist[v]: shortest distance Source → v, Inf if unreachable
	Pred   []int32  // Pred[v]: vertex before v on the path, Nil if none; nil slice when not computed
	Labels []string // copied from the graph; nil when it has none
	Solver string   // the variant that produced the result, e.g. "dijkstra-cpu"
}

// NewSingleSource allocates a result for n vertices with every distance Inf
// and every predecessor Nil, except Dist[source] = 0.
func NewSingleSource(n, source int, withPred bool) (*SingleSource, error) {
	if source < 0 || source >= n {
		return nil, fmt.Errorf("graph: source %d out of range 0..%d", source, n-1)
	}
	if err := checkBytes(uint64(n) * 8); err != nil {
		return nil, fmt.Errorf("graph: the distances and predecessors of %d vertices %w", n, err)
	}
	s := &SingleSource{Source: source, Dist: make([]int32, n)}
	for i := range s.Dist {
		s.Dist[i] = Inf
	}
	s.Dist[source] = 0
	if withPred {
		s.Pred = make([]int32, n)
		for i := range s.Pred {
			s.Pred[i] = Nil
		}
	}
	return s, nil
}

// N returns the number of vertices.
func (s *SingleSource) N() int { return len(s.Dist) }

// PathTo returns the shortest path from the source to v.
func (s *SingleSource) PathTo(v int) (Path, error) {
	if v < 0 || v >= len(s.Dist) {
		return Path{}, fmt.Errorf("graph: path to %d: vertex out of range 0..%d", v, len(s.Dist)-1)
	}
	if s.Pred == nil {
		return Path{}, fmt.Errorf("graph: path to %d: this result has no predecessors (ask the solver for them)", v)
	}
	return walk(s.Source, v, s.Dist[v], s.Pred, s.Labels)
}

// Path is one shortest path: its vertices from source to target and its
// weight (Inf and no vertices when the target is unreachable).
type Path struct {
	Vertices []int
	Weight   int32
	Labels   []string
}

// Reachable reports whether the path exists.
func (p Path) Reachable() bool { return p.Weight != Inf }

// Len returns the number of arcs on the path.
func (p Path) Len() int { return max(len(p.Vertices)-1, 0) }

// String formats the path as "a -> b -> c (weight 7)".
func (p Path) String() string {
	if !p.Reachable() {
		return "unreachable"
	}
	parts := make([]string, len(p.Vertices))
	for i, v := range p.Vertices {
		if v < len(p.Labels) {
			parts[i] = p.Labels[v]
		} else {
			parts[i] = strconv.Itoa(v)
		}
	}
	return fmt.Sprintf("%s (weight %d)", strings.Join(parts, " -> "), p.Weight)
}

// walk follows predecessors back from j to i. pred is the row for source i.
func walk(i, j int, d int32, pred []int32, labels []string) (Path, error) {
	if d == Inf {
		return Path{Weight: Inf, Labels: labels}, nil
	}
	rev := []int{j}
	for v := j; v != i; {
		p := pred[v]
		if p < 0 || int(p) >= len(pred) {
			return Path{}, fmt.Errorf("graph: path %d->%d: vertex %d has no predecessor although its distance is %d", i, j, v, d)
		}
		v = int(p)
		rev = append(rev, v)
		if len(rev) > len(pred)+1 {
			return Path{}, fmt.Errorf("graph: path %d->%d: predecessors form a cycle (a negative cycle, or a corrupt result)", i, j)
		}
	}
	for a, b := 0, len(rev)-1; a < b; a, b = a+1, b-1 {
		rev[a], rev[b] = rev[b], rev[a]
	}
	return Path{Vertices: rev, Weight: d, Labels: labels}, nil
}

// NegativeCycleError reports a cycle of negative total weight, which makes
// shortest distances undefined. Every solver that can see one returns it.
type NegativeCycleError struct {
	Vertex int   // a vertex on the cycle
	Cycle  []int // the cycle's vertices in order (first repeated implicitly), if found
	Weight int64 // the cycle's total weight, when Cycle is known
	Labels []string
}

// Error names a vertex on the cycle and, where known, the cycle.
func (e *NegativeCycleError) Error() string {
	name := func(v int) string {
		if v < len(e.Labels) {
			return e.Labels[v]
		}
		return strconv.Itoa(v)
	}
	if len(e.Cycle) == 0 {
		return fmt.Sprintf("negative cycle through vertex %s", name(e.Vertex))
	}
	parts := make([]string, 0, len(e.Cycle)+1)
	for _, v := range e.Cycle {
		parts = append(parts, name(v))
	}
	parts = append(parts, name(e.Cycle[0]))
	return fmt.Sprintf("negative cycle through vertex %s: %s (weight %d)", name(e.Vertex), strings.Join(parts, " -> "), e.Weight)
}

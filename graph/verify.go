package graph

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// SameDistances reports whether r and o have the same size and distances.
func (r *AllPairs) SameDistances(o *AllPairs) bool {
	return r.N == o.N && slices.Equal(r.Dist, o.Dist)
}

// Equal reports whether r and o have the same distances and the same
// predecessors (both nil counts as the same). Predecessors legitimately
// differ between solvers when shortest paths tie: compare distances with
// SameDistances and check predecessors with Verify.
func (r *AllPairs) Equal(o *AllPairs) bool {
	return r.SameDistances(o) && slices.Equal(r.Pred, o.Pred)
}

// Diff describes, one line each, up to limit cells whose distance differs
// between r ("got") and o ("want"), then how many more there are. It is ""
// when the distances are the same.
func (r *AllPairs) Diff(o *AllPairs, limit int) string {
	if r.N != o.N {
		return fmt.Sprintf("size differs: got n=%d, want n=%d\n", r.N, o.N)
	}
	var sb strings.Builder
	count := 0
	for i := 0; i < r.N; i++ {
		for j := 0; j < r.N; j++ {
			a, b := r.Dist[i*r.N+j], o.Dist[i*r.N+j]
			if a == b {
				continue
			}
			if count < limit {
				fmt.Fprintf(&sb, "dist[%s][%s]: got %s, want %s\n", label(r.Labels, i), label(r.Labels, j), FormatDist(a), FormatDist(b))
			}
			count++
		}
	}
	if count > limit {
		fmt.Fprintf(&sb, "… and %d more differing cells (%d in all)\n", count-limit, count)
	}
	return sb.String()
}

// SameDistances reports whether s and o have the same source and distances.
func (s *SingleSource) SameDistances(o *SingleSource) bool {
	return s.Source == o.Source && slices.Equal(s.Dist, o.Dist)
}

// Equal reports whether s and o have the same source, distances and
// predecessors (see AllPairs.Equal on ties).
func (s *SingleSource) Equal(o *SingleSource) bool {
	return s.SameDistances(o) && slices.Equal(s.Pred, o.Pred)
}

// Diff describes up to limit vertices whose distance differs between s
// ("got") and o ("want"); "" when they agree.
func (s *SingleSource) Diff(o *SingleSource, limit int) string {
	if len(s.Dist) != len(o.Dist) || s.Source != o.Source {
		return fmt.Sprintf("shape differs: got n=%d source %d, want n=%d source %d\n", len(s.Dist), s.Source, len(o.Dist), o.Source)
	}
	var sb strings.Builder
	count := 0
	for v := range s.Dist {
		if s.Dist[v] != o.Dist[v] {
			if count < limit {
				fmt.Fprintf(&sb, "dist[%s]: got %s, want %s\n", label(s.Labels, v), FormatDist(s.Dist[v]), FormatDist(o.Dist[v]))
			}
			count++
		}
	}
	if count > limit {
		fmt.Fprintf(&sb, "… and %d more differing vertices (%d in all)\n", count-limit, count)
	}
	return sb.String()
}

// FormatDist formats a distance, writing Inf as "∞".
func FormatDist(d int32) string {
	if d == Inf {
		return "∞"
	}
	return fmt.Sprint(d)
}

func label(labels []string, v int) string {
	if v >= 0 && v < len(labels) {
		return labels[v]
	}
	return fmt.Sprint(v)
}

// Verify checks r against the graph it claims to solve and returns the first
// violation found, naming the cell:
//
//   - every diagonal distance is 0 (a negative one means a negative cycle);
//   - with predecessors: each finite distance is rebuilt by walking the
//     predecessors back to the source and adding the arc weights (the check
//     of [Karaula 2017]'s programs), unreachable cells have no predecessor;
//   - without predecessors: each finite distance is attained through some
//     arc into the vertex (weaker: it cannot rule out a zero-weight cycle);
//   - the triangle inequality d[i][v] ≤ d[i][u] + w(u,v) holds on every arc.
//
// Together these prove the distances optimal when predecessors are present.
func (r *AllPairs) Verify(g *Graph) error {
	if err := r.checkShape(g); err != nil {
		return err
	}
	for i := 0; i < r.N; i++ {
		if err := r.rowView(i, g).Verify(g); err != nil {
			return err
		}
	}
	return nil
}

// checkShape checks that r's matrices are n×n for g's n.
func (r *AllPairs) checkShape(g *Graph) error {
	if r.N != g.N() || len(r.Dist) != r.N*r.N {
		return fmt.Errorf("verify: result is for n=%d (%d cells), graph has n=%d", r.N, len(r.Dist), g.N())
	}
	if r.Pred != nil && len(r.Pred) != len(r.Dist) {
		return fmt.Errorf("verify: predecessor matrix has %d cells, want %d", len(r.Pred), len(r.Dist))
	}
	return nil
}

// rowView is row i of r as a SingleSource over r's own slices, not a copy.
func (r *AllPairs) rowView(i int, g *Graph) *SingleSource {
	row := &SingleSource{Source: i, Dist: r.Dist[i*r.N : (i+1)*r.N], Labels: g.labels}
	if r.Pred != nil {
		row.Pred = r.Pred[i*r.N : (i+1)*r.N]
	}
	return row
}

// VerifyWorkers is Verify spread over workers goroutines (GOMAXPROCS when
// workers < 1), a row each at a time, for results too large to check on
// one core. It returns Verify's error, that of the lowest failing row:
// rows are handed out in order and a row once taken is checked to its end,
// so when a worker stops at a failing row every row below it has been
// checked. It returns ctx's error when ctx is cancelled before a row fails.
func (r *AllPairs) VerifyWorkers(ctx context.Context, g *Graph, workers int) error {
	if err := r.checkShape(g); err != nil {
		return err
	}
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	errs := make([]error, r.N)
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range min(workers, max(r.N, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() && ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= r.N {
					return
				}
				if errs[i] = r.rowView(i, g).Verify(g); errs[i] != nil {
					failed.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}

// Verify checks s against g as AllPairs.Verify does for one row.
func (s *SingleSource) Verify(g *Graph) error {
	n := g.N()
	src := s.Source
	name := func(v int) string { return label(g.labels, v) }
	if len(s.Dist) != n {
		return fmt.Errorf("verify: result has %d distances, graph has n=%d", len(s.Dist), n)
	}
	if src < 0 || src >= n {
		return fmt.Errorf("verify: source %d out of range 0..%d", src, n-1)
	}
	if s.Pred != nil && len(s.Pred) != n {
		return fmt.Errorf("verify: %d predecessors, want %d", len(s.Pred), n)
	}
	if d := s.Dist[src]; d != 0 {
		return fmt.Errorf("verify: dist[%s][%s] = %s, want 0", name(src), name(src), FormatDist(d))
	}
	for v, d := range s.Dist {
		if d != Inf && (d > MaxDistance || d < -MaxDistance) {
			return fmt.Errorf("verify: dist[%s][%s] = %d is beyond ±%d", name(src), name(v), d, MaxDistance)
		}
	}
	// Triangle inequality on every arc.
	for u := 0; u < n; u++ {
		du := s.Dist[u]
		if du == Inf {
			continue
		}
		ts, ws := g.Out(u)
		for k, t := range ts {
			if int64(s.Dist[t]) > int64(du)+int64(ws[k]) {
				return fmt.Errorf("verify: arc %s->%s (weight %d) violates the triangle inequality from %s: %s > %d + %d",
					name(u), name(int(t)), ws[k], name(src), FormatDist(s.Dist[t]), du, ws[k])
			}
		}
	}
	if s.Pred == nil {
		return s.verifyAttained(g)
	}
	return s.verifyPaths(g)
}

// verifyAttained checks that every finite distance is reached through an arc.
func (s *SingleSource) verifyAttained(g *Graph) error {
	n := g.N()
	attained := make([]bool, n)
	attained[s.Source] = true
	for u := 0; u < n; u++ {
		if s.Dist[u] == Inf {
			continue
		}
		ts, ws := g.Out(u)
		for k, t := range ts {
			if s.Dist[t] != Inf && int64(s.Dist[t]) == int64(s.Dist[u])+int64(ws[k]) {
				attained[t] = true
			}
		}
	}
	for v := range attained {
		if s.Dist[v] != Inf && !attained[v] {
			return fmt.Errorf("verify: dist[%s][%s] = %d is not the weight of any path (no arc into %s attains it)",
				label(g.labels, s.Source), label(g.labels, v), s.Dist[v], label(g.labels, v))
		}
	}
	return nil
}

// verifyPaths rebuilds every path weight from the predecessors, memoised so
// that a row costs O(n).
func (s *SingleSource) verifyPaths(g *Graph) error {
	n := g.N()
	src := s.Source
	name := func(v int) string { return label(g.labels, v) }
	const (
		unseen = iota
		active
		done
	)
	state := make([]uint8, n)
	weight := make([]int64, n)
	state[src] = done
	if p := s.Pred[src]; p != Nil {
		return fmt.Errorf("verify: pred[%s][%s] = %d, want NIL", name(src), name(src), p)
	}
	stack := make([]int, 0, 16)
	for v := 0; v < n; v++ {
		if s.Dist[v] == Inf {
			if p := s.Pred[v]; p != Nil {
				return fmt.Errorf("verify: pred[%s][%s] = %d, but %s is unreachable (want NIL)", name(src), name(v), p, name(v))
			}
			continue
		}
		stack = append(stack[:0], v)
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			if state[x] == done {
				stack = stack[:len(stack)-1]
				continue
			}
			p := s.Pred[x]
			if p < 0 || int(p) >= n {
				return fmt.Errorf("verify: pred[%s][%s] = %d, but %s is reachable at distance %d", name(src), name(x), p, name(x), s.Dist[x])
			}
			w, ok := g.Weight(int(p), x)
			if !ok {
				return fmt.Errorf("verify: pred[%s][%s] = %s, but there is no arc %s->%s", name(src), name(x), name(int(p)), name(int(p)), name(x))
			}
			switch state[p] {
			case done:
				weight[x] = weight[p] + int64(w)
				if weight[x] != int64(s.Dist[x]) {
					return fmt.Errorf("verify: the path %s->…->%s rebuilt from predecessors weighs %d, but dist[%s][%s] = %d",
						name(src), name(x), weight[x], name(src), name(x), s.Dist[x])
				}
				state[x] = done
				stack = stack[:len(stack)-1]
			case active:
				return fmt.Errorf("verify: predecessors from %s form a cycle through %s", name(src), name(x))
			default:
				state[x] = active
				stack = append(stack, int(p))
			}
		}
	}
	return nil
}

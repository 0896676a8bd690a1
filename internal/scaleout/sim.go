// Package scaleout is the paper and simulation side of running pathnotes' solvers on many GPUs
// over many hosts (docs/scale-out.md). It holds two things:
//
//   - FloydWarshall, a simulation of 2-D block-cyclic Floyd-Warshall on a P×Q grid of ranks in
//     one process: each rank is a goroutine that holds only its own tiles of the matrix, and
//     the pivot panels travel only through channels that stand for the broadcasts along
//     process rows and down process columns, each counted in bytes;
//   - the analytical model (Layout, Machine, EstimateFW, EstimateBatch) that turns the volumes
//     of those broadcasts, a card's measured rate and the links' bandwidths into times and
//     efficiencies, and Tables, which writes the model's tables of docs/scale-out.md.
//
// Nothing here touches a GPU or a network: the simulation checks that the distribution and
// the byte counts are right, and the model says what they would cost.
package scaleout

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/pathnotes/pathnotes/graph"
)

// SimSolver is the Solver name of the simulation's results.
const SimSolver = "fw-2d-sim"

// Grid is a P×Q process grid. Rank (p, q), numbered p·Q+q, holds tile (I, J) of the matrix
// when I mod P = p and J mod Q = q (2-D block-cyclic).
type Grid struct{ P, Q int }

// Ranks returns P·Q.
func (g Grid) Ranks() int { return g.P * g.Q }

// Traffic is what the simulated broadcasts carried, indexed [round][rank]. Sent counts each
// broadcast once at its root (the payload the root puts on its link, whatever the broadcast's
// algorithm); Received counts every payload a rank gets. A broadcast to a group of one rank
// sends nothing.
type Traffic struct {
	Grid     Grid
	Sent     [][]int64
	Received [][]int64
}

// Total returns the bytes received over the whole run, by all ranks.
func (t *Traffic) Total() int64 {
	var sum int64
	for _, round := range t.Received {
		for _, b := range round {
			sum += b
		}
	}
	return sum
}

// tile is one b×b block (smaller at the matrix's edge): distances and, when kept,
// predecessors, row-major.
type tile struct {
	rows, cols int
	d, p       []int32
}

// bytes is what sending the tile costs: 4 bytes a distance, 4 more a predecessor.
func (t *tile) bytes() int64 {
	if t == nil {
		return 0
	}
	b := int64(t.rows*t.cols) * 4
	if t.p != nil {
		b *= 2
	}
	return b
}

// clone copies the tile for a message, with its predecessors only when withPred.
func (t *tile) clone(withPred bool) *tile {
	c := &tile{rows: t.rows, cols: t.cols, d: append([]int32(nil), t.d...)}
	if withPred && t.p != nil {
		c.p = append([]int32(nil), t.p...)
	}
	return c
}

// relaxThrough lowers c[i][j] to a[i][k] + b[k][j] where both are finite and the sum is
// smaller, for every i and j of c; where c keeps predecessors, an improved cell takes
// b's predecessor of (k, j). a, b and c may be the same tile (phase 1 and 2), which is
// safe because row and column k do not change through pivot k while D[k][k] ≥ 0.
func relaxThrough(c, a, b *tile, k int) {
	for i := 0; i < c.rows; i++ {
		aik := a.d[i*a.cols+k]
		if aik == graph.Inf {
			continue
		}
		crow := c.d[i*c.cols : (i+1)*c.cols]
		brow := b.d[k*b.cols : (k+1)*b.cols]
		for j, bkj := range brow {
			if bkj == graph.Inf {
				continue
			}
			if s := aik + bkj; s < crow[j] {
				crow[j] = s
				if c.p != nil {
					c.p[i*c.cols+j] = b.p[k*b.cols+j]
				}
			}
		}
	}
}

// message is one broadcast's payload: the tiles, indexed as the receiver's local tile
// index along the panel (nil where there is none), or why the run stops.
type message struct {
	tiles []*tile
	stop  error
}

// bytes is the payload's size.
func (m message) bytes() int64 {
	var b int64
	for _, t := range m.tiles {
		b += t.bytes()
	}
	return b
}

// sim is one simulated run: the layout, the links between ranks and the traffic.
type sim struct {
	n, b, nb int
	grid     Grid
	pred     bool
	links    [][]chan message // links[from][to], only between ranks of one row or column
	traffic  *Traffic
}

// side returns the size of tile index t (the last one may be smaller than b).
func (s *sim) side(t int) int { return min(s.b, s.n-t*s.b) }

// rank is one simulated process: its place in the grid and its tiles, local[li][lj] being
// tile (li·P+p, lj·Q+q).
type rank struct {
	*sim
	p, q  int
	local [][]*tile
}

// id is the rank's number, p·Q+q.
func (r *rank) id() int { return r.p*r.grid.Q + r.q }

// others returns the ranks of r's process row (along) or column (down), r left out.
func (r *rank) others(along bool) []int {
	var ids []int
	if along {
		for q := 0; q < r.grid.Q; q++ {
			if q != r.q {
				ids = append(ids, r.p*r.grid.Q+q)
			}
		}
		return ids
	}
	for p := 0; p < r.grid.P; p++ {
		if p != r.p {
			ids = append(ids, p*r.grid.Q+r.q)
		}
	}
	return ids
}

// broadcast sends m to the ranks to and counts it once as sent in round k.
func (r *rank) broadcast(k int, to []int, m message) {
	if len(to) == 0 {
		return
	}
	r.traffic.Sent[k][r.id()] += m.bytes()
	for _, t := range to {
		r.links[r.id()][t] <- m
	}
}

// receive takes the next message from rank from and counts it as received in round k.
func (r *rank) receive(k, from int) message {
	m := <-r.links[from][r.id()]
	r.traffic.Received[k][r.id()] += m.bytes()
	return m
}

// FloydWarshall simulates 2-D block-cyclic Floyd-Warshall with b×b tiles on the given grid
// and returns the distances (and predecessors, with pred), gathered from the ranks' tiles,
// and the traffic of every round. Round K of nb = ⌈n/b⌉ runs as it would on P·Q GPUs:
//
//  1. the owner of the diagonal tile (K, K) closes it (Floyd-Warshall on the tile, checking
//     D[k][k] < 0 before each pivot k) and broadcasts it along its process row and down its
//     process column;
//  2. the ranks of that row update their tiles of pivot row K with it and broadcast them down
//     their columns; the ranks of that column update their tiles of pivot column K and
//     broadcast them along their rows;
//  3. every rank relaxes each of its other tiles (I, J) through the received column tile
//     (I, K) and row tile (K, J).
//
// The diagonal tile and the row panel carry predecessors when pred is set (an improved cell
// takes Π[k][j]); the column panel carries distances only. A negative cycle is a
// *graph.NegativeCycleError naming the first vertex k with D[k][k] < 0 before pivot k, as
// cpu.FloydWarshall reports it; the diagonal's owner sends the stop along with the diagonal
// tile, so that every rank ends in the same round. Graphs whose path weights could leave
// ±graph.MaxDistance are refused. The final gather into one matrix is not counted.
func FloydWarshall(ctx context.Context, g *graph.Graph, b int, grid Grid, pred bool) (*graph.AllPairs, *Traffic, error) {
	if g == nil {
		return nil, nil, errors.New("scaleout.FloydWarshall: nil graph")
	}
	if b < 1 || grid.P < 1 || grid.Q < 1 {
		return nil, nil, fmt.Errorf("scaleout.FloydWarshall: block %d and grid %d×%d must be positive", b, grid.P, grid.Q)
	}
	n := g.N()
	lo, hi := g.WeightRange()
	if bound := int64(max(n-1, 0)) * max(-int64(lo), int64(hi)); bound > int64(graph.MaxDistance) {
		return nil, nil, fmt.Errorf("scaleout.FloydWarshall: paths of up to %d arcs of weight up to %d could leave ±%d", n-1, max(-int64(lo), int64(hi)), graph.MaxDistance)
	}
	res, err := graph.NewAllPairs(n, pred)
	if err != nil {
		return nil, nil, fmt.Errorf("scaleout.FloydWarshall: %w", err)
	}
	res.Solver, res.Labels = SimSolver, slices.Clone(g.Labels())
	s := &sim{n: n, b: b, nb: (n + b - 1) / b, grid: grid, pred: pred}
	s.traffic = &Traffic{Grid: grid, Sent: make([][]int64, s.nb), Received: make([][]int64, s.nb)}
	for k := range s.nb {
		s.traffic.Sent[k] = make([]int64, grid.Ranks())
		s.traffic.Received[k] = make([]int64, grid.Ranks())
	}
	s.links = make([][]chan message, grid.Ranks())
	for from := range s.links {
		s.links[from] = make([]chan message, grid.Ranks())
		for to := range s.links[from] {
			fp, fq, tp, tq := from/grid.Q, from%grid.Q, to/grid.Q, to%grid.Q
			if from != to && (fp == tp || fq == tq) {
				// A pair exchanges at most two messages a round (the diagonal and a
				// panel), so sends never wait.
				s.links[from][to] = make(chan message, 2*s.nb)
			}
		}
	}
	w := g.Dense()
	ranks := make([]*rank, grid.Ranks())
	for id := range ranks {
		ranks[id] = s.newRank(id/grid.Q, id%grid.Q, w)
	}
	errs := make([]error, len(ranks))
	var wg sync.WaitGroup
	for id, r := range ranks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[id] = r.run(ctx)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			// Every rank stops in the same round for the same reason: report it once.
			return nil, nil, fmt.Errorf("scaleout.FloydWarshall: %w", err)
		}
	}
	for _, r := range ranks {
		r.gather(res)
	}
	return res, s.traffic, nil
}

// newRank builds rank (p, q) with its tiles of the starting matrix w: the weights, and
// predecessors i where there is an arc i→j (i ≠ j), Nil elsewhere.
func (s *sim) newRank(p, q int, w []int32) *rank {
	r := &rank{sim: s, p: p, q: q}
	for I := p; I < s.nb; I += s.grid.P {
		var row []*tile
		for J := q; J < s.nb; J += s.grid.Q {
			t := &tile{rows: s.side(I), cols: s.side(J)}
			t.d = make([]int32, t.rows*t.cols)
			if s.pred {
				t.p = make([]int32, t.rows*t.cols)
			}
			for i := range t.rows {
				gi := I*s.b + i
				for j := range t.cols {
					gj := J*s.b + j
					v := w[gi*s.n+gj]
					t.d[i*t.cols+j] = v
					if t.p != nil {
						t.p[i*t.cols+j] = graph.Nil
						if gi != gj && v != graph.Inf {
							t.p[i*t.cols+j] = int32(gi)
						}
					}
				}
			}
			row = append(row, t)
		}
		r.local = append(r.local, row)
	}
	return r
}

// gather copies the rank's tiles into the full result.
func (r *rank) gather(res *graph.AllPairs) {
	for li, row := range r.local {
		I := li*r.grid.P + r.p
		for lj, t := range row {
			J := lj*r.grid.Q + r.q
			for i := range t.rows {
				at := (I*r.b+i)*r.n + J*r.b
				copy(res.Dist[at:at+t.cols], t.d[i*t.cols:(i+1)*t.cols])
				if t.p != nil {
					copy(res.Pred[at:at+t.cols], t.p[i*t.cols:(i+1)*t.cols])
				}
			}
		}
	}
}

// run is the rank's life: every round in order, until the last or a stop.
func (r *rank) run(ctx context.Context) error {
	for K := range r.nb {
		if err := r.round(ctx, K); err != nil {
			return err
		}
	}
	return nil
}

// round runs round K on this rank and returns the stop it learnt of, if any.
func (r *rank) round(ctx context.Context, K int) error {
	P, Q := r.grid.P, r.grid.Q
	pK, qK := K%P, K%Q
	inRow, inCol := r.p == pK, r.q == qK
	owner := pK*Q + qK
	// Phase 1: the diagonal tile, closed by its owner and sent along its row and column.
	var diag message
	switch {
	case inRow && inCol:
		t := r.local[K/P][K/Q]
		diag.stop = ctx.Err()
		for k := 0; k < t.rows && diag.stop == nil; k++ {
			if t.d[k*t.cols+k] < 0 {
				diag.stop = &graph.NegativeCycleError{Vertex: K*r.b + k}
				break
			}
			relaxThrough(t, t, t, k)
		}
		if diag.stop == nil {
			diag.tiles = []*tile{t.clone(true)}
		}
		r.broadcast(K, r.others(true), diag)
		r.broadcast(K, r.others(false), diag)
	case inRow || inCol:
		diag = r.receive(K, owner)
	}
	// Phase 2: the pivot row's tiles go down the columns, the pivot column's along the rows.
	var rowPanel, colPanel message
	if inRow {
		rowPanel = r.panel(K, diag, true)
		r.broadcast(K, r.others(false), rowPanel)
	}
	if inCol {
		colPanel = r.panel(K, diag, false)
		r.broadcast(K, r.others(true), colPanel)
	}
	if !inRow {
		rowPanel = r.receive(K, pK*Q+r.q)
	}
	if !inCol {
		colPanel = r.receive(K, r.p*Q+qK)
	}
	for _, m := range []message{diag, rowPanel, colPanel} {
		if m.stop != nil {
			return m.stop
		}
	}
	// Phase 3: every other tile through the pivot column's and row's tiles.
	for li, row := range r.local {
		if li*P+r.p == K {
			continue
		}
		for lj, t := range row {
			if lj*Q+r.q == K {
				continue
			}
			a, b := colPanel.tiles[li], rowPanel.tiles[lj]
			for k := 0; k < a.cols; k++ {
				relaxThrough(t, a, b, k)
			}
		}
	}
	return nil
}

// panel updates this rank's tiles of pivot row K (row) or pivot column K with the closed
// diagonal tile and returns copies of them to broadcast, indexed by local tile index, the
// diagonal's own place nil. A stop in diag is passed on instead.
func (r *rank) panel(K int, diag message, row bool) message {
	if diag.stop != nil {
		return message{stop: diag.stop}
	}
	d := diag.tiles[0]
	var m message
	if row {
		for lj, t := range r.local[K/r.grid.P] {
			if lj*r.grid.Q+r.q == K {
				m.tiles = append(m.tiles, nil)
				continue
			}
			for k := 0; k < d.rows; k++ {
				relaxThrough(t, d, t, k)
			}
			m.tiles = append(m.tiles, t.clone(true))
		}
		return m
	}
	lj := K / r.grid.Q
	for li, tiles := range r.local {
		if li*r.grid.P+r.p == K {
			m.tiles = append(m.tiles, nil)
			continue
		}
		t := tiles[lj]
		for k := 0; k < d.rows; k++ {
			relaxThrough(t, t, d, k)
		}
		m.tiles = append(m.tiles, t.clone(false))
	}
	return m
}

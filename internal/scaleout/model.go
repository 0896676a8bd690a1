// Package scaleout is the model of running pathnotes' solvers on many GPUs over many hosts
// (docs/scale-out.md): the volumes of 2-D block-cyclic Floyd-Warshall's broadcasts (Layout,
// which package dist's tests check the real run's traffic against, rank by rank and round by
// round), a card's measured rate and the links' bandwidths turned into times and efficiencies
// (Machine, EstimateFW, EstimateBatch), and Tables, which writes the model's tables of
// docs/scale-out.md. Nothing here touches a GPU or a network.
package scaleout

// Grid is a P×Q process grid. Rank (p, q), numbered p·Q+q, holds tile (I, J) of the matrix
// when I mod P = p and J mod Q = q (2-D block-cyclic).
type Grid struct{ P, Q int }

// Ranks returns P·Q.
func (g Grid) Ranks() int { return g.P * g.Q }

// Layout is the 2-D block-cyclic distribution of an N×N distance matrix in B×B tiles over a
// process grid, with or without predecessors (Π). Its byte counts are the ones the ranks of a
// run send (package dist's tests compare them); its memory is what one rank's card must hold.
type Layout struct {
	N, B int
	Grid Grid
	Pred bool
}

// Rounds returns ⌈N/B⌉, the number of pivot blocks.
func (l Layout) Rounds() int { return (l.N + l.B - 1) / l.B }

// side returns the size of tile index t.
func (l Layout) side(t int) int { return min(l.B, l.N-t*l.B) }

// Share returns how many of the N rows (or columns) index i of parts holds: the sizes of the
// tiles t with t mod parts = i.
func (l Layout) Share(parts, i int) int {
	s := 0
	for t := i; t < l.Rounds(); t += parts {
		s += l.side(t)
	}
	return s
}

// maxShare returns the largest Share among the parts.
func (l Layout) maxShare(parts int) int {
	m := 0
	for i := range parts {
		m = max(m, l.Share(parts, i))
	}
	return m
}

// cellBytes returns the bytes a cell costs in the diagonal tile and row panel (8 with Π, whose
// Π[k][j] an improved cell takes) and in the column panel (4: only D[i][k] is read).
func (l Layout) cellBytes() (row, col int64) {
	if l.Pred {
		return 8, 4
	}
	return 4, 4
}

// Received returns the bytes rank (p, q) receives in round k: the diagonal tile when it is in
// the pivot row or column but does not own the tile; its process column's share of the pivot
// row (less the diagonal tile) unless it is in the pivot row; its process row's share of the
// pivot column unless it is in the pivot column.
func (l Layout) Received(k, p, q int) int64 {
	P, Q := l.Grid.P, l.Grid.Q
	pK, qK := k%P, k%Q
	kb := int64(l.side(k))
	cr, cc := l.cellBytes()
	var v int64
	if (p == pK) != (q == qK) {
		v += cr * kb * kb
	}
	if p != pK {
		v += cr * kb * (int64(l.Share(Q, q)) - b2i(q == qK)*kb)
	}
	if q != qK {
		v += cc * kb * (int64(l.Share(P, p)) - b2i(p == pK)*kb)
	}
	return v
}

// Sent returns the bytes rank (p, q) broadcasts in round k, each broadcast counted once: the
// diagonal tile along its row and down its column if it owns it, and its share of the pivot
// row (down its column) or column (along its row) if it holds one. A group of one receives
// nothing, so nothing is sent to it.
func (l Layout) Sent(k, p, q int) int64 {
	P, Q := l.Grid.P, l.Grid.Q
	pK, qK := k%P, k%Q
	kb := int64(l.side(k))
	cr, cc := l.cellBytes()
	var v int64
	if p == pK && q == qK {
		v += cr * kb * kb * (b2i(P > 1) + b2i(Q > 1))
	}
	if p == pK && P > 1 {
		v += cr * kb * (int64(l.Share(Q, q)) - b2i(q == qK)*kb)
	}
	if q == qK && Q > 1 {
		v += cc * kb * (int64(l.Share(P, p)) - b2i(p == pK)*kb)
	}
	return v
}

// TotalBytes returns the bytes received by all ranks over all rounds, in closed form: with
// S2 = Σ side(k)², the diagonal tiles reach P+Q−2 ranks (S2 cells in all), and the N²−S2 other
// cells of the pivot rows and columns reach P−1 and Q−1 ranks.
func (l Layout) TotalBytes() int64 {
	var s2 int64
	for k := range l.Rounds() {
		s2 += int64(l.side(k)) * int64(l.side(k))
	}
	P, Q := int64(l.Grid.P), int64(l.Grid.Q)
	cr, cc := l.cellBytes()
	n2 := int64(l.N) * int64(l.N)
	return cr*(P+Q-2)*s2 + (cr*(P-1)+cc*(Q-1))*(n2-s2)
}

// RankBytes returns the bytes the busiest rank receives in a round that is neither in its
// process row nor its column (a full B-wide round): B·N/Q cells of the row panel and B·N/P of
// the column panel when the tiles divide evenly.
func (l Layout) RankBytes() int64 {
	cr, cc := l.cellBytes()
	b := int64(l.B)
	return cr*b*int64(l.maxShare(l.Grid.Q)) + cc*b*int64(l.maxShare(l.Grid.P))
}

// RankMemory returns the device bytes the busiest rank needs: its tiles (4 bytes a cell, 8
// with Π) and two sets of panel buffers (the round's and, for look-ahead, the next one's).
func (l Layout) RankMemory() int64 {
	cr, cc := l.cellBytes()
	cell := int64(4)
	if l.Pred {
		cell = 8
	}
	rows, cols, b := int64(l.maxShare(l.Grid.P)), int64(l.maxShare(l.Grid.Q)), int64(l.B)
	return cell*rows*cols + 2*(cr*b*cols+cc*b*rows+cr*b*b)
}

// LargestN returns the largest N, a multiple of b, whose layout on grid fits mem bytes a card
// (0 if none does).
func LargestN(b int, grid Grid, pred bool, mem int64) int {
	fits := func(tiles int) bool {
		return Layout{N: tiles * b, B: b, Grid: grid, Pred: pred}.RankMemory() <= mem
	}
	lo, hi := 0, 1
	for fits(hi) {
		lo, hi = hi, hi*2
	}
	for hi-lo > 1 { // fits(lo), !fits(hi)
		mid := (lo + hi) / 2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo * b
}

// b2i is 1 for true and 0 for false.
func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// Link is a connection the broadcasts run over, as one GPU sees it.
type Link struct {
	Name      string
	Bandwidth float64 // bytes per second in one direction, per GPU
	Latency   float64 // seconds per hop of the broadcast's pipeline
}

// Broadcast returns the time of a pipelined (ring or chain) broadcast of bytes to a group of
// members: the data leaves the root once, at the link's bandwidth, and the pipeline takes a
// hop's latency to reach each further member, (members−1)·Latency + bytes/Bandwidth. A group
// of one costs nothing.
func (k Link) Broadcast(bytes float64, members int) float64 {
	if members <= 1 || bytes == 0 {
		return 0
	}
	return float64(members-1)*k.Latency + bytes/k.Bandwidth
}

// Machine is what the Floyd-Warshall time model knows of the cards and the links.
type Machine struct {
	Rate      float64 // relaxations per second a card sustains on its local min-plus update
	PivotRate float64 // relaxations per second closing one diagonal tile
	Along     Link    // the link of broadcasts along a process row (the column panel)
	Down      Link    // the link of broadcasts down a process column (the row panel)
}

// FWEstimate is the model's account of one distributed Floyd-Warshall run.
type FWEstimate struct {
	Rounds     int
	Update     float64 // seconds a round's local update takes on the busiest rank
	Pivot      float64 // seconds of the next pivot's critical path: close, send, update panels
	Comm       float64 // seconds of a round's two panel broadcasts
	Time       float64 // seconds of the whole run
	Single     float64 // seconds of N³ relaxations on one card at the single-card rate
	Efficiency float64 // Single / (ranks · Time)
	RankBytes  int64   // bytes the busiest rank receives in a round
	TotalBytes int64   // bytes received by all ranks over the run
}

// EstimateFW models the run of layout l on machine m; singleRate is one card's rate on the
// whole problem, for the efficiency's T1. A round's update is the busiest rank's B·(N/P)·(N/Q)
// relaxations. With look-ahead, the owners of the next pivot update those tiles first, close
// the next diagonal tile, send it and update and send the next panels while the other ranks
// finish the round's update; so a round takes max(Update, Pivot+Comm), and only the first
// pivot step is exposed:
//
//	Time = Pivot + Comm + (Rounds−1)·max(Update, Pivot+Comm) + Update.
//
// Pivot is B³ relaxations at PivotRate, the larger of the diagonal tile's two broadcasts, and
// B²·max(N/P, N/Q) relaxations for the panels; Comm is the row panel's broadcast down the
// column plus the column panel's along the row (added, as if they shared a link). Every
// round is counted as a full B-wide one.
func EstimateFW(l Layout, m Machine, singleRate float64) FWEstimate {
	P, Q := l.Grid.P, l.Grid.Q
	rows, cols := float64(l.maxShare(P)), float64(l.maxShare(Q))
	b := float64(l.B)
	cr, cc := l.cellBytes()
	e := FWEstimate{Rounds: l.Rounds(), RankBytes: l.RankBytes(), TotalBytes: l.TotalBytes()}
	e.Update = b * rows * cols / m.Rate
	diag := float64(cr) * b * b
	e.Pivot = b*b*b/m.PivotRate + max(m.Along.Broadcast(diag, Q), m.Down.Broadcast(diag, P)) +
		b*b*max(rows, cols)/m.Rate
	e.Comm = m.Down.Broadcast(float64(cr)*b*cols, P) + m.Along.Broadcast(float64(cc)*b*rows, Q)
	step := e.Pivot + e.Comm
	e.Time = step + float64(e.Rounds-1)*max(e.Update, step) + e.Update
	n := float64(l.N)
	e.Single = n * n * n / singleRate
	e.Efficiency = e.Single / (float64(l.Grid.Ranks()) * e.Time)
	return e
}

// Batch is a batched single-source run (apsp-batched's way to all pairs) on many GPUs: the
// sources split evenly, every GPU holding the whole CSR graph, no communication while the
// sources run.
type Batch struct {
	N, M      int     // vertices and arcs
	GPUs      int     // cards
	PerSource float64 // seconds per source on one busy card (its measured throughput)
	Wave      int     // sources a card runs at once; a card with fewer takes as long as a wave
	Pred      bool    // predecessors too (a second n×n int32 matrix)
}

// Hosts describes how the cards sit in hosts, for moving a batch's rows and graph.
type Hosts struct {
	GPUsPerHost int
	Net         Link    // between hosts, per GPU (one NIC each)
	PCIe        float64 // bytes per second from a card to its own host's memory
}

// BatchEstimate is the model's account of one batched run.
type BatchEstimate struct {
	Compute     float64 // seconds of the sources on each card
	Graph       float64 // seconds to broadcast the CSR graph to every card
	Time        float64 // Graph + Compute: the rows stay on the cards
	Single      float64 // seconds of all N sources on one card
	Efficiency  float64 // Single / (GPUs · Time)
	ResultBytes int64   // the whole result: N² cells, 4 bytes each (8 with Π)
	CardBytes   int64   // the rows one card holds
	ToHosts     float64 // seconds to copy every card's rows to its own host, all at once
	ToOneHost   float64 // ToHosts, then the other hosts' rows into one host through its NICs
}

// EstimateBatch models the run b on cards placed as h says. A card runs ⌈N/GPUs⌉ sources, at
// PerSource each but never in less than a wave's time; the graph (4(N+1) bytes of offsets,
// 8M of targets and weights) is broadcast over h.Net first.
func EstimateBatch(b Batch, h Hosts) BatchEstimate {
	cell := int64(4)
	if b.Pred {
		cell = 8
	}
	per := (b.N + b.GPUs - 1) / b.GPUs
	e := BatchEstimate{
		Compute:     float64(max(per, b.Wave)) * b.PerSource,
		Graph:       h.Net.Broadcast(float64(4*(b.N+1)+8*b.M), b.GPUs),
		Single:      float64(max(b.N, b.Wave)) * b.PerSource,
		ResultBytes: cell * int64(b.N) * int64(b.N),
		CardBytes:   cell * int64(per) * int64(b.N),
	}
	e.Time = e.Graph + e.Compute
	e.Efficiency = e.Single / (float64(b.GPUs) * e.Time)
	e.ToHosts = float64(e.CardBytes) / h.PCIe
	e.ToOneHost = e.ToHosts
	if remote := b.GPUs - h.GPUsPerHost; remote > 0 {
		e.ToOneHost += float64(e.CardBytes) * float64(remote) / (float64(h.GPUsPerHost) * h.Net.Bandwidth)
	}
	return e
}

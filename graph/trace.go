package graph

import "fmt"

// MaxTraceN is the largest vertex count a solver traces. A trace keeps one
// n×n snapshot per step (n+1 of them for Floyd-Warshall), which is only
// readable, and only affordable, for the small graphs of the documents'
// worked examples.
const MaxTraceN = 64

// CheckTraceSize returns an error when a graph with n vertices is too large
// to trace; what names the solver asking, for the message.
func CheckTraceSize(what string, n int) error {
	if n > MaxTraceN {
		return fmt.Errorf("%s: cannot trace a graph with %d vertices: traces keep a snapshot per step and are limited to %d vertices (solve without a trace instead)",
			what, n, MaxTraceN)
	}
	return nil
}

// FWStep is the state of a Floyd-Warshall run after one step: D and Π as
// the documents print them.
//
// For the plain algorithm ([Karaula 2017] §3.1) a step is one value of k: the
// step with K = k holds D^(k) and Π^(k), the matrices whose paths may pass
// through the first k vertices only, and K = 0 is the initial W and Π^(0).
//
// For the blocked algorithm ([Karaula 2017] §4.5, [Lab handout] §1.2) a step is one
// phase of one round: Round is the index of the primary (diagonal) tile and
// Phase is 1, 2 or 3. After phase 3 (or the last phase that ran) of a round
// the matrix equals D^(K) of the plain algorithm; within a round the tiles
// not yet updated lag behind.
type FWStep struct {
	// K is the number of pivot vertices fully applied at the end of the
	// round (blocked) or the step (plain); 0 for the initial state.
	K int
	// Round is the primary tile's index (blocked); -1 for the initial state
	// and for every step of the plain algorithm.
	Round int
	// Phase is 1, 2 or 3 (blocked); 0 for the initial state and the plain
	// algorithm.
	Phase int
	// Updated lists the tiles this phase wrote, as {tile row, tile column}
	// pairs in tile units (tile t covers vertices t·Tile … t·Tile+Tile-1).
	Updated [][2]int
	// Dist is D after the step, n×n row-major, Inf where unreachable.
	Dist []int32
	// Pred is Π after the step (vertex before j on the path from i, Nil if
	// none); nil when the run kept no predecessors.
	Pred []int32
}

// Title describes the step in the documents' words, e.g. "k = 3" or
// "round 1, phase 2".
func (s FWStep) Title() string {
	switch {
	case s.Round < 0 && s.K == 0:
		return "initial (k = 0)"
	case s.Round < 0:
		return fmt.Sprintf("k = %d", s.K)
	default:
		return fmt.Sprintf("round %d, phase %d", s.Round, s.Phase)
	}
}

// FWTrace records a Floyd-Warshall run step by step, for display. Solvers
// fill it when asked; it is plain data.
type FWTrace struct {
	N      int
	Labels []string // the graph's labels; nil when it has none
	Solver string   // the variant that ran, e.g. "fw-cpu-naive"
	Tile   int      // the tile side of a blocked run; 0 for the plain algorithm
	Steps  []FWStep // the initial state first, then one entry per step
}

// DijkstraStep is one step of sequential Dijkstra ([Musap 2016] §2.5,
// Algorithm 1): the vertex settled and the tentative distances after its
// arcs were relaxed.
type DijkstraStep struct {
	Settled int     // the vertex settled in this step
	Dist    []int32 // tentative distances after relaxing Settled's arcs (Inf: not reached yet)
	Pred    []int32 // tentative predecessors at the same moment (Nil: none yet)
}

// FrontierStep is one iteration of the frontier algorithm ([Musap 2016] §2.7,
// Algorithm 2, after Martín et al.): every vertex of the frontier relaxes
// its arcs into unsettled vertices, the minimum tentative distance over the
// unsettled vertices is taken, and all unsettled vertices at that minimum
// settle together and form the next frontier.
type FrontierStep struct {
	Frontier  []int   // F before the relax, in vertex order
	Dist      []int32 // C after the relax
	Min       int32   // mssp: the smallest C over unsettled vertices; Inf ends the loop
	Next      []int   // F after the update: the unsettled vertices with C = Min (none when Min is Inf)
	Unsettled []int   // U after the update, in vertex order
}

// DijkstraTrace records a single-source run in both of Musap's forms: the
// sequential settle order with the distances after each step, and the
// frontier iterations, so that a notebook can print both tables.
type DijkstraTrace struct {
	N        int
	Labels   []string // the graph's labels; nil when it has none
	Source   int
	Solver   string         // the variant that ran, e.g. "dijkstra-cpu"
	Initial  []int32        // distances before the first step: 0 at the source, Inf elsewhere
	Steps    []DijkstraStep // sequential form, one entry per settled vertex
	Frontier []FrontierStep // frontier form, one entry per while-iteration
}

// SettleOrder returns the vertices in the order the sequential form settled
// them.
func (t *DijkstraTrace) SettleOrder() []int {
	order := make([]int, len(t.Steps))
	for i, s := range t.Steps {
		order[i] = s.Settled
	}
	return order
}

// BFPass is one pass of Bellman-Ford in its queue form (the form of
// cpu.BellmanFord): the vertices whose distance changed in the previous
// pass (the source, in the first) scan their arcs and relax them in place.
type BFPass struct {
	Scanned []int    // the vertices whose arcs the pass scanned, in scan order
	Relaxed [][2]int // the arcs {u, v} that lowered v's distance, in order (one arc may appear twice)
	Dist    []int32  // distances after the pass (Inf: not reached yet; see BFTrace)
	Pred    []int32  // predecessors after the pass (Nil: none yet)
}

// BFTrace records a single-source Bellman-Ford run pass by pass, for
// display. Distances beyond ±MaxDistance, which only a graph with very
// heavy arcs reaches on the way, are recorded as ±MaxDistance.
type BFTrace struct {
	N       int
	Labels  []string // the graph's labels; nil when it has none
	Source  int
	Solver  string   // the variant that ran, e.g. "bf-cpu"
	Initial []int32  // distances before the first pass: 0 at the source, Inf elsewhere
	Passes  []BFPass // one entry per pass, the last one changing nothing unless the run stopped early
	// NegativeCycle is the cycle the run stopped on, as vertices in path
	// order; nil when it found none.
	NegativeCycle []int
}

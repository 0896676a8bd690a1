package gpu

import (
	"context"
	"fmt"
	"strings"

	"github.com/pathnotes/pathnotes/graph"
)

// matrices is how many n×n int32 matrices an all-pairs run keeps: D, and
// Π when Pred is set.
func (o Options) matrices() int {
	if o.Pred {
		return 2
	}
	return 1
}

// Variant names, as docs/design.md lists them; they go in the results' Solver
// field.
const (
	VariantFWHN           = "fw-hn"
	VariantFWHNShared     = "fw-hn-shared"
	VariantFWRow          = "fw-row"
	VariantFWTiledGlobal  = "fw-tiled-global"
	VariantFWBlocked      = "fw-blocked"
	VariantFWGaioso       = "fw-gaioso"
	VariantDijkstraMartin = "dijkstra-martin"
	VariantDijkstraAPSP   = "dijkstra-apsp-row"
	VariantBFNaive        = "bf-naive"
	VariantBFStride       = "bf-stride"
	VariantBFFlag         = "bf-flag"
)

// Options configures every GPU variant. The zero value computes distances
// only, on the default device.
type Options struct {
	// Pred asks for predecessors (the documents' Π: the vertex before j on
	// the path from i).
	Pred bool
	// Device runs the variant; nil means Default().
	Device *Device
	// Devices, when it names several devices, spreads one run over them
	// (OpenAll returns every device of the host): fw-fast gives each card
	// a stripe of block rows. The other variants run on one device and
	// refuse several. Set Device or Devices, not both.
	Devices []*Device
	// Stats, when not nil, receives the run's timings and counts.
	Stats *Stats
	// EarlyExit stops the Bellman-Ford variants after the first pass that
	// changes nothing. Bodra's host loop always runs n-1 passes, which is
	// what the variants do without it.
	EarlyExit bool
	// DeviceMemory caps the device memory fw-fast may use, in bytes (0:
	// all that is free). When its matrices do not fit, fw-fast keeps them
	// in host memory and streams them through the device (see FWFast).
	DeviceMemory uint64
	// Progress, when not nil, is called as the Floyd-Warshall variants'
	// host loops go, with the pivots launched so far and n (launches are
	// asynchronous: the last call comes when all are queued, before the
	// device has finished). A display.Progress's Report method fits.
	Progress func(done, total int)
}

// Variant describes one GPU variant and runs it.
type Variant struct {
	Name      string // stable name, e.g. "fw-blocked"
	Algorithm string // "Floyd-Warshall", "Dijkstra", "Bellman-Ford" or "Johnson"
	AllPairs  bool   // all pairs (SolveAll) rather than one source (SolveFrom)
	Negative  bool   // accepts negative arcs
	Source    string // the document (and section) it follows
	Launch    string // the thread mapping and launch shape, in a line

	// The function that runs it: one of the two.
	all    func(context.Context, *graph.Graph, Options) (*graph.AllPairs, error)
	single func(context.Context, *graph.Graph, int, Options) (*graph.SingleSource, error)
	// summary says what it is in a line, and from where it comes in the
	// keys of docs/sources.md ("pathnotes' own" for the others): the
	// variants tables of this package's doc and of docs/design.md are
	// written from them (TestVariantTables).
	summary, from string
	// launches is how many kernels a run on one device launches for n
	// vertices, with predecessors or not, for the variants whose count
	// depends on nothing else (nil for the others).
	launches func(n int, pred bool) int
}

// own is the from of pathnotes' own variants.
const own = "pathnotes' own"

// variants is the registry: every fact of a variant is in its entry. The
// documents' variants come first, then pathnotes' own, by name; the doc
// tables follow this order.
var variants = []Variant{
	{Name: VariantFWHN, Algorithm: "Floyd-Warshall", AllPairs: true, Negative: true,
		Source: `Harish & Narayanan; [Karaula 2017] §4.4 "CUDA v1"; [Bodra] §2.3.1 "Super Naive"`,
		Launch: "one launch per k; one thread per cell, 32×32 blocks, ⌈n/32⌉² grid", all: FWHN,
		summary: "Floyd-Warshall, one launch per k", from: "Harish & Narayanan; [Karaula 2017] §4.4; [Bodra] §2.3.1", launches: oncePerPivot},
	{Name: VariantFWHNShared, Algorithm: "Floyd-Warshall", AllPairs: true, Negative: true,
		Source: `[Bodra] §2.3.2 "Super Naive Shared"`,
		Launch: "one launch per k; 1024-thread 1-D blocks, (⌈n/1024⌉, n) grid, d[i][k] broadcast through shared memory", all: FWHNShared,
		summary: "Floyd-Warshall, d[i][k] through shared memory", from: "[Bodra] §2.3.2", launches: oncePerPivot},
	{Name: VariantFWRow, Algorithm: "Floyd-Warshall", AllPairs: true, Negative: true,
		Source: `[Bodra] §2.3.3 "Naive"`,
		Launch: "one launch per k; one thread per row, 1024-thread blocks", all: FWRow,
		summary: "Floyd-Warshall, one thread per row", from: "[Bodra] §2.3.3", launches: oncePerPivot},
	{Name: VariantFWTiledGlobal, Algorithm: "Floyd-Warshall", AllPairs: true, Negative: true,
		Source: `[Bodra] §2.3.4 "Tiled"; [Lab handout] §2.2`,
		Launch: "3 phases per 32×32 primary tile in global memory; grids (1,1), (nb,2), (nb,nb)", all: FWTiledGlobal,
		summary: "Floyd-Warshall, three phases in global memory", from: "[Bodra] §2.3.4; [Lab handout] §2.2",
		launches: func(n int, _ bool) int { return 3 * tiles(n) }},
	{Name: VariantFWBlocked, Algorithm: "Floyd-Warshall", AllPairs: true, Negative: true,
		Source: `Katz & Kider; [Karaula 2017] §4.5 "CUDA v2"; [Bodra] §2.3.5 "Tiled with Shared Memory"; [Lab handout] §2.3`,
		Launch: "3 phases per 32×32 primary tile in shared memory; grids (1,1), (nb-1,2), (nb-1,nb-1)", all: FWBlocked,
		summary: "Floyd-Warshall, three phases in shared-memory tiles", from: "Katz & Kider; [Karaula 2017] §4.5; [Bodra] §2.3.5; [Lab handout] §2.3",
		// Karaula's host loop skips phases 2 and 3 when there is one tile.
		launches: func(n int, _ bool) int {
			if tiles(n) == 1 {
				return 1
			}
			return 3 * tiles(n)
		}},
	{Name: VariantFWGaioso, Algorithm: "Floyd-Warshall", AllPairs: true, Negative: true,
		Source: `[Gaioso et al.] §V`,
		Launch: "2 kernels per stage: persistent phase 1 (SMs × resident blocks, each recomputing the primary tile), phase 2 on an (nb,nb) grid", all: FWGaioso,
		summary: "Floyd-Warshall, two kernels per stage", from: "[Gaioso et al.] §V",
		launches: func(n int, _ bool) int { return 2 * tiles(n) }},
	{Name: VariantDijkstraMartin, Algorithm: "Dijkstra", AllPairs: false,
		Source: `Martín et al.; [Musap 2016] §2.7-2.8, Algorithm 2`,
		Launch: "relax / minimum / update per frontier, one thread per vertex, 512-thread blocks", single: DijkstraMartin,
		summary: "Dijkstra, frontier relax / minimum / update", from: "Martín et al.; [Musap 2016] §2.7–2.8"},
	{Name: VariantDijkstraAPSP, Algorithm: "Dijkstra", AllPairs: true,
		Source: `[Bodra] §2.2.1 "Naive"`,
		Launch: "one thread per source on 1024-thread blocks, linear-scan extract-min over a dense matrix", all: DijkstraAPSPRow,
		summary: "Dijkstra for all pairs, one thread per source", from: "[Bodra] §2.2.1"},
	{Name: VariantBFNaive, Algorithm: "Bellman-Ford", AllPairs: false, Negative: true,
		Source: `[Bodra] §2.1.1 "Naive"`,
		Launch: "relax + update per pass, one thread per vertex, 1024-thread blocks", single: BFNaive,
		summary: "Bellman-Ford, one thread per vertex", from: "[Bodra] §2.1.1"},
	{Name: VariantBFStride, Algorithm: "Bellman-Ford", AllPairs: false, Negative: true,
		Source: `[Bodra] §2.1.2 "Stride"`,
		Launch: "relax + update per pass, grid-stride loops on half the blocks", single: BFStride,
		summary: "Bellman-Ford, grid-stride loops", from: "[Bodra] §2.1.2"},
	{Name: VariantBFFlag, Algorithm: "Bellman-Ford", AllPairs: false, Negative: true,
		Source: `[Bodra] §2.1.3 "Stride with Flag" (after Agarwal & Dutta)`,
		Launch: "as bf-stride, relaxing only vertices whose distance changed in the previous pass", single: BFFlag,
		summary: "Bellman-Ford, only the vertices that changed", from: "[Bodra] §2.1.3"},
	// pathnotes' own variants, after the documents' ones.
	{Name: VariantAPSPBatched, Algorithm: "Dijkstra", AllPairs: true,
		Source:  "pathnotes' own (no source document): sssp-fast's near-far worklists, one source per block, batches of sources",
		Launch:  "per batch one launch of resident 256-thread blocks, each taking sources from a counter and unpacking and checking each row it finishes",
		all:     APSPBatched,
		summary: "all pairs, `sssp-fast`'s engine one source per block", from: own},
	{Name: VariantBFFast, Algorithm: "Bellman-Ford", Negative: true,
		Source:  "pathnotes' own (no source document): worklist Bellman-Ford with early exit and an on-device negative-cycle check",
		Launch:  "as sssp-fast with an infinite threshold: one persistent grid, at least one Bellman-Ford round per step (more in a block's local rounds)",
		single:  BFFast,
		summary: "Bellman-Ford on worklists, early exit, negative cycles", from: own},
	{Name: VariantFWFast, Algorithm: "Floyd-Warshall", AllPairs: true, Negative: true,
		Source:  "pathnotes (blocked Floyd-Warshall with 128×128 tiles and a register-tiled min-plus product)",
		Launch:  "up to 2048 vertices one launch of ff_small (64-wide tiles, its resident blocks meeting at a grid barrier between the phases); otherwise 3 launches per 128-wide stage: primary tile (1 block of 256), primary row and column ((nb,2) grid), the rest ((nb,nb) grid) of 256-thread blocks computing 8×8 cells each; from 1024 vertices on a Hopper card, graphs of weights 0..16383 run the stages on 16-bit distances, two cells an instruction (fw16.cu: the matrix built from the arcs, one launch of f16_small up to 2048 vertices, 128-wide stages above, then f16_widen, which checks that no result was cut off, else the 32-bit stages run); with Π on a sparse graph of positive weights, ff_tight after them (up to 16 rows of distances a block in shared memory, each thread checking 4 arcs at a time against them; past the n whose row fits, f16_tight on the 16-bit stages' matrix, one row a block) while the distances are copied back",
		all:     FWFast,
		summary: "Floyd-Warshall on 128×128 tiles", from: own,
		// The matrix is built on the device (ff_init, ff_arcs) and checked
		// there (ff_finish) around the stages: one launch of ff_small, or
		// 3 launches a stage, 1 when there is a single one; with Π, ff_tight
		// after them (and ff_finish of the distances before it:
		// ffTightLaunches); or the 16-bit path (ffNarrowFits,
		// ffNarrowLaunches: f16_small builds its matrix, and without Π no
		// ff_finish runs).
		launches: func(n int, pred bool) int {
			if n == 0 {
				return 0
			}
			stages, tight := ceilDiv(n, ffTile), 0
			if pred && n > ffTightMin {
				tight = ffTightLaunches()
			}
			if ffNarrow && n >= ffNarrowMin {
				return ffNarrowLaunches(n, stages*ffTile, tight > 0)
			}
			if stages == 1 || ffSmall(n, false) {
				return 1 + 3 + tight
			}
			return 3*stages + 3 + tight
		}},
	{Name: VariantJohnsonFast, Algorithm: "Johnson", AllPairs: true, Negative: true,
		Source:  "pathnotes' own (no source document): Johnson's reweighting with bf-fast's potentials, then apsp-batched's batched Dijkstra",
		Launch:  "bf-fast's persistent grid from a virtual source joined to every vertex, then apsp-batched's launches on the reweighted arcs",
		all:     JohnsonFast,
		summary: "Johnson: `bf-fast` from a virtual source for potentials, `apsp-batched` on the reweighted arcs", from: own},
	{Name: VariantSSSPFast, Algorithm: "Dijkstra",
		Source:  "pathnotes' own (no source document): near-far worklists after Davidson et al.'s delta-stepping variant",
		Launch:  "one persistent grid of a block per multiprocessor (256 threads, 1024 on graphs with hubs; grid-wide barrier between steps, and without hubs up to 16 local rounds per block in between), a group of lanes per worklist vertex, a warp per part of 64 arcs of a hub's (more than 128 arcs on graphs with hubs), relaunched every 4096 steps",
		single:  SSSPFast,
		summary: "single source: near-far worklists (on meshes, idle blocks take the spilled work of a step); a flag frontier Bellman-Ford on graphs without hubs of mean out-degree above 4.5", from: own},
}

// Variants returns every GPU variant, in the order of docs/design.md.
func Variants() []Variant { return append([]Variant(nil), variants...) }

// Lookup returns the variant with the given name.
func Lookup(name string) (Variant, error) {
	for _, v := range variants {
		if v.Name == name {
			return v, nil
		}
	}
	names := make([]string, len(variants))
	for i, v := range variants {
		names[i] = v.Name
	}
	return Variant{}, fmt.Errorf("gpu: no variant %q (known: %s)", name, strings.Join(names, ", "))
}

// SolveAll runs an all-pairs variant.
func (v Variant) SolveAll(ctx context.Context, g *graph.Graph, opts Options) (*graph.AllPairs, error) {
	if v.all == nil {
		return nil, fmt.Errorf("gpu: %s solves single-source problems: use SolveFrom", v.Name)
	}
	return v.all(ctx, g, opts)
}

// SolveFrom runs a single-source variant from source.
func (v Variant) SolveFrom(ctx context.Context, g *graph.Graph, source int, opts Options) (*graph.SingleSource, error) {
	if v.single == nil {
		return nil, fmt.Errorf("gpu: %s solves all pairs: use SolveAll", v.Name)
	}
	return v.single(ctx, g, source, opts)
}

// Launches returns how many kernel launches the variant makes on one
// device for n vertices, with predecessors (pred) or not, for the
// Floyd-Warshall variants, whose count depends on nothing else (n for the
// one-launch-per-k ones, 3 or 2 per 32×32 primary tile for the tiled ones,
// fw-fast's by its path), and -1 for the others, whose count depends on
// the graph. A fw-fast run whose ff_small gave up (its grid not all on the
// card at once) launches more; with Π past one tile, fw-fast's count is
// that of a graph whose predecessors ff_tight computes after the stages
// (sparse, every arc weighing at least 1), and a run on another graph
// launches one fewer; from ffNarrowMin vertices on, it is that of a run
// on 16-bit distances (a card of compute capability 9.0 or later, or the
// emulator, and weights below 2^14).
func (v Variant) Launches(n int, pred bool) int {
	if v.launches == nil || n < 0 {
		return -1
	}
	return v.launches(n, pred)
}

// oncePerPivot is the launch count of the variants that launch once per k.
func oncePerPivot(n int, _ bool) int { return n }

// String names the variant and its source.
func (v Variant) String() string { return v.Name + " (" + v.Algorithm + ", " + v.Source + ")" }

// AllPairs runs the all-pairs variant called name. Name "" or "auto"
// picks one by PickAllPairs's rule: Floyd-Warshall (fw-fast) for small
// graphs and all but the sparsest, apsp-batched for sparse ones with
// non-negative weights, johnson-fast for sparse ones with negative arcs.
// The result's Solver field and opts.Stats.Variant name the variant that
// ran.
func AllPairs(ctx context.Context, name string, g *graph.Graph, opts Options) (*graph.AllPairs, error) {
	if name == "" || name == "auto" {
		name = PickAllPairs(g)
	}
	v, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	return v.SolveAll(ctx, g, opts)
}

// SingleSource runs the single-source variant called name from source.
func SingleSource(ctx context.Context, name string, g *graph.Graph, source int, opts Options) (*graph.SingleSource, error) {
	v, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	return v.SolveFrom(ctx, g, source, opts)
}

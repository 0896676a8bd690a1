package gpu

import (
	"fmt"

	"github.com/pathnotes/pathnotes/gpu/driver"
	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/ptx"
)

// fw-fast's stages on 16-bit distances (ptx/fw16.cu): on a Hopper card,
// add.u16x2 and min.u16x2 make one VIADDMNMX.U16x2 instruction, which
// relaxes two cells where the 32-bit stages relax one. The result is
// exact: the stages compute min(distance, 2^15-1), their infinity, and
// f16_widen checks that no result lies in f16Exact .. 2^15-2, which (with
// every weight below f16Exact) proves that no reachable pair was cut off
// at 2^15-1; where a result does, the run starts again on the 32-bit
// stages.

// f16Exact bounds the weights the 16-bit stages take, and the results
// that pass their check (F16_EXACT in ptx/fw16.cu).
const f16Exact = 1 << 14

// ffNarrow lets fw-fast run its stages on 16-bit distances where
// ffNarrowFits allows (a variable, so that benchmarks time both ways and
// tests check both).
var ffNarrow = true

// ffNarrowMin is the fewest vertices for which fw-fast runs its stages on
// 16-bit distances, the fewest measured: at n = 1024 on an H200
// (BenchmarkFWFastCall, build 4b21dd1, medians of 101 calls) f16_small
// took 0.2506 ms against 0.2751 for ff_small on 32-bit distances (0.3229
// against 0.3468 with Π). A variable for the tests, which run them on
// small graphs.
var ffNarrowMin = 1024

// ffNarrowBuildApart makes f16_build build the 16-bit matrix in a launch
// of its own before f16_small, which otherwise builds it itself: one
// launch less, but the kernels' time then holds the build. Benchmarks
// time the stages alone with it, and compare.
var ffNarrowBuildApart = false

// ffNarrowPanelRows is how many of a tile's 128 rows a block of the
// 16-bit panels takes (16 × 2, 4 or 8, f16_panels_r*) where fw-fast takes
// quarter tiles (ffQuarterMax block rows or fewer); whole tiles above. A
// variable, so that benchmarks time each.
var ffNarrowPanelRows = 32

// ffNarrowOneMax is the most vertices for which the 16-bit stages run in
// one launch (f16_small: 64-wide tiles, as ff_small on 32-bit distances),
// where ffSmall allows one launch at all; above, a launch a phase with
// 128-wide tiles. On an H200 (build 4b21dd1, medians of 101 calls) at
// n = 2048, 0.736 ms against 0.897 (0.917 against 1.081 with Π). A
// variable, so that benchmarks time both ways.
var ffNarrowOneMax = 2048

// ffNarrowOne says whether fw-fast runs the 16-bit stages of n vertices in
// one launch of f16_small.
func ffNarrowOne(n int) bool { return ffSmall(n, false) && n <= ffNarrowOneMax }

// ffNarrowLaunches is how many launches the 16-bit path queues for n
// vertices on a matrix of side ld: f16_small (which builds the matrix
// itself, but for ffNarrowBuildApart: f16_build before it), or f16_build
// and three launches a stage (one when there is one stage); then
// f16_widen; and with Π (tight: ff_tight's, the only Π the
// 16-bit stages take) ff_tight or f16_tight and the ff_finish that checks
// Π. Without Π no ff_finish runs: f16_widen's distances cannot fail its
// checks.
func ffNarrowLaunches(n, ld int, tight bool) int {
	k := 2
	if ffNarrowBuildApart {
		k++
	}
	if nb := ld / ffTile; !ffNarrowOne(n) {
		k = 1 + 1 + 1
		if nb > 1 {
			k = 1 + 3*nb + 1
		}
	}
	if tight {
		k += 2
	}
	return k
}

// ffNarrowFits says whether fw-fast runs g's stages in mode on 16-bit
// distances on r's device: the distance-only stages (with or without Π
// from ff_tight or f16_tight after them), at least ffNarrowMin vertices,
// weights that ffNarrowWeights takes, and a device that runs PTX for sm_90
// (a card of compute capability 9.0 or later, or the emulator).
func (r *run) ffNarrowFits(g *graph.Graph, mode ffMode) bool {
	return ffNarrow && mode.suffix == ffDist.suffix && g.N() >= ffNarrowMin && ffNarrowWeights(g) &&
		(r.dev.info.Major >= 9 || driver.Emulated(r.dev.ctx))
}

// ffNarrowWeights says whether g's weights suit the 16-bit stages: all in
// 0 .. f16Exact-1.
func ffNarrowWeights(g *graph.Graph) bool {
	lo, hi := g.WeightRange()
	return g.M() == 0 || lo >= 0 && hi < f16Exact
}

// ffNarrowFill readies the 16-bit matrix h of side ld (ld·ld/2 words) for
// the stages: for the 128-wide stages it builds h from g's arcs on the
// device (c) with f16_build, which also writes the arcs' sources where c
// has room for them (ff_tight); f16_small builds h itself (one is set),
// unless ffNarrowBuildApart. It sets p, when given, to NIL (ff_tight
// starts from it).
func (r *run) ffNarrowFill(g *graph.Graph, c csr, ld int, h, p buffer, one bool) error {
	if p.n > 0 {
		if err := r.fill(p, graph.Nil); err != nil {
			return err
		}
	}
	if one && !ffNarrowBuildApart {
		return nil
	}
	return r.launch(ptx.FW16, "f16_build", Dim(ceilDiv(ld, 8), 1, 1), Dim(256, 1, 1), 0,
		i32(g.N()), i32(ld), c.off.arg(), c.tgt.arg(), c.w.arg(), h.arg(), c.src.arg())
}

// ffNarrowStages queues the stages of fw-fast on the 16-bit matrix h of
// side ld: with blocks above 0, f16_small of that many blocks (bar its
// barrier), which builds h from the arcs c and runs every stage in one
// launch; otherwise the 128-wide stages on h as ffNarrowFill built it
// (half tiles a block where fw-fast takes quarters, ffQuarterMax block
// rows or fewer, the panels then in blocks of ffNarrowPanelRows rows);
// then f16_widen writes the n×n result into the 32-bit matrix d, final
// (graph.Inf where no path is), setting flag (0 before) to 1 if the check
// fails.
func (r *run) ffNarrowStages(n, ld int, c csr, d, h, flag buffer, blocks int, bar buffer) error {
	if blocks > 0 {
		if ffNarrowBuildApart {
			c = csr{} // built by ffNarrowFill
		}
		if err := r.launch(ptx.FW16, "f16_small", Dim(blocks, 1, 1), Dim(256, 1, 1), 0,
			i32(n), i32(ld/2), h.arg(), bar.arg(), c.off.arg(), c.tgt.arg(), c.w.arg(), c.src.arg()); err != nil {
			return err
		}
		r.report(n, n)
		return r.ffNarrowWiden(n, ld, d, h, flag)
	}
	nb, ldw := ld/ffTile, ld/2
	rows, halves, prows, parts := "_r8", 1, "_r8", 1
	if nb <= ffQuarterMax {
		rows, halves = "_r4", 2
		parts = ffTile / ffNarrowPanelRows
		prows = fmt.Sprintf("_r%d", ffNarrowPanelRows/16)
	}
	for s := range nb {
		args := []uint64{i32(ldw), i32(s), h.arg()}
		if err := r.launch(ptx.FW16, "f16_phase1", Dim(1, 1, 1), ffPhase1Block, 0, args...); err != nil {
			return err
		}
		if nb > 1 {
			if err := r.launch(ptx.FW16, "f16_panels"+prows, Dim(nb, 2, parts), Dim(256, 1, 1), 0, args...); err != nil {
				return err
			}
			if err := r.launch(ptx.FW16, "f16_rest"+rows, Dim(nb, nb*halves, 1), Dim(256, 1, 1), 0, args...); err != nil {
				return err
			}
		}
		r.report(min((s+1)*ffTile, n), n)
	}
	return r.ffNarrowWiden(n, ld, d, h, flag)
}

// ffNarrowWiden queues f16_widen: the n×n result in h back into d, and
// the check into flag.
func (r *run) ffNarrowWiden(n, ld int, d, h, flag buffer) error {
	return r.launch(ptx.FW16, "f16_widen", Dim(min(ceilDiv(ceilDiv(n, 2), 256), 16), min(n, 65535), 1), Dim(256, 1, 1), 0,
		i32(n), i32(ld), h.arg(), d.arg(), flag.arg())
}

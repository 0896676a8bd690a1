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
// exact: the stages compute min(distance, f16Inf), and f16_widen checks
// that no result lies in f16Exact .. f16Inf-1, which (with every weight
// below f16Exact) proves that no reachable pair was cut off at f16Inf;
// where a result does, the run starts again on the 32-bit stages.
const (
	f16Exact = 1 << 14   // weights stay below it; so must every result, for the check to pass
	f16Inf   = 1<<15 - 1 // the 16-bit stages' internal infinity
)

// ffNarrow lets fw-fast run its stages on 16-bit distances where
// ffNarrowFits allows (a variable, so that benchmarks time both ways and
// tests check both).
var ffNarrow = true

// ffNarrowMin is the fewest vertices for which fw-fast runs its stages on
// 16-bit distances: at n = 1024 on an H200 (BenchmarkFWFastCall, build
// d9923c7, medians of 41 calls) ff_small's one launch on 32-bit distances
// took 0.274 ms against 0.285 for the 16-bit stages with 64-wide tiles
// (0.345 against 0.388 with Π); at 2048, 0.878 against 1.124, and at
// 4096, 3.77 against 6.24. A variable for the tests, which run them on
// small graphs.
var ffNarrowMin = 1025

// ffNarrowPanelRows is how many of a tile's 128 rows a block of the
// 16-bit panels takes (16 × 2, 4 or 8, f16_panels_r*) where fw-fast takes
// quarter tiles (ffQuarterMax block rows or fewer); whole tiles above. A
// variable, so that benchmarks time each.
var ffNarrowPanelRows = 32

// ffNarrowSmall is the most block rows of 128 at which the 16-bit stages
// take 64-wide tiles (f16_phase1_64, f16_panels64_r2, f16_rest64_r4):
// phase 1, on one multiprocessor and on the critical path, is then an
// eighth of the work a stage, and there are twice the stages. On an H200
// (ncu, n = 2048) a 64-wide phase 1 took 8.0 us against 25.0 for a
// 128-wide one; the whole stages 0.878 ms against 0.890 (4.34 against
// 3.77 at 4096). A variable, so that benchmarks time both.
var ffNarrowSmall = 16

// ffNarrowOneMax is the most vertices for which the 16-bit stages run in
// one launch (f16_small, as ff_small does on 32-bit distances), where
// ffSmall allows one launch at all (a variable, so that benchmarks time
// both ways).
var ffNarrowOneMax = 1024

// ffNarrowOne says whether fw-fast runs the 16-bit stages of n vertices in
// one launch of f16_small.
func ffNarrowOne(n int) bool { return ffSmall(n, false) && n <= ffNarrowOneMax }

// ffNarrowTile is the tile side of the 16-bit stages on a matrix of side
// ld.
func ffNarrowTile(ld int) int {
	if ld/ffTile <= ffNarrowSmall {
		return ffTile / 2
	}
	return ffTile
}

// ffNarrowLaunches is how many launches the 16-bit stages of n vertices
// queue on a matrix of side ld: f16_narrow, f16_small or three a stage
// (one when there is one stage), f16_widen.
func ffNarrowLaunches(n, ld int) int {
	if nb := ld / ffNarrowTile(ld); nb > 1 && !ffNarrowOne(n) {
		return 2 + 3*nb
	}
	return 3
}

// ffNarrowFits says whether fw-fast runs g's stages in mode on 16-bit
// distances on r's device: the distance-only stages (with or without Π
// from ff_tight after them), at least ffNarrowMin vertices, weights that
// ffNarrowWeights takes, and a device that runs PTX for sm_90 (a card of
// compute capability 9.0 or later, or the emulator).
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

// ffNarrowStages queues the stages of fw-fast on 16-bit distances for the
// built matrix d of side ld (32-bit, internal infinity inf): f16_narrow
// writes it into h (ld·ld/2 words), the 128-wide stages run on h (half
// tiles a block where fw-fast takes quarters, ffQuarterMax block rows or
// fewer; the panels in blocks of ffNarrowPanelRows rows; 64-wide tiles up
// to ffNarrowSmall block rows; with blocks above 0, every stage in one
// launch of f16_small of that many blocks, bar its barrier), and f16_widen writes the n×n result back into d, setting flag
// (graph.Inf before) to the least row that fails the check.
func (r *run) ffNarrowStages(n, ld int, inf int32, d, h, flag buffer, blocks int, bar buffer) error {
	words := ld * ld / 2
	if err := r.launch(ptx.FW16, "f16_narrow", Dim(min(ceilDiv(words, 256), 4096), 1, 1), Dim(256, 1, 1), 0,
		i32(ld), i32(ld), d.arg(), h.arg()); err != nil {
		return err
	}
	if blocks > 0 {
		if err := r.launch(ptx.FW16, "f16_small", Dim(blocks, 1, 1), Dim(256, 1, 1), 0,
			i32(n), i32(ld/2), h.arg(), bar.arg()); err != nil {
			return err
		}
		r.report(n, n)
		return r.ffNarrowWiden(n, ld, inf, d, h, flag)
	}
	tile := ffNarrowTile(ld)
	nb, ldw := ld/tile, ld/2
	phase1, rows, halves, prows, parts := "f16_phase1", "_r8", 1, "_r8", 1
	switch {
	case tile < ffTile:
		phase1, rows, halves, prows, parts = "f16_phase1_64", "64_r4", 1, "64_r2", 2
	case nb <= ffQuarterMax:
		rows, halves = "_r4", 2
		parts = ffTile / ffNarrowPanelRows
		prows = fmt.Sprintf("_r%d", ffNarrowPanelRows/16)
	}
	for s := range nb {
		args := []uint64{i32(ldw), i32(s), h.arg()}
		if err := r.launch(ptx.FW16, phase1, Dim(1, 1, 1), ffPhase1Block, 0, args...); err != nil {
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
		r.report(min((s+1)*tile, n), n)
	}
	return r.ffNarrowWiden(n, ld, inf, d, h, flag)
}

// ffNarrowWiden queues f16_widen: the n×n result in h back into d, and
// the check into flag.
func (r *run) ffNarrowWiden(n, ld int, inf int32, d, h, flag buffer) error {
	return r.launch(ptx.FW16, "f16_widen", Dim(min(ceilDiv(ceilDiv(n, 2), 256), 16), min(n, 65535), 1), Dim(256, 1, 1), 0,
		i32(n), i32(ld), h.arg(), d.arg(), uint64(uint32(inf)), flag.arg())
}

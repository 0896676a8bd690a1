package display

import (
	"fmt"
	"html"
	"strings"
)

// Shared shows where the block that updates tile (i, j) (row i, column j,
// counted in tiles) in the shown phase takes its data, as [Karaula 2017]
// §4.5 lays out shared memory (Figs. 4.7–4.9): the pivot tile alone in
// phase 1; the pivot tile and the block's own tile in phase 2; in phase 3
// the block's own tile, the tile of its row in the pivot column, (i, k),
// and the tile of its column in the pivot row, (k, j). Those tiles are
// outlined and joined by arrows to the slots of the block's shared memory,
// drawn beside the matrix. Tile (i, j) must be one the shown phase updates.
func (v *BlockedFWView) Shared(i, j int) *BlockedFWView {
	switch {
	case v.err != nil:
	case v.phase == 0:
		v.err = fmt.Errorf("display: BlockedFW: Shared(%d, %d) needs one phase shown (Phase(1), 2 or 3)", i, j)
	case i < 0 || j < 0 || i >= v.tiles() || j >= v.tiles():
		v.err = fmt.Errorf("display: BlockedFW: Shared(%d, %d): no such tile (0 to %d)", i, j, v.tiles()-1)
	case v.tilePhase(i, j) != v.phase:
		v.err = fmt.Errorf("display: BlockedFW: Shared(%d, %d): phase %d does not update that tile (phase %d does)", i, j, v.phase, v.tilePhase(i, j))
	}
	v.shared = &[2]int{i, j}
	return v
}

// Blocks labels every tile the shown phase updates with the block of the
// launch that takes it, in the grids of [Karaula 2017] §4.5: one block in
// phase 1; T−1 by 2 in phase 2 (T tiles a side), row y = 0 on the pivot
// row and y = 1 on the pivot column; T−1 by T−1 in phase 3. Each index
// skips the pivot by adding min((id+1)/(k+1), 1), which is 1 exactly when
// id ≥ k (fw-blocked's kernels do the same).
func (v *BlockedFWView) Blocks() *BlockedFWView {
	if v.err == nil && v.phase == 0 {
		v.err = fmt.Errorf("display: BlockedFW: Blocks needs one phase shown (Phase(1), 2 or 3)")
	}
	v.blocks = true
	return v
}

// Persistent draws round k as [Gaioso et al.] §V runs it with the given
// number of persistent thread blocks (Figs. 4–6): its phase 1 updates the
// pivot tile, which every block computes in its own shared memory (step
// 1, Fig. 5), then the pivot row and column, whose tiles the blocks share
// out in a fixed order, the row's tiles first, block b taking tasks b,
// b + blocks, … (step 2, Fig. 6, as fw-gaioso does); its phase 2 updates
// the rest, one block per tile. Each tile of the row and column is
// labelled with its block and task; the blocks, each with its copy of the
// pivot tile, are drawn beside the matrix.
func (v *BlockedFWView) Persistent(blocks int) *BlockedFWView {
	switch {
	case v.err != nil:
	case blocks < 1 || blocks > maxPersistent:
		v.err = fmt.Errorf("display: BlockedFW: Persistent(%d), want 1 to %d blocks", blocks, maxPersistent)
	case v.phase != 0:
		v.err = fmt.Errorf("display: BlockedFW: Persistent shows a whole round: leave Phase out")
	}
	v.persistent = blocks
	return v
}

// maxPersistent is the most persistent blocks the panel draws.
const maxPersistent = 8

// blockOf returns the block (x, y) of the shown phase's launch that
// updates tile (i, j), in [Karaula 2017]'s grids (see Blocks).
func (v *BlockedFWView) blockOf(i, j int) (x, y int) {
	skip := func(t int) int {
		if t > v.k {
			return t - 1
		}
		return t
	}
	switch v.tilePhase(i, j) {
	case 1:
		return 0, 0
	case 2:
		if i == v.k {
			return skip(j), 0
		}
		return skip(i), 1
	}
	return skip(j), skip(i)
}

// persistentTask returns the task number of a tile of the pivot row or
// column in [Gaioso et al.]'s phase 1, and the block that takes it.
func (v *BlockedFWView) persistentTask(i, j int) (task, block int) {
	side := v.tiles() - 1
	o := j
	if i != v.k {
		o = i
	}
	if o > v.k {
		o--
	}
	task = o
	if i != v.k {
		task += side
	}
	return task, task % v.persistent
}

// sharedSlots names the tiles that the block updating tile (i, j) keeps in
// shared memory in the shown phase, with what each is.
func (v *BlockedFWView) sharedSlots(i, j int) (tiles [][2]int, what []string) {
	k := v.k
	switch v.phase {
	case 1:
		return [][2]int{{k, k}}, []string{"the pivot tile"}
	case 2:
		return [][2]int{{k, k}, {i, j}}, []string{"the pivot tile", "its own tile"}
	}
	return [][2]int{{i, j}, {i, k}, {k, j}}, []string{"its own tile", "from the pivot column", "from the pivot row"}
}

// Geometry of the panel beside the matrix, in pixels.
const (
	bfwPanelGap   = 36  // between the matrix and the panel
	bfwPanelWidth = 220 // the panel
	bfwSlot       = 40  // a slot's side
)

// panelWidth is the width the panel beside the matrix takes, if any.
func (v *BlockedFWView) panelWidth() int {
	if v.shared == nil && v.persistent == 0 {
		return 0
	}
	return bfwPanelGap + bfwPanelWidth
}

// panelHeight is the height of the panel beside the matrix, if any.
func (v *BlockedFWView) panelHeight() int {
	switch {
	case v.shared != nil:
		tiles, _ := v.sharedSlots(v.shared[0], v.shared[1])
		return 20 + bfwLine + len(tiles)*(bfwSlot+12)
	case v.persistent > 0:
		return 20 + v.persistent*(bfwSlot/2+12)
	}
	return 0
}

// drawPanel draws the panel beside the matrix: the shared memory of the
// block Shared picked, or the persistent blocks with their copies of the
// pivot tile. left is the panel's left edge; tileBox gives a tile's box.
func (v *BlockedFWView) drawPanel(sb *strings.Builder, left int, tileBox func(i, j int) (x, y, w, h int)) {
	// A badge, a letter in a circle, marks each tile and its slot: arrows
	// from the tiles to the panel would cross the matrix.
	badge := func(x, y int, letter string) {
		fmt.Fprintf(sb, `<circle class="badge" cx="%d" cy="%d" r="8" fill="#ffffff" stroke="#111" stroke-width="1.5"/>`, x, y)
		fmt.Fprintf(sb, `<text class="badge-label" x="%d" y="%d" text-anchor="middle" font-size="11" font-weight="bold">%s</text>`+"\n", x, y+4, letter)
	}
	if v.shared != nil {
		i, j := v.shared[0], v.shared[1]
		tiles, what := v.sharedSlots(i, j)
		head := wrapSVGText(fmt.Sprintf("shared memory of the block on tile (%d,%d)", i, j), 12, false, bfwPanelWidth)
		for l, line := range head {
			fmt.Fprintf(sb, `<text class="panel-heading" x="%d" y="%d">%s</text>`+"\n", left, 12+bfwLine*l, html.EscapeString(line))
		}
		shift := bfwLine * (len(head) - 1)
		for s, t := range tiles {
			letter := string(rune('A' + s))
			x, y, w, h := tileBox(t[0], t[1])
			fmt.Fprintf(sb, `<rect class="shared-tile" x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#111" stroke-width="3"/>`+"\n", x, y, w, h)
			badge(x+w-10, y+10, letter)
			top := 22 + shift + s*(bfwSlot+12)
			fill, opacity := blockedFWColors[v.tilePhase(t[0], t[1])], 1.0
			if v.tilePhase(t[0], t[1]) != v.phase {
				opacity = 0.3
			}
			fmt.Fprintf(sb, `<rect class="slot" x="%d" y="%d" width="%d" height="%d" fill="%s" fill-opacity="%g" stroke="#111" stroke-width="1.5"/>`+"\n",
				left, top, bfwSlot, bfwSlot, fill, opacity)
			badge(left+bfwSlot-10, top+10, letter)
			fmt.Fprintf(sb, `<text class="slot-label" x="%d" y="%d">tile (%d,%d)</text>`+"\n", left+bfwSlot+6, top+16, t[0], t[1])
			fmt.Fprintf(sb, `<text class="slot-label" x="%d" y="%d" font-size="11">%s</text>`+"\n", left+bfwSlot+6, top+31, html.EscapeString(what[s]))
		}
		return
	}
	fmt.Fprintf(sb, `<text class="panel-heading" x="%d" y="%d">%d persistent blocks, one an SM</text>`+"\n", left, 12, v.persistent)
	for b := range v.persistent {
		top := 22 + b*(bfwSlot/2+12)
		fmt.Fprintf(sb, `<rect class="slot" x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#111" stroke-width="1.5"/>`+"\n",
			left, top, bfwSlot/2, bfwSlot/2, blockedFWColors[1])
		fmt.Fprintf(sb, `<text class="slot-label" x="%d" y="%d" font-size="11">block %d: its own copy of (%d,%d)</text>`+"\n",
			left+bfwSlot/2+6, top+14, b, v.k, v.k)
	}
}

// drawTileLabels writes in each tile what Blocks or Persistent says of it.
func (v *BlockedFWView) drawTileLabels(sb *strings.Builder, tileBox func(i, j int) (x, y, w, h int)) {
	for i := range v.tiles() {
		for j := range v.tiles() {
			x, y, w, h := tileBox(i, j)
			if w < 40 || h < 28 {
				continue
			}
			var lines []string
			switch {
			case v.blocks && v.tilePhase(i, j) == v.phase:
				bx, by := v.blockOf(i, j)
				lines = []string{"blockIdx", fmt.Sprintf("x=%d y=%d", bx, by)}
			case v.persistent > 0 && v.tilePhase(i, j) == 2:
				task, b := v.persistentTask(i, j)
				lines = []string{fmt.Sprintf("block %d", b), fmt.Sprintf("task %d", task)}
			case v.persistent > 0 && v.tilePhase(i, j) == 1:
				lines = []string{"every", "block"}
			}
			if len(lines) == 0 {
				continue
			}
			// On a white plate: the phases' fills are too dark for black
			// text and too light for white.
			pw := 0.0
			for _, line := range lines {
				pw = max(pw, svgTextWidth(line, 10, false))
			}
			fmt.Fprintf(sb, `<rect class="tile-plate" x="%.1f" y="%d" width="%.1f" height="%d" rx="3" fill="#ffffff" fill-opacity="0.85"/>`,
				float64(x+w/2)-pw/2-3, y+h/2-13, pw+6, 12*len(lines)+4)
			for l, line := range lines {
				fmt.Fprintf(sb, `<text class="tile-note" x="%d" y="%d" text-anchor="middle" font-size="10" fill="#111">%s</text>`+"\n",
					x+w/2, y+h/2-2+12*l, html.EscapeString(line))
			}
		}
	}
}

// persistentKeys is the legend of a Persistent view.
func (v *BlockedFWView) persistentKeys() []bfwKey {
	k, g := v.k, v.persistent
	return []bfwKey{
		{"phase1", blockedFWColors[1], 1, fmt.Sprintf("phase 1, step 1: each of the %d blocks computes the pivot tile (%d,%d) in its own shared memory; block %d (k mod %d) stores it", g, k, k, k%g, g)},
		{"phase2", blockedFWColors[2], 1, fmt.Sprintf("phase 1, step 2: the blocks share out pivot row %d, then column %d, block b taking tasks b, b + %d, …", k, k, g)},
		{"phase3", blockedFWColors[3], 1, "phase 2: the rest, one block a tile, not persistent"},
	}
}

// extraText is the text form of what Shared, Blocks and Persistent add.
func (v *BlockedFWView) extraText() []string {
	var lines []string
	if v.shared != nil {
		tiles, what := v.sharedSlots(v.shared[0], v.shared[1])
		parts := make([]string, len(tiles))
		for s, t := range tiles {
			parts[s] = fmt.Sprintf("(%d,%d) %s", t[0], t[1], what[s])
		}
		lines = append(lines, fmt.Sprintf("shared memory of the block on (%d,%d): %s", v.shared[0], v.shared[1], strings.Join(parts, ", ")))
	}
	if v.blocks || v.persistent > 0 {
		var parts []string
		for i := range v.tiles() {
			for j := range v.tiles() {
				switch {
				case v.blocks && v.tilePhase(i, j) == v.phase:
					bx, by := v.blockOf(i, j)
					parts = append(parts, fmt.Sprintf("(%d,%d) block (%d,%d)", i, j, bx, by))
				case v.persistent > 0 && v.tilePhase(i, j) == 2:
					task, b := v.persistentTask(i, j)
					parts = append(parts, fmt.Sprintf("(%d,%d) task %d block %d", i, j, task, b))
				}
			}
		}
		lines = append(lines, "tiles: "+strings.Join(parts, ", "))
	}
	return lines
}

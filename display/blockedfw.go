package display

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// BlockedFWView is a schematic of one round of blocked Floyd-Warshall on an
// n×n matrix cut into b×b tiles: round k first updates the pivot tile (k,k)
// (phase 1), then the other tiles of pivot row k and pivot column k, which
// read the pivot tile (phase 2), then every other tile, which reads the
// tiles of its row and column in the pivot cross (phase 3). Build one with
// BlockedFW; Phase picks one phase to show, Launch overlays the thread
// blocks of a kernel launch.
type BlockedFWView struct {
	n, b, k                      int
	phase                        int // 0: all
	gridX, gridY, blockX, blockY int // zero: no launch shown
	shared                       *[2]int
	blocks                       bool
	persistent                   int
	err                          error
}

// blockedFWPhases names the phases, 1 to 3, as the schematic labels them.
var blockedFWPhases = [...]string{1: "pivot tile", 2: "pivot row and column", 3: "the rest"}

// blockedFWColors are the phases' fills, 1 to 3, and the fill of tiles
// that a shown phase only reads.
var blockedFWColors = [...]string{0: "#eeeeee", 1: "#d62728", 2: "#f5a623", 3: "#4e79a7"}

// BlockedFW draws round k (counted from 0, in tiles) of blocked
// Floyd-Warshall on an n×n matrix with b×b tiles; the last row and column
// of tiles are short when b does not divide n. Every phase shows, each
// tile in its phase's colour, until Phase picks one.
func BlockedFW(n, b, k int) *BlockedFWView {
	v := &BlockedFWView{n: n, b: b, k: k}
	switch {
	case n < 1 || n > bfwSide:
		v.err = fmt.Errorf("display: BlockedFW: n = %d, want 1 to %d (a cell a pixel at least)", n, bfwSide)
	case b < 1:
		v.err = fmt.Errorf("display: BlockedFW: tile size b = %d, want ≥ 1", b)
	case k < 0 || k >= v.tiles():
		v.err = fmt.Errorf("display: BlockedFW: round k = %d, want 0 to %d (n = %d has %d tiles of %d a side)", k, v.tiles()-1, n, v.tiles(), b)
	}
	return v
}

// tiles is the number of tiles a side.
func (v *BlockedFWView) tiles() int { return (v.n + v.b - 1) / v.b }

// Phase shows one phase: 1 (the pivot tile), 2 (the pivot row and column)
// or 3 (the rest), with the tiles it updates in its colour and the tiles
// it reads outlined; 0 shows all three.
func (v *BlockedFWView) Phase(p int) *BlockedFWView {
	if v.err == nil && (p < 0 || p > 3) {
		v.err = fmt.Errorf("display: BlockedFW: phase %d, want 1, 2, 3 or 0 for all", p)
	}
	v.phase = p
	return v
}

// Launch overlays a launch of gridX×gridY blocks of blockX×blockY threads
// with one thread per cell: thread (tx, ty) of block (bx, by) takes row
// by·blockY+ty and column bx·blockX+tx. Each block's cells are outlined and
// named; cells no thread takes are shaded red, and the text form counts
// the cells covered and the threads that fall outside the matrix.
func (v *BlockedFWView) Launch(gridX, gridY, blockX, blockY int) *BlockedFWView {
	if v.err == nil && (gridX < 1 || gridY < 1 || blockX < 1 || blockY < 1) {
		v.err = fmt.Errorf("display: BlockedFW: launch grid %d×%d, blocks %d×%d; want each ≥ 1", gridX, gridY, blockX, blockY)
	}
	v.gridX, v.gridY, v.blockX, v.blockY = gridX, gridY, blockX, blockY
	return v
}

// Err returns the first bad argument, if any.
func (v *BlockedFWView) Err() error { return v.err }

// tilePhase is the phase that updates tile (i, j) in round k.
func (v *BlockedFWView) tilePhase(i, j int) int {
	switch {
	case i == v.k && j == v.k:
		return 1
	case i == v.k || j == v.k:
		return 2
	}
	return 3
}

// reads reports whether the shown phase reads tile (i, j) without
// updating it: phase 2 reads the pivot tile, phase 3 the pivot cross.
func (v *BlockedFWView) reads(i, j int) bool {
	return v.phase > 1 && v.tilePhase(i, j) == v.phase-1
}

// Geometry of the drawing, in pixels.
const (
	bfwMargin   = 28  // room for the tile numbers at the top and left
	bfwSide     = 360 // the matrix's side at most
	bfwLegend   = 22  // height of each legend entry
	bfwLine     = 16  // height of a line of text
	bfwTop      = 20  // the heading's line
	bfwMinWidth = 540 // room for the heading and the legend
)

// bfwKey is one entry of the schematic's legend: a swatch filled as the
// tiles it stands for are drawn, and what they are.
type bfwKey struct {
	class, fill string
	opacity     float64
	text        string
}

// keys lists the legend: every phase's colour when all show, else the
// shown phase's tiles, the tiles it reads (drawn pale) and those it does
// not touch (grey), each swatch as its tiles are drawn.
func (v *BlockedFWView) keys() []bfwKey {
	if v.phase == 0 {
		var keys []bfwKey
		for p := 1; p <= 3; p++ {
			keys = append(keys, bfwKey{fmt.Sprintf("phase%d", p), blockedFWColors[p], 1, fmt.Sprintf("phase %d: %s", p, v.phaseTiles(p))})
		}
		return keys
	}
	p, k := v.phase, v.k
	keys := []bfwKey{{fmt.Sprintf("phase%d", p), blockedFWColors[p], 1, fmt.Sprintf("phase %d updates %s", p, v.phaseTiles(p))}}
	switch p {
	case 2:
		keys = append(keys, bfwKey{"phase1 reads", blockedFWColors[1], 0.3, fmt.Sprintf("read by phase 2: the pivot tile (%d,%d), done in phase 1", k, k)})
	case 3:
		keys = append(keys, bfwKey{"phase2 reads", blockedFWColors[2], 0.3, fmt.Sprintf("read by phase 3: pivot row %d and column %d, done in phase 2", k, k)})
	}
	for i := range v.tiles() {
		for j := range v.tiles() {
			if v.tilePhase(i, j) != p && !v.reads(i, j) {
				return append(keys, bfwKey{"idle", blockedFWColors[0], 1, fmt.Sprintf("not touched in phase %d", p)})
			}
		}
	}
	return keys
}

// SVG draws the schematic. Tiles are <rect class="tile phaseP"> (P = 1, 2
// or 3, plus "reads" for a tile the shown phase reads and "idle" for one
// it does not touch); tile numbers are <text class="tile-label">; a
// launch's blocks are <rect class="block"> with <text class="block-label">
// and the cells no thread takes <rect class="uncovered">.
func (v *BlockedFWView) SVG() (string, error) {
	if v.err != nil {
		return "", v.err
	}
	// A cell's side in pixels, not rounded, so that 6 tiles of 32 (n = 192)
	// still fill the side; at rounds each row's and column's edge.
	cell := min(28, float64(bfwSide)/float64(v.n))
	at := func(i int) int { return bfwMargin + int(math.Round(float64(i)*cell)) } // pixel of row or column i
	side := at(v.n) - bfwMargin
	nt := v.tiles()
	w := max(bfwMargin+side+8+v.panelWidth(), bfwMinWidth)
	heading := wrapSVGText(v.heading(), 12, false, float64(w-8))
	keys := v.keys()
	if v.persistent > 0 {
		keys = v.persistentKeys()
	}
	var keyLines [][]string
	lines := 0
	for _, k := range keys {
		keyLines = append(keyLines, wrapSVGText(k.text, 12, false, float64(w-bfwMargin-28)))
		lines += len(keyLines[len(keyLines)-1])
	}
	var launch []string
	if v.gridX > 0 {
		launch = wrapSVGText(v.launchText(), 12, false, float64(w-bfwMargin-8))
		lines += len(launch)
	}
	top := bfwTop + bfwLine*(len(heading)-1)
	body := max(bfwMargin+side, v.panelHeight())
	h := top + body + 8 + lines*bfwLine + (bfwLegend-bfwLine)*len(keys) + 6
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" class="pathnotes-blockedfw" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", w, h, w, h)
	fmt.Fprintf(&sb, "<title>%s</title>\n", html.EscapeString(v.heading()))
	for i, line := range heading {
		fmt.Fprintf(&sb, `<text class="heading" x="4" y="%d">%s</text>`+"\n", 14+bfwLine*i, html.EscapeString(line))
	}
	fmt.Fprintf(&sb, `<g transform="translate(0 %d)">`+"\n", top)
	for ti := range nt {
		for tj := range nt {
			p := v.tilePhase(ti, tj)
			class, fill, opacity := fmt.Sprintf("tile phase%d", p), blockedFWColors[p], 1.0
			switch {
			case v.phase == 0 || v.phase == p:
			case v.reads(ti, tj):
				class, opacity = class+" reads", 0.3
			default:
				class, fill = class+" idle", blockedFWColors[0]
			}
			r0, c0 := ti*v.b, tj*v.b
			r1, c1 := min(v.n, r0+v.b), min(v.n, c0+v.b)
			fmt.Fprintf(&sb, `<rect class="%s" data-tile="%d,%d" x="%d" y="%d" width="%d" height="%d" fill="%s" fill-opacity="%g" stroke="#333" stroke-width="1.5"/>`+"\n",
				class, ti, tj, at(c0), at(r0), at(c1)-at(c0), at(r1)-at(r0), fill, opacity)
		}
	}
	if cell >= 6 && v.n <= 128 { // cell lines, where they stay apart
		sb.WriteString(`<g stroke="#ffffff" stroke-opacity="0.6" stroke-width="0.5">`)
		for i := 1; i < v.n; i++ {
			if i%v.b != 0 {
				fmt.Fprintf(&sb, `<line x1="%d" y1="%d" x2="%d" y2="%d"/><line x1="%d" y1="%d" x2="%d" y2="%d"/>`,
					at(0), at(i), at(v.n), at(i), at(i), at(0), at(i), at(v.n))
			}
		}
		sb.WriteString("</g>\n")
	}
	for t := range nt {
		mid := (at(t*v.b) + at(min(v.n, (t+1)*v.b))) / 2
		fmt.Fprintf(&sb, `<text class="tile-label" x="%d" y="%d" text-anchor="middle">%d</text>`+"\n", mid, bfwMargin-8, t)
		fmt.Fprintf(&sb, `<text class="tile-label" x="%d" y="%d" text-anchor="end" dominant-baseline="middle">%d</text>`+"\n", bfwMargin-6, mid, t)
	}
	if v.gridX > 0 {
		v.drawLaunch(&sb, at)
	}
	tileBox := func(i, j int) (x, y, w, h int) {
		r0, c0 := i*v.b, j*v.b
		r1, c1 := min(v.n, r0+v.b), min(v.n, c0+v.b)
		return at(c0), at(r0), at(c1) - at(c0), at(r1) - at(r0)
	}
	v.drawTileLabels(&sb, tileBox)
	if v.panelWidth() > 0 {
		v.drawPanel(&sb, bfwMargin+side+bfwPanelGap, tileBox)
	}
	y := body + 8
	for i, k := range keys {
		fmt.Fprintf(&sb, `<rect class="key %s" x="%d" y="%d" width="14" height="14" fill="%s" fill-opacity="%g" stroke="#333"/>`,
			k.class, bfwMargin, y, k.fill, k.opacity)
		for j, line := range keyLines[i] {
			fmt.Fprintf(&sb, `<text class="key-label" x="%d" y="%d">%s</text>`+"\n", bfwMargin+20, y+12+j*bfwLine, html.EscapeString(line))
		}
		y += bfwLegend + bfwLine*(len(keyLines[i])-1)
	}
	for j, line := range launch {
		fmt.Fprintf(&sb, `<text class="key-label" x="%d" y="%d">%s</text>`+"\n", bfwMargin, y+12+j*bfwLine, html.EscapeString(line))
	}
	sb.WriteString("</g>\n</svg>")
	return sb.String(), nil
}

// drawLaunch outlines the launch's blocks and shades the cells no thread
// takes.
func (v *BlockedFWView) drawLaunch(sb *strings.Builder, at func(int) int) {
	for by := range v.gridY {
		for bx := range v.gridX {
			r0, c0 := by*v.blockY, bx*v.blockX
			if r0 >= v.n || c0 >= v.n {
				continue // the whole block falls outside the matrix
			}
			r1, c1 := min(v.n, r0+v.blockY), min(v.n, c0+v.blockX)
			fmt.Fprintf(sb, `<rect class="block" data-block="%d,%d" x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#111" stroke-width="2" stroke-dasharray="6 3"/>`+"\n",
				bx, by, at(c0)+1, at(r0)+1, at(c1)-at(c0)-2, at(r1)-at(r0)-2)
			if at(c1)-at(c0) >= 40 && at(r1)-at(r0) >= 16 {
				fmt.Fprintf(sb, `<text class="block-label" x="%d" y="%d" font-size="10">(%d,%d)</text>`+"\n", at(c0)+4, at(r0)+12, bx, by)
			}
		}
	}
	// The cells no thread takes: a strip at the right, one at the bottom.
	rows, cols := min(v.n, v.gridY*v.blockY), min(v.n, v.gridX*v.blockX)
	for _, strip := range [][4]int{{cols, 0, v.n, rows}, {0, rows, v.n, v.n}} { // first column, row; end column, row
		if strip[0] < strip[2] && strip[1] < strip[3] {
			fmt.Fprintf(sb, `<rect class="uncovered" x="%d" y="%d" width="%d" height="%d" fill="#b00020" fill-opacity="0.35" stroke="#b00020"/>`+"\n",
				at(strip[0]), at(strip[1]), at(strip[2])-at(strip[0]), at(strip[3])-at(strip[1]))
		}
	}
}

// heading names the view: matrix, tiles, round and phase.
func (v *BlockedFWView) heading() string {
	nt := v.tiles()
	if v.persistent > 0 {
		return fmt.Sprintf("Floyd-Warshall with %d persistent blocks in phase 1: n = %d, %d×%d tiles of %d, stage k = %d", v.persistent, v.n, nt, nt, v.b, v.k)
	}
	s := fmt.Sprintf("blocked Floyd-Warshall: n = %d, %d×%d tiles of %d, round k = %d", v.n, nt, nt, v.b, v.k)
	if v.phase == 0 {
		return s + ", all phases"
	}
	return s + fmt.Sprintf(", phase %d (%s)", v.phase, blockedFWPhases[v.phase])
}

// phaseTiles describes what phase p updates and what it reads.
func (v *BlockedFWView) phaseTiles(p int) string {
	k := v.k
	switch {
	case p == 1:
		return fmt.Sprintf("pivot tile (%d,%d)", k, k)
	case p == 2 && v.phase == 0:
		return fmt.Sprintf("pivot row %d and column %d, which read (%d,%d)", k, k, k, k)
	case p == 2:
		return fmt.Sprintf("pivot row %d and column %d", k, k)
	case v.phase == 0:
		return fmt.Sprintf("the rest, which read row %d and column %d", k, k)
	}
	return "the rest"
}

// launchText counts what the launch covers.
func (v *BlockedFWView) launchText() string {
	rows, cols := min(v.n, v.gridY*v.blockY), min(v.n, v.gridX*v.blockX)
	threads := v.gridX * v.gridY * v.blockX * v.blockY
	covered := rows * cols
	return fmt.Sprintf("launch %d×%d blocks of %d×%d threads: %d of %d cells covered, %d threads outside",
		v.gridX, v.gridY, v.blockX, v.blockY, covered, v.n*v.n, threads-covered)
}

// Text lists the tiles of each phase (and the launch's coverage): the
// schematic in words.
func (v *BlockedFWView) Text() string {
	if v.err != nil {
		return "error: " + v.err.Error()
	}
	lines := []string{v.heading()}
	nt := v.tiles()
	for p := 1; p <= 3; p++ {
		if v.phase != 0 && v.phase != p {
			continue
		}
		var tiles []string
		for i := range nt {
			for j := range nt {
				if v.tilePhase(i, j) == p {
					tiles = append(tiles, fmt.Sprintf("(%d,%d)", i, j))
				}
			}
		}
		lines = append(lines, fmt.Sprintf("phase %d (%s): %s", p, blockedFWPhases[p], elide(tiles, 8)))
	}
	if v.gridX > 0 {
		lines = append(lines, v.launchText())
	}
	lines = append(lines, v.extraText()...)
	return strings.Join(lines, "\n")
}

// MIMEBundle shows the schematic as SVG with its text form.
func (v *BlockedFWView) MIMEBundle() (data, metadata map[string]any) {
	svg, err := v.SVG()
	if err != nil {
		return errorBundle(err).MIMEBundle()
	}
	return svgBundle(svg, v.Text()).Data, nil
}

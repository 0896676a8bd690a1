package display

import (
	"fmt"
	"html"
	"strings"
)

// RowReadsView draws round k of the one-thread-per-cell Floyd-Warshall
// (fw-hn, [Bodra] §2.3.1 "Super Naive") on an n×n matrix as its threads:
// each cell is the thread that relaxes it, named (x, y) as CUDA numbers
// it (x the column j, y the row i), as [Bodra] Fig. 3 names them. Every
// thread (i, j) reads d[i][k] and d[k][j]: the arrows join each thread to
// the d[i][k] of its row, which all the threads of row i read, the value
// Super Naive Shared (§2.3.2) keeps in shared memory. Build one with
// RowReads.
type RowReadsView struct {
	n, k int
	err  error
}

// maxRowReads is the largest matrix RowReads draws.
const maxRowReads = 8

// RowReads draws round k (0 ≤ k < n) on an n×n matrix, n at most 8.
func RowReads(n, k int) *RowReadsView {
	v := &RowReadsView{n: n, k: k}
	switch {
	case n < 1 || n > maxRowReads:
		v.err = fmt.Errorf("display: RowReads: n = %d, want 1 to %d (a thread a box)", n, maxRowReads)
	case k < 0 || k >= n:
		v.err = fmt.Errorf("display: RowReads: k = %d, want 0 to %d", k, n-1)
	}
	return v
}

// Err returns the first bad argument, if any.
func (v *RowReadsView) Err() error { return v.err }

// Geometry of the drawing, in pixels.
const (
	rrCell   = 64 // a thread's box
	rrLeft   = 44 // room for the row names
	rrTop    = 48 // room for the heading and the column names
	rrLegend = 20 // a legend line
)

// SVG draws the threads: <rect class="thread"> boxes (class "pivot" on
// column k, "row-k" on row k), <text class="thread-label"> names, and the
// <path class="reads"> arrows to d[i][k].
func (v *RowReadsView) SVG() (string, error) {
	if v.err != nil {
		return "", v.err
	}
	n, k := v.n, v.k
	keys := []string{
		fmt.Sprintf("column k = %d: d[i][%d], which every thread of row i reads", k, k),
		fmt.Sprintf("row k = %d: d[%d][j], which every thread of column j reads", k, k),
		"arrow: a thread's read of the d[i][k] its whole row shares",
	}
	side := n * rrCell
	w := max(rrLeft+side+16, 460)
	var lines [][]string
	legendH := 0
	for _, key := range keys {
		l := wrapSVGText(key, 12, false, float64(w-rrLeft-28))
		lines = append(lines, l)
		legendH += rrLegend + 15*(len(l)-1)
	}
	h := rrTop + side + 14 + legendH
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" class="pathnotes-rowreads" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", w, h, w, h)
	fmt.Fprintf(&sb, `<rect width="100%%" height="100%%" fill="#ffffff"/>`+"\n")
	for i, line := range wrapSVGText(v.heading(), 12, false, float64(w-8)) {
		fmt.Fprintf(&sb, `<text class="heading" x="4" y="%d">%s</text>`+"\n", 14+15*i, html.EscapeString(line))
	}
	x := func(j int) int { return rrLeft + j*rrCell }
	y := func(i int) int { return rrTop + i*rrCell }
	for j := range n {
		fmt.Fprintf(&sb, `<text class="axis" x="%d" y="%d" text-anchor="middle">j=%d</text>`+"\n", x(j)+rrCell/2, rrTop-6, j)
	}
	for i := range n {
		fmt.Fprintf(&sb, `<text class="axis" x="%d" y="%d" text-anchor="end">i=%d</text>`+"\n", rrLeft-6, y(i)+rrCell/2+4, i)
		for j := range n {
			class, fill := "thread", "#ffffff"
			switch {
			case j == k:
				class, fill = "thread pivot", blockedFWColors[2]
			case i == k:
				class, fill = "thread row-k", "#cfe0f1"
			}
			fmt.Fprintf(&sb, `<rect class="%s" x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#333"/>`, class, x(j), y(i), rrCell, rrCell, fill)
			fmt.Fprintf(&sb, `<text class="thread-label" x="%d" y="%d" text-anchor="middle">(%d,%d)</text>`+"\n", x(j)+rrCell/2, y(i)+rrCell-10, j, i)
		}
		// Arrows along the row's upper half, nested by distance, from
		// each thread to d[i][k].
		for j := range n {
			if j == k {
				continue
			}
			x0, x1 := x(j)+rrCell/2, x(k)+rrCell/2
			lift := 10 + 26*float64(abs(j-k))/float64(n)
			base := y(i) + rrCell/2 - 4
			x1 += 6 * sign(j-k)
			fmt.Fprintf(&sb, `<path class="reads" d="M%d,%d Q%.1f,%.1f %d,%d" fill="none" stroke="#333" stroke-width="1"/>`,
				x0, base, float64(x0+x1)/2, float64(base)-lift, x1, base)
			fmt.Fprintf(&sb, `<polygon points="%d,%d %d,%d %d,%d" fill="#333"/>`+"\n", x1, base, x1+5*sign(j-k), base-5, x1+6*sign(j-k), base+2)
		}
	}
	ly := rrTop + side + 14
	swatches := []string{blockedFWColors[2], "#cfe0f1", ""}
	for i, l := range lines {
		if swatches[i] != "" {
			fmt.Fprintf(&sb, `<rect class="key" x="%d" y="%d" width="14" height="14" fill="%s" stroke="#333"/>`, rrLeft, ly, swatches[i])
		} else {
			fmt.Fprintf(&sb, `<path class="key" d="M%d,%d Q%d,%d %d,%d" fill="none" stroke="#333"/>`, rrLeft, ly+12, rrLeft+7, ly, rrLeft+14, ly+12)
		}
		for m, line := range l {
			fmt.Fprintf(&sb, `<text class="key-label" x="%d" y="%d">%s</text>`+"\n", rrLeft+20, ly+12+15*m, html.EscapeString(line))
		}
		ly += rrLegend + 15*(len(l)-1)
	}
	sb.WriteString("</svg>")
	return sb.String(), nil
}

// heading names the view.
func (v *RowReadsView) heading() string {
	return fmt.Sprintf("one thread a cell, round k = %d of %d: thread (x, y) relaxes d[y][x] through d[y][%d] and d[%d][x]", v.k, v.n, v.k, v.k)
}

// abs is |x|.
func abs(x int) int { return max(x, -x) }

// sign is -1, 0 or 1 as x is negative, zero or positive.
func sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

// Text describes the reads row by row.
func (v *RowReadsView) Text() string {
	if v.err != nil {
		return "error: " + v.err.Error()
	}
	lines := []string{v.heading()}
	for i := range v.n {
		lines = append(lines, fmt.Sprintf("row %d: threads (0..%d, %d) all read d[%d][%d]", i, v.n-1, i, i, v.k))
	}
	return strings.Join(lines, "\n")
}

// MIMEBundle shows the drawing as SVG with its text form.
func (v *RowReadsView) MIMEBundle() (data, metadata map[string]any) {
	svg, err := v.SVG()
	if err != nil {
		return errorBundle(err).MIMEBundle()
	}
	return svgBundle(svg, v.Text()).Data, nil
}

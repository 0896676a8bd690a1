package display

import (
	"fmt"
	"html"
	"strings"

	"github.com/pathnotes/pathnotes/graph"
)

// CSRView draws a small graph's compact adjacency list, the arrays the
// GPU kernels read ([Musap 2016] §2.8, Figs. 2.9 and 2.10): the offsets V,
// whose entry V[i] is the index in E of vertex i's first arc, the targets
// E and the weights W, with an arrow from each V[i] to E[V[i]] and each
// vertex's arcs bracketed under its name, and beside them the adjacency
// list the arrays pack. Names sets the arrays' names, as a document
// writes them. Build one with CSR.
type CSRView struct {
	g               *graph.Graph
	title           string
	offs, tgts, wts string
	err             error
	withoutEnd      bool
}

// maxCSRArcs is the most arcs a CSR view draws: one box each.
const maxCSRArcs = 40

// CSR starts a drawing of g's compact adjacency list. g must have at most
// 40 arcs and 40 vertices.
func CSR(g *graph.Graph) *CSRView {
	v := &CSRView{g: g, offs: "V", tgts: "E", wts: "W"}
	switch {
	case g == nil:
		v.err = fmt.Errorf("display: CSR of a nil graph")
	case g.M() > maxCSRArcs || g.N() > maxCSRArcs:
		v.err = fmt.Errorf("display: CSR of %d vertices and %d arcs: at most %d of each (a box each)", g.N(), g.M(), maxCSRArcs)
	}
	return v
}

// Title sets a heading drawn above the arrays.
func (v *CSRView) Title(s string) *CSRView { v.title = s; return v }

// Names names the three arrays (V, E and W unless set), for example
// Names("V_a", "E_a", "W_a") as [Musap 2016] writes them.
func (v *CSRView) Names(offsets, targets, weights string) *CSRView {
	v.offs, v.tgts, v.wts = offsets, targets, weights
	return v
}

// WithoutEnd draws V with one entry a vertex, as [Musap 2016] §2.8 writes
// it, rather than with the n+1st entry that marks where the last vertex's
// arcs end (pathnotes' CSR, and most others, keep it).
func (v *CSRView) WithoutEnd() *CSRView { v.withoutEnd = true; return v }

// Err returns the first problem with the view, if any.
func (v *CSRView) Err() error {
	if v == nil {
		return fmt.Errorf("display: nil *CSRView")
	}
	return v.err
}

// Geometry of the CSR drawing, in pixels.
const (
	csrBox   = 30 // a box's side
	csrLeft  = 40 // room for the arrays' names
	csrRow   = 64 // from one array's row to the next
	csrTitle = 22
)

// offsets returns the offsets drawn: n+1, or n WithoutEnd.
func (v *CSRView) offsets() []int32 {
	o := v.g.Offsets()
	if v.withoutEnd {
		return o[:v.g.N()]
	}
	return o
}

// SVG draws the arrays: boxes <rect class="box"> with their values
// <text class="value"> and indices <text class="index">, the arrows
// <line class="points-to"> from V to E, and <text class="list"> lines of
// the adjacency list.
func (v *CSRView) SVG() (string, error) {
	if err := v.Err(); err != nil {
		return "", err
	}
	offs, tgts, wts := v.offsets(), v.g.Targets(), v.g.Weights()
	cols := max(len(offs), len(tgts), 1)
	listX := csrLeft + cols*csrBox + 30
	list := v.listLines()
	listW := 0.0
	for _, l := range list {
		listW = max(listW, svgTextWidth(l, 12, false))
	}
	w := listX + int(listW) + 12
	var title []string
	if v.title != "" {
		title = wrapSVGText(v.title, 13, true, float64(w-8))
	}
	top := 8 + csrTitle*len(title)
	h := top + 3*csrRow + 16
	h = max(h, top+20+18*len(list))
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" class="pathnotes-csr" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", w, h, w, h)
	fmt.Fprintf(&sb, `<rect width="100%%" height="100%%" fill="#ffffff"/>`+"\n")
	for i, line := range title {
		fmt.Fprintf(&sb, `<text class="title" x="4" y="%d" font-size="13" font-weight="bold">%s</text>`+"\n", 18+csrTitle*i, html.EscapeString(line))
	}
	rowY := func(r int) int { return top + 16 + r*csrRow } // top of array r's boxes
	boxX := func(i int) int { return csrLeft + i*csrBox }
	row := func(r int, name string, count int, label func(i int) string) {
		y := rowY(r)
		fmt.Fprintf(&sb, `<text class="array" x="%d" y="%d" text-anchor="end" font-weight="bold">%s</text>`+"\n", csrLeft-6, y+csrBox/2+4, html.EscapeString(name))
		for i := range count {
			fill := vertexShade(v.arcOwner(i))
			if r == 0 {
				fill = "#ffffff" // V[n], the end
				if i < v.g.N() {
					fill = vertexShade(i)
				}
			}
			fmt.Fprintf(&sb, `<rect class="box" x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#333"/>`, boxX(i), y, csrBox, csrBox, fill)
			fmt.Fprintf(&sb, `<text class="value" x="%d" y="%d" text-anchor="middle">%s</text>`, boxX(i)+csrBox/2, y+csrBox/2+4, html.EscapeString(label(i)))
			fmt.Fprintf(&sb, `<text class="index" x="%d" y="%d" text-anchor="middle" font-size="9" fill="#777">%d</text>`+"\n", boxX(i)+csrBox/2, y-3, i)
		}
	}
	row(0, v.offs, len(offs), func(i int) string { return fmt.Sprint(offs[i]) })
	row(1, v.tgts, len(tgts), func(i int) string { return v.g.Label(int(tgts[i])) })
	row(2, v.wts, len(wts), func(i int) string { return fmt.Sprint(wts[i]) })
	// Arrows from V[i] down to E[V[i]], for vertices with arcs.
	for i := range offs {
		if i >= v.g.N() || v.g.OutDegree(i) == 0 {
			continue
		}
		x0, y0 := boxX(i)+csrBox/2, rowY(0)+csrBox
		x1, y1 := boxX(int(offs[i]))+csrBox/2, rowY(1)-12
		fmt.Fprintf(&sb, `<line class="points-to" x1="%d" y1="%d" x2="%d" y2="%d" stroke="#555" stroke-width="1.2"/>`, x0, y0, x1, y1-5)
		fmt.Fprintf(&sb, `<polygon points="%d,%d %d,%d %d,%d" fill="#555"/>`+"\n", x1, y1, x1-4, y1-7, x1+4, y1-7)
	}
	// Each vertex's arcs bracketed under W with its name.
	for u := range v.g.N() {
		lo, hi := int(v.g.Offsets()[u]), int(v.g.Offsets()[u+1])
		if hi == lo {
			continue
		}
		y := rowY(2) + csrBox + 6
		fmt.Fprintf(&sb, `<path class="bracket" d="M%d,%d v5 H%d v-5" fill="none" stroke="#555"/>`, boxX(lo)+3, y, boxX(hi)-3)
		fmt.Fprintf(&sb, `<text class="owner" x="%d" y="%d" text-anchor="middle" font-size="11">%s</text>`+"\n",
			(boxX(lo)+boxX(hi))/2, y+17, html.EscapeString(v.g.Label(u)))
	}
	fmt.Fprintf(&sb, `<text class="list-heading" x="%d" y="%d" font-weight="bold">adjacency list</text>`+"\n", listX, top+14)
	for i, l := range list {
		fmt.Fprintf(&sb, `<text class="list" x="%d" y="%d">%s</text>`+"\n", listX, top+32+18*i, html.EscapeString(l))
	}
	sb.WriteString("</svg>")
	return sb.String(), nil
}

// csrShades tell the vertices' arcs apart in E and W.
var csrShades = []string{"#e8f1fa", "#fdebd9", "#e3f4ea", "#f6e4ef", "#fdf5d6", "#e9e9e9"}

// vertexShade is the fill of the arcs of vertex u (or white for -1).
func vertexShade(u int) string {
	if u < 0 {
		return "#ffffff"
	}
	return csrShades[u%len(csrShades)]
}

// arcOwner is the vertex whose arcs include arc i.
func (v *CSRView) arcOwner(i int) int {
	offs := v.g.Offsets()
	for u := range v.g.N() {
		if int(offs[u]) <= i && i < int(offs[u+1]) {
			return u
		}
	}
	return -1
}

// listLines is the adjacency list, a line a vertex: "a → b (5), c (9)".
func (v *CSRView) listLines() []string {
	lines := make([]string, v.g.N())
	for u := range v.g.N() {
		ts, ws := v.g.Out(u)
		parts := make([]string, len(ts))
		for k := range ts {
			parts[k] = fmt.Sprintf("%s (%d)", v.g.Label(int(ts[k])), ws[k])
		}
		lines[u] = v.g.Label(u) + " → " + strings.Join(parts, ", ")
		if len(ts) == 0 {
			lines[u] = v.g.Label(u) + " → (none)"
		}
	}
	return lines
}

// Text lists the three arrays and the adjacency list.
func (v *CSRView) Text() string {
	if err := v.Err(); err != nil {
		return "error: " + err.Error()
	}
	join := func(xs []string) string { return "[" + strings.Join(xs, " ") + "]" }
	var offs, tgts, wts []string
	for _, o := range v.offsets() {
		offs = append(offs, fmt.Sprint(o))
	}
	for k, t := range v.g.Targets() {
		tgts = append(tgts, v.g.Label(int(t)))
		wts = append(wts, fmt.Sprint(v.g.Weights()[k]))
	}
	lines := []string{}
	if v.title != "" {
		lines = append(lines, v.title)
	}
	lines = append(lines, v.offs+" = "+join(offs), v.tgts+" = "+join(tgts), v.wts+" = "+join(wts))
	return strings.Join(append(lines, v.listLines()...), "\n")
}

// MIMEBundle shows the drawing as SVG with its text form.
func (v *CSRView) MIMEBundle() (data, metadata map[string]any) {
	svg, err := v.SVG()
	if err != nil {
		return errorBundle(err).MIMEBundle()
	}
	return svgBundle(svg, v.Text()).Data, nil
}

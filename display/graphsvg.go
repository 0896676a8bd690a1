package display

import (
	"cmp"
	"fmt"
	"html"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/gonum/spatial/r2"

	"github.com/pathnotes/pathnotes/graph"
)

// Caption lines under the drawing: their height, left edge and font size.
const (
	noteHeight = 16
	noteX      = 6
	noteFont   = 11
)

// plateWidth is the width of one character of a weight, in ems, that the
// plate under a highlighted weight allows: the digits of DejaVu Sans, the
// widest of the fonts the drawing names, are 0.64 em.
const plateWidth = 0.64

// SVG returns the drawing as a standalone SVG document.
func (v *GraphView) SVG() (string, error) {
	if err := v.Err(); err != nil {
		return "", err
	}
	d, err := v.draw()
	if err != nil {
		return "", err
	}
	// Notes wrap at the drawing's width: SVG text does not, and a long path
	// or the tree's legend ran off the right edge of a small drawing.
	var noteLines []string
	for _, n := range d.notes {
		noteLines = append(noteLines, wrapSVGText(n, noteFont, false, d.w-2*noteX)...)
	}
	height := d.h + d.top + float64(len(noteLines))*noteHeight + 4
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="DejaVu Sans, Arial, sans-serif">`,
		d.w, height, d.w, height)
	fmt.Fprintf(&sb, `<rect width="100%%" height="100%%" fill="#ffffff"/>`)
	for i, line := range d.title {
		fmt.Fprintf(&sb, `<text class="title" x="%.1f" y="%d" text-anchor="middle" font-size="%d" font-weight="bold">%s</text>`,
			d.w/2, 18+titleLine*i, titleFont, html.EscapeString(line))
	}

	// Layers, bottom to top: plain arcs, highlighted arcs, weights,
	// vertices (a vertex label matters more than a weight it covers).
	present := make(map[[2]int]bool, len(d.arcs))
	for _, a := range d.arcs {
		present[[2]int{a.u, a.v}] = true
	}
	type weightLabel struct {
		at   r2.Vec
		text string
		kind arcKind
	}
	var labels []weightLabel
	strokes := d.strokes(present)
	shapes := make([]arcShape, len(strokes))
	drawn := make([]bool, len(strokes))
	for i, st := range strokes {
		shapes[i], drawn[i] = st.shape, st.ok
	}
	d.placeWeights(shapes, drawn)
	order := make([]int, len(strokes))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(strokes[a].kind, strokes[b].kind) })
	for _, i := range order {
		st := strokes[i]
		a := d.arcs[st.arc]
		geo, ok := shapes[i], drawn[i]
		if !ok {
			continue
		}
		color, strokeW, class := arcColor, 1.3, "arc"
		switch st.kind {
		case treeArc:
			color, strokeW, class = treeColor, 2.6, "arc tree"
		case pathArc:
			color, strokeW, class = pathColor, 3.2, "arc path"
		}
		text := weightsText(st.weights)
		arrow, head := "→", fmt.Sprintf(`<polygon points="%s" fill="%s"/>`, points(geo.arrow[:]), color)
		if a.twoWay {
			arrow = "↔"
			if st.kind == plainArc {
				head = ""
			}
		}
		fmt.Fprintf(&sb, `<g class="%s"><title>%s %s %s: %s</title><path d="%s" fill="none" stroke="%s" stroke-width="%.1f"/>%s</g>`,
			class, html.EscapeString(d.label(d.verts[a.u])), arrow, html.EscapeString(d.label(d.verts[a.v])), text,
			geo.path, color, strokeW, head)
		labels = append(labels, weightLabel{geo.label, text, st.kind})
	}

	if len(d.arcs) <= maxWeightLabels {
		size := d.font - 1
		for _, l := range labels {
			color := "#333333"
			switch l.kind {
			case treeArc:
				color = treeColor
			case pathArc:
				color = pathColor
			}
			if l.kind != plainArc {
				// The white halo keeps a weight readable over a thin grey
				// line, but on a thick line of its own colour the digits
				// melt into the line: a white plate under them does not.
				w, h := plateWidth*size*float64(utf8.RuneCountInString(l.text))+4, size+2
				fmt.Fprintf(&sb, `<rect class="plate" x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="2" fill="#ffffff"/>`,
					l.at.X-w/2, l.at.Y-h/2, w, h)
			}
			fmt.Fprintf(&sb, `<text class="weight" x="%.1f" y="%.1f" dy="0.35em" text-anchor="middle" font-size="%.0f" fill="%s" stroke="#ffffff" stroke-width="3" stroke-linejoin="round" paint-order="stroke">%s</text>`,
				l.at.X, l.at.Y, size, color, html.EscapeString(l.text))
		}
	}
	onPath := map[int]bool{}
	var ends [2]int
	if v.path != nil && len(v.path.Vertices) > 0 {
		for _, u := range v.path.Vertices {
			onPath[u] = true
		}
		ends = [2]int{v.path.Vertices[0], v.path.Vertices[len(v.path.Vertices)-1]}
	}
	for i, u := range d.verts {
		p := d.pos[i]
		fill, stroke, strokeW, textColor := vertexFill, vertexStroke, 1.5, "#000000"
		switch {
		case v.tree != nil && u == v.tree.Source:
			fill, stroke, strokeW = sourceFill, treeColor, 3
		case v.tree != nil && v.tree.Dist[u] == graph.Inf:
			fill, stroke, textColor = unreachedFill, unreachedText, unreachedText
		}
		if onPath[u] {
			fill, stroke = pathFill, pathColor
			if u == ends[0] || u == ends[1] {
				strokeW = 3
			}
		}
		fmt.Fprintf(&sb, `<g class="vertex"><title>%s (vertex %d): %d arcs out</title><circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s" stroke="%s" stroke-width="%.1f"/><text x="%.1f" y="%.1f" dy="0.35em" text-anchor="middle" font-size="%.0f" fill="%s">%s</text></g>`,
			html.EscapeString(d.label(u)), u, v.g.OutDegree(u), p.X, p.Y, d.radius, fill, stroke, strokeW,
			p.X, p.Y, d.font, textColor, html.EscapeString(d.label(u)))
	}
	if v.tree != nil {
		for i, u := range d.verts {
			at := r2.Add(d.pos[i], r2.Scale(d.radius+d.font*0.8, d.freeDirection(i)))
			fmt.Fprintf(&sb, `<text class="dist" x="%.1f" y="%.1f" dy="0.35em" text-anchor="middle" font-size="%.0f" font-weight="bold" fill="%s" stroke="#ffffff" stroke-width="3" paint-order="stroke">%s</text>`,
				at.X, at.Y, d.font-1, treeColor, graph.FormatDist(v.tree.Dist[u]))
		}
	}
	for i, line := range noteLines {
		fmt.Fprintf(&sb, `<text class="note" x="%d" y="%.1f" font-size="%d" fill="#555555">%s</text>`,
			noteX, d.top+d.h+float64(i+1)*noteHeight-4, noteFont, html.EscapeString(line))
	}
	sb.WriteString(`</svg>`)
	return sb.String(), nil
}

// maxLanes is the most parallel arcs drawn as curves of their own; more
// share one line, their weights listed on it.
const maxLanes = 3

// laneGap is the distance between the middles of two parallel arcs.
const laneGap = 22

// arcStroke is one line of the drawing: an arc, or one of parallel arcs
// (lane 0 the lightest, which a highlighted path takes), with its weights.
type arcStroke struct {
	arc     int
	weights []int32
	kind    arcKind
	shape   arcShape
	ok      bool
}

// strokes shapes the lines that draw the arcs: one per arc, bending right
// when the reverse arc is drawn too, and a curve each for up to maxLanes
// parallel arcs, spread apart. present holds the drawn (u, v) pairs.
func (d *drawing) strokes(present map[[2]int]bool) []arcStroke {
	var out []arcStroke
	for i, a := range d.arcs {
		bend := 0.0
		if a.u != a.v && present[[2]int{a.v, a.u}] && !a.twoWay {
			bend = d.reverseBend(a)
		}
		ws := slices.Sorted(slices.Values(a.weights))
		if len(ws) < 2 || len(ws) > maxLanes || a.u == a.v {
			shape, ok := d.arcGeometry(a, bend)
			out = append(out, arcStroke{i, a.weights, a.kind, shape, ok})
			continue
		}
		for lane, w := range ws {
			off := (float64(lane) - float64(len(ws)-1)/2) * laneGap
			if bend != 0 {
				off = bend + float64(lane)*laneGap
			}
			kind := a.kind
			if lane > 0 && kind == pathArc {
				kind = plainArc // a shortest path takes the lightest
			}
			shape, ok := d.arcGeometry(a, off)
			out = append(out, arcStroke{i, []int32{w}, kind, shape, ok})
		}
	}
	return out
}

// reverseBend is how far an arc bends to its right when its reverse is
// drawn too, so that the two do not overlap.
func (d *drawing) reverseBend(a drawnArc) float64 {
	span := r2.Norm(r2.Sub(d.pos[a.v], d.pos[a.u]))
	return min(max(0.09*span, 7), 20)
}

// arcShape is where one arc is drawn.
type arcShape struct {
	path  string    // SVG path data of the line, ending at the arrowhead's base
	arrow [3]r2.Vec // the arrowhead, its tip on the target's circle
	label r2.Vec    // where the weight goes
	// The line as a quadratic curve from start through ctrl to end (ctrl
	// halfway for a straight line), for placing weights; loops have none.
	start, ctrl, end r2.Vec
	loop             bool
}

// at is the point of a (non-loop) arc's line at t in [0, 1].
func (s arcShape) at(t float64) r2.Vec {
	a := r2.Scale((1-t)*(1-t), s.start)
	b := r2.Scale(2*t*(1-t), s.ctrl)
	return r2.Add(r2.Add(a, b), r2.Scale(t*t, s.end))
}

// weightSpots are where along its arc a weight may go, best first: the
// middle, then farther out, away from where other arcs cross it.
var weightSpots = []float64{0.5, 0.42, 0.58, 0.34, 0.66, 0.27, 0.73}

// placeWeights moves each weight along its arc, from the middle towards
// its ends, to the first spot that keeps clear of the other arcs' lines,
// the weights placed before it and the vertices: a weight on a crossing
// reads as the weight of either arc. Where no spot is clear it takes the
// clearest. Loops keep their weight beside the loop.
func (d *drawing) placeWeights(shapes []arcShape, drawn []bool) {
	const samples = 24
	clear := d.font * 0.9
	lines := make([][]r2.Vec, len(shapes))
	for i, sh := range shapes {
		if !drawn[i] || sh.loop {
			continue
		}
		for k := 0; k <= samples; k++ {
			lines[i] = append(lines[i], sh.at(float64(k)/samples))
		}
	}
	var placed []r2.Vec
	for i := range shapes {
		if !drawn[i] || shapes[i].loop {
			if drawn[i] {
				placed = append(placed, shapes[i].label)
			}
			continue
		}
		best, bestGap := shapes[i].label, -1.0
		for _, t := range weightSpots {
			p := shapes[i].at(t)
			gap := math.Inf(1)
			for j, line := range lines {
				if j != i && line != nil {
					gap = min(gap, distToPolyline(p, line))
				}
			}
			for _, q := range placed {
				gap = min(gap, r2.Norm(r2.Sub(p, q))-clear)
			}
			for _, q := range d.pos {
				gap = min(gap, r2.Norm(r2.Sub(p, q))-d.radius)
			}
			if gap >= clear {
				best = p
				break
			}
			if gap > bestGap {
				best, bestGap = p, gap
			}
		}
		shapes[i].label = best
		placed = append(placed, best)
	}
}

// distToPolyline is the distance from p to the nearest segment of line.
func distToPolyline(p r2.Vec, line []r2.Vec) float64 {
	best := math.Inf(1)
	for k := 1; k < len(line); k++ {
		a, b := line[k-1], line[k]
		ab := r2.Sub(b, a)
		t := 0.0
		if l2 := r2.Dot(ab, ab); l2 > 0 {
			t = min(1, max(0, r2.Dot(r2.Sub(p, a), ab)/l2))
		}
		best = min(best, r2.Norm(r2.Sub(p, r2.Add(a, r2.Scale(t, ab)))))
	}
	return best
}

// arcGeometry shapes arc a: a straight line, a curve whose middle lies
// bend pixels to its right (left when negative), or a loop on the freest
// side of its vertex. A plain two-way arc is a line from circle to circle
// (its arrowhead is not drawn). ok is false for vertices too close to
// draw an arc between.
func (d *drawing) arcGeometry(a drawnArc, bend float64) (arcShape, bool) {
	reverse := bend != 0
	arrowLen := max(6, d.radius*0.6)
	p, q := d.pos[a.u], d.pos[a.v]
	if a.u == a.v {
		return d.loopGeometry(a.u, arrowLen), true
	}
	span := r2.Norm(r2.Sub(q, p))
	if span < 2*d.radius+arrowLen {
		return arcShape{}, false
	}
	mid := r2.Scale(0.5, r2.Add(p, q))
	ctrl := mid
	if reverse {
		along := r2.Scale(1/span, r2.Sub(q, p))
		right := r2.Vec{X: -along.Y, Y: along.X}
		ctrl = r2.Add(mid, r2.Scale(2*bend, right)) // the curve's middle is halfway to its control point
	}
	start := r2.Add(p, r2.Scale(d.radius, unit(r2.Sub(ctrl, p))))
	back := unit(r2.Sub(ctrl, q)) // from the target back along the arc
	tip := r2.Add(q, r2.Scale(d.radius, back))
	end := tip
	if !a.twoWay || a.kind != plainArc {
		end = r2.Add(tip, r2.Scale(arrowLen*0.8, back)) // the line stops under the arrowhead
	}
	shape := arcShape{arrow: arrowHead(tip, r2.Scale(-1, back), arrowLen), start: start, ctrl: ctrl, end: end}
	if !reverse {
		shape.ctrl = r2.Scale(0.5, r2.Add(start, end))
	}
	if reverse {
		shape.path = fmt.Sprintf("M%.1f,%.1f Q%.1f,%.1f %.1f,%.1f", start.X, start.Y, ctrl.X, ctrl.Y, end.X, end.Y)
		// The quadratic's point at t=1/2 lies halfway to the control point.
		shape.label = r2.Scale(0.5, r2.Add(mid, ctrl))
	} else {
		shape.path = fmt.Sprintf("M%.1f,%.1f L%.1f,%.1f", start.X, start.Y, end.X, end.Y)
		shape.label = mid
	}
	return shape, true
}

// loopGeometry draws a self-loop on vertex i on its freest side.
func (d *drawing) loopGeometry(i int, arrowLen float64) arcShape {
	p := d.pos[i]
	out := d.freeDirection(i)
	rot := func(v r2.Vec, a float64) r2.Vec {
		s, c := math.Sincos(a)
		return r2.Vec{X: v.X*c - v.Y*s, Y: v.X*s + v.Y*c}
	}
	r := d.radius
	start := r2.Add(p, r2.Scale(r, rot(out, -0.5)))
	tip := r2.Add(p, r2.Scale(r, rot(out, 0.5)))
	c1 := r2.Add(p, r2.Scale(3.2*r, rot(out, -0.55)))
	c2 := r2.Add(p, r2.Scale(3.2*r, rot(out, 0.55)))
	back := unit(r2.Sub(c2, tip))
	end := r2.Add(tip, r2.Scale(arrowLen*0.8, back))
	return arcShape{
		path:  fmt.Sprintf("M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f", start.X, start.Y, c1.X, c1.Y, c2.X, c2.Y, end.X, end.Y),
		arrow: arrowHead(tip, r2.Scale(-1, back), arrowLen),
		label: r2.Add(p, r2.Scale(2.9*r+8, out)),
		loop:  true,
	}
}

// freeDirection returns the unit direction from vertex i that is farthest
// in angle from its arcs to other vertices: where a self-loop or a label
// next to the vertex covers nothing. Without such arcs it points away from
// the drawing's centre (up for the centre itself).
func (d *drawing) freeDirection(i int) r2.Vec {
	var angles []float64
	for _, a := range d.arcs {
		other := -1
		switch {
		case a.u == a.v:
		case a.u == i:
			other = a.v
		case a.v == i:
			other = a.u
		}
		if other >= 0 {
			off := r2.Sub(d.pos[other], d.pos[i])
			angles = append(angles, math.Atan2(off.Y, off.X))
		}
	}
	if len(angles) == 0 {
		centre := r2.Vec{X: d.w / 2, Y: d.top + d.h/2}
		if off := r2.Sub(d.pos[i], centre); r2.Norm(off) > 1e-9 {
			return unit(off)
		}
		return r2.Vec{X: 0, Y: -1}
	}
	// Try 16 directions, starting up-right, and keep the one whose
	// nearest arc is farthest away.
	const tries = 16
	best, bestGap := 0.0, -1.0
	for k := 0; k < tries; k++ {
		cand := -math.Pi/4 + 2*math.Pi*float64(k)/tries
		gap := math.Pi
		for _, a := range angles {
			diff := math.Abs(math.Remainder(cand-a, 2*math.Pi))
			gap = min(gap, diff)
		}
		if gap > bestGap+1e-9 {
			best, bestGap = cand, gap
		}
	}
	return r2.Vec{X: math.Cos(best), Y: math.Sin(best)}
}

// arrowHead returns the triangle with its tip at tip pointing along dir.
func arrowHead(tip, dir r2.Vec, length float64) [3]r2.Vec {
	base := r2.Sub(tip, r2.Scale(length, dir))
	side := r2.Scale(length*0.45, r2.Vec{X: -dir.Y, Y: dir.X})
	return [3]r2.Vec{tip, r2.Add(base, side), r2.Sub(base, side)}
}

// unit returns v scaled to length 1 (v itself when it is zero).
func unit(v r2.Vec) r2.Vec {
	n := r2.Norm(v)
	if n == 0 {
		return v
	}
	return r2.Scale(1/n, v)
}

// points writes an SVG points attribute.
func points(ps []r2.Vec) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprintf("%.1f,%.1f", p.X, p.Y)
	}
	return strings.Join(parts, " ")
}

// weightsText writes the weights of parallel arcs, lightest first.
func weightsText(ws []int32) string {
	sorted := slices.Sorted(slices.Values(ws))
	parts := make([]string, 0, 4)
	for i, w := range sorted {
		if i == 3 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, fmt.Sprint(w))
	}
	return strings.Join(parts, ",")
}

// Text returns the graph's one-line summary, its arcs (up to 40) and what
// the drawing highlights.
func (v *GraphView) Text() string {
	if err := v.Err(); err != nil {
		return "error: " + err.Error()
	}
	var sb strings.Builder
	if v.title != "" {
		sb.WriteString(v.title + "\n")
	}
	sb.WriteString(v.g.String() + "\n")
	arcs := v.g.Arcs()
	if len(arcs) > 0 {
		parts := make([]string, 0, min(len(arcs), maxTextArcs))
		for _, a := range arcs[:min(len(arcs), maxTextArcs)] {
			parts = append(parts, fmt.Sprintf("%s→%s %d", v.g.Label(a.From), v.g.Label(a.To), a.Weight))
		}
		for len(parts) > 0 {
			k := min(len(parts), 8)
			sb.WriteString("  " + strings.Join(parts[:k], ", ") + "\n")
			parts = parts[k:]
		}
		if len(arcs) > maxTextArcs {
			fmt.Fprintf(&sb, "  … %d more arcs\n", len(arcs)-maxTextArcs)
		}
	}
	if d, err := v.draw(); err == nil {
		for _, note := range d.notes {
			sb.WriteString(note + "\n")
		}
		sb.WriteString("layout: " + d.layout.String() + "\n")
	}
	if v.tree != nil {
		parts := make([]string, 0, min(v.g.N(), maxTextArcs))
		for u := 0; u < min(v.g.N(), maxTextArcs); u++ {
			via := ""
			if p := v.tree.Pred[u]; p != graph.Nil {
				via = " via " + v.g.Label(int(p))
			}
			parts = append(parts, fmt.Sprintf("%s %s%s", v.g.Label(u), graph.FormatDist(v.tree.Dist[u]), via))
		}
		sb.WriteString("distances: " + strings.Join(parts, ", ") + "\n")
	}
	return strings.TrimRight(sb.String(), "\n")
}

// MIMEBundle returns the SVG drawing and the text form; a sampled graph
// also gets HTML with the drawing beside a summary of the whole graph.
func (v *GraphView) MIMEBundle() (data, metadata map[string]any) {
	if err := v.Err(); err != nil {
		return errorBundle(err).MIMEBundle()
	}
	svg, err := v.SVG()
	if err != nil {
		return errorBundle(err).MIMEBundle()
	}
	data = svgBundle(svg, v.Text()).Data
	if v.rendered.sampled {
		text := Summary(v.g).Text() + "\n" + strings.Join(v.rendered.notes, "\n")
		rich, _ := Row(svgBundle(svg, text), Summary(v.g)).MIMEBundle()
		data[MIMEHTML] = rich[MIMEHTML]
		data[MIMEText] = text
	}
	return data, nil
}

package display

import (
	"fmt"
	"html"
	"strings"

	"github.com/pathnotes/pathnotes/graph"
)

// settledStyle marks the row of the vertex a Dijkstra step settles (and
// of the vertices a Bellman-Ford pass scanned).
const settledStyle = `;background:` + pivotColor + `;font-weight:bold`

// dijkstraShown returns the indices (0: the initial state, i: step i) of
// the states the stepper shows and whether some are left out: all of them
// while that is at most maxTraceCells table rows, else the first three and
// the last.
func (v *DijkstraTraceView) dijkstraShown() ([]int, bool) {
	total := len(v.t.Steps) + 1
	if total*v.t.N <= maxTraceCells || total <= 4 {
		idx := make([]int, total)
		for i := range idx {
			idx[i] = i
		}
		return idx, false
	}
	return []int{0, 1, 2, total - 1}, true
}

// state returns the distances and predecessors after step i (0: before the
// first step; predecessors nil there and where the trace has none).
func (v *DijkstraTraceView) state(i int) (dist, pred []int32) {
	if i == 0 {
		return v.t.Initial, nil
	}
	s := v.t.Steps[i-1]
	return s.Dist, s.Pred
}

// relaxed returns the vertices whose tentative distance step i lowered:
// the heads of the arcs from the settled vertex that the step relaxed
// successfully.
func (v *DijkstraTraceView) relaxed(i int) []int {
	if i == 0 {
		return nil
	}
	before, _ := v.state(i - 1)
	after, _ := v.state(i)
	var out []int
	for u := range after {
		if after[u] != before[u] {
			out = append(out, u)
		}
	}
	return out
}

// stepTitle describes state i: "initial" or "step 3: settle c (C = 4)".
func (v *DijkstraTraceView) stepTitle(i int) string {
	if i == 0 {
		return "initial: C = 0 at " + v.name(v.t.Source) + ", ∞ elsewhere"
	}
	s := v.t.Steps[i-1]
	return fmt.Sprintf("step %d: settle %s (C = %s)", i, v.name(s.Settled), graph.FormatDist(s.Dist[s.Settled]))
}

// stepLabel is the short form of stepTitle for the stepper's position line.
func (v *DijkstraTraceView) stepLabel(i int) string {
	if i == 0 {
		return "initial"
	}
	return "settle " + v.name(v.t.Steps[i-1].Settled)
}

// stepHTML shows state i as a table of vertices: the tentative distance C,
// the predecessor π (when the trace has them) and whether the vertex is
// settled. The vertex this step settles is shaded and bold, and the C and π
// cells its relaxed arcs changed are highlighted as matrices highlight
// changed cells; a line under the table lists those arcs.
func (v *DijkstraTraceView) stepHTML(i int) string {
	t := v.t
	vt := newVertexTable("state", t.N, i, v.state)
	settledBy := make([]int, t.N) // the step that settled each vertex; 0 for none yet
	for j := 1; j <= i; j++ {
		settledBy[t.Steps[j-1].Settled] = j
	}
	for u := range t.N {
		vt.names[u], vt.state[u] = v.name(u), "unsettled"
		switch {
		case settledBy[u] == i && i > 0:
			vt.shade[u], vt.state[u] = true, "settled now"
		case settledBy[u] > 0:
			vt.state[u] = fmt.Sprintf("settled (step %d)", settledBy[u])
		}
	}
	line := ""
	if i > 0 {
		s := t.Steps[i-1]
		var arcs []string
		for _, u := range v.relaxed(i) {
			arcs = append(arcs, fmt.Sprintf("%s→%s (C %s → %s)", v.name(s.Settled), v.name(u), graph.FormatDist(vt.prevDist[u]), graph.FormatDist(vt.dist[u])))
		}
		line = "relaxed arcs: none lowered a distance"
		if len(arcs) > 0 {
			line = "relaxed arcs: " + strings.Join(arcs, ", ")
		}
	}
	return vt.html(v.stepTitle(i), line)
}

// vertexTable is one state of a single-source run, shown as a table with
// a row per vertex: its distance C, its predecessor π and a state column.
type vertexTable struct {
	names              []string
	dist, pred         []int32  // pred nil: no π column
	prevDist, prevPred []int32  // the previous state; nil: nothing is highlighted
	stateCol           string   // the last column's header
	state              []string // the last column
	shade              []bool   // rows to shade and set in bold
}

// newVertexTable starts the table of state i of a trace of n vertices, with
// state i-1 (when i > 0) as the previous state; state returns a state's
// distances and predecessors. The names, state column and shading are the
// caller's to fill.
func newVertexTable(stateCol string, n, i int, state func(int) (dist, pred []int32)) vertexTable {
	vt := vertexTable{stateCol: stateCol, names: make([]string, n), state: make([]string, n), shade: make([]bool, n)}
	vt.dist, vt.pred = state(i)
	if i > 0 {
		vt.prevDist, vt.prevPred = state(i - 1)
	}
	return vt
}

// html writes the table under title, the cells that differ from the
// previous state highlighted, with line (if any) under it as the list of
// relaxed arcs.
func (vt vertexTable) html(title, line string) string {
	var sb strings.Builder
	sb.WriteString(`<div style="` + stepperTitleStyle + `">` + html.EscapeString(title) + `</div>`)
	sb.WriteString(`<table style="` + tableStyle + `"><tr>`)
	cols := []string{"vertex", "C", "π", vt.stateCol}
	if vt.pred == nil {
		cols = []string{"vertex", "C", vt.stateCol}
	}
	for _, c := range cols {
		sb.WriteString(`<th style="` + thStyle + `">` + html.EscapeString(c) + `</th>`)
	}
	sb.WriteString(`</tr>`)
	cellHTML := func(text string, changed bool, rowStyle string) string {
		if changed {
			return `<td class="changed" style="` + tdStyle + rowStyle + changedStyle + `">` + markChangedHTML(html.EscapeString(text)) + `</td>`
		}
		return `<td style="` + tdStyle + rowStyle + `">` + html.EscapeString(text) + `</td>`
	}
	predName := func(p int32) string {
		if p < 0 || int(p) >= len(vt.names) {
			return "NIL"
		}
		return vt.names[p]
	}
	for u, name := range vt.names {
		rowStyle := ""
		if vt.shade[u] {
			rowStyle = settledStyle
		}
		fmt.Fprintf(&sb, `<tr class="pn-vertex" data-vertex="%d"><th style="%s">%s</th>`, u, thStyle+rowStyle, html.EscapeString(name))
		sb.WriteString(cellHTML(graph.FormatDist(vt.dist[u]), vt.prevDist != nil && vt.dist[u] != vt.prevDist[u], rowStyle))
		if vt.pred != nil {
			sb.WriteString(cellHTML(predName(vt.pred[u]), vt.prevPred != nil && vt.pred[u] != vt.prevPred[u], rowStyle))
		}
		sb.WriteString(`<td style="` + tdStyle + rowStyle + `;text-align:left">` + html.EscapeString(vt.state[u]) + `</td></tr>`)
	}
	sb.WriteString(`</table>`)
	if line != "" {
		sb.WriteString(`<div class="pn-relaxed" style="` + noteStyle + `">` + html.EscapeString(line) + `</div>`)
	}
	return sb.String()
}

// stepperHTML shows the sequential form as a stepper, one state per step.
func (v *DijkstraTraceView) stepperHTML() string {
	idx, partial := v.dijkstraShown()
	panels := make([]stepPanel, 0, len(idx))
	for _, i := range idx {
		panels = append(panels, stepPanel{label: v.stepLabel(i), html: v.stepHTML(i)})
	}
	notes := []string{"shaded: the vertex the step settles; highlighted: the distances (and predecessors) its relaxed arcs lowered"}
	if partial {
		notes = append(notes, fmt.Sprintf("showing %d of %d states (n=%d is too large to show every step; the text form lists them all)",
			len(idx), len(v.t.Steps)+1, v.t.N))
	}
	title := "Dijkstra from " + v.name(v.t.Source) + ", step by step"
	if v.t.Solver != "" {
		title += " (" + v.t.Solver + ")"
	}
	return stepperHTML(title, panels, notes, "the text form lists every step")
}

package display

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pathnotes/pathnotes/graph"
)

// BFTraceView shows a Bellman-Ford trace pass by pass: a stepper whose
// steps are the initial state and the state after each pass, with the
// vertices the pass scanned shaded, the distances and predecessors it
// lowered highlighted and its relaxed arcs listed; in text, one table row
// per pass.
//
//	var tr graph.BFTrace
//	cpu.BellmanFord(Ctx(), g, 0, cpu.BFOptions{Trace: &tr})
//	display.BFTrace(&tr)
type BFTraceView struct {
	t   *graph.BFTrace
	err error
}

// BFTrace starts a view of t.
func BFTrace(t *graph.BFTrace) *BFTraceView {
	v := &BFTraceView{t: t}
	v.err = checkBFTrace(t)
	return v
}

// checkBFTrace returns the first inconsistency in t's shapes.
func checkBFTrace(t *graph.BFTrace) error {
	if t == nil {
		return fmt.Errorf("display: BFTrace of a nil trace")
	}
	if err := checkSourceTrace("BFTrace", t.N, t.Source, t.Labels, t.Initial); err != nil {
		return err
	}
	inRange := func(u int) bool { return u >= 0 && u < t.N }
	for i, p := range t.Passes {
		if len(p.Dist) != t.N || (p.Pred != nil && len(p.Pred) != t.N) {
			return fmt.Errorf("display: BFTrace: pass %d has %d distances and %d predecessors (n=%d)", i+1, len(p.Dist), len(p.Pred), t.N)
		}
		for _, u := range p.Scanned {
			if !inRange(u) {
				return fmt.Errorf("display: BFTrace: pass %d scans vertex %d (n=%d)", i+1, u, t.N)
			}
		}
		for _, a := range p.Relaxed {
			if !inRange(a[0]) || !inRange(a[1]) {
				return fmt.Errorf("display: BFTrace: pass %d relaxes arc %d→%d (n=%d)", i+1, a[0], a[1], t.N)
			}
		}
	}
	for _, u := range t.NegativeCycle {
		if !inRange(u) {
			return fmt.Errorf("display: BFTrace: the negative cycle names vertex %d (n=%d)", u, t.N)
		}
	}
	return nil
}

// Err returns the problem with the trace, if any.
func (v *BFTraceView) Err() error {
	if v == nil {
		return fmt.Errorf("display: nil *BFTraceView")
	}
	return v.err
}

func (v *BFTraceView) name(u int) string {
	if u < len(v.t.Labels) {
		return v.t.Labels[u]
	}
	return strconv.Itoa(u)
}

// names writes vertices as "a, b", or "none".
func (v *BFTraceView) names(vs []int) string {
	if len(vs) == 0 {
		return "none"
	}
	parts := make([]string, len(vs))
	for i, u := range vs {
		parts[i] = v.name(u)
	}
	return strings.Join(parts, ", ")
}

// arcs writes arcs as "s→a, a→b", or "none".
func (v *BFTraceView) arcs(as [][2]int) string {
	if len(as) == 0 {
		return "none"
	}
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = v.name(a[0]) + "→" + v.name(a[1])
	}
	return strings.Join(parts, ", ")
}

// state returns the distances and predecessors after pass i (0: before the
// first pass, without predecessors).
func (v *BFTraceView) state(i int) (dist, pred []int32) {
	if i == 0 {
		return v.t.Initial, nil
	}
	p := v.t.Passes[i-1]
	return p.Dist, p.Pred
}

// cycle writes the negative cycle as "a→b→c→a" ("" when there is none).
func (v *BFTraceView) cycle() string {
	c := v.t.NegativeCycle
	if len(c) == 0 {
		return ""
	}
	parts := make([]string, 0, len(c)+1)
	for _, u := range c {
		parts = append(parts, v.name(u))
	}
	return strings.Join(append(parts, v.name(c[0])), "→")
}

// title names the run.
func (v *BFTraceView) title() string {
	title := "Bellman-Ford from " + v.name(v.t.Source)
	if v.t.Solver != "" {
		title += " (" + v.t.Solver + ")"
	}
	return title
}

// Table returns the passes as a table: one row per pass with the vertices
// it scanned, the distances C after it (one column per vertex up to 10
// vertices, else one vector) and the arcs it relaxed.
func (v *BFTraceView) Table() *Table {
	if err := v.Err(); err != nil {
		return NewTable("Bellman-Ford trace", "pass").fail(err)
	}
	t := v.t
	perVertex := t.N <= 10
	cols := []string{"pass", "scanned"}
	if perVertex {
		for u := 0; u < t.N; u++ {
			cols = append(cols, "C["+v.name(u)+"]")
		}
	} else {
		cols = append(cols, "C")
	}
	cols = append(cols, "relaxed arcs")
	dists := func(d []int32) []any {
		if !perVertex {
			return []any{vector(d)}
		}
		cells := make([]any, len(d))
		for i, x := range d {
			cells[i] = x
		}
		return cells
	}
	tab := NewTable(v.title(), cols...)
	tab.Add(append(append([]any{"init", "–"}, dists(t.Initial)...), "–")...)
	for i, p := range t.Passes {
		tab.Add(append(append([]any{i + 1, v.names(p.Scanned)}, dists(p.Dist)...), v.arcs(p.Relaxed))...)
	}
	if c := v.cycle(); c != "" {
		tab.Note("stopped on the negative cycle " + c)
	} else {
		tab.Note(fmt.Sprintf("%d passes; the last relaxes nothing", len(t.Passes)))
	}
	return tab.Limit(len(t.Passes) + 1)
}

// passHTML shows the state after pass i (0: the initial state).
func (v *BFTraceView) passHTML(i int) string {
	t := v.t
	vt := newVertexTable("scanned", t.N, i, v.state)
	if i > 0 && vt.prevPred == nil && vt.pred != nil {
		vt.prevPred = make([]int32, t.N)
		for u := range vt.prevPred {
			vt.prevPred[u] = graph.Nil
		}
	}
	for u := range t.N {
		vt.names[u] = v.name(u)
	}
	title := "initial: C = 0 at " + v.name(t.Source) + ", ∞ elsewhere"
	line := ""
	if i > 0 {
		p := t.Passes[i-1]
		for _, u := range p.Scanned {
			vt.shade[u], vt.state[u] = true, "scanned"
		}
		title = fmt.Sprintf("pass %d: scan %s", i, v.names(p.Scanned))
		line = "relaxed arcs: " + v.arcs(p.Relaxed)
		if len(p.Relaxed) == 0 {
			line = "relaxed arcs: none lowered a distance"
		}
	}
	return vt.html(title, line)
}

// MIMEBundle shows the passes as a stepper (a slider and previous/next
// buttons; see the package doc) and, in text, as Table.
func (v *BFTraceView) MIMEBundle() (data, metadata map[string]any) {
	if err := v.Err(); err != nil {
		return errorBundle(err).MIMEBundle()
	}
	total := len(v.t.Passes) + 1
	idx := []int{0, 1, 2, total - 1}
	partial := total*v.t.N > maxTraceCells && total > 4
	if !partial {
		idx = idx[:0]
		for i := range total {
			idx = append(idx, i)
		}
	}
	panels := make([]stepPanel, 0, len(idx))
	for _, i := range idx {
		label := "initial"
		if i > 0 {
			label = fmt.Sprintf("pass %d", i)
		}
		panels = append(panels, stepPanel{label: label, html: v.passHTML(i)})
	}
	notes := []string{"shaded: the vertices the pass scanned; highlighted: the distances and predecessors it lowered"}
	if c := v.cycle(); c != "" {
		notes = append(notes, "stopped on the negative cycle "+c)
	}
	if partial {
		notes = append(notes, fmt.Sprintf("showing %d of %d states (too many to show each; the text form lists them all)", len(idx), total))
	}
	text, _ := v.Table().MIMEBundle()
	return map[string]any{MIMEHTML: stepperHTML(v.title()+", pass by pass", panels, notes, "the text form lists every pass"), MIMEText: text[MIMEText]}, nil
}

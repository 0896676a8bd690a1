package display

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pathnotes/pathnotes/graph"
)

// maxTraceCells bounds how many matrix cells a whole-trace view shows
// (steps × n²) before it shows only the first and last steps.
const maxTraceCells = 20000

// failed is a view that could not be built: it shows its error.
type failed struct{ err error }

// MIMEBundle shows the error.
func (f failed) MIMEBundle() (data, metadata map[string]any) { return errorBundle(f.err).MIMEBundle() }

// Err returns the error.
func (f failed) Err() error { return f.err }

// FWTraceView shows a Floyd-Warshall trace step by step, with a slider and
// previous/next buttons: D and Π side by side after every step, the cells
// each step changed highlighted and the pivot row and column shaded. For the
// plain algorithm a step is one k (D⁽ᵏ⁾, Π⁽ᵏ⁾ as [Karaula 2017] prints them);
// for the blocked algorithm it is one phase of one round, with the primary
// tile framed and the tiles the phase updated shaded.
//
//	display.FWTrace(tr).OneBased()   // Π numbered from 1, as in the thesis
type FWTraceView struct {
	t        *graph.FWTrace
	oneBased bool
	from, to int // steps shown, inclusive; to < 0 means automatic
	err      error
}

// FWTrace starts a view of t.
func FWTrace(t *graph.FWTrace) *FWTraceView {
	v := &FWTraceView{t: t, to: -1}
	v.err = checkFWTrace(t)
	return v
}

// checkFWTrace returns the first inconsistency in t's shapes.
func checkFWTrace(t *graph.FWTrace) error {
	if t == nil {
		return fmt.Errorf("display: FWTrace of a nil trace")
	}
	if len(t.Steps) == 0 {
		return fmt.Errorf("display: FWTrace: the trace has no steps")
	}
	if t.Labels != nil && len(t.Labels) != t.N {
		return fmt.Errorf("display: FWTrace: %d labels for n=%d", len(t.Labels), t.N)
	}
	for i, s := range t.Steps {
		if len(s.Dist) != t.N*t.N {
			return fmt.Errorf("display: FWTrace: step %d (%s) has %d distances, want %d×%d", i, s.Title(), len(s.Dist), t.N, t.N)
		}
		if s.Pred != nil && len(s.Pred) != t.N*t.N {
			return fmt.Errorf("display: FWTrace: step %d (%s) has %d predecessors, want %d×%d", i, s.Title(), len(s.Pred), t.N, t.N)
		}
		if s.Round >= 0 && t.Tile <= 0 {
			return fmt.Errorf("display: FWTrace: step %d is round %d of a blocked run, but the trace has tile %d", i, s.Round, t.Tile)
		}
	}
	return nil
}

// Err returns the problem with the trace or the options, if any.
func (v *FWTraceView) Err() error {
	if v == nil {
		return fmt.Errorf("display: nil *FWTraceView")
	}
	return v.err
}

// OneBased numbers predecessors (and unlabelled headers) from 1 with NIL,
// as [Karaula 2017] prints Π.
func (v *FWTraceView) OneBased() *FWTraceView { v.oneBased = true; return v }

// Steps shows only steps from..to (inclusive indices into the trace's
// Steps; 0 is the initial state). Without it a trace shows every step when
// that is at most 20000 cells, else its first three and last steps; the
// HTML does the same beyond about 1 MB.
func (v *FWTraceView) Steps(from, to int) *FWTraceView {
	if v.err != nil {
		return v
	}
	if from < 0 || to < from || to >= len(v.t.Steps) {
		v.err = fmt.Errorf("display: FWTrace.Steps(%d, %d): want 0 ≤ from ≤ to ≤ %d", from, to, len(v.t.Steps)-1)
		return v
	}
	v.from, v.to = from, to
	return v
}

// Step shows step i alone: D and Π with the cells changed since step i-1
// highlighted.
func (v *FWTraceView) Step(i int) Renderer {
	if v.err != nil {
		return failed{v.err}
	}
	if i < 0 || i >= len(v.t.Steps) {
		return failed{fmt.Errorf("display: FWTrace.Step(%d): the trace has steps 0..%d", i, len(v.t.Steps)-1)}
	}
	return v.step(i)
}

// step builds the view of step i.
func (v *FWTraceView) step(i int) *Group {
	t, s := v.t, v.t.Steps[i]
	symbolD, symbolP := "D", "Π"
	if s.Round < 0 {
		symbolD, symbolP = "D"+superscript(s.K), "Π"+superscript(s.K)
	}
	d := NewMatrix(symbolD, t.N, s.Dist, DistanceCells).Labels(t.Labels...)
	d.noHeatmap = true
	items := []Renderer{d}
	var p *Matrix
	if s.Pred != nil {
		p = NewMatrix(symbolP, t.N, s.Pred, PredecessorCells).Labels(t.Labels...)
		p.noHeatmap = true
		if v.oneBased {
			p.OneBased()
			d.OneBased()
		}
		items = append(items, p)
	}
	if i > 0 {
		prev := t.Steps[i-1]
		d.Since(prev.Dist)
		if p != nil && prev.Pred != nil {
			p.Since(prev.Pred)
		}
	}
	var notes []string
	if s.Round < 0 && s.K > 0 && s.K <= t.N {
		k := s.K - 1 // D⁽ᵏ⁾ lets paths pass through vertex k (1-based)
		for _, m := range []*Matrix{d, p} {
			if m != nil {
				m.markTile(k, k+1, 0, t.N, markPivot)
				m.markTile(0, t.N, k, k+1, markPivot)
			}
		}
		notes = append(notes, "pivot row and column "+v.span(k, k+1))
	}
	if s.Round >= 0 {
		lo, hi := s.Round*t.Tile, min((s.Round+1)*t.Tile, t.N)
		notes = append(notes, fmt.Sprintf("primary tile %d (%s)", s.Round, v.span(lo, hi)))
		var tiles []string
		for _, m := range []*Matrix{d, p} {
			if m == nil {
				continue
			}
			m.markTile(lo, hi, lo, hi, markPrimary)
			for _, u := range s.Updated {
				m.markTile(u[0]*t.Tile, (u[0]+1)*t.Tile, u[1]*t.Tile, (u[1]+1)*t.Tile, markShaded)
			}
		}
		for _, u := range s.Updated {
			tiles = append(tiles, fmt.Sprintf("(%d,%d)", u[0], u[1]))
		}
		if len(tiles) > 0 {
			notes = append(notes, "updated tiles "+strings.Join(tiles, " "))
		}
	}
	if i > 0 && d.Changed() == 0 && (p == nil || p.Changed() == 0) {
		notes = append(notes, "unchanged")
	}
	title := s.Title()
	if len(notes) > 0 {
		title += ": " + strings.Join(notes, "; ")
	}
	return Row(items...).Title(title)
}

// span names the vertices lo..hi-1 ("c–d").
func (v *FWTraceView) span(lo, hi int) string {
	name := func(u int) string {
		if u < len(v.t.Labels) {
			return v.t.Labels[u]
		}
		if v.oneBased {
			return strconv.Itoa(u + 1)
		}
		return strconv.Itoa(u)
	}
	if hi-lo <= 1 {
		return name(lo)
	}
	return name(lo) + "–" + name(hi-1)
}

// shownSteps returns the indices of the steps the whole view shows and
// whether some are left out.
func (v *FWTraceView) shownSteps() ([]int, bool) {
	n := len(v.t.Steps)
	if v.to >= 0 {
		var idx []int
		for i := v.from; i <= v.to; i++ {
			idx = append(idx, i)
		}
		return idx, v.to-v.from+1 < n
	}
	if n*v.t.N*v.t.N <= maxTraceCells || n <= 4 {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx, false
	}
	return []int{0, 1, 2, n - 1}, true
}

// MIMEBundle shows the chosen steps as a stepper: a slider and
// previous/next buttons step through them, showing D and Π with the cells
// that step changed highlighted and, for the plain algorithm, the pivot
// row and column k shaded (see the package doc for how it behaves where
// scripts do not run). The text form lists the steps one below the other.
func (v *FWTraceView) MIMEBundle() (data, metadata map[string]any) {
	if err := v.Err(); err != nil {
		return errorBundle(err).MIMEBundle()
	}
	idx, partial := v.shownSteps()
	items := make([]Renderer, 0, len(idx)+1)
	panels := make([]stepPanel, 0, len(idx))
	for _, i := range idx {
		g := v.step(i)
		items = append(items, g)
		d, _ := g.MIMEBundle()
		panels = append(panels, stepPanel{label: v.t.Steps[i].Title(), html: d[MIMEHTML].(string)})
	}
	notes := []string{"highlighted: cells changed by the step (also marked * in text)"}
	if v.t.Tile > 0 {
		notes[0] += "; framed: the primary tile; shaded: the tiles the phase updated"
	} else {
		notes[0] += "; shaded: the pivot row and column k"
	}
	if partial {
		msg := fmt.Sprintf("showing %d of %d steps (choose others with Steps(from, to) or Step(i))", len(idx), len(v.t.Steps))
		items = append(items, note(msg))
		notes = append(notes, msg)
	}
	title := "Floyd-Warshall trace"
	if v.t.Solver != "" {
		title += " (" + v.t.Solver + ")"
	}
	title += fmt.Sprintf(", n=%d", v.t.N)
	if v.t.Tile > 0 {
		title += fmt.Sprintf(", tile %d", v.t.Tile)
	}
	text, _ := Column(items...).Title(title).MIMEBundle()
	return map[string]any{MIMEHTML: stepperHTML(title, panels, notes, "choose others with Steps(from, to) or Step(i)"), MIMEText: text[MIMEText]}, nil
}

// superscript writes "⁽ᵏ⁾" for k in superscript digits.
func superscript(k int) string {
	const digits = "⁰¹²³⁴⁵⁶⁷⁸⁹"
	sup := []rune(digits)
	var sb strings.Builder
	sb.WriteString("⁽")
	for _, c := range strconv.Itoa(k) {
		sb.WriteRune(sup[c-'0'])
	}
	sb.WriteString("⁾")
	return sb.String()
}

// DijkstraTraceView shows a single-source trace as the two tables of
// [Musap 2016] §2.5: the sequential settle order with the distances C after each
// step, and the frontier iterations (F before relaxing, C after, the
// minimum mssp, F and U after the update). In HTML the settle order is a
// stepper: a slider and previous/next buttons move through the steps.
type DijkstraTraceView struct {
	t   *graph.DijkstraTrace
	err error
}

// DijkstraTrace starts a view of t.
func DijkstraTrace(t *graph.DijkstraTrace) *DijkstraTraceView {
	v := &DijkstraTraceView{t: t}
	v.err = checkDijkstraTrace(t)
	return v
}

// checkDijkstraTrace returns the first inconsistency in t's shapes.
func checkDijkstraTrace(t *graph.DijkstraTrace) error {
	if t == nil {
		return fmt.Errorf("display: DijkstraTrace of a nil trace")
	}
	if err := checkSourceTrace("DijkstraTrace", t.N, t.Source, t.Labels, t.Initial); err != nil {
		return err
	}
	for i, s := range t.Steps {
		if len(s.Dist) != t.N || s.Settled < 0 || s.Settled >= t.N {
			return fmt.Errorf("display: DijkstraTrace: step %d settles vertex %d with %d distances (n=%d)", i+1, s.Settled, len(s.Dist), t.N)
		}
	}
	for i, f := range t.Frontier {
		if len(f.Dist) != t.N {
			return fmt.Errorf("display: DijkstraTrace: frontier iteration %d has %d distances (n=%d)", i+1, len(f.Dist), t.N)
		}
		for _, list := range [][]int{f.Frontier, f.Next, f.Unsettled} {
			for _, u := range list {
				if u < 0 || u >= t.N {
					return fmt.Errorf("display: DijkstraTrace: frontier iteration %d names vertex %d (n=%d)", i+1, u, t.N)
				}
			}
		}
	}
	return nil
}

// checkSourceTrace checks the fields that every single-source trace has
// (graph.DijkstraTrace and graph.BFTrace): the source, the labels and the
// initial distances of n vertices; kind names the trace in the messages.
func checkSourceTrace(kind string, n, source int, labels []string, initial []int32) error {
	if source < 0 || source >= n {
		return fmt.Errorf("display: %s: source %d out of range 0..%d", kind, source, n-1)
	}
	if labels != nil && len(labels) != n {
		return fmt.Errorf("display: %s: %d labels for n=%d", kind, len(labels), n)
	}
	if len(initial) != n {
		return fmt.Errorf("display: %s: %d initial distances for n=%d", kind, len(initial), n)
	}
	return nil
}

// Err returns the problem with the trace, if any.
func (v *DijkstraTraceView) Err() error {
	if v == nil {
		return fmt.Errorf("display: nil *DijkstraTraceView")
	}
	return v.err
}

func (v *DijkstraTraceView) name(u int) string {
	if u >= 0 && u < len(v.t.Labels) {
		return v.t.Labels[u]
	}
	return strconv.Itoa(u)
}

// set writes vertices as "{a,b}", or "∅".
func (v *DijkstraTraceView) set(vs []int) string {
	if len(vs) == 0 {
		return "∅"
	}
	parts := make([]string, len(vs))
	for i, u := range vs {
		parts[i] = v.name(u)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// vector writes distances as "[0,2,7,∞,∞]".
func vector(d []int32) string {
	parts := make([]string, len(d))
	for i, x := range d {
		parts[i] = graph.FormatDist(x)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// perVertex reports whether distances get one column per vertex (small
// graphs, as [Musap 2016] prints them) rather than one vector column.
func (v *DijkstraTraceView) perVertex() bool { return v.t.N <= 10 }

// distCells returns the distance cells of one row.
func (v *DijkstraTraceView) distCells(d []int32) []any {
	if !v.perVertex() {
		return []any{vector(d)}
	}
	cells := make([]any, len(d))
	for i, x := range d {
		cells[i] = x
	}
	return cells
}

// Sequential returns the settle-order table: one row per settled vertex,
// the distances after its arcs were relaxed and the unsettled set U.
func (v *DijkstraTraceView) Sequential() *Table {
	if err := v.Err(); err != nil {
		return NewTable("Dijkstra trace", "step").fail(err)
	}
	t := v.t
	cols := []string{"step", "settled"}
	if v.perVertex() {
		for u := 0; u < t.N; u++ {
			cols = append(cols, "C["+v.name(u)+"]")
		}
	} else {
		cols = append(cols, "C")
	}
	cols = append(cols, "U after the step")
	title := "Dijkstra from " + v.name(t.Source) + ", sequential"
	if t.Solver != "" {
		title += " (" + t.Solver + ")"
	}
	tab := NewTable(title, cols...)
	unsettled := make([]bool, t.N)
	for i := range unsettled {
		unsettled[i] = true
	}
	remaining := func() string {
		var us []int
		for u, in := range unsettled {
			if in {
				us = append(us, u)
			}
		}
		return v.set(us)
	}
	tab.Add(append(append([]any{"init", "–"}, v.distCells(t.Initial)...), remaining())...)
	for i, s := range t.Steps {
		unsettled[s.Settled] = false
		tab.Add(append(append([]any{i + 1, v.name(s.Settled)}, v.distCells(s.Dist)...), remaining())...)
	}
	tab.Note("settle order: " + strings.Join(v.names(t.SettleOrder()), ", "))
	return tab.Limit(max(len(t.Steps)+1, 1))
}

func (v *DijkstraTraceView) names(vs []int) []string {
	out := make([]string, len(vs))
	for i, u := range vs {
		out[i] = v.name(u)
	}
	return out
}

// FrontierTable returns the frontier-iteration table of Musap's parallel
// form: F before the relax, C after it, the minimum mssp over unsettled
// vertices, and F and U after the update.
func (v *DijkstraTraceView) FrontierTable() *Table {
	if err := v.Err(); err != nil {
		return NewTable("Dijkstra trace", "iteration").fail(err)
	}
	t := v.t
	title := "Dijkstra from " + v.name(t.Source) + ", frontier iterations"
	tab := NewTable(title, "iteration", "F before relax", "C after relax", "mssp", "F after update", "U after update")
	var rest []int
	for u := 0; u < t.N; u++ {
		if u != t.Source {
			rest = append(rest, u)
		}
	}
	tab.Add("(init)", "–", vector(t.Initial), "–", v.set([]int{t.Source}), v.set(rest))
	for i, f := range t.Frontier {
		tab.Add(i+1, v.set(f.Frontier), vector(f.Dist), f.Min, v.set(f.Next), v.set(f.Unsettled))
	}
	tab.Note(fmt.Sprintf("%d while-iterations for %d settled vertices", len(t.Frontier), len(t.Steps)))
	return tab.Limit(max(len(t.Frontier)+1, 1))
}

// MIMEBundle shows the sequential form as a stepper (a slider and
// previous/next buttons move through the settle order, showing C and π
// after each step with the settled vertex and the distances its arcs
// lowered highlighted) and the frontier table under it. The text form is
// both tables, one below the other; a form the trace did not record is
// left out.
func (v *DijkstraTraceView) MIMEBundle() (data, metadata map[string]any) {
	if err := v.Err(); err != nil {
		return errorBundle(err).MIMEBundle()
	}
	var items []Renderer
	var parts []string
	if len(v.t.Steps) > 0 {
		items = append(items, v.Sequential())
		parts = append(parts, v.stepperHTML())
	}
	if len(v.t.Frontier) > 0 {
		f := v.FrontierTable()
		items = append(items, f)
		d, _ := f.MIMEBundle()
		parts = append(parts, richHTML(d))
	}
	if len(items) == 0 {
		return Text(fmt.Sprintf("Dijkstra trace from %s: no steps recorded", v.name(v.t.Source))).MIMEBundle()
	}
	text, _ := Column(items...).MIMEBundle()
	return map[string]any{MIMEHTML: strings.Join(parts, `<div style="height:8px"></div>`), MIMEText: text[MIMEText]}, nil
}

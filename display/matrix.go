package display

import (
	"fmt"
	"html"
	"strconv"
	"strings"

	"github.com/pathnotes/pathnotes/graph"
)

// CellKind says what the numbers of a Matrix mean, which decides how they
// are written.
type CellKind int

const (
	// DistanceCells are distances or weights: graph.Inf shows as ∞.
	DistanceCells CellKind = iota
	// PredecessorCells are vertex numbers: graph.Nil shows as NIL, other
	// values as the vertex's label (or number, see OneBased).
	PredecessorCells
)

// DefaultLimit is how many rows and columns a Matrix shows before it
// truncates (see Limit).
const DefaultLimit = 20

// cellMark flags draw attention to cells.
type cellMark uint8

const (
	markChanged cellMark = 1 << iota // value differs from the previous matrix
	markPrimary                      // in a blocked trace's primary (diagonal) tile
	markShaded                       // in a tile the current phase updates
	markPivot                        // in the pivot row or column of a Floyd-Warshall step
)

// Matrix shows an n×n distance, weight or predecessor matrix as an HTML
// table with vertex labels and as aligned text; large matrices are
// truncated to their first rows and columns and come with a heatmap.
//
// Build one with DistMatrix, PredMatrix, WeightMatrix or NewMatrix, then
// chain options:
//
//	display.PredMatrix(r).OneBased().Since(prev.Pred)
type Matrix struct {
	title    string
	n        int
	cells    []int32
	kind     CellKind
	labels   []string
	marks    []cellMark // nil when nothing is marked
	oneBased bool
	limit    int
	caption  string
	// noHeatmap leaves the heatmap out of a truncated matrix's bundle
	// (trace steps, where one picture per step would swamp the page).
	noHeatmap bool
	err       error
}

// NewMatrix shows the row-major n×n matrix cells, read as kind. The slice
// is kept, not copied: change it only after the matrix has been shown.
func NewMatrix(title string, n int, cells []int32, kind CellKind) *Matrix {
	m := &Matrix{title: title, n: n, cells: cells, kind: kind, limit: DefaultLimit}
	switch {
	case n < 0:
		m.fail(fmt.Errorf("display: matrix %q: negative size %d", title, n))
	case len(cells) != n*n:
		m.fail(fmt.Errorf("display: matrix %q: %d cells for n=%d (want %d)", title, len(cells), n, n*n))
	case kind != DistanceCells && kind != PredecessorCells:
		m.fail(fmt.Errorf("display: matrix %q: unknown cell kind %d", title, int(kind)))
	}
	return m
}

// DistMatrix shows the distance matrix D of an all-pairs result, with the
// result's labels.
func DistMatrix(r *graph.AllPairs) *Matrix {
	if r == nil {
		return NewMatrix("D", 0, nil, DistanceCells).fail(fmt.Errorf("display: DistMatrix of a nil result"))
	}
	return NewMatrix(resultTitle("D", r.Solver), r.N, r.Dist, DistanceCells).Labels(r.Labels...)
}

// PredMatrix shows the predecessor matrix Π of an all-pairs result. It is
// an error when the solver did not keep predecessors.
func PredMatrix(r *graph.AllPairs) *Matrix {
	if r == nil {
		return NewMatrix("Π", 0, nil, PredecessorCells).fail(fmt.Errorf("display: PredMatrix of a nil result"))
	}
	if r.Pred == nil {
		return NewMatrix("Π", 0, nil, PredecessorCells).fail(
			fmt.Errorf("display: PredMatrix: the %s result has no predecessor matrix (ask the solver for predecessors)", orUnknown(r.Solver)))
	}
	return NewMatrix(resultTitle("Π", r.Solver), r.N, r.Pred, PredecessorCells).Labels(r.Labels...)
}

// WeightMatrix shows a graph's dense weight matrix W (graph.Dense): 0 on
// the diagonal, the lightest arc weight, ∞ where there is no arc.
func WeightMatrix(g *graph.Graph) *Matrix {
	if g == nil {
		return NewMatrix("W", 0, nil, DistanceCells).fail(fmt.Errorf("display: WeightMatrix of a nil graph"))
	}
	if err := graph.CheckMatrixSize(g.N(), 1); err != nil {
		return NewMatrix("W", 0, nil, DistanceCells).fail(fmt.Errorf("display: WeightMatrix: %w", err))
	}
	return NewMatrix("W", g.N(), g.Dense(), DistanceCells).Labels(g.Labels()...)
}

func resultTitle(symbol, solver string) string {
	if solver == "" {
		return symbol
	}
	return symbol + " (" + solver + ")"
}

func orUnknown(s string) string {
	if s == "" {
		return "solver's"
	}
	return s
}

func (m *Matrix) fail(err error) *Matrix {
	if m.err == nil {
		m.err = err
	}
	return m
}

// Err returns the first problem with the matrix or its options, if any.
func (m *Matrix) Err() error {
	if m == nil {
		return fmt.Errorf("display: nil *Matrix")
	}
	return m.err
}

// Title sets the caption above the matrix, e.g. "D^(3)".
func (m *Matrix) Title(s string) *Matrix { m.title = s; return m }

// Caption sets a note shown under the title.
func (m *Matrix) Caption(s string) *Matrix { m.caption = s; return m }

// Labels names the rows and columns (one label per vertex; none keeps the
// vertex numbers).
func (m *Matrix) Labels(labels ...string) *Matrix {
	if len(labels) != 0 && len(labels) != m.n {
		return m.fail(fmt.Errorf("display: matrix %q: %d labels for n=%d", m.title, len(labels), m.n))
	}
	m.labels = labels
	return m
}

// OneBased writes vertex numbers from 1, as [Karaula 2017] prints Π (NIL stays
// NIL). Predecessor cells then show numbers even when the matrix has
// labels; headers show 1..n when it has none.
func (m *Matrix) OneBased() *Matrix { m.oneBased = true; return m }

// Limit shows at most k rows and columns (DefaultLimit unless set); a note
// says how many more there are, and the bundle adds a heatmap of the whole.
func (m *Matrix) Limit(k int) *Matrix {
	if k < 1 {
		return m.fail(fmt.Errorf("display: matrix %q: limit %d, want at least 1", m.title, k))
	}
	m.limit = k
	return m
}

// Since highlights the cells that differ from prev, the same matrix at an
// earlier step (for Floyd-Warshall, D^(k-1) when m is D^(k)). Text marks
// them with a trailing *.
func (m *Matrix) Since(prev []int32) *Matrix {
	if len(prev) != len(m.cells) {
		return m.fail(fmt.Errorf("display: matrix %q: previous matrix has %d cells, this one %d", m.title, len(prev), len(m.cells)))
	}
	for i, v := range m.cells {
		if v != prev[i] {
			m.mark(i, markChanged)
		}
	}
	return m
}

// mark sets flag on the cell with flat index i.
func (m *Matrix) mark(i int, flag cellMark) {
	if m.marks == nil {
		m.marks = make([]cellMark, len(m.cells))
	}
	m.marks[i] |= flag
}

// markTile sets flag on the cells of rows and columns [r0,r1)×[c0,c1).
func (m *Matrix) markTile(r0, r1, c0, c1 int, flag cellMark) {
	for i := max(r0, 0); i < min(r1, m.n); i++ {
		for j := max(c0, 0); j < min(c1, m.n); j++ {
			m.mark(i*m.n+j, flag)
		}
	}
}

// cells writes a cell count: "1 cell", "3 cells".
func cells(n int) string {
	if n == 1 {
		return "1 cell"
	}
	return fmt.Sprintf("%d cells", n)
}

// Changed returns the number of cells that Since found changed.
func (m *Matrix) Changed() int {
	count := 0
	for _, f := range m.marks {
		if f&markChanged != 0 {
			count++
		}
	}
	return count
}

// header returns the name of row or column v.
func (m *Matrix) header(v int) string {
	switch {
	case v < len(m.labels):
		return m.labels[v]
	case m.oneBased:
		return strconv.Itoa(v + 1)
	}
	return strconv.Itoa(v)
}

// cell returns the text of the cell with flat index i.
func (m *Matrix) cell(i int) string {
	v := m.cells[i]
	if m.kind == DistanceCells {
		return graph.FormatDist(v)
	}
	switch {
	case v == graph.Nil:
		return "NIL"
	case m.oneBased:
		return strconv.Itoa(int(v) + 1)
	case int(v) >= 0 && int(v) < len(m.labels):
		return m.labels[v]
	}
	return strconv.Itoa(int(v))
}

// shown returns how many rows (and columns) the table shows.
func (m *Matrix) shown() int { return min(m.n, m.limit) }

// truncationNote says what the table leaves out ("" when nothing).
func (m *Matrix) truncationNote() string {
	if m.n <= m.limit {
		return ""
	}
	more := m.n - m.limit
	return fmt.Sprintf("… %d more rows and columns (showing %d of n=%d)", more, m.limit, m.n)
}

// Text returns the matrix as an aligned text table: a header row of
// labels, a label at the start of each row, changed cells marked with *.
func (m *Matrix) Text() string {
	if m.err != nil {
		return "error: " + m.err.Error()
	}
	k := m.shown()
	header := []string{""}
	right := []bool{false}
	for j := 0; j < k; j++ {
		header = append(header, m.header(j))
		right = append(right, true)
	}
	if k < m.n {
		header = append(header, "…")
	}
	rows := make([][]string, 0, k)
	for i := 0; i < k; i++ {
		row := []string{m.header(i)}
		for j := 0; j < k; j++ {
			c := m.cell(i*m.n + j)
			if m.marks != nil && m.marks[i*m.n+j]&markChanged != 0 {
				c += "*"
			}
			row = append(row, c)
		}
		rows = append(rows, row)
	}
	if k < m.n {
		rows = append(rows, []string{"…"})
	}
	var sb strings.Builder
	if m.title != "" {
		sb.WriteString(m.title + "\n")
	}
	if m.caption != "" {
		sb.WriteString(m.caption + "\n")
	}
	sb.WriteString(alignTable(header, rows, right))
	if note := m.truncationNote(); note != "" {
		sb.WriteString(note + "\n")
	}
	if m.Changed() > 0 {
		fmt.Fprintf(&sb, "* changed (%s)\n", cells(m.Changed()))
	}
	return strings.TrimRight(sb.String(), "\n")
}

// Styles of the HTML table, inline so that they survive the sanitizers that
// keep style attributes (JupyterLab's, VS Code's). Classic Notebook drops
// them in an untrusted notebook, and nbconvert when asked to sanitize; what
// must still show there is said with elements (see markChangedHTML).
const (
	tableStyle   = `border-collapse:collapse;font-family:monospace;font-size:12px;margin:4px 0`
	thStyle      = `border:1px solid #ccc;padding:2px 6px;background:#f2f2f2;text-align:center`
	tdStyle      = `border:1px solid #ddd;padding:2px 6px;text-align:right`
	changedStyle = `;background:` + changedColor + `;font-weight:bold`
	shadedStyle  = `;background:#e3edff`
	primaryStyle = `;box-shadow:inset 0 0 0 2px #1f5fbf`
	pivotStyle   = `;background:` + pivotColor
	// color:inherit overrides the grey that classic Notebook's stylesheet
	// gives captions, which made D and Π fainter than their tables.
	captionStyle = `caption-side:top;text-align:left;font-weight:bold;padding-bottom:2px;color:inherit`
	noteStyle    = `font-size:11px;color:#555`
	changedColor = `#ffd966`
	pivotColor   = `#dcefdc`
)

// markChangedHTML wraps escaped cell or note text in <mark><b>: a mark's
// default look is a (pale or bright) yellow background, so that where a
// sanitizer has dropped the style attributes the changed cells are still
// highlighted, and bold. Its own style gives the mark the cell's colour, so
// that where styles are kept it cannot be seen.
func markChangedHTML(escaped string) string {
	return `<mark style="background:` + changedColor + `"><b>` + escaped + `</b></mark>`
}

// superscripts maps the superscript characters that titles such as D⁽³⁾ use
// to the plain ones that supHTML raises.
var superscripts = map[rune]rune{
	'⁰': '0', '¹': '1', '²': '2', '³': '3', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7', '⁸': '8', '⁹': '9',
	'⁽': '(', '⁾': ')', '⁺': '+', '⁻': '-', 'ᵏ': 'k',
}

// supHTML escapes a title for HTML and writes its runs of superscript
// characters as <sup> of plain ones: most fonts draw superscript
// parentheses and digits small and, in the monospace captions, spread one
// per cell, so that "D⁽⁴⁾" read as "D ( 4 )" in small grey.
func supHTML(s string) string {
	var sb, run strings.Builder
	flush := func() {
		if run.Len() > 0 {
			sb.WriteString("<sup>" + html.EscapeString(run.String()) + "</sup>")
			run.Reset()
		}
	}
	for _, r := range s {
		if plain, ok := superscripts[r]; ok {
			run.WriteRune(plain)
			continue
		}
		flush()
		sb.WriteString(html.EscapeString(string(r)))
	}
	flush()
	return sb.String()
}

// HTML returns the matrix as an HTML table with labelled headers; changed
// cells are yellow and bold, a blocked trace's primary tile is framed in
// blue and the tiles it updates are shaded.
func (m *Matrix) HTML() string { return m.html(true) }

// html writes the table, with the title as its caption or without it (when
// the title already stands above a heatmap).
func (m *Matrix) html(caption bool) string {
	if m.err != nil {
		return errorBundle(m.err).Data[MIMEHTML].(string)
	}
	k := m.shown()
	var sb strings.Builder
	sb.WriteString(`<table style="` + tableStyle + `">`)
	if caption && m.title != "" {
		sb.WriteString(`<caption style="` + captionStyle + `">` + supHTML(m.title) + `</caption>`)
	}
	sb.WriteString(`<tr><th style="` + thStyle + `"></th>`)
	for j := 0; j < k; j++ {
		sb.WriteString(`<th style="` + thStyle + `">` + html.EscapeString(m.header(j)) + `</th>`)
	}
	if k < m.n {
		sb.WriteString(`<th style="` + thStyle + `">…</th>`)
	}
	sb.WriteString(`</tr>`)
	for i := 0; i < k; i++ {
		sb.WriteString(`<tr><th style="` + thStyle + `">` + html.EscapeString(m.header(i)) + `</th>`)
		for j := 0; j < k; j++ {
			style := tdStyle
			var f cellMark
			if m.marks != nil {
				f = m.marks[i*m.n+j]
			}
			if f&markShaded != 0 {
				style += shadedStyle
			}
			if f&markPivot != 0 {
				style += pivotStyle
			}
			if f&markChanged != 0 {
				style += changedStyle
			}
			if f&markPrimary != 0 {
				style += primaryStyle
			}
			class, value := "", html.EscapeString(m.cell(i*m.n+j))
			if f&markChanged != 0 {
				class, value = ` class="changed"`, markChangedHTML(value)
			}
			sb.WriteString(`<td` + class + ` style="` + style + `">` + value + `</td>`)
		}
		if k < m.n {
			sb.WriteString(`<td style="` + tdStyle + `">…</td>`)
		}
		sb.WriteString(`</tr>`)
	}
	if k < m.n {
		sb.WriteString(`<tr><th style="` + thStyle + `">…</th></tr>`)
	}
	sb.WriteString(`</table>`)
	var notes []string
	if m.caption != "" {
		notes = append(notes, html.EscapeString(m.caption))
	}
	if note := m.truncationNote(); note != "" {
		notes = append(notes, html.EscapeString(note))
	}
	if c := m.Changed(); c > 0 {
		notes = append(notes, markChangedHTML("&nbsp;"+cells(c)+" changed&nbsp;"))
	}
	if len(notes) > 0 {
		sb.WriteString(`<div style="` + noteStyle + `">` + strings.Join(notes, " · ") + `</div>`)
	}
	return sb.String()
}

// MIMEBundle returns the HTML table and its text; a truncated matrix also
// carries its heatmap, as a PNG and above the table in the HTML.
func (m *Matrix) MIMEBundle() (data, metadata map[string]any) {
	if m == nil || m.err != nil {
		return errorBundle(m.Err()).MIMEBundle()
	}
	data = map[string]any{MIMEHTML: m.HTML(), MIMEText: m.Text()}
	if m.n <= m.limit || m.noHeatmap {
		return data, nil
	}
	hm := m.Heatmap()
	if hm.Data[MIMEPNG] == nil {
		return data, nil // the heatmap failed; its message is in its text
	}
	title := ""
	if m.title != "" {
		title = `<div style="` + captionStyle + `;font-family:monospace;font-size:12px">` + supHTML(m.title) + `</div>`
	}
	data[MIMEHTML] = title + richHTML(hm.Data) + m.heatmapLegendHTML() + m.html(false)
	data[MIMEPNG] = hm.Data[MIMEPNG]
	data[MIMEText] = data[MIMEText].(string) + "\n" + m.heatmapLegend()
	return data, hm.Metadata
}

package display

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pathnotes/pathnotes/graph"
)

// DefaultRowLimit is how many rows a Table shows before it truncates.
const DefaultRowLimit = 100

// Table shows rows of values under named columns, for example benchmark
// results, as HTML, aligned text and Markdown:
//
//	t := display.NewTable("FW, dense graphs", "n", "CPU", "fw-hn").Units("", "s", "s")
//	t.Add(1000, 2.31, 0.035)
//	t.Ratio("CPU÷fw-hn", "CPU", "fw-hn")
//
// Cells may be strings, integers, floats, time.Duration (shown with a unit,
// used as seconds in ratios) or anything with a %v form; an int32 graph.Inf
// shows as ∞. Columns whose cells are all numbers are right-aligned.
type Table struct {
	title   string
	columns []string
	units   []string
	rows    [][]any
	ratios  []ratio
	notes   []string
	limit   int
	err     error
}

// ratio is a column computed as column num divided by column den.
type ratio struct {
	name     string
	num, den int
}

// NewTable starts a table with a title (may be empty) and column names.
func NewTable(title string, columns ...string) *Table {
	t := &Table{title: title, columns: columns, limit: DefaultRowLimit}
	if len(columns) == 0 {
		t.fail(fmt.Errorf("display: table %q has no columns", title))
	}
	return t
}

func (t *Table) fail(err error) *Table {
	if t.err == nil {
		t.err = err
	}
	return t
}

// Err returns the first bad call on the table (a row of the wrong length,
// an unknown ratio column), if any.
func (t *Table) Err() error {
	if t == nil {
		return fmt.Errorf("display: nil *Table")
	}
	return t.err
}

// Units sets the unit of each column, shown in the header as "time (s)";
// "" means none. Give one per column.
func (t *Table) Units(units ...string) *Table {
	if len(units) != len(t.columns) {
		return t.fail(fmt.Errorf("display: table %q: %d units for %d columns", t.title, len(units), len(t.columns)))
	}
	t.units = units
	return t
}

// Add appends a row with one cell per column. A row of the wrong length is
// not added; Err reports it.
func (t *Table) Add(cells ...any) *Table {
	if len(cells) != len(t.columns) {
		return t.fail(fmt.Errorf("display: table %q: row %d has %d cells, want %d (%s)",
			t.title, len(t.rows)+1, len(cells), len(t.columns), strings.Join(t.columns, ", ")))
	}
	t.rows = append(t.rows, cells)
	return t
}

// Ratio adds a column computed for every row, now and later, as column
// numerator divided by column denominator: a speed-up when both are times.
// Rows where either cell is not a number, or the denominator is 0, leave
// the cell empty.
func (t *Table) Ratio(name, numerator, denominator string) *Table {
	num, den := slices.Index(t.columns, numerator), slices.Index(t.columns, denominator)
	for _, c := range []struct {
		name string
		idx  int
	}{{numerator, num}, {denominator, den}} {
		if c.idx < 0 {
			return t.fail(fmt.Errorf("display: table %q: ratio %q: no column %q (columns: %s)",
				t.title, name, c.name, strings.Join(t.columns, ", ")))
		}
	}
	t.ratios = append(t.ratios, ratio{name, num, den})
	return t
}

// Drop removes the named columns and their cells from t, for the columns
// that only some machines fill (kernel times without a GPU). A column that
// a Ratio reads cannot be dropped; an unknown column is an error (Err).
func (t *Table) Drop(columns ...string) *Table {
	for _, name := range columns {
		c := slices.Index(t.columns, name)
		if c < 0 {
			return t.fail(fmt.Errorf("display: table %q: drop: no column %q (columns: %s)",
				t.title, name, strings.Join(t.columns, ", ")))
		}
		for _, r := range t.ratios {
			if r.num == c || r.den == c {
				return t.fail(fmt.Errorf("display: table %q: drop: column %q is read by ratio %q", t.title, name, r.name))
			}
		}
		for i, r := range t.ratios {
			if r.num > c {
				t.ratios[i].num--
			}
			if r.den > c {
				t.ratios[i].den--
			}
		}
		t.columns = slices.Delete(t.columns, c, c+1)
		if c < len(t.units) {
			t.units = slices.Delete(t.units, c, c+1)
		}
		for i, row := range t.rows {
			t.rows[i] = slices.Delete(row, c, c+1)
		}
	}
	return t
}

// Note adds a line shown under the table, e.g. the hardware used.
func (t *Table) Note(s string) *Table { t.notes = append(t.notes, s); return t }

// Limit shows at most k rows (DefaultRowLimit unless set); a note says how
// many more there are.
func (t *Table) Limit(k int) *Table {
	if k < 1 {
		return t.fail(fmt.Errorf("display: table %q: row limit %d, want at least 1", t.title, k))
	}
	t.limit = k
	return t
}

// Len returns the number of rows.
func (t *Table) Len() int { return len(t.rows) }

// grid returns the header (with units), the shown rows formatted as text
// (ratio columns included), and which columns are numeric.
func (t *Table) grid() (header []string, rows [][]string, numeric []bool) {
	for c, name := range t.columns {
		if c < len(t.units) && t.units[c] != "" {
			name += " (" + t.units[c] + ")"
		}
		header = append(header, name)
		numeric = append(numeric, true)
	}
	for _, r := range t.ratios {
		header = append(header, r.name+" (×)")
		numeric = append(numeric, true)
	}
	for i, row := range t.rows {
		for c, v := range row {
			if _, ok := toFloat(v); !ok && v != nil {
				numeric[c] = false
			}
		}
		if i >= t.limit {
			continue
		}
		cells := make([]string, 0, len(header))
		for _, v := range row {
			cells = append(cells, formatCell(v))
		}
		for _, r := range t.ratios {
			cells = append(cells, formatRatio(row[r.num], row[r.den]))
		}
		rows = append(rows, cells)
	}
	return header, rows, numeric
}

// footer returns the notes and the truncation remark.
func (t *Table) footer() []string {
	notes := slices.Clone(t.notes)
	if more := len(t.rows) - t.limit; more > 0 {
		notes = append(notes, fmt.Sprintf("… %d more rows (%d in all)", more, len(t.rows)))
	}
	return notes
}

// Text returns the table as aligned text columns.
func (t *Table) Text() string {
	if t.err != nil {
		return "error: " + t.err.Error()
	}
	header, rows, numeric := t.grid()
	var sb strings.Builder
	if t.title != "" {
		sb.WriteString(t.title + "\n")
	}
	sb.WriteString(alignTable(header, rows, numeric))
	for _, n := range t.footer() {
		sb.WriteString(n + "\n")
	}
	return strings.TrimRight(sb.String(), "\n")
}

// Markdown returns the table in GitHub-flavoured Markdown, numeric columns
// right-aligned, for pasting into reports.
func (t *Table) Markdown() string {
	if t.err != nil {
		return "error: " + t.err.Error()
	}
	header, rows, numeric := t.grid()
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	line := func(cells []string) string {
		parts := make([]string, len(cells))
		for i, c := range cells {
			parts[i] = esc(c)
		}
		return "| " + strings.Join(parts, " | ") + " |\n"
	}
	var sb strings.Builder
	if t.title != "" {
		sb.WriteString("**" + esc(t.title) + "**\n\n")
	}
	sb.WriteString(line(header))
	rules := make([]string, len(header))
	for i := range rules {
		rules[i] = "---"
		if numeric[i] {
			rules[i] = "---:"
		}
	}
	sb.WriteString("|" + strings.Join(rules, "|") + "|\n")
	for _, r := range rows {
		sb.WriteString(line(r))
	}
	for _, n := range t.footer() {
		sb.WriteString("\n" + esc(n) + "\n")
	}
	return sb.String()
}

// HTML returns the table as an HTML table.
func (t *Table) HTML() string {
	if t.err != nil {
		return errorBundle(t.err).Data[MIMEHTML].(string)
	}
	header, rows, numeric := t.grid()
	var sb strings.Builder
	sb.WriteString(`<table style="` + tableStyle + `">`)
	if t.title != "" {
		sb.WriteString(`<caption style="` + captionStyle + `">` + html.EscapeString(t.title) + `</caption>`)
	}
	sb.WriteString(`<tr>`)
	for _, h := range header {
		sb.WriteString(`<th style="` + thStyle + `">` + html.EscapeString(h) + `</th>`)
	}
	sb.WriteString(`</tr>`)
	for _, r := range rows {
		sb.WriteString(`<tr>`)
		for c, cell := range r {
			style := tdStyle
			if !numeric[c] {
				style += ";text-align:left"
			}
			sb.WriteString(`<td style="` + style + `">` + html.EscapeString(cell) + `</td>`)
		}
		sb.WriteString(`</tr>`)
	}
	sb.WriteString(`</table>`)
	if notes := t.footer(); len(notes) > 0 {
		sb.WriteString(`<div style="` + noteStyle + `">` + html.EscapeString(strings.Join(notes, " · ")) + `</div>`)
	}
	return sb.String()
}

// MIMEBundle returns the table as HTML, Markdown and text.
func (t *Table) MIMEBundle() (data, metadata map[string]any) {
	if t == nil || t.err != nil {
		return errorBundle(t.Err()).MIMEBundle()
	}
	return map[string]any{MIMEHTML: t.HTML(), MIMEMarkdown: t.Markdown(), MIMEText: t.Text()}, nil
}

// toFloat reads a numeric cell; durations count in seconds.
func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int8:
		return float64(x), true
	case int16:
		return float64(x), true
	case int32:
		if x == graph.Inf {
			return math.Inf(1), true
		}
		return float64(x), true
	case int64:
		return float64(x), true
	case uint:
		return float64(x), true
	case uint8:
		return float64(x), true
	case uint16:
		return float64(x), true
	case uint32:
		return float64(x), true
	case uint64:
		return float64(x), true
	case time.Duration:
		return x.Seconds(), true
	}
	return 0, false
}

// formatCell writes one table cell.
func formatCell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return formatFloat(x)
	case float32:
		return formatFloat(float64(x))
	case int32:
		return graph.FormatDist(x)
	case time.Duration:
		return formatDuration(x)
	}
	return fmt.Sprintf("%v", v)
}

// formatFloat keeps four significant digits, without an exponent for the
// ordinary range of timings and sizes.
func formatFloat(f float64) string {
	switch a := math.Abs(f); {
	case math.IsInf(f, 0):
		return "∞"
	case math.IsNaN(f):
		return "NaN"
	case a >= 1e4 && a < 1e9:
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	return strconv.FormatFloat(f, 'g', 4, 64)
}

// formatDuration writes d with four significant digits in the largest
// unit that keeps it at least 1 (2.345s, 12.5ms, 830ns).
func formatDuration(d time.Duration) string {
	units := []struct {
		name string
		size time.Duration
	}{{"s", time.Second}, {"ms", time.Millisecond}, {"µs", time.Microsecond}}
	for _, u := range units {
		if d >= u.size || d <= -u.size {
			return strconv.FormatFloat(float64(d)/float64(u.size), 'g', 4, 64) + u.name
		}
	}
	return strconv.FormatInt(int64(d), 10) + "ns"
}

// formatRatio writes num/den, or "" when it has no meaning.
func formatRatio(num, den any) string {
	a, ok1 := toFloat(num)
	b, ok2 := toFloat(den)
	if !ok1 || !ok2 || b == 0 || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return ""
	}
	return formatFloat(a / b)
}

// SingleSource shows a single-source result as a table of vertex,
// distance, predecessor and, for up to 50 vertices, the path itself.
func SingleSource(s *graph.SingleSource) *Table {
	if s == nil {
		return NewTable("single-source result", "vertex").fail(fmt.Errorf("display: SingleSource of a nil result"))
	}
	name := func(v int) string {
		if v >= 0 && v < len(s.Labels) {
			return s.Labels[v]
		}
		return strconv.Itoa(v)
	}
	title := "distances from " + name(s.Source)
	if s.Solver != "" {
		title += " (" + s.Solver + ")"
	}
	withPaths := s.Pred != nil && len(s.Dist) <= 50
	columns := []string{"vertex", "distance"}
	if s.Pred != nil {
		columns = append(columns, "predecessor")
	}
	if withPaths {
		columns = append(columns, "path")
	}
	t := NewTable(title, columns...)
	for v, d := range s.Dist {
		row := []any{name(v), d}
		if s.Pred != nil {
			p := "NIL"
			if s.Pred[v] != graph.Nil {
				p = name(int(s.Pred[v]))
			}
			row = append(row, p)
		}
		if withPaths {
			row = append(row, pathCell(s, v))
		}
		t.Add(row...)
	}
	return t
}

// pathCell writes the path to v as "s → a → b", or the reason there is none.
func pathCell(s *graph.SingleSource, v int) string {
	p, err := s.PathTo(v)
	switch {
	case err != nil:
		return "error: " + err.Error()
	case !p.Reachable():
		return "unreachable"
	}
	text := p.String()
	if i := strings.LastIndex(text, " (weight"); i >= 0 {
		text = text[:i]
	}
	return strings.ReplaceAll(text, " -> ", " → ")
}

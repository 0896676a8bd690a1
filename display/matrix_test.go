package display

import (
	"image/color"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/graph"
)

// karaulaD5 and karaulaP5 are D^(5) and Π^(5) of [Karaula 2017] §3.1, Fig. 3.1 (Π with
// 0-based vertex numbers).
var (
	karaulaD5 = []int32{0, 5, 6, 2, 3, 5, 0, 2, 7, 8, 3, 8, 0, 5, 6, 2, 4, 4, 0, 1, 1, 3, 5, 3, 0}
	karaulaP5 = []int32{-1, 0, 3, 0, 3, 2, -1, 1, 0, 3, 2, 0, -1, 0, 3, 4, 4, 3, -1, 3, 4, 4, 1, 0, -1}
)

func karaulaResult() *graph.AllPairs {
	return &graph.AllPairs{N: 5, Dist: karaulaD5, Pred: karaulaP5, Labels: []string{"a", "b", "c", "d", "e"}, Solver: "fw-cpu-naive"}
}

func TestMatrixInfinityAndLabels(t *testing.T) {
	g := example(t, "karaula-fig3.1")
	m := WeightMatrix(g)
	data := bundle(t, m)
	rows := parseTable(t, str(t, data, MIMEHTML))
	if len(rows) != 6 {
		t.Fatalf("%d table rows, want header + 5", len(rows))
	}
	header := []string{"", "a", "b", "c", "d", "e"}
	for j, h := range header {
		if rows[0][j].text != h || !rows[0][j].header {
			t.Errorf("header cell %d = %+v, want <th>%s</th>", j, rows[0][j], h)
		}
	}
	// Row a of W: 0 5 ∞ 2 ∞ ([Karaula 2017] §3.1, Fig. 3.1, k=0).
	want := []string{"a", "0", "5", "∞", "2", "∞"}
	for j, w := range want {
		if rows[1][j].text != w {
			t.Errorf("row a cell %d = %q, want %q", j, rows[1][j].text, w)
		}
	}
	wantText := strings.Join([]string{
		"W",
		"   a  b  c  d  e",
		"a  0  5  ∞  2  ∞",
		"b  ∞  0  2  ∞  ∞",
		"c  3  ∞  0  ∞  7",
		"d  ∞  ∞  4  0  1",
		"e  1  3  ∞  ∞  0",
	}, "\n")
	if got := data[MIMEText]; got != wantText {
		t.Errorf("text =\n%s\nwant\n%s", got, wantText)
	}
}

func TestPredMatrixNilAndOneBased(t *testing.T) {
	r := karaulaResult()
	labelled := bundle(t, PredMatrix(r))
	if !strings.Contains(str(t, labelled, MIMEText), "d    e    e    d  NIL    d") {
		t.Errorf("labelled Π row d missing:\n%s", labelled[MIMEText])
	}
	// [Karaula 2017] prints Π^(5) row d as "5 5 4 NIL 4".
	oneBased := bundle(t, PredMatrix(r).OneBased())
	text := str(t, oneBased, MIMEText)
	if !strings.Contains(text, "d    5    5    4  NIL    4") {
		t.Errorf("1-based Π row d missing:\n%s", text)
	}
	rows := parseTable(t, str(t, oneBased, MIMEHTML))
	var got []string
	for _, c := range rows[4][1:] {
		got = append(got, c.text)
	}
	if strings.Join(got, " ") != "5 5 4 NIL 4" {
		t.Errorf("HTML row d = %v, want 5 5 4 NIL 4", got)
	}
	if rows[4][0].text != "d" {
		t.Errorf("row header = %q, want the label d", rows[4][0].text)
	}
}

func TestOneBasedHeadersWithoutLabels(t *testing.T) {
	text := NewMatrix("P", 2, []int32{graph.Nil, 0, 1, graph.Nil}, PredecessorCells).OneBased().Text()
	want := "P\n     1    2\n1  NIL    1\n2    2  NIL"
	if text != want {
		t.Errorf("text =\n%s\nwant\n%s", text, want)
	}
}

func TestPredMatrixWithoutPredecessors(t *testing.T) {
	r := &graph.AllPairs{N: 1, Dist: []int32{0}, Solver: "fw-hn"}
	m := PredMatrix(r)
	if m.Err() == nil || !strings.Contains(m.Err().Error(), "fw-hn result has no predecessor matrix") {
		t.Errorf("err = %v", m.Err())
	}
	if !strings.Contains(bundle(t, m)[MIMEText].(string), "no predecessor matrix") {
		t.Error("bundle does not show the error")
	}
}

func TestSinceMarksExactlyTheChangedCells(t *testing.T) {
	tr := fwReference(example(t, "karaula-fig3.1"))
	d0, d1 := tr.Steps[0].Dist, tr.Steps[1].Dist
	m := NewMatrix("D(1)", 5, d1, DistanceCells).Labels(tr.Labels...).Since(d0)
	// k=1 (through a) improves c→b (8), c→d (5) and e→d (3).
	want := map[[2]int]bool{{2, 1}: true, {2, 3}: true, {4, 3}: true}
	if m.Changed() != len(want) {
		t.Errorf("Changed() = %d, want %d", m.Changed(), len(want))
	}
	rows := parseTable(t, m.HTML())
	for i, row := range rows[1:] {
		for j, c := range row[1:] {
			if c.changed != want[[2]int{i, j}] {
				t.Errorf("cell (%d,%d) %q changed=%v, want %v", i, j, c.text, c.changed, want[[2]int{i, j}])
			}
			if c.changed && !strings.Contains(c.style, "background:#ffd966") {
				t.Errorf("changed cell (%d,%d) is not highlighted: %s", i, j, c.style)
			}
		}
	}
	text := m.Text()
	wantContains(t, "text", text, "c  3  8*  0  5*  7", "e  1   3  ∞  3*  0", "* changed (3 cells)")
	if bad := NewMatrix("x", 1, []int32{0}, DistanceCells).Since([]int32{0, 1}); bad.Err() == nil {
		t.Error("Since with a wrong-sized matrix gave no error")
	}
}

func TestMatrixTruncatesWithNoteAndHeatmap(t *testing.T) {
	const n = 1000
	cells := make([]int32, n*n)
	for i := range cells {
		cells[i] = int32(i % 97)
	}
	cells[5] = graph.Inf
	m := NewMatrix("D", n, cells, DistanceCells)
	data := bundle(t, m)
	note := "… 980 more rows and columns (showing 20 of n=1000)"
	text := str(t, data, MIMEText)
	if !strings.Contains(text, note) || !strings.Contains(str(t, data, MIMEHTML), note) {
		t.Errorf("truncation note missing from text or HTML")
	}
	rows := parseTable(t, str(t, data, MIMEHTML))
	if len(rows[0]) != 22 { // corner, 20 columns, "…"
		t.Errorf("header has %d cells, want 22", len(rows[0]))
	}
	img := decodePNG(t, str(t, data, MIMEPNG))
	if b := img.Bounds(); b.Dx() != heatmapSide || b.Dy() != heatmapSide {
		t.Errorf("heatmap is %v, want %d×%d", b, heatmapSide, heatmapSide)
	}
	if !strings.Contains(text, "heatmap of D: distance 0 (dark blue)") || !strings.Contains(text, "light grey = unreachable (∞)") {
		t.Errorf("text lacks the heatmap legend:\n%s", text[strings.LastIndex(text, "\n")+1:])
	}
	if !strings.Contains(str(t, data, MIMEHTML), `<img src="data:image/png;base64,`) {
		t.Error("HTML does not embed the heatmap")
	}
	small := bundle(t, NewMatrix("D", 3, make([]int32, 9), DistanceCells))
	if _, ok := small[MIMEPNG]; ok {
		t.Error("a matrix shown whole got a heatmap")
	}
}

func TestHeatmapColours(t *testing.T) {
	// 2×2: 0, 10 / ∞, 5 — smallest is the dark end, ∞ the grey.
	m := NewMatrix("D", 2, []int32{0, 10, graph.Inf, 5}, DistanceCells)
	data := bundle(t, m.Heatmap())
	img := decodePNG(t, str(t, data, MIMEPNG))
	half := heatmapSide / 2
	at := func(x, y int) color.RGBA {
		r, g, b, a := img.At(x, y).RGBA()
		return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
	}
	if got := at(half/2, half/2); got != viridis[0] {
		t.Errorf("cell 0 colour %v, want the scale's start %v", got, viridis[0])
	}
	if got := at(half/2, half+half/2); got != unreachableColor {
		t.Errorf("∞ cell colour %v, want %v", got, unreachableColor)
	}
	if got := at(half+half/2, half/2); got != viridis[len(viridis)-1] {
		t.Errorf("largest cell colour %v, want the scale's end", got)
	}
	if !strings.Contains(str(t, data, MIMEText), "distance 0 (dark blue) to 10 (yellow)") {
		t.Errorf("legend = %q", data[MIMEText])
	}
	if _, err := NewMatrix("E", 0, nil, DistanceCells).HeatmapPNG(); err == nil {
		t.Error("heatmap of an empty matrix gave no error")
	}
}

func TestMatrixArgumentErrors(t *testing.T) {
	tests := []struct {
		m    *Matrix
		want string
	}{
		{NewMatrix("A", -1, nil, DistanceCells), "negative size -1"},
		{NewMatrix("A", 2, []int32{1}, DistanceCells), "1 cells for n=2 (want 4)"},
		{NewMatrix("A", 1, []int32{1}, CellKind(7)), "unknown cell kind 7"},
		{NewMatrix("A", 1, []int32{1}, DistanceCells).Labels("x", "y"), "2 labels for n=1"},
		{NewMatrix("A", 1, []int32{1}, DistanceCells).Limit(0), "limit 0"},
		{DistMatrix(nil), "nil result"},
		{WeightMatrix(nil), "nil graph"},
	}
	for _, tt := range tests {
		if err := tt.m.Err(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("err = %v, want it to contain %q", err, tt.want)
		}
	}
}

func TestAllPairsSideBySide(t *testing.T) {
	data := bundle(t, Of(karaulaResult()))
	text := str(t, data, MIMEText)
	// D and Π of row d next to each other, as [Karaula 2017] prints them.
	if !strings.Contains(text, "d  2  4  4  0  1    d    e    e    d  NIL    d") {
		t.Errorf("text is not side by side:\n%s", text)
	}
	if c := strings.Count(str(t, data, MIMEHTML), "<table"); c != 2 {
		t.Errorf("HTML has %d tables, want 2", c)
	}
}

func TestSupHTMLRaisesSuperscriptRuns(t *testing.T) {
	for in, want := range map[string]string{
		"D⁽¹²⁾":      "D<sup>(12)</sup>",
		"Π⁽ᵏ⁾ <a&b>": "Π<sup>(k)</sup> &lt;a&amp;b&gt;",
		"x²+y⁻¹":     "x<sup>2</sup>+y<sup>-1</sup>",
		"plain":      "plain",
	} {
		if got := supHTML(in); got != want {
			t.Errorf("supHTML(%q) = %q, want %q", in, got, want)
		}
	}
}

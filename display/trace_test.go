package display

import (
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/graph"
)

// tables splits a bundle's HTML into its tables, parsed.
func tables(t *testing.T, h string) [][][]cell {
	t.Helper()
	var out [][][]cell
	for _, part := range strings.Split(h, "<table")[1:] {
		out = append(out, parseTable(t, "<table"+part[:strings.Index(part, "</table>")+len("</table>")]))
	}
	return out
}

// changedCells lists the (row, column) of highlighted body cells.
func changedCells(rows [][]cell) [][2]int {
	var out [][2]int
	for i, row := range rows[1:] {
		for j, c := range row[1:] {
			if c.changed {
				out = append(out, [2]int{i, j})
			}
		}
	}
	return out
}

func TestFWTraceMatchesKaraulaExample(t *testing.T) {
	tr := fwReference(example(t, "karaula-fig3.1"))
	data := bundle(t, FWTrace(tr).OneBased())
	text := str(t, data, MIMEText)
	// [Karaula 2017] §3.1, Fig. 3.1, k=5: D row d "2 4 4 0 1", Π row d "5 5 4 NIL 4".
	if !strings.Contains(text, "d  2*  4*  4  0  1     d   5*   5*    4  NIL    4") {
		t.Errorf("k=5 row d missing:\n%s", text)
	}
	for _, title := range []string{"initial (k = 0)", "k = 1", "k = 5", "D⁽³⁾", "Π⁽⁵⁾"} {
		if !strings.Contains(text, title) {
			t.Errorf("text lacks %q", title)
		}
	}
	tabs := tables(t, str(t, data, MIMEHTML))
	if len(tabs) != 12 { // D and Π for k = 0..5
		t.Fatalf("%d tables, want 12", len(tabs))
	}
	// k=3 (through c) changes a→e, b→a, b→d, b→e, d→a, d→b.
	want := [][2]int{{0, 4}, {1, 0}, {1, 3}, {1, 4}, {3, 0}, {3, 1}}
	for _, tab := range []int{6, 7} { // D⁽³⁾ and Π⁽³⁾
		got := changedCells(tabs[tab])
		if len(got) != len(want) {
			t.Fatalf("table %d: changed %v, want %v", tab, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("table %d: changed %v, want %v", tab, got, want)
				break
			}
		}
	}
	if len(changedCells(tabs[0])) != 0 {
		t.Error("the initial matrix has changed cells")
	}
	// Changed cells keep their value inside a <mark>, which sanitizers
	// that drop style attributes keep: D⁽⁵⁾ row d is "2* 4* 4 0 1".
	for ti, tab := range tabs {
		for i, row := range tab[1:] {
			for j, c := range row[1:] {
				if c.marked != c.changed {
					t.Errorf("table %d cell (%d,%d): marked %v, changed %v", ti, i, j, c.marked, c.changed)
				}
			}
		}
	}
	var rowD []string
	for _, c := range tabs[10][4] {
		rowD = append(rowD, c.text)
	}
	if got := strings.Join(rowD, " "); got != "d 2 4 4 0 1" {
		t.Errorf("D⁽⁵⁾ row d reads %q", got)
	}
	h := str(t, data, MIMEHTML)
	for _, caption := range []string{">D<sup>(3)</sup></caption>", ">Π<sup>(5)</sup></caption>"} {
		if !strings.Contains(h, caption) {
			t.Errorf("HTML lacks the caption %q", caption)
		}
	}
}

func TestPartialTraceNoteIsSmallText(t *testing.T) {
	tr := fwReference(example(t, "karaula-fig3.1"))
	h := str(t, bundle(t, FWTrace(tr).Steps(4, 5)), MIMEHTML)
	want := `<div style="` + noteStyle + `">showing 2 of 6 steps (choose others with Steps(from, to) or Step(i))</div>`
	if !strings.Contains(h, want) || strings.Contains(h, "<pre>") {
		t.Errorf("the note on left-out steps is not a small remark:\n%s", h[max(0, len(h)-300):])
	}
}

// blockedTrace is a hand-made blocked trace of a 4-vertex graph, tile 2.
func blockedTrace() *graph.FWTrace {
	inf := graph.Inf
	d0 := []int32{0, 5, 9, inf, inf, 0, 1, inf, inf, inf, 0, 2, inf, 3, inf, 0}
	d2 := append([]int32(nil), d0...)
	d2[2] = 6 // a→c through b
	return &graph.FWTrace{N: 4, Labels: []string{"a", "b", "c", "d"}, Solver: "test", Tile: 2, Steps: []graph.FWStep{
		{K: 0, Round: -1, Dist: d0},
		{K: 0, Round: 0, Phase: 1, Updated: [][2]int{{0, 0}}, Dist: d0},
		{K: 0, Round: 0, Phase: 2, Updated: [][2]int{{0, 1}, {1, 0}}, Dist: d2},
	}}
}

func TestBlockedTraceMarksTiles(t *testing.T) {
	v := FWTrace(blockedTrace())
	data := bundle(t, v)
	text := str(t, data, MIMEText)
	wantContains(t, "text", text,
		"round 0, phase 1: primary tile 0 (a–b); updated tiles (0,0); unchanged",
		"round 0, phase 2: primary tile 0 (a–b); updated tiles (0,1) (1,0)",
		"a  0  5  6*  ∞",
	)
	tabs := tables(t, str(t, data, MIMEHTML))
	if len(tabs) != 3 { // no Π in this trace
		t.Fatalf("%d tables, want 3", len(tabs))
	}
	phase2 := tabs[2]
	for i, row := range phase2[1:] {
		for j, c := range row[1:] {
			primary := i < 2 && j < 2
			shaded := (i < 2) != (j < 2) // tiles (0,1) and (1,0)
			if got := strings.Contains(c.style, "box-shadow"); got != primary {
				t.Errorf("cell (%d,%d) framed=%v, want %v", i, j, got, primary)
			}
			if got := strings.Contains(c.style, "#e3edff"); got != shaded {
				t.Errorf("cell (%d,%d) shaded=%v, want %v", i, j, got, shaded)
			}
		}
	}
	if got := changedCells(phase2); len(got) != 1 || got[0] != [2]int{0, 2} {
		t.Errorf("phase 2 changed %v, want [(0,2)]", got)
	}
}

func TestTraceStepSelection(t *testing.T) {
	tr := fwReference(example(t, "karaula-fig3.1"))
	v := FWTrace(tr).Steps(1, 2)
	text := str(t, bundle(t, v), MIMEText)
	if strings.Contains(text, "k = 3") || !strings.Contains(text, "k = 2") || !strings.Contains(text, "showing 2 of 6 steps") {
		t.Errorf("Steps(1, 2):\n%s", text)
	}
	one := str(t, bundle(t, FWTrace(tr).Step(4)), MIMEText)
	if !strings.HasPrefix(one, "k = 4") || !strings.Contains(one, "* changed (4 cells)") {
		t.Errorf("Step(4):\n%s", one)
	}
	if err := FWTrace(tr).Step(6).(errer).Err(); err == nil || !strings.Contains(err.Error(), "steps 0..5") {
		t.Errorf("Step(6): err = %v", err)
	}
	if err := FWTrace(tr).Steps(3, 1).Err(); err == nil {
		t.Error("Steps(3, 1) gave no error")
	}

	big, err := graph.GNM(40, 200, graph.WeightRange{Min: 1, Max: 9}, 1)
	if err != nil {
		t.Fatal(err)
	}
	text = str(t, bundle(t, FWTrace(fwReference(big))), MIMEText)
	if !strings.Contains(text, "showing 4 of 41 steps") || !strings.Contains(text, "k = 40") || strings.Contains(text, "k = 3\n") {
		t.Errorf("a large trace should show steps 0, 1, 2 and 40 only")
	}
}

func TestFWTraceRejectsInconsistentTraces(t *testing.T) {
	bad := blockedTrace()
	bad.Steps[1].Dist = bad.Steps[1].Dist[:3]
	noTile := blockedTrace()
	noTile.Tile = 0
	for _, tt := range []struct {
		tr   *graph.FWTrace
		want string
	}{
		{nil, "nil trace"},
		{&graph.FWTrace{N: 2}, "no steps"},
		{bad, "step 1 (round 0, phase 1) has 3 distances, want 4×4"},
		{noTile, "trace has tile 0"},
	} {
		if err := FWTrace(tt.tr).Err(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("err = %v, want %q", err, tt.want)
		}
	}
}

// musapTrace is [Musap 2016]'s Dijkstra example (§2.5) from s, with the completion
// a→d 6, b→d 2, written out by hand from Figs. 2.4–2.6.
func musapTrace() *graph.DijkstraTrace {
	inf := graph.Inf
	return &graph.DijkstraTrace{
		N: 5, Labels: []string{"s", "a", "b", "c", "d"}, Source: 0, Solver: "test",
		Initial: []int32{0, inf, inf, inf, inf},
		Steps: []graph.DijkstraStep{
			{Settled: 0, Dist: []int32{0, 2, 7, inf, inf}},
			{Settled: 1, Dist: []int32{0, 2, 5, 10, 8}},
			{Settled: 2, Dist: []int32{0, 2, 5, 6, 7}},
			{Settled: 3, Dist: []int32{0, 2, 5, 6, 7}},
			{Settled: 4, Dist: []int32{0, 2, 5, 6, 7}},
		},
		Frontier: []graph.FrontierStep{
			{Frontier: []int{0}, Dist: []int32{0, 2, 7, inf, inf}, Min: 2, Next: []int{1}, Unsettled: []int{2, 3, 4}},
			{Frontier: []int{1}, Dist: []int32{0, 2, 5, 10, 8}, Min: 5, Next: []int{2}, Unsettled: []int{3, 4}},
			{Frontier: []int{2}, Dist: []int32{0, 2, 5, 6, 7}, Min: 6, Next: []int{3}, Unsettled: []int{4}},
			{Frontier: []int{3}, Dist: []int32{0, 2, 5, 6, 7}, Min: 7, Next: []int{4}, Unsettled: nil},
			{Frontier: []int{4}, Dist: []int32{0, 2, 5, 6, 7}, Min: inf, Next: nil, Unsettled: nil},
		},
	}
}

func TestDijkstraTraceTables(t *testing.T) {
	v := DijkstraTrace(musapTrace())
	seq := v.Sequential().Text()
	wantContains(t, "sequential table", seq,
		"step  settled  C[s]  C[a]  C[b]  C[c]  C[d]  U after the step",
		"init  –           0     ∞     ∞     ∞     ∞  {s,a,b,c,d}",
		"2     a           0     2     5    10     8  {b,c,d}",
		"5     d           0     2     5     6     7  ∅",
		"settle order: s, a, b, c, d",
	)
	front := v.FrontierTable().Text()
	wantContains(t, "frontier table", front,
		"(init)     –               [0,∞,∞,∞,∞]    –     {s}             {a,b,c,d}",
		"1          {s}             [0,2,7,∞,∞]    2     {a}             {b,c,d}",
		"5          {d}             [0,2,5,6,7]    ∞     ∅               ∅",
		"5 while-iterations for 5 settled vertices",
	)
	// One table per state of the stepper (initial and 5 steps), then the
	// frontier table.
	if c := strings.Count(str(t, bundle(t, v), MIMEHTML), "<table"); c != 7 {
		t.Errorf("bundle has %d tables, want 7", c)
	}
}

func TestDijkstraTraceErrors(t *testing.T) {
	short := musapTrace()
	short.Steps[2].Dist = short.Steps[2].Dist[:2]
	outside := musapTrace()
	outside.Frontier[0].Next = []int{9}
	for _, tt := range []struct {
		tr   *graph.DijkstraTrace
		want string
	}{
		{nil, "nil trace"},
		{&graph.DijkstraTrace{N: 2, Source: 3}, "source 3 out of range"},
		{short, "step 3 settles vertex 2 with 2 distances"},
		{outside, "frontier iteration 1 names vertex 9"},
	} {
		v := DijkstraTrace(tt.tr)
		if err := v.Err(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("err = %v, want %q", err, tt.want)
		}
		if v.Sequential().Err() == nil {
			t.Errorf("Sequential of a bad trace (%s) has no error", tt.want)
		}
	}
}

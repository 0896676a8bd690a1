package display

import (
	"strings"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/graph"
)

// benchTable is [Karaula 2017] Table 1's first rows (dense graphs, seconds).
func benchTable() *Table {
	t := NewTable("FW, dense graphs", "|V|", "CPU", "CUDA v1", "note").Units("", "s", "s", "")
	t.Add(5, 1.0e-06, 0.0516, "")
	t.Add(1000, 9.86, 0.155, "GPU wins")
	t.Add(12500, 24007.0, 345.0, nil)
	return t.Ratio("CPU÷v1", "CPU", "CUDA v1")
}

func TestTableTextIsAligned(t *testing.T) {
	want := strings.Join([]string{
		"FW, dense graphs",
		"  |V|  CPU (s)  CUDA v1 (s)  note      CPU÷v1 (×)",
		"    5    1e-06       0.0516             1.938e-05",
		" 1000     9.86        0.155  GPU wins       63.61",
		"12500    24007          345                 69.59",
	}, "\n")
	if got := benchTable().Text(); got != want {
		t.Errorf("text =\n%s\nwant\n%s", got, want)
	}
}

func TestTableMarkdownAndHTML(t *testing.T) {
	tab := benchTable()
	md := tab.Markdown()
	wantContains(t, "markdown", md,
		"| \\|V\\| | CPU (s) | CUDA v1 (s) | note | CPU÷v1 (×) |",
		"|---:|---:|---:|---|---:|",
		"| 1000 | 9.86 | 0.155 | GPU wins | 63.61 |",
	)
	data := bundle(t, tab)
	rows := parseTable(t, str(t, data, MIMEHTML))
	if len(rows) != 4 || rows[2][4].text != "63.61" || rows[2][3].text != "GPU wins" {
		t.Errorf("HTML rows = %+v", rows)
	}
	if !strings.Contains(rows[2][3].style, "text-align:left") || strings.Contains(rows[2][1].style, "text-align:left") {
		t.Error("text columns should be left-aligned and number columns right-aligned")
	}
	if data[MIMEMarkdown] != md {
		t.Error("bundle's markdown differs from Markdown()")
	}
}

func TestTableRatioCoversLaterRowsAndSkipsNonNumbers(t *testing.T) {
	tab := NewTable("", "variant", "t", "base").Ratio("speed-up", "base", "t")
	tab.Add("a", 2*time.Millisecond, 10*time.Millisecond)
	tab.Add("b", 0.0, 1.0)
	tab.Add("c", "n/a", 1.0)
	text := tab.Text()
	// "n/a" makes column t text (left-aligned); b's ratio 1/0 and c's are empty.
	for _, want := range []string{"a        2ms  10ms             5\n", "b        0       1\n", "c        n/a     1\n"} {
		if !strings.Contains(text+"\n", want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

func TestTableCells(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{graph.Inf, "∞"},
		{int32(-3), "-3"},
		{1500 * time.Microsecond, "1.5ms"},
		{2500 * time.Millisecond, "2.5s"},
		{830 * time.Nanosecond, "830ns"},
		{3.14159, "3.142"},
		{123456.7, "123457"},
		{1e-7, "1e-07"},
		{true, "true"},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := formatCell(tt.v); got != tt.want {
			t.Errorf("formatCell(%#v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestTableErrorsAndLimit(t *testing.T) {
	tab := NewTable("x", "a", "b").Add(1)
	if err := tab.Err(); err == nil || !strings.Contains(err.Error(), "row 1 has 1 cells, want 2 (a, b)") {
		t.Errorf("short row: err = %v", err)
	}
	if err := NewTable("x", "a").Ratio("r", "a", "z").Err(); err == nil || !strings.Contains(err.Error(), `no column "z"`) {
		t.Errorf("unknown ratio column: err = %v", err)
	}
	if err := NewTable("x").Err(); err == nil {
		t.Error("a table without columns gave no error")
	}
	if err := NewTable("x", "a").Units("s", "s").Err(); err == nil {
		t.Error("too many units gave no error")
	}
	long := NewTable("", "i").Limit(3)
	for i := 0; i < 10; i++ {
		long.Add(i)
	}
	text := long.Text()
	if !strings.HasSuffix(text, "… 7 more rows (10 in all)") || strings.Contains(text, "\n3\n") {
		t.Errorf("limited table:\n%s", text)
	}
}

func TestSingleSourceTable(t *testing.T) {
	s := &graph.SingleSource{Source: 0, Dist: []int32{0, 2, graph.Inf}, Pred: []int32{-1, 0, -1},
		Labels: []string{"s", "a", "z"}, Solver: "dijkstra-cpu"}
	text := SingleSource(s).Text()
	want := strings.Join([]string{
		"distances from s (dijkstra-cpu)",
		"vertex  distance  predecessor  path",
		"s              0  NIL          s",
		"a              2  s            s → a",
		"z              ∞  NIL          unreachable",
	}, "\n")
	if text != want {
		t.Errorf("text =\n%s\nwant\n%s", text, want)
	}
}

func TestTableDrop(t *testing.T) {
	tab := benchTable().Drop("|V|", "note")
	want := strings.Join([]string{
		"FW, dense graphs",
		"CPU (s)  CUDA v1 (s)  CPU÷v1 (×)",
		"  1e-06       0.0516   1.938e-05",
		"   9.86        0.155       63.61",
		"  24007          345       69.59",
	}, "\n")
	if err := tab.Err(); err != nil {
		t.Fatal(err)
	}
	if got := tab.Text(); got != want {
		t.Errorf("after Drop(|V|, note):\n%s\nwant\n%s", got, want)
	}
	if err := tab.Add(2.0, 1.0).Err(); err != nil {
		t.Errorf("a row of the remaining columns: %v", err)
	}
	if err := benchTable().Drop("CPU").Err(); err == nil || !strings.Contains(err.Error(), `read by ratio "CPU÷v1"`) {
		t.Errorf("dropping a ratio's column: %v", err)
	}
	if err := benchTable().Drop("GPU").Err(); err == nil || !strings.Contains(err.Error(), `no column "GPU"`) {
		t.Errorf("dropping an unknown column: %v", err)
	}
}

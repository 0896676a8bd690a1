package display

import (
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/graph"
)

// The CSR view draws the arrays the graph holds, an arrow from each
// vertex with arcs to its first arc, and the list they pack.
func TestCSR(t *testing.T) {
	g, err := graph.NewBuilder(4).AddArc(0, 2, 5).AddArc(0, 3, 9).AddArc(2, 1, 4).Build()
	if err != nil {
		t.Fatal(err)
	}
	v := CSR(g).Names("V_a", "E_a", "W_a")
	wantContains(t, "text", v.Text(), "V_a = [0 2 2 3 3]", "E_a = [2 3 1]", "W_a = [5 9 4]", "0 → 2 (5), 3 (9)", "1 → (none)")
	wantContains(t, "text", v.WithoutEnd().Text(), "V_a = [0 2 2 3]")
	svg, err := CSR(g).SVG()
	if err != nil {
		t.Fatal(err)
	}
	boxes, arrows := 0, 0
	for _, e := range parseXML(t, svg, false) {
		switch e.attrs["class"] {
		case "box":
			boxes++
		case "points-to":
			arrows++
		}
	}
	if boxes != 5+3+3 || arrows != 2 {
		t.Errorf("%d boxes and %d arrows, want 11 and 2 (vertices 0 and 2 have arcs)", boxes, arrows)
	}
	big, _ := graph.GNM(50, 60, graph.WeightRange{Min: 1, Max: 9}, 1)
	if err := CSR(big).Err(); err == nil || !strings.Contains(err.Error(), "at most 40") {
		t.Errorf("CSR of 60 arcs: %v", err)
	}
}

// RowReads draws a thread a cell and an arrow from every thread off
// column k to its row's d[i][k].
func TestRowReads(t *testing.T) {
	v := RowReads(4, 1)
	svg, err := v.SVG()
	if err != nil {
		t.Fatal(err)
	}
	threads, pivots, reads := 0, 0, 0
	for _, e := range parseXML(t, svg, false) {
		switch c := e.attrs["class"]; {
		case strings.HasPrefix(c, "thread ") || c == "thread":
			threads++
			if strings.Contains(c, "pivot") {
				pivots++
			}
		case c == "reads":
			reads++
		}
	}
	if threads != 16 || pivots != 4 || reads != 12 {
		t.Errorf("%d threads, %d on column k, %d arrows; want 16, 4, 12", threads, pivots, reads)
	}
	wantContains(t, "text", v.Text(), "row 2: threads (0..3, 2) all read d[2][1]")
	for _, bad := range []*RowReadsView{RowReads(9, 0), RowReads(4, 4)} {
		if bad.Err() == nil {
			t.Error("no error for a bad RowReads")
		}
	}
}

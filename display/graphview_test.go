package display

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pathnotes/pathnotes/graph"
)

// svgOf draws v and parses the SVG strictly.
func svgOf(t *testing.T, v *GraphView) (string, []element) {
	t.Helper()
	data := bundle(t, v)
	s := str(t, data, MIMESVG)
	els := parseXML(t, s, false)
	if len(els) == 0 || els[0].name != "svg" {
		t.Fatalf("root element is not <svg>")
	}
	return s, els
}

// byClass returns the elements whose class attribute is exactly class.
func byClass(els []element, name, class string) []element {
	var out []element
	for _, e := range els {
		if e.name == name && e.attrs["class"] == class {
			out = append(out, e)
		}
	}
	return out
}

func TestGraphSVGHasVerticesArcsAndWeights(t *testing.T) {
	g := example(t, "karaula-fig3.1")
	wantSVGImage(t, bundle(t, Graph(g)))
	_, els := svgOf(t, Graph(g))
	var labels []string
	for _, e := range els {
		if e.name == "text" && e.attrs["font-size"] != "" && e.attrs["class"] == "" && e.text != "" {
			labels = append(labels, e.text)
		}
	}
	if got := strings.Join(labels, ","); got != "a,b,c,d,e" {
		t.Errorf("vertex label texts = %s, want a,b,c,d,e", got)
	}
	if n := len(byClass(els, "g", "vertex")); n != 5 {
		t.Errorf("%d vertex groups, want 5", n)
	}
	arcs := byClass(els, "g", "arc")
	if len(arcs) != 9 {
		t.Fatalf("%d arcs, want 9", len(arcs))
	}
	var weights []string
	for _, e := range byClass(els, "text", "weight") {
		weights = append(weights, e.text)
	}
	if got := strings.Join(weights, " "); got != "5 2 2 3 7 4 1 1 3" {
		t.Errorf("weights = %q, want the arcs' weights in CSR order", got)
	}
	// Every arc has a line and an arrowhead.
	paths, polys := 0, 0
	for _, e := range els {
		switch e.name {
		case "path":
			paths++
		case "polygon":
			polys++
		}
	}
	if paths != 9 || polys != 9 {
		t.Errorf("%d paths and %d arrowheads, want 9 each", paths, polys)
	}
}

func TestGraphPathHighlighted(t *testing.T) {
	g := example(t, "karaula-fig3.1")
	p := graph.Path{Vertices: []int{3, 4, 1}, Weight: 4, Labels: g.Labels()} // d → e → b
	s, els := svgOf(t, Graph(g).Path(p))
	onPath := byClass(els, "g", "arc path")
	if len(onPath) != 2 {
		t.Fatalf("%d highlighted arcs, want 2", len(onPath))
	}
	var titles []string
	for i, e := range els {
		if e.name == "g" && e.attrs["class"] == "arc path" {
			titles = append(titles, els[i+1].text)
		}
	}
	if strings.Join(titles, ", ") != "d → e: 1, e → b: 3" {
		t.Errorf("highlighted arc titles = %q", titles)
	}
	if len(byClass(els, "g", "arc")) != 7 {
		t.Errorf("plain arcs = %d, want 7", len(byClass(els, "g", "arc")))
	}
	// Highlighted arcs are drawn in the path colour and thicker.
	if strings.Count(s, `stroke="`+pathColor+`" stroke-width="3.2"`) != 2 {
		t.Errorf("highlighted arcs are not styled differently")
	}
	if !strings.Contains(s, "path d → e → b (weight 4)") {
		t.Error("the path is not named under the drawing")
	}
	// The two highlighted weights, and only they, sit on white plates
	// centred on them and wide enough for their digits.
	plates := byClass(els, "rect", "plate")
	var onPathWeights []element
	for _, w := range byClass(els, "text", "weight") {
		if w.attrs["fill"] == pathColor {
			onPathWeights = append(onPathWeights, w)
		}
	}
	if len(plates) != 2 || len(onPathWeights) != 2 {
		t.Fatalf("%d plates for %d highlighted weights, want 2 and 2", len(plates), len(onPathWeights))
	}
	for i, w := range onPathWeights {
		r := plates[i]
		cx := num(t, r.attrs["x"]) + num(t, r.attrs["width"])/2
		cy := num(t, r.attrs["y"]) + num(t, r.attrs["height"])/2
		if math.Abs(cx-num(t, w.attrs["x"])) > 0.1 || math.Abs(cy-num(t, w.attrs["y"])) > 0.1 {
			t.Errorf("plate %d centred at (%g,%g), its weight at (%s,%s)", i, cx, cy, w.attrs["x"], w.attrs["y"])
		}
		size := num(t, w.attrs["font-size"])
		if width := num(t, r.attrs["width"]); width < plateWidth*size*float64(len(w.text)) || num(t, r.attrs["height"]) < size {
			t.Errorf("plate %d is %s×%s for %q at font size %g", i, r.attrs["width"], r.attrs["height"], w.text, size)
		}
		if r.attrs["fill"] != "#ffffff" {
			t.Errorf("plate %d fill %q", i, r.attrs["fill"])
		}
	}

	bad := Graph(g).Path(graph.Path{Vertices: []int{0, 2}, Weight: 1})
	if err := bad.Err(); err == nil || !strings.Contains(err.Error(), "a→c (position 1) is not an arc") {
		t.Errorf("path over a missing arc: err = %v", err)
	}
}

func TestGraphTreeHighlighted(t *testing.T) {
	g := example(t, "musap-sabcd")
	// Distances and predecessors of [Musap 2016] §2.5: s=0 a=2 b=5 c=6 d=7.
	s := &graph.SingleSource{Source: 0, Dist: []int32{0, 2, 5, 6, 7}, Pred: []int32{-1, 0, 1, 2, 2}, Labels: g.Labels()}
	_, els := svgOf(t, Graph(g).Tree(s))
	if n := len(byClass(els, "g", "arc tree")); n != 4 {
		t.Errorf("%d tree arcs, want 4", n)
	}
	var dists []string
	for _, e := range byClass(els, "text", "dist") {
		dists = append(dists, e.text)
	}
	if strings.Join(dists, " ") != "0 2 5 6 7" {
		t.Errorf("distance labels = %v", dists)
	}
	if got := noteText(t, els); got != "shortest-path tree from s: 5 of 5 vertices reached; the bold number by a vertex is its distance" {
		t.Errorf("note under the tree: %q", got)
	}
	wrong := &graph.SingleSource{Source: 0, Dist: []int32{0, 2, 5, 6, 7}, Pred: []int32{-1, 0, 1, 2, 0}}
	if err := Graph(g).Tree(wrong).Err(); err == nil || !strings.Contains(err.Error(), "s→d is not an arc") {
		t.Errorf("tree arc not in graph: err = %v", err)
	}
}

func TestGraphSelfLoopAndReversePair(t *testing.T) {
	g, err := graph.FromTriples(3, [][3]int{{0, 1, 4}, {1, 0, 6}, {1, 2, 1}, {2, 2, -1}})
	if err != nil {
		t.Fatal(err)
	}
	s, els := svgOf(t, Graph(g))
	curves, loops, lines := 0, 0, 0
	for _, e := range els {
		if e.name != "path" {
			continue
		}
		switch d := e.attrs["d"]; {
		case strings.Contains(d, "Q"):
			curves++
		case strings.Contains(d, "C"):
			loops++
		case strings.Contains(d, "L"):
			lines++
		}
	}
	if curves != 2 || loops != 1 || lines != 1 {
		t.Errorf("curves %d loops %d lines %d, want 2 1 1:\n%s", curves, loops, lines, s)
	}
	if !strings.Contains(s, ">-1</text>") {
		t.Error("the self-loop's weight is not written")
	}
}

func TestGraphDrawingIsDeterministic(t *testing.T) {
	g, err := graph.GNM(40, 90, graph.WeightRange{Min: 1, Max: 9}, 11)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := Graph(g).SVG()
	b, _ := Graph(g).SVG()
	c, err := Graph(g).Seed(2).SVG()
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Error("two drawings of the same graph differ")
	}
	if a == c {
		t.Error("another seed gave the same force layout")
	}
	if !strings.Contains(Graph(g).Text(), "layout: force-directed (Eades)") {
		t.Error("a 40-vertex graph did not get the force layout")
	}
}

func TestGraphVerticesDoNotOverlap(t *testing.T) {
	g, err := graph.GNM(120, 400, graph.WeightRange{Min: 1, Max: 9}, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []Layout{ForceLayout, CircleLayout} {
		v := Graph(g).Layout(l)
		d, err := v.draw()
		if err != nil {
			t.Fatal(err)
		}
		for i := range d.pos {
			for j := i + 1; j < len(d.pos); j++ {
				dx, dy := d.pos[i].X-d.pos[j].X, d.pos[i].Y-d.pos[j].Y
				if dx*dx+dy*dy < (2*d.radius)*(2*d.radius) {
					t.Fatalf("%v: vertices %d and %d overlap", l, i, j)
				}
			}
			if p := d.pos[i]; p.X < d.radius || p.X > d.w-d.radius || p.Y < d.radius || p.Y > d.top+d.h-d.radius {
				t.Fatalf("%v: vertex %d at %v is outside the %gx%g canvas", l, i, p, d.w, d.h)
			}
		}
	}
}

func TestLargeGraphIsSampledWithSummary(t *testing.T) {
	g, err := graph.GNM(1000, 3000, graph.WeightRange{Min: -2, Max: 9}, 3)
	if err != nil {
		t.Fatal(err)
	}
	v := Graph(g).MaxVertices(50)
	data := bundle(t, v)
	s := str(t, data, MIMESVG)
	els := parseXML(t, s, false)
	if n := len(byClass(els, "g", "vertex")); n != 50 {
		t.Errorf("%d vertices drawn, want 50", n)
	}
	if !strings.Contains(s, "showing 50 of 1000 vertices (breadth-first from vertex 0)") {
		t.Error("sample note missing from the SVG")
	}
	text := str(t, data, MIMEText)
	wantContains(t, "text", text, "vertices n                   1000", "arcs m                       3000", "showing 50 of 1000")
	h := str(t, data, MIMEHTML)
	if svgs, _ := svgImages(t, h); len(svgs) != 1 || svgs[0] != s || !strings.Contains(h, "density ρ") {
		t.Error("HTML does not hold the drawing and the summary")
	}
}

func TestSummaryCounts(t *testing.T) {
	g, err := graph.FromTriples(5, [][3]int{{0, 1, 4}, {1, 0, -6}, {1, 2, 1}, {2, 2, -1}, {0, 2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	s := Summary(g)
	got := []int{s.N, s.M, s.MinOut, s.MaxOut, s.MaxOutVertex, s.MinIn, s.MaxIn, s.MaxInVertex,
		s.Sources, s.Sinks, s.Isolated, s.NegativeArcs, s.SelfLoops, s.ReciprocatedArcs}
	want := []int{5, 5, 0, 2, 0, 0, 3, 2, 2, 2, 2, 2, 1, 2}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("field %d = %d, want %d (all: %v)", i, got[i], want[i], got)
		}
	}
	if s.MinWeight != -6 || s.MaxWeight != 4 || s.MeanDegree != 1 {
		t.Errorf("weights %d..%d mean degree %g", s.MinWeight, s.MaxWeight, s.MeanDegree)
	}
	if !strings.Contains(s.Text(), "out-degree min / mean / max  0 / 1 / 2 (0)") {
		t.Errorf("text:\n%s", s.Text())
	}
}

func TestGraphOptionErrors(t *testing.T) {
	g := example(t, "karaula-fig3.1")
	tests := []struct {
		v    *GraphView
		want string
	}{
		{Graph(nil), "nil graph"},
		{Graph(g).MaxVertices(0), "MaxVertices(0)"},
		{Graph(g).Layout(Layout(9)), "unknown layout 9"},
		{Graph(g).Tree(nil), "nil result"},
		{Graph(g).Tree(&graph.SingleSource{Dist: []int32{0}}), "result has 1 vertices, graph 5"},
		{Graph(g).Path(graph.Path{Vertices: []int{7}}), "path vertex 7"},
	}
	for _, tt := range tests {
		if err := tt.v.Err(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("err = %v, want %q", err, tt.want)
		}
		if _, err := tt.v.SVG(); err == nil {
			t.Errorf("SVG of a bad view (%s) gave no error", tt.want)
		}
	}
	disconnected, _ := graph.FromTriples(4, [][3]int{{0, 1, 1}, {2, 3, 1}})
	if _, err := Graph(disconnected).Layout(IsomapLayout).SVG(); err == nil || !strings.Contains(err.Error(), "connected") {
		t.Errorf("isomap on a disconnected graph: err = %v", err)
	}
	connected, _ := graph.FromTriples(4, [][3]int{{0, 1, 1}, {1, 2, 1}, {2, 3, 1}})
	if _, err := Graph(connected).Layout(IsomapLayout).SVG(); err != nil {
		t.Errorf("isomap on a path graph: %v", err)
	}
}

func TestTinyGraphsDraw(t *testing.T) {
	for n := 0; n <= 2; n++ {
		var triples [][3]int
		if n == 2 {
			triples = [][3]int{{0, 1, 3}}
		}
		g, err := graph.FromTriples(n, triples)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range []Layout{AutoLayout, CircleLayout, ForceLayout} {
			_, els := svgOf(t, Graph(g).Layout(l))
			if got := len(byClass(els, "g", "vertex")); got != n {
				t.Errorf("n=%d %v: %d vertices drawn", n, l, got)
			}
		}
	}
}

func TestLabelsAreEscaped(t *testing.T) {
	g, err := graph.NewBuilder(0).AddLabeled("<a&b>", `"q"`, 1).Name("x<y").Build()
	if err != nil {
		t.Fatal(err)
	}
	_, els := svgOf(t, Graph(g).Title("D & Π <k>"))
	found := false
	for _, e := range els {
		found = found || (e.name == "text" && e.text == "<a&b>")
	}
	if !found {
		t.Error("the label <a&b> did not survive escaping")
	}
	h := WeightMatrix(g).Title("<W>").HTML() + Summary(g).HTML()
	for _, want := range []string{"&lt;W&gt;", "&lt;a&amp;b&gt;", "x&lt;y summary"} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks the escaped %q", want)
		}
	}
}

func TestUndirectedEdgesDrawAsSingleLines(t *testing.T) {
	// A path a–b–c–d with a one-way arc d→a: three edges and one arc.
	g, err := graph.NewBuilder(4).Undirected().AddArc(0, 1, 2).AddArc(1, 2, 3).AddArc(2, 3, 4).Build()
	if err != nil {
		t.Fatal(err)
	}
	arcs := append(g.Arcs(), graph.Arc{From: 3, To: 0, Weight: 9}, graph.Arc{From: 0, To: 3, Weight: 8})
	g, err = graph.FromArcs(4, arcs)
	if err != nil {
		t.Fatal(err)
	}
	count := func(els []element, name string) int {
		n := 0
		for _, e := range els {
			if e.name == name {
				n++
			}
		}
		return n
	}
	_, els := svgOf(t, Graph(g))
	// Three edges drawn once without heads; 0→3 (8) and 3→0 (9) differ,
	// so they stay two arcs with heads.
	if p, h := count(els, "path"), count(els, "polygon"); p != 5 || h != 2 {
		t.Errorf("%d lines and %d arrowheads, want 5 and 2", p, h)
	}
	// Highlighting c→b→a keeps the arrowheads along the path.
	_, els = svgOf(t, Graph(g).Path(graph.Path{Vertices: []int{2, 1, 0}, Weight: 5}))
	highlighted := byClass(els, "g", "arc path")
	if len(highlighted) != 2 || count(els, "polygon") != 4 {
		t.Fatalf("%d highlighted edges and %d arrowheads, want 2 and 4", len(highlighted), count(els, "polygon"))
	}
	for i, e := range els {
		if e.name == "g" && e.attrs["class"] == "arc path" {
			if title := els[i+1].text; title != "2 ↔ 1: 3" && title != "1 ↔ 0: 2" {
				t.Errorf("highlighted edge %q is not oriented along the path", title)
			}
		}
	}
}

// noteText joins the caption lines under a drawing, after checking that
// each fits the drawing's width.
func noteText(t *testing.T, els []element) string {
	t.Helper()
	width := num(t, els[0].attrs["width"])
	var lines []string
	for _, e := range byClass(els, "text", "note") {
		if w := num(t, e.attrs["x"]) + svgTextWidth(e.text, num(t, e.attrs["font-size"]), false); w > width {
			t.Errorf("note line %q is about %.0f wide, the drawing %g", e.text, w, width)
		}
		lines = append(lines, e.text)
	}
	return strings.Join(lines, " ")
}

func TestLongNotesWrapInsideTheDrawing(t *testing.T) {
	// A path through all 12 vertices of a ring with long labels.
	b := graph.NewBuilder(12)
	labels := make([]string, 12)
	for i := range labels {
		labels[i] = fmt.Sprintf("station-%d", i)
		b.AddArc(i, (i+1)%12, 1)
	}
	g, err := b.Labels(labels...).Build()
	if err != nil {
		t.Fatal(err)
	}
	p := graph.Path{Weight: 11, Labels: labels}
	for i := 0; i < 12; i++ {
		p.Vertices = append(p.Vertices, i)
	}
	_, els := svgOf(t, Graph(g).Path(p))
	want := "path " + strings.Join(labels, " → ") + " (weight 11)"
	if got := noteText(t, els); got != want {
		t.Errorf("note = %q, want %q", got, want)
	}
	if n := len(byClass(els, "text", "note")); n < 2 {
		t.Errorf("the %d-character note stands on %d line", len(want), n)
	}
}

func TestWrapText(t *testing.T) {
	runes := func(s string) float64 { return float64(utf8.RuneCountInString(s)) }
	for _, tt := range []struct {
		s     string
		width float64
		want  []string
	}{
		{"a bb ccc", 4, []string{"a bb", "ccc"}},
		{"a bb ccc", 8, []string{"a bb ccc"}},
		{"longword x", 3, []string{"longword", "x"}},
		{"  ", 5, nil},
	} {
		if got := wrapText(tt.s, runes, tt.width); !slices.Equal(got, tt.want) {
			t.Errorf("wrapText(%q, %g) = %q, want %q", tt.s, tt.width, got, tt.want)
		}
	}
}

// num parses a number attribute.
func num(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("attribute %q is not a number", s)
	}
	return f
}

package display

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/internal/plotcheck"
)

// plotKinds are plots of every kind the display draws, with the shapes
// that used to read badly.
func plotKinds() map[string]*Plot {
	ns := []float64{10, 100, 1000, 1e4, 1e5, 1e6}
	six := NewPlot("log-log, six series over five decades", "n", "seconds")
	for k := range 6 {
		ys := make([]float64, len(ns))
		for i, n := range ns {
			ys[i] = 1e-6 * math.Pow(n, 1+float64(k)/5)
		}
		six.Line(fmt.Sprintf("variant %d", k), ns, ys)
	}
	big := []float64{1e6, 2e6, 4e6, 6e6, 8e6, 1e7}
	sizes := []float64{1024, 2048, 4096, 8192}
	return map[string]*Plot{
		"six series": six,
		"few points": NewPlot("few points", "n", "s").Line("a", []float64{1, 2, 3}, []float64{2, 3, 2.5}),
		"one point":  NewPlot("one point", "n", "s").Line("a", []float64{5}, []float64{7}),
		"x to 1e7": NewPlot("x up to 1e7", "|V|", "seconds").Line("cpu", big, []float64{0.5, 1, 2.4, 4.3, 6, 8}).
			Line("gpu", big, []float64{0.01, 0.02, 0.03, 0.05, 0.06, 0.08}),
		"within a decade": NewPlot("within a decade", "n", "s").LogLog().Line("a", []float64{1000, 2000, 4000, 8000}, []float64{1, 2, 3, 4}),
		"speed-up":        NewPlot("speed-up", "n", "×").LogX().Speedup("gpu", []float64{1000, 2000, 4000}, []float64{1, 8, 64}, []float64{0.5, 2, 9}),
		"bars": NewPlot("bars", "variant", "s").Bar("n=256", []string{"naive", "blocked", "gpu"}, []float64{0.03, 0.01, 0.002}).
			Bar("n=512", []string{"naive", "blocked", "gpu"}, []float64{0.25, 0.04, 0.005}),
		"one bar":     NewPlot("one bar", "variant", "s").Bar("a", []string{"only"}, []float64{3}),
		"small plot":  NewPlot("small", "n", "s").Size(8, 5).Line("a long series name", big, []float64{1, 2, 3, 4, 5, 1e4}),
		"long legend": NewPlot("long legend", "n", "s").Line(strings.Repeat("a very long series name ", 3), big, big),
		"long title": NewPlot("a title much longer than the plot is wide, which used to run past both of its edges", "n", "s").
			Line("a", sizes, sizes),
		"document beside measured": NewPlot("document and here", "|V|", "seconds").LogLog().
			Documented("fw-hn", []float64{100, 1000, 1e4}, []float64{0.002, 0.9, 700}).
			Line("fw-hn", sizes, []float64{0.003, 0.02, 0.15, 1.1}).Sources("[Karaula 2017]", "here"),
		"fitted": NewPlot("with a fit", "|V|", "seconds").LogY().Line("cpu", big, []float64{0.5, 1, 2.4, 4.3, 6, 8}).
			Fit("cpu", func(x float64) float64 { return -0.3 + 0.8e-6*x }),
	}
}

// read renders p as SVG and reads it back.
func read(t *testing.T, p *Plot) plotcheck.Picture {
	t.Helper()
	raw, err := p.Render("svg")
	if err != nil {
		t.Fatal(err)
	}
	s, err := plotcheck.Read(string(raw))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Every kind of plot, drawn with the defaults, has labelled axes, a label
// in every decade of a log axis and no text past the canvas's edges, and
// its legend names each series once, in the series' colour.
func TestEveryPlotKindReads(t *testing.T) {
	for name, p := range plotKinds() {
		s := read(t, p)
		if !s.Plot {
			t.Errorf("%s: the root element lacks class %q", name, plotSVGClass)
		}
		// A legend outside the plot grows the image, never shrinks it.
		if s.W < float64(vg.Length(p.widthCm)*vg.Centimeter)-0.01 || s.H < float64(vg.Length(p.heightCm)*vg.Centimeter)-0.01 {
			t.Errorf("%s: canvas %g×%g pt, want at least %g×%g cm", name, s.W, s.H, p.widthCm, p.heightCm)
		}
		for _, problem := range s.Problems() {
			t.Errorf("%s: %s", name, problem)
		}
		if names := p.names(); len(s.Series) != len(names) {
			t.Errorf("%s: legend names %v, want %v", name, s.Series, names)
		}
		for _, problem := range plotcheck.Colors([]plotcheck.Picture{s}, []string{name}) {
			t.Error(problem)
		}
	}
}

// A series name keeps its colour from plot to plot, whatever else each
// plot shows, and a document's values take the colour of the series they
// belong to, with a key for each line style.
func TestSeriesKeepTheirColours(t *testing.T) {
	ns := []float64{1024, 2048, 4096, 8192}
	ys := []float64{0.01, 0.08, 0.6, 5}
	times := NewPlot("times", "n", "s").Line("colour test cpu", ns, ys).Line("colour test a", ns, ys).Line("colour test b", ns, ys)
	ups := NewPlot("speed-ups", "n", "×").Line("colour test b", ns, ns).Line("colour test a", ns, ns)
	docs := NewPlot("beside the document", "n", "s").Documented("colour test a", ns, ys).Line("colour test a", ns, ys).
		Sources("the thesis", "here")
	pics := []plotcheck.Picture{read(t, times), read(t, ups), read(t, docs)}
	for _, problem := range plotcheck.Colors(pics, []string{"times", "speed-ups", "document"}) {
		t.Error(problem)
	}
	if a, b := pics[0].Series["colour test a"], pics[1].Series["colour test a"]; a != b || a == "" {
		t.Errorf("colour test a is %q in one plot and %q in the next", a, b)
	}
	if got := pics[2].Keys; len(got) != 2 || got[0] != "here" || got[1] != "the thesis" {
		t.Errorf("keys %q, want the two line styles", got)
	}
	// The solvers' own colours hold in any session.
	if c := colorsFor([]string{"fw-blocked kernels"})[0]; c != vermillion {
		t.Errorf("fw-blocked kernels got palette colour %d, want fw-blocked's %d", c, vermillion)
	}
}

// A log axis ends at the decade its data come close to, and an x axis
// labels the sizes measured: 8192 among 1024, 2048 and 4096.
func TestAxesLabelDecadesAndSizes(t *testing.T) {
	ns := []float64{1024, 2048, 4096, 8192}
	s := read(t, NewPlot("sizes", "n", "s").LogLog().Line("a", ns, []float64{0.02, 0.09, 0.6, 4.5}))
	labels := map[string][]string{}
	for _, tx := range s.Texts {
		labels[tx.Class] = append(labels[tx.Class], strings.TrimSpace(tx.Text))
	}
	if got := strings.Join(labels[plotcheck.XTickClass], " "); got != "1024 2048 4096 8192" {
		t.Errorf("x labels %q, want the four sizes", got)
	}
	if got := strings.Join(labels[plotcheck.YTickClass], " "); got != "0.01 0.1 1 10" {
		t.Errorf("y labels %q, want every decade up to 10", got)
	}
	// A linear axis labels the sizes alone, not round steps between them
	// (04's Fig. 8: 6144 to 16384 had 1e4, 1.2e4 and 1.4e4 among them).
	lin := []float64{6144, 7168, 8192, 16384}
	s = read(t, NewPlot("sizes", "n", "s").LogY().Line("a", lin, []float64{0.1, 0.14, 0.2, 1.6}))
	var xs []string
	for _, tx := range s.Texts {
		if tx.Class == plotcheck.XTickClass {
			xs = append(xs, strings.TrimSpace(tx.Text))
		}
	}
	if got := strings.Join(xs, " "); got != "6144 7168 8192 16384" {
		t.Errorf("linear x labels %q, want the four sizes alone", got)
	}
	// Sizes of five digits, within one decade (the Gnutella graphs), are
	// labelled in full, and so is 16384 beside 8192.
	for _, ns := range [][]float64{{10876, 22687, 36682}, {4096, 8192, 16384}} {
		s := read(t, NewPlot("sizes", "n", "s").LogLog().Line("a", ns, []float64{2, 20, 60}))
		var xs []string
		for _, tx := range s.Texts {
			if tx.Class == plotcheck.XTickClass {
				xs = append(xs, strings.TrimSpace(tx.Text))
			}
		}
		for _, n := range ns {
			if !slices.Contains(xs, fmt.Sprint(n)) {
				t.Errorf("x labels %q, want %v among them", xs, n)
			}
		}
		for _, problem := range s.Problems() {
			t.Error(problem)
		}
	}
}

// Every schematic and drawing keeps its text inside: long headings and
// legends wrap.
func TestSchematicsRead(t *testing.T) {
	g, err := graph.Example("musap-sabcd")
	if err != nil {
		t.Fatal(err)
	}
	long := "a title much longer than the drawing is wide, which used to run past both of its edges"
	for name, v := range map[string]interface{ SVG() (string, error) }{
		"graph":      Graph(g).Title(long),
		"phase 3":    BlockedFW(128, 32, 1).Phase(3).Launch(4, 4, 32, 32),
		"shared":     BlockedFW(160, 32, 1).Phase(3).Shared(3, 2).Blocks(),
		"persistent": BlockedFW(160, 32, 1).Persistent(3),
		"csr":        CSR(g).Title(long),
		"row reads":  RowReads(4, 1),
	} {
		svg, err := v.SVG()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s, err := plotcheck.Read(svg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, problem := range s.Problems() {
			t.Errorf("%s: %s", name, problem)
		}
	}
}

// Every picture in the committed notebooks has its text inside, and every
// plot labelled axes (and, where it was drawn with its axes described, a
// label in every decade of a log axis). The root package's tests check
// the pictures of a fresh run of every notebook, colours included.
func TestCommittedNotebookPictures(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "notebooks", "*.ipynb"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no notebooks found (%v)", err)
	}
	plots := 0
	for _, path := range paths {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		found, err := plotcheck.Notebook(raw)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, f := range found {
			s, err := plotcheck.Read(f.SVG)
			if err != nil {
				t.Errorf("%s cell %d: SVG: %v", filepath.Base(path), f.Cell, err)
				continue
			}
			if s.Plot {
				plots++
			}
			for _, problem := range s.Problems() {
				t.Errorf("%s cell %d: %s", filepath.Base(path), f.Cell, problem)
			}
		}
	}
	if plots == 0 {
		t.Error("no plot found in the notebooks")
	}
}

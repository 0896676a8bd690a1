package display

import (
	"bytes"
	"image/png"
	"math"
	"strings"
	"testing"
	"time"
)

func timingPlot() *Plot {
	ns := []float64{100, 200, 400, 800}
	return NewPlot("FW time", "n", "seconds").LogLog().
		Line("fw-cpu", ns, []float64{0.004, 0.03, 0.25, 2.0}).
		Line("fw-hn", ns, []float64{0.001, 0.002, 0.008, 0.05})
}

func TestPlotSVG(t *testing.T) {
	data := bundle(t, timingPlot())
	wantSVGImage(t, data)
	s := str(t, data, MIMESVG)
	els := parseXML(t, s, false)
	if els[0].name != "svg" {
		t.Fatalf("root is <%s>", els[0].name)
	}
	texts := map[string]bool{}
	for _, e := range els {
		if e.name == "text" {
			texts[strings.TrimSpace(e.text)] = true
		}
	}
	for _, want := range []string{"FW time", "n", "seconds", "fw-cpu", "fw-hn", "100", "0.01"} {
		if !texts[want] {
			t.Errorf("SVG has no text %q", want)
		}
	}
	// Every text names fallbacks after gonum's font, ending in a generic family.
	styled := 0
	for _, e := range els {
		if e.name == "text" {
			styled++
			if !strings.Contains(e.attrs["style"], "font-family:'Liberation Sans',Arimo,Arial,Helvetica,sans-serif;") {
				t.Errorf("text %q has style %q, without font fallbacks", strings.TrimSpace(e.text), e.attrs["style"])
			}
		}
	}
	if styled == 0 {
		t.Error("no text elements")
	}
	text := str(t, data, MIMEText)
	want := "plot \"FW time\": x = n, y = seconds, log-log\n  fw-cpu: (100, 0.004) (200, 0.03) (400, 0.25) (800, 2)\n  fw-hn: (100, 0.001) (200, 0.002) (400, 0.008) (800, 0.05)"
	if text != want {
		t.Errorf("text =\n%s\nwant\n%s", text, want)
	}
}

func TestPlotPNGSize(t *testing.T) {
	for _, tt := range []struct {
		p    *Plot
		w, h int
	}{
		{timingPlot().AsPNG(), 605, 378}, // 16 cm × 10 cm at 96 dpi
		{timingPlot().AsPNG().Size(8, 5), 302, 189},
	} {
		// A legend that no corner holds widens the image by its room.
		tt.w += int(math.Round(float64(layoutOf(t, tt.p).grow.X) * 96 / 72))
		data := bundle(t, tt.p)
		img := decodePNG(t, str(t, data, MIMEPNG))
		if b := img.Bounds(); b.Dx() != tt.w || b.Dy() != tt.h {
			t.Errorf("PNG is %d×%d, want %d×%d", b.Dx(), b.Dy(), tt.w, tt.h)
		}
	}
	raw, err := timingPlot().Render("png")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(raw)); err != nil {
		t.Errorf("Render(png) is not a PNG: %v", err)
	}
}

func TestBarPlot(t *testing.T) {
	cats := []string{"100", "200", "400"}
	p := NewPlot("per size", "n", "s").Bar("fw-hn", cats, []float64{1, 2, 3}).Bar("fw-blocked", cats, []float64{0.5, 1, 2})
	data := bundle(t, p)
	els := parseXML(t, str(t, data, MIMESVG), false)
	found := 0
	for _, e := range els {
		if e.name == "text" && (e.text == "fw-blocked" || e.text == "400") {
			found++
		}
	}
	if found != 2 {
		t.Errorf("legend or category label missing (%d of 2 found)", found)
	}
	if !strings.Contains(str(t, data, MIMEText), "fw-blocked: 100=0.5 200=1 400=2") {
		t.Errorf("text = %q", data[MIMEText])
	}
}

// filledRects returns the axis-aligned filled rectangles of a gonum SVG
// (bars and legend thumbnails are paths "Mx,y Lx,y Lx,y Lx,y Z" with a
// fill style), in gonum's y-up coordinates, skipping white backgrounds.
func filledRects(t *testing.T, svg string) (rects [][4]float64) {
	t.Helper()
	for _, e := range parseXML(t, svg, false) {
		d := e.attrs["d"]
		if e.name != "path" || !strings.Contains(e.attrs["style"], "fill:#") || strings.Contains(e.attrs["style"], "fill:#FFFFFF") ||
			!strings.HasPrefix(d, "M") || !strings.HasSuffix(d, "Z") {
			continue
		}
		pts := strings.FieldsFunc(strings.TrimSuffix(d[1:], "Z"), func(r rune) bool { return r == 'L' })
		if len(pts) != 4 {
			continue
		}
		r := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)} // minX minY maxX maxY
		for _, pt := range pts {
			xs, ys, ok := strings.Cut(pt, ",")
			if !ok {
				t.Fatalf("path point %q", pt)
			}
			x, y := num(t, xs), num(t, ys)
			r = [4]float64{min(r[0], x), min(r[1], y), max(r[2], x), max(r[3], y)}
		}
		rects = append(rects, r)
	}
	return rects
}

func TestBarsStayBelowTheLegend(t *testing.T) {
	cats := []string{"naive", "blocked", "gpu"}
	for _, heights := range [][2][]float64{
		{{0.03, 0.01, 0.002}, {0.25, 0.04, 0.005}}, // the tallest bar under the legend
		{{5, 1, 1}, {5, 2, 1}},
	} {
		p := NewPlot("bars", "variant", "s").Bar("n=256", cats, heights[0]).Bar("n=512", cats, heights[1])
		svg, err := p.Render("svg")
		if err != nil {
			t.Fatal(err)
		}
		var bars, thumbs [][4]float64
		for _, r := range filledRects(t, string(svg)) {
			if math.Abs(r[2]-r[0]-20) < 0.01 { // legend thumbnails are 20 pt wide
				thumbs = append(thumbs, r)
			} else {
				bars = append(bars, r)
			}
		}
		if len(bars) != 6 || len(thumbs) != 2 {
			t.Fatalf("%d bars and %d legend thumbnails, want 6 and 2", len(bars), len(thumbs))
		}
		legendBottom := math.Min(thumbs[0][1], thumbs[1][1])
		for _, b := range bars {
			if b[3] >= legendBottom {
				t.Errorf("heights %v: a bar reaches y=%g, the legend starts at y=%g", heights, b[3], legendBottom)
			}
		}
	}
}

func TestSpeedup(t *testing.T) {
	p := NewPlot("speed-up", "n", "×").Speedup("fw-hn", []float64{1, 2}, []float64{10, 30}, []float64{5, 3})
	if !strings.Contains(p.Text(), "fw-hn: (1, 2) (2, 10)") {
		t.Errorf("text = %q", p.Text())
	}
	if err := NewPlot("s", "n", "×").Speedup("x", []float64{1}, []float64{1}, []float64{0}).Err(); err == nil {
		t.Error("a zero time gave no error")
	}
}

func TestPlotErrors(t *testing.T) {
	line := []float64{1, 2}
	tests := []struct {
		p    *Plot
		want string
	}{
		{NewPlot("p", "x", "y").LogLog().Line("a", []float64{0, 1}, line), `"a" point 0: x = 0 on a log axis`},
		{NewPlot("p", "x", "y").Line("a", line, []float64{1, 0}).LogY(), `"a" point 1: y = 0 on a log axis`},
		{NewPlot("p", "x", "y").Line("a", line, []float64{1}), "2 x values and 1 y values"},
		{NewPlot("p", "x", "y").Line("a", nil, nil), "no points"},
		{NewPlot("p", "x", "y").Line("a", line, line).Bar("b", []string{"u"}, []float64{1}), "bars \"b\" added to a line plot"},
		{NewPlot("p", "x", "y").Bar("b", []string{"u"}, []float64{1}).Line("a", line, line), "line \"a\" added to a bar chart"},
		{NewPlot("p", "x", "y").Bar("b", []string{"u"}, []float64{1}).Bar("c", []string{"v"}, []float64{1}), "categories [v], earlier bars [u]"},
		{NewPlot("p", "x", "y").Bar("b", []string{"u"}, []float64{1}).LogY(), "log y axis"},
		{NewPlot("p", "x", "y").Line("a", line, []float64{1, 1.0 / zero()}), "cannot be drawn"},
		{NewPlot("p", "x", "y").Size(0, 5), "size 0×5 cm"},
	}
	for _, tt := range tests {
		if err := tt.p.Err(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("err = %v, want %q", err, tt.want)
		}
		if _, err := tt.p.Render("svg"); err == nil {
			t.Errorf("Render of a bad plot (%s) gave no error", tt.want)
		}
		if !strings.Contains(bundle(t, tt.p)[MIMEText].(string), "error:") {
			t.Errorf("bundle of a bad plot (%s) does not show the error", tt.want)
		}
	}
	if _, err := NewPlot("empty", "x", "y").Render("svg"); err == nil || !strings.Contains(err.Error(), "no data") {
		t.Errorf("empty plot: err = %v", err)
	}
	if _, err := timingPlot().Render("gif"); err == nil || !strings.Contains(err.Error(), `format "gif"`) {
		t.Errorf("unknown format: err = %v", err)
	}
}

func zero() float64 { return 0 }

func TestConversions(t *testing.T) {
	if got := Ints([]int{1, 5}); len(got) != 2 || got[1] != 5 {
		t.Errorf("Ints = %v", got)
	}
	if got := Seconds([]time.Duration{1500 * time.Millisecond}); got[0] != 1.5 {
		t.Errorf("Seconds = %v", got)
	}
}

func TestNiceTopEndsOnALabelledTick(t *testing.T) {
	for _, top := range []float64{0.294, 0.25, 1, 5.88, 7.3, 123, 0.00042} {
		got := niceTop(top)
		if got < top || got > 1.5*top {
			t.Errorf("niceTop(%g) = %g, want in [top, 1.5·top]", top, got)
		}
		labelled := false
		for _, tk := range (linearTicks{}).Ticks(0, got) {
			if tk.Label != "" && math.Abs(tk.Value-got) <= 1e-9*got {
				labelled = true
			}
		}
		if !labelled {
			t.Errorf("niceTop(%g) = %g is not a labelled tick of [0, %g]", top, got, got)
		}
	}
	if got := niceTop(0.294); math.Abs(got-0.3) > 1e-12 {
		t.Errorf("niceTop(0.294) = %g, want 0.3", got)
	}
}

// Log-axis labels are round: no 9.999999999999999e-05.
func TestLogTickLabelsRound(t *testing.T) {
	for _, tk := range (logTicks{}).Ticks(1e-6, 10) {
		if tk.Label != "" && len(tk.Label) > 6 {
			t.Errorf("tick %g labelled %q", tk.Value, tk.Label)
		}
	}
}

package display

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// svgText is one <text> element of a plot's SVG: its class, its position
// in gonum's y-up points, its font size and whether it is drawn turned.
type svgText struct {
	class, text string
	x, y, size  float64
	rotated     bool
}

// plotSVG is what the checks read from a plot's SVG.
type plotSVG struct {
	marked bool // the root has plotSVGClass: drawn by the current renderer
	w, h   float64
	texts  []svgText
}

// readPlotSVG parses a plot's SVG document.
func readPlotSVG(doc string) (plotSVG, error) {
	var out plotSVG
	dec := xml.NewDecoder(strings.NewReader(doc))
	var rotations []bool // per open element: does it turn its content
	var cur *svgText
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		switch e := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range e.Attr {
				attr[a.Name.Local] = a.Value
			}
			rotated := strings.Contains(attr["transform"], "rotate")
			for _, r := range rotations {
				rotated = rotated || r
			}
			rotations = append(rotations, strings.Contains(attr["transform"], "rotate"))
			switch e.Name.Local {
			case "svg":
				if out.w == 0 {
					out.marked = strings.Contains(" "+attr["class"]+" ", " "+plotSVGClass+" ")
					if f := strings.Fields(attr["viewBox"]); len(f) == 4 {
						out.w, _ = strconv.ParseFloat(f[2], 64)
						out.h, _ = strconv.ParseFloat(f[3], 64)
					}
				}
			case "text":
				t := svgText{class: attr["class"], rotated: rotated}
				t.x, _ = strconv.ParseFloat(attr["x"], 64)
				y, _ := strconv.ParseFloat(attr["y"], 64)
				t.y = -y // texts are flipped back with scale(1, -1)
				for _, decl := range strings.Split(attr["style"], ";") {
					if v, ok := strings.CutPrefix(decl, "font-size:"); ok {
						t.size, _ = strconv.ParseFloat(strings.TrimSuffix(v, "px"), 64)
					}
				}
				cur = &t
			}
		case xml.CharData:
			if cur != nil {
				cur.text += string(e)
			}
		case xml.EndElement:
			rotations = rotations[:len(rotations)-1]
			if e.Name.Local == "text" && cur != nil {
				out.texts = append(out.texts, *cur)
				cur = nil
			}
		}
	}
}

// checkPlotAxes returns what is wrong with the axes of a plot drawn by the
// current renderer: an axis with fewer than two tick labels (a category
// axis needs one).
func checkPlotAxes(s plotSVG) []string {
	count := map[string]int{}
	for _, t := range s.texts {
		count[t.class]++
	}
	var problems []string
	if count[yTickClass] < 2 {
		problems = append(problems, fmt.Sprintf("y axis has %d tick labels, want 2 or more", count[yTickClass]))
	}
	if count[xTickClass] < 2 && count[catTickClass] < 1 {
		problems = append(problems, fmt.Sprintf("x axis has %d tick labels, want 2 or more", count[xTickClass]))
	}
	return problems
}

// checkTextInside returns the texts that do not fit in the canvas, by the
// metrics of the font gonum lays plots out with.
func checkTextInside(s plotSVG) []string {
	var problems []string
	for _, t := range s.texts {
		if t.rotated {
			continue // the y axis label, drawn in a turned frame
		}
		sty := text.Style{Font: font.From(font.Font{Typeface: "Liberation", Variant: "Sans"}, font.Length(t.size)), Handler: plot.DefaultTextHandler}
		ext := sty.FontExtents()
		w := sty.Width(t.text).Points()
		if t.x < 0 || t.x+w > s.w+1e-6 || t.y-ext.Descent.Points() < 0 || t.y+ext.Ascent.Points() > s.h+1e-6 {
			problems = append(problems, fmt.Sprintf("text %q spans x %.1f..%.1f, y %.1f..%.1f: outside the %gx%g canvas",
				t.text, t.x, t.x+w, t.y-ext.Descent.Points(), t.y+ext.Ascent.Points(), s.w, s.h))
		}
	}
	return problems
}

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
	}
}

// Every kind of plot, drawn with the defaults, has labelled axes and no
// text past the canvas's edges.
func TestEveryPlotKindReads(t *testing.T) {
	for name, p := range plotKinds() {
		raw, err := p.Render("svg")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s, err := readPlotSVG(string(raw))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !s.marked {
			t.Errorf("%s: the root element lacks class %q", name, plotSVGClass)
		}
		// A legend outside the plot grows the image, never shrinks it.
		if s.w < float64(vg.Length(p.widthCm)*vg.Centimeter)-0.01 || s.h < float64(vg.Length(p.heightCm)*vg.Centimeter)-0.01 {
			t.Errorf("%s: canvas %g×%g pt, want at least %g×%g cm", name, s.w, s.h, p.widthCm, p.heightCm)
		}
		for _, problem := range append(checkPlotAxes(s), checkTextInside(s)...) {
			t.Errorf("%s: %s", name, problem)
		}
		legend := 0
		for _, tx := range s.texts {
			if tx.class == legendClass {
				legend++
			}
		}
		if want := len(p.lines) + len(p.bars); legend != want {
			t.Errorf("%s: %d legend texts, want %d", name, legend, want)
		}
	}
}

// The checks catch what the old renderer drew: a log axis labelled only at
// 1000, and a label past the right edge.
func TestPlotChecksCatchBadPlots(t *testing.T) {
	s := plotSVG{marked: true, w: 400, h: 300, texts: []svgText{
		{class: xTickClass, text: "1000", x: 100, y: 20, size: 10},
		{class: yTickClass, text: "1", x: 10, y: 100, size: 10},
		{class: yTickClass, text: "10", x: 10, y: 200, size: 10},
		{class: legendClass, text: "10000000", x: 380, y: 250, size: 10},
	}}
	if got := checkPlotAxes(s); len(got) != 1 || !strings.Contains(got[0], "x axis has 1 tick labels") {
		t.Errorf("checkPlotAxes = %q", got)
	}
	if got := checkTextInside(s); len(got) != 1 || !strings.Contains(got[0], `"10000000"`) {
		t.Errorf("checkTextInside = %q", got)
	}
}

// notebookPlots returns the SVG documents of the plots in a notebook's
// outputs, shown alone or inside a row or column, with the cell index of
// each. A plot is recognised by its text form, which starts with `plot "`.
func notebookPlots(t *testing.T, path string) (svgs []string, cells []int) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Cells []struct {
			Outputs []struct {
				Data map[string]any `json:"data"`
			} `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(raw, &nb); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	join := func(v any) string { // nbformat stores text as a string or a list of lines
		switch v := v.(type) {
		case string:
			return v
		case []any:
			var sb strings.Builder
			for _, s := range v {
				sb.WriteString(fmt.Sprint(s))
			}
			return sb.String()
		}
		return ""
	}
	for i, c := range nb.Cells {
		for _, o := range c.Outputs {
			if svg := join(o.Data[MIMESVG]); svg != "" {
				if strings.HasPrefix(join(o.Data[MIMEText]), `plot "`) {
					svgs, cells = append(svgs, svg), append(cells, i)
				}
				continue
			}
			if h := join(o.Data[MIMEHTML]); strings.Contains(h, "data:image/svg+xml;base64,") {
				imgs, alts := svgImages(t, h)
				for k := range imgs {
					if strings.HasPrefix(alts[k], `plot "`) {
						svgs, cells = append(svgs, imgs[k]), append(cells, i)
					}
				}
			}
		}
	}
	return svgs, cells
}

// Every plot in the committed notebooks that the current renderer drew has
// labelled axes and no text past its edges. A plot drawn before tick labels
// carried classes cannot be checked: it fails as stale, to be redrawn by
// running the notebook again.
func TestCommittedNotebookPlots(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "notebooks", "*.ipynb"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no notebooks found (%v)", err)
	}
	checked, stale := 0, 0
	for _, path := range paths {
		svgs, cells := notebookPlots(t, path)
		for k, doc := range svgs {
			s, err := readPlotSVG(doc)
			if err != nil {
				t.Errorf("%s cell %d: plot SVG: %v", filepath.Base(path), cells[k], err)
				continue
			}
			if !s.marked {
				stale++
				t.Errorf("%s cell %d: stale: rerun the notebook (drawn before tick labels were marked)", filepath.Base(path), cells[k])
				continue
			}
			checked++
			for _, problem := range append(checkPlotAxes(s), checkTextInside(s)...) {
				t.Errorf("%s cell %d: %s", filepath.Base(path), cells[k], problem)
			}
		}
	}
	t.Logf("%d notebook plots checked, %d stale", checked, stale)
	if checked == 0 {
		t.Error("no plot of the current renderer found in the notebooks")
	}
}

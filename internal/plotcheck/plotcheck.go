// Package plotcheck reads the SVG pictures that package display draws
// (plots, graph drawings, schematics) and reports what would make them
// read badly: text past the picture's edges, a plot axis with too few
// labels, a log axis with a decade that no label marks, and a series name
// drawn in two colours. display's tests check every kind of picture with
// it, and the root package's tests every picture of every notebook.
package plotcheck

import (
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	stdfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
)

// Classes that display gives a plot's SVG elements: the root, the tick
// labels of each axis, the legend's series names and its keys of line
// styles. PlotClass's root also has the attribute AxesAttr, which
// describes the axes as "x lin|log MIN MAX; y lin|log MIN MAX".
const (
	PlotClass     = "pathnotes-plot"
	XTickClass    = "tick-x"
	YTickClass    = "tick-y"
	CatTickClass  = "tick-category"
	LegendClass   = "legend"
	LegendKeyCls  = "legend-key"
	AxesAttr      = "data-axes"
	plotFontScale = 1.2  // how much wider than gonum's measure a browser's font may draw a plot's text
	svgFontScale  = 1.25 // and a drawing's, whose fonts name DejaVu Sans first
)

// Text is one <text> element: its class, its content, where it starts (in
// the picture's coordinates, y down), its font size, its anchor and
// whether it is drawn turned.
type Text struct {
	Class, Text string
	X, Y, Size  float64
	Anchor      string // start, middle or end
	Bold        bool
	Rotated     bool
}

// paint is the colour a path is drawn in: its stroke, or its fill.
type paint struct {
	color   string
	stroked bool
}

// Picture is what the checks read from one SVG document.
type Picture struct {
	Plot     bool    // drawn by display's Plot (the root has PlotClass)
	W, H     float64 // the viewBox's size
	Texts    []Text
	Axes     map[string]Axis // "x" and "y" of a plot, from AxesAttr
	Series   map[string]string
	Keys     []string // the legend's keys of line styles
	flippedY bool     // gonum's texts are written with y negated under scale(1, -1)
	rootSize float64  // the root's font size, which texts without one inherit
}

// Axis is a plot axis as AxesAttr describes it.
type Axis struct {
	Log      bool
	Min, Max float64
}

// Read parses an SVG document.
func Read(doc string) (Picture, error) {
	var p Picture
	dec := xml.NewDecoder(strings.NewReader(doc))
	var rotations []bool
	var shifts [][2]float64 // per open element: its translation, in a picture not drawn by gonum
	var cur *Text
	var paints []paint // the paths drawn since the last text
	p.Series = map[string]string{}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return p, nil
		}
		if err != nil {
			return p, err
		}
		switch e := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range e.Attr {
				attr[a.Name.Local] = a.Value
			}
			turn := strings.Contains(attr["transform"], "rotate")
			rotated := turn
			for _, r := range rotations {
				rotated = rotated || r
			}
			rotations = append(rotations, turn)
			shifts = append(shifts, translation(attr["transform"]))
			switch e.Name.Local {
			case "svg":
				if p.W == 0 {
					if err := p.readRoot(attr); err != nil {
						return p, err
					}
				}
			case "path", "rect", "circle", "polygon":
				if c := styleValue(attr["style"], "stroke"); c != "" && c != "none" {
					paints = append(paints, paint{c, true})
				} else if c := styleValue(attr["style"], "fill"); c != "" && c != "none" {
					paints = append(paints, paint{c, false})
				}
			case "text":
				t := Text{Class: attr["class"], Rotated: rotated, Anchor: attr["text-anchor"]}
				t.X, _ = strconv.ParseFloat(attr["x"], 64)
				t.Y, _ = strconv.ParseFloat(attr["y"], 64)
				if !p.Plot {
					for _, sh := range shifts {
						t.X, t.Y = t.X+sh[0], t.Y+sh[1]
					}
				}
				size := attr["font-size"]
				if s := styleValue(attr["style"], "font-size"); s != "" {
					size = s
				}
				t.Size, _ = strconv.ParseFloat(strings.TrimSuffix(size, "px"), 64)
				if t.Size == 0 {
					t.Size = p.rootSize
				}
				t.Bold = attr["font-weight"] == "bold" || styleValue(attr["style"], "font-weight") == "bold"
				if t.Anchor == "" {
					t.Anchor = "start"
				}
				if p.flippedY {
					t.Y = -t.Y
				}
				cur = &t
			}
		case xml.CharData:
			if cur != nil {
				cur.Text += string(e)
			}
		case xml.EndElement:
			rotations, shifts = rotations[:len(rotations)-1], shifts[:len(shifts)-1]
			if e.Name.Local == "text" && cur != nil {
				switch cur.Class {
				case LegendClass:
					// A legend entry's thumbnail is drawn right before
					// its text: the series' line, or a bar's fill.
					if c, ok := thumbnailColor(paints); ok {
						if old, seen := p.Series[cur.Text]; !seen || old == c {
							p.Series[cur.Text] = c
						} else {
							p.Series[cur.Text] = old + "," + c
						}
					}
				case LegendKeyCls:
					p.Keys = append(p.Keys, cur.Text)
				}
				p.Texts = append(p.Texts, *cur)
				cur, paints = nil, nil
			}
		}
	}
}

// readRoot reads the root element's size, class and axes.
func (p *Picture) readRoot(attr map[string]string) error {
	p.Plot = strings.Contains(" "+attr["class"]+" ", " "+PlotClass+" ")
	p.flippedY = p.Plot
	p.rootSize = 16 // the browsers' default
	if v, err := strconv.ParseFloat(strings.TrimSuffix(attr["font-size"], "px"), 64); err == nil {
		p.rootSize = v
	}
	if f := strings.Fields(attr["viewBox"]); len(f) == 4 {
		p.W, _ = strconv.ParseFloat(f[2], 64)
		p.H, _ = strconv.ParseFloat(f[3], 64)
	}
	if p.W == 0 {
		p.W, _ = strconv.ParseFloat(strings.TrimSuffix(attr["width"], "px"), 64)
		p.H, _ = strconv.ParseFloat(strings.TrimSuffix(attr["height"], "px"), 64)
	}
	if !p.Plot {
		return nil
	}
	p.Axes = map[string]Axis{}
	for _, part := range strings.Split(attr[AxesAttr], ";") {
		f := strings.Fields(part)
		if len(f) != 4 {
			continue
		}
		lo, err1 := strconv.ParseFloat(f[2], 64)
		hi, err2 := strconv.ParseFloat(f[3], 64)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("plotcheck: bad %s %q", AxesAttr, attr[AxesAttr])
		}
		p.Axes[f[0]] = Axis{Log: f[1] == "log", Min: lo, Max: hi}
	}
	return nil
}

// thumbnailColor is the colour of a legend entry's thumbnail among the
// paths drawn since the text before it: the last stroked path (a line,
// after which only a filled marker may come), else the last filled one.
func thumbnailColor(paints []paint) (string, bool) {
	for i := len(paints) - 1; i >= 0; i-- {
		if paints[i].stroked {
			return paints[i].color, true
		}
	}
	if len(paints) > 0 {
		return paints[len(paints)-1].color, true
	}
	return "", false
}

// translate matches a transform's translate(x y).
var translate = regexp.MustCompile(`translate\(\s*([-0-9.e]+)[ ,]+([-0-9.e]+)\s*\)`)

// translation reads a transform's translate(x y), or zero.
func translation(transform string) [2]float64 {
	m := translate.FindStringSubmatch(transform)
	if m == nil {
		return [2]float64{}
	}
	x, _ := strconv.ParseFloat(m[1], 64)
	y, _ := strconv.ParseFloat(m[2], 64)
	return [2]float64{x, y}
}

// styleValue returns the value of a declaration in a style attribute.
func styleValue(style, name string) string {
	for _, decl := range strings.Split(style, ";") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(decl), name+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// width is the width of a text by the metrics of Liberation Sans, the
// font gonum lays plots out with.
func width(t Text) float64 {
	f := font.Font{Typeface: "Liberation", Variant: "Sans"}
	if t.Bold {
		f.Weight = stdfont.WeightBold
	}
	sty := text.Style{Font: font.From(f, font.Length(t.Size)), Handler: plot.DefaultTextHandler}
	return sty.Width(t.Text).Points()
}

// Problems returns what is wrong with the picture: text past its edges,
// and for a plot, an axis with too few labels or a decade of a log axis
// without one.
func (p Picture) Problems() []string {
	problems := p.clipped()
	if p.Plot {
		problems = append(problems, p.axisProblems()...)
	}
	return problems
}

// clipped lists the texts that do not fit in the picture, measured with
// a font as much wider than Liberation Sans as a browser's may draw.
func (p Picture) clipped() []string {
	var problems []string
	for _, t := range p.Texts {
		if t.Rotated || strings.TrimSpace(t.Text) == "" {
			continue // the y axis label, drawn in a turned frame
		}
		scale := svgFontScale
		if p.Plot {
			scale = plotFontScale
		}
		w := width(t)
		var left, right float64
		switch t.Anchor {
		case "middle":
			left, right = t.X-scale*w/2, t.X+scale*w/2
		case "end":
			left, right = t.X-scale*w, t.X
		default:
			// gonum places text by its own measure: a wider font grows
			// to the right of where it starts.
			left, right = t.X, t.X+scale*w
		}
		if left < -0.5 || right > p.W+0.5 {
			problems = append(problems, fmt.Sprintf("text %q spans x %.1f..%.1f: outside the picture's width %g", t.Text, left, right, p.W))
		}
		top, bottom := t.Y-0.8*t.Size, t.Y+0.25*t.Size
		if p.Plot {
			top, bottom = p.H-(t.Y+0.9*t.Size), p.H-(t.Y-0.25*t.Size) // gonum's y is up from the bottom
		}
		if top < -0.5 || bottom > p.H+0.5 {
			problems = append(problems, fmt.Sprintf("text %q spans y %.1f..%.1f: outside the picture's height %g", t.Text, top, bottom, p.H))
		}
	}
	return problems
}

// axisProblems checks a plot's tick labels: two at least on each axis (a
// category axis needs one), and on a log axis a label in every decade:
// no two labels a decade and a half apart, and none farther than that
// from either end of the axis.
func (p Picture) axisProblems() []string {
	var problems []string
	labels := map[string][]float64{}
	count := map[string]int{}
	for _, t := range p.Texts {
		count[t.Class]++
		if v, err := strconv.ParseFloat(strings.TrimSpace(t.Text), 64); err == nil {
			labels[t.Class] = append(labels[t.Class], v)
		}
	}
	if count[YTickClass] < 2 {
		problems = append(problems, fmt.Sprintf("y axis has %d tick labels, want 2 or more", count[YTickClass]))
	}
	if count[XTickClass] < 2 && count[CatTickClass] < 1 {
		problems = append(problems, fmt.Sprintf("x axis has %d tick labels, want 2 or more", count[XTickClass]))
	}
	for name, class := range map[string]string{"x": XTickClass, "y": YTickClass} {
		a, ok := p.Axes[name]
		if !ok || !a.Log || len(labels[class]) < 2 || a.Max < 10*a.Min {
			continue
		}
		vs := append([]float64{a.Min}, labels[class]...)
		vs = append(vs, a.Max)
		for i := 1; i < len(vs); i++ {
			lo, hi := min(vs[i-1], vs[i]), max(vs[i-1], vs[i])
			if limit := math.Pow(10, 1.5); hi > limit*lo*(1+1e-9) {
				problems = append(problems, fmt.Sprintf("%s axis (log, %g to %g): no label between %g and %g, more than a decade apart", name, a.Min, a.Max, lo, hi))
			}
		}
	}
	return problems
}

// Found is a picture found in a notebook: the cell it is an output of,
// its SVG document, and for a plot its text form's first line.
type Found struct {
	Cell int
	SVG  string
}

// imgSrc finds the SVG images of an HTML output.
var imgSrc = regexp.MustCompile(`src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"`)

// Notebook returns the SVG pictures among the outputs of a notebook's
// cells: SVG outputs and SVG images in HTML outputs (rows and columns).
func Notebook(raw []byte) ([]Found, error) {
	var nb struct {
		Cells []struct {
			Outputs []struct {
				Data map[string]any `json:"data"`
			} `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(raw, &nb); err != nil {
		return nil, err
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
	var found []Found
	for i, c := range nb.Cells {
		for _, o := range c.Outputs {
			if svg := join(o.Data["image/svg+xml"]); svg != "" {
				found = append(found, Found{i, svg})
				continue
			}
			for _, m := range imgSrc.FindAllStringSubmatch(join(o.Data["text/html"]), -1) {
				raw, err := base64.StdEncoding.DecodeString(m[1])
				if err != nil {
					return nil, fmt.Errorf("cell %d: an SVG image is not base64: %w", i, err)
				}
				found = append(found, Found{i, string(raw)})
			}
		}
	}
	return found, nil
}

// Colors checks that every series name keeps one colour across the
// plots given, in the order they were drawn, and that no plot draws two
// names in one colour. where names each plot in the messages.
func Colors(pics []Picture, where []string) []string {
	var problems []string
	first := map[string]string{}
	firstAt := map[string]string{}
	for k, p := range pics {
		byColor := map[string]string{}
		for name, c := range p.Series {
			if strings.Contains(c, ",") {
				problems = append(problems, fmt.Sprintf("%s: series %q is drawn in several colours (%s)", where[k], name, c))
				continue
			}
			if other, ok := byColor[c]; ok {
				problems = append(problems, fmt.Sprintf("%s: series %q and %q are both drawn in %s", where[k], name, other, c))
			}
			byColor[c] = name
			if old, ok := first[name]; ok && old != c {
				problems = append(problems, fmt.Sprintf("%s: series %q is drawn in %s, but in %s at %s", where[k], name, c, old, firstAt[name]))
			} else if !ok {
				first[name], firstAt[name] = c, where[k]
			}
		}
	}
	return problems
}

package display

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"regexp"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Tick labels are drawn in colours a hair off black, one per kind of axis,
// so that the SVG can say which text is which: markPlotSVG turns each back
// to black and gives the text a class instead. The root element gets the
// class plotSVGClass. Programs that read a notebook (such as the test that
// checks every committed plot's axes) find the labels by these classes.
var (
	xTickColor   = color.RGBA{R: 1, G: 1, B: 2, A: 255}
	yTickColor   = color.RGBA{R: 1, G: 1, B: 3, A: 255}
	catTickColor = color.RGBA{R: 1, G: 1, B: 4, A: 255}
)

// Classes of a plot's SVG elements: the root, the tick labels of the x
// axis, the y axis and a bar chart's category axis, and the legend's
// series names and keys; and the root's attribute that describes the axes
// ("x log 100 1e4; y lin 0 5"), as package internal/plotcheck reads them.
const (
	plotSVGClass   = "pathnotes-plot"
	xTickClass     = "tick-x"
	yTickClass     = "tick-y"
	catTickClass   = "tick-category"
	legendClass    = "legend"
	legendKeyClass = "legend-key"
	axesAttr       = "data-axes"
	tickLabelSize  = 10 // points, gonum's default
)

// legendColor marks the legend's series names, and legendKeyColor its
// keys of line styles, as the tick colours mark labels.
var (
	legendColor    = color.RGBA{R: 1, G: 1, B: 5, A: 255}
	legendKeyColor = color.RGBA{R: 1, G: 1, B: 6, A: 255}
)

// markedText matches the style ending of a text that carries a marker colour.
var markedText = regexp.MustCompile(`<text ([^>]*?);fill:#01010([2-6])"`)

// markPlotSVG classes the root element and the marked texts of a plot's
// SVG, and describes the plot's axes in the root's axesAttr.
func markPlotSVG(s string, pl *plot.Plot, bars bool) string {
	axis := func(name string, a plot.Axis) string {
		scale := "lin"
		if _, ok := a.Scale.(plot.LogScale); ok {
			scale = "log"
		}
		return fmt.Sprintf("%s %s %g %g", name, scale, a.Min, a.Max)
	}
	axes := axis("y", pl.Y)
	if !bars {
		axes = axis("x", pl.X) + "; " + axes
	}
	s = strings.Replace(s, "<svg ", `<svg class="`+plotSVGClass+`" `+axesAttr+`="`+axes+`" `, 1)
	classes := map[string]string{"2": xTickClass, "3": yTickClass, "4": catTickClass, "5": legendClass, "6": legendKeyClass}
	return markedText.ReplaceAllStringFunc(s, func(m string) string {
		sub := markedText.FindStringSubmatch(m)
		return `<text class="` + classes[sub[2]] + `" ` + sub[1] + `"`
	})
}

// Render draws the plot as "svg" or "png" bytes.
func (p *Plot) Render(format string) (out []byte, err error) {
	if err := p.Err(); err != nil {
		return nil, err
	}
	if format != "svg" && format != "png" {
		return nil, fmt.Errorf("display: plot %q: format %q, want svg or png", p.title, format)
	}
	if !p.hasPoints() {
		return nil, fmt.Errorf("display: plot %q has no data (add a Line, Documented or Bar)", p.title)
	}
	// Values are checked above; this turns any remaining panic in the
	// plotting library into an error rather than a dead kernel.
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("display: plot %q: drawing failed: %v", p.title, r)
		}
	}()
	w, h := vg.Length(p.widthCm)*vg.Centimeter, vg.Length(p.heightCm)*vg.Centimeter
	// A legend that no corner can hold goes beside or below the plot, on
	// an image grown by its size, so that the plot keeps the size asked.
	// The first layout also measures the x axis, whose length decides
	// which of the measured sizes its labels can show.
	l, err := p.layout(draw.New(vgsvg.New(w, h)), 0)
	if err != nil {
		return nil, err
	}
	w, h = w+l.grow.X, h+l.grow.Y
	if l, err = p.layout(draw.New(vgsvg.New(w, h)), 0); err != nil {
		return nil, err
	}
	cw, err := draw.NewFormattedCanvas(w, h, format)
	if err != nil {
		return nil, fmt.Errorf("display: plot %q: %w", p.title, err)
	}
	if l, err = p.layout(draw.New(cw), l.xAxis()); err != nil {
		return nil, err
	}
	l.pl.Draw(l.inner)
	l.labels.draw(l.area, l.pl.DataCanvas(l.inner))
	l.leg.draw(l.legend)
	var buf bytes.Buffer
	if _, err := cw.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("display: plot %q: writing %s: %w", p.title, format, err)
	}
	if format == "svg" {
		return []byte(markPlotSVG(svgFontFallbacks.Replace(buf.String()), l.pl, len(p.bars) > 0)), nil
	}
	return buf.Bytes(), nil
}

// hasPoints reports whether the plot has a point or a bar to draw.
func (p *Plot) hasPoints() bool {
	for _, s := range p.lines {
		if len(s.xs) > 0 {
			return true
		}
	}
	return len(p.bars) > 0
}

// plotLayout is a plot laid out on a canvas: area holds the plot and its
// axis labels, inner the plot less the labels, legend the legend's box.
type plotLayout struct {
	pl                  *plot.Plot
	leg                 *plotLegend
	labels              axisLabels
	area, inner, legend draw.Canvas
	grow                vg.Point // room a legend outside the plot takes
}

// xAxis is the length of the laid-out x axis.
func (l *plotLayout) xAxis() vg.Length {
	dc := l.pl.DataCanvas(l.inner)
	return dc.Max.X - dc.Min.X
}

// layout builds the plot and places its parts on c; xAxis is the x axis's
// length as an earlier layout found it, or 0.
func (p *Plot) layout(c draw.Canvas, xAxis vg.Length) (*plotLayout, error) {
	w, h := c.Size().X, c.Size().Y
	pl, leg, err := p.build(w, xAxis)
	if err != nil {
		return nil, err
	}
	p.setRanges(pl, leg, h)
	l := &plotLayout{pl: pl, leg: leg, labels: takeAxisLabels(pl)}
	l.area, l.legend, l.grow = placeLegend(pl, leg, clipMargins(pl, c), p.marks(), l.labels.dataCanvas)
	l.inner = l.labels.room(l.area)
	return l, nil
}

// build makes the gonum plot and its legend, which Render draws apart
// from the plot so that it can go where it hides no data. w is the width
// of the whole plot, and xAxis the length of its x axis as last laid out
// (0 for a first estimate).
func (p *Plot) build(w, xAxis vg.Length) (*plot.Plot, *plotLegend, error) {
	pl := plot.New()
	leg := newPlotLegend()
	pl.X.Label.Text = p.xLabel
	pl.Y.Label.Text = p.yLabel
	for _, f := range []*font.Font{&pl.Title.TextStyle.Font, &pl.X.Label.TextStyle.Font, &pl.Y.Label.TextStyle.Font,
		&pl.X.Tick.Label.Font, &pl.Y.Tick.Label.Font, &leg.names.TextStyle.Font, &leg.keys.TextStyle.Font} {
		f.Variant = "Sans"
	}
	// The title wraps at 70% of the plot's own width (w
	// includes a legend beside it): gonum centres it by its own measure
	// over the data area, right of the y axis's labels, and a browser font
	// a fifth wider (see clipMargins) grows it to the right.
	titleWidth := func(s string) float64 { return float64(pl.Title.TextStyle.Width(s)) }
	pl.Title.Text = strings.Join(wrapText(p.title, titleWidth, 0.7*p.widthCm*float64(vg.Centimeter)), "\n")
	pl.X.Tick.Label.Color, pl.Y.Tick.Label.Color = xTickColor, yTickColor
	logX, logY := p.logAxes()
	if xAxis <= 0 {
		xAxis = 0.8 * w
	}
	pl.X.Tick.Marker = p.xTicker(logX, xAxis, pl.X.Tick.Label)
	pl.Y.Tick.Marker = linearTicks{}
	if logX {
		pl.X.Scale = plot.LogScale{}
	}
	if logY {
		pl.Y.Scale, pl.Y.Tick.Marker = plot.LogScale{}, logTicks{}
	}
	pl.Add(plotter.NewGrid())
	pl.Title.Padding = vg.Points(6)
	names := p.names()
	colors := colorsFor(names)
	colorOf := map[string]int{}
	for i, name := range names {
		colorOf[name] = colors[i]
	}
	kinds := map[string]map[seriesKind]bool{}
	for _, s := range p.lines {
		ci := colorOf[s.name]
		c := plotPalette[ci]
		if kinds[s.name] == nil {
			kinds[s.name] = map[seriesKind]bool{}
		}
		kinds[s.name][s.kind] = true
		xys := p.points(s, pl)
		if len(xys) == 0 {
			continue
		}
		for _, part := range xys {
			line, err := plotter.NewLine(part)
			if err != nil {
				return nil, nil, fmt.Errorf("display: plot %q: line %q: %w", p.title, s.name, err)
			}
			line.LineStyle = seriesLine(s.kind, c)
			pl.Add(line)
			if s.kind != fitted {
				points, err := plotter.NewScatter(part)
				if err != nil {
					return nil, nil, fmt.Errorf("display: plot %q: line %q: %w", p.title, s.name, err)
				}
				points.GlyphStyle = seriesGlyph(s.kind, ci, c)
				pl.Add(points)
			}
		}
	}
	for _, name := range names {
		if len(p.bars) > 0 {
			continue
		}
		ci := colorOf[name]
		c := plotPalette[ci]
		kind := documented
		switch {
		case kinds[name][measured]:
			kind = measured
		case !kinds[name][documented]:
			kind = fitted
		}
		thumb := &plotter.Line{LineStyle: seriesLine(kind, c)}
		if kind == fitted {
			leg.addName(name, w, thumb)
			continue
		}
		leg.addName(name, w, thumb, &plotter.Scatter{GlyphStyle: seriesGlyph(kind, ci, c)})
	}
	p.addKeys(leg, kinds, w)
	for _, u := range p.covered(pl, logX, logY) {
		// Whether the whole names fit is decided on the plot's own
		// width, not w, which a legend beside it grows: else the second
		// layout keeps the long key that the first cut short, and the
		// legend no longer fits where the first layout made room for it.
		leg.addUnder(u[0], u[1], vg.Length(p.widthCm)*vg.Centimeter, w)
	}
	if len(p.bars) > 0 {
		// Each category gets 80% of its share of the width, split between groups.
		barW := w * 0.8 * 0.8 / vg.Length(len(p.categories)*len(p.bars))
		for i, s := range p.bars {
			b, err := plotter.NewBarChart(plotter.Values(s.ys), barW)
			if err != nil {
				return nil, nil, fmt.Errorf("display: plot %q: bars %q: %w", p.title, s.name, err)
			}
			b.Color = plotPalette[colorOf[s.name]]
			b.LineStyle.Width = 0
			b.Offset = (vg.Length(i) - vg.Length(len(p.bars)-1)/2) * barW
			pl.Add(b)
			leg.addName(s.name, w, b)
		}
		pl.NominalX(p.categories...)
		pl.X.Tick.Label.Color = catTickColor
	}
	return pl, leg, nil
}

// names returns the plot's series names, each once, in the order they
// were first added.
func (p *Plot) names() []string {
	var names []string
	seen := map[string]bool{}
	for _, s := range append(append([]series(nil), p.lines...), p.bars...) {
		if !seen[s.name] {
			seen[s.name] = true
			names = append(names, s.name)
		}
	}
	return names
}

// addKeys adds to the legend a key for each line style of a plot that
// mixes them: values measured here and a document's, or fitted curves.
func (p *Plot) addKeys(leg *plotLegend, kinds map[string]map[seriesKind]bool, w vg.Length) {
	has := map[seriesKind]bool{}
	for _, ks := range kinds {
		for k := range ks {
			has[k] = true
		}
	}
	if len(has) < 2 && !has[documented] && !has[fitted] {
		return
	}
	if has[measured] {
		leg.addKey(p.hereName, w, &plotter.Line{LineStyle: seriesLine(measured, keyColor)},
			&plotter.Scatter{GlyphStyle: seriesGlyph(measured, 0, keyColor)})
	}
	if has[documented] {
		leg.addKey(p.docName, w, &plotter.Line{LineStyle: seriesLine(documented, keyColor)},
			&plotter.Scatter{GlyphStyle: seriesGlyph(documented, 0, keyColor)})
	}
	if has[fitted] {
		leg.addKey("fitted curve", w, &plotter.Line{LineStyle: seriesLine(fitted, keyColor)})
	}
}

// fitSamples is the number of points a fitted curve is drawn through.
const fitSamples = 96

// points returns the points of a series to draw, in parts: one for a
// series of points, and for a fitted curve its samples across the data's
// x range, split where its values leave what the y axis can show.
func (p *Plot) points(s series, pl *plot.Plot) []plotter.XYs {
	if s.kind != fitted {
		xys := make(plotter.XYs, len(s.xs))
		for k := range s.xs {
			xys[k] = plotter.XY{X: s.xs[k], Y: s.ys[k]}
		}
		return []plotter.XYs{xys}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, own := range []bool{true, false} { // the range of the series' own points, else all
		for _, o := range p.lines {
			if !own || o.name == s.name {
				for _, x := range o.xs {
					lo, hi = min(lo, x), max(hi, x)
				}
			}
		}
		if hi > lo {
			break
		}
	}
	if !(hi > lo) {
		return nil
	}
	_, logY := p.logAxes()
	var parts []plotter.XYs
	var cur plotter.XYs
	for i := range fitSamples {
		t := float64(i) / (fitSamples - 1)
		x := lo + t*(hi-lo)
		if _, ok := pl.X.Scale.(plot.LogScale); ok {
			x = lo * math.Pow(hi/lo, t)
		}
		y := s.f(x)
		if math.IsNaN(y) || math.IsInf(y, 0) || (logY && y <= 0) {
			if len(cur) > 1 {
				parts = append(parts, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, plotter.XY{X: x, Y: y})
	}
	if len(cur) > 1 {
		parts = append(parts, cur)
	}
	return parts
}

// fitLegendName shortens a series name, ending it with "…", so that its
// legend entry is at most three quarters of the plot's width w.
func fitLegendName(leg *plot.Legend, name string, w vg.Length) string {
	limit := 0.75*w - leg.ThumbnailWidth
	fits := func(s string) bool { return 1.2*leg.TextStyle.Width(" "+s) <= limit } // a browser font a fifth wider
	if fits(name) {
		return name
	}
	r := []rune(name)
	for len(r) > 0 && !fits(string(r)+"…") {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// clipMargins leaves room at the sides of c for the tick labels that stick
// out of the axes. gonum measures text with Liberation Sans; a browser
// that draws it with a wider sans (DejaVu Sans is up to a fifth wider)
// pushes the last x label and the widest y label past the edge, so each
// side keeps a share of its widest label free. The top keeps two points
// free: gonum sets the title's tallest glyphs' box just past the edge.
func clipMargins(pl *plot.Plot, c draw.Canvas) draw.Canvas {
	widest := func(a *plot.Axis) vg.Length {
		var w vg.Length
		for _, t := range a.Tick.Marker.Ticks(a.Min, a.Max) {
			w = max(w, a.Tick.Label.Width(t.Label))
		}
		return w
	}
	const wider = 0.2 // how much wider than gonum's measure a label may draw
	return draw.Crop(c, vg.Points(2)+wider*widest(&pl.Y), -(vg.Points(4) + wider*widest(&pl.X)), 0, -vg.Points(2))
}

// axisLabels are a plot's axis labels, which Render draws itself: gonum
// reserves room for them around the midpoint of the data range, which on a
// log axis lies near its end, so a y label as long as "seconds" pushed the
// data area a third of an inch down from the title.
type axisLabels struct {
	pl   *plot.Plot
	x, y axisLabel
}

// axisLabel is one axis's label as gonum keeps it.
type axisLabel struct {
	Text      string
	TextStyle text.Style
	Padding   vg.Length
}

// takeAxisLabels moves the axis labels out of pl.
func takeAxisLabels(pl *plot.Plot) axisLabels {
	l := axisLabels{pl: pl,
		x: axisLabel{pl.X.Label.Text, pl.X.Label.TextStyle, pl.X.Label.Padding},
		y: axisLabel{pl.Y.Label.Text, pl.Y.Label.TextStyle, pl.Y.Label.Padding}}
	pl.X.Label.Text, pl.Y.Label.Text = "", ""
	return l
}

// room is c less the strips at its left and bottom that the labels take.
func (l axisLabels) room(c draw.Canvas) draw.Canvas {
	var left, bottom vg.Length
	if l.y.Text != "" {
		left = l.y.TextStyle.Height(l.y.Text) + l.y.Padding
	}
	if l.x.Text != "" {
		bottom = l.x.TextStyle.Height(l.x.Text) + l.x.Padding
	}
	return draw.Crop(c, left, 0, bottom, 0)
}

// dataCanvas is the data area of the plot drawn in c.
func (l axisLabels) dataCanvas(c draw.Canvas) draw.Canvas { return l.pl.DataCanvas(l.room(c)) }

// draw writes the labels in c's strips, centred on the data area dc.
func (l axisLabels) draw(c, dc draw.Canvas) {
	if l.x.Text != "" {
		c.FillText(l.x.TextStyle, vg.Point{X: dc.Center().X, Y: c.Min.Y + l.x.TextStyle.FontExtents().Descent}, l.x.Text)
	}
	if l.y.Text != "" {
		sty := l.y.TextStyle
		sty.Rotation += math.Pi / 2
		x := c.Min.X + l.y.TextStyle.Height(l.y.Text) - l.y.TextStyle.FontExtents().Descent
		c.FillText(sty, vg.Point{X: x, Y: dc.Center().Y}, l.y.Text)
	}
}

// svgFontFallbacks adds fallbacks to the one font family that gonum writes
// into its SVG. gonum lays text out with the metrics of Liberation Sans,
// which few Windows and macOS machines have; a browser that lacks every
// font a style names uses its default font, a serif one on those systems.
// Arimo and Arial have the same metrics as Liberation Sans (Arimo is the
// same design), Helvetica nearly so, and sans-serif keeps the last resort
// sans.
var svgFontFallbacks = strings.NewReplacer(
	"font-family:Liberation Sans;", "font-family:'Liberation Sans',Arimo,Arial,Helvetica,sans-serif;")

// plotMargin is the share of the data range left free at each end of an
// axis, so that markers and bars at the extremes are not cut in half.
const plotMargin = 0.04

// setRanges fits the axes to the data with a margin; bars get half a
// category on each side and room above for the legend. h is the height of
// the whole plot.
func (p *Plot) setRanges(pl *plot.Plot, leg *plotLegend, h vg.Length) {
	if len(p.bars) > 0 {
		// The value axis already starts at zero and ends at the tallest
		// bar, which then ran into the top edge and under the legend
		// (over the first category, often the slowest variant's).
		pl.X.Min, pl.X.Max = -0.5, float64(len(p.categories))-0.5
		tallest := 0.0
		for _, s := range p.bars {
			for _, y := range s.ys {
				tallest = max(tallest, y)
			}
		}
		if tallest > 0 {
			pl.Y.Max = niceTop(tallest / (1 - legendShare(leg, h)))
		}
		return
	}
	logX, logY := p.logAxes()
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range p.lines {
		for i := range s.xs {
			xlo, xhi = min(xlo, s.xs[i]), max(xhi, s.xs[i])
			ylo, yhi = min(ylo, s.ys[i]), max(yhi, s.ys[i])
		}
	}
	pl.X.Min, pl.X.Max = widen(xlo, xhi, logX)
	pl.Y.Min, pl.Y.Max = widen(ylo, yhi, logY)
	if logX {
		pl.X.Min, pl.X.Max = toDecades(xlo, xhi, pl.X.Min, pl.X.Max)
	}
	if logY {
		pl.Y.Min, pl.Y.Max = toDecades(ylo, yhi, pl.Y.Min, pl.Y.Max)
	}
}

// toDecades extends a log axis from [min, max], which holds the data
// [lo, hi], to the power of ten beyond either end that the data come
// within half a decade of, so that the axis ends at a labelled decade
// rather than half a decade past its last label. An axis that spans less
// than a decade keeps its range: its labels are the multiples between.
func toDecades(lo, hi, min, max float64) (float64, float64) {
	if hi < 10*lo {
		return min, max
	}
	if below := math.Pow(10, math.Floor(math.Log10(lo)+1e-9)); lo/below <= math.Sqrt(10) {
		min = math.Min(min, below)
	}
	if above := math.Pow(10, math.Ceil(math.Log10(hi)-1e-9)); above/hi <= math.Sqrt(10) {
		max = math.Max(max, above)
	}
	return min, max
}

// legendShare is the part of the data area's height, from the top, that
// the legend takes, with a little air under it. The data area is the plot
// less its title and x axis; plotChrome is a generous estimate of those, so
// that the share errs on the large side.
func legendShare(leg *plotLegend, h vg.Length) float64 {
	const plotChrome = 60 // points: title, tick labels and x label with paddings
	legend := leg.size().Y + legendInset + vg.Points(6)
	return min(float64(legend)/float64(h-vg.Points(plotChrome)), 0.5)
}

// niceTop returns the axis top, at or above top, for an axis from 0: the
// first round number (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of
// ten) that the linear ticks label, with at least two labels below it. An
// axis that ends between two labels shows few of them. A top that no
// candidate suits is returned as it is.
func niceTop(top float64) float64 {
	mantissas := []float64{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8}
	for exp := math.Floor(math.Log10(top)); exp <= math.Floor(math.Log10(top))+1; exp++ {
		for _, m := range mantissas {
			c := m * math.Pow(10, exp)
			if c < top {
				continue
			}
			labels, topLabelled := 0, false
			for _, t := range (linearTicks{}).Ticks(0, c) {
				if t.Label != "" {
					labels++
					topLabelled = topLabelled || math.Abs(t.Value-c) <= 1e-9*c
				}
			}
			if topLabelled && labels >= 3 {
				return c
			}
		}
	}
	return top
}

// widen extends [lo, hi] by plotMargin of its span at each end, in log
// space for a log axis; a single value gets a span around it.
func widen(lo, hi float64, log bool) (float64, float64) {
	if log {
		a, b := widen(math.Log10(lo), math.Log10(hi), false)
		return math.Pow(10, a), math.Pow(10, b)
	}
	span := hi - lo
	if span == 0 {
		span = max(math.Abs(lo), 1)
	}
	return lo - plotMargin*span, hi + plotMargin*span
}

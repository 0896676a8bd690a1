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
	"gonum.org/v1/plot/plotutil"
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

// Classes of a plot's SVG elements: the root, and the tick labels of the x
// axis, the y axis and a bar chart's category axis.
const (
	plotSVGClass  = "pathnotes-plot"
	xTickClass    = "tick-x"
	yTickClass    = "tick-y"
	catTickClass  = "tick-category"
	legendClass   = "legend"
	tickLabelSize = 10 // points, gonum's default
)

// legendColor marks the legend's texts, as the tick colours mark labels.
var legendColor = color.RGBA{R: 1, G: 1, B: 5, A: 255}

// markedText matches the style ending of a text that carries a marker colour.
var markedText = regexp.MustCompile(`<text ([^>]*?);fill:#01010([2345])"`)

// markPlotSVG classes the root element and the marked texts of a plot's SVG.
func markPlotSVG(s string) string {
	s = strings.Replace(s, "<svg ", `<svg class="`+plotSVGClass+`" `, 1)
	classes := map[string]string{"2": xTickClass, "3": yTickClass, "4": catTickClass, "5": legendClass}
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
	if len(p.lines) == 0 && len(p.bars) == 0 {
		return nil, fmt.Errorf("display: plot %q has no data (add a Line or Bar)", p.title)
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
	l, err := p.layout(draw.New(vgsvg.New(w, h)))
	if err != nil {
		return nil, err
	}
	w, h = w+l.grow.X, h+l.grow.Y
	cw, err := draw.NewFormattedCanvas(w, h, format)
	if err != nil {
		return nil, fmt.Errorf("display: plot %q: %w", p.title, err)
	}
	if l, err = p.layout(draw.New(cw)); err != nil {
		return nil, err
	}
	l.pl.Draw(l.inner)
	l.labels.draw(l.area, l.pl.DataCanvas(l.inner))
	l.leg.Draw(l.legend)
	var buf bytes.Buffer
	if _, err := cw.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("display: plot %q: writing %s: %w", p.title, format, err)
	}
	if format == "svg" {
		return []byte(markPlotSVG(svgFontFallbacks.Replace(buf.String()))), nil
	}
	return buf.Bytes(), nil
}

// plotLayout is a plot laid out on a canvas: area holds the plot and its
// axis labels, inner the plot less the labels, legend the legend's box.
type plotLayout struct {
	pl                  *plot.Plot
	leg                 plot.Legend
	labels              axisLabels
	area, inner, legend draw.Canvas
	grow                vg.Point // room a legend outside the plot takes
}

// layout builds the plot and places its parts on c.
func (p *Plot) layout(c draw.Canvas) (*plotLayout, error) {
	w, h := c.Size().X, c.Size().Y
	pl, leg, err := p.build(w)
	if err != nil {
		return nil, err
	}
	p.setRanges(pl, &leg, h)
	l := &plotLayout{pl: pl, leg: leg, labels: takeAxisLabels(pl)}
	l.area, l.legend, l.grow = placeLegend(pl, &l.leg, clipMargins(pl, c), p.marks(), l.labels.dataCanvas)
	l.inner = l.labels.room(l.area)
	return l, nil
}

// build makes the gonum plot and its legend, which Render draws apart
// from the plot so that it can go where it hides no data. w is the width
// of the whole plot.
func (p *Plot) build(w vg.Length) (*plot.Plot, plot.Legend, error) {
	pl := plot.New()
	leg := plot.NewLegend()
	pl.Title.Text = p.title
	pl.X.Label.Text = p.xLabel
	pl.Y.Label.Text = p.yLabel
	for _, f := range []*font.Font{&pl.Title.TextStyle.Font, &pl.X.Label.TextStyle.Font, &pl.Y.Label.TextStyle.Font,
		&pl.X.Tick.Label.Font, &pl.Y.Tick.Label.Font, &leg.TextStyle.Font} {
		f.Variant = "Sans"
	}
	pl.X.Tick.Label.Color, pl.Y.Tick.Label.Color, leg.TextStyle.Color = xTickColor, yTickColor, legendColor
	logX, logY := p.logAxes()
	pl.X.Tick.Marker, pl.Y.Tick.Marker = linearTicks{}, linearTicks{}
	if logX {
		pl.X.Scale, pl.X.Tick.Marker = plot.LogScale{}, logTicks{}
	}
	if logY {
		pl.Y.Scale, pl.Y.Tick.Marker = plot.LogScale{}, logTicks{}
	}
	pl.Add(plotter.NewGrid())
	pl.Title.Padding = vg.Points(6)
	// Without padding the entries' lines touch as soon as the browser's
	// font is a little taller than the one gonum measured.
	leg.Padding = vg.Points(2)
	for i, s := range p.lines {
		xys := make(plotter.XYs, len(s.xs))
		for k := range s.xs {
			xys[k] = plotter.XY{X: s.xs[k], Y: s.ys[k]}
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, leg, fmt.Errorf("display: plot %q: line %q: %w", p.title, s.name, err)
		}
		c := seriesColor(i)
		line.Color, line.Width, line.Dashes = c, vg.Points(1.5), plotutil.Dashes(i/len(plotutil.DarkColors))
		points.Color, points.Shape = c, plotutil.Shape(i)
		pl.Add(line, points)
		leg.Add(fitLegendName(&leg, s.name, w), line, points)
	}
	if len(p.bars) > 0 {
		// Each category gets 80% of its share of the width, split between groups.
		barW := w * 0.8 * 0.8 / vg.Length(len(p.categories)*len(p.bars))
		for i, s := range p.bars {
			b, err := plotter.NewBarChart(plotter.Values(s.ys), barW)
			if err != nil {
				return nil, leg, fmt.Errorf("display: plot %q: bars %q: %w", p.title, s.name, err)
			}
			b.Color = seriesColor(i)
			b.LineStyle.Width = 0
			b.Offset = (vg.Length(i) - vg.Length(len(p.bars)-1)/2) * barW
			pl.Add(b)
			leg.Add(fitLegendName(&leg, s.name, w), b)
		}
		pl.NominalX(p.categories...)
		pl.X.Tick.Label.Color = catTickColor
	}
	return pl, leg, nil
}

// fitLegendName shortens a series name, ending it with "…", so that its
// legend entry is at most three quarters of the plot's width w.
func fitLegendName(leg *plot.Legend, name string, w vg.Length) string {
	limit := 0.75*w - leg.ThumbnailWidth
	fits := func(s string) bool { return leg.TextStyle.Width(" "+s) <= limit }
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
func (p *Plot) setRanges(pl *plot.Plot, leg *plot.Legend, h vg.Length) {
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
}

// legendShare is the part of the data area's height, from the top, that
// the legend takes, with a little air under it. The data area is the plot
// less its title and x axis; plotChrome is a generous estimate of those, so
// that the share errs on the large side.
func legendShare(leg *plot.Legend, h vg.Length) float64 {
	const plotChrome = 60 // points: title, tick labels and x label with paddings
	legend := legendSize(leg).Y + legendInset + vg.Points(6)
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

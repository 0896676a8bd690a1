package display

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Plot is a chart of timings or other measurements, drawn with gonum's
// plot package as SVG (the default) or PNG: lines with markers for values
// against a number (time against n per variant), or grouped bars for values
// per category. Build it call by call in a cell:
//
//	p := display.NewPlot("Floyd-Warshall", "n", "seconds").LogLog()
//	p.Line("fw-hn", ns, hn)
//	p.Line("fw-blocked", ns, blocked)
//
// A plot holds either lines or bars, not both.
type Plot struct {
	title, xLabel, yLabel string
	logX, logY            bool
	lines                 []series
	bars                  []series
	categories            []string
	png                   bool
	widthCm, heightCm     float64
	err                   error
}

// series is one named line or bar group; xs is nil for bars.
type series struct {
	name   string
	xs, ys []float64
}

// NewPlot starts a plot with a title and axis labels, 16 cm × 10 cm.
func NewPlot(title, xLabel, yLabel string) *Plot {
	return &Plot{title: title, xLabel: xLabel, yLabel: yLabel, widthCm: 16, heightCm: 10}
}

// failf keeps the first bad call's error, prefixed with the plot's title.
func (p *Plot) failf(format string, args ...any) *Plot {
	if p.err == nil {
		p.err = fmt.Errorf("display: plot %q: "+format, append([]any{p.title}, args...)...)
	}
	return p
}

// Err returns the first bad call on the plot (mismatched lengths, a value a
// log axis cannot show, lines mixed with bars), if any.
func (p *Plot) Err() error {
	if p == nil {
		return fmt.Errorf("display: nil *Plot")
	}
	return p.err
}

// LogLog makes both axes logarithmic, the usual view of O(n³) timings
// (their slope is the exponent).
func (p *Plot) LogLog() *Plot { return p.LogX().LogY() }

// LogX makes the x axis logarithmic; every x must then be positive.
func (p *Plot) LogX() *Plot { p.logX = true; return p.check() }

// LogY makes the y axis logarithmic; every y must then be positive.
func (p *Plot) LogY() *Plot { p.logY = true; return p.check() }

// Size sets the plot's size in centimetres (at 96 dots per inch for PNG).
func (p *Plot) Size(widthCm, heightCm float64) *Plot {
	if !(widthCm > 0 && heightCm > 0 && widthCm <= 100 && heightCm <= 100) {
		return p.failf("size %g×%g cm, want each in (0, 100]", widthCm, heightCm)
	}
	p.widthCm, p.heightCm = widthCm, heightCm
	return p
}

// AsPNG makes the plot show as a PNG image instead of SVG (smaller for
// plots with many thousands of points).
func (p *Plot) AsPNG() *Plot { p.png = true; return p }

// Line adds a line with a marker at each point (xs[i], ys[i]).
func (p *Plot) Line(name string, xs, ys []float64) *Plot {
	switch {
	case len(p.bars) > 0:
		return p.failf("line %q added to a bar chart (use a plot of its own)", name)
	case len(xs) != len(ys):
		return p.failf("line %q has %d x values and %d y values", name, len(xs), len(ys))
	case len(xs) == 0:
		return p.failf("line %q has no points", name)
	}
	p.lines = append(p.lines, series{name, append([]float64(nil), xs...), append([]float64(nil), ys...)})
	return p.check()
}

// Speedup adds the line baseline[i]/times[i] against xs: how many times
// faster a variant is than the baseline at each size.
func (p *Plot) Speedup(name string, xs, baseline, times []float64) *Plot {
	if len(baseline) != len(times) {
		return p.failf("speed-up %q has %d baseline times and %d times", name, len(baseline), len(times))
	}
	ratios := make([]float64, len(times))
	for i, t := range times {
		if !(t > 0) {
			return p.failf("speed-up %q: time %d is %g, want > 0", name, i, t)
		}
		ratios[i] = baseline[i] / t
	}
	return p.Line(name, xs, ratios)
}

// Bar adds one bar per category, grouped with the bars of other calls: for
// example the times of one variant at several sizes. Every call must give
// the same categories.
func (p *Plot) Bar(name string, categories []string, values []float64) *Plot {
	switch {
	case len(p.lines) > 0:
		return p.failf("bars %q added to a line plot (use a plot of its own)", name)
	case len(categories) != len(values):
		return p.failf("bars %q have %d categories and %d values", name, len(categories), len(values))
	case len(values) == 0:
		return p.failf("bars %q have no values", name)
	case p.categories != nil && strings.Join(categories, "\x00") != strings.Join(p.categories, "\x00"):
		return p.failf("bars %q have categories %v, earlier bars %v", name, categories, p.categories)
	}
	p.categories = append([]string(nil), categories...)
	p.bars = append(p.bars, series{name: name, ys: append([]float64(nil), values...)})
	return p.check()
}

// check rejects values the axes cannot draw.
func (p *Plot) check() *Plot {
	if p.logY && len(p.bars) > 0 {
		return p.failf("bars start at 0, which a log y axis cannot show")
	}
	for _, s := range append(append([]series(nil), p.lines...), p.bars...) {
		for i := range s.ys {
			if s.xs != nil {
				if err := axisValue(p.logX, "x", s.xs[i]); err != nil {
					return p.failf("%q point %d: %w", s.name, i, err)
				}
			}
			if err := axisValue(p.logY, "y", s.ys[i]); err != nil {
				return p.failf("%q point %d: %w", s.name, i, err)
			}
		}
	}
	return p
}

// axisValue checks that v can be placed on an axis.
func axisValue(log bool, axis string, v float64) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Errorf("%s = %g cannot be drawn", axis, v)
	case log && v <= 0:
		return fmt.Errorf("%s = %g on a log axis (want > 0)", axis, v)
	}
	return nil
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
	pl := plot.New()
	pl.Title.Text = p.title
	pl.X.Label.Text = p.xLabel
	pl.Y.Label.Text = p.yLabel
	for _, f := range []*font.Font{&pl.Title.TextStyle.Font, &pl.X.Label.TextStyle.Font, &pl.Y.Label.TextStyle.Font,
		&pl.X.Tick.Label.Font, &pl.Y.Tick.Label.Font, &pl.Legend.TextStyle.Font} {
		f.Variant = "Sans"
	}
	if p.logX {
		pl.X.Scale, pl.X.Tick.Marker = plot.LogScale{}, logTicks{}
	}
	if p.logY {
		pl.Y.Scale, pl.Y.Tick.Marker = plot.LogScale{}, logTicks{}
	}
	pl.Add(plotter.NewGrid())
	pl.Title.Padding = vg.Points(6)
	// Top left is where rising timing curves leave room.
	pl.Legend.Top, pl.Legend.Left = true, true
	pl.Legend.XOffs, pl.Legend.YOffs = vg.Points(8), -vg.Points(4)
	// Without padding the entries' lines touch as soon as the browser's
	// font is a little taller than the one gonum measured.
	pl.Legend.Padding = vg.Points(2)
	w, h := vg.Length(p.widthCm)*vg.Centimeter, vg.Length(p.heightCm)*vg.Centimeter
	for i, s := range p.lines {
		xys := make(plotter.XYs, len(s.xs))
		for k := range s.xs {
			xys[k] = plotter.XY{X: s.xs[k], Y: s.ys[k]}
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("display: plot %q: line %q: %w", p.title, s.name, err)
		}
		c := seriesColor(i)
		line.Color, line.Width, line.Dashes = c, vg.Points(1.5), plotutil.Dashes(i/len(plotutil.DarkColors))
		points.Color, points.Shape = c, plotutil.Shape(i)
		pl.Add(line, points)
		pl.Legend.Add(s.name, line, points)
	}
	if len(p.bars) > 0 {
		// Each category gets 80% of its share of the width, split between groups.
		barW := w * 0.8 * 0.8 / vg.Length(len(p.categories)*len(p.bars))
		for i, s := range p.bars {
			b, err := plotter.NewBarChart(plotter.Values(s.ys), barW)
			if err != nil {
				return nil, fmt.Errorf("display: plot %q: bars %q: %w", p.title, s.name, err)
			}
			b.Color = seriesColor(i)
			b.LineStyle.Width = 0
			b.Offset = (vg.Length(i) - vg.Length(len(p.bars)-1)/2) * barW
			pl.Add(b)
			pl.Legend.Add(s.name, b)
		}
		pl.NominalX(p.categories...)
	}
	p.setRanges(pl, h)
	wt, err := pl.WriterTo(w, h, format)
	if err != nil {
		return nil, fmt.Errorf("display: plot %q: %w", p.title, err)
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("display: plot %q: writing %s: %w", p.title, format, err)
	}
	if format == "svg" {
		return []byte(svgFontFallbacks.Replace(buf.String())), nil
	}
	return buf.Bytes(), nil
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
func (p *Plot) setRanges(pl *plot.Plot, h vg.Length) {
	if len(p.bars) > 0 {
		// The value axis already starts at zero and ends at the tallest
		// bar, which then ran into the top edge and under the legend (top
		// left, over the first category, often the slowest variant's).
		pl.X.Min, pl.X.Max = -0.5, float64(len(p.categories))-0.5
		tallest := 0.0
		for _, s := range p.bars {
			for _, y := range s.ys {
				tallest = max(tallest, y)
			}
		}
		if tallest > 0 {
			pl.Y.Max = niceTop(tallest / (1 - legendShare(pl, h)))
		}
		return
	}
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range p.lines {
		for i := range s.xs {
			xlo, xhi = min(xlo, s.xs[i]), max(xhi, s.xs[i])
			ylo, yhi = min(ylo, s.ys[i]), max(yhi, s.ys[i])
		}
	}
	pl.X.Min, pl.X.Max = widen(xlo, xhi, p.logX)
	pl.Y.Min, pl.Y.Max = widen(ylo, yhi, p.logY)
}

// legendShare is the part of the data area's height, from the top, that
// the legend takes, with a little air under it. The data area is the plot
// less its title and x axis; plotChrome is a generous estimate of those, so
// that the share errs on the large side.
func legendShare(pl *plot.Plot, h vg.Length) float64 {
	const plotChrome = 60 // points: title, tick labels and x label with paddings
	legend := pl.Legend.Rectangle(draw.Canvas{}).Size().Y - pl.Legend.YOffs + vg.Points(6)
	return min(float64(legend)/float64(h-vg.Points(plotChrome)), 0.5)
}

// niceTop returns the axis top, at or above top, for an axis from 0: the
// first round number (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of
// ten) that gonum's default ticker labels, with at least two labels below
// it. An axis that ends between two labels shows few of them: 0 and 0.25
// for a top of 0.29, where 0.3 gives 0, 0.1, 0.2 and 0.3. A top that no
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
			for _, t := range (plot.DefaultTicks{}).Ticks(0, c) {
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

// seriesColor is the colour of series i: gonum's dark palette, whose
// colours stay apart on white.
func seriesColor(i int) color.Color {
	return plotutil.DarkColors[i%len(plotutil.DarkColors)]
}

// Text describes the plot in words: title, axes and each series' points
// (the first and last few when there are many).
func (p *Plot) Text() string {
	if err := p.Err(); err != nil {
		return "error: " + err.Error()
	}
	var sb strings.Builder
	scale := ""
	switch {
	case p.logX && p.logY:
		scale = ", log-log"
	case p.logX:
		scale = ", log x"
	case p.logY:
		scale = ", log y"
	}
	fmt.Fprintf(&sb, "plot %q: x = %s, y = %s%s\n", p.title, p.xLabel, p.yLabel, scale)
	for _, s := range p.lines {
		pts := make([]string, len(s.xs))
		for i := range s.xs {
			pts[i] = "(" + formatFloat(s.xs[i]) + ", " + formatFloat(s.ys[i]) + ")"
		}
		sb.WriteString("  " + s.name + ": " + elide(pts, 8) + "\n")
	}
	for _, s := range p.bars {
		vals := make([]string, len(s.ys))
		for i, y := range s.ys {
			vals[i] = p.categories[i] + "=" + formatFloat(y)
		}
		sb.WriteString("  " + s.name + ": " + elide(vals, 8) + "\n")
	}
	return strings.TrimRight(sb.String(), "\n")
}

// elide joins items, keeping the first and last few of a long list.
func elide(items []string, keep int) string {
	if len(items) <= keep {
		return strings.Join(items, " ")
	}
	head, tail := items[:keep/2], items[len(items)-keep/2:]
	return fmt.Sprintf("%s … %s (%d points)", strings.Join(head, " "), strings.Join(tail, " "), len(items))
}

// MIMEBundle draws the plot as SVG, or PNG after AsPNG, with its text.
func (p *Plot) MIMEBundle() (data, metadata map[string]any) {
	if err := p.Err(); err != nil {
		return errorBundle(err).MIMEBundle()
	}
	format := "svg"
	if p.png {
		format = "png"
	}
	img, err := p.Render(format)
	if err != nil {
		return errorBundle(err).MIMEBundle()
	}
	if !p.png {
		return svgBundle(string(img), p.Text()).Data, nil
	}
	b := PNG(img)
	b.Data[MIMEText] = p.Text()
	return b.Data, b.Metadata
}

// Ints converts integers (vertex counts, sizes) to the float64 values that
// Line and Bar take.
func Ints(xs []int) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// Seconds converts durations to float64 seconds for Line and Bar.
func Seconds(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = d.Seconds()
	}
	return out
}

// logTicks are gonum's log-axis ticks with labels rounded to six significant
// digits: its powers of ten are products of floats, and printed exactly they
// read 9.999999999999999e-05.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(min, max float64) []plot.Tick {
	ts := plot.LogTicks{Prec: -1}.Ticks(min, max)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', 6, 64)
		}
	}
	return ts
}

package display

import (
	"fmt"
	"math"
	"strings"
	"time"
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
// A plot holds either lines or bars, not both. Documented adds a
// document's values beside the ones measured here, and Fit a fitted curve;
// every plot gets the same style (plotstyle.go): one colour and marker per
// series name for the whole session, the document's values dashed with
// hollow markers in the colour of the series they belong to, and a legend
// that names each series once. A line hidden under a later one (two
// implementations that take the same time) gets a key that says so,
// "fw-blocked: under fw-gaioso".
//
// Unless a call fixes an axis's scale (LogX, LogY, LogLog, LinearX,
// LinearY), a line plot's axis turns logarithmic by itself when all its
// values are positive and they span more than two decades. Every log axis is
// labelled at its powers of ten (and at 2 and 5 between them when it spans
// fewer than three decades), every linear axis at round steps, large and
// small numbers read compactly (1e7, 5e-5), and the legend goes in a corner
// where it hides no point or line, or beside (or below) the plot when no
// corner is free. A log axis ends at a power of ten when its data come
// within half a decade of one, and labels every decade it spans; an x axis
// with few distinct values (the sizes measured) labels them. A title too
// long for the plot wraps.
type Plot struct {
	title, xLabel, yLabel string
	docName, hereName     string // Sources: the legend's keys for dashed and solid lines
	xScale, yScale        scale
	lines                 []series
	bars                  []series
	categories            []string
	png                   bool
	widthCm, heightCm     float64
	err                   error
}

// scale is an axis's scale as the caller set it.
type scale int

const (
	scaleAuto   scale = iota // log when the values span more than two decades
	scaleLinear              // fixed by LinearX or LinearY
	scaleLog                 // fixed by LogX, LogY or LogLog
)

// autoLogSpan is the ratio of largest to smallest value above which an
// axis left to choose its scale turns logarithmic: more than two decades.
const autoLogSpan = 100

// series is one named line or bar group; xs is nil for bars. A fitted
// curve has f and no points.
type series struct {
	name   string
	kind   seriesKind
	xs, ys []float64
	f      func(float64) float64
}

// NewPlot starts a plot with a title and axis labels, 16 cm × 10 cm.
func NewPlot(title, xLabel, yLabel string) *Plot {
	return &Plot{title: title, xLabel: xLabel, yLabel: yLabel, widthCm: 16, heightCm: 10,
		docName: "document", hereName: "measured"}
}

// Sources names the two line styles in the legend's keys: doc for the
// dashed lines of Documented (a document's values; "document" unless set),
// here for the solid lines of Line and Speedup ("measured" unless set),
// for example Sources("[Karaula 2017]", "here, NVIDIA H100").
func (p *Plot) Sources(doc, here string) *Plot {
	if doc == "" || here == "" {
		return p.failf("Sources(%q, %q): want both names", doc, here)
	}
	p.docName, p.hereName = doc, here
	return p
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
func (p *Plot) LogX() *Plot { p.xScale = scaleLog; return p.check() }

// LogY makes the y axis logarithmic; every y must then be positive.
func (p *Plot) LogY() *Plot { p.yScale = scaleLog; return p.check() }

// LinearX keeps the x axis linear even when its values span more than two
// decades, where it would turn logarithmic by itself.
func (p *Plot) LinearX() *Plot { p.xScale = scaleLinear; return p }

// LinearY keeps the y axis linear even when its values span more than two
// decades, where it would turn logarithmic by itself.
func (p *Plot) LinearY() *Plot { p.yScale = scaleLinear; return p }

// logAxes reports which axes are drawn logarithmic: those fixed so, and
// those left to choose whose values are all positive and span more than
// autoLogSpan. Bar charts choose nothing: their x axis names categories
// and their bars start at 0.
func (p *Plot) logAxes() (logX, logY bool) {
	logX, logY = p.xScale == scaleLog, p.yScale == scaleLog
	if len(p.lines) == 0 {
		return logX, logY
	}
	auto := func(values func(series) []float64) bool {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, s := range p.lines {
			for _, v := range values(s) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
		return lo > 0 && hi > autoLogSpan*lo
	}
	if p.xScale == scaleAuto {
		logX = auto(func(s series) []float64 { return s.xs })
	}
	if p.yScale == scaleAuto {
		logY = auto(func(s series) []float64 { return s.ys })
	}
	return logX, logY
}

// Size sets the plot's size in centimetres (at 96 dots per inch for PNG).
// A legend that no corner of the data area can hold without hiding data
// widens the image (or, when it is wide, makes it taller) by its own size.
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
	return p.addLine(name, measured, xs, ys)
}

// Documented adds a document's values for the series name: drawn in the
// colour of the series name measured here (Line), dashed, with hollow
// markers, and named once in the legend with it. A single point shows as
// a marker alone.
func (p *Plot) Documented(name string, xs, ys []float64) *Plot {
	return p.addLine(name, documented, xs, ys)
}

// addLine checks a line's points and keeps a copy of them.
func (p *Plot) addLine(name string, kind seriesKind, xs, ys []float64) *Plot {
	what := "line"
	if kind == documented {
		what = "documented line"
	}
	switch {
	case len(p.bars) > 0:
		return p.failf("%s %q added to a bar chart (use a plot of its own)", what, name)
	case len(xs) != len(ys):
		return p.failf("%s %q has %d x values and %d y values", what, name, len(xs), len(ys))
	case len(xs) == 0:
		return p.failf("%s %q has no points", what, name)
	}
	p.lines = append(p.lines, series{name: name, kind: kind, xs: append([]float64(nil), xs...), ys: append([]float64(nil), ys...)})
	return p.check()
}

// Fit adds f, a curve fitted to the series name (a least-squares line, a
// power law), as a thin dotted line in the series' colour across the x
// range of the plot's points. It is drawn as the curve it is on every
// scale: sampled finely (evenly in log x on a log x axis), and left out
// where its values cannot be drawn (y ≤ 0 on a log y axis). It does not
// widen the axes, which fit the points.
func (p *Plot) Fit(name string, f func(x float64) float64) *Plot {
	switch {
	case len(p.bars) > 0:
		return p.failf("fit %q added to a bar chart", name)
	case f == nil:
		return p.failf("fit %q: nil function", name)
	}
	p.lines = append(p.lines, series{name: name, kind: fitted, f: f})
	return p
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
	p.bars = append(p.bars, series{name: name, kind: measured, ys: append([]float64(nil), values...)})
	return p.check()
}

// check rejects values the axes cannot draw.
func (p *Plot) check() *Plot {
	if p.yScale == scaleLog && len(p.bars) > 0 {
		return p.failf("bars start at 0, which a log y axis cannot show")
	}
	for _, s := range append(append([]series(nil), p.lines...), p.bars...) {
		for i := range s.ys {
			if s.xs != nil {
				if err := axisValue(p.xScale == scaleLog, "x", s.xs[i]); err != nil {
					return p.failf("%q point %d: %w", s.name, i, err)
				}
			}
			if err := axisValue(p.yScale == scaleLog, "y", s.ys[i]); err != nil {
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

// Text describes the plot in words: title, axes and each series' points
// (the first and last few when there are many).
func (p *Plot) Text() string {
	if err := p.Err(); err != nil {
		return "error: " + err.Error()
	}
	var sb strings.Builder
	scales := ""
	switch logX, logY := p.logAxes(); {
	case logX && logY:
		scales = ", log-log"
	case logX:
		scales = ", log x"
	case logY:
		scales = ", log y"
	}
	fmt.Fprintf(&sb, "plot %q: x = %s, y = %s%s\n", p.title, p.xLabel, p.yLabel, scales)
	for _, s := range p.lines {
		switch s.kind {
		case fitted:
			sb.WriteString("  " + s.name + ": a fitted curve\n")
			continue
		case documented:
			sb.WriteString("  " + s.name + " (" + p.docName + ")")
		default:
			sb.WriteString("  " + s.name)
		}
		pts := make([]string, len(s.xs))
		for i := range s.xs {
			pts[i] = "(" + formatFloat(s.xs[i]) + ", " + formatFloat(s.ys[i]) + ")"
		}
		sb.WriteString(": " + elide(pts, 8) + "\n")
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

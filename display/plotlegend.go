package display

import (
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// dataMark is something drawn in a plot's data area, in data coordinates:
// a line segment from (x0, y0) to (x1, y1) (a point when they are equal),
// or with filled set the rectangle they span (a bar).
type dataMark struct {
	x0, y0, x1, y1 float64
	filled         bool
}

// marks lists the plot's points and segments, and a rectangle per
// category covering its bars.
func (p *Plot) marks() []dataMark {
	var ms []dataMark
	for _, s := range p.lines {
		for i := range s.xs {
			ms = append(ms, dataMark{x0: s.xs[i], y0: s.ys[i], x1: s.xs[i], y1: s.ys[i]})
			if i > 0 {
				ms = append(ms, dataMark{x0: s.xs[i-1], y0: s.ys[i-1], x1: s.xs[i], y1: s.ys[i]})
			}
		}
	}
	for c := range p.categories {
		top := 0.0
		for _, s := range p.bars {
			top = max(top, s.ys[c])
		}
		ms = append(ms, dataMark{x0: float64(c) - 0.45, x1: float64(c) + 0.45, y1: top, filled: true})
	}
	return ms
}

// legendInset is the gap between the legend and the data area's edges.
const legendInset = 6 // points

// legendClearance is how far the legend keeps from any point or line: a
// marker's radius and a line's width with some air.
const legendClearance = 4 // points

// plotLegend is a plot's legend: an entry per series name, and under
// them a key for each line style the plot mixes (measured here, a
// document's values, fitted curves). The keys' texts carry their own
// marker colour, so that the SVG tells them from series names.
type plotLegend struct {
	names, keys   plot.Legend
	nNames, nKeys int // entries of each
}

// addName adds a series' entry, its name shortened to fit the plot's
// width w.
func (l *plotLegend) addName(name string, w vg.Length, thumbs ...plot.Thumbnailer) {
	l.names.Add(fitLegendName(&l.names, name, w), thumbs...)
	l.nNames++
}

// addUnder adds the key of a line hidden under another, "A: under B",
// with the names cut before their parenthesis ("fw-hn: under
// fw-hn-shared") when the whole of them would not fit the plot's own
// width plotW; w is the width the legend is laid out in.
func (l *plotLegend) addUnder(hidden, top string, plotW, w vg.Length) {
	key := hidden + ": under " + top
	if fitLegendName(&l.keys, key, plotW) != key {
		short := func(s string) string {
			if i := strings.Index(s, " ("); i > 0 {
				return s[:i]
			}
			return s
		}
		key = short(hidden) + ": under " + short(top)
	}
	l.addKey(key, w)
}

// addKey adds a line style's key.
func (l *plotLegend) addKey(name string, w vg.Length, thumbs ...plot.Thumbnailer) {
	l.keys.Add(fitLegendName(&l.keys, name, w), thumbs...)
	l.nKeys++
}

// newPlotLegend makes an empty legend in the plot style.
func newPlotLegend() *plotLegend {
	l := &plotLegend{names: plot.NewLegend(), keys: plot.NewLegend()}
	l.names.TextStyle.Color, l.keys.TextStyle.Color = legendColor, legendKeyColor
	for _, leg := range []*plot.Legend{&l.names, &l.keys} {
		// Without padding the entries' lines touch as soon as the
		// browser's font is a little taller than the one gonum measured.
		leg.Padding = vg.Points(2)
		leg.Top, leg.Left = true, true
	}
	return l
}

// size is the size of the legend's box.
func (l *plotLegend) size() vg.Point {
	names := legendSize(&l.names, l.nNames)
	if l.nKeys == 0 {
		return names
	}
	keys := legendSize(&l.keys, l.nKeys)
	return vg.Point{X: max(names.X, keys.X), Y: names.Y + keys.Y + vg.Points(legendKeyGap)}
}

// draw draws the legend at the top left of c: the names, then the keys.
func (l *plotLegend) draw(c draw.Canvas) {
	l.names.Draw(c)
	if l.nKeys > 0 {
		l.keys.Draw(draw.Crop(c, 0, 0, 0, -(legendSize(&l.names, l.nNames).Y + vg.Points(legendKeyGap))))
	}
}

// legendKeyGap is the space between the series' names and the keys.
const legendKeyGap = 4 // points

// legendSize is the size of the box of a gonum legend of n entries.
func legendSize(leg *plot.Legend, n int) vg.Point {
	if n == 0 {
		return vg.Point{}
	}
	r := leg.Rectangle(draw.Canvas{})
	return vg.Point{X: r.Size().X, Y: r.Size().Y + leg.TextStyle.FontExtents().Descent}
}

// placeLegend chooses where the legend goes: the first of the data area's
// corners (top left, top right, bottom right, bottom left) whose box keeps
// clear of every mark, else beside the plot on the right, or below it when
// the legend is too wide to stand beside it. dataCanvas gives the data
// area of the plot drawn in a canvas. placeLegend returns the canvas to
// draw the plot in, the one, exactly the legend's box, to draw the legend
// in, and for a legend outside the plot how much wider or taller c would
// have to be for the plot to keep its whole size.
func placeLegend(pl *plot.Plot, leg *plotLegend, c draw.Canvas, marks []dataMark, dataCanvas func(draw.Canvas) draw.Canvas) (area, legend draw.Canvas, grow vg.Point) {
	size := leg.size()
	box := func(r vg.Rectangle) draw.Canvas { return draw.Canvas{Canvas: c.Canvas, Rectangle: r} }
	// Room for names drawn in a font wider than the one gonum measures
	// with, as clipMargins keeps for tick labels: a legend in a corner
	// keeps it free of data too, and one on the right stops short by it.
	slack := 0.2 * (size.X - leg.names.ThumbnailWidth)
	if r, ok := freeCorner(pl, dataCanvas(c), vg.Point{X: size.X + slack, Y: size.Y}, marks); ok {
		r.Max.X -= slack
		return c, box(r), vg.Point{}
	}
	const gap = 10 // points between the plot and a legend beside or below it
	if size.X <= legendBesideShare*(c.Max.X-c.Min.X) {
		beside := size.X + slack + vg.Points(gap)
		area = draw.Crop(c, 0, -beside, 0, 0)
		top := dataCanvas(area).Max.Y
		return area, box(vg.Rectangle{
			Min: vg.Point{X: c.Max.X - slack - size.X, Y: top - size.Y},
			Max: vg.Point{X: c.Max.X - slack, Y: top},
		}), vg.Point{X: beside}
	}
	const below = 2 // points under the legend, for its last line's descent
	under := size.Y + vg.Points(gap+below)
	area = draw.Crop(c, 0, 0, under, 0)
	left := max(c.Min.X, min(dataCanvas(area).Min.X, c.Max.X-slack-size.X))
	return area, box(vg.Rectangle{
		Min: vg.Point{X: left, Y: c.Min.Y + vg.Points(below)},
		Max: vg.Point{X: left + size.X, Y: c.Min.Y + vg.Points(below) + size.Y},
	}), vg.Point{Y: under}
}

// legendBesideShare is the largest share of the plot's width that a legend
// beside the plot may take; a wider one goes below.
const legendBesideShare = 0.5

// freeCorner returns the box of the given size in the first corner of the
// data area dc that keeps legendClearance from every mark.
func freeCorner(pl *plot.Plot, dc draw.Canvas, size vg.Point, marks []dataMark) (vg.Rectangle, bool) {
	in := vg.Points(legendInset)
	if size.X+2*in > dc.Max.X-dc.Min.X || size.Y+2*in > dc.Max.Y-dc.Min.Y {
		return vg.Rectangle{}, false
	}
	left, right := dc.Min.X+in, dc.Max.X-in-size.X
	bottom, top := dc.Min.Y+in, dc.Max.Y-in-size.Y
	for _, at := range []vg.Point{{X: left, Y: top}, {X: right, Y: top}, {X: right, Y: bottom}, {X: left, Y: bottom}} {
		r := vg.Rectangle{Min: at, Max: at.Add(size)}
		if !coversAny(pl, dc, r, marks) {
			return r, true
		}
	}
	return vg.Rectangle{}, false
}

// coversAny reports whether r, widened by legendClearance, meets any mark
// drawn on the data canvas dc.
func coversAny(pl *plot.Plot, dc draw.Canvas, r vg.Rectangle, marks []dataMark) bool {
	cl := vg.Points(legendClearance)
	x0, y0 := float64(r.Min.X-cl), float64(r.Min.Y-cl)
	x1, y1 := float64(r.Max.X+cl), float64(r.Max.Y+cl)
	px := func(x float64) float64 { return float64(dc.X(pl.X.Norm(x))) }
	py := func(y float64) float64 { return float64(dc.Y(pl.Y.Norm(y))) }
	for _, m := range marks {
		ax, ay, bx, by := px(m.x0), py(m.y0), px(m.x1), py(m.y1)
		if m.filled {
			if min(ax, bx) <= x1 && max(ax, bx) >= x0 && min(ay, by) <= y1 && max(ay, by) >= y0 {
				return true
			}
			continue
		}
		if segmentMeetsBox(ax, ay, bx, by, x0, y0, x1, y1) {
			return true
		}
	}
	return false
}

// segmentMeetsBox reports whether the segment from (ax, ay) to (bx, by)
// meets the box [x0, x1] × [y0, y1], by clipping the segment's parameter
// range to each slab (Liang and Barsky's method).
func segmentMeetsBox(ax, ay, bx, by, x0, y0, x1, y1 float64) bool {
	lo, hi := 0.0, 1.0
	for _, s := range [][3]float64{{ax, bx - ax, 0}, {ay, by - ay, 1}} {
		start, delta := s[0], s[1]
		bmin, bmax := x0, x1
		if s[2] == 1 {
			bmin, bmax = y0, y1
		}
		if delta == 0 {
			if start < bmin || start > bmax {
				return false
			}
			continue
		}
		t0, t1 := (bmin-start)/delta, (bmax-start)/delta
		if t0 > t1 {
			t0, t1 = t1, t0
		}
		lo, hi = math.Max(lo, t0), math.Min(hi, t1)
		if lo > hi {
			return false
		}
	}
	return true
}

// coverFraction is how close two points are, as a fraction of each axis's
// span, for the later one's marker to hide the earlier one's.
const coverFraction = 0.015

// covered names each line that a line drawn after it hides: every point
// of the earlier one lies under a point of the later one, within
// coverFraction of the axes (two implementations that take the same
// time), with the line that hides it: each pair gets a key, "A: under
// B" (addUnder), so that the reader knows the line is there. pl's axes
// span the data.
func (p *Plot) covered(pl *plot.Plot, logX, logY bool) [][2]string {
	pos := func(v, lo, hi float64, log bool) float64 {
		if log {
			v, lo, hi = math.Log(v), math.Log(lo), math.Log(hi)
		}
		if hi <= lo {
			return 0
		}
		return (v - lo) / (hi - lo)
	}
	near := func(x0, y0, x1, y1 float64) bool {
		return math.Abs(pos(x0, pl.X.Min, pl.X.Max, logX)-pos(x1, pl.X.Min, pl.X.Max, logX)) <= coverFraction &&
			math.Abs(pos(y0, pl.Y.Min, pl.Y.Max, logY)-pos(y1, pl.Y.Min, pl.Y.Max, logY)) <= coverFraction
	}
	var notes [][2]string
	seen := map[string]bool{}
	for i, a := range p.lines {
		if a.kind == fitted || len(a.xs) == 0 || seen[a.name] {
			continue
		}
		top := ""
		for _, b := range p.lines[i+1:] {
			if b.kind == fitted || b.name == a.name {
				continue
			}
			under := true
			for k := range a.xs {
				hit := false
				for j := range b.xs {
					if near(a.xs[k], a.ys[k], b.xs[j], b.ys[j]) {
						hit = true
						break
					}
				}
				if !hit {
					under = false
					break
				}
			}
			if under {
				top = b.name
			}
		}
		if top != "" {
			seen[a.name] = true
			notes = append(notes, [2]string{a.name, top})
		}
	}
	return notes
}

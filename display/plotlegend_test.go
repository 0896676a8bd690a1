package display

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// layoutOf lays p out on a canvas of its size.
func layoutOf(t *testing.T, p *Plot) *plotLayout {
	t.Helper()
	w, h := vg.Length(p.widthCm)*vg.Centimeter, vg.Length(p.heightCm)*vg.Centimeter
	l, err := p.layout(draw.New(vgsvg.New(w, h)), 0)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// legendHits returns the points of p's data, sampled every half point
// along each line and over each bar, that fall within clearance of the
// legend's box.
func legendHits(l *plotLayout, p *Plot, clearance vg.Length) (hits []vg.Point) {
	dc := l.pl.DataCanvas(l.inner)
	r := l.legend.Rectangle
	r.Min, r.Max = r.Min.Sub(vg.Point{X: clearance, Y: clearance}), r.Max.Add(vg.Point{X: clearance, Y: clearance})
	at := func(x, y float64) vg.Point { return vg.Point{X: dc.X(l.pl.X.Norm(x)), Y: dc.Y(l.pl.Y.Norm(y))} }
	check := func(pt vg.Point) {
		if pt.X >= r.Min.X && pt.X <= r.Max.X && pt.Y >= r.Min.Y && pt.Y <= r.Max.Y {
			hits = append(hits, pt)
		}
	}
	sample := func(a, b vg.Point) {
		n := int(math.Hypot(float64(b.X-a.X), float64(b.Y-a.Y))*2) + 1
		for i := 0; i <= n; i++ {
			f := vg.Length(i) / vg.Length(n)
			check(vg.Point{X: a.X + f*(b.X-a.X), Y: a.Y + f*(b.Y-a.Y)})
		}
	}
	for _, s := range p.lines {
		for i := range s.xs {
			check(at(s.xs[i], s.ys[i]))
			if i > 0 {
				sample(at(s.xs[i-1], s.ys[i-1]), at(s.xs[i], s.ys[i]))
			}
		}
	}
	for c := range p.categories {
		for _, s := range p.bars {
			base, top := at(float64(c), 0), at(float64(c), s.ys[c])
			for y := base.Y; y <= top.Y; y += 0.5 {
				for dx := -0.4; dx <= 0.4; dx += 0.05 {
					check(at(float64(c)+dx, 0).Add(vg.Point{Y: y - base.Y}))
				}
			}
		}
	}
	return hits
}

// The legend never covers a point or a line, over a set of plots that fill
// each corner in turn, and one with data everywhere.
func TestLegendKeepsOffData(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5}
	rising := []float64{1, 2, 3, 4, 5}
	falling := []float64{5, 4, 3, 2, 1}
	zigzag := NewPlot("everywhere", "x", "y") // lines up and down across the whole area
	for k := range 6 {
		ys := make([]float64, 40)
		sx := make([]float64, 40)
		for i := range ys {
			sx[i], ys[i] = float64(i)+float64(k)/6, float64(i%2)
		}
		zigzag.Line("series "+string(rune('a'+k)), sx, ys)
	}
	tests := []struct {
		name  string
		p     *Plot
		where string // corner or side the legend should take
	}{
		{"rising", NewPlot("r", "x", "y").Line("a", xs, rising).Line("b", xs, []float64{0.5, 1, 1.5, 2, 2.5}), "top left"},
		{"falling", NewPlot("f", "x", "y").Line("a", xs, falling), "top right"},
		{"top and bottom left", NewPlot("h", "x", "y").Line("a", xs, []float64{5, 5, 5, 5, 5}).Line("b", xs, []float64{1, 1, 3, 4, 5}), "bottom right"},
		{"top and bottom right", NewPlot("u", "x", "y").Line("a", xs, []float64{5, 5, 5, 5, 5}).Line("b", xs, []float64{5, 4, 3, 1, 1}), "bottom left"},
		{"everywhere", zigzag, "right"},
		{"everywhere, narrow", NewPlot("n", "x", "y").Size(6, 10).Line("a long name for a series", []float64{0, 1, 2, 3, 4, 5, 6}, []float64{0, 1, 0, 1, 0, 1, 0}), "below"},
		{"bars", NewPlot("b", "x", "y").Bar("a", []string{"u", "v", "w"}, []float64{5, 3, 1}).Bar("b", []string{"u", "v", "w"}, []float64{4, 2, 1}), ""},
		{"six series", plotKinds()["six series"], ""},
	}
	for _, tt := range tests {
		l := layoutOf(t, tt.p)
		if hits := legendHits(l, tt.p, vg.Points(2)); len(hits) > 0 {
			t.Errorf("%s: the legend %v covers data at %v", tt.name, l.legend.Rectangle, hits[:min(3, len(hits))])
		}
		dc := l.pl.DataCanvas(l.inner).Rectangle
		lr := l.legend.Rectangle
		got := ""
		switch {
		case lr.Min.X >= dc.Max.X:
			got = "right"
		case lr.Max.Y <= dc.Min.Y:
			got = "below"
		default:
			v, h := "bottom", "left"
			if lr.Max.Y > (dc.Min.Y+dc.Max.Y)/2 {
				v = "top"
			}
			if lr.Min.X > (dc.Min.X+dc.Max.X)/2 {
				h = "right"
			}
			got = v + " " + h
		}
		if tt.where != "" && got != tt.where {
			t.Errorf("%s: legend at %s, want %s", tt.name, got, tt.where)
		}
		// Outside the plot, the legend grows the image by its room.
		if wantX, wantY := got == "right", got == "below"; (l.grow.X > 0) != wantX || (l.grow.Y > 0) != wantY {
			t.Errorf("%s: legend at %s grows the image by %v", tt.name, got, l.grow)
		}
		if _, err := tt.p.Render("svg"); err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}

func TestSegmentMeetsBox(t *testing.T) {
	tests := []struct {
		seg  [4]float64
		want bool
	}{
		{[4]float64{-1, 0.5, 2, 0.5}, true},    // crosses
		{[4]float64{0.5, 0.5, 0.5, 0.5}, true}, // a point inside
		{[4]float64{-1, -1, -0.5, 2}, false},   // passes left
		{[4]float64{-1, 0.5, -0.1, 3}, false},  // ends short
		{[4]float64{-1, 2, 2, -1}, true},       // diagonal through
		{[4]float64{1.5, 0, 3, 1.5}, false},    // diagonal past a corner
	}
	for _, tt := range tests {
		s := tt.seg
		if got := segmentMeetsBox(s[0], s[1], s[2], s[3], 0, 0, 1, 1); got != tt.want {
			t.Errorf("segment %v meets the unit box: %v, want %v", s, got, tt.want)
		}
	}
}

// A line whose every point lies under a later line's points gets a key
// that says so; lines apart, or only partly under, get none.
func TestCoveredLinesGetAKey(t *testing.T) {
	ns := []float64{1024, 2048, 4096, 8192}
	ys := []float64{0.001, 0.004, 0.03, 0.2}
	same := []float64{0.00101, 0.00398, 0.0302, 0.201}
	part := []float64{0.001, 0.004, 0.3, 2}
	pic := read(t, NewPlot("covered", "n", "s").LogLog().
		Line("cover a", ns, ys).Line("cover b", ns, same).Line("cover c", ns, part).Line("cover d", ns, []float64{1, 2, 3, 4}))
	want := []string{"cover a: under cover b"}
	if !slices.Equal(pic.Keys, want) {
		t.Errorf("keys %q, want %q", pic.Keys, want)
	}
}

// The key of a hidden line whose names are too long for the plot names
// them without their parentheses instead of cutting them short, in the
// picture drawn too: 03's Figure 6 ("fw-hn (Super Naive): under
// fw-hn-shared (Sup…"), whose legend goes beside the plot, had the whole
// key back in the second layout, on the grown width, and its legend then
// went below a plot that had made room beside it.
func TestLongCoveredKeysShorten(t *testing.T) {
	x := []float64{10876, 22687, 36682}
	p := NewPlot("Figure 6", "|V|", "seconds").LogLog().Sources("[Bodra]", "here")
	for _, d := range []struct {
		name        string
		paper, here []float64
	}{
		{"fw-row (Naive)", []float64{30.15, 137.4, 703.4}, []float64{11.08}},
		{"fw-hn (Super Naive)", []float64{9.736, 72.37, 314.2}, []float64{3.57, 27.03}},
		{"fw-hn-shared (Super Naive Shared)", []float64{10.42, 84.41, 368.7}, []float64{3.713, 29}},
		{"fw-tiled-global (Tiled)", []float64{4.84, 36.29, 186.3}, []float64{0.9518, 6.897, 26.95}},
		{"fw-blocked (Tiled Shared)", []float64{2.377, 20.46, 82.32}, []float64{0.8031, 5.74, 22.56}},
	} {
		p.Documented(d.name, x, d.paper).Line(d.name, x[:len(d.here)], d.here)
	}
	pic := read(t, p)
	if want := "fw-hn: under fw-hn-shared"; !slices.Contains(pic.Keys, want) {
		t.Errorf("keys %q, want %q among them", pic.Keys, want)
	}
	for _, problem := range pic.Problems() {
		t.Error(problem)
	}
}

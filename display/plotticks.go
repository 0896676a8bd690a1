package display

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// logTicks marks a log axis: a labelled tick at every power of ten, and at
// 2 and 5 times each when the axis spans fewer than logFewDecades decades,
// with unlabelled minor ticks at the other multiples. An axis too short for
// two such labels gets every multiple labelled, and one shorter still gets
// linear ticks, so that every axis reads with at least two labels.
type logTicks struct{}

// logFewDecades is the span, in decades, below which a log axis labels 2
// and 5 between its powers of ten.
const logFewDecades = 3

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0 && hi > lo) {
		return linearTicks{}.Ticks(lo, hi)
	}
	labelled := map[int]bool{1: true}
	if math.Log10(hi/lo) < logFewDecades {
		labelled[2], labelled[5] = true, true
	}
	ticks := logMultiples(lo, hi, labelled)
	if labelCount(ticks) < 2 {
		ticks = logMultiples(lo, hi, map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 7: true, 8: true, 9: true})
	}
	if labelCount(ticks) < 2 {
		return linearTicks{}.Ticks(lo, hi)
	}
	return ticks
}

// logMultiples returns a tick at every m·10^e in [lo, hi] for m in 1..9,
// labelled where labelled[m].
func logMultiples(lo, hi float64, labelled map[int]bool) []plot.Tick {
	var ticks []plot.Tick
	for e := int(math.Floor(math.Log10(lo))); e <= int(math.Ceil(math.Log10(hi))); e++ {
		for m := 1; m <= 9; m++ {
			v := float64(m) * math.Pow10(e)
			if v < lo*(1-1e-12) || v > hi*(1+1e-12) {
				continue
			}
			t := plot.Tick{Value: v}
			if labelled[m] {
				t.Label = tickLabel(v)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// labelCount is the number of labelled ticks.
func labelCount(ticks []plot.Tick) int {
	n := 0
	for _, t := range ticks {
		if t.Label != "" {
			n++
		}
	}
	return n
}

// linearTicks marks a linear axis with labels at round steps (1, 2, 2.5 or
// 5 times a power of ten), three to six of them and never fewer than two,
// with an unlabelled tick halfway between each pair.
type linearTicks struct{}

// Ticks implements plot.Ticker.
func (linearTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return []plot.Tick{{Value: lo, Label: tickLabel(lo)}}
	}
	step := niceStep((hi - lo) / 6)
	for {
		first := math.Ceil(lo/step - 1e-9)
		last := math.Floor(hi/step + 1e-9)
		if last-first >= 1 {
			// Enough digits to tell 1000 from 1000.2.
			digits := max(4, int(math.Ceil(math.Log10(max(math.Abs(lo), math.Abs(hi))/step)))+1)
			var ticks []plot.Tick
			for i := first; i <= last; i++ {
				v := i * step
				if math.Abs(v) < step*1e-9 {
					v = 0 // not -1e-17
				}
				ticks = append(ticks, plot.Tick{Value: v, Label: tickLabelDigits(v, digits)})
				if mid := v + step/2; i < last || mid <= hi {
					ticks = append(ticks, plot.Tick{Value: mid})
				}
			}
			if mid := first*step - step/2; mid >= lo {
				ticks = append([]plot.Tick{{Value: mid}}, ticks...)
			}
			return ticks
		}
		step = niceStep(step / 2.5)
	}
}

// niceStep returns the smallest of 1, 2, 2.5 and 5 times a power of ten
// that is at least x (x > 0).
func niceStep(x float64) float64 {
	p := math.Pow10(int(math.Floor(math.Log10(x))))
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*p >= x*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// tickLabel writes a tick value compactly: plainly with up to four
// significant digits from 0.001 up to 10000 (0.25, 40, 2000), and as
// mantissa and exponent outside that (1e7, 2.5e6, 5e-5), so that no label
// grows to 10000000 or 0.000001.
func tickLabel(v float64) string { return tickLabelDigits(v, 4) }

// tickLabelDigits is tickLabel with up to digits significant digits (at
// least 4), for the ticks of a short axis far from zero.
func tickLabelDigits(v float64, digits int) string {
	if v == 0 {
		return "0"
	}
	if a := math.Abs(v); a >= 1e-3 && a < 1e4 {
		return strconv.FormatFloat(v, 'g', digits, 64)
	}
	s := strconv.FormatFloat(v, 'e', digits-1, 64) // 2.500e+06
	mant, exp, _ := strings.Cut(s, "e")
	if strings.Contains(mant, ".") {
		mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
	}
	e, _ := strconv.Atoi(exp)
	return mant + "e" + strconv.Itoa(e)
}

// maxSizeLabels is the most distinct x values (sizes measured) that an x
// axis labels; with more, it labels round values as any axis does.
const maxSizeLabels = 16

// maxSizeLabel is the longest label of a size measured, in characters:
// 8192, 16384 and 2e6 are labelled, 2.643e5 is not.
const maxSizeLabel = 5

// sizeLabel is the label of a size measured: a whole number below 10⁵ in
// full (16384, 36682: what the reader knows the sizes by), any other as
// tickLabel writes it.
func sizeLabel(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e5 {
		return strconv.Itoa(int(v))
	}
	return tickLabel(v)
}

// xTicker returns the ticks of a line plot's x axis of the given length:
// labels at the sizes measured when there are few of them, else the
// axis's own. sty is the tick labels' style.
func (p *Plot) xTicker(logX bool, length vg.Length, sty text.Style) plot.Ticker {
	var base plot.Ticker = linearTicks{}
	if logX {
		base = logTicks{}
	}
	var sizes []float64
	for _, s := range p.lines {
		sizes = append(sizes, s.xs...)
	}
	slices.Sort(sizes)
	sizes = slices.Compact(sizes)
	if len(p.bars) > 0 || len(sizes) < 2 || len(sizes) > maxSizeLabels {
		return base
	}
	return sizeTicks{sizes: sizes, base: base, log: logX, length: length, style: sty}
}

// sizeTicks labels an axis at the sizes measured: each of sizes, left to
// right, whose label keeps clear of the labels already placed, then, on a
// log axis, each power of ten whose label still has room. Every other
// tick of the base ticker stays, unlabelled.
type sizeTicks struct {
	sizes  []float64
	base   plot.Ticker
	log    bool
	length vg.Length // of the axis, to tell where labels collide
	style  text.Style
}

// labelGap is the least space between two tick labels.
const labelGap = 6 // points

// Ticks implements plot.Ticker.
func (t sizeTicks) Ticks(lo, hi float64) []plot.Tick {
	at := func(v float64) vg.Length {
		if t.log {
			return t.length * vg.Length(math.Log(v/lo)/math.Log(hi/lo))
		}
		return t.length * vg.Length((v-lo)/(hi-lo))
	}
	type span struct{ from, to vg.Length }
	var placed []span
	place := func(v float64, label string) bool {
		// As clipMargins does, allow for a browser font a fifth wider.
		half := 0.6 * t.style.Width(label)
		s := span{at(v) - half, at(v) + half}
		for _, o := range placed {
			if s.from < o.to+vg.Points(labelGap) && o.from < s.to+vg.Points(labelGap) {
				return false
			}
		}
		placed = append(placed, s)
		return true
	}
	var ticks []plot.Tick
	for _, v := range t.sizes {
		if v < lo || v > hi {
			continue
		}
		// A size whose label is long (2.643e5) reads worse than the
		// decade beside it: it gets a tick without a label.
		tk := plot.Tick{Value: v}
		if l := sizeLabel(v); utf8.RuneCountInString(l) <= maxSizeLabel && place(v, l) {
			tk.Label = l
		}
		ticks = append(ticks, tk)
	}
	for _, b := range t.base.Ticks(lo, hi) {
		if slices.ContainsFunc(ticks, func(tk plot.Tick) bool { return math.Abs(tk.Value-b.Value) <= 1e-9*math.Abs(b.Value) }) {
			continue
		}
		// Of a log axis's labels, only the powers of ten: a 5000 among
		// 1024, 2048, 4096 and 8192 reads as one more size. A linear
		// axis's round steps (12000 among 8192 and 16384) read so too:
		// none keeps its label.
		decade := math.Abs(math.Log10(b.Value)-math.Round(math.Log10(b.Value))) < 1e-9
		if b.Label != "" && (!t.log || !decade || !place(b.Value, b.Label)) {
			b.Label = ""
		}
		ticks = append(ticks, b)
	}
	slices.SortFunc(ticks, func(a, b plot.Tick) int { return cmp.Compare(a.Value, b.Value) })
	return ticks
}

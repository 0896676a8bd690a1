package display

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
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

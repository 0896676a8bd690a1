package lab

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// The notebooks keep measurements in slices indexed like their sizes or
// graphs, with 0 where nothing was measured; the functions below read
// such slices.

// FitLine returns a and b of the least-squares line y = a + b·x through
// the points (xs[i], ys[i]). With fewer than two distinct xs, b and a are
// not finite.
func FitLine(xs, ys []float64) (a, b float64) {
	var sx, sy, sxx, sxy float64
	n := float64(len(xs))
	for i := range xs {
		sx, sy, sxx, sxy = sx+xs[i], sy+ys[i], sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
	}
	b = (n*sxy - sx*sy) / (n*sxx - sx*sx)
	return (sy - b*sx) / n, b
}

// Range returns the smallest and the largest of xs: +Inf and -Inf when xs
// is empty.
func Range(xs []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}

// MeanOf is the mean of xs, or 0 when xs is empty.
func MeanOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Span writes the range of the positive xs with two decimals, as "a–b",
// or as one number when both ends print alike, or "—" when none is
// positive.
func Span(xs []float64) string {
	var pos []float64
	for _, x := range xs {
		if x > 0 {
			pos = append(pos, x)
		}
	}
	if len(pos) == 0 {
		return "—"
	}
	lo, hi := Range(pos)
	if fmt.Sprintf("%.2f", lo) == fmt.Sprintf("%.2f", hi) {
		return fmt.Sprintf("%.2f", lo)
	}
	return fmt.Sprintf("%.2f–%.2f", lo, hi)
}

// Verdict says whether ok holds for the positive xs: "holds", "does not
// hold", "holds in h of n cases", or "not measured at this scale" when
// none is positive.
func Verdict(xs []float64, ok func(float64) bool) string {
	n, held := 0, 0
	for _, x := range xs {
		if x > 0 {
			n++
			if ok(x) {
				held++
			}
		}
	}
	switch {
	case n == 0:
		return "not measured at this scale"
	case held == n:
		return "holds"
	case held == 0:
		return "does not hold"
	}
	return fmt.Sprintf("holds in %d of %d cases", held, n)
}

// FastestIs gives, for each of the first graphs entries of the times in
// wall (seconds by name, 0 where a name did not run), 1 where want was
// the fastest of names that ran, 0.5 where another was faster, and 0
// where want did not run: a slice that Verdict reads.
func FastestIs(want string, names []string, wall map[string][]float64, graphs int) []float64 {
	out := make([]float64, graphs)
	for i := range out {
		if wall[want][i] == 0 {
			continue
		}
		out[i] = 1
		for _, v := range names {
			if wall[v][i] > 0 && wall[v][i] < wall[want][i] {
				out[i] = 0.5
			}
		}
	}
	return out
}

// FastestNames lists, comma-separated, the fastest of names on each of
// the first graphs entries of wall where any ran, or "—" where none did
// anywhere.
func FastestNames(names []string, wall map[string][]float64, graphs int) string {
	var out []string
	for i := 0; i < graphs; i++ {
		best := ""
		for _, v := range names {
			if wall[v][i] > 0 && (best == "" || wall[v][i] < wall[best][i]) {
				best = v
			}
		}
		if best != "" {
			out = append(out, best)
		}
	}
	if len(out) == 0 {
		return "—"
	}
	return strings.Join(out, ", ")
}

// Both returns the sizes, as float64s, and the values of a and b at the
// positions where a and b were both measured (positive).
func Both(sizes []int, a, b []float64) (xs, as, bs []float64) {
	for i, v := range sizes {
		if a[i] > 0 && b[i] > 0 {
			xs, as, bs = append(xs, float64(v)), append(as, a[i]), append(bs, b[i])
		}
	}
	return xs, as, bs
}

// LastBoth returns the last position at which a and b were both measured
// (positive), or -1.
func LastBoth(a, b []float64) int {
	at := -1
	for i := range a {
		if a[i] > 0 && b[i] > 0 {
			at = i
		}
	}
	return at
}

// Extrapolate scales the time ts[i] measured at the largest of sizes
// with a positive time to size n, by (n / sizes[i])^power: what a
// program whose time grows as n^power would take at n (power 3 for
// Floyd-Warshall). It returns that time and sizes[i], or 0 and 0 when no
// time is positive.
func Extrapolate(sizes []int, ts []float64, n int, power float64) (t float64, from int) {
	for i := len(sizes) - 1; i >= 0; i-- {
		if ts[i] > 0 {
			return ts[i] * math.Pow(float64(n)/float64(sizes[i]), power), sizes[i]
		}
	}
	return 0, 0
}

// RoundsTo reports whether x, rounded to the digits of printed, gives
// printed: a number as a document prints it ("0.03", "6.67e-03"), with
// an optional "%" after it that is ignored (x is then a percentage too).
func RoundsTo(x float64, printed string) (bool, error) {
	num := strings.TrimSuffix(printed, "%")
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return false, fmt.Errorf("printed number %q: %w", printed, err)
	}
	mant, exp, _ := strings.Cut(num, "e")
	unit := 1.0
	if _, frac, ok := strings.Cut(mant, "."); ok {
		unit = math.Pow(10, -float64(len(frac)))
	}
	if exp != "" {
		e, err := strconv.Atoi(exp)
		if err != nil {
			return false, fmt.Errorf("printed number %q: %w", printed, err)
		}
		unit *= math.Pow(10, float64(e))
	}
	return math.Abs(x-v) <= unit/2*(1+1e-9), nil
}

// HostSeconds runs f once and returns how long it took on the host's
// clock, in seconds.
func HostSeconds(f func()) float64 {
	t0 := time.Now()
	f()
	return time.Since(t0).Seconds()
}

// FirstFaster returns the first of sizes at which the smallest of others
// is below base: where a faster program overtakes a baseline. Only the
// positions where base and every one of others were measured (positive)
// count; ok is false when there is none.
func FirstFaster(sizes []int, base []float64, others ...[]float64) (size int, ok bool) {
	for i, n := range sizes {
		best := math.Inf(1)
		for _, o := range others {
			if !(o[i] > 0) {
				best = math.NaN()
				break
			}
			best = math.Min(best, o[i])
		}
		if base[i] > 0 && best < base[i] {
			return n, true
		}
	}
	return 0, false
}

package display

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

// labels returns the labelled ticks' labels, in order.
func labels(ticks []plot.Tick) []string {
	var out []string
	for _, t := range ticks {
		if t.Label != "" {
			out = append(out, t.Label)
		}
	}
	return out
}

func TestLogTicksLabelEveryDecade(t *testing.T) {
	tests := []struct {
		lo, hi float64
		want   []string
	}{
		// Many decades: powers of ten only.
		{1e-6, 15, []string{"1e-6", "1e-5", "1e-4", "0.001", "0.01", "0.1", "1", "10"}},
		{7, 2e7, []string{"10", "100", "1000", "1e4", "1e5", "1e6", "1e7"}},
		// Fewer than three decades: 2 and 5 too.
		{8, 600, []string{"10", "20", "50", "100", "200", "500"}},
		{900, 9000, []string{"1000", "2000", "5000"}},
		// Too short for two of those: every multiple.
		{250, 900, []string{"300", "400", "500", "600", "700", "800", "900"}},
	}
	for _, tt := range tests {
		ticks := (logTicks{}).Ticks(tt.lo, tt.hi)
		if got := labels(ticks); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("log ticks of [%g, %g] labelled %q, want %q", tt.lo, tt.hi, got, tt.want)
		}
		for _, tk := range ticks {
			if tk.Value < tt.lo || tk.Value > tt.hi {
				t.Errorf("log ticks of [%g, %g]: tick %g outside", tt.lo, tt.hi, tk.Value)
			}
		}
	}
	// Minor ticks mark the other multiples of each decade.
	if n := len((logTicks{}).Ticks(1, 100)); n != 19 {
		t.Errorf("[1, 100] has %d ticks, want 19 (1..9, 10..90, 100)", n)
	}
	// Shorter than any two multiples: linear ticks, still two labels or more.
	if got := labels((logTicks{}).Ticks(310, 390)); len(got) < 2 {
		t.Errorf("log ticks of [310, 390] labelled %q, want two or more", got)
	}
}

func TestLinearTicks(t *testing.T) {
	for _, r := range [][2]float64{{0, 1}, {0.92, 3.08}, {-5, 5}, {1e6, 1e7}, {0, 0.29}, {1000, 1001}, {3.999, 4.0001}, {-1e-9, 2e-9}, {0, 7.3}} {
		ticks := (linearTicks{}).Ticks(r[0], r[1])
		ls := labels(ticks)
		if len(ls) < 2 || len(ls) > 7 {
			t.Errorf("[%g, %g]: %d labels %q, want 2 to 7", r[0], r[1], len(ls), ls)
		}
		var values []float64
		for _, tk := range ticks {
			if tk.Value < r[0]-1e-12*math.Abs(r[0]) || tk.Value > r[1]+1e-12*math.Abs(r[1]) {
				t.Errorf("[%g, %g]: tick %g outside", r[0], r[1], tk.Value)
			}
			if tk.Label != "" {
				values = append(values, tk.Value)
			}
		}
		for i := 2; i < len(values); i++ {
			if d0, d1 := values[1]-values[0], values[i]-values[i-1]; math.Abs(d1-d0) > 1e-9*math.Abs(d0) {
				t.Errorf("[%g, %g]: labels %q not evenly spaced", r[0], r[1], ls)
				break
			}
		}
		seen := map[string]bool{}
		for _, l := range ls {
			if seen[l] {
				t.Errorf("[%g, %g]: label %q twice in %q", r[0], r[1], l, ls)
			}
			seen[l] = true
		}
	}
	if got := labels((linearTicks{}).Ticks(0, 1e7)); !reflect.DeepEqual(got, []string{"0", "2e6", "4e6", "6e6", "8e6", "1e7"}) {
		t.Errorf("[0, 1e7] labelled %q", got)
	}
}

func TestTickLabelsAreCompact(t *testing.T) {
	for v, want := range map[float64]string{
		0: "0", 1: "1", 0.25: "0.25", 0.001: "0.001", 2000: "2000", 9999: "9999", -40: "-40",
		1e4: "1e4", 1e7: "1e7", 2.5e6: "2.5e6", 1e-4: "1e-4", 5e-5: "5e-5", 1.0 / 3: "0.3333",
		math.Pow(10, -4) * 0.9999999999999999: "1e-4",
	} {
		if got := tickLabel(v); got != want {
			t.Errorf("tickLabel(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestAutoLogScale(t *testing.T) {
	wide := []float64{1, 10, 1000}  // three decades
	narrow := []float64{1, 50, 100} // two decades exactly: stays linear
	tests := []struct {
		p          *Plot
		logX, logY bool
		text       string
	}{
		{NewPlot("p", "x", "y").Line("a", wide, wide), true, true, "log-log"},
		{NewPlot("p", "x", "y").Line("a", narrow, narrow), false, false, "y = y\n"},
		{NewPlot("p", "x", "y").Line("a", narrow, wide), false, true, "log y"},
		// The axis's span counts, across series: GPU times far under CPU times.
		{NewPlot("p", "x", "y").Line("cpu", narrow, []float64{1, 4, 8}).Line("gpu", narrow, []float64{0.01, 0.02, 0.05}), false, true, "log y"},
		{NewPlot("p", "x", "y").Line("a", wide, []float64{-1, 10, 1000}), true, false, "log x"},
		{NewPlot("p", "x", "y").Line("a", wide, []float64{0, 10, 1000}), true, false, "log x"},
		{NewPlot("p", "x", "y").LinearX().Line("a", wide, wide), false, true, "log y"},
		{NewPlot("p", "x", "y").LinearX().LinearY().Line("a", wide, wide), false, false, "y = y\n"},
		{NewPlot("p", "x", "y").LogX().Line("a", narrow, narrow), true, false, "log x"},
		{NewPlot("p", "x", "y").Bar("b", []string{"u", "v"}, []float64{0.001, 10}), false, false, "y = y\n"},
	}
	for i, tt := range tests {
		logX, logY := tt.p.logAxes()
		if logX != tt.logX || logY != tt.logY {
			t.Errorf("plot %d: log x %v, log y %v; want %v, %v", i, logX, logY, tt.logX, tt.logY)
		}
		if text := tt.p.Text(); !strings.Contains(text, tt.text) {
			t.Errorf("plot %d: text %q, want %q in it", i, text, tt.text)
		}
		if _, err := tt.p.Render("svg"); err != nil {
			t.Errorf("plot %d: %v", i, err)
		}
	}
}

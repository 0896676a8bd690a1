package lab

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/display"
	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/graph"
)

func TestFitLine(t *testing.T) {
	xs := []float64{1, 2, 3, 4}
	a, b := FitLine(xs, []float64{5, 7, 9, 11}) // y = 3 + 2x
	if math.Abs(a-3) > 1e-12 || math.Abs(b-2) > 1e-12 {
		t.Errorf("FitLine on y = 3 + 2x: a=%g b=%g", a, b)
	}
	// Points off the line: the least-squares slope of (0,0), (1,1), (2,0) is 0.
	a, b = FitLine([]float64{0, 1, 2}, []float64{0, 1, 0})
	if math.Abs(b) > 1e-12 || math.Abs(a-1.0/3) > 1e-12 {
		t.Errorf("FitLine on a peak: a=%g b=%g, want 1/3 and 0", a, b)
	}
	if _, b := FitLine([]float64{2, 2}, []float64{1, 3}); !math.IsNaN(b) && !math.IsInf(b, 0) {
		t.Errorf("one distinct x gave a finite slope %g", b)
	}
}

func TestRangeMeanSpan(t *testing.T) {
	if lo, hi := Range([]float64{3, -1, 7}); lo != -1 || hi != 7 {
		t.Errorf("Range = %g, %g", lo, hi)
	}
	if lo, hi := Range(nil); !math.IsInf(lo, 1) || !math.IsInf(hi, -1) {
		t.Errorf("Range(nil) = %g, %g", lo, hi)
	}
	if m := MeanOf([]float64{1, 2, 6}); m != 3 {
		t.Errorf("MeanOf = %g", m)
	}
	if m := MeanOf(nil); m != 0 {
		t.Errorf("MeanOf(nil) = %g", m)
	}
	for _, c := range []struct {
		xs   []float64
		want string
	}{
		{nil, "—"}, {[]float64{0, -2}, "—"}, {[]float64{2.001, 0, 1.999}, "2.00"},
		{[]float64{0.99, 0, 1.07, 1.01}, "0.99–1.07"},
	} {
		if got := Span(c.xs); got != c.want {
			t.Errorf("Span(%v) = %q, want %q", c.xs, got, c.want)
		}
	}
}

func TestVerdict(t *testing.T) {
	big := func(x float64) bool { return x > 1 }
	for _, c := range []struct {
		xs   []float64
		want string
	}{
		{nil, "not measured at this scale"}, {[]float64{0, 0}, "not measured at this scale"},
		{[]float64{2, 0, 3}, "holds"}, {[]float64{0.5, 0.9}, "does not hold"},
		{[]float64{2, 0.5, 0, 3}, "holds in 2 of 3 cases"},
	} {
		if got := Verdict(c.xs, big); got != c.want {
			t.Errorf("Verdict(%v) = %q, want %q", c.xs, got, c.want)
		}
	}
}

func TestFastest(t *testing.T) {
	names := []string{"a", "b", "c"}
	wall := map[string][]float64{
		"a": {1, 3, 0, 0},
		"b": {2, 2, 5, 0},
		"c": {0, 4, 4, 0},
	}
	got := FastestIs("a", names, wall, 4)
	if want := []float64{1, 0.5, 0, 0}; !equalFloats(got, want) {
		t.Errorf("FastestIs = %v, want %v", got, want)
	}
	if got := FastestNames(names, wall, 4); got != "a, b, c" {
		t.Errorf("FastestNames = %q", got)
	}
	if got := FastestNames(names, wall, 2); got != "a, b" {
		t.Errorf("FastestNames over 2 graphs = %q", got)
	}
	if got := FastestNames(names, map[string][]float64{"a": {0}, "b": {0}, "c": {0}}, 1); got != "—" {
		t.Errorf("FastestNames with nothing run = %q", got)
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestBothLastBoth(t *testing.T) {
	sizes := []int{10, 20, 30, 40}
	a, b := []float64{1, 0, 3, 4}, []float64{5, 6, 7, 0}
	xs, as, bs := Both(sizes, a, b)
	if !equalFloats(xs, []float64{10, 30}) || !equalFloats(as, []float64{1, 3}) || !equalFloats(bs, []float64{5, 7}) {
		t.Errorf("Both = %v %v %v", xs, as, bs)
	}
	if i := LastBoth(a, b); i != 2 {
		t.Errorf("LastBoth = %d, want 2", i)
	}
	if i := LastBoth([]float64{0, 1}, []float64{1, 0}); i != -1 {
		t.Errorf("LastBoth with no common measurement = %d", i)
	}
}

func TestRoundsTo(t *testing.T) {
	for _, c := range []struct {
		x       float64
		printed string
		want    bool
	}{
		{100 * 10.0 / 20, "50%", true},
		{100 * 40.0 / 90, "44.44%", true},
		{100 * 40.0 / 90, "44.45%", false},
		{100 * 3750.0 / (7500 * 7499), "6.67e-03%", true},
		{100 * 3750.0 / (7500 * 7499), "6.6e-03%", false},
		{0.0251, "0.03", true},
		{0.0249, "0.03", false},
	} {
		got, err := RoundsTo(c.x, c.printed)
		if err != nil || got != c.want {
			t.Errorf("RoundsTo(%g, %q) = %v, %v; want %v", c.x, c.printed, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "x%", "1.5e%", "1e2.5"} {
		if _, err := RoundsTo(1, bad); err == nil || !strings.Contains(err.Error(), "printed number") {
			t.Errorf("RoundsTo(1, %q): error %v, want one naming the number", bad, err)
		}
	}
}

func TestHostSeconds(t *testing.T) {
	s := HostSeconds(func() { time.Sleep(20 * time.Millisecond) })
	if s < 0.02 || s > 5 {
		t.Errorf("HostSeconds of a 20 ms sleep = %g", s)
	}
}

func TestRace(t *testing.T) {
	left := []int32{2, 5, 2, 3}
	i := 0
	wrong, worst := RaceRuns(len(left), 2, func() int32 { i++; return left[i-1] })
	if wrong != 2 || worst != 5 || i != 4 {
		t.Errorf("RaceRuns = %d wrong, worst %d after %d launches", wrong, worst, i)
	}
	if wrong, worst := RaceRuns(3, 7, func() int32 { return 7 }); wrong != 0 || worst != 7 {
		t.Errorf("RaceRuns without a race = %d, %d", wrong, worst)
	}
	if _, err := RaceVerdict("X", 0, 1, 60); err == nil || !strings.Contains(err.Error(), "1 of 60") {
		t.Errorf("a wrong atomicMin gave %v", err)
	}
	v, err := RaceVerdict("Card", 0, 0, 60)
	if err != nil || !strings.HasPrefix(v, "Here the race did not show") || !strings.Contains(v, "on the Card.") {
		t.Errorf("no race: %q, %v", v, err)
	}
	v, err = RaceVerdict("Card", 7, 0, 60)
	if err != nil || v != "On the Card the plain read-compare-write lost the minimum in 7 of 60 launches; atomicMin never did." {
		t.Errorf("a race: %q, %v", v, err)
	}
}

func TestReadApart(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "capped.json")
	if f, mine, err := ReadApart(path, "01-karaula-fw"); f != nil || mine != nil || err != nil {
		t.Fatalf("no file: %v %v %v", f, mine, err)
	}
	data := `{"build": "b1", "host": "h", "results": [
		{"notebook": "01-karaula-fw", "table": "Table 3", "row": "sparse 5000", "column": "CPU", "n": 5000, "m": 2500, "wall_s": 3},
		{"notebook": "03-bodra-cuda-sp", "table": "Table 1", "row": "e", "column": "bf-naive", "n": 9, "wall_s": 1},
		{"notebook": "01-karaula-fw", "table": "Table 1", "row": "dense 7500", "column": "CPU", "n": 7500, "wall_s": 2},
		{"notebook": "01-karaula-fw", "table": "Table 1", "row": "dense 5000", "column": "CPU", "n": 5000, "wall_s": 1, "cores": 1}],
		"skipped": ["01-karaula-fw|Table 3|sparse 12500|CPU: too long", "03-bodra-cuda-sp|Table 1|e|bf-flag: too long"]}`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	f, mine, err := ReadApart(path, "01-karaula-fw")
	if err != nil || f == nil || f.Build != "b1" || len(f.Results) != 4 {
		t.Fatalf("ReadApart: %+v, %v", f, err)
	}
	var rows []string
	for _, r := range mine {
		rows = append(rows, r.Table+"/"+r.Row)
	}
	if got := strings.Join(rows, ", "); got != "Table 1/dense 5000, Table 1/dense 7500, Table 3/sparse 5000" {
		t.Errorf("01's results in order: %s", got)
	}
	if mine[2].M != 2500 || mine[2].Wall != 3 || mine[0].Cores != 1 {
		t.Errorf("fields not read: %+v, %+v", mine[2], mine[0])
	}
	if got := f.SkippedFor("01-karaula-fw"); len(got) != 1 || got[0] != "Table 3|sparse 12500|CPU: too long" {
		t.Errorf("SkippedFor 01: %q", got)
	}
	if err := os.WriteFile(path, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadApart(path, "x"); err == nil || !strings.Contains(err.Error(), "capped.json") {
		t.Errorf("a broken file: %v", err)
	}
}

func TestMeanAllPairs(t *testing.T) {
	ctx := context.Background()
	g, ref := gnmAndFW(t, 40, 160, 3, "", false)
	calls := 0
	good := func() (*graph.AllPairs, gpu.Stats, error) {
		calls++
		r, err := cpu.FloydWarshallBlocked(ctx, g, cpu.FWOptions{})
		return r, gpu.Stats{Wall: time.Duration(calls) * time.Second, Kernel: time.Second}, err
	}
	wall, kernel, first, err := MeanAllPairs(3, ref, good)
	if err != nil || calls != 3 || wall != 2 || kernel != 1 || first == nil || !first.SameDistances(ref) {
		t.Fatalf("MeanAllPairs: %g %g %v after %d calls", wall, kernel, err, calls)
	}
	// A result that differs from ref, and a later run that differs from the first.
	wrong, _ := cpu.FloydWarshall(ctx, g, cpu.FWOptions{})
	wrong.Dist[1]++
	if _, _, _, err := MeanAllPairs(1, ref, func() (*graph.AllPairs, gpu.Stats, error) { return wrong, gpu.Stats{}, nil }); err == nil || !strings.Contains(err.Error(), "differ") {
		t.Errorf("a wrong first result: %v", err)
	}
	n := 0
	flaky := func() (*graph.AllPairs, gpu.Stats, error) {
		n++
		if n == 2 {
			return wrong, gpu.Stats{}, nil
		}
		return ref, gpu.Stats{}, nil
	}
	if _, _, _, err := MeanAllPairs(3, nil, flaky); err == nil || !strings.Contains(err.Error(), "runs 1 and 2") {
		t.Errorf("a run that differs from the first: %v", err)
	}
	boom := errors.New("boom")
	if _, _, _, err := MeanAllPairs(2, nil, func() (*graph.AllPairs, gpu.Stats, error) { return nil, gpu.Stats{}, boom }); !errors.Is(err, boom) {
		t.Errorf("a failing run: %v", err)
	}
	if _, _, _, err := MeanAllPairs(0, nil, good); err == nil {
		t.Error("0 runs gave no error")
	}
	// OnHost times the call and fills both times.
	_, st, err := OnHost(func() (*graph.AllPairs, error) { time.Sleep(10 * time.Millisecond); return ref, nil })()
	if err != nil || st.Wall < 10*time.Millisecond || st.Kernel != st.Wall {
		t.Errorf("OnHost: %+v, %v", st, err)
	}
}

func TestStandIns(t *testing.T) {
	if Scaled(1000, 0.05, 4) != 50 || Scaled(10, 0.05, 4) != 4 {
		t.Errorf("Scaled: %d %d", Scaled(1000, 0.05, 4), Scaled(10, 0.05, 4))
	}
	w := graph.WeightRange{Min: 1, Max: 100}
	g, err := RoadStandIn("nyc", 264346, 733846, 0.001, w, 1)
	if err != nil {
		t.Fatal(err)
	}
	if g.Name() != "nyc stand-in" || g.N() != 264 || g.M() != 732 {
		t.Errorf("road stand-in: %s, |V| %d, |E| %d; want 264 and 732", g.Name(), g.N(), g.M())
	}
	// Few arcs: at least a spanning tree's both ways.
	if g, err := RoadStandIn("x", 100, 10, 1, w, 1); err != nil || g.M() != 198 {
		t.Errorf("road stand-in with few arcs: %v, %v", g, err)
	}
	g, err = GNMStandIn("gnutella04", 10876, 39994, 0.01, w, 1)
	if err != nil {
		t.Fatal(err)
	}
	if g.Name() != "gnutella04 stand-in" || g.N() != 108 || g.M() != 399 {
		t.Errorf("GNM stand-in: %s, |V| %d, |E| %d", g.Name(), g.N(), g.M())
	}
	if g, err := GNMStandIn("tiny", 10, 1000, 1, w, 1); err != nil || g.M() != 90 {
		t.Errorf("GNM stand-in capped at n(n−1): %v, %v", g, err)
	}
	if _, err := GNMStandIn("bad", 10, 10, 1, graph.WeightRange{Min: 5, Max: 1}, 1); err == nil || !strings.Contains(err.Error(), "bad stand-in") {
		t.Errorf("bad weights: %v", err)
	}
	if g, err := GNM(5, 100, w, 1); err != nil || g.M() != 20 || g.Name() != "GNM(5, 20)" {
		t.Errorf("GNM capped at n(n−1): %v, %v", g, err)
	}
	if g, err := GNM(50, 300, w, 1); err != nil || g.M() != 300 || g.Name() != "GNM(50, 300)" {
		t.Errorf("GNM: %v, %v", g, err)
	}
	sink, err := graph.FromArcs(4, []graph.Arc{{From: 0, To: 1, Weight: 1}, {From: 1, To: 2, Weight: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if Sinks(sink) != 2 {
		t.Errorf("Sinks = %d, want 2 (vertices 2 and 3)", Sinks(sink))
	}
}

func TestAgree(t *testing.T) {
	ctx := context.Background()
	g, err := graph.FromArcs(3, []graph.Arc{{From: 0, To: 1, Weight: 1}, {From: 1, To: 2, Weight: 1}, {From: 0, To: 2, Weight: 2}})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := cpu.FloydWarshall(ctx, g, cpu.FWOptions{Pred: true})
	if err != nil {
		t.Fatal(err)
	}
	same, _ := cpu.FloydWarshall(ctx, g, cpu.FWOptions{Pred: true})
	if got, err := Agree(ctx, g, same, ref); err != nil || got != "same D and Π" {
		t.Errorf("the same result: %q, %v", got, err)
	}
	// 0 → 2 ties: directly or through 1; the other Π is also right.
	tie, _ := cpu.FloydWarshall(ctx, g, cpu.FWOptions{Pred: true})
	if tie.Pred[2] == 0 {
		tie.Pred[2] = 1
	} else {
		tie.Pred[2] = 0
	}
	if got, err := Agree(ctx, g, tie, ref); err != nil || got != "same D; Π differs on ties, verified" {
		t.Errorf("a tie broken the other way: %q, %v", got, err)
	}
	bad, _ := cpu.FloydWarshall(ctx, g, cpu.FWOptions{Pred: true})
	bad.Pred[1] = 2 // 0 → 1 through 2: no such arc
	if _, err := Agree(ctx, g, bad, ref); err == nil {
		t.Error("a wrong Π passed")
	}
	far, _ := cpu.FloydWarshall(ctx, g, cpu.FWOptions{Pred: true})
	far.Dist[2] = 3
	if _, err := Agree(ctx, g, far, ref); err == nil || !strings.Contains(err.Error(), "differ") {
		t.Errorf("a wrong distance: %v", err)
	}
}

func TestMachineAllPairs(t *testing.T) {
	ctx := context.Background()
	g, ref := gnmAndFW(t, 45, 200, 5, "G45", false)
	m := openMachine("GPU variants", gpu.Emulator)
	if m.Err != nil {
		t.Fatal(m.Err)
	}
	r, st, err := m.AllPairs(ctx, gpu.VariantFWBlocked, g, true)
	if err != nil || !r.SameDistances(ref) || r.Pred == nil || st.Launches == 0 {
		t.Fatalf("fw-blocked on the emulator: %v, %+v", err, st)
	}
	if _, _, err := m.AllPairs(ctx, "no-such-variant", g, false); err == nil || !strings.Contains(err.Error(), "no-such-variant on G45 (|V|=45, |E|=200)") {
		t.Errorf("an unknown variant: %v", err)
	}
	none := openMachine("GPU variants", func() (*gpu.Device, error) { return nil, gpu.ErrNoCUDA })
	if _, _, err := none.AllPairs(ctx, gpu.VariantFWBlocked, g, false); err == nil || !strings.Contains(err.Error(), "no GPU") {
		t.Errorf("without a device: %v", err)
	}
}

func TestMeanVerified(t *testing.T) {
	ctx := context.Background()
	g, err := graph.GNM(37, 150, graph.WeightRange{Min: 1, Max: 9}, 4)
	if err != nil {
		t.Fatal(err)
	}
	solve := OnHost(func() (*graph.AllPairs, error) { return cpu.FloydWarshall(ctx, g, cpu.FWOptions{Pred: true}) })
	wall, kernel, first, err := MeanVerified(ctx, 2, g, nil, solve)
	if err != nil || first == nil || wall <= 0 || kernel != wall {
		t.Fatalf("MeanVerified: %g %g %v", wall, kernel, err)
	}
	// The same distances as ref, but a Π that leads nowhere.
	broken := func() (*graph.AllPairs, gpu.Stats, error) {
		r, err := cpu.FloydWarshall(ctx, g, cpu.FWOptions{Pred: true})
		for j := range g.N() {
			if j != 1 && r.At(0, j) != graph.Inf && r.At(0, j) != 0 {
				r.Pred[j] = int32(j) // j's predecessor on the way from 0 is j itself
				break
			}
		}
		return r, gpu.Stats{}, err
	}
	if _, _, first, err := MeanVerified(ctx, 1, g, first, broken); err == nil || first != nil {
		t.Errorf("a wrong Π with the right distances passed: %v", err)
	}
	if _, _, _, err := MeanVerified(ctx, 0, g, nil, solve); err == nil {
		t.Error("0 runs gave no error")
	}
}

func TestAgreeCell(t *testing.T) {
	ctx := context.Background()
	g, ref := gnmAndFW(t, 40, 160, 6, "", true)
	m := openMachine("GPU variants", gpu.Emulator)
	if m.Err != nil {
		t.Fatal(m.Err)
	}
	cell, st, err := m.AgreeCell(ctx, gpu.VariantFWBlocked, g, ref, 100)
	if err != nil || !strings.HasPrefix(cell, "same D") || st.Launches != 3*2 {
		t.Errorf("fw-blocked on |V| = 40: %q, %d launches, %v", cell, st.Launches, err)
	}
	wall, kernel, _, err := MeanVerified(ctx, 2, g, ref, m.Run(ctx, gpu.VariantFWHN, g, true))
	if err != nil || wall <= 0 || kernel <= 0 {
		t.Errorf("MeanVerified of Machine.Run: %g %g %v", wall, kernel, err)
	}
	if cell, st, err := m.AgreeCell(ctx, gpu.VariantFWBlocked, g, ref, 39); err != nil || cell != "not run (|V| > 39)" || st.Launches != 0 {
		t.Errorf("above the cap: %q, %+v, %v", cell, st, err)
	}
	far, _ := cpu.FloydWarshall(ctx, g, cpu.FWOptions{Pred: true})
	far.Dist[1]++
	if _, _, err := m.AgreeCell(ctx, gpu.VariantFWBlocked, g, far, 100); err == nil || !strings.Contains(err.Error(), "differ") {
		t.Errorf("a wrong reference: %v", err)
	}
	none := openMachine("GPU variants", func() (*gpu.Device, error) { return nil, gpu.ErrNoCUDA })
	if cell, _, err := none.AgreeCell(ctx, gpu.VariantFWBlocked, g, ref, 100); err != nil || cell != none.NoGPU {
		t.Errorf("without a device: %q, %v", cell, err)
	}
}

func TestMeasuredAndDocumentedApart(t *testing.T) {
	p := display.NewPlot("t", "|V|", "s").LogLog()
	DocumentedApart(p, "CPU÷v1", []float64{5, 10, 20}, []float64{1, 2, 30}, func(i int) bool { return i == 2 }, "a typo: %s printed at |V| = %g")
	MeasuredLine(p, "CPU", []int{5, 10, 20}, []float64{0.5, 0, 2})
	MeasuredLine(p, "none ran", []int{5, 10}, []float64{0, 0})
	MeasuredSpeedup(p, "CPU÷v1", []int{5, 10, 20}, []float64{4, 0, 8}, []float64{2, 1, 2})
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		`plot "t": x = |V|, y = s, log-log`,
		"  CPU÷v1 (document): (5, 1) (10, 2)",
		"  a typo: CPU÷v1 printed at |V| = 20 (document): (20, 30)",
		"  CPU: (5, 0.5) (20, 2)",
		"  CPU÷v1: (5, 2) (20, 4)",
	}, "\n")
	if got := p.Text(); got != want {
		t.Errorf("plot:\n%s\nwant\n%s", got, want)
	}
	// Every point apart: no empty series of the rest.
	q := display.NewPlot("t", "x", "y")
	DocumentedApart(q, "s", []float64{1}, []float64{2}, func(int) bool { return true }, "%s at %g")
	if err := q.Err(); err != nil || !strings.Contains(q.Text(), "s at 1") {
		t.Errorf("all apart: %v\n%s", err, q.Text())
	}
}

func TestWalkWeight(t *testing.T) {
	g, err := graph.Example("karaula-fig2.3")
	if err != nil {
		t.Fatal(err)
	}
	// [Karaula 2017] §2: the walk a→b→c→e→d weighs 12, the cycle b→c→d→b 5.
	for walk, want := range map[string]int64{"a b c e d": 12, "b c d b": 5, "a": 0} {
		if got, err := WalkWeight(g, walk); err != nil || got != want {
			t.Errorf("WalkWeight(%q) = %d, %v; want %d", walk, got, err, want)
		}
	}
	if _, err := WalkWeight(g, "e a"); err == nil || !strings.Contains(err.Error(), "no arc e->a") {
		t.Errorf("a missing arc: %v", err)
	}
	if _, err := WalkWeight(g, "a z"); err == nil || !strings.Contains(err.Error(), `walk "a z"`) {
		t.Errorf("an unknown label: %v", err)
	}
}

func TestFillRepeatingAndProbes(t *testing.T) {
	for _, n := range []int{0, 3, 1024, 5000} {
		xs := make([]float32, n)
		FillRepeating(xs, 7, func(i int) float32 { return float32(3 * i) })
		for i, x := range xs {
			if x != float32(3*(i%7)) {
				t.Fatalf("n = %d: xs[%d] = %g, want %d", n, i, x, 3*(i%7))
			}
		}
	}
	if got := fmt.Sprint(Probes(5, 8, 3, 2)); got != "[0 1 2 3 4]" {
		t.Errorf("Probes of a short result: %s", got)
	}
	if got := fmt.Sprint(Probes(20, 8, 6, 4)); got != "[0 6 12 18 16 17 19]" {
		t.Errorf("Probes(20, 8, 6, 4) = %s", got)
	}
}

func TestMeanSingleSource(t *testing.T) {
	ctx := context.Background()
	g, err := graph.ConstantDegree(300, 7, graph.WeightRange{Min: 1, Max: 10}, 2)
	if err != nil {
		t.Fatal(err)
	}
	g = g.WithName("G300")
	ref, err := cpu.Dijkstra(ctx, g, 0, cpu.DijkstraOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := openMachine("GPU variants", gpu.Emulator)
	if err := m.WarmSingleSource(ctx, g, gpu.VariantDijkstraMartin); err != nil {
		t.Fatal(err)
	}
	wall, kernel, st, err := m.MeanSingleSource(ctx, gpu.VariantDijkstraMartin, g, 0, ref)
	if err != nil || wall <= 0 || kernel <= 0 || st.Launches == 0 {
		t.Fatalf("dijkstra-martin: %g %g %+v %v", wall, kernel, st, err)
	}
	wrong, _ := cpu.Dijkstra(ctx, g, 0, cpu.DijkstraOptions{})
	wrong.Dist[5]++
	if _, _, _, err := m.MeanSingleSource(ctx, gpu.VariantDijkstraMartin, g, 0, wrong); err == nil || !strings.Contains(err.Error(), "dijkstra-martin on G300") {
		t.Errorf("a wrong reference: %v", err)
	}
	if err := m.WarmSingleSource(ctx, g, "no-such-variant"); err == nil || !strings.Contains(err.Error(), "no-such-variant on G300") {
		t.Errorf("an unknown variant: %v", err)
	}
	none := openMachine("GPU variants", func() (*gpu.Device, error) { return nil, gpu.ErrNoCUDA })
	if _, _, _, err := none.MeanSingleSource(ctx, gpu.VariantDijkstraMartin, g, 0, ref); err == nil || !strings.Contains(err.Error(), "no GPU") {
		t.Errorf("without a device: %v", err)
	}
}

func TestExtrapolate(t *testing.T) {
	sizes := []int{100, 200, 400}
	if got, from := Extrapolate(sizes, []float64{1, 8, 0}, 400, 3); from != 200 || math.Abs(got-64) > 1e-9 {
		t.Errorf("from 200 to 400 by n³: %g from %d, want 64 from 200", got, from)
	}
	if got, from := Extrapolate(sizes, []float64{1, 8, 27}, 800, 2); from != 400 || math.Abs(got-108) > 1e-9 {
		t.Errorf("from 400 to 800 by n²: %g from %d, want 108 from 400", got, from)
	}
	if got, from := Extrapolate(sizes, []float64{0, 0, 0}, 800, 3); got != 0 || from != 0 {
		t.Errorf("nothing measured: %g from %d", got, from)
	}
}

func TestCappedAndSampleRows(t *testing.T) {
	m := openMachine("GPU variants", gpu.Emulator)
	if got := m.Capped(0, 123.4); got != "not run: ≈ 123 s" {
		t.Errorf("a run left out: %v", got)
	}
	if got := m.Capped(2.5, 0); got != 2.5 {
		t.Errorf("a run made: %v", got)
	}
	if got := m.Capped(0, 0); got != "—" {
		t.Errorf("nothing: %v", got)
	}
	none := openMachine("GPU variants", func() (*gpu.Device, error) { return nil, gpu.ErrNoCUDA })
	if got := none.Capped(0, 9); got != none.NoGPU {
		t.Errorf("without a device: %v", got)
	}
	ctx := context.Background()
	g, r := gnmAndFW(t, 60, 300, 8, "", false)
	if err := SampleRows(ctx, g, r, 10, 1); err != nil {
		t.Errorf("a right matrix: %v", err)
	}
	r.Dist[3]++ // row 0, which every sample reads
	if err := SampleRows(ctx, g, r, 10, 1); err == nil || !strings.Contains(err.Error(), "row 0") {
		t.Errorf("a wrong row 0: %v", err)
	}
}

func TestSolveAndMeanChecked(t *testing.T) {
	ctx := context.Background()
	g, all := gnmAndFW(t, 50, 250, 9, "G50", false)
	one, err := cpu.Dijkstra(ctx, g, 3, cpu.DijkstraOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := openMachine("GPU variants", gpu.Emulator)
	fw, err := gpu.Lookup(gpu.VariantFWBlocked)
	if err != nil {
		t.Fatal(err)
	}
	bf, err := gpu.Lookup(gpu.VariantBFFlag)
	if err != nil {
		t.Fatal(err)
	}
	opts := gpu.Options{Device: m.Device}
	if err := SolveChecked(ctx, fw, g, 0, opts, all, nil); err != nil {
		t.Errorf("fw-blocked: %v", err)
	}
	if err := SolveChecked(ctx, bf, g, 3, opts, nil, one); err != nil {
		t.Errorf("bf-flag from 3: %v", err)
	}
	if err := SolveChecked(ctx, bf, g, 3, opts, all, nil); err == nil || !strings.Contains(err.Error(), "no single-source reference") {
		t.Errorf("a single-source variant without its reference: %v", err)
	}
	wrong, _ := cpu.Dijkstra(ctx, g, 3, cpu.DijkstraOptions{})
	wrong.Dist[0]++
	if err := SolveChecked(ctx, bf, g, 3, opts, nil, wrong); err == nil || !strings.Contains(err.Error(), "bf-flag on G50") {
		t.Errorf("a wrong reference: %v", err)
	}
	if wall, kernel, st, err := m.MeanChecked(ctx, fw, g, 0, all, nil); err != nil || wall <= 0 || kernel <= 0 || st.Launches != 6 {
		t.Errorf("MeanChecked: %g %g %d launches, %v", wall, kernel, st.Launches, err)
	}
	if _, _, _, err := m.MeanChecked(ctx, bf, g, 3, nil, wrong); err == nil {
		t.Error("MeanChecked passed a wrong result")
	}
}

func TestInt32Buffers(t *testing.T) {
	dev, err := gpu.Emulator()
	if err != nil {
		t.Fatal(err)
	}
	bufs, err := Int32Buffers(dev, []int32{1, 2, 3}, []int32{}, []int32{7})
	if err != nil {
		t.Fatal(err)
	}
	if len(bufs) != 3 || bufs[0].Len() != 3 || bufs[2].Len() != 1 {
		t.Fatalf("buffers: %v", bufs)
	}
	if got, err := bufs[0].ToInt32s(); err != nil || fmt.Sprint(got) != "[1 2 3]" {
		t.Errorf("first buffer: %v, %v", got, err)
	}
	for _, b := range bufs {
		b.Free()
	}
}

func TestVertexSetAndDistList(t *testing.T) {
	g, err := graph.Example("karaula-fig2.3")
	if err != nil {
		t.Fatal(err)
	}
	if got := VertexSet(g, []int{0, 2}); got != "{a, c}" {
		t.Errorf("VertexSet = %s", got)
	}
	if got := VertexSet(g, nil); got != "{}" {
		t.Errorf("the empty set: %s", got)
	}
	if got := DistList([]int32{0, 2, graph.Inf}); got != "[0,2,∞]" {
		t.Errorf("DistList = %s", got)
	}
}

func TestFirstFaster(t *testing.T) {
	sizes := []int{5, 10, 20, 40}
	cpu := []float64{1, 2, 4, 8}
	if n, ok := FirstFaster(sizes, cpu, []float64{3, 3, 3, 3}, []float64{5, 2.5, 5, 5}); !ok || n != 20 {
		t.Errorf("the fastest of two beats the baseline first at %d, %v; want 20", n, ok)
	}
	// At 10 one program was not measured: that size does not count.
	if n, ok := FirstFaster(sizes, cpu, []float64{3, 1, 3, 3}, []float64{5, 0, 5, 5}); !ok || n != 20 {
		t.Errorf("with a gap: %d, %v; want 20", n, ok)
	}
	if _, ok := FirstFaster(sizes, cpu, []float64{9, 9, 9, 9}); ok {
		t.Error("a slower program overtook the baseline")
	}
	if _, ok := FirstFaster(sizes, []float64{0, 0, 0, 0}, []float64{1, 1, 1, 1}); ok {
		t.Error("an unmeasured baseline was overtaken")
	}
}

func TestTimingReaders(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tm := &Timing{Sizes: []int{100, 200, 400}, Baseline: "cpu", Seconds: map[string][]float64{
		"cpu":   {1, 8, nan},
		"fast":  {0.5, 1, 4}, // ∝ n^1.5 from 100 to 400
		"slow":  {2, inf, nan},
		"never": {nan, nan, nan},
	}}
	if name, s := tm.Fastest([]string{"slow", "fast", "never"}, 100); name != "fast" || s != 0.5 {
		t.Errorf("Fastest at 100: %s %g", name, s)
	}
	if name, s := tm.Fastest([]string{"slow", "never"}, 200); name != "" || !math.IsNaN(s) {
		t.Errorf("Fastest where none has a time: %q %g", name, s)
	}
	if e, ok := tm.Growth("fast"); !ok || math.Abs(e-1.5) > 1e-12 {
		t.Errorf("Growth(fast) = %g, %v; want 1.5", e, ok)
	}
	if _, ok := tm.Growth("slow"); ok {
		t.Error("Growth from one measured size")
	}
	if sp, at := tm.LastSpeedup("fast"); sp != 8 || at != 200 {
		t.Errorf("LastSpeedup(fast) = %g at %d; want 8 at 200", sp, at)
	}
	if sp, at := tm.LastSpeedup("never"); !math.IsNaN(sp) || at != 0 {
		t.Errorf("LastSpeedup(never) = %g at %d", sp, at)
	}
}

// gnmAndFW returns graph.GNM(n, m, weights 1..9, seed), named name unless
// it is empty, and its cpu.FloydWarshall result, with Π if pred.
func gnmAndFW(t *testing.T, n, m int, seed uint64, name string, pred bool) (*graph.Graph, *graph.AllPairs) {
	t.Helper()
	g, err := graph.GNM(n, m, graph.WeightRange{Min: 1, Max: 9}, seed)
	if err != nil {
		t.Fatal(err)
	}
	if name != "" {
		g = g.WithName(name)
	}
	r, err := cpu.FloydWarshall(context.Background(), g, cpu.FWOptions{Pred: pred})
	if err != nil {
		t.Fatal(err)
	}
	return g, r
}

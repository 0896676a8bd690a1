package bench

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/graph"
)

func TestMedian(t *testing.T) {
	if got := Median([]float64{3, 1, 2}); got != 2 {
		t.Errorf("odd count: %v", got)
	}
	x := []time.Duration{4, 1, 3, 2}
	if got := Median(x); got != 2 { // (2+3)/2 in integer nanoseconds
		t.Errorf("even count: %v", got)
	}
	if x[0] != 4 {
		t.Error("Median sorted its argument")
	}
	if got := Median([]float64(nil)); got != 0 {
		t.Errorf("no values: %v", got)
	}
}

// fakeRuns returns a Run whose i-th call reports kernel time times[i] and
// returns i, and the number of calls made.
func fakeRuns(times ...time.Duration) (Run, *int) {
	calls := 0
	return func(st *gpu.Stats) (any, error) {
		i := calls
		calls++
		st.Kernel, st.Wall, st.Launches = times[i], 2*times[i], i+1
		return i, nil
	}, &calls
}

func TestMeasure(t *testing.T) {
	run, calls := fakeRuns(time.Millisecond, 5*time.Millisecond, 3*time.Millisecond, 4*time.Millisecond)
	first, s, err := Measure(Plan{Runs: 3, WarmUp: true}, run)
	if err != nil || first != 0 || *calls != 4 {
		t.Fatalf("first %v, %d calls, %v; want the warm-up's result and 4 calls", first, *calls, err)
	}
	want := Summary{Runs: 3, Kernel: 4 * time.Millisecond, Min: 3 * time.Millisecond, Max: 5 * time.Millisecond, Wall: 8 * time.Millisecond, Launches: 2}
	if s != want {
		t.Errorf("summary %+v, want %+v", s, want)
	}

	run, calls = fakeRuns(2*time.Second, 1, 1, 1, 1, 1)
	if _, s, _ = Measure(Plan{Runs: 5, WarmUp: true}, run); s.Runs != 3 || *calls != 4 {
		t.Errorf("after a 2 s warm-up: %d timed runs, %d calls; want 3 and 4", s.Runs, *calls)
	}
	run, calls = fakeRuns(10*time.Second, 1, 1)
	if _, s, _ = Measure(Plan{Runs: 5, WarmUp: true}, run); s.Runs != 1 || *calls != 2 {
		t.Errorf("after a 10 s warm-up: %d timed runs, %d calls; want 1 and 2", s.Runs, *calls)
	}
	run, calls = fakeRuns(7, 3)
	if first, s, _ = Measure(Plan{Runs: 2}, run); first != 0 || s.Min != 3 || *calls != 2 {
		t.Errorf("no warm-up: first %v, min %v, %d calls", first, s.Min, *calls)
	}

	n := 0
	_, _, err = Measure(Plan{Runs: 3}, func(*gpu.Stats) (any, error) {
		if n++; n == 2 {
			return nil, errors.New("wrong result")
		}
		return nil, nil
	})
	if err == nil || err.Error() != "run 2 of 3: wrong result" || n != 2 {
		t.Errorf("error in run 2: %v after %d runs", err, n)
	}
}

func TestHostRun(t *testing.T) {
	_, s, err := Measure(Plan{}, HostRun(func() (any, error) { time.Sleep(2 * time.Millisecond); return nil, nil }))
	if err != nil || s.Kernel < 2*time.Millisecond || s.Kernel != s.Wall {
		t.Errorf("host run: %+v, %v", s, err)
	}
}

func TestPredictor(t *testing.T) {
	var p Predictor
	if d := p.Predict("fw", 8); d != 0 {
		t.Errorf("no observation: %v", d)
	}
	p.Observe("fw", 1000, time.Second)
	if d := p.Predict("fw", 8000); d != 8*time.Second {
		t.Errorf("8× the cost: %v, want 8s", d)
	}
	if d := p.Predict("other", 8000); d != 0 {
		t.Errorf("another solver: %v", d)
	}
}

func TestDPXCeiling(t *testing.T) {
	h100 := gpu.DeviceInfo{Major: 9, SMs: 132, ClockMHz: 1980}
	if got, want := DPXCeiling(h100), 132*64*1980e6; got != want {
		t.Errorf("H100: %g, want %g", got, want)
	}
	if got := DPXCeiling(gpu.DeviceInfo{Major: 8, SMs: 108, ClockMHz: 1410}); !math.IsInf(got, 1) {
		t.Errorf("Ampere: %g, want +Inf", got)
	}
}

// SampleRows passes a correct result and catches a wrong distance.
func TestSampleRows(t *testing.T) {
	g, err := graph.GNM(40, 160, graph.WeightRange{Min: 1, Max: 9}, 3)
	if err != nil {
		t.Fatal(err)
	}
	right, err := cpu.FloydWarshall(context.Background(), g, cpu.FWOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := SampleRows(g, right, 40, 1); err != nil {
		t.Errorf("the right result failed: %v", err)
	}
	r, err := graph.NewAllPairs(g.N(), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := SampleRows(g, r, 40, 1); err == nil {
		t.Error("a result of zeros passed")
	}
}

func TestRecord(t *testing.T) {
	r := Record{Variant: "fw-fast", Graph: "GNM", N: 10, M: 20}
	r.SetSummary(Summary{Runs: 3, Kernel: 2 * time.Millisecond, Min: time.Millisecond, Max: 3 * time.Millisecond, Wall: 4 * time.Millisecond, Launches: 7,
		Prepare: 100 * time.Microsecond, HostToDevice: 200 * time.Microsecond, DeviceToHost: time.Millisecond, Result: 300 * time.Microsecond})
	r.RelaxPerSec, r.Ceiling = 5e11, 0.25
	if got := r.Row(); got != "| fw-fast | GNM | 10 | 20 | 3 | 2.000 | 1.000 | 3.000 | 4.000 | 0.100 / 0.200 / 2.000 / 1.000 / 0.300 | 7 | 5e+11 (25%) |  |" {
		t.Errorf("row %q", got)
	}
	if cols, want := strings.Count(r.Row(), "|"), strings.Count(strings.Split(TableHeader, "\n")[0], "|"); cols != want {
		t.Errorf("row has %d bars, header %d", cols, want)
	}
	h := Record{Variant: "dijkstra-cpu", M: 1000}
	h.SetHost(time.Millisecond, 0)
	if !h.Host || h.Runs != 1 || h.EdgesPerSec != 1e6 {
		t.Errorf("host record %+v", h)
	}
	s := Record{Variant: "fw", Skipped: "too long"}
	if !strings.Contains(s.Row(), "skipped: too long") {
		t.Errorf("skipped row %q", s.Row())
	}

	path := filepath.Join(t.TempDir(), "r.json")
	rep := Report{Device: "d", Records: []Record{r, h}}
	if err := rep.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(data, &back); err != nil || len(back.Records) != 2 || back.Records[0] != r {
		t.Errorf("read back %+v, %v", back, err)
	}
}

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// run measures the CPU jobs that fit, writes them, and with -resume runs
// none of them again; a job over the deadline is listed as skipped.
func TestRunCPU(t *testing.T) {
	saved, savedN := karaulaSizes, calibrationN
	defer func() { karaulaSizes, calibrationN = saved, savedN }()
	calibrationN = 200
	karaulaSizes = []struct {
		class, table string
		n, m         []int
	}{
		{"dense", "Table 1", []int{60, 90, 2000}, []int{70, 160, 8000}},
		{"sparse", "Table 3", []int{80}, []int{40}},
	}
	out := filepath.Join(t.TempDir(), "capped.json")
	// The calibration at |V| = 200 puts 2000 at a thousand times its own
	// time, well past the deadline.
	if err := run(out, false, 5*time.Second, "cpu", 2000); err != nil {
		t.Fatal(err)
	}
	f := read(t, out)
	got := map[string]bool{}
	for _, r := range f.Results {
		if r.Wall <= 0 || r.Notebook != "01-karaula-fw" || r.Column != "CPU" || r.Device == "" || r.Cores != 1 {
			t.Errorf("result %+v", r)
		}
		got[r.Row] = true
	}
	if !got["dense 60"] || !got["dense 90"] || !got["sparse 80"] || len(f.Results) != 3 {
		t.Errorf("results %+v, want dense 60 and 90, sparse 80", f.Results)
	}
	if len(f.Skipped) != 1 {
		t.Errorf("skipped %q, want dense 2000 alone", f.Skipped)
	}
	if err := run(out, true, 5*time.Second, "cpu", 100); err != nil {
		t.Fatal(err)
	}
	if again := read(t, out); len(again.Results) != 3 {
		t.Errorf("-resume ran the jobs again: %d results", len(again.Results))
	}
	// Another build resumes the file: the old results keep their build,
	// the new one names its own, and the file names both.
	savedBuild := build
	defer func() { build = savedBuild }()
	build = func() string { return "pathnotes (devel) 0123456789ab" }
	karaulaSizes = append(karaulaSizes, struct {
		class, table string
		n, m         []int
	}{"medium", "Table 5", []int{70}, []int{300}})
	if err := run(out, true, 5*time.Second, "cpu", 100); err != nil {
		t.Fatal(err)
	}
	f = read(t, out)
	if len(f.Results) != 4 || f.Build != f.Results[0].Build+"; pathnotes (devel) 0123456789ab" {
		t.Fatalf("after another build's -resume: %d results, build %q", len(f.Results), f.Build)
	}
	for _, r := range f.Results {
		if (r.Row == "medium 70") != (r.Build == "pathnotes (devel) 0123456789ab") || r.Build == "" {
			t.Errorf("%s: build %q", r.Row, r.Build)
		}
	}
}

func read(t *testing.T, path string) File {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// run splits the rows of a CPU job that one core would not end before the
// deadline over the cores left, says so in its result, and still skips a
// job too long for them all. The calibration is replaced by a rate far
// above the real one, so that the plan does not depend on this machine's
// speed: the jobs themselves take milliseconds.
func TestRunCPUSplit(t *testing.T) {
	saved, savedCal, savedCores := karaulaSizes, calibrate, hostCores
	defer func() { karaulaSizes, calibrate, hostCores = saved, savedCal, savedCores }()
	karaulaSizes = []struct {
		class, table string
		n, m         []int
	}{{"dense", "Table 1", []int{60, 90, 180, 2000}, []int{70, 160, 600, 8000}}}
	calibrate = func(context.Context) (map[string]float64, error) { return map[string]float64{"dense": 1e-6}, nil }
	hostCores = func() int { return 6 } // 5 free: 2 slots for the two one-core jobs, 3 to split over
	out := filepath.Join(t.TempDir(), "capped.json")
	// One core: 60 → 0.22 s, 90 → 0.73 s, 180 → 5.8 s, 2000 → 8000 s.
	// Split over 3 cores at 60 %, 180 is planned at 3.2 s: within 6 s.
	if err := run(out, false, 6*time.Second, "cpu", 2000); err != nil {
		t.Fatal(err)
	}
	f := read(t, out)
	cores := map[string]int{}
	for _, r := range f.Results {
		cores[r.Row] = r.Cores
		if r.Cores > 1 && !strings.Contains(r.Device, "3 cores") {
			t.Errorf("%s on %d cores: device %q does not say so", r.Row, r.Cores, r.Device)
		}
	}
	if cores["dense 60"] != 1 || cores["dense 90"] != 1 || cores["dense 180"] != 3 || len(f.Results) != 3 {
		t.Errorf("cores by row %v, want dense 60 and 90 on one, dense 180 on three", cores)
	}
	if len(f.Skipped) != 1 || !strings.Contains(f.Skipped[0], "dense 2000") {
		t.Errorf("skipped %q, want dense 2000 alone", f.Skipped)
	}
}

// planCPU keeps two cores for the split jobs, gives the rest to the
// one-core ones, queues the split jobs within the time left, and splits
// nothing on a host with fewer than three free cores.
func TestPlanCPU(t *testing.T) {
	jobs := karaulaJobs(12500)
	rate := map[string]float64{"dense": 2e-9, "sparse": 1e-9, "medium": 1.5e-9}
	p := planCPU(jobs, rate, 30, 9*time.Minute)
	// One core: the three 5000s take 125 to 250 s and sparse 7500 422 s
	// (506 s with a fifth to spare): those four run on one core each;
	// medium 7500 (633 s) and every larger one do not.
	if len(p.single) != 4 || p.slots != 4 || p.cores != 26 {
		t.Fatalf("%d one-core jobs on %d slots, split over %d cores; want 4, 4, 26", len(p.single), p.slots, p.cores)
	}
	queue := 0.0
	for _, j := range p.split {
		queue += j.Estimate
	}
	if len(p.split)+len(p.skipped) != 8 || len(p.split) == 0 || queue*1.2 > (9*time.Minute).Seconds() {
		t.Errorf("%d split (%.0f s queued), %d skipped: want the 8 others planned within 540 s", len(p.split), queue, len(p.skipped))
	}
	for i := 1; i < len(p.split); i++ {
		if p.split[i].N < p.split[i-1].N {
			t.Errorf("split queue not smallest first: %s before %s", p.split[i-1].Row, p.split[i].Row)
		}
	}
	if small := planCPU(jobs, rate, 2, 9*time.Minute); len(small.split) != 0 || small.cores != 0 || len(small.skipped) != 8 {
		t.Errorf("on 2 free cores: %d split over %d cores, %d skipped; want none split, 8 skipped", len(small.split), small.cores, len(small.skipped))
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
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
		if r.Wall <= 0 || r.Notebook != "01-karaula-fw" || r.Column != "CPU" || r.Device == "" {
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

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/internal/bench"
)

// TestBenchEmulator runs `pathnotes bench` on the PTX emulator with tiny
// sizes and checks the JSON it writes: every selected variant has a
// checked cell, the CPU solvers have host rows, and the crossover cells
// say what the automatic pick chose.
func TestBenchEmulator(t *testing.T) {
	t.Setenv("PATHNOTES_GPU", "emu")
	out := filepath.Join(t.TempDir(), "bench.json")
	err := Bench([]string{"--fw-sizes", "70", "--fw-snap", "0", "--snap", "../../data/snap/p2p-Gnutella04.txt.gz",
		"--apsp-snap", "0", "--apsp-sizes", "40", "--cross-n", "130", "--cross-density", "2", "--sssp-graphs", "",
		"--runs", "1", "--variants", "fw-fast,apsp-batched,sssp-fast,bf-fast", "--json", out})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep bench.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range rep.Records {
		if r.Skipped != "" {
			t.Errorf("%s on %s skipped: %s", r.Variant, r.Graph, r.Skipped)
			continue
		}
		if r.Check == "" || r.KernelMs <= 0 {
			t.Errorf("%s on %s: check %q, kernel %v ms", r.Variant, r.Graph, r.Check, r.KernelMs)
		}
		seen[r.Variant]++
	}
	for v, want := range map[string]int{"fw-cpu-blocked": 2, "fw-fast": 2, "apsp-batched": 2, "dijkstra-cpu": 1,
		"sssp-fast": 1, "bf-fast": 1, "bf-fast (early exit)": 1} {
		if seen[v] != want {
			t.Errorf("%d cells of %s, want %d (all: %v)", seen[v], v, want, seen)
		}
	}
}

// TestBenchDevices runs `pathnotes bench --devices 0,1` on two emulated
// devices: fw-fast runs on one and on both, each result checked against
// sssp-fast, and the two-device row states the speed-up.
func TestBenchDevices(t *testing.T) {
	t.Setenv("PATHNOTES_GPU", "emu")
	t.Setenv("PATHNOTES_EMU_DEVICES", "2")
	out := filepath.Join(t.TempDir(), "bench.json")
	err := Bench([]string{"--fw-sizes", "", "--snap", "", "--apsp-sizes", "", "--cross-n", "0", "--sssp-graphs", "",
		"--runs", "1", "--pred", "--devices", "0,1", "--multi-sizes", "200", "--json", out})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep bench.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Records) != 2 {
		t.Fatalf("%d records, want fw-fast on 1 and on 2 devices: %+v", len(rep.Records), rep.Records)
	}
	for i, want := range []string{"fw-fast on 1 device", "fw-fast on 2 devices"} {
		r := rep.Records[i]
		if r.Variant != want || r.N != 200 || !strings.Contains(r.Check, "8 rows = sssp-fast") {
			t.Errorf("record %d: %s n=%d check %q; want %s, n=200, checked", i, r.Variant, r.N, r.Check, want)
		}
	}
	if !strings.Contains(rep.Records[1].Check, "× one device") {
		t.Errorf("two-device check %q states no speed-up", rep.Records[1].Check)
	}
	for _, bad := range [][]string{{"--devices", "0,0"}, {"--devices", "x"}, {"--devices", ""}} {
		if err := Bench(bad); err == nil {
			t.Errorf("bench %v: no error", bad)
		}
	}
}

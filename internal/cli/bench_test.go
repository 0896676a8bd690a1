package cli

import (
	"encoding/json"
	"fmt"
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
	rep := benchReport(t, out, "--fw-sizes", "70", "--fw-snap", "0", "--snap", "../../data/snap/p2p-Gnutella04.txt.gz",
		"--apsp-snap", "0", "--apsp-sizes", "40", "--cross-n", "130", "--cross-density", "2", "--sssp-graphs", "",
		"--runs", "1", "--variants", "fw-fast,apsp-batched,sssp-fast,bf-fast")
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
// sssp-fast, and the two-device row states the speed-up; fw-fast also runs
// in memory and streamed on one device and on both.
func TestBenchDevices(t *testing.T) {
	t.Setenv("PATHNOTES_GPU", "emu")
	t.Setenv("PATHNOTES_EMU_DEVICES", "2")
	dir := t.TempDir()
	out, snap := filepath.Join(dir, "bench.json"), filepath.Join(dir, "tiny.txt")
	var edges strings.Builder
	edges.WriteString("# a SNAP-style edge list\n")
	for v := range 90 {
		fmt.Fprintf(&edges, "%d\t%d\n%d\t%d\n", v, (v*7+1)%90, v, (v*13+5)%90)
	}
	if err := os.WriteFile(snap, []byte(edges.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := benchReport(t, out, "--fw-sizes", "", "--snap", snap, "--fw-snap", "0", "--apsp-snap", "0", "--apsp-sizes", "",
		"--cross-n", "0", "--sssp-graphs", "", "--variants", "fw-fast,apsp-batched", "--runs", "1", "--pred",
		"--devices", "0,1", "--multi-sizes", "200", "--out-of-core", "300", "--out-of-core-cap", "1199396")
	var multi []bench.Record
	for _, r := range rep.Records {
		if strings.Contains(r.Variant, " on ") {
			multi = append(multi, r)
		}
	}
	var streamed []bench.Record
	for _, r := range rep.Records {
		if strings.HasPrefix(r.Variant, "fw-fast in device memory") || strings.HasPrefix(r.Variant, "fw-fast streamed") {
			streamed = append(streamed, r)
		}
	}
	if len(streamed) != 3 || !strings.Contains(streamed[1].Check, "3 passes") || !strings.Contains(streamed[1].Check, "of the in-memory rate") ||
		!strings.Contains(streamed[2].Check, "2 passes") || !strings.Contains(streamed[2].Check, "× one device in memory") {
		t.Errorf("out-of-core records: %+v", streamed)
	}
	for _, r := range streamed {
		if !strings.Contains(r.Check, "8 rows = sssp-fast") {
			t.Errorf("%s: check %q", r.Variant, r.Check)
		}
	}
	if len(multi) != 4 {
		t.Fatalf("%d multi-device records, want 4: %+v", len(multi), multi)
	}
	for i, want := range []struct {
		variant string
		n       int
	}{{"fw-fast on 1 device", 200}, {"fw-fast on 2 devices", 200}, {"apsp-batched on 1 device", 90}, {"apsp-batched on 2 devices", 90}} {
		r := multi[i]
		if r.Variant != want.variant || r.N != want.n || !strings.Contains(r.Check, "8 rows = sssp-fast") {
			t.Errorf("record %d: %s n=%d check %q; want %s, n=%d, checked", i, r.Variant, r.N, r.Check, want.variant, want.n)
		}
		if i%2 == 1 && !strings.Contains(r.Check, "× one device") {
			t.Errorf("%s: check %q states no speed-up", r.Variant, r.Check)
		}
	}
	for _, bad := range [][]string{{"--devices", "0,0"}, {"--devices", "x"}, {"--devices", ""}, {"--out-of-core-cells", "in,two"}} {
		if err := Bench(bad); err == nil {
			t.Errorf("bench %v: no error", bad)
		}
	}
}

// benchReport runs `pathnotes bench` with args and --json out, and returns
// the report it wrote.
func benchReport(t *testing.T, out string, args ...string) bench.Report {
	t.Helper()
	if err := Bench(append(args, "--json", out)); err != nil {
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
	return rep
}

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
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

package lab

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
)

// ApartResult is one measurement that notebooks/internal/capped made
// apart from a notebook, keyed by the notebook, table, row and column that
// the notebook's table names.
type ApartResult struct {
	Notebook string  `json:"notebook"` // "01-karaula-fw" or "03-bodra-cuda-sp"
	Table    string  `json:"table"`    // "Table 1", "Table 3", "Table 5"
	Row      string  `json:"row"`      // a dataset ("e", "gnutella30") or a class and size ("dense 5000")
	Column   string  `json:"column"`   // a variant, or "CPU" for 01's triple loop
	Graph    string  `json:"graph"`    // how the graph was made
	N        int     `json:"n"`
	M        int     `json:"m"`
	Wall     float64 `json:"wall_s"`             // the whole call, seconds
	Kernel   float64 `json:"kernel_s,omitempty"` // device time of the kernels, seconds (GPU jobs)
	Cores    int     `json:"cores,omitempty"`    // CPU jobs: the cores it ran on (above 1: each pivot's rows split over them)
	Device   string  `json:"device"`             // the card, or the CPU model and its cores
	Checked  string  `json:"checked"`            // how the result was checked
	Estimate float64 `json:"estimate_s"`         // what the job was expected to take
	Build    string  `json:"build,omitempty"`    // the build that made it (Build)
}

// ApartFile is the file (capped.json) that notebooks/internal/capped
// writes: the build and the machine that made the measurements, and the
// measurements.
type ApartFile struct {
	Build   string        `json:"build"`   // Build: the commit of the binary; "; "-separated when calls of several builds made the results
	Host    string        `json:"host"`    // the CPU model and its logical CPUs, "; "-separated for several hosts
	GPUs    []string      `json:"gpus"`    // the cards used
	Command string        `json:"command"` // how capped was called (the last call)
	Results []ApartResult `json:"results"`
	Skipped []string      `json:"skipped,omitempty"` // the jobs left out by the last call, and why
}

// SkippedFor returns the jobs of notebook that the last call left out,
// each with its reason and without the notebook's name.
func (f *ApartFile) SkippedFor(notebook string) []string {
	var out []string
	for _, why := range f.Skipped {
		if rest, ok := strings.CutPrefix(why, notebook+"|"); ok {
			out = append(out, rest)
		}
	}
	return out
}

// NotRunApart is what a notebook's "run apart" cell prints when there is
// no capped.json yet.
const NotRunApart = "Not run apart yet: \"notebooks/card-run.sh BINARY OUTDIR capped\" runs these cells on a card; its capped.json goes to notebooks/."

// ReadApart reads the ApartFile at path and returns it with the results
// that belong to notebook, in the order of the notebook's tables: by
// table, then |V|, then column. Without a file at path it returns nils
// and no error.
func ReadApart(path, notebook string) (*ApartFile, []ApartResult, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var f ApartFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	var mine []ApartResult
	for _, r := range f.Results {
		if r.Notebook == notebook {
			mine = append(mine, r)
		}
	}
	sort.SliceStable(mine, func(i, j int) bool {
		a, b := mine[i], mine[j]
		if a.Table != b.Table {
			return a.Table < b.Table
		}
		if a.N != b.N {
			return a.N < b.N
		}
		return a.Column < b.Column
	})
	return &f, mine, nil
}

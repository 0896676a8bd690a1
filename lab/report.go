package lab

import (
	"fmt"
	"strings"
	"time"

	"github.com/pathnotes/pathnotes/display"
	"github.com/pathnotes/pathnotes/graph"
)

// Mismatch is the first wrong value of one case.
type Mismatch struct {
	Graph string // the graph family: "sparse", "dense", "negative", "degree-7"
	N     int    // vertices
	// I and J locate the value: row i and column j of the distance matrix,
	// or source i and vertex j of a single-source result. A write past the
	// end gives the position the cell would have if the matrix (or vector)
	// went on.
	I, J             int
	Expected, Actual int32
	Wrong            int    // how many values of the result are wrong
	Note             string // a guess at the cause, e.g. "never written"
}

// String describes the mismatch in one line.
func (m *Mismatch) String() string {
	pos := fmt.Sprintf("cell (%d, %d)", m.I, m.J)
	if m.Expected == Poison {
		pos = fmt.Sprintf("guard cell (%d, %d)", m.I, m.J)
	}
	return fmt.Sprintf("%s: expected %s, got %s (%s); %d wrong in all",
		pos, formatValue(m.Expected), formatValue(m.Actual), m.Note, m.Wrong)
}

// formatValue writes a distance, ∞ for graph.Inf and "poison" for Poison.
func formatValue(v int32) string {
	if v == Poison {
		return fmt.Sprintf("poison %d", v)
	}
	return graph.FormatDist(v)
}

// Case is one run of the student's function on one graph.
type Case struct {
	Graph  string // the graph family
	Name   string // the generator and its parameters, to rebuild the graph
	Seed   uint64 // the graph's seed
	N, M   int    // vertices and arcs
	Source int    // the source of a single-source case; -1 for all pairs
	// Time is the host clock from the call of the student's function to
	// the end of the device's work (Synchronize).
	Time     time.Duration
	Mismatch *Mismatch // the first wrong value; nil when none
	// Err is an error of the function, a kernel fault or a failed copy;
	// NotRun says the case was skipped after such an error.
	Err    error
	NotRun bool
	// Untouched says the function ran without error and left every value
	// it was given as it was, guard zone included: it wrote nothing, as an
	// empty skeleton kernel does.
	Untouched bool
}

// OK says whether the case ran and every value was right.
func (c Case) OK() bool { return c.Err == nil && c.Mismatch == nil }

// Result describes the outcome in a few words: "ok", the first mismatch
// or the error.
func (c Case) Result() string {
	switch {
	case c.Err != nil:
		return c.Err.Error()
	case c.Mismatch != nil:
		return "first wrong " + c.Mismatch.String()
	}
	return "ok"
}

// label names the case's graph: "sparse", or "sparse from 16" for a
// single source.
func (c Case) label() string { return c.Graph + sourceText(c.Source) }

// Report is the outcome of CheckAPSP or CheckSSSP: one Case per graph.
// It shows as a table in a notebook.
type Report struct {
	Problem string // "all pairs" or "single source"
	Device  string // the device's name
	Driver  string // "cuda" or "emu"
	Cases   []Case
	what    string // the checker, for errors
}

// OK says whether every case passed.
func (r *Report) OK() bool { return r.Failed() == 0 }

// Failed counts the cases that did not pass (not run ones included).
func (r *Report) Failed() int {
	failed := 0
	for _, c := range r.Cases {
		if !c.OK() {
			failed++
		}
	}
	return failed
}

// NotStarted says whether the function wrote nothing at all: at least one
// case failed, and every case ran without error and came back Untouched or
// passed (a graph whose input is already its answer, such as one vertex,
// passes untouched). Notebooks print a one-line "not written yet" for such
// a report instead of its table.
func (r *Report) NotStarted() bool {
	if r == nil || r.OK() {
		return false
	}
	for _, c := range r.Cases {
		if c.Err != nil || c.NotRun || (!c.OK() && !c.Untouched) {
			return false
		}
	}
	return true
}

// First returns the first case that failed and ran, or nil.
func (r *Report) First() *Case {
	for i, c := range r.Cases {
		if !c.OK() && !c.NotRun {
			return &r.Cases[i]
		}
	}
	return nil
}

// Err returns nil when every case passed, else an error naming the first
// failure: its graph, n, and the first wrong value or the error.
func (r *Report) Err() error {
	c := r.First()
	if c == nil {
		return nil
	}
	return fmt.Errorf("lab: %s: %d of %d cases failed; first: %s graph %s, n=%d%s: %s",
		r.what, r.Failed(), len(r.Cases), c.Graph, c.Name, c.N, sourceText(c.Source), c.Result())
}

// sourceText is " from s" for a single-source case.
func sourceText(source int) string {
	if source < 0 {
		return ""
	}
	return fmt.Sprintf(" from %d", source)
}

// summary is the report's verdict in a line.
func (r *Report) summary() string {
	if r.OK() {
		return fmt.Sprintf("%s: all %d cases ok on %s (%s driver)", r.Problem, len(r.Cases), r.Device, r.Driver)
	}
	return fmt.Sprintf("%s: %d of %d cases FAILED on %s (%s driver)", r.Problem, r.Failed(), len(r.Cases), r.Device, r.Driver)
}

// Table returns the report as a table: one row per case with its graph,
// size, time and result.
func (r *Report) Table() *display.Table {
	t := display.NewTable("Check of your "+r.Problem+" function", "graph", "n", "arcs", "time", "result")
	for _, c := range r.Cases {
		if c.NotRun {
			t.Add(c.label(), c.N, "", "", c.Result())
			continue
		}
		t.Add(c.label(), c.N, c.M, c.Time, c.Result())
	}
	t.Note(r.summary())
	if r.Driver == "emu" {
		t.Note("times are the emulator's on the CPU, not GPU times")
	}
	return t
}

// String returns the report as text: the table and the verdict.
func (r *Report) String() string { return r.Table().Text() }

// MIMEBundle shows the report as an HTML table with a text form.
func (r *Report) MIMEBundle() (data, metadata map[string]any) { return r.Table().MIMEBundle() }

// failures joins the one-line messages of errors, for notes.
func failures(msgs []string) string { return strings.Join(msgs, "; ") }

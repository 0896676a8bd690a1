package notebook

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/kernel/session"
)

// TestRoundTrip checks that a notebook with every kind of output, unknown
// fields and metadata is written back byte for byte as nbformat writes it.
func TestRoundTrip(t *testing.T) {
	orig, err := os.ReadFile("testdata/roundtrip.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	nb, err := Parse(orig)
	if err != nil {
		t.Fatal(err)
	}
	got, err := nb.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, orig) {
		t.Errorf("round trip changed the notebook:\n%s", got)
	}

	// What was decoded.
	code := nb.Cells[1]
	if code.Source != "fmt.Println(\"line 1\")\npanic(\"boom\")" || !code.HasTag(RaisesException) || *code.ExecutionCount != 3 {
		t.Errorf("code cell: %+v", code)
	}
	kinds := []string{}
	for _, o := range code.Outputs {
		kinds = append(kinds, o.OutputType)
	}
	if strings.Join(kinds, " ") != "stream display_data execute_result error" {
		t.Errorf("outputs %v", kinds)
	}
	if o := code.Outputs[0]; o.Name != "stdout" || o.Text != "line 1\nline 2\n" {
		t.Errorf("stream %+v", o)
	}
	if o := code.Outputs[1]; o.Data["image/svg+xml"] != "<svg>\n</svg>" || !reflect.DeepEqual(o.Data["application/json"], map[string]any{"a": []any{1.0, 2.0}}) {
		t.Errorf("display_data %+v", o.Data)
	}
	if o := code.Outputs[3]; o.EName != "panic" || o.EValue != "boom" || len(o.Traceback) != 2 {
		t.Errorf("error %+v", o)
	}
	if nb.Cells[2].Source != "raw text" || nb.Cells[3].Source != "" || nb.Cells[3].ExecutionCount != nil {
		t.Errorf("raw and empty cells: %+v %+v", nb.Cells[2], nb.Cells[3])
	}
}

// TestParseErrors checks that bad notebooks give errors that say what.
func TestParseErrors(t *testing.T) {
	tests := []struct{ json, want string }{
		{`{"nbformat": 3, "cells": []}`, "nbformat 3"},
		{`{"nbformat": 4, "cells": [{"cell_type": "code", "source": ""}, {"cell_type": "sql", "source": ""}]}`, `notebook: cell 2: cell: unknown cell_type "sql"`},
		{`{"nbformat": 4, "cells": [{"cell_type": "code", "source": "", "outputs": [{"output_type": "pager"}]}]}`, `unknown output_type "pager"`},
		{`{"nbformat": 4, "cells": [{"cell_type": "code", "source": [1]}]}`, "source"},
		{`[]`, "notebook"},
	}
	for _, tt := range tests {
		if _, err := Parse([]byte(tt.json)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%s): error %v, want one mentioning %q", tt.json, err, tt.want)
		}
	}
}

// TestHugeCell checks that a notebook holding a cell larger than
// MaxCellSource is refused when it is read, naming the cell and the sizes,
// without decoding the cell: the heap grows by less than three times the
// file, and that a source as a list of lines counts whole.
func TestHugeCell(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.ipynb")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString(`{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "code", "source": "x := 1", "metadata": {}, "outputs": []}, {"cell_type": "code", "metadata": {}, "outputs": [], "source": "s := \"`)
	line := strings.Repeat("abcdefgh", 128)
	for n := 0; n < MaxCellSource+(1<<20); n += len(line) {
		w.WriteString(line)
	}
	w.WriteString(`\""}]}`)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = Read(path)
	runtime.ReadMemStats(&after)
	var se *SourceError
	if !errors.As(err, &se) || se.Cell != 2 || !strings.Contains(err.Error(), "huge.ipynb: notebook: cell 2: its source takes 65.0 MiB in the file, more than the 64.0 MiB a cell may hold") {
		t.Fatalf("Read: %v, want a SourceError for cell 2", err)
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > uint64(st.Size())+(1<<20) {
		t.Errorf("reading a %d MiB notebook allocated %d MiB", st.Size()>>20, grown>>20)
	}
	lines := `{"nbformat": 4, "cells": [{"cell_type": "markdown", "source": "` + strings.Repeat("m", 1<<20) + `"}, ` +
		`{"cell_type": "code", "outputs": [{"output_type": "stream", "name": "stdout", "text": "` + strings.Repeat("o", MaxCellSource/2) + `"}], ` +
		`"source": ["` + strings.Repeat("a\\\"", MaxCellSource/4) + `", "` + strings.Repeat("b", MaxCellSource/2) + `"]}]}`
	if err := checkSources([]byte(lines)); !errors.As(err, &se) || se.Cell != 2 {
		t.Errorf("a source of two lines of 3/4 (escaped quotes) and 1/2 of the limit: %v, want a SourceError for cell 2", err)
	}
	ok := `{"nbformat": 4, "cells": [{"cell_type": "code", "metadata": {"source": "` + strings.Repeat("x", MaxCellSource/2) + `"}, ` +
		`"outputs": [{"output_type": "stream", "name": "stdout", "text": "` + strings.Repeat("o", MaxCellSource/2) + `"}], "source": "` + strings.Repeat("c", MaxCellSource/2+1) + `"}]}`
	if err := checkSources([]byte(ok)); err != nil {
		t.Errorf("large outputs and metadata beside a source under the limit: %v", err)
	}
}

func newSession() (*session.Session, error) {
	return session.New(session.Options{Prelude: []string{"fmt"}})
}

// TestRun executes the small test notebook: it stops at the failing cell,
// records the expected error of the tagged cell, and writes valid JSON.
func TestRun(t *testing.T) {
	nb, err := Read("testdata/small.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	var progress []int
	err = Run(context.Background(), nb, newSession, RunOptions{Timeout: time.Minute, Progress: func(i, _ int) { progress = append(progress, i) }})
	var fail *CellFailure
	if !errors.As(err, &fail) || fail.Index != 5 || fail.Count != 5 || fail.Err.Name != "RuntimeError" {
		t.Fatalf("Run: %v, want the failure of cell 5 (count 5)", err)
	}
	if !reflect.DeepEqual(progress, []int{1, 2, 3, 4, 5}) {
		t.Errorf("progress %v", progress)
	}
	c := nb.Cells
	if len(c[1].Outputs) != 1 || c[1].Outputs[0].Text != "4 words\ndone\n" || *c[1].ExecutionCount != 1 {
		t.Errorf("cell 1: %+v", c[1].Outputs)
	}
	if o := c[2].Outputs; len(o) != 1 || o[0].OutputType != "execute_result" || o[0].Data["text/plain"] != `"SHORTEST"` || *o[0].ExecutionCount != 2 {
		t.Errorf("cell 2: %+v", o)
	}
	if o := c[3].Outputs; len(o) != 1 || o[0].OutputType != "error" || !strings.Contains(o[0].EValue, "index out of range") {
		t.Errorf("cell 3 (raises-exception): %+v", o)
	}
	if o := c[4].Outputs; len(o) != 1 || o[0].Data["text/html"] != "<p>after the expected error</p>" {
		t.Errorf("cell 4: %+v", o)
	}
	if o := c[5].Outputs; len(o) != 1 || o[0].EName != "RuntimeError" || !strings.Contains(o[0].EValue, "nil map") {
		t.Errorf("cell 5: %+v", o)
	}
	if c[6].ExecutionCount != nil || c[6].Outputs[0].Text != "kept: not run\n" {
		t.Errorf("cell 6 ran or lost its outputs: %+v", c[6])
	}

	path := filepath.Join(t.TempDir(), "small.ipynb")
	if err := nb.Write(path); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	var generic map[string]any
	if err := json.Unmarshal(b, &generic); err != nil {
		t.Fatalf("written notebook is not JSON: %v", err)
	}
	again, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if again.Cells[1].Outputs[0].Text != "4 words\ndone\n" {
		t.Errorf("written then read: %+v", again.Cells[1].Outputs[0])
	}
}

// TestRunTimeout checks the per-cell timeout.
func TestRunTimeout(t *testing.T) {
	nb := &Notebook{NBFormat: 4, NBFormatMinor: 5, Cells: []*Cell{{CellType: "code", Source: "for {}"}}}
	start := time.Now()
	err := Run(context.Background(), nb, newSession, RunOptions{Timeout: 200 * time.Millisecond})
	var fail *CellFailure
	if !errors.As(err, &fail) || fail.Err.Name != "TimeoutError" {
		t.Fatalf("Run: %v, want a TimeoutError", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	if o := nb.Cells[0].Outputs; len(o) != 1 || o[0].EName != "TimeoutError" {
		t.Errorf("outputs %+v", o)
	}
}

// TestCellOutput checks the nbformat shapes of what a cell produces.
func TestCellOutput(t *testing.T) {
	cell := &Cell{CellType: "code"}
	displays := map[string][]*Output{}
	out := &cellOutput{cell: cell, displays: displays}
	out.Stream("stdout", "a")
	out.Stream("stdout", "b\n")
	out.Stream("stderr", "e\n")
	out.Display(*session.TextBundle("v1"), "bar", false)
	out.Display(*session.TextBundle("other"), "", false)
	out.Display(*session.TextBundle("v2"), "bar", true)
	if len(cell.Outputs) != 4 || cell.Outputs[0].Text != "ab\n" || cell.Outputs[1].Name != "stderr" {
		t.Fatalf("outputs %+v", cell.Outputs)
	}
	if cell.Outputs[2].Data["text/plain"] != "v2" || cell.Outputs[3].Data["text/plain"] != "other" {
		t.Errorf("update_display_data did not replace the display: %+v %+v", cell.Outputs[2], cell.Outputs[3])
	}
	out.ClearOutput(true)
	if len(cell.Outputs) != 4 {
		t.Errorf("ClearOutput(wait) cleared at once")
	}
	out.Stream("stdout", "fresh")
	if len(cell.Outputs) != 1 || cell.Outputs[0].Text != "fresh" {
		t.Errorf("after ClearOutput(wait) and new output: %+v", cell.Outputs)
	}
	out.ClearOutput(false)
	if len(cell.Outputs) != 0 {
		t.Errorf("ClearOutput(false) kept %d outputs", len(cell.Outputs))
	}
	if _, err := out.Input("", false); err == nil {
		t.Error("Input succeeded without a front end")
	}
}

// nbformat 4.5 requires cell ids: Marshal fills in the missing ones, keeps
// the others, and never repeats one.
func TestMarshalFillsCellIDs(t *testing.T) {
	nb, err := Parse([]byte(`{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
		{"cell_type": "markdown", "metadata": {}, "source": "a"},
		{"cell_type": "code", "id": "cell-1", "metadata": {}, "source": "1", "outputs": [], "execution_count": null},
		{"cell_type": "code", "metadata": {}, "source": "2", "outputs": [], "execution_count": null}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nb.Marshal(); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i, c := range nb.Cells {
		if c.ID == "" || seen[c.ID] {
			t.Fatalf("cell %d has id %q (ids so far %v)", i, c.ID, seen)
		}
		seen[c.ID] = true
	}
	if nb.Cells[1].ID != "cell-1" {
		t.Fatalf("existing id changed to %q", nb.Cells[1].ID)
	}
	old, _ := Parse([]byte(`{"nbformat": 4, "nbformat_minor": 4, "metadata": {}, "cells": [{"cell_type": "markdown", "metadata": {}, "source": "a"}]}`))
	b, _ := old.Marshal()
	if bytes.Contains(b, []byte(`"id"`)) {
		t.Fatalf("a 4.4 notebook got cell ids:\n%s", b)
	}
}

package notebooks

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// nbFile is the part of a notebook the freshness test compares.
type nbFile struct {
	Cells []struct {
		CellType string `json:"cell_type"`
		ID       string `json:"id"`
		Metadata struct {
			Pathnotes struct {
				Subject *string `json:"subject"`
			} `json:"pathnotes"`
		} `json:"metadata"`
		Source         json.RawMessage `json:"source"`
		ExecutionCount *int            `json:"execution_count"`
		Outputs        []any           `json:"outputs"`
	} `json:"cells"`
}

// source returns a cell's source, stored as one string or as a list of lines.
func source(t *testing.T, raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var lines []string
	if err := json.Unmarshal(raw, &lines); err != nil {
		t.Fatalf("cell source %.40s: %v", raw, err)
	}
	return strings.Join(lines, "")
}

func readNotebook(t *testing.T, path string) nbFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var nb nbFile
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return nb
}

// generators returns the programs generate.go runs, in its order.
func generators(t *testing.T) []string {
	b, err := os.ReadFile("generate.go")
	if err != nil {
		t.Fatal(err)
	}
	var progs []string
	for _, m := range regexp.MustCompile(`(?m)^//go:generate python3 -B (src/\S+\.py)$`).FindAllSubmatch(b, -1) {
		progs = append(progs, string(m[1]))
	}
	return progs
}

// python3 returns the interpreter the generators need; without one the test
// skips, except under CI=true, where it fails.
func python3(t *testing.T) string {
	p, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("python3 is needed to regenerate the notebooks: %v", err)
		}
		t.Skipf("no python3: %v", err)
	}
	return p
}

// TestGeneratorsListed checks that generate.go runs every program in src/
// (the shared modules aside) and that every committed notebook has one.
func TestGeneratorsListed(t *testing.T) {
	progs := generators(t)
	files, _ := filepath.Glob("src/*.py")
	for _, f := range files {
		if f == filepath.Join("src", "common.py") || strings.HasSuffix(f, "-common.py") {
			continue
		}
		if !slices.Contains(progs, filepath.ToSlash(f)) {
			t.Errorf("generate.go does not run %s", f)
		}
	}
	nbs, _ := filepath.Glob("*.ipynb")
	if len(nbs) != len(progs) {
		t.Errorf("%d notebooks (%v) but %d generators (%v)", len(nbs), nbs, len(progs), progs)
	}
	for _, nb := range nbs {
		if !slices.Contains(progs, "src/"+strings.TrimSuffix(nb, ".ipynb")+".py") {
			t.Errorf("no generator src/%s.py for %s", strings.TrimSuffix(nb, ".ipynb"), nb)
		}
	}
}

// TestNotebooksFresh regenerates every notebook into a folder that holds a
// copy of the committed one, as go generate does in place, and checks that
// the cells (type, id, source) are the committed ones and that every code
// cell kept its outputs.
func TestNotebooksFresh(t *testing.T) {
	py := python3(t)
	dir := t.TempDir()
	for _, prog := range generators(t) {
		name := strings.TrimSuffix(filepath.Base(prog), ".py") + ".ipynb"
		committed, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), committed, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(py, "-B", prog, dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", prog, err, out)
		}
		want, got := readNotebook(t, name), readNotebook(t, filepath.Join(dir, name))
		if len(got.Cells) != len(want.Cells) {
			t.Errorf("%s: %s writes %d cells, the committed notebook has %d: run go generate ./notebooks", name, prog, len(got.Cells), len(want.Cells))
			continue
		}
		for i, w := range want.Cells {
			g := got.Cells[i]
			ws, gs := source(t, w.Source), source(t, g.Source)
			switch {
			case g.CellType != w.CellType || g.ID != w.ID:
				t.Errorf("%s cell %d: %s writes a %s cell %q, the committed one is a %s cell %q", name, i+1, prog, g.CellType, g.ID, w.CellType, w.ID)
			case gs != ws:
				t.Errorf("%s cell %d (%s): the source differs from what %s writes (run go generate ./notebooks):\n%s", name, i+1, w.ID, prog, firstDiff(ws, gs))
			case !reflect.DeepEqual(g.Outputs, w.Outputs) || !reflect.DeepEqual(g.ExecutionCount, w.ExecutionCount):
				t.Errorf("%s cell %d (%s): regenerating lost the cell's outputs", name, i+1, w.ID)
			}
		}
	}
}

// firstDiff shows the first line where two sources differ.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(wl), len(gl)) {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n  committed: " + w + "\n  generated: " + g
		}
	}
	return "(trailing newline)"
}

// TestRegenerateDropsStaleOutputs edits one code cell of a copy of the tour
// and regenerates it: the edited cell gets the program's source back with
// no outputs, and every other code cell keeps its outputs.
func TestRegenerateDropsStaleOutputs(t *testing.T) {
	py := python3(t)
	dir := t.TempDir()
	b, err := os.ReadFile("00-tour.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	var nb map[string]any
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatal(err)
	}
	cells := nb["cells"].([]any)
	edited := -1
	for i, c := range cells {
		cell := c.(map[string]any)
		if cell["cell_type"] == "code" && len(cell["outputs"].([]any)) > 0 {
			cell["source"] = []any{"fmt.Println(\"an older version of this cell\")\n"}
			edited = i
			break
		}
	}
	if edited < 0 {
		t.Fatal("00-tour.ipynb has no code cell with outputs")
	}
	b, err = json.Marshal(nb)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "00-tour.ipynb"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(py, "-B", "src/00-tour.py", dir).CombinedOutput(); err != nil {
		t.Fatalf("src/00-tour.py: %v\n%s", err, out)
	}
	want, got := readNotebook(t, "00-tour.ipynb"), readNotebook(t, filepath.Join(dir, "00-tour.ipynb"))
	if len(got.Cells) != len(want.Cells) {
		t.Fatalf("%d cells, want %d", len(got.Cells), len(want.Cells))
	}
	for i, g := range got.Cells {
		w := want.Cells[i]
		if source(t, g.Source) != source(t, w.Source) {
			t.Errorf("cell %d: the source is not the program's", i+1)
		}
		switch {
		case i == edited && (len(g.Outputs) != 0 || g.ExecutionCount != nil):
			t.Errorf("cell %d: the edited cell kept %d stale outputs", i+1, len(g.Outputs))
		case i != edited && !reflect.DeepEqual(g.Outputs, w.Outputs):
			t.Errorf("cell %d: unchanged cell lost its outputs", i+1)
		}
	}
}

// TestReferences checks that every notebook ends with a References cell
// that resolves, from docs/sources.md, every document key its other cells
// cite, and no key they do not.
func TestReferences(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "sources.md"))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, m := range regexp.MustCompile(`(?m)^## (\[[^\]]+\])$`).FindAllSubmatch(b, -1) {
		keys = append(keys, string(m[1]))
	}
	if len(keys) != 5 {
		t.Fatalf("docs/sources.md has keys %q, want the five documents'", keys)
	}
	paths, err := filepath.Glob("*.ipynb")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no notebooks (%v)", err)
	}
	for _, path := range paths {
		nb := readNotebook(t, path)
		last := nb.Cells[len(nb.Cells)-1]
		refs := source(t, last.Source)
		if last.CellType != "markdown" || !strings.HasPrefix(refs, "## References\n") {
			t.Errorf("%s: the last cell is not a References cell", path)
			continue
		}
		var text strings.Builder
		for _, c := range nb.Cells[:len(nb.Cells)-1] {
			text.WriteString(source(t, c.Source))
		}
		for _, k := range keys {
			cited, listed := strings.Contains(text.String(), k), strings.Contains(refs, "**"+k+"**")
			switch {
			case cited && !listed:
				t.Errorf("%s cites %s, which its References cell does not resolve", path, k)
			case listed && !cited:
				t.Errorf("%s lists %s in its References, but cites it nowhere", path, k)
			}
		}
	}
}

// maxCellLines is the longest a code cell may be unless it is marked as the
// subject of its section; src/common.py's MAX_LINES is the same number.
const maxCellLines = 40

// TestCellLength checks that every code cell of a notebook shows the
// algorithm or the experiment and not helper code: a cell of more than
// maxCellLines lines must be marked as the subject of its section (the
// generator's code(..., subject="why") writes the reason into the cell's
// metadata, pathnotes.subject), and only such a cell may be marked.
func TestCellLength(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("src", "common.py"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^MAX_LINES = ` + strconv.Itoa(maxCellLines) + `$`).Match(b) {
		t.Errorf("src/common.py's MAX_LINES is not %d", maxCellLines)
	}
	paths, err := filepath.Glob("*.ipynb")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no notebooks (%v)", err)
	}
	for _, path := range paths {
		for i, c := range readNotebook(t, path).Cells {
			if c.CellType != "code" {
				continue
			}
			lines := strings.Count(strings.TrimRight(source(t, c.Source), "\n"), "\n") + 1
			subject := c.Metadata.Pathnotes.Subject
			switch {
			case subject != nil && strings.TrimSpace(*subject) == "":
				t.Errorf("%s cell %d (%s): marked as its section's subject without saying why", path, i+1, c.ID)
			case subject != nil && lines <= maxCellLines:
				t.Errorf("%s cell %d (%s): %d lines, marked as its section's subject, which only a cell over %d lines needs: drop the mark", path, i+1, c.ID, lines, maxCellLines)
			case subject == nil && lines > maxCellLines:
				t.Errorf("%s cell %d (%s): %d lines, over %d: move its helper code into a package (lab, display), or mark the cell as the subject of its section in its generator", path, i+1, c.ID, lines, maxCellLines)
			}
		}
	}
}

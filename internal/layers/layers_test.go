package layers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// module is the import path every package of this project starts with.
const module = "github.com/pathnotes/pathnotes"

// designDoc is the document whose layers table is the rule, relative to this package.
const designDoc = "../../docs/design.md"

// Names the table uses for what is not a package path.
const (
	everyPackage = "every package"    // the row of the leaves every package may import
	rootPackage  = "the root package" // "" in the rules
	nothing      = "nothing"
)

// rules is the layers table: for each package (relative to the module; "" is the root), the
// project packages its non-test files may import, and what its tests may import besides.
type rules struct {
	imports   map[string][]string
	tests     map[string][]string
	anywhere  []string // leaves every package may import
	testsAny  []string // test helpers every package's tests may import
	rowOf     map[string]int
	rowsCount int
}

// quoted matches a backquoted package path in a table cell.
var quoted = regexp.MustCompile("`([^`]+)`")

// parseCell reads a cell's package paths: backquoted paths separated by commas, "nothing", the
// root package's name, or nothing at all where empty is true.
func parseCell(cell string, empty bool) ([]string, error) {
	cell = strings.TrimSpace(cell)
	switch {
	case cell == "" && empty, cell == nothing:
		return nil, nil
	case cell == rootPackage:
		return []string{""}, nil
	}
	var paths []string
	for _, part := range strings.Split(cell, ",") {
		part = strings.TrimSpace(part)
		m := quoted.FindStringSubmatch(part)
		if m == nil || m[0] != part {
			return nil, fmt.Errorf("%q is not a backquoted package path", part)
		}
		paths = append(paths, m[1])
	}
	return paths, nil
}

// parseTable reads the layers table: the first table after the "## Layers" heading, whose
// header is "| package | may import (of pathnotes) | its tests may also import |".
func parseTable(doc string) (*rules, error) {
	_, section, ok := strings.Cut(doc, "\n## Layers\n")
	if !ok {
		return nil, errors.New(`no "## Layers" section`)
	}
	r := &rules{imports: map[string][]string{}, tests: map[string][]string{}, rowOf: map[string]int{}}
	lines := strings.Split(section, "\n")
	i := 0
	for i < len(lines) && !strings.HasPrefix(lines[i], "|") {
		i++
	}
	if i+1 >= len(lines) || lines[i] != "| package | may import (of pathnotes) | its tests may also import |" ||
		!strings.HasPrefix(lines[i+1], "|---") {
		return nil, errors.New("the Layers section does not start with the table's header")
	}
	for row, line := range lines[i+2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cols := strings.Split(strings.Trim(line, "|"), "|")
		if len(cols) != 3 {
			return nil, fmt.Errorf("row %q: want 3 columns, found %d", line, len(cols))
		}
		imports, err := parseCell(cols[1], false)
		if err != nil {
			return nil, fmt.Errorf("row %q, imports: %w", line, err)
		}
		tests, err := parseCell(cols[2], true)
		if err != nil {
			return nil, fmt.Errorf("row %q, tests: %w", line, err)
		}
		if strings.TrimSpace(cols[0]) == everyPackage {
			r.anywhere, r.testsAny = imports, tests
			continue
		}
		pkgs, err := parseCell(cols[0], false)
		if err != nil || len(pkgs) == 0 {
			return nil, fmt.Errorf("row %q, packages: %v", line, err)
		}
		for _, p := range pkgs {
			if _, dup := r.imports[p]; dup {
				return nil, fmt.Errorf("%s has two rows", name(p))
			}
			r.imports[p], r.tests[p], r.rowOf[p] = imports, tests, row
		}
		r.rowsCount++
	}
	if r.rowsCount == 0 || r.anywhere == nil {
		return nil, fmt.Errorf("the table has %d rows and no %q row with imports", r.rowsCount, everyPackage)
	}
	return r, nil
}

// readRules reads the table of docs/design.md.
func readRules(t *testing.T) *rules {
	t.Helper()
	b, err := os.ReadFile(designDoc)
	if err != nil {
		t.Fatal(err)
	}
	r, err := parseTable(string(b))
	if err != nil {
		t.Fatalf("docs/design.md's layers table: %v", err)
	}
	return r
}

// pkg is the part of `go list -json` this test reads.
type pkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// listPackages runs `go list` over the whole module with the given build tags.
func listPackages(tags string) ([]pkg, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("the go command is needed to list the imports: %w", err)
	}
	cmd := exec.Command(goTool, "list", "-tags", tags,
		"-json=ImportPath,Imports,TestImports,XTestImports", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -tags %q: %w\n%s", tags, err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading go list's output: %w", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// rel returns path relative to the module, and whether it is a package of the module.
func rel(path string) (string, bool) {
	if path == module {
		return "", true
	}
	r, ok := strings.CutPrefix(path, module+"/")
	return r, ok
}

// name prints a package relative to the module, the root as "the root package".
func name(r string) string {
	if r == "" {
		return rootPackage
	}
	return r
}

// violations lists, one line each, every import among pkgs that the rules do not allow, every
// package they do not place, every package they place that pkgs lack, and every allowance that
// no package of its row uses.
func violations(pkgs []pkg, r *rules) []string {
	var bad []string
	seen := map[string]bool{}
	used := map[string]bool{} // "row\x00to" and "row\x00test\x00to" for the allowances used
	for _, p := range pkgs {
		from, ok := rel(p.ImportPath)
		if !ok {
			continue
		}
		seen[from] = true
		may, known := r.imports[from]
		if !known {
			bad = append(bad, fmt.Sprintf("%s is not in the layers table: place it in docs/design.md", name(from)))
			continue
		}
		row := r.rowOf[from]
		may = append(slices.Clip(may), r.anywhere...)
		withTests := slices.Concat(may, r.tests[from], r.testsAny)
		check := func(imports []string, may []string, what string) {
			for _, imp := range imports {
				to, ok := rel(imp)
				if !ok || to == from {
					continue
				}
				if !slices.Contains(may, to) {
					bad = append(bad, fmt.Sprintf("%s %s %s, which its layer may not use", name(from), what, name(to)))
				}
				if what == "imports" {
					used[fmt.Sprint(row, "\x00", to)] = true
				} else {
					used[fmt.Sprint(row, "\x00test\x00", to)] = true
				}
			}
		}
		check(p.Imports, may, "imports")
		check(p.TestImports, withTests, "tests import")
		check(p.XTestImports, withTests, "tests import")
	}
	unused := map[string]bool{}
	for from, may := range r.imports {
		if !seen[from] {
			bad = append(bad, fmt.Sprintf("the layers table places %s, which does not exist", name(from)))
		}
		row := r.rowOf[from]
		for _, to := range may {
			if !used[fmt.Sprint(row, "\x00", to)] {
				unused[fmt.Sprintf("the layers table lets %s import %s, which no package of its row does", name(from), name(to))] = true
			}
		}
		for _, to := range r.tests[from] {
			if !used[fmt.Sprint(row, "\x00test\x00", to)] {
				unused[fmt.Sprintf("the layers table lets %s's tests import %s, which none of its row's tests does", name(from), name(to))] = true
			}
		}
	}
	for u := range unused {
		bad = append(bad, u)
	}
	sort.Strings(bad)
	return bad
}

// TestNoUpwardImports checks every package of the module against docs/design.md's layers
// table, with and without the cuda tag. An allowance counts as used when the code uses it under
// either tag.
func TestNoUpwardImports(t *testing.T) {
	r := readRules(t)
	var all []pkg
	for _, tags := range []string{"", "cuda"} {
		pkgs, err := listPackages(tags)
		if err != nil {
			t.Fatal(err)
		}
		if len(pkgs) < len(r.imports)/2 {
			t.Fatalf("go list -tags %q found only %d packages", tags, len(pkgs))
		}
		all = append(all, pkgs...)
	}
	for _, v := range violations(all, r) {
		t.Error(v)
	}
}

// testTable is a layers table in the form of docs/design.md's.
const testTable = `# Design

## Layers

| package | may import (of pathnotes) | its tests may also import |
|---|---|---|
| every package | ` + "`internal/atomicfile`" + ` | ` + "`internal/testenv`" + ` |
| ` + "`internal/atomicfile`, `internal/testenv`" + ` | nothing | |
| ` + "`graph`" + ` | nothing | |
| ` + "`cpu`" + ` | ` + "`graph`" + ` | |
| ` + "`gpu`" + ` | ` + "`graph`, `ptx`" + ` | ` + "`cpu`" + ` |
| the root package | ` + "`cpu`" + ` | |

Prose after the table.
`

// TestParseTable checks that the reader finds every row of a table and refuses malformed ones.
func TestParseTable(t *testing.T) {
	r, err := parseTable(testTable)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.anywhere, []string{"internal/atomicfile"}) || !slices.Equal(r.testsAny, []string{"internal/testenv"}) {
		t.Errorf("every package: %v, tests %v", r.anywhere, r.testsAny)
	}
	if !slices.Equal(r.imports["gpu"], []string{"graph", "ptx"}) || !slices.Equal(r.tests["gpu"], []string{"cpu"}) ||
		!slices.Equal(r.imports[""], []string{"cpu"}) || r.imports["graph"] != nil || r.rowsCount != 5 {
		t.Errorf("rules %+v", r)
	}
	for _, bad := range []string{
		strings.Replace(testTable, "## Layers", "## Strata", 1),
		strings.Replace(testTable, "| nothing | |", "| nothing |", 1),
		strings.Replace(testTable, "| `graph` | nothing |", "| graph | nothing |", 1),
		strings.Replace(testTable, "| `cpu` | `graph` |", "| `cpu` | graph and more |", 1),
		strings.Replace(testTable, "| `cpu` | `graph` |", "| `cpu` | |", 1),
		strings.Replace(testTable, "| `cpu` | `graph` |", "| `graph` | `graph` |", 1),
	} {
		if r, err := parseTable(bad); err == nil {
			t.Errorf("parseTable accepted\n%s\nas %+v", bad, r)
		}
	}
}

// TestViolationsFound checks that the checker reports an upward import, an unplaced package, a
// test import beyond its row, a placed package that is gone and an unused allowance, so that
// TestNoUpwardImports could fail.
func TestViolationsFound(t *testing.T) {
	r, err := parseTable(testTable)
	if err != nil {
		t.Fatal(err)
	}
	pkgs := []pkg{
		{ImportPath: module + "/graph", Imports: []string{"fmt", module + "/cpu", module + "/internal/atomicfile"}},
		{ImportPath: module + "/cpu", Imports: []string{module + "/graph"},
			XTestImports: []string{module + "/cpu", module + "/gpu", module + "/internal/testenv"}},
		{ImportPath: module + "/gpu", Imports: []string{module + "/graph", module + "/ptx"},
			TestImports: []string{module + "/cpu"}},
		{ImportPath: module + "/internal/atomicfile"},
		{ImportPath: module + "/internal/testenv"},
		{ImportPath: module + "/newpkg"},
		{ImportPath: module, Imports: []string{module + "/cpu"}},
		{ImportPath: "example.com/other", Imports: []string{module + "/kernel"}},
	}
	got := violations(pkgs, r)
	want := []string{
		"cpu tests import gpu, which its layer may not use",
		"graph imports cpu, which its layer may not use",
		"newpkg is not in the layers table: place it in docs/design.md",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Without gpu's package and its test's use of cpu, the table places a package that is gone;
	// without the root's import, the root's allowance is unused.
	got = violations(slices.Concat(pkgs[:2], pkgs[3:6]), r)
	want = []string{
		"cpu tests import gpu, which its layer may not use",
		"graph imports cpu, which its layer may not use",
		"newpkg is not in the layers table: place it in docs/design.md",
		"the layers table lets gpu import graph, which no package of its row does",
		"the layers table lets gpu import ptx, which no package of its row does",
		"the layers table lets gpu's tests import cpu, which none of its row's tests does",
		"the layers table lets the root package import cpu, which no package of its row does",
		"the layers table places gpu, which does not exist",
		"the layers table places the root package, which does not exist",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("violations without gpu and the root:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

package layers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
)

// module is the import path every package of this project starts with.
const module = "github.com/pathnotes/pathnotes"

// allowed maps each package (relative to the module; "" is the root) to the project packages its
// non-test files may import. A package missing from the table fails the test: place it here and
// in docs/design.md's layers table.
var allowed = map[string][]string{
	"internal/atomicfile": nil,
	"internal/memlimit":   nil,
	"internal/pipes":      nil,
	"internal/toolchain":  nil,
	"internal/layers":     nil,
	"internal/fsizetest":  nil,
	"internal/rlimittest": nil,
	"internal/testenv":    nil,
	"internal/plotcheck":  nil,
	"ptx":                 nil,
	"gpu/ptxemu":          nil,
	"gpu/internal/rtc":    nil,
	"graph":               nil,
	"cpu":                 {"graph"},
	"gpu":                 {"graph", "ptx", "gpu/ptxemu", "gpu/internal/rtc"},
	"display":             {"graph", "cpu", "gpu"},
	"internal/bench":      {"graph", "cpu", "gpu"},
	"lab":                 {"graph", "cpu", "gpu", "display", "internal/bench"},
	"internal/scaleout":   {"graph"},
	"dist/comm":           {"gpu"},
	"dist":                {"graph", "gpu", "ptx", "dist/comm"},
	"bindings":            {"graph", "cpu", "gpu", "display", "lab"},

	"bindings/internal/genbindings": nil,

	"kernel/session":  nil,
	"kernel":          {"kernel/session"},
	"kernel/notebook": {"kernel/session"},
	"install":         nil,
	"notebooks":       nil,

	"internal/magics": {"graph", "cpu", "gpu", "display", "bindings", "kernel/session"},
	"internal/cli": {"graph", "cpu", "gpu", "display", "lab", "bindings", "dist", "dist/comm",
		"internal/bench", "internal/magics", "install", "kernel", "kernel/session", "kernel/notebook"},
	"": {"graph", "cpu", "gpu", "display", "lab", "bindings",
		"internal/bench", "internal/cli", "internal/magics", "install", "kernel", "kernel/session",
		"kernel/notebook"},
}

// anywhere are the leaves every package may import: they know nothing of the others.
var anywhere = []string{"internal/atomicfile", "internal/memlimit", "internal/pipes", "internal/toolchain"}

// testAnywhere are the test helpers every package's tests may import.
var testAnywhere = []string{"internal/fsizetest", "internal/rlimittest", "internal/testenv", "internal/plotcheck"}

// testAllowed adds what a package's tests may import beyond allowed: references to check
// against and test fixtures. A package's external test may always import the package itself.
var testAllowed = map[string][]string{
	"gpu":        {"cpu"},
	"gpu/ptxemu": {"ptx"},
	// The session's tests run cells against the real symbol tables.
	"kernel/session": {"bindings", "graph", "cpu", "gpu", "display", "lab"},
	"lab":            {"gpu/ptxemu"},
	// The distributed Floyd-Warshall is checked against the CPU's, and its traffic against the
	// scale-out model's.
	"dist": {"cpu", "internal/scaleout"},
	"":     {"bindings/internal/genbindings", "ptx", "notebooks"},
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
		return "the root package"
	}
	return r
}

// violations lists every import among pkgs that the tables do not allow, one line each.
func violations(pkgs []pkg, allowed, testAllowed map[string][]string) []string {
	var bad []string
	for _, p := range pkgs {
		from, ok := rel(p.ImportPath)
		if !ok {
			continue
		}
		may, known := allowed[from]
		may = append(slices.Clip(may), anywhere...)
		if !known {
			bad = append(bad, fmt.Sprintf("%s is not in the layers table: place it there and in docs/design.md", name(from)))
			continue
		}
		check := func(imports []string, may []string, what string) {
			for _, imp := range imports {
				to, ok := rel(imp)
				if !ok || to == from {
					continue
				}
				if !slices.Contains(may, to) {
					bad = append(bad, fmt.Sprintf("%s %s %s, which its layer may not use", name(from), what, name(to)))
				}
			}
		}
		check(p.Imports, may, "imports")
		withTests := slices.Concat(may, testAllowed[from], testAnywhere)
		check(p.TestImports, withTests, "tests import")
		check(p.XTestImports, withTests, "tests import")
	}
	sort.Strings(bad)
	return bad
}

// TestNoUpwardImports checks every package of the module, with and without the cuda tag.
func TestNoUpwardImports(t *testing.T) {
	for _, tags := range []string{"", "cuda"} {
		pkgs, err := listPackages(tags)
		if err != nil {
			t.Fatal(err)
		}
		if len(pkgs) < len(allowed)/2 {
			t.Fatalf("go list -tags %q found only %d packages", tags, len(pkgs))
		}
		for _, v := range violations(pkgs, allowed, testAllowed) {
			t.Errorf("tags %q: %s", tags, v)
		}
	}
}

// TestViolationsFound checks that the checker reports an upward import, an unplaced package and
// a test import beyond its table, so that TestNoUpwardImports could fail.
func TestViolationsFound(t *testing.T) {
	pkgs := []pkg{
		{ImportPath: module + "/graph", Imports: []string{"fmt", module + "/cpu"}},
		{ImportPath: module + "/cpu", Imports: []string{module + "/graph"},
			XTestImports: []string{module + "/cpu", module + "/gpu"}},
		{ImportPath: module + "/newpkg"},
		{ImportPath: "example.com/other", Imports: []string{module + "/kernel"}},
	}
	got := violations(pkgs, allowed, testAllowed)
	want := []string{
		"cpu tests import gpu, which its layer may not use",
		"graph imports cpu, which its layer may not use",
		"newpkg is not in the layers table: place it there and in docs/design.md",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

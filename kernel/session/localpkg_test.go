package session

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"

	"github.com/pathnotes/pathnotes/bindings"
)

// writeFiles writes files (path relative to dir → content), making their
// directories.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// course is a notebook directory with a go.mod and two local packages:
// kit (types, methods, init, an import of graph) imports shapes.
var course = map[string]string{
	"go.mod": "module example.com/course\n\ngo 1.22\n",
	"kit/counter.go": `package kit

import (
	"fmt"

	"example.com/course/shapes"
	"github.com/pathnotes/pathnotes/graph"
)

// Inits counts the runs of init.
var Inits int

func init() {
	Inits++
	fmt.Println("kit init")
}

// Counter counts.
type Counter struct{ N int }

// Add adds k and returns the count.
func (c *Counter) Add(k int) int {
	c.N += k
	return c.N
}

// Version tells which version of the file runs.
func Version() string { return "v1" }

// Area is the area of a square of side s.
func Area(s float64) float64 { return shapes.Square{Side: s}.Area() }

// Arcs builds a graph and returns its number of arcs.
func Arcs() int {
	g, err := graph.FromTriples(3, [][3]int{{0, 1, 5}, {1, 2, 7}})
	if err != nil {
		panic(err)
	}
	return g.M()
}
`,
	"kit/more.go": "\ufeff" + `package kit

// Twice doubles x.
func Twice(x int) int { return 2 * x }
`,
	"kit/skip_test.go": "package kit\n\nthis is not Go\n",
	"shapes/shapes.go": `package shapes

// Square is a square.
type Square struct{ Side float64 }

// Area is its area.
func (s Square) Area() float64 { return s.Side * s.Side }
`,
}

// localSession starts a session with the bindings in a fresh notebook
// directory holding files.
func localSession(t *testing.T, files map[string]string) (*Session, string) {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, files)
	t.Chdir(dir)
	s, err := New(Options{Symbols: []interp.Exports{bindings.Symbols}, Prelude: []string{"fmt"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir
}

func TestLocalPackageUse(t *testing.T) {
	s, _ := localSession(t, course)
	r := newRecorder()
	if _, err := s.Execute(t.Context(), `import "./kit"`, r); err != nil {
		t.Fatal(err)
	}
	if got := r.stdout(); got != "kit init\n" {
		t.Errorf("import printed %q, want the init's line", got)
	}
	checks := []struct{ code, want string }{
		{"c := &kit.Counter{}\nc.Add(2)\nc.Add(3)", "5"},
		{"kit.Twice(21)", "42"},
		{"kit.Area(3)", "9"},
		{"kit.Arcs()", "2"},
		{"var h kit.Counter\nh.Add(7)", "7"},
	}
	for _, c := range checks {
		if got := run(t, s, c.code); got != c.want {
			t.Errorf("%q = %q, want %q", c.code, got, c.want)
		}
	}
	// The same package by its module path, and again: init has run once.
	run(t, s, `import "example.com/course/kit"`)
	run(t, s, `import "./kit"`)
	if got := run(t, s, "kit.Inits"); got != "1" {
		t.Errorf("init ran %s times, want 1", got)
	}
	// A second name for the same package shares its state.
	run(t, s, `import h2 "example.com/course/kit"`)
	if got := run(t, s, "h2.Inits"); got != "1" {
		t.Errorf("h2.Inits = %s, want 1", got)
	}
	if got := run(t, s, `import sh "./shapes"`+"\nsh.Square{Side: 2}.Area()"); got != "4" {
		t.Errorf("shapes from a cell: %q", got)
	}
}

func TestLocalPackageReload(t *testing.T) {
	s, dir := localSession(t, course)
	run(t, s, `import "./kit"`)
	run(t, s, "c := &kit.Counter{}\nc.Add(1)\nold := kit.Version")
	if got := run(t, s, "%reload"); got != "kit: unchanged" {
		t.Errorf("%%reload of an unchanged package: %q", got)
	}
	edited := strings.Replace(course["kit/counter.go"], `return "v1"`, `return "v2"`, 1)
	edited = strings.Replace(edited, "c.N += k", "c.N += 10 * k", 1)
	writeFiles(t, dir, map[string]string{"kit/counter.go": edited})

	r := newRecorder()
	b, err := s.Execute(t.Context(), "%reload", r)
	if err != nil {
		t.Fatal(err)
	}
	if got := text(b); got != "kit: reloaded from kit" {
		t.Errorf("%%reload said %q", got)
	}
	if got := r.stdout(); got != "kit init\n" {
		t.Errorf("the new version's init printed %q", got)
	}
	if got := run(t, s, "kit.Version()"); got != `"v2"` {
		t.Errorf("after %%reload Version() = %s, want v2", got)
	}
	if got := run(t, s, "(&kit.Counter{}).Add(1)"); got != "10" {
		t.Errorf("a new Counter adds %s, want 10", got)
	}
	// Values and functions made from the old version keep its code.
	if got := run(t, s, "c.Add(1)"); got != "2" {
		t.Errorf("the old Counter adds to %s, want 2", got)
	}
	if got := run(t, s, "old()"); got != `"v1"` {
		t.Errorf("the old Version = %s, want v1", got)
	}

	// A change of a package that kit imports reloads kit too, on
	// import: the new shapes reaches kit.Area.
	writeFiles(t, dir, map[string]string{"shapes/shapes.go": strings.Replace(course["shapes/shapes.go"], "s.Side * s.Side", "4 * s.Side", 1)})
	run(t, s, `import "./kit"`)
	if got := run(t, s, "kit.Area(3)"); got != "12" {
		t.Errorf("after the edit of shapes kit.Area(3) = %s, want 12", got)
	}
}

func TestLocalPackageErrors(t *testing.T) {
	s, dir := localSession(t, course)
	writeFiles(t, dir, map[string]string{
		"broken/a.go":    "package broken\n\nfunc Ok() int { return 1 }\n",
		"broken/b.go":    "package broken\n\n// F fails.\nfunc F() int {\n\treturn undefinedName + 1\n}\n",
		"syntax/a.go":    "package syntax\n\nfunc F( {\n",
		"missing/a.go":   "package missing\n\nimport \"example.com/elsewhere/pkg\"\n\nvar X = pkg.Y\n",
		"cycle/a/a.go":   "package a\n\nimport _ \"../b\"\n",
		"cycle/b/b.go":   "package b\n\nimport _ \"../a\"\n",
		"prog/main.go":   "package main\n\nfunc main() {}\n",
		"panicky/p.go":   "package panicky\n\n// F panics.\nfunc F() {\n\tvar a []int\n\t_ = a[3]\n}\n",
		"otherdir/x.txt": "not go\n",
		"initpanic/p.go": "package initpanic\n\nvar Ready bool\n\nfunc init() {\n\tpanic(\"no data\")\n}\n",
	})
	cases := []struct {
		code string
		want []string
	}{
		{"x := 1\nimport \"./broken\"", []string{"broken/b.go:5:9: undefined: undefinedName", `import of the local package "./broken" at Cell In[1], line 2, column 8`}},
		{`import "./syntax"`, []string{"syntax/a.go:3:9:"}},
		{`import "./nothere"`, []string{"no directory " + filepath.Join(dir, "nothere"), "relative to " + dir}},
		{`import "example.com/course/nothere"`, []string{"no directory " + filepath.Join(dir, "nothere"), "module example.com/course"}},
		{`import "./otherdir"`, []string{"no Go files in " + filepath.Join(dir, "otherdir")}},
		{`import "./missing"`, []string{`missing/a.go:3:8: import "example.com/elsewhere/pkg": no such package`, "module example.com/course"}},
		{`import "./cycle/a"`, []string{"import cycle: cycle/a imports cycle/b imports cycle/a"}},
		{`import "./prog"`, []string{"package main is a program"}},
		{`import . "./kit"`, []string{"cannot be imported with a dot"}},
		{`import "./initpanic"`, []string{"panic while initializing the package: no data"}},
	}
	for _, c := range cases {
		e := cellError(t, s, c.code)
		for _, w := range c.want {
			if !strings.Contains(e.Value, w) {
				t.Errorf("%q: error %q does not contain %q", c.code, e.Value, w)
			}
		}
	}

	// A compile error in a package that another imports names both.
	writeFiles(t, dir, map[string]string{"shapes/shapes.go": "package shapes\n\ntype Square struct{ Side float64 }\n\nfunc (s Square) Area() float64 { return s.Side * side }\n"})
	e := cellError(t, s, `import "./kit"`)
	if want := `^kit/counter.go:6:2: import of shapes: shapes/shapes.go:5:50: undefined: side \(import of the local package "./kit" at Cell In\[\d+\], line 1, column 8\)$`; !regexp.MustCompile(want).MatchString(e.Value) {
		t.Errorf("error in a package kit imports:\n got %s\nwant %s", e.Value, want)
	}

	// The session goes on; a fixed package imports.
	writeFiles(t, dir, map[string]string{"broken/b.go": "package broken\n\n// F works.\nfunc F() int { return 2 }\n"})
	if got := run(t, s, "import \"./broken\"\nbroken.F() + broken.Ok()"); got != "3" {
		t.Errorf("the fixed package gives %q", got)
	}

	// A panic of init shows its frame (of version 2: the import above
	// failed too); the package imports once fixed.
	if e := cellError(t, s, `import "./initpanic"`); e.Name != "panic" || !strings.Contains(strings.Join(e.Traceback, "\n"), "in initpanic.init (initpanic/p.go:6:2)") {
		t.Errorf("panic of init: %s %q", e.Name, e.Traceback)
	}
	writeFiles(t, dir, map[string]string{"initpanic/p.go": "package initpanic\n\nvar Ready bool\n\nfunc init() {\n\tReady = true\n}\n"})
	if got := run(t, s, "import \"./initpanic\"\ninitpanic.Ready"); got != "true" {
		t.Errorf("the fixed init: Ready = %q", got)
	}

	// A runtime error in a local package names its file and line, and the
	// function as the cell calls it, in every version of the package.
	for version := 1; version <= 2; version++ {
		writeFiles(t, dir, map[string]string{"panicky/p.go": fmt.Sprintf("package panicky\n\n// F panics.\nfunc F() {\n\tvar a []int\n\t_ = a[%d]\n}\n", version+2)})
		run(t, s, `import "./panicky"`)
		e = cellError(t, s, "panicky.F()")
		if tb := strings.Join(e.Traceback, "\n"); !strings.Contains(tb, "panicky/p.go:") || !strings.Contains(tb, "in panicky.F (") || strings.Contains(tb, "local/") {
			t.Errorf("version %d: traceback does not name panicky/p.go and panicky.F alone\n%s", version, tb)
		}
	}

	// A bound package's name stays taken.
	writeFiles(t, dir, map[string]string{"strs/s.go": "package strings\n\nfunc X() int { return 1 }\n"})
	run(t, s, `import "strings"`)
	if e := cellError(t, s, `import "./strs"`); !strings.Contains(e.Value, "the name strings is taken") {
		t.Errorf("a local package named like an import: %q", e.Value)
	}
}

func TestRunFile(t *testing.T) {
	s, _ := localSession(t, map[string]string{
		"mine.go": "package main\n\nimport \"strings\"\n\n// Shout shouts.\nfunc Shout(s string) string { return strings.ToUpper(s) + \"!\" }\n\ntype Pair struct{ A, B int }\n\nfunc (p Pair) Sum() int { return p.A + p.B }\n",
		"prog.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"ran main\") }\n",
		"bad.go":  "package main\n\nfunc Oops() int {\n\treturn missing\n}\n",
	})
	run(t, s, "%run mine.go")
	if got := run(t, s, `Shout("hi") + fmt.Sprint(Pair{2, 3}.Sum())`); got != `"HI!5"` {
		t.Errorf("after %%run: %s", got)
	}
	r := newRecorder()
	if _, err := s.Execute(t.Context(), "%run prog.go", r); err != nil || r.stdout() != "ran main\n" {
		t.Errorf("%%run of a program: %v, printed %q", err, r.stdout())
	}
	if e := cellError(t, s, "%run bad.go"); !strings.HasPrefix(e.Value, "bad.go:4:9: undefined: missing") {
		t.Errorf("%%run of a broken file: %q", e.Value)
	}
	if e := cellError(t, s, "%run nothere.go"); !strings.Contains(e.Value, "open nothere.go: no such file") {
		t.Errorf("%%run of a missing file: %q", e.Value)
	}
}

func TestLocalPackageInspectComplete(t *testing.T) {
	s, _ := localSession(t, course)
	run(t, s, `import "./kit"`)
	code := "kit.Tw"
	matches, _, _ := s.Complete(code, len(code))
	if strings.Join(matches, " ") != "Twice" {
		t.Errorf("completing %q: %q", code, matches)
	}
	code = "kit.Twice"
	b, ok := s.Inspect(code, len(code), 0)
	if !ok || text(b) != "func Twice(x int) int\n\nTwice doubles x." {
		t.Errorf("inspecting %q: %v %q", code, ok, text(b))
	}
	code = "kit"
	if b, ok := s.Inspect(code, len(code), 0); !ok || !strings.HasPrefix(text(b), "package kit") {
		t.Errorf("inspecting %q: %v %q", code, ok, text(b))
	}
}

func TestLocalPackageBoundWins(t *testing.T) {
	s, _ := localSession(t, map[string]string{
		"go.mod":         "module github.com/pathnotes/pathnotes\n",
		"graph/fake.go":  "package graph\n\nfunc Fake() int { return 1 }\n",
		"mine/mine.go":   "package mine\n\nimport (\n\t\"github.com/pathnotes/pathnotes/graph\"\n\t\"gonum.org/v1/gonum/mat\"\n)\n\n// Trace is the trace of the 2×2 identity.\nfunc Trace() float64 { return mat.Trace(mat.NewDiagDense(2, []float64{1, 1})) }\n\n// Arcs counts the arcs of a 2-vertex graph.\nfunc Arcs() int { g, _ := graph.FromTriples(2, [][3]int{{0, 1, 1}}); return g.M() }\n",
		"other/other.go": "package other\n\nfunc F() int { return 5 }\n",
	})
	if got := run(t, s, "import \"github.com/pathnotes/pathnotes/mine\"\nmine.Trace() + float64(mine.Arcs())"); got != "3" {
		t.Errorf("a local package using gonum and graph: %q", got)
	}
	if e := cellError(t, s, "import \"github.com/pathnotes/pathnotes/graph\"\ngraph.Fake()"); !strings.Contains(e.Value, "Fake") {
		t.Errorf("the bound graph should be imported, not the directory: %q", e.Value)
	}
	run(t, s, `import "./other"`)
	if got := run(t, s, "%reload other"); got != "other: unchanged" {
		t.Errorf("%%reload other: %q", got)
	}
	if e := cellError(t, s, "%reload mine2"); !strings.Contains(e.Value, "mine2 is not the name of a local package") {
		t.Errorf("%%reload of an unknown name: %q", e.Value)
	}
}

package session

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestComplete checks completions and the span they replace, with cursors
// in code points.
func TestComplete(t *testing.T) {
	s := newSession(t)
	run(t, s, `import "strings"
import "time"
counter := 3
var graphName string
type Edge struct{ From, To int }
func (e Edge) Reverse() Edge { return Edge{e.To, e.From} }
func shortest(n int) int { return n }
var e1 Edge
sb := &strings.Builder{}
d := time.Second
type Point struct{ X, Y float64 }
func (p Point) Norm() float64 { return p.X*p.X + p.Y*p.Y }
func (p *Point) Scale(k float64) { p.X *= k; p.Y *= k }
pt := Point{1, 2}
pp := &Point{3, 4}
var sbv strings.Builder`)
	tests := []struct {
		name       string
		code       string
		cursor     int // in code points; -1 for the end of code
		want       []string
		absent     []string
		start, end int // in code points; -1 for the cursor
	}{
		{"package member", "strings.Spl", -1, []string{"Split", "SplitN", "SplitAfter"}, []string{"Join"}, 8, -1},
		{"all members after a dot", "time.", -1, []string{"Duration", "Now", "Second"}, []string{"_Stringer"}, 5, -1},
		{"session variable", "coun", -1, []string{"counter"}, nil, 0, -1},
		{"declared func and type", "x := sho", -1, []string{"shortest"}, nil, 5, -1},
		{"keyword", "fo", -1, []string{"for"}, nil, 0, -1},
		{"builtin", "app", -1, []string{"append"}, nil, 0, -1},
		{"import name", "str", -1, []string{"strings"}, nil, 0, -1},
		{"no internal names", "_pn", -1, nil, []string{"_pnOrdered", "_pnrt"}, 0, -1},
		{"method of a compiled type", "sb.Wri", -1, []string{"WriteString", "WriteByte"}, nil, 3, -1},
		{"method of a compiled value type", "d.Se", -1, []string{"Seconds"}, nil, 2, -1},
		{"fields and methods of an interpreted type", "e1.", -1, []string{"From", "To", "Reverse"}, nil, 3, -1},
		// Values whose type the cell did not write: methods with value and
		// pointer receivers, as Go lets an addressable variable call them.
		{"methods of a value of an interpreted type", "pt.", -1, []string{"X", "Y", "Norm", "Scale"}, nil, 3, -1},
		{"methods of a pointer to an interpreted type", "pp.N", -1, []string{"Norm"}, nil, 3, -1},
		{"pointer methods of a compiled value", "sbv.Wri", -1, []string{"WriteString"}, nil, 4, -1},
		{"name declared in the cell being written", "longVariableName := 1\nlongV", -1, []string{"longVariableName"}, nil, 22, -1},
		{"non-ASCII before the cursor", "s := \"日本語\"; str", -1, []string{"strings"}, nil, 12, -1},
		{"cursor in the middle", "strings.Spl(x)", 11, []string{"Split"}, nil, 8, -1},
		{"import path", "import \"enc", -1, []string{"encoding/json", "encoding/csv"}, nil, 8, -1},
		{"import path in a block", "import (\n\t\"fmt\"\n\t\"math/", -1, []string{"math/rand", "math/bits"}, []string{"fmt"}, 18, -1},
		{"package not imported yet", "sort.Sl", -1, []string{"Slice", "SliceStable"}, nil, 5, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cursor := tt.cursor
			if cursor < 0 {
				cursor = utf8.RuneCountInString(tt.code)
			}
			matches, start, end := s.Complete(tt.code, cursor)
			for _, w := range tt.want {
				if !slices.Contains(matches, w) {
					t.Errorf("matches %q lack %q", matches, w)
				}
			}
			for _, a := range tt.absent {
				if slices.Contains(matches, a) {
					t.Errorf("matches %q contain %q", matches, a)
				}
			}
			wantEnd := tt.end
			if wantEnd < 0 {
				wantEnd = cursor
			}
			if start != tt.start || end != wantEnd {
				t.Errorf("span [%d, %d), want [%d, %d)", start, end, tt.start, wantEnd)
			}
		})
	}
}

// TestInspect checks the descriptions of names at the cursor.
func TestInspect(t *testing.T) {
	s := newSession(t)
	run(t, s, `import "strings"
// shortest returns the length of the shortest path.
// It is a stub for the test.
func shortest(n int) int {
	return n + 1
}
var weights = []int32{1, 2}
total := 42
type Edge struct{ From, To int }`)
	tests := []struct {
		name   string
		code   string
		cursor int // -1: end of code
		detail int
		want   []string
		absent []string
		found  bool
	}{
		{"stdlib function", "strings.Split", -1, 0, []string{"func Split(s, sep string) []string", "Split slices s"}, nil, true},
		{"cursor inside the name", "strings.Split(a, b)", 10, 0, []string{"func Split("}, nil, true},
		{"after the parenthesis", "strings.Split(", -1, 0, []string{"func Split("}, nil, true},
		{"user function: signature and comment", "shortest", -1, 0, []string{"// shortest returns the length", "func shortest(n int) int"}, []string{"return n + 1"}, true},
		{"user function in detail", "shortest", -1, 1, []string{"return n + 1"}, nil, true},
		{"declared variable", "weights", -1, 0, []string{"var weights = []int32{1, 2}", "value: [1 2]"}, nil, true},
		{"variable of a statement", "total", -1, 0, []string{"total int", "value: 42"}, nil, true},
		{"type", "Edge", -1, 0, []string{"type Edge struct{ From, To int }"}, nil, true},
		{"package", "strings", -1, 0, []string{"package strings", "import \"strings\""}, nil, true},
		{"builtin", "append", -1, 0, []string{"func append("}, nil, true},
		{"method of a compiled type", "sb.WriteString", -1, 0, nil, nil, false},
		{"non-ASCII before the name", "é := 1; shortest", -1, 0, []string{"func shortest"}, nil, true},
		{"nothing", "   ", 1, 0, nil, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cursor := tt.cursor
			if cursor < 0 {
				cursor = utf8.RuneCountInString(tt.code)
			}
			b, found := s.Inspect(tt.code, cursor, tt.detail)
			if found != tt.found {
				t.Fatalf("found %v, want %v (%q)", found, tt.found, text(b))
			}
			for _, w := range tt.want {
				if !strings.Contains(text(b), w) {
					t.Errorf("%q lacks %q", text(b), w)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(text(b), a) {
					t.Errorf("%q contains %q", text(b), a)
				}
			}
		})
	}
	run(t, s, "sb := &strings.Builder{}")
	if b, ok := s.Inspect("sb.WriteString", 14, 0); !ok || !strings.Contains(text(b), "WriteString appends") {
		t.Errorf("method of a variable: %v %q", ok, text(b))
	}
}

// TestInspectWithoutSources checks the fallback to reflection and the
// Options.Doc hook for bound packages.
func TestInspectWithoutSources(t *testing.T) {
	s, err := New(Options{
		Symbols: []interp_Exports{{"example.com/geo/geo": {"Dist": reflectValueOf(func(a, b float64) float64 { return b - a })}}},
		Doc: func(p, name string) (string, bool) {
			if p == "example.com/geo" && name == "Dist" {
				return "func Dist(a, b float64) float64\n\nDist is documented.", true
			}
			return "", false
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run(t, s, "import \"example.com/geo\"")
	if b, ok := s.Inspect("geo.Dist", 8, 0); !ok || !strings.Contains(text(b), "Dist is documented") {
		t.Errorf("with Options.Doc: %v %q", ok, text(b))
	}
	s.opts.Doc = nil
	if b, ok := s.Inspect("geo.Dist", 8, 0); !ok || text(b) != "func geo.Dist(float64, float64) float64" {
		t.Errorf("from reflection: %v %q", ok, text(b))
	}
}

// TestIsComplete checks the answers for jupyter console.
func TestIsComplete(t *testing.T) {
	s := newSession(t)
	tests := []struct {
		code, status, indent string
	}{
		{"x := 1", "complete", ""},
		{"", "complete", ""},
		{"func f() {", "incomplete", "\t"},
		{"for i := 0; i < 3; i++ {\n\tif i > 1 {", "incomplete", "\t\t"},
		{"xs := []int{\n1,", "incomplete", "\t"},
		{"fmt.Println(", "incomplete", "\t"},
		{"s := `raw\nstring", "incomplete", ""},
		{"/* open comment", "incomplete", ""},
		{"y := 1 +", "incomplete", ""},
		{"x := }", "invalid", ""},
		{"s := \"unterminated", "invalid", ""},
		{"func f() {}\nf()", "complete", ""},
		{"%time f()", "complete", ""},
		// A cell magic ends with a blank line (IPython's rule): its first
		// line alone must not run an empty cell.
		{"%%bash", "incomplete", ""},
		{"%%html\n<b", "incomplete", ""},
		{"%%bash\necho hi\n", "incomplete", ""},
		{"%%bash\nfor f in *; do\n  echo $f", "incomplete", "  "},
		{"%%bash\necho hi\n\n", "complete", ""},
		{"%%time\n\n", "complete", ""},
		{"\n%%cuda\n__global__ void k() {}\n  \n", "complete", ""},
		{"x := 1 ++ 2", "invalid", ""},
		{"é := \"日本\"", "complete", ""},
	}
	for _, tt := range tests {
		status, indent := s.IsComplete(tt.code)
		if status != tt.status || indent != tt.indent {
			t.Errorf("IsComplete(%q) = %q, %q; want %q, %q", tt.code, status, indent, tt.status, tt.indent)
		}
	}
}

// TestHelpQuery checks IPython's x? and x?? in a cell: the documentation
// Inspect gives, as the cell's result.
func TestHelpQuery(t *testing.T) {
	s, err := New(kernelOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run(t, s, "func twice(n int) int {\n\treturn 2 * n\n}")
	for _, c := range []struct{ code, want string }{
		{"cpu.FloydWarshall?", "func FloydWarshall(ctx context.Context, g *graph.Graph, opts FWOptions) (*graph.AllPairs, error)\n\nFloydWarshall solves"},
		{" ?cpu.FloydWarshall\n", "func FloydWarshall(ctx context.Context"},
		{"twice?", "func twice(n int) int"},
		{"twice??", "func twice(n int) int {\n\treturn 2 * n\n}"},
	} {
		if got := run(t, s, c.code); !strings.HasPrefix(strings.TrimSpace(got), c.want) {
			t.Errorf("%q shows %q, want it to start with %q", c.code, got, c.want)
		}
	}
	if e := cellError(t, s, "nosuch?"); e.Name != "NameError" || !strings.Contains(e.Value, "no documentation for nosuch") {
		t.Errorf("nosuch?: %s: %s", e.Name, e.Value)
	}
	if e := cellError(t, s, "x := twice(1) ?"); e.Name != "SyntaxError" {
		t.Errorf("a ? after Go code: %s: %s, want a SyntaxError", e.Name, e.Value)
	}
}

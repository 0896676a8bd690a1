package session

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
)

// checkedRoot panics on a negative argument, as a bound package's function
// given bad input may.
func checkedRoot(x float64) float64 {
	if x < 0 {
		panic("checked.Root: negative argument")
	}
	return math.Sqrt(x)
}

// checkedSymbols is a bound package whose function panics on bad input.
var checkedSymbols = interp.Exports{"example.com/checked/checked": {
	"Root": reflect.ValueOf(checkedRoot),
}}

// TestRuntimeErrorPositions checks that a runtime error names the cell
// (its execution count), line and column of the failing statement, shows
// that line with a caret, and lists the call chain, outermost first, with
// the cell and line of each frame, in earlier cells too.
func TestRuntimeErrorPositions(t *testing.T) {
	tests := []struct {
		name  string
		cells []string // run as In[10], In[11], ...; the last one fails
		where string   // "Cell In[n], line l, column c:"
		src   string   // the source line shown
		chain []string // the call chain, outermost first
	}{
		{"nil map write inside an if",
			[]string{"m := map[string]int(nil)\nx := 1\nif x > 0 {\n\ty := 2\n\tm[\"x\"] = y\n}"},
			"Cell In[10], line 5, column 2:", "\tm[\"x\"] = y",
			[]string{"in main (Cell In[10], line 5)"}},
		{"nil map write in a function of an earlier cell",
			[]string{"func fill(m map[string]int) {\n\tm[\"x\"] = 1\n}", "var m map[string]int\nfill(m)"},
			"Cell In[10], line 2, column 2:", "\tm[\"x\"] = 1",
			[]string{"in main (Cell In[11], line 2)", "in fill (Cell In[10], line 2)"}},
		{"nil pointer in a method",
			[]string{"type node struct{ next *node; v int }\n\nfunc (n *node) second() int {\n\treturn n.next.v\n}", "n := &node{v: 1}\n_ = n.second()"},
			"Cell In[10], line 4, column 2:", "\treturn n.next.v",
			[]string{"in main (Cell In[11], line 2)", "in (*node).second (Cell In[10], line 4)"}},
		{"index out of range in a loop",
			[]string{"xs := []int{1, 2, 3}\nsum := 0\nfor i := 0; i < 5; i++ {\n\tsum += xs[i]\n}"},
			"Cell In[10], line 4, column 2:", "\tsum += xs[i]",
			[]string{"in main (Cell In[10], line 4)"}},
		{"slice bounds in a loop in a function",
			[]string{"func windows(xs []int, k int) int {\n\tn := 0\n\tfor i := range xs {\n\t\tn += len(xs[i : i+k])\n\t}\n\treturn n\n}", "windows([]int{1, 2, 3}, 2)"},
			"Cell In[10], line 4, column 3:", "\t\tn += len(xs[i : i+k])",
			[]string{"in main (Cell In[11], line 1)", "in windows (Cell In[10], line 4)"}},
		{"integer division by zero in the trailing expression",
			[]string{"zero := 0\n10 / zero"},
			"Cell In[10], line 2, column 1:", "10 / zero",
			[]string{"in main (Cell In[10], line 2)"}},
		{"remainder by zero in a function",
			[]string{"func mod(a, b int) int {\n\treturn a % b\n}", "x := 7\ny := mod(x, 0)\n_ = y"},
			"Cell In[10], line 2, column 2:", "\treturn a % b",
			[]string{"in main (Cell In[11], line 2)", "in mod (Cell In[10], line 2)"}},
		{"failed type assertion",
			[]string{"var v any = 3\ns := v.(string)\n_ = s"},
			"Cell In[10], line 2, column 1:", "s := v.(string)",
			[]string{"in main (Cell In[10], line 2)"}},
		{"send on a closed channel",
			[]string{"ch := make(chan int, 1)\nclose(ch)\nch <- 1"},
			"Cell In[10], line 3, column 1:", "ch <- 1",
			[]string{"in main (Cell In[10], line 3)"}},
		{"close of a closed channel in a function",
			[]string{"func shut(c chan int) {\n\tclose(c)\n}", "c := make(chan int)\nshut(c)\nshut(c)"},
			"Cell In[10], line 2, column 2:", "\tclose(c)",
			[]string{"in main (Cell In[11], line 3)", "in shut (Cell In[10], line 2)"}},
		{"panic of a custom error type",
			[]string{"type E struct{ msg string }\n\nfunc (e E) Error() string { return e.msg }", "func check(n int) {\n\tif n > 2 {\n\t\tpanic(E{\"too big\"})\n\t}\n}", "check(1)\ncheck(5)"},
			"Cell In[11], line 3, column 3:", "\t\tpanic(E{\"too big\"})",
			[]string{"in main (Cell In[12], line 2)", "in check (Cell In[11], line 3)"}},
		{"panic in a closure",
			[]string{"f := func(n int) int {\n\tif n < 0 {\n\t\tpanic(\"negative\")\n\t}\n\treturn n\n}\nf(1)\nf(-1)"},
			"Cell In[10], line 3, column 3:", "\t\tpanic(\"negative\")",
			[]string{"in main (Cell In[10], line 8)", "in main.func1 (Cell In[10], line 3)"}},
		{"panic in a closure of an earlier cell",
			[]string{"var handlers []func(int)\nhandlers = append(handlers, func(i int) {\n\t_ = 10 / i\n})", "for _, h := range handlers {\n\th(0)\n}"},
			"Cell In[10], line 3, column 2:", "\t_ = 10 / i",
			[]string{"in main (Cell In[11], line 2)", "in main.func1 (Cell In[10], line 3)"}},
		{"panic in a deferred call",
			[]string{"func cleanup() {\n\tdefer func() {\n\t\tvar p *struct{ x int }\n\t\tp.x = 1\n\t}()\n}", "cleanup()"},
			"Cell In[10], line 4, column 3:", "\t\tp.x = 1",
			[]string{"in main (Cell In[11], line 1)", "in cleanup.func1 (Cell In[10], line 4)"}},
		{"recursion shows each frame's line",
			[]string{"func fact(n int) int {\n\tif n == 0 {\n\t\tpanic(\"zero\")\n\t}\n\treturn n * fact(n-1)\n}", "fact(2)"},
			"Cell In[10], line 3, column 3:", "\t\tpanic(\"zero\")",
			[]string{"in main (Cell In[11], line 1)", "in fact (Cell In[10], line 5)", "in fact (Cell In[10], line 5)", "in fact (Cell In[10], line 3)"}},
		{"functions of three cells",
			[]string{"func a(xs []int) int {\n\treturn xs[3]\n}", "func b() int {\n\tv := []int{1}\n\treturn a(v) + 1\n}", "\nr := b()\n_ = r"},
			"Cell In[10], line 2, column 2:", "\treturn xs[3]",
			[]string{"in main (Cell In[12], line 2)", "in b (Cell In[11], line 3)", "in a (Cell In[10], line 2)"}},
		{"method with a value receiver of an earlier cell",
			[]string{"type grid struct{ cells []int; w int }\n\nfunc (g grid) at(x, y int) int {\n\treturn g.cells[y*g.w+x]\n}", "g := grid{make([]int, 4), 2}\n_ = g.at(1, 1)\n_ = g.at(2, 1)"},
			"Cell In[10], line 4, column 2:", "\treturn g.cells[y*g.w+x]",
			[]string{"in main (Cell In[11], line 3)", "in grid.at (Cell In[10], line 4)"}},
		{"bound package panicking on bad input",
			[]string{"import \"example.com/checked\"\n\nfunc norm(x float64) float64 {\n\treturn checked.Root(x)\n}", "a := norm(4)\nb := norm(-4)\n_, _ = a, b"},
			"Cell In[10], line 4, column 2:", "\treturn checked.Root(x)",
			[]string{"in main (Cell In[11], line 2)", "in norm (Cell In[10], line 4)", "in session.checkedRoot (compiled code, trace_test.go:17)"}},
		{"standard library panicking",
			[]string{"import \"regexp\"\nok := regexp.MustCompile(\"a+\")\n_ = ok\nbad := regexp.MustCompile(\"(\")"},
			"Cell In[10], line 4, column 1:", "bad := regexp.MustCompile(\"(\")",
			[]string{"in main (Cell In[10], line 4)", "in regexp.MustCompile (compiled code, regexp.go:"}},
		{"callback from compiled code",
			[]string{"import \"sort\"\nxs := []int{3, 1, 2}\nsort.Slice(xs, func(i, j int) bool {\n\treturn xs[i+3] < xs[j]\n})"},
			"Cell In[10], line 4, column 2:", "\treturn xs[i+3] < xs[j]",
			[]string{"in main (Cell In[10], line 3)", "in sort.Slice (compiled code, slice.go:", "in sort.", "in sort.", "in main.func1 (Cell In[10], line 4)"}},
		{"condition of an else if",
			[]string{"x := 0\nif x > 1 {\n\tx = 2\n} else if 10/x > 1 {\n\tx = 3\n}"},
			"Cell In[10], line 4, column 8:", "} else if 10/x > 1 {",
			[]string{"in main (Cell In[10], line 4)"}},
		{"condition of a for loop",
			[]string{"xs := []int{1, 1}\nn := 0\nfor i := 0; xs[i] > 0; i++ {\n\tn++\n}"},
			"Cell In[10], line 3, column 13:", "for i := 0; xs[i] > 0; i++ {",
			[]string{"in main (Cell In[10], line 3)"}},
		{"switch on a failing expression",
			[]string{"var p *int\nswitch *p {\ncase 1:\n}"},
			"Cell In[10], line 2, column 1:", "switch *p {",
			[]string{"in main (Cell In[10], line 2)"}},
		{"second statement of a line",
			[]string{"xs := []int{1}\ni := 0; j := xs[i+1]\n_ = j"},
			"Cell In[10], line 2, column 9:", "i := 0; j := xs[i+1]",
			[]string{"in main (Cell In[10], line 2)"}},
		{"block the session runs in a literal",
			[]string{"if v, err := 1, error(nil); err == nil {\n\tvar m map[int]int\n\tm[v] = 1\n}"},
			"Cell In[10], line 3, column 2:", "\tm[v] = 1",
			[]string{"in main (Cell In[10], line 3)"}},
		{"pasted program",
			[]string{"package main\n\nfunc main() {\n\tvar m map[int]int\n\tm[1] = 2\n}"},
			"Cell In[10], line 5, column 2:", "\tm[1] = 2",
			[]string{"in main (Cell In[10], line 5)"}},
		{"var initializer calling a function",
			[]string{"func half(n int) int {\n\treturn 10 / (n - n)\n}", "var h = half(3)"},
			"Cell In[10], line 2, column 2:", "\treturn 10 / (n - n)",
			[]string{"in half (Cell In[10], line 2)"}},
		{"magic lines keep the cell's lines",
			[]string{"%env PN_TRACE_TEST=1\nvar m map[int]int\nm[0] = 1"},
			"Cell In[10], line 3, column 1:", "m[0] = 1",
			[]string{"in main (Cell In[10], line 3)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(Options{Prelude: []string{"fmt"}, Symbols: []interp.Exports{checkedSymbols}})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var e *CellError
			for i, code := range tt.cells {
				ctx := WithExecutionCount(context.Background(), 10+i)
				_, err := s.Execute(ctx, code, newRecorder())
				if i < len(tt.cells)-1 {
					if err != nil {
						t.Fatalf("cell %d: %v", i, err)
					}
					continue
				}
				var ok bool
				if e, ok = err.(*CellError); !ok {
					t.Fatalf("last cell: error %v, want a *CellError", err)
				}
			}
			tb := e.Traceback
			if len(tb) < 4 || !strings.HasPrefix(tb[0], e.Name+": ") || tb[1] != tt.where {
				t.Fatalf("traceback %q: want the error, then %q", tb, tt.where)
			}
			if !strings.HasSuffix(tb[2], " | "+tt.src) {
				t.Errorf("source line %q, want %q", tb[2], tt.src)
			}
			col := caretColumn(tb[2], tb[3])
			if want := whereColumn(tt.where); col != want {
				t.Errorf("caret under byte %d of the line, want %d:\n%s\n%s", col, want, tb[2], tb[3])
			}
			chain := tb[4:]
			if len(chain) != len(tt.chain) {
				t.Fatalf("call chain %q, want %q", chain, tt.chain)
			}
			for i, want := range tt.chain {
				if !strings.HasPrefix(chain[i], "  "+want) {
					t.Errorf("frame %d: %q, want %q", i, chain[i], want)
				}
			}
			if got := run(t, s, "1 + 1"); got != "2" {
				t.Errorf("after the error: %q", got)
			}
		})
	}
}

// caretColumn returns the 1-based byte column of the source line that the
// caret line marks.
func caretColumn(src, caret string) int {
	i := strings.Index(src, " | ")
	j := strings.Index(caret, " | ")
	if i < 0 || j < 0 {
		return -1
	}
	return strings.Index(caret[j+3:], "^") + 1
}

// whereColumn returns the column a "Cell In[n], line l, column c:" names.
func whereColumn(where string) int {
	i := strings.Index(where, "column ")
	n := 0
	for _, r := range where[i+7:] {
		if r < '0' || r > '9' {
			break
		}
		n = 10*n + int(r-'0')
	}
	return n
}

// TestGoroutinePanicPosition checks that the report of a goroutine's panic
// names the failing line and the frames of the goroutine.
func TestGoroutinePanicPosition(t *testing.T) {
	s := newSession(t)
	run(t, s, "func work(xs []int) {\n\t_ = xs[len(xs)]\n}")
	r := newRecorder()
	code := "import \"time\"\ngo func() {\n\twork([]int{1})\n}()\ntime.Sleep(100 * time.Millisecond)"
	if _, err := s.Execute(context.Background(), code, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"panic in a goroutine: ", "Cell In[1], line 2, column 2:", "\t    2 | \t_ = xs[len(xs)]",
		"in main.func1 (Cell In[2], line 3)\n\t  in work (Cell In[1], line 2)"} {
		if !strings.Contains(r.stderr(), want) {
			t.Errorf("stderr %q lacks %q", r.stderr(), want)
		}
	}
}

// TestCellNumbers checks that without an execution count the session
// numbers cells in the order it runs them, and that the error's name and
// value stay those of the panic.
func TestCellNumbers(t *testing.T) {
	s := newSession(t)
	run(t, s, "x := 1")
	run(t, s, "func boom() {\n\tpanic(\"boom\")\n}")
	e := cellError(t, s, "x = 2\nboom()")
	if e.Name != "panic" || e.Value != "boom" {
		t.Errorf("got %s: %s, want panic: boom", e.Name, e.Value)
	}
	want := []string{"panic: boom", "Cell In[2], line 2, column 2:", "    2 | \tpanic(\"boom\")", "      | \t^",
		"  in main (Cell In[3], line 2)", "  in boom (Cell In[2], line 2)"}
	if strings.Join(e.Traceback, "\n") != strings.Join(want, "\n") {
		t.Errorf("traceback\n%s\nwant\n%s", strings.Join(e.Traceback, "\n"), strings.Join(want, "\n"))
	}
}

// TestDeepChain checks that a long call chain shows its outermost and
// innermost frames and counts those left out, and that a panic recovered
// earlier in the cell leaves no frames in the next one's chain.
func TestDeepChain(t *testing.T) {
	s := newSession(t)
	run(t, s, "func down(n int) int {\n\tif n == 0 {\n\t\tpanic(\"bottom\")\n\t}\n\treturn down(n-1) + 1\n}")
	e := cellError(t, s, "func() {\n\tdefer func() { recover() }()\n\tdown(5)\n}()\ndown(100)")
	tb := e.Traceback
	want := []string{"  in main (Cell In[2], line 5)", "  in down (Cell In[1], line 5)"}
	if len(tb) != 4+21 || tb[4] != want[0] || tb[5] != want[1] {
		t.Fatalf("traceback %q", tb)
	}
	if tb[14] != "  ... 82 more frames ..." || tb[24] != "  in down (Cell In[1], line 3)" {
		t.Errorf("traceback %q: want 82 frames left out, then the innermost", tb)
	}
}

// A function literal called in a top-level var initializer runs: the
// site variable of its frame must not be taken for a global it depends on
// (yaegi's "variable definition loop").
func TestVarInitializerLiteral(t *testing.T) {
	s := newSession(t)
	if got := run(t, s, "var v = func() int { x := 2; return x * 21 }()\nv"); got != "42" {
		t.Errorf("var v = func() int {...}() gave %q, want 42", got)
	}
}

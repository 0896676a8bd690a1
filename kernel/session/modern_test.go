package session

import (
	"context"
	"strings"
	"testing"
	"time"
)

// modernCase is a sequence of cells whose last one gives result (the text
// of its value) and prints stdout.
type modernCase struct {
	name   string
	cells  []string
	result string
	stdout string
}

func runModern(t *testing.T, tests []modernCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t)
			for _, c := range tt.cells[:len(tt.cells)-1] {
				run(t, s, c)
			}
			last := tt.cells[len(tt.cells)-1]
			r := newRecorder()
			b, err := s.Execute(context.Background(), last, r)
			if err != nil {
				t.Fatalf("Execute(%q): %v", last, err)
			}
			if got := text(b); got != tt.result {
				t.Errorf("result %q, want %q", got, tt.result)
			}
			if got := r.stdout(); got != tt.stdout {
				t.Errorf("stdout %q, want %q", got, tt.stdout)
			}
		})
	}
}

// TestRangeOverInt covers for range over integers of Go 1.22, which the
// session rewrites into three-clause loops.
func TestRangeOverInt(t *testing.T) {
	runModern(t, []modernCase{
		{"literal", []string{"for i := range 3 { fmt.Print(i) }"}, "", "012"},
		{"no variable", []string{"for range 2 { fmt.Print(\"x\") }"}, "", "xx"},
		{"variable", []string{"n := 4", "for i := range n { fmt.Print(i) }"}, "", "0123"},
		{"declared variable", []string{"var n = 2", "for i := range n { fmt.Print(i) }"}, "", "01"},
		{"closures keep their value", []string{"var fs []func() int\nfor i := range 3 { fs = append(fs, func() int { return i }) }\nfmt.Print(fs[0](), fs[2]())"}, "", "0 2"},
		{"same cell variable", []string{"n := 2; for i := range n { fmt.Print(i) }"}, "", "01"},
		{"typed", []string{"var k int64 = 2", "for i := range k { fmt.Printf(\"%T \", i) }"}, "", "int64 int64 "},
		{"named type", []string{"type Idx uint8\nconst N Idx = 2", "var last Idx\nfor i := range N { last = i; fmt.Print(i) }"}, "", "01"},
		{"len", []string{"xs := []string{\"a\", \"b\"}\nfor i := range len(xs) { fmt.Print(i) }"}, "", "01"},
		{"expression", []string{"a, b := 1, 2\nfor i := range a + b*2 { fmt.Print(i) }"}, "", "01234"},
		{"function result", []string{"func size() int { return 3 }", "for i := range size() { fmt.Print(i) }"}, "", "012"},
		{"in a function", []string{"func sum(n int) (s int) { for i := range n { s += i }; return }", "sum(5)"}, "10", ""},
		{"assign form", []string{"i := 9\nfor i = range 3 { }\ni"}, "2", ""},
		{"break and continue", []string{"for i := range 10 { if i == 1 { continue }; if i == 4 { break }; fmt.Print(i) }"}, "", "023"},
		{"labels", []string{"Outer:\nfor i := range 3 { for j := range 3 { if j == 1 { continue Outer }; if i == 2 { break Outer }; fmt.Print(i, j, \" \") } }"}, "", "0 0 1 0 "},
		{"body changes the variable", []string{"for i := range 3 { fmt.Print(i); i += 5 }"}, "", "012"},
		{"body redeclares the variable", []string{"for i := range 2 { i := i * 10; fmt.Print(i, \" \") }"}, "", "0 10 "},
		{"nested", []string{"n := 0\nfor i := range 3 { for j := range i { n += j } }\nn"}, "1", ""},
		{"project package method", []string{"import \"strings\"", "for i := range strings.Count(\"a,b,c\", \",\") { fmt.Print(i) }"}, "", "01"},
	})
}

// iterDecls declares iterators for the tests of range over functions.
const iterDecls = `
func count(n int) func(yield func(int) bool) {
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			if !yield(i) {
				return
			}
		}
	}
}

func pairs(yield func(string, int) bool) {
	_ = yield("a", 1) && yield("b", 2) && yield("c", 3)
}

func nothing(yield func() bool) { _ = yield() && yield() }
`

// TestRangeOverFunc covers for range over iterator functions of Go 1.23,
// which the session rewrites into calls with a yield function literal.
func TestRangeOverFunc(t *testing.T) {
	runModern(t, []modernCase{
		{"one value", []string{iterDecls, "for v := range count(3) { fmt.Print(v) }"}, "", "012"},
		{"two values", []string{iterDecls, "for k, v := range pairs { fmt.Print(k, v) }"}, "", "a1b2c3"},
		{"key only", []string{iterDecls, "for k := range pairs { fmt.Print(k) }"}, "", "abc"},
		{"no values", []string{iterDecls, "n := 0\nfor range nothing { n++ }\nn"}, "2", ""},
		{"variable", []string{iterDecls, "seq := count(2)", "for v := range seq { fmt.Print(v) }"}, "", "01"},
		{"function literal", []string{"for v := range func(yield func(float64) bool) { yield(1.5) } { fmt.Print(v) }"}, "", "1.5"},
		{"continue", []string{iterDecls, "for v := range count(4) { if v%2 == 0 { continue }; fmt.Print(v) }"}, "", "13"},
		{"break", []string{iterDecls, "for v := range count(10) { if v == 2 { break }; fmt.Print(v) }"}, "", "01"},
		{"inner loop break", []string{iterDecls, "for v := range count(2) { for j := 0; ; j++ { if j == 1 { break } }; switch { case v == 0: break }; fmt.Print(v) }"}, "", "01"},
		{"labelled continue", []string{iterDecls, "L:\nfor v := range count(3) { for j := range 5 { if j == 1 { continue L }; fmt.Print(v, j, \" \") } }"}, "", "0 0 1 0 2 0 "},
		{"labelled break", []string{iterDecls, "L:\nfor v := range count(3) { for range 5 { if v == 1 { break L } }; fmt.Print(v) }"}, "", "0"},
		{"return", []string{iterDecls, "func firstOver(n int) int { for v := range count(10) { if v > n { return v } }; return -1 }", "fmt.Print(firstOver(3), firstOver(20))"}, "", "4 -1"},
		{"return several", []string{iterDecls, "func find(k string) (int, bool) { for key, v := range pairs { if key == k { return v, true } }; return 0, false }", "find(\"b\")"}, "2 true", ""},
		{"named results", []string{iterDecls, "func find(k string) (v int, ok bool) { for key, x := range pairs { if key == k { v = x; ok = true; return } }; return }", "find(\"c\")"}, "3 true", ""},
		{"return in a literal", []string{iterDecls, "f := func() string { for k := range pairs { if k == \"b\" { return k + \"!\" } }; return \"\" }\nf()"}, `"b!"`, ""},
		{"nested iterators", []string{iterDecls, "func find2() (int, int) { for i := range count(3) { for j := range count(3) { if i*j == 2 { return i, j } } }; return -1, -1 }", "find2()"}, "1 2", ""},
		{"assign form", []string{iterDecls, "k, v := \"\", 0\nfor k, v = range pairs { }\nfmt.Print(k, v)"}, "", "c3"},
		{"closures keep their value", []string{iterDecls, "var fs []func() int\nfor v := range count(3) { fs = append(fs, func() int { return v }) }\nfmt.Print(fs[0](), fs[2]())"}, "", "0 2"},
		{"iter.Seq result", []string{"func evens(n int) iter.Seq[int] { return func(yield func(int) bool) { for i := range n { if i%2 == 0 && !yield(i) { return } } } }", "for v := range evens(5) { fmt.Print(v) }"}, "", "024"},
		{"slices.All", []string{"for i, v := range slices.All([]string{\"x\", \"y\"}) { fmt.Print(i, v) }"}, "", "0x1y"},
		{"slices.Backward", []string{"for _, v := range slices.Backward([]int{1, 2, 3}) { fmt.Print(v) }"}, "", "321"},
		{"maps.Keys", []string{"m := map[string]int{\"a\": 1, \"b\": 2}\nn := 0\nfor k := range maps.Keys(m) { n += len(k) }\nn"}, "2", ""},
		{"struct values", []string{"type P struct{ X int }", "ps := []P{{1}, {2}}\nfor _, p := range slices.All(ps) { fmt.Print(p.X) }"}, "", "12"},
	})
}

// TestStdGeneric covers the session's own slices, maps and cmp.
func TestStdGeneric(t *testing.T) {
	runModern(t, []modernCase{
		{"Sort with import", []string{"import \"slices\"", "x := []int{3, 1, 2}\nslices.Sort(x)\nx"}, "[1 2 3]", ""},
		{"Sort under another name", []string{"import sl \"slices\"", "x := []int{2, 1}\nsl.Sort(x)\nx"}, "[1 2]", ""},
		{"Sort without import", []string{"x := []string{\"b\", \"a\"}\nslices.Sort(x)\nx"}, `["a" "b"]`, ""},
		{"Sort floats with NaN", []string{"import \"math\"", "x := []float64{2, math.NaN(), 1}\nslices.Sort(x)\nfmt.Print(x)"}, "", "[NaN 1 2]"},
		{"SortFunc", []string{"type P struct{ N string; A int }", "ps := []P{{\"x\", 3}, {\"y\", 1}}\nslices.SortFunc(ps, func(a, b P) int { return cmp.Compare(a.A, b.A) })\nps[0].N"}, `"y"`, ""},
		{"SortStableFunc", []string{"x := []string{\"bb\", \"a\", \"cc\", \"d\"}\nslices.SortStableFunc(x, func(a, b string) int { return len(a) - len(b) })\nx"}, `["a" "d" "bb" "cc"]`, ""},
		{"IsSorted", []string{"slices.IsSorted([]int{1, 2, 2})"}, "true", ""},
		{"Contains", []string{"slices.Contains([]string{\"a\"}, \"a\")"}, "true", ""},
		{"ContainsFunc", []string{"slices.ContainsFunc([]int{1, 3}, func(v int) bool { return v%2 == 0 })"}, "false", ""},
		{"Index", []string{"slices.Index([]int{5, 6}, 6)"}, "1", ""},
		{"IndexFunc", []string{"slices.IndexFunc([]int{5, 6}, func(v int) bool { return v > 9 })"}, "-1", ""},
		{"Reverse", []string{"x := []int{1, 2, 3}\nslices.Reverse(x)\nx"}, "[3 2 1]", ""},
		{"Max", []string{"slices.Max([]float64{1, 2.5})"}, "2.5", ""},
		{"Min", []string{"slices.Min([]int{4, 2, 8})"}, "2", ""},
		{"MaxFunc", []string{"slices.MaxFunc([]string{\"aa\", \"b\"}, func(a, b string) int { return len(a) - len(b) })"}, `"aa"`, ""},
		{"Equal", []string{"slices.Equal([]int{1, 2}, []int{1, 2})"}, "true", ""},
		{"Compare", []string{"slices.Compare([]int{1, 2}, []int{1, 3})"}, "-1", ""},
		{"BinarySearch", []string{"slices.BinarySearch([]int{1, 3, 5}, 4)"}, "2 false", ""},
		{"BinarySearchFunc", []string{"slices.BinarySearchFunc([]string{\"a\", \"bb\"}, 2, func(s string, n int) int { return len(s) - n })"}, "1 true", ""},
		{"Insert", []string{"slices.Insert([]int{1, 4}, 1, 2, 3)"}, "[1 2 3 4]", ""},
		{"Delete", []string{"slices.Delete([]int{1, 2, 3, 4}, 1, 3)"}, "[1 4]", ""},
		{"DeleteFunc", []string{"slices.DeleteFunc([]int{1, 2, 3, 4}, func(v int) bool { return v%2 == 1 })"}, "[2 4]", ""},
		{"Clone", []string{"a := []int{1}\nb := slices.Clone(a)\nb[0] = 9\na"}, "[1]", ""},
		{"Clone to a named type", []string{"type Path []int", "var p Path\np = slices.Clone(Path{1, 2})\nlen(p)"}, "2", ""},
		{"define again", []string{"m := map[int]int{1: 1}\nc := maps.Clone(m)", "c := maps.Clone(map[int]int{})\nlen(c)"}, "0", ""},
		{"Compact", []string{"slices.Compact([]int{1, 1, 2, 2, 1})"}, "[1 2 1]", ""},
		{"Concat", []string{"slices.Concat([]int{1}, []int{2, 3})"}, "[1 2 3]", ""},
		{"Collect", []string{"slices.Collect(slices.Values([]int{7, 8}))"}, "[7 8]", ""},
		{"Sorted", []string{"slices.Sorted(maps.Keys(map[string]bool{\"b\": true, \"a\": true}))"}, `["a" "b"]`, ""},
		{"maps.Values", []string{"slices.Sorted(maps.Values(map[string]int{\"b\": 2, \"a\": 1}))"}, "[1 2]", ""},
		{"maps.All and Collect", []string{"m := maps.Collect(maps.All(map[string]int{\"a\": 1}))\nm[\"a\"]"}, "1", ""},
		{"maps.Clone", []string{"m := map[int]int{1: 1}\nc := maps.Clone(m)\nc[2] = 2\nlen(m)"}, "1", ""},
		{"maps.Copy", []string{"m := map[int]int{1: 1}\nmaps.Copy(m, map[int]int{2: 2})\nlen(m)"}, "2", ""},
		{"maps.DeleteFunc", []string{"m := map[int]int{1: 1, 2: 2}\nmaps.DeleteFunc(m, func(k, v int) bool { return k == 1 })\nm"}, "map[2:2]", ""},
		{"maps.Equal", []string{"maps.Equal(map[string]int{\"a\": 1}, map[string]int{\"a\": 1})"}, "true", ""},
		{"cmp.Compare", []string{"cmp.Compare(1.5, 2)"}, "-1", ""},
		{"cmp.Less", []string{"cmp.Less(\"a\", \"b\")"}, "true", ""},
		{"cmp.Or", []string{"cmp.Or(\"\", \"x\", \"y\")"}, `"x"`, ""},
		{"cmp.Ordered constraint", []string{"func Biggest[T cmp.Ordered](xs ...T) T { return slices.Max(xs) }", "Biggest(3, 9, 4)"}, "9", ""},
		{"IsSortedFunc", []string{"slices.IsSortedFunc([]int{3, 1}, func(a, b int) int { return b - a })"}, "true", ""},
		{"MinFunc", []string{"slices.MinFunc([]string{\"aa\", \"b\"}, func(a, b string) int { return len(a) - len(b) })"}, `"b"`, ""},
		{"EqualFunc", []string{"slices.EqualFunc([]int{1}, []string{\"1\"}, func(a int, b string) bool { return fmt.Sprint(a) == b })"}, "true", ""},
		{"CompactFunc", []string{"import \"strings\"", "slices.CompactFunc([]string{\"a\", \"A\", \"b\"}, func(a, b string) bool { return strings.EqualFold(a, b) })"}, `["a" "b"]`, ""},
		{"Replace", []string{"slices.Replace([]int{1, 2, 3}, 1, 2, 7, 8)"}, "[1 7 8 3]", ""},
		{"Repeat", []string{"slices.Repeat([]int{1, 2}, 2)"}, "[1 2 1 2]", ""},
		{"Grow and Clip", []string{"g := slices.Grow([]int{1}, 10)\nfmt.Print(len(g), cap(g) >= 11, cap(slices.Clip(g)))"}, "", "1 true 1"},
		{"AppendSeq", []string{"slices.AppendSeq([]int{0}, slices.Values([]int{1, 2}))"}, "[0 1 2]", ""},
		{"SortedFunc", []string{"slices.SortedFunc(slices.Values([]int{1, 3, 2}), func(a, b int) int { return b - a })"}, "[3 2 1]", ""},
		{"Chunk", []string{"n := 0\nfor c := range slices.Chunk([]int{1, 2, 3, 4, 5}, 2) { n = n*10 + len(c) }\nn"}, "221", ""},
		{"maps.EqualFunc", []string{"maps.EqualFunc(map[int]int{1: 2}, map[int]string{1: \"2\"}, func(a int, b string) bool { return fmt.Sprint(a) == b })"}, "true", ""},
		{"maps.Insert", []string{"m := map[string]int{}\nmaps.Insert(m, maps.All(map[string]int{\"z\": 26}))\nm[\"z\"]"}, "26", ""},
		{"iter.Seq2", []string{"func enum(xs []string) iter.Seq2[int, string] { return func(yield func(int, string) bool) { for i, x := range xs { if !yield(i, x) { return } } } }", "for i, x := range enum([]string{\"p\", \"q\"}) { fmt.Print(i, x) }"}, "", "0p1q"},
		{"a variable named slices", []string{"slices := []int{1}\nlen(slices)"}, "1", ""},
	})
}

// TestInferTypeArgs covers calls of generic functions declared in cells
// whose type arguments Go infers and yaegi cannot.
func TestInferTypeArgs(t *testing.T) {
	mapDecl := "func Map[T, U any](s []T, f func(T) U) []U { var r []U; for _, v := range s { r = append(r, f(v)) }; return r }"
	runModern(t, []modernCase{
		{"func literal argument", []string{mapDecl, "Map([]int{1, 2}, func(i int) string { return fmt.Sprint(i * 2) })"}, `["2" "4"]`, ""},
		{"same cell", []string{mapDecl + "\nMap([]string{\"ab\"}, func(s string) int { return len(s) })"}, "[2]", ""},
		{"nested", []string{mapDecl, "Map(Map([]int{1}, func(i int) float64 { return float64(i) / 2 }), func(f float64) string { return fmt.Sprint(f) })"}, `["0.5"]`, ""},
		{"partial", []string{mapDecl, "Map[int]([]int{3}, func(i int) bool { return i > 2 })"}, "[true]", ""},
		{"untyped constants", []string{"func Sum[T int | float64](xs ...T) T { var s T; for _, x := range xs { s += x }; return s }", "Sum(1.5, 2)"}, "3.5", ""},
		{"in a function", []string{mapDecl, "func lens(xs []string) []int { return Map(xs, func(s string) int { return len(s) }) }", "lens([]string{\"a\", \"bcd\"})"}, "[1 3]", ""},
		{"package type", []string{mapDecl, "import \"time\"", "Map([]int{2}, func(i int) time.Duration { return time.Duration(i) * time.Second })"}, "[2s]", ""},
		{"cell type", []string{mapDecl, "type P struct{ X int }", "Map([]int{4}, func(i int) P { return P{i} })[0].X"}, "4", ""},
	})
}

// TestRewritesKeepLines checks that errors after and inside rewritten
// loops and calls name the cell's own lines.
func TestRewritesKeepLines(t *testing.T) {
	tests := []struct {
		name, code, want string
	}{
		{"compile error after a range over int", "for i := range 3 {\n\t_ = i\n}\nx := undefinedName", "line 4, column 6: undefined: undefinedName"},
		{"compile error in a range over int", "for i := range 3 {\n\t_ = i\n\ty := alsoUndefined\n}", "line 3, column 7: undefined: alsoUndefined"},
		{"compile error in a range over func", iterDecls + "for v := range count(2) {\n\t_ = v\n\tnotThere()\n}", "line " + lineOf(iterDecls, 3) + ", column 2: undefined: notThere"},
		{"compile error after inferred call", "func Id[T, U any](x T, f func(T) U) U { return f(x) }\n_ = Id(1, func(i int) string { return \"\" })\nvar z int = \"s\"", "line 3, "},
		// A panic in the body of a rewritten loop is on the body's line.
		{"runtime panic in a range over func", iterDecls + "for v := range count(2) {\n\tvar m map[int]int\n\tm[v] = 1\n}", "Cell In[1], line " + lineOf(iterDecls, 3) + ", column 2:"},
		{"runtime panic after a range over func", iterDecls + "for v := range count(2) {\n\t_ = v\n}\nvar m map[string]int\nm[\"a\"] = 1", "Cell In[1], line " + lineOf(iterDecls, 5) + ", column 1:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t)
			e := cellError(t, s, tt.code)
			msg := e.Value + "\n" + strings.Join(e.Traceback, "\n")
			if !strings.Contains(msg, tt.want) {
				t.Errorf("error %q does not name %q", msg, tt.want)
			}
		})
	}
}

// TestRewrittenLoopsInterrupt checks that an interrupt stops endless
// rewritten loops and keeps the session.
func TestRewrittenLoopsInterrupt(t *testing.T) {
	s := newSession(t)
	for _, code := range []string{
		"n := 0\nfor range 1 << 40 { n++ }",
		"func forever(yield func(int) bool) { for i := 0; ; i++ { if !yield(i) { return } } }\nm := 0\nfor v := range forever { m += v }",
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		_, err := s.Execute(ctx, code, newRecorder())
		cancel()
		if err == nil || !strings.Contains(err.Error(), "interrupted") {
			t.Errorf("%q: error %v, want an interrupt", code, err)
		}
	}
	if got := run(t, s, "n > 0 && m > 0"); got != "true" {
		t.Errorf("after the interrupts: %q", got)
	}
}

// lineOf returns, as text, the number of line n after the text prefix.
func lineOf(prefix string, n int) string {
	return itoa(strings.Count(prefix, "\n") + n)
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// TestModernErrors checks the errors of what the rewrites leave out.
func TestModernErrors(t *testing.T) {
	tests := []struct {
		name, code, want string
	}{
		{"defer in a range over func", iterDecls + "func f() { for v := range count(2) { defer fmt.Print(v) } }", "range over a function: its body has a defer"},
		{"goto out of a range over func", iterDecls + "func f() { for v := range count(2) { _ = v; goto end }\nend: }", "range over a function: its body leaves it"},
		{"too many variables", iterDecls + "for k, v := range count(2) { _, _ = k, v }", "range over a function: the iterator gives 1 value(s) an iteration"},
		{"standard names in errors", "slices.Max([]int{})", "slices.Max: empty list"},
		{"missing standard function", "x := slices.Undefined(1)", "line 1, column 13: undefined: slices.Undefined (the session's package slices has All, AppendSeq, Backward"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t)
			e := cellError(t, s, tt.code)
			if msg := e.Value + strings.Join(e.Traceback, "\n"); !strings.Contains(msg, tt.want) || strings.Contains(msg, "_pn") {
				t.Errorf("error %q, want %q", e.Value, tt.want)
			}
			if got := run(t, s, "1 + 1"); got != "2" {
				t.Errorf("after the error: %q", got)
			}
		})
	}
}

// TestIteratorGoesOn checks that an iterator that ignores yield's false
// panics, as in Go, instead of running the loop's body again.
func TestIteratorGoesOn(t *testing.T) {
	s := newSession(t)
	run(t, s, "func careless(yield func(int) bool) { yield(1); yield(2) }")
	e := cellError(t, s, "for v := range careless {\n\tif v == 1 {\n\t\tbreak\n\t}\n}")
	if !strings.Contains(e.Value, "range function continued iteration") {
		t.Errorf("error %q", e.Value)
	}
	if got := run(t, s, "n := 0\nfor v := range careless { n += v }\nn"); got != "3" {
		t.Errorf("without a break: %q", got)
	}
}

// TestTaglessSwitchCases covers case clauses of several expressions in a
// switch without a tag, whose later expressions yaegi alone ignores.
func TestTaglessSwitchCases(t *testing.T) {
	runModern(t, []modernCase{
		{"second expression", []string{"x := 3\nswitch {\ncase x == 1, x == 3:\n\tfmt.Print(\"yes\")\ndefault:\n\tfmt.Print(\"no\")\n}"}, "", "yes"},
		{"in a function", []string{"func kind(x int) string { switch { case x < 0, x > 9: return \"out\"; case x == 5: return \"five\" }; return \"in\" }",
			"kind(12) + kind(-1) + kind(5) + kind(3)"}, `"outoutfivein"`, ""},
		{"left to right, stops at the first true", []string{"n := 0\nf := func(b bool) bool { n++; return b }\nswitch {\ncase f(false), f(true), f(true):\n}\nn"}, "2", ""},
		{"mixed operators", []string{"a, b := 2, 7\nswitch {\ncase a > 5 && b > 5, a+b == 9 || false:\n\tfmt.Print(\"ok\")\n}"}, "", "ok"},
		{"init statement", []string{"switch y := 4; {\ncase y == 1, y == 4:\n\tfmt.Print(y)\n}"}, "", "4"},
		{"tagged switches keep their lists", []string{"switch x := 2; x {\ncase 1, 2:\n\tfmt.Print(\"two\")\n}"}, "", "two"},
	})
}

// TestImportIter checks that package iter, which the interpreter lacks and
// the session implements, imports as the other standard packages do, under
// its name or another, and that its types serve range-over-func loops.
func TestImportIter(t *testing.T) {
	s := newSession(t)
	run(t, s, "import \"iter\"\nfunc evens(n int) iter.Seq[int] {\n\treturn func(yield func(int) bool) {\n\t\tfor i := 0; i < n; i += 2 {\n\t\t\tif !yield(i) {\n\t\t\t\treturn\n\t\t\t}\n\t\t}\n\t}\n}")
	if got := run(t, s, "sum := 0\nfor v := range evens(10) { sum += v }\nsum"); got != "20" {
		t.Errorf("sum over iter.Seq = %s, want 20", got)
	}
	run(t, s, "import \"iter\"") // again: nothing to do
	run(t, s, "import it \"iter\"\nvar pairs it.Seq2[int, string] = func(yield func(int, string) bool) { yield(1, \"a\") }")
	if got := run(t, s, "n := 0\nfor k, v := range pairs { n += k + len(v) }\nn"); got != "2" {
		t.Errorf("range over it.Seq2 = %s, want 2", got)
	}
}

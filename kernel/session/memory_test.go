package session

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/internal/rlimittest"
)

// TestManyExecutions runs 1,000 cells in one session and checks that the
// heap does not grow without bound: what remains per cell must stay small.
func TestManyExecutions(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 cells take a few seconds; skipped with -short")
	}
	s := newSession(t)
	cell := func(i int) string {
		switch i % 4 {
		case 0:
			return fmt.Sprintf("x := %d\nbuf := make([]byte, 1<<16)\n_ = buf", i)
		case 1:
			return "func work(n int) int { s := 0; for i := 0; i < n; i++ { s += i }; return s }\nwork(100)"
		case 2:
			return "fmt.Println(x)"
		default:
			return "m := map[int]string{1: \"a\"}\nm[2] = \"b\"\nlen(m)"
		}
	}
	for i := 0; i < 100; i++ { // warm up: caches, first compilations
		run(t, s, cell(i))
	}
	before := heap()
	const n = 1000
	for i := 0; i < n; i++ {
		run(t, s, cell(i))
	}
	after := heap()
	growth := after - before
	t.Logf("heap %d KB before, %d KB after %d cells: %d bytes per cell", before>>10, after>>10, n, growth/n)
	// Each cell keeps a little of its compilation (yaegi's symbols, the
	// position table of its source): about 7 KB measured. Keeping the 64 KB
	// buffer that every fourth cell declares again would add 16 MB, keeping
	// each cell's syntax tree (as yaegi does for its debugger) about 20 MB.
	if growth > 12<<20 {
		t.Errorf("heap grew by %d MB over %d cells", growth>>20, n)
	}
}

// TestRedeclarationFreesOldValue checks that running a cell that declares a
// big variable again does not keep the old value: yaegi would give the
// variable a new slot each time and keep the old one.
func TestRedeclarationFreesOldValue(t *testing.T) {
	s := newSession(t)
	for _, cells := range [][]string{
		{"buf := make([]byte, 1<<20)"},     // assigned: same type
		{"var buf2 = make([]byte, 1<<20)"}, // assigned: same type
		// A new type each time: new slots, the old ones cleared.
		{"buf3 := make([]byte, 1<<20)", "buf3 := 1"},
		{"var buf4 = make([]int8, 1<<20)", "var buf4 = \"small\""},
	} {
		for _, c := range cells {
			run(t, s, c)
		}
		before := heap()
		for i := 0; i < 30; i++ {
			for _, c := range cells {
				run(t, s, c)
			}
		}
		if growth := heap() - before; growth > 10<<20 {
			t.Errorf("%q run 30 times: the heap grew by %d MB", cells, growth>>20)
		}
	}
}

// TestRedeclarationKeepsFunctionsCurrent checks that a function that uses a
// variable sees the value of the variable's latest declaration.
func TestRedeclarationKeepsFunctionsCurrent(t *testing.T) {
	s := newSession(t)
	run(t, s, "limit := 1\nfunc getLimit() int { return limit }")
	run(t, s, "limit := 2")
	if got := run(t, s, "getLimit()"); got != "2" {
		t.Errorf("getLimit() = %s after limit := 2", got)
	}
	run(t, s, "var scale = 1.5\nfunc getScale() float64 { return scale }")
	run(t, s, "var scale = 2.5")
	if got := run(t, s, "getScale()"); got != "2.5" {
		t.Errorf("getScale() = %s after var scale = 2.5", got)
	}
}

// TestTemporariesFreed checks that the intermediate values of top-level
// statements do not stay alive after their cell: yaegi keeps them in slots
// of its global frame that are never reused.
func TestTemporariesFreed(t *testing.T) {
	s := newSession(t)
	run(t, s, "func mk() []byte { return make([]byte, 1<<20) }")
	for _, cell := range []string{
		"n := len(make([]byte, 1<<20))",
		"fmt.Println(len(mk()))",
		"len(mk())",
		"var size = len(mk())",
	} {
		run(t, s, cell)
		before := heap()
		for i := 0; i < 30; i++ {
			run(t, s, cell)
		}
		if growth := heap() - before; growth > 10<<20 {
			t.Errorf("%q run 30 times: the heap grew by %d MB", cell, growth>>20)
		}
	}
	// Variables stay, and so do values that temporaries refer to: yaegi
	// keeps the element of keep[1] = 7 as a value that addresses the array.
	run(t, s, "keep := make([]int, 3)\nkeep[1] = 7")
	run(t, s, "keep[2] = 9")
	run(t, s, "m := map[string][]int{\"a\": keep}\nm[\"a\"][0] = 5")
	if got := run(t, s, "keep"); got != "[5 7 9]" {
		t.Errorf("keep = %s, want [5 7 9]", got)
	}
}

// heap returns the bytes of live heap objects, after garbage collection.
func heap() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestMemoryErrors checks that a cell asking for more memory than there is
// fails with a MemoryError that names the allocation and the cell's line,
// and that the session keeps its state. Go's runtime would end the process
// on each of these ("fatal error: out of memory"): 8 TiB and more is more
// than any machine that runs the tests has, and less than the 256 TiB
// above which the runtime panics instead.
func TestMemoryErrors(t *testing.T) {
	s := newSession(t)
	run(t, s, "import (\n\"bytes\"\n\"strings\"\n)\nkeep := 42")
	for _, c := range []struct{ code, value, line string }{
		{"b := make([]int64, 1<<40)", "make([]int64, 1099511627776): need 8 TiB, but only", "line 1"},
		{"x := 1\nn := x << 40\nb := make([]int64, n)", "make([]int64, 1099511627776)", "line 3"},
		{"b := make([]int64, 0, 1<<40)", "make([]int64, 1099511627776)", ""},
		{"func size() int { return 1 << 40 }\nb := make([]int64, size())", "make([]int64, 1099511627776)", ""},
		{"func mk(n int) []int64 {\n\treturn make([]int64, n)\n}\nmk(1 << 40)", "make([]int64, 1099511627776)", "in mk (Cell In[6], line 2)"},
		{"var gb = make([]int64, 1<<40)", "make([]int64, 1099511627776)", ""},
		{"ch := make(chan [1024]byte, 1<<33)", "make(chan [1024]uint8, 8589934592)", ""},
		{"for i := 0; i < len(make([]int64, 1<<40)); i++ {}", "make([]int64, 1099511627776)", ""},
		{"p := new([1 << 43]byte)", "Cell In[10], line 1, column 10: an array of 8 TiB: need 8 TiB", ""},
		{"var a [1 << 40][8]byte", "an array of 8 TiB", ""},
		{"func f() { var a [1 << 40]int64; _ = a }", "an array of 8 TiB", ""},
		{"s := strings.Repeat(\"abcdefgh\", 1<<40)", "strings.Repeat(8 bytes, 1099511627776): need 8 TiB", ""},
		{"b := bytes.Repeat([]byte(\"abcdefgh\"), 1<<40)", "bytes.Repeat(8 bytes, 1099511627776): need 8 TiB", ""},
		{"x := slices.Repeat([]int64{1}, 1<<40)", "make([]int64, 1099511627776)", ""},
		{"x := slices.Grow([]int64{1}, 1<<40)", "make([]int64, 1099511627776)", ""},
	} {
		e := cellError(t, s, c.code)
		if e.Name != "MemoryError" || !strings.Contains(e.Value, c.value) {
			t.Errorf("%q: %s: %s, want a MemoryError with %q", c.code, e.Name, e.Value, c.value)
		}
		if tb := strings.Join(e.Traceback, "\n"); c.line != "" && !strings.Contains(tb, c.line) {
			t.Errorf("%q: the traceback does not show %q:\n%s", c.code, c.line, tb)
		}
	}
	if got := run(t, s, "keep"); got != "42" {
		t.Errorf("keep = %s after the memory errors", got)
	}
}

// TestCompiledMemoryPanic checks that a compiled function's panic of a
// failed size check (graph's Dense of a graph whose matrix does not fit) is
// a MemoryError too.
func TestCompiledMemoryPanic(t *testing.T) {
	s, err := New(kernelOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run(t, s, "g, _ := graph.NewBuilder(3_000_000).Build()")
	if e := cellError(t, s, "w := g.Dense()"); e.Name != "MemoryError" || !strings.Contains(e.Value, "graph: Dense: graph: 1 n×n int32 matrices for n=3000000 need 32.7 TiB") {
		t.Errorf("g.Dense() of 3e6 vertices: %s: %s", e.Name, e.Value)
	}
}

// TestCheckedAllocationsKeepTheirMeaning checks that the checks the session
// puts around make and append change no result: sizes with side effects
// are evaluated once, appends of every form give what Go gives.
func TestCheckedAllocationsKeepTheirMeaning(t *testing.T) {
	s := newSession(t)
	run(t, s, "calls := 0\nfunc size(n int) int { calls++; return n }")
	for _, c := range []struct{ code, want string }{
		{"b := make([]int, size(2000), size(3000))\nfmt.Sprint(len(b), cap(b), calls)", `"2000 3000 2"`},
		{"calls = 0\nvar g = make([]byte, size(5000))\nfmt.Sprint(len(g), calls)", `"5000 1"`},
		{"var xs []int\nfor i := 0; i < 5000; i++ { xs = append(xs, i, i) }\nfmt.Sprint(len(xs), xs[9999])", `"10000 4999"`},
		{"ys := []int{1}\nfor i := 0; i < 12; i++ { ys = append(ys, ys...) }\nlen(ys)", "4096"},
		{"zs := append([]byte(\"go\"), \"pher\"...)\nstring(zs)", `"gopher"`},
		{"m := map[string][]int{}\nfor i := 0; i < 3000; i++ { m[\"k\"] = append(m[\"k\"], i) }\nlen(m[\"k\"])", "3000"},
		{"calls = 0\nfunc two() []int { calls++; return []int{1, 2} }\nws := append(two(), two()...)\nfmt.Sprint(ws, calls)", `"[1 2 1 2] 2"`},
		{"n := 0\nfor s := []int{}; len(s) < 3; s = append(s, len(make([]int, size(1500)))) { n++ }\nn", "3"},
		{"k := 1200\nq := make([]float64, k, k*2)\nfmt.Sprint(len(q), cap(q))", `"1200 2400"`},
		{"func grid(n int) [][]int { g := make([][]int, n); for i := range g { g[i] = make([]int, n) }; return g }\nlen(grid(2000)[1999])", "2000"},
		{"var arr [4096]int64\narr[4095] = 7\narr[4095]", "7"},
		{"big := make(map[int]int, 1<<40)\nlen(big)", "0"}, // Go bounds a map's size hint itself
	} {
		if got := run(t, s, c.code); got != c.want {
			t.Errorf("%q = %s, want %s", c.code, got, c.want)
		}
	}
}

// TestAppendGrowthUnderLimit runs the test binary again under an
// address-space limit 1 GiB above its size, where a slice that append
// doubles must fail with a MemoryError before the runtime is refused the
// memory (which would end the process), and the session must go on.
func TestAppendGrowthUnderLimit(t *testing.T) {
	if os.Getenv("PATHNOTES_TEST_APPEND_LIMIT") == "1" {
		s := newSession(t)
		rlimittest.LimitAddressSpace(t, 1<<30)
		for _, c := range []struct{ code, drop string }{
			{"xs := make([]byte, 1<<20)\nfor {\n\txs = append(xs, xs...)\n}", "xs = nil"},
			{"ys := make([]int64, 0, 1<<10)\nchunk := make([]int64, 1<<16)\nfor {\n\tys = append(ys, chunk...)\n}", "ys = nil"},
		} {
			e := cellError(t, s, c.code)
			fmt.Printf("%s: %s\n", e.Name, e.Value)
			run(t, s, c.drop)
		}
		fmt.Println("alive:", run(t, s, "1 + 1"))
		return
	}
	if runtime.GOOS != "linux" {
		t.Skip("the address-space limit is set through Linux's /proc")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAppendGrowthUnderLimit$", "-test.count=1")
	cmd.Env = append(os.Environ(), "PATHNOTES_TEST_APPEND_LIMIT=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	text := string(out)
	if strings.Count(text, "MemoryError: append growing") != 2 || !strings.Contains(text, "alive: 2") {
		t.Errorf("want two MemoryErrors from append and a live session:\n%s", text)
	}
}

// BenchmarkAllocChecks measures what the checks of make and append cost
// interpreted loops that allocate, with the checks and without: a million
// appends of one value, a million makes of 3 elements with a size in a
// variable, and 100,000 makes of 2,000 elements (the size above
// makeCheckFrom, so that each make calls the check).
//
//	go test -run XXX -bench AllocChecks ./kernel/session
func BenchmarkAllocChecks(b *testing.B) {
	loops := []struct{ name, code string }{
		{"append", "func f%d() { var s []int; for i := 0; i < 1000000; i++ { s = append(s, i) }; sink = s }\nf%d()"},
		{"make-small", "func f%d() { k := 3; for i := 0; i < 1000000; i++ { b := make([]int, k); b[0] = i } }\nf%d()"},
		{"make-2000", "func f%d() { k := 2000; for i := 0; i < 100000; i++ { b := make([]int, k); b[0] = i } }\nf%d()"},
	}
	s := newSession(b)
	run(b, s, "var sink []int")
	defer func() { allocChecks = true }()
	n := 0
	for _, l := range loops {
		for _, checked := range []bool{true, false} {
			name := l.name + "/unchecked"
			if checked {
				name = l.name + "/checked"
			}
			b.Run(name, func(b *testing.B) {
				allocChecks = checked
				for range b.N {
					n++
					run(b, s, fmt.Sprintf(l.code, n, n))
				}
			})
		}
	}
}

package session

import (
	"fmt"
	"runtime"
	"testing"
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

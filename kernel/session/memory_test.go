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
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
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
	growth := int64(after) - int64(before)
	t.Logf("heap %d KB before, %d KB after %d cells: %d bytes per cell", before>>10, after>>10, n, growth/n)
	// Each cell keeps a little of its compilation (yaegi's symbols, the
	// position table of its source): about 7 KB measured. Keeping the 64 KB
	// buffer that every fourth cell declares again would add 16 MB, keeping
	// each cell's syntax tree (as yaegi does for its debugger) about 20 MB.
	if growth > 12<<20 {
		t.Errorf("heap grew by %d MB over %d cells", growth>>20, n)
	}
}

package session

import (
	"context"
	"runtime"
	"testing"

	"github.com/traefik/yaegi/interp"

	"github.com/pathnotes/pathnotes/bindings"
	"github.com/pathnotes/pathnotes/display"
)

// kernelOptions are the options the kernel starts its sessions with (see
// newSession in the root package), less the magics.
func kernelOptions() Options {
	return Options{
		Symbols: []interp.Exports{bindings.Symbols},
		Prelude: bindings.Prelude,
		Doc:     bindings.Doc,
		Present: func(v any) Renderer { return display.Present(v) },
	}
}

// startAndRunOne is what a kernel does before its first execute_reply:
// start a session and run the cell `1`.
func startAndRunOne(tb testing.TB) {
	s, err := New(kernelOptions())
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	b, err := s.Execute(context.Background(), "1", newRecorder())
	if err != nil {
		tb.Fatal(err)
	}
	if b == nil || b.Data["text/plain"] != "1" {
		tb.Fatalf("cell 1 gave %+v, want text/plain 1", b)
	}
}

// BenchmarkSessionStart measures starting a session with the kernel's
// options and running its first cell, `1`; -benchmem shows what it
// allocates.
//
//	go test -run XXX -bench SessionStart -benchmem ./kernel/session
func BenchmarkSessionStart(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		startAndRunOne(b)
	}
}

// TestSessionStartAllocations bounds what starting a session and running
// `1` allocates (about 6 MiB: the interpreter's tables of the standard
// library and the bindings, and the prelude compiled), so that work moved
// into the start (a font parsed, a table copied) shows here.
func TestSessionStartAllocations(t *testing.T) {
	startAndRunOne(t) // package-level caches filled once per process
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	startAndRunOne(t)
	runtime.ReadMemStats(&after)
	const limit = 16 << 20
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > limit {
		t.Errorf("a session start and its first cell allocated %.1f MiB, want under %d MiB", float64(alloc)/(1<<20), limit>>20)
	} else {
		t.Logf("a session start and its first cell allocated %.1f MiB in %d objects", float64(alloc)/(1<<20), after.Mallocs-before.Mallocs)
	}
}

// trivialSession starts a session with the kernel's options, declares x
// for trivialCells, and closes the session when the test ends.
func trivialSession(tb testing.TB) *Session {
	tb.Helper()
	s, err := New(kernelOptions())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	run(tb, s, "x := 0")
	return s
}

// trivialCells runs n cells x = 1 in s.
func trivialCells(tb testing.TB, s *Session, n int) {
	for range n {
		if _, err := s.Execute(context.Background(), "x = 1", newRecorder()); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkTrivialCell measures the session's part of the everyday round
// trip: a cell x = 1 with the kernel's options.
//
//	go test -run XXX -bench TrivialCell -benchmem ./kernel/session
func BenchmarkTrivialCell(b *testing.B) {
	s := trivialSession(b)
	b.ReportAllocs()
	b.ResetTimer()
	trivialCells(b, s, b.N)
}

// TestTrivialCellAllocations bounds what a trivial cell allocates (about 8
// KiB), which the garbage collector pays for at every round trip: the
// rewrites a cell goes through, and the interpreter's global frame, which
// yaegi made anew at every cell, a copy growing with the session.
func TestTrivialCellAllocations(t *testing.T) {
	s := trivialSession(t)
	trivialCells(t, s, 1000)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const n = 500
	trivialCells(t, s, n)
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 20<<10 {
		t.Errorf("a cell x = 1 allocated %d bytes, want under 20 KiB", per)
	}
}

package session

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/traefik/yaegi/interp"
)

// runtime.Goexit in a cell ends the cell with an error, after the cell's
// deferred calls ran; the session goes on.
func TestGoexitEndsCell(t *testing.T) {
	s := newSession(t)
	run(t, s, `import ("runtime"; "time")
after := false`)
	for _, code := range []string{
		"runtime.Goexit()\nafter = true",
		"func quit() { defer fmt.Println(\"deferred\"); runtime.Goexit() }\nquit()\nafter = true",
		"var v = func() int { runtime.Goexit(); return 1 }()",
	} {
		ce := cellError(t, s, code)
		if ce.Name != "Goexit" || !strings.Contains(ce.Value, "did not run") {
			t.Errorf("cell %q: error %s: %s, want a Goexit error saying the rest did not run", code, ce.Name, ce.Value)
		}
		if got := run(t, s, "after"); got != "false" {
			t.Errorf("after cell %q, after = %s, want false", code, got)
		}
	}
	// A goroutine of the cell may end itself: the cell is fine.
	if got := run(t, s, `done := make(chan bool)
go func() { defer close(done); runtime.Goexit() }()
<-done
time.Sleep(10 * time.Millisecond)
1 + 1`); got != "2" {
		t.Errorf("a cell whose goroutine called runtime.Goexit gave %q, want 2", got)
	}
}

// An interrupt that ends a guarded call (guard.go ends its goroutine when
// the call returns) is reported as an interrupt, and the guard's Goexit,
// which comes while the next cell runs, leaves that cell alone.
func TestGoexitInterruptStaysInterrupt(t *testing.T) {
	s, err := New(Options{Symbols: []interp.Exports{slowSymbols}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run(t, s, `import "example.com/slow"
import "time"`)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = s.Execute(ctx, "r := slow.One(300, 1)\n_ = r", newRecorder())
	if ce, ok := err.(*CellError); !ok || ce.Name != "Interrupted" {
		t.Fatalf("interrupted cell: error %v, want Interrupted", err)
	}
	if got := run(t, s, "time.Sleep(400 * time.Millisecond)\n3"); got != "3" {
		t.Errorf("the cell after the interrupt gave %q, want 3", got)
	}
}

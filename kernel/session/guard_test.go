package session

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/traefik/yaegi/interp"
)

// Slow is a compiled type whose methods ignore the cell's context.
type Slow struct{}

// Value returns v after ms milliseconds.
func (Slow) Value(ms, v int) int {
	time.Sleep(time.Duration(ms) * time.Millisecond)
	return v
}

// Pair returns v and nil after ms milliseconds.
func (*Slow) Pair(ms, v int) (int, error) {
	time.Sleep(time.Duration(ms) * time.Millisecond)
	return v, nil
}

// slowSymbols is a bound package whose functions ignore the cell's context,
// as a compiled solver run on context.Background() does.
var slowSymbols = interp.Exports{"example.com/slow/slow": {
	// Value returns v after ms milliseconds.
	"Value": reflect.ValueOf(func(ms, v int) (int, error) {
		time.Sleep(time.Duration(ms) * time.Millisecond)
		return v, nil
	}),
	// One returns v after ms milliseconds.
	"One": reflect.ValueOf(func(ms, v int) int {
		time.Sleep(time.Duration(ms) * time.Millisecond)
		return v
	}),
	"Slow":    reflect.ValueOf((*Slow)(nil)),
	"NewSlow": reflect.ValueOf(func() *Slow { return &Slow{} }),
	// Each calls f(0) … f(n-1), ms milliseconds apart.
	"Each": reflect.ValueOf(func(n, ms int, f func(int)) {
		for i := range n {
			time.Sleep(time.Duration(ms) * time.Millisecond)
			f(i)
		}
	}),
}}

// TestInterruptedBoundCallKeepsNewValue interrupts a cell while a bound call
// that ignores the cell's context runs, assigns the variable in the next
// cell, waits until the abandoned call has returned, and checks that the
// variable keeps the new value: the abandoned call must not deliver its
// result.
func TestInterruptedBoundCallKeepsNewValue(t *testing.T) {
	tests := []struct{ name, setup, code, reset, check string }{
		{"call and assign, two values", "", "r, _ = slow.Value(400, 1500)", "", ""},
		{"call and define again", "", "r, err := slow.Value(400, 1500)\n_ = err", "", ""},
		{"one value", "", "r = slow.One(400, 1500)", "", ""},
		{"in a function", "func fill() { r, _ = slow.Value(400, 1500) }", "fill()", "", ""},
		{"in a top-level loop", "", "for i := 0; i < 3; i++ { r = slow.One(400, 1500+i) }", "", ""},
		{"callback", "", "slow.Each(3, 200, func(i int) { r = 1500 + i })", "", ""},
		{"method", "", "r = sl.Value(400, 1500)", "", ""},
		{"method, two values", "", "r, _ = sl.Pair(400, 1500)", "", ""},
		{"method, all defined again", "var err error", "r, err := sl.Pair(400, 1500)\n_ = err", "", ""},
		{"method in an expression", "", "r = 2 * sl.Value(400, 750)", "", ""},
		{"method, op-assign", "", "r += sl.Value(400, 1500)", "", ""},
		{"method in a function", "func fill() { r = sl.Value(400, 1500) }", "fill()", "", ""},
		{"method into a global's field", "type box struct{ v int }\nvar b = &box{}\nfunc fill() { b.v = sl.Value(400, 1500) }", "fill()", "b.v = 7", "b.v"},
		{"method in a top-level loop", "", "for i := 0; i < 3; i++ { r = sl.Value(400, 1500+i) }", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each has its own session; the time is spent sleeping
			s, err := New(Options{Symbols: []interp.Exports{slowSymbols}})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			run(t, s, "import \"example.com/slow\"\nvar r int\nsl := slow.NewSlow()\n"+tt.setup)
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			_, err = s.Execute(ctx, tt.code, newRecorder())
			if ce, ok := err.(*CellError); !ok || ce.Name != "Interrupted" {
				t.Fatalf("error %v, want Interrupted", err)
			}
			if tt.reset == "" {
				tt.reset, tt.check = "r = 7", "r"
			}
			run(t, s, tt.reset)
			time.Sleep(900 * time.Millisecond) // the abandoned call returns meanwhile
			if got := run(t, s, tt.check); got != "7" {
				t.Errorf("%s = %s after the interrupted call returned, want 7", tt.check, got)
			}
			if got := run(t, s, "slow.One(0, 5)"); got != "5" {
				t.Errorf("a bound call after the interrupt gave %q, want 5", got)
			}
		})
	}
}

// TestInterruptedStdlibCallKeepsNewValue checks the same for a function
// of the standard library, which is not guarded: its assignment is split.
// io.ReadFull waits for a child process that writes after 400 ms.
func TestInterruptedStdlibCallKeepsNewValue(t *testing.T) {
	s := newSession(t)
	run(t, s, `import (
	"io"
	"os"
	"os/exec"
)
var r int
pr, pw, _ := os.Pipe()
cmd := exec.Command("sh", "-c", "sleep 0.4; echo 1500")
cmd.Stdout = pw
buf := make([]byte, 5)`)
	run(t, s, "startErr := cmd.Start()\nstartErr")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := s.Execute(ctx, "r, _ = io.ReadFull(pr, buf)", newRecorder())
	if ce, ok := err.(*CellError); !ok || ce.Name != "Interrupted" {
		t.Fatalf("error %v, want Interrupted", err)
	}
	run(t, s, "r = 7")
	time.Sleep(900 * time.Millisecond) // io.ReadFull returns 5 meanwhile
	if got := run(t, s, "r"); got != "7" {
		t.Errorf("r = %s after the interrupted call returned, want 7", got)
	}
	if got := run(t, s, "cmd.Wait()\nstring(buf)"); got != `"1500\n"` {
		t.Errorf("the child wrote %s, want 1500", got)
	}
}

// The hooks of a trailing expression drop a value that arrives when the
// next cell already runs: a compiled call that ignored an interrupt must not
// become that cell's result.
func TestStaleTrailingValueDropped(t *testing.T) {
	s := newSession(t)
	h := s.hooks
	show := h.showFor(h.gen.Load())
	h.hasValue.Store(false)
	h.gen.Add(1) // the next cell starts
	show(errors.New("signal: killed"))
	if h.hasValue.Load() {
		t.Errorf("a value of the previous cell became the result: %v", h.result.Load())
	}
	h.showFor(h.gen.Load())(7)
	if !h.hasValue.Load() {
		t.Error("the running cell's value was dropped")
	}
}

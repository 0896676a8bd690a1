package session

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRuntimeErrors checks that failures of running code become CellErrors
// with the cell's positions, and that the session keeps its state.
func TestRuntimeErrors(t *testing.T) {
	tests := []struct {
		name, code string
		kind       string
		value      string // substring of the error value
		trace      string // substring of some traceback line
	}{
		{"panic with a string", "keep := 1\n_ = keep\npanic(\"boom\")", "panic", "boom", "in main (Cell In[2], line 3)"},
		{"panic with an int", "panic(42)", "panic", "42 (int)", ""},
		{"panic with an error", "panic(fmt.Errorf(\"bad %d\", 7))", "panic", "bad 7", ""},
		{"nil map", "var nm map[string]int\nnm[\"a\"] = 1", "RuntimeError", "assignment to entry in nil map", "in main (Cell In[2], line 2)"},
		// Compiled Go names the index and the length; the session can where
		// the statement is top-level code of the cell.
		{"index out of range", "xs := []int{1, 2}\ni := 5\n_ = xs[i]", "RuntimeError", "runtime error: index out of range [5] with length 2", ""},
		{"constant index out of range", "ys := []int{1, 2, 3, 4}\nys[21]", "RuntimeError", "runtime error: index out of range [21] with length 4", ""},
		{"index of a field", "type box struct{ Items []string }\nb := box{[]string{\"a\"}}\nk := 2\nfmt.Println(b.Items[k-1+len(b.Items)])", "RuntimeError", "index out of range [2] with length 1", ""},
		{"string index out of range", "word := \"go\"\n_ = word[len(word)]", "RuntimeError", "index out of range [2] with length 2", ""},
		// In a block, i is the loop's, not the session's: no guess.
		{"index out of range in a loop", "i := 7\nzs := []int{1, 2}\nfor i := 0; i <= 2; i++ {\n\t_ = zs[i]\n}", "RuntimeError", "runtime error: index out of range (reflect: slice index out of range)", ""},
		{"division by zero", "zero := 0\n_ = 10 / zero", "RuntimeError", "integer divide by zero", ""},
		{"nil pointer", "type node struct{ next *node; v int }\nvar np *node\n_ = np.v", "RuntimeError", "nil pointer dereference", ""},
		{"panic in a function shows the call stack", "func inner() { panic(\"deep\") }\nfunc outer() { inner() }\n\nouter()", "panic", "deep", "in inner (Cell In[2], line 1)"},
		{"os.Exit does not end the kernel", "import \"os\"\nos.Exit(3)", "panic", "os.Exit(3)", ""},
		{"log.Fatal does not end the kernel", "import \"log\"\nlog.Fatal(\"fatal\")", "panic", "fatal", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t)
			run(t, s, "state := \"kept\"")
			e := cellError(t, s, tt.code)
			if e.Name != tt.kind || !strings.Contains(e.Value, tt.value) {
				t.Errorf("got %s: %q, want %s containing %q", e.Name, e.Value, tt.kind, tt.value)
			}
			if len(e.Traceback) == 0 || !strings.Contains(e.Traceback[0], tt.value) {
				t.Errorf("traceback %q does not start with the error", e.Traceback)
			}
			if tt.trace != "" && !strings.Contains(strings.Join(e.Traceback, "\n"), tt.trace) {
				t.Errorf("traceback %q lacks %q", e.Traceback, tt.trace)
			}
			if got := run(t, s, "state"); got != `"kept"` {
				t.Errorf("state after the error: %q", got)
			}
		})
	}
}

// TestStackOverflow checks that runaway recursion fails cleanly (Go's own
// stack overflow would kill the process), fast, and leaves a working session.
func TestStackOverflow(t *testing.T) {
	for _, depth := range []int{0, 500} {
		s, err := New(Options{MaxDepth: depth})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		run(t, s, "calls := 0\nfunc down(n int) int { calls++; return down(n+1) + 1 }")
		start := time.Now()
		e := cellError(t, s, "down(0)")
		if e.Name != "StackOverflow" || !strings.Contains(e.Value, "nested calls") {
			t.Errorf("MaxDepth %d: got %v", depth, e)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("MaxDepth %d: the overflow took %v to report", depth, d)
		}
		want := depth
		if want == 0 {
			want = DefaultMaxDepth
		}
		if got := run(t, s, "calls"); got != strconv.Itoa(want) {
			t.Errorf("MaxDepth %d: %s calls before the error, want %d", depth, got, want)
		}
		// The depth count is back to zero: recursion within the limit works.
		run(t, s, "func fact(n int) int { if n <= 1 { return 1 }; return n * fact(n-1) }")
		if got := run(t, s, "fact(10)"); got != "3628800" {
			t.Errorf("after the overflow: fact(10) = %s", got)
		}
		if d := s.hooks.depth.Load(); d != 0 {
			t.Errorf("call depth after the cells: %d", d)
		}
	}
	if _, err := New(Options{MaxDepth: -1}); err == nil {
		t.Error("New accepted a negative MaxDepth")
	}
}

// TestInterrupt checks that cancelling the context stops loops that never
// call anything within a second, and that the session and its state survive.
func TestInterrupt(t *testing.T) {
	tests := []struct{ name, code string }{
		{"empty loop", "for {}"},
		{"loop with a body", "for { x++ }"},
		{"loop in a function", "func spin() { for { x-- } }\nspin()"},
		{"blocked on a channel", "ch := make(chan int)\n<-ch"},
		{"select with no case", "select {}"},
		{"sleep", "import \"time\"\ntime.Sleep(time.Hour)"},
	}
	s := newSession(t)
	run(t, s, "x := 0")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := s.Execute(ctx, tt.code, newRecorder())
				done <- err
			}()
			time.Sleep(200 * time.Millisecond)
			start := time.Now()
			cancel()
			select {
			case err := <-done:
				if d := time.Since(start); d > time.Second {
					t.Errorf("stopped after %v, want within 1s", d)
				}
				if ce, ok := err.(*CellError); !ok || ce.Name != "Interrupted" {
					t.Errorf("error %v, want Interrupted", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the cell did not stop within 5s of the interrupt")
			}
			run(t, s, "x = 7")
			if got := run(t, s, "x"); got != "7" {
				t.Errorf("x = %s after the interrupt, want 7", got)
			}
		})
	}
}

// TestInterruptedCellDoesNotResume checks that what follows a blocking call
// in an interrupted cell does not run once the next cell starts: yaegi
// would resume the cell's top-level statements.
func TestInterruptedCellDoesNotResume(t *testing.T) {
	s := newSession(t)
	run(t, s, "import \"time\"\nflag := 0")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := s.Execute(ctx, "time.Sleep(400 * time.Millisecond)\nflag = 1", newRecorder())
	if ce, ok := err.(*CellError); !ok || ce.Name != "Interrupted" {
		t.Fatalf("error %v, want Interrupted", err)
	}
	run(t, s, "time.Sleep(600 * time.Millisecond)")
	if got := run(t, s, "flag"); got != "0" {
		t.Errorf("flag = %s: the interrupted cell went on after its sleep", got)
	}
}

// TestGoroutinePanic checks that a panic in a goroutine started by a cell
// is reported on stderr and does not end the process.
func TestGoroutinePanic(t *testing.T) {
	for _, code := range []string{
		"go func() { panic(\"in literal\") }()",
		"func crash(msg string) { panic(msg) }\ngo crash(\"in named\")",
	} {
		s := newSession(t)
		r := newRecorder()
		if _, err := s.Execute(t.Context(), code+"\nimport \"time\"\ntime.Sleep(100 * time.Millisecond)", r); err != nil {
			t.Fatalf("%q: %v", code, err)
		}
		if !strings.Contains(r.stderr(), "panic in a goroutine: in ") {
			t.Errorf("%q: stderr %q lacks the goroutine's panic", code, r.stderr())
		}
		if got := run(t, s, "1 + 1"); got != "2" {
			t.Errorf("after the goroutine panic: %q", got)
		}
	}
}

// TestCompilePanicRecovered checks that a construct that makes yaegi panic
// while compiling gives a CellError.
func TestCompilePanicRecovered(t *testing.T) {
	s := newSession(t)
	e := cellError(t, s, "func first[E any](x []E) {}\nfirst(3)")
	if e.Name != "InterpreterError" && e.Name != "CompileError" {
		t.Errorf("got %v", e)
	}
	if got := run(t, s, "2 * 3"); got != "6" {
		t.Errorf("after the failure: %q", got)
	}
}

package session

import (
	"context"
	"strings"
	"testing"
)

// A var declaration whose initializer names a variable of an earlier cell
// runs (yaegi alone reports a variable definition loop), in Go's order.
func TestVarOfEarlierVariable(t *testing.T) {
	s := newSession(t)
	run(t, s, "a := 1")
	run(t, s, "var early = 5")
	for _, c := range []struct{ code, want string }{
		{"var b = a + 1\nb", "2"},
		{"var c = early * a\nc", "5"},
		// Late specs in dependency order, a function of the cell in an
		// initializer, and a function that reads a late variable.
		{"func double(x int) int { return 2 * x }\nvar d = double(b)\nfunc show() int { return d + e }\nvar e = d * 10\nvar z = 3\nshow() + z", "47"},
		{"var (\n\tg = h * 2\n\th = a + 1\n)\ng", "4"},
		// A later cell's function sees the late variable, which keeps its slot.
		{"func readB() int { return b }\nb = 7\nreadB()", "7"},
		// The variable of the earlier cell declared again in the same
		// cell: assigned first, as Go would order it.
		{"var m = a * 100\nvar a = 3\nm", "300"},
	} {
		if got := run(t, s, c.code); got != c.want {
			t.Errorf("%q = %q, want %q", c.code, got, c.want)
		}
	}
}

// A late initializer that fails names the cell's line, and one that names
// another in a cycle is still an error.
func TestVarOfEarlierVariableErrors(t *testing.T) {
	s := newSession(t)
	run(t, s, "zero := 0")
	if ce := cellError(t, s, "x := 1\n\nvar q = x / zero"); !strings.Contains(strings.Join(ce.Traceback, "\n"), "line 3, column 5") {
		t.Errorf("division by zero: %v, want line 3, column 5 named", ce)
	}
	if ce := cellError(t, s, "var u = v + zero\nvar v = u"); ce.Name != "CompileError" {
		t.Errorf("cycle: %v, want a compile error", ce)
	}
}

// TestVarInitCycle checks that variables whose initializers name each
// other are reported as an initialization cycle at the first of them
// (yaegi alone says "undefined: main"), and that the session goes on.
func TestVarInitCycle(t *testing.T) {
	s := newSession(t)
	for _, c := range []struct{ code, want string }{
		{"var u = v\nvar v = u", "line 1, column 5: initialization cycle: u refers to v refers to u"},
		{"var a = 1\nvar x = y + a\nvar y = z * 2\nvar z = x", "line 2, column 5: initialization cycle: x refers to y refers to z refers to x"},
	} {
		_, err := s.Execute(context.Background(), c.code, newRecorder())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.code, err, c.want)
		}
	}
	if got := run(t, s, "var k = 2\nvar m = k * 3\nm"); got != "6" {
		t.Errorf("after the cycles: %s", got)
	}
}

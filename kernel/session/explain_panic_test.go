package session

import "testing"

// TestPanicValueOfCellType checks that a panic of a value of a type the
// cell declared names the type, and shows the text of an Error or String
// method (value or pointer receiver), as Go's runtime does.
func TestPanicValueOfCellType(t *testing.T) {
	s := newSession(t)
	run(t, s, `type Code int
type Word string
type E struct{ msg string }
func (e E) Error() string { return "E says " + e.msg }
type P struct{ msg string }
func (p *P) Error() string { return "P says " + p.msg }
type N struct{ n int }
func (n N) String() string { return "N" }
type S struct{ A int }`)
	tests := []struct{ code, want string }{
		{"panic(Code(3))", "main.Code(3)"},
		{"panic(Word(\"w\"))", `main.Word("w")`},
		{"panic(E{\"boom\"})", "E says boom"},
		{"panic(&P{\"pp\"})", "P says pp"},
		{"panic(N{1})", "N"},
		{"panic(S{4})", "{4} (main.S)"},
		{"func f() { panic(E{\"in f\"}) }\nf()", "E says in f"},
		{"panic(3)", "3 (int)"},
	}
	for _, tt := range tests {
		e := cellError(t, s, tt.code)
		if e.Name != "panic" || e.Value != tt.want {
			t.Errorf("%s: %s: %q, want panic: %q", tt.code, e.Name, e.Value, tt.want)
		}
	}
	// recover sees the value itself (as yaegi gives it: without its type).
	run(t, s, "func try() (r any) { defer func() { r = recover() }(); panic(Code(9)) }")
	run(t, s, "func tryE() (r any) { defer func() { r = recover() }(); panic(E{\"x\"}) }")
	if got := run(t, s, "fmt.Sprint(try(), tryE())"); got != `"9 {x}"` {
		t.Errorf("recovered %s, want 9 {x}", got)
	}
}

package session

import (
	"go/parser"
	"strings"
	"testing"
)

// TestStatementHeaders checks that the semicolons of if, for and switch
// headers do not cut a top-level statement: "err != nil { … }" after one
// would otherwise parse as a trailing expression (a composite literal).
func TestStatementHeaders(t *testing.T) {
	s := newSession(t)
	run(t, s, "func two() (int, error) { return 2, nil }\nx := 0")
	tests := []struct{ code, want string }{
		{"if v, err := two(); err != nil { panic(err) } else { x = v }\nx", "2"},
		{"if v, err := two(); err != nil { panic(err) }", ""},
		{"if x = 0; x > 1 { x = 5 } else if y := 3; y > 2 { x = y }\nx", "3"},
		{"for i := 0; i < 3; i++ { x += i }\nx", "6"},
		{"switch y := x; y { case 6: x = 60 }\nx", "60"},
		{"if v, err := two(); err == nil { x = v }", ""},
	}
	for _, tt := range tests {
		if got := run(t, s, tt.code); got != tt.want {
			t.Errorf("%q = %q, want %q", tt.code, got, tt.want)
		}
	}
}

// TestItemStmt checks the cut that spares a parse of a cell's last item:
// an item marked stmt never parses as an expression, and the usual
// statements are marked.
func TestItemStmt(t *testing.T) {
	items := []struct {
		text string
		stmt bool
	}{
		{"x = 1", true}, {"x++", true}, {"y := f(a == b)", true}, {"m[k] += 2", true}, {"var v = 3", true},
		{"if x > 0 { x = 2 }", true}, {"for i := range xs { _ = i }", true}, {"return", true},
		{"go f()", true}, {"defer g()", true}, {"L: x = 3", true},
		// Not marked: parsed to tell.
		{"ch <- 1", false}, {"f(a, b = c)", false},
		// Expressions.
		{"x", false}, {"func() int { x = 1; return x }()", false}, {"map[string]int{\"a\": 1}", false},
		{"<-ch", false}, {"x == 1", false}, {"xs[i:j]", false}, {"struct{ a int }{a: 1}", false},
	}
	var cell strings.Builder
	for _, it := range items {
		cell.WriteString(it.text + "\n")
	}
	got := splitCell(cell.String())
	if len(got) != len(items) {
		t.Fatalf("%d items, want %d", len(got), len(items))
	}
	for i, it := range got {
		text := strings.TrimSpace(cell.String()[it.start:it.end])
		if it.stmt != items[i].stmt {
			t.Errorf("%q: stmt %v, want %v", text, it.stmt, items[i].stmt)
		}
		if _, err := parser.ParseExpr(text); it.stmt && err == nil {
			t.Errorf("%q is marked a statement but parses as an expression", text)
		}
	}
}

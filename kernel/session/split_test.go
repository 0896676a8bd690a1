package session

import (
	"testing"

	"github.com/traefik/yaegi/interp"
)

// TestSplitMethodAssignsKeepsMeaning runs assignments from method calls in
// the forms the split rewrites or leaves alone, and checks their results.
func TestSplitMethodAssignsKeepsMeaning(t *testing.T) {
	s, err := New(Options{Symbols: []interp.Exports{slowSymbols}, Prelude: []string{"fmt"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run(t, s, `import "example.com/slow"
import "strings"
sl := slow.NewSlow()
type T struct{ n int }
func (t T) Get() int { return t.n }
func (t *T) Two() (int, string) { return t.n, "two" }
var x int
var u uint64
var f float64
var ok bool
var str string
m := map[string]int{"a": 1}
xs := []int{0, 0, 0}
tt := &T{5}`)
	tests := []struct{ code, want string }{
		{"x = sl.Value(0, 3)\nx", "3"},
		{"x, _ = sl.Pair(0, 4)\nx", "4"},
		{"x, str = tt.Two()\nfmt.Sprint(x, str)", `"5two"`},
		{"x = 2*tt.Get() + 1\nx", "11"},
		{"x += sl.Value(0, 1)\nx", "12"},
		{"u = 1 << sl.Value(0, 3)\nu", "8"},
		{"f = float64(tt.Get()) / 2\nf", "2.5"},
		{"ok = tt.Get() > 4\nok", "true"},
		{"x, ok = m[strings.ToLower(\"A\")]\nfmt.Sprint(x, ok)", `"1 true"`},
		{"for i := 0; i < 3; i++ { xs[i] = sl.Value(0, i*10) }\nxs", "[0 10 20]"},
		{"func g() int { var y int; y = tt.Get(); y, str = tt.Two(); return y }\ng()", "5"},
		{"if true { x, str = tt.Two() }\nx", "5"},
	}
	for _, tt := range tests {
		if got := run(t, s, tt.code); got != tt.want {
			t.Errorf("%q = %s, want %s", tt.code, got, tt.want)
		}
	}
}

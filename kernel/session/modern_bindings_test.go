package session

import (
	"testing"

	"github.com/traefik/yaegi/interp"

	"github.com/pathnotes/pathnotes/bindings"
)

// TestModernWithProjectPackages runs the rewrites in a session with the
// kernel's own packages: types come from their symbol tables.
func TestModernWithProjectPackages(t *testing.T) {
	s, err := New(Options{Symbols: []interp.Exports{bindings.Symbols}, Prelude: bindings.Prelude})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run(t, s, "g, err := graph.FromTriples(3, [][3]int{{0, 1, 5}, {1, 2, 7}})")
	if got := run(t, s, "n := 0\nfor v := range g.N() { n += v }\nn"); got != "3" {
		t.Errorf("range over g.N(): %q", got)
	}
	run(t, s, "func Apply[T, U any](x T, f func(T) U) U { return f(x) }")
	if got := run(t, s, "Apply(g, func(h *graph.Graph) int { return h.M() })"); got != "2" {
		t.Errorf("inferred call with a project type: %q", got)
	}
	if got := run(t, s, "slices.Max([]int{g.N(), g.M()})"); got != "3" {
		t.Errorf("slices.Max: %q", got)
	}
}

package driver

import "testing"

// TestHandles checks that handles start at 1, that a freed slot is reused,
// that get refuses handles outside the table, and that freeing a handle of
// a table emptied since (a Reset) does nothing.
func TestHandles(t *testing.T) {
	var h handles[string]
	a, b := h.add("a"), h.add("b")
	if a != 1 || b != 2 {
		t.Fatalf("handles %d, %d, want 1, 2", a, b)
	}
	if v, ok := h.get(b); !ok || v != "b" {
		t.Errorf("get(%d) = %q, %v", b, v, ok)
	}
	for _, bad := range []int{0, -1, 3} {
		if _, ok := h.get(bad); ok {
			t.Errorf("get(%d) accepted", bad)
		}
	}
	h.free(a)
	if v, ok := h.get(a); !ok || v != "" {
		t.Errorf("freed handle: %q, %v, want the zero value in the table", v, ok)
	}
	if c := h.add("c"); c != a {
		t.Errorf("add after free: %d, want the freed %d", c, a)
	}
	h = handles[string]{}
	h.free(2)
	if d := h.add("d"); d != 1 {
		t.Errorf("after a reset: %d, want 1", d)
	}
}

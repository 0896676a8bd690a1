package graph

import (
	"slices"
	"strings"
	"testing"
)

// ParseMatrix reads D and Π as the documents print them, and names what it
// cannot read.
func TestParseMatrix(t *testing.T) {
	d, err := ParseMatrix("0 5 ∞ | ∞ 0 2\n3 ∞ 0", false)
	if err != nil || !slices.Equal(d, []int32{0, 5, Inf, Inf, 0, 2, 3, Inf, 0}) {
		t.Errorf("D = %v, %v", d, err)
	}
	pi, err := ParseMatrix("NIL 1 | 2 NIL", true)
	if err != nil || !slices.Equal(pi, []int32{Nil, 0, 1, Nil}) {
		t.Errorf("Π = %v, %v", pi, err)
	}
	if m, err := ParseMatrix("", false); err != nil || len(m) != 0 {
		t.Errorf("the empty matrix: %v, %v", m, err)
	}
	for text, want := range map[string]string{
		"0 x | 1 0":   `cell 2, "x"`,
		"0 1 2 | 3 4": "5 cells, not a square matrix",
		"0 1 | 3 9e9": `cell 4, "9e9"`,
	} {
		if _, err := ParseMatrix(text, false); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseMatrix(%q): %v, want %q", text, err, want)
		}
	}
}

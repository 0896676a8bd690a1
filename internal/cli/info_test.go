package cli

import (
	"errors"
	"strings"
	"testing"
)

// Info prints the version, the CPU and then the sections in the order
// given.
func TestInfo(t *testing.T) {
	var b strings.Builder
	err := Info(&b, nil, []func() string{func() string { return "gpu: two\nlines\n" }, func() string { return "cuda compilers: none" }})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	want := []string{Version(), "cpu: ", "gpu: two", "lines", "cuda compilers: none"}
	if len(lines) != len(want) {
		t.Fatalf("lines %q, want %d", lines, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d = %q, want it to start with %q", i, lines[i], w)
		}
	}
	if err := Info(&b, []string{"extra"}, nil); !errors.Is(err, ErrUsage) {
		t.Errorf("extra argument: %v, want a usage error", err)
	}
}

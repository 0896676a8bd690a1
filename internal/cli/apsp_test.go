package cli

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestLoadAPSPGraph(t *testing.T) {
	g, err := loadAPSPGraph("gnm:n=300,density=4,seed=3")
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := g.WeightRange()
	if g.N() != 300 || g.M() != 1200 || lo < 1 || hi > 100 {
		t.Errorf("gnm:n=300,density=4: %v", g)
	}
	// bench's weights: 1..100 lowered so that (n-1)·max stays below 2^22.
	if g, err = loadAPSPGraph("gnm:n=65536,density=1"); err != nil {
		t.Fatal(err)
	}
	if _, hi := g.WeightRange(); hi > 64 {
		t.Errorf("n=65536: weights up to %d, want at most 64", hi)
	}
	if g, err = loadAPSPGraph("gnm:n=50,w=-3..9"); err != nil {
		t.Fatal(err)
	}
	if lo, hi := g.WeightRange(); lo < -3 || hi > 9 || g.M() != 50*49 {
		t.Errorf("gnm:n=50,w=-3..9: %v", g)
	}
	for _, bad := range []string{"gnm:", "gnm:n=x", "gnm:n=10,w=1", "gnm:n=10,colour=red", "gnm:n=10,density=0"} {
		if _, err := loadAPSPGraph(bad); !errors.Is(err, ErrUsage) {
			t.Errorf("%q: %v, want a usage error", bad, err)
		}
	}
	if _, err := loadAPSPGraph("no/such/file.txt"); err == nil || !strings.Contains(err.Error(), "no/such/file.txt") {
		t.Errorf("a missing file: %v", err)
	}
}

func TestWithoutFlag(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"g", "--local-ranks", "4", "--out", "d"}, []string{"g", "--out", "d"}},
		{[]string{"-local-ranks=2", "g", "--pred"}, []string{"g", "--pred"}},
		{[]string{"g", "--out", "local-ranks"}, []string{"g", "--out", "local-ranks"}},
	} {
		if got := withoutFlag(c.in, "local-ranks"); !slices.Equal(got, c.want) {
			t.Errorf("withoutFlag(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestAPSPUsage(t *testing.T) {
	for _, args := range [][]string{
		{"gnm:n=10"},                    // no --out
		{"--out", "d"},                  // no graph
		{"gnm:n=10", "--out", "d", "x"}, // two graphs
		{"gnm:n=10", "--out", "d", "--grid", "2by2"},
		{"gnm:n=10", "--out", "d", "--grid", "0x4"},
	} {
		if err := APSP(args); !errors.Is(err, ErrUsage) {
			t.Errorf("apsp %q: %v, want a usage error", args, err)
		}
	}
}

package graph

import (
	"slices"
	"strings"
	"testing"
)

func TestCheckTraceSize(t *testing.T) {
	if err := CheckTraceSize("solver", MaxTraceN); err != nil {
		t.Errorf("n = MaxTraceN refused: %v", err)
	}
	err := CheckTraceSize("cpu.FloydWarshall", MaxTraceN+1)
	if err == nil {
		t.Fatal("n = MaxTraceN+1 accepted")
	}
	for _, want := range []string{"cpu.FloydWarshall", "65 vertices", "64"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestFWStepTitle(t *testing.T) {
	cases := []struct {
		step FWStep
		want string
	}{
		{FWStep{K: 0, Round: -1}, "initial (k = 0)"},
		{FWStep{K: 3, Round: -1}, "k = 3"},
		{FWStep{K: 4, Round: 1, Phase: 2}, "round 1, phase 2"},
	}
	for _, c := range cases {
		if got := c.step.Title(); got != c.want {
			t.Errorf("%+v.Title() = %q, want %q", c.step, got, c.want)
		}
	}
}

func TestSettleOrder(t *testing.T) {
	tr := &DijkstraTrace{Steps: []DijkstraStep{{Settled: 2}, {Settled: 0}, {Settled: 1}}}
	if got := tr.SettleOrder(); !slices.Equal(got, []int{2, 0, 1}) {
		t.Errorf("SettleOrder() = %v", got)
	}
}

package display

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/graph"
)

// bfExample is a five-vertex graph with negative arcs and no negative
// cycle; from s the distances are s 0, t 2, x 4, y 7, z -2 (vertices are
// numbered as they first appear: s, t, y, x, z).
func bfExample(t *testing.T) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder(0)
	for _, a := range []struct {
		u, v string
		w    int32
	}{{"s", "t", 6}, {"s", "y", 7}, {"t", "x", 5}, {"t", "y", 8}, {"t", "z", -4}, {"x", "t", -2}, {"y", "x", -3}, {"y", "z", 9}, {"z", "s", 2}, {"z", "x", 7}} {
		b.AddLabeled(a.u, a.v, a.w)
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// bfRun traces cpu.BellmanFord from vertex 0 of g.
func bfRun(t *testing.T, g *graph.Graph) (*graph.BFTrace, *graph.SingleSource, error) {
	t.Helper()
	var tr graph.BFTrace
	r, err := cpu.BellmanFord(context.Background(), g, 0, cpu.BFOptions{Pred: true, Trace: &tr})
	return &tr, r, err
}

func TestBFTraceRecordsPasses(t *testing.T) {
	tr, r, err := bfRun(t, bfExample(t))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int32{"s": 0, "t": 2, "x": 4, "y": 7, "z": -2}
	for u, l := range r.Labels {
		if r.Dist[u] != want[l] {
			t.Fatalf("distance to %s is %d, want %d", l, r.Dist[u], want[l])
		}
	}
	if !slices.Equal(tr.Initial, []int32{0, graph.Inf, graph.Inf, graph.Inf, graph.Inf}) || tr.N != 5 || tr.Solver != cpu.VariantBF {
		t.Errorf("trace header: n=%d solver %q initial %v", tr.N, tr.Solver, tr.Initial)
	}
	last := tr.Passes[len(tr.Passes)-1]
	if !slices.Equal(last.Dist, r.Dist) || !slices.Equal(last.Pred, r.Pred) || len(last.Relaxed) != 0 {
		t.Errorf("last pass: C %v π %v relaxed %v; want the result and no arcs", last.Dist, last.Pred, last.Relaxed)
	}
	// Each pass scans the vertices the previous one lowered, in the order
	// it first lowered them, and lowers exactly the heads of its arcs.
	scan := []int{0}
	prev := tr.Initial
	for i, p := range tr.Passes {
		if !slices.Equal(p.Scanned, scan) {
			t.Errorf("pass %d scans %v, want %v", i+1, p.Scanned, scan)
		}
		scan = nil
		for _, a := range p.Relaxed {
			if !slices.Contains(scan, a[1]) {
				scan = append(scan, a[1])
			}
		}
		var lowered []int
		for u := range p.Dist {
			if p.Dist[u] != prev[u] {
				lowered = append(lowered, u)
			}
		}
		sorted := slices.Sorted(slices.Values(scan))
		if !slices.Equal(lowered, sorted) {
			t.Errorf("pass %d lowers %v but relaxes arcs into %v", i+1, lowered, sorted)
		}
		prev = p.Dist
	}
}

func TestBFTraceView(t *testing.T) {
	tr, _, err := bfRun(t, bfExample(t))
	if err != nil {
		t.Fatal(err)
	}
	data := bundle(t, BFTrace(tr))
	h := str(t, data, MIMEHTML)
	checkSelfContained(t, h)
	if len(stepperIDs(t, h)) != 1 {
		t.Fatal("want one stepper")
	}
	panels := stepElements(t, h)
	if len(panels) != len(tr.Passes)+1 {
		t.Fatalf("%d panels, want %d", len(panels), len(tr.Passes)+1)
	}
	tabs := tables(t, h)
	for i, p := range tr.Passes {
		rows := tabs[i+1]
		prev := tr.Initial
		if i > 0 {
			prev = tr.Passes[i-1].Dist
		}
		for u := range tr.N {
			c := rows[u+1]
			if c[1].text != graph.FormatDist(p.Dist[u]) || c[1].changed != (p.Dist[u] != prev[u]) {
				t.Errorf("pass %d row %s: C %q (changed %v), want %s", i+1, tr.Labels[u], c[1].text, c[1].changed, graph.FormatDist(p.Dist[u]))
			}
			if shaded := strings.Contains(c[0].style, pivotColor); shaded != slices.Contains(p.Scanned, u) {
				t.Errorf("pass %d row %s: shaded %v, scanned %v", i+1, tr.Labels[u], shaded, p.Scanned)
			}
		}
	}
	if !strings.Contains(h, "pass 1: scan s") || !strings.Contains(h, "relaxed arcs: s→t, s→y") {
		t.Error("pass 1 does not say it scans s and relaxes s→t, s→y")
	}
	text := str(t, data, MIMEText)
	for _, want := range []string{"pass  scanned", "init  –", "1     s", "s→t, s→y", "passes; the last relaxes nothing"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

func TestBFTraceNegativeCycle(t *testing.T) {
	g, err := graph.NewBuilder(0).AddLabeled("a", "b", 1).AddLabeled("b", "c", -3).AddLabeled("c", "a", 1).Build()
	if err != nil {
		t.Fatal(err)
	}
	tr, _, err := bfRun(t, g)
	var nc *graph.NegativeCycleError
	if !errors.As(err, &nc) {
		t.Fatalf("err = %v, want a negative cycle", err)
	}
	if len(tr.NegativeCycle) != 3 || !slices.Equal(tr.NegativeCycle, nc.Cycle) || len(tr.Passes) == 0 {
		t.Fatalf("trace cycle %v (error's %v), %d passes", tr.NegativeCycle, nc.Cycle, len(tr.Passes))
	}
	data := bundle(t, BFTrace(tr))
	for _, mime := range []string{MIMEHTML, MIMEText} {
		if !strings.Contains(str(t, data, mime), "stopped on the negative cycle ") {
			t.Errorf("%s does not report the negative cycle", mime)
		}
	}
}

func TestBFTraceErrors(t *testing.T) {
	for _, tt := range []struct {
		tr   *graph.BFTrace
		want string
	}{
		{nil, "nil trace"},
		{&graph.BFTrace{N: 2, Source: 2}, "source 2 out of range"},
		{&graph.BFTrace{N: 1, Initial: []int32{0}, Passes: []graph.BFPass{{Dist: []int32{0}, Scanned: []int{4}}}}, "pass 1 scans vertex 4"},
		{&graph.BFTrace{N: 1, Initial: []int32{0}, NegativeCycle: []int{7}}, "names vertex 7"},
	} {
		v := BFTrace(tt.tr)
		if err := v.Err(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("err = %v, want %q", err, tt.want)
		}
		if s := str(t, bundle(t, v), MIMEText); !strings.Contains(s, tt.want) {
			t.Errorf("bundle %q does not show the error", s)
		}
	}
}

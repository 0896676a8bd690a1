package cpu

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/graph"
)

// TestAsWrittenMatchesNaive checks that the thesis's loop as written and the
// row-skipping one agree step by step: the same D^(k) and Π^(k) in the trace
// and the same result, on the thesis's Fig. 3.1 graph and on sparse random
// graphs with many unreachable pairs (n = 0 and 1 included), and that the
// as-written run names its own variant.
func TestAsWrittenMatchesNaive(t *testing.T) {
	ctx := context.Background()
	graphs := []*graph.Graph{example(t, "karaula-fig3.1")}
	for _, n := range []int{0, 1, 2, 9, 30} {
		g, err := graph.GNM(n, min(n, n*max(n-1, 0)), graph.WeightRange{Min: -5, Max: 40}, uint64(n)+7)
		if err != nil {
			t.Fatal(err)
		}
		graphs = append(graphs, g)
	}
	for _, g := range graphs {
		var trNaive, trWritten graph.FWTrace
		naive, err1 := FloydWarshall(ctx, g, FWOptions{Pred: true, Trace: &trNaive})
		written, err2 := FloydWarshallAsWritten(ctx, g, FWOptions{Pred: true, Trace: &trWritten})
		if (err1 == nil) != (err2 == nil) || (err1 != nil && reflect.TypeOf(err1) != reflect.TypeOf(err2)) {
			t.Fatalf("%s: naive error %v, as-written error %v", g, err1, err2)
		}
		if err1 != nil {
			continue
		}
		if written.Solver != VariantFWAsWritten || trWritten.Solver != VariantFWAsWritten {
			t.Errorf("%s: solver %q, trace solver %q, want %q", g, written.Solver, trWritten.Solver, VariantFWAsWritten)
		}
		if !slices.Equal(naive.Dist, written.Dist) || !slices.Equal(naive.Pred, written.Pred) {
			t.Fatalf("%s: as-written result differs from naive", g)
		}
		if len(trNaive.Steps) != g.N()+1 || len(trWritten.Steps) != len(trNaive.Steps) {
			t.Fatalf("%s: %d and %d trace steps, want %d", g, len(trNaive.Steps), len(trWritten.Steps), g.N()+1)
		}
		for k := range trNaive.Steps {
			a, b := trNaive.Steps[k], trWritten.Steps[k]
			if !slices.Equal(a.Dist, b.Dist) || !slices.Equal(a.Pred, b.Pred) {
				t.Fatalf("%s: step %d differs between naive and as-written", g, k)
			}
		}
	}
}

// TestAsWrittenUnreachable checks the INF test of the thesis's loop on a
// graph where most pairs have no path: they stay Inf with a Nil
// predecessor, and no sum with Inf leaks into a finite cell.
func TestAsWrittenUnreachable(t *testing.T) {
	g, err := graph.FromTriples(5, [][3]int{{0, 1, 4}, {1, 2, -3}, {3, 4, 2}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := FloydWarshallAsWritten(context.Background(), g, FWOptions{Pred: true})
	if err != nil {
		t.Fatal(err)
	}
	const I = graph.Inf
	want := []int32{
		0, 4, 1, I, I,
		I, 0, -3, I, I,
		I, I, 0, I, I,
		I, I, I, 0, 2,
		I, I, I, I, 0,
	}
	sameDist(t, res.Dist, want, 5, "as-written")
	for c, d := range want {
		if (d == I) != (res.Pred[c] == graph.Nil) && c%6 != 0 {
			t.Errorf("cell %d: distance %d with predecessor %d", c, res.Dist[c], res.Pred[c])
		}
	}
	if err := res.Verify(g); err != nil {
		t.Fatal(err)
	}
}

// TestFWRowsSplit checks FloydWarshall and FloydWarshallAsWritten with
// their rows split over several workers against the same solver on one:
// the same distances and Π cell for cell on every family of randomGraphs
// (negative arcs, parallel arcs, loops, n = 0 and 1, sizes that no worker
// count divides), on a graph heavy enough for the int64 path, the same
// negative cycle where there is one, and an error for a negative count.
func TestFWRowsSplit(t *testing.T) {
	ctx := context.Background()
	graphs := randomGraphs(t, []int{0, 1, 2, 7, 33}, 2)
	heavy, err := graph.GNM(20, 120, graph.WeightRange{Min: 1 << 24, Max: 1 << 26}, 5) // 19 × 2²⁶ > MaxDistance: the int64 path
	if err != nil {
		t.Fatal(err)
	}
	graphs = append(graphs, testGraph{g: heavy})
	solvers := map[string]func(context.Context, *graph.Graph, FWOptions) (*graph.AllPairs, error){
		"FloydWarshall": FloydWarshall, "FloydWarshallAsWritten": FloydWarshallAsWritten,
	}
	for name, solve := range solvers {
		for _, tg := range graphs {
			one, err1 := solve(ctx, tg.g, FWOptions{Pred: true})
			for _, w := range []int{2, 3, 8, 50} {
				split, err2 := solve(ctx, tg.g, FWOptions{Pred: true, Workers: w})
				if tg.negCycle {
					checkNegativeCycle(t, tg.g, err2, true, name)
					if err1 == nil || err1.Error() != err2.Error() {
						t.Errorf("%s on %s, %d workers: %v, one worker: %v", name, tg.g.Name(), w, err2, err1)
					}
					continue
				}
				if err1 != nil || err2 != nil {
					t.Fatalf("%s on %s, %d workers: %v; one worker: %v", name, tg.g.Name(), w, err2, err1)
				}
				if !slices.Equal(one.Dist, split.Dist) || !slices.Equal(one.Pred, split.Pred) {
					t.Fatalf("%s on %s: %d workers differ from one", name, tg.g.Name(), w)
				}
			}
		}
		if _, err := solve(ctx, graphs[0].g, FWOptions{Workers: -1}); err == nil || !strings.Contains(err.Error(), "negative worker count") {
			t.Errorf("%s with Workers -1: %v, want a negative worker count error", name, err)
		}
	}
}

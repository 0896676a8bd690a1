package session

import (
	"context"
	"testing"
	"time"

	"github.com/traefik/yaegi/interp"

	"github.com/pathnotes/pathnotes/bindings"
	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/graph"
)

// TestInterruptedSolverKeepsNewValue is the notebook case: a cell runs
// cpu.FloydWarshall on context.Background(), which an interrupt cannot
// stop; the next cell gives r a small result; once the abandoned solver has
// finished, r must still hold the small one.
func TestInterruptedSolverKeepsNewValue(t *testing.T) {
	const n = 700
	big, err := graph.GNM(n, 4*n, graph.WeightRange{Min: 1, Max: 100}, 1)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now() // how long the solver takes on this machine
	if _, err := cpu.FloydWarshall(context.Background(), big, cpu.FWOptions{}); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)

	s, err := New(Options{Symbols: []interp.Exports{bindings.Symbols}, Prelude: bindings.Prelude})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run(t, s, `import "context"
big, _ := graph.GNM(700, 2800, graph.WeightRange{Min: 1, Max: 100}, 1)
small, _ := graph.GNM(3, 3, graph.WeightRange{Min: 1, Max: 9}, 1)
r, _ := cpu.FloydWarshall(context.Background(), small, cpu.FWOptions{})`)
	ctx, cancel := context.WithTimeout(context.Background(), took/5)
	defer cancel()
	_, err = s.Execute(ctx, "r, _ = cpu.FloydWarshall(context.Background(), big, cpu.FWOptions{})", newRecorder())
	if ce, ok := err.(*CellError); !ok || ce.Name != "Interrupted" {
		t.Fatalf("error %v, want Interrupted (the solver took %v alone)", err, took)
	}
	run(t, s, "r, _ = cpu.FloydWarshall(context.Background(), small, cpu.FWOptions{})")
	time.Sleep(2*took + 200*time.Millisecond) // the abandoned solver ends meanwhile
	if got := run(t, s, "r.N"); got != "3" {
		t.Errorf("r.N = %s after the interrupted solver finished, want 3", got)
	}
}

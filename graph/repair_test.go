package graph

import "testing"

// A zero-weight cycle lets predecessors loop: a→b→c→b with w(b,c) = w(c,b)
// = 0 and Π[a][b] = c, Π[a][c] = b has the right distances but no path.
// RepairPredecessors rebuilds that row, and only that row.
func TestRepairPredecessors(t *testing.T) {
	g, err := Parse("a->b 1, b->c 0, c->b 0, c->d 2")
	if err != nil {
		t.Fatal(err)
	}
	r, _ := NewAllPairs(4, true)
	r.Labels = g.Labels()
	d := [][]int32{{0, 1, 1, 3}, {Inf, 0, 0, 2}, {Inf, 0, 0, 2}, {Inf, Inf, Inf, 0}}
	p := [][]int32{{Nil, 2, 1, 2}, {Nil, Nil, 1, 2}, {Nil, 2, Nil, 2}, {Nil, Nil, Nil, Nil}}
	for i := range 4 {
		copy(r.Dist[i*4:], d[i])
		copy(r.Pred[i*4:], p[i])
	}
	if err := r.Verify(g); err == nil {
		t.Fatal("Verify accepted cyclic predecessors")
	}
	before := append([]int32(nil), r.Pred[4:]...)
	if got := r.RepairPredecessors(g); got != 1 {
		t.Fatalf("repaired %d rows, want 1", got)
	}
	if err := r.Verify(g); err != nil {
		t.Fatalf("after repair: %v", err)
	}
	for k, v := range before {
		if r.Pred[4+k] != v {
			t.Fatalf("row b..d changed at %d: %d, was %d", k, r.Pred[4+k], v)
		}
	}
	if got := r.RepairPredecessors(g); got != 0 {
		t.Fatalf("second repair rebuilt %d rows", got)
	}
}

package graph

import (
	"testing"
)

func TestConstantDegree(t *testing.T) {
	w := WeightRange{1, 10}
	for _, c := range []struct{ n, k int }{{2, 1}, {3, 2}, {8, 7}, {9, 7}, {100, 1}, {1000, 7}, {300, 299}, {500, 250}} {
		g, err := ConstantDegree(c.n, c.k, w, 5)
		if err != nil {
			t.Fatalf("ConstantDegree(%d, %d): %v", c.n, c.k, err)
		}
		checkSimpleGraph(t, g, c.n, c.n*c.k, w)
		for u := range c.n {
			if g.OutDegree(u) != c.k {
				t.Fatalf("%s: vertex %d has out-degree %d", g.Name(), u, g.OutDegree(u))
			}
			if _, ok := g.Weight(u, (u+1)%c.n); !ok {
				t.Fatalf("%s: ring arc %d->%d missing", g.Name(), u, (u+1)%c.n)
			}
		}
		checkStronglyConnected(t, g)
	}
	checkReproducible(t, func(seed uint64) (*Graph, error) { return ConstantDegree(5000, 7, w, seed) })
}

// TestConstantDegreeUniformTargets checks that the random targets spread
// evenly: with n = 20000 and k = 7 each vertex expects 1 ring arc plus 6
// random ones in, and a Poisson(6) count above 25 has probability ~1e-8.
func TestConstantDegreeUniformTargets(t *testing.T) {
	g, err := ConstantDegree(20000, 7, WeightRange{1, 10}, 9)
	if err != nil {
		t.Fatal(err)
	}
	in := make([]int, g.N())
	weights := make(map[int32]int)
	for _, v := range g.Targets() {
		in[v]++
	}
	for _, x := range g.Weights() {
		weights[x]++
	}
	for v, d := range in {
		if d < 1 || d > 26 {
			t.Fatalf("vertex %d has in-degree %d", v, d)
		}
	}
	// The random targets' distance ahead of their source, (v-u) mod n, is
	// uniform on 2..n-1: its mean over 120000 arcs is (n+1)/2 ± about 17.
	n, sum := g.N(), 0
	for u := range n {
		ts, _ := g.Out(u)
		for _, v := range ts {
			if int(v) != (u+1)%n {
				sum += (int(v) - u + n) % n
			}
		}
	}
	if mean := float64(sum) / float64(n*6); mean < 0.49*float64(n) || mean > 0.51*float64(n) {
		t.Fatalf("random targets lie on average %.0f ahead of their source, want about %d", mean, (n+1)/2)
	}
	for x := int32(1); x <= 10; x++ {
		if share := float64(weights[x]) / float64(g.M()); share < 0.09 || share > 0.11 {
			t.Fatalf("weight %d has share %.4f of the arcs, want about 0.1", x, share)
		}
	}
	if g.Name() != "constdegree(n=20000,k=7,w=1..10,seed=9)" {
		t.Fatalf("name %q", g.Name())
	}
}

func TestComplete(t *testing.T) {
	w := WeightRange{-4, 4}
	for _, n := range []int{0, 1, 2, 5, 33, 200} {
		g, err := Complete(n, w, 1)
		if err != nil {
			t.Fatal(err)
		}
		checkSimpleGraph(t, g, n, n*max(n-1, 0), w)
		for u := range n {
			if g.OutDegree(u) != max(n-1, 0) {
				t.Fatalf("complete(%d): vertex %d has out-degree %d", n, u, g.OutDegree(u))
			}
		}
	}
	checkReproducible(t, func(seed uint64) (*Graph, error) { return Complete(100, w, seed) })
}

func TestDegreeArgErrors(t *testing.T) {
	w := WeightRange{1, 10}
	checkArgErrors(t, []argError{
		{"n=1", func() (*Graph, error) { return ConstantDegree(1, 7, w, 1) }, "need n ≥ k+1 = 8"},
		{"n=k", func() (*Graph, error) { return ConstantDegree(7, 7, w, 1) }, "n=7 vertices cannot have out-degree k=7"},
		{"k=0", func() (*Graph, error) { return ConstantDegree(10, 0, w, 1) }, "k ≥ 1"},
		{"negative n", func() (*Graph, error) { return ConstantDegree(-1, 3, w, 1) }, "n=-1"},
		{"too many arcs", func() (*Graph, error) { return ConstantDegree(10_000_000, 300, w, 1) }, "int32 offsets"},
		{"weights", func() (*Graph, error) { return ConstantDegree(10, 3, WeightRange{2, 1}, 1) }, "empty weight range"},
		{"complete negative", func() (*Graph, error) { return Complete(-2, w, 1) }, "negative vertex count -2"},
		{"complete too big", func() (*Graph, error) { return Complete(46342, w, 1) }, "int32 offsets"},
		{"complete weights", func() (*Graph, error) { return Complete(3, WeightRange{-MaxDistance - 1, 0}, 1) }, "beyond"},
	})
}

func BenchmarkConstantDegree1M(b *testing.B) {
	benchMake(b, func() (*Graph, error) { return ConstantDegree(1_000_000, 7, WeightRange{1, 10}, 1) })
}

func BenchmarkConstantDegree10M(b *testing.B) {
	benchMake(b, func() (*Graph, error) { return ConstantDegree(10_000_000, 7, WeightRange{1, 10}, 1) })
}

func BenchmarkComplete4096(b *testing.B) {
	benchMake(b, func() (*Graph, error) { return Complete(4096, WeightRange{1, 100}, 1) })
}

package graph

import (
	"slices"
	"strings"
	"testing"
)

const gnutella30 = "../data/snap/p2p-Gnutella30.txt.gz"

// gnutellaWeights are the weights [Bodra]'s weight script (Listing 8) adds to the Gnutella graphs.
var gnutellaWeights = WeightRange{1, 100}

func TestReadGnutella30(t *testing.T) {
	g, err := ReadFile(gnutella30, ReadOptions{Weights: gnutellaWeights, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if g.N() != 36682 || g.M() != 88328 {
		t.Fatalf("n=%d m=%d, want the header's Nodes: 36682 Edges: 88328", g.N(), g.M())
	}
	if g.Name() != "p2p-Gnutella30.txt" || g.Labels() != nil || len(g.Notes()) != 0 {
		t.Errorf("name %q, labels %d, notes %q: want the file name, ids as vertices and no notes", g.Name(), len(g.Labels()), g.Notes())
	}
	// The file starts with "0 1" … "0 10", then "2 141", "2 343".
	if ts, _ := g.Out(0); !slices.Equal(ts, []int32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}) {
		t.Errorf("arcs out of 0 go to %v, want 1..10", ts)
	}
	if g.OutDegree(1) != 0 {
		t.Errorf("vertex 1 has %d out-arcs, want none", g.OutDegree(1))
	}
	if ts, _ := g.Out(2); len(ts) < 2 || !slices.Contains(ts, 141) || !slices.Contains(ts, 343) {
		t.Errorf("arcs out of 2 go to %v, want 141 and 343 among them", ts)
	}
	if _, ok := g.Weight(36674, 36677); !ok {
		t.Error("the file's last arc 36674->36677 is missing")
	}
	if lo, hi := g.WeightRange(); lo < 1 || hi > 100 || lo > 5 || hi < 95 {
		t.Errorf("weights %d..%d, want drawn over 1..100", lo, hi)
	}
}

func TestReadGnutellaSeed(t *testing.T) {
	read := func(seed uint64) *Graph {
		g, err := ReadFile(gnutella30, ReadOptions{Weights: gnutellaWeights, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	a, b, c := read(1), read(1), read(2)
	formatSameGraph(t, "seed 1 twice", a, b)
	if !slices.Equal(a.Targets(), c.Targets()) {
		t.Fatal("seeds 1 and 2 gave different arcs")
	}
	same := 0
	for i, w := range a.Weights() {
		if c.Weights()[i] == w {
			same++
		}
	}
	// Independent draws over 1..100 agree about 1% of the time.
	if same > a.M()/20 {
		t.Errorf("seeds 1 and 2 agree on %d of %d weights", same, a.M())
	}
}

func TestReadGnutellaOthers(t *testing.T) {
	g, err := ReadFile("../data/snap/p2p-Gnutella25.txt.gz", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g.N() != 22687 || g.M() != 54705 || g.Labels() != nil {
		t.Errorf("Gnutella25: n=%d m=%d labels %d, want 22687, 54705, none", g.N(), g.M(), len(g.Labels()))
	}
	// Gnutella04 says "Nodes: 10876" but uses ids up to 10878 (10452, 10493
	// and 10647 are unused), so its ids are compacted and kept as labels.
	g, err = ReadFile("../data/snap/p2p-Gnutella04.txt.gz", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g.N() != 10876 || g.M() != 39994 || len(g.Labels()) != 10876 {
		t.Fatalf("Gnutella04: n=%d m=%d labels %d, want 10876, 39994, 10876", g.N(), g.M(), len(g.Labels()))
	}
	if notes := strings.Join(g.Notes(), " "); !strings.Contains(notes, `id 10878 is not below "Nodes: 10876"`) {
		t.Errorf("Gnutella04 notes %q", notes)
	}
	for _, id := range []string{"0", "10878"} {
		if _, err := g.Vertex(id); err != nil {
			t.Errorf("Gnutella04: %v", err)
		}
	}
	if _, err := g.Vertex("10452"); err == nil {
		t.Error("Gnutella04: unused id 10452 names a vertex")
	}
}

// BenchmarkReadGnutella30 reads the gzip-compressed p2p-Gnutella30 (36,682
// vertices, 88,328 arcs) with drawn weights, as the notebooks do.
func BenchmarkReadGnutella30(b *testing.B) {
	benchMake(b, func() (*Graph, error) { return ReadFile(gnutella30, ReadOptions{Weights: gnutellaWeights, Seed: 1}) })
}

package graph_test

import (
	"fmt"
	"strings"

	"github.com/pathnotes/pathnotes/graph"
)

// Parse takes arcs as a notebook user types them; vertices named by words
// become labels, numbered in order of first appearance.
func ExampleParse() {
	g, err := graph.Parse("a->b 5, a->c 9, b->c 1, c->d 2, d->b 3")
	if err != nil {
		panic(err)
	}
	fmt.Println(g.N(), "vertices,", g.M(), "arcs:", g.Labels())
	w, ok := g.Weight(1, 2)
	fmt.Println("b->c:", w, ok)
	// Output:
	// 4 vertices, 5 arcs: [a b c d]
	// b->c: 1 true
}

// Read reads the documents' edge list: "n m" on the first line, then one
// "from to weight" line per arc, 0-based.
func ExampleRead() {
	text := "3 3\n0 1 4\n1 2 -1\n0 2 5\n"
	g, err := graph.Read(strings.NewReader(text), graph.ReadOptions{Format: graph.FormatEdgeList, Name: "tiny.txt"})
	if err != nil {
		panic(err)
	}
	fmt.Println(g.Name(), g.N(), g.M(), g.HasNegative())
	for _, a := range g.Arcs() {
		fmt.Println(a)
	}
	// Output:
	// tiny.txt 3 3 true
	// 0->1 4
	// 0->2 5
	// 1->2 -1
}

// GNP draws a random digraph of a given density; the same seed gives the
// same graph on every machine.
func ExampleGNP() {
	g, err := graph.GNP(100, 0.15, graph.WeightRange{Min: 1, Max: 100}, 1)
	if err != nil {
		panic(err)
	}
	lo, hi := g.WeightRange()
	fmt.Printf("n=%d m=%d density=%.2f weights in [%d, %d]\n", g.N(), g.M(), g.Density(), lo, hi)
	// Output:
	// n=100 m=1485 density=0.15 weights in [1, 100]
}

// Example returns the documents' worked examples, with notes that say where
// each comes from.
func ExampleExample() {
	g, err := graph.Example("karaula-fig3.1")
	if err != nil {
		panic(err)
	}
	fmt.Println(g.Name(), g.N(), g.M())
	fmt.Println(g.Notes()[0])
	// Output:
	// karaula-fig3.1 5 9
	// [Karaula 2017] §3.1, Example 6, Fig. 3.1: the Floyd-Warshall trace example (D^(k), Π^(k) for k = 0..5).
}

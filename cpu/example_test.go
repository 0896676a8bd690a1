package cpu_test

import (
	"context"
	"fmt"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/graph"
)

// karaula is the Floyd-Warshall example of [Karaula 2017] §3.1, Fig. 3.1.
func karaula() *graph.Graph {
	g, err := graph.Example("karaula-fig3.1")
	if err != nil {
		panic(err)
	}
	return g
}

// FloydWarshall is the triple loop with the predecessor matrix Π; paths
// are rebuilt from Π.
func ExampleFloydWarshall() {
	g := karaula()
	r, err := cpu.FloydWarshall(context.Background(), g, cpu.FWOptions{Pred: true})
	if err != nil {
		panic(err)
	}
	for i := range g.N() {
		fmt.Println(r.Dist[i*g.N() : (i+1)*g.N()])
	}
	p, _ := r.Path(3, 1)
	fmt.Println(p, "by", r.Solver)
	// Output:
	// [0 5 6 2 3]
	// [5 0 2 7 8]
	// [3 8 0 5 6]
	// [2 4 4 0 1]
	// [1 3 5 3 0]
	// d -> e -> b (weight 4) by fw-cpu-naive
}

// FloydWarshallBlocked gives the same distances tile by tile.
func ExampleFloydWarshallBlocked() {
	g := karaula()
	r, err := cpu.FloydWarshallBlocked(context.Background(), g, cpu.FWOptions{Tile: 2})
	if err != nil {
		panic(err)
	}
	naive, _ := cpu.FloydWarshall(context.Background(), g, cpu.FWOptions{})
	fmt.Println(r.Solver, "row a:", r.Dist[:5], "same as naive:", r.SameDistances(naive))
	// Output:
	// fw-cpu-blocked row a: [0 5 6 2 3] same as naive: true
}

// Dijkstra solves one source; Inf marks vertices it cannot reach.
func ExampleDijkstra() {
	g, err := graph.Parse("s->a 2, s->b 7, a->b 3, a->c 8, a->d 6, b->c 1, b->d 2, c->d 4, x->s 1")
	if err != nil {
		panic(err)
	}
	r, err := cpu.Dijkstra(context.Background(), g, 0, cpu.DijkstraOptions{Pred: true})
	if err != nil {
		panic(err)
	}
	for v := range g.N() {
		fmt.Println(g.Label(v), graph.FormatDist(r.Dist[v]))
	}
	p, _ := r.PathTo(4)
	fmt.Println(p)
	// Output:
	// s 0
	// a 2
	// b 5
	// c 6
	// d 7
	// x ∞
	// s -> a -> b -> d (weight 7)
}

// DijkstraAll solves all pairs as one Dijkstra run per source, in
// parallel; Row gives one source's answer.
func ExampleDijkstraAll() {
	g, err := graph.Example("musap-sabcd")
	if err != nil {
		panic(err)
	}
	r, err := cpu.DijkstraAll(context.Background(), g, cpu.APSPOptions{Pred: true})
	if err != nil {
		panic(err)
	}
	p, _ := r.Path(1, 4)
	fmt.Println(r.Solver, r.Row(0).Dist, p)
	// Output:
	// dijkstra-cpu [0 2 5 6 7] a -> b -> d (weight 5)
}

// BellmanFord accepts negative arcs and reports a negative cycle as a
// *graph.NegativeCycleError.
func ExampleBellmanFord() {
	g, err := graph.Parse("0->1 4, 0->2 5, 2->1 -3")
	if err != nil {
		panic(err)
	}
	r, err := cpu.BellmanFord(context.Background(), g, 0, cpu.BFOptions{})
	fmt.Println(r.Dist, err)

	cyclic, _ := graph.Parse("0->1 1, 1->2 -2, 2->1 1")
	_, err = cpu.BellmanFord(context.Background(), cyclic, 0, cpu.BFOptions{})
	fmt.Println(err != nil)
	// Output:
	// [0 2 5] <nil>
	// true
}

// Johnson solves all pairs with negative arcs: one Bellman-Ford run to
// reweight, then Dijkstra from every source.
func ExampleJohnson() {
	g, err := graph.Parse("0->1 4, 0->2 5, 2->1 -3, 1->0 1")
	if err != nil {
		panic(err)
	}
	r, err := cpu.Johnson(context.Background(), g, cpu.APSPOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Solver, r.Dist)
	// Output:
	// johnson-cpu [0 2 5 1 0 6 -2 -3 0]
}

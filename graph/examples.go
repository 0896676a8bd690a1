package graph

import (
	"fmt"
	"strings"
)

// example is one worked example of the source documents.
type example struct {
	name   string
	labels []string
	arcs   string // in Parse's arc form, labels as vertex names
	notes  []string
}

// examples lists the documents' worked examples in document order. The arcs
// are written out exactly as the documents give them (docs/sources.md).
var examples = []example{
	{
		name:   "karaula-fig2.3",
		labels: []string{"a", "b", "c", "d", "e"},
		arcs:   "a->b 1, b->c 2, c->d 2, c->e 4, d->b 1, d->c 3, e->d 5",
		notes: []string{
			"[Karaula 2017] §2.2, Example 3, Fig. 2.3: weighted digraph with 7 arcs; its distance matrix is matrix (2).",
			"The path a->b->c->e->d weighs 12 but d(a,d) = 5; the cycle b->c->d->b weighs 5; e cannot reach a.",
		},
	},
	{
		name:   "karaula-fig2.3-hops",
		labels: []string{"a", "b", "c", "d", "e"},
		arcs:   "a->b, b->c, c->d, c->e, d->b, d->c, e->d",
		notes: []string{
			"[Karaula 2017] §2.3.3, Example 4, matrix (1): the arcs of Fig. 2.3 with unit weights, so that distances are hop counts (matrix (1)).",
		},
	},
	{
		name:   "karaula-fig3.1",
		labels: []string{"a", "b", "c", "d", "e"},
		arcs:   "a->b 5, a->d 2, b->c 2, c->a 3, c->e 7, d->c 4, d->e 1, e->a 1, e->b 3",
		notes: []string{
			"[Karaula 2017] §3.1, Example 6, Fig. 3.1: the Floyd-Warshall trace example (D^(k), Π^(k) for k = 0..5).",
			"The thesis numbers a..e as 1..5 and prints Π 1-based with NIL; pathnotes numbers them 0..4 with Nil = -1.",
		},
	},
	{
		name:   "karaula-fig4.10",
		labels: []string{"a", "b", "c", "d"},
		arcs:   "a->b 5, a->c 9, b->c 1, c->d 2, d->b 3",
		notes: []string{
			"[Karaula 2017] §4.5, Example 7, Fig. 4.10: the blocked Floyd-Warshall example, traced with tile 2 (primary tile 0 covers a,b; tile 1 covers c,d).",
		},
	},
	{
		name:   "musap-sabcd",
		labels: []string{"s", "a", "b", "c", "d"},
		arcs:   "s->a 2, s->b 7, a->b 3, a->c 8, a->d 6, b->c 1, b->d 2, c->d 4",
		notes: []string{
			"[Musap 2016] §2.5, Figs. 2.4–2.6: Dijkstra from s; final distances s=0, a=2, b=5, c=6, d=7, settle order s,a,b,c,d.",
			"Stated or forced by the text: s->a 2, s->b 7, a->b 3, a->c 8, b->c 1, b->d 2, c->d 4 (b->d: d changes when b, at 5, settles, and is 7 afterwards).",
			"Assumed (the text does not give it): a->d 6, the smallest integer consistent with every distance change the text reports (d changes when a, at 2, settles, and again when b does; so a->d > 5, and d is 8 after a).",
		},
	},
	{
		name:   "musap-ties",
		labels: []string{"s", "a", "b", "c", "d", "e", "f", "g"},
		arcs:   "s->a 1, s->b 1, s->c 3, a->c 1, a->d 1, b->d 2, b->e 1, c->f 2, d->f 1, e->f 2, e->g 4, f->g 1",
		notes: []string{
			"Designed for pathnotes (not in the documents) to show Musap's frontier algorithm with ties: from s, a and b share distance 1 and c, d, e share distance 2.",
			"The frontier holds {a,b}, then {c,d,e}: the frontier form takes 5 while-iterations where the sequential form takes 8 steps. Distances: s=0, a=1, b=1, c=2, d=2, e=2, f=3, g=4.",
		},
	},
	{
		name:   "bodra-fig1",
		labels: []string{"S", "A", "B", "C"},
		arcs:   "S->A 1, S->B 2, A->C 5, B->C 7",
		notes: []string{
			"[Bodra] §2.1.1, Figure 1, the race toy graph: threads relaxing A->C and B->C race on distance[C]; the right value is 6, a lost update leaves 9.",
			"The figure's image is missing from the source: these weights are a consistent reconstruction (dist[A] = 1 with A->C 5 gives 6; dist[B] = 2 with B->C 7 gives 9).",
		},
	},
}

// ExampleNames returns the names Example accepts, in document order.
func ExampleNames() []string {
	names := make([]string, len(examples))
	for i, e := range examples {
		names[i] = e.name
	}
	return names
}

// Example returns one of the documents' worked examples by name, with the
// documents' vertex labels and Notes() that say where it comes from and
// what, if anything, was assumed. ExampleNames lists the names.
func Example(name string) (*Graph, error) {
	for _, e := range examples {
		if e.name != name {
			continue
		}
		g, err := Parse(e.arcs)
		if err != nil {
			return nil, fmt.Errorf("graph.Example(%q): %w", name, err)
		}
		// Parse numbers labels by first appearance; re-label into the
		// documents' vertex order so that matrices print as they do there.
		b := NewBuilder(0).Labels(e.labels...)
		for _, a := range g.Arcs() {
			b.AddLabeled(g.Label(a.From), g.Label(a.To), a.Weight)
		}
		g, err = b.Name(e.name).Build()
		if err != nil {
			return nil, fmt.Errorf("graph.Example(%q): %w", name, err)
		}
		if g.N() != len(e.labels) {
			return nil, fmt.Errorf("graph.Example(%q): %d vertices, want %d", name, g.N(), len(e.labels))
		}
		return g.WithNotes(e.notes...), nil
	}
	return nil, fmt.Errorf("graph.Example: no example %q (known: %s)", name, strings.Join(ExampleNames(), ", "))
}

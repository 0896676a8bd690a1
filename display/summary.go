package display

import (
	"fmt"
	"strings"

	"github.com/pathnotes/pathnotes/graph"
)

// GraphSummary describes a graph in numbers, for graphs too large to draw:
// size, density, degree statistics and weights. Its fields can be read in
// a cell; it shows itself as a two-column table.
type GraphSummary struct {
	Name             string
	N, M             int
	Density          float64 // m / (n(n-1)), [Karaula 2017]'s ρ
	MinOut, MaxOut   int
	MeanDegree       float64 // m / n, the mean of in- and of out-degrees
	MaxOutVertex     int     // a vertex with MaxOut arcs out
	MinIn, MaxIn     int
	MaxInVertex      int // a vertex with MaxIn arcs in
	Sources, Sinks   int // vertices without arcs in, without arcs out
	Isolated         int // vertices without any arc
	MinWeight        int32
	MaxWeight        int32
	NegativeArcs     int
	SelfLoops        int
	ReciprocatedArcs int // arcs u→v whose reverse v→u also exists
	Labelled         bool
	Notes            []string
	g                *graph.Graph
	err              error
}

// Summary counts the statistics of g in one pass over its arcs.
func Summary(g *graph.Graph) *GraphSummary {
	if g == nil {
		return &GraphSummary{err: fmt.Errorf("display: Summary of a nil graph")}
	}
	n := g.N()
	s := &GraphSummary{Name: g.Name(), N: n, M: g.M(), Density: g.Density(), Labelled: g.Labels() != nil, Notes: g.Notes(), g: g}
	s.MinWeight, s.MaxWeight = g.WeightRange()
	if n == 0 {
		return s
	}
	s.MeanDegree = float64(s.M) / float64(n)
	in := make([]int, n)
	for _, t := range g.Targets() {
		in[t]++
	}
	s.MinOut, s.MinIn = g.OutDegree(0), in[0]
	for u := 0; u < n; u++ {
		out := g.OutDegree(u)
		if out > s.MaxOut {
			s.MaxOut, s.MaxOutVertex = out, u
		}
		if in[u] > s.MaxIn {
			s.MaxIn, s.MaxInVertex = in[u], u
		}
		s.MinOut, s.MinIn = min(s.MinOut, out), min(s.MinIn, in[u])
		if in[u] == 0 {
			s.Sources++
		}
		if out == 0 {
			s.Sinks++
		}
		if in[u] == 0 && out == 0 {
			s.Isolated++
		}
		ts, ws := g.Out(u)
		for k, t := range ts {
			switch {
			case int(t) == u:
				s.SelfLoops++
			case hasArc(g, int(t), u):
				s.ReciprocatedArcs++
			}
			if ws[k] < 0 {
				s.NegativeArcs++
			}
		}
	}
	return s
}

// hasArc reports whether u→v exists, by binary search in u's sorted row
// (Graph.Weight scans the row, which is slow for the hubs of skewed graphs).
func hasArc(g *graph.Graph, u, v int) bool {
	ts, _ := g.Out(u)
	lo, hi := 0, len(ts)
	for lo < hi {
		mid := (lo + hi) / 2
		if int(ts[mid]) < v {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo < len(ts) && int(ts[lo]) == v
}

// Err returns the problem with the summary's graph, if any.
func (s *GraphSummary) Err() error {
	if s == nil {
		return fmt.Errorf("display: nil *GraphSummary")
	}
	return s.err
}

// table returns the summary as a two-column Table.
func (s *GraphSummary) table() *Table {
	name := s.Name
	if name == "" {
		name = "graph"
	}
	label := func(v int) string { return s.g.Label(v) }
	t := NewTable(name+" summary", "measure", "value")
	t.Add("vertices n", s.N)
	t.Add("arcs m", s.M)
	t.Add("density ρ = m/(n(n-1))", fmt.Sprintf("%.4g", s.Density))
	if s.N > 0 {
		t.Add("out-degree min / mean / max", fmt.Sprintf("%d / %.3g / %d (%s)", s.MinOut, s.MeanDegree, s.MaxOut, label(s.MaxOutVertex)))
		t.Add("in-degree min / mean / max", fmt.Sprintf("%d / %.3g / %d (%s)", s.MinIn, s.MeanDegree, s.MaxIn, label(s.MaxInVertex)))
		t.Add("sources / sinks / isolated", fmt.Sprintf("%d / %d / %d", s.Sources, s.Sinks, s.Isolated))
	}
	if s.M > 0 {
		t.Add("weights min .. max", fmt.Sprintf("%d .. %d", s.MinWeight, s.MaxWeight))
		t.Add("negative arcs", s.NegativeArcs)
		t.Add("arcs with a reverse arc", s.ReciprocatedArcs)
		t.Add("self-loops", s.SelfLoops)
	}
	t.Add("labels", map[bool]string{true: "yes", false: "no (vertex numbers)"}[s.Labelled])
	for _, n := range s.Notes {
		t.Note(n)
	}
	return t
}

// HTML returns the summary as an HTML table.
func (s *GraphSummary) HTML() string {
	if err := s.Err(); err != nil {
		return errorBundle(err).Data[MIMEHTML].(string)
	}
	return s.table().HTML()
}

// Text returns the summary as aligned text.
func (s *GraphSummary) Text() string {
	if err := s.Err(); err != nil {
		return "error: " + err.Error()
	}
	return strings.TrimRight(s.table().Text(), "\n")
}

// MIMEBundle returns the summary as an HTML table and text.
func (s *GraphSummary) MIMEBundle() (data, metadata map[string]any) {
	if err := s.Err(); err != nil {
		return errorBundle(err).MIMEBundle()
	}
	return s.table().MIMEBundle()
}

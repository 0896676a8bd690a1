package graph

import "fmt"

// readDIMACS reads a 9th DIMACS challenge .gr file: comment lines starting
// with "c", one problem line "p sp n m" before any arc, and exactly m arc
// lines "a u v w" with ids 1..n, which become 0..n-1.
func readDIMACS(s *lineScanner, c *collector) (*Graph, error) {
	var n, m int64
	problem := 0 // line of the "p" line, 0 before it
	arcs := int64(0)
	for s.next('c') {
		var err error
		switch string(s.fields[0]) {
		case "p":
			if problem != 0 {
				return nil, s.errorf("second problem line (the first is line %d)", problem)
			}
			if err := s.wantFields(`"p sp n m"`, 4); err != nil {
				return nil, err
			}
			if string(s.fields[1]) != "sp" {
				return nil, s.errorf("problem type %q, want \"sp\" (shortest paths)", short(s.fields[1]))
			}
			if n, m, err = s.counts(2, "vertex count n", "arc count m"); err != nil {
				return nil, err
			}
			if err := c.checkVertices(n); err != nil {
				return nil, s.errorf("problem line says n=%d: %v", n, err)
			}
			if err := checkArcs(m); err != nil {
				return nil, s.errorf("problem line says m=%d: %v", m, err)
			}
			problem = s.line
			c.arcs = prealloc(m)
		case "a":
			if problem == 0 {
				return nil, s.errorf("arc line before the \"p sp n m\" problem line")
			}
			if err := s.addArc(c, `"a u v w"`, 4, 1, 1, n); err != nil {
				return nil, err
			}
			arcs++
		default:
			return nil, s.errorf("unknown line type %q (want c, p or a)", short(s.fields[0]))
		}
	}
	if s.err != nil {
		return nil, s.err
	}
	if problem == 0 {
		return nil, fmt.Errorf("%s: no \"p sp n m\" problem line", s.name)
	}
	if arcs != m {
		return nil, s.errorAt(problem, "problem line says m=%d, file has %d arc lines", m, arcs)
	}
	return c.build(int(n), s.name)
}

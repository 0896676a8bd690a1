package graph

import (
	"fmt"
	"strconv"
)

// FormatDIMACS is the .gr format of the 9th DIMACS challenge on shortest
// paths: "c" comments, one "p sp n m" line, then m lines "a u v w" with
// 1-based ids.
const FormatDIMACS Format = 2

func init() {
	registerFormat(FormatDIMACS, formatSpec{
		name: "dimacs",
		exts: []string{".gr"},
		sniff: func(lines [][][]byte) sniffLevel {
			if t := string(lines[0][0]); t == "c" || t == "p" {
				return sniffMarked
			}
			return sniffNo
		},
		read: readDIMACS,
		layout: func(g *Graph) arcLayout {
			return arcLayout{header: nameComment(g, "c ") + "p sp " + strconv.Itoa(g.N()) + " " + strconv.Itoa(g.M()) + "\n",
				prefix: "a ", base: 1, sep: " "}
		},
	})
}

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

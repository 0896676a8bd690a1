package graph

import (
	"bytes"
	"fmt"
	"strconv"
)

// FormatSNAP is the edge list of the Stanford SNAP collection: "#" comments
// (with "# Nodes: N Edges: M"), then lines "u v" or "u v w".
const FormatSNAP Format = 3

func init() {
	registerFormat(FormatSNAP, formatSpec{
		name: "snap",
		// "#" comments, or failing every other format, lines of two or
		// three fields: a SNAP list without comments.
		sniff: func(lines [][][]byte) sniffLevel {
			switch first := lines[0]; {
			case first[0][0] == '#':
				return sniffMarked
			case len(first) == 2 || len(first) == 3:
				return sniffShape
			}
			return sniffNo
		},
		read: readSNAP,
		layout: func(g *Graph) arcLayout {
			return arcLayout{
				header: nameComment(g, "# Directed graph: ") + "# Nodes: " + strconv.Itoa(g.N()) + " Edges: " + strconv.Itoa(g.M()) +
					"\n# FromNodeId\tToNodeId\tWeight\n",
				sep: "\t",
			}
		},
	})
}

// snapArc is an arc with the file's original ids, kept until the reader
// knows whether the ids can be used as they are.
type snapArc struct {
	u, v int64
	w    int32
}

// readSNAP reads a SNAP edge list: "#" comments, among them possibly
// "Nodes: N" and "Edges: M", then lines "u v" or "u v w" with
// non-negative ids (see Read for how ids become vertices).
func readSNAP(s *lineScanner, c *collector) (*Graph, error) {
	nodes, edges := int64(-1), int64(-1)
	maxID := int64(-1)
	var raw []snapArc
	for s.next(0) {
		if s.comment('#') {
			if nodes < 0 {
				if x, found, err := s.headerCount("Nodes:"); err != nil {
					return nil, err
				} else if found {
					if err := c.checkVertices(x); err != nil {
						return nil, s.errorf("header says Nodes: %d: %v", x, err)
					}
					nodes = x
				}
			}
			if edges < 0 {
				x, found, err := s.headerCount("Edges:")
				if err != nil {
					return nil, err
				}
				if edges = x; found && raw == nil {
					raw = make([]snapArc, 0, min(x, preallocMax))
				}
			}
			continue
		}
		if err := s.wantFields(`"u v" or "u v w"`, 2, 3); err != nil {
			return nil, err
		}
		u, v, err := s.counts(0, "vertex id", "vertex id")
		if err != nil {
			return nil, err
		}
		var w int32
		if len(s.fields) == 3 {
			if w, err = s.weight(2); err != nil {
				return nil, err
			}
		} else {
			w = c.draw()
		}
		if err := checkGrowth(raw, "arcs"); err != nil {
			return nil, s.errorf("%v", err)
		}
		raw = append(raw, snapArc{u, v, w})
		maxID = max(maxID, u, v)
	}
	if s.err != nil {
		return nil, s.err
	}
	if err := checkArcs(int64(len(raw))); err != nil {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	if err := checkBytes(arcBytes(len(raw))); err != nil {
		return nil, fmt.Errorf("%s: renumbering %d arcs would %w", s.name, len(raw), err)
	}
	c.arcs = make([]Arc, len(raw))
	var notes []string
	var labels []string
	n := 0
	switch {
	case nodes >= 0 && maxID < nodes:
		n = int(nodes)
		for i, a := range raw {
			c.arcs[i] = Arc{int(a.u), int(a.v), a.w}
		}
	case len(raw) > 0:
		index := make(map[int64]int)
		id := func(x int64) int {
			v, ok := index[x]
			if !ok {
				v = len(index)
				index[x] = v
				labels = append(labels, strconv.FormatInt(x, 10))
			}
			return v
		}
		for i, a := range raw {
			u := id(a.u)
			c.arcs[i] = Arc{u, id(a.v), a.w}
		}
		n = len(index)
		if err := c.checkVertices(int64(n)); err != nil {
			return nil, fmt.Errorf("%s: %d distinct vertex ids: %v", s.name, n, err)
		}
		why := "the file gives no \"Nodes:\" count"
		if nodes >= 0 {
			why = fmt.Sprintf("id %d is not below \"Nodes: %d\"", maxID, nodes)
		}
		notes = append(notes, fmt.Sprintf("%s: %s, so its %d distinct ids were renumbered 0..%d in order of first appearance; the labels hold the original ids",
			s.name, why, n, n-1))
	}
	if edges >= 0 && edges != int64(len(raw)) {
		notes = append(notes, fmt.Sprintf("%s: header says Edges: %d, file has %d arc lines", s.name, edges, len(raw)))
	}
	g, err := c.build(n, s.name)
	if err != nil {
		return nil, err
	}
	if labels != nil {
		g.labels = labels
		if g.index, err = labelIndex(labels); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	g.notes = notes
	return g, nil
}

// headerCount finds "key N" or "keyN" on the current comment line, as in
// SNAP's "# Nodes: 36682 Edges: 88328".
func (s *lineScanner) headerCount(key string) (x int64, found bool, err error) {
	for i, f := range s.fields {
		rest, ok := bytes.CutPrefix(bytes.TrimLeft(f, "#"), []byte(key))
		if !ok {
			continue
		}
		if len(rest) == 0 {
			if i+1 == len(s.fields) {
				return 0, false, s.errorf("%q is not followed by a count", key)
			}
			rest = s.fields[i+1]
		}
		x, ok := parseInt(rest)
		if !ok || x < 0 {
			return 0, false, s.errorf("%s %q is not a count", key, short(rest))
		}
		return x, true, nil
	}
	return -1, false, nil
}

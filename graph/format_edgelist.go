package graph

import (
	"fmt"
	"strconv"
	"strings"
)

// FormatEdgeList is the documents' edge list ([Karaula 2017], [Bodra]): a
// "V E" line, then E lines "u v w" with 0-based vertex ids.
const FormatEdgeList Format = 1

func init() {
	registerFormat(FormatEdgeList, formatSpec{
		name: "edge-list",
		// A two-field first line "V E" followed by nothing or by a line
		// "u v w" with u, v < V.
		sniff: func(lines [][][]byte) sniffLevel {
			first := lines[0]
			if len(first) == 2 && (len(lines) == 1 || len(lines[1]) == 3 && idsBelow(first[0], lines[1][:2])) {
				return sniffHeader
			}
			return sniffNo
		},
		read: readEdgeList,
		layout: func(g *Graph) arcLayout {
			return arcLayout{header: strconv.Itoa(g.N()) + " " + strconv.Itoa(g.M()) + "\n", sep: " "}
		},
	})
}

// readEdgeList reads the documents' "V E" / "u v w" format. It is strict:
// the arc lines must number exactly E. [Bodra]'s sample2 (Listing 1) shows why: its
// header "100 9900" lost its newline and merged with the first arc into
// "100 99000 1 w", and a lenient reader silently dropped that arc.
func readEdgeList(s *lineScanner, c *collector) (*Graph, error) {
	if err := s.need(0, `empty input: want a "V E" header line`); err != nil {
		return nil, err
	}
	if len(s.fields) < 2 {
		return nil, s.errorf("header has %d field, want \"V E\"", len(s.fields))
	}
	n, e, err := s.counts(0, "vertex count V", "arc count E")
	if err != nil {
		return nil, err
	}
	if err := c.checkVertices(n); err != nil {
		return nil, s.errorf("header says V=%d: %v", n, err)
	}
	if err := checkArcs(e); err != nil {
		return nil, s.errorf("header says E=%d: %v", e, err)
	}
	header := s.line
	var extra []string
	for _, f := range s.fields[2:] {
		extra = append(extra, short(f))
	}
	c.arcs = prealloc(e)
	lines := int64(0)
	for s.next(0) {
		if err := s.addArc(c, `"u v w"`, 3, 0, 0, n); err != nil {
			return nil, err
		}
		lines++
	}
	if s.err != nil {
		return nil, s.err
	}
	merged := ""
	if len(extra) > 0 {
		merged = fmt.Sprintf(" (the header line also holds %q: was the first arc's line merged into it?)", strings.Join(extra, " "))
	}
	if lines != e {
		return nil, s.errorAt(header, "header says E=%d, file has %d arc lines%s", e, lines, merged)
	}
	if merged != "" {
		return nil, s.errorAt(header, "header has %d fields, want \"V E\"%s", len(extra)+2, merged)
	}
	return c.build(int(n), s.name)
}

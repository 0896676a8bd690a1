package graph

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Parse builds a graph from a short text form that is quick to type in a
// notebook cell:
//
//	a->b 5, b->c 2, c->a -1    arcs with weights
//	a-b 3                      an undirected edge (both arcs)
//	a->b                       weight 1 when omitted
//
// Items are separated by commas, semicolons or newlines; "#" starts a
// comment that runs to the end of the line. When every vertex is written as
// a non-negative integer the vertices are those numbers (n is the largest
// plus one) and the graph has no labels; otherwise every name is a label and
// vertices are numbered in order of first appearance. Parallel arcs keep the
// lightest (see Builder). Errors name the item and its line.
func Parse(text string) (*Graph, error) {
	type item struct {
		from, to   string
		w          int32
		undirected bool
	}
	var items []item
	numeric := true
	for lineNo, line := range strings.Split(text, "\n") {
		if c := strings.IndexByte(line, '#'); c >= 0 {
			line = line[:c]
		}
		for _, field := range strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ';' }) {
			field = strings.TrimSpace(field)
			if field == "" {
				continue
			}
			fail := func(format string, args ...any) error {
				return fmt.Errorf("graph.Parse: line %d, %q: %s", lineNo+1, field, fmt.Sprintf(format, args...))
			}
			it := item{w: 1}
			var sep string
			switch {
			case strings.Contains(field, "->"):
				sep = "->"
			case strings.Contains(field, "--"):
				sep, it.undirected = "--", true
			case strings.Contains(field, "-"):
				sep, it.undirected = "-", true
			default:
				return nil, fail("want an arc such as a->b 5 or an edge such as a-b 5")
			}
			from, rest, _ := strings.Cut(field, sep)
			it.from = strings.TrimSpace(from)
			parts := strings.Fields(rest)
			switch len(parts) {
			case 0:
				return nil, fail("missing target vertex")
			case 1:
			case 2:
				w, err := strconv.ParseInt(parts[1], 10, 32)
				if err != nil {
					return nil, fail("weight %q is not an int32", parts[1])
				}
				it.w = int32(w)
			default:
				return nil, fail("too many fields after %q (want target and optional weight)", sep)
			}
			it.to = parts[0]
			for _, v := range []string{it.from, it.to} {
				if v == "" {
					return nil, fail("missing source vertex")
				}
				if strings.IndexFunc(v, func(r rune) bool { return unicode.IsSpace(r) || r == '>' || r == '<' }) >= 0 {
					return nil, fail("vertex name %q contains a space or an arrow", v)
				}
				if n, err := strconv.Atoi(v); err != nil || n < 0 {
					numeric = false
				}
			}
			items = append(items, it)
		}
	}
	var b *Builder
	if numeric {
		n := 0
		for _, it := range items {
			u, _ := strconv.Atoi(it.from)
			v, _ := strconv.Atoi(it.to)
			n = max(n, u+1, v+1)
		}
		b = NewBuilder(n)
		for _, it := range items {
			u, _ := strconv.Atoi(it.from)
			v, _ := strconv.Atoi(it.to)
			b.AddArc(u, v, it.w)
			if it.undirected {
				b.AddArc(v, u, it.w)
			}
		}
	} else {
		b = NewBuilder(0)
		for _, it := range items {
			b.AddLabeled(it.from, it.to, it.w)
			if it.undirected {
				b.AddLabeled(it.to, it.from, it.w)
			}
		}
	}
	return b.Build()
}

// ParseMatrix reads a square matrix written as the documents print their
// distance and predecessor matrices: rows separated by "|" or newlines,
// cells by spaces, "∞" for Inf (no path) and "NIL" for Nil (no
// predecessor). With oneBased the numbers are the documents' vertex
// numbers, 1 to n, and become pathnotes' 0 to n-1, as [Karaula 2017]
// prints Π. It returns the cells row-major, and an error naming the first
// cell that is neither a number, ∞ nor NIL, or a matrix that is not square.
func ParseMatrix(text string, oneBased bool) ([]int32, error) {
	var cells []int32
	for _, f := range strings.Fields(strings.ReplaceAll(text, "|", " ")) {
		switch f {
		case "∞":
			cells = append(cells, Inf)
		case "NIL":
			cells = append(cells, Nil)
		default:
			v, err := strconv.ParseInt(f, 10, 32)
			if err != nil {
				return nil, fmt.Errorf("graph.ParseMatrix: cell %d, %q: not a number, ∞ or NIL", len(cells)+1, f)
			}
			if oneBased {
				v--
			}
			cells = append(cells, int32(v))
		}
	}
	n := 0
	for n*n < len(cells) {
		n++
	}
	if n*n != len(cells) {
		return nil, fmt.Errorf("graph.ParseMatrix: %d cells, not a square matrix", len(cells))
	}
	return cells, nil
}

package graph

import (
	"errors"
	"strconv"
	"strings"
)

// FormatMatrixMarket is the Matrix Market coordinate format of sparse matrix
// collections: entry (i, j, v) is the arc i-1 → j-1 of weight v.
const FormatMatrixMarket Format = 4

func init() {
	registerFormat(FormatMatrixMarket, formatSpec{
		name: "matrix-market",
		exts: []string{".mtx", ".mm"},
		// The "%%MatrixMarket" banner, or any "%" comment.
		sniff: func(lines [][][]byte) sniffLevel {
			if lines[0][0][0] == '%' {
				return sniffMarked
			}
			return sniffNo
		},
		read: readMatrixMarket,
		layout: func(g *Graph) arcLayout {
			n := strconv.Itoa(g.N())
			return arcLayout{
				header: "%%MatrixMarket matrix coordinate integer general\n" + nameComment(g, "% ") + n + " " + n + " " + strconv.Itoa(g.M()) + "\n",
				base:   1, sep: " ",
			}
		},
	})
}

// readMatrixMarket reads a Matrix Market coordinate file: the banner
// "%%MatrixMarket matrix coordinate FIELD SYMMETRY", "%" comments, the size
// line "rows cols nnz", then nnz entries "i j [value]" with 1-based indices.
func readMatrixMarket(s *lineScanner, c *collector) (*Graph, error) {
	if err := s.need(0, "empty input: want a %%MatrixMarket banner line"); err != nil {
		return nil, err
	}
	if s.line != 1 || !strings.EqualFold(string(s.fields[0]), "%%MatrixMarket") {
		return nil, s.errorf("want the banner \"%%%%MatrixMarket matrix coordinate FIELD SYMMETRY\" as the first line")
	}
	if err := s.wantFields(`"%%MatrixMarket matrix coordinate FIELD SYMMETRY"`, 5); err != nil {
		return nil, err
	}
	banner := make([]string, 4)
	for i := range banner {
		banner[i] = strings.ToLower(string(s.fields[i+1]))
	}
	if banner[0] != "matrix" {
		return nil, s.errorf("object %q, want \"matrix\"", short(s.fields[1]))
	}
	if banner[1] != "coordinate" {
		return nil, s.errorf("format %q, want \"coordinate\" (dense \"array\" files are not graphs' usual form; convert them to coordinate)", short(s.fields[2]))
	}
	field := banner[2]
	if field != "integer" && field != "real" && field != "pattern" {
		return nil, s.errorf("field %q, want integer, real or pattern", short(s.fields[3]))
	}
	switch banner[3] {
	case "general":
	case "symmetric":
		c.opts.Undirected = true
	default:
		return nil, s.errorf("symmetry %q, want general or symmetric", short(s.fields[4]))
	}
	// The size line follows the comments.
	if err := s.need('%', `no "rows cols nnz" size line`); err != nil {
		return nil, err
	}
	if err := s.wantFields(`"rows cols nnz"`, 3); err != nil {
		return nil, err
	}
	var size [3]int64
	for i, what := range []string{"rows", "cols", "nnz"} {
		var err error
		if size[i], err = s.count(i, what); err != nil {
			return nil, err
		}
	}
	n, nnz := size[0], size[2]
	if size[0] != size[1] {
		return nil, s.errorf("matrix is %d×%d, but a graph's matrix is square", size[0], size[1])
	}
	if err := c.checkVertices(n); err != nil {
		return nil, s.errorf("size line says %d rows: %v", n, err)
	}
	if err := checkArcs(nnz); err != nil {
		return nil, s.errorf("size line says nnz=%d: %v", nnz, err)
	}
	sizeLine := s.line
	c.arcs = prealloc(nnz)
	want, fields := `"i j value"`, 3
	if field == "pattern" {
		want, fields = `"i j"`, 2
	}
	entries := int64(0)
	for s.next('%') {
		if err := s.wantFields(want, fields); err != nil {
			return nil, err
		}
		u, v, err := s.ends(0, 1, n)
		if err != nil {
			return nil, err
		}
		var w int32
		switch field {
		case "pattern":
			w = c.draw()
		case "integer":
			w, err = s.weight(2)
		default:
			w, err = s.realWeight(2)
		}
		if err != nil {
			return nil, err
		}
		if err := c.add(u, v, w); err != nil {
			return nil, s.errorf("%v", err)
		}
		entries++
	}
	if s.err != nil {
		return nil, s.err
	}
	if entries != nnz {
		return nil, s.errorAt(sizeLine, "size line says nnz=%d, file has %d entries", nnz, entries)
	}
	return c.build(int(n), s.name)
}

// realWeight parses field i as a real value that must be an integer
// within ±MaxDistance ("3", "3.0" and "3e0" are all 3).
func (s *lineScanner) realWeight(i int) (int32, error) {
	f := s.fields[i]
	if x, ok := parseInt(f); ok {
		return s.checkWeight(x, f)
	}
	// Out of float64 range parses as ±Inf, which intWeight then refuses.
	x, err := strconv.ParseFloat(string(f), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, s.errorf("weight %q is not a number", short(f))
	}
	w, err := intWeight(x)
	if err != nil {
		return 0, s.errorf("%v", err)
	}
	return w, nil
}

package graph

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pathnotes/pathnotes/internal/atomicfile"
)

// Write writes g in format f (not FormatAuto) with numeric vertex ids.
// Vertex labels are not stored: the documents' formats have no place for
// them, so a labelled graph reads back unlabelled (Graph.Label still
// returns the number). Comment-capable formats record the graph's name.
// Parallel arcs are written as they are, so a KeepAll graph reads back
// the same with KeepAll.
func Write(w io.Writer, g *Graph, f Format) error {
	if g == nil {
		return errors.New("graph.Write: nil graph")
	}
	spec, ok := formats[f]
	if !ok {
		return fmt.Errorf("graph.Write: cannot write format %v (pick %s)", f, formatList())
	}
	l := spec.layout(g)
	bw := bufio.NewWriterSize(w, 64<<10)
	l.write(bw, g)
	return bw.Flush()
}

// WriteFile writes g to path in format f; FormatAuto picks the format from
// the extension (.gr, .mtx) and fails for others. A path ending in ".gz" is
// gzip-compressed. An existing file is replaced only once the new one is
// complete: a write that fails leaves it as it was.
func WriteFile(path string, g *Graph, f Format) error {
	if f == FormatAuto {
		if f = formatFromName(path); f == FormatAuto {
			return fmt.Errorf("graph.WriteFile %s: cannot tell the format from the extension; pass one", path)
		}
	}
	file, err := atomicfile.Create(path, 0o666)
	if err != nil {
		return err
	}
	defer file.Abort()
	if !strings.HasSuffix(path, ".gz") {
		if err := Write(file, g, f); err != nil {
			return err
		}
		return file.Commit()
	}
	zw, err := gzip.NewWriterLevel(file, gzip.BestCompression)
	if err != nil {
		return err
	}
	if err := Write(zw, g, f); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return file.Commit()
}

// nameComment is a comment line that records g's name after prefix, or
// nothing when g has no name.
func nameComment(g *Graph, prefix string) string {
	if g.name == "" {
		return ""
	}
	return prefix + oneLine(g.name) + "\n"
}

// arcLayout describes a text format as a header and one line per arc:
// prefix, from+base, sep, to+base, sep, weight.
type arcLayout struct {
	header, prefix, sep string
	base                int
}

// write writes g in the layout; errors stick in bw and surface at Flush.
func (l arcLayout) write(bw *bufio.Writer, g *Graph) {
	bw.WriteString(l.header)
	buf := make([]byte, 0, 64)
	for u := 0; u < g.N(); u++ {
		ts, ws := g.Out(u)
		for k, t := range ts {
			buf = append(buf[:0], l.prefix...)
			buf = strconv.AppendInt(buf, int64(u+l.base), 10)
			buf = append(buf, l.sep...)
			buf = strconv.AppendInt(buf, int64(int(t)+l.base), 10)
			buf = append(buf, l.sep...)
			buf = strconv.AppendInt(buf, int64(ws[k]), 10)
			buf = append(buf, '\n')
			bw.Write(buf)
		}
	}
}

// oneLine keeps a name on one comment line.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

package graph

import (
	"fmt"
	"slices"
	"strings"
)

// formatSpec is what a file format registers: everything Read, Write,
// WriteFile and Format.String need to know of it.
type formatSpec struct {
	// name is the format's name in messages and Format.String ("dimacs").
	name string
	// exts are the file extensions, lower case with the dot, that name this
	// format and no other (".gr"); FormatAuto picks the format by them.
	exts []string
	// sniff says how sure the first non-blank lines (one or two, split
	// into fields) make it that the input is in this format.
	sniff func(lines [][][]byte) sniffLevel
	// read reads the format's lines into the collector.
	read func(s *lineScanner, c *collector) (*Graph, error)
	// layout is how Write writes g in this format.
	layout func(g *Graph) arcLayout
}

// sniffLevel is how sure a format's sniffer is of the first lines.
type sniffLevel int

const (
	// sniffNo: the lines are not in this format.
	sniffNo sniffLevel = iota
	// sniffShape: the lines have the format's shape, which other formats
	// may share (a SNAP list without comments is any two or three fields).
	sniffShape
	// sniffHeader: the first line reads as the format's header and the
	// second agrees with it.
	sniffHeader
	// sniffMarked: the first line carries the format's own mark (a banner,
	// a comment character or a line type of its own).
	sniffMarked
)

// formats is the registry of file formats, and formatOrder their Formats in
// increasing order, which sniffFormat and formatFromName follow.
var (
	formats     = map[Format]formatSpec{}
	formatOrder []Format
)

// registerFormat adds a file format under its constant; each format_*.go
// file registers its own from an init function. It panics on a Format or a
// name or an extension registered twice, and on a spec missing a part.
func registerFormat(f Format, spec formatSpec) {
	if f == FormatAuto || spec.name == "" || spec.sniff == nil || spec.read == nil || spec.layout == nil {
		panic(fmt.Sprintf("graph: incomplete format %d %q", int(f), spec.name))
	}
	for g, other := range formats {
		if g == f || other.name == spec.name {
			panic(fmt.Sprintf("graph: format %d %q registered twice", int(f), spec.name))
		}
		for _, ext := range spec.exts {
			if slices.Contains(other.exts, ext) {
				panic(fmt.Sprintf("graph: extension %s claimed by %s and %s", ext, other.name, spec.name))
			}
		}
	}
	formats[f] = spec
	formatOrder = append(formatOrder, f)
	slices.Sort(formatOrder)
}

// formatList names the registered formats, for messages: "a, b or c".
func formatList() string {
	names := make([]string, len(formatOrder))
	for i, f := range formatOrder {
		names[i] = formats[f].name
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

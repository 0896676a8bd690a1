package graph

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Format names a graph file format. Every format stores a directed graph as
// numbered arcs with integer weights; see Read for what each one accepts.
// Each format lives in a file of its own (format_*.go): its constant, its
// reader and its entry in the package's registry of formats.
type Format int

// FormatAuto asks Read to tell the format from the file name's extension
// (.gr, .mtx), and failing that from the first lines.
const FormatAuto Format = 0

// String names the format as it appears in error messages.
func (f Format) String() string {
	if f == FormatAuto {
		return "auto"
	}
	if spec, ok := formats[f]; ok {
		return spec.name
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// ReadOptions tune Read and ReadFile. The zero value reads a directed graph
// in a detected format, keeps the lightest of parallel arcs and gives
// unweighted arcs weight 1.
type ReadOptions struct {
	// Format of the input; FormatAuto detects it from Name's extension,
	// then from the content.
	Format Format
	// Weights is the range that weights of unweighted arcs (SNAP lines
	// without a third column, Matrix Market "pattern" entries) are drawn
	// from, uniformly and in file order, so that Seed reproduces the graph.
	// The zero value gives every such arc weight 1.
	Weights WeightRange
	// Seed of the weight draws.
	Seed uint64
	// Undirected adds both arcs u → v and v → u for every line.
	Undirected bool
	// Duplicates resolves parallel arcs (default KeepLightest).
	Duplicates Duplicates
	// Name replaces the file name in error messages ("NAME:LINE: what");
	// its base name without ".gz" becomes the graph's name. ReadFile
	// defaults it to the path.
	Name string
	// MaxVertices, when positive, refuses inputs that need more vertices:
	// a guard for notebooks that read untrusted files. Without it the
	// limits are what int32 CSR can index and the memory available.
	MaxVertices int
}

// maxLine is the longest line the readers accept: far beyond any real
// graph line, short enough that a file without newlines fails quickly.
const maxLine = 16 << 20

// Read reads a graph in one of the formats (see Format), streaming it line
// by line. Gzip-compressed input is recognised by its magic bytes. Errors
// say where, as "NAME:LINE: what", with NAME from ReadOptions.Name
// ("input" when empty).
//
// Every format is strict about counts: the number of arc lines must match
// the header (edge list E, DIMACS m, Matrix Market nnz), vertex ids must lie
// in the declared range, and weights must be integers within ±MaxDistance.
// Headers that claim more vertices than an int32 CSR can index, than
// MaxVertices, or than memory can hold are refused before anything is
// allocated for them, and arcs that outgrow the memory left are an error
// as soon as they do. The memory left is the least of the machine's
// available memory and the room under the process's cgroup memory limit
// and its address-space and data rlimits.
//
// SNAP files: when a comment gives "Nodes: N" and every id is below N, the
// ids are the vertices 0..N-1. Otherwise ids are compacted to 0..n-1 in
// order of first appearance and the graph's labels hold the original ids;
// a note (Graph.Notes) says so. A mismatching "Edges: M" comment is noted,
// not refused: for undirected graphs SNAP's count and its lines do not
// always agree.
//
// Matrix Market files: the "integer", "real" (integral values only) and
// "pattern" fields and the "general" and "symmetric" (both arcs per entry,
// on whichever side of the diagonal) symmetries are read; rows must equal
// columns.
//
// Blank lines and CRLF line ends are accepted in every format.
// Non-negative self-loops are dropped and negative ones kept, as Builder
// does.
func Read(r io.Reader, opts ReadOptions) (*Graph, error) {
	return ReadContext(context.Background(), r, opts)
}

// ReadContext is Read that stops, with an error wrapping ctx.Err(), when ctx
// is cancelled: reading a road network of millions of arcs takes seconds.
func ReadContext(ctx context.Context, r io.Reader, opts ReadOptions) (*Graph, error) {
	name := opts.Name
	if name == "" {
		name = "input"
	}
	if err := opts.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if r == nil {
		return nil, fmt.Errorf("%s: nil reader", name)
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var gz *gzipReader
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, gzipError(err))
		}
		defer zr.Close()
		gz = &gzipReader{r: zr}
		br = bufio.NewReaderSize(gz, 64<<10)
	}
	format := opts.Format
	if format == FormatAuto {
		format = formatFromName(name)
	}
	if format == FormatAuto {
		var err error
		if format, err = sniffFormat(br); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	s := &lineScanner{ctx: ctx, sc: sc, name: name, gz: gz}
	c := &collector{opts: opts}
	g, err := formats[format].read(s, c)
	if err != nil {
		return nil, err
	}
	if opts.Name != "" {
		g.name = graphName(opts.Name)
	}
	return g, nil
}

// ReadFile opens path and reads it with Read; ReadOptions.Name defaults to
// path, so errors read "path:LINE: what" and the graph is named after the
// file (without directory and ".gz").
func ReadFile(path string, opts ReadOptions) (*Graph, error) {
	return ReadFileContext(context.Background(), path, opts)
}

// ReadFileContext is ReadFile that stops when ctx is cancelled.
func ReadFileContext(ctx context.Context, path string, opts ReadOptions) (*Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if opts.Name == "" {
		opts.Name = path
	}
	return ReadContext(ctx, f, opts)
}

// graphName is the graph name for a file: its base name without ".gz".
func graphName(path string) string {
	return strings.TrimSuffix(filepath.Base(path), ".gz")
}

// formatFromName knows the extensions that name one format (the formats'
// exts); ".txt" and others name several and give FormatAuto.
func formatFromName(name string) Format {
	ext := strings.ToLower(filepath.Ext(strings.TrimSuffix(strings.ToLower(name), ".gz")))
	for _, f := range formatOrder {
		if slices.Contains(formats[f].exts, ext) {
			return f
		}
	}
	return FormatAuto
}

// idsBelow reports whether the ids parse as integers below the bound v.
func idsBelow(v []byte, ids [][]byte) bool {
	n, ok := parseInt(v)
	for _, id := range ids {
		x, isInt := parseInt(id)
		ok = ok && isInt && x < n
	}
	return ok
}

// errTruncatedGzip is the error of a gzip stream that ends early.
var errTruncatedGzip = errors.New("truncated gzip stream: the compressed data ends early (an incomplete download or copy?)")

// gzipError names the error of a damaged gzip stream; compress/gzip's own
// errors ("gzip: invalid checksum") name it already.
func gzipError(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return errTruncatedGzip
	}
	if strings.HasPrefix(err.Error(), "gzip: ") {
		return err
	}
	return fmt.Errorf("gzip: %w", err)
}

// gzipReader reads a gzip stream, naming its errors with gzipError and
// keeping the first: the line scanner still hands out the partial line read
// before it, whose parse error would hide the cause.
type gzipReader struct {
	r   io.Reader
	err error
}

func (z *gzipReader) Read(p []byte) (int, error) {
	n, err := z.r.Read(p)
	if err != nil && err != io.EOF {
		err = gzipError(err)
		if z.err == nil {
			z.err = err
		}
	}
	return n, err
}

// sniffFormat tells the format from the first lines without consuming them:
// the format whose sniffer is surest of them wins (see sniffLevel), the
// first in Format order among equals. With the formats of this package: a
// Matrix Market banner or "%" comment, DIMACS "c"/"p" lines, SNAP "#"
// comments; otherwise a two-number first line "V E" followed by nothing or
// by a line "u v w" with u, v < V is an edge list header, and anything else
// of two or three fields a SNAP list without comments.
func sniffFormat(br *bufio.Reader) (Format, error) {
	head, err := br.Peek(64 << 10)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return FormatAuto, err // a damaged gzip stream, not an empty input
	}
	var lines [][][]byte
	for len(head) > 0 && len(lines) < 2 {
		line, rest, _ := bytes.Cut(head, []byte{'\n'})
		head = rest
		if f := splitFields(nil, line); len(f) > 0 {
			lines = append(lines, f)
		}
	}
	if len(lines) == 0 {
		return FormatAuto, errors.New("empty input: no format to detect")
	}
	best, bestLevel := FormatAuto, sniffNo
	for _, f := range formatOrder {
		if l := formats[f].sniff(lines); l > bestLevel {
			best, bestLevel = f, l
		}
	}
	if best == FormatAuto {
		return FormatAuto, fmt.Errorf("cannot tell the format from the first line %q; set ReadOptions.Format", short(bytes.Join(lines[0], []byte{' '})))
	}
	return best, nil
}

func (o ReadOptions) check() error {
	if _, ok := formats[o.Format]; !ok && o.Format != FormatAuto {
		return fmt.Errorf("unknown format %v", o.Format)
	}
	if o.Duplicates < KeepLightest || o.Duplicates > KeepAll {
		return fmt.Errorf("unknown duplicate policy %v", o.Duplicates)
	}
	if o.MaxVertices < 0 {
		return fmt.Errorf("negative MaxVertices %d", o.MaxVertices)
	}
	if o.Weights != (WeightRange{}) {
		return o.Weights.Check()
	}
	return nil
}

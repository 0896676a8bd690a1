package graph

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pathnotes/pathnotes/internal/atomicfile"
)

// Format names a graph file format. Every format stores a directed graph as
// numbered arcs with integer weights; see Read for what each one accepts.
type Format int

const (
	// FormatAuto asks Read to tell the format from the file name's
	// extension (.gr, .mtx), and failing that from the first lines.
	FormatAuto Format = iota
	// FormatEdgeList is the documents' edge list ([Karaula 2017], [Bodra]):
	// a "V E" line, then E lines "u v w" with 0-based vertex ids.
	FormatEdgeList
	// FormatDIMACS is the .gr format of the 9th DIMACS challenge on shortest
	// paths: "c" comments, one "p sp n m" line, then m lines "a u v w" with
	// 1-based ids.
	FormatDIMACS
	// FormatSNAP is the edge list of the Stanford SNAP collection: "#"
	// comments (with "# Nodes: N Edges: M"), then lines "u v" or "u v w".
	FormatSNAP
	// FormatMatrixMarket is the Matrix Market coordinate format of sparse
	// matrix collections: entry (i, j, v) is the arc i-1 → j-1 of weight v.
	FormatMatrixMarket
)

// String names the format as it appears in error messages.
func (f Format) String() string {
	switch f {
	case FormatAuto:
		return "auto"
	case FormatEdgeList:
		return "edge-list"
	case FormatDIMACS:
		return "dimacs"
	case FormatSNAP:
		return "snap"
	case FormatMatrixMarket:
		return "matrix-market"
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
	var g *Graph
	var err error
	switch format {
	case FormatEdgeList:
		g, err = readEdgeList(s, c)
	case FormatDIMACS:
		g, err = readDIMACS(s, c)
	case FormatSNAP:
		g, err = readSNAP(s, c)
	case FormatMatrixMarket:
		g, err = readMatrixMarket(s, c)
	}
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
	n, m := strconv.Itoa(g.N()), strconv.Itoa(g.M())
	comment := func(prefix string) string {
		if g.name == "" {
			return ""
		}
		return prefix + oneLine(g.name) + "\n"
	}
	var l arcLayout
	switch f {
	case FormatEdgeList:
		l = arcLayout{header: n + " " + m + "\n", sep: " "}
	case FormatDIMACS:
		l = arcLayout{header: comment("c ") + "p sp " + n + " " + m + "\n", prefix: "a ", base: 1, sep: " "}
	case FormatSNAP:
		l = arcLayout{
			header: comment("# Directed graph: ") + "# Nodes: " + n + " Edges: " + m + "\n# FromNodeId\tToNodeId\tWeight\n",
			sep:    "\t",
		}
	case FormatMatrixMarket:
		l = arcLayout{
			header: "%%MatrixMarket matrix coordinate integer general\n" + comment("% ") + n + " " + n + " " + m + "\n",
			base:   1, sep: " ",
		}
	default:
		return fmt.Errorf("graph.Write: cannot write format %v (pick edge-list, dimacs, snap or matrix-market)", f)
	}
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

// graphName is the graph name for a file: its base name without ".gz".
func graphName(path string) string {
	return strings.TrimSuffix(filepath.Base(path), ".gz")
}

// formatFromName knows the extensions that name one format; ".txt" and
// others name several and give FormatAuto.
func formatFromName(name string) Format {
	switch strings.ToLower(filepath.Ext(strings.TrimSuffix(strings.ToLower(name), ".gz"))) {
	case ".gr":
		return FormatDIMACS
	case ".mtx", ".mm":
		return FormatMatrixMarket
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

// gzipError names the error of a damaged gzip stream.
func gzipError(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return errTruncatedGzip
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
// a Matrix Market banner or "%" comment, DIMACS "c"/"p" lines, SNAP "#"
// comments; otherwise a two-number first line "V E" followed by nothing or
// by a line "u v w" with u, v < V is an edge list header, and anything else
// a SNAP list without comments.
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
	first := lines[0]
	switch {
	case first[0][0] == '%':
		return FormatMatrixMarket, nil
	case first[0][0] == '#':
		return FormatSNAP, nil
	case string(first[0]) == "c" || string(first[0]) == "p":
		return FormatDIMACS, nil
	case len(first) == 2 && (len(lines) == 1 || len(lines[1]) == 3 && idsBelow(first[0], lines[1][:2])):
		return FormatEdgeList, nil
	case len(first) == 2 || len(first) == 3:
		return FormatSNAP, nil
	}
	return FormatAuto, fmt.Errorf("cannot tell the format from the first line %q; set ReadOptions.Format", short(bytes.Join(first, []byte{' '})))
}

func (o ReadOptions) check() error {
	if o.Format < FormatAuto || o.Format > FormatMatrixMarket {
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

// cancelEvery is how many lines the readers go between looks at their
// context: often enough to stop within milliseconds, rarely enough to cost
// nothing.
const cancelEvery = 1 << 14

// lineScanner yields the non-blank lines of a text file split into fields,
// and formats errors as "NAME:LINE: what".
type lineScanner struct {
	ctx    context.Context
	sc     *bufio.Scanner
	name   string
	line   int // 1-based number of the current line
	fields [][]byte
	gz     *gzipReader // the gzip stream read, nil for plain input
}

// scan moves to the next non-blank line; false at the end of the input.
func (s *lineScanner) scan() (bool, error) {
	for s.sc.Scan() {
		s.line++
		if s.line%cancelEvery == 0 {
			if err := s.ctx.Err(); err != nil {
				return false, fmt.Errorf("%s:%d: %w", s.name, s.line, err)
			}
		}
		if s.fields = splitFields(s.fields[:0], s.sc.Bytes()); len(s.fields) > 0 {
			return true, nil
		}
	}
	switch err := s.sc.Err(); {
	case errors.Is(err, bufio.ErrTooLong):
		return false, s.errorAt(s.line+1, "line longer than %s", FormatBytes(maxLine))
	case err != nil:
		return false, s.errorAt(s.line+1, "%v", err)
	}
	return false, nil
}

// comment reports whether the current line starts with the byte c.
func (s *lineScanner) comment(c byte) bool { return s.fields[0][0] == c }

func (s *lineScanner) errorf(format string, args ...any) error {
	return s.errorAt(s.line, format, args...)
}

func (s *lineScanner) errorAt(line int, format string, args ...any) error {
	if s.gz != nil && s.gz.err != nil { // the line was cut by a damaged stream
		return fmt.Errorf("%s:%d: %w", s.name, line, s.gz.err)
	}
	return fmt.Errorf("%s:%d: %s", s.name, line, fmt.Sprintf(format, args...))
}

// wantFields checks the current line's field count.
func (s *lineScanner) wantFields(want string, counts ...int) error {
	for _, c := range counts {
		if len(s.fields) == c {
			return nil
		}
	}
	return s.errorf("want %s, got %d fields %q", want, len(s.fields), short(bytes.Join(s.fields, []byte{' '})))
}

// int parses field i as a decimal integer; what names it in errors.
func (s *lineScanner) int(i int, what string) (int64, error) {
	x, ok := parseInt(s.fields[i])
	if !ok {
		return 0, s.errorf("%s %q is not an integer", what, short(s.fields[i]))
	}
	return x, nil
}

// count parses field i as a non-negative count.
func (s *lineScanner) count(i int, what string) (int64, error) {
	x, err := s.int(i, what)
	if err == nil && x < 0 {
		err = s.errorf("%s %d is negative", what, x)
	}
	return x, err
}

// vertex parses field i as a vertex id numbered from base, checks it
// against n vertices and returns it 0-based.
func (s *lineScanner) vertex(i int, base, n int64) (int, error) {
	x, err := s.int(i, "vertex")
	if err != nil {
		return 0, err
	}
	if x < base || x-base >= n {
		if n == 0 {
			return 0, s.errorf("vertex %d out of range: the graph has no vertices", x)
		}
		return 0, s.errorf("vertex %d out of range %d..%d", x, base, n-1+base)
	}
	return int(x - base), nil
}

// ends parses fields i and i+1 as the two ends of an arc, ids counted from
// base.
func (s *lineScanner) ends(i int, base, n int64) (u, v int, err error) {
	if u, err = s.vertex(i, base, n); err != nil {
		return 0, 0, err
	}
	if v, err = s.vertex(i+1, base, n); err != nil {
		return 0, 0, err
	}
	return u, v, nil
}

// arc parses fields i, i+1 and i+2 as an arc "u v w", ids counted from base.
func (s *lineScanner) arc(i int, base, n int64) (u, v int, w int32, err error) {
	if u, v, err = s.ends(i, base, n); err != nil {
		return 0, 0, 0, err
	}
	if w, err = s.weight(i + 2); err != nil {
		return 0, 0, 0, err
	}
	return u, v, w, nil
}

// weight parses field i as an integer arc weight within ±MaxDistance.
func (s *lineScanner) weight(i int) (int32, error) {
	x, err := s.int(i, "weight")
	if err != nil {
		return 0, err
	}
	return s.checkWeight(x, s.fields[i])
}

func (s *lineScanner) checkWeight(x int64, field []byte) (int32, error) {
	if x > int64(MaxDistance) || x < -int64(MaxDistance) {
		return 0, s.errorf("weight %s beyond ±%d", short(field), MaxDistance)
	}
	return int32(x), nil
}

// splitFields appends the space- or tab-separated fields of line to dst.
func splitFields(dst [][]byte, line []byte) [][]byte {
	for i := 0; i < len(line); {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		j := i
		for j < len(line) && !isSpace(line[j]) {
			j++
		}
		if j > i {
			dst = append(dst, line[i:j])
		}
		i = j
	}
	return dst
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

// parseInt parses an optionally signed decimal int64 without allocating.
func parseInt(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	limit := uint64(math.MaxInt64)
	if neg {
		limit++
	}
	var x uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if x > (limit-d)/10 {
			return 0, false
		}
		x = x*10 + d
	}
	if neg {
		return -int64(x), true
	}
	return int64(x), true
}

// short quotes at most 40 bytes of a field for an error message.
func short(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// collector gathers a reader's arcs and draws the weights of unweighted
// ones, then builds the graph with the options' policies.
type collector struct {
	opts ReadOptions
	arcs []Arc
	rng  *rand.Rand
}

// add appends an arc, or returns an error when the arcs would outgrow
// the memory left.
func (c *collector) add(u, v int, w int32) error {
	if err := checkGrowth(c.arcs, "arcs"); err != nil {
		return err
	}
	c.arcs = append(c.arcs, Arc{u, v, w})
	return nil
}

// draw returns the next weight for an unweighted arc.
func (c *collector) draw() int32 {
	if c.opts.Weights == (WeightRange{}) {
		return 1
	}
	if c.rng == nil {
		c.rng = newRand(c.opts.Seed)
	}
	return c.opts.Weights.draw(c.rng)
}

// checkVertices refuses a vertex count that int32 CSR cannot index, that
// exceeds MaxVertices, or whose CSR offsets alone would not fit in memory.
func (c *collector) checkVertices(n int64) error {
	if n > math.MaxInt32 {
		return fmt.Errorf("%d vertices is more than the %d that int32 CSR can index", n, math.MaxInt32)
	}
	if c.opts.MaxVertices > 0 && n > int64(c.opts.MaxVertices) {
		return fmt.Errorf("%d vertices is more than MaxVertices=%d", n, c.opts.MaxVertices)
	}
	if err := checkBytes(uint64(n+1) * 4); err != nil {
		return fmt.Errorf("the CSR offsets of %d vertices %w", n, err)
	}
	return nil
}

// checkArcs refuses an arc count beyond what int32 offsets index.
func checkArcs(m int64) error {
	if m > math.MaxInt32 {
		return fmt.Errorf("%d arcs is more than the %d that int32 CSR can index", m, math.MaxInt32)
	}
	return nil
}

// build makes the graph on n vertices from the collected arcs.
func (c *collector) build(n int, name string) (*Graph, error) {
	if c.opts.Undirected {
		if err := checkBytes(arcBytes(2 * len(c.arcs))); err != nil {
			return nil, fmt.Errorf("%s: adding the reverse of %d arcs would %w", name, len(c.arcs), err)
		}
		for _, a := range c.arcs {
			if a.From != a.To {
				c.arcs = append(c.arcs, Arc{a.To, a.From, a.Weight})
			}
		}
	}
	if err := checkArcs(int64(len(c.arcs))); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	// buildCSR copies the arcs, then packs them with the offsets.
	m := len(c.arcs)
	if err := checkBytes(arcBytes(m) + 8*uint64(m) + 4*uint64(n+1)); err != nil {
		return nil, fmt.Errorf("%s: building the graph of %d vertices and %d arcs would %w", name, n, m, err)
	}
	return buildCSR(n, c.arcs, c.opts.Duplicates), nil
}

// preallocMax caps the arcs allocated from a header's count, so that a
// lying header cannot make a reader allocate much more than the file holds.
const preallocMax = 1 << 17

// prealloc makes room for the m arcs a header announces, up to preallocMax.
func prealloc(m int64) []Arc { return make([]Arc, 0, min(m, preallocMax)) }

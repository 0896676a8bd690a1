package graph

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/pathnotes/pathnotes/internal/atomicfile"
)

// An all-pairs result that stays distributed: the ranks of a run on a P×Q
// grid (`pathnotes apsp`, package dist) each write the B×B tiles they hold,
// tile (I, J) going to rank (I mod P, J mod Q) (2-D block-cyclic), and the
// run's first rank writes the manifest last, once every rank has written
// its files. A directory without a manifest is a run that did not finish,
// and OpenAllPairs refuses it.

// ManifestName is the manifest's file name in a tiled result's directory.
const ManifestName = "manifest.json"

// TiledFormat names the layout a manifest describes; a reader refuses
// another.
const TiledFormat = "pathnotes-tiled-allpairs/1"

// TiledManifest describes a tiled all-pairs result: the matrix's side N,
// the tile side B, the process grid P×Q, whether predecessors were kept,
// and one entry per file.
type TiledManifest struct {
	Format string      `json:"format"`
	N      int         `json:"n"`
	B      int         `json:"b"`
	P      int         `json:"p"`
	Q      int         `json:"q"`
	Pred   bool        `json:"pred"`
	Solver string      `json:"solver"`
	Graph  string      `json:"graph,omitempty"` // where the graph came from, as the run named it
	Labels []string    `json:"labels,omitempty"`
	Files  []TiledFile `json:"files"`
}

// TiledFile is one rank's part of one matrix: Rows × Cols int32 values,
// little-endian, row-major, its tile rows and columns in order (local row
// r is global row ((r/B)·P + p)·B + r mod B), with its size in bytes and
// its CRC-32C (Castagnoli).
type TiledFile struct {
	Name   string `json:"name"`
	Matrix string `json:"matrix"` // "dist" or "pred"
	P      int    `json:"p"`      // the rank's place in the grid
	Q      int    `json:"q"`
	Rows   int    `json:"rows"`
	Cols   int    `json:"cols"`
	Bytes  int64  `json:"bytes"`
	CRC32C uint32 `json:"crc32c"`
}

// TileShare returns how many of n rows (or columns) the grid index i of
// parts holds in tiles of side b: the sizes of the tiles t with
// t mod parts = i.
func TileShare(n, b, parts, i int) int {
	s := 0
	for t := i; t*b < n; t += parts {
		s += min(b, n-t*b)
	}
	return s
}

// TiledFileName is the file name of rank (p, q)'s part of matrix ("dist"
// or "pred").
func TiledFileName(matrix string, p, q int) string {
	return fmt.Sprintf("%s-%d-%d.i32", matrix, p, q)
}

// castagnoli is CRC-32C's table.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// WriteTile writes rank (p, q)'s part of matrix ("dist" or "pred") of a
// tiled result into dir: values holds rows × cols int32 values, row-major.
// The file is replaced atomically; its entry for the manifest is returned.
func WriteTile(dir, matrix string, p, q, rows, cols int, values []int32) (TiledFile, error) {
	f := TiledFile{Name: TiledFileName(matrix, p, q), Matrix: matrix, P: p, Q: q, Rows: rows, Cols: cols,
		Bytes: int64(len(values)) * 4}
	if len(values) != rows*cols {
		return f, fmt.Errorf("graph: WriteTile %s: %d values for %d×%d", f.Name, len(values), rows, cols)
	}
	out, err := atomicfile.Create(filepath.Join(dir, f.Name), 0o644)
	if err != nil {
		return f, err
	}
	defer out.Abort()
	crc := crc32.New(castagnoli)
	buf := make([]byte, 1<<20)
	for len(values) > 0 {
		k := min(len(values), len(buf)/4)
		for i, v := range values[:k] {
			binary.LittleEndian.PutUint32(buf[4*i:], uint32(v))
		}
		crc.Write(buf[:4*k])
		if _, err := out.Write(buf[:4*k]); err != nil {
			return f, err
		}
		values = values[k:]
	}
	f.CRC32C = crc.Sum32()
	return f, out.Commit()
}

// WriteManifest checks m (every rank's files present, sizes as the layout
// says) and writes it into dir, atomically.
func WriteManifest(dir string, m TiledManifest) error {
	m.Format = TiledFormat
	if err := m.check(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, ManifestName), append(data, '\n'), 0o644)
}

// check verifies that the manifest describes a whole result: one file per
// rank and matrix, each of the size the layout gives it.
func (m *TiledManifest) check() error {
	switch {
	case m.Format != TiledFormat:
		return fmt.Errorf("format %q, want %q", m.Format, TiledFormat)
	case m.N < 0 || m.B < 1 || m.P < 1 || m.Q < 1:
		return fmt.Errorf("n = %d, b = %d, grid %d×%d", m.N, m.B, m.P, m.Q)
	case m.Labels != nil && len(m.Labels) != m.N:
		return fmt.Errorf("%d labels for %d vertices", len(m.Labels), m.N)
	}
	matrices := []string{"dist"}
	if m.Pred {
		matrices = append(matrices, "pred")
	}
	seen := map[string]bool{}
	for _, f := range m.Files {
		rows, cols := TileShare(m.N, m.B, m.P, f.P), TileShare(m.N, m.B, m.Q, f.Q)
		switch {
		case !slices.Contains(matrices, f.Matrix) || f.P < 0 || f.P >= m.P || f.Q < 0 || f.Q >= m.Q:
			return fmt.Errorf("file %s: matrix %q of rank (%d, %d) is not part of this result", f.Name, f.Matrix, f.P, f.Q)
		case f.Name != TiledFileName(f.Matrix, f.P, f.Q):
			return fmt.Errorf("file %s: want the name %s", f.Name, TiledFileName(f.Matrix, f.P, f.Q))
		case seen[f.Name]:
			return fmt.Errorf("file %s listed twice", f.Name)
		case f.Rows != rows || f.Cols != cols || f.Bytes != int64(rows)*int64(cols)*4:
			return fmt.Errorf("file %s: %d×%d values in %d bytes, the layout gives %d×%d", f.Name, f.Rows, f.Cols, f.Bytes, rows, cols)
		}
		seen[f.Name] = true
	}
	if want := m.P * m.Q * len(matrices); len(seen) != want {
		return fmt.Errorf("%d files listed, the grid needs %d", len(seen), want)
	}
	return nil
}

// TiledAllPairs is a tiled all-pairs result opened for reading
// (OpenAllPairs): its files are memory-mapped (read on demand where the
// system has no mmap), so that a distance, a row or a path is read without
// loading the matrix. Close releases the files.
type TiledAllPairs struct {
	Manifest TiledManifest
	dir      string
	dist     [][]*tileReader // [p][q]
	pred     [][]*tileReader // nil without predecessors
	graph    *Graph          // rebuilds rows whose predecessors loop (UseGraph)
}

// OpenAllPairs opens the tiled result in dir. It refuses a directory
// without a manifest (a run that did not finish: its ranks write their
// files first and the manifest last), a manifest that does not describe a
// whole result, and files whose sizes differ from the manifest's; Verify
// checks their checksums too.
func OpenAllPairs(dir string) (*TiledAllPairs, error) {
	data, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("graph: OpenAllPairs %s: no %s: the run that writes it did not finish (its ranks write their tiles first and the manifest last)", dir, ManifestName)
	}
	if err != nil {
		return nil, fmt.Errorf("graph: OpenAllPairs: %w", err)
	}
	t := &TiledAllPairs{dir: dir}
	if err := json.Unmarshal(data, &t.Manifest); err != nil {
		return nil, fmt.Errorf("graph: OpenAllPairs %s: %s: %w", dir, ManifestName, err)
	}
	m := &t.Manifest
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("graph: OpenAllPairs %s: %s: %w", dir, ManifestName, err)
	}
	grid := func() [][]*tileReader {
		g := make([][]*tileReader, m.P)
		for p := range g {
			g[p] = make([]*tileReader, m.Q)
		}
		return g
	}
	t.dist = grid()
	if m.Pred {
		t.pred = grid()
	}
	for _, f := range m.Files {
		r, err := openTile(filepath.Join(dir, f.Name), f.Bytes)
		if err != nil {
			t.Close()
			return nil, fmt.Errorf("graph: OpenAllPairs %s: %w", dir, err)
		}
		if f.Matrix == "dist" {
			t.dist[f.P][f.Q] = r
		} else {
			t.pred[f.P][f.Q] = r
		}
	}
	return t, nil
}

// N returns the number of vertices.
func (t *TiledAllPairs) N() int { return t.Manifest.N }

// Close releases the files.
func (t *TiledAllPairs) Close() error {
	var first error
	for _, m := range [][][]*tileReader{t.dist, t.pred} {
		for _, row := range m {
			for _, r := range row {
				if r != nil {
					if err := r.close(); err != nil && first == nil {
						first = err
					}
				}
			}
		}
	}
	t.dist, t.pred = nil, nil
	return first
}

// Verify reads every file and compares its CRC-32C with the manifest's.
func (t *TiledAllPairs) Verify() error {
	for _, f := range t.Manifest.Files {
		in, err := os.Open(filepath.Join(t.dir, f.Name))
		if err != nil {
			return fmt.Errorf("graph: Verify: %w", err)
		}
		crc := crc32.New(castagnoli)
		_, err = io.Copy(crc, in)
		in.Close()
		if err != nil {
			return fmt.Errorf("graph: Verify %s: %w", f.Name, err)
		}
		if got := crc.Sum32(); got != f.CRC32C {
			return fmt.Errorf("graph: Verify %s: CRC-32C %08x, the manifest says %08x", f.Name, got, f.CRC32C)
		}
	}
	return nil
}

// UseGraph gives the reader the graph of the result, from which Row and
// Path rebuild a row whose predecessors loop (as fw-fast's
// RepairPredecessors does for the whole matrix: blocked Floyd-Warshall can
// leave such rows on graphs with zero-weight cycles).
func (t *TiledAllPairs) UseGraph(g *Graph) error {
	if g == nil || g.N() != t.Manifest.N {
		return fmt.Errorf("graph: UseGraph: the result has %d vertices, the graph %v", t.Manifest.N, g)
	}
	t.graph = g
	return nil
}

// place returns the grid index and the local index of global index v.
func (t *TiledAllPairs) place(v, parts int) (int, int) {
	b := t.Manifest.B
	tile := v / b
	return tile % parts, tile/parts*b + v%b
}

// checkVertex reports a vertex out of range.
func (t *TiledAllPairs) checkVertex(what string, v int) error {
	if v < 0 || v >= t.Manifest.N {
		return fmt.Errorf("graph: %s: vertex %d out of range 0..%d", what, v, t.Manifest.N-1)
	}
	if t.dist == nil {
		return fmt.Errorf("graph: %s: the result is closed", what)
	}
	return nil
}

// Dist returns the distance u → v (Inf if unreachable).
func (t *TiledAllPairs) Dist(u, v int) (int32, error) {
	if err := t.checkVertex("Dist", u); err != nil {
		return 0, err
	}
	if err := t.checkVertex("Dist", v); err != nil {
		return 0, err
	}
	p, r := t.place(u, t.Manifest.P)
	q, c := t.place(v, t.Manifest.Q)
	var out [1]int32
	cols := TileShare(t.Manifest.N, t.Manifest.B, t.Manifest.Q, q)
	err := t.dist[p][q].read(int64(r)*int64(cols)+int64(c), out[:])
	return out[0], err
}

// Row returns the single-source result for source u: its distances and,
// with predecessors, its Π row, read from the Q files of its process row.
// A Π row that loops is rebuilt from the graph given to UseGraph; without
// one it is an error.
func (t *TiledAllPairs) Row(u int) (*SingleSource, error) {
	if err := t.checkVertex("Row", u); err != nil {
		return nil, err
	}
	m := &t.Manifest
	s := &SingleSource{Source: u, Dist: make([]int32, m.N), Labels: m.Labels, Solver: m.Solver}
	if err := t.row(t.dist, u, s.Dist); err != nil {
		return nil, err
	}
	if t.pred == nil {
		return s, nil
	}
	s.Pred = make([]int32, m.N)
	if err := t.row(t.pred, u, s.Pred); err != nil {
		return nil, err
	}
	if rowCycle(u, s.Pred, make([]int32, m.N)) {
		if t.graph == nil {
			return nil, fmt.Errorf("graph: Row %d: its predecessors loop (the graph has a cycle of weight zero): give the graph with UseGraph to rebuild the row", u)
		}
		rebuildRow(t.graph, u, s.Dist, s.Pred, nil)
	}
	return s, nil
}

// row reads global row u of a matrix's files into out, tile by tile.
func (t *TiledAllPairs) row(files [][]*tileReader, u int, out []int32) error {
	m := &t.Manifest
	p, r := t.place(u, m.P)
	for q := range m.Q {
		cols := TileShare(m.N, m.B, m.Q, q)
		local := make([]int32, cols)
		if err := files[p][q].read(int64(r)*int64(cols), local); err != nil {
			return err
		}
		for lj, J := 0, q; J*m.B < m.N; lj, J = lj+1, J+m.Q {
			side := min(m.B, m.N-J*m.B)
			copy(out[J*m.B:J*m.B+side], local[lj*m.B:lj*m.B+side])
		}
	}
	return nil
}

// Path returns the shortest path u → v rebuilt from the predecessors (row
// u, as Row reads it).
func (t *TiledAllPairs) Path(u, v int) (Path, error) {
	if err := t.checkVertex("Path", v); err != nil {
		return Path{}, err
	}
	if !t.Manifest.Pred {
		return Path{}, fmt.Errorf("graph: path %d->%d: this result has no predecessor matrix (run with predecessors)", u, v)
	}
	s, err := t.Row(u)
	if err != nil {
		return Path{}, err
	}
	return s.PathTo(v)
}

// tileReader reads int32 values from one file of a tiled result.
type tileReader struct {
	name string
	data []byte   // the mapped file, where mmap is available
	file *os.File // otherwise, read with ReadAt
}

// read copies len(out) values from value index off on.
func (r *tileReader) read(off int64, out []int32) error {
	lo, hi := off*4, (off+int64(len(out)))*4
	var b []byte
	if r.data != nil {
		if hi > int64(len(r.data)) {
			return fmt.Errorf("graph: %s: read past the end", r.name)
		}
		b = r.data[lo:hi]
	} else {
		b = make([]byte, hi-lo)
		if _, err := r.file.ReadAt(b, lo); err != nil {
			return fmt.Errorf("graph: %s: %w", r.name, err)
		}
	}
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return nil
}

// openTile opens a file of size bytes for reading, mapped into memory
// where the system can.
func openTile(path string, size int64) (*tileReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.Size() != size {
		f.Close()
		return nil, fmt.Errorf("%s holds %d bytes, the manifest says %d (a file from another run, or cut short)", path, st.Size(), size)
	}
	r := &tileReader{name: path}
	if size == 0 {
		r.data = []byte{}
		return r, f.Close()
	}
	data, err := mapFile(f, size)
	if err != nil {
		r.file = f
		return r, nil
	}
	r.data = data
	return r, f.Close()
}

// close unmaps or closes the file.
func (r *tileReader) close() error {
	if r.file != nil {
		return r.file.Close()
	}
	if len(r.data) > 0 {
		return unmapFile(r.data)
	}
	return nil
}

package graph

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// allFormats are the registered formats, which every test of all formats
// goes through: a new format is tested as soon as it registers.
var allFormats = formatOrder

// formatSameGraph fails the test unless a and b have the same vertices and
// the same arcs in the same CSR order.
func formatSameGraph(t *testing.T, what string, a, b *Graph) {
	if a.N() != b.N() || !slices.Equal(a.Offsets(), b.Offsets()) ||
		!slices.Equal(a.Targets(), b.Targets()) || !slices.Equal(a.Weights(), b.Weights()) {
		t.Fatalf("%s: graphs differ:\n got  n=%d %v\n want n=%d %v", what, a.N(), a.Arcs(), b.N(), b.Arcs())
	}
}

// formatTestGraphs are the graphs every format must round-trip.
func formatTestGraphs(t *testing.T) map[string]*Graph {
	must := func(g *Graph, err error) *Graph {
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	return map[string]*Graph{
		"empty":      must(GNM(0, 0, WeightRange{1, 1}, 1)),
		"one vertex": must(GNM(1, 0, WeightRange{1, 1}, 1)),
		"isolated":   must(FromArcs(6, []Arc{{4, 1, 7}})),
		"negative":   must(GNM(7, 30, WeightRange{-MaxDistance, MaxDistance}, 2)),
		"gnm":        must(GNM(60, 500, WeightRange{1, 100}, 3)),
		"self-loop":  must(FromArcs(3, []Arc{{1, 1, -4}, {0, 1, 2}, {2, 0, -1}})),
		"parallel": must(NewBuilder(3).Duplicates(KeepAll).
			AddArcs([]Arc{{0, 1, 5}, {0, 1, 3}, {0, 1, 5}, {2, 1, -2}}).Build()),
		"labelled": must(Parse("a->b 1, b->c 2, c->a 3")),
	}
}

func TestFormatRoundTrip(t *testing.T) {
	for name, g := range formatTestGraphs(t) {
		for _, f := range allFormats {
			var buf bytes.Buffer
			if err := Write(&buf, g, f); err != nil {
				t.Fatalf("%s/%v: write: %v", name, f, err)
			}
			for _, read := range []Format{f, FormatAuto} {
				back, err := Read(bytes.NewReader(buf.Bytes()), ReadOptions{Format: read, Duplicates: KeepAll})
				if err != nil {
					t.Fatalf("%s/%v: read as %v: %v\n%s", name, f, read, err, buf.String())
				}
				formatSameGraph(t, name+"/"+f.String()+"/"+read.String(), back, g)
				if back.Labels() != nil {
					t.Errorf("%s/%v: labels %v came back; writers store none", name, f, back.Labels())
				}
			}
		}
	}
}

func TestReadDuplicatePolicies(t *testing.T) {
	files := map[Format]string{
		FormatEdgeList:     "3 4\n0 1 5\n0 1 3\n0 1 4\n1 2 1\n",
		FormatDIMACS:       "p sp 3 4\na 1 2 5\na 1 2 3\na 1 2 4\na 2 3 1\n",
		FormatSNAP:         "0 1 5\n0 1 3\n0 1 4\n1 2 1\n",
		FormatMatrixMarket: "%%MatrixMarket matrix coordinate integer general\n3 3 4\n1 2 5\n1 2 3\n1 2 4\n2 3 1\n",
	}
	want := map[Duplicates][]int32{KeepLightest: {3}, KeepFirst: {5}, KeepLast: {4}, KeepAll: {3, 4, 5}}
	for f, text := range files {
		for policy, ws := range want {
			g, err := Read(strings.NewReader(text), ReadOptions{Format: f, Duplicates: policy})
			if err != nil {
				t.Fatalf("%v/%v: %v", f, policy, err)
			}
			if got := g.Weights()[:g.OutDegree(0)]; !slices.Equal(got, ws) {
				t.Errorf("%v/%v: weights of 0->1 = %v, want %v", f, policy, got, ws)
			}
			if w, ok := g.Weight(1, 2); !ok || w != 1 {
				t.Errorf("%v/%v: 1->2 = %d, %v; want 1", f, policy, w, ok)
			}
		}
	}
}

func TestReadErrors(t *testing.T) {
	const mm = "%%MatrixMarket matrix coordinate integer general\n"
	cases := []struct {
		format Format
		text   string
		opts   ReadOptions
		want   string
	}{
		// edge list
		{FormatEdgeList, "", ReadOptions{}, "t.txt: empty input"},
		{FormatEdgeList, "3\n", ReadOptions{}, "t.txt:1: header has 1 field"},
		{FormatEdgeList, "x 2\n", ReadOptions{}, `t.txt:1: vertex count V "x" is not an integer`},
		{FormatEdgeList, "-1 0\n", ReadOptions{}, "t.txt:1: vertex count V -1 is negative"},
		{FormatEdgeList, "3 99999999999999999999\n", ReadOptions{}, `t.txt:1: arc count E "99999999999999999999" is not an integer`},
		{FormatEdgeList, "3 2\n0 1 5\n", ReadOptions{}, "t.txt:1: header says E=2, file has 1 arc lines"},
		{FormatEdgeList, "3 1\n0 1 5\n\n1 2 3\n", ReadOptions{}, "t.txt:1: header says E=1, file has 2 arc lines"},
		// [Bodra]'s sample2: "100 9900" merged with the first arc "0 1 w".
		{FormatEdgeList, "3 60 1 7\n0 2 5\n1 2 4\n", ReadOptions{}, `t.txt:1: header says E=60, file has 2 arc lines (the header line also holds "1 7": was the first arc's line merged into it?)`},
		{FormatEdgeList, "3 1 9\n0 1 5\n", ReadOptions{}, `t.txt:1: header has 3 fields, want "V E" (the header line also holds "9"`},
		{FormatEdgeList, "3 1\n0 3 5\n", ReadOptions{}, "t.txt:2: vertex 3 out of range 0..2"},
		{FormatEdgeList, "0 1\n0 0 5\n", ReadOptions{}, "t.txt:2: vertex 0 out of range: the graph has no vertices"},
		{FormatEdgeList, "3 1\n-1 2 5\n", ReadOptions{}, "t.txt:2: vertex -1 out of range 0..2"},
		{FormatEdgeList, "3 1\n0 1\n", ReadOptions{}, `t.txt:2: want "u v w", got 2 fields "0 1"`},
		{FormatEdgeList, "3 1\n0 1 2000000000\n", ReadOptions{}, "t.txt:2: weight 2000000000 beyond ±1073741823"},
		{FormatEdgeList, "3 1\n0 1 -1073741824\n", ReadOptions{}, "t.txt:2: weight -1073741824 beyond ±1073741823"},
		{FormatEdgeList, "3 1\n0 1 1.5\n", ReadOptions{}, `t.txt:2: weight "1.5" is not an integer`},
		{FormatEdgeList, "1000000000000 0\n", ReadOptions{}, "t.txt:1: header says V=1000000000000: 1000000000000 vertices is more than the 2147483647 that int32 CSR can index"},
		{FormatEdgeList, "10 0\n", ReadOptions{MaxVertices: 5}, "t.txt:1: header says V=10: 10 vertices is more than MaxVertices=5"},
		{FormatEdgeList, "3 10000000000000\n", ReadOptions{}, "t.txt:1: header says E=10000000000000: 10000000000000 arcs is more than the 2147483647"},
		// DIMACS
		{FormatDIMACS, "a 1 2 3\n", ReadOptions{}, `t.txt:1: arc line before the "p sp n m" problem line`},
		{FormatDIMACS, "c hi\np sp 3 1\np sp 3 1\n", ReadOptions{}, "t.txt:3: second problem line (the first is line 2)"},
		{FormatDIMACS, "p max 3 1\n", ReadOptions{}, `t.txt:1: problem type "max", want "sp"`},
		{FormatDIMACS, "p sp 3\n", ReadOptions{}, `t.txt:1: want "p sp n m", got 3 fields`},
		{FormatDIMACS, "c x\n\np sp 3 2\na 1 2 3\n", ReadOptions{}, "t.txt:3: problem line says m=2, file has 1 arc lines"},
		{FormatDIMACS, "p sp 3 1\na 0 2 3\n", ReadOptions{}, "t.txt:2: vertex 0 out of range 1..3"},
		{FormatDIMACS, "p sp 3 1\na 1 4 3\n", ReadOptions{}, "t.txt:2: vertex 4 out of range 1..3"},
		{FormatDIMACS, "p sp 3 1\na 1 2\n", ReadOptions{}, `t.txt:2: want "a u v w", got 3 fields`},
		{FormatDIMACS, "p sp 3 1\nv 1 2 3\n", ReadOptions{}, `t.txt:2: unknown line type "v" (want c, p or a)`},
		{FormatDIMACS, "c only a comment\n", ReadOptions{}, `t.txt: no "p sp n m" problem line`},
		{FormatDIMACS, "p sp 1000000000000 0\n", ReadOptions{}, "t.txt:1: problem line says n=1000000000000: 1000000000000 vertices is more than"},
		{FormatDIMACS, "p sp 3 1\na 1 2 x\n", ReadOptions{}, `t.txt:2: weight "x" is not an integer`},
		// SNAP
		{FormatSNAP, "# Nodes: 3\n0 1 2 3\n", ReadOptions{}, `t.txt:2: want "u v" or "u v w", got 4 fields`},
		{FormatSNAP, "0 -1\n", ReadOptions{}, "t.txt:1: vertex id -1 is negative"},
		{FormatSNAP, "0 a\n", ReadOptions{}, `t.txt:1: vertex id "a" is not an integer`},
		{FormatSNAP, "# Nodes: 1000000000000 Edges: 1\n0 1\n", ReadOptions{}, "t.txt:1: header says Nodes: 1000000000000: 1000000000000 vertices is more than"},
		{FormatSNAP, "# Nodes: 10\n0 1\n", ReadOptions{MaxVertices: 4}, "t.txt:1: header says Nodes: 10: 10 vertices is more than MaxVertices=4"},
		{FormatSNAP, "0 7\n7 9\n9 11\n", ReadOptions{MaxVertices: 3}, "t.txt: 4 distinct vertex ids: 4 vertices is more than MaxVertices=3"},
		{FormatSNAP, "# Nodes: x\n", ReadOptions{}, `t.txt:1: Nodes: "x" is not a count`},
		{FormatSNAP, "# Nodes:\n", ReadOptions{}, `t.txt:1: "Nodes:" is not followed by a count`},
		{FormatSNAP, "#\n0 1 3000000000\n", ReadOptions{}, "t.txt:2: weight 3000000000 beyond ±1073741823"},
		// Matrix Market
		{FormatMatrixMarket, "", ReadOptions{}, "t.txt: empty input"},
		{FormatMatrixMarket, "% no banner\n3 3 0\n", ReadOptions{}, "t.txt:1: want the banner"},
		{FormatMatrixMarket, "\n" + mm + "2 2 0\n", ReadOptions{}, "t.txt:2: want the banner"},
		{FormatMatrixMarket, "%%MatrixMarket matrix coordinate integer\n", ReadOptions{}, "t.txt:1: want \"%%MatrixMarket matrix coordinate FIELD SYMMETRY\", got 4 fields"},
		{FormatMatrixMarket, "%%MatrixMarket vector coordinate real general\n", ReadOptions{}, `t.txt:1: object "vector", want "matrix"`},
		{FormatMatrixMarket, "%%MatrixMarket matrix array real general\n", ReadOptions{}, `t.txt:1: format "array", want "coordinate"`},
		{FormatMatrixMarket, "%%MatrixMarket matrix coordinate complex general\n", ReadOptions{}, `t.txt:1: field "complex", want integer, real or pattern`},
		{FormatMatrixMarket, "%%MatrixMarket matrix coordinate real skew-symmetric\n", ReadOptions{}, `t.txt:1: symmetry "skew-symmetric", want general or symmetric`},
		{FormatMatrixMarket, mm + "% only comments\n", ReadOptions{}, `t.txt: no "rows cols nnz" size line`},
		{FormatMatrixMarket, mm + "3 4 0\n", ReadOptions{}, "t.txt:2: matrix is 3×4, but a graph's matrix is square"},
		{FormatMatrixMarket, mm + "3 3\n", ReadOptions{}, `t.txt:2: want "rows cols nnz", got 2 fields`},
		{FormatMatrixMarket, mm + "%\n3 3 2\n1 2 5\n", ReadOptions{}, "t.txt:3: size line says nnz=2, file has 1 entries"},
		{FormatMatrixMarket, mm + "2 2 1\n3 1 1\n", ReadOptions{}, "t.txt:3: vertex 3 out of range 1..2"},
		{FormatMatrixMarket, mm + "2 2 1\n1 2 2.0\n", ReadOptions{}, `t.txt:3: weight "2.0" is not an integer`},
		{FormatMatrixMarket, mm + "2000000000000 2000000000000 0\n", ReadOptions{}, "t.txt:2: size line says 2000000000000 rows: 2000000000000 vertices is more than"},
		{FormatMatrixMarket, "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 2.5\n", ReadOptions{}, "t.txt:3: weight 2.5 is not an integer"},
		{FormatMatrixMarket, "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 nan\n", ReadOptions{}, "t.txt:3: weight NaN is not a finite number"},
		{FormatMatrixMarket, "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 1e400\n", ReadOptions{}, "t.txt:3: weight +Inf is not a finite number"},
		{FormatMatrixMarket, "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 2e9\n", ReadOptions{}, "t.txt:3: weight 2e+09 beyond ±1073741823"},
		{FormatMatrixMarket, "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 1x\n", ReadOptions{}, `t.txt:3: weight "1x" is not a number`},
		{FormatMatrixMarket, "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2 3\n", ReadOptions{}, `t.txt:3: want "i j", got 3 fields`},
		// input and options
		{FormatAuto, "\x1f\x8bnot gzip at all", ReadOptions{}, "t.txt: gzip: "},
		{FormatAuto, "", ReadOptions{}, "t.txt: empty input: no format to detect"},
		{FormatAuto, "1 2 3 4 5\n", ReadOptions{}, `t.txt: cannot tell the format from the first line "1 2 3 4 5"; set ReadOptions.Format`},
		{FormatEdgeList, "1 0\n", ReadOptions{Duplicates: 9}, "t.txt: unknown duplicate policy Duplicates(9)"},
		{FormatEdgeList, "1 0\n", ReadOptions{Format: 9}, "t.txt: unknown format Format(9)"},
		{FormatEdgeList, "1 0\n", ReadOptions{MaxVertices: -1}, "t.txt: negative MaxVertices -1"},
		{FormatSNAP, "0 1\n", ReadOptions{Weights: WeightRange{5, 1}}, "t.txt: graph: empty weight range 5..1"},
		{FormatEdgeList, "1 0\n" + strings.Repeat("x", maxLine+1), ReadOptions{}, "t.txt:2: line longer than 16 MiB"},
	}
	for _, c := range cases {
		opts := c.opts
		opts.Name = "t.txt"
		if opts.Format == FormatAuto {
			opts.Format = c.format
		}
		g, err := Read(strings.NewReader(c.text), opts)
		if err == nil {
			t.Errorf("%v %.60q: no error (graph %v), want %q", c.format, c.text, g, c.want)
			continue
		}
		if !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%v %.60q:\n got  %v\n want %s…", c.format, c.text, err, c.want)
		}
	}
}

func TestReadAccepts(t *testing.T) {
	cases := []struct {
		format Format
		text   string
		opts   ReadOptions
		n      int
		arcs   []Arc
	}{
		{FormatEdgeList, "3 2\r\n\r\n0 1 5\r\n1\t2\t-3", ReadOptions{}, 3, []Arc{{0, 1, 5}, {1, 2, -3}}},
		{FormatEdgeList, "3 2\n0 1 5\n1 2 -3\n", ReadOptions{Undirected: true}, 3, []Arc{{0, 1, 5}, {1, 0, 5}, {1, 2, -3}, {2, 1, -3}}},
		{FormatEdgeList, "2 2\n0 0 5\n1 1 -2\n", ReadOptions{}, 2, []Arc{{1, 1, -2}}},
		{FormatDIMACS, "c 9th DIMACS\ncomment without a space\np sp 3 2\nc between\na 1 2 5\na 3 1 7\n", ReadOptions{}, 3, []Arc{{0, 1, 5}, {2, 0, 7}}},
		{FormatSNAP, "# Nodes: 4 Edges: 2\n0\t1\n3 2 9\n", ReadOptions{}, 4, []Arc{{0, 1, 1}, {3, 2, 9}}},
		{FormatSNAP, "#Nodes:3\n0 1 4\n", ReadOptions{}, 3, []Arc{{0, 1, 4}}},
		{FormatMatrixMarket, "%%matrixmarket MATRIX Coordinate REAL General\n% c\n3 3 3\n1 2 3.0\n2 3 -4e0\n3 3 -1\n", ReadOptions{}, 3, []Arc{{0, 1, 3}, {1, 2, -4}, {2, 2, -1}}},
		{FormatMatrixMarket, "%%MatrixMarket matrix coordinate integer symmetric\n3 3 3\n2 1 3\n3 3 -1\n3 2 4\n", ReadOptions{}, 3, []Arc{{0, 1, 3}, {1, 0, 3}, {1, 2, 4}, {2, 1, 4}, {2, 2, -1}}},
		{FormatMatrixMarket, "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n", ReadOptions{}, 2, []Arc{{0, 1, 1}}},
	}
	for _, c := range cases {
		for _, f := range []Format{c.format, FormatAuto} {
			opts := c.opts
			opts.Format = f
			g, err := Read(strings.NewReader(c.text), opts)
			if err != nil {
				t.Fatalf("%v as %v %q: %v", c.format, f, c.text, err)
			}
			if g.N() != c.n || !slices.Equal(g.Arcs(), c.arcs) {
				t.Errorf("%v as %v %q: n=%d %v, want n=%d %v", c.format, f, c.text, g.N(), g.Arcs(), c.n, c.arcs)
			}
		}
	}
}

func TestReadSNAPIds(t *testing.T) {
	cases := []struct {
		text   string
		n      int
		arcs   []Arc
		labels []string
		note   string
	}{
		{"# Nodes: 5\n4 0\n0 2\n", 5, []Arc{{0, 2, 1}, {4, 0, 1}}, nil, ""},
		{"# Nodes: 3\n10 20\n20 5\n", 3, []Arc{{0, 1, 1}, {1, 2, 1}}, []string{"10", "20", "5"}, `id 20 is not below "Nodes: 3"`},
		{"1 0\n1 2\n", 3, []Arc{{0, 1, 1}, {0, 2, 1}}, []string{"1", "0", "2"}, `the file gives no "Nodes:" count`},
		{"# Nodes: 2 Edges: 5\n1 0\n", 2, []Arc{{1, 0, 1}}, nil, "header says Edges: 5, file has 1 arc lines"},
		{"# nothing\n", 0, nil, nil, ""},
	}
	for _, c := range cases {
		g, err := Read(strings.NewReader(c.text), ReadOptions{Format: FormatSNAP, Name: "s.txt"})
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		if g.N() != c.n || !slices.Equal(g.Arcs(), append([]Arc{}, c.arcs...)) || !slices.Equal(g.Labels(), c.labels) {
			t.Errorf("%q: n=%d %v labels %v, want n=%d %v labels %v", c.text, g.N(), g.Arcs(), g.Labels(), c.n, c.arcs, c.labels)
		}
		notes := strings.Join(g.Notes(), "\n")
		if c.note == "" && notes != "" || !strings.Contains(notes, c.note) {
			t.Errorf("%q: notes %q, want %q", c.text, notes, c.note)
		}
		if c.labels != nil {
			if v, err := g.Vertex(c.labels[1]); err != nil || v != 1 {
				t.Errorf("%q: Vertex(%q) = %d, %v; want 1", c.text, c.labels[1], v, err)
			}
		}
	}
}

func TestReadDrawnWeights(t *testing.T) {
	snap := "0 1\n1 2 77\n2 0\n0 2\n"
	pattern := "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n2 1\n3 2\n3 1\n"
	for _, text := range []string{snap, pattern} {
		plain, err := Read(strings.NewReader(text), ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range plain.Arcs() {
			if a.Weight != 1 && a.Weight != 77 {
				t.Errorf("%q: default weight %v, want 1", text, a)
			}
		}
		read := func(seed uint64) []int32 {
			g, err := Read(strings.NewReader(text), ReadOptions{Weights: WeightRange{-1000, 1000}, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			return g.Weights()
		}
		a, b, c := read(7), read(7), read(8)
		if !slices.Equal(a, b) {
			t.Errorf("%q: seed 7 gave %v then %v", text, a, b)
		}
		if slices.Equal(a, c) {
			t.Errorf("%q: seeds 7 and 8 both gave %v", text, a)
		}
	}
	// The explicit weight 77 stays, and consumes no draw: the other lines
	// get the same weights as a file without that line.
	with, _ := Read(strings.NewReader(snap), ReadOptions{Weights: WeightRange{1, 1000}, Seed: 3})
	without, _ := Read(strings.NewReader("0 1\n2 0\n0 2\n"), ReadOptions{Weights: WeightRange{1, 1000}, Seed: 3})
	for _, e := range [][2]int{{0, 1}, {2, 0}, {0, 2}} {
		w1, _ := with.Weight(e[0], e[1])
		w2, _ := without.Weight(e[0], e[1])
		if w1 != w2 {
			t.Errorf("arc %v: weight %d with an explicitly weighted line, %d without", e, w1, w2)
		}
	}
	if w, _ := with.Weight(1, 2); w != 77 {
		t.Errorf("explicit weight 1->2 = %d, want 77", w)
	}
}

func TestWriteFileReadFile(t *testing.T) {
	g, err := GNM(40, 200, WeightRange{-9, 99}, 5)
	if err != nil {
		t.Fatal(err)
	}
	g = g.WithName("line1\nline2")
	dir := t.TempDir()
	cases := []struct {
		file   string
		format Format
	}{
		{"g.gr", FormatAuto},
		{"g.mtx.gz", FormatAuto},
		{"g.txt", FormatSNAP},
		{"g.txt.gz", FormatEdgeList},
		{"g.el", FormatDIMACS},
	}
	for _, c := range cases {
		path := filepath.Join(dir, c.file)
		if err := WriteFile(path, g, c.format); err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if gz := len(raw) > 2 && raw[0] == 0x1f && raw[1] == 0x8b; gz != strings.HasSuffix(c.file, ".gz") {
			t.Errorf("%s: gzip magic %v", c.file, gz)
		}
		back, err := ReadFile(path, ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		formatSameGraph(t, c.file, back, g)
		if want := strings.TrimSuffix(c.file, ".gz"); back.Name() != want {
			t.Errorf("%s: name %q, want %q", c.file, back.Name(), want)
		}
	}
	if err := WriteFile(filepath.Join(dir, "g.txt"), g, FormatAuto); err == nil || !strings.Contains(err.Error(), "cannot tell the format") {
		t.Errorf("WriteFile g.txt with FormatAuto: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.gr"), ReadOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadFile of a missing file: %v", err)
	}
	// A wrong line in a file is reported with the path.
	bad := filepath.Join(dir, "bad.gr")
	if err := os.WriteFile(bad, []byte("p sp 2 1\na 1 3 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(bad, ReadOptions{}); err == nil || !strings.HasPrefix(err.Error(), bad+":2: vertex 3 out of range 1..2") {
		t.Errorf("bad.gr: %v", err)
	}
}

// failWriter fails every write, to check that Write reports it.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteErrors(t *testing.T) {
	g, err := GNM(10, 20, WeightRange{1, 5}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, g, FormatAuto); err == nil || !strings.Contains(err.Error(), "cannot write format auto") {
		t.Errorf("Write FormatAuto: %v", err)
	}
	if err := Write(&buf, nil, FormatSNAP); err == nil {
		t.Error("Write of a nil graph: no error")
	}
	for _, f := range allFormats {
		if err := Write(failWriter{}, g, f); err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("%v to a failing writer: %v", f, err)
		}
	}
}

func TestWriteText(t *testing.T) {
	g, err := FromArcs(3, []Arc{{0, 2, 5}, {2, 1, -1}})
	if err != nil {
		t.Fatal(err)
	}
	g = g.WithName("toy")
	want := map[Format]string{
		FormatEdgeList:     "3 2\n0 2 5\n2 1 -1\n",
		FormatDIMACS:       "c toy\np sp 3 2\na 1 3 5\na 3 2 -1\n",
		FormatSNAP:         "# Directed graph: toy\n# Nodes: 3 Edges: 2\n# FromNodeId\tToNodeId\tWeight\n0\t2\t5\n2\t1\t-1\n",
		FormatMatrixMarket: "%%MatrixMarket matrix coordinate integer general\n% toy\n3 3 2\n1 3 5\n3 2 -1\n",
	}
	for _, f := range allFormats {
		text, ok := want[f]
		if !ok {
			t.Errorf("%v: no text to compare its writer's with", f)
			continue
		}
		var buf bytes.Buffer
		if err := Write(&buf, g, f); err != nil {
			t.Fatal(err)
		}
		if buf.String() != text {
			t.Errorf("%v:\n%s\nwant\n%s", f, buf.String(), text)
		}
	}
}

func TestFormatString(t *testing.T) {
	want := []string{"auto", "edge-list", "dimacs", "snap", "matrix-market", "Format(5)"}
	for f, s := range want {
		if got := Format(f).String(); got != s {
			t.Errorf("Format(%d) = %q, want %q", f, got, s)
		}
	}
}

func TestParseInt(t *testing.T) {
	cases := []struct {
		in string
		x  int64
		ok bool
	}{
		{"0", 0, true}, {"+7", 7, true}, {"-12", -12, true},
		{"9223372036854775807", 1<<63 - 1, true}, {"9223372036854775808", 0, false},
		{"-9223372036854775808", -1 << 63, true}, {"-9223372036854775809", 0, false},
		{"", 0, false}, {"-", 0, false}, {"1e3", 0, false}, {"12a", 0, false}, {"1_000", 0, false},
	}
	for _, c := range cases {
		x, ok := parseInt([]byte(c.in))
		if x != c.x || ok != c.ok {
			t.Errorf("parseInt(%q) = %d, %v; want %d, %v", c.in, x, ok, c.x, c.ok)
		}
	}
}

func TestReadCancelled(t *testing.T) {
	var text strings.Builder
	text.WriteString("p sp 2 100000\n")
	for range 100000 {
		text.WriteString("a 1 2 3\n")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := ReadContext(ctx, strings.NewReader(text.String()), ReadOptions{Name: "big.gr"})
	if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "big.gr:16384: ") {
		t.Fatalf("cancelled read: %v", err)
	}
	if _, err := ReadContext(context.Background(), strings.NewReader(text.String()), ReadOptions{Name: "big.gr"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(nil, ReadOptions{}); err == nil || err.Error() != "input: nil reader" {
		t.Errorf("nil reader: %v", err)
	}
}

func TestSniffFormat(t *testing.T) {
	cases := []struct {
		text string
		want Format
	}{
		{"%%MatrixMarket matrix coordinate integer general\n1 1 0\n", FormatMatrixMarket},
		{"% comment first\n", FormatMatrixMarket},
		{"c DIMACS\np sp 1 0\n", FormatDIMACS},
		{"\n\np sp 1 0\n", FormatDIMACS},
		{"# Nodes: 2\n0 1\n", FormatSNAP},
		{"5 0\n", FormatEdgeList},
		{"5 1\n0 4 7\n", FormatEdgeList},
		{"0 1\n1 2 77\n", FormatSNAP}, // "V E" = "0 1" cannot hold vertex 1
		{"0 1\n1 2\n", FormatSNAP},
		{"0 1 5\n", FormatSNAP},
	}
	sniffed := map[Format]bool{}
	for _, c := range cases {
		got, err := sniffFormat(bufio.NewReader(strings.NewReader(c.text)))
		if err != nil || got != c.want {
			t.Errorf("%q: %v, %v; want %v", c.text, got, err, c.want)
		}
		sniffed[c.want] = true
	}
	for _, f := range allFormats {
		if !sniffed[f] {
			t.Errorf("%v: no case of its sniffer", f)
		}
	}
	for _, text := range []string{"", "\n \n", "1 2 3 4\n", "x\n"} {
		if got, err := sniffFormat(bufio.NewReader(strings.NewReader(text))); err == nil {
			t.Errorf("%q: sniffed as %v, want an error", text, got)
		}
	}
}

// TestRegisterFormat checks that the registry refuses a format registered
// twice, a name or an extension that another format has, and a spec
// missing a part, and that every registered format has its name, its
// extensions and its place in Format order.
func TestRegisterFormat(t *testing.T) {
	dimacs := formats[FormatDIMACS]
	renamed := func(name string, exts ...string) formatSpec {
		s := dimacs
		s.name, s.exts = name, exts
		return s
	}
	noReader := renamed("new")
	noReader.read = nil
	for what, c := range map[string]struct {
		f    Format
		spec formatSpec
	}{
		"a Format twice":     {FormatDIMACS, renamed("new")},
		"a name twice":       {99, renamed("dimacs")},
		"an extension twice": {99, renamed("new", ".mm")},
		"FormatAuto":         {FormatAuto, renamed("new")},
		"no reader":          {99, noReader},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("registering %s did not panic", what)
				}
			}()
			registerFormat(c.f, c.spec)
		}()
	}
	if _, ok := formats[99]; ok || len(formatOrder) != len(formats) {
		t.Fatalf("a refused format stayed in the registry: %v", formatOrder)
	}
	if !slices.IsSorted(formatOrder) || len(formatOrder) < 4 {
		t.Errorf("formatOrder %v", formatOrder)
	}
	for _, f := range formatOrder {
		if f.String() != formats[f].name {
			t.Errorf("%d: String %q, name %q", int(f), f, formats[f].name)
		}
		for _, ext := range formats[f].exts {
			if got := formatFromName("g" + strings.ToUpper(ext) + ".gz"); got != f {
				t.Errorf("%s: %v, want %v", ext, got, f)
			}
		}
	}
	if got := formatList(); got != "edge-list, dimacs, snap or matrix-market" {
		t.Errorf("formatList() = %q", got)
	}
}

// TestReadFigure1Files reads [Bodra]'s Figure 1 graph from a file in
// every format, detecting each format from the name or the content.
func TestReadFigure1Files(t *testing.T) {
	want := []Arc{{0, 1, 1}, {0, 2, 2}, {1, 3, 5}, {2, 3, 7}}
	for _, file := range []string{"figure1.gr", "figure1.mtx", "figure1-snap.txt", "figure1-edges.txt", "figure1-edges.txt.gz"} {
		g, err := ReadFile(filepath.Join("testdata", file), ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if g.N() != 4 || !slices.Equal(g.Arcs(), want) {
			t.Errorf("%s: n=%d %v, want n=4 %v", file, g.N(), g.Arcs(), want)
		}
	}
}

// TestReadSample2 rebuilds [Bodra]'s sample2 as its weight script (Listing 8) wrote it: a
// complete digraph on 100 vertices whose header "100 9900" lost its newline
// and merged with the first arc "0 1 w". The paper's reader took E=99000 and
// lost the arc; ours refuses the file and says why.
func TestReadSample2(t *testing.T) {
	g, err := GNM(100, 9900, WeightRange{1, 100}, 2)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, g, FormatEdgeList); err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(buf.String(), "100 9900\n", "100 9900", 1)
	w, _ := g.Weight(0, 1)
	_, err = Read(strings.NewReader(text), ReadOptions{Name: "sample2.txt", Format: FormatEdgeList})
	want := fmt.Sprintf(`sample2.txt:1: header says E=99000, file has 9899 arc lines (the header line also holds "1 %d": was the first arc's line merged into it?)`, w)
	if err == nil || err.Error() != want {
		t.Fatalf("sample2:\n got  %v\n want %s", err, want)
	}
}

// TestReadTruncatedGzip checks that a gzip file cut short, even to its
// header alone, is reported as a truncated gzip stream, not as empty input
// or a line error, whether the format is sniffed or named.
func TestReadTruncatedGzip(t *testing.T) {
	g, err := GNM(200, 2000, WeightRange{1, 99}, 3)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	full := filepath.Join(dir, "g.gr.gz")
	if err := WriteFile(full, g, FormatAuto); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{5, 10, len(raw) / 2, len(raw) - 4} {
		for _, opts := range []ReadOptions{{Name: "x.gz"}, {Name: "x.gr.gz"}} {
			_, err := Read(bytes.NewReader(raw[:cut]), opts)
			if err == nil || !strings.Contains(err.Error(), "truncated gzip stream") || strings.Contains(err.Error(), "empty input") {
				t.Errorf("%s cut to %d of %d bytes: %v, want a truncated gzip stream", opts.Name, cut, len(raw), err)
			}
		}
	}
	if _, err := Read(bytes.NewReader(raw), ReadOptions{Name: "x.gz"}); err != nil {
		t.Errorf("the whole file: %v", err)
	}
	// A damaged checksum (the trailer's first 4 bytes) and a damaged
	// stream are named once as gzip's.
	bad := bytes.Clone(raw)
	bad[len(bad)-8] ^= 0xff
	if _, err := Read(bytes.NewReader(bad), ReadOptions{Name: "x.gz"}); err == nil || err.Error() != "x.gz: gzip: invalid checksum" {
		t.Errorf("a bad checksum: %v, want x.gz: gzip: invalid checksum", err)
	}
	bad = bytes.Clone(raw)
	for i := 20; i < 40; i++ {
		bad[i] = 0xff
	}
	if _, err := Read(bytes.NewReader(bad), ReadOptions{Name: "x.gz"}); err == nil || !strings.Contains(err.Error(), "x.gz: gzip: flate: corrupt input") || strings.Count(err.Error(), "gzip:") != 1 {
		t.Errorf("a damaged stream: %v, want one gzip: and flate's error", err)
	}
}

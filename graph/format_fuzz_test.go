package graph

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"
)

// fuzzRead checks one reader on arbitrary input: it must not panic, every
// error must name the input, and every graph it returns must survive a
// write and a re-read unchanged. The duplicate policy and the undirected
// flag come from the input's length so that all of them are exercised.
func fuzzRead(f *testing.F, format Format, seeds []string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(seeds[0]))
	zw.Close()
	f.Add(gz.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := ReadOptions{
			Format:      format,
			Weights:     WeightRange{-50, 50},
			Seed:        uint64(len(data)),
			Undirected:  len(data)%5 == 0,
			Duplicates:  Duplicates(len(data) % 4),
			Name:        "fuzz",
			MaxVertices: 1 << 16, // headers may claim anything; keep the fuzzer's memory small
		}
		g, err := Read(bytes.NewReader(data), opts)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz:") {
				t.Fatalf("error does not name the input: %v", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := Write(&buf, g, format); err != nil {
			t.Fatalf("write: %v", err)
		}
		back, err := Read(&buf, ReadOptions{Format: format, Duplicates: KeepAll})
		if err != nil {
			t.Fatalf("re-read: %v\n%s", err, buf.String())
		}
		formatSameGraph(t, "re-read", back, g)
	})
}

func FuzzReadEdgeList(f *testing.F) {
	fuzzRead(f, FormatEdgeList, []string{
		"4 5\n0 1 5\n1 2 -3\n2 3 7\n3 0 1\n0 1 2\n",
		"0 0\n",
		"1 1\n0 0 -5\n",
		"3 2\r\n0 1 1073741823\r\n1 2 -1073741823\r\n",
		"3 20 1 7\n0 2 5\n",     // [Bodra]'s merged header
		"3 1\n0 3 5\n",          // vertex out of range
		"3 2\n0 1 5\n",          // too few arcs
		"3 1\n0 1\n",            // missing weight
		"3 1\n0 1 2147483648\n", // weight beyond int32
		"99999999999 0\n",       // absurd header
		"3 1\n0 1 5 6\n",
	})
}

func FuzzReadDIMACS(f *testing.F) {
	fuzzRead(f, FormatDIMACS, []string{
		"c 9th DIMACS\np sp 4 4\na 1 2 5\na 2 3 7\na 3 4 -2\na 4 1 1\n",
		"p sp 0 0\n",
		"p sp 2 1\nc late comment\na 2 2 -1\n",
		"a 1 2 3\np sp 3 1\n",         // arc before problem line
		"p sp 3 1\np sp 3 1\n",        // two problem lines
		"p sp 3 2\na 1 2 3\n",         // too few arcs
		"p sp 3 1\na 0 1 3\n",         // 0 is not a 1-based id
		"p max 3 1\na 1 2 3\n",        // wrong problem type
		"p sp 9999999999999 0\n",      // absurd header
		"p sp 2 1\nx 1 2 3\n",         // unknown line
		"p sp 2 1\na 1 2 99999999999", // weight beyond int32
	})
}

func FuzzReadSNAP(f *testing.F) {
	fuzzRead(f, FormatSNAP, []string{
		"# Directed graph\n# Nodes: 5 Edges: 4\n# FromNodeId\tToNodeId\n0\t1\n0\t2\n3\t4\n4\t0\n",
		"# Nodes: 3 Edges: 2\n10 20\n20 5\n", // ids beyond Nodes: compacted
		"7 9 3\n9 7\n",                       // no header, mixed weights
		"# Nodes: 0 Edges: 0\n",
		"#Nodes:2\n1 1 -4\n",
		"# Nodes: 99999999999999\n0 1\n", // absurd header
		"0 -1\n",
		"0 1 2 3\n",
		"# Nodes: x\n",
		"0 1 1073741824\n",
	})
}

func FuzzReadMatrixMarket(f *testing.F) {
	fuzzRead(f, FormatMatrixMarket, []string{
		"%%MatrixMarket matrix coordinate integer general\n% comment\n3 3 3\n1 2 5\n2 3 -1\n3 3 -2\n",
		"%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 4.0\n3 1 1e1\n",
		"%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n2 1\n",
		"%%MatrixMarket matrix coordinate integer general\n0 0 0\n",
		"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", // dense array
		"%%MatrixMarket matrix coordinate complex general\n1 1 0\n",   // complex
		"%%MatrixMarket matrix coordinate integer general\n2 3 0\n",   // not square
		"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 0.5\n",
		"%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 1\n",
		"%%MatrixMarket matrix coordinate integer general\n9999999999 9999999999 0\n",
		"3 3 1\n1 2 3\n", // no banner
	})
}

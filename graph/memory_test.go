package graph

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/internal/memlimit"
)

// withMemory makes the size checks see avail bytes, as a 1 GiB cgroup
// limit would, until the test ends.
func withMemory(t *testing.T, avail uint64) {
	t.Helper()
	old := memoryAvailable
	memoryAvailable = func() (memlimit.Budget, bool) { return memlimit.Budget{Bytes: avail, From: "test limit"}, true }
	forgetReading()
	t.Cleanup(func() {
		memoryAvailable = old
		forgetReading()
	})
}

// forgetReading drops checkMemory's last reading of the limits.
func forgetReading() {
	availCache.Lock()
	availCache.at = time.Time{}
	availCache.Unlock()
}

// TestCheckMemoryReading checks how checkMemory uses a reading of the
// limits: requests within half of it, added up, pass without reading
// again; one beyond that reads again and is refused if it does not fit;
// a stale reading is read again.
func TestCheckMemoryReading(t *testing.T) {
	reads, avail := 0, uint64(1000<<20)
	old := memoryAvailable
	memoryAvailable = func() (memlimit.Budget, bool) {
		reads++
		return memlimit.Budget{Bytes: avail, From: "test limit"}, true
	}
	forgetReading()
	t.Cleanup(func() {
		memoryAvailable = old
		forgetReading()
	})
	step := func(need uint64, wantReads int, wantErr bool) {
		t.Helper()
		err := checkMemory(need)
		if (err != nil) != wantErr || reads != wantReads {
			t.Fatalf("checkMemory(%d MiB) = %v after %d readings; want error %v after %d", need>>20, err, reads, wantErr, wantReads)
		}
	}
	step(100<<20, 1, false) // the first reading
	step(300<<20, 1, false) // 400 of 500 MiB let through
	step(100<<20, 1, false) // 500 of 500
	avail = 150 << 20       // memory taken elsewhere
	step(1<<20, 2, false)   // past half: read again, and it fits
	step(100<<20, 3, false) // 101 > 75: read again
	step(200<<20, 4, true)  // read again, and refused
	step(10<<20, 5, false)  // a refusal keeps no reading
	availCache.Lock()
	availCache.at = time.Now().Add(-2 * availFresh)
	availCache.Unlock()
	step(1<<20, 6, false) // stale
}

func gzipped(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestReadHugeHeaderRefused reads tiny files whose headers claim 2·10⁹
// vertices (CSR offsets of 7.45 GiB) under 1 GiB of memory: each must be a
// clear error naming the line, the bytes needed and the bytes available,
// and nothing large may be allocated on the way.
func TestReadHugeHeaderRefused(t *testing.T) {
	withMemory(t, 1<<30)
	const tail = "the CSR offsets of 2000000000 vertices need 7.45 GiB, but only 1 GiB of memory is available (test limit)"
	dimacs := "p sp 2000000000 0\n"
	cases := []struct {
		name, input string
		opts        ReadOptions
		want        string
	}{
		{"dimacs", dimacs, ReadOptions{Format: FormatDIMACS}, "input:1: problem line says n=2000000000: " + tail},
		{"dimacs.gz", gzipped(t, dimacs), ReadOptions{Name: "g.gr.gz"}, "g.gr.gz:1: problem line says n=2000000000: " + tail},
		{"mtx", "%%MatrixMarket matrix coordinate integer general\n2000000000 2000000000 0\n", ReadOptions{},
			"input:2: size line says 2000000000 rows: " + tail},
		{"mtx.gz", gzipped(t, "%%MatrixMarket matrix coordinate pattern symmetric\n% c\n2000000000 2000000000 3000000\n"), ReadOptions{Name: "m.mtx.gz"},
			"m.mtx.gz:3: size line says 2000000000 rows: " + tail},
		{"edge list", "2000000000 0\n", ReadOptions{Format: FormatEdgeList}, "input:1: header says V=2000000000: " + tail},
		{"snap", "# Nodes: 2000000000 Edges: 2000000000\n0 1\n", ReadOptions{Format: FormatSNAP}, "input:1: header says Nodes: 2000000000: " + tail},
	}
	for _, c := range cases {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		g, err := Read(strings.NewReader(c.input), c.opts)
		runtime.ReadMemStats(&after)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: Read = %v, %v\nwant error %q", c.name, g, err, c.want)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
			t.Errorf("%s: reading allocated %s", c.name, FormatBytes(grew))
		}
	}
}

// TestReadWithinMemory reads a header whose vertices fit the memory left.
func TestReadWithinMemory(t *testing.T) {
	withMemory(t, 1<<30)
	g, err := Read(strings.NewReader("p sp 1000000 1\na 1 1000000 5\n"), ReadOptions{Format: FormatDIMACS})
	if err != nil || g.N() != 1000000 || g.M() != 1 {
		t.Fatalf("Read = %v, %v", g, err)
	}
}

// TestCheckMatrixSizeLimit refuses result matrices beyond the memory left,
// naming the bytes needed and available.
func TestCheckMatrixSizeLimit(t *testing.T) {
	withMemory(t, 1<<30)
	want := "graph: 2 n×n int32 matrices for n=20000 need 2.98 GiB, but only 1 GiB of memory is available (test limit)"
	if err := CheckMatrixSize(20000, 2); err == nil || err.Error() != want {
		t.Fatalf("CheckMatrixSize = %v, want %q", err, want)
	}
	if r, err := NewAllPairs(20000, true); err == nil || err.Error() != want {
		t.Fatalf("NewAllPairs = %v, %v; want %q", r, err, want)
	}
	if err := CheckMatrixSize(15000, 1); err != nil { // 858 MiB fits
		t.Fatal(err)
	}
	wantGen := "graph.Complete: n=20000 m=399980000: generating would need 2.98 GiB, but only 1 GiB of memory is available (test limit)"
	if _, err := Complete(20000, WeightRange{1, 1}, 1); err == nil || err.Error() != wantGen {
		t.Fatalf("Complete beyond the memory left: %v, want %q", err, wantGen)
	}
}

// withGrowthChecks makes the readers ask about every allocation, however
// small, until the test ends.
func withGrowthChecks(t *testing.T) {
	t.Helper()
	old := growthCheckBytes
	growthCheckBytes = 0
	t.Cleanup(func() { growthCheckBytes = old })
}

// arcLines returns m arc lines "PREFIXu v 1" on vertices 1..10.
func arcLines(prefix string, m int) string {
	var b strings.Builder
	for i := range m {
		fmt.Fprintf(&b, "%s%d %d 1\n", prefix, i%10+1, (i+3)%10+1)
	}
	return b.String()
}

// TestReadOutgrowsMemory reads files with more arcs than the memory left
// holds: the readers must stop with an error saying so, whether the arcs
// outgrow their array while being read or the graph cannot be built.
func TestReadOutgrowsMemory(t *testing.T) {
	withMemory(t, 100<<10)
	withGrowthChecks(t)
	const tail = "of memory is available (test limit)"
	cases := []struct {
		name, input string
		opts        ReadOptions
		want        string
	}{
		// The header's 1000 arcs leave room for 1000; 5000 follow.
		{"dimacs lines", "p sp 10 1000\n" + arcLines("a ", 5000), ReadOptions{}, "arcs read so far: growing their array would need "},
		{"snap lines", arcLines("", 5000), ReadOptions{Format: FormatSNAP}, "arcs read so far: growing their array would need "},
		{"edge list build", "11 5000\n" + arcLines("", 5000), ReadOptions{Format: FormatEdgeList},
			"input: building the graph of 11 vertices and 5000 arcs would need 156 KiB, but only 100 KiB " + tail},
		{"undirected", "11 3000\n" + arcLines("", 3000), ReadOptions{Format: FormatEdgeList, Undirected: true},
			"input: adding the reverse of 3000 arcs would need 141 KiB, but only 100 KiB " + tail},
	}
	for _, c := range cases {
		_, err := Read(strings.NewReader(c.input), c.opts)
		t.Logf("%s: %v", c.name, err)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasSuffix(err.Error(), tail) {
			t.Errorf("%s: Read error %v, want one with %q", c.name, err, c.want)
		}
	}
	// Within the memory left, the same checks pass.
	if g, err := Read(strings.NewReader("p sp 10 300\n"+arcLines("a ", 300)), ReadOptions{}); err != nil || g.N() != 10 {
		t.Fatalf("small file under the checks: %v, %v", g, err)
	}
}

// TestHugeSizesRefused checks the sizes a cell can ask of package graph
// directly, under 1 GiB of memory: a builder of 500 million vertices, a
// single-source result of as many, and the dense matrix of a graph of
// 40,000 vertices (6 GiB). Each is an error (a panic of the error for
// Dense, which has no error to return) rather than the end of the process.
func TestHugeSizesRefused(t *testing.T) {
	withMemory(t, 1<<30)
	if _, err := NewBuilder(500_000_000).Build(); err == nil || !strings.Contains(err.Error(), "graph: the CSR offsets of 500000000 vertices need 1.86 GiB, but only 1 GiB") {
		t.Errorf("Build of 5e8 vertices: %v", err)
	}
	if _, err := NewBuilder(3_000_000_000).Build(); err == nil || !strings.Contains(err.Error(), "more than int32 vertex ids allow") {
		t.Errorf("Build of 3e9 vertices: %v", err)
	}
	if _, err := NewSingleSource(500_000_000, 0, true); err == nil || !strings.Contains(err.Error(), "graph: the distances and predecessors of 500000000 vertices need 3.73 GiB") {
		t.Errorf("NewSingleSource of 5e8 vertices: %v", err)
	}
	g, err := NewBuilder(40_000).Build()
	if err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			err, _ := recover().(error)
			var me *memlimit.Error
			if !errors.As(err, &me) || !strings.Contains(err.Error(), "graph: Dense: graph: 1 n×n int32 matrices for n=40000 need 5.96 GiB") {
				t.Errorf("Dense of 40000 vertices panicked with %v, want a *memlimit.Error", err)
			}
		}()
		g.Dense()
	}()
	small, err := NewBuilder(3).AddArc(0, 1, 5).Build()
	if err != nil {
		t.Fatal(err)
	}
	if w := small.Dense(); len(w) != 9 || w[1] != 5 {
		t.Errorf("Dense of 3 vertices = %v", w)
	}
}

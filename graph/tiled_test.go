package graph

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTiled writes r as a tiled result of tile side b on a P×Q grid, as
// the ranks of a distributed run would, and returns its directory.
func writeTiled(t *testing.T, r *AllPairs, b, P, Q int) string {
	t.Helper()
	dir := t.TempDir()
	n := r.N
	m := TiledManifest{N: n, B: b, P: P, Q: Q, Pred: r.Pred != nil, Solver: "test", Labels: r.Labels}
	for p := range P {
		for q := range Q {
			rows, cols := TileShare(n, b, P, p), TileShare(n, b, Q, q)
			local := func(src []int32) []int32 {
				out := make([]int32, 0, rows*cols)
				for I := p; I*b < n; I += P {
					for u := I * b; u < min(n, (I+1)*b); u++ {
						for J := q; J*b < n; J += Q {
							out = append(out, src[u*n+J*b:u*n+min(n, (J+1)*b)]...)
						}
					}
				}
				return out
			}
			f, err := WriteTile(dir, "dist", p, q, rows, cols, local(r.Dist))
			if err != nil {
				t.Fatal(err)
			}
			m.Files = append(m.Files, f)
			if r.Pred != nil {
				if f, err = WriteTile(dir, "pred", p, q, rows, cols, local(r.Pred)); err != nil {
					t.Fatal(err)
				}
				m.Files = append(m.Files, f)
			}
		}
	}
	if err := WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	return dir
}

// bellmanRows is all pairs of g by Bellman-Ford from every source, with
// predecessors: an independent reference for the reader's tests.
func bellmanRows(t *testing.T, g *Graph) *AllPairs {
	t.Helper()
	n := g.N()
	r, err := NewAllPairs(n, true)
	if err != nil {
		t.Fatal(err)
	}
	for s := range n {
		d, p := r.Dist[s*n:(s+1)*n], r.Pred[s*n:(s+1)*n]
		d[s] = 0
		for range n {
			for u := range n {
				if d[u] == Inf {
					continue
				}
				ts, ws := g.Out(u)
				for k, v := range ts {
					if nd := d[u] + ws[k]; nd < d[v] {
						d[v], p[v] = nd, int32(u)
					}
				}
			}
		}
	}
	return r
}

// TestTiledRoundTrip writes results tiled on several grids and tile sides
// (a side that does not divide n, more ranks than tiles) and reads every
// distance, row and path back.
func TestTiledRoundTrip(t *testing.T) {
	g, err := GNM(23, 60, WeightRange{Min: 1, Max: 9}, 5)
	if err != nil {
		t.Fatal(err)
	}
	want := bellmanRows(t, g)
	for _, c := range []struct{ b, P, Q int }{{4, 2, 3}, {8, 1, 1}, {5, 3, 2}, {16, 2, 2}, {32, 2, 1}} {
		dir := writeTiled(t, want, c.b, c.P, c.Q)
		res, err := OpenAllPairs(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := res.Verify(); err != nil {
			t.Fatal(err)
		}
		for u := range g.N() {
			row, err := res.Row(u)
			if err != nil {
				t.Fatal(err)
			}
			if !row.Equal(want.Row(u)) {
				t.Fatalf("b=%d grid %dx%d: row %d:\n%s", c.b, c.P, c.Q, u, row.Diff(want.Row(u), 5))
			}
			for v := range g.N() {
				d, err := res.Dist(u, v)
				if err != nil || d != want.At(u, v) {
					t.Fatalf("Dist(%d, %d) = %d, %v; want %d", u, v, d, err, want.At(u, v))
				}
				p, err := res.Path(u, v)
				wp, _ := want.Path(u, v)
				if err != nil || p.String() != wp.String() {
					t.Fatalf("Path(%d, %d) = %v, %v; want %v", u, v, p, err, wp)
				}
			}
		}
		if _, err := res.Dist(0, 23); err == nil {
			t.Error("Dist(0, 23) on 23 vertices: no error")
		}
		if err := res.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := res.Row(0); err == nil {
			t.Error("Row after Close: no error")
		}
	}
}

// TestTiledRefusals checks that a directory without a manifest, a
// manifest that misses a rank's file, and files of the wrong size are
// refused, and that Verify catches a changed byte.
func TestTiledRefusals(t *testing.T) {
	g, err := GNM(10, 30, WeightRange{Min: 1, Max: 9}, 2)
	if err != nil {
		t.Fatal(err)
	}
	r := bellmanRows(t, g)
	r.Pred = nil
	if _, err := OpenAllPairs(t.TempDir()); err == nil || !strings.Contains(err.Error(), "did not finish") {
		t.Errorf("no manifest: %v", err)
	}
	dir := writeTiled(t, r, 4, 2, 2)
	data, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	missing := strings.Replace(string(data), `"name": "dist-1-1.i32"`, `"name": "dist-1-0.i32"`, 1)
	if err := os.WriteFile(filepath.Join(dir, ManifestName), []byte(missing), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenAllPairs(dir); err == nil {
		t.Error("a manifest whose entry names another rank's file: no error")
	}
	dir = writeTiled(t, r, 4, 2, 2)
	name := filepath.Join(dir, "dist-0-1.i32")
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, b[:len(b)-4], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenAllPairs(dir); err == nil || !strings.Contains(err.Error(), "cut short") {
		t.Errorf("a short file: %v", err)
	}
	b[0] ^= 1
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := OpenAllPairs(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	if err := res.Verify(); err == nil || !strings.Contains(err.Error(), "CRC-32C") {
		t.Errorf("a changed byte: Verify says %v", err)
	}
	if _, err := res.Path(0, 1); err == nil || !strings.Contains(err.Error(), "no predecessor matrix") {
		t.Errorf("Path without Π: %v", err)
	}
}

// TestTiledRepairsLoopingRow checks that a Π row that loops (as blocked
// Floyd-Warshall can leave on zero-weight cycles) is refused without the
// graph and rebuilt into a shortest-path tree with it.
func TestTiledRepairsLoopingRow(t *testing.T) {
	g, err := Parse("0->1 1, 1->2 0, 2->1 0, 2->3 1")
	if err != nil {
		t.Fatal(err)
	}
	r := bellmanRows(t, g)
	r.Pred[0*4+1], r.Pred[0*4+2] = 2, 1 // 1 and 2 point at each other
	dir := writeTiled(t, r, 2, 2, 1)
	res, err := OpenAllPairs(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	if _, err := res.Row(0); err == nil || !strings.Contains(err.Error(), "UseGraph") {
		t.Errorf("a looping row without the graph: %v", err)
	}
	if err := res.UseGraph(g); err != nil {
		t.Fatal(err)
	}
	p, err := res.Path(0, 3)
	if err != nil || p.String() != "0 -> 1 -> 2 -> 3 (weight 2)" {
		t.Errorf("Path(0, 3) = %v, %v", p, err)
	}
}

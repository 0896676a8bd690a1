package gpu

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/graph"
)

// streamCap is a device memory cap under which fw-fast streams a matrix
// of n vertices (matrices of them) through slots bands of h block rows
// (plus room for the allocations' rounding).
func streamCap(n, matrices, slots, h int) uint64 {
	ld := ceilDiv(n, ffTile) * ffTile
	return uint64(slots*h*ffTile*ld*4*matrices) + 1024
}

// TestFWFastStreamed caps the device memory below fw-fast's matrices, so
// that it streams bands of block rows through the emulated device, and
// compares with the CPU in every kernel mode (the graphs of multiGraphs:
// distances only, packed predecessors, negative arcs, large weights),
// predecessors included: with two and three band buffers of one block
// row (three bands, n not a multiple of the tile), and with four buffers
// for five bands, where each pass copies some bands out and
// keeps the last ones for the next; the host matrices are registered (and
// copied) in pieces of a few rows. A cap too small even for streaming is
// an error that says what it needs.
func TestFWFastStreamed(t *testing.T) {
	ctx := context.Background()
	dev := emulator(t)
	defer func(p int) { regPiece = p }(regPiece)
	regPiece = 40 * 300 * 4 // bands of 128 rows in pieces of 40 and 8 rows
	small := multiGraphs(t, 300)
	for _, c := range []struct {
		n, slots, h, passes int
	}{{300, 2, 1, 3}, {300, 3, 1, 3}, {600, 4, 1, 5}} {
		gs := small
		if c.n != 300 {
			gs = []testGraph{sparseWithCPU(t, c.n)}
		}
		for _, tg := range gs {
			for _, pred := range []bool{false, true} {
				m := 1
				if pred {
					m = 2
				}
				limit := streamCap(c.n, m, c.slots, c.h)
				var st Stats
				name := fmt.Sprintf("%s, pred %v, %d bytes (%d buffers)", tg.name, pred, limit, c.slots)
				res, err := FWFast(ctx, tg.g, Options{Device: dev, Pred: pred, DeviceMemory: limit, Stats: &st})
				if !matchesCPU(t, name, tg, res, err, pred) {
					continue
				}
				if st.Passes != c.passes {
					t.Errorf("%s: %d passes, want %d", name, st.Passes, c.passes)
				}
				// Each pass copies in every band it does not find on the
				// device, and at most every band is copied in per pass.
				matrix := uint64(c.n) * uint64(c.n) * 4 * uint64(m)
				if st.BytesToDevice > uint64(c.passes)*matrix || st.BytesToHost > uint64(c.passes)*matrix || st.BytesToHost < matrix {
					t.Errorf("%s: %d bytes in and %d out for a %d-byte matrix in %d passes", name, st.BytesToDevice, st.BytesToHost, matrix, c.passes)
				}
			}
		}
	}
	g := mustGraph(t, 300, "0->1 1")
	_, err := FWFast(ctx, g, Options{Device: dev, DeviceMemory: 100000})
	if err == nil || !strings.Contains(err.Error(), "does not fit") || !strings.Contains(err.Error(), "two bands of 128 rows") {
		t.Errorf("a cap too small: %v", err)
	}
	var st Stats
	if _, err := FWFast(ctx, g, Options{Device: dev, Stats: &st}); err != nil || st.Passes != 0 {
		t.Errorf("without a cap: %d passes, %v", st.Passes, err)
	}
}

// sparseWithCPU is a random graph of n vertices and 3n arcs with its CPU
// result.
func sparseWithCPU(t *testing.T, n int) testGraph {
	t.Helper()
	g, err := graph.GNM(n, 3*n, graph.WeightRange{Min: 1, Max: 100}, uint64(n))
	if err != nil {
		t.Fatal(err)
	}
	ref, err := cpu.FloydWarshallBlocked(context.Background(), g, cpu.FWOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return testGraph{name: fmt.Sprintf("sparse n=%d", n), g: g, all: ref}
}

// TestFWFastStreamedNegativeCycle streams a graph whose negative cycle
// spans bands, and one with unreachable pairs and zero-weight arcs.
func TestFWFastStreamedNegativeCycle(t *testing.T) {
	ctx := context.Background()
	dev := emulator(t)
	g := mustGraph(t, 300, "0->200 3, 200->130 -2, 130->0 -4, 5->6 1")
	_, err := FWFast(ctx, g, Options{Device: dev, Pred: true, DeviceMemory: streamCap(300, 2, 3, 1)})
	if _, ok := err.(*graph.NegativeCycleError); !ok {
		t.Errorf("err = %v, want a *graph.NegativeCycleError", err)
	}
	z := mustGraph(t, 260, "0->1 0, 1->259 0, 259->0 5, 130->131 2, 3->3 0")
	want, err := FWFast(ctx, z, Options{Device: dev, Pred: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := FWFast(ctx, z, Options{Device: dev, Pred: true, DeviceMemory: streamCap(260, 2, 4, 1)})
	if err != nil || !got.SameDistances(want) {
		t.Fatalf("streamed: %v", err)
	}
	if err := got.Verify(z); err != nil {
		t.Error(err)
	}
}

// TestRegisterBands checks the pieces in which a streamed run registers
// its host matrices: whole rows, at most the piece size, covering each
// band of each matrix in order, all registered and released.
func TestRegisterBands(t *testing.T) {
	dev := emulator(t)
	const n, band, bands = 50, 16, 4 // the last band has 2 rows
	mats := [][]int32{make([]int32, n*n), make([]int32, n*n)}
	h := registerBands(dev.ctx, mats, n, band, bands, 5*n*4+7)
	for b := range bands {
		h.wait(b)
		for k := range mats {
			row := b * band
			for _, p := range h.of(k, b) {
				if !p.ok || p.band != b || p.row0 != row || len(p.mem) > 5*n || len(p.mem)%n != 0 || &p.mem[0] != &mats[k][row*n] {
					t.Fatalf("matrix %d band %d: piece at row %d of %d values (registered %v), want row %d", k, b, p.row0, len(p.mem), p.ok, row)
				}
				row += len(p.mem) / n
			}
			if want := min((b+1)*band, n); row != want {
				t.Errorf("matrix %d band %d: pieces end at row %d, want %d", k, b, row, want)
			}
		}
	}
	h.release()
	if err := dev.ctx.HostRegister(asBytes(mats[0][:n])); err != nil {
		t.Errorf("registering again after release: %v", err)
	}
	if err := dev.ctx.HostUnregister(asBytes(mats[0][:n])); err != nil {
		t.Error(err)
	}
}

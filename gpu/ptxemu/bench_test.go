package ptxemu

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/ptx"
)

// blockedFW runs the three-phase blocked Floyd-Warshall kernels of package
// ptx (distances only) on an n×n matrix at addr, as gpu.FWBlocked does.
func blockedFW(tb testing.TB, d *Device, m *Module, n int, addr uint64) {
	tb.Helper()
	const tile, tileBytes = 32, 32 * 32 * 4
	nb := (n + tile - 1) / tile
	block := Dim3{tile, tile, 1}
	for r := range nb {
		args := []uint64{uint64(n), uint64(r), addr, 0}
		phases := []struct {
			name   string
			grid   Dim3
			shared int
		}{{"fw_blocked_phase1", Dim3{1, 1, 1}, tileBytes}, {"fw_blocked_phase2", Dim3{nb - 1, 2, 1}, 2 * tileBytes},
			{"fw_blocked_phase3", Dim3{nb - 1, nb - 1, 1}, 2 * tileBytes}}
		for i, p := range phases {
			if i > 0 && nb == 1 {
				break
			}
			k, err := m.Kernel(p.name)
			if err != nil {
				tb.Fatal(err)
			}
			if _, err := d.Launch(context.Background(), k, p.grid, block, p.shared, args); err != nil {
				tb.Fatal(err)
			}
		}
	}
}

// randomMatrix returns an n×n weight matrix with about density of the
// arcs present (the rest INT_MAX) and zeros on the diagonal.
func randomMatrix(n int, density float64, seed uint64) []int32 {
	rng := rand.New(rand.NewPCG(seed, 3))
	w := make([]int32, n*n)
	for i := range w {
		w[i] = 1<<31 - 1
		if rng.Float64() < density {
			w[i] = int32(1 + rng.IntN(100))
		}
	}
	for i := range n {
		w[i*n+i] = 0
	}
	return w
}

// BenchmarkInterpreter runs fw-blocked on n = 256 and reports the
// interpreter's speed in warp instructions (each one executed for up to
// 32 lanes) and thread instructions per second of wall time.
func BenchmarkInterpreter(b *testing.B) { benchBlockedFW(b, false) }

// BenchmarkInterpreterProfiled is BenchmarkInterpreter with profiling on
// (Device.SetProfiler): the cost of counting sectors and bank conflicts.
func BenchmarkInterpreterProfiled(b *testing.B) { benchBlockedFW(b, true) }

// BenchmarkProfileCost alternates runs of BenchmarkInterpreter's work
// without and with profiling and reports the ratio of their times, so
// that both see the same load of a shared machine.
func BenchmarkProfileCost(b *testing.B) {
	const n = 256
	d, m, addr := blockedFWSetup(b, n)
	w := randomMatrix(n, 0.05, 1)
	var off, on time.Duration
	for i := range 2 * b.N {
		profiled := i%2 == 1
		if profiled {
			d.SetProfiler(func(*Profile) {})
		}
		if err := d.WriteInt32(addr, w); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		blockedFW(b, d, m, n, addr)
		if profiled {
			on += time.Since(start)
			d.SetProfiler(nil)
		} else {
			off += time.Since(start)
		}
	}
	b.ReportMetric(on.Seconds()/off.Seconds(), "profiled/off")
}

// blockedFWSetup returns a Device with package ptx's Floyd-Warshall module
// loaded and an n×n matrix allocated.
func blockedFWSetup(b testing.TB, n int) (*Device, *Module, uint64) {
	d := New(Options{})
	text, err := ptx.PTX(ptx.FloydWarshall)
	if err != nil {
		b.Fatal(err)
	}
	m, err := d.Load(ptx.FloydWarshall, text)
	if err != nil {
		b.Fatal(err)
	}
	addr, err := d.Alloc(uint64(4 * n * n))
	if err != nil {
		b.Fatal(err)
	}
	return d, m, addr
}

func benchBlockedFW(b *testing.B, profiled bool) {
	const n = 256
	d, m, addr := blockedFWSetup(b, n)
	var profiles int
	if profiled {
		d.SetProfiler(func(*Profile) { profiles++ })
	}
	w := randomMatrix(n, 0.05, 1)
	before := d.Stats()
	b.ResetTimer()
	for range b.N {
		if err := d.WriteInt32(addr, w); err != nil {
			b.Fatal(err)
		}
		blockedFW(b, d, m, n, addr)
	}
	st := d.Stats().Sub(before)
	if profiled && profiles != int(st.Launches) {
		b.Fatalf("%d profiles for %d launches", profiles, st.Launches)
	}
	b.ReportMetric(float64(st.Instructions)/st.Wall.Seconds()/1e6, "Mwarpinst/s")
	b.ReportMetric(float64(st.ThreadInstructions)/st.Wall.Seconds()/1e6, "Mthreadinst/s")
}

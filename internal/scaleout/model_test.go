package scaleout

import (
	"math"
	"testing"
)

// near reports whether a and b agree to 1e-12 relative.
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b)) }

// TestRankMemory checks the memory of one rank by hand: its tiles and two sets of panels.
func TestRankMemory(t *testing.T) {
	l := Layout{N: 256, B: 128, Grid: Grid{1, 1}}
	if got, want := l.RankMemory(), int64(4*256*256+2*(4*128*256+4*128*256+4*128*128)); got != want {
		t.Fatalf("1×1, D: %d bytes, want %d", got, want)
	}
	// 2×3 with 5 tiles of 100: rank (0,0) holds tile rows 0, 2, 4 and tile columns 0, 3, the
	// most of any rank; with Π its tiles and the row panel cost 8 bytes a cell.
	l = Layout{N: 500, B: 100, Grid: Grid{2, 3}, Pred: true}
	if got, want := l.RankMemory(), int64(8*300*200+2*(8*100*200+4*100*300+8*100*100)); got != want {
		t.Fatalf("2×3, D and Π: %d bytes, want %d", got, want)
	}
}

// TestLargestN checks that the largest n fits and one more tile does not.
func TestLargestN(t *testing.T) {
	for _, g := range []Grid{{1, 1}, {2, 4}, {8, 8}, {16, 32}} {
		for _, pred := range []bool{false, true} {
			mem := int64(78e9)
			n := LargestN(128, g, pred, mem)
			if n%128 != 0 || n == 0 {
				t.Fatalf("%v pred %v: n = %d", g, pred, n)
			}
			if m := (Layout{N: n, B: 128, Grid: g, Pred: pred}).RankMemory(); m > mem {
				t.Fatalf("%v pred %v: n = %d needs %d bytes, more than %d", g, pred, n, m, mem)
			}
			if m := (Layout{N: n + 128, B: 128, Grid: g, Pred: pred}).RankMemory(); m <= mem {
				t.Fatalf("%v pred %v: n = %d + 128 would fit too (%d bytes)", g, pred, n, m)
			}
		}
	}
	if n := LargestN(128, Grid{1, 1}, false, 1000); n != 0 {
		t.Fatalf("1000 bytes hold n = %d", n)
	}
}

// TestBroadcast checks the pipelined broadcast's cost.
func TestBroadcast(t *testing.T) {
	k := Link{Bandwidth: 50e9, Latency: 5e-6}
	if got := k.Broadcast(1e9, 1); got != 0 {
		t.Fatalf("a group of one: %g s", got)
	}
	if got, want := k.Broadcast(1e9, 4), 3*5e-6+0.02; !near(got, want) {
		t.Fatalf("4 members: %g s, want %g", got, want)
	}
}

// TestEstimateFWByHand follows the model's formula on a small case where the pivot step is
// longer than the update, and checks the efficiency falls as the latency grows.
func TestEstimateFWByHand(t *testing.T) {
	link := Link{Bandwidth: 1e10, Latency: 1e-5}
	m := Machine{Rate: 1e12, PivotRate: 1e10, Along: link, Down: link}
	l := Layout{N: 1024, B: 128, Grid: Grid{2, 2}}
	e := EstimateFW(l, m, 2e12)
	update := 128.0 * 512 * 512 / 1e12
	pivot := 128.0*128*128/1e10 + (1e-5 + 4*128*128/1e10) + 128*128*512/1e12
	comm := 2 * (1e-5 + 4*128*512/1e10)
	step := pivot + comm
	want := step + 7*math.Max(update, step) + update
	if e.Rounds != 8 || !near(e.Update, update) || !near(e.Pivot, pivot) || !near(e.Comm, comm) || !near(e.Time, want) {
		t.Fatalf("got %+v, want update %g pivot %g comm %g time %g", e, update, pivot, comm, want)
	}
	if single := math.Pow(1024, 3) / 2e12; !near(e.Single, single) || !near(e.Efficiency, single/(4*want)) {
		t.Fatalf("single %g efficiency %g, want %g and %g", e.Single, e.Efficiency, single, single/(4*want))
	}
	if e.RankBytes != 4*128*512*2 || e.TotalBytes != l.TotalBytes() {
		t.Fatalf("bytes %d per rank, %d in all", e.RankBytes, e.TotalBytes)
	}
	m.Along.Latency, m.Down.Latency = 1e-3, 1e-3
	if slow := EstimateFW(l, m, 2e12); slow.Efficiency >= e.Efficiency {
		t.Fatalf("100× the latency: efficiency %g, not below %g", slow.Efficiency, e.Efficiency)
	}
}

// TestEstimateFWComputeBound checks that with free links the efficiency is the ratio of the
// rates, less the first pivot step, on a large n.
func TestEstimateFWComputeBound(t *testing.T) {
	free := Link{Bandwidth: math.Inf(1)}
	m := Machine{Rate: 1e13, PivotRate: 1e11, Along: free, Down: free}
	e := EstimateFW(Layout{N: 1 << 18, B: 128, Grid: Grid{8, 8}}, m, 1.5e13)
	if e.Efficiency > 1e13/1.5e13 || e.Efficiency < 0.99*1e13/1.5e13 {
		t.Fatalf("efficiency %g, want just under %g", e.Efficiency, 1e13/1.5e13)
	}
}

// TestEstimateBatchByHand checks the batched model on a small case, and the wave floor.
func TestEstimateBatchByHand(t *testing.T) {
	h := Hosts{GPUsPerHost: 2, Net: Link{Bandwidth: 1e9, Latency: 1e-5}, PCIe: 1e9}
	e := EstimateBatch(Batch{N: 1000, M: 5000, GPUs: 4, PerSource: 1e-3, Wave: 100}, h)
	graph := 3e-5 + float64(4*1001+8*5000)/1e9
	if !near(e.Compute, 0.25) || !near(e.Graph, graph) || !near(e.Single, 1) || !near(e.Efficiency, 1/(4*(0.25+graph))) {
		t.Fatalf("got %+v", e)
	}
	if e.ResultBytes != 4e6 || e.CardBytes != 1e6 || !near(e.ToHosts, 1e-3) || !near(e.ToOneHost, 2e-3) {
		t.Fatalf("got %+v", e)
	}
	e = EstimateBatch(Batch{N: 1000, M: 5000, GPUs: 20, PerSource: 1e-3, Wave: 100, Pred: true}, h)
	if !near(e.Compute, 0.1) || e.CardBytes != 8*50*1000 {
		t.Fatalf("20 cards of 50 sources, a wave of 100: got %+v", e)
	}
}

// TestRateAt checks the interpolation of the measured rates.
func TestRateAt(t *testing.T) {
	if got := rateAt(16384, false); got != 1.45e13 {
		t.Fatalf("at 16384: %g", got)
	}
	if got := rateAt(1<<20, true); got != 1.37e13 {
		t.Fatalf("beyond 32768 with Π: %g", got)
	}
	if got := rateAt(2048, true); got != 0 {
		t.Fatalf("with Π below 4096: %g, want 0 (not measured)", got)
	}
	if got := rateAt(3000, false); got <= 4.82e12 || got >= 9.29e12 {
		t.Fatalf("at 3000: %g, not between the rates at 2048 and 4096", got)
	}
}

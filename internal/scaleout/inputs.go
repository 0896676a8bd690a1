package scaleout

import "math"

// The model's inputs, each with where it comes from; docs/scale-out.md lists them with the
// same labels. "Measured" numbers are pathnotes' own runs on one H100 (docs/gpu-benchmarks.md);
// "peak" numbers are vendors' documented figures, which real transfers do not reach;
// "assumed" numbers are neither, and the doc's sensitivity table varies them.

// ratePoint is fw-fast's measured rate at one n.
type ratePoint struct {
	n          int
	dist, pred float64 // relaxations per second, n³ / kernel time; 0 where not measured
}

// fwFastH100 are fw-fast's rates on the H100 80GB HBM3 at 1980 MHz, from docs/gpu-benchmarks.md
// (the fw-fast table of "pathnotes' own variants"): distances only, and with Π.
var fwFastH100 = []ratePoint{
	{1024, 1.47e12, 0},
	{2048, 4.82e12, 0},
	{4096, 9.29e12, 6.78e12},
	{8192, 1.31e13, 0},
	{10000, 1.31e13, 1.13e13},
	{12500, 1.39e13, 1.22e13},
	{16384, 1.45e13, 1.29e13},
	{32768, 1.50e13, 1.37e13},
}

// rateAt returns fw-fast's measured rate for a square problem of the given side,
// interpolated linearly in log₂(side) between measured points and held at the largest one's
// beyond it. Below the smallest measured point (of the kind asked for) it returns 0: the
// model has nothing to stand on there.
func rateAt(side float64, pred bool) float64 {
	var xs, ys []float64
	for _, p := range fwFastH100 {
		r := p.dist
		if pred {
			r = p.pred
		}
		if r > 0 {
			xs, ys = append(xs, math.Log2(float64(p.n))), append(ys, r)
		}
	}
	x := math.Log2(side)
	switch {
	case x < xs[0]:
		return 0
	case x >= xs[len(xs)-1]:
		return ys[len(ys)-1]
	}
	i := 1
	for xs[i] < x {
		i++
	}
	f := (x - xs[i-1]) / (xs[i] - xs[i-1])
	return ys[i-1] + f*(ys[i]-ys[i-1])
}

// Cards, links and the batched variant's throughput.
const (
	// h100SMs is the H100 SXM's SM count; fw-fast closes a diagonal tile with one block, so the
	// model gives the closure one SM's share of the card's rate (assumed).
	h100SMs = 132
	// memH100 and memH200 are the H100 SXM's and H200's memory, 80 GB and 141 GB in decimal
	// gigabytes as their datasheets give them (peak, i.e. documented).
	memH100 = 80e9
	memH200 = 141e9
	// memReserve is kept free on each card for the CUDA context, the broadcast library's
	// buffers and staging (assumed).
	memReserve = 2e9
	// nvlinkBW is NVLink 4 on the H100 SXM: 900 GB/s per GPU in both directions together, 450
	// GB/s each way (NVIDIA's H100 datasheet; peak). Every GPU of an 8-GPU host reaches every
	// other through NVSwitch at that rate.
	nvlinkBW = 450e9
	// ibBW is one InfiniBand NDR port, 400 Gb/s = 50 GB/s each way, one port per GPU as in
	// 8-GPU hosts with 8 NICs (peak).
	ibBW = 50e9
	// hopLatency is the latency of one hop of a pipelined broadcast, on either link (assumed).
	hopLatency = 5e-6
	// pcieBW is a card-to-host copy through page-locked staging: 16 to 20 GB/s measured
	// (docs/gpu-benchmarks.md, apsp-batched with Π on p2p-Gnutella30); the model takes 16.
	pcieBW = 16e9
	// gpusPerHost is the host size the tables assume (8-GPU HGX hosts).
	gpusPerHost = 8
	// gnutella30N, gnutella30M and gnutella30Kernels are p2p-Gnutella30's size and
	// apsp-batched's measured kernel time on it, distances only and with Π
	// (docs/gpu-benchmarks.md).
	gnutella30N           = 36682
	gnutella30M           = 88328
	gnutella30Kernels     = 160.6e-3
	gnutella30KernelsPred = 161.5e-3
	// batchWave is how many sources a card runs at once, 8 blocks of 256 threads on each of
	// the 132 SMs (assumed: the occupancy the hardware allows, not a measurement).
	batchWave = 8 * h100SMs
)

// nvlink and infiniband are the two links of the tables.
var (
	nvlink     = Link{Name: "NVLink", Bandwidth: nvlinkBW, Latency: hopLatency}
	infiniband = Link{Name: "IB", Bandwidth: ibBW, Latency: hopLatency}
)

// placement returns the links a grid's broadcasts use when ranks p·Q+q fill hosts of
// gpusPerHost GPUs in order: a process row stays in one host when Q divides the host size,
// and a process column does only when the whole grid fits in one host.
func placement(g Grid) (along, down Link) {
	along, down = infiniband, infiniband
	if gpusPerHost%g.Q == 0 {
		along = nvlink
	}
	if g.Ranks() <= gpusPerHost {
		down = nvlink
	}
	return along, down
}

// machine returns the model's machine for a layout: its links from placement, the measured
// rate at the side of a square with the busiest rank's cells (0 if below the measured range),
// and one SM's share of the card's best measured rate for the diagonal closure.
func machine(l Layout) Machine {
	along, down := placement(l.Grid)
	side := math.Sqrt(float64(l.maxShare(l.Grid.P)) * float64(l.maxShare(l.Grid.Q)))
	return Machine{
		Rate:      rateAt(side, l.Pred),
		PivotRate: rateAt(16384, l.Pred) / h100SMs,
		Along:     along,
		Down:      down,
	}
}

// measuredRun is one run of pathnotes apsp (package dist) on one host, ranks as processes over
// NCCL 2.28.9, GNM 60|V| (weights 1..64): the rounds' time of the slowest rank beside the link
// rates of the run's own probe (20 broadcasts of a panel in a process row and in a process
// column of 2 ranks, after one untimed), and the time of fw-fast on one card of the same host
// kind in one process for the same graph (pathnotes bench, kernel time).
type measuredRun struct {
	name        string
	n           int
	pred        bool
	along, down float64 // bytes per second: the probe along a process row and down a column
	rounds      float64 // seconds, the slowest rank
	oneCard     float64 // seconds, one card in one process; 0: scaled by n³ from the host's first run with the same matrices
	linkName    string
}

// measuredHost is the runs of one host: its process grid, the runs, and fw-fast on all of the
// host's cards in one process at the first run's n, without and with Π (pathnotes bench
// --devices [--pred], kernel time; 0: not run).
type measuredHost struct {
	grid                 Grid
	runs                 []measuredRun
	oneProcess, withPred float64
}

// Runs on one host of four H200s (NV18 between every pair), 2×2 ranks as four processes,
// 2026-11-27, one build and one call (the records are docs/scale-out-four-h200.json). With NCCL
// as it chooses (P2P over NVLink) and with P2P and SHM off (its socket transport on lo).
var measuredFour = measuredHost{
	grid: Grid{2, 2},
	runs: []measuredRun{
		{"NCCL as it chooses (P2P, NVLink)", 65536, false, 258e9, 165e9, 5.433, 18.870, "NVLink"},
		{"NCCL sockets on lo (P2P, SHM off)", 65536, false, 3.96e9, 4.85e9, 8.628, 18.870, "lo"},
		{"NCCL as it chooses (P2P, NVLink)", 65536, true, 271e9, 51.4e9, 6.045, 20.260, "NVLink"},
		{"NCCL sockets on lo (P2P, SHM off)", 65536, true, 4.46e9, 5.27e9, 10.357, 20.260, "lo"},
		{"NCCL as it chooses (P2P, NVLink)", 131072, false, 200e9, 227e9, 42.057, 0, "NVLink"},
		{"NCCL sockets on lo (P2P, SHM off)", 131072, false, 4.26e9, 5.14e9, 51.972, 0, "lo"},
		{"NCCL as it chooses (P2P, NVLink)", 131072, true, 217e9, 216e9, 45.132, 0, "NVLink"},
		{"NCCL sockets on lo (P2P, SHM off)", 131072, true, 5.23e9, 4.58e9, 62.501, 0, "lo"},
	},
	oneProcess: 4.923,
	withPred:   5.483,
}

// The same runs at n = 65,536 with the collectives' stream at the greatest priority (commit
// d885fb8), on another host of the same kind the same day; fw-fast on one card: measuredFour's. The
// other runs' broadcasts had waited for the update's last wave.
var measuredFourUrgent = measuredHost{
	grid: Grid{2, 2},
	runs: []measuredRun{
		{"NCCL as it chooses (P2P, NVLink)", 65536, false, 186e9, 77.4e9, 5.118, measuredFour.base(false).oneCard, "NVLink"},
		{"NCCL sockets on lo (P2P, SHM off)", 65536, false, 4.97e9, 5.55e9, 5.185, measuredFour.base(false).oneCard, "lo"},
		{"NCCL sockets on lo (P2P, SHM off)", 65536, true, 4.33e9, 4.79e9, 6.754, measuredFour.base(true).oneCard, "lo"},
	},
}

// Runs on one host of two H200s (NV18), 1×2 ranks as two processes, 2026-11-27 (the records
// are docs/scale-out-two-h200.json). A 1×2 grid broadcasts along its one process row only; with
// Π the one-card time is the in-memory cell of the streamed bench.
var measuredTwo = measuredHost{
	grid: Grid{1, 2},
	runs: []measuredRun{
		{"NCCL as it chooses (P2P, NVLink)", 65536, false, 158e9, 158e9, 10.334, 18.861, "NVLink"},
		{"NCCL sockets on lo (P2P, SHM off)", 65536, false, 4.15e9, 4.15e9, 12.393, 18.861, "lo"},
		{"NCCL as it chooses (P2P, NVLink)", 65536, true, 278e9, 278e9, 11.223, 20.423, "NVLink"},
		{"NCCL sockets on lo (P2P, SHM off)", 65536, true, 4.9e9, 4.9e9, 13.558, 20.423, "lo"},
		{"NCCL as it chooses (P2P, NVLink)", 131072, false, 227e9, 227e9, 79.916, 0, "NVLink"},
	},
	oneProcess: 9.530,
}

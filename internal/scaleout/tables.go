package scaleout

import (
	"fmt"
	"strings"
)

//go:generate go test -run TestDocTables -update .

// Table is one generated table of docs/scale-out.md: the doc holds it between the lines
// "<!-- begin NAME -->" and "<!-- end NAME -->".
type Table struct {
	Name     string
	Markdown string
}

// block is the tile side of the tables: fw-fast's 128.
const block = 128

// scenario is a GPU count and the grid the tables give it.
type scenario struct {
	gpus int
	grid Grid
}

// scenarios are the grids of the Floyd-Warshall tables: one card, one host, 8 hosts, 64 hosts
// (two shapes).
var scenarios = []scenario{
	{1, Grid{1, 1}}, {8, Grid{2, 4}}, {64, Grid{8, 8}}, {512, Grid{16, 32}}, {512, Grid{64, 8}},
}

// Tables returns the model's tables of docs/scale-out.md, computed from the inputs in
// inputs.go.
func Tables() []Table {
	return []Table{
		{"fw-memory", memoryTable()},
		{"fw-efficiency", efficiencyTable(false)},
		{"fw-efficiency-pred", efficiencyTable(true)},
		{"fw-sensitivity", sensitivityTable()},
		{"batch", batchTable()},
		{"batch-volume", volumeTable()},
		{"fw-measured", measuredTable(measuredFour)},
		{"fw-measured-urgent", measuredTable(measuredFourUrgent)},
		{"fw-measured-two", measuredTable(measuredTwo)},
	}
}

// measuredTable: the model beside the measured runs of one host, each with the link rates of
// its own probe and T_1 the one-card time (measured, or scaled by n³ from the first run's).
func measuredTable(h measuredHost) string {
	ranks := h.grid.P * h.grid.Q
	var rows [][]string
	for _, r := range h.runs {
		n := float64(r.n)
		l := Layout{N: r.n, B: block, Grid: h.grid, Pred: r.pred}
		m := machine(l)
		m.Along = Link{Name: r.linkName, Bandwidth: r.along, Latency: hopLatency}
		m.Down = Link{Name: r.linkName, Bandwidth: r.down, Latency: hopLatency}
		one, from := r.oneCard, "measured"
		if one == 0 {
			r0 := h.base(r.pred)
			f := n / float64(r0.n)
			one, from = r0.oneCard*f*f*f, "n³ from "+group3(r0.n)
		}
		e := EstimateFW(l, m, n*n*n/one)
		mats := "D"
		if r.pred {
			mats = "D, Π"
		}
		link := fmt.Sprintf("%.3g / %.3g", r.along/1e9, r.down/1e9)
		if h.grid.P == 1 {
			link = fmt.Sprintf("%.3g", r.along/1e9)
		}
		rows = append(rows, []string{r.name, fmt.Sprintf("%d", r.n), mats, link,
			seconds(e.Update), seconds(e.Pivot + e.Comm), seconds(e.Time), seconds(one) + " (" + from + ")",
			seconds(r.rounds), fmt.Sprintf("%.3f", one/(float64(ranks)*r.rounds)), fmt.Sprintf("%.2f×", r.rounds/e.Time)})
	}
	for _, p := range []struct {
		t    float64
		pred bool
		mats string
	}{{h.oneProcess, false, "D"}, {h.withPred, true, "D, Π"}} {
		if p.t > 0 {
			r0 := h.base(p.pred)
			rows = append(rows, []string{fmt.Sprintf("one process, %d cards (fw-fast's stripes, peer copies)", ranks),
				fmt.Sprintf("%d", r0.n), p.mats, "", "", "", "", seconds(r0.oneCard) + " (measured)", seconds(p.t),
				fmt.Sprintf("%.3f", r0.oneCard/(float64(ranks)*p.t)), ""})
		}
	}
	link := "row / column link (GB/s)"
	if h.grid.P == 1 {
		link = "link (GB/s)"
	}
	return table([]string{fmt.Sprintf("%d ranks (%d×%d)", ranks, h.grid.P, h.grid.Q), "n", "matrices", link,
		"update per round (model)", "pivot + broadcasts per round (model)", "T_P (model)", "T_1", "measured",
		"efficiency (measured)", "measured / model"}, rows)
}

// base returns the host's first run with a measured one-card time, with Π or without.
func (h measuredHost) base(pred bool) measuredRun {
	for _, r := range h.runs {
		if r.pred == pred && r.oneCard > 0 {
			return r
		}
	}
	panic("scaleout: no run with a measured one-card time")
}

// group3 writes n with a comma between groups of three digits, as the document does.
func group3(n int) string {
	s := fmt.Sprintf("%d", n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// table renders a Markdown table.
func table(header []string, rows [][]string) string {
	var b strings.Builder
	line := func(cells []string) { b.WriteString("| " + strings.Join(cells, " | ") + " |\n") }
	line(header)
	sep := make([]string, len(header))
	for i := range sep {
		sep[i] = "---"
	}
	line(sep)
	for _, r := range rows {
		line(r)
	}
	return b.String()
}

// largest returns the largest n of a grid on cards of mem bytes.
func largest(g Grid, pred bool, mem float64) int {
	return LargestN(block, g, pred, int64(mem-memReserve))
}

// estimate runs the model on a layout with the tables' machine, the links scaled by bw and
// their latencies by lat.
func estimate(l Layout, bw, lat float64) (FWEstimate, Machine) {
	m := machine(l)
	m.Along.Bandwidth *= bw
	m.Down.Bandwidth *= bw
	m.Along.Latency *= lat
	m.Down.Latency *= lat
	return EstimateFW(l, m, rateAt(float64(l.N), l.Pred)), m
}

// memoryTable: the largest n each grid holds, and the modelled run at the first of them.
func memoryTable() string {
	var rows [][]string
	for _, s := range scenarios {
		n := largest(s.grid, false, memH100)
		e, _ := estimate(Layout{N: n, B: block, Grid: s.grid}, 1, 1)
		rows = append(rows, []string{
			fmt.Sprint(s.gpus), gridName(s.grid),
			count(n), count(largest(s.grid, true, memH100)),
			count(largest(s.grid, false, memH200)), count(largest(s.grid, true, memH200)),
			seconds(e.Time), fmt.Sprintf("%.3f", e.Efficiency),
		})
	}
	return table([]string{"GPUs", "grid", "80 GB, D", "80 GB, D and Π", "141 GB, D", "141 GB, D and Π",
		"run at 80 GB's D size (model)", "efficiency there"}, rows)
}

// efficiencyTable: the model at 8, 64 and 512 GPUs for a few n, distances only or with Π.
func efficiencyTable(pred bool) string {
	var rows [][]string
	for _, s := range scenarios[1:] {
		ns := []int{32768, 65536, 131072, 262144, largest(s.grid, false, memH100)}
		if pred {
			ns = []int{65536, 262144, largest(s.grid, true, memH100)}
		}
		for _, n := range ns {
			l := Layout{N: n, B: block, Grid: s.grid, Pred: pred}
			e, m := estimate(l, 1, 1)
			row := []string{fmt.Sprint(s.gpus), gridName(s.grid), m.Along.Name + " / " + m.Down.Name, count(n),
				fmt.Sprintf("%s×%s", count(l.maxShare(s.grid.P)), count(l.maxShare(s.grid.Q)))}
			if m.Rate == 0 {
				rows = append(rows, append(row, "below the measured sizes", "", "", "", "", "", "", ""))
				continue
			}
			rows = append(rows, append(row,
				fmt.Sprintf("%.3g", m.Rate), seconds(e.Update), seconds(e.Pivot+e.Comm),
				megabytes(float64(e.RankBytes)), seconds(e.Time), seconds(e.Single), fmt.Sprintf("%.3f", e.Efficiency)))
		}
	}
	return table([]string{"GPUs", "grid", "row / column link", "n", "busiest rank's cells", "rate used (relax/s)",
		"update per round", "pivot + broadcasts per round", "received per round (busiest)", "T_P", "T_1", "efficiency"}, rows)
}

// sensitivityTable: the efficiency with the assumed and peak figures made worse.
func sensitivityTable() string {
	var rows [][]string
	for _, s := range scenarios[2:] {
		for _, n := range []int{65536, 262144, 1048576} {
			l := Layout{N: n, B: block, Grid: s.grid}
			row := []string{fmt.Sprint(s.gpus), gridName(s.grid), count(n)}
			for _, v := range [][2]float64{{1, 1}, {0.25, 1}, {1, 10}, {0.25, 10}} {
				e, _ := estimate(l, v[0], v[1])
				row = append(row, fmt.Sprintf("%.3f", e.Efficiency))
			}
			rows = append(rows, row)
		}
	}
	return table([]string{"GPUs", "grid", "n", "as modelled", "bandwidths ÷ 4", "latency × 10", "both"}, rows)
}

// batchTable: p2p-Gnutella30's all pairs by apsp-batched on many cards.
func batchTable() string {
	var rows [][]string
	for _, gpus := range []int{1, 8, 64, 512} {
		row := []string{fmt.Sprint(gpus)}
		for _, pred := range []bool{false, true} {
			per := gnutella30Kernels / gnutella30N
			if pred {
				per = gnutella30KernelsPred / gnutella30N
			}
			e := EstimateBatch(Batch{N: gnutella30N, M: gnutella30M, GPUs: gpus, PerSource: per, Wave: batchWave, Pred: pred},
				Hosts{GPUsPerHost: gpusPerHost, Net: placementNet(gpus), PCIe: pcieBW})
			if !pred {
				row = append(row, count((gnutella30N+gpus-1)/gpus), seconds(e.Graph), seconds(e.Compute), fmt.Sprintf("%.3f", e.Efficiency))
			}
			row = append(row, gigabytes(float64(e.CardBytes)), seconds(e.ToHosts), seconds(e.ToOneHost))
		}
		rows = append(rows, row)
	}
	return table([]string{"GPUs", "sources per card", "graph broadcast", "sources (D)", "efficiency",
		"rows per card (D)", "to own hosts (D)", "to one host (D)", "rows per card (D and Π)", "to own hosts (D and Π)", "to one host (D and Π)"}, rows)
}

// placementNet is the link a batch's graph broadcast and gather cross: NVLink within a host,
// InfiniBand beyond.
func placementNet(gpus int) Link {
	if gpus <= gpusPerHost {
		return nvlink
	}
	return infiniband
}

// volumeTable: how big all pairs of larger sparse graphs is, and where it can live.
func volumeTable() string {
	var rows [][]string
	for _, c := range []struct {
		name string
		n    int
	}{{"p2p-Gnutella30", gnutella30N}, {"road264k (DIMACS NY's size)", 264346}, {"grid1024, rmat20", 1 << 20}} {
		row := []string{c.name, count(c.n)}
		for _, cell := range []float64{4, 8} {
			row = append(row, gigabytes(cell*float64(c.n)*float64(c.n)))
		}
		for _, gpus := range []int{8, 64, 512} {
			per := 8 * float64((c.n+gpus-1)/gpus) * float64(c.n)
			fit := "fits"
			if per > memH100-memReserve {
				fit = "does not fit"
			}
			row = append(row, fmt.Sprintf("%s (%s), %s", gigabytes(per), fit, seconds(per/pcieBW)))
		}
		rows = append(rows, row)
	}
	return table([]string{"graph", "n", "D", "D and Π", "per card, D and Π: 8 GPUs (on an 80 GB card?), to host",
		"64 GPUs", "512 GPUs"}, rows)
}

// gridName prints a grid as P×Q.
func gridName(g Grid) string { return fmt.Sprintf("%d×%d", g.P, g.Q) }

// count prints an integer with commas between thousands, as 1,048,576.
func count(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteString(",")
		}
		b.WriteRune(c)
	}
	return b.String()
}

// seconds prints a duration in µs, ms, s, min or h, three significant digits.
func seconds(t float64) string {
	switch {
	case t < 1e-3:
		return fmt.Sprintf("%.3g µs", t*1e6)
	case t < 1:
		return fmt.Sprintf("%.3g ms", t*1e3)
	case t < 120:
		return fmt.Sprintf("%.3g s", t)
	case t < 7200:
		return fmt.Sprintf("%.3g min", t/60)
	}
	return fmt.Sprintf("%.3g h", t/3600)
}

// megabytes prints bytes in MB (10⁶).
func megabytes(b float64) string { return fmt.Sprintf("%.3g MB", b/1e6) }

// gigabytes prints bytes in GB (10⁹), or TB from 10¹².
func gigabytes(b float64) string {
	if b >= 1e12 {
		return fmt.Sprintf("%.3g TB", b/1e12)
	}
	return fmt.Sprintf("%.3g GB", b/1e9)
}

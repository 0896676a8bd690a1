package cells

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/gpu/ptxemu"
	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/ptx"
)

// The profile suite: launches of the lab's kernels (notebook 05), of the
// chapter-1 kernels of notebook 02, of fw-hn and fw-blocked, each once,
// on an n×n matrix with n = 256, and of kernels whose access patterns
// check the model of the memory system (testdata/profile/patterns.cu:
// transposes with and without padding, strided copies, 8- and 16-byte
// shared accesses, a histogram of atomics). TestProfileMatchesNcu compares what the
// emulator counts for them with what Nsight Compute counted on a card
// for the same launches (testdata/profile/ncu-*.csv, made by
// TestProfileSuiteCard under ncu; docs/cell-kernels.md has the command).
// The kernels' CUDA C in testdata/profile/*.cu is the notebooks' cells
// (TestProfileSuiteSources checks that), their PTX is nvcc's
// (testdata/profile/generate.sh).

// suiteN is the matrix side of the suite's Floyd-Warshall launches.
const suiteN = 256

// profileSuite makes the suite's launches on d, in order, and returns the
// kernels' names in that order, and the launches' labels for tables: the
// name, with the stride where one kernel runs with several.
func profileSuite(t testing.TB, d *gpu.Device) (names, labels []string) {
	t.Helper()
	mods := map[string]*Module{}
	for _, name := range []string{"lab_naive", "lab_tiledglobal", "lab_tiledshared", "musap_ch1", "musap_mem", "patterns"} {
		m, err := LoadPTX(d, name, mustReadFile(filepath.Join("testdata", "profile", name+".ptx")))
		if err != nil {
			t.Fatal(err)
		}
		mods[name] = m
	}
	fwPTX, err := ptx.PTX(ptx.FloydWarshall)
	if err != nil {
		t.Fatal(err)
	}
	if mods["fw"], err = LoadPTX(d, "fw", fwPTX); err != nil {
		t.Fatal(err)
	}
	g, err := graph.GNM(suiteN, 8*suiteN, graph.WeightRange{Min: 1, Max: 100}, 5)
	if err != nil {
		t.Fatal(err)
	}
	dist, err := GraphMatrix(d, g)
	if err != nil {
		t.Fatal(err)
	}
	buf := func(t ElemType, n int) *Buffer {
		b, err := NewBuffer(d, t, n)
		if err != nil {
			panic(err)
		}
		return b
	}
	const n, m, tiles = suiteN, 1000, suiteN / 32
	x, y, z := buf(Float32, suiteN*suiteN), buf(Float32, suiteN*suiteN), buf(Float32, suiteN*suiteN)
	ints, out, steps := buf(Int32, m), buf(Int32, 64), buf(Int32, 64)
	note := "" // what tells this launch of a kernel from its others
	launch := func(mod, kernel string, grid, block gpu.Dim3, shared int, args ...any) {
		k, err := mods[mod].Kernel(kernel)
		if err != nil {
			t.Fatal(err)
		}
		if err := k.LaunchShared(grid, block, shared, args...); err != nil {
			t.Fatalf("%s: %v", kernel, err)
		}
		names = append(names, k.Name())
		labels = append(labels, k.Name()+note)
	}
	const k, r = 37, 3 // the pivot and the round of the launches
	launch("lab_naive", "fwNaive1D", gpu.Dim(n*n/256), gpu.Dim(256), 0, dist, n, k)
	launch("lab_naive", "fwNaive2D", gpu.Dim(n/32, n/8), gpu.Dim(32, 8), 0, dist, n, k)
	for _, p := range []struct {
		prefix string
		b      int
	}{{"global", 32}, {"sharedB32", 32}, {"sharedB16", 16}, {"sharedB8", 8}} {
		mod := "lab_tiledshared"
		if p.prefix == "global" {
			mod = "lab_tiledglobal"
		}
		nb := n / p.b
		launch(mod, p.prefix+"Phase1", gpu.Dim(1), gpu.Dim(p.b, p.b), 0, dist, n, r)
		launch(mod, p.prefix+"Phase2", gpu.Dim(nb, 2), gpu.Dim(p.b, p.b), 0, dist, n, r)
		launch(mod, p.prefix+"Phase3", gpu.Dim(nb, nb), gpu.Dim(p.b, p.b), 0, dist, n, r)
	}
	var noPred gpu.DevicePtr
	const tileBytes = 32 * 32 * 4 // a 32×32 tile of int32, fw_blocked's
	launch("fw", "fw_hn", gpu.Dim(tiles, tiles), gpu.Dim(32, 32), 0, int32(n), int32(k), dist, noPred)
	launch("fw", "fw_blocked_phase1", gpu.Dim(1), gpu.Dim(32, 32), tileBytes, int32(n), int32(r), dist, noPred)
	launch("fw", "fw_blocked_phase2", gpu.Dim(tiles-1, 2), gpu.Dim(32, 32), 2*tileBytes, int32(n), int32(r), dist, noPred)
	launch("fw", "fw_blocked_phase3", gpu.Dim(tiles-1, tiles-1), gpu.Dim(32, 32), 2*tileBytes, int32(n), int32(r), dist, noPred)
	launch("musap_ch1", "globalIds", gpu.Dim(2, 2), gpu.Dim(4, 2, 2), 0, ints)
	launch("musap_ch1", "index2D", gpu.Dim(2, 2), gpu.Dim(4, 3), 0, ints, 8, 6)
	launch("musap_ch1", "countThreads", gpu.Dim(4), gpu.Dim(256), 0, out, steps, m)
	launch("musap_ch1", "vecAdd", gpu.Dim(4), gpu.Dim(256), 0, x, y, z, m)
	launch("musap_ch1", "matAdd", gpu.Dim(n/16, n/16), gpu.Dim(16, 16), 0, x, y, z, n)
	launch("musap_mem", "cubic", gpu.Dim(4), gpu.Dim(256), 0, x, y, m)
	launch("musap_mem", "blockSum8", gpu.Dim(4), gpu.Dim(8), 0, ints, out, steps)
	launch("musap_mem", "blockSum", gpu.Dim(4), gpu.Dim(256), 256*4, ints, out, m)
	launch("patterns", "transposeTile", gpu.Dim(tiles, tiles), gpu.Dim(32, 32), 0, y, x, n)
	launch("patterns", "transposePadded", gpu.Dim(tiles, tiles), gpu.Dim(32, 32), 0, y, x, n)
	for _, stride := range []int{2, 32} {
		note = fmt.Sprintf(", stride %d", stride)
		launch("patterns", "copyStrided", gpu.Dim(4), gpu.Dim(256), 0, z, x, m, stride)
	}
	wide := buf(Float32, 4*512)
	for _, stride := range []int{1, 2, 16} {
		note = fmt.Sprintf(", stride %d", stride)
		launch("patterns", "shared64", gpu.Dim(2), gpu.Dim(256), 0, wide, stride)
	}
	for _, stride := range []int{0, 1, 2} {
		note = fmt.Sprintf(", stride %d", stride)
		launch("patterns", "shared128", gpu.Dim(2), gpu.Dim(256), 0, wide, stride)
	}
	note = ""
	values := make([]int32, m)
	for i := range values {
		values[i] = int32(i)
	}
	in, err := Int32s(d, values)
	if err != nil {
		t.Fatal(err)
	}
	launch("patterns", "histogram", gpu.Dim(4), gpu.Dim(256), 0, out, in, m, 8)
	return names, labels
}

// profiledSuite makes the suite's launches on d with a gpu.Profiler and
// returns the launches it recorded, checked against those made, and their
// labels.
func profiledSuite(t testing.TB, d *gpu.Device) ([]*gpu.LaunchProfile, []string) {
	t.Helper()
	p := gpu.StartProfile()
	names, labels := profileSuite(t, d)
	ps := p.Stop()
	if len(ps) != len(names) {
		t.Fatalf("%d launches recorded, %d made", len(ps), len(names))
	}
	for i, lp := range ps {
		if lp.Kernel != names[i] {
			t.Fatalf("launch %d recorded as %s, made as %s", i, lp.Kernel, names[i])
		}
	}
	return ps, labels
}

// TestProfileSuite runs the suite on the emulator: every launch has counts.
func TestProfileSuite(t *testing.T) {
	ps, _ := profiledSuite(t, emuDevice(t))
	for _, lp := range ps {
		if lp.Counts == nil || lp.Counts.Warps == 0 {
			t.Errorf("%s: counts %v", lp.Kernel, lp.Counts)
		}
	}
}

// ncuMetrics are the metrics the comparison reads, and what the emulator
// counts for each.
var ncuMetrics = []struct {
	name string
	emu  func(p *ptxemu.Profile) uint64
}{
	{"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", func(p *ptxemu.Profile) uint64 { return p.Global[ptxemu.Load].Requests }},
	{"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", func(p *ptxemu.Profile) uint64 { return p.Global[ptxemu.Load].Sectors }},
	{"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", func(p *ptxemu.Profile) uint64 { return p.Global[ptxemu.Store].Requests }},
	{"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", func(p *ptxemu.Profile) uint64 { return p.Global[ptxemu.Store].Sectors }},
	{"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", func(p *ptxemu.Profile) uint64 { return p.Shared[ptxemu.Load].Conflicts }},
	{"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", func(p *ptxemu.Profile) uint64 { return p.Shared[ptxemu.Store].Conflicts }},
}

// ncuCounts reads an Nsight Compute CSV (ncu --csv --print-units base
// --metrics ...): per launch, in the order the launches ran, the kernel's
// name and its metrics. Lines that are not CSV rows (==PROF== messages)
// are skipped.
func ncuCounts(t *testing.T, path string) (names []string, metrics []map[string]uint64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, `"`) {
			rows = append(rows, line)
		}
	}
	recs, err := csv.NewReader(strings.NewReader(strings.Join(rows, "\n"))).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("%s: %d CSV rows, %v", path, len(recs), err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, h := range []string{"ID", "Kernel Name", "Metric Name", "Metric Value"} {
		if _, ok := col[h]; !ok {
			t.Fatalf("%s: no column %q in %q", path, h, recs[0])
		}
	}
	at := map[string]int{}
	for _, r := range recs[1:] {
		id := r[col["ID"]]
		i, ok := at[id]
		if !ok {
			i = len(names)
			at[id] = i
			name, _, _ := strings.Cut(r[col["Kernel Name"]], "(")
			names = append(names, name)
			metrics = append(metrics, map[string]uint64{})
		}
		text := r[col["Metric Value"]]
		if text == "n/a" { // a metric the card does not have
			continue
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(text, ",", ""), 64)
		if err != nil {
			t.Fatalf("%s: launch %s, %s = %q: %v", path, id, r[col["Metric Name"]], r[col["Metric Value"]], err)
		}
		metrics[i][r[col["Metric Name"]]] = uint64(v)
	}
	return names, metrics
}

// phase3Merged are the kernels whose shared wavefronts the card counts at
// 3/4 of the emulator's: ptxas merges each run of four loads of the
// phase-3 row tile, a[y][k] … a[y][k+3] (one address for the whole warp),
// into one 16-byte LDS.128, which takes 2 wavefronts where the PTX's four
// 4-byte loads take 4.
var phase3Merged = map[string]bool{"sharedB32Phase3": true, "sharedB16Phase3": true, "sharedB8Phase3": true, "fw_blocked_phase3": true}

// atomicSectorsOnCard are the atomic sectors the card counts where they
// differ from the emulator's distinct sectors: histogram's full warps ask
// 8 words of one sector, 4 lanes each, and the card counts the sector once
// per lane that shares a word (4 per request; 1 for the last warp's 8
// lanes, one a word): 31·4 + 1, where the emulator counts 32. Where every
// lane of a warp adds to one word known to be the same (countThreads'
// atomicAdd(ran, 1)), ptxas makes it one atomic of one lane, and both
// count 1.
var atomicSectorsOnCard = map[string]uint64{"histogram": 31*4 + 1}

// TestProfileMatchesNcu compares the emulator's counts for the profile
// suite with Nsight Compute's on an H100 (testdata/profile/ncu-h100.csv):
// global load and store requests and sectors, shared bank conflicts,
// atomic requests, warps and the occupancy threads and shared memory allow
// must be equal; shared wavefronts too, but for the kernels of
// phase3Merged, and atomic sectors, but for those of atomicSectorsOnCard. go test -v prints the comparison as the table
// of docs/cell-kernels.md.
func TestProfileMatchesNcu(t *testing.T) {
	names, card := ncuCounts(t, filepath.Join("testdata", "profile", "ncu-h100.csv"))
	ps, labels := profiledSuite(t, emuDevice(t))
	if len(ps) != len(card) {
		t.Fatalf("the emulator made %d launches, the card %d", len(ps), len(card))
	}
	table := []string{"| launch | global loads: requests, sectors | global stores: requests, sectors | shared bank conflicts: loads, stores | atomic requests | atomic sectors, emulator / card | shared load wavefronts, emulator / card | divergent branches, emulator / card |",
		"|---|---|---|---|---|---|---|---|"}
	for i, lp := range ps {
		c, got := card[i], lp.Counts
		if names[i] != lp.Kernel {
			t.Fatalf("launch %d: the card ran %s, the emulator %s", i, names[i], lp.Kernel)
		}
		for _, m := range ncuMetrics {
			if v, ok := c[m.name]; !ok || v != m.emu(got) {
				t.Errorf("%s: %s = %d on the card (present: %v), %d on the emulator", lp.Kernel, m.name, v, ok, m.emu(got))
			}
		}
		atom := got.Global[ptxemu.Atomic]
		cardAtom := c["l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum"] + c["l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"]
		cardAtomSec := c["l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum"] + c["l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"]
		wantSec, ok := atomicSectorsOnCard[lp.Kernel]
		if !ok {
			wantSec = atom.Sectors
		}
		if atom.Requests != cardAtom || wantSec != cardAtomSec || got.Warps != c["smsp__warps_launched.sum"] {
			t.Errorf("%s: atomics %d requests, %d sectors, %d warps; the card %d, %d, %d", lp.Kernel, atom.Requests, atom.Sectors, got.Warps,
				cardAtom, cardAtomSec, c["smsp__warps_launched.sum"])
		}
		waves, cardWaves := got.Shared[ptxemu.Load].Wavefronts, c["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]
		if phase3Merged[lp.Kernel] && 4*cardWaves != 3*waves || !phase3Merged[lp.Kernel] && cardWaves != waves ||
			got.Shared[ptxemu.Store].Wavefronts != c["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"] {
			t.Errorf("%s: shared wavefronts %d loading, %d storing; the card %d, %d", lp.Kernel, waves, got.Shared[ptxemu.Store].Wavefronts,
				cardWaves, c["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"])
		}
		// The card's occupancy counts its registers too; none of these
		// kernels uses enough for them to matter.
		if occ := uint64(100 * lp.Occupancy.Fraction()); occ != c["sm__maximum_warps_per_active_cycle_pct"] {
			t.Errorf("%s: occupancy %d%% on the emulator, %d%% on the card", lp.Kernel, occ, c["sm__maximum_warps_per_active_cycle_pct"])
		}
		ld, st := got.Global[ptxemu.Load], got.Global[ptxemu.Store]
		table = append(table, fmt.Sprintf("| %s | %d, %d | %d, %d | %d, %d | %d | %d / %d | %d / %d | %d / %d |", labels[i], ld.Requests, ld.Sectors,
			st.Requests, st.Sectors, got.Shared[ptxemu.Load].Conflicts, got.Shared[ptxemu.Store].Conflicts, atom.Requests, atom.Sectors, cardAtomSec,
			waves, cardWaves, got.Divergent, c["smsp__sass_branch_targets_threads_divergent.sum"]))
	}
	t.Log("\n" + strings.Join(table, "\n"))
}

// TestProfileSuiteSources checks that the suite's notebook kernels are the
// notebooks' cells as they are now: when a cell changes, copy it to
// testdata/profile, run generate.sh there and profile the suite on a card
// again (docs/cell-kernels.md).
func TestProfileSuiteSources(t *testing.T) {
	for cu, nb := range map[string]string{
		"lab_naive.cu": "05-apsp-lab-solutions.py", "lab_tiledglobal.cu": "05-apsp-lab-solutions.py",
		"lab_tiledshared.cu": "05-apsp-lab-solutions.py", "musap_ch1.cu": "02-musap-dijkstra.py", "musap_mem.cu": "02-musap-dijkstra.py",
	} {
		kernel := mustReadFile(filepath.Join("testdata", "profile", cu))
		src := mustReadFile(filepath.Join("..", "..", "notebooks", "src", nb))
		if !strings.Contains(src, kernel) {
			t.Errorf("testdata/profile/%s is not a cell of notebooks/src/%s any more", cu, nb)
		}
	}
}

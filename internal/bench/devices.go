package bench

import (
	"context"
	"fmt"
	"runtime"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/graph"
)

// openDevices opens the devices of --devices.
func openDevices(ordinals []int) ([]*gpu.Device, error) {
	devs := make([]*gpu.Device, len(ordinals))
	for i, k := range ordinals {
		d, err := gpu.Open(k)
		if err != nil {
			return nil, err
		}
		devs[i] = d
	}
	return devs, nil
}

// bigMatrix is the result size (bytes) from which a multi-device cell runs
// once, without a warm-up: two results of it would not fit the host.
const bigMatrix = 16 << 30

// multiDevice times fw-fast on one device and on all of --devices for each
// of --multi-sizes (random graphs of density·n arcs), then apsp-batched on
// the SNAP graphs the same way, printing the speed-up. The weights of the
// random graphs are 1..100, lowered at large n so that predecessors still
// fit fw-fast's packed kernels ((n-1)·max weight below 2^22). Results are
// checked on sampled rows against sssp-fast, run on the first device, and
// against the graph; a one-device cell is skipped when fw-fast's matrices
// do not fit that device.
func (b *run) multiDevice(ctx context.Context, snaps []*graph.Graph) error {
	if len(b.devs) < 2 {
		return nil
	}
	matrices := 1
	if b.s.Pred {
		matrices = 2
	}
	for _, n := range b.s.MultiSizes {
		hi := int32(min(100, (1<<22-2)/max(n-1, 1)))
		g, err := graph.GNM(n, min(b.s.Density*n, n*(n-1)), graph.WeightRange{Min: 1, Max: hi}, b.s.Seed)
		if err != nil {
			return err
		}
		name := fmt.Sprintf("GNM %d|V|, weights 1..%d", b.s.Density, hi)
		if err := b.multiCells(ctx, gpu.VariantFWFast, g, name, matrices, gpu.FWFast); err != nil {
			return err
		}
	}
	for _, g := range snaps {
		if err := b.multiCells(ctx, gpu.VariantAPSPBatched, g, g.Name(), matrices, gpu.APSPBatched); err != nil {
			return err
		}
	}
	return nil
}

// multiCells times solve (variant) on g on the first device and on all of
// --devices. A result of 16 GiB or more is computed once, without a
// warm-up: two of them would not fit the host.
func (b *run) multiCells(ctx context.Context, variant string, g *graph.Graph, name string, matrices int,
	solve func(context.Context, *graph.Graph, gpu.Options) (*graph.AllPairs, error)) error {
	n := g.N()
	plan := Plan{Runs: b.s.Runs, WarmUp: true}
	if uint64(n)*uint64(n)*4*uint64(matrices) >= bigMatrix {
		plan = Plan{Runs: 1}
	}
	var one float64
	for _, devs := range [][]*gpu.Device{b.devs[:1], b.devs} {
		label := fmt.Sprintf("%s on %d device", variant, len(devs))
		if len(devs) > 1 {
			label += "s"
		}
		rec := Record{Variant: label, Graph: name, N: n, M: g.M()}
		if variant == gpu.VariantFWFast && len(devs) == 1 && !fitsOne(devs[0], n, matrices) {
			rec.Skipped = "its matrices do not fit one device"
			if err := b.emit(rec); err != nil {
				return err
			}
			continue
		}
		first, s, err := Measure(plan, func(st *gpu.Stats) (any, error) {
			o := gpu.Options{Pred: b.s.Pred, Stats: st, Device: devs[0]}
			if len(devs) > 1 {
				o.Device, o.Devices = nil, devs
			}
			return solve(ctx, g, o)
		})
		if err != nil {
			return fmt.Errorf("%s on %s: %w", label, name, err)
		}
		rec.SetSummary(s)
		if rec.Check, err = checkRowsSSSP(ctx, g, first.(*graph.AllPairs), b.dev, 8, b.s.Seed); err != nil {
			return fmt.Errorf("%s on %s: %w", label, name, err)
		}
		if variant == gpu.VariantFWFast {
			rec.RelaxPerSec = float64(n) * float64(n) * float64(n) / (rec.KernelMs / 1000)
			rec.Ceiling = rec.RelaxPerSec / DPXCeiling(devs[0].Info()) / float64(len(devs))
		} else {
			rec.EdgesPerSec = float64(n) * float64(g.M()) / (rec.KernelMs / 1000)
		}
		if len(devs) == 1 {
			one = rec.KernelMs
		} else if one > 0 {
			rec.Check += fmt.Sprintf("; %.2f× one device", one/rec.KernelMs)
		}
		first = nil
		runtime.GC()
		if err := b.emit(rec); err != nil {
			return err
		}
	}
	return nil
}

// fitsOne reports whether fw-fast's matrices of side n fit dev's free
// memory.
func fitsOne(dev *gpu.Device, n, matrices int) bool {
	free, _, err := dev.MemInfo()
	ld := uint64((n + 127) / 128 * 128)
	return err == nil && ld*ld*4*uint64(matrices)+64<<20 < free
}

// checkRowsSSSP checks k rows of r, drawn with seed, against sssp-fast from
// the same sources on dev, and against the graph (SampleRows' test
// on each of them); it returns the check's description.
func checkRowsSSSP(ctx context.Context, g *graph.Graph, r *graph.AllPairs, dev *gpu.Device, k int, seed uint64) (string, error) {
	if err := SampleRows(g, r, k, seed); err != nil {
		return "", err
	}
	for _, src := range Rows(r.N, k, seed) {
		row := r.Row(src)
		want, err := gpu.SSSPFast(ctx, g, src, gpu.Options{Device: dev})
		if err != nil {
			return "", err
		}
		if !row.SameDistances(want) {
			return "", fmt.Errorf("row %d differs from %s:\n%s", src, gpu.VariantSSSPFast, row.Diff(want, 5))
		}
	}
	return fmt.Sprintf("%d rows = %s", k, gpu.VariantSSSPFast), nil
}

// streamed times fw-fast at n = OutOfCore with its matrices in the first
// device's memory, then with each device's memory capped (OutOfCoreCap,
// by default a third of the matrices' share) so that block rows stream
// through it from host memory, on the first device and on all of Devices
// (OutOfCoreCells picks which); each streamed row states its passes,
// where its time went, and its share of the in-memory rate. A result of
// 16 GiB or more is computed once, without a warm-up.
func (b *run) streamed(ctx context.Context) error {
	n := b.s.OutOfCore
	if n < 1 {
		return nil
	}
	hi := int32(min(100, (1<<22-2)/max(n-1, 1)))
	g, err := graph.GNM(n, min(b.s.Density*n, n*(n-1)), graph.WeightRange{Min: 1, Max: hi}, b.s.Seed)
	if err != nil {
		return err
	}
	matrices := uint64(1)
	if b.s.Pred {
		matrices = 2
	}
	ld := uint64((n + 127) / 128 * 128)
	plan := Plan{Runs: b.s.Runs, WarmUp: true}
	if uint64(n)*uint64(n)*4*matrices >= bigMatrix {
		plan = Plan{Runs: 1}
	}
	want := func(cell string) bool { return b.s.OutOfCoreCells == nil || b.s.OutOfCoreCells[cell] }
	type cell struct {
		devs []*gpu.Device
		cap  uint64
	}
	var cells []cell
	if want("in") {
		cells = append(cells, cell{b.devs[:1], 0})
	}
	for _, name := range []string{"one", "all"} {
		devs := b.devs[:1]
		if name == "all" {
			devs = b.devs
		}
		if !want(name) || (name == "all" && len(devs) < 2) {
			continue
		}
		// A third of the matrices' share (at least room for the rows
		// streaming needs), and the staging buffer.
		share := ld * ld * 4 * matrices / uint64(len(devs))
		c := cell{devs, max(share/3, uint64(len(devs)+1)*128*ld*4*matrices) + uint64(min(n*n, 16<<20))*4}
		if b.s.OutOfCoreCap > 0 {
			c.cap = b.s.OutOfCoreCap
		}
		cells = append(cells, c)
	}
	var inCore float64
	for _, c := range cells {
		label := gpu.VariantFWFast + " in device memory"
		if c.cap > 0 {
			label = fmt.Sprintf("%s streamed (%d device(s), each capped at %s)", gpu.VariantFWFast, len(c.devs), graph.FormatBytes(c.cap))
		}
		rec := Record{Variant: label, Graph: fmt.Sprintf("GNM %d|V|, weights 1..%d", b.s.Density, hi), N: n, M: g.M()}
		if c.cap == 0 && !fitsOne(c.devs[0], n, int(matrices)) {
			rec.Skipped = "its matrices do not fit one device"
			if err := b.emit(rec); err != nil {
				return err
			}
			continue
		}
		var last gpu.Stats
		first, s, err := Measure(plan, func(st *gpu.Stats) (any, error) {
			o := gpu.Options{Pred: b.s.Pred, Stats: st, Device: c.devs[0], DeviceMemory: c.cap}
			if len(c.devs) > 1 {
				o.Device, o.Devices = nil, c.devs
			}
			res, err := gpu.FWFast(ctx, g, o)
			last = *st
			return res, err
		})
		if err != nil {
			return fmt.Errorf("%s, n=%d: %w", label, n, err)
		}
		rec.SetSummary(s)
		if rec.Check, err = checkRowsSSSP(ctx, g, first.(*graph.AllPairs), b.dev, 8, b.s.Seed); err != nil {
			return fmt.Errorf("%s, n=%d: %w", label, n, err)
		}
		rec.RelaxPerSec = float64(n) * float64(n) * float64(n) / (rec.KernelMs / 1000)
		rec.Ceiling = rec.RelaxPerSec / DPXCeiling(b.dev.Info()) / float64(len(c.devs))
		if c.cap == 0 {
			inCore = rec.KernelMs
		} else {
			rec.Check += fmt.Sprintf("; %d passes (%s)", last.Passes, last.Streamed)
			switch {
			case inCore > 0 && len(c.devs) == 1:
				rec.Check += fmt.Sprintf("; %.0f%% of the in-memory rate", 100*inCore/rec.KernelMs)
			case inCore > 0:
				rec.Check += fmt.Sprintf("; %.2f× one device in memory (%.0f%% of %d× its rate)", inCore/rec.KernelMs, 100*inCore/rec.KernelMs/float64(len(c.devs)), len(c.devs))
			}
		}
		first = nil
		runtime.GC()
		if err := b.emit(rec); err != nil {
			return err
		}
	}
	return nil
}

package lab

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/gpu/cells"
	"github.com/pathnotes/pathnotes/graph"
)

// APSPFunc is a student's all-pairs function: it launches its kernels on
// dev to turn d into the distance matrix, in place. On entry d holds the
// n×n weight matrix, row-major int32, as cells.GraphMatrix makes it
// (the weight of the arc i → j at d[i*n+j], graph.Inf where there is no
// arc, 0 on the diagonal); on return it must hold every shortest distance,
// graph.Inf where there is no path. The checker's d is longer than n×n: a
// guard zone after the matrix catches writes past its end, so use n, not
// d.Len(). The function may return before its kernels end: the checker
// synchronizes.
type APSPFunc func(dev *gpu.Device, d *cells.Buffer, n int) error

// SSSPFunc is a student's single-source function: offsets, targets and
// weights are the graph's CSR arrays as cells.GraphCSR makes them
// (int32; the arcs of u are offsets[u] .. offsets[u+1]-1); on return dist
// (n int32 values) must hold the distance from source to every vertex,
// graph.Inf where there is no path. The checker fills dist with Poison
// first, so a vertex the kernels never write shows as such. Like d of an
// APSPFunc, dist is longer than n: use n.
type SSSPFunc func(dev *gpu.Device, offsets, targets, weights, dist *cells.Buffer, n, source int) error

// Poison fills the cells a student's kernels should not write (the guard
// zones after the matrix and the distance vector) and the distance vector
// before an SSSPFunc runs. It is finite, above graph.MaxDistance and not
// graph.Inf, so no distance equals it.
const Poison int32 = 0x5A5A5A5A

// guardCells is the length of the guard zone after an n×n matrix: 64 more
// rows and a block's worth, enough for a kernel that forgets the bound of a
// last partial tile of up to 64 rows.
func guardCells(n int) int { return 64*n + 1024 }

// EmuMaxN is the largest n the checkers try on the emulator when
// CheckOptions.MaxN is 0: the emulator interprets every thread on the CPU,
// so a one-launch-per-pivot kernel at n = 1000 would take hours there.
const EmuMaxN = 129

// CheckOptions configures CheckAPSP and CheckSSSP. The zero value checks
// DefaultSizes (up to EmuMaxN on the emulator) on the default device,
// without negative arcs.
type CheckOptions struct {
	// Device runs the student's function; nil means gpu.Default().
	Device *gpu.Device
	// Sizes are the numbers of vertices to try; nil means DefaultSizes.
	Sizes []int
	// MaxN drops the sizes above it; 0 means no limit on a GPU and EmuMaxN
	// on the emulator.
	MaxN int
	// Negative adds graphs with negative arcs (no negative cycles) to the
	// all-pairs checks. CheckSSSP ignores it: its reference is Dijkstra.
	Negative bool
	// Seed seeds the graphs; 0 means DefaultSeed.
	Seed uint64
}

// device returns the device to run on.
func device(d *gpu.Device) (*gpu.Device, error) {
	if d != nil {
		return d, nil
	}
	return gpu.Default()
}

// sizes returns the sizes to try on dev.
func (o CheckOptions) sizes(dev *gpu.Device) ([]int, error) {
	sizes := o.Sizes
	if sizes == nil {
		sizes = DefaultSizes
	}
	limit := o.MaxN
	if limit == 0 && dev.Driver() == "emu" {
		limit = EmuMaxN
	}
	var out []int
	for _, n := range sizes {
		if n < 1 {
			return nil, fmt.Errorf("size %d: want at least 1 vertex", n)
		}
		if limit <= 0 || n <= limit {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no size in %v is at most MaxN=%d", sizes, limit)
	}
	return out, nil
}

// CheckAPSP runs fn on seeded graphs of every size of opts (sparse with
// unreachable pairs, dense, and with negative arcs when opts.Negative is
// set), compares each result with cpu.FloydWarshallBlocked and returns a
// report with one case per graph: ok, or the first wrong cell in row-major
// order with its expected and actual value. The error is nil when every
// case passed; otherwise it describes the first failure. An error or a
// kernel fault from fn stops the run (a fault resets the device, and with
// it the modules the cells loaded); wrong values do not.
func CheckAPSP(ctx context.Context, fn APSPFunc, opts CheckOptions) (*Report, error) {
	families := []family{sparse, dense}
	if opts.Negative {
		families = append(families, negative)
	}
	return check(ctx, "CheckAPSP", "all pairs", fn == nil, opts, families, nil,
		func(dev *gpu.Device, g *graph.Graph, fam string, _ int) Case {
			return checkAPSPCase(ctx, dev, fn, g, fam)
		})
}

// CheckSSSP runs fn on seeded graphs of every size of opts (sparse with
// unreachable vertices, out-degree 7 with many equal distances), from
// vertex 0 and from vertex n/2, compares each result with cpu.Dijkstra and
// returns a report like CheckAPSP's, whose cases give the first wrong
// vertex. A vertex still holding Poison was never written.
func CheckSSSP(ctx context.Context, fn SSSPFunc, opts CheckOptions) (*Report, error) {
	return check(ctx, "CheckSSSP", "single source", fn == nil, opts, []family{sparse, degree7},
		func(n int) []int {
			if n/2 == 0 {
				return []int{0}
			}
			return []int{0, n / 2}
		},
		func(dev *gpu.Device, g *graph.Graph, fam string, source int) Case {
			return checkSSSPCase(ctx, dev, fn, g, fam, source)
		})
}

// check is the loop both checkers share: graphs of every size and family
// (and every source of sources, when not nil), one case each.
func check(ctx context.Context, what, problem string, nilFunc bool, opts CheckOptions, families []family,
	sources func(n int) []int, run func(dev *gpu.Device, g *graph.Graph, family string, source int) Case) (*Report, error) {
	if nilFunc {
		return nil, fmt.Errorf("lab: %s: the function is nil", what)
	}
	dev, err := device(opts.Device)
	if err != nil {
		return nil, fmt.Errorf("lab: %s: %w", what, err)
	}
	sizes, err := opts.sizes(dev)
	if err != nil {
		return nil, fmt.Errorf("lab: %s: %w", what, err)
	}
	rep := &Report{Problem: problem, Device: dev.Info().Name, Driver: dev.Driver(), what: what}
	stopped := ""
	for _, n := range sizes {
		for fi, fam := range families {
			seed := caseSeed(opts.Seed, n, fi)
			srcs := []int{-1}
			if sources != nil {
				srcs = sources(n)
			}
			for _, s := range srcs {
				c := Case{Graph: fam.name, N: n, Source: s, Seed: seed}
				switch {
				case stopped != "":
					c.Err = errors.New(stopped)
					c.NotRun = true
				case ctx.Err() != nil:
					return rep, fmt.Errorf("lab: %s: interrupted before %s n=%d: %w", what, fam.name, n, ctx.Err())
				default:
					g, err := fam.build(n, seed)
					if err != nil {
						return rep, fmt.Errorf("lab: %s: building the %s graph with n=%d: %w", what, fam.name, n, err)
					}
					c = run(dev, g, fam.name, s)
					c.Seed = seed
					if c.Err != nil && c.Mismatch == nil {
						stopped = fmt.Sprintf("not run: the %s case with n=%d stopped the check", fam.name, n)
					}
				}
				rep.Cases = append(rep.Cases, c)
			}
		}
	}
	return rep, rep.Err()
}

// checkAPSPCase runs fn on one graph and compares its matrix with the CPU's.
func checkAPSPCase(ctx context.Context, dev *gpu.Device, fn APSPFunc, g *graph.Graph, fam string) Case {
	n := g.N()
	c := Case{Graph: fam, Name: g.Name(), N: n, M: g.M(), Source: -1}
	want, err := cpu.FloydWarshallBlocked(ctx, g, cpu.FWOptions{})
	if err != nil {
		c.Err = fmt.Errorf("the CPU reference failed: %w", err)
		return c
	}
	input := g.Dense()
	host := slices.Grow(slices.Clone(input), guardCells(n))
	for range guardCells(n) {
		host = append(host, Poison)
	}
	c.judge(dev, host, want.Dist, input, fam, func(d *cells.Buffer) error { return fn(dev, d, n) })
	return c
}

// checkSSSPCase runs fn on one graph from source and compares the
// distances with the CPU's.
func checkSSSPCase(ctx context.Context, dev *gpu.Device, fn SSSPFunc, g *graph.Graph, fam string, source int) Case {
	n := g.N()
	c := Case{Graph: fam, Name: g.Name(), N: n, M: g.M(), Source: source}
	want, err := cpu.Dijkstra(ctx, g, source, cpu.DijkstraOptions{})
	if err != nil {
		c.Err = fmt.Errorf("the CPU reference failed: %w", err)
		return c
	}
	off, tgt, w, err := cells.GraphCSR(dev, g)
	if err != nil {
		c.Err = fmt.Errorf("copying the graph to the device: %w", err)
		return c
	}
	defer free(off, tgt, w)
	host := make([]int32, n+1024) // the distances and a guard zone
	for i := range host {
		host[i] = Poison
	}
	c.judge(dev, host, want.Dist, nil, fam, func(dist *cells.Buffer) error { return fn(dev, off, tgt, w, dist, n, source) })
	if c.Mismatch != nil {
		c.Mismatch.I = source
	}
	return c
}

// judge runs f on a device copy of host (runOnDevice) and records in c
// how long it took and its error or, when it ran, how its result compares
// with want (compare, with input, c.N and fam) and whether it is host
// unchanged.
func (c *Case) judge(dev *gpu.Device, host, want, input []int32, fam string, f func(*cells.Buffer) error) {
	got, dt, err := runOnDevice(dev, host, f)
	c.Time = dt
	if err != nil {
		c.Err = err
		return
	}
	c.Mismatch = compare(want, got, input, c.N, fam)
	c.Untouched = slices.Equal(got, host)
}

// runOnDevice copies host to a new device buffer, runs f on it, waits for
// the device and copies the buffer back, timing f and the wait on the host
// clock.
func runOnDevice(dev *gpu.Device, host []int32, f func(*cells.Buffer) error) ([]int32, time.Duration, error) {
	buf, err := cells.Int32s(dev, host)
	if err != nil {
		return nil, 0, fmt.Errorf("copying the input to the device: %w", err)
	}
	defer free(buf)
	if err := dev.Synchronize(); err != nil {
		return nil, 0, fmt.Errorf("the device failed before your function ran: %w", err)
	}
	t0 := time.Now()
	if err := f(buf); err != nil {
		return nil, time.Since(t0), fmt.Errorf("your function returned an error: %w", err)
	}
	if err := dev.Synchronize(); err != nil {
		return nil, time.Since(t0), fmt.Errorf("a kernel failed: %w", err)
	}
	dt := time.Since(t0)
	got, err := buf.ToInt32s()
	if err != nil {
		return nil, dt, fmt.Errorf("reading the result back: %w", err)
	}
	return got, dt, nil
}

// free releases device buffers; their errors do not change a verdict.
func free(bufs ...*cells.Buffer) {
	for _, b := range bufs {
		_ = b.Free()
	}
}

// compare returns the first problem in got against want (len(want) cells
// followed by a guard zone of Poison), or nil: a write into the guard zone
// first, since it explains wrong cells inside, then the first wrong cell in
// order. input, when not nil, is what the cells held before the run. n is
// the row length for positions (a matrix's side; for a vector, positions
// are (source, v) and the caller sets I).
func compare(want, got, input []int32, n int, fam string) *Mismatch {
	rowLen := n
	if input == nil {
		rowLen = len(got) // a vector: I is 0, J the index
	}
	for x := len(want); x < len(got); x++ {
		if got[x] != Poison {
			return &Mismatch{Graph: fam, N: n, I: x / rowLen, J: x % rowLen, Expected: Poison, Actual: got[x],
				Wrong: countWrong(want, got), Note: fmt.Sprintf("written past the end: index %d is %d cells after the last one", x, x-len(want)+1)}
		}
	}
	for x := range want {
		if got[x] != want[x] {
			m := &Mismatch{Graph: fam, N: n, I: x / rowLen, J: x % rowLen, Expected: want[x], Actual: got[x], Wrong: countWrong(want, got)}
			var before *int32
			if input != nil {
				before = &input[x]
			}
			m.Note = diagnose(want[x], got[x], before)
			return m
		}
	}
	return nil
}

// countWrong counts the cells of want that got differs in.
func countWrong(want, got []int32) int {
	wrong := 0
	for x := range want {
		if got[x] != want[x] {
			wrong++
		}
	}
	return wrong
}

// diagnose guesses, in a phrase, why a cell holds got instead of want;
// before is what the cell held on entry (nil when the checker wrote
// Poison there).
func diagnose(want, got int32, before *int32) string {
	switch {
	case got == Poison:
		return "never written (still the checker's poison value)"
	case before != nil && got == *before:
		return "unchanged since the input: never improved"
	case got != graph.Inf && (got > graph.MaxDistance || got < -graph.MaxDistance):
		return "no distance can be this large: a sum with Inf that wrapped round?"
	case got == graph.Inf:
		return "Inf, but there is a path"
	case want == graph.Inf:
		return "there is no path, yet the cell holds a distance"
	case got < want:
		return "shorter than any path: a sum of cells that are no path (read outside the matrix?)"
	}
	return "longer than the shortest path: an update was missed"
}

package gpu

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/pathnotes/pathnotes/gpu/driver"
	"github.com/pathnotes/pathnotes/graph"
)

// Stats are the measurements of one variant run, filled in when
// Options.Stats points at a Stats value. Device times come from CUDA
// events.
type Stats struct {
	Variant string
	Device  string
	// Kernel is the device time from the first compute launch to the end
	// of the last one, gaps between launches included (and, for
	// dijkstra-martin, the small copy of partial minima that its host loop
	// does every iteration).
	Kernel time.Duration
	// HostToDevice and DeviceToHost are the device times of the bulk
	// copies (graph in, results out).
	HostToDevice, DeviceToHost time.Duration
	// Prepare is the host's part before the first copy to the device
	// (checks, the device's buffers, the result's host memory where it is
	// not made while the kernels run), and Result the host's part after
	// the last copy back (checks, predecessor repair, releasing memory);
	// host clock. Prepare, HostToDevice, Kernel, DeviceToHost and Result
	// split the call; what Wall holds beyond them is the time between
	// those parts (launches, waits).
	Prepare, Result time.Duration
	// End is the part of Result spent at the run's end: waiting for the
	// device and returning the run's device buffers to the spare pool or
	// freeing them (host clock).
	End                        time.Duration
	Launches                   int
	BytesToDevice, BytesToHost uint64
	// Devices is how many devices shared the run (Options.Devices), and
	// BytesPeer what they copied to each other; with several devices the
	// times are the slowest device's and the counts the sum.
	Devices   int
	BytesPeer uint64
	// Passes is how many times fw-fast streamed its matrices through the
	// device because they did not fit it (0 when they did).
	Passes int
	// Streamed splits a streamed fw-fast run's device time (zero when
	// its matrices fit the device).
	Streamed StreamSplit
	// Wall is the whole call on the host clock: allocation, module load on
	// a first run, copies, kernels and result checks.
	Wall time.Duration
	// marks is the run's marks (callMarks), in the order queued.
	marks []callMark
}

// callMarks makes a run record an event at each of its marks (run.mark)
// and keep each one's device time from the first mark and host time from
// the call's start when it was queued (Stats.marks), so that a benchmark
// can place the time between the parts of Stats.Split. Off by default:
// every mark is one more event.
var callMarks = false

// callMark is one mark of a run: its name, the device time from the run's
// first mark to it, and the host time from the call's start to when it
// was queued.
type callMark struct {
	name         string
	device, host time.Duration
	ev           driver.Event
	hostOnly     bool // no event: the host time alone (run.hostMark)
}

// StreamSplit is where the time of a streamed fw-fast run goes, summed
// over its passes; on several devices each part of a pass is the slowest
// device's. Load, Own and Bands are device times from CUDA events; Build,
// Register, Unregister and Finish are the host's parts of the call, on the
// host clock and outside Stats.Kernel.
type StreamSplit struct {
	// Build is the making of the result's matrices in host memory, which
	// the run solves in place: allocated, and filled with the graph's
	// arcs (and Π⁰), rows on every core.
	Build time.Duration
	// Register is the host's page-locking of the result's matrices, on
	// several cores, before the first pass.
	Register time.Duration
	// Unregister is the release of those page locks after the kernels
	// (with any wait for the page-locking to end).
	Unregister time.Duration
	// Finish is the checks of the result after the kernels: negative
	// cycles, values out of range, the predecessor repair.
	Finish time.Duration
	// Load is the wait at the start of each pass for the device's share of
	// the pass's primary rows: copied out as the previous pass's, the next
	// copied in.
	Load time.Duration
	// Own is the primary rows' own stages, with the copies between
	// devices.
	Own time.Duration
	// Bands is the updates of the other rows with the primary rows, while
	// they stream through the device.
	Bands time.Duration
}

// String formats the split as "build 1s, register 1s, load 0.1s, own 0.5s,
// bands 2s, unregister 0.2s, finish 0.3s".
func (s StreamSplit) String() string {
	return fmt.Sprintf("build %v, register %v, load %v, own %v, bands %v, unregister %v, finish %v",
		s.Build, s.Register, s.Load, s.Own, s.Bands, s.Unregister, s.Finish)
}

// String formats the statistics on one line.
func (s Stats) String() string {
	if s.Devices > 1 {
		return fmt.Sprintf("%s on %d devices (%s): kernels %v (%d launches), between devices %s, host→device %v (%s), device→host %v (%s), wall %v",
			s.Variant, s.Devices, s.Device, s.Kernel, s.Launches, graph.FormatBytes(s.BytesPeer), s.HostToDevice,
			graph.FormatBytes(s.BytesToDevice), s.DeviceToHost, graph.FormatBytes(s.BytesToHost), s.Wall)
	}
	return fmt.Sprintf("%s on %s: kernels %v (%d launches), host→device %v (%s), device→host %v (%s), wall %v (%s)",
		s.Variant, s.Device, s.Kernel, s.Launches, s.HostToDevice, graph.FormatBytes(s.BytesToDevice),
		s.DeviceToHost, graph.FormatBytes(s.BytesToHost), s.Wall, s.Split())
}

// Split names the parts of the call: "prepare 0.1ms, upload 0.05ms,
// kernels 0.3ms, download 0.2ms, result 0.1ms".
func (s Stats) Split() string {
	return fmt.Sprintf("prepare %v, upload %v, kernels %v, download %v, result %v",
		s.Prepare, s.HostToDevice, s.Kernel, s.DeviceToHost, s.Result)
}

// poison fills every new device buffer, so that a kernel that fails to
// write a cell leaves a value no result may hold: it is finite, above
// graph.MaxDistance and not graph.Inf, and export rejects it.
const poison uint32 = 0x5A5A5A5A

// buffer is a device allocation of n int32 values.
type buffer struct {
	ptr DevicePtr
	n   int
}

// arg is the buffer's address as a kernel argument.
func (b buffer) arg() uint64 { return uint64(b.ptr) }

// i32 is an int32 kernel argument.
func i32(v int) uint64 { return uint64(uint32(int32(v))) }

// run is one variant call holding its device: it owns the buffers and
// events it creates and accounts for their time.
type run struct {
	dev   *Device
	ctx   context.Context
	what  string
	stats Stats
	out   *Stats
	// timing is whether anyone reads the run's statistics (Options.Stats,
	// or a group's): without it, timedLater queues no events.
	timing bool
	start  time.Time
	bufs   []spareBuf
	events []driver.Event
	last   string // the kernel launched last, for error messages
	// prepared is set by the first copy to the device (Stats.Prepare ends
	// there), fetchedAt by the end of the last copy back (Stats.Result
	// starts there).
	prepared  bool
	fetchedAt time.Time
	// pending is the device times queued without a wait (timedLater),
	// which end adds to the statistics.
	pending []pendingTime

	progress func(done, total int) // Options.Progress
}

// report passes the host loop's progress to Options.Progress, if set.
func (r *run) report(done, total int) {
	if r.progress != nil {
		r.progress(done, total)
	}
}

// begin locks d for one run, after waiting for the work left on it
// (Hold.Defer: kernels of cells launched without waiting): a fault of
// theirs fails the run before it starts, with an error that names the
// kernel that faulted, not the run.
func (d *Device) begin(ctx context.Context, what string, out *Stats) (*run, error) {
	d.mu.Lock()
	if d.lost != nil {
		d.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", what, d.lost)
	}
	if err := d.settle(); err != nil {
		d.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return &run{dev: d, ctx: ctx, what: what, out: out, timing: out != nil, start: time.Now(),
		stats: Stats{Variant: what, Device: d.info.Name}}, nil
}

// end waits for the device, frees what the run allocated, publishes its
// statistics and unlocks the device.
func (r *run) end() {
	d := r.dev
	defer d.mu.Unlock()
	t0 := time.Now()
	if d.lost == nil {
		if err := d.ctx.Synchronize(); err != nil {
			_ = r.fail(err, "finishing") // a sticky error here resets the context
		}
	}
	if d.lost == nil {
		for _, t := range r.pending {
			if dt, err := d.ctx.Elapsed(t.start, t.stop); err == nil {
				*t.total += dt
			}
		}
		marks := r.stats.marks
		for i := range marks {
			if marks[i].hostOnly {
				continue
			}
			if dt, err := d.ctx.Elapsed(marks[0].ev, marks[i].ev); err == nil {
				marks[i].device = dt
			}
		}
		for _, b := range r.bufs {
			d.keepSpare(b)
		}
		d.spareEvents = append(d.spareEvents, r.events...)
	}
	r.stats.End = time.Since(t0)
	r.stats.Wall = time.Since(r.start)
	if !r.fetchedAt.IsZero() {
		r.stats.Result = time.Since(r.fetchedAt)
	}
	if r.out != nil {
		*r.out = r.stats
	}
}

// mark records a mark called name on the default stream (callMarks).
func (r *run) mark(name string) {
	if !callMarks {
		return
	}
	e, err := r.event()
	if err != nil || r.dev.ctx.Record(e) != nil {
		return
	}
	r.stats.marks = append(r.stats.marks, callMark{name: name, host: time.Since(r.start), ev: e})
}

// hostMark is mark without the event: the host time alone, for the
// host's steps between two marks. Its first use must come after a mark.
func (r *run) hostMark(name string) {
	if callMarks && len(r.stats.marks) > 0 {
		r.stats.marks = append(r.stats.marks, callMark{name: name, host: time.Since(r.start), hostOnly: true})
	}
}

// prepare marks the end of the host's preparation: the first copy to the
// device begins.
func (r *run) prepare() {
	if !r.prepared {
		r.prepared = true
		r.stats.Prepare = time.Since(r.start)
	}
}

// memFree is the device memory a run may count on: what the driver says
// is free and the spare buffers, which alloc releases when it must.
func (r *run) memFree() (free, total uint64, err error) {
	free, total, err = r.dev.ctx.MemInfo()
	return free + r.dev.spareBytes, total, err
}

// memFreeFor is memFree for a run that needs need bytes: the device's
// reading of under a second ago while need is at most half of what it
// found, else a new reading (cuMemGetInfo took 6 to 60 µs on an H200,
// a third of fw-fast's preparation at n = 2048). What other processes
// take meanwhile can make the run's allocation fail, which says so.
func (r *run) memFreeFor(need uint64) (free, total uint64, err error) {
	fr := &r.dev.freeRead
	if !fr.at.IsZero() && time.Since(fr.at) < time.Second && need <= fr.free/2 {
		return fr.free, fr.total, nil
	}
	free, total, err = r.memFree()
	if err == nil {
		fr.free, fr.total, fr.at = free, total, time.Now()
	}
	return free, total, err
}

// fail wraps err with the variant's name. After a sticky driver error it
// resets the context at once (the run's buffers and events go with it) and
// says whether the GPU is still usable.
func (r *run) fail(err error, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if driver.IsSticky(err) && r.dev.lost == nil {
		r.bufs, r.events = nil, nil
		return fmt.Errorf("%s: %s: %w (%s)", r.what, msg, err, r.dev.rebuild(err))
	}
	return fmt.Errorf("%s: %s: %w", r.what, msg, err)
}

// reserve checks that bytes more of device memory are free, naming the
// sizes when they are not.
func (r *run) reserve(bytes uint64, what string) error {
	free, total, err := r.memFree()
	if err != nil {
		return r.fail(err, "reading free device memory")
	}
	return r.fits(bytes, what, free, total)
}

// fits is reserve on a reading of memFree that the caller has made.
func (r *run) fits(bytes uint64, what string, free, total uint64) error {
	if bytes > free {
		return fmt.Errorf("%s: %s needs %s of device memory, but %s (device %d) has %s free of %s",
			r.what, what, graph.FormatBytes(bytes), r.dev.info.Name, r.dev.info.Ordinal,
			graph.FormatBytes(free), graph.FormatBytes(total))
	}
	return nil
}

// alloc allocates n int32 values of device memory, filled with poison: a
// spare buffer of an earlier run when one fits, else a new one.
func (r *run) alloc(n int) (buffer, error) {
	b, err := r.allocRaw(n)
	if err != nil {
		return b, err
	}
	if err := r.dev.ctx.Memset32(b.ptr, poison, uint64(max(n, 1))); err != nil {
		return buffer{}, r.fail(err, "filling a new buffer")
	}
	return b, nil
}

// allocRaw is alloc without the poison, for a buffer that a copy, a fill
// or a kernel writes whole before anything reads it: it holds whatever an
// earlier run left there. The poison's memset costs the host a driver call
// and the device a pass over the buffer.
func (r *run) allocRaw(n int) (buffer, error) {
	bytes := uint64(max(n, 1)) * 4
	b, ok := r.dev.takeSpare(bytes)
	if !ok {
		p, err := r.dev.ctx.Alloc(bytes)
		if err != nil && r.dev.spareBytes > 0 && !driver.IsSticky(err) {
			r.dev.releaseSpare()
			p, err = r.dev.ctx.Alloc(bytes)
		}
		if err != nil {
			return buffer{}, r.fail(err, "allocating %s of device memory", graph.FormatBytes(bytes))
		}
		b = spareBuf{p, bytes}
	}
	r.bufs = append(r.bufs, b)
	return buffer{b.ptr, n}, nil
}

// fill sets every value of b to v.
func (r *run) fill(b buffer, v int32) error {
	if err := r.dev.ctx.Memset32(b.ptr, uint32(v), uint64(b.n)); err != nil {
		return r.fail(err, "memset")
	}
	return nil
}

// upload allocates a buffer holding host.
func (r *run) upload(host []int32) (buffer, error) {
	b, err := r.alloc(len(host))
	if err != nil {
		return b, err
	}
	if len(host) == 0 {
		return b, nil
	}
	r.prepare()
	copyIn := func() error { return r.dev.ctx.CopyIn(b.ptr, host) }
	if len(host) >= stagedCopy {
		copyIn = func() error { return r.copyInStaged(b, host) }
	}
	err = r.timed(&r.stats.HostToDevice, copyIn)
	if err != nil {
		return b, r.fail(err, "copying %s to the device", graph.FormatBytes(uint64(len(host))*4))
	}
	r.stats.BytesToDevice += uint64(len(host)) * 4
	return b, nil
}

// download copies b into host, which must have b's length.
func (r *run) download(host []int32, b buffer) error {
	if len(host) != b.n {
		return fmt.Errorf("%s: internal error: copying %d values into %d", r.what, b.n, len(host))
	}
	if len(host) == 0 {
		return nil
	}
	copyOut := func() error { return r.dev.ctx.CopyOut(host, b.ptr) }
	if len(host) >= stagedCopy {
		copyOut = func() error { return r.copyOutStaged(host, b) }
	}
	err := r.timed(&r.stats.DeviceToHost, copyOut)
	if err != nil {
		return r.fail(err, "copying %s from the device (after kernel %s)", graph.FormatBytes(uint64(len(host))*4), r.last)
	}
	r.stats.BytesToHost += uint64(len(host)) * 4
	r.fetchedAt = time.Now()
	return nil
}

// stagedCopy is the size (in int32 values, 4 MiB) from which upload and
// download copy through page-locked staging buffers, stagedChunk the part
// of a staging buffer (8 MiB) that one copy fills: small enough that the
// bus and the cores overlap from the first chunk on. On an H200's host
// the driver took 6 GB/s from ordinary Go memory (the CSR of a 1024²
// grid, 37 MB, in 6.0 ms) and the staged copy 21.6 GB/s (600 MB in
// 27.8 ms).
const (
	stagedCopy  = 1 << 20
	stagedChunk = 2 << 20
)

// copyOutStaged copies b into host through the device's two page-locked
// staging buffers: the device fills one at full bus speed while all cores
// copy the other into host (ordinary Go memory, which the driver would
// copy slowly through its own small buffers, touching fresh pages one
// at a time). Without staging buffers it copies directly.
func (r *run) copyOutStaged(host []int32, b buffer) error {
	st, err := r.dev.stagingBuffers()
	if err != nil {
		return r.dev.ctx.CopyOut(host, b.ptr)
	}
	var busy [2]sync.WaitGroup
	defer busy[0].Wait()
	defer busy[1].Wait()
	for off, k := 0, 0; off < len(host); k++ {
		i := k & 1
		busy[i].Wait()
		part := min(len(st[i]), stagedChunk, len(host)-off)
		if err := r.dev.ctx.CopyOut(st[i][:part], b.ptr+DevicePtr(off)*4); err != nil {
			return err
		}
		parallelCopy(&busy[i], host[off:off+part], st[i][:part])
		off += part
	}
	return nil
}

// copyInStaged copies host into b through the staging buffers, the other
// way round: all cores fill one buffer with the next chunk while the
// device reads the other (a copy from page-locked memory returns when the
// device has read it, so the buffer is free again).
func (r *run) copyInStaged(b buffer, host []int32) error {
	st, err := r.dev.stagingBuffers()
	if err != nil {
		return r.dev.ctx.CopyIn(b.ptr, host)
	}
	var busy [2]sync.WaitGroup
	defer busy[0].Wait()
	defer busy[1].Wait()
	chunk := min(len(st[0]), stagedChunk)
	fill := func(i, off int) {
		if off < len(host) {
			end := min(off+chunk, len(host))
			parallelCopy(&busy[i], st[i][:end-off], host[off:end])
		}
	}
	fill(0, 0)
	for off, k := 0, 0; off < len(host); k++ {
		i := k & 1
		busy[i].Wait()
		fill(i^1, off+chunk)
		part := min(chunk, len(host)-off)
		if err := r.dev.ctx.CopyIn(b.ptr+DevicePtr(off)*4, st[i][:part]); err != nil {
			return err
		}
		off += part
	}
	return nil
}

// parallelCopy copies src into dst on one goroutine per core, counted in
// wg.
func parallelCopy(wg *sync.WaitGroup, dst, src []int32) {
	parallelRanges(wg, len(src), func(lo, hi int) { copy(dst[lo:hi], src[lo:hi]) })
}

// parallelRanges calls f on consecutive ranges [lo, hi) covering 0..n,
// one goroutine per core, counted in wg.
func parallelRanges(wg *sync.WaitGroup, n int, f func(lo, hi int)) {
	parts := runtime.GOMAXPROCS(0)
	step := max((n+parts-1)/parts, 1)
	for lo := 0; lo < n; lo += step {
		hi := min(lo+step, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
}

// readInts copies b back without counting it as a bulk transfer (the small
// reads of a host loop, such as partial minima or a changed flag).
func (r *run) readInts(host []int32, b buffer) error {
	if err := r.dev.ctx.CopyOut(host, b.ptr); err != nil {
		return r.fail(err, "reading %d values back (after kernel %s)", len(host), r.last)
	}
	return nil
}

// event returns an event for the run: a spare one of an earlier run, or a
// new one; the run leaves it to the next at its end.
func (r *run) event() (driver.Event, error) {
	d := r.dev
	if k := len(d.spareEvents); k > 0 {
		e := d.spareEvents[k-1]
		d.spareEvents = d.spareEvents[:k-1]
		r.events = append(r.events, e)
		return e, nil
	}
	e, err := d.ctx.NewEvent()
	if err != nil {
		return 0, r.fail(err, "creating an event")
	}
	r.events = append(r.events, e)
	return e, nil
}

// signal records event e on stream from and makes each stream of to wait
// for it: the work queued on them later comes after what from has queued
// so far.
func (r *run) signal(e driver.Event, from driver.Stream, to ...driver.Stream) error {
	if err := r.dev.ctx.RecordOn(e, from); err != nil {
		return r.fail(err, "recording an event")
	}
	for _, st := range to {
		if err := r.dev.ctx.WaitEvent(st, e); err != nil {
			return r.fail(err, "waiting for an event")
		}
	}
	return nil
}

// eventPair returns two of the run's events, to time something between.
func (r *run) eventPair() (start, stop driver.Event, err error) {
	if start, err = r.event(); err != nil {
		return 0, 0, err
	}
	if stop, err = r.event(); err != nil {
		return 0, 0, err
	}
	return start, stop, nil
}

// timed runs f between two events and adds their elapsed time to total.
// f's error, if any, comes first.
func (r *run) timed(total *time.Duration, f func() error) error {
	start, stop, err := r.eventPair()
	if err != nil {
		return err
	}
	if err := r.dev.ctx.Record(start); err != nil {
		return err
	}
	if err := f(); err != nil {
		return err
	}
	if err := r.dev.ctx.Record(stop); err != nil {
		return err
	}
	dt, err := r.dev.ctx.Elapsed(start, stop)
	if err != nil {
		return err
	}
	*total += dt
	return nil
}

// kernels runs the compute part of a variant, f, timing it as
// Stats.Kernel. f's launches are checked when the device finishes them.
func (r *run) kernels(f func() error) error {
	var ferr error
	err := r.timed(&r.stats.Kernel, func() error {
		ferr = f()
		return ferr
	})
	if ferr != nil {
		return ferr // already wrapped by launch, or a cancellation
	}
	if err != nil {
		return r.fail(err, "kernel %s failed (%d launches)", r.last, r.stats.Launches)
	}
	return nil
}

// pendingTime is a device time between two queued events that nothing
// has waited for yet, and the part of the statistics it belongs to.
type pendingTime struct {
	total       *time.Duration
	start, stop driver.Event
}

// timedLater queues f between two events without waiting for them; end
// adds their time to total, once the device is idle. A run whose caller
// asked for no statistics (timing) queues f alone: two events cost the
// host two driver calls.
func (r *run) timedLater(total *time.Duration, f func() error) error {
	if !r.timing {
		return f()
	}
	start, stop, err := r.eventPair()
	if err != nil {
		return err
	}
	if err := r.dev.ctx.Record(start); err != nil {
		return r.fail(err, "recording an event")
	}
	if err := f(); err != nil {
		return err
	}
	if err := r.dev.ctx.Record(stop); err != nil {
		return r.fail(err, "recording an event")
	}
	r.pending = append(r.pending, pendingTime{total, start, stop})
	return nil
}

// kernelsQueued is kernels without its wait: f's launches are timed as
// Stats.Kernel at the run's end, and a fault of theirs surfaces at the
// next wait.
func (r *run) kernelsQueued(f func() error) error {
	return r.timedLater(&r.stats.Kernel, f)
}

// arcsStaged makes uploadArcs copy the arcs through the second staging
// buffer without waiting: the host puts the three arrays there, and one
// copy to the device is queued behind the work before it. Off, they go
// as uploadCSR copies them: three copies from Go memory through the
// driver's own buffers, each waited for (0.10 ms for fw-fast's 0.5 MB at
// n = 1024 on an H200). Benchmarks compare.
var arcsStaged = true

// arcsParallel is the fewest values of a CSR that uploadArcs (and
// mirrorCSR) copies on every core: on an H200's host one core took 0.38 ms
// for fw-fast's 2 MB at n = 4096 (an execution trace of BenchmarkFWFastCall),
// a third of the call's preparation; but a goroutine started there began
// 46 µs later at the median (a trace at n = 2048, whose 1 MB one core
// copied in 0.09 ms), so smaller CSRs take one core. A variable for the
// test, which copies a small graph's on every core.
var arcsParallel = 1 << 18

// arcsPin makes uploadArcs copy a graph's arcs, from its second call on,
// from a page-locked copy of them (mirrorCSR) in one copy to the device
// (on by default; a variable so that benchmarks time both ways).
var arcsPin = true

// uploadArcs uploads g's CSR arrays (as uploadCSR) into one device buffer,
// followed by the values of tail (the caller's flags' starting values,
// which thus need no fill of their own), returned as the second buffer.
// From the graph's second call on they go in one copy straight from its
// page-locked mirror (mirrorCSR, kept until the graph is collected);
// otherwise through the second staging buffer (arcsStaged) when they fit
// it, the host copying them there first. Either way the copy is timed as
// the upload and not waited for. A later host write into that staging
// buffer must wait for the device first. Without either, the arrays and
// the tail go as uploadCSR copies them.
func (r *run) uploadArcs(g *graph.Graph, tail []int32) (csr, buffer, error) {
	parts := [3][]int32{g.Offsets(), g.Targets(), g.Weights()}
	total := len(parts[0]) + len(parts[1]) + len(parts[2])
	all := total + len(tail)
	st, err := r.dev.stagingBuffers()
	if !arcsStaged || err != nil || all > len(st[1]) {
		c, err := r.uploadCSR(g)
		if err != nil {
			return c, buffer{}, err
		}
		t, err := r.upload(tail)
		return c, t, err
	}
	b, err := r.allocRaw(all) // the copy writes it whole
	if err != nil {
		return csr{}, buffer{}, err
	}
	var c csr
	off := 0
	for i, dst := range []*buffer{&c.off, &c.tgt, &c.w} {
		*dst = buffer{b.ptr + DevicePtr(off)*4, len(parts[i])}
		off += len(parts[i])
	}
	t := buffer{b.ptr + DevicePtr(total)*4, len(tail)}
	var from []int32
	if arcsPin {
		from = r.mirrorCSR(g, tail)
	}
	r.hostMark("pinned")
	if from == nil {
		from = st[1][:all]
		concatCSR(from, parts, tail)
	}
	r.prepare()
	err = r.timedLater(&r.stats.HostToDevice, func() error { return r.dev.ctx.CopyInAsync(b.ptr, asBytes(from), 0) })
	if err != nil {
		return c, t, r.fail(err, "copying %s to the device", graph.FormatBytes(uint64(total)*4))
	}
	r.stats.BytesToDevice += uint64(total) * 4
	return c, t, nil
}

// concatCSR writes the CSR arrays in parts, one after the other, and then
// tail into dst, on every core from arcsParallel values on.
func concatCSR(dst []int32, parts [3][]int32, tail []int32) {
	total := len(parts[0]) + len(parts[1]) + len(parts[2])
	var wg sync.WaitGroup
	off := 0
	for _, p := range parts {
		if total >= arcsParallel {
			parallelCopy(&wg, dst[off:off+len(p)], p)
		} else {
			copy(dst[off:], p)
		}
		off += len(p)
	}
	copy(dst[total:], tail)
	wg.Wait()
}

// launch enqueues kernel name of PTX module mod on the default stream,
// first checking that the run was not cancelled: host loops call it
// between launches.
func (r *run) launch(mod, name string, grid, block Dim3, shared int, args ...uint64) error {
	return r.launchOn(0, mod, name, grid, block, shared, args...)
}

// launchOn is launch on stream s.
func (r *run) launchOn(s driver.Stream, mod, name string, grid, block Dim3, shared int, args ...uint64) error {
	if err := r.ctx.Err(); err != nil {
		return fmt.Errorf("%s: interrupted after %d launches: %w", r.what, r.stats.Launches, err)
	}
	f, err := r.dev.function(mod, name)
	if err != nil {
		return fmt.Errorf("%s: %w", r.what, err)
	}
	if err := checkLaunch(r.dev.info, grid, block, shared); err != nil {
		return fmt.Errorf("%s: kernel %s: %w", r.what, name, err)
	}
	r.last = name
	// The default stream's launches go through Device.launch, which a
	// running profiler records.
	if s == 0 {
		err = r.dev.launch(r.ctx, f, name, grid, block, shared, args)
	} else {
		err = r.dev.ctx.LaunchOn(r.ctx, s, f, grid, block, shared, args)
	}
	if err != nil {
		if r.ctx.Err() != nil && errors.Is(err, r.ctx.Err()) {
			return fmt.Errorf("%s: interrupted after %d launches, in kernel %s: %w", r.what, r.stats.Launches, name, err)
		}
		return r.fail(err, "launching %s on grid %v, block %v, %d bytes of shared memory", name, grid, block, shared)
	}
	r.stats.Launches++
	return nil
}

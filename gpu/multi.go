package gpu

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/pathnotes/pathnotes/gpu/driver"
	"github.com/pathnotes/pathnotes/graph"
)

// Several devices in one run (Options.Devices): opening them, holding them
// together, and copying between them.

// stagePeerCopies makes multi-device runs copy through host memory even
// where the devices can copy directly (tests use it to exercise that path).
var stagePeerCopies bool

// OpenAll opens every device of the active driver, in ordinal order: pass
// the list as Options.Devices to spread a run over all of them.
func OpenAll() ([]*Device, error) {
	infos, err := listDevices()
	if err != nil {
		return nil, err
	}
	if len(infos) == 0 {
		return nil, errors.New("gpu: no device found")
	}
	devs := make([]*Device, len(infos))
	for i := range devs {
		if devs[i], err = Open(i); err != nil {
			return nil, err
		}
	}
	return devs, nil
}

// single resolves the device of a variant that runs on one: Device, the
// one device of Devices, or Default().
func (o Options) single(what string) (*Device, error) {
	devs, err := o.deviceList()
	if err != nil {
		return nil, err
	}
	if len(devs) > 1 {
		return nil, fmt.Errorf("%s runs on one device, and Options.Devices names %d (%s runs on several)",
			what, len(devs), VariantFWFast)
	}
	return devs[0], nil
}

// deviceList resolves Options.Device and Options.Devices into the devices
// of a run: never empty, no device twice.
func (o Options) deviceList() ([]*Device, error) {
	if len(o.Devices) == 0 {
		d, err := device(o.Device)
		if err != nil {
			return nil, err
		}
		return []*Device{d}, nil
	}
	if o.Device != nil {
		return nil, errors.New("gpu: Options sets both Device and Devices; set one")
	}
	for i, d := range o.Devices {
		if d == nil {
			return nil, fmt.Errorf("gpu: Options.Devices[%d] is nil", i)
		}
		for j := range i {
			if o.Devices[j] == d {
				return nil, fmt.Errorf("gpu: Options.Devices names %s twice (entries %d and %d)", d.info.Name, j, i)
			}
		}
	}
	return o.Devices, nil
}

// group is one run on several devices: a run per device, the first of which
// carries the combined statistics.
type group struct {
	runs   []*run
	direct [][]bool // direct[a][b]: device b copies from device a without the host
	out    *Stats
	start  time.Time
	staged []int32 // host buffer of copies through the host, grown as needed
	peer   uint64  // bytes copied between devices
}

// startGroup is start for variants that can run on several devices: it
// checks g (negative tells whether negative arcs are allowed) and ctx, and
// begins a group on the devices of opts, at most most of them (a device
// with nothing to do would only wait).
func startGroup(ctx context.Context, g *graph.Graph, what string, negative bool, opts Options, most int) (*group, error) {
	ctx, err := precheck(ctx, g, what, negative)
	if err != nil {
		return nil, err
	}
	devs, err := opts.deviceList()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return beginGroup(ctx, what, devs[:max(1, min(len(devs), most))], opts)
}

// sharedProgress adds up the progress of a group's devices for
// Options.Progress, which is called from one goroutine at a time.
type sharedProgress struct {
	mu     sync.Mutex
	report func(done, total int)
	done   int
	total  int
}

// add counts done more units of work (a run's progress function: the
// total it is passed is the whole run's, as is p.total).
func (p *sharedProgress) add(done, _ int) {
	if p.report == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += done
	p.report(p.done, p.total)
}

// groupMu makes beginning a group atomic, so that two groups whose device
// lists overlap in different orders cannot each hold a device the other
// waits for.
var groupMu sync.Mutex

// beginGroup holds every device of devs for one run of what, and finds
// which pairs can copy directly.
func beginGroup(ctx context.Context, what string, devs []*Device, opts Options) (*group, error) {
	groupMu.Lock()
	defer groupMu.Unlock()
	grp := &group{out: opts.Stats, start: time.Now()}
	for _, d := range devs {
		r, err := d.begin(ctx, what, nil)
		if err != nil {
			grp.end()
			return nil, err
		}
		r.progress = opts.Progress
		r.timing = opts.Stats != nil
		grp.runs = append(grp.runs, r)
	}
	grp.direct = make([][]bool, len(devs))
	for a, ra := range grp.runs {
		grp.direct[a] = make([]bool, len(devs))
		for b, rb := range grp.runs {
			pb, ok := rb.dev.ctx.(driver.Peer)
			if a == b || !ok || stagePeerCopies {
				continue
			}
			can, err := pb.EnablePeer(ra.dev.ctx)
			if err != nil {
				grp.end()
				return nil, rb.fail(err, "enabling peer access from %s to %s", rb.dev.info.Name, ra.dev.info.Name)
			}
			grp.direct[a][b] = can
		}
	}
	return grp, nil
}

// end ends every run and publishes the combined statistics: times are the
// slowest device's, counts the sum.
func (grp *group) end() {
	var total Stats
	var names []string
	for _, r := range grp.runs {
		r.end()
		s := r.stats
		names = append(names, r.dev.info.Name)
		total.Kernel = max(total.Kernel, s.Kernel)
		total.HostToDevice = max(total.HostToDevice, s.HostToDevice)
		total.DeviceToHost = max(total.DeviceToHost, s.DeviceToHost)
		total.Prepare = max(total.Prepare, s.Prepare)
		total.Result = max(total.Result, s.Result)
		total.End = max(total.End, s.End)
		total.Launches += s.Launches
		total.BytesToDevice += s.BytesToDevice
		total.BytesToHost += s.BytesToHost
		total.Variant = s.Variant
		total.Passes = max(total.Passes, s.Passes)
		if s.Streamed != (StreamSplit{}) {
			total.Streamed = s.Streamed
		}
	}
	if grp.out != nil {
		total.Device = strings.Join(names, " + ")
		total.Devices = len(grp.runs)
		total.BytesPeer = grp.peer
		total.Wall = time.Since(grp.start)
		*grp.out = total
	}
}

// copyPanel copies values int32 values at src on run from into dst on run
// to: directly where the two devices can, else through host memory.
func (grp *group) copyPanel(from, to int, src, dst DevicePtr, values int) error {
	rf, rt := grp.runs[from], grp.runs[to]
	bytes := uint64(values) * 4
	grp.peer += bytes
	if grp.direct[from][to] {
		if err := rt.dev.ctx.(driver.Peer).CopyPeer(dst, rf.dev.ctx, src, bytes); err != nil {
			return rt.fail(err, "copying %d values from %s", values, rf.dev.info.Name)
		}
		return nil
	}
	if len(grp.staged) < values {
		grp.staged = make([]int32, values)
	}
	host := grp.staged[:values]
	if err := rf.dev.ctx.CopyOut(host, src); err != nil {
		return rf.fail(err, "copying %d values to the host for %s", values, rt.dev.info.Name)
	}
	if err := rt.dev.ctx.CopyIn(dst, host); err != nil {
		return rt.fail(err, "copying %d values from the host (from %s)", values, rf.dev.info.Name)
	}
	return nil
}

// inParallel calls f(0) .. f(k-1), each on a goroutine of its own (a
// group's devices, driven at once), and returns their errors joined.
func inParallel(k int, f func(i int) error) error {
	errs := make([]error, k)
	var wg sync.WaitGroup
	for i := range k {
		wg.Go(func() { errs[i] = f(i) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// kernels runs f, the compute part of a group's run, timing each device
// between events recorded before and after it; Stats.Kernel becomes the
// slowest device's time.
func (grp *group) kernels(f func() error) error {
	starts := make([]driver.Event, len(grp.runs))
	for i, r := range grp.runs {
		e, err := r.event()
		if err != nil {
			return err
		}
		if err := r.dev.ctx.Record(e); err != nil {
			return r.fail(err, "recording an event")
		}
		starts[i] = e
	}
	if err := f(); err != nil {
		return err
	}
	for i, r := range grp.runs {
		stop, err := r.event()
		if err != nil {
			return err
		}
		if err := r.dev.ctx.Record(stop); err != nil {
			return r.fail(err, "recording an event")
		}
		dt, err := r.dev.ctx.Elapsed(starts[i], stop)
		if err != nil {
			return r.fail(err, "kernel %s failed (%d launches)", r.last, r.stats.Launches)
		}
		r.stats.Kernel += dt
	}
	return nil
}

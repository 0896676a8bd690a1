package cells

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/gpu/driver"
)

// Launches. Launch and LaunchShared wait for their kernel and return its
// own error, as a notebook wants it; LaunchAsync and LaunchSharedAsync
// only enqueue, as kernel<<<...>>> does, for timing and overlap, and leave
// the launch on the device as pending (gpu.Hold.Defer) until Synchronize
// (or the next call that waits) reports its fault by the kernel's name.
// Before a kernel of either form or a solver starts, the pending launches
// are waited for, so that nothing takes an earlier kernel's fault for its
// own.

// launchRecord is a launch that nothing has waited for.
type launchRecord struct {
	kernel      string // as the source names it
	ptxName     string
	grid, block gpu.Dim3
	shared      int
}

// maxPending is how many pending launches a device remembers by name; it
// only counts the others.
const maxPending = 8

// pending are the latest launches on one device that nothing has waited
// for, at most maxPending; n counts them all. The device keeps them
// (gpu.Hold.Defer) and waits for them before its next run.
type pending struct {
	records []launchRecord
	n       int
}

// pendingOn returns the launches pending on the held device, nil when
// there are none.
func pendingOn(h *gpu.Hold) *pending {
	p, _ := h.Deferred().(*pending)
	return p
}

// addPending records a launch nothing has waited for.
func addPending(h *gpu.Hold, r launchRecord) {
	p := pendingOn(h)
	if p == nil {
		p = &pending{}
		h.Defer(p)
	}
	p.n++
	if len(p.records) == maxPending {
		p.records = append(p.records[:0], p.records[1:]...)
	}
	p.records = append(p.records, r)
}

// Settle waits for the device; a fault is a *LaunchError naming the
// pending launch that faulted (see cellErr).
func (p *pending) Settle(h *gpu.Hold) error {
	return syncPending(h, "synchronizing %s", h.Device().Info().Name)
}

// Earlier says that err is the failure of an earlier launch.
func (p *pending) Earlier(err error) error { return earlier(err) }

// syncPending waits for the device; a fault is a *LaunchError naming the
// pending launch that faulted (see cellErr). Nothing is pending after it.
func syncPending(h *gpu.Hold, format string, args ...any) error {
	c, err := h.Context()
	if err != nil {
		return err
	}
	err = cellErr(h, c.Synchronize(), format, args...)
	h.Defer(nil)
	return err
}

// settle waits for the launches pending on the held device before a
// kernel starts, so that a fault of theirs is not taken for the
// newcomer's: the error says that an earlier kernel launch failed, and
// names it.
func settle(h *gpu.Hold) error {
	if pendingOn(h) == nil {
		return nil
	}
	if err := syncPending(h, "synchronizing %s", h.Device().Info().Name); err != nil {
		return earlier(err)
	}
	return nil
}

// earlier says that err is the failure of an earlier launch, naming its
// kernel.
func earlier(err error) error {
	name := "?"
	var le *LaunchError
	if errors.As(err, &le) {
		name = le.Kernel
	}
	return fmt.Errorf("an earlier kernel launch (%s) failed: %w", name, err)
}

// Launch runs the kernel on grid blocks of block threads, as
// kernel<<<grid, block>>>(args...) followed by cudaDeviceSynchronize(): it
// waits for the kernel and returns its error. Arguments, in the order of
// the kernel's parameters (numbered from 0, as PTX numbers them): *Buffer
// (its address), int (as int32, or int64 for a 64-bit parameter; an error
// if it does not fit), int32, uint32, int64, uint64, float32, float64,
// gpu.DevicePtr. Their count and sizes are checked against the kernel's
// .param list.
//
// A configuration the device cannot run is a *LaunchError with code 9
// (cudaErrorInvalidConfiguration). A kernel that faults returns a
// *LaunchError naming it, with code 700 for an illegal address (716
// misaligned, 719 a trap or other failure); on the emulator its Detail
// says where: block, thread, PTX line, address. The fault resets the
// device's context (see LaunchError). Launches made with LaunchAsync that
// were not waited for are waited for first: if one of them faulted, this
// kernel is not launched and the error names the earlier one. The launch
// takes its context from its module's Session (in a notebook, the cell's:
// an interrupt stops an emulated kernel).
func (k *Kernel) Launch(grid, block gpu.Dim3, args ...any) error {
	return k.LaunchShared(grid, block, 0, args...)
}

// LaunchShared is Launch with sharedBytes of dynamic shared memory per
// block (the extern __shared__ array), as <<<grid, block, shared>>>.
func (k *Kernel) LaunchShared(grid, block gpu.Dim3, sharedBytes int, args ...any) error {
	ctx := k.mod.sess.launchContext()
	h := k.mod.dev.Hold()
	defer h.Release()
	if err := settle(h); err != nil {
		return fmt.Errorf("gpu: kernel %s not launched: %w", k.Name(), err)
	}
	if err := k.enqueue(h, ctx, grid, block, sharedBytes, args); err != nil {
		return err
	}
	return syncPending(h, "waiting for kernel %s", k.Name())
}

// LaunchAsync enqueues the kernel and returns before it ends, as a bare
// kernel<<<grid, block>>>(args...) does: for timing on the host clock
// and for overlapping host work with the kernel. Its arguments and
// refused configurations are checked as Launch checks them. A fault of
// the kernel is reported by the next call that waits for it:
// Synchronize (or gpu.Device.Synchronize), a copy back, Launch, or a
// solver (which then does not start and says that an earlier kernel
// launch failed); the *LaunchError names the kernel. On the emulator the
// kernel has run when LaunchAsync returns; its fault is reported the same
// way.
func (k *Kernel) LaunchAsync(grid, block gpu.Dim3, args ...any) error {
	return k.LaunchSharedAsync(grid, block, 0, args...)
}

// LaunchSharedAsync is LaunchAsync with sharedBytes of dynamic shared
// memory per block, as <<<grid, block, shared>>>.
func (k *Kernel) LaunchSharedAsync(grid, block gpu.Dim3, sharedBytes int, args ...any) error {
	ctx := k.mod.sess.launchContext()
	h := k.mod.dev.Hold()
	defer h.Release()
	return k.enqueue(h, ctx, grid, block, sharedBytes, args)
}

// Time launches the kernel between two CUDA events and waits for it,
// returning the device time between them; a fault is the kernel's
// *LaunchError, as for Launch. On the emulator the time is the
// interpreter's on the CPU, which says nothing about a GPU.
func (k *Kernel) Time(grid, block gpu.Dim3, sharedBytes int, args ...any) (time.Duration, error) {
	ctx := k.mod.sess.launchContext()
	h := k.mod.dev.Hold()
	defer h.Release()
	if err := settle(h); err != nil {
		return 0, fmt.Errorf("gpu: kernel %s not launched: %w", k.Name(), err)
	}
	c, err := k.mod.usable(h)
	if err != nil {
		return 0, err
	}
	var events [2]driver.Event
	for i := range events {
		e, err := c.NewEvent()
		if err != nil {
			return 0, cellErr(h, err, "creating an event")
		}
		events[i] = e
		defer func() { _ = c.DestroyEvent(e) }()
	}
	if err := c.Record(events[0]); err != nil {
		return 0, cellErr(h, err, "recording an event")
	}
	if err := k.enqueue(h, ctx, grid, block, sharedBytes, args); err != nil {
		return 0, err
	}
	err = c.Record(events[1])
	var dt time.Duration
	if err == nil {
		dt, err = c.Elapsed(events[0], events[1])
	}
	if err != nil {
		err = cellErr(h, err, "timing kernel %s", k.Name())
		h.Defer(nil)
		return 0, err
	}
	return dt, syncPending(h, "waiting for kernel %s", k.Name())
}

// enqueue checks a launch, hands it to the driver and records it as
// pending.
func (k *Kernel) enqueue(h *gpu.Hold, ctx context.Context, grid, block gpu.Dim3, shared int, args []any) error {
	d := k.mod.dev
	c, err := k.mod.usable(h)
	if err != nil {
		return err
	}
	vals, err := k.values(args)
	if err != nil {
		return err
	}
	if err := checkConfig(d.Info(), k.Name(), grid, block, shared); err != nil {
		return err
	}
	if epoch := d.Epoch(); k.epoch != epoch || k.fn == 0 {
		fn, err := c.Function(k.mod.handle, k.entry.Name)
		if err != nil {
			return cellErr(h, err, "kernel %s of module %s", k.Name(), k.mod.name)
		}
		k.fn, k.epoch = fn, epoch
	}
	err = h.Launch(ctx, k.fn, k.Name(), grid, block, shared, vals)
	switch {
	case err == nil:
		addPending(h, launchRecord{kernel: k.Name(), ptxName: k.entry.Name, grid: grid, block: block, shared: shared})
		return nil
	case driver.IsSticky(err):
		// The driver reports a fault of a launch before this one.
		err = cellErr(h, err, "launching %s", k.Name())
		h.Defer(nil)
		return fmt.Errorf("gpu: kernel %s not launched: %w", k.Name(), earlier(err))
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return fmt.Errorf("gpu: kernel %s <<<%v,%v>>> interrupted: %w", k.Name(), grid, block, err)
	}
	le := &LaunchError{Kernel: k.Name(), Grid: grid, Block: block, Shared: shared, Err: err, Code: ErrorCode(err)}
	var de *driver.Error
	if errors.As(err, &de) {
		le.Detail = de.Detail
	} else {
		le.Code, le.Detail = 999, err.Error()
	}
	le.Name, le.Message = runtimeError(le.Code)
	return le
}

// cellErr turns a driver error of a call of this package into the error
// to return. A sticky error (a kernel that faulted) becomes a
// *LaunchError naming the pending launch that faulted; the device resets
// its context, and with it every buffer and module made in it.
func cellErr(h *gpu.Hold, err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	if !driver.IsSticky(err) || h.Lost() != nil {
		return fmt.Errorf("gpu: %s: %w", fmt.Sprintf(format, args...), err)
	}
	le := &LaunchError{Kernel: "?", Err: err}
	var de *driver.Error
	if errors.As(err, &de) {
		le.Code = runtimeCode(de.Code)
		le.Detail = de.Detail
	}
	le.Name, le.Message = runtimeError(le.Code)
	if le.Detail == le.Message {
		le.Detail = "" // the cuda driver's description is the runtime's message
	}
	if r, which := culprit(pendingOn(h), de); r != nil {
		le.Kernel, le.Grid, le.Block, le.Shared = r.kernel, r.grid, r.block, r.shared
		if which != "" {
			le.Detail = strings.TrimSuffix(which+"; "+le.Detail, "; ")
		}
	}
	note := h.Reset(le)
	if h.Lost() == nil {
		note += "; every cells.Buffer, Module and Kernel made before is gone: allocate the buffers and run the %%cuda / %%ptx cells (or LoadPTX) again"
	}
	if le.Detail != "" {
		le.Detail += " (" + note + ")"
	} else {
		le.Detail = note
	}
	return le
}

// culprit returns the pending launch that faulted with de: the one of
// the kernel the driver names (the emulator does), the only one, or else
// the latest, with a note listing them all (the CUDA driver does not say
// which faulted). nil when nothing is known.
func culprit(p *pending, de *driver.Error) (*launchRecord, string) {
	if p == nil {
		p = &pending{}
	}
	if de != nil && de.Kernel != "" {
		for i := len(p.records) - 1; i >= 0; i-- {
			if p.records[i].ptxName == de.Kernel {
				return &p.records[i], ""
			}
		}
		return &launchRecord{kernel: demangle(de.Kernel)}, ""
	}
	switch {
	case len(p.records) == 0:
		return nil, ""
	case p.n == 1:
		return &p.records[0], ""
	}
	var names []string
	for _, r := range p.records {
		names = append(names, r.kernel)
	}
	list := strings.Join(names, ", ")
	if more := p.n - len(p.records); more > 0 {
		list = fmt.Sprintf("%d earlier, then %s", more, list)
	}
	return &p.records[len(p.records)-1], fmt.Sprintf("one of the %d launches since the last synchronisation faulted (%s), and the driver does not say which: the latest is named", p.n, list)
}

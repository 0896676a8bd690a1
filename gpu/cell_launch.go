package gpu

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Launches of the cell API. Launch and LaunchShared wait for their kernel
// and return its own error, as a notebook wants it; LaunchAsync and
// LaunchSharedAsync only enqueue, as kernel<<<...>>> does, for timing and
// overlap, and the device remembers such launches as pending until
// Synchronize (or the next call that waits) reports their fault by the
// kernel's name. Before a kernel of either form or a solver starts, the
// pending launches are waited for, so that nothing takes an earlier
// kernel's fault for its own.

// launchRecord is a launch of the cell API that nothing has waited for.
type launchRecord struct {
	kernel      string // as the source names it
	ptxName     string
	grid, block Dim3
	shared      int
}

// maxPending is how many pending launches a Device remembers by name; it
// only counts the others.
const maxPending = 8

// launchCtx is the source of the context of the cell API's launches.
var launchCtx struct {
	sync.Mutex
	f func() context.Context
}

// SetLaunchContext sets where the cell API's launches (Launch,
// LaunchAsync, the Kernel methods of the same names, Kernel.Time) get
// their context: f is called at every launch. Cancelling that context
// stops a kernel running on the emulator: its launch returns an error that
// wraps the context's error (errors.Is(err, context.Canceled)), the blocks
// that ran keep what they wrote, and the device stays usable. A kernel
// running on a GPU cannot be stopped. The notebook kernel points it at
// the running cell's context, so that interrupting a cell stops an endless
// emulated kernel; nil, the default, means context.Background().
func SetLaunchContext(f func() context.Context) {
	launchCtx.Lock()
	defer launchCtx.Unlock()
	launchCtx.f = f
}

// launchContext returns the context for a launch now, which carries the
// printf output (SetPrintfOutput) to the driver.
func launchContext() context.Context {
	launchCtx.Lock()
	f := launchCtx.f
	launchCtx.Unlock()
	ctx := context.Background()
	if f != nil {
		if c := f(); c != nil {
			ctx = c
		}
	}
	return WithPrintf(ctx, printfWriter())
}

// Launch runs the kernel on grid blocks of block threads, as
// kernel<<<grid, block>>>(args...) followed by cudaDeviceSynchronize(): it
// waits for the kernel and returns its error. Arguments, in the order of
// the kernel's parameters (numbered from 0, as PTX numbers them): *Buffer
// (its address), int (as int32, or int64 for a 64-bit parameter; an error
// if it does not fit), int32, uint32, int64, uint64, float32, float64,
// DevicePtr. Their count and sizes are checked against the kernel's
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
// takes its context from SetLaunchContext (in a notebook, the cell's: an
// interrupt stops an emulated kernel).
func (k *Kernel) Launch(grid, block Dim3, args ...any) error {
	return k.LaunchShared(grid, block, 0, args...)
}

// LaunchShared is Launch with sharedBytes of dynamic shared memory per
// block (the extern __shared__ array), as <<<grid, block, shared>>>.
func (k *Kernel) LaunchShared(grid, block Dim3, sharedBytes int, args ...any) error {
	ctx := launchContext()
	d := k.mod.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.settle(); err != nil {
		return fmt.Errorf("gpu: kernel %s not launched: %w", k.Name(), err)
	}
	if err := k.enqueue(ctx, grid, block, sharedBytes, args); err != nil {
		return err
	}
	return d.syncPending("waiting for kernel %s", k.Name())
}

// LaunchAsync enqueues the kernel and returns before it ends, as a bare
// kernel<<<grid, block>>>(args...) does: for timing on the host clock
// and for overlapping host work with the kernel. Its arguments and
// refused configurations are checked as Launch checks them. A fault of
// the kernel is reported by the next call that waits for it: Synchronize
// (or Device.Synchronize), a copy back, Launch, or a solver (which then
// does not start and says that an earlier kernel launch failed); the
// *LaunchError names the kernel. On the emulator the kernel has run when
// LaunchAsync returns; its fault is reported the same way.
func (k *Kernel) LaunchAsync(grid, block Dim3, args ...any) error {
	return k.LaunchSharedAsync(grid, block, 0, args...)
}

// LaunchSharedAsync is LaunchAsync with sharedBytes of dynamic shared
// memory per block, as <<<grid, block, shared>>>.
func (k *Kernel) LaunchSharedAsync(grid, block Dim3, sharedBytes int, args ...any) error {
	ctx := launchContext()
	d := k.mod.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	return k.enqueue(ctx, grid, block, sharedBytes, args)
}

// Time launches the kernel between two CUDA events and waits for it,
// returning the device time between them; a fault is the kernel's
// *LaunchError, as for Launch. On the emulator the time is the
// interpreter's on the CPU, which says nothing about a GPU.
func (k *Kernel) Time(grid, block Dim3, sharedBytes int, args ...any) (time.Duration, error) {
	ctx := launchContext()
	d := k.mod.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.settle(); err != nil {
		return 0, fmt.Errorf("gpu: kernel %s not launched: %w", k.Name(), err)
	}
	if err := k.mod.usable(); err != nil {
		return 0, err
	}
	var events [2]eventHandle
	for i := range events {
		e, err := d.ctx.NewEvent()
		if err != nil {
			return 0, d.cellErr(err, "creating an event")
		}
		events[i] = e
		defer func() { _ = d.ctx.DestroyEvent(e) }()
	}
	if err := d.ctx.Record(events[0]); err != nil {
		return 0, d.cellErr(err, "recording an event")
	}
	if err := k.enqueue(ctx, grid, block, sharedBytes, args); err != nil {
		return 0, err
	}
	err := d.ctx.Record(events[1])
	var dt time.Duration
	if err == nil {
		dt, err = d.ctx.Elapsed(events[0], events[1])
	}
	if err != nil {
		err = d.cellErr(err, "timing kernel %s", k.Name())
		d.pending, d.pendingN = nil, 0
		return 0, err
	}
	return dt, d.syncPending("waiting for kernel %s", k.Name())
}

// enqueue checks a launch, hands it to the driver and records it as
// pending. d.mu is held.
func (k *Kernel) enqueue(ctx context.Context, grid, block Dim3, shared int, args []any) error {
	d := k.mod.dev
	if err := k.mod.usable(); err != nil {
		return err
	}
	vals, err := k.values(args)
	if err != nil {
		return err
	}
	if err := checkConfig(d.info, k.Name(), grid, block, shared); err != nil {
		return err
	}
	if k.epoch != d.epoch || k.fn == 0 {
		fn, err := d.ctx.Function(k.mod.handle, k.entry.Name)
		if err != nil {
			return d.cellErr(err, "kernel %s of module %s", k.Name(), k.mod.name)
		}
		k.fn, k.epoch = fn, d.epoch
	}
	err = d.launch(ctx, k.fn, k.Name(), grid, block, shared, vals)
	switch {
	case err == nil:
		d.addPending(launchRecord{kernel: k.Name(), ptxName: k.entry.Name, grid: grid, block: block, shared: shared})
		return nil
	case isSticky(err):
		// The driver reports a fault of a launch before this one.
		err = d.cellErr(err, "launching %s", k.Name())
		d.pending, d.pendingN = nil, 0
		return fmt.Errorf("gpu: kernel %s not launched: %w", k.Name(), earlier(err))
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return fmt.Errorf("gpu: kernel %s <<<%v,%v>>> interrupted: %w", k.Name(), grid, block, err)
	}
	le := &LaunchError{Kernel: k.Name(), Grid: grid, Block: block, Shared: shared, Err: err, Code: ErrorCode(err)}
	var de *driverError
	if errors.As(err, &de) {
		le.Detail = de.Detail
	} else {
		le.Code, le.Detail = 999, err.Error()
	}
	le.Name, le.Message = runtimeError(le.Code)
	return le
}

// addPending records a launch nothing has waited for. d.mu is held.
func (d *Device) addPending(r launchRecord) {
	d.pendingN++
	if len(d.pending) == maxPending {
		d.pending = append(d.pending[:0], d.pending[1:]...)
	}
	d.pending = append(d.pending, r)
}

// syncPending waits for the device; a fault is a *LaunchError naming the
// pending launch that faulted (see cellErr). Nothing is pending after it.
// d.mu is held.
func (d *Device) syncPending(format string, args ...any) error {
	err := d.cellErr(d.ctx.Synchronize(), format, args...)
	d.pending, d.pendingN = nil, 0
	return err
}

// settle waits for the pending launches before a kernel or a solver
// starts, so that a fault of theirs is not taken for the newcomer's: the
// error says that an earlier kernel launch failed, and names it. d.mu is
// held.
func (d *Device) settle() error {
	if d.pendingN == 0 {
		return nil
	}
	if err := d.syncPending("synchronizing %s", d.info.Name); err != nil {
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

// Synchronize waits for every launch on the device to finish, as
// cudaDeviceSynchronize does, and returns the fault of one made with
// LaunchAsync as a *LaunchError that names its kernel (the device has
// then reset its context). With several launches pending, the emulator
// names the one that faulted; the CUDA driver does not say which, and the
// error lists them.
func (d *Device) Synchronize() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.lost != nil {
		return d.lost
	}
	return d.syncPending("synchronizing %s", d.info.Name)
}

// cellErr turns a driver error of a cell-API call into the error to
// return. A sticky error (a kernel that faulted) becomes a *LaunchError
// naming the pending launch that faulted; the device resets its context,
// and with it every buffer and module of the cell API. d.mu is held.
func (d *Device) cellErr(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	if !isSticky(err) || d.lost != nil {
		return fmt.Errorf("gpu: %s: %w", fmt.Sprintf(format, args...), err)
	}
	le := &LaunchError{Kernel: "?", Err: err}
	var de *driverError
	if errors.As(err, &de) {
		le.Code = runtimeCode(de.Code)
		le.Detail = de.Detail
	}
	le.Name, le.Message = runtimeError(le.Code)
	if le.Detail == le.Message {
		le.Detail = "" // the cuda driver's description is the runtime's message
	}
	if r, which := d.culprit(de); r != nil {
		le.Kernel, le.Grid, le.Block, le.Shared = r.kernel, r.grid, r.block, r.shared
		if which != "" {
			le.Detail = strings.TrimSuffix(which+"; "+le.Detail, "; ")
		}
	}
	note := d.rebuild(le)
	if d.lost == nil {
		note += "; every gpu.Buffer, Module and Kernel made before is gone: allocate the buffers and run the %%cuda / %%ptx cells (or LoadPTX) again"
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
// which faulted). nil when nothing is known. d.mu is held.
func (d *Device) culprit(de *driverError) (*launchRecord, string) {
	if de != nil && de.Kernel != "" {
		for i := len(d.pending) - 1; i >= 0; i-- {
			if d.pending[i].ptxName == de.Kernel {
				return &d.pending[i], ""
			}
		}
		return &launchRecord{kernel: demangle(de.Kernel)}, ""
	}
	switch {
	case len(d.pending) == 0:
		return nil, ""
	case d.pendingN == 1:
		return &d.pending[0], ""
	}
	var names []string
	for _, r := range d.pending {
		names = append(names, r.kernel)
	}
	list := strings.Join(names, ", ")
	if more := d.pendingN - len(d.pending); more > 0 {
		list = fmt.Sprintf("%d earlier, then %s", more, list)
	}
	return &d.pending[len(d.pending)-1], fmt.Sprintf("one of the %d launches since the last synchronisation faulted (%s), and the driver does not say which: the latest is named", d.pendingN, list)
}

package gpu

import (
	"context"
	"fmt"

	"github.com/pathnotes/pathnotes/gpu/driver"
)

// Hold is a Device held by code outside the solvers, package cells (the
// kernels that notebooks write), for one call: nothing else runs on the
// device until Release. Through it that code reaches the driver's context
// and the device's services (profiled launches, the reset after a fault,
// the spare buffers), and leaves work for the next run to wait for.
type Hold struct{ d *Device }

// Settler is work left on a device that nothing has waited for yet (a
// kernel launched without waiting, say), which must be waited for before
// anything else runs there, so that its fault is not taken for the
// newcomer's. Package cells leaves its launches so, and names the kernel
// that faulted.
type Settler interface {
	// Settle waits for the work with the device held and returns its
	// fault, as Device.Synchronize reports it.
	Settle(h *Hold) error
	// Earlier phrases that fault for a run that it keeps from starting.
	Earlier(err error) error
}

// Hold waits until the device is free and holds it; Release lets it go.
func (d *Device) Hold() *Hold {
	d.mu.Lock()
	return &Hold{d: d}
}

// Release lets the device go.
func (h *Hold) Release() { h.d.mu.Unlock() }

// Device returns the held device.
func (h *Hold) Device() *Device { return h.d }

// Context returns the driver's context of the device, or the error of a
// device lost to a fault that a reset could not repair.
func (h *Hold) Context() (driver.Context, error) {
	if h.d.lost != nil {
		return nil, h.d.lost
	}
	return h.d.ctx, nil
}

// Lost returns the error of a device lost for the rest of the process,
// nil while it is usable.
func (h *Hold) Lost() error { return h.d.lost }

// Launch enqueues kernel f, called name, as the solvers' launches are: a
// running Profiler records it.
func (h *Hold) Launch(ctx context.Context, f driver.Func, name string, grid, block Dim3, sharedBytes int, args []uint64) error {
	return h.d.launch(ctx, f, name, grid, block, sharedBytes, args)
}

// Reset recovers from cause, a sticky error, by resetting the device's
// context (every allocation, module and event in it goes, and Epoch
// moves on), and says how that went, for the error message.
func (h *Hold) Reset(cause error) string { return h.d.rebuild(cause) }

// FreeSpares releases the device buffers that past runs left for reuse,
// so that the context's free memory is all there is.
func (h *Hold) FreeSpares() { h.d.releaseSpare() }

// Deferred returns the work left for the next run to wait for, nil when
// there is none.
func (h *Hold) Deferred() Settler { return h.d.deferred }

// Defer leaves s for the next run (or the next Hold's caller) to wait for,
// in place of what was left before; nil says there is nothing left.
func (h *Hold) Defer(s Settler) { h.d.deferred = s }

// Epoch counts the contexts the device has had: memory or a module made in
// an older one is gone.
func (d *Device) Epoch() int { return int(d.epoch.Load()) }

// settle waits for the work left on the device (Defer) before a run
// starts. d.mu is held.
func (d *Device) settle() error {
	s := d.deferred
	if s == nil {
		return nil
	}
	err := s.Settle(&Hold{d: d})
	d.deferred = nil
	if err != nil {
		return fmt.Errorf("not started: %w", s.Earlier(err))
	}
	return nil
}

// Synchronize waits for all work on the device, as cudaDeviceSynchronize
// does, and returns its first fault: that of a kernel of package cells
// launched without waiting is a *cells.LaunchError that names it (the
// device has then reset its context). With several such launches, the
// emulator names the one that faulted; the CUDA driver does not say
// which, and the error lists them.
func (d *Device) Synchronize() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.lost != nil {
		return d.lost
	}
	if s := d.deferred; s != nil {
		err := s.Settle(&Hold{d: d})
		d.deferred = nil
		return err
	}
	err := d.ctx.Synchronize()
	switch {
	case err == nil:
		return nil
	case driver.IsSticky(err):
		return fmt.Errorf("gpu: synchronizing %s: %w (%s)", d.info.Name, err, d.rebuild(err))
	}
	return fmt.Errorf("gpu: synchronizing %s: %w", d.info.Name, err)
}

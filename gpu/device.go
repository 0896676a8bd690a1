package gpu

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/pathnotes/pathnotes/gpu/driver"
	"github.com/pathnotes/pathnotes/gpu/ptxemu"
	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/ptx"
)

// The driver's names that the solvers' API speaks in: a device's
// description, a device address, a launch shape, the variable that picks
// the driver, and the error of asking for CUDA in a build without it.
type (
	// DeviceInfo describes one GPU: what it is and its limits.
	DeviceInfo = driver.DeviceInfo
	// DevicePtr is an address in device memory.
	DevicePtr = driver.DevicePtr
	// Dim3 is the shape of a grid (in blocks) or of a block (in threads).
	Dim3 = driver.Dim3
)

// Dim builds a Dim3 from one to three sizes, the missing ones 1:
// Dim(256) is (256,1,1), Dim(8, 6) is (8,6,1), Dim(4, 2, 2) is (4,2,2).
// Sizes beyond three are ignored.
func Dim(x int, yz ...int) Dim3 {
	d := Dim3{X: x, Y: 1, Z: 1}
	if len(yz) > 0 {
		d.Y = yz[0]
	}
	if len(yz) > 1 {
		d.Z = yz[1]
	}
	return d
}

// EnvDriver is the environment variable that picks the driver (see
// driver.EnvDriver): "cuda", "emu" or "off".
const EnvDriver = driver.EnvDriver

// ErrNoCUDA is the error of asking for the cuda driver in a binary built
// without the cuda build tag (see driver.ErrNoCUDA).
var ErrNoCUDA = driver.ErrNoCUDA

// listDevices describes every device of the active driver.
func listDevices() ([]DeviceInfo, error) {
	drv, err := driver.Active()
	if err != nil {
		return nil, err
	}
	n, err := drv.DeviceCount()
	if err != nil {
		return nil, fmt.Errorf("gpu: counting devices: %w", err)
	}
	infos := make([]DeviceInfo, n)
	for i := range infos {
		if infos[i], err = drv.DeviceInfo(i); err != nil {
			return nil, fmt.Errorf("gpu: describing device %d: %w", i, err)
		}
	}
	return infos, nil
}

// Describe returns the lines `pathnotes info` and the %gpu magic print: the
// active driver (or why there is none) and every device.
func Describe() string {
	drv, err := driver.Active()
	if err != nil {
		return "gpu driver: none (" + err.Error() + ")"
	}
	var sb strings.Builder
	v, err := drv.Version()
	if err != nil {
		v = "version unknown: " + err.Error()
	}
	fmt.Fprintf(&sb, "gpu driver: %s (%s); PTX modules %s\n", drv.Name(), v, strings.Join(ptx.Names(), ", "))
	infos, err := listDevices()
	switch {
	case err != nil:
		fmt.Fprintf(&sb, "gpu devices: %v", err)
	case len(infos) == 0:
		sb.WriteString("gpu devices: none found")
	}
	for _, info := range infos {
		sb.WriteString(info.String() + "\n")
	}
	return strings.TrimRight(sb.String(), "\n")
}

// Device is one GPU opened through the active driver. Runs on a device are
// serialised: a variant holds the device from its first allocation to its
// last copy, so that its statistics are its own. PTX modules are loaded
// once per driver context, on first use.
type Device struct {
	info DeviceInfo
	drv  driver.Driver

	mu      sync.Mutex // held by the run in progress
	ctx     driver.Context
	modules map[string]driver.Module
	funcs   map[string]driver.Func
	// occupancy holds the driver's answers to run.occupancy, by kernel,
	// block and shared memory: a query costs the host a driver call on
	// every small fw-fast call otherwise.
	occupancy map[occupancyKey]int
	// waitValue is whether the driver waits for a device word on a stream
	// (run.canWaitValue): 0 not asked yet, 1 yes, -1 no.
	waitValue int8
	lost      error // set when a sticky error could not be recovered from: every later call fails with it
	// spare holds device buffers and events that ended runs left for the
	// next ones (spareBytes in all), so that a small run does not pay
	// cuMemAlloc, cuMemFree and cuEventCreate, which cost about as much
	// as its kernels; a context reset drops them.
	spare       []spareBuf
	spareBytes  uint64
	spareEvents []driver.Event
	// staging is two page-locked host buffers for large copies back
	// (download), made on first use; a context reset frees them.
	staging [2][]int32
	// flags is a little page-locked host memory for the flags a run reads
	// back without waiting (fw-fast's one wait), made on first use; a
	// context reset frees it.
	flags []int32
	// copies is a stream of its own for copies back that run beside the
	// kernels of the default stream (copyStream), made on first use; a
	// context reset drops it.
	copies driver.Stream
	// freeRead is the last reading of the free memory that a run took
	// (run.memFreeFor), which a second's runs may use again.
	freeRead struct {
		free, total uint64
		at          time.Time
	}
	// epoch counts the contexts the device has had (Epoch).
	epoch atomic.Int64
	// deferred is work nothing has waited for yet (Hold.Defer), which the
	// next run waits for first.
	deferred Settler
}

var (
	devicesMu sync.Mutex
	opened    = map[int]*Device{}
)

// Open returns device ordinal of the active driver, opening its context
// the first time; later calls return the same Device, as long as
// PATHNOTES_GPU still selects its driver.
func Open(ordinal int) (*Device, error) {
	drv, err := driver.Active()
	if err != nil {
		return nil, err
	}
	devicesMu.Lock()
	defer devicesMu.Unlock()
	if d, ok := opened[ordinal]; ok && d.drv.Name() == drv.Name() {
		return d, nil
	}
	n, err := drv.DeviceCount()
	if err != nil {
		return nil, fmt.Errorf("gpu: counting devices: %w", err)
	}
	if ordinal < 0 || ordinal >= n {
		if n == 0 {
			return nil, fmt.Errorf("gpu: no device: the %s driver finds no GPU", drv.Name())
		}
		return nil, fmt.Errorf("gpu: no device %d: the %s driver finds %d (0..%d)", ordinal, drv.Name(), n, n-1)
	}
	info, err := drv.DeviceInfo(ordinal)
	if err != nil {
		return nil, fmt.Errorf("gpu: describing device %d: %w", ordinal, err)
	}
	ctx, err := drv.Open(ordinal)
	if err != nil {
		return nil, fmt.Errorf("gpu: opening device %d (%s): %w", ordinal, info.Name, err)
	}
	d := &Device{info: info, drv: drv, ctx: ctx}
	d.forget()
	opened[ordinal] = d
	return d, nil
}

// Default returns device 0.
func Default() (*Device, error) { return Open(0) }

// Emulator opens a Device on the PTX emulator, whatever PATHNOTES_GPU says:
// the same kernels run on the CPU, exactly and slowly, with bounds checks.
// Pass it as Options.Device to run a variant without a GPU, or to check a
// card's answer beside it.
func Emulator() (*Device, error) { return OpenEmulator(ptxemu.Options{}) }

// OpenEmulator is Emulator with opts, which set the emulator's workers,
// memory size and checks: one worker runs the blocks in order, as a test
// of a racy kernel wants.
func OpenEmulator(opts ptxemu.Options) (*Device, error) {
	drv := driver.Emulator(opts, "opened with OpenEmulator")
	info, err := drv.DeviceInfo(0)
	if err != nil {
		return nil, err
	}
	ctx, err := drv.Open(0)
	if err != nil {
		return nil, err
	}
	d := &Device{info: info, drv: drv, ctx: ctx}
	d.forget()
	return d, nil
}

// EmulatorStats returns what the kernels did on an emulated device since
// it was opened (or last reset): instructions, bytes per state space,
// atomics, barriers. The interpreter measures no GPU time, so these counts
// stand in for it. ok is false on a real GPU.
func (d *Device) EmulatorStats() (stats ptxemu.Stats, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return driver.EmulatorStats(d.ctx)
}

// Info describes the device.
func (d *Device) Info() DeviceInfo { return d.info }

// Driver returns the name of the driver the device runs on: "cuda" or
// "emu".
func (d *Device) Driver() string { return d.drv.Name() }

// MemInfo returns the device's free and total memory in bytes (after
// releasing the buffers that past runs left for reuse).
func (d *Device) MemInfo() (free, total uint64, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.lost != nil {
		return 0, 0, d.lost
	}
	d.releaseSpare()
	return d.ctx.MemInfo()
}

// spareBuf is a device allocation of bytes bytes.
type spareBuf struct {
	ptr   DevicePtr
	bytes uint64
}

// Limits of the spare buffers: each at most spareMax bytes, all together
// at most spareTotal, at most spareCount of them.
const (
	spareMax   = 256 << 20
	spareTotal = 768 << 20
	spareCount = 16
)

// takeSpare returns a spare buffer of at least bytes and at most twice
// that, removing it from the spares. d.mu is held.
func (d *Device) takeSpare(bytes uint64) (spareBuf, bool) {
	best := -1
	for i, b := range d.spare {
		if b.bytes >= bytes && b.bytes <= 2*bytes && (best < 0 || b.bytes < d.spare[best].bytes) {
			best = i
		}
	}
	if best < 0 {
		return spareBuf{}, false
	}
	b := d.spare[best]
	d.spare = append(d.spare[:best], d.spare[best+1:]...)
	d.spareBytes -= b.bytes
	return b, true
}

// keepSpare keeps b for a later run if it is small enough and the device a
// card, freeing the oldest spares to make room; otherwise it frees b.
// d.mu is held.
func (d *Device) keepSpare(b spareBuf) {
	// The emulator allocates in a moment, and spares would only grow its
	// memory (each growth copies all of it).
	if driver.Emulated(d.ctx) || b.bytes > spareMax {
		_ = d.ctx.Free(b.ptr) // nothing left to do about a failed free
		return
	}
	for len(d.spare) > 0 && (len(d.spare) >= spareCount || d.spareBytes+b.bytes > spareTotal) {
		_ = d.ctx.Free(d.spare[0].ptr)
		d.spareBytes -= d.spare[0].bytes
		d.spare = d.spare[1:]
	}
	d.spare = append(d.spare, b)
	d.spareBytes += b.bytes
}

// releaseSpare frees the spare buffers. d.mu is held.
func (d *Device) releaseSpare() {
	for _, b := range d.spare {
		_ = d.ctx.Free(b.ptr)
	}
	d.spare, d.spareBytes = nil, 0
}

// stagingValues is the size of each staging buffer, in int32 values
// (64 MiB).
const stagingValues = 16 << 20

// stagingBuffers returns the device's page-locked staging buffers,
// allocating them on first use. d.mu is held.
func (d *Device) stagingBuffers() ([2][]int32, error) {
	if d.staging[1] != nil {
		return d.staging, nil
	}
	var raw [2][]byte
	for i := range raw {
		b, err := d.ctx.HostAlloc(stagingValues * 4)
		if err != nil {
			if i == 1 {
				_ = d.ctx.HostFree(raw[0]) // nothing else to do about a failed free
			}
			return d.staging, err
		}
		raw[i] = b
	}
	for i, b := range raw {
		d.staging[i] = unsafe.Slice((*int32)(unsafe.Pointer(&b[0])), len(b)/4)
	}
	return d.staging, nil
}

// flagValues is the size of Device.flags, in int32 values (4 KiB).
const flagValues = 1024

// hostFlags returns the device's page-locked flag memory, allocating it
// on first use. d.mu is held.
func (d *Device) hostFlags() ([]int32, error) {
	if d.flags != nil {
		return d.flags, nil
	}
	b, err := d.ctx.HostAlloc(flagValues * 4)
	if err != nil {
		return nil, err
	}
	d.flags = unsafe.Slice((*int32)(unsafe.Pointer(&b[0])), len(b)/4)
	return d.flags, nil
}

// copyStream returns the device's stream for copies beside the kernels,
// creating it on first use. d.mu is held.
func (d *Device) copyStream() (driver.Stream, error) {
	if d.copies != 0 {
		return d.copies, nil
	}
	st, err := d.ctx.NewStream()
	if err != nil {
		return 0, err
	}
	d.copies = st
	return st, nil
}

// forget drops the handles of a context that is gone.
func (d *Device) forget() {
	d.staging = [2][]int32{}
	d.flags = nil
	d.copies = 0
	d.freeRead.at = time.Time{}
	d.spare, d.spareBytes, d.spareEvents = nil, 0, nil
	d.deferred = nil
	d.epoch.Add(1)
	d.modules = map[string]driver.Module{}
	d.funcs = map[string]driver.Func{}
	d.occupancy = nil
	d.waitValue = 0
}

// rebuild tries to recover from a sticky error by resetting the context,
// and says how that went, for the error message. d.mu is held.
//
// With driver 580 on an H100, an illegal memory access leaves every later
// driver call of the process failing with the same error (context
// creation included), as NVIDIA documents for CUDA_ERROR_ILLEGAL_ADDRESS;
// the device is then marked lost and every later call says to restart.
func (d *Device) rebuild(cause error) string {
	if err := d.ctx.Reset(); err != nil {
		d.lost = fmt.Errorf("gpu: device %d (%s) is unusable in this process since %v; the CUDA driver refuses any further GPU work here (resetting the context failed: %v): restart the kernel (or program) to use the GPU again",
			d.info.Ordinal, d.info.Name, cause, err)
		return "the CUDA driver refuses any further GPU work in this process: restart the kernel (or program) to use the GPU again"
	}
	d.forget()
	return "the device's context has been reset: the next run starts afresh"
}

// function returns kernel name of PTX module mod, loading the module the
// first time. d.mu is held.
func (d *Device) function(mod, name string) (driver.Func, error) {
	key := mod + "." + name
	if f, ok := d.funcs[key]; ok {
		return f, nil
	}
	m, ok := d.modules[mod]
	if !ok {
		text, err := ptx.PTX(mod)
		if err != nil {
			return 0, err
		}
		if m, err = d.ctx.LoadModule(mod, text); err != nil {
			return 0, fmt.Errorf("gpu: loading PTX module %s on %s: %w", mod, d.info.Name, err)
		}
		d.modules[mod] = m
	}
	f, err := d.ctx.Function(m, name)
	if err != nil {
		return 0, fmt.Errorf("gpu: kernel %s in PTX module %s: %w", name, mod, err)
	}
	d.funcs[key] = f
	return f, nil
}

// device resolves Options.Device: the given one, or the default device.
func device(d *Device) (*Device, error) {
	if d != nil {
		return d, nil
	}
	return Default()
}

// precheck checks g (negative tells whether negative arcs are allowed) and
// that ctx is not done; a nil ctx becomes context.Background(), so that a
// notebook cell may pass nil.
func precheck(ctx context.Context, g *graph.Graph, what string, negative bool) (context.Context, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := checkInput(g, what, negative); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: not started: %w", what, err)
	}
	return ctx, nil
}

// start is the common beginning of every variant: it checks the graph
// (negative tells whether negative arcs are allowed), resolves the device
// and begins a run on it. A nil ctx is taken as context.Background(), so
// that a notebook cell may pass nil.
func start(ctx context.Context, g *graph.Graph, what string, negative bool, opts Options) (*run, error) {
	ctx, err := precheck(ctx, g, what, negative)
	if err != nil {
		return nil, err
	}
	d, err := opts.single(what)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	r, err := d.begin(ctx, what, opts.Stats)
	if err != nil {
		return nil, err
	}
	r.progress = opts.Progress
	return r, nil
}

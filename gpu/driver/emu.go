package driver

// The emu driver: the Context interface on ptxemu, an interpreter of the
// kernels' PTX on the CPU. It needs no GPU, no CUDA and no cgo, runs every
// variant exactly (slowly), and checks what a card does not: every access
// against its allocation, barriers every thread must reach, warp
// instructions every member lane must execute.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/pathnotes/pathnotes/gpu/ptxemu"
)

// emuDriver is the emulator driver. why says why it is in use (picked by
// PATHNOTES_GPU, or the reason CUDA is not), for Version and the notice.
type emuDriver struct {
	why      string
	fallback bool // in use because CUDA is not: say so once on stderr
	opts     ptxemu.Options
}

// emuNotice prints the fallback notice once per process.
var emuNotice sync.Once

// defaultDriver is the driver of an unset PATHNOTES_GPU: cuda when it
// loads and sees a device, the emulator otherwise, remembering why.
func defaultDriver() Driver {
	drv, err := CUDA()
	var why string
	switch {
	case errors.Is(err, ErrNoCUDA):
		why = "this binary was built without CUDA; rebuild it with -tags cuda to use a GPU"
	case err != nil:
		why = "the CUDA driver is unusable: " + err.Error()
	default:
		n, err := drv.DeviceCount()
		switch {
		case err != nil:
			why = "the CUDA driver cannot count devices: " + err.Error()
		case n == 0:
			why = "the CUDA driver finds no GPU"
		default:
			return drv
		}
	}
	return emuDriver{why: why, fallback: true}
}

func (emuDriver) Name() string { return "emu" }

// Version says what the driver is and why it is in use; Describe shows it
// as "gpu driver: emu (PTX interpreter on the CPU; <why>)".
func (e emuDriver) Version() (string, error) {
	return "PTX interpreter on the CPU; " + e.why, nil
}

// EnvEmuDevices is the environment variable that sets how many devices
// the emulator driver offers (default 1), so that code written for several
// cards (Options.Devices, OpenAll) runs without them. Each is a separate
// emulator with its own memory.
const EnvEmuDevices = "PATHNOTES_EMU_DEVICES"

// DeviceCount is PATHNOTES_EMU_DEVICES, or 1.
func (emuDriver) DeviceCount() (int, error) {
	v := strings.TrimSpace(os.Getenv(EnvEmuDevices))
	if v == "" {
		return 1, nil
	}
	k, err := strconv.Atoi(v)
	if err != nil || k < 1 || k > 64 {
		return 0, fmt.Errorf("%s=%q: want a device count from 1 to 64", EnvEmuDevices, v)
	}
	return k, nil
}

// checkOrdinal says whether the emulator offers device ordinal.
func (e emuDriver) checkOrdinal(ordinal int) error {
	k, err := e.DeviceCount()
	if err != nil {
		return err
	}
	if ordinal < 0 || ordinal >= k {
		return fmt.Errorf("the emulator has %d device(s) (%s), not device %d", k, EnvEmuDevices, ordinal)
	}
	return nil
}

// DeviceInfo describes the emulated device: a GPU with the launch limits
// of current NVIDIA cards (ptxemu.Limits), one "multiprocessor" per worker
// goroutine, compute capability 5.2 (the PTX target of the kernels).
func (e emuDriver) DeviceInfo(ordinal int) (DeviceInfo, error) {
	if err := e.checkOrdinal(ordinal); err != nil {
		return DeviceInfo{}, err
	}
	// A Device resolves the defaults of the options; it holds no memory
	// until something is allocated.
	probe := ptxemu.New(e.opts)
	workers := probe.Workers()
	_, mem := probe.MemInfo()
	l := ptxemu.Limits
	return DeviceInfo{
		Name:    fmt.Sprintf("PTX emulator (%d CPU workers)", workers),
		Ordinal: ordinal, Major: 5, Minor: 2, SMs: workers, Memory: mem, WarpSize: l.WarpSize,
		MaxThreadsPerBlock: l.MaxThreadsPerBlock, MaxThreadsPerSM: l.MaxThreadsPerSM,
		SharedPerBlock: l.SharedPerBlock, SharedPerBlockOptin: l.SharedPerBlock, SharedPerSM: l.SharedPerSM,
		RegistersPerBlock: 65536, MaxBlock: l.MaxBlock, MaxGrid: l.MaxGrid,
		// The emulator has no texture units; these are the limits CUDA's
		// programming guide gives for compute capability 5.x to 9.0, so
		// that a device query prints what a card of that family would.
		MaxTexture1D: 1 << 27, MaxTexture2D: [2]int{65536, 65536}, MaxTexture3D: [3]int{16384, 16384, 16384},
	}, nil
}

// Open creates the emulated device's context; the first one in a process
// opened as a fallback prints why the emulator runs the GPU calls.
func (e emuDriver) Open(ordinal int) (Context, error) {
	if err := e.checkOrdinal(ordinal); err != nil {
		return nil, err
	}
	if e.fallback {
		emuNotice.Do(func() {
			fmt.Fprintf(os.Stderr, "pathnotes: GPU work runs on the PTX emulator (CPU, exact, slow): %s\n", e.why)
		})
	}
	return newEmuContext(e.opts), nil
}

// Emulator returns the emulator driver whatever PATHNOTES_GPU says, so
// that a variant can be checked on it beside a real GPU; why says how it
// was chosen (Version reports it). opts sets its workers, memory size and
// checks.
func Emulator(opts ptxemu.Options, why string) Driver {
	return emuDriver{why: why, opts: opts}
}

// Emulated reports whether c is a context of the emulator.
func Emulated(c Context) bool {
	_, ok := c.(*emuContext)
	return ok
}

// EmulatorStats returns what the kernels did on an emulated context since
// it was made (or last reset): instructions, bytes per state space,
// atomics, barriers. ok is false for a context of another driver.
func EmulatorStats(c Context) (stats ptxemu.Stats, ok bool) {
	e, ok := c.(*emuContext)
	if !ok {
		return ptxemu.Stats{}, false
	}
	return e.dev.Stats(), true
}

// EmulatorModules returns the modules loaded in an emulated context, in
// load order, each with its kernels' launch counts (nil for a context of
// another driver): a test checks with it that every kernel ran.
func EmulatorModules(c Context) []*ptxemu.Module {
	if e, ok := c.(*emuContext); ok {
		return e.modules
	}
	return nil
}

// emuContext is the Context of the emulated device. Work on the
// default stream runs to its end before the call returns (unless
// EmulatorLazyDefault makes it a queue); work on other streams waits in
// their queues until something needs it done (emu_stream.go). A fault is
// kept, as CUDA keeps a sticky error, and returned by every later call
// until Reset.
type emuContext struct {
	opts    ptxemu.Options
	dev     *ptxemu.Device
	modules []*ptxemu.Module
	kernels []*ptxemu.Kernel
	events  map[Event]*emuEvent
	next    Event
	streams map[Stream]*emuStream
	nextS   Stream
	sticky  error
	shuffle *rand.Rand // EmulatorShuffle's order of the streams' work; nil: each stream as late as it may
	lazy    bool       // EmulatorLazyDefault: the default stream is a queue, streams[0]

	regMu      sync.Mutex // guards registered: HostRegister may run on another goroutine
	registered map[uintptr]int
}

// newEmuContext returns a fresh context on a new emulated device.
func newEmuContext(opts ptxemu.Options) *emuContext {
	return &emuContext{opts: opts, dev: ptxemu.New(opts), events: map[Event]*emuEvent{},
		streams: map[Stream]*emuStream{}, registered: map[uintptr]int{}}
}

// CUDA result codes the emulator reports, so that callers can treat its
// errors as the cuda driver's.
const (
	cuInvalidValue   = 1
	cuOutOfMemory    = 2
	cuInvalidPTX     = 218
	cuNotFound       = 500
	cuIllegalAddress = 700
	cuMisalignedAddr = 716
	cuLaunchFailed   = 719
	cuInvalidHandle  = 400
)

var cuNames = map[int]string{
	cuInvalidValue: "CUDA_ERROR_INVALID_VALUE", cuOutOfMemory: "CUDA_ERROR_OUT_OF_MEMORY",
	cuInvalidPTX: "CUDA_ERROR_INVALID_PTX", cuNotFound: "CUDA_ERROR_NOT_FOUND",
	cuIllegalAddress: "CUDA_ERROR_ILLEGAL_ADDRESS", cuMisalignedAddr: "CUDA_ERROR_MISALIGNED_ADDRESS",
	cuLaunchFailed: "CUDA_ERROR_LAUNCH_FAILED", cuInvalidHandle: "CUDA_ERROR_INVALID_HANDLE",
}

// emuError wraps an emulator error as a *Error.
func emuError(op string, code int, err error, sticky bool) error {
	return &Error{Op: op, Code: code, Name: cuNames[code], Detail: err.Error(), Sticky: sticky}
}

// check returns the sticky error, if any.
func (c *emuContext) check() error { return c.sticky }

func (c *emuContext) MemInfo() (free, total uint64, err error) {
	if err := c.check(); err != nil {
		return 0, 0, err
	}
	free, total = c.dev.MemInfo()
	return free, total, nil
}

func (c *emuContext) Alloc(bytes uint64) (DevicePtr, error) {
	if err := c.check(); err != nil {
		return 0, err
	}
	p, err := c.dev.Alloc(bytes)
	if err != nil {
		return 0, emuError("emuMemAlloc", cuOutOfMemory, err, false)
	}
	return DevicePtr(p), nil
}

// Free waits for every stream first, as cuMemFree does in practice.
func (c *emuContext) Free(p DevicePtr) error {
	if err := c.drain(); err != nil {
		return err
	}
	if err := c.dev.Free(uint64(p)); err != nil {
		return emuError("emuMemFree", cuInvalidValue, err, false)
	}
	return nil
}

// CopyIn copies after the default stream's queued work, if any.
func (c *emuContext) CopyIn(dst DevicePtr, src []int32) error {
	if err := c.flush(0, -1); err != nil {
		return err
	}
	return c.write(dst, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(src))), 4*len(src)))
}

// CopyOut copies after the default stream's queued work, if any.
func (c *emuContext) CopyOut(dst []int32, src DevicePtr) error {
	if err := c.flush(0, -1); err != nil {
		return err
	}
	return c.read(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dst))), 4*len(dst)), src)
}

// CopyInBytes copies after the default stream's queued work, if any.
func (c *emuContext) CopyInBytes(dst DevicePtr, src []byte) error {
	if err := c.flush(0, -1); err != nil {
		return err
	}
	return c.write(dst, src)
}

// CopyOutBytes copies after the default stream's queued work, if any.
func (c *emuContext) CopyOutBytes(dst []byte, src DevicePtr) error {
	if err := c.flush(0, -1); err != nil {
		return err
	}
	return c.read(dst, src)
}

// write copies src to device memory at dst now, whatever is queued.
func (c *emuContext) write(dst DevicePtr, src []byte) error {
	if err := c.check(); err != nil {
		return err
	}
	if err := c.dev.Write(uint64(dst), src); err != nil {
		return emuError("emuMemcpyHtoD", cuInvalidValue, err, false)
	}
	return nil
}

// read copies device memory at src into dst now, whatever is queued.
func (c *emuContext) read(dst []byte, src DevicePtr) error {
	if err := c.check(); err != nil {
		return err
	}
	if err := c.dev.Read(uint64(src), dst); err != nil {
		return emuError("emuMemcpyDtoH", cuInvalidValue, err, false)
	}
	return nil
}

// Global finds a .global or .const variable; the emulator keeps .const
// variables in global memory too, as a GPU does.
func (c *emuContext) Global(m Module, name string) (DevicePtr, uint64, error) {
	if err := c.check(); err != nil {
		return 0, 0, err
	}
	if m < 1 || int(m) > len(c.modules) {
		return 0, 0, emuError("emuModuleGetGlobal", cuInvalidHandle, fmt.Errorf("no module %d", m), false)
	}
	addr, size, err := c.modules[m-1].Global(name)
	if err != nil {
		return 0, 0, emuError("emuModuleGetGlobal", cuNotFound, err, false)
	}
	return DevicePtr(addr), size, nil
}

// HostAlloc is ordinary memory: the emulator copies at memory speed.
func (c *emuContext) HostAlloc(bytes uint64) ([]byte, error) { return make([]byte, bytes), nil }

// HostFree refuses memory that a queued copy still uses.
func (c *emuContext) HostFree(b []byte) error { return c.idle(b, "emuMemFreeHost") }

// Memset32 sets the words on the default stream: at once, or, when
// EmulatorLazyDefault made it a queue, when it gets to them, the range
// checked now as a card checks it.
func (c *emuContext) Memset32(dst DevicePtr, value uint32, count uint64) error {
	const op = "emuMemsetD32"
	if err := c.check(); err != nil {
		return err
	}
	if c.lazy {
		if dst%4 != 0 {
			return emuError(op, cuInvalidValue, fmt.Errorf("memset of 32-bit words at %#x, which is not 4-byte aligned", uint64(dst)), false)
		}
		if err := c.devRange(op, dst, int(4*count)); err != nil {
			return err
		}
	}
	return c.enqueue(0, op, emuOp{run: func() error {
		if err := c.check(); err != nil {
			return err
		}
		if err := c.dev.Memset32(uint64(dst), value, count); err != nil {
			return emuError(op, cuInvalidValue, err, false)
		}
		return nil
	}})
}

// LoadModule decodes the PTX; unsupported instructions fail it like a JIT
// error, with the list in Log.
func (c *emuContext) LoadModule(name, ptx string) (Module, error) {
	if err := c.check(); err != nil {
		return 0, err
	}
	m, err := c.dev.Load(name, ptx)
	if err != nil {
		return 0, &Error{Op: "emuModuleLoadData", Code: cuInvalidPTX, Name: cuNames[cuInvalidPTX],
			Detail: "the PTX emulator cannot run this module", Log: err.Error()}
	}
	c.modules = append(c.modules, m)
	return Module(len(c.modules)), nil
}

func (c *emuContext) Function(m Module, name string) (Func, error) {
	if err := c.check(); err != nil {
		return 0, err
	}
	if m < 1 || int(m) > len(c.modules) {
		return 0, emuError("emuModuleGetFunction", cuInvalidHandle, fmt.Errorf("no module %d", m), false)
	}
	k, err := c.modules[m-1].Kernel(name)
	if err != nil {
		return 0, emuError("emuModuleGetFunction", cuNotFound, err, false)
	}
	c.kernels = append(c.kernels, k)
	return Func(len(c.kernels)), nil
}

func (c *emuContext) kernel(f Func) (*ptxemu.Kernel, error) {
	if f < 1 || int(f) > len(c.kernels) {
		return nil, emuError("emuLaunchKernel", cuInvalidHandle, fmt.Errorf("no function %d", f), false)
	}
	return c.kernels[f-1], nil
}

func (c *emuContext) MaxActiveBlocks(f Func, blockThreads, sharedBytes int) (int, error) {
	if err := c.check(); err != nil {
		return 0, err
	}
	k, err := c.kernel(f)
	if err != nil {
		return 0, err
	}
	n, err := c.dev.MaxActiveBlocks(k, blockThreads, sharedBytes)
	if err != nil {
		return 0, emuError("emuOccupancyMaxActiveBlocksPerMultiprocessor", cuInvalidValue, err, false)
	}
	return n, nil
}

// Launch runs the kernel to its end (under EmulatorLazyDefault: when the
// default stream gets to it, as LaunchOn). A launch the interpreter
// refuses is an error at once that leaves the context usable, and so is a
// launch that ctx stopped (the error wraps ctx.Err(); the blocks that ran
// have written what they wrote; under EmulatorLazyDefault the call that
// waits for the launch returns it). A fault during the run (an illegal
// address, a divergent barrier) becomes the sticky error that Synchronize
// and every later call return, as on a GPU; it names the kernel, block,
// thread and PTX line.
func (c *emuContext) Launch(ctx context.Context, f Func, grid, block Dim3, sharedBytes int, args []uint64) error {
	return c.LaunchOn(ctx, 0, f, grid, block, sharedBytes, args)
}

// launch runs kernel k now.
func (c *emuContext) launch(ctx context.Context, k *ptxemu.Kernel, grid, block Dim3, sharedBytes int, args []uint64) error {
	if err := c.check(); err != nil {
		return err
	}
	c.dev.SetPrintfOutput(printfTo(ctx))
	_, err := c.dev.Launch(ctx, k, ptxemu.Dim3(grid), ptxemu.Dim3(block), sharedBytes, args)
	var le *ptxemu.LaunchError
	var fault *ptxemu.Fault
	switch {
	case err == nil:
	case errors.As(err, &le):
		return emuError("emuLaunchKernel", cuInvalidValue, err, false)
	case errors.As(err, &fault) && fault.Kind == ptxemu.Cancelled:
		return fmt.Errorf("emuLaunchKernel: %w", err)
	case errors.As(err, &fault):
		code := cuLaunchFailed
		switch fault.Kind {
		case ptxemu.IllegalAddress:
			code = cuIllegalAddress
		case ptxemu.MisalignedAddress:
			code = cuMisalignedAddr
		}
		c.sticky = c.fault(code, k, err)
	default:
		c.sticky = c.fault(cuLaunchFailed, k, err)
	}
	return nil
}

// fault is the sticky error of kernel k's failed run.
func (c *emuContext) fault(code int, k *ptxemu.Kernel, err error) error {
	de := emuError("emuLaunchKernel", code, err, true).(*Error)
	de.Kernel = k.Name()
	return de
}

// Synchronize runs the work every stream has queued and returns the
// sticky error of a faulted launch, or the first error of that work:
// launches on the default stream have finished when Launch returns
// (unless EmulatorLazyDefault queues them: they run here, last).
func (c *emuContext) Synchronize() error { return c.drain() }

func (c *emuContext) NewEvent() (Event, error) {
	if err := c.check(); err != nil {
		return 0, err
	}
	c.next++
	c.events[c.next] = &emuEvent{}
	return c.next, nil
}

// Record notes the host time: launches before it have finished (under
// EmulatorLazyDefault: it is queued on the default stream, as RecordOn).
func (c *emuContext) Record(e Event) error { return c.RecordOn(e, 0) }

// Elapsed runs the streams' work up to both events and returns the
// interpreter's wall time between them. It is not GPU time: the PTX runs
// interpreted on the CPU, thousands of times slower than on a card, and
// its time says nothing about a GPU's.
func (c *emuContext) Elapsed(start, end Event) (time.Duration, error) {
	if err := c.SyncEvent(start); err != nil {
		return 0, err
	}
	if err := c.SyncEvent(end); err != nil {
		return 0, err
	}
	s, e := c.events[start], c.events[end]
	if s.at.IsZero() || e.at.IsZero() {
		return 0, emuError("emuEventElapsedTime", cuInvalidHandle, fmt.Errorf("events %d and %d are not both recorded", start, end), false)
	}
	return e.at.Sub(s.at), nil
}

func (c *emuContext) DestroyEvent(e Event) error {
	delete(c.events, e)
	return nil
}

// Reset discards memory, modules, events, streams and their queued work,
// and the sticky error; EmulatorShuffle and EmulatorLazyDefault stay.
func (c *emuContext) Reset() error {
	f := newEmuContext(c.opts)
	c.regMu.Lock()
	defer c.regMu.Unlock()
	c.dev, c.modules, c.kernels, c.sticky = f.dev, nil, nil, nil
	c.events, c.next, c.streams, c.nextS, c.registered = f.events, 0, f.streams, 0, f.registered
	if c.lazy {
		c.queueDefault()
	}
	return nil
}

package driver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// DevicePtr is an address in device memory.
type DevicePtr uint64

// Dim3 is the shape of a grid (in blocks) or of a block (in threads).
type Dim3 struct{ X, Y, Z int }

// Threads returns X·Y·Z.
func (d Dim3) Threads() int { return d.X * d.Y * d.Z }

// String formats the shape as "(x,y,z)".
func (d Dim3) String() string { return fmt.Sprintf("(%d,%d,%d)", d.X, d.Y, d.Z) }

// Module, Func, Event and Stream are a driver's
// opaque handles for a loaded module, a kernel in it, an event and a
// stream; they are valid only in the Context that returned them.
// Stream 0 is the default stream.
type (
	Module uintptr
	Func   uintptr
	Event  uintptr
	Stream uintptr
)

// Driver is the small interface the GPU API is built on: device discovery
// and a Context per device. The variants never see it; they call the API
// (Device and its runs), so a new driver, such as an interpreter of the PTX
// subset the kernels use, plugs in here without touching them.
type Driver interface {
	// Name is the driver's short name: "cuda", or "emu" for the PTX
	// emulator (the value of PATHNOTES_GPU that selects it).
	Name() string
	// Version describes the driver, e.g. "CUDA driver API 13.0".
	Version() (string, error)
	// DeviceCount returns how many devices the driver sees.
	DeviceCount() (int, error)
	// DeviceInfo describes device ordinal without opening it.
	DeviceInfo(ordinal int) (DeviceInfo, error)
	// Open creates (or attaches to) the device's context.
	Open(ordinal int) (Context, error)
}

// Context is the work interface of one device: memory, modules, launches,
// synchronisation and timing. Its methods are called by one goroutine at a
// time (the Device serialises them); launches are asynchronous and an
// error from a kernel may surface only at the next Synchronize.
type Context interface {
	// MemInfo returns the free and total device memory in bytes.
	MemInfo() (free, total uint64, err error)
	// Alloc allocates bytes of device memory.
	Alloc(bytes uint64) (DevicePtr, error)
	// Free releases memory from Alloc.
	Free(p DevicePtr) error
	// CopyIn copies host values to device memory at dst.
	CopyIn(dst DevicePtr, src []int32) error
	// CopyOut copies len(dst) values from device memory at src.
	CopyOut(dst []int32, src DevicePtr) error
	// HostAlloc allocates bytes of page-locked host memory, which the
	// device copies to and from at full bus speed (ordinary Go memory is
	// copied through the driver's own small staging buffers); HostFree
	// releases it. The memory belongs to the context: a Reset frees it.
	HostAlloc(bytes uint64) ([]byte, error)
	HostFree(b []byte) error
	// Memset32 sets count 32-bit words at dst to value.
	Memset32(dst DevicePtr, value uint32, count uint64) error
	// LoadModule loads PTX text; a JIT failure is a *Error whose
	// Log holds the compiler's messages.
	LoadModule(name, ptx string) (Module, error)
	// Function looks up a kernel by name in a loaded module.
	Function(m Module, name string) (Func, error)
	// MaxActiveBlocks returns how many blocks of f, with this many threads
	// and bytes of dynamic shared memory, one multiprocessor runs at once.
	MaxActiveBlocks(f Func, blockThreads, sharedBytes int) (int, error)
	// Launch enqueues a kernel. Each argument is one parameter's value in
	// the low bytes of a 64-bit slot (pointers use all 8, int32 the low 4).
	// ctx stops a kernel the driver runs itself (the emulator's, which
	// then returns an error wrapping ctx.Err() and leaves the context
	// usable); a kernel on a card cannot be stopped, and the cuda driver
	// ignores it.
	Launch(ctx context.Context, f Func, grid, block Dim3, sharedBytes int, args []uint64) error
	// Synchronize waits for all enqueued work and reports its first error.
	Synchronize() error
	// NewEvent creates a timing event; Record enqueues it; Elapsed
	// waits for end and returns the device time between the two.
	NewEvent() (Event, error)
	Record(e Event) error
	Elapsed(start, end Event) (time.Duration, error)
	DestroyEvent(e Event) error

	StreamContext

	// Reset discards the context with everything in it (memory, modules,
	// events) and starts a fresh one: the way back from a sticky error
	// such as an illegal address, after which every call would fail.
	Reset() error
}

// StreamContext is the asynchronous part of a Context: streams,
// events recorded on them, copies that return before they are done, and
// page-locked (registered) host memory. Launch, CopyIn, CopyOut, Memset32
// and Record work on the default stream, stream 0. A stream from NewStream
// runs its work in its own order, concurrently with the default stream's
// and with other streams' work: it neither waits for the default stream
// nor makes it wait (CU_STREAM_NON_BLOCKING); order work across streams
// with RecordOn and WaitEvent. Synchronize waits for every stream.
//
// An asynchronous copy's host memory must stay where it is, untouched by
// the host (for a copy in: unchanged), until the stream has done the copy
// (SyncStream, SyncEvent or Synchronize): memory from HostAlloc, or Go
// memory that the caller keeps alive and pinned (runtime.Pinner). With
// page-locked memory (HostAlloc or HostRegister) the copy runs at full bus
// speed while the host goes on; with other memory the driver may copy it
// through buffers of its own, and slower.
type StreamContext interface {
	// NewStream creates a stream; DestroyStream releases it once its
	// queued work is done.
	NewStream() (Stream, error)
	DestroyStream(s Stream) error
	// LaunchOn is Launch on stream s.
	LaunchOn(ctx context.Context, s Stream, f Func, grid, block Dim3, sharedBytes int, args []uint64) error
	// CopyInAsync queues a copy of src to device memory at dst on s;
	// CopyOutAsync one of len(dst) bytes at src into dst.
	CopyInAsync(dst DevicePtr, src []byte, s Stream) error
	CopyOutAsync(dst []byte, src DevicePtr, s Stream) error
	// CopyIn2DAsync and CopyOut2DAsync queue copies of rows rows of width
	// bytes each between host and device memory whose rows start
	// hostPitch and devPitch bytes apart (cuMemcpy2DAsync): a band of an
	// n-wide host matrix to or from a padded device matrix, say.
	CopyIn2DAsync(dst DevicePtr, devPitch int, src []byte, hostPitch, width, rows int, s Stream) error
	CopyOut2DAsync(dst []byte, hostPitch int, src DevicePtr, devPitch, width, rows int, s Stream) error
	// RecordOn records e on stream s: e completes when the work queued on
	// s before it has. Waits and timings use an event's latest record.
	RecordOn(e Event, s Stream) error
	// WaitEvent makes the work queued on s after it wait until e has
	// completed (at once when e was never recorded); the host goes on.
	WaitEvent(s Stream, e Event) error
	// SyncStream waits on the host until the work queued on s is done,
	// and SyncEvent until e has completed; they report the first error
	// of that work.
	SyncStream(s Stream) error
	SyncEvent(e Event) error
	// WaitValue makes the work queued on s after it wait until the 32-bit
	// word at addr has reached value, counting round: until
	// int32(word - value) >= 0 (cuStreamWaitValue32 with
	// CU_STREAM_WAIT_VALUE_GEQ); the host goes on. Other work must write
	// the word (a kernel or a copy on another stream), or s waits for
	// ever. It orders what follows on s after the wait, not after the
	// writes that came before the word's (a kernel that counts finished
	// rows in the word fences them first). A CUDA driver library older
	// than 11.7 lacks it and answers an error that is not sticky.
	WaitValue(s Stream, addr DevicePtr, value uint32) error
	// HostRegister page-locks host memory the process already has (Go
	// memory, say) for every device of the driver, as HostAlloc's is;
	// HostUnregister, given the same slice, releases it, after the
	// copies that use it are done. Registering memory that overlaps
	// registered memory is an error, and so is unregistering memory
	// that was not registered. HostRegister may be called from another
	// goroutine while the context's other methods run (the memory is
	// registered during the kernels that will fill it).
	HostRegister(b []byte) error
	HostUnregister(b []byte) error
}

// ByteContext is what package cells (Buffer, Module, Kernel) needs of a
// Context beyond the solvers' int32 paths: copies of any element type and
// the module variables. Both drivers implement it; a Context without it
// (a test's fake) makes package cells report that it is unsupported.
type ByteContext interface {
	// CopyInBytes copies host bytes to device memory at dst.
	CopyInBytes(dst DevicePtr, src []byte) error
	// CopyOutBytes copies len(dst) bytes from device memory at src.
	CopyOutBytes(dst []byte, src DevicePtr) error
	// Global returns the address and size in bytes of a module's
	// __device__ (.global) or __constant__ (.const) variable, as
	// cuModuleGetGlobal does.
	Global(m Module, name string) (DevicePtr, uint64, error)
}

// Peer is what a Context offers for copies between two devices
// of one driver. Both drivers have it: the cuda driver through
// cuMemcpyPeer, the emulator by reading the other emulator's memory.
type Peer interface {
	// EnablePeer lets this context reach other's memory directly, when the
	// two devices can, and reports whether they can.
	EnablePeer(other Context) (bool, error)
	// CopyPeer copies bytes from src on the device of from into dst here.
	CopyPeer(dst DevicePtr, from Context, src DevicePtr, bytes uint64) error
	// CopyPeerAsync queues on stream s here the copy of bytes from src on
	// the device of from into dst here. It is ordered with s's work only:
	// WaitPeerEvent on s orders it after the work that writes src, and the
	// work that overwrites src later must wait for an event recorded on s
	// after it.
	CopyPeerAsync(dst DevicePtr, from Context, src DevicePtr, bytes uint64, s Stream) error
	// WaitPeerEvent makes the work queued later on stream s here wait for
	// the latest record of event e of context from.
	WaitPeerEvent(s Stream, from Context, e Event) error
}

// errNotPeer is CopyPeer's answer for a context of another driver.
var errNotPeer = errors.New("the two devices belong to different drivers")

// Error is an error reported by the driver.
type Error struct {
	Op     string // the driver call, e.g. "cuLaunchKernel"
	Code   int    // the driver's result code
	Name   string // the code's name, e.g. "CUDA_ERROR_ILLEGAL_ADDRESS"
	Detail string // the driver's description of the code
	// Sticky errors (illegal addresses, failed launches, traps) leave the
	// context unusable: the Device rebuilds it before the next run.
	Sticky bool
	// Log is the JIT compiler's log, for module loads.
	Log string
	// Kernel is the PTX name of the kernel that faulted, for a sticky
	// error of a driver that knows it (the emulator); the CUDA driver
	// does not say which launch faulted, and leaves it empty.
	Kernel string
}

// Error formats the call, the code's name and description, and the JIT log.
func (e *Error) Error() string {
	msg := fmt.Sprintf("%s: %s (%d)", e.Op, e.Name, e.Code)
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	if e.Log != "" {
		msg += "\nJIT log:\n" + e.Log
	}
	return msg
}

// ErrNoCUDA is the error of asking for the cuda driver (PATHNOTES_GPU=cuda)
// in a binary built without the cuda build tag; unset, PATHNOTES_GPU then
// means the emulator.
var ErrNoCUDA = errors.New("gpu: this binary was built without CUDA; rebuild it with `-tags cuda` " +
	"(CGO_CFLAGS=\"-I$PWD/gpu/cudacompat\" go build -tags cuda) on a machine with the CUDA headers and libcuda")

// IsSticky reports whether err is a driver error that broke the context.
func IsSticky(err error) bool {
	var de *Error
	return errors.As(err, &de) && de.Sticky
}

// check2D checks the shape of a 2D copy (rows of width bytes, pitches in
// bytes) against the length of its host memory.
func check2D(hostLen, hostPitch, devPitch, width, rows int) error {
	if width < 0 || rows < 0 || hostPitch < width || devPitch < width {
		return fmt.Errorf("gpu: 2D copy of %d rows of %d bytes with pitches %d (host) and %d (device): each pitch must hold a row", rows, width, hostPitch, devPitch)
	}
	if rows > 0 && (rows-1)*hostPitch+width > hostLen {
		return fmt.Errorf("gpu: 2D copy of %d rows of %d bytes, %d apart, needs %d bytes of host memory, not %d",
			rows, width, hostPitch, (rows-1)*hostPitch+width, hostLen)
	}
	return nil
}

// printfKey is the context key of WithPrintf's writer.
type printfKey struct{}

// WithPrintf returns a copy of ctx that sends the device-side printf of the
// kernels launched with it to w, on the emulator, which writes a launch's
// output when the launch ends, in the order the threads printed. Without
// one it goes to os.Stdout. On a GPU the CUDA driver prints to the
// process's standard output when the host synchronises, as in a CUDA C
// program, whatever ctx says.
func WithPrintf(ctx context.Context, w io.Writer) context.Context {
	return context.WithValue(ctx, printfKey{}, w)
}

// printfTo returns the writer of WithPrintf in ctx, or os.Stdout.
func printfTo(ctx context.Context) io.Writer {
	if w, ok := ctx.Value(printfKey{}).(io.Writer); ok && w != nil {
		return w
	}
	return os.Stdout
}

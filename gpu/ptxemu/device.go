package ptxemu

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"time"
	"unsafe"
)

// Limits are the launch limits the interpreter enforces, those of a
// current NVIDIA GPU, so that a launch that works here works on a card.
var Limits = struct {
	WarpSize           int
	MaxThreadsPerBlock int
	MaxBlock           [3]int
	MaxGrid            [3]int
	SharedPerBlock     int // bytes of static plus dynamic shared memory per block
	MaxThreadsPerSM    int // for MaxActiveBlocks
	SharedPerSM        int
	MaxBlocksPerSM     int
}{32, 1024, [3]int{1024, 1024, 64}, [3]int{1<<31 - 1, 65535, 65535}, 48 << 10, 2048, 64 << 10, 32}

// DefaultMemory is the global memory of a Device when Options.MemoryBytes
// is 0. The arena grows as allocations need it, so this is a limit, not
// what the process uses.
const DefaultMemory = 4 << 30

// Options configures a Device.
type Options struct {
	// Workers is how many goroutines run blocks at once; 0 means
	// runtime.GOMAXPROCS(0). It also plays the part of the multiprocessor
	// count (%nsmid, MaxActiveBlocks' callers).
	Workers int
	// MemoryBytes is the size of global memory; 0 means DefaultMemory.
	MemoryBytes uint64
	// CheckUninitialized makes a read of global memory that no copy,
	// memset or store has written a fault (off by default: it costs a
	// bitmap lookup per access). Bytes written by the host count as
	// written, so buffers filled before a launch pass.
	CheckUninitialized bool
}

// Device is an emulated GPU: global memory, loaded modules and launches.
// Its methods may be called from several goroutines; launches run one at
// a time, each on Options.Workers goroutines.
type Device struct {
	mu     sync.Mutex
	opts   Options
	mem    *memory
	stats  Stats
	printf io.Writer // where device-side printf goes (SetPrintfOutput)
	// profiler receives each launch's Profile while profiling is on
	// (SetProfiler).
	profiler func(*Profile)
}

// New returns a Device with empty memory.
func New(opts Options) *Device {
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.MemoryBytes == 0 {
		opts.MemoryBytes = DefaultMemory
	}
	return &Device{opts: opts, mem: newMemory(opts.MemoryBytes, opts.CheckUninitialized), printf: os.Stdout}
}

// Workers returns the number of goroutines a launch runs blocks on.
func (d *Device) Workers() int { return d.opts.Workers }

// MemInfo returns the free and total global memory in bytes.
func (d *Device) MemInfo() (free, total uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.mem.limit - d.mem.used, d.mem.limit
}

// Alloc reserves bytes of global memory, aligned to 256 bytes, and returns
// its device address. Any access past bytes is an illegal address, even
// within the alignment padding.
func (d *Device) Alloc(bytes uint64) (uint64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.mem.alloc(bytes, "")
}

// Free releases the allocation at addr.
func (d *Device) Free(addr uint64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.mem.free(addr)
}

// Write copies src to global memory at addr; the range must lie inside
// one allocation.
func (d *Device) Write(addr uint64, src []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.mem.write(addr, src)
}

// Read copies global memory at addr into dst; the range must lie inside
// one allocation.
func (d *Device) Read(addr uint64, dst []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.mem.read(addr, dst)
}

// CheckRange reports an error unless [addr, addr+bytes) lies inside one
// allocation, as a copy of those bytes needs.
func (d *Device) CheckRange(addr, bytes uint64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, err := d.mem.span(addr, bytes, "copy")
	return err
}

// WriteInt32 copies int32 values to global memory at addr (little endian,
// as on a GPU).
func (d *Device) WriteInt32(addr uint64, src []int32) error {
	return d.Write(addr, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(src))), 4*len(src)))
}

// ReadInt32 copies len(dst) int32 values from global memory at addr.
func (d *Device) ReadInt32(addr uint64, dst []int32) error {
	return d.Read(addr, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dst))), 4*len(dst)))
}

// Memset32 sets count 32-bit words at addr to v.
func (d *Device) Memset32(addr uint64, v uint32, count uint64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.mem.memset32(addr, v, count)
}

// Stats returns the totals of every launch since New.
func (d *Device) Stats() Stats {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stats
}

// MaxActiveBlocks returns how many blocks of k with this many threads and
// bytes of dynamic shared memory one emulated multiprocessor holds, by the
// thread, shared-memory and block limits of Limits (registers are not
// modelled).
func (d *Device) MaxActiveBlocks(k *Kernel, threads, sharedBytes int) (int, error) {
	if threads < 1 || threads > Limits.MaxThreadsPerBlock {
		return 0, fmt.Errorf("kernel %s: %d threads per block, want 1..%d", k.name, threads, Limits.MaxThreadsPerBlock)
	}
	warps := (threads + 31) / 32
	n := min(Limits.MaxThreadsPerSM/(32*warps), Limits.MaxBlocksPerSM)
	if sh := k.dynOffset + sharedBytes; sh > 0 {
		n = min(n, Limits.SharedPerSM/sh)
	}
	return n, nil
}

// LaunchError is a launch the interpreter refuses before running it, as
// the CUDA driver would (a shape beyond the limits, wrong arguments).
type LaunchError struct {
	Kernel string
	Msg    string
}

// Error says which kernel and why.
func (e *LaunchError) Error() string { return "launching " + e.Kernel + ": " + e.Msg }

// Launch runs kernel k on a grid of blocks and waits for it: each block
// has block threads and sharedBytes of dynamic shared memory; args are the
// kernel's parameters, each in the low bytes of a 64-bit slot. It returns
// the launch's statistics, and a *Fault when a thread did something
// illegal (the launch then stops: blocks not yet started never run), a
// *LaunchError for a launch that cannot start, or the context's error
// wrapped in a Fault of kind Cancelled. Wall in the statistics is the
// host's time: the interpreter knows nothing of a GPU's timing.
func (d *Device) Launch(ctx context.Context, k *Kernel, grid, block Dim3, sharedBytes int, args []uint64) (Stats, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if k == nil || k.dev != d {
		return Stats{}, &LaunchError{Kernel: "?", Msg: "the kernel belongs to another Device (or is nil)"}
	}
	params, err := k.checkLaunch(grid, block, sharedBytes, args)
	if err != nil {
		return Stats{}, err
	}
	if err := k.mod.loadConst(); err != nil {
		return Stats{}, &LaunchError{Kernel: k.name, Msg: "reading the constant bank: " + err.Error()}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return Stats{}, &Fault{Kind: Cancelled, Kernel: k.name, Detail: fmt.Sprintf("0 of %d blocks finished: %v", grid.Count(), err), Err: err}
	}
	start := time.Now()
	k.launches.Add(1)
	l := &launch{dev: d, k: k, grid: grid, block: block, params: params,
		sharedBytes: k.dynOffset + sharedBytes, nblocks: grid.Count()}
	if d.profiler != nil {
		l.code = k.profiledCode()
	}
	stop := context.AfterFunc(ctx, func() { l.stop.Store(true) })
	st := l.run()
	stop()
	l.printf.flush(d.printf)
	st.Launches = 1
	st.Wall = time.Since(start)
	d.stats.add(&st)
	if l.counts != nil {
		d.profiler(l.profile(&st))
	}
	if f := l.fault.Load(); f != nil {
		return st, f
	}
	if err := ctx.Err(); err != nil && l.stop.Load() && int(l.done.Load()) < l.nblocks {
		return st, &Fault{Kind: Cancelled, Kernel: k.name, Detail: fmt.Sprintf("%d of %d blocks finished: %v", l.done.Load(), l.nblocks, err), Err: err}
	}
	return st, nil
}

// checkLaunch validates a launch and lays out its parameters.
func (k *Kernel) checkLaunch(grid, block Dim3, sharedBytes int, args []uint64) ([]byte, error) {
	fail := func(format string, a ...any) ([]byte, error) {
		return nil, &LaunchError{Kernel: k.name, Msg: fmt.Sprintf(format, a...)}
	}
	for i, v := range [3]int{grid.X, grid.Y, grid.Z} {
		if v < 1 || v > Limits.MaxGrid[i] {
			return fail("grid %v is outside 1..%v", grid, Limits.MaxGrid)
		}
	}
	for i, v := range [3]int{block.X, block.Y, block.Z} {
		if v < 1 || v > Limits.MaxBlock[i] {
			return fail("block %v is outside 1..%v", block, Limits.MaxBlock)
		}
	}
	if t := block.Count(); t > Limits.MaxThreadsPerBlock {
		return fail("block %v has %d threads, at most %d are allowed", block, t, Limits.MaxThreadsPerBlock)
	}
	if k.maxntid != nil && block.Count() > product(k.maxntid) {
		return fail("block %v exceeds the kernel's .maxntid %v", block, k.maxntid)
	}
	if k.reqntid != nil {
		want := append(append([]int{}, k.reqntid...), 1, 1)
		if block.X != want[0] || block.Y != want[1] || block.Z != want[2] {
			return fail("block %v differs from the kernel's .reqntid %v", block, k.reqntid)
		}
	}
	if sharedBytes < 0 || k.dynOffset+sharedBytes > Limits.SharedPerBlock {
		return fail("%d bytes of static and %d of dynamic shared memory exceed the %d a block may have",
			k.dynOffset, sharedBytes, Limits.SharedPerBlock)
	}
	if len(args) != len(k.params) {
		return fail("%d arguments for %d parameters", len(args), len(k.params))
	}
	buf := make([]byte, k.paramBytes)
	for i, p := range k.params {
		if p.Size > 8 {
			return fail("parameter %s is a %d-byte aggregate; only scalar and pointer parameters can be passed", p.Name, p.Size)
		}
		v := args[i]
		for b := 0; b < p.Size; b++ {
			buf[p.Offset+b] = byte(v >> (8 * b))
		}
	}
	return buf, nil
}

func product(v []int) int {
	p := 1
	for _, x := range v {
		p *= x
	}
	return p
}

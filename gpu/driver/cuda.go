//go:build cuda

package driver

// The cuda driver: the Context interface on the CUDA driver API through
// gorgonia.org/cu. This file also includes cuda.h itself, for the error
// names and descriptions (cuGetErrorName, cuGetErrorString) and the
// version of the headers it was built against.

/*
#cgo LDFLAGS: -lcuda
#cgo linux LDFLAGS: -L/usr/local/cuda/lib64 -L/usr/local/cuda/lib64/stubs -ldl
#cgo linux CFLAGS: -I/usr/local/cuda/include
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <cuda.h>

static const char *pathnotes_error_name(int code) {
	const char *s = 0;
	if (cuGetErrorName((CUresult)code, &s) != CUDA_SUCCESS) return 0;
	return s;
}

static int pathnotes_alloc_host(void **p, size_t n) {
	return (int)cuMemAllocHost(p, n);
}

static int pathnotes_host_register(void *p, size_t n) {
	return (int)cuMemHostRegister(p, n, CU_MEMHOSTREGISTER_PORTABLE);
}

// pathnotes_wait_value is cuStreamWaitValue32_v2 (CUDA 11.7 on, always
// enabled), looked up when first called so that the binary still loads
// with an older driver library, where it answers CUDA_ERROR_NOT_SUPPORTED.
static int pathnotes_wait_value(void *s, CUdeviceptr addr, unsigned value) {
	typedef CUresult (*waitfn)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
	static waitfn fn;
	static int looked;
	if (!looked) {
		fn = (waitfn)dlsym(RTLD_DEFAULT, "cuStreamWaitValue32_v2");
		looked = 1;
	}
	if (!fn) return (int)CUDA_ERROR_NOT_SUPPORTED;
	return (int)fn((CUstream)s, addr, value, CU_STREAM_WAIT_VALUE_GEQ);
}

static int pathnotes_host_unregister(void *p) {
	return (int)cuMemHostUnregister(p);
}

// pathnotes_copy2d copies rows rows of width bytes between host memory
// (rows hpitch bytes apart) and device memory (dpitch apart) on stream s:
// to the device when in is set.
static int pathnotes_copy2d(int in, void *host, size_t hpitch, CUdeviceptr dev, size_t dpitch,
                            size_t width, size_t rows, void *s) {
	CUDA_MEMCPY2D c = {0};
	c.WidthInBytes = width;
	c.Height = rows;
	if (in) {
		c.srcMemoryType = CU_MEMORYTYPE_HOST;
		c.srcHost = host;
		c.srcPitch = hpitch;
		c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
		c.dstDevice = dev;
		c.dstPitch = dpitch;
	} else {
		c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
		c.srcDevice = dev;
		c.srcPitch = dpitch;
		c.dstMemoryType = CU_MEMORYTYPE_HOST;
		c.dstHost = host;
		c.dstPitch = hpitch;
	}
	return (int)cuMemcpy2DAsync(&c, (CUstream)s);
}

// pathnotes_opt_in lets f take shared bytes of dynamic shared memory: past
// 48 KiB a kernel must opt in, for its launches and for the occupancy its
// blocks would have.
static int pathnotes_opt_in(void *f, unsigned shared) {
	if (shared <= 48 * 1024) return 0;
	return (int)cuFuncSetAttribute((CUfunction)f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)shared);
}

// pathnotes_launch launches f with the n kernel arguments in args (each in
// the low bytes of its 64-bit slot), building the parameter array in C.
static int pathnotes_launch(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                            unsigned shared, void *s, unsigned long long *args, int n) {
	void *params[64];
	if (n > 64) return (int)CUDA_ERROR_INVALID_VALUE;
	int r = pathnotes_opt_in(f, shared);
	if (r != 0) return r;
	for (int i = 0; i < n; i++) params[i] = &args[i];
	return (int)cuLaunchKernel((CUfunction)f, gx, gy, gz, bx, by, bz, shared, (CUstream)s, params, 0);
}

static const char *pathnotes_error_string(int code) {
	const char *s = 0;
	if (cuGetErrorString((CUresult)code, &s) != CUDA_SUCCESS) return 0;
	return s;
}
*/
import "C"

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"
	"unsafe"

	"gorgonia.org/cu"
)

// driverRelease matches the NVIDIA driver's release number, e.g. 580.159.04.
var driverRelease = regexp.MustCompile(`\b\d{3}\.\d+(\.\d+)?\b`)

// CUDA returns the CUDA driver.
func CUDA() (Driver, error) { return cudaDrv{}, nil }

type cudaDrv struct{}

func (cudaDrv) Name() string { return "cuda" }

// Version names the driver API version, the NVIDIA kernel module (from
// /proc on Linux) and the CUDA headers this binary was built against.
func (cudaDrv) Version() (string, error) {
	v := cu.Version()
	if v < 0 {
		return "", fmt.Errorf("cuDriverGetVersion failed")
	}
	s := fmt.Sprintf("CUDA driver API %d.%d, built with CUDA %d.%d headers, gorgonia.org/cu",
		v/1000, v%1000/10, C.CUDA_VERSION/1000, C.CUDA_VERSION%1000/10)
	if b, err := os.ReadFile("/proc/driver/nvidia/version"); err == nil {
		// "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ..."
		if v := driverRelease.FindString(strings.SplitN(string(b), "\n", 2)[0]); v != "" {
			s += ", NVIDIA driver " + v
		}
	}
	return s, nil
}

func (cudaDrv) DeviceCount() (int, error) {
	n, err := cu.NumDevices()
	return n, wrap("cuDeviceGetCount", err)
}

// attrOptinShared is CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
// which gorgonia.org/cu v0.9.6 does not name.
const attrOptinShared cu.DeviceAttribute = C.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN

// Texture limits, which gorgonia.org/cu v0.9.6 does not name either.
const (
	attrTex1D  cu.DeviceAttribute = C.CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH
	attrTex2DW cu.DeviceAttribute = C.CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH
	attrTex2DH cu.DeviceAttribute = C.CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT
	attrTex3DW cu.DeviceAttribute = C.CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH
	attrTex3DH cu.DeviceAttribute = C.CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT
	attrTex3DD cu.DeviceAttribute = C.CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH
)

func (cudaDrv) DeviceInfo(ordinal int) (DeviceInfo, error) {
	dev, err := cu.GetDevice(ordinal)
	if err != nil {
		return DeviceInfo{}, wrap("cuDeviceGet", err)
	}
	info := DeviceInfo{Ordinal: ordinal}
	if info.Name, err = dev.Name(); err != nil {
		return info, wrap("cuDeviceGetName", err)
	}
	mem, err := dev.TotalMem()
	if err != nil {
		return info, wrap("cuDeviceTotalMem", err)
	}
	info.Memory = uint64(mem)
	var clockKHz, memClockKHz int
	attrs := []struct {
		a   cu.DeviceAttribute
		dst *int
	}{
		{cu.ComputeCapabilityMajor, &info.Major}, {cu.ComputeCapabilityMinor, &info.Minor},
		{cu.MultiprocessorCount, &info.SMs}, {cu.ClockRate, &clockKHz}, {cu.MemoryClockRate, &memClockKHz},
		{cu.GlobalMemoryBusWidth, &info.MemoryBusBits}, {cu.L2CacheSize, &info.L2Bytes}, {cu.WarpSize, &info.WarpSize},
		{cu.MaxThreadsPerBlock, &info.MaxThreadsPerBlock}, {cu.MaxThreadsPerMultiprocessor, &info.MaxThreadsPerSM},
		{cu.MaxSharedMemoryPerBlock, &info.SharedPerBlock}, {attrOptinShared, &info.SharedPerBlockOptin},
		{cu.MaxSharedMemoryPerMultiprocessor, &info.SharedPerSM}, {cu.MaxRegistersPerBlock, &info.RegistersPerBlock},
		{cu.MaxBlockDimX, &info.MaxBlock[0]}, {cu.MaxBlockDimY, &info.MaxBlock[1]}, {cu.MaxBlockDimZ, &info.MaxBlock[2]},
		{cu.MaxGridDimX, &info.MaxGrid[0]}, {cu.MaxGridDimY, &info.MaxGrid[1]}, {cu.MaxGridDimZ, &info.MaxGrid[2]},
		{attrTex1D, &info.MaxTexture1D}, {attrTex2DW, &info.MaxTexture2D[0]}, {attrTex2DH, &info.MaxTexture2D[1]},
		{attrTex3DW, &info.MaxTexture3D[0]}, {attrTex3DH, &info.MaxTexture3D[1]}, {attrTex3DD, &info.MaxTexture3D[2]},
	}
	for _, a := range attrs {
		if *a.dst, err = dev.Attribute(a.a); err != nil {
			return info, wrap("cuDeviceGetAttribute", err)
		}
	}
	info.ClockMHz, info.MemoryClockMHz = clockKHz/1000, memClockKHz/1000
	return info, nil
}

// Open retains the device's primary context, the one the CUDA runtime and
// other libraries in the process share.
func (cudaDrv) Open(ordinal int) (Context, error) {
	dev, err := cu.GetDevice(ordinal)
	if err != nil {
		return nil, wrap("cuDeviceGet", err)
	}
	c := &cudaCtx{dev: dev}
	if c.ctx, err = dev.RetainPrimaryCtx(); err != nil {
		return nil, wrap("cuDevicePrimaryCtxRetain", err)
	}
	return c, nil
}

// cudaCtx is one device's primary context. The driver API keeps the
// current context per OS thread, so every call pins its goroutine to its
// thread and makes the context current first (do). Handles index tables
// of the cu values, which cannot be converted to integers themselves.
type cudaCtx struct {
	dev cu.Device
	ctx cu.CUContext

	mu      sync.Mutex // guards the tables
	modules []cu.Module
	funcs   []cu.Function
	events  handles[cu.Event]
	streams handles[cu.Stream] // 0 is the default stream
}

// do runs f with the context current on a locked OS thread.
func (c *cudaCtx) do(op string, f func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cu.SetCurrentContext(c.ctx); err != nil {
		return wrap("cuCtxSetCurrent", err)
	}
	return wrap(op, f())
}

func (c *cudaCtx) MemInfo() (free, total uint64, err error) {
	err = c.do("cuMemGetInfo", func() error {
		f, t, err := cu.MemInfo()
		free, total = uint64(f), uint64(t)
		return err
	})
	return free, total, err
}

func (c *cudaCtx) Alloc(bytes uint64) (DevicePtr, error) {
	var p cu.DevicePtr
	err := c.do("cuMemAlloc", func() (err error) {
		p, err = cu.MemAlloc(int64(bytes))
		return err
	})
	return DevicePtr(p), err
}

func (c *cudaCtx) Free(p DevicePtr) error {
	return c.do("cuMemFree", func() error { return cu.MemFree(cu.DevicePtr(p)) })
}

func (c *cudaCtx) CopyIn(dst DevicePtr, src []int32) error {
	if len(src) == 0 {
		return nil
	}
	return c.do("cuMemcpyHtoD", func() error {
		return cu.MemcpyHtoD(cu.DevicePtr(dst), unsafe.Pointer(&src[0]), int64(len(src))*4)
	})
}

func (c *cudaCtx) CopyOut(dst []int32, src DevicePtr) error {
	if len(dst) == 0 {
		return nil
	}
	return c.do("cuMemcpyDtoH", func() error {
		return cu.MemcpyDtoH(unsafe.Pointer(&dst[0]), cu.DevicePtr(src), int64(len(dst))*4)
	})
}

// cuCode is a CUresult from a direct cgo call, an error wrap understands.
type cuCode int

func (e cuCode) Error() string { return fmt.Sprintf("CUresult %d", int(e)) }

func (c *cudaCtx) HostAlloc(bytes uint64) ([]byte, error) {
	if bytes == 0 {
		return nil, nil
	}
	var p unsafe.Pointer
	err := c.do("cuMemAllocHost", func() error {
		if r := C.pathnotes_alloc_host(&p, C.size_t(bytes)); r != 0 {
			return cuCode(r)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return unsafe.Slice((*byte)(p), bytes), nil
}

func (c *cudaCtx) HostFree(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return c.do("cuMemFreeHost", func() error { return cu.MemFreeHost(unsafe.Pointer(&b[0])) })
}

func (c *cudaCtx) CopyInBytes(dst DevicePtr, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	return c.do("cuMemcpyHtoD", func() error {
		return cu.MemcpyHtoD(cu.DevicePtr(dst), unsafe.Pointer(&src[0]), int64(len(src)))
	})
}

func (c *cudaCtx) CopyOutBytes(dst []byte, src DevicePtr) error {
	if len(dst) == 0 {
		return nil
	}
	return c.do("cuMemcpyDtoH", func() error {
		return cu.MemcpyDtoH(unsafe.Pointer(&dst[0]), cu.DevicePtr(src), int64(len(dst)))
	})
}

// Global looks a module variable up with cuModuleGetGlobal.
func (c *cudaCtx) Global(m Module, name string) (DevicePtr, uint64, error) {
	c.mu.Lock()
	if m < 1 || int(m) > len(c.modules) {
		c.mu.Unlock()
		return 0, 0, fmt.Errorf("gpu: invalid module handle %d", m)
	}
	mod := c.modules[m-1]
	c.mu.Unlock()
	var p cu.DevicePtr
	var size int64
	err := c.do("cuModuleGetGlobal("+name+")", func() (err error) {
		p, size, err = mod.Global(name)
		return err
	})
	return DevicePtr(p), uint64(size), err
}

func (c *cudaCtx) Memset32(dst DevicePtr, value uint32, count uint64) error {
	return c.do("cuMemsetD32", func() error { return cu.MemsetD32(cu.DevicePtr(dst), value, int64(count)) })
}

// jitLogSize is the size of each JIT log buffer.
const jitLogSize = 1 << 14

// LoadModule JIT-compiles PTX for the device, keeping the compiler's error
// and info logs for the error. The log buffers are C memory because the
// driver writes to them through pointers gorgonia.org/cu passes as
// integers.
func (c *cudaCtx) LoadModule(name, text string) (Module, error) {
	errBuf := (*byte)(C.calloc(jitLogSize, 1))
	infoBuf := (*byte)(C.calloc(jitLogSize, 1))
	defer C.free(unsafe.Pointer(errBuf))
	defer C.free(unsafe.Pointer(infoBuf))
	var m cu.Module
	err := c.do("cuModuleLoadDataEx("+name+")", func() (err error) {
		m, err = cu.LoadDataEx(text,
			&cu.JITErrorLogBuffer{Buffer: unsafe.Slice(errBuf, jitLogSize)},
			&cu.JITInfoLogBuffer{Buffer: unsafe.Slice(infoBuf, jitLogSize)})
		return err
	})
	if err != nil {
		if de, ok := err.(*Error); ok {
			de.Log = strings.TrimSpace(C.GoString((*C.char)(unsafe.Pointer(errBuf))) + "\n" + C.GoString((*C.char)(unsafe.Pointer(infoBuf))))
		}
		return 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.modules = append(c.modules, m)
	return Module(len(c.modules)), nil
}

func (c *cudaCtx) Function(m Module, name string) (Func, error) {
	c.mu.Lock()
	if m < 1 || int(m) > len(c.modules) {
		c.mu.Unlock()
		return 0, fmt.Errorf("gpu: invalid module handle %d", m)
	}
	mod := c.modules[m-1]
	c.mu.Unlock()
	var f cu.Function
	err := c.do("cuModuleGetFunction("+name+")", func() (err error) {
		f, err = mod.Function(name)
		return err
	})
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.funcs = append(c.funcs, f)
	return Func(len(c.funcs)), nil
}

func (c *cudaCtx) function(f Func) (cu.Function, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f < 1 || int(f) > len(c.funcs) {
		return cu.Function{}, fmt.Errorf("gpu: invalid function handle %d", f)
	}
	return c.funcs[f-1], nil
}

func (c *cudaCtx) MaxActiveBlocks(f Func, threads, shared int) (int, error) {
	fn, err := c.function(f)
	if err != nil {
		return 0, err
	}
	cf := *(*unsafe.Pointer)(unsafe.Pointer(&fn)) // cu.Function is a struct of one CUfunction
	var k int
	err = c.do("cuOccupancyMaxActiveBlocksPerMultiprocessor", func() (err error) {
		if r := C.pathnotes_opt_in(cf, C.uint(shared)); r != 0 {
			return cuCode(r)
		}
		k, err = fn.MaxActiveBlocksPerMultiProcessor(threads, int64(shared))
		return err
	})
	return k, err
}

// Launch enqueues the kernel on the default stream and returns; ctx is not
// used: a kernel running on the card cannot be stopped.
func (c *cudaCtx) Launch(ctx context.Context, f Func, grid, block Dim3, shared int, args []uint64) error {
	return c.LaunchOn(ctx, 0, f, grid, block, shared, args)
}

// LaunchOn enqueues the kernel on stream s. The kernel's parameter array
// is built in C (pathnotes_launch): gorgonia.org/cu's Launch stores
// pointers into fresh C memory through Go pointer writes, whose write
// barrier reads the memory's old, uninitialised contents, and the
// garbage collector stops the process when those happen to look like a
// pointer into a freed part of its heap ("found bad pointer in Go heap").
func (c *cudaCtx) LaunchOn(_ context.Context, s Stream, f Func, grid, block Dim3, shared int, args []uint64) error {
	fn, err := c.function(f)
	if err != nil {
		return err
	}
	st, err := c.stream(s)
	if err != nil {
		return err
	}
	cf := *(*unsafe.Pointer)(unsafe.Pointer(&fn)) // cu.Function is a struct of one CUfunction
	var argp *C.ulonglong
	if len(args) > 0 {
		argp = (*C.ulonglong)(unsafe.Pointer(&args[0]))
	}
	return c.do("cuLaunchKernel", func() error {
		if r := C.pathnotes_launch(cf, C.uint(grid.X), C.uint(grid.Y), C.uint(grid.Z), C.uint(block.X), C.uint(block.Y), C.uint(block.Z),
			C.uint(shared), cuStream(st), argp, C.int(len(args))); r != 0 {
			return cuCode(r)
		}
		return nil
	})
}

func (c *cudaCtx) Synchronize() error {
	return c.do("cuCtxSynchronize", cu.Synchronize)
}

func (c *cudaCtx) NewEvent() (Event, error) {
	var e cu.Event
	err := c.do("cuEventCreate", func() (err error) {
		e, err = cu.MakeEvent(cu.DefaultEvent)
		return err
	})
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return Event(c.events.add(e)), nil
}

func (c *cudaCtx) event(e Event) (cu.Event, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ev, ok := c.events.get(int(e))
	if !ok {
		return cu.Event{}, fmt.Errorf("gpu: invalid event handle %d", e)
	}
	return ev, nil
}

func (c *cudaCtx) Record(e Event) error { return c.RecordOn(e, 0) }

func (c *cudaCtx) Elapsed(start, end Event) (time.Duration, error) {
	s, err := c.event(start)
	if err != nil {
		return 0, err
	}
	e, err := c.event(end)
	if err != nil {
		return 0, err
	}
	var ms float64
	err = c.do("cuEventSynchronize", e.Synchronize)
	if err == nil {
		err = c.do("cuEventElapsedTime", func() (err error) {
			ms, err = s.Elapsed(e)
			return err
		})
	}
	return time.Duration(ms * float64(time.Millisecond)), err
}

// DestroyEvent destroys the event and frees its handle for reuse.
func (c *cudaCtx) DestroyEvent(e Event) error {
	ev, err := c.event(e)
	if err != nil {
		return err
	}
	err = c.do("cuEventDestroy", func() error { return cu.DestroyEvent(&ev) })
	c.mu.Lock()
	defer c.mu.Unlock()
	c.events.free(int(e))
	return err
}

// Reset resets the primary context, destroying every allocation, module
// and event in it and clearing a sticky error, then retains it afresh and
// checks that it answers. The reset also drops the references held on it
// (releasing this context's reference afterwards fails with
// CUDA_ERROR_INVALID_CONTEXT, as seen with driver 580), hence no release.
func (c *cudaCtx) Reset() error {
	c.mu.Lock()
	c.modules, c.funcs, c.events, c.streams = nil, nil, handles[cu.Event]{}, handles[cu.Stream]{}
	c.mu.Unlock()
	if err := c.dev.ResetPrimaryCtx(); err != nil {
		return wrap("cuDevicePrimaryCtxReset", err)
	}
	ctx, err := c.dev.RetainPrimaryCtx()
	if err != nil {
		return wrap("cuDevicePrimaryCtxRetain", err)
	}
	c.ctx = ctx
	_, _, err = c.MemInfo()
	return err
}

// NewStream creates a stream that does not synchronise with the default
// stream (CU_STREAM_NON_BLOCKING).
func (c *cudaCtx) NewStream() (Stream, error) {
	var st cu.Stream
	err := c.do("cuStreamCreate", func() (err error) {
		st, err = cu.MakeStream(cu.NonBlocking)
		return err
	})
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stream(c.streams.add(st)), nil
}

// stream returns stream s (cu.NoStream for 0).
func (c *cudaCtx) stream(s Stream) (cu.Stream, error) {
	if s == 0 {
		return cu.NoStream, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.streams.get(int(s))
	if !ok || st == (cu.Stream{}) {
		return cu.Stream{}, fmt.Errorf("gpu: invalid stream handle %d", s)
	}
	return st, nil
}

// DestroyStream destroys the stream (its queued work still runs) and frees
// its handle for reuse.
func (c *cudaCtx) DestroyStream(s Stream) error {
	if s == 0 {
		return fmt.Errorf("gpu: the default stream cannot be destroyed")
	}
	st, err := c.stream(s)
	if err != nil {
		return err
	}
	err = c.do("cuStreamDestroy", st.Destroy)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.streams.free(int(s))
	return err
}

// cuStream is a stream as the C helpers take it.
func cuStream(st cu.Stream) unsafe.Pointer { return unsafe.Pointer(st.C()) }

func (c *cudaCtx) CopyInAsync(dst DevicePtr, src []byte, s Stream) error {
	st, err := c.stream(s)
	if err != nil || len(src) == 0 {
		return err
	}
	return c.do("cuMemcpyHtoDAsync", func() error {
		return cu.MemcpyHtoDAsync(cu.DevicePtr(dst), unsafe.Pointer(&src[0]), int64(len(src)), st)
	})
}

func (c *cudaCtx) CopyOutAsync(dst []byte, src DevicePtr, s Stream) error {
	st, err := c.stream(s)
	if err != nil || len(dst) == 0 {
		return err
	}
	return c.do("cuMemcpyDtoHAsync", func() error {
		return cu.MemcpyDtoHAsync(unsafe.Pointer(&dst[0]), cu.DevicePtr(src), int64(len(dst)), st)
	})
}

func (c *cudaCtx) CopyIn2DAsync(dst DevicePtr, devPitch int, src []byte, hostPitch, width, rows int, s Stream) error {
	return c.copy2D(true, src, hostPitch, dst, devPitch, width, rows, s)
}

func (c *cudaCtx) CopyOut2DAsync(dst []byte, hostPitch int, src DevicePtr, devPitch, width, rows int, s Stream) error {
	return c.copy2D(false, dst, hostPitch, src, devPitch, width, rows, s)
}

// copy2D queues a cuMemcpy2DAsync between host and dev.
func (c *cudaCtx) copy2D(in bool, host []byte, hostPitch int, dev DevicePtr, devPitch, width, rows int, s Stream) error {
	if err := check2D(len(host), hostPitch, devPitch, width, rows); err != nil || rows == 0 || width == 0 {
		return err
	}
	st, err := c.stream(s)
	if err != nil {
		return err
	}
	dir := C.int(0)
	if in {
		dir = 1
	}
	return c.do("cuMemcpy2DAsync", func() error {
		if r := C.pathnotes_copy2d(dir, unsafe.Pointer(&host[0]), C.size_t(hostPitch), C.CUdeviceptr(dev), C.size_t(devPitch),
			C.size_t(width), C.size_t(rows), cuStream(st)); r != 0 {
			return cuCode(r)
		}
		return nil
	})
}

func (c *cudaCtx) RecordOn(e Event, s Stream) error {
	ev, err := c.event(e)
	if err != nil {
		return err
	}
	st, err := c.stream(s)
	if err != nil {
		return err
	}
	return c.do("cuEventRecord", func() error { return ev.Record(st) })
}

func (c *cudaCtx) WaitEvent(s Stream, e Event) error { return c.waitOn(s, c, e) }

// waitOn makes stream s of c wait for event e of owner (c or another
// context: cuStreamWaitEvent takes either).
func (c *cudaCtx) waitOn(s Stream, owner *cudaCtx, e Event) error {
	ev, err := owner.event(e)
	if err != nil {
		return err
	}
	st, err := c.stream(s)
	if err != nil {
		return err
	}
	return c.do("cuStreamWaitEvent", func() error { return st.Wait(ev, 0) })
}

func (c *cudaCtx) SyncStream(s Stream) error {
	st, err := c.stream(s)
	if err != nil {
		return err
	}
	return c.do("cuStreamSynchronize", st.Synchronize)
}

func (c *cudaCtx) SyncEvent(e Event) error {
	ev, err := c.event(e)
	if err != nil {
		return err
	}
	return c.do("cuEventSynchronize", ev.Synchronize)
}

func (c *cudaCtx) WaitValue(s Stream, addr DevicePtr, value uint32) error {
	st, err := c.stream(s)
	if err != nil {
		return err
	}
	return c.do("cuStreamWaitValue32", func() error {
		if r := C.pathnotes_wait_value(cuStream(st), C.CUdeviceptr(addr), C.unsigned(value)); r != 0 {
			return cuCode(r)
		}
		return nil
	})
}

// HostRegister page-locks b for every context (CU_MEMHOSTREGISTER_PORTABLE).
func (c *cudaCtx) HostRegister(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return c.do("cuMemHostRegister", func() error {
		if r := C.pathnotes_host_register(unsafe.Pointer(&b[0]), C.size_t(len(b))); r != 0 {
			return cuCode(r)
		}
		return nil
	})
}

func (c *cudaCtx) HostUnregister(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return c.do("cuMemHostUnregister", func() error {
		if r := C.pathnotes_host_unregister(unsafe.Pointer(&b[0])); r != 0 {
			return cuCode(r)
		}
		return nil
	})
}

// stickyCodes are the CUDA results after which the context is unusable.
var stickyCodes = map[int]bool{
	C.CUDA_ERROR_ILLEGAL_ADDRESS:       true,
	C.CUDA_ERROR_LAUNCH_FAILED:         true,
	C.CUDA_ERROR_HARDWARE_STACK_ERROR:  true,
	C.CUDA_ERROR_ILLEGAL_INSTRUCTION:   true,
	C.CUDA_ERROR_MISALIGNED_ADDRESS:    true,
	C.CUDA_ERROR_INVALID_ADDRESS_SPACE: true,
	C.CUDA_ERROR_INVALID_PC:            true,
	C.CUDA_ERROR_ASSERT:                true,
	C.CUDA_ERROR_LAUNCH_TIMEOUT:        true,
	C.CUDA_ERROR_ECC_UNCORRECTABLE:     true,
}

// wrap turns a gorgonia.org/cu result into a *Error with the
// driver's own name and description of the code.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := err.(*Error); ok {
		return err
	}
	v := reflect.ValueOf(err)
	if v.Kind() != reflect.Int {
		return fmt.Errorf("%s: %w", op, err)
	}
	code := int(v.Int())
	de := &Error{Op: op, Code: code, Name: err.Error(), Sticky: stickyCodes[code]}
	if s := C.pathnotes_error_name(C.int(code)); s != nil {
		de.Name = C.GoString(s)
	}
	if s := C.pathnotes_error_string(C.int(code)); s != nil {
		de.Detail = C.GoString(s)
	}
	return de
}

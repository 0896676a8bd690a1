package gpu

import (
	"runtime"
	"sync"
	"time"
	"unsafe"

	"github.com/pathnotes/pathnotes/gpu/driver"
	"github.com/pathnotes/pathnotes/graph"
)

// mallocgc is the runtime's allocator, which the runtime keeps callable
// under this name for the packages that use it (go.dev/issue/67401).
//
//go:linkname mallocgc runtime.mallocgc
func mallocgc(size uintptr, typ unsafe.Pointer, needzero bool) unsafe.Pointer

// uninitInt32s returns n int32 values of Go memory (collected as any
// other) that are not zeroed first. It is for results whose every value a
// copy from the device writes before anything reads them: make zeroes its
// memory, and a matrix of gigabytes that reuses freed heap is zeroed on
// one core, at about a second per 10 GB, only to be overwritten.
func uninitInt32s(n int) []int32 {
	if n == 0 {
		return []int32{}
	}
	return unsafe.Slice((*int32)(mallocgc(uintptr(n)*4, nil, false)), n)
}

// asBytes views v as bytes.
func asBytes(v []int32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 4*len(v))
}

// How a result comes back from the device into Go memory.
const (
	// viaAuto picks viaPageable below stagedMinBytes of results and
	// viaStaged from there on.
	viaAuto = iota
	// viaRegistered page-locks each of the result's matrices
	// (HostRegister, one call each, while the kernels run), and the
	// device copies straight into them. Measured, not picked: see
	// stagedMinBytes.
	viaRegistered
	// viaStaged copies through the device's two page-locked staging
	// buffers, which all cores copy into the result while the device
	// fills the other.
	viaStaged
	// viaPageable copies into the result's memory as it is, through the
	// driver's own buffers.
	viaPageable
)

// resultPath is how results come back (viaAuto but in tests and
// benchmarks that compare the paths).
var resultPath = viaAuto

// hugeResults makes results of hugeMinBytes or more ask for transparent
// huge pages (adviseHuge) as they are allocated. Off until measured: a
// result that the copies fault in, as apsp-batched's (10.8 GB on
// p2p-Gnutella30 with Π), spent most of its download in page faults, about
// 10 GB/s however many cores took them; BenchmarkAPSPCall compares.
var hugeResults = false

// hugeMinBytes is the smallest matrix that hugeResults advises.
const hugeMinBytes = 64 << 20

// stagedMinBytes is the result size (all matrices) from which viaAuto
// copies through the staging buffers. On an H200 (16 cores, driver 580)
// the driver's own path copied 4 MiB in 0.29 ms and 64 MiB in 4.9 ms,
// the staging buffers 1 GiB in 38 ms; registering the result's memory
// made the copy itself run at 55 GB/s, but cuMemHostRegister of memory
// the process had not touched yet took 0.7 s for 1 GiB inside a
// benchmark and about 23 s for 16 GiB (it faults the pages in on one
// core), and unregistering cost half the copy.
const stagedMinBytes = 16 << 20

// hostResult is the host memory of a result of rows × width int32
// matrices, made on a goroutine of its own (so that, with the kernels
// running, it costs the call nothing).
type hostResult struct {
	ctx         driver.Context
	rows, width int
	mats        [][]int32
	path        int
	registered  []bool
	made        chan struct{} // closed when mats are allocated (and touched, and registered)
	touch       bool
	pinOnce     sync.Once
	pin         runtime.Pinner
	released    bool
}

// newHostResult starts making count matrices of rows × width values.
// touch asks for their pages to be touched before the first copy into
// them: right where the device's work before that copy hides it (fw-fast's
// kernels); apsp-batched copies its first rows back after one batch, and
// touching 10.8 GB first made its call 0.26 s slower (p2p-Gnutella30, H200).
func (r *run) newHostResult(count, rows, width int, touch bool) *hostResult {
	h := &hostResult{ctx: r.dev.ctx, rows: rows, width: width, mats: make([][]int32, count), path: resultPath,
		registered: make([]bool, count), made: make(chan struct{}), touch: touch}
	if h.path == viaAuto {
		h.path = viaPageable
		if uint64(count)*uint64(rows)*uint64(width)*4 >= stagedMinBytes {
			h.path = viaStaged
		}
	}
	go h.make()
	return h
}

// pageValues is the int32 values of a 4 KiB page.
const pageValues = 1024

// make allocates the matrices, touches every page of them on every core
// if asked (a copy into memory the process has not touched yet faults its
// pages in one at a time: 2.8 ms instead of 0.29 for 4 MiB in a
// benchmark), and on the registered path registers them.
func (h *hostResult) make() {
	defer close(h.made)
	var wg sync.WaitGroup
	for k := range h.mats {
		m := uninitInt32s(h.rows * h.width)
		h.mats[k] = m
		if hugeResults && len(m)*4 >= hugeMinBytes {
			adviseHuge(asBytes(m))
		}
		if !h.touch {
			continue
		}
		parallelRanges(&wg, ceilDiv(len(m), pageValues), func(lo, hi int) {
			for p := lo; p < hi; p++ {
				m[p*pageValues] = 0
			}
		})
	}
	wg.Wait()
	if h.path == viaRegistered {
		for k, m := range h.mats {
			h.registered[k] = h.ctx.HostRegister(asBytes(m)) == nil
		}
	}
}

// wait waits for the matrices (and their registration) and pins them:
// copies into them may run after the calls that queue them return.
func (h *hostResult) wait() [][]int32 {
	<-h.made
	h.pinOnce.Do(func() {
		for _, m := range h.mats {
			if len(m) > 0 {
				h.pin.Pin(&m[0])
			}
		}
	})
	return h.mats
}

// release waits until the device is idle, then unregisters what was
// registered and unpins the matrices. It is safe to call on any path,
// more than once.
func (h *hostResult) release() error {
	if h.released {
		return nil
	}
	h.released = true
	<-h.made
	err := h.ctx.Synchronize()
	for k, m := range h.mats {
		if h.registered[k] {
			_ = h.ctx.HostUnregister(asBytes(m)) // the memory stays usable whatever it says
		}
	}
	h.pin.Unpin()
	return err
}

// fetch copies rows lo..hi-1 of matrix k from the device matrix at src,
// whose rows are devPitch values apart, on stream s, and returns once the
// copy is done. The copy's device time is added to Stats.DeviceToHost.
func (r *run) fetch(h *hostResult, k int, src DevicePtr, devPitch, lo, hi int, s driver.Stream) error {
	f, err := r.queueFetch(h, k, src, devPitch, lo, hi, s)
	if err != nil {
		return err
	}
	return r.fetched(f)
}

// pendingFetch is a copy back that queueFetch queued: its events and size.
type pendingFetch struct {
	start, stop driver.Event
	bytes       uint64
}

// queueFetch queues the copy of fetch on stream s and returns without
// waiting for it, on the registered and pageable paths (the staged one
// needs the host, and returns once it is done); fetched waits for it. The
// result's memory must not be read before.
func (r *run) queueFetch(h *hostResult, k int, src DevicePtr, devPitch, lo, hi int, s driver.Stream) (pendingFetch, error) {
	c := r.dev.ctx
	f := pendingFetch{bytes: uint64(max(hi-lo, 0)) * uint64(h.width) * 4}
	var err error
	if f.start, err = r.event(); err != nil {
		return f, err
	}
	if f.stop, err = r.event(); err != nil {
		return f, err
	}
	if err := c.RecordOn(f.start, s); err != nil {
		return f, r.fail(err, "recording an event")
	}
	mats := h.wait()
	w := h.width
	switch {
	case hi <= lo || w == 0:
	case h.path == viaStaged:
		if err := r.fetchStaged(mats[k], src, devPitch, w, lo, hi, s); err != nil {
			return f, err
		}
	default:
		dst := asBytes(mats[k][lo*w : hi*w])
		if err := c.CopyOut2DAsync(dst, 4*w, src+DevicePtr(lo)*DevicePtr(devPitch)*4, 4*devPitch, 4*w, hi-lo, s); err != nil {
			return f, r.fail(err, "copying rows %d..%d from the device", lo, hi-1)
		}
	}
	if err := c.RecordOn(f.stop, s); err != nil {
		return f, r.fail(err, "recording an event")
	}
	return f, nil
}

// fetched waits for a queued copy back and accounts for it.
func (r *run) fetched(f pendingFetch) error {
	dt, err := r.dev.ctx.Elapsed(f.start, f.stop)
	if err != nil {
		return r.fail(err, "copying %s from the device (after kernel %s)", graph.FormatBytes(f.bytes), r.last)
	}
	r.stats.DeviceToHost += dt
	r.stats.BytesToHost += f.bytes
	r.fetchedAt = time.Now()
	return nil
}

// fetchChunk is the most values (whole rows, at least one) that one copy
// of fetchStaged puts into a staging buffer: stagedChunk, 8 MiB, so that
// the bus and the cores overlap from the first chunk on. With the whole
// 64 MiB buffer a chunk, fw-fast's result at n = 4096 (64 MiB) went the
// bus and then the cores, one after the other: 2.72 ms, 24.6 GB/s (H200,
// BenchmarkFWFastCall). Benchmarks set it to compare.
var fetchChunk = stagedChunk

// fetchStaged copies rows lo..hi-1 through the two page-locked staging
// buffers, fetchChunk values at a time: while all cores copy one into the
// result, the device fills the other. Without staging buffers it copies
// straight into host.
func (r *run) fetchStaged(host []int32, src DevicePtr, devPitch, w, lo, hi int, s driver.Stream) error {
	c := r.dev.ctx
	st, err := r.dev.stagingBuffers()
	if err != nil {
		if err := c.CopyOut2DAsync(asBytes(host[lo*w:hi*w]), 4*w, src+DevicePtr(lo)*DevicePtr(devPitch)*4, 4*devPitch, 4*w, hi-lo, s); err != nil {
			return r.fail(err, "copying from the device")
		}
		return nil
	}
	per := max(1, min(len(st[0]), fetchChunk)/max(w, 1))
	var ev [2]driver.Event
	for i := range ev {
		if ev[i], err = r.event(); err != nil {
			return err
		}
	}
	// queue fills staging buffer i with rows from row on.
	queue := func(i, row int) error {
		n := min(per, hi-row)
		if err := c.CopyOut2DAsync(asBytes(st[i][:n*w]), 4*w, src+DevicePtr(row)*DevicePtr(devPitch)*4, 4*devPitch, 4*w, n, s); err != nil {
			return r.fail(err, "copying rows %d..%d from the device", row, row+n-1)
		}
		if err := c.RecordOn(ev[i], s); err != nil {
			return r.fail(err, "recording an event")
		}
		return nil
	}
	if err := queue(0, lo); err != nil {
		return err
	}
	for row, i := lo, 0; row < hi; row, i = row+per, i^1 {
		if next := row + per; next < hi {
			if err := queue(i^1, next); err != nil {
				return err
			}
		}
		if err := c.SyncEvent(ev[i]); err != nil {
			return r.fail(err, "copying from the device")
		}
		n := min(per, hi-row)
		var wg sync.WaitGroup
		parallelCopy(&wg, host[row*w:(row+n)*w], st[i][:n*w])
		wg.Wait()
	}
	return nil
}

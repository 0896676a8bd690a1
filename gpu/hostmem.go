package gpu

import (
	"runtime"
	"sync"
	"time"
	"unsafe"

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
	// viaAuto picks viaRegistered from regMinBytes of results on, else
	// viaStaged.
	viaAuto = iota
	// viaRegistered page-locks the result's own memory (HostRegister),
	// band by band while the kernels run, and the device copies straight
	// into it.
	viaRegistered
	// viaStaged copies through the device's two page-locked staging
	// buffers, which all cores copy into the result while the device
	// fills the other.
	viaStaged
	// viaPageable copies into the result's memory as it is, through the
	// driver's own buffers.
	viaPageable
)

// resultPath is how results come back (viaAuto but in benchmarks that
// compare the paths).
var resultPath = viaAuto

// regMinBytes is the result size from which viaAuto registers it.
const regMinBytes = 64 << 20

// bandBytes is the size of the bands in which a result is registered
// (several goroutines register bands at once) and copied.
const bandBytes = 64 << 20

// hostResult is the host memory of a result of rows × width int32
// matrices, made on a goroutine of its own (so that, with the kernels
// running, it costs the call nothing) and, on the registered path,
// page-locked band by band.
type hostResult struct {
	ctx         deviceContext
	rows, width int
	mats        [][]int32
	path        int
	band        int             // rows per band
	ready       []chan struct{} // per band (of every matrix): closed once registered, or failed to
	registered  []bool
	made        chan struct{} // closed when mats are allocated
	pinOnce     sync.Once
	pin         runtime.Pinner
	released    bool
}

// newHostResult starts making count matrices of rows × width values.
func (r *run) newHostResult(count, rows, width int) *hostResult {
	h := &hostResult{ctx: r.dev.ctx, rows: rows, width: width, mats: make([][]int32, count), path: resultPath, made: make(chan struct{})}
	total := uint64(count) * uint64(rows) * uint64(width) * 4
	if h.path == viaAuto {
		h.path = viaStaged
		if total >= regMinBytes {
			h.path = viaRegistered
		}
	}
	h.band = max(1, bandBytes/max(4*width, 1))
	bands := ceilDiv(rows, h.band)
	if h.path == viaRegistered {
		h.ready = make([]chan struct{}, count*bands)
		h.registered = make([]bool, count*bands)
		for i := range h.ready {
			h.ready[i] = make(chan struct{})
		}
	}
	go h.make(bands)
	return h
}

// make allocates the matrices and, on the registered path, registers
// their bands on several goroutines in order.
func (h *hostResult) make(bands int) {
	for k := range h.mats {
		h.mats[k] = uninitInt32s(h.rows * h.width)
	}
	close(h.made)
	if h.path != viaRegistered {
		return
	}
	var next sync.Mutex
	i := 0
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), 8, len(h.ready)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				next.Lock()
				b := i
				i++
				next.Unlock()
				if b >= len(h.ready) {
					return
				}
				h.registered[b] = h.ctx.HostRegister(asBytes(h.bandRows(b))) == nil
				close(h.ready[b])
			}
		}()
	}
	wg.Wait()
}

// bandRows is band b (of all matrices' bands, in order) of its matrix.
func (h *hostResult) bandRows(b int) []int32 {
	bands := ceilDiv(h.rows, h.band)
	m, lo := h.mats[b/bands], b%bands*h.band
	return m[lo*h.width : min(lo+h.band, h.rows)*h.width]
}

// wait waits for the matrices to be allocated and pins them: copies into
// them may run after the calls that queue them return.
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
// registered (on several goroutines) and unpins the matrices. It is safe
// to call on any path, once.
func (h *hostResult) release() error {
	if h.released {
		return nil
	}
	h.released = true
	<-h.made
	err := h.ctx.Synchronize()
	if h.path == viaRegistered {
		var wg sync.WaitGroup
		parallelRanges(&wg, len(h.ready), func(lo, hi int) {
			for b := lo; b < hi; b++ {
				<-h.ready[b]
				if h.registered[b] {
					_ = h.ctx.HostUnregister(asBytes(h.bandRows(b))) // memory stays usable whatever it says
				}
			}
		})
		wg.Wait()
	}
	h.pin.Unpin()
	return err
}

// fetch copies rows lo..hi-1 of matrix k from the device matrix at src,
// whose rows are devPitch values apart, on stream s, and returns once the
// copy is done. The copy's device time is added to Stats.DeviceToHost.
func (r *run) fetch(h *hostResult, k int, src DevicePtr, devPitch, lo, hi int, s streamHandle) error {
	f, err := r.queueFetch(h, k, src, devPitch, lo, hi, s)
	if err != nil {
		return err
	}
	return r.fetched(f)
}

// pendingFetch is a copy back that queueFetch queued: its events and size.
type pendingFetch struct {
	start, stop eventHandle
	bytes       uint64
}

// queueFetch queues the copy of fetch on stream s and returns without
// waiting for it, on the registered and pageable paths (the staged one
// needs the host, and returns once it is done); fetched waits for it. The
// result's memory must not be read before.
func (r *run) queueFetch(h *hostResult, k int, src DevicePtr, devPitch, lo, hi int, s streamHandle) (pendingFetch, error) {
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
	case h.path == viaRegistered || h.path == viaPageable:
		bands := ceilDiv(h.rows, h.band)
		for row := lo; row < hi; {
			end := min(hi, (row/h.band+1)*h.band)
			b := k*bands + row/h.band
			if h.path == viaRegistered {
				<-h.ready[b]
			}
			dst := asBytes(mats[k][row*w : end*w])
			if err := c.CopyOut2DAsync(dst, 4*w, src+DevicePtr(row)*DevicePtr(devPitch)*4, 4*devPitch, 4*w, end-row, s); err != nil {
				return f, r.fail(err, "copying rows %d..%d from the device", row, end-1)
			}
			row = end
		}
	default:
		if err := r.fetchStaged(mats[k], src, devPitch, w, lo, hi, s); err != nil {
			return f, err
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

// fetchStaged copies rows lo..hi-1 through the two page-locked staging
// buffers: while all cores copy one into the result, the device fills the
// other. Without staging buffers it copies straight into host.
func (r *run) fetchStaged(host []int32, src DevicePtr, devPitch, w, lo, hi int, s streamHandle) error {
	c := r.dev.ctx
	st, err := r.dev.stagingBuffers()
	if err != nil {
		if err := c.CopyOut2DAsync(asBytes(host[lo*w:hi*w]), 4*w, src+DevicePtr(lo)*DevicePtr(devPitch)*4, 4*devPitch, 4*w, hi-lo, s); err != nil {
			return r.fail(err, "copying from the device")
		}
		return nil
	}
	per := max(1, len(st[0])/max(w, 1))
	var ev [2]eventHandle
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

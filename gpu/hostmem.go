package gpu

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
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
	// viaAuto picks viaPiped up to pipedMaxBytes of results where the
	// caller lets it (newHostResult; viaRegistered instead with
	// keepResults), else viaPageable below stagedMinBytes and viaStaged
	// from there on.
	viaAuto = iota
	// viaRegistered page-locks each of the result's matrices
	// (HostRegister, one call each, while the kernels run), and the
	// device copies straight into them. Picked only with keepResults,
	// whose registrations outlive the call (keptPool): registering and
	// unregistering in every call cost more than they saved (see
	// stagedMinBytes).
	viaRegistered
	// viaStaged copies through the device's two page-locked staging
	// buffers, which all cores copy into the result while the device
	// fills the other.
	viaStaged
	// viaPageable copies into the result's memory as it is, through the
	// driver's own buffers.
	viaPageable
	// viaPiped copies a matrix that fits the first staging buffer into
	// it in pieces (pipedPiece, pipedPieces), an event after each, and hands
	// each piece to a goroutine of its own as soon as its event
	// completes: the cores copy the first pieces out while the bus brings
	// the rest, and the copy ends one piece after the bus.
	viaPiped
)

// resultPath is how results come back (viaAuto but in tests and
// benchmarks that compare the paths).
var resultPath = viaAuto

// pipedMaxBytes is the result size (all matrices) up to which viaAuto
// copies by viaPiped: fw-fast's results up to n = 4096 with Π (each
// matrix must also fit the first staging buffer, 64 MiB). On an H200 (one
// of a four-H200 host, build 2d92d00, BenchmarkFWFastCall) the
// 4 MiB of n = 1024 came back in 0.37 to 0.61 ms through the driver's
// buffers (pageable) and in 0.33 ms through the staging buffer whole, bus
// then cores, while the bus alone, into registered memory, took 0.086 ms;
// the 16 MiB of n = 2048 took 0.75 ms staged against 0.32 ms registered.
// At n = 4096 (one H200, build fdf8758) pieces of 2 MiB brought the
// 64 MiB back in 1.88 ms against 3.13 through the staging buffer whole
// (the whole call 9.57 against 10.92 ms), and with Π 3.72 against 6.43.
// 0 restores the paths before it (benchmarks compare).
var pipedMaxBytes uint64 = 128 << 20

// viaPiped cuts a matrix into about one piece per pipedPiece values (1 MiB;
// whole rows), but no fewer than pipedMinPieces pieces (nor than rows) and
// no more than pipedPieces: 4 MiB at n = 1024 goes in 8 pieces of 512
// KiB, 16 MiB at 2048 in 16 of 1 MiB, 64 MiB at 4096 in 32 of 2 MiB. Each
// piece costs the host a copy and an event to queue (a few µs) and the
// bus a few µs more than its bytes. On an H200 (BenchmarkFWFastCall,
// build b03f3538dd7e) 16 pieces of 1 MiB brought 2048's 16 MiB back in
// 0.409 ms against 0.450 with 32 of 512 KiB (with Π 0.87 against 1.01),
// while at 4096 16 pieces of 4 MiB took 1.56 ms against 1.48 with 32 of 2
// MiB. pipedAhead is how many pieces are queued ahead of the one the host
// waits for. Tests set pipedPiece and pipedPieces lower.
var (
	pipedPiece  = 256 << 10
	pipedPieces = 32
)

const pipedMinPieces = 8

const pipedAhead = 8

// pipedSplit is the most values of one part of a piece of viaPiped: a
// piece is copied out in parts on several cores, so that the last piece's
// copy, which nothing hides, takes a few µs rather than the tens one core
// needs for 512 KiB. On an H200 (BenchmarkFWFastCall, build 2c032e6) parts
// of 128 KiB, each on a goroutine of its own, brought n = 4096's 64 MiB
// back in 1.42 ms against 1.68 with a goroutine a piece (with Π 2.85
// against 3.62), and were even at n = 1024 and 2048. Pieces on two
// streams in turn, so that one piece's copy could start while the other's
// ended, were slower at every size there (2048: 0.515 against 0.499 ms)
// and were removed.
//
// pipedWorkers is how many goroutines copy the parts: started with the
// copy back and waiting for parts by spinning (runtime.Gosched between
// looks), since a goroutine started when a part arrives began 46 µs
// later at the median and 111 µs at the 90th percentile on that host
// (an execution trace of n = 2048, where a piece arrives every 12 to 15
// µs). 0 starts a goroutine a part instead. A variable, so that
// benchmarks time both ways.
//
// pipedSpin is how many looks a waiting worker takes between two
// runtime.Gosched calls. Each Gosched takes the scheduler's lock, and
// with a yield every look the workers of a copy back held it most of the
// time: a CPU profile of n = 2048 on an H200 (BenchmarkFWFastCall, build
// 67e1843) spent 31 % of its samples in runtime.lock2 under
// runtime.Gosched, where the calling goroutine, back from the driver,
// needs it too. 1 is a yield every look (as before).
var (
	pipedSplit   = 32 << 10
	pipedWorkers = min(8, runtime.GOMAXPROCS(0))
	pipedSpin    = 256
)

// hugeResults makes results of hugeMinBytes or more ask for transparent
// huge pages (adviseHuge) as they are allocated, so that the copies into
// them fault a page in per 2 MiB instead of per 4 KiB. On an H200
// (BenchmarkAPSPCall, apsp-batched on p2p-Gnutella30 with Π, 10.8 GB of
// results) the call took 300.9 ms against 523.4 without (download 233.8
// against 455.6 ms). fw-fast touches its result's pages while the kernels
// run, yet at n = 2048 (16 MiB) its copy back was slower on 4 KiB pages:
// `pathnotes bench` (41 calls a cell, H200) gave 1.271 and 1.318 ms with
// huge pages from 64 MiB on, 1.248 and 1.249 from 4 MiB on; n = 1024 and
// 4096 were level either way. A variable so that one process can time
// both.
var hugeResults = true

// hugeMinBytes is the smallest matrix that hugeResults advises: 4 MiB,
// n = 1024's distances (see hugeResults).
const hugeMinBytes = 4 << 20

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
	dev         *Device
	rows, width int
	mats        [][]int32
	path        int
	registered  []bool
	kept        bool          // the matrices stay page-locked after the call (keepResults, keptPool)
	pooled      []keptMatrix  // with kept, the matrices taken from keptPool (m nil where none was)
	made        chan struct{} // closed when mats are allocated (and touched, and registered)
	touch       bool
	pinOnce     sync.Once
	pin         runtime.Pinner
	released    bool
}

// newHostResult starts making count matrices of rows × width values.
// touch asks for their pages to be touched before the first copy into
// them: right where the device's work before that copy hides it (fw-fast's
// kernels); apsp-batched copies its first rows back soon after its launch
// starts, and touching 10.8 GB first made its call 0.26 s slower
// (p2p-Gnutella30, H200).
// pieces lets viaAuto take viaPiped (fw-fast in memory; apsp-batched and
// the single-source calls keep the paths they were measured with).
func (r *run) newHostResult(count, rows, width int, touch, pieces bool) *hostResult {
	h := &hostResult{dev: r.dev, rows: rows, width: width, mats: make([][]int32, count), path: resultPath,
		registered: make([]bool, count), made: make(chan struct{}), touch: touch}
	if h.path == viaAuto {
		bytes := uint64(count) * uint64(rows) * uint64(width) * 4
		switch {
		case pieces && keepResults && uint64(rows)*uint64(width)*4 >= uint64(keptMinBytes) && bytes <= uint64(keptMaxBytes):
			h.path, h.kept, h.pooled = viaRegistered, true, make([]keptMatrix, count)
		case pieces && bytes <= pipedMaxBytes:
			h.path = viaPiped
		case bytes < stagedMinBytes:
			h.path = viaPageable
		default:
			h.path = viaStaged
		}
	}
	go h.make()
	return h
}

// pageValues is the int32 values of a 4 KiB page.
const pageValues = 1024

// make allocates the matrices (after collecting garbage, for a large
// result that may take a dropped one's memory: reuseFreed), touches
// every page of them on every core if asked (a copy into memory the
// process has not touched yet faults its pages in one at a time: 2.8 ms
// instead of 0.29 for 4 MiB in a benchmark), and on the registered path
// registers them.
func (h *hostResult) make() {
	defer close(h.made)
	bytes := uint64(len(h.mats)) * uint64(h.rows) * uint64(h.width) * 4
	reuseFreed(bytes)
	large := bytes >= reuseMinBytes
	var wg sync.WaitGroup
	for k := range h.mats {
		if h.kept {
			if pk, ok := takeKept(h.dev, h.rows*h.width); ok {
				h.mats[k], h.registered[k], h.pooled[k] = pk.m, true, pk // touched and page-locked already
				continue
			}
		}
		m := uninitInt32s(h.rows * h.width)
		h.mats[k] = m
		if large {
			countLarge(m)
		}
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
	if h.path != viaRegistered {
		return
	}
	for k, m := range h.mats {
		switch {
		case h.kept && h.registered[k]:
			poolWhenCollected(h.pooled[k])
		case !h.kept:
			h.registered[k] = h.dev.ctx.HostRegister(asBytes(m)) == nil
		}
		// A kept matrix that found none pooled takes the staging
		// buffer's way (queueFetch) and is registered after the call
		// (registerLater).
	}
}

// keepLater registers, after a call that succeeded, the kept matrices
// that found none pooled (registerLater), for later calls of their size.
func (h *hostResult) keepLater() {
	if !h.kept {
		return
	}
	for k, m := range h.mats {
		if !h.registered[k] {
			registerLater(h.dev, m)
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
// registered for the call alone (not kept) and unpins the matrices. It is
// safe to call on any path, more than once.
func (h *hostResult) release() error {
	if h.released {
		return nil
	}
	h.released = true
	<-h.made
	err := h.dev.ctx.Synchronize()
	for k, m := range h.mats {
		if h.registered[k] && !h.kept {
			_ = h.dev.ctx.HostUnregister(asBytes(m)) // the memory stays usable whatever it says
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
// waiting for it, on the registered and pageable paths (the staged and
// piped ones need the host, and return once they are done); fetched waits for it. The
// result's memory must not be read before.
func (r *run) queueFetch(h *hostResult, k int, src DevicePtr, devPitch, lo, hi int, s driver.Stream) (pendingFetch, error) {
	c := r.dev.ctx
	f, err := r.startFetch(uint64(max(hi-lo, 0))*uint64(h.width)*4, s)
	if err != nil {
		return f, err
	}
	mats := h.wait()
	w := h.width
	switch {
	case hi <= lo || w == 0:
	case h.path == viaStaged:
		if err := r.fetchStaged(mats[k], src, devPitch, w, lo, hi, s); err != nil {
			return f, err
		}
	case h.path == viaPiped, h.kept && !h.registered[k]:
		if err := r.fetchPiped(mats[k], src, devPitch, w, lo, hi, s); err != nil {
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

// startFetch returns a pendingFetch of bytes whose start event is
// recorded on stream s now (its stop event is the caller's to record).
func (r *run) startFetch(bytes uint64, s driver.Stream) (pendingFetch, error) {
	f := pendingFetch{bytes: bytes}
	var err error
	if f.start, f.stop, err = r.eventPair(); err != nil {
		return f, err
	}
	if err := r.dev.ctx.RecordOn(f.start, s); err != nil {
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
// of fetchStaged puts into a staging buffer: the whole buffer, 64 MiB.
// Pieces of 8 MiB, so that the cores would empty one while the bus fills
// the other, lost on an H200 (one of a four-H200 host, build 2d92d00,
// BenchmarkFWFastCall): the copy back took 2.879 ms against 2.632 at
// n = 4096, 10.45 against 8.108 at 8192, and 20.41 against 15.46 at 8192
// with Π. Tests set it lower, to copy a small result in several pieces.
var fetchChunk = stagingValues

// fetchStaged copies rows lo..hi-1 through the two page-locked staging
// buffers, fetchChunk values at a time (stagedJobs): while all cores copy
// one into the result, the device fills the other. Without staging
// buffers it copies straight into host.
func (r *run) fetchStaged(host []int32, src DevicePtr, devPitch, w, lo, hi int, s driver.Stream) error {
	per, err := r.stagedRows(w)
	if err != nil {
		if err := r.dev.ctx.CopyOut2DAsync(asBytes(host[lo*w:hi*w]), 4*w, src+DevicePtr(lo)*DevicePtr(devPitch)*4, 4*devPitch, 4*w, hi-lo, s); err != nil {
			return r.fail(err, "copying from the device")
		}
		return nil
	}
	var jobs []stagedJob
	for row := lo; row < hi; row += per {
		jobs = append(jobs, stagedJob{host: host, src: src, devPitch: devPitch, w: w, lo: row, hi: min(row+per, hi)})
	}
	return r.stagedJobs(jobs, s, false)
}

// stagedRows is how many rows of w values one job of stagedJobs takes:
// as many as a staging buffer holds (fetchChunk), at least one. It fails
// where the device has no staging buffers.
func (r *run) stagedRows(w int) (int, error) {
	st, err := r.dev.stagingBuffers()
	if err != nil {
		return 0, err
	}
	return max(1, min(len(st[0]), fetchChunk)/max(w, 1)), nil
}

// stagedJob is one copy of stagedJobs: rows lo..hi-1 of w values (at most
// stagedRows) from src, whose rows are devPitch values apart, into host
// (rows w apart), as rows lo..hi-1 there, or as rows rows[0..hi-lo-1]
// when rows is not nil. With wait set, the device copy waits first until
// the device word at wait reaches value (driver WaitValue); done, when not
// 0, is passed to the run's progress, of host's rows, once the rows are
// in host.
type stagedJob struct {
	host                []int32
	rows                []int32
	src, wait           DevicePtr
	devPitch, w, lo, hi int
	value               uint32
	done                int
}

// stagedJobs copies the jobs back in order on stream s through the two
// staging buffers in turn: job j+1's device copy is queued before the
// host, on all cores, copies job j out of the other buffer, so that a
// list of jobs keeps the bus busy from the first job to the last (a
// fetchStaged a piece would wait for its first copy and leave its last
// to the host alone, each time). timed adds each job's device time, from
// the end of its wait, and its bytes to the run's statistics. The run's
// context is checked before each job: a cancelled run returns an error
// that wraps ctx.Err(), with the jobs queued so far still on s.
func (r *run) stagedJobs(jobs []stagedJob, s driver.Stream, timed bool) error {
	if len(jobs) == 0 {
		return nil
	}
	c := r.dev.ctx
	st, err := r.dev.stagingBuffers()
	if err != nil {
		return r.fail(err, "allocating staging buffers")
	}
	var start, stop [2]driver.Event // start only when timed
	for i := range stop {
		if timed {
			start[i], stop[i], err = r.eventPair()
		} else {
			stop[i], err = r.event()
		}
		if err != nil {
			return err
		}
	}
	queue := func(i int, j stagedJob) error {
		if err := r.ctx.Err(); err != nil {
			return fmt.Errorf("%s: interrupted while copying the result back: %w", r.what, err)
		}
		if j.wait != 0 {
			if err := c.WaitValue(s, j.wait, j.value); err != nil {
				return r.fail(err, "waiting for rows %d..%d", j.lo, j.hi-1)
			}
		}
		if timed {
			if err := c.RecordOn(start[i], s); err != nil {
				return r.fail(err, "recording an event")
			}
		}
		n := j.hi - j.lo
		if err := c.CopyOut2DAsync(asBytes(st[i][:n*j.w]), 4*j.w, j.src+DevicePtr(j.lo)*DevicePtr(j.devPitch)*4, 4*j.devPitch, 4*j.w, n, s); err != nil {
			return r.fail(err, "copying rows %d..%d from the device", j.lo, j.hi-1)
		}
		if err := c.RecordOn(stop[i], s); err != nil {
			return r.fail(err, "recording an event")
		}
		return nil
	}
	if err := queue(0, jobs[0]); err != nil {
		return err
	}
	for k, j := range jobs {
		i := k % 2
		if k+1 < len(jobs) {
			if err := queue(i^1, jobs[k+1]); err != nil {
				return err
			}
		}
		if err := c.SyncEvent(stop[i]); err != nil {
			return r.fail(err, "copying from the device")
		}
		n := j.hi - j.lo
		if timed {
			dt, err := c.Elapsed(start[i], stop[i])
			if err != nil {
				return r.fail(err, "copying from the device")
			}
			r.stats.DeviceToHost += dt
			r.stats.BytesToHost += uint64(n) * uint64(j.w) * 4
		}
		var wg sync.WaitGroup
		if j.rows == nil {
			parallelCopy(&wg, j.host[j.lo*j.w:j.hi*j.w], st[i][:n*j.w])
		} else {
			parallelRanges(&wg, n, func(lo, hi int) {
				for k := lo; k < hi; k++ {
					at := int(j.rows[k]) * j.w
					copy(j.host[at:at+j.w], st[i][k*j.w:(k+1)*j.w])
				}
			})
		}
		wg.Wait()
		if j.done > 0 {
			r.report(j.done, len(j.host)/j.w)
		}
	}
	if timed {
		r.fetchedAt = time.Now()
	}
	return nil
}

// fetchPiped copies rows lo..hi-1 by viaPiped: pieces of whole rows
// (pipedPiece, pipedMinPieces, pipedPieces) into the first staging
// buffer, pipedAhead of them queued ahead of the one the host waits for,
// each copied into host in parts (pipedSplit, pipedWorkers) once it is
// in. Rows that do not fit the staging buffer whole go through
// fetchStaged.
func (r *run) fetchPiped(host []int32, src DevicePtr, devPitch, w, lo, hi int, s driver.Stream) error {
	st, err := r.dev.stagingBuffers()
	if err != nil || (hi-lo)*w > len(st[0]) {
		return r.fetchStaged(host, src, devPitch, w, lo, hi, s)
	}
	return r.pipe([]pipedJob{{host: host, src: src, devPitch: devPitch, w: w, lo: lo, hi: hi, s: s, buf: st[0]}})
}

// fetchBoth copies rows 0..n-1 of the two matrices at d and p (rows
// devPitch values apart) into h's matrices 0 and 1. By viaPiped (or with
// kept matrices that found none pooled, which take that way: queueFetch),
// d goes on stream ds through the first staging buffer and p on the
// default stream through the second, in one pipe: p's pieces are queued
// while the host still takes d's in, instead of after. p must stay on the
// default stream: the arcs' upload from the second staging buffer
// (uploadArcs) is queued there, before it. Otherwise (another path, rows
// that do not fit a staging buffer) it does nothing and returns false:
// the caller fetches them one after the other.
func (r *run) fetchBoth(h *hostResult, d, p DevicePtr, devPitch, n int, ds driver.Stream) (bool, error) {
	piped := h.path == viaPiped
	if h.kept {
		h.wait() // whether they were pooled (page-locked) or not
		piped = !h.registered[0] && !h.registered[1]
	}
	st, err := r.dev.stagingBuffers()
	if !piped || err != nil || n*h.width > len(st[0]) {
		return false, nil
	}
	streams := [2]driver.Stream{ds, 0}
	var fs [2]pendingFetch
	for k := range fs {
		if fs[k], err = r.startFetch(uint64(n)*uint64(h.width)*4, streams[k]); err != nil {
			return true, err
		}
	}
	mats := h.wait()
	jobs := []pipedJob{{host: mats[0], src: d, devPitch: devPitch, w: h.width, hi: n, s: ds, buf: st[0], stop: fs[0].stop},
		{host: mats[1], src: p, devPitch: devPitch, w: h.width, hi: n, buf: st[1], stop: fs[1].stop}}
	if err := r.pipe(jobs); err != nil {
		return true, err
	}
	for k := range fs {
		if err := r.fetched(fs[k]); err != nil {
			return true, err
		}
	}
	return true, nil
}

// pipedJob is one matrix's part of a copy back by viaPiped: rows lo..hi-1
// of width w from src (rows devPitch values apart) on stream s, through
// staging buffer buf, into host; stop, when set, is recorded on s after
// the job's last piece (the end of its device time).
type pipedJob struct {
	stop                driver.Event
	host                []int32
	src                 DevicePtr
	devPitch, w, lo, hi int
	s                   driver.Stream
	buf                 []int32
}

// pipe copies the jobs' rows back by viaPiped, the pieces of one job
// after the other's: each piece queued with an event after it,
// pipedAhead of them ahead of the one the host waits for, so that a later
// job's pieces, on a stream of their own, are queued while the host still
// takes the earlier job's in; each piece is copied into its job's host
// matrix in parts (pipedSplit, pipedWorkers) once it is in.
func (r *run) pipe(jobs []pipedJob) error {
	c := r.dev.ctx
	// piece: rows row..row+rows-1 of job job, at value off of the job's
	// rows and of its buffer.
	type piece struct{ job, row, rows, off int }
	var pieces []piece
	for j, jb := range jobs {
		rows := jb.hi - jb.lo
		per := ceilDiv(rows, min(max(ceilDiv(rows*jb.w, pipedPiece), pipedMinPieces), pipedPieces, rows))
		for row := jb.lo; row < jb.hi; row += per {
			pieces = append(pieces, piece{job: j, row: row, rows: min(per, jb.hi-row), off: (row - jb.lo) * jb.w})
		}
	}
	ev := make([]driver.Event, len(pieces))
	for i := range ev {
		var err error
		if ev[i], err = r.event(); err != nil {
			return err
		}
	}
	// The parts: each piece cut every pipedSplit values, piece after
	// piece.
	type part struct{ piece, lo, hi int }
	var parts []part
	var piecePart []int
	for i, p := range pieces {
		n := p.rows * jobs[p.job].w
		for a := 0; a < n; a += pipedSplit {
			parts = append(parts, part{piece: i, lo: a, hi: min(a+pipedSplit, n)})
		}
		piecePart = append(piecePart, len(parts))
	}
	cp := startParts(func(k int) {
		q := parts[k]
		p := pieces[q.piece]
		jb := jobs[p.job]
		out := jb.host[jb.lo*jb.w+p.off:]
		copy(out[q.lo:q.hi], jb.buf[p.off+q.lo:p.off+q.hi])
	}, len(parts), pipedWorkers)
	defer cp.finish()
	queued := 0
	queue := func() error {
		p := pieces[queued]
		jb := jobs[p.job]
		if err := c.CopyOut2DAsync(asBytes(jb.buf[p.off:p.off+p.rows*jb.w]), 4*jb.w, jb.src+DevicePtr(p.row)*DevicePtr(jb.devPitch)*4, 4*jb.devPitch, 4*jb.w, p.rows, jb.s); err != nil {
			return r.fail(err, "copying rows %d..%d from the device", p.row, p.row+p.rows-1)
		}
		if err := c.RecordOn(ev[queued], jb.s); err != nil {
			return r.fail(err, "recording an event")
		}
		if last := queued+1 == len(pieces) || pieces[queued+1].job != p.job; last && jb.stop != 0 {
			if err := c.RecordOn(jb.stop, jb.s); err != nil {
				return r.fail(err, "recording an event")
			}
		}
		queued++
		return nil
	}
	for i := range pieces {
		for queued < min(i+pipedAhead, len(pieces)) {
			if err := queue(); err != nil {
				return err
			}
		}
		if err := c.SyncEvent(ev[i]); err != nil {
			return r.fail(err, "copying from the device")
		}
		cp.publish(piecePart[i])
	}
	return nil
}

// partCopier copies parts 0..count-1 as they are published, each by
// copyPart.
type partCopier struct {
	copyPart func(k int)
	count    int
	avail    atomic.Int64 // parts published
	next     atomic.Int64 // the next part to claim
	stop     atomic.Bool  // finish was called: copy nothing more
	wg       sync.WaitGroup
}

// startParts returns a partCopier of copyPart and count parts, with
// workers goroutines that spin until parts are published (0: a goroutine
// of its own for each part as it is published).
func startParts(copyPart func(k int), count, workers int) *partCopier {
	p := &partCopier{copyPart: copyPart, count: count}
	for range min(workers, count) {
		p.wg.Go(p.work)
	}
	if workers == 0 {
		p.next.Store(-1) // no workers: publish starts the goroutines
	}
	return p
}

// work claims and copies published parts until all are copied or finish
// stops it, yielding the core every pipedSpin looks while none is
// published.
func (p *partCopier) work() {
	looks := 0
	for !p.stop.Load() {
		k := p.next.Load()
		switch {
		case k >= int64(p.count):
			return
		case k >= p.avail.Load():
			if looks++; looks >= pipedSpin {
				looks = 0
				runtime.Gosched()
			}
		case p.next.CompareAndSwap(k, k+1):
			p.copyPart(int(k))
		}
	}
}

// publish makes the parts before part n available to copy.
func (p *partCopier) publish(n int) {
	if p.next.Load() < 0 {
		for k := int(p.avail.Load()); k < n; k++ {
			p.wg.Go(func() { p.copyPart(k) })
		}
	}
	p.avail.Store(int64(n))
}

// finish waits for the copies: all of them once every part is published,
// else (an error ended the copy back) the ones under way.
func (p *partCopier) finish() {
	if p.avail.Load() < int64(p.count) {
		p.stop.Store(true)
	}
	p.wg.Wait()
}

//go:build cuda

package comm

// The NCCL transport: libnccl loaded with dlopen when a run asks for it, so
// that building needs neither NCCL's headers nor its library, and a machine
// without it says so when a run starts. The CUDA stream and events it
// needs come from the driver API (libcuda, which the cuda build links
// already).

/*
#cgo LDFLAGS: -lcuda -ldl
#cgo linux LDFLAGS: -L/usr/local/cuda/lib64 -L/usr/local/cuda/lib64/stubs
#cgo linux CFLAGS: -I/usr/local/cuda/include
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <cuda.h>

// NCCL's types as its ABI has them: a 128-byte unique id, opaque
// communicators, int results, ncclInt32 = 2.
typedef struct { char internal[128]; } pn_id;
typedef void *pn_comm;

static int (*pn_get_unique_id)(pn_id *);
static int (*pn_init_rank)(pn_comm *, int, pn_id, int);
static int (*pn_broadcast)(const void *, void *, size_t, int, int, pn_comm, CUstream);
static int (*pn_abort)(pn_comm);
static int (*pn_destroy)(pn_comm);
static int (*pn_async_error)(pn_comm, int *);
static const char *(*pn_error_string)(int);
static int (*pn_get_version)(int *);
static const char *(*pn_last_error)(pn_comm); // NCCL 2.13 on; may be missing

// pn_open loads libnccl from path; it returns 0, or dlerror's message.
static const char *pn_open(const char *path) {
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) return dlerror();
	*(void **)&pn_get_unique_id = dlsym(h, "ncclGetUniqueId");
	*(void **)&pn_init_rank = dlsym(h, "ncclCommInitRank");
	*(void **)&pn_broadcast = dlsym(h, "ncclBroadcast");
	*(void **)&pn_abort = dlsym(h, "ncclCommAbort");
	*(void **)&pn_destroy = dlsym(h, "ncclCommDestroy");
	*(void **)&pn_async_error = dlsym(h, "ncclCommGetAsyncError");
	*(void **)&pn_error_string = dlsym(h, "ncclGetErrorString");
	*(void **)&pn_get_version = dlsym(h, "ncclGetVersion");
	*(void **)&pn_last_error = dlsym(h, "ncclGetLastError");
	if (!pn_get_unique_id || !pn_init_rank || !pn_broadcast || !pn_abort || !pn_destroy ||
	    !pn_async_error || !pn_error_string || !pn_get_version) {
		dlclose(h);
		return "a symbol of NCCL's API is missing (ncclBroadcast, ncclCommAbort, ncclCommGetAsyncError...: NCCL 2.4 or later is needed)";
	}
	return 0;
}

static int pn_unique_id(void *out) { return pn_get_unique_id((pn_id *)out); }
static int pn_init(pn_comm *c, int n, const void *id, int rank) {
	pn_id u;
	memcpy(&u, id, sizeof u);
	return pn_init_rank(c, n, u, rank);
}
static int pn_bcast(CUdeviceptr buf, size_t count, int root, pn_comm c, CUstream s) {
	return pn_broadcast((const void *)buf, (void *)buf, count, 2, root, c, s);
}
static int pn_comm_abort(pn_comm c) { return pn_abort(c); }
static int pn_comm_destroy(pn_comm c) { return pn_destroy(c); }
static int pn_async(pn_comm c, int *r) { return pn_async_error(c, r); }
static const char *pn_errstr(int r) { return pn_error_string(r); }
static const char *pn_lasterr(pn_comm c) { return pn_last_error ? pn_last_error(c) : ""; }
static int pn_version(int *v) { return pn_get_version(v); }

static CUresult pn_primary(int ordinal) {
	CUdevice dev;
	CUcontext ctx;
	CUresult r = cuInit(0);
	if (r) return r;
	if ((r = cuDeviceGet(&dev, ordinal))) return r;
	if ((r = cuDevicePrimaryCtxRetain(&ctx, dev))) return r;
	return cuCtxSetCurrent(ctx);
}
// pn_stream creates the stream the collectives run on, at the greatest
// priority: its blocks start ahead of the update's pending ones, so that a
// broadcast runs beside the update instead of after its last wave.
static CUresult pn_stream(CUstream *s) {
	int least, greatest;
	CUresult r = cuCtxGetStreamPriorityRange(&least, &greatest);
	return r ? r : cuStreamCreateWithPriority(s, CU_STREAM_NON_BLOCKING, greatest);
}
static CUresult pn_event(CUevent *e) { return cuEventCreate(e, CU_EVENT_DISABLE_TIMING); }
// pn_order makes stream to wait for the work queued on stream from.
static CUresult pn_order(CUevent e, CUstream from, CUstream to) {
	CUresult r = cuEventRecord(e, from);
	return r ? r : cuStreamWaitEvent(to, e, 0);
}
static CUresult pn_record(CUevent e, CUstream s) { return cuEventRecord(e, s); }
static CUresult pn_query(CUevent e) { return cuEventQuery(e); }
static const char *pn_cuname(CUresult r) {
	const char *s = 0;
	cuGetErrorName(r, &s);
	return s ? s : "?";
}
*/
import "C"

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/gpu/cells"
)

// EnvNCCL names the variable that gives libnccl's path; unset, the
// system's loader looks for libnccl.so.2 (LD_LIBRARY_PATH, the cache).
const EnvNCCL = "PATHNOTES_NCCL"

var ncclLoad struct {
	once    sync.Once
	err     error
	version string
}

// loadNCCL opens libnccl once for the process.
func loadNCCL() (string, error) {
	ncclLoad.once.Do(func() {
		paths := []string{"libnccl.so.2", "libnccl.so"}
		if p := os.Getenv(EnvNCCL); p != "" {
			paths = []string{p}
		}
		var why []string
		for _, p := range paths {
			cp := C.CString(p)
			msg := C.pn_open(cp)
			C.free(unsafe.Pointer(cp))
			if msg == nil {
				var v C.int
				C.pn_version(&v)
				ncclLoad.version = ncclVersion(int(v))
				return
			}
			why = append(why, C.GoString(msg))
		}
		ncclLoad.err = fmt.Errorf("comm: NCCL is not available: %v. Install NCCL (libnccl.so.2), or set %s to its path "+
			"(pip's nvidia-nccl-cu12 has it in site-packages/nvidia/nccl/lib), or run with --transport tcp", why, EnvNCCL)
	})
	return ncclLoad.version, ncclLoad.err
}

// ncclVersion formats NCCL's version code (22105 → "2.21.5"; before 2.9,
// 2708 → "2.7.8").
func ncclVersion(code int) string {
	if code >= 10000 {
		return fmt.Sprintf("%d.%d.%d", code/10000, code/100%100, code%100)
	}
	return fmt.Sprintf("%d.%d.%d", code/1000, code/100%10, code%100)
}

// NCCL is the transport over NCCL: every group a communicator made with
// ncclCommInitRank from a unique id that the group's first member makes
// and the control plane passes on. Broadcasts run on a stream of their
// own, ordered after the device's default stream by an event, so that
// they overlap the kernels queued after them; Join orders the default
// stream after them. Every NCCL and CUDA call runs on one OS thread with
// the device's primary context current.
type NCCL struct {
	ctl     *Control
	opts    Options
	calls   chan func()
	stream  C.CUstream
	toComm  C.CUevent // default stream → the broadcasts' stream
	toMain  C.CUevent // the broadcasts' stream → default stream
	fence   [2]C.CUevent
	comms   []C.pn_comm
	groups  map[string]*ncclGroup // by member list: a group asked for again is the same communicator
	aborted bool
	quit    chan struct{} // closed by Close
	// stuck is set when a call on the worker thread never returned (a
	// communicator's join that waits for a rank that is gone): later
	// calls fail instead of waiting behind it.
	stuck atomic.Bool

	sent, received atomic.Int64
}

// NCCLVersion loads NCCL and returns its version, e.g. "2.21.5".
func NCCLVersion() (string, error) { return loadNCCL() }

// NewNCCL loads NCCL and starts the transport of this rank on dev.
func NewNCCL(ctx context.Context, ctl *Control, dev *gpu.Device, opts Options) (Transport, error) {
	if _, err := loadNCCL(); err != nil {
		return nil, err
	}
	if dev.Driver() != "cuda" {
		return nil, fmt.Errorf("comm: NCCL needs a CUDA device; %s runs on the %s driver (use --transport tcp)", dev.Info().Name, dev.Driver())
	}
	t := &NCCL{ctl: ctl, opts: opts, calls: make(chan func()), groups: map[string]*ncclGroup{},
		quit: make(chan struct{})}
	go t.worker()
	err := t.do(func() error {
		// The handles come back through C variables: Go memory that holds
		// them may not be handed to C while it holds Go pointers too.
		if r := C.pn_primary(C.int(dev.Info().Ordinal)); r != 0 {
			return cuErr("cuDevicePrimaryCtxRetain", r)
		}
		s := (*C.CUstream)(C.calloc(1, C.size_t(unsafe.Sizeof(t.stream))))
		defer C.free(unsafe.Pointer(s))
		if r := C.pn_stream(s); r != 0 {
			return cuErr("cuStreamCreateWithPriority", r)
		}
		t.stream = *s
		e := (*C.CUevent)(C.calloc(1, C.size_t(unsafe.Sizeof(t.toComm))))
		defer C.free(unsafe.Pointer(e))
		for _, dst := range []*C.CUevent{&t.toComm, &t.toMain, &t.fence[0], &t.fence[1]} {
			if r := C.pn_event(e); r != 0 {
				return cuErr("cuEventCreate", r)
			}
			*dst = *e
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// A run that stops (here or on another rank) aborts the communicators
	// at once: their kernels waiting on a rank that is gone end, and with
	// them everything the device queued behind them.
	go func() {
		select {
		case <-ctl.Done():
			t.abortComms()
		case <-t.quit:
		}
	}()
	return t, nil
}

// worker runs the transport's calls on one locked OS thread.
func (t *NCCL) worker() {
	runtime.LockOSThread()
	for f := range t.calls {
		f()
	}
}

// do runs f on the worker thread and waits for it.
func (t *NCCL) do(f func() error) error {
	if t.stuck.Load() {
		return fmt.Errorf("comm: an NCCL call of rank %d never returned", t.ctl.Rank())
	}
	done := make(chan error, 1)
	t.calls <- func() { done <- f() }
	return <-done
}

// cuErr formats a CUDA driver error.
func cuErr(op string, r C.CUresult) error {
	return fmt.Errorf("comm: %s: %s (%d)", op, C.GoString(C.pn_cuname(r)), int(r))
}

// ncclErr formats an NCCL result, with NCCL's last error where it says one.
func ncclErr(op string, r C.int, c C.pn_comm) error {
	msg := fmt.Sprintf("comm: %s: %s (%d)", op, C.GoString(C.pn_errstr(r)), int(r))
	if c != nil {
		if last := C.GoString(C.pn_lasterr(c)); last != "" {
			msg += ": " + last
		}
	}
	return fmt.Errorf("%s", msg)
}

// Name returns "nccl".
func (t *NCCL) Name() string { return "nccl" }

// Group makes the group's communicator: its first member gets a unique
// id, every rank's control plane passes it (an AllGather: every rank
// creates its groups at once), and the members join it. The join waits
// for every member; a run that stops meanwhile ends the wait. A group
// asked for again is the one made the first time.
func (t *NCCL) Group(ctx context.Context, members []int) (Group, error) {
	me, err := checkMembers(members, t.ctl.Rank(), t.ctl.Size())
	if err != nil {
		return nil, err
	}
	if g, ok := t.groups[fmt.Sprint(members)]; ok {
		return g, nil
	}
	var id []byte
	if me == 0 {
		id = make([]byte, 128)
		if err := t.do(func() error {
			if r := C.pn_unique_id(unsafe.Pointer(&id[0])); r != 0 {
				return ncclErr("ncclGetUniqueId", r, nil)
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}
	all, err := t.ctl.AllGather(ctx, id)
	if err != nil {
		return nil, err
	}
	id = all[members[0]]
	if len(id) != 128 {
		return nil, fmt.Errorf("comm: rank %d sent a unique id of %d bytes", members[0], len(id))
	}
	g := &ncclGroup{t: t, size: len(members), me: me}
	done := make(chan error, 1)
	go func() {
		done <- t.do(func() error {
			cid := C.CBytes(id)
			defer C.free(cid)
			c := (*C.pn_comm)(C.calloc(1, C.size_t(unsafe.Sizeof(g.comm))))
			defer C.free(unsafe.Pointer(c))
			if r := C.pn_init(c, C.int(len(members)), cid, C.int(me)); r != 0 {
				return ncclErr(fmt.Sprintf("ncclCommInitRank (group %v)", members), r, nil)
			}
			g.comm = *c
			t.comms = append(t.comms, g.comm)
			return nil
		})
	}()
	timer := time.NewTimer(t.opts.timeout())
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			return nil, abort(t.ctl, fmt.Sprintf("rank %d: %v", t.ctl.Rank(), err))
		}
		t.groups[fmt.Sprint(members)] = g
		return g, nil
	case <-t.ctl.Done():
	case <-ctx.Done():
	case <-timer.C:
		t.stuck.Store(true)
		return nil, abort(t.ctl, fmt.Sprintf("joining NCCL group %v took longer than %v", members, t.opts.timeout()))
	}
	t.stuck.Store(true)
	return nil, interrupted(t.ctl, ctx)
}

// Join makes the default stream wait for the broadcasts queued so far.
func (t *NCCL) Join() error {
	return t.do(func() error {
		if r := C.pn_order(t.toMain, t.stream, nil); r != 0 {
			return cuErr("cuStreamWaitEvent", r)
		}
		return nil
	})
}

// Fence waits for the default stream and the broadcasts, polling, so that
// a stopped run, ctx, an error NCCL reports or the timeout ends the wait:
// then the communicators are aborted, which ends their kernels on this
// rank, and the run stops everywhere.
func (t *NCCL) Fence(ctx context.Context) error {
	err := t.do(func() error {
		if r := C.pn_record(t.fence[0], nil); r != 0 {
			return cuErr("cuEventRecord", r)
		}
		if r := C.pn_record(t.fence[1], t.stream); r != 0 {
			return cuErr("cuEventRecord", r)
		}
		return nil
	})
	if err != nil {
		return t.stop(fmt.Sprintf("rank %d: %v", t.ctl.Rank(), err))
	}
	deadline := time.Now().Add(t.opts.timeout())
	pause := 10 * time.Microsecond
	for {
		var ready bool
		err := t.do(func() error {
			ready = true
			for _, e := range t.fence {
				switch r := C.pn_query(e); r {
				case C.CUDA_SUCCESS:
				case C.CUDA_ERROR_NOT_READY:
					ready = false
				default:
					return cuErr("cuEventQuery", r)
				}
			}
			for _, c := range t.comms {
				var ar C.int
				if r := C.pn_async(c, &ar); r != 0 {
					return ncclErr("ncclCommGetAsyncError", r, c)
				}
				if ar != 0 {
					return ncclErr("NCCL", ar, c)
				}
			}
			return nil
		})
		switch {
		case err != nil:
			return t.stop(fmt.Sprintf("rank %d: %v", t.ctl.Rank(), err))
		case ready:
			return nil
		case t.ctl.Err() != nil || ctx.Err() != nil:
			stop := interrupted(t.ctl, ctx)
			t.abortComms()
			return stop
		case time.Now().After(deadline):
			return t.stop(fmt.Sprintf("the device work and broadcasts of a round took longer than %v on rank %d (a rank that hangs, or a link that is down)", t.opts.timeout(), t.ctl.Rank()))
		}
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Microsecond) // a round of a large run is milliseconds: wake up soon after it ends
	}
}

// stop aborts the communicators and stops the run with reason.
func (t *NCCL) stop(reason string) error {
	t.abortComms()
	return abort(t.ctl, reason)
}

// abortComms aborts every communicator (once), which ends NCCL's kernels
// and calls on this rank.
func (t *NCCL) abortComms() {
	_ = t.do(func() error {
		if !t.aborted {
			t.aborted = true
			for _, c := range t.comms {
				C.pn_comm_abort(c)
			}
		}
		return nil
	})
}

// Traffic returns the payload bytes sent as a root and received.
func (t *NCCL) Traffic() (sent, received int64) { return t.sent.Load(), t.received.Load() }

// Abort aborts the communicators, which ends the broadcasts in flight.
func (t *NCCL) Abort() { t.abortComms() }

// Close destroys the communicators (aborted ones are gone already).
func (t *NCCL) Close() error {
	select {
	case <-t.quit:
		return nil
	default:
		close(t.quit)
	}
	err := t.do(func() error {
		if t.aborted {
			return nil
		}
		for _, c := range t.comms {
			if r := C.pn_comm_destroy(c); r != 0 {
				return ncclErr("ncclCommDestroy", r, c)
			}
		}
		return nil
	})
	t.comms = nil
	return err
}

// ncclGroup is one communicator.
type ncclGroup struct {
	t        *NCCL
	comm     C.pn_comm
	size, me int
}

func (g *ncclGroup) Rank() int { return g.me }
func (g *ncclGroup) Size() int { return g.size }

// Broadcast queues ncclBroadcast (in place) on the transport's stream,
// after the work queued on the default stream so far.
func (g *ncclGroup) Broadcast(ctx context.Context, buf *cells.Buffer, root int) error {
	t := g.t
	if err := interrupted(t.ctl, ctx); err != nil {
		t.abortComms()
		return err
	}
	if root < 0 || root >= g.size {
		return fmt.Errorf("comm: broadcast from member %d of a group of %d", root, g.size)
	}
	err := t.do(func() error {
		if r := C.pn_order(t.toComm, nil, t.stream); r != 0 {
			return cuErr("cuStreamWaitEvent", r)
		}
		if r := C.pn_bcast(C.CUdeviceptr(buf.Ptr()), C.size_t(buf.Len()), C.int(root), g.comm, t.stream); r != 0 {
			return ncclErr("ncclBroadcast", r, g.comm)
		}
		return nil
	})
	if err != nil {
		return t.stop(fmt.Sprintf("rank %d: %v", t.ctl.Rank(), err))
	}
	if g.me == root {
		t.sent.Add(int64(buf.Len()) * 4)
	} else {
		t.received.Add(int64(buf.Len()) * 4)
	}
	return nil
}

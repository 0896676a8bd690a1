package gpu

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"weak"

	"github.com/pathnotes/pathnotes/graph"
)

// ssspEnv names the environment variable through which sssp-fast takes
// the alternatives that a card run measures against its defaults, so that
// one process can time them side by side (BenchmarkSSSPCall sets it between
// runs; `PATHNOTES_SSSP=pin=1 pathnotes bench ...` times one). Its value
// is a comma-separated list of key=value:
//
//	engine=auto|worklist|flag   the engine (auto: flagFrontier's rule)
//	hbatch=1|-1                 heavy entries 32 at a time (fastTuning.HeavyBatch)
//	block=B, blocks=K, group=G, heavy=H, ring=Q, wide=W, wideblock=B, steps=S
//	                            fastTuning's Block, Blocks, Group, Heavy, LocalQueue,
//	                            Wide, WideBlock, Steps
//	delta=F, widedelta=F        the bucket widths as F times their defaults
//	pin=1|0                     page-lock the graph's CSR once and keep it (csrPins)
//	result=touch|make           the result's host memory: made and touched while
//	                            the kernels run (the default), or made after them
//	flagcheck=K                 the flag engine reads its changed word every K passes
//
// An unknown key or a bad value is an error of the call that reads it.
const ssspEnv = "PATHNOTES_SSSP"

// ssspKnobs are the alternatives ssspEnv selects; the zero value is
// sssp-fast's defaults.
type ssspKnobs struct {
	engine    string // "", "worklist" or "flag"
	tun       fastTuning
	delta     float64 // factors of autoDelta and autoWideDelta (0: 1)
	wideDelta float64
	call      singleCall
	flagCheck int // passes between the flag engine's reads (0: 1)
}

// readSSSPKnobs parses ssspEnv.
func readSSSPKnobs() (ssspKnobs, error) {
	var k ssspKnobs
	val := strings.TrimSpace(os.Getenv(ssspEnv))
	if val == "" {
		return k, nil
	}
	for _, kv := range strings.Split(val, ",") {
		key, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return k, fmt.Errorf("%s: %q is not key=value", ssspEnv, kv)
		}
		num := func(lo int) (int, error) {
			x, err := strconv.Atoi(v)
			if err != nil || x < lo {
				return 0, fmt.Errorf("%s: %s=%q: want an integer ≥ %d", ssspEnv, key, v, lo)
			}
			return x, nil
		}
		var err error
		switch key {
		case "engine":
			if v != "auto" && v != "worklist" && v != "flag" {
				return k, fmt.Errorf("%s: engine=%q: want auto, worklist or flag", ssspEnv, v)
			}
			k.engine = strings.TrimPrefix(v, "auto")
		case "hbatch":
			k.tun.HeavyBatch, err = num(-1)
		case "block":
			k.tun.Block, err = num(32)
		case "blocks":
			k.tun.Blocks, err = num(1)
		case "group":
			k.tun.Group, err = num(1)
		case "heavy":
			k.tun.Heavy, err = num(-1)
		case "ring":
			k.tun.LocalQueue, err = num(1)
		case "wide":
			k.tun.Wide, err = num(-1)
		case "wideblock":
			k.tun.WideBlock, err = num(32)
		case "steps":
			k.tun.Steps, err = num(1)
		case "delta", "widedelta":
			f, perr := strconv.ParseFloat(v, 64)
			if perr != nil || !(f > 0) || math.IsInf(f, 0) {
				return k, fmt.Errorf("%s: %s=%q: want a positive factor", ssspEnv, key, v)
			}
			if key == "delta" {
				k.delta = f
			} else {
				k.wideDelta = f
			}
		case "pin":
			var p int
			p, err = num(0)
			k.call.pin = p > 0
		case "result":
			if v != "touch" && v != "make" {
				return k, fmt.Errorf("%s: result=%q: want touch or make", ssspEnv, v)
			}
			k.call.makeAfter = v == "make"
		case "flagcheck":
			k.flagCheck, err = num(1)
		default:
			return k, fmt.Errorf("%s: unknown key %q in %q", ssspEnv, key, val)
		}
		if err != nil {
			return k, err
		}
	}
	return k, nil
}

// tuning is k's fastTuning for g, the bucket widths scaled.
func (k ssspKnobs) tuning(g *graph.Graph) fastTuning {
	t := k.tun
	scale := func(def int, f float64) int {
		return int(max(1, min(float64(def)*f, float64(graph.MaxDistance))))
	}
	if k.delta > 0 {
		t.Delta = scale(autoDelta(g), k.delta)
	}
	if k.wideDelta > 0 {
		t.WideDelta = scale(autoWideDelta(g, hubs(g)), k.wideDelta)
	}
	return t
}

// singleCall is how a single-source call moves its data: the zero value
// is what every single-source variant does; sssp-fast's knobs may change
// it.
type singleCall struct {
	// pin page-locks the graph's CSR arrays on the first call that uses
	// them and keeps them so (csrPins), so that this and later uploads
	// are copies at the bus's speed straight from the graph's memory.
	pin bool
	// makeAfter makes the result's host memory after the kernels, with
	// make, as before: a copy into 4 MB that the process has not touched
	// faults its pages in one at a time.
	makeAfter bool
}

// csrPinMin is the smallest CSR array (bytes) that pin page-locks: below
// it the driver's own copy is as fast as registering would be. (A
// variable for the test, which pins the arrays of a small graph.)
var csrPinMin = 1 << 20

// csrPinMax bounds the bytes that csrPins keeps page-locked at once;
// graphs beyond it are uploaded as without pin.
const csrPinMax = 32 << 30

// csrPin is one graph's page-locked CSR arrays on one device. It holds
// the arrays (not the graph), so that they outlive their registration,
// which the graph's cleanup ends.
type csrPin struct {
	dev    *Device
	arrays [][]int32 // the registered ones
	bytes  uint64
}

// csrPinKey names a graph on a device without keeping the graph alive.
type csrPinKey struct {
	dev *Device
	g   weak.Pointer[graph.Graph]
}

// csrPins is the process's page-locked graphs: registering costs about
// 33 µs a MB of memory the process has touched (docs/gpu-benchmarks.md),
// more than one copy through the staging buffers saves, so a graph is
// registered once and stays so until it is collected.
var csrPins = struct {
	sync.Mutex
	m     map[csrPinKey]*csrPin
	bytes uint64
}{m: map[csrPinKey]*csrPin{}}

// pinCSR returns g's CSR arrays page-locked on r's device, registering
// them on the first call (arrays of csrPinMin bytes or more; a
// registration the driver refuses leaves that array out). The second
// result tells, array by array (offsets, targets, weights), which are
// page-locked.
func (r *run) pinCSR(g *graph.Graph) [3]bool {
	arrays := [3][]int32{g.Offsets(), g.Targets(), g.Weights()}
	key := csrPinKey{r.dev, weak.Make(g)}
	csrPins.Lock()
	defer csrPins.Unlock()
	p, ok := csrPins.m[key]
	if !ok {
		p = &csrPin{dev: r.dev}
		for _, a := range arrays {
			b := uint64(len(a)) * 4
			if b < uint64(csrPinMin) || csrPins.bytes+b > csrPinMax {
				continue
			}
			if r.dev.ctx.HostRegister(asBytes(a)) == nil {
				p.arrays = append(p.arrays, a)
				p.bytes += b
				csrPins.bytes += b
			}
		}
		csrPins.m[key] = p
		runtime.AddCleanup(g, unpinCSR, key)
	}
	var pinned [3]bool
	for i, a := range arrays {
		for _, q := range p.arrays {
			if len(a) > 0 && len(q) == len(a) && &q[0] == &a[0] {
				pinned[i] = true
			}
		}
	}
	return pinned
}

// unpinCSR ends the registration of a collected graph's arrays.
func unpinCSR(key csrPinKey) {
	csrPins.Lock()
	p := csrPins.m[key]
	delete(csrPins.m, key)
	if p != nil {
		csrPins.bytes -= p.bytes
	}
	csrPins.Unlock()
	if p == nil {
		return
	}
	for _, a := range p.arrays {
		_ = p.dev.ctx.HostUnregister(asBytes(a)) // a reset context has dropped it already
	}
}

// uploadPinned allocates a buffer holding host, which is page-locked:
// one copy at the bus's speed, with no staging.
func (r *run) uploadPinned(host []int32) (buffer, error) {
	b, err := r.alloc(len(host))
	if err != nil || len(host) == 0 {
		return b, err
	}
	r.prepare()
	if err := r.timed(&r.stats.HostToDevice, func() error { return r.dev.ctx.CopyIn(b.ptr, host) }); err != nil {
		return b, r.fail(err, "copying %s to the device", graph.FormatBytes(uint64(len(host))*4))
	}
	r.stats.BytesToDevice += uint64(len(host)) * 4
	return b, nil
}

// uploadCSRFor is uploadCSR, with pin through page-locked arrays.
func (r *run) uploadCSRFor(g *graph.Graph, call singleCall) (csr, error) {
	if !call.pin {
		return r.uploadCSR(g)
	}
	pinned := r.pinCSR(g)
	var c csr
	for i, dst := range []*buffer{&c.off, &c.tgt, &c.w} {
		a := [3][]int32{g.Offsets(), g.Targets(), g.Weights()}[i]
		var err error
		if pinned[i] {
			*dst, err = r.uploadPinned(a)
		} else {
			*dst, err = r.upload(a)
		}
		if err != nil {
			return c, err
		}
	}
	return c, nil
}

// singleResult starts making the host memory of a single-source result
// (distances, and predecessors with pred) while the run uploads and
// computes: not zeroed, its pages touched on every core. It returns nil
// with call.makeAfter.
func (r *run) singleResult(n int, pred bool, call singleCall) *hostResult {
	if call.makeAfter {
		return nil
	}
	count := 1
	if pred {
		count = 2
	}
	return r.newHostResult(count, 1, n, true)
}

// done releases h, if there is one (the error paths' release; the
// result's own is in finishSingle).
func (h *hostResult) done() {
	if h != nil {
		_ = h.release()
	}
}

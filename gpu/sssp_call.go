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
// runs; `PATHNOTES_SSSP=delta=0.5 pathnotes bench ...` times one). Its value
// is a comma-separated list of key=value:
//
//	engine=auto|worklist|flag   the engine (auto: flagFrontier's rule)
//	block=B, blocks=K, group=G, heavy=H, split=P, ring=Q, wide=W, wideblock=B, steps=S
//	                            fastTuning's Block, Blocks, Group, Heavy, Split,
//	                            LocalQueue, Wide, WideBlock, Steps
//	delta=F, widedelta=F        the bucket widths as F times their defaults
//	pin=auto|1|0                page-lock the graph's CSR and keep it so (csrPins):
//	                            from the second call on the same graph (auto,
//	                            the default), from the first, or never
//	flagcheck=K                 the flag engine reads its changed word every K
//	                            passes (default flagCheck)
//	head=1|-1, pool=1|-1        the arcs' heads and the idle blocks' pool
//	                            (fastTuning.Head, Pool) on or off
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
	pin       csrPinning
	flagCheck int // passes between the flag engine's reads
}

// flagCheck is how many passes sssp-fast's flag engine runs between two
// reads of its changed word: on an H200 the engine took 0.96 ms instead of
// 1.19 on out-degree 7 with 1 M vertices (the reads and the launch gaps they
// cause were a fifth of it) and the same 9.97 ms on 10 M, where 8 passes
// took 10.4 (docs/gpu-benchmarks.md, single source round 4).
const flagCheck = 4

// readSSSPKnobs parses ssspEnv.
func readSSSPKnobs() (ssspKnobs, error) {
	k := ssspKnobs{pin: pinReused, flagCheck: flagCheck}
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
		case "block":
			k.tun.Block, err = num(32)
		case "blocks":
			k.tun.Blocks, err = num(1)
		case "group":
			k.tun.Group, err = num(1)
		case "heavy":
			k.tun.Heavy, err = num(-1)
		case "split":
			k.tun.Split, err = num(-1)
		case "ring":
			k.tun.LocalQueue, err = num(1)
		case "wide":
			k.tun.Wide, err = num(-1)
		case "head":
			k.tun.Head, err = num(-1)
		case "pool":
			k.tun.Pool, err = num(-1)
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
			switch v {
			case "auto":
				k.pin = pinReused
			case "1":
				k.pin = pinFirst
			case "0":
				k.pin = pinNever
			default:
				return k, fmt.Errorf("%s: pin=%q: want auto, 1 or 0", ssspEnv, v)
			}
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

// csrPinning says when a single-source call page-locks the graph's CSR
// arrays and keeps them so (csrPins), so that its uploads are copies at
// the bus's speed straight from the graph's memory. Registering costs
// more than one staged copy saves (on an H200's host the first call on
// out-degree 7 with 10 M vertices took 71 ms instead of 42, every later
// one 26.9 instead of 41.4), so sssp-fast waits for a graph's second call.
type csrPinning int

const (
	pinNever  csrPinning = iota // staged copies on every call (the other variants)
	pinReused                   // from the second call on the same graph (sssp-fast's default)
	pinFirst                    // from the first call (PATHNOTES_SSSP=pin=1)
)

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
	tried  bool      // registration was asked for (later calls don't retry)
	arrays [][]int32 // the registered ones
	bytes  uint64
	// mirror is mirrorCSR's registered copy of the arrays and a tail,
	// mirrorTried whether it was asked for.
	mirror      []int32
	mirrorTried bool
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

// pinCSR returns which of g's CSR arrays (offsets, targets, weights) are
// page-locked on r's device. The first call on g remembers it; the call
// that registers the arrays (of minBytes or more; a registration the
// driver refuses leaves that array out) is the first with pinFirst, else
// the second. Arrays left out then stay so for g on that device.
func (r *run) pinCSR(g *graph.Graph, when csrPinning, minBytes int) [3]bool {
	arrays := [3][]int32{g.Offsets(), g.Targets(), g.Weights()}
	csrPins.Lock()
	defer csrPins.Unlock()
	p, seen := r.csrPinOf(g)
	if !p.tried && (seen || when == pinFirst) {
		p.tried = true
		for _, a := range arrays {
			b := uint64(len(a)) * 4
			if b < uint64(minBytes) || csrPins.bytes+b > csrPinMax {
				continue
			}
			if r.dev.ctx.HostRegister(asBytes(a)) == nil {
				p.arrays = append(p.arrays, a)
				p.bytes += b
				csrPins.bytes += b
			}
		}
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

// csrMirrorMin is the smallest CSR (bytes) that mirrorCSR copies: smaller
// copies might share their pages with other Go values (or another graph's
// copy), and copying them through a staging buffer costs little.
const csrMirrorMin = 64 << 10

// mirrorCSR returns a page-locked copy of g's CSR arrays, one after the
// other and followed by tail, whose values it writes there on every call,
// for one copy to r's device from memory the device reads at the bus's
// speed. The first call on g (of any variant) only remembers it; the
// second makes the copy, registered for every context and kept until g is
// collected (unpinCSR), unless it is smaller than csrMirrorMin, would take
// the registered bytes past csrPinMax, or the driver refuses it. nil where
// there is none, or it was made with a tail of another length. A run holds
// its device until its copies are done, so the next call may rewrite the
// tail.
func (r *run) mirrorCSR(g *graph.Graph, tail []int32) []int32 {
	parts := [3][]int32{g.Offsets(), g.Targets(), g.Weights()}
	total := len(parts[0]) + len(parts[1]) + len(parts[2])
	csrPins.Lock()
	defer csrPins.Unlock()
	p, seen := r.csrPinOf(g)
	if !seen {
		return nil
	}
	if !p.mirrorTried {
		p.mirrorTried = true
		b := uint64(total+len(tail)) * 4
		if b >= csrMirrorMin && csrPins.bytes+b <= csrPinMax {
			m := make([]int32, total+len(tail))
			concatCSR(m, parts, tail)
			if r.dev.ctx.HostRegister(asBytes(m)) == nil {
				p.mirror = m
				p.bytes += b
				csrPins.bytes += b
			}
		}
	}
	if len(p.mirror) != total+len(tail) {
		return nil
	}
	copy(p.mirror[total:], tail)
	return p.mirror
}

// csrPinOf returns g's entry in csrPins for r's device, and whether it
// was there: a new one is kept until g is collected (unpinCSR). csrPins
// is locked.
func (r *run) csrPinOf(g *graph.Graph) (*csrPin, bool) {
	key := csrPinKey{r.dev, weak.Make(g)}
	p, seen := csrPins.m[key]
	if !seen {
		p = &csrPin{dev: r.dev}
		csrPins.m[key] = p
		runtime.AddCleanup(g, unpinCSR, key)
	}
	return p, seen
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
	for _, a := range append(p.arrays, p.mirror) {
		if len(a) > 0 {
			_ = p.dev.ctx.HostUnregister(asBytes(a)) // a reset context has dropped it already
		}
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

// uploadCSRFor is uploadCSR, through page-locked arrays where pin says.
func (r *run) uploadCSRFor(g *graph.Graph, pin csrPinning) (csr, error) {
	if pin == pinNever {
		return r.uploadCSR(g)
	}
	pinned := r.pinCSR(g, pin, csrPinMin)
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
// computes: not zeroed, its pages touched on every core (made after the
// kernels, a copy into 4 MB that the process had not touched faulted its
// pages in one at a time: 3.07 ms instead of 0.35 on an H200's host).
func (r *run) singleResult(n int, pred bool) *hostResult {
	count := 1
	if pred {
		count = 2
	}
	return r.newHostResult(count, 1, n, true, false)
}

// done releases h (the error paths' release; the result's own is in
// finishSingle, after which this does nothing).
func (h *hostResult) done() {
	_ = h.release()
}

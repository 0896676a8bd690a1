package gpu

import (
	"sort"
	"sync"

	"github.com/pathnotes/pathnotes/graph"
)

// How apsp-batched shares the sources among several devices. Each device
// runs its batches as launches of apsp_batch, and a launch lasts until its
// slowest block is done: the sources of a launch that are still running
// when the others have finished leave blocks idle (the launch's tail).
// The sources of a graph do not cost the same: in p2p-Gnutella30 about
// three in four have no out-arc and settle at once, and the others reach
// most of the graph, more densely among the first eighth of the numbers.

// shareWay is one way of sharing the sources among devices.
type shareWay int

const (
	// shareHalves gives each device one contiguous share of the sources,
	// cut into apspPipe batches or more.
	shareHalves shareWay = iota
	// shareDealt cuts the sources into apspPipe contiguous chunks a
	// device and deals them to the devices in turn, so that each share
	// spans the whole range (a share of apspPipeBytes or more still runs
	// in as many batches, with as many batch tails as contiguous
	// shares).
	shareDealt
	// shareDynamic lets each device claim its next batch from one counter
	// shared by all, when it is about to need it, so that a device that
	// gets through its batches faster takes more of them. A claim is
	// guided: it takes 1/(2·devices) of the sources left that have out-
	// arcs, at least one launch's worth (a source for every block of the
	// launch), rounded up to whole launches' worth, so that claims shrink
	// towards the end and the devices finish together.
	shareDynamic
)

// String names the way as the card benchmark does.
func (w shareWay) String() string {
	switch w {
	case shareHalves:
		return "halves"
	case shareDealt:
		return "dealt"
	case shareDynamic:
		return "dynamic"
	}
	return "unknown"
}

// apspShare is how apsp-batched shares the sources among several devices
// (a single device always solves them as one contiguous share). Contiguous
// shares are the default: two H200s gave 1.84–1.88× one with them, and
// 1.72× with dealt chunks (docs/gpu-benchmarks.md); the card benchmark
// BenchmarkAPSPCards times all three ways in one process.
var apspShare = shareHalves

// apspOverlap makes each device run its batches on two compute streams
// in turn, so that the next batch's blocks fill the multiprocessors that
// a batch's tail leaves idle (apspRows). On two H200s (BenchmarkAPSPCards,
// p2p-Gnutella30, medians of nine calls, rows finished by their blocks:
// apspFused; docs/gpu-benchmarks.md) it takes two cards' kernels from
// 94.2 to 81.3 ms (1.96× one card on one stream) and leaves one card's
// whole call as it was, but two cards' whole call is 13 ms slower (133.6
// against 120.6 ms): off.
var apspOverlap = false

// span is the sources first..first+count-1.
type span struct{ first, count int }

// sourceFeed hands the devices of one apsp-batched run their batches of
// sources; its methods may be called from the devices' goroutines at once.
type sourceFeed struct {
	way     shareWay
	n       int
	devices int
	big     bool // the result is apspPipeBytes or more

	mu     sync.Mutex
	shares [][]span // halves and dealt: what each device has not taken yet
	next   int      // dynamic: the first source not claimed
	live   []int32  // dynamic: live[s] is how many of the sources 0..s-1 have out-arcs
}

// newSourceFeed prepares the sharing of g's sources among devices in way
// (contiguous for a single device), for a result of matrices n×n
// matrices.
func newSourceFeed(g *graph.Graph, devices int, way shareWay, matrices int) *sourceFeed {
	n := g.N()
	if devices == 1 {
		way = shareHalves
	}
	f := &sourceFeed{way: way, n: n, devices: devices, big: uint64(n)*uint64(n)*4*uint64(matrices) >= apspPipeBytes}
	switch way {
	case shareHalves:
		f.shares = dealSources(n, devices, 1)
	case shareDealt:
		f.shares = dealSources(n, devices, apspPipe)
	case shareDynamic:
		f.live = make([]int32, n+1)
		for s := range n {
			f.live[s+1] = f.live[s]
			if g.OutDegree(s) > 0 {
				f.live[s+1]++
			}
		}
	}
	return f
}

// plan is what device c provisions for: how many sources it may get in
// all, and the batch it asks batchSize for (0: as many as memory holds).
// A contiguous or dealt share of a result of apspPipeBytes or more is cut
// into apspPipe batches; a dynamic device's batch holds the largest
// claim, 1/(2·devices) of the sources, when the result is that large.
func (f *sourceFeed) plan(c int) (sources, want int) {
	if f.way == shareDynamic {
		if f.big {
			want = ceilDiv(f.n, 2*f.devices)
		}
		return f.n, want
	}
	for _, s := range f.shares[c] {
		sources += s.count
	}
	if f.big {
		want = ceilDiv(sources, apspPipe)
	}
	return sources, want
}

// take hands device c its next batch, at most most (≥ 1) sources, for
// launches of blocks blocks; a count of 0 means that none are left.
func (f *sourceFeed) take(c, most, blocks int) span {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.way != shareDynamic {
		q := f.shares[c]
		if len(q) == 0 {
			return span{}
		}
		s := span{q[0].first, min(q[0].count, most)}
		q[0].first += s.count
		if q[0].count -= s.count; q[0].count == 0 {
			f.shares[c] = q[1:]
		}
		return s
	}
	first, rest := f.next, f.n-f.next
	if rest == 0 {
		return span{}
	}
	count := rest
	live := int(f.live[f.n] - f.live[first])
	if want := ceilDiv(max(blocks, ceilDiv(live, 2*f.devices)), blocks) * blocks; want < live {
		// The fewest sources from first that hold want with out-arcs.
		count = 1 + sort.Search(rest, func(k int) bool { return int(f.live[first+k+1]-f.live[first]) >= want })
	}
	count = min(count, most)
	f.next += count
	return span{first, count}
}

// dealSources splits the sources 0..n-1 into chunks·devices contiguous
// chunks of (nearly) equal size and deals the non-empty ones to the
// devices in turn (one chunk in all for a single device).
func dealSources(n, devices, chunks int) [][]span {
	shares := make([][]span, devices)
	if devices == 1 {
		chunks = 1
	}
	chunks *= devices
	d := 0
	for i := range chunks {
		lo, hi := i*n/chunks, (i+1)*n/chunks
		if hi > lo {
			shares[d] = append(shares[d], span{lo, hi - lo})
			d = (d + 1) % devices
		}
	}
	return shares
}

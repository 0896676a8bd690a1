package gpu

import (
	"runtime"
	"sync/atomic"
)

// reuseMinBytes is the least result (all its matrices) that reuseFreed
// and countLarge deal with. A variable, so that tests can use small
// results.
var reuseMinBytes uint64 = 1 << 30

// largeLive is the bytes of the results of reuseMinBytes or more that no
// collection has found dead yet (countLarge).
var largeLive atomic.Uint64

// reuseFreed collects garbage before a result of bytes is allocated, when
// it is reuseMinBytes or more and earlier results of that size that no
// collection has found dead yet hold as many bytes: the caller may have
// dropped them since, as a loop does. Their memory, faulted in already,
// is then free for this result, which would otherwise fault in fresh
// pages (10.8 GB for apsp-batched on p2p-Gnutella30 with Π: about 0.2 s
// on an H200's host, 0.33 s in a virtual machine's first minutes). When
// the caller keeps its results the collection finds nothing, and costs
// the marking of the live heap, to which large results (no pointers)
// add next to nothing. It reports whether it collected.
func reuseFreed(bytes uint64) bool {
	if bytes < reuseMinBytes || largeLive.Load() < bytes {
		return false
	}
	runtime.GC()
	return true
}

// countLarge counts m, a matrix of a result of reuseMinBytes or more, in
// largeLive until a collection finds it dead.
func countLarge(m []int32) {
	if len(m) == 0 {
		return
	}
	b := uint64(len(m)) * 4
	largeLive.Add(b)
	runtime.AddCleanup(&m[0], func(b uint64) { largeLive.Add(-b) }, b)
}

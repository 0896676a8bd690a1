package gpu

import (
	"context"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/graph"
)

// forcedCollections is how many collections the process has forced.
func forcedCollections(t *testing.T) uint64 {
	t.Helper()
	s := []metrics.Sample{{Name: "/gc/cycles/forced:gc-cycles"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		t.Fatal("no /gc/cycles/forced:gc-cycles metric")
	}
	return s[0].Value.Uint64()
}

// settleLarge collects garbage until largeLive is at most want, or fails
// after a second.
func settleLarge(t *testing.T, want uint64) {
	t.Helper()
	for range 100 {
		runtime.GC()
		if largeLive.Load() <= want {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("largeLive stays at %d bytes, want %d or less", largeLive.Load(), want)
}

// TestReuseFreed follows reuseFreed and countLarge with reuseMinBytes
// lowered to 64 KiB: a result collects garbage first only while earlier
// large results that may be dead hold as many bytes as it needs, and
// apsp-batched on the emulator does so after a call whose result was
// dropped, reusing its memory.
func TestReuseFreed(t *testing.T) {
	defer func(b uint64) { reuseMinBytes = b }(reuseMinBytes)
	reuseMinBytes = 64 << 10
	settleLarge(t, 0)
	if reuseFreed(1 << 20) {
		t.Fatal("collected garbage with no large result counted")
	}
	m := uninitInt32s(1 << 18) // 1 MiB
	countLarge(m)
	if largeLive.Load() != 1<<20 {
		t.Fatalf("largeLive is %d after counting 1 MiB", largeLive.Load())
	}
	if reuseFreed(32<<10) || reuseFreed(2<<20) {
		t.Fatal("collected garbage for a result under reuseMinBytes, or larger than what is counted")
	}
	if !reuseFreed(1 << 20) {
		t.Fatal("a result of 1 MiB did not collect garbage with 1 MiB counted")
	}
	runtime.KeepAlive(m)
	m = nil
	settleLarge(t, 0)

	dev := emulator(t)
	g, err := graph.GNM(300, 3000, graph.WeightRange{Min: 1, Max: 9}, 5)
	if err != nil {
		t.Fatal(err)
	}
	first, err := APSPBatched(context.Background(), g, Options{Device: dev, Pred: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := uint64(2 * 300 * 300 * 4); largeLive.Load() != want {
		t.Fatalf("largeLive is %d after a result of %d bytes", largeLive.Load(), want)
	}
	before := forcedCollections(t)
	first = nil
	again, err := APSPBatched(context.Background(), g, Options{Device: dev, Pred: true})
	if err != nil {
		t.Fatal(err)
	}
	if forcedCollections(t) == before {
		t.Fatal("apsp-batched did not collect garbage with the result of the call before dropped")
	}
	settleLarge(t, uint64(2*300*300*4)) // the first result was found dead
	runtime.KeepAlive(first)
	runtime.KeepAlive(again)
}

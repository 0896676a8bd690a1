//go:build cuda

package gpu

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/graph"
)

// callParts reports the medians of the parts of calls (Stats.Split, and
// Stats.End within the result part) and of their wall time as benchmark
// metrics.
func callParts(b *testing.B, all []Stats) {
	med := func(f func(Stats) time.Duration) float64 { return medianMs(all, f) }
	b.ReportMetric(med(func(s Stats) time.Duration { return s.Wall }), "wall-ms")
	b.ReportMetric(med(func(s Stats) time.Duration { return s.Prepare }), "prep-ms")
	b.ReportMetric(med(func(s Stats) time.Duration { return s.HostToDevice }), "up-ms")
	b.ReportMetric(med(func(s Stats) time.Duration { return s.Kernel }), "kernel-ms")
	b.ReportMetric(med(func(s Stats) time.Duration { return s.DeviceToHost }), "down-ms")
	b.ReportMetric(med(func(s Stats) time.Duration { return s.Result }), "result-ms")
	b.ReportMetric(med(func(s Stats) time.Duration { return s.End }), "end-ms")
}

// medianMs is the median of f over all, in milliseconds.
func medianMs(all []Stats, f func(Stats) time.Duration) float64 {
	v := make([]float64, len(all))
	for i, s := range all {
		v[i] = float64(f(s)) / 1e6
	}
	slices.Sort(v)
	return v[len(v)/2]
}

// BenchmarkFWFastCall times whole fw-fast calls (graph in Go memory to
// result in Go memory) on GNM graphs of 60 arcs a vertex, weights 1..100,
// with and without predecessors, by path through the stages (ffPaths:
// ff_small, the 128-wide stages with quarter panels, full tiles;
// "auto" is the default) and by the path results take back (registered,
// staged, pageable; "no-huge" keeps results off transparent huge pages,
// hugeResults). "auto-old" turns off the three
// ways of the call built after the H200 call of build 2d92d00: results
// up to 32 MiB in pieces through the staging buffer (pipedMaxBytes),
// one wait for the device (ffOneWait) and the arcs through the staging
// buffer (arcsStaged); "old-result", "old-wait" and "old-upload" turn off
// one each. "piped-was" takes results in pieces as before build fdf8758's
// call: up to 32 MiB, 16 pieces a matrix (of at least 512 KiB). "split-was" copies each piece
// out on one goroutine (pipedSplit), "spawn" starts a goroutine for each
// part as it arrives instead of spinning workers (pipedWorkers 0),
// "piece-512k" and "piece-2m" aim at pieces of that size (pipedPiece),
// and "no-pin" copies the arcs through the staging buffer on every call
// (arcsPin); "pi-stages" computes Π in the stages instead of with ff_tight
// after them (ffTightPi), "tight-serial" copies the distances back
// after ff_tight instead of while it runs (ffTightOverlap), and
// "fetch-one" copies the two matrices back one after the other rather than
// in one pipe (ffFetchBoth); "wide" runs the 32-bit stages where the
// 16-bit ones would run (ffNarrow), "narrow-full" the 16-bit stages
// with whole tiles a block at every size, "narrow-p64" with their
// panels in halves of tiles, not quarters (ffNarrowPanelRows),
// "narrow-128" with 128-wide tiles a launch a phase at every size,
// "narrow-one" all its stages in one launch of f16_small at every size
// ffSmall allows (ffNarrowOneMax); "yield-each" has a waiting copy-out worker
// yield at every look (pipedSpin 1); "quiet" asks for no statistics, as a
// notebook's call does (no timing events), and reports the host's wall time
// of each call alone; "build-apart" builds the 16-bit matrix in a launch
// before f16_small (ffNarrowBuildApart), so that kernel-ms is the stages'
// own time; "tight-512" (n ≥ 16384) runs ff_tight_r1 in blocks of 512
// threads instead of ffTightOneThreads' 1024; "no-kept" (n ≤ 8192)
// turns keepResults off, so that results come back through the staging
// buffer instead of straight into page-locked matrices kept from call to
// call; and "held" and "no-kept-held" (n ≤ 2048) keep every result until
// the case ends, as a notebook that keeps its results does, so that each
// lands on memory no earlier result had (held: page-locked after its
// call while keptTotalMax allows). Each configuration collects garbage
// before its timed calls.
// $PATHNOTES_FW_CALL_SIZES picks the vertex counts (fwCallSizes).
func BenchmarkFWFastCall(b *testing.B) {
	dev := testDevice(b)
	defer func(p int, h bool, m uint64, w, a bool, pp, pn, sp, ss, sn int, ap, tp, to, fb, nw bool) {
		resultPath, hugeResults, pipedMaxBytes, ffOneWait, arcsStaged, pipedPiece, pipedPieces, pipedSplit, pipedWorkers, pipedSpin, arcsPin, ffTightPi, ffTightOverlap, ffFetchBoth, ffNarrow = p, h, m, w, a, pp, pn, sp, ss, sn, ap, tp, to, fb, nw
	}(resultPath, hugeResults, pipedMaxBytes, ffOneWait, arcsStaged, pipedPiece, pipedPieces, pipedSplit, pipedWorkers, pipedSpin, arcsPin, ffTightPi, ffTightOverlap, ffFetchBoth, ffNarrow)
	defer func(m, k bool, one int) { callMarks, keepResults, ffTightOneThreads = m, k, one }(callMarks, keepResults, ffTightOneThreads)
	type config struct {
		path   ffPath
		via    int
		name   string
		noHuge bool // hugeResults off
		// oldResult, oldWait and oldUpload turn pipedMaxBytes, ffOneWait
		// and arcsStaged off.
		oldResult, oldWait, oldUpload bool
		// pipedWas sets pipedMaxBytes and pipedPieces as they were
		// before build fdf8758's call: 32 MiB, 16 pieces.
		pipedWas bool
		// split and piece, when set, replace pipedSplit and
		// pipedPiece; spawn sets pipedWorkers to 0.
		split, piece int
		spawn        bool
		yieldEach    bool // pipedSpin 1: a waiting worker yields at every look
		noPin        bool // arcsPin off
		stagesPi     bool // ffTightPi off: Π from the stages, not ff_tight
		tightSerial  bool // ffTightOverlap off
		fetchOne     bool // ffFetchBoth off
		wide         bool // ffNarrow off: the 32-bit stages
		marks        bool // callMarks: the marks' device and host times (callMarkParts)
		quiet        bool // no Options.Stats: the call as a notebook makes it, timed by the host alone
		tight512     bool // ffTightOneThreads 512: ff_tight_r1 in blocks of 512 threads
		noKept       bool // keepResults off: results through the staging buffer
		hold         bool // every result kept until the case ends, so that each lands on memory no result had
	}
	piped, piece, pieces, split, workers, spin := pipedMaxBytes, pipedPiece, pipedPieces, pipedSplit, pipedWorkers, pipedSpin
	auto := ffPath{name: "auto", small: ffSmallMax, smallPred: ffSmallPredMax, quarter: ffQuarterMax}
	paths := map[string]ffPath{}
	for _, p := range ffPaths(0) {
		paths[p.name] = p
	}
	var sizes []int
	list := cmp.Or(os.Getenv("PATHNOTES_FW_CALL_SIZES"), fwCallSizes)
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			b.Fatalf("PATHNOTES_FW_CALL_SIZES: bad size %q in %q", f, list)
		}
		sizes = append(sizes, n)
	}
	for _, n := range sizes {
		g, err := graph.GNM(n, 60*n, graph.WeightRange{Min: 1, Max: 100}, 1)
		if err != nil {
			b.Fatal(err)
		}
		apart := auto
		apart.buildApart = true
		configs := []config{{path: auto, name: "auto"}, {path: auto, name: "quiet", quiet: true}, {path: apart, name: "build-apart"},
			{path: auto, name: "auto-old", oldResult: true, oldWait: true, oldUpload: true},
			{path: auto, name: "pi-stages", stagesPi: true}, {path: auto, name: "tight-serial", tightSerial: true},
			{path: auto, name: "fetch-one", fetchOne: true}, {path: auto, name: "wide", wide: true},
			{path: paths["narrow-full"], name: "narrow-full"}, {path: paths["narrow-half-p64"], name: "narrow-p64"},
			{path: paths["narrow-half"], name: "narrow-128"}, {path: paths["narrow-one"], name: "narrow-one"}}
		switch {
		case n <= 4096:
			for _, p := range []string{"small", "stages-quarter", "full"} {
				configs = append(configs, config{path: paths[p], name: p})
			}
			for _, v := range []struct {
				via  int
				name string
			}{{viaRegistered, "registered"}, {viaStaged, "staged"}, {viaPageable, "pageable"}} {
				configs = append(configs, config{path: auto, via: v.via, name: v.name})
			}
		case n == 8192:
			configs = append(configs, config{path: ffPath{name: "quarter", quarter: 1 << 20}, name: "quarter"})
		default:
			configs = append(configs, config{path: auto, via: viaStaged, name: "staged"})
		}
		if n <= 2048 {
			configs = append(configs, config{path: auto, name: "marks", marks: true}, config{path: auto, name: "old-result", oldResult: true},
				config{path: auto, name: "old-wait", oldWait: true}, config{path: auto, name: "old-upload", oldUpload: true})
		}
		configs = append(configs, config{path: auto, name: "no-huge", noHuge: true})
		if n <= 8192 {
			configs = append(configs, config{path: auto, name: "no-kept", noKept: true})
		}
		if n <= 2048 {
			configs = append(configs, config{path: auto, name: "held", hold: true}, config{path: auto, name: "no-kept-held", noKept: true, hold: true})
		}
		if n >= 16384 {
			configs = append(configs, config{path: auto, name: "tight-512", tight512: true})
		}
		if n <= 4096 {
			configs = append(configs, config{path: auto, name: "piped-was", pipedWas: true},
				config{path: auto, name: "split-was", split: 1 << 30, spawn: true}, config{path: auto, name: "spawn", spawn: true},
				config{path: auto, name: "piece-512k", piece: 128 << 10}, config{path: auto, name: "piece-2m", piece: 512 << 10},
				config{path: auto, name: "no-pin", noPin: true}, config{path: auto, name: "yield-each", yieldEach: true})
		}
		for _, pred := range []bool{false, true} {
			var ref []int32 // the distances of the first configuration, which every other's must equal
			for _, c := range configs {
				b.Run(fmt.Sprintf("n=%d/pred=%v/%s", n, pred, c.name), func(b *testing.B) {
					setFFPath(b, c.path)
					if !c.path.narrow {
						ffNarrow = !c.wide // as set by default, or off
					}
					resultPath, hugeResults = c.via, !c.noHuge
					pipedMaxBytes, ffOneWait, arcsStaged, pipedPiece, pipedPieces = piped, !c.oldWait, !c.oldUpload, piece, pieces
					pipedSplit, pipedWorkers, pipedSpin = split, workers, spin
					if c.yieldEach {
						pipedSpin = 1
					}
					if c.split > 0 {
						pipedSplit = c.split
					}
					if c.spawn {
						pipedWorkers = 0
					}
					arcsPin, ffTightPi, ffTightOverlap, ffFetchBoth = !c.noPin, !c.stagesPi, !c.tightSerial, !c.fetchOne
					callMarks, keepResults, ffTightOneThreads = c.marks, !c.noKept, 1024
					if c.tight512 {
						ffTightOneThreads = 512
					}
					if c.piece > 0 {
						pipedPiece = c.piece
					}
					if c.oldResult {
						pipedMaxBytes = 0
					}
					if c.pipedWas {
						pipedMaxBytes, pipedPieces, pipedPiece = 32<<20, 16, 128<<10
					}
					opts := Options{Device: dev, Pred: pred}
					res, err := FWFast(context.Background(), g, opts)
					if err != nil {
						b.Fatal(err)
					}
					if ref == nil {
						ref = res.Dist
					} else if !slices.Equal(res.Dist, ref) {
						b.Fatalf("%s: the distances differ from those of %s", c.name, configs[0].name)
					}
					runtime.GC()
					all := make([]Stats, b.N)
					b.ResetTimer()
					if c.quiet {
						for i := range b.N {
							t0 := time.Now()
							if _, err := FWFast(context.Background(), g, opts); err != nil {
								b.Fatal(err)
							}
							all[i].Wall = time.Since(t0)
						}
						b.ReportMetric(medianMs(all, func(s Stats) time.Duration { return s.Wall }), "wall-ms")
						return
					}
					var held []*graph.AllPairs
					for i := range b.N {
						opts.Stats = &all[i]
						res, err := FWFast(context.Background(), g, opts)
						if err != nil {
							b.Fatal(err)
						}
						if c.hold {
							held = append(held, res)
						}
					}
					runtime.KeepAlive(held)
					callParts(b, all)
					callMarkParts(b, all)
				})
			}
		}
	}
}

// fwCallSizes are BenchmarkFWFastCall's vertex counts unless
// $PATHNOTES_FW_CALL_SIZES names others (comma-separated), such as 32768
// and 65536: a call at 65536 takes seconds, and its result with Π 32 GiB
// of host memory.
const fwCallSizes = "1024,2048,4096,8192,16384"

// callMarkParts reports the medians of the calls' marks (callMarks) as
// benchmark metrics: d-NAME-us the device time from the first mark to
// NAME (marks with an event), h-NAME-us the host time from the call's
// start to when NAME was queued (every mark). Calls without marks report
// nothing.
func callMarkParts(b *testing.B, all []Stats) {
	if len(all) == 0 {
		return
	}
	for i, m := range all[0].marks {
		dev, host := make([]float64, 0, len(all)), make([]float64, 0, len(all))
		for _, s := range all {
			if i < len(s.marks) && s.marks[i].name == m.name {
				dev = append(dev, float64(s.marks[i].device)/1e3)
				host = append(host, float64(s.marks[i].host)/1e3)
			}
		}
		slices.Sort(dev)
		slices.Sort(host)
		if !m.hostOnly {
			b.ReportMetric(dev[len(dev)/2], "d-"+m.name+"-us")
		}
		b.ReportMetric(host[len(host)/2], "h-"+m.name+"-us")
	}
}

// BenchmarkAPSPCall times whole apsp-batched calls with predecessors on
// p2p-Gnutella30 (two 5.4 GB results), by result path, and staged with
// the result on transparent huge pages (hugeResults). The fresh cases keep
// every result, so that each call's result lies in memory the process has
// not touched before (a first call, or a caller that keeps its results),
// its pages faulted in by the copies or touched before the launch (first:
// apspTouch). On Linux each case also reports, per call, the kernel's
// huge-page faults served (thp-alloc), those that fell back to 4 KiB
// pages (thp-fallback) and the faults that stalled to compact memory
// (compact-stall), from /proc/vmstat: a fresh result that falls back
// faults 10.8 GB a 4 KiB page at a time.
func BenchmarkAPSPCall(b *testing.B) {
	dev := testDevice(b)
	defer func(p int, h, t bool) { resultPath, hugeResults, apspTouch = p, h, t }(resultPath, hugeResults, apspTouch)
	g := gnutella30().get(b)
	for _, c := range []struct {
		name               string
		path               int
		huge, fresh, touch bool
	}{{"registered", viaRegistered, false, false, false}, {"staged", viaStaged, false, false, false},
		{"staged-huge", viaStaged, true, false, false}, {"staged-huge-fresh", viaStaged, true, true, false},
		{"staged-huge-fresh-first", viaStaged, true, true, true}} {
		b.Run(c.name, func(b *testing.B) {
			resultPath, hugeResults, apspTouch = c.path, c.huge, c.touch
			var all []Stats
			var kept []*graph.AllPairs
			counters := []string{"thp_fault_alloc", "thp_fault_fallback", "compact_stall"}
			metrics := []string{"thp-alloc", "thp-fallback", "compact-stall"}
			before := vmstat(counters...)
			for range min(b.N, 4) {
				var st Stats
				res, err := APSPBatched(context.Background(), g, Options{Device: dev, Pred: true, Stats: &st})
				if err != nil {
					b.Fatal(err)
				}
				all = append(all, st)
				if c.fresh {
					kept = append(kept, res)
				} else {
					runtime.GC()
				}
			}
			callParts(b, all)
			if after := vmstat(counters...); before != nil && after != nil {
				for k, c := range counters {
					b.ReportMetric(float64(after[c]-before[c])/float64(len(all)), metrics[k])
				}
			}
			runtime.KeepAlive(kept)
			runtime.GC()
			debug.FreeOSMemory()
		})
	}
}

// BenchmarkHostRegister times cuMemHostRegister and cuMemHostUnregister of
// Go memory, fresh (never touched) and touched, and a copy of the device
// into it, against a copy into pageable memory.
func BenchmarkHostRegister(b *testing.B) {
	dev := testDevice(b)
	dev.mu.Lock()
	defer dev.mu.Unlock()
	c := dev.ctx
	for _, mib := range []int{4, 64, 1024, 8192} {
		bytes := mib << 20
		src, err := c.Alloc(uint64(min(bytes, 1<<30)))
		if err != nil {
			b.Fatal(err)
		}
		for _, touched := range []bool{false, true} {
			b.Run(fmt.Sprintf("MiB=%d/touched=%v", mib, touched), func(b *testing.B) {
				var reg, unreg, dma, pageable time.Duration
				for range b.N {
					m := uninitInt32s(bytes / 4)
					if touched {
						for i := 0; i < len(m); i += 1024 {
							m[i] = 0
						}
					}
					hb := asBytes(m)
					t0 := time.Now()
					if err := c.HostRegister(hb); err != nil {
						b.Fatal(err)
					}
					t1 := time.Now()
					for off := 0; off < len(hb); off += 1 << 30 {
						part := hb[off:min(off+1<<30, len(hb))]
						if err := c.CopyOutAsync(part, src, 0); err != nil {
							b.Fatal(err)
						}
					}
					if err := c.SyncStream(0); err != nil {
						b.Fatal(err)
					}
					t2 := time.Now()
					if err := c.HostUnregister(hb); err != nil {
						b.Fatal(err)
					}
					t3 := time.Now()
					if err := c.CopyOut(m[:min(len(m), 1<<28)], src); err != nil {
						b.Fatal(err)
					}
					t4 := time.Now()
					reg, dma, unreg, pageable = reg+t1.Sub(t0), dma+t2.Sub(t1), unreg+t3.Sub(t2), pageable+t4.Sub(t3)
					runtime.KeepAlive(m)
				}
				ms := func(d time.Duration) float64 { return float64(d) / 1e6 / float64(b.N) }
				b.ReportMetric(ms(reg), "register-ms")
				b.ReportMetric(ms(dma), "copy-ms")
				b.ReportMetric(ms(unreg), "unregister-ms")
				b.ReportMetric(ms(pageable), "pageable-copy-ms")
			})
		}
		_ = c.Free(src)
	}
}

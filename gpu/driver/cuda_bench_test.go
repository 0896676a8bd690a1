//go:build cuda

package driver

import (
	"context"
	"slices"
	"testing"
	"time"
)

// nopPTX holds two kernels that do nothing, one without parameters and
// one with eight, as fw-fast's f16_small has.
const nopPTX = `.version 7.8
.target sm_52
.address_size 64
.visible .entry nop() { ret; }
.visible .entry nop8(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 d,
	.param .u64 e, .param .u64 f, .param .u64 g, .param .u64 h) { ret; }
`

// BenchmarkCalls times what single driver calls cost the host on the
// first CUDA device, the price of each call a small fw-fast call makes
// before its kernels: making the context current (every call's cudaCtx.do
// does it), launches of a kernel without parameters and with eight, a
// memset of three words, an event's record and a 24-byte copy back into
// page-locked memory; and copies to the device of 480 KiB (the arcs'
// targets of fw-fast's benchmark graph at n = 2048) and of 8 KiB (its
// offsets), from page-locked memory the driver allocated (pinned) and from
// Go memory page-locked with HostRegister (registered), as fw-fast's
// upload makes them. Each call is timed alone, with the device drained
// every 32 calls outside the timing, and the median is reported as
// host-us.
func BenchmarkCalls(b *testing.B) {
	d, err := CUDA()
	if err != nil {
		b.Fatal(err)
	}
	c, err := d.Open(0)
	if err != nil {
		b.Fatal(err)
	}
	m, err := c.LoadModule("nop", nopPTX)
	if err != nil {
		b.Fatal(err)
	}
	nop, err := c.Function(m, "nop")
	if err != nil {
		b.Fatal(err)
	}
	nop8, err := c.Function(m, "nop8")
	if err != nil {
		b.Fatal(err)
	}
	p, err := c.Alloc(64)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Free(p)
	e, err := c.NewEvent()
	if err != nil {
		b.Fatal(err)
	}
	defer c.DestroyEvent(e)
	host, err := c.HostAlloc(64)
	if err != nil {
		b.Fatal(err)
	}
	defer c.HostFree(host)
	const big = 480 << 10
	dev, err := c.Alloc(big)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Free(dev)
	pinned, err := c.HostAlloc(big)
	if err != nil {
		b.Fatal(err)
	}
	defer c.HostFree(pinned)
	registered := make([]byte, big)
	if err := c.HostRegister(registered); err != nil {
		b.Fatal(err)
	}
	defer c.HostUnregister(registered)
	ctx, args := context.Background(), make([]uint64, 8)
	one := Dim3{1, 1, 1}
	for _, call := range []struct {
		name string
		f    func() error
	}{
		{"current", func() error { return c.(*cudaCtx).do("cuCtxSetCurrent", func() error { return nil }) }},
		{"launch", func() error { return c.Launch(ctx, nop, one, Dim3{32, 1, 1}, 0, nil) }},
		{"launch-8", func() error { return c.Launch(ctx, nop8, one, Dim3{32, 1, 1}, 0, args) }},
		{"memset", func() error { return c.Memset32(p, 0, 3) }},
		{"record", func() error { return c.Record(e) }},
		{"copy-out", func() error { return c.CopyOutAsync(host[:24], p, 0) }},
		{"copy-in-480k-pinned", func() error { return c.CopyInAsync(dev, pinned, 0) }},
		{"copy-in-480k-registered", func() error { return c.CopyInAsync(dev, registered, 0) }},
		{"copy-in-8k-pinned", func() error { return c.CopyInAsync(dev, pinned[:8<<10], 0) }},
		{"copy-in-8k-registered", func() error { return c.CopyInAsync(dev, registered[:8<<10], 0) }},
	} {
		b.Run(call.name, func(b *testing.B) {
			took := make([]float64, 0, b.N)
			for i := range b.N {
				t0 := time.Now()
				if err := call.f(); err != nil {
					b.Fatal(err)
				}
				took = append(took, float64(time.Since(t0))/1e3)
				if i%32 == 31 {
					if err := c.Synchronize(); err != nil {
						b.Fatal(err)
					}
				}
			}
			if err := c.Synchronize(); err != nil {
				b.Fatal(err)
			}
			slices.Sort(took)
			b.ReportMetric(took[len(took)/2], "host-us")
		})
	}
}

package ptxemu

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// The instruction tests run small PTX kernels written by hand. laneKernel
// wraps a body into a kernel of one warp: each lane loads its inputs a, b
// and c (64-bit words in[lane], in[32+lane], in[64+lane]) into %rd1-%rd3,
// %r1-%r3 (low 32 bits), %h1-%h3 (low 16), %f1-%f3 and %fd1-%fd3 (the same
// bits as floats), runs the body, and stores %rd10 to out[lane].

const ptxHeader = ".version 7.8\n.target sm_52\n.address_size 64\n"

func laneKernel(body string) string {
	return ptxHeader + `
.visible .entry k(.param .u64 k_out, .param .u64 k_in)
{
	.reg .pred %p<8>;
	.reg .b16 %h<8>;
	.reg .b32 %r<32>;
	.reg .b64 %rd<32>;
	.reg .f32 %f<16>;
	.reg .f64 %fd<16>;
	ld.param.u64 %rd30, [k_out];
	ld.param.u64 %rd31, [k_in];
	mov.u32 %r31, %tid.x;
	mul.wide.u32 %rd29, %r31, 8;
	add.s64 %rd28, %rd31, %rd29;
	ld.global.u64 %rd1, [%rd28];
	ld.global.u64 %rd2, [%rd28+256];
	ld.global.u64 %rd3, [%rd28+512];
	cvt.u32.u64 %r1, %rd1;
	cvt.u32.u64 %r2, %rd2;
	cvt.u32.u64 %r3, %rd3;
	cvt.u16.u64 %h1, %rd1;
	cvt.u16.u64 %h2, %rd2;
	cvt.u16.u64 %h3, %rd3;
	mov.b32 %f1, %r1;
	mov.b32 %f2, %r2;
	mov.b32 %f3, %r3;
	mov.b64 %fd1, %rd1;
	mov.b64 %fd2, %rd2;
	mov.b64 %fd3, %rd3;
	mov.u64 %rd10, 0;
` + body + `
	add.s64 %rd27, %rd30, %rd29;
	st.global.u64 [%rd27], %rd10;
	ret;
}
`
}

// bcast returns v for all 32 lanes unless it already has 32 values.
func bcast(v []uint64) []uint64 {
	if len(v) == 32 {
		return v
	}
	out := make([]uint64, 32)
	for i := range out {
		if len(v) > 0 {
			out[i] = v[0]
		}
	}
	return out
}

// runLanes runs body (see laneKernel) on inputs a, b, c (one value for all
// lanes, or 32) and returns out.
func runLanes(t *testing.T, body string, a, b, c []uint64) ([]uint64, error) {
	t.Helper()
	d := New(Options{Workers: 1})
	m, err := d.Load("test", laneKernel(body))
	if err != nil {
		return nil, err
	}
	k, err := m.Kernel("k")
	if err != nil {
		t.Fatal(err)
	}
	in := make([]byte, 3*32*8)
	for i, v := range [][]uint64{bcast(a), bcast(b), bcast(c)} {
		for l, x := range v {
			binary.LittleEndian.PutUint64(in[(32*i+l)*8:], x)
		}
	}
	inAddr := mustAlloc(t, d, uint64(len(in)))
	outAddr := mustAlloc(t, d, 32*8)
	if err := d.Write(inAddr, in); err != nil {
		t.Fatal(err)
	}
	if err := d.Write(outAddr, make([]byte, 32*8)); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Launch(context.Background(), k, Dim3{1, 1, 1}, Dim3{32, 1, 1}, 0, []uint64{outAddr, inAddr}); err != nil {
		return nil, err
	}
	out := make([]byte, 32*8)
	if err := d.Read(outAddr, out); err != nil {
		t.Fatal(err)
	}
	res := make([]uint64, 32)
	for l := range res {
		res[l] = binary.LittleEndian.Uint64(out[l*8:])
	}
	return res, nil
}

// mustKernel loads src on d and returns its kernel "k"; a failure to load
// src or to find k fails t.
func mustKernel(t testing.TB, d *Device, src string) *Kernel {
	t.Helper()
	m, err := d.Load("test", src)
	if err != nil {
		t.Fatalf("loading: %v", err)
	}
	k, err := m.Kernel("k")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func mustAlloc(t testing.TB, d *Device, n uint64) uint64 {
	t.Helper()
	p, err := d.Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// laneCase is one instruction test: inputs, the body, and the expected
// %rd10 of every lane (one value for all, or 32).
type laneCase struct {
	name    string
	body    string
	a, b, c []uint64
	want    []uint64
}

// vals is shorthand for a list of lane values.
func vals(v ...uint64) []uint64 { return v }

// i64 converts a signed value to register bits.
func i64(v int64) uint64 { return uint64(v) }

func runCases(t *testing.T, cases []laneCase) {
	t.Helper()
	for _, c := range cases {
		got, err := runLanes(t, c.body, c.a, c.b, c.c)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		want := bcast(c.want)
		for l := range got {
			if got[l] != want[l] {
				t.Errorf("%s: lane %d = %#x, want %#x (inputs %#x, %#x, %#x)", c.name, l, got[l], want[l],
					bcast(c.a)[l], bcast(c.b)[l], bcast(c.c)[l])
				break
			}
		}
	}
}

// runKernel loads src and launches its kernel "k" with args, on a device
// with a buffer of words uint32 values at buf (passed as the first
// argument, before args), and returns the buffer afterwards and the
// launch's error.
func runKernel(t *testing.T, opts Options, src string, grid, block Dim3, shared int, words int, init []uint32, args ...uint64) ([]uint32, Stats, error) {
	t.Helper()
	d := New(opts)
	k := mustKernel(t, d, src)
	buf := mustAlloc(t, d, uint64(4*words))
	host := make([]byte, 4*words)
	for i, v := range init {
		binary.LittleEndian.PutUint32(host[4*i:], v)
	}
	if err := d.Write(buf, host); err != nil {
		t.Fatal(err)
	}
	st, lerr := d.Launch(context.Background(), k, grid, block, shared, append([]uint64{buf}, args...))
	if err := d.Read(buf, host); err != nil {
		t.Fatal(err)
	}
	out := make([]uint32, words)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(host[4*i:])
	}
	return out, st, lerr
}

// wantFault checks that err is a Fault of kind with detail containing each
// of parts.
func wantFault(t *testing.T, what string, err error, kind FaultKind, parts ...string) *Fault {
	t.Helper()
	var f *Fault
	if !errors.As(err, &f) {
		t.Errorf("%s: %v, want a %s fault", what, err, kind)
		return nil
	}
	if f.Kind != kind {
		t.Errorf("%s: fault %v, want kind %s", what, f, kind)
	}
	msg := f.Error()
	for _, p := range parts {
		if !strings.Contains(msg, p) {
			t.Errorf("%s: fault %q does not say %q", what, msg, p)
		}
	}
	return f
}

// f32 and f64 encode floats as register bits.
func f32(v float32) uint64 { return fput(v) }
func f64(v float64) uint64 { return fput(v) }

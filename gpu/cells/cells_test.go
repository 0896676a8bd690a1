package cells

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/gpu/ptxemu"
	"github.com/pathnotes/pathnotes/graph"
)

// cellTestPTX is nvcc's PTX of these kernels (nvcc -ptx -arch=compute_52
// -O3, CUDA 11.8), committed so that the tests need no CUDA compiler:
//
//	// Test kernels of the cell API (gpu/cells/cells_test.go); PTX by
//	// nvcc -ptx -arch=compute_52 -O3 (CUDA 11.8).
//	extern "C" __global__ void params(int *out, int a, unsigned b, long long c, unsigned long long d,
//	                                  float e, double f, int *ptr) {
//		long long fb = __double_as_longlong(f);
//		out[0] = a; out[1] = b; out[2] = (int)c; out[3] = (int)(c >> 32);
//		out[4] = (int)d; out[5] = (int)(d >> 32); out[6] = __float_as_int(e);
//		out[7] = (int)fb; out[8] = (int)(fb >> 32);
//		out[9] = (int)(size_t)ptr; out[10] = (int)((size_t)ptr >> 32);
//	}
//	__device__ float devData;
//	__constant__ float coef[4];
//	__constant__ int offset;
//	__global__ void vecAdd(const float *a, const float *b, float *c, int n) {
//		int i = blockIdx.x * blockDim.x + threadIdx.x;
//		if (i < n) c[i] = a[i] + b[i];
//	}
//	extern "C" __global__ void scale(float *c, int n) {
//		int i = blockIdx.x * blockDim.x + threadIdx.x;
//		if (i < n) c[i] = c[i] * coef[i % 4] + offset;
//	}
//	extern "C" __global__ void addDev() { devData += 2.0f; }
//	extern "C" __global__ void oob(int *p, int n) { p[n + threadIdx.x] = 1; }
//	extern "C" __global__ void blockSum(const int *in, int *out, int n) {
//		extern __shared__ int s[];
//		int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
//		s[t] = i < n ? in[i] : 0;
//		__syncthreads();
//		for (int k = blockDim.x / 2; k > 0; k >>= 1) {
//			if (t < k) s[t] += s[t + k];
//			__syncthreads();
//		}
//		if (t == 0) atomicAdd(out, s[0]);
//	}
//	extern "C" __global__ void dscale(double *x, double f, unsigned *u, unsigned v) {
//		x[threadIdx.x] *= f;
//		u[threadIdx.x] += v;
//	}
//
// testSession is the session of the tests that load cell modules on the
// default device.
var testSession Session

var cellTestPTX = mustReadFile("testdata/celltest.ptx")

// emuDevice opens a fresh emulated device for one test.
func emuDevice(t *testing.T) *gpu.Device {
	t.Helper()
	d, err := gpu.OpenEmulator(ptxemu.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// loadCellTest loads the test kernels on d.
func loadCellTest(t *testing.T, d *gpu.Device) *Module {
	t.Helper()
	m, err := LoadPTX(d, "celltest", cellTestPTX)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// wantErr fails unless err's text contains every part.
func wantErr(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want one with %q", what, parts)
		return
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %q lacks %q", what, err, p)
		}
	}
}

// TestCellBuffers round-trips every element type and checks Fill, the
// type and length errors, Free twice and use after Free.
func TestCellBuffers(t *testing.T) { checkCellBuffers(t, emuDevice(t)) }

// checkCellBuffers runs TestCellBuffers on d (the emulator, or the card in the
// cuda build).
func checkCellBuffers(t *testing.T, d *gpu.Device) {
	i32 := []int32{-5, 0, 7, math.MaxInt32, math.MinInt32}
	u32 := []uint32{0, 1, math.MaxUint32}
	f32 := []float32{1.5, -2.25, float32(math.Inf(1))}
	f64 := []float64{math.Pi, -1e300, 0}
	bi, err := Int32s(d, i32)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := bi.ToInt32s(); err != nil || !slices.Equal(got, i32) {
		t.Errorf("Int32s round trip: %v, %v", got, err)
	}
	bu, _ := Uint32s(d, u32)
	if got, err := bu.ToUint32s(); err != nil || !slices.Equal(got, u32) {
		t.Errorf("Uint32s round trip: %v, %v", got, err)
	}
	bf, _ := Float32s(d, f32)
	if got, err := bf.ToFloat32s(); err != nil || !slices.Equal(got, f32) {
		t.Errorf("Float32s round trip: %v, %v", got, err)
	}
	bd, _ := Float64s(d, f64)
	if got, err := bd.ToFloat64s(); err != nil || !slices.Equal(got, f64) {
		t.Errorf("Float64s round trip: %v, %v", got, err)
	}
	if bd.Len() != 3 || bd.Type() != Float64 || bd.Bytes() != 24 || bd.Ptr() == 0 {
		t.Errorf("Float64 buffer: len %d type %v bytes %d ptr %#x", bd.Len(), bd.Type(), bd.Bytes(), bd.Ptr())
	}
	if s := bf.String(); s != "cells.Buffer float32[3] on "+d.Info().Name {
		t.Errorf("String() = %q", s)
	}

	z, err := NewBuffer(d, Float64, 4)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := z.ToFloat64s(); !slices.Equal(got, []float64{0, 0, 0, 0}) {
		t.Errorf("NewBuffer not zero-filled: %v", got)
	}
	for _, c := range []struct {
		b    *Buffer
		v    float64
		want string
	}{{bi, -3.7, "[-3 -3 -3 -3 -3]"}, {bu, 9, "[9 9 9]"}, {bf, 0.5, "[0.5 0.5 0.5]"}, {z, -2.5, "[-2.5 -2.5 -2.5 -2.5]"}} {
		if err := c.b.Fill(c.v); err != nil {
			t.Fatal(err)
		}
		var got any
		switch c.b.Type() {
		case Int32:
			got, _ = c.b.ToInt32s()
		case Uint32:
			got, _ = c.b.ToUint32s()
		case Float32:
			got, _ = c.b.ToFloat32s()
		case Float64:
			got, _ = c.b.ToFloat64s()
		}
		if s := fmt.Sprint(got); s != c.want {
			t.Errorf("Fill(%v) on %v: %s, want %s", c.v, c.b.Type(), s, c.want)
		}
	}
	wantErr(t, "Fill out of range", bu.Fill(-1), "not a uint32")

	_, err = bi.ToFloat32s()
	wantErr(t, "ToFloat32s on int32", err, "holds int32, not float32", "ToInt32s")
	wantErr(t, "CopyFloat64s on float32", bf.CopyFloat64s([]float64{1, 2, 3}), "holds float32, not float64")
	wantErr(t, "CopyInt32s length", bi.CopyInt32s([]int32{1, 2}), "2 values", "holds 5")
	if err := bi.CopyInt32s([]int32{9, 8, 7, 6, 5}); err != nil {
		t.Error(err)
	} else if got, _ := bi.ToInt32s(); !slices.Equal(got, []int32{9, 8, 7, 6, 5}) {
		t.Errorf("CopyInt32s: %v", got)
	}
	_, err = NewBuffer(d, ElemType(9), 3)
	wantErr(t, "NewBuffer bad type", err, "unknown element type")
	_, err = NewBuffer(d, Int32, -1)
	wantErr(t, "NewBuffer negative", err, "-1 elements")

	if err := bi.Free(); err != nil {
		t.Fatal(err)
	}
	if err := bi.Free(); err != nil {
		t.Errorf("second Free: %v", err)
	}
	_, err = bi.ToInt32s()
	wantErr(t, "use after Free", err, "used after Free")
	m := loadCellTest(t, d)
	k, _ := m.Kernel("vecAdd")
	wantErr(t, "launch with a freed buffer", k.Launch(gpu.Dim(1), gpu.Dim(1), bi, bi, bi, 1), "argument 0", "used after Free")
}

// TestCellParams checks that a scalar of every kind reaches the kernel
// (the kernel stores its parameters' bits), and the errors of wrong
// argument counts and kinds.
func TestCellParams(t *testing.T) { checkCellParams(t, emuDevice(t)) }

// checkCellParams runs TestCellParams on d (the emulator, or the card in the
// cuda build).
func checkCellParams(t *testing.T, d *gpu.Device) {
	m := loadCellTest(t, d)
	k, err := m.Kernel("params")
	if err != nil {
		t.Fatal(err)
	}
	out, _ := NewBuffer(d, Int32, 11)
	ptr, _ := NewBuffer(d, Int32, 1)
	c, dd := int64(-0x123456789), uint64(0xFEDCBA9876543210)
	e, f := float32(-1.25), 6.02e23
	if err := k.Launch(gpu.Dim(1), gpu.Dim(1), out, -42, uint32(0xDEADBEEF), c, dd, e, f, ptr.Ptr()); err != nil {
		t.Fatal(err)
	}
	got, err := out.ToInt32s()
	if err != nil {
		t.Fatal(err)
	}
	fb := math.Float64bits(f)
	want := []int32{-42, int32(-0x21524111), int32(c), int32(c >> 32), int32(uint32(dd)), int32(uint32(dd >> 32)),
		int32(math.Float32bits(e)), int32(uint32(fb)), int32(uint32(fb >> 32)), int32(uint32(ptr.Ptr())), int32(uint32(ptr.Ptr() >> 32))}
	if !slices.Equal(got, want) {
		t.Errorf("parameters as the kernel saw them:\n got %x\nwant %x", got, want)
	}
	// int32 and a *Buffer where the kernel takes a pointer work too.
	if err := k.Launch(gpu.Dim(1), gpu.Dim(1), out, int32(1), uint32(2), int64(3), uint64(4), e, f, ptr); err != nil {
		t.Error(err)
	}
	if got, _ := out.ToInt32s(); got[0] != 1 || got[2] != 3 || got[4] != 4 {
		t.Errorf("second launch: %v", got)
	}

	for _, c := range []struct {
		args []any
		want []string
	}{
		{[]any{out, 1}, []string{"kernel params: 2 arguments for 8 parameters", "params(.u64 param_0, .u32 param_1"}},
		{[]any{out, 1, 2, 3, 4, 5.0, 6.0, ptr}, []string{"argument 5 is float64 but parameter 5 is .f32", "float32(x)"}},
		{[]any{out, 1.5, 2, 3, 4, e, f, ptr}, []string{"argument 1 is float64 but parameter 1 is .u32"}},
		{[]any{out, 1, 2, int32(3), 4, e, f, ptr}, []string{"argument 3 is int32 but parameter 3 is .u64"}},
		{[]any{out, 1, 2, 3, 4, e, f, 7.5}, []string{"argument 7 is float64 but parameter 7 is .u64"}},
		{[]any{out, 1 << 40, 2, 3, 4, e, f, ptr}, []string{"argument 1 = 1099511627776 does not fit parameter 1 (.u32)"}},
		{[]any{out, 1, 2, 3, 4, e, f, "x"}, []string{"argument 7 has type string"}},
		{[]any{out, out, 2, 3, 4, e, f, ptr}, []string{"argument 1 is *cells.Buffer but parameter 1 is .u32"}},
	} {
		err := k.Launch(gpu.Dim(1), gpu.Dim(1), c.args...)
		wantErr(t, fmt.Sprint(c.args[1:]), err, c.want...)
		if ErrorCode(err) != -1 {
			t.Errorf("argument error has code %d, want -1 (not a CUDA error)", ErrorCode(err))
		}
	}
}

// TestCellConfig checks that a launch configuration the device cannot run
// is refused before the driver with cudaErrorInvalidConfiguration (9).
func TestCellConfig(t *testing.T) { checkCellConfig(t, emuDevice(t)) }

// checkCellConfig runs TestCellConfig on d (the emulator, or the card in the
// cuda build).
func checkCellConfig(t *testing.T, d *gpu.Device) {
	k, err := loadCellTest(t, d).Kernel("vecAdd")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := NewBuffer(d, Float32, 4)
	for _, c := range []struct {
		grid, block gpu.Dim3
		shared      int
		detail      string
	}{
		{gpu.Dim(1), gpu.Dim(2048), 0, "has 2048 threads, the device allows at most 1024"},
		{gpu.Dim(1), gpu.Dim(32, 0), 0, "block (32,0,1) has a dimension below 1"},
		{gpu.Dim(0), gpu.Dim(32), 0, "grid (0,1,1) has a dimension below 1"},
		{gpu.Dim(1, 1<<20), gpu.Dim(32), 0, "exceeds the device's grid dimensions"},
		{gpu.Dim(1), gpu.Dim(1, 1, 128), 0, "exceeds the device's block dimensions"},
		{gpu.Dim(1), gpu.Dim(32), 1 << 20, "1048576 bytes of dynamic shared memory"},
	} {
		err := k.LaunchShared(c.grid, c.block, c.shared, a, a, a, 4)
		var le *LaunchError
		if !errors.As(err, &le) || le.Code != 9 || le.Name != "cudaErrorInvalidConfiguration" || le.Grid != c.grid || le.Block != c.block {
			t.Errorf("<<<%v,%v,%d>>>: %#v, want a LaunchError with code 9", c.grid, c.block, c.shared, err)
			continue
		}
		wantErr(t, "config", err, "kernel vecAdd <<<"+c.grid.String()+","+c.block.String(), "cudaErrorInvalidConfiguration (9): invalid configuration argument", c.detail)
		if ErrorCode(err) != 9 || ErrorString(err) != "invalid configuration argument" {
			t.Errorf("ErrorCode %d, ErrorString %q", ErrorCode(err), ErrorString(err))
		}
	}
	if ErrorCode(nil) != 0 || ErrorString(nil) != "no error" || ErrorCode(errors.New("x")) != -1 {
		t.Error("ErrorCode/ErrorString of nil or a plain error")
	}
	// The refused launches left the device working.
	if err := k.Launch(gpu.Dim(1), gpu.Dim(4), a, a, a, 4); err != nil {
		t.Error(err)
	}
	if err := d.Synchronize(); err != nil {
		t.Error(err)
	}
}

// TestCellVars reads and writes a __device__ variable (the course's
// devData example: the host sets 3.14, the kernel adds 2, the host reads
// 5.14) and __constant__ ones that a kernel then uses.
func TestCellVars(t *testing.T) { checkCellVars(t, emuDevice(t)) }

// TestCellKernels checks dynamic shared memory (a block sum with atomics),
// double and unsigned arguments, Time, and the graph buffers.
func TestCellKernels(t *testing.T) { checkCellKernels(t, emuDevice(t)) }

// checkCellVars runs TestCellVars on d (the emulator, or the card in the
// cuda build).
func checkCellVars(t *testing.T, d *gpu.Device) {
	m := loadCellTest(t, d)
	if got := m.Vars(); !slices.Equal(got, []string{"devData", "coef", "offset"}) {
		t.Errorf("Vars() = %v", got)
	}
	dev, err := m.Var("devData")
	if err != nil {
		t.Fatal(err)
	}
	if dev.Type() != Float32 || dev.Len() != 1 {
		t.Fatalf("devData: %v", dev)
	}
	if err := dev.CopyFloat32s([]float32{3.14}); err != nil {
		t.Fatal(err)
	}
	k, _ := m.Kernel("addDev")
	if err := k.Launch(gpu.Dim(1), gpu.Dim(1)); err != nil {
		t.Fatal(err)
	}
	if got, err := dev.ToFloat32s(); err != nil || got[0] != float32(3.14)+2 {
		t.Errorf("devData after the kernel: %v, %v; want 5.14", got, err)
	}
	wantErr(t, "Free on a variable", dev.Free(), "is a module variable")

	coef, err := m.VarAs("coef", Float32)
	if err != nil || coef.Len() != 4 {
		t.Fatalf("coef: %v, %v", coef, err)
	}
	raw, _ := m.Var("coef") // a .b8 array: raw words
	if raw.Type() != Uint32 || raw.Len() != 4 {
		t.Errorf("coef as Var: %v", raw)
	}
	off, err := m.Var("offset")
	if err != nil || off.Type() != Uint32 {
		t.Fatalf("offset: %v, %v", off, err)
	}
	if err := coef.CopyFloat32s([]float32{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	if err := off.CopyUint32s([]uint32{10}); err != nil {
		t.Fatal(err)
	}
	c, _ := Float32s(d, []float32{1, 1, 1, 1, 2, 2})
	scale, _ := m.Kernel("scale")
	if err := scale.Launch(gpu.Dim(1), gpu.Dim(8), c, 6); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.ToFloat32s(); !slices.Equal(got, []float32{11, 12, 13, 14, 12, 14}) {
		t.Errorf("scale with constants {1,2,3,4} + 10: %v", got)
	}
	if got, _ := coef.ToFloat32s(); !slices.Equal(got, []float32{1, 2, 3, 4}) {
		t.Errorf("constants read back: %v", got)
	}
	_, err = m.Var("nope")
	wantErr(t, "missing variable", err, `no __device__ or __constant__ variable "nope"`, "devData, coef, offset")
}

// checkCellKernels runs TestCellKernels on d.
func checkCellKernels(t *testing.T, d *gpu.Device) {
	m := loadCellTest(t, d)
	in := make([]int32, 1000)
	want := int32(0)
	for i := range in {
		in[i] = int32(i%7 - 3)
		want += in[i]
	}
	bin, _ := Int32s(d, in)
	sum, _ := NewBuffer(d, Int32, 1)
	k, err := m.Kernel("blockSum")
	if err != nil {
		t.Fatal(err)
	}
	dt, err := k.Time(gpu.Dim(8), gpu.Dim(128), 128*4, bin, sum, len(in))
	if err != nil || dt <= 0 {
		t.Fatalf("Time: %v, %v", dt, err)
	}
	if got, _ := sum.ToInt32s(); got[0] != want {
		t.Errorf("block sum with dynamic shared memory: %d, want %d", got[0], want)
	}
	x, _ := Float64s(d, []float64{1, 2, 3})
	u, _ := Uint32s(d, []uint32{1, 2, math.MaxUint32})
	ds, _ := m.Kernel("dscale")
	if err := ds.Launch(gpu.Dim(1), gpu.Dim(3), x, 0.5, u, uint32(1)); err != nil {
		t.Fatal(err)
	}
	if got, _ := x.ToFloat64s(); !slices.Equal(got, []float64{0.5, 1, 1.5}) {
		t.Errorf("dscale: %v", got)
	}
	if got, _ := u.ToUint32s(); !slices.Equal(got, []uint32{2, 3, 0}) {
		t.Errorf("unsigned add: %v", got)
	}

	g := mustGraph(t, 4, "0->1 5, 0->1 3, 1->2 -2, 3->0 7, 2->2 -1")
	off, tg, wt, err := GraphCSR(d, g)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		b    *Buffer
		want []int32
	}{{off, g.Offsets()}, {tg, g.Targets()}, {wt, g.Weights()}} {
		if got, err := c.b.ToInt32s(); err != nil || !slices.Equal(got, c.want) {
			t.Errorf("GraphCSR: %v, %v; want %v", got, err, c.want)
		}
	}
	if off.Len() != 5 || tg.Len() != g.M() || wt.Len() != g.M() {
		t.Errorf("GraphCSR lengths %d, %d, %d; want 5 (n+1) and %d (m)", off.Len(), tg.Len(), wt.Len(), g.M())
	}
	mat, err := GraphMatrix(d, g)
	if err != nil {
		t.Fatal(err)
	}
	inf := int32(math.MaxInt32)
	wantMat := []int32{0, 3, inf, inf, inf, 0, -2, inf, inf, inf, -1, inf, 7, inf, inf, 0}
	if got, _ := mat.ToInt32s(); !slices.Equal(got, wantMat) {
		t.Errorf("GraphMatrix:\n got %v\nwant %v", got, wantMat)
	}
	_, err = GraphMatrix(d, nil)
	wantErr(t, "GraphMatrix(nil)", err, "nil graph")
}

// TestCellEmptyBuffers checks buffers of no elements.
func TestCellEmptyBuffers(t *testing.T) {
	d := emuDevice(t)
	b, err := Int32s(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := b.ToInt32s(); err != nil || len(got) != 0 || b.Len() != 0 || b.Bytes() != 0 {
		t.Errorf("empty buffer: %v, %v, len %d", got, err, b.Len())
	}
	if err := b.Fill(1); err != nil {
		t.Error(err)
	}
	if err := b.Free(); err != nil {
		t.Error(err)
	}
}

// mustReadFile returns a test data file's text; the tests cannot run
// without it.
func mustReadFile(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// mustGraph parses a graph of n vertices in graph.Parse's form.
func mustGraph(t testing.TB, n int, arcs string) *graph.Graph {
	t.Helper()
	g, err := graph.Parse(arcs)
	if err != nil || g.N() != n {
		t.Fatalf("graph %q: %v (want %d vertices)", arcs, err, n)
	}
	return g
}

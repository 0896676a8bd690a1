package cells

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/internal/testenv"
)

// courseCUDA are kernels in the style of the course (its chapters 1 and
// 2, the Greek lab handout's Floyd-Warshall): what nvcc emits for
// them at -O3 for compute_52 must run on the emulator.
const courseCUDA = `#include <stdio.h>
#include <limits.h>
__constant__ float weights[3];
__device__ float devData;
__global__ void vecAdd(const float *a, const float *b, float *c, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) c[i] = a[i] + b[i];
}
__global__ void smooth(const float *in, float *out, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i > 0 && i < n - 1) out[i] = weights[0] * in[i - 1] + weights[1] * in[i] + weights[2] * in[i + 1];
}
__global__ void staticSum(const int *in, int *out) {
	__shared__ int sdata[8];
	int t = threadIdx.x;
	sdata[t] = in[t];
	__syncthreads();
	for (int s = 1; s < blockDim.x; s *= 2) {
		if (t % (2 * s) == 0) sdata[t] += sdata[t + s];
		__syncthreads();
	}
	if (t == 0) out[blockIdx.x] = sdata[0];
}
__global__ void minimum(const int *g_idata, const int *u, int *g_odata, int n) {
	extern __shared__ int sdata[];
	unsigned tid = threadIdx.x, blockSize = blockDim.x;
	unsigned i = blockIdx.x * 2 * blockSize + tid, gridSize = 2 * blockSize * gridDim.x;
	int m = INT_MAX;
	while (i < n) {
		if (u[i]) m = min(m, g_idata[i]);
		if (i + blockSize < n && u[i + blockSize]) m = min(m, g_idata[i + blockSize]);
		i += gridSize;
	}
	sdata[tid] = m;
	__syncthreads();
	for (unsigned s = blockSize / 2; s > 32; s >>= 1) {
		if (tid < s) sdata[tid] = min(sdata[tid], sdata[tid + s]);
		__syncthreads();
	}
	if (tid < 32) {
		volatile int *smem = sdata;
		for (int s = 32; s > 0; s >>= 1) {
			smem[tid] = min(smem[tid], smem[tid + s]);
			__syncwarp();
		}
	}
	if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
__global__ void relax(const int *V, const int *E, const int *W, int *C, const int *U, const int *F, int n, int m) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n || !F[i]) return;
	int next = i + 1 < n ? V[i + 1] : m;
	for (int j = V[i]; j < next; j++)
		if (U[E[j]]) atomicMin(&C[E[j]], C[i] + W[j]);
}
__global__ void fw(int *d, int n, int k) {
	int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n && j < n) {
		int ik = d[i * n + k], kj = d[k * n + j];
		if (ik != INT_MAX && kj != INT_MAX && ik + kj < d[i * n + j]) d[i * n + j] = ik + kj;
	}
}
__global__ void mathf(float *x, float *sum, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		x[i] = sqrtf(v) + expf(-v) + logf(1.0f + v) + sinf(v) * cosf(v) + powf(v, 1.5f) + fabsf(-v) / (v + 1.0f) + fminf(v, 2.0f) + floorf(v * 0.5f) + __fdividef(v, 3.0f);
		atomicAdd(sum, v);
	}
}
`

// TestCourseKernels compiles courseCUDA with nvcc and runs every kernel on
// the emulator against results computed here.
func TestCourseKernels(t *testing.T) {
	testenv.NeedNVCC(t)
	checkCourseKernels(t, "nvcc")
}

// TestClangCourseKernels does what TestCourseKernels does with clang's
// PTX (its expf, logf, sinf, cosf and powf are the approximate
// instructions, which the emulator computes exactly).
func TestClangCourseKernels(t *testing.T) {
	testenv.NeedClang(t)
	checkCourseKernels(t, "clang")
}

// checkCourseKernels compiles courseCUDA with compiler and runs every
// kernel on the emulator against results computed here.
func checkCourseKernels(t *testing.T, compiler string) {
	t.Setenv(EnvPTXCache, "off")
	ptx, err := CompileCUDA(context.Background(), "course", courseCUDA, CompileOptions{Compiler: compiler})
	if err != nil {
		t.Fatal(err)
	}
	d := emuDevice(t)
	m, err := LoadPTX(d, "course", ptx)
	if err != nil {
		t.Fatal(err)
	}
	kernel := func(name string) *Kernel {
		k, err := m.Kernel(name)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	launch := func(name string, grid, block gpu.Dim3, shared int, args ...any) {
		t.Helper()
		if err := kernel(name).LaunchShared(grid, block, shared, args...); err != nil {
			t.Fatal(err)
		}
	}

	// vector add, ceiling-division grid with spare threads
	n := 1000
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = float32(i)*0.5, float32(n-i)
	}
	da, _ := Float32s(d, a)
	db, _ := Float32s(d, b)
	dc, _ := NewBuffer(d, Float32, n)
	launch("vecAdd", gpu.Dim((n+255)/256), gpu.Dim(256), 0, da, db, dc, n)
	got, _ := dc.ToFloat32s()
	for i := range got {
		if got[i] != a[i]+b[i] {
			t.Fatalf("vecAdd[%d] = %v, want %v", i, got[i], a[i]+b[i])
		}
	}

	// __constant__ weights
	w, _ := m.VarAs("weights", Float32)
	if err := w.CopyFloat32s([]float32{0.25, 0.5, 0.25}); err != nil {
		t.Fatal(err)
	}
	launch("smooth", gpu.Dim((n+127)/128), gpu.Dim(128), 0, da, dc, n)
	got, _ = dc.ToFloat32s()
	if want := 0.25*a[9] + 0.5*a[10] + 0.25*a[11]; got[10] != want {
		t.Errorf("smooth[10] = %v, want %v", got[10], want)
	}

	// static shared memory: the 8-element block sum of Fig. 2.8
	in, _ := Int32s(d, []int32{3, 1, 7, 0, 4, 1, 6, 3})
	out, _ := NewBuffer(d, Int32, 1)
	launch("staticSum", gpu.Dim(1), gpu.Dim(8), 0, in, out)
	if s, _ := out.ToInt32s(); s[0] != 25 {
		t.Errorf("staticSum = %d, want 25", s[0])
	}

	// dynamic shared memory: Martin's masked minimum, warp tail with __syncwarp
	vals, mask := make([]int32, 5000), make([]int32, 5000)
	best := int32(math.MaxInt32)
	for i := range vals {
		vals[i] = int32((i*7919)%10007 + 5)
		if mask[i] = int32(i % 3 % 2); mask[i] == 1 {
			best = min(best, vals[i])
		}
	}
	dv, _ := Int32s(d, vals)
	du, _ := Int32s(d, mask)
	blocks := 4
	partial, _ := NewBuffer(d, Int32, blocks)
	launch("minimum", gpu.Dim(blocks), gpu.Dim(512), 512*4, dv, du, partial, len(vals))
	mins, _ := partial.ToInt32s()
	if slices.Min(mins) != best {
		t.Errorf("minimum: partial minima %v, want %d overall", mins, best)
	}

	// atomicMin relaxation from vertex 0 of a small graph
	g := mustGraph(t, 4, "0->1 4, 0->2 1, 2->1 2, 1->3 1")
	V, E, W, err := GraphCSR(d, g)
	if err != nil {
		t.Fatal(err)
	}
	C, _ := Int32s(d, []int32{0, math.MaxInt32, math.MaxInt32, math.MaxInt32})
	U, _ := Int32s(d, []int32{0, 1, 1, 1})
	F, _ := Int32s(d, []int32{1, 0, 0, 0})
	launch("relax", gpu.Dim(1), gpu.Dim(32), 0, V, E, W, C, U, F, 4, g.M())
	if c, _ := C.ToInt32s(); !slices.Equal(c, []int32{0, 4, 1, math.MaxInt32}) {
		t.Errorf("relax: %v", c)
	}

	// Floyd-Warshall, one launch per k
	fwG := mustGraph(t, 5, "0->1 3, 1->2 -2, 2->3 4, 3->0 1, 0->4 10, 2->4 1")
	mat, _ := GraphMatrix(d, fwG)
	for k := range 5 {
		launch("fw", gpu.Dim(1, 1), gpu.Dim(8, 8), 0, mat, 5, k)
	}
	dist, _ := mat.ToInt32s()
	want := fwG.Dense()
	for k := range 5 {
		for i := range 5 {
			for j := range 5 {
				if ik, kj := want[i*5+k], want[k*5+j]; ik != math.MaxInt32 && kj != math.MaxInt32 && ik+kj < want[i*5+j] {
					want[i*5+j] = ik + kj
				}
			}
		}
	}
	if !slices.Equal(dist, want) {
		t.Errorf("fw:\n got %v\nwant %v", dist, want)
	}

	// float32 math (sqrtf, expf, logf, sinf, cosf, powf, ...) and a float atomicAdd
	xs := []float32{0, 0.5, 1, 2.5, 10, 100}
	dx, _ := Float32s(d, xs)
	sum, _ := NewBuffer(d, Float32, 1)
	launch("mathf", gpu.Dim(1), gpu.Dim(32), 0, dx, sum, len(xs))
	res, _ := dx.ToFloat32s()
	for i, v := range xs {
		x := float64(v)
		w := math.Sqrt(x) + math.Exp(-x) + math.Log(1+x) + math.Sin(x)*math.Cos(x) + math.Pow(x, 1.5) + x/(x+1) + math.Min(x, 2) + math.Floor(x*0.5) + x/3
		if math.Abs(float64(res[i])-w) > 1e-5*math.Max(1, math.Abs(w)) {
			t.Errorf("mathf(%v) = %v, want %v", v, res[i], w)
		}
	}
	if s, _ := sum.ToFloat32s(); s[0] != 114 {
		t.Errorf("atomicAdd sum = %v, want 114", s[0])
	}
}

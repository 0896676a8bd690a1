package cells

import (
	"bytes"
	"context"
	"math"
	"testing"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/internal/testenv"
)

// headerCUDA calls everything the header gives clang (the toolkit's
// headers give nvcc the same), one warp, each result in a slot of its own.
const headerCUDA = `#include <stdio.h>
#include <limits.h>
#include <float.h>
#include <cuda_runtime.h>
__global__ void __launch_bounds__(32) everything(int *ip, unsigned *up, float *fp, double *dp, unsigned long long *lp) {
	int t = threadIdx.x;
	__shared__ int one; // written by thread 0, read by all after the barrier: the load must stay below it
	if (t == 0) one = ip[0] + 5;
	__syncthreads();
	ip[192 + t] = one;
	ip[224 + t] = __syncthreads_count(t % 3 == 0) + 100 * __syncthreads_and(t < 40) + 1000 * __syncthreads_or(t == 31) + 10000 * __syncthreads_and(t < 31);
	__shared__ int sh[32];
	sh[t] = t * 3;
	__syncthreads();
	atomicAdd(&ip[0], t); atomicSub(&ip[1], t); atomicMin(&ip[2], 100 - t); atomicMax(&ip[3], t * 7 % 13);
	atomicAnd(&ip[4], ~(t << 4)); atomicOr(&ip[5], 1 << (t % 31)); atomicXor(&ip[6], t * 40503);
	if (t == 5) { ip[7] = atomicExch(&ip[8], 77); ip[9] = atomicCAS(&ip[10], 0, 42); ip[11] = atomicCAS(&ip[10], 1, 43); }
	atomicAdd(&up[0], (unsigned)t); atomicMin(&up[1], (unsigned)t + 5); atomicMax(&up[2], (unsigned)t * 100);
	atomicInc(&up[3], 20u); atomicDec(&up[4], 50u); atomicAnd(&up[5], ~((unsigned)t << 3)); atomicOr(&up[6], 1u << t);
	atomicXor(&up[7], (unsigned)t); atomicExch(&up[8], 9u); atomicCAS(&up[9], 0u, 3u); atomicSub(&up[10], 1u);
	atomicAdd(&lp[0], (unsigned long long)t << 33); atomicCAS(&lp[1], 0ull, 5ull); atomicExch(&lp[2], 6ull);
	atomicAdd(&fp[0], 0.5f * t);
	if (t == 3) fp[1] = atomicExch(&fp[2], 2.5f);
	int v = sh[t];
	ip[32 + t] = __shfl_sync(0xffffffff, v, (t + 3) % 32);
	ip[64 + t] = __shfl_up_sync(0xffffffff, v, 2) + __shfl_down_sync(0xffffffff, v, 3) + __shfl_xor_sync(0xffffffff, v, 5);
	ip[96 + t] = __shfl_sync(0xffffffff, v, t + 1, 8) + __shfl_down_sync(0xffffffff, v, 1, 16) + __shfl_up_sync(0xffffffff, v, 1, 4);
	fp[32 + t] = __shfl_xor_sync(0xffffffff, 0.25f * t, 1) + __shfl_sync(0xffffffff, 0.5f * t, 7);
	ip[128 + t] = __all_sync(0xffffffff, v >= 0) + 2 * __any_sync(0xffffffff, v == 9) + 4 * __all_sync(0xffffffff, v > 3) + 8 * __any_sync(0xffffffff, v > 1000);
	up[32 + t] = __ballot_sync(0xffffffff, t % 3 == 0);
	__syncwarp();
	__threadfence();
	__threadfence_block();
	ip[160 + t] = min(t, 10) + max(t, 20) * 3 + abs(5 - t) * 7 + __popc(t * 12345) + __clz(t) + __ffs(t) + (int)(__brev(t) >> 20) + __mul24(t, 1000) + INT_MAX % (t + 2);
	up[64 + t] = min((unsigned)t, 10u) + max(3u, (unsigned)t) + UINT_MAX / (t + 1);
	float x = 0.3f * t - 2.0f, y = 0.25f * t + 0.5f;
	fp[64 + t] = sqrtf(y) + fabsf(x) + fminf(x, 1) + fmaxf(x, 1) + floorf(x) + ceilf(x) + truncf(x) + rintf(x) + roundf(x) +
		fmaf(x, y, 1) + copysignf(2, x) + __fdividef(x, y) + rsqrtf(y) + min(x, y) + max(x, y);
	fp[96 + t] = expf(x);
	fp[128 + t] = logf(y);
	fp[160 + t] = powf(y, 1.5f);
	fp[192 + t] = sinf(x);
	fp[224 + t] = cosf(x);
	fp[256 + t] = exp2f(x);
	fp[288 + t] = log2f(y);
	fp[320 + t] = log10f(y);
	fp[352 + t] = tanf(x * 0.5f);
	double dx = 0.3 * t - 2.0, dy = 0.25 * t + 0.5;
	dp[t] = sqrt(dy) + fabs(dx) + fmin(dx, 1.0) + fmax(dx, 1.0) + floor(dx) + ceil(dx) + trunc(dx) + fma(dx, dy, 1.0) + min(dx, dy) + max(dx, dy);
	float4 f4 = make_float4(x, y, 1, 2);
	int2 i2 = make_int2(t, 2 * t);
	fp[384 + t] = f4.x + f4.y + f4.z * f4.w + i2.x + i2.y + (FLT_MAX > 1e38f);
	if (t < 2) printf("everything %d %u %d %f %s\n", INT_MAX, UINT_MAX, t, 0.5 * t, "ok");
}
`

// headerResult is what everything wrote, and what it printed.
type headerResult struct {
	ints    []int32
	uints   []uint32
	floats  []float32
	doubles []float64
	longs   []uint64
	printed string
}

// runHeaderKernel loads headerCUDA's PTX made by compiler on d and runs
// it.
func runHeaderKernel(t *testing.T, d *gpu.Device, compiler, ptx string) headerResult {
	t.Helper()
	m, err := LoadPTX(d, "everything-"+compiler, ptx)
	if err != nil {
		t.Fatalf("%s's PTX: %v", compiler, err)
	}
	k, err := m.Kernel("everything")
	if err != nil {
		t.Fatal(err)
	}
	ints, uints := make([]int32, 512), make([]uint32, 512)
	for i := range 16 {
		ints[i], uints[i] = 1000, 1000
	}
	ints[4], ints[10], uints[3], uints[4], uints[9] = -1, 0, 0, 0, 0
	ib, _ := Int32s(d, ints)
	ub, _ := Uint32s(d, uints)
	fb, _ := NewBuffer(d, Float32, 512)
	db, _ := NewBuffer(d, Float64, 32)
	lb, _ := NewBuffer(d, Float64, 4) // 64-bit words, read back as bits
	var out bytes.Buffer
	m.sess = &Session{Printf: &out}
	if err := k.Launch(gpu.Dim(1), gpu.Dim(32), ib, ub, fb, db, lb); err != nil {
		t.Fatalf("%s's PTX: %v", compiler, err)
	}
	var r headerResult
	r.ints, _ = ib.ToInt32s()
	r.uints, _ = ub.ToUint32s()
	r.floats, _ = fb.ToFloat32s()
	r.doubles, _ = db.ToFloat64s()
	words, _ := lb.ToFloat64s()
	for _, w := range words {
		r.longs = append(r.longs, math.Float64bits(w))
	}
	r.printed = out.String()
	return r
}

// TestClangHeader runs a kernel that uses every function of clang's
// header, compiled by clang and by nvcc, on the emulator: integer results,
// atomics, shuffles and votes equal, float math within the approximate
// functions' error, printf's output the same.
func TestClangHeader(t *testing.T) {
	testenv.NeedNVCC(t)
	compareHeaderKernel(t, emuDevice(t), true)
}

// compareHeaderKernel runs headerCUDA compiled by clang and by NVIDIA's
// compiler on d and compares the results; printed says whether d's printf
// output reaches SetPrintfOutput's writer (the emulator's does).
func compareHeaderKernel(t *testing.T, d *gpu.Device, printed bool) {
	testenv.NeedClang(t)
	t.Setenv(EnvPTXCache, "off")
	clPTX, err := CompileCUDA(context.Background(), "everything", headerCUDA, CompileOptions{Compiler: "clang"})
	if err != nil {
		t.Fatal(err)
	}
	nv := runHeaderKernel(t, d, "nvidia", nvidiaPTX(t, "everything", headerCUDA))
	cl := runHeaderKernel(t, d, "clang", clPTX)
	for i := range nv.ints {
		if nv.ints[i] != cl.ints[i] {
			t.Errorf("ints[%d]: nvcc %d, clang %d", i, nv.ints[i], cl.ints[i])
		}
		if nv.uints[i] != cl.uints[i] {
			t.Errorf("uints[%d]: nvcc %d, clang %d", i, nv.uints[i], cl.uints[i])
		}
		// expf, logf, powf, sinf, ... are approximate with clang; rsqrtf and __fdividef with nvcc.
		if a, b := float64(nv.floats[i]), float64(cl.floats[i]); math.Abs(a-b) > 2e-5*math.Max(1, math.Abs(a)) {
			t.Errorf("floats[%d]: nvcc %v, clang %v", i, a, b)
		}
	}
	for i := range nv.doubles {
		if nv.doubles[i] != cl.doubles[i] {
			t.Errorf("doubles[%d]: nvcc %v, clang %v", i, nv.doubles[i], cl.doubles[i])
		}
	}
	for i := range nv.longs {
		if nv.longs[i] != cl.longs[i] {
			t.Errorf("longs[%d]: nvcc %d, clang %d", i, nv.longs[i], cl.longs[i])
		}
	}
	want := "everything 2147483647 4294967295 0 0.000000 ok\neverything 2147483647 4294967295 1 0.500000 ok\n"
	if printed && (nv.printed != want || cl.printed != want) {
		t.Errorf("printf: nvcc %q, clang %q; want %q", nv.printed, cl.printed, want)
	}
	if nv.ints[192] != 1005 || nv.ints[224] != 1111 || nv.ints[0] != 1496 || nv.ints[7] != 1000 || nv.ints[8] != 77 || nv.ints[9] != 0 || nv.ints[10] != 42 || nv.uints[32] != 0x49249249 || nv.longs[0] != 496<<33 {
		t.Errorf("nvcc's results are not CUDA's: ints %v, shared %d, barriers %d, ballot %#x, long %d", nv.ints[:12], nv.ints[192], nv.ints[224], nv.uints[32], nv.longs[0])
	}
}

// pathnotes_cuda.h: what %%cuda cells compiled by clang without the CUDA
// toolkit get in place of the toolkit's headers. clang includes it before
// the cell (-include). Everything here maps to clang's own NVPTX builtins,
// which lower to PTX instructions: no libdevice, no CUDA headers.
#pragma once

// Execution and memory-space qualifiers.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __restrict__ __restrict
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))

// threadIdx, blockIdx, blockDim, gridDim and warpSize.
#include <__clang_cuda_builtin_vars.h>

// Fixed-width integers, INT_MAX and friends, FLT_MAX and friends (clang's
// own freestanding headers).
#include <stdint.h>
#include <limits.h>
#include <float.h>
#include <stddef.h>

#define __PN_D static __device__ __forceinline__

// The vector types the runtime headers define, as far as kernels use them.
struct __align__(16) float4 { float x, y, z, w; };
struct __align__(8) float2 { float x, y; };
struct float3 { float x, y, z; };
struct __align__(16) int4 { int x, y, z, w; };
struct __align__(8) int2 { int x, y; };
struct int3 { int x, y, z; };
__PN_D float2 make_float2(float x, float y) { float2 v = {x, y}; return v; }
__PN_D float3 make_float3(float x, float y, float z) { float3 v = {x, y, z}; return v; }
__PN_D float4 make_float4(float x, float y, float z, float w) { float4 v = {x, y, z, w}; return v; }
__PN_D int2 make_int2(int x, int y) { int2 v = {x, y}; return v; }
__PN_D int3 make_int3(int x, int y, int z) { int3 v = {x, y, z}; return v; }
__PN_D int4 make_int4(int x, int y, int z, int w) { int4 v = {x, y, z, w}; return v; }

// Device-side printf: clang lowers the call to the runtime's vprintf.
extern "C" __device__ int printf(const char *, ...);

// Barriers and fences. clang 14's own __syncthreads builtin
// (llvm.nvvm.barrier0) lets the optimizer move a load of a __shared__
// variable that no call can reach above the barrier; the barrier.sync
// intrinsic and inline asm with a memory clobber keep memory in order.
#define __syncthreads() __nvvm_bar_sync(0)
__PN_D int __syncthreads_count(int p) {
	int n;
	asm volatile("{ .reg .pred q; setp.ne.s32 q, %1, 0; bar.red.popc.u32 %0, 0, q; }" : "=r"(n) : "r"(p) : "memory");
	return n;
}
__PN_D int __syncthreads_and(int p) {
	int r;
	asm volatile("{ .reg .pred q, s; setp.ne.s32 q, %1, 0; bar.red.and.pred s, 0, q; selp.s32 %0, 1, 0, s; }" : "=r"(r) : "r"(p) : "memory");
	return r;
}
__PN_D int __syncthreads_or(int p) {
	int r;
	asm volatile("{ .reg .pred q, s; setp.ne.s32 q, %1, 0; bar.red.or.pred s, 0, q; selp.s32 %0, 1, 0, s; }" : "=r"(r) : "r"(p) : "memory");
	return r;
}
__PN_D void __syncwarp(unsigned mask = 0xffffffffu) { __nvvm_bar_warp_sync(mask); }
__PN_D void __threadfence() { __nvvm_membar_gl(); }
__PN_D void __threadfence_block() { __nvvm_membar_cta(); }
__PN_D void __threadfence_system() { __nvvm_membar_sys(); }

// Integer atomics (int, unsigned, long long and unsigned long long where
// CUDA has them), float atomicAdd and atomicExch, and double atomicAdd for
// --arch compute_60 and later, as in CUDA.
__PN_D int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
__PN_D unsigned atomicAdd(unsigned *p, unsigned v) { return __nvvm_atom_add_gen_i((int *)p, (int)v); }
__PN_D unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) { return __nvvm_atom_add_gen_ll((long long *)p, (long long)v); }
__PN_D float atomicAdd(float *p, float v) { return __nvvm_atom_add_gen_f(p, v); }
__PN_D int atomicSub(int *p, int v) { return __nvvm_atom_add_gen_i(p, -v); }
__PN_D unsigned atomicSub(unsigned *p, unsigned v) { return __nvvm_atom_add_gen_i((int *)p, -(int)v); }
__PN_D int atomicMin(int *p, int v) { return __nvvm_atom_min_gen_i(p, v); }
__PN_D unsigned atomicMin(unsigned *p, unsigned v) { return __nvvm_atom_min_gen_ui(p, v); }
__PN_D int atomicMax(int *p, int v) { return __nvvm_atom_max_gen_i(p, v); }
__PN_D unsigned atomicMax(unsigned *p, unsigned v) { return __nvvm_atom_max_gen_ui(p, v); }
__PN_D int atomicExch(int *p, int v) { return __nvvm_atom_xchg_gen_i(p, v); }
__PN_D unsigned atomicExch(unsigned *p, unsigned v) { return __nvvm_atom_xchg_gen_i((int *)p, (int)v); }
__PN_D unsigned long long atomicExch(unsigned long long *p, unsigned long long v) { return __nvvm_atom_xchg_gen_ll((long long *)p, (long long)v); }
__PN_D float atomicExch(float *p, float v) { return __builtin_bit_cast(float, __nvvm_atom_xchg_gen_i((int *)p, __builtin_bit_cast(int, v))); }
__PN_D int atomicCAS(int *p, int cmp, int v) { return __nvvm_atom_cas_gen_i(p, cmp, v); }
__PN_D unsigned atomicCAS(unsigned *p, unsigned cmp, unsigned v) { return __nvvm_atom_cas_gen_i((int *)p, (int)cmp, (int)v); }
__PN_D unsigned long long atomicCAS(unsigned long long *p, unsigned long long cmp, unsigned long long v) { return __nvvm_atom_cas_gen_ll((long long *)p, (long long)cmp, (long long)v); }
__PN_D int atomicAnd(int *p, int v) { return __nvvm_atom_and_gen_i(p, v); }
__PN_D unsigned atomicAnd(unsigned *p, unsigned v) { return __nvvm_atom_and_gen_i((int *)p, (int)v); }
__PN_D int atomicOr(int *p, int v) { return __nvvm_atom_or_gen_i(p, v); }
__PN_D unsigned atomicOr(unsigned *p, unsigned v) { return __nvvm_atom_or_gen_i((int *)p, (int)v); }
__PN_D int atomicXor(int *p, int v) { return __nvvm_atom_xor_gen_i(p, v); }
__PN_D unsigned atomicXor(unsigned *p, unsigned v) { return __nvvm_atom_xor_gen_i((int *)p, (int)v); }
__PN_D long long atomicMin(long long *p, long long v) { return __nvvm_atom_min_gen_ll(p, v); }
__PN_D long long atomicMax(long long *p, long long v) { return __nvvm_atom_max_gen_ll(p, v); }
__PN_D unsigned long long atomicMin(unsigned long long *p, unsigned long long v) { return __nvvm_atom_min_gen_ull(p, v); }
__PN_D unsigned long long atomicMax(unsigned long long *p, unsigned long long v) { return __nvvm_atom_max_gen_ull(p, v); }
__PN_D unsigned long long atomicAnd(unsigned long long *p, unsigned long long v) { return __nvvm_atom_and_gen_ll((long long *)p, (long long)v); }
__PN_D unsigned long long atomicOr(unsigned long long *p, unsigned long long v) { return __nvvm_atom_or_gen_ll((long long *)p, (long long)v); }
__PN_D unsigned long long atomicXor(unsigned long long *p, unsigned long long v) { return __nvvm_atom_xor_gen_ll((long long *)p, (long long)v); }
#if __CUDA_ARCH__ >= 600
__PN_D double atomicAdd(double *p, double v) { return __nvvm_atom_add_gen_d(p, v); }
#endif
__PN_D unsigned atomicInc(unsigned *p, unsigned v) { return __nvvm_atom_inc_gen_ui(p, v); }
__PN_D unsigned atomicDec(unsigned *p, unsigned v) { return __nvvm_atom_dec_gen_ui(p, v); }

// Warp shuffles and votes (the .sync forms of CUDA 9 and later).
#define __PN_SHFL_C(width) (((32 - (width)) << 8) | 0x1f)
__PN_D int __shfl_sync(unsigned m, int v, int lane, int w = 32) { return __nvvm_shfl_sync_idx_i32(m, v, lane, __PN_SHFL_C(w)); }
__PN_D int __shfl_up_sync(unsigned m, int v, unsigned d, int w = 32) { return __nvvm_shfl_sync_up_i32(m, v, d, (32 - w) << 8); }
__PN_D int __shfl_down_sync(unsigned m, int v, unsigned d, int w = 32) { return __nvvm_shfl_sync_down_i32(m, v, d, __PN_SHFL_C(w)); }
__PN_D int __shfl_xor_sync(unsigned m, int v, int lane, int w = 32) { return __nvvm_shfl_sync_bfly_i32(m, v, lane, __PN_SHFL_C(w)); }
__PN_D unsigned __shfl_sync(unsigned m, unsigned v, int lane, int w = 32) { return (unsigned)__shfl_sync(m, (int)v, lane, w); }
__PN_D unsigned __shfl_up_sync(unsigned m, unsigned v, unsigned d, int w = 32) { return (unsigned)__shfl_up_sync(m, (int)v, d, w); }
__PN_D unsigned __shfl_down_sync(unsigned m, unsigned v, unsigned d, int w = 32) { return (unsigned)__shfl_down_sync(m, (int)v, d, w); }
__PN_D unsigned __shfl_xor_sync(unsigned m, unsigned v, int lane, int w = 32) { return (unsigned)__shfl_xor_sync(m, (int)v, lane, w); }
__PN_D float __shfl_sync(unsigned m, float v, int lane, int w = 32) { return __nvvm_shfl_sync_idx_f32(m, v, lane, __PN_SHFL_C(w)); }
__PN_D float __shfl_up_sync(unsigned m, float v, unsigned d, int w = 32) { return __nvvm_shfl_sync_up_f32(m, v, d, (32 - w) << 8); }
__PN_D float __shfl_down_sync(unsigned m, float v, unsigned d, int w = 32) { return __nvvm_shfl_sync_down_f32(m, v, d, __PN_SHFL_C(w)); }
__PN_D float __shfl_xor_sync(unsigned m, float v, int lane, int w = 32) { return __nvvm_shfl_sync_bfly_f32(m, v, lane, __PN_SHFL_C(w)); }
__PN_D int __all_sync(unsigned m, int p) { return __nvvm_vote_all_sync(m, p); }
__PN_D int __any_sync(unsigned m, int p) { return __nvvm_vote_any_sync(m, p); }
__PN_D int __uni_sync(unsigned m, int p) { return __nvvm_vote_uni_sync(m, p); }
__PN_D unsigned __ballot_sync(unsigned m, int p) { return __nvvm_vote_ballot_sync(m, p); }
__PN_D unsigned __activemask() { unsigned m; asm volatile("activemask.b32 %0;" : "=r"(m)); return m; }

// Integer helpers.
__PN_D int min(int a, int b) { return a < b ? a : b; }
__PN_D int max(int a, int b) { return a > b ? a : b; }
__PN_D unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
__PN_D unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
__PN_D long long min(long long a, long long b) { return a < b ? a : b; }
__PN_D long long max(long long a, long long b) { return a > b ? a : b; }
__PN_D float min(float a, float b) { return __builtin_fminf(a, b); }
__PN_D float max(float a, float b) { return __builtin_fmaxf(a, b); }
__PN_D double min(double a, double b) { return __builtin_fmin(a, b); }
__PN_D double max(double a, double b) { return __builtin_fmax(a, b); }
__PN_D int abs(int a) { return a < 0 ? -a : a; }
__PN_D long long llabs(long long a) { return a < 0 ? -a : a; }
__PN_D int __popc(unsigned x) { return __builtin_popcount(x); }
__PN_D int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
__PN_D int __ffs(int x) { return __builtin_ffs(x); }
__PN_D unsigned __brev(unsigned x) { return __builtin_bitreverse32(x); }
__PN_D int __mul24(int a, int b) { return ((a << 8) >> 8) * ((b << 8) >> 8); }

// Float math that PTX has instructions for: exact as CUDA's (sqrtf is
// correctly rounded, fminf/fmaxf/fabsf/floorf/ceilf/truncf/rintf exact).
__PN_D float sqrtf(float x) { return __builtin_sqrtf(x); }
__PN_D float rsqrtf(float x) { return 1.0f / __builtin_sqrtf(x); }
__PN_D float fabsf(float x) { return __builtin_fabsf(x); }
__PN_D float fminf(float a, float b) { return __builtin_fminf(a, b); }
__PN_D float fmaxf(float a, float b) { return __builtin_fmaxf(a, b); }
__PN_D float floorf(float x) { return __builtin_floorf(x); }
__PN_D float ceilf(float x) { return __builtin_ceilf(x); }
__PN_D float truncf(float x) { return __builtin_truncf(x); }
__PN_D float rintf(float x) { return __builtin_rintf(x); }
__PN_D float roundf(float x) { return __builtin_copysignf(__builtin_floorf(__builtin_fabsf(x) + 0.5f), x); }
__PN_D float fmaf(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
__PN_D float copysignf(float a, float b) { return __builtin_copysignf(a, b); }
__PN_D float __fdividef(float a, float b) { return a / b; }
__PN_D double sqrt(double x) { return __builtin_sqrt(x); }
__PN_D double fabs(double x) { return __builtin_fabs(x); }
__PN_D double fmin(double a, double b) { return __builtin_fmin(a, b); }
__PN_D double fmax(double a, double b) { return __builtin_fmax(a, b); }
__PN_D double floor(double x) { return __builtin_floor(x); }
__PN_D double ceil(double x) { return __builtin_ceil(x); }
__PN_D double trunc(double x) { return __builtin_trunc(x); }
__PN_D double fma(double a, double b, double c) { return __builtin_fma(a, b, c); }

// Float math that PTX has no instruction for, built on the approximate
// instructions ex2.approx.f32, lg2.approx.f32, sin.approx.f32 and
// cos.approx.f32. The accuracy is that of CUDA's fast intrinsics (__expf,
// __logf, __powf, __sinf, __cosf: what nvcc's -use_fast_math gives), not
// that of the toolkit's expf or logf (within 2 ulp). The PTX ISA gives
// ex2.approx a maximum relative error of 2 ulp, lg2.approx an absolute one
// of 2^-22 and sin/cos.approx 2^-20.9 in [-pi, pi] (growing outside it);
// expf(x) = ex2(x * log2(e)) adds the rounding of that product (about
// |x| * 2^-24 relative), logf and log10f scale lg2, powf(x, y) =
// ex2(y * lg2(x)) holds for x > 0 (x < 0 gives NaN, powf(0, y) = 0 for
// y > 0).
__PN_D float __expf(float x) { return __nvvm_ex2_approx_f(x * 1.44269504f); }
__PN_D float __exp2f(float x) { return __nvvm_ex2_approx_f(x); }
__PN_D float __logf(float x) { return __nvvm_lg2_approx_f(x) * 0.693147181f; }
__PN_D float __log2f(float x) { return __nvvm_lg2_approx_f(x); }
__PN_D float __log10f(float x) { return __nvvm_lg2_approx_f(x) * 0.301029996f; }
__PN_D float __powf(float x, float y) { return __nvvm_ex2_approx_f(y * __nvvm_lg2_approx_f(x)); }
__PN_D float __sinf(float x) { return __nvvm_sin_approx_f(x); }
__PN_D float __cosf(float x) { return __nvvm_cos_approx_f(x); }
__PN_D float __tanf(float x) { return __nvvm_sin_approx_f(x) / __nvvm_cos_approx_f(x); }
__PN_D float expf(float x) { return __expf(x); }
__PN_D float exp2f(float x) { return __exp2f(x); }
__PN_D float logf(float x) { return __logf(x); }
__PN_D float log2f(float x) { return __log2f(x); }
__PN_D float log10f(float x) { return __log10f(x); }
__PN_D float powf(float x, float y) { return __powf(x, y); }
__PN_D float sinf(float x) { return __sinf(x); }
__PN_D float cosf(float x) { return __cosf(x); }
__PN_D float tanf(float x) { return __tanf(x); }

#undef __PN_D

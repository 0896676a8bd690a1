// ffcheck.cuh: the kernels that end an fw-fast run on its finished 32-bit
// matrix, ff_finish (the check) and ff_tight_r* (predecessors from the
// tight arcs). fwfast.cu and fw16.cu both include it, so that the 16-bit
// path needs only fw16.ptx: the driver compiles a module whole on its
// first load, and fwfast.ptx's other kernels took seconds of it.
#pragma once
#include "common.cuh"

// ff_finish ends a run on rows lo .. hi-1 (addressed as the whole matrix):
// distances at the internal infinity inf become INF in place (inf = INF:
// no change), and it checks what the host would: flags[0] is the least row
// holding a distance no result may hold (above inf in the fast modes, which
// never produce one, as the poison of a cell nothing wrote is; beyond
// +-MAXDIST in the general ones), flags[1] the least row with a negative
// diagonal (a negative cycle), flags[2] the least row holding a predecessor
// outside NIL .. n-1. The host sets the flags to INF before. Block (x, y)
// takes columns from x * blockDim.x on and rows y, y + gridDim.y, ...
extern "C" __global__ void ff_finish(int n, int ld, int lo, int hi, int inf, int *d, const int *pred, int *flags)
{
    bool bad = false, neg = false, badp = false;
    for (int i = lo + blockIdx.y; i < hi; i += gridDim.y) {
        const size_t row = (size_t)i * ld;
        for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += gridDim.x * blockDim.x) {
            int v = d[row + j];
            bool b;
            if (inf != INF) {
                b = v > inf || v < -MAXDIST;
                if (v == inf)
                    d[row + j] = v = INF;
            } else {
                b = v != INF && (v > MAXDIST || v < -MAXDIST);
            }
            if (b && !bad) {
                bad = true;
                atomicMin(flags, i);
            }
            if (i == j && v < 0 && !neg) {
                neg = true;
                atomicMin(flags + 1, i);
            }
            if (pred) {
                const int p = pred[row + j];
                if ((p < NIL || p >= n) && !badp) {
                    badp = true;
                    atomicMin(flags + 2, i);
                }
            }
        }
    }
}

// ff_tight computes predecessors from the finished distances of a graph
// whose arcs all weigh at least 1, for rows lo .. hi-1 (addressed as the
// whole matrix of side ld): pred[i][v] = the greatest k with an arc k -> v
// of weight w and d[i][k] + w = d[i][v] (a "tight" arc: the last arc of a
// shortest path from i to v), NIL where none is (v unreachable, v = i: a
// tight arc into i would weigh 0). Every tight arc leads to a strictly
// greater distance when weights are positive, so following such
// predecessors from any v reaches i, along a shortest path: Π is a
// shortest-path tree of each row, though on ties not the one Floyd-
// Warshall's update rule picks. pred must hold NIL on rows lo .. hi-1
// before (ff_init), and d the internal infinity inf where no path is. It
// costs one check per row and arc, against Floyd-Warshall's n per cell,
// and lets the stages run without predecessors (MODE_DIST), whose phase 1
// is the critical path of small matrices.
//
// Block x takes R rows (lo + x*R ...): it stages them in shared memory
// interleaved (ds[v*R + r] = d[lo + x*R + r][v], n*R ints of dynamic shared
// memory), then block y of gridDim.y takes its share of the m arcs, given
// as lists of sources (src, which ff_arcs writes), targets and weights,
// FF_TIGHT_U arcs a thread at a time, each checked against the R rows.
#define FF_TIGHT_U 4

// ff_tight_scan calls check(k, v, w) for each arc k -> v of weight w in
// block y's share of the m arcs (sources src, targets tgt, weights w),
// FF_TIGHT_U arcs a thread at a time: their loads first, then the checks.
template <typename F>
__device__ __forceinline__ void ff_tight_scan(int m, const int *__restrict__ src, const int *__restrict__ tgt,
                                              const int *__restrict__ w, F check)
{
    const int per = (m + gridDim.y - 1) / gridDim.y;
    const int e0 = blockIdx.y * per, e1 = min(m, e0 + per);
    for (int base = e0 + threadIdx.x; base < e1; base += blockDim.x * FF_TIGHT_U) {
        int k[FF_TIGHT_U], v[FF_TIGHT_U], wt[FF_TIGHT_U];
#pragma unroll
        for (int u = 0; u < FF_TIGHT_U; u++) {
            const int e = base + u * blockDim.x;
            k[u] = -1;
            if (e < e1)
                k[u] = src[e], v[u] = tgt[e], wt[u] = w[e];
        }
#pragma unroll
        for (int u = 0; u < FF_TIGHT_U; u++)
            if (k[u] >= 0)
                check(k[u], v[u], wt[u]);
    }
}

template <int R>
__device__ __forceinline__ void ff_tight_load(const int *ds, int v, int (&x)[R])
{
    if (R % 4 == 0) {
#pragma unroll
        for (int q = 0; q < R; q += 4) {
            const int4 t = *(const int4 *)(ds + (size_t)v * R + q);
            x[q] = t.x, x[q + 1] = t.y, x[q + 2] = t.z, x[q + 3] = t.w;
        }
    } else if (R == 2) {
        const int2 t = *(const int2 *)(ds + (size_t)v * R);
        x[0] = t.x, x[R - 1] = t.y;
    } else {
#pragma unroll
        for (int q = 0; q < R; q++)
            x[q] = ds[(size_t)v * R + q];
    }
}

// ff_tight_store writes x into ds[v*R ...], in vectors where R allows.
template <int R>
__device__ __forceinline__ void ff_tight_store(int *ds, int v, const int (&x)[R])
{
    if (R % 4 == 0) {
#pragma unroll
        for (int q = 0; q < R; q += 4)
            *(int4 *)(ds + (size_t)v * R + q) = make_int4(x[q], x[q + 1], x[q + 2], x[q + 3]);
    } else if (R == 2) {
        *(int2 *)(ds + (size_t)v * R) = make_int2(x[0], x[R - 1]);
    } else {
#pragma unroll
        for (int q = 0; q < R; q++)
            ds[(size_t)v * R + q] = x[q];
    }
}

template <int R>
__device__ void ff_tight(int n, int m, int ld, int lo, int hi, int inf, const int *__restrict__ d, int *pred,
                         const int *__restrict__ src, const int *__restrict__ tgt, const int *__restrict__ w)
{
    extern __shared__ int ds[];
    const int i0 = lo + blockIdx.x * R;
    // Thread t takes vertices v = t, t + blockDim.x, ...: R loads, one a
    // row, each coalesced across the warp, then its R values into ds[v*R].
    for (int v = threadIdx.x; v < n; v += blockDim.x) {
        int x[R];
#pragma unroll
        for (int r = 0; r < R; r++)
            x[r] = i0 + r < hi ? d[(size_t)(i0 + r) * ld + v] : inf;
        ff_tight_store<R>(ds, v, x);
    }
    __syncthreads();
    ff_tight_scan(m, src, tgt, w, [&](int k, int v, int wt) {
        int dk[R], dv[R];
        ff_tight_load<R>(ds, k, dk);
        ff_tight_load<R>(ds, v, dv);
#pragma unroll
        for (int r = 0; r < R; r++)
            if (dk[r] < inf && dk[r] + wt == dv[r])
                atomicMax(pred + (size_t)(i0 + r) * ld + v, k);
    });
}

// ff_tight_r1 takes blocks of up to 1024 threads: its row (past n = 8192)
// leaves room for few blocks a multiprocessor. The others take 512.
#define FF_TIGHT(R, T)                                                                                         \
    extern "C" __global__ void __launch_bounds__(T)                                                            \
        ff_tight_r##R(int n, int m, int ld, int lo, int hi, int inf, const int *d, int *pred, const int *src,  \
                      const int *tgt, const int *w)                                                            \
    {                                                                                                          \
        ff_tight<R>(n, m, ld, lo, hi, inf, d, pred, src, tgt, w);                                              \
    }
FF_TIGHT(1, 1024)
FF_TIGHT(2, 512)
FF_TIGHT(4, 512)
FF_TIGHT(8, 512)
FF_TIGHT(16, 512)

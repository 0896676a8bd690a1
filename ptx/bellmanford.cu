// bellmanford.cu: the Bellman-Ford kernels of pathnotes' GPU variants,
// after Bodra [Bodra] §2.1: single source, CSR graph, one relax
// and one update launch per pass, double-buffered distances (relax reads
// prev and lowers dist with atomicMin; update copies dist into prev).
//
//   bf-naive   bf_relax_naive,  bf_update_naive   one thread per vertex
//   bf-stride  bf_relax_stride, bf_update_stride  grid-stride loops, half the blocks
//   bf-flag    bf_relax_flag,   bf_update_flag    stride, and only vertices whose
//                                                 distance changed relax again
//
// The CSR offsets off[] have n+1 entries, so vertices without out-arcs are
// handled (Bodra's builder assumes every vertex has one).
#include "common.cuh"

// bf_init: every distance INF but the source's; only the source is flagged.
// last[v] is the pass in which v's distance last changed (0 for the source,
// -1 for vertices not reached yet); bf_pred uses it.
extern "C" __global__ void bf_init(int n, int src, int *dist, int *prev, int *flag, int *last)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const bool s = i == src;
    dist[i] = prev[i] = s ? 0 : INF;
    flag[i] = s;
    last[i] = s ? 0 : -1;
}

// relax_out relaxes the out-arcs of u from its distance after the previous
// pass. The plain pre-check skips most atomics; atomicMin makes concurrent
// lowerings of one target safe (Bodra's Figure 1: a plain store could leave
// 9 where 6 is right).
__device__ __forceinline__ void relax_out(int u, const int *off, const int *tgt, const int *w, const int *prev, int *dist)
{
    const int pu = prev[u];
    if (pu == INF)
        return;
    const int end = off[u + 1];
    for (int a = off[u]; a < end; a++) {
        const int t = tgt[a], nd = pu + w[a];
        if (nd < dist[t])
            atomicMin(&dist[t], nd);
    }
}

// update_one ends a pass for vertex i: it records a change (in last[i], in
// *changed, which the host reads to exit early or to detect a negative
// cycle, and in flag[i] for bf-flag) and copies dist into prev.
__device__ __forceinline__ void update_one(int i, int *prev, const int *dist, int *last, int pass, int *changed, int *flag)
{
    const int di = dist[i];
    if (di < prev[i]) {
        last[i] = pass;
        *changed = i + 1;
        if (flag)
            flag[i] = 1;
    }
    prev[i] = di;
}

// bf-naive (Bodra section 2.1.1): thread i is vertex i; grid (n-1)/1024+1.
extern "C" __global__ void bf_relax_naive(int n, const int *off, const int *tgt, const int *w, const int *prev, int *dist)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        relax_out(i, off, tgt, w, prev, dist);
}

extern "C" __global__ void bf_update_naive(int n, int *prev, const int *dist, int *last, int pass, int *changed)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        update_one(i, prev, dist, last, pass, changed, 0);
}

// bf-stride (Bodra section 2.1.2, after Harris's grid-stride loops): half
// as many blocks as bf-naive, each thread taking vertices i, i + stride, ...
extern "C" __global__ void bf_relax_stride(int n, const int *off, const int *tgt, const int *w, const int *prev, int *dist)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        relax_out(i, off, tgt, w, prev, dist);
}

extern "C" __global__ void bf_update_stride(int n, int *prev, const int *dist, int *last, int pass, int *changed)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        update_one(i, prev, dist, last, pass, changed, 0);
}

// bf-flag (Bodra section 2.1.3, after Agarwal & Dutta): the stride loops,
// but a vertex relaxes its out-arcs only if its distance changed in the
// previous pass (flag[i]), and clears its flag when it does.
extern "C" __global__ void bf_relax_flag(int n, const int *off, const int *tgt, const int *w, const int *prev, int *dist, int *flag)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        if (flag[i]) {
            flag[i] = 0;
            relax_out(i, off, tgt, w, prev, dist);
        }
    }
}

extern "C" __global__ void bf_update_flag(int n, int *prev, const int *dist, int *last, int pass, int *changed, int *flag)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        update_one(i, prev, dist, last, pass, changed, flag);
}

// bf_pred computes predecessors after the passes. Bodra's parent kernels
// let the last writer win among all arcs u -> v with dist[u] + w = dist[v],
// which can close a cycle of zero-weight arcs. Here u must also have
// reached its final distance in an earlier pass than v (last[u] < last[v]):
// the arc that set v's final distance qualifies, and passes strictly
// decrease along predecessors, so they never form a cycle. Any of several
// valid writers may win.
extern "C" __global__ void bf_pred(int n, const int *off, const int *tgt, const int *w, const int *dist, const int *last, int *pred)
{
    for (int u = blockIdx.x * blockDim.x + threadIdx.x; u < n; u += blockDim.x * gridDim.x) {
        const int du = dist[u];
        if (du == INF)
            continue;
        const int lu = last[u], end = off[u + 1];
        for (int a = off[u]; a < end; a++) {
            const int t = tgt[a];
            if (lu < last[t] && du + w[a] == dist[t])
                pred[t] = u;
        }
    }
}

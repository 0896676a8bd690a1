// dijkstra.cu: the Dijkstra kernels of pathnotes' GPU variants.
//
//   dijkstra-martin    dm_*               [Musap 2016] §2.7,
//                                         after Martin et al.: relax / minimum / update
//   dijkstra-apsp-row  dijkstra_apsp_row  Bodra [Bodra] §2.2.1: one
//                                         thread per source, linear-scan extract-min
//
// The graph is in CSR form: the arcs leaving u are off[u] .. off[u+1]-1, with
// targets tgt[] and weights w[]. off has n+1 entries, so a vertex without
// out-arcs has an empty range (the documents' CSR builders assume every
// vertex has an out-arc).
#include "common.cuh"

// ---------------------------------------------------------------------------
// dijkstra-martin (Musap 2016, section 2.7-2.8 and Algorithm 2): C holds the
// tentative distances, U marks unsettled vertices, F the frontier. One
// thread per vertex, 512 threads per block, in every kernel.

// dm_init: the source is settled and is the first frontier (Musap's
// initialize_kernel, with the source as a parameter instead of vertex 0).
// round[v] records the while-iteration that settled v (-1: not yet).
extern "C" __global__ void dm_init(int n, int src, int *C, int *F, int *U, int *round)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const bool s = i == src;
    C[i] = s ? 0 : INF;
    F[i] = s;
    U[i] = !s;
    round[i] = s ? 0 : -1;
}

// dm_relax: each frontier vertex pushes its distance along its out-arcs to
// unsettled targets with atomicMin (Musap's chosen fix of the lost-update
// race of Harish & Narayanan's relax). No thread writes a frontier vertex's
// C, so reading C[i] needs no atomic.
extern "C" __global__ void dm_relax(int n, const int *off, const int *tgt, const int *w, int *C, const int *F, const int *U)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || !F[i])
        return;
    const int ci = C[i];
    const int end = off[i + 1];
    for (int a = off[i]; a < end; a++) {
        const int t = tgt[a];
        if (U[t])
            atomicMin(&C[t], ci + w[a]);
    }
}

// dm_minimum: the minimum of C over unsettled vertices, one partial result
// per block in out[blockIdx.x] (the host takes the minimum of those).
// Musap's reduce: each thread first folds elements i and i + blockDim.x
// over a grid-stride loop, then a shared-memory tree. Musap's last warp
// reads and writes shared memory with no barrier at all (warp-synchronous
// code), which is a race on Volta and later GPUs, whose threads in a warp
// are scheduled independently; here __syncwarp separates each step's reads
// from the next step's writes. blockDim.x must be a power of two >= 64.
extern "C" __global__ void dm_minimum(int n, const int *C, const int *U, int *out)
{
    extern __shared__ int s[];
    const unsigned tid = threadIdx.x, bs = blockDim.x;
    int m = INF;
    for (unsigned i = blockIdx.x * 2 * bs + tid; i < (unsigned)n; i += 2 * bs * gridDim.x) {
        if (U[i])
            m = min(m, C[i]);
        if (i + bs < (unsigned)n && U[i + bs])
            m = min(m, C[i + bs]);
    }
    s[tid] = m;
    __syncthreads();
    for (unsigned st = bs / 2; st > 32; st >>= 1) {
        if (tid < st)
            s[tid] = min(s[tid], s[tid + st]);
        __syncthreads();
    }
    if (tid < 32) {
        int v = min(s[tid], s[tid + 32]);
        for (int st = 16; st > 0; st >>= 1) {
            __syncwarp();
            s[tid] = v;
            __syncwarp();
            v = min(v, s[tid + st]);
        }
        if (tid == 0)
            out[blockIdx.x] = v;
    }
}

// dm_update: the new frontier is every unsettled vertex at the minimum
// distance mssp; they are settled now, all ties at once. Musap's update
// does not test U, which re-adds settled vertices whose distance equals
// mssp (possible with zero-weight arcs) to the frontier; the test is here.
extern "C" __global__ void dm_update(int n, const int *C, int *F, int *U, int mssp, int *round, int iter)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    F[i] = 0;
    if (U[i] && C[i] == mssp) {
        U[i] = 0;
        F[i] = 1;
        round[i] = iter;
    }
}

// dm_pred computes predecessors after the run; Musap's code records none.
// The pair (distance, predecessor) cannot be updated by one atomicMin, so
// pred[t] = u is chosen among arcs u -> t with C[u] + w = C[t] whose tail
// was settled in an earlier round: such an arc exists for every settled
// vertex but the source (the one that set its final distance), and rounds
// strictly decrease along predecessors, so they never form a cycle even
// with zero-weight arcs. Several valid writers may race; any one is right.
extern "C" __global__ void dm_pred(int n, const int *off, const int *tgt, const int *w, const int *C, const int *round, int *pred)
{
    const int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= n || round[u] < 0)
        return;
    const int cu = C[u], ru = round[u];
    const int end = off[u + 1];
    for (int a = off[u]; a < end; a++) {
        const int t = tgt[a];
        if (round[t] > ru && cu + w[a] == C[t])
            pred[t] = u;
    }
}

// ---------------------------------------------------------------------------
// dijkstra-apsp-row (Bodra section 2.2.1, kernel dijkstraNaive): all pairs,
// one thread per source on blocks of 1024, each running the O(n^2) array
// Dijkstra on its own row of the n x n matrices dist, parent and visited,
// with extract-min as a linear scan (a heap per thread would not fit in
// shared memory). cost is the dense weight matrix (INF: no arc).
//
// The host launches the kernel repeatedly, each launch doing up to `rounds`
// extract-min rounds from round `first` on, so that a run can be
// interrupted between launches; the state lives in the matrices. Launch
// first = 0 initialises the rows. Bodra's host code never copies parent
// back; pathnotes does.
extern "C" __global__ void dijkstra_apsp_row(int n, int first, int rounds, const int *cost, int *dist, int *parent, unsigned char *visited)
{
    const int src = blockIdx.x * blockDim.x + threadIdx.x;
    if (src >= n)
        return;
    int *drow = dist + (size_t)src * n;
    int *prow = parent + (size_t)src * n;
    unsigned char *vrow = visited + (size_t)src * n;
    if (first == 0) {
        for (int v = 0; v < n; v++) {
            drow[v] = v == src ? 0 : INF;
            prow[v] = NIL;
            vrow[v] = 0;
        }
    }
    for (int r = 0; r < rounds; r++) {
        // extractMin: the unvisited vertex with the smallest finite distance.
        int u = -1, du = INF;
        for (int v = 0; v < n; v++) {
            if (!vrow[v] && drow[v] < du) {
                du = drow[v];
                u = v;
            }
        }
        if (u < 0)
            return;
        vrow[u] = 1;
        const int *crow = cost + (size_t)u * n;
        for (int v = 0; v < n; v++) {
            const int c = crow[v];
            if (!vrow[v] && c != INF && du + c < drow[v]) {
                drow[v] = du + c;
                prow[v] = u;
            }
        }
    }
}

// Kernels a student might write for the Greek lab handout's exercises
// ([Lab handout] §2), correct and with planted bugs, for the lab package's
// tests. Regenerate student.ptx after editing (the tests embed it, so they
// need no CUDA compiler):
//
//	nvcc -ptx -arch=compute_52 -O3 -o student.ptx student.cu

#define INF 2147483647 // graph.Inf: no path
#define T 32           // tile side of the tiled kernels

// relax is the Floyd-Warshall update of one cell through pivot value ik
// (d[i][k]) and kj (d[k][j]), guarded so that INF + w does not wrap.
__device__ __forceinline__ void relax(int *cell, int ik, int kj) {
    if (ik != INF && kj != INF && ik + kj < *cell) *cell = ik + kj;
}

// fw1d: one launch per k, one thread per cell, 1-D blocks.
extern "C" __global__ void fw1d(int *d, int n, int k) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= n * n) return;
    int i = idx / n, j = idx % n;
    relax(&d[idx], d[i * n + k], d[k * n + j]);
}

// fw2d: one launch per k, 2-D blocks, threadIdx.x along j (coalesced).
extern "C" __global__ void fw2d(int *d, int n, int k) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n) return;
    relax(&d[i * n + j], d[i * n + k], d[k * n + j]);
}

// fw2dOffByOne is fw2d with the bound `i < n-1`: the last row is never
// relaxed.
extern "C" __global__ void fw2dOffByOne(int *d, int n, int k) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n - 1 || j >= n) return;
    relax(&d[i * n + j], d[i * n + k], d[k * n + j]);
}

// fw2dNoGuard adds without the INF guard: INF + w wraps to a large
// negative number.
extern "C" __global__ void fw2dNoGuard(int *d, int n, int k) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n) return;
    int s = d[i * n + k] + d[k * n + j];
    if (s < d[i * n + j]) d[i * n + j] = s;
}

// fw2dNoBounds has no bound check: the threads of the last, partial
// blocks relax cells past row n-1 (past the end of the matrix) and, for
// j >= n, cells of the next row.
extern "C" __global__ void fw2dNoBounds(int *d, int n, int k) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    relax(&d[i * n + j], d[i * n + k], d[k * n + j]);
}

// nothing is the skeleton: it compiles and writes nothing.
extern "C" __global__ void nothing(int *d, int n, int k) {}

// The tiled version in global memory ([Lab handout] §2.2): three kernels
// per round r, one per phase; the launch boundaries are the barriers.
// Threads outside the matrix still reach every __syncthreads.

extern "C" __global__ void tiledPhase1(int *d, int n, int r) {
    int i = r * T + threadIdx.y, j = r * T + threadIdx.x;
    bool in = i < n && j < n;
    for (int k = r * T; k < min(r * T + T, n); k++) {
        if (in) relax(&d[i * n + j], d[i * n + k], d[k * n + j]);
        __syncthreads();
    }
}

extern "C" __global__ void tiledPhase2(int *d, int n, int r) {
    if (blockIdx.x == r) return;
    int i, j;
    if (blockIdx.y == 0) { // tile (r, x) of row r
        i = r * T + threadIdx.y;
        j = blockIdx.x * T + threadIdx.x;
    } else { // tile (x, r) of column r
        i = blockIdx.x * T + threadIdx.y;
        j = r * T + threadIdx.x;
    }
    bool in = i < n && j < n;
    for (int k = r * T; k < min(r * T + T, n); k++) {
        if (in) relax(&d[i * n + j], d[i * n + k], d[k * n + j]);
        __syncthreads();
    }
}

extern "C" __global__ void tiledPhase3(int *d, int n, int r) {
    if (blockIdx.x == r || blockIdx.y == r) return;
    int i = blockIdx.y * T + threadIdx.y, j = blockIdx.x * T + threadIdx.x;
    if (i >= n || j >= n) return;
    int v = d[i * n + j];
    for (int k = r * T; k < min(r * T + T, n); k++) relax(&v, d[i * n + k], d[k * n + j]);
    d[i * n + j] = v;
}

// SSSP: Bellman-Ford style. ssspInit sets dist; ssspRelax relaxes every
// arc of every vertex with atomicMin and sets *changed when it improves
// something. The host repeats ssspRelax until nothing changes.
extern "C" __global__ void ssspInit(int *dist, int n, int source) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) dist[v] = v == source ? 0 : INF;
}

extern "C" __global__ void ssspInitOffByOne(int *dist, int n, int source) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n - 1) dist[v] = v == source ? 0 : INF;
}

extern "C" __global__ void ssspRelax(const int *off, const int *tgt, const int *w, int *dist, int n, int *changed) {
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= n) return;
    int du = dist[u];
    if (du == INF) return;
    for (int a = off[u]; a < off[u + 1]; a++) {
        int nd = du + w[a];
        if (nd < dist[tgt[a]] && atomicMin(&dist[tgt[a]], nd) > nd) *changed = 1;
    }
}

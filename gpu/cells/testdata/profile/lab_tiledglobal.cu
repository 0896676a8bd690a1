#define INF 2147483647
#define B 32 // tile side: one thread per cell, 32×32 = 1024 threads per block

__device__ __forceinline__ int relax(int cur, int ik, int kj) {
    return (ik != INF && kj != INF && ik + kj < cur) ? ik + kj : cur;
}

// pivots relaxes cell (i, j) through the round's pivots in order, with a
// barrier after each: in phases 1 and 2 a tile reads cells of its own that
// other threads update. Threads outside the matrix (the last tile may be
// partial) do no work but still reach every barrier.
__device__ void pivots(int *d, int n, int r, int i, int j) {
    bool in = i < n && j < n;
    for (int k = r * B; k < min(r * B + B, n); k++) {
        if (in) d[i * n + j] = relax(d[i * n + j], d[i * n + k], d[k * n + j]);
        __syncthreads();
    }
}

// Phase 1: tile (r, r) on itself.
__global__ void globalPhase1(int *d, int n, int r) {
    pivots(d, n, r, r * B + threadIdx.y, r * B + threadIdx.x);
}

// Phase 2: blockIdx.y 0 takes tile (r, x) of row r, 1 takes tile (x, r) of column r.
__global__ void globalPhase2(int *d, int n, int r) {
    if (blockIdx.x == r) return;
    int i = blockIdx.y == 0 ? r * B + threadIdx.y : blockIdx.x * B + threadIdx.y;
    int j = blockIdx.y == 0 ? blockIdx.x * B + threadIdx.x : r * B + threadIdx.x;
    pivots(d, n, r, i, j);
}

// Phase 3: every other tile (y, x) from tiles (y, r) and (r, x), which do not
// change in this phase: no barrier, the cell stays in a register.
__global__ void globalPhase3(int *d, int n, int r) {
    if (blockIdx.x == r || blockIdx.y == r) return;
    int i = blockIdx.y * B + threadIdx.y, j = blockIdx.x * B + threadIdx.x;
    if (i >= n || j >= n) return;
    int v = d[i * n + j];
    for (int k = r * B; k < min(r * B + B, n); k++) v = relax(v, d[i * n + k], d[k * n + j]);
    d[i * n + j] = v;
}

#define INF 2147483647

__device__ __forceinline__ int relax(int cur, int ik, int kj) {
    return (ik != INF && kj != INF && ik + kj < cur) ? ik + kj : cur;
}

// load copies cell (i, j) into a tile, INF outside the matrix, so that the
// loops need no bound checks: INF never improves anything.
__device__ __forceinline__ int load(const int *d, int n, int i, int j) {
    return i < n && j < n ? d[i * n + j] : INF;
}

// Phase 1: tile (r, r) in shared memory. Row k and column k of the tile do not
// change at step k (w[k][k] = 0), so one barrier per step is enough.
template <int B> __device__ void phase1(int *d, int n, int r) {
    __shared__ int t[B][B];
    int y = threadIdx.y, x = threadIdx.x, i = r * B + y, j = r * B + x;
    t[y][x] = load(d, n, i, j);
    __syncthreads();
    for (int k = 0; k < B; k++) {
        t[y][x] = relax(t[y][x], t[y][k], t[k][x]);
        __syncthreads();
    }
    if (i < n && j < n) d[i * n + j] = t[y][x];
}

// Phase 2: the own tile (row r or column r) and the diagonal tile.
template <int B> __device__ void phase2(int *d, int n, int r) {
    if (blockIdx.x == r) return;
    __shared__ int p[B][B], o[B][B];
    int y = threadIdx.y, x = threadIdx.x;
    bool row = blockIdx.y == 0;
    int i = (row ? r : blockIdx.x) * B + y, j = (row ? blockIdx.x : r) * B + x;
    p[y][x] = load(d, n, r * B + y, r * B + x);
    o[y][x] = load(d, n, i, j);
    __syncthreads();
    for (int k = 0; k < B; k++) {
        o[y][x] = row ? relax(o[y][x], p[y][k], o[k][x]) : relax(o[y][x], o[y][k], p[k][x]);
        __syncthreads();
    }
    if (i < n && j < n) d[i * n + j] = o[y][x];
}

// Phase 3: tiles (y, r) and (r, x) in shared memory, the own cell in a register.
template <int B> __device__ void phase3(int *d, int n, int r) {
    if (blockIdx.x == r || blockIdx.y == r) return;
    __shared__ int a[B][B], b[B][B];
    int y = threadIdx.y, x = threadIdx.x, i = blockIdx.y * B + y, j = blockIdx.x * B + x;
    a[y][x] = load(d, n, i, r * B + x);
    b[y][x] = load(d, n, r * B + y, j);
    __syncthreads();
    if (i >= n || j >= n) return;
    int v = d[i * n + j];
    for (int k = 0; k < B; k++) v = relax(v, a[y][k], b[k][x]);
    d[i * n + j] = v;
}

// The instances the Go side launches by name: sharedB8Phase1 ... sharedB32Phase3.
#define TILE(B)                                                                            \
    extern "C" __global__ void sharedB##B##Phase1(int *d, int n, int r) { phase1<B>(d, n, r); } \
    extern "C" __global__ void sharedB##B##Phase2(int *d, int n, int r) { phase2<B>(d, n, r); } \
    extern "C" __global__ void sharedB##B##Phase3(int *d, int n, int r) { phase3<B>(d, n, r); }
TILE(8)
TILE(16)
TILE(32)

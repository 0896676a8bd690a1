#define INF 2147483647 // graph.Inf: no path

// relax returns cur improved through the pivot, or cur: INF + w must not wrap.
__device__ __forceinline__ int relax(int cur, int ik, int kj) {
    return (ik != INF && kj != INF && ik + kj < cur) ? ik + kj : cur;
}

// One thread per cell, 1-D blocks: thread idx is cell (idx / n, idx % n).
__global__ void fwNaive1D(int *d, int n, int k) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= n * n) return;
    int i = idx / n, j = idx % n;
    d[idx] = relax(d[idx], d[i * n + k], d[k * n + j]);
}

// One thread per cell, 2-D blocks: x along j, y along i.
__global__ void fwNaive2D(int *d, int n, int k) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n) return;
    d[i * n + j] = relax(d[i * n + j], d[i * n + k], d[k * n + j]);
}

// Access patterns that check the emulator's model of the memory system
// against a card's counters (not a notebook's cell).
#define TILE 32

// transpose writes the transpose of an n×n matrix through a TILE×TILE
// tile whose rows are PAD words longer than TILE: PAD = 0 reads the tile's
// columns from one bank, PAD = 1 from 32.
template <int PAD> __device__ void transpose(float *out, const float *in, int n) {
    __shared__ float t[TILE][TILE + PAD];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    t[threadIdx.y][threadIdx.x] = in[y * n + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    out[y * n + x] = t[threadIdx.x][threadIdx.y];
}

extern "C" __global__ void transposeTile(float *out, const float *in, int n) { transpose<0>(out, in, n); }
extern "C" __global__ void transposePadded(float *out, const float *in, int n) { transpose<1>(out, in, n); }

// copyStrided reads every stride-th float.
extern "C" __global__ void copyStrided(float *out, const float *in, int n, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i * stride];
}

// shared64 reads 8-byte words stride apart from shared memory.
extern "C" __global__ void shared64(double *out, int stride) {
    __shared__ double s[1024];
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = i;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x * stride) % 1024];
}

// shared128 reads 16-byte words stride apart from shared memory (stride 0:
// every lane the same).
extern "C" __global__ void shared128(float4 *out, int stride) {
    __shared__ float4 s[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) s[i] = make_float4(i, i, i, i);
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x * stride) % 256];
}

// histogram counts in[i] % bins with atomics.
extern "C" __global__ void histogram(int *hist, const int *in, int n, int bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&hist[in[i] % bins], 1);
}

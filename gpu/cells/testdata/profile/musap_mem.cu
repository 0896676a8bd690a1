// §1.5: a variable in global memory that host and kernels share.
__device__ float devData;

__global__ void addTwo() {
    devData += 2.0f;
}

// §1.5: constant memory, written by the host, read by every thread.
__constant__ float coef[4];

__global__ void cubic(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = ((coef[3] * v + coef[2]) * v + coef[1]) * v + coef[0];
    }
}

// Fig. 2.8: a block of 8 sums its elements in shared memory with strides
// 1, 2 and 4; steps[s*8 + t] keeps element t after step s (block 0).
__global__ void blockSum8(const int *in, int *out, int *steps) {
    __shared__ int s[8];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 8 + t];
    __syncthreads();
    int step = 0;
    #pragma unroll 1
    for (int stride = 1; stride < 8; stride *= 2) {
        if (t % (2 * stride) == 0) {
            s[t] += s[t + stride];
        }
        __syncthreads();
        if (blockIdx.x == 0) {
            steps[step * 8 + t] = s[t];
        }
        step++;
    }
    if (t == 0) {
        out[blockIdx.x] = s[0];
    }
}

// The same sum with dynamic shared memory (extern, sized at launch) for
// any power-of-two block size.
__global__ void blockSum(const int *in, int *out, int n) {
    extern __shared__ int sdata[];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    sdata[t] = i < n ? in[i] : 0;
    __syncthreads();
    for (int stride = 1; stride < blockDim.x; stride *= 2) {
        if (t % (2 * stride) == 0) {
            sdata[t] += sdata[t + stride];
        }
        __syncthreads();
    }
    if (t == 0) {
        out[blockIdx.x] = sdata[0];
    }
}

// §1.6: enough work per thread to be seen on a clock.
__global__ void busy(float *x, int n, int rounds) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        for (int r = 0; r < rounds; r++) {
            v = v * 0.999f + 1.0f;
        }
        x[i] = v;
    }
}

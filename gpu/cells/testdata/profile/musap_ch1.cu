// §1.3: every thread writes its global number.
__global__ void globalIds(int *out) {
    int block = blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y;
    int perBlock = blockDim.x * blockDim.y * blockDim.z;
    int t = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
    out[block * perBlock + t] = block * perBlock + t;
}

// Fig. 1.9: a 2-D grid of threads numbered row by row.
__global__ void index2D(int *out, int width, int height) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < width && row < height) {
        out[row * width + col] = row * width + col;
    }
}

// Counts the threads that ran and those that passed the guard.
__global__ void countThreads(int *ran, int *worked, int n) {
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    atomicAdd(ran, 1);
    if (tid < n) {
        atomicAdd(worked, 1);
    }
}

// §1.2 and §1.4: one thread per element; the guard keeps spare threads out.
__global__ void vecAdd(const float *a, const float *b, float *c, int n) {
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    if (tid < n) {
        c[tid] = a[tid] + b[tid];
    }
}

// §1.4: N×N matrices, element (i, j) at i + j*N.
__global__ void matAdd(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n) {
        c[i + j * n] = a[i + j * n] + b[i + j * n];
    }
}

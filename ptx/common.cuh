// common.cuh: conventions shared by every pathnotes kernel.
//
// Distances and weights are 32-bit ints. INF (INT_MAX, graph.Inf on the Go
// side) marks "no path" exactly as in the documents: a relaxation runs only
// when both of its operands are finite, so INF is never added to anything.
// Finite values stay within +-MAXDIST (graph.MaxDistance = 2^30 - 1), which
// the host checks before a run, so the sum of two finite values cannot wrap.
#pragma once

#define INF 2147483647
#define NIL (-1)
#define MAXDIST 1073741823

// relax_sum adds two finite distances. A negative cycle drives sums down
// without bound; clamping them at -MAXDIST keeps them from wrapping round to
// large positive values, so a negative diagonal entry, once there, stays
// negative and the host can report the cycle. Graphs without negative
// cycles never reach the floor.
__device__ __forceinline__ int relax_sum(int a, int b)
{
    return max(a + b, -MAXDIST);
}

// TILE is the side of the square tiles (and of the 2-D thread blocks) of
// every blocked Floyd-Warshall kernel: 32 x 32 = 1024 threads, as in
// Karaula 2017, Bodra and Gaioso et al.
#define TILE 32

// FF_SPIN_MAX is how many polls a block waiting at a grid barrier makes
// before it takes the grid for not all resident (ff_grid_sync).
#define FF_SPIN_MAX (1 << 20)

// ff_grid_arrive is the first half of ff_grid_sync: the block's writes so
// far are made visible to the grid and the block is counted in *count,
// without waiting for the others.
__device__ __forceinline__ void ff_grid_arrive(int *count)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        atomicAdd(count, 1);
    }
}

// ff_grid_wait is the second half: the block waits until *count reaches
// want, and then sees every write made before the arrivals counted;
// false when the run was aborted (bar as for ff_grid_sync, whose spin
// limit it keeps).
__device__ __forceinline__ bool ff_grid_wait(int *bar, int *count, int want, int &abort)
{
    if (threadIdx.x == 0) {
        volatile int *vc = count, *vb = bar;
        int spins = 0;
        while (vc[0] < want && vb[1] == 0) {
            if (++spins > FF_SPIN_MAX) {
                atomicExch(bar + 1, 1);
                break;
            }
        }
        __threadfence();
        abort = vb[1];
    }
    __syncthreads();
    return abort == 0;
}

// ff_grid_sync is barrier number phase (from 1) of the grid of a
// one-launch kernel (fwfast.cu's ff_small, fw16.cu's f16_small), which
// needs every block of the grid on the card at once; false when the run
// was aborted. Every thread of the block gets the same answer. bar is two
// ints the host zeroes: the count of blocks that reached a barrier, and an
// abort flag. A block that waits more than FF_SPIN_MAX polls (the grid was
// not all resident) sets the flag, and every block leaves; the host then
// runs the stages with a launch each.
__device__ __forceinline__ bool ff_grid_sync(int *bar, int phase, int &abort)
{
    ff_grid_arrive(bar);
    return ff_grid_wait(bar, bar, phase * gridDim.x, abort);
}

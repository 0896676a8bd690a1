// fw.cu: the Floyd-Warshall kernels of pathnotes' GPU variants.
//
// Every kernel works in place on the n x n row-major distance matrix d and,
// when pred is not null, on the predecessor matrix pred (the documents' Pi:
// pred[i][j] is the vertex before j on the path from i, NIL if none). The
// update rule is the one of Karaula 2017 [Karaula 2017] §3.1: d[i][j]
// and pred[i][j] change only on a strict improvement through k, and then
// pred[i][j] takes pred[k][j].
//
// Variants and their sources (the Go side, package gpu, runs the host loops):
//   fw-hn            fw_hn                   Karaula "CUDA v1", Bodra "Super Naive"
//   fw-hn-shared     fw_hn_shared            Bodra "Super Naive Shared"
//   fw-row           fw_row                  Bodra "Naive"
//   fw-tiled-global  fw_tiled_global_phase*  Bodra "Tiled"
//   fw-blocked       fw_blocked_phase*       Karaula "CUDA v2" (Katz & Kider), Bodra "Tiled Shared"
//   fw-gaioso        fw_gaioso_phase*        [Gaioso et al.], two kernels per stage
#include "common.cuh"

// ---------------------------------------------------------------------------
// Helpers shared by the kernels below.

// relax is the update rule of every kernel below: it lowers cd[c] to
// dik + dkj when both are finite and the sum is smaller, and cp[c] then
// takes ps[pk], the predecessor of (k, j), when predecessors are kept (cp
// is not null). I is the index type: size_t for the n x n matrices in
// global memory, int for rows and shared tiles.
template <typename I>
__device__ __forceinline__ void relax(int *cd, int *cp, I c, int dik, int dkj, const int *ps, I pk)
{
    if (dik == INF || dkj == INF)
        return;
    const int s = relax_sum(dik, dkj);
    if (s < cd[c]) {
        cd[c] = s;
        if (cp)
            cp[c] = ps[pk];
    }
}

// relax_min is relax for a cell held in registers: best and its
// predecessor bp, which the caller writes back once (store_min).
template <typename I>
__device__ __forceinline__ void relax_min(int &best, int &bp, int dik, int dkj, const int *ps, I pk)
{
    if (dik == INF || dkj == INF)
        return;
    const int s = relax_sum(dik, dkj);
    if (s < best) {
        best = s;
        if (ps)
            bp = ps[pk];
    }
}

// store_min writes a cell that relax_min lowered below its old value old
// back to d[ij] and, when predecessors are kept, pred[ij].
__device__ __forceinline__ void store_min(int *d, int *pred, size_t ij, int old, int best, int bp)
{
    if (best < old) {
        d[ij] = best;
        if (pred)
            pred[ij] = bp;
    }
}

// relax_cell relaxes d[i][j] through k, reading and writing global memory.
// In a launch for pivot k, row k and column k change only when d[k][k] < 0
// (a negative cycle, which the host reports), so the unsynchronised reads
// of d[i][k], d[k][j] and pred[k][j] by other threads are safe.
__device__ __forceinline__ void relax_cell(int n, int i, int j, int k, int *d, int *pred)
{
    const size_t ij = (size_t)i * n + j, ik = (size_t)i * n + k, kj = (size_t)k * n + j;
    const int dik = d[ik], dkj = d[kj];
    relax(d, pred, ij, dik, dkj, pred, kj);
}

// load_tile copies tile (ti, tj) of d (and of pred when sp is not null) into
// shared memory. Cells outside the matrix are padded with INF and NIL, so
// they never improve anything: this is what makes the blocked kernels
// correct for every n, not only for multiples of TILE (Karaula's listing
// loads the primary tiles without this guard).
__device__ __forceinline__ void load_tile(int n, const int *d, const int *pred, int ti, int tj, int *sd, int *sp)
{
    const int i = ti * TILE + threadIdx.y, j = tj * TILE + threadIdx.x;
    const bool in = i < n && j < n;
    const size_t ij = (size_t)i * n + j;
    const int c = threadIdx.y * TILE + threadIdx.x;
    sd[c] = in ? d[ij] : INF;
    if (sp)
        sp[c] = in ? pred[ij] : NIL;
}

// store_tile writes a shared tile back to tile (ti, tj), skipping padding.
__device__ __forceinline__ void store_tile(int n, int *d, int *pred, int ti, int tj, const int *sd, const int *sp)
{
    const int i = ti * TILE + threadIdx.y, j = tj * TILE + threadIdx.x;
    if (i >= n || j >= n)
        return;
    const size_t ij = (size_t)i * n + j;
    const int c = threadIdx.y * TILE + threadIdx.x;
    d[ij] = sd[c];
    if (pred)
        pred[ij] = sp[c];
}

// tile_closure runs plain Floyd-Warshall inside one shared tile (the primary
// tile of a blocked stage): TILE steps, each followed by a barrier because
// step k+1 reads what step k wrote.
__device__ void tile_closure(int *pd, int *pp)
{
    const int ty = threadIdx.y, tx = threadIdx.x, c = ty * TILE + tx;
    for (int k = 0; k < TILE; k++) {
        relax(pd, pp, c, pd[ty * TILE + k], pd[k * TILE + tx], pp, k * TILE + tx);
        __syncthreads();
    }
}

// tile_dependent updates a tile of the primary row (rowTile) or column
// through the finished primary tile pd/pp: for a row tile
// c[i][j] = min(c[i][j], p[i][k] + c[k][j]) with pred from c[k][j]; for a
// column tile c[i][j] = min(c[i][j], c[i][k] + p[k][j]) with pred from
// p[k][j]. The tile itself changes from step to step, hence the barriers.
__device__ void tile_dependent(bool rowTile, int *cd, int *cp, const int *pd, const int *pp)
{
    const int ty = threadIdx.y, tx = threadIdx.x, c = ty * TILE + tx;
    for (int k = 0; k < TILE; k++) {
        if (rowTile)
            relax(cd, cp, c, pd[ty * TILE + k], cd[k * TILE + tx], cp, k * TILE + tx);
        else
            relax(cd, cp, c, cd[ty * TILE + k], pd[k * TILE + tx], pp, k * TILE + tx);
        __syncthreads();
    }
}

// tile_doubly updates tile (ti, tj), which is in neither the primary row nor
// the primary column of stage r, as a min-plus product of its column tile
// (ti, r) and its row tile (r, tj), both final for this stage. The cell
// stays in a register and is written back once, only if it improved.
// Shared memory: 2 tiles, 3 with predecessors.
__device__ void tile_doubly(int n, int r, int ti, int tj, int *d, int *pred, int *sh)
{
    int *colD = sh, *rowD = sh + TILE * TILE, *rowP = pred ? sh + 2 * TILE * TILE : 0;
    load_tile(n, d, 0, ti, r, colD, 0);
    load_tile(n, d, pred, r, tj, rowD, rowP);
    const int ty = threadIdx.y, tx = threadIdx.x;
    const int i = ti * TILE + ty, j = tj * TILE + tx;
    const bool in = i < n && j < n;
    const size_t ij = (size_t)i * n + j;
    const int old = in ? d[ij] : INF;
    int best = old, bp = NIL;
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < TILE; k++) {
        relax_min(best, bp, colD[ty * TILE + k], rowD[k * TILE + tx], rowP, k * TILE + tx);
    }
    if (in)
        store_min(d, pred, ij, old, best, bp);
}

// ---------------------------------------------------------------------------
// fw-hn: Harish & Narayanan's one launch per k.
// Karaula 2017 section 4.4 (Appendix 2, "CUDA v1") and Bodra section 2.3.1
// ("Super Naive"): 32 x 32 blocks on a ceil(n/32)^2 grid, one thread per
// cell (i from y, j from x), global memory only.
extern "C" __global__ void fw_hn(int n, int k, int *d, int *pred)
{
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && j < n)
        relax_cell(n, i, j, k, d, pred);
}

// fw-hn-shared: Bodra section 2.3.2 ("Super Naive Shared"). 1-D blocks of
// 1024 threads on a (ceil(n/1024), n) grid, row i = blockIdx.y; thread 0
// loads d[i][k] once into shared memory and the others read it as a
// broadcast. The barrier is reached by every thread of the block: Bodra's
// listing puts __syncthreads inside "if (j < V)", a divergent barrier when
// n is not a multiple of 1024.
extern "C" __global__ void fw_hn_shared(int n, int k, int *d, int *pred)
{
    __shared__ int dik;
    const int i = blockIdx.y;
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0)
        dik = d[(size_t)i * n + k];
    __syncthreads();
    if (j >= n || dik == INF)
        return;
    const size_t ij = (size_t)i * n + j, kj = (size_t)k * n + j;
    relax(d, pred, ij, dik, d[kj], pred, kj);
}

// fw-row: Bodra section 2.3.3 ("Naive"): one thread per row i, blocks of
// 1024 threads on a ceil(n/1024) grid; each thread loops over all j.
// d[i][k] is read once: it changes during pivot k only when d[k][k] < 0.
extern "C" __global__ void fw_row(int n, int k, int *d, int *pred)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const int dik = d[(size_t)i * n + k];
    if (dik == INF)
        return;
    int *di = d + (size_t)i * n, *pi = pred ? pred + (size_t)i * n : 0;
    const int *dk = d + (size_t)k * n, *pk = pred ? pred + (size_t)k * n : 0;
    for (int j = 0; j < n; j++)
        relax(di, pi, j, dik, dk[j], pk, j);
}

// ---------------------------------------------------------------------------
// fw-tiled-global: Bodra section 2.3.4 ("Tiled"), the three phases of the
// blocked algorithm on 32 x 32 tiles, in global memory. Round r handles
// primary (diagonal) tile r.

// tile_steps relaxes tile (ti, tj) in global memory through the pivots of
// round r, one step per pivot, with a barrier after each step because the
// next one reads what this one wrote.
__device__ void tile_steps(int n, int r, int ti, int tj, int *d, int *pred)
{
    const int i = ti * TILE + threadIdx.y, j = tj * TILE + threadIdx.x;
    const int kEnd = min(r * TILE + TILE, n);
    for (int k = r * TILE; k < kEnd; k++) {
        if (i < n && j < n)
            relax_cell(n, i, j, k, d, pred);
        __syncthreads();
    }
}

// Phase 1: grid (1, 1), the primary tile. Bodra's listing has the barrier
// between k steps commented out, so a warp could read d[i][k] before the
// thread owning it had relaxed it in the previous step; it is back here.
extern "C" __global__ void fw_tiled_global_phase1(int n, int r, int *d, int *pred)
{
    tile_steps(n, r, r, r, d, pred);
}

// Phase 2: grid (nb, 2). Row blockIdx.y = 0 takes the tiles of the primary
// row, blockIdx.y = 1 those of the primary column; the block on the primary
// tile itself exits. A tile changes from step to step, hence the barriers.
extern "C" __global__ void fw_tiled_global_phase2(int n, int r, int *d, int *pred)
{
    if ((int)blockIdx.x == r)
        return;
    const bool rowTile = blockIdx.y == 0;
    const int ti = rowTile ? r : blockIdx.x, tj = rowTile ? blockIdx.x : r;
    tile_steps(n, r, ti, tj, d, pred);
}

// Phase 3: grid (nb, nb); blocks in the primary row or column exit, the
// others combine d[i][k] from their primary-column tile with d[k][j] from
// their primary-row tile, keeping the minimum in a register.
extern "C" __global__ void fw_tiled_global_phase3(int n, int r, int *d, int *pred)
{
    if ((int)blockIdx.x == r || (int)blockIdx.y == r)
        return;
    const int i = blockIdx.y * TILE + threadIdx.y, j = blockIdx.x * TILE + threadIdx.x;
    if (i >= n || j >= n)
        return;
    const size_t ij = (size_t)i * n + j;
    const int old = d[ij];
    int best = old, bp = NIL;
    const int kEnd = min(r * TILE + TILE, n);
    for (int k = r * TILE; k < kEnd; k++) {
        const size_t kj = (size_t)k * n + j;
        relax_min(best, bp, d[(size_t)i * n + k], d[kj], pred, kj);
    }
    store_min(d, pred, ij, old, best, bp);
}

// ---------------------------------------------------------------------------
// fw-blocked: Karaula 2017 section 4.5 (Appendix 3, "CUDA v2"), after
// Venkataraman et al. and Katz & Kider; the same design is Bodra's "Tiled
// with Shared Memory" (section 2.3.5). Tiles live in dynamic shared memory
// (one tile of distances, plus one of predecessors when pred is not null).

// Phase 1: grid (1, 1), FW inside the primary tile.
extern "C" __global__ void fw_blocked_phase1(int n, int r, int *d, int *pred)
{
    extern __shared__ int sh[];
    int *pd = sh, *pp = pred ? sh + TILE * TILE : 0;
    load_tile(n, d, pred, r, r, pd, pp);
    __syncthreads();
    tile_closure(pd, pp);
    store_tile(n, d, pred, r, r, pd, pp);
}

// Phase 2: grid (nb-1, 2): blockIdx.y = 0 the primary row, 1 the primary
// column. Karaula skips the primary tile with the offset
// min((blockIdx.x+1)/(r+1), 1), which is 1 exactly when blockIdx.x >= r.
extern "C" __global__ void fw_blocked_phase2(int n, int r, int *d, int *pred)
{
    extern __shared__ int sh[];
    int *pd = sh, *cd = sh + TILE * TILE;
    int *pp = pred ? sh + 2 * TILE * TILE : 0, *cp = pred ? sh + 3 * TILE * TILE : 0;
    const int c = blockIdx.x + ((int)blockIdx.x >= r);
    const bool rowTile = blockIdx.y == 0;
    const int ti = rowTile ? r : c, tj = rowTile ? c : r;
    load_tile(n, d, pred, r, r, pd, pp);
    load_tile(n, d, pred, ti, tj, cd, cp);
    __syncthreads();
    tile_dependent(rowTile, cd, cp, pd, pp);
    store_tile(n, d, pred, ti, tj, cd, cp);
}

// Phase 3: grid (nb-1, nb-1), the same skip in x and in y.
extern "C" __global__ void fw_blocked_phase3(int n, int r, int *d, int *pred)
{
    extern __shared__ int sh[];
    const int tj = blockIdx.x + ((int)blockIdx.x >= r), ti = blockIdx.y + ((int)blockIdx.y >= r);
    tile_doubly(n, r, ti, tj, d, pred, sh);
}

// ---------------------------------------------------------------------------
// fw-gaioso: [Gaioso et al.] §V, two kernels per stage.

// Phase 1 is persistent: the grid is sized to the blocks the GPU runs at
// once (a multiple of its SM count). Every block computes the primary tile
// itself, in its own shared memory, so no SM waits for another (step 1);
// then the blocks share out the 2(nb-1) tiles of the primary row and column
// in a fixed order, block b taking tasks b, b + gridDim.x, ... (step 2).
// Block r mod gridDim.x stores the primary tile, into the scratch tile
// primD/primP rather than into d, because other blocks may still be
// reading d's primary tile; phase 2 copies it into place.
extern "C" __global__ void fw_gaioso_phase1(int n, int r, int nb, int *d, int *pred, int *primD, int *primP)
{
    extern __shared__ int sh[];
    int *pd = sh, *cd = sh + TILE * TILE;
    int *pp = pred ? sh + 2 * TILE * TILE : 0, *cp = pred ? sh + 3 * TILE * TILE : 0;
    const int c = threadIdx.y * TILE + threadIdx.x;
    load_tile(n, d, pred, r, r, pd, pp);
    __syncthreads();
    tile_closure(pd, pp);
    if ((int)blockIdx.x == r % (int)gridDim.x) {
        primD[c] = pd[c];
        if (pred)
            primP[c] = pp[c];
    }
    const int side = nb - 1;
    for (int t = blockIdx.x; t < 2 * side; t += gridDim.x) {
        const bool rowTile = t < side;
        int o = rowTile ? t : t - side;
        o += o >= r;
        const int ti = rowTile ? r : o, tj = rowTile ? o : r;
        load_tile(n, d, pred, ti, tj, cd, cp);
        __syncthreads();
        tile_dependent(rowTile, cd, cp, pd, pp);
        store_tile(n, d, pred, ti, tj, cd, cp);
        // tile_dependent ends with a barrier, so cd is free for the next task.
    }
}

// Phase 2 is conventional: grid (nb, nb), one block per tile. The blocks of
// the primary row and column have nothing to do, except the primary tile's
// own block, which copies in the tile phase 1 stored; the others update
// their tile from their primary-row and primary-column tiles.
extern "C" __global__ void fw_gaioso_phase2(int n, int r, int *d, int *pred, const int *primD, const int *primP)
{
    extern __shared__ int sh[];
    const int tj = blockIdx.x, ti = blockIdx.y;
    if (ti == r && tj == r) {
        store_tile(n, d, pred, r, r, primD, primP);
        return;
    }
    if (ti == r || tj == r)
        return;
    tile_doubly(n, r, ti, tj, d, pred, sh);
}

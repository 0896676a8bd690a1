// fwfast.cu: the kernels of fw-fast, pathnotes' own Floyd-Warshall.
//
// fw-fast is blocked Floyd-Warshall with 128 x 128 tiles on a matrix whose
// side is padded to a multiple of 128 (padding rows and columns hold the
// internal infinity, so they never improve anything, and no kernel needs a
// bounds check). Stage r of n/128 has three launches:
//
//   ff_phase1   one 256-thread block closes the primary tile (r, r): 128
//               sequential steps, the tile held in registers (64 cells per
//               thread) and row k / column k of each step exchanged through
//               shared memory.
//   ff_panels   the primary row and column, each tile a min-plus product
//               with the closed primary tile:  D[r][j] = min(D[r][j], D*[r][r] (x) D[r][j])
//               and D[i][r] = min(D[i][r], D[i][r] (x) D*[r][r]). Because the
//               primary tile is closed, this one product equals Katz & Kider's
//               128 dependent steps, so phase 2 has no barrier per k.
//   ff_rest     every other tile: D[i][j] = min(D[i][j], D[i][r] (x) D[r][j]).
//
// For small matrices (a few thousand vertices) a 128 x 128 tile per block
// leaves most SMs idle and each stage waits on a few long blocks; there
// ff_qpanels and ff_qrest do the same updates with a block per 64 x 64
// quarter of a tile (mp_rect), four times the blocks, each a quarter as
// long. A quarter block of the primary row (column) reads the primary row
// (column) that the other quarters of its tile write at the same time. For
// distances that race is harmless: every value read, old or new, is the
// length of a real path, and a value updated by the primary tile's
// closure can never make a sum lower than the best sum of the old values.
// With predecessors the panels are ff_hpanels: a block per half of a
// panel tile, split so that it reads only its own half (see ff_hpanels),
// which gives ff_panels' Π; the rest quarters read only the finished
// panels and give what ff_rest gives. Smaller still (n up to about 2048),
// ff_small runs every stage in one launch with 64 x 64 tiles and a grid
// barrier between the phases (see ff_small).
//
// On several cards (gpu/fast_fw_multi.go) each card holds a stripe of block
// rows. The card that owns block row r runs ff_phase1 and the primary-row
// half of ff_panels; every card receives a copy of that row and runs
// ff_stripe_col (its part of the primary column) and ff_stripe_rest.
//
// Phases 2 and 3 share one min-plus "GEMM" (mp_tile): 256 threads compute a
// 128 x 128 tile, each thread an 8 x 8 block of cells in registers, over the
// 128 k of the stage in chunks of 16 staged through double-buffered shared
// memory. Its inner statement is c = min(c, a + b) on int32, which ptxas for
// Hopper turns into one VIADDMNMX per cell and step.
//
// Modes (template parameter MODE, one kernel per mode):
//   MODE_DIST  distances only, non-negative arcs. Internal infinity
//              FF_INF_DIST = 2^30 - 1: the sum of two values never wraps, so
//              the inner loop needs no test; the host guarantees that every
//              finite distance is below it.
//   MODE_PACK  distances and predecessors, non-negative arcs, finite
//              distances below FF_INF_PACK = 2^22 - 1. Inside mp_tile every
//              value is shifted left by 8 bits and each k of the stage puts
//              its index + 1 into the low byte of its row operand, so one
//              min(c, a + b) also records which k won (ties keep the earlier
//              value: its low byte is 0). After the loop the low byte names
//              k, and pred[i][j] takes pred[k][j].
//   MODE_GEN   anything else: graph.Inf (INT_MAX) is tested before every
//              addition, sums are clamped at -MAXDIST (negative cycles), and
//              predecessors, when asked for, are tracked explicitly.
//
// The update rule is the documents' ([Karaula 2017] §3.1): d[i][j] and
// pred[i][j] change only on a strict improvement through k, and then
// pred[i][j] takes pred[k][j].
//
// This file builds two modules: fwfast.ptx, the fast modes' kernels and
// every mode's helpers, and (with FF_GENERAL defined, fwfastgen.cu)
// fwfastgen.ptx, MODE_GEN's kernels. The driver compiles a module whole
// on its first load, and by per-kernel compile times MODE_GEN's kernels
// were about two thirds of the 20 s that CUDA 13's ptxas took for both
// together for an H200: graphs that need no MODE_GEN no longer wait for
// them.
#include "common.cuh"

#define FF_B 128         // tile side and k values per stage
#define FF_KC 16         // k values per shared-memory chunk of mp_tile (its staging assumes 16)
#define FF_INF_DIST MAXDIST
#define FF_INF_PACK ((1 << 22) - 1)

#define MODE_DIST 0
#define MODE_PACK 1
#define MODE_GEN 2

// ff_relax is one Floyd-Warshall step on a register cell c (predecessor q)
// through x = d[i][k] and y = d[k][j] (pred[k][j] = qy), with MODE's
// infinity rules and explicit predecessors (phase 1, and MODE_GEN).
template <int MODE, bool PRED>
__device__ __forceinline__ void ff_relax(int &c, int &q, int x, int y, int qy)
{
    int s;
    if (MODE == MODE_GEN) {
        if (x == INF || y == INF)
            return;
        s = relax_sum(x, y);
    } else {
        s = x + y;
    }
    if (PRED) {
        if (s < c) {
            c = s;
            q = qy;
        }
    } else {
        c = min(c, s);
    }
}

// ffShared1 is phase 1's shared memory: row k, column k and pred row k of
// two consecutive steps. (Shared arrays are declared in the kernels, so that
// each kernel's PTX names only its own.)
struct ffShared1 {
    int rowK[2][FF_B], colK[2][FF_B], rowP[2][FF_B];
};

// ffShared2 is mp_tile's: two chunks of A (transposed: a[k][i]) and of B
// (b[k][j]).
struct ffShared2 {
    int a[2][FF_KC][FF_B], b[2][FF_KC][FF_B];
};

__device__ __forceinline__ int mp_off(int t, int e);

// ff_phase1 closes the primary tile whose first row and column are base
// with one block of 256 threads, each holding CELLS x CELLS cells in
// registers: rows base + mp_off(ty, a), columns base + mp_off(tx, b) (the
// layout of mp_tile; CELLS = 8 for a 128 x 128 tile, 4 for the 64 x 64
// tiles of ff_small, where mp_off(t, e < 4) is t * 4 + e). Its steps are
// sequential, and over all stages they are n steps on the critical path
// of the whole run, so a step must be short: the threads that own row k
// and column k put them in shared memory, one barrier, and every thread
// relaxes its cells (a block of 1024 threads with 16 cells each took 61 us
// a stage at n = 1024 on an H200, most of the run; the barrier of 32 warps
// and their shared-memory traffic were the step's cost).
template <int MODE, bool PRED, int CELLS>
__device__ void ff_phase1(int ld, size_t base, int *d, int *pred, ffShared1 &sh)
{
    auto &rowK = sh.rowK, &colK = sh.colK, &rowP = sh.rowP;
    const int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
    int c[CELLS][CELLS], q[CELLS][CELLS];
#pragma unroll
    for (int a = 0; a < CELLS; a++)
#pragma unroll
        for (int b = 0; b < CELLS; b++) {
            const size_t ij = (base + mp_off(ty, a)) * ld + base + mp_off(tx, b);
            c[a][b] = d[ij];
            q[a][b] = PRED ? pred[ij] : 0;
        }
    // Step k = half * 64 + t4 * 4 + e is row a = half * 4 + e of the
    // threads with ty = t4, and column b = a of those with tx = t4.
#pragma unroll
    for (int half = 0; half < CELLS / 4; half++) {
        for (int t4 = 0; t4 < 16; t4++) {
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const int a0 = half * 4 + e, buf = e & 1;
                if (ty == t4) {
#pragma unroll
                    for (int b = 0; b < CELLS; b++) {
                        rowK[buf][mp_off(tx, b)] = c[a0][b];
                        if (PRED)
                            rowP[buf][mp_off(tx, b)] = q[a0][b];
                    }
                }
                if (tx == t4) {
#pragma unroll
                    for (int a = 0; a < CELLS; a++)
                        colK[buf][mp_off(ty, a)] = c[a][a0];
                }
                // One barrier per step: step k+1 writes the other buffer,
                // and step k+2 comes after every thread passed the barrier
                // of step k+1, so after its reads of step k.
                __syncthreads();
                int rk[CELLS], ck[CELLS], pk[CELLS];
#pragma unroll
                for (int b = 0; b < CELLS; b++) {
                    rk[b] = rowK[buf][mp_off(tx, b)];
                    ck[b] = colK[buf][mp_off(ty, b)];
                    pk[b] = PRED ? rowP[buf][mp_off(tx, b)] : 0;
                }
#pragma unroll
                for (int a = 0; a < CELLS; a++)
#pragma unroll
                    for (int b = 0; b < CELLS; b++)
                        ff_relax<MODE, PRED>(c[a][b], q[a][b], ck[a], rk[b], pk[b]);
            }
        }
    }
#pragma unroll
    for (int a = 0; a < CELLS; a++)
#pragma unroll
        for (int b = 0; b < CELLS; b++) {
            const size_t ij = (base + mp_off(ty, a)) * ld + base + mp_off(tx, b);
            d[ij] = c[a][b];
            if (PRED)
                pred[ij] = q[a][b];
        }
}

// mp_row and mp_col give the matrix row (column) of the e-th of a thread's
// 8 rows (columns) in a 128-wide tile: 4 at t*4 and 4 at 64 + t*4, so that
// a warp's shared-memory reads are 16-byte vectors without bank conflicts.
__device__ __forceinline__ int mp_off(int t, int e) { return (e < 4 ? 0 : 64) + t * 4 + (e & 3); }

// mp_prod computes one 128 x 128 tile C = min(C, A (x) B), k running over
// the 128 columns of A and rows of B: cd (cp, its predecessors) points at
// C's first cell and ldc is C's row length; ad, lda and bd, bp, ldb the same
// for A and B, each in a matrix or buffer of its own (fw-fast on one card
// passes tiles of its matrix, the distributed update panels received from
// other ranks). C may be A or B (the primary row and column): every read
// of A and B is done before the first write of C. With predecessors, C's
// predecessor takes B's of the winning k; those reads also come before any
// write of the tile.
template <int MODE, bool PRED>
__device__ void mp_prod(int *cd, int *cp, int ldc, const int *ad, int lda, const int *bd, const int *bp, int ldb,
                        ffShared2 &sh)
{
    auto &As = sh.a, &Bs = sh.b;
    const int t = threadIdx.x, tx = t & 15, ty = t >> 4;
    const bool pack = MODE == MODE_PACK;
    const bool track = PRED && MODE == MODE_GEN;

    int c[8][8];
    int kw[8][8]; // winning k, MODE_GEN with predecessors (unused otherwise)
#pragma unroll
    for (int a = 0; a < 8; a++) {
        const int *row = cd + (size_t)mp_off(ty, a) * ldc;
        const int4 lo = *(const int4 *)(row + tx * 4), hi = *(const int4 *)(row + 64 + tx * 4);
        c[a][0] = lo.x, c[a][1] = lo.y, c[a][2] = lo.z, c[a][3] = lo.w;
        c[a][4] = hi.x, c[a][5] = hi.y, c[a][6] = hi.z, c[a][7] = hi.w;
#pragma unroll
        for (int b = 0; b < 8; b++) {
            if (pack)
                c[a][b] <<= 8;
            if (track)
                kw[a][b] = -1;
        }
    }

    // Staging: A chunk rows t/2, k columns (t%2)*8 .. +7; B chunk row
    // t/16, columns (t%16)*8 .. +7: two 16-byte loads each per thread.
    const int ar = t >> 1, ak = (t & 1) * 8, br = t >> 4, bc = (t & 15) * 8;
    int4 ra0, ra1, rb0, rb1;
    auto fetch = [&](int ch) {
        const int *pa = ad + (size_t)ar * lda + ch * FF_KC + ak;
        const int *pb = bd + (size_t)(ch * FF_KC + br) * ldb + bc;
        ra0 = *(const int4 *)pa, ra1 = *(const int4 *)(pa + 4);
        rb0 = *(const int4 *)pb, rb1 = *(const int4 *)(pb + 4);
    };
    auto stage = [&](int ch, int buf) {
        const int va[8] = {ra0.x, ra0.y, ra0.z, ra0.w, ra1.x, ra1.y, ra1.z, ra1.w};
        int vb[8] = {rb0.x, rb0.y, rb0.z, rb0.w, rb1.x, rb1.y, rb1.z, rb1.w};
        const int tag = ch * FF_KC + br + 1; // k index in the stage, plus 1
#pragma unroll
        for (int e = 0; e < 8; e++) {
            As[buf][ak + e][ar] = pack ? va[e] << 8 : va[e];
            if (pack)
                vb[e] = (vb[e] << 8) | tag;
        }
        *(int4 *)&Bs[buf][br][bc] = make_int4(vb[0], vb[1], vb[2], vb[3]);
        *(int4 *)&Bs[buf][br][bc + 4] = make_int4(vb[4], vb[5], vb[6], vb[7]);
    };

    const int chunks = FF_B / FF_KC;
    fetch(0);
    stage(0, 0);
    __syncthreads();
    for (int ch = 0; ch < chunks; ch++) {
        const int buf = ch & 1;
        if (ch + 1 < chunks)
            fetch(ch + 1);
#pragma unroll
        for (int kk = 0; kk < FF_KC; kk++) {
            const int4 a0 = *(const int4 *)&As[buf][kk][ty * 4], a1 = *(const int4 *)&As[buf][kk][64 + ty * 4];
            const int4 b0 = *(const int4 *)&Bs[buf][kk][tx * 4], b1 = *(const int4 *)&Bs[buf][kk][64 + tx * 4];
            const int av[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const int bv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int a = 0; a < 8; a++)
#pragma unroll
                for (int b = 0; b < 8; b++) {
                    if (MODE == MODE_GEN) {
                        if (av[a] != INF && bv[b] != INF) {
                            const int s = relax_sum(av[a], bv[b]);
                            if (track) {
                                if (s < c[a][b]) {
                                    c[a][b] = s;
                                    kw[a][b] = ch * FF_KC + kk;
                                }
                            } else {
                                c[a][b] = min(c[a][b], s);
                            }
                        }
                    } else {
                        c[a][b] = min(c[a][b], av[a] + bv[b]);
                    }
                }
        }
        if (ch + 1 < chunks)
            stage(ch + 1, buf ^ 1);
        // Double buffering needs one barrier per chunk: chunk ch+1 is
        // staged into the buffer every thread finished reading at ch-1.
        __syncthreads();
    }

    // Every read of A and B is done (the last barrier). Distances first;
    // then the predecessors of improved cells are read (pred[k][j] may lie
    // in this very tile, for the primary row), a barrier, and written.
#pragma unroll
    for (int a = 0; a < 8; a++) {
        int v[8];
#pragma unroll
        for (int b = 0; b < 8; b++)
            v[b] = pack ? c[a][b] >> 8 : c[a][b];
        int *row = cd + (size_t)mp_off(ty, a) * ldc;
        *(int4 *)(row + tx * 4) = make_int4(v[0], v[1], v[2], v[3]);
        *(int4 *)(row + 64 + tx * 4) = make_int4(v[4], v[5], v[6], v[7]);
    }
    if (PRED) {
        // c (or kw) now becomes the new predecessor, or -2 for "unchanged".
#pragma unroll
        for (int a = 0; a < 8; a++)
#pragma unroll
            for (int b = 0; b < 8; b++) {
                const int k = pack ? (c[a][b] & 255) - 1 : kw[a][b];
                c[a][b] = k < 0 ? -2 : bp[(size_t)k * ldb + mp_off(tx, b)];
            }
        __syncthreads();
#pragma unroll
        for (int a = 0; a < 8; a++)
#pragma unroll
            for (int b = 0; b < 8; b++)
                if (c[a][b] != -2)
                    cp[(size_t)mp_off(ty, a) * ldc + mp_off(tx, b)] = c[a][b];
    }
}

// mp_tile is mp_prod on tile C = (ti, tj) with A = (ti, tk) and B = (tk, tj),
// k running over the 128 values of stage tk. C and A are read from d, B
// from bd (and pred[k][j] from bpred), both indexed as the whole matrix:
// on one card bd is d; a card holding a stripe of block rows passes
// pointers offset so that global indices land in its stripe and in its
// copy of the primary row (ff_stripe_*).
template <int MODE, bool PRED>
__device__ __forceinline__ void mp_tile(int ld, int ti, int tj, int tk, int *d, int *pred, const int *bd,
                                        const int *bpred, ffShared2 &sh)
{
    const size_t i0 = (size_t)ti * FF_B * ld, j0 = (size_t)tj * FF_B, k0 = (size_t)tk * FF_B;
    mp_prod<MODE, PRED>(d + i0 + j0, pred + i0 + j0, ld, d + i0 + k0, ld, bd + k0 * ld + j0, bpred + k0 * ld + j0, ld,
                        sh);
}

// mp_rect is mp_tile for a block of (64 RA) x (64 RB) cells: C rows i0 ..
// i0 + 64 RA - 1 and columns j0 .. j0 + 64 RB - 1 of d, A rows i0.. of d
// and B columns j0.. of bd (predecessors bpred), k over the K values from
// k0, with 256 threads of 4 RA x 4 RB cells each (rows ra * 64 + ty * 4 +
// a, columns rb * 64 + tx * 4 + b). Same modes and update rule as mp_tile.
// ALIAS says that bpred may address C's own predecessors (the primary
// row): then every predecessor is read before the first is written, as
// mp_prod does; otherwise each is written as soon as it is read.
template <int RA, int RB>
struct ffSharedR {
    int a[2][FF_KC][64 * RA], b[2][FF_KC][64 * RB];
};
typedef ffSharedR<1, 1> ffSharedQ;

template <int MODE, bool PRED, int RA, int RB, int K, bool ALIAS>
__device__ void mp_rect(int ld, size_t i0, size_t j0, size_t k0, int *d, int *pred, const int *bd, const int *bpred,
                        ffSharedR<RA, RB> &sh)
{
    auto &As = sh.a;
    auto &Bs = sh.b;
    const int t = threadIdx.x, tx = t & 15, ty = t >> 4;
    const bool pack = MODE == MODE_PACK;
    const bool track = PRED && MODE == MODE_GEN;

    int c[4 * RA][4 * RB], kw[4 * RA][4 * RB];
#pragma unroll
    for (int a = 0; a < 4 * RA; a++) {
        const size_t row = (i0 + (a >> 2) * 64 + ty * 4 + (a & 3)) * ld + j0 + tx * 4;
#pragma unroll
        for (int rb = 0; rb < RB; rb++) {
            const int4 v = *(const int4 *)(d + row + rb * 64);
            c[a][rb * 4] = v.x, c[a][rb * 4 + 1] = v.y, c[a][rb * 4 + 2] = v.z, c[a][rb * 4 + 3] = v.w;
        }
#pragma unroll
        for (int b = 0; b < 4 * RB; b++) {
            if (pack)
                c[a][b] <<= 8;
            if (track)
                kw[a][b] = -1;
        }
    }

    // Staging: A chunk rows ra * 64 + t/4, k columns (t%4)*4 .. +3; B chunk
    // row t/16, columns rb * 64 + (t%16)*4 .. +3: one 16-byte load each per
    // thread and 64 rows or columns.
    const int ar = t >> 2, ak = (t & 3) * 4, br = t >> 4, bc = (t & 15) * 4;
    int4 ra[RA], rb[RB];
    auto fetch = [&](int ch) {
#pragma unroll
        for (int x = 0; x < RA; x++)
            ra[x] = *(const int4 *)(d + (i0 + x * 64 + ar) * ld + k0 + ch * FF_KC + ak);
#pragma unroll
        for (int y = 0; y < RB; y++)
            rb[y] = *(const int4 *)(bd + (k0 + ch * FF_KC + br) * ld + j0 + y * 64 + bc);
    };
    auto stage = [&](int ch, int buf) {
        const int tag = ch * FF_KC + br + 1;
#pragma unroll
        for (int x = 0; x < RA; x++) {
            const int va[4] = {ra[x].x, ra[x].y, ra[x].z, ra[x].w};
#pragma unroll
            for (int e = 0; e < 4; e++)
                As[buf][ak + e][x * 64 + ar] = pack ? va[e] << 8 : va[e];
        }
#pragma unroll
        for (int y = 0; y < RB; y++) {
            int vb[4] = {rb[y].x, rb[y].y, rb[y].z, rb[y].w};
#pragma unroll
            for (int e = 0; e < 4; e++)
                if (pack)
                    vb[e] = (vb[e] << 8) | tag;
            *(int4 *)&Bs[buf][br][y * 64 + bc] = make_int4(vb[0], vb[1], vb[2], vb[3]);
        }
    };

    const int chunks = K / FF_KC;
    fetch(0);
    stage(0, 0);
    __syncthreads();
    for (int ch = 0; ch < chunks; ch++) {
        const int buf = ch & 1;
        if (ch + 1 < chunks)
            fetch(ch + 1);
#pragma unroll
        for (int kk = 0; kk < FF_KC; kk++) {
            int av[4 * RA], bv[4 * RB];
#pragma unroll
            for (int x = 0; x < RA; x++) {
                const int4 a4 = *(const int4 *)&As[buf][kk][x * 64 + ty * 4];
                av[x * 4] = a4.x, av[x * 4 + 1] = a4.y, av[x * 4 + 2] = a4.z, av[x * 4 + 3] = a4.w;
            }
#pragma unroll
            for (int y = 0; y < RB; y++) {
                const int4 b4 = *(const int4 *)&Bs[buf][kk][y * 64 + tx * 4];
                bv[y * 4] = b4.x, bv[y * 4 + 1] = b4.y, bv[y * 4 + 2] = b4.z, bv[y * 4 + 3] = b4.w;
            }
#pragma unroll
            for (int a = 0; a < 4 * RA; a++)
#pragma unroll
                for (int b = 0; b < 4 * RB; b++) {
                    if (MODE == MODE_GEN) {
                        if (av[a] != INF && bv[b] != INF) {
                            const int s = relax_sum(av[a], bv[b]);
                            if (track) {
                                if (s < c[a][b]) {
                                    c[a][b] = s;
                                    kw[a][b] = ch * FF_KC + kk;
                                }
                            } else {
                                c[a][b] = min(c[a][b], s);
                            }
                        }
                    } else {
                        c[a][b] = min(c[a][b], av[a] + bv[b]);
                    }
                }
        }
        if (ch + 1 < chunks)
            stage(ch + 1, buf ^ 1);
        __syncthreads();
    }

    // Every read of A and B is done (the last barrier).
#pragma unroll
    for (int a = 0; a < 4 * RA; a++) {
        const size_t row = (i0 + (a >> 2) * 64 + ty * 4 + (a & 3)) * ld + j0 + tx * 4;
#pragma unroll
        for (int y = 0; y < RB; y++) {
            int v[4];
#pragma unroll
            for (int e = 0; e < 4; e++)
                v[e] = pack ? c[a][y * 4 + e] >> 8 : c[a][y * 4 + e];
            *(int4 *)(d + row + y * 64) = make_int4(v[0], v[1], v[2], v[3]);
        }
    }
    if (PRED) {
        // c (or kw) becomes the new predecessor, or -2 for "unchanged".
#pragma unroll
        for (int a = 0; a < 4 * RA; a++)
#pragma unroll
            for (int b = 0; b < 4 * RB; b++) {
                const int k = pack ? (c[a][b] & 255) - 1 : kw[a][b];
                const size_t col = j0 + (b >> 2) * 64 + tx * 4 + (b & 3);
                c[a][b] = k < 0 ? -2 : bpred[(k0 + k) * ld + col];
                if (!ALIAS && c[a][b] != -2)
                    pred[(i0 + (a >> 2) * 64 + ty * 4 + (a & 3)) * ld + col] = c[a][b];
            }
        if (ALIAS) {
            __syncthreads();
#pragma unroll
            for (int a = 0; a < 4 * RA; a++)
#pragma unroll
                for (int b = 0; b < 4 * RB; b++)
                    if (c[a][b] != -2)
                        pred[(i0 + (a >> 2) * 64 + ty * 4 + (a & 3)) * ld + j0 + (b >> 2) * 64 + tx * 4 + (b & 3)] =
                            c[a][b];
        }
    }
}

// ff_qpanels: block (x, y, q) updates quarter q of tile (r, x) of the
// primary row (y = 0) or of tile (x, r) of the primary column (y = 1);
// distances only. (A quarter of the primary row reads rows of its tile that
// another block's quarter writes at the same time: harmless for
// distances, but with predecessors a quarter that read a new distance with
// its old predecessor could pick another k on a tie, and Π would no longer
// be the one every other path of fw-fast, and the distributed one,
// returns. ff_hpanels has no such race.)
template <int MODE>
__device__ __forceinline__ void ff_qpanels(int ld, int r, int *d, ffSharedQ &sh)
{
    const int x = blockIdx.x, z = blockIdx.z;
    if (x == r)
        return;
    const size_t rr = (size_t)r * FF_B, xx = (size_t)x * FF_B;
    if (blockIdx.y == 0)
        mp_rect<MODE, false, 1, 1, FF_B, false>(ld, rr + (z >> 1) * 64, xx + (z & 1) * 64, rr, d, nullptr, d, nullptr, sh);
    else
        mp_rect<MODE, false, 1, 1, FF_B, false>(ld, xx + (z >> 1) * 64, rr + (z & 1) * 64, rr, d, nullptr, d, nullptr, sh);
}

// ff_hpanels: block (x, y, h) updates half h of tile (r, x) of the primary
// row (y = 0: its 128 rows by columns h * 64 ..) or of tile (x, r) of the
// primary column (y = 1: rows h * 64 .. by its 128 columns). A column of
// the primary row depends only on that column and on the closed primary
// tile, a row of the primary column only on that row and the primary tile,
// so each block reads nothing another writes, and the result, Π included,
// is ff_panels', with twice its blocks, each half as long.
template <int MODE, bool PRED>
__device__ __forceinline__ void ff_hpanels(int ld, int r, int *d, int *pred, ffSharedR<2, 2> &sh)
{
    const int x = blockIdx.x, h = blockIdx.z;
    if (x == r)
        return;
    const size_t rr = (size_t)r * FF_B, xx = (size_t)x * FF_B;
    if (blockIdx.y == 0)
        mp_rect<MODE, PRED, 2, 1, FF_B, true>(ld, rr, xx + h * 64, rr, d, pred, d, pred,
                                              *reinterpret_cast<ffSharedR<2, 1> *>(&sh));
    else
        mp_rect<MODE, PRED, 1, 2, FF_B, true>(ld, xx + h * 64, rr, rr, d, pred, d, pred,
                                              *reinterpret_cast<ffSharedR<1, 2> *>(&sh));
}

// ff_qrest: block (x, y) updates quarter (y % 2, x % 2) of tile (y / 2, x /
// 2) unless that tile is in the primary row or column.
template <int MODE, bool PRED>
__device__ __forceinline__ void ff_qrest(int ld, int r, int *d, int *pred, ffSharedQ &sh)
{
    const int tx = blockIdx.x >> 1, ty = blockIdx.y >> 1;
    if (tx == r || ty == r)
        return;
    mp_rect<MODE, PRED, 1, 1, FF_B, false>(ld, (size_t)blockIdx.y * 64, (size_t)blockIdx.x * 64, (size_t)r * FF_B, d,
                                           pred, d, pred, sh);
}

// ff_panels: block (x, 0) updates tile (r, x) of the primary row, block
// (x, 1) tile (x, r) of the primary column; x = r is the primary tile.
template <int MODE, bool PRED>
__device__ __forceinline__ void ff_panels(int ld, int r, int *d, int *pred, ffShared2 &sh)
{
    const int x = blockIdx.x;
    if (x == r)
        return;
    if (blockIdx.y == 0)
        mp_tile<MODE, PRED>(ld, r, x, r, d, pred, d, pred, sh);
    else
        mp_tile<MODE, PRED>(ld, x, r, r, d, pred, d, pred, sh);
}

// ff_rest: block (x, y) updates tile (y, x) unless it is in the primary row
// or column.
template <int MODE, bool PRED>
__device__ __forceinline__ void ff_rest(int ld, int r, int *d, int *pred, ffShared2 &sh)
{
    const int x = blockIdx.x, y = blockIdx.y;
    if (x == r || y == r)
        return;
    mp_tile<MODE, PRED>(ld, y, x, r, d, pred, d, pred, sh);
}

// ff_small is all of fw-fast for a small matrix in one launch, with 64 x
// 64 tiles: a stage is 64 steps of phase 1 instead of 128, each with a
// quarter of the cells per thread, so the n steps on the critical path are
// each about four times shorter, and no stage waits for a launch. The
// blocks go through the stages together, separated by a grid barrier
// (ff_grid_sync), which needs every block of the grid on the card at once:
// the host sizes the grid from the kernel's occupancy. Stage s (of the
// ceil(n / 64) that hold a vertex): block 0 closes tile (s, s) (ff_phase1,
// 4 x 4 cells a thread); the blocks share the primary row's and column's
// tiles, each a 64 x 64 mp_rect that reads only its own tile and the
// closed one; then every other tile, block 0 taking tile (s + 1, s + 1)
// alone and closing it for stage s + 1 right after (two barriers a stage). Tiles wholly past n (padding) are
// left alone: nothing could improve them or through them. Over ff_small's
// stages Π is that of blocked Floyd-Warshall with 64-wide tiles: valid,
// but on ties not always the one of the 128-wide kernels. bar is
// ff_grid_sync's (common.cuh).
//
union ffSharedS {
    ffShared1 p1;
    ffSharedQ q;
};

template <int MODE, bool PRED>
__device__ void ff_small(int n, int ld, int *d, int *pred, int *bar, ffSharedS &sh, int &abort)
{
    const int nt = (n + 63) / 64;
    int phase = 0;
    if (blockIdx.x == 0)
        ff_phase1<MODE, PRED, 4>(ld, 0, d, pred, sh.p1);
    if (nt == 1 || !ff_grid_sync(bar, ++phase, abort))
        return;
    // With more than one block, block 0 leaves the rest of stage s to the
    // others: it updates the next primary tile (s + 1, s + 1) with pivot s
    // first and closes it (phase 1 of s + 1) while they update every other
    // tile, so that phase 1 is off the critical path and a stage takes two
    // barriers instead of three. Each tile still sees the pivots in order,
    // with the same operands: the result is the same, value for value.
    const bool ahead = gridDim.x > 1;
    const int first = ahead ? (int)blockIdx.x - 1 : 0, step = ahead ? (int)gridDim.x - 1 : 1;
    for (int s = 0; s < nt; s++) {
        const size_t k0 = (size_t)s * 64;
        for (int it = blockIdx.x; it < 2 * nt; it += gridDim.x) {
            const int x = it >> 1;
            if (x == s)
                continue;
            const size_t xx = (size_t)x * 64;
            if (it & 1)
                mp_rect<MODE, PRED, 1, 1, 64, true>(ld, xx, k0, k0, d, pred, d, pred, sh.q);
            else
                mp_rect<MODE, PRED, 1, 1, 64, true>(ld, k0, xx, k0, d, pred, d, pred, sh.q);
        }
        if (!ff_grid_sync(bar, ++phase, abort))
            return;
        const size_t k1 = k0 + 64;
        if (ahead && blockIdx.x == 0) {
            if (s + 1 < nt) {
                mp_rect<MODE, PRED, 1, 1, 64, false>(ld, k1, k1, k0, d, pred, d, pred, sh.q);
                __syncthreads();
                ff_phase1<MODE, PRED, 4>(ld, k1, d, pred, sh.p1);
            }
        } else {
            for (int it = first; it < nt * nt; it += step) {
                const int x = it % nt, y = it / nt;
                if (x == s || y == s || (ahead && x == s + 1 && y == s + 1))
                    continue;
                mp_rect<MODE, PRED, 1, 1, 64, false>(ld, (size_t)y * 64, (size_t)x * 64, k0, d, pred, d, pred, sh.q);
            }
            if (!ahead && s + 1 < nt) {
                __syncthreads();
                ff_phase1<MODE, PRED, 4>(ld, k1, d, pred, sh.p1);
            }
        }
        if (s + 1 < nt && !ff_grid_sync(bar, ++phase, abort))
            return;
    }
}

// ff_stripe_col and ff_stripe_rest are ff_panels' primary column and
// ff_rest for a card that holds only the block rows y0 .. y0 + gridDim.y - 1
// of the matrix (fw-fast on several cards): d and pred address the stripe
// as if it were the whole matrix, bd and bpred the primary row (on the card
// that owns it, its own stripe; on the others, their copy of it).
// ff_stripe_col: block x updates tile (y0 + x, r), unless that is the
// primary tile.
template <int MODE, bool PRED>
__device__ __forceinline__ void ff_stripe_col(int ld, int r, int y0, int *d, int *pred, const int *bd,
                                              const int *bpred, ffShared2 &sh)
{
    const int y = y0 + blockIdx.x;
    if (y == r)
        return;
    mp_tile<MODE, PRED>(ld, y, r, r, d, pred, bd, bpred, sh);
}

// ff_stripe_rest: block (x, y) updates tile (y0 + y, x) unless it is in the
// primary row or column.
template <int MODE, bool PRED>
__device__ __forceinline__ void ff_stripe_rest(int ld, int r, int y0, int *d, int *pred, const int *bd,
                                               const int *bpred, ffShared2 &sh)
{
    const int x = blockIdx.x, y = y0 + blockIdx.y;
    if (x == r || y == r)
        return;
    mp_tile<MODE, PRED>(ld, y, x, r, d, pred, bd, bpred, sh);
}

// The launchable kernels, one per mode and phase: ld is the padded side,
// r the stage; MINB is the blocks per SM that mp_tile's registers must allow. Block shapes: phase 1 (256), panels (256) on an (nb, 2)
// grid, rest (256) on an (nb, nb) grid; for a stripe of h block rows from
// y0, stripe_col (256) on an (h, 1) grid and stripe_rest (256) on (nb, h);
// for small matrices qpanels (256, distances only) on an (nb, 2, 4) grid and
// qrest (256) on (2 nb, 2 nb).
#define FF_KERNELS(suffix, MODE, PRED, MINB)                                                            \
    extern "C" __global__ void __launch_bounds__(256) ff_phase1_##suffix(int ld, int r, int *d, int *pred) \
    {                                                                                              \
        __shared__ ffShared1 sh;                                                                   \
        ff_phase1<MODE, PRED, 8>(ld, (size_t)r * FF_B, d, pred, sh);                                                 \
    }                                                                                              \
    extern "C" __global__ void __launch_bounds__(256, MINB) ff_panels_##suffix(int ld, int r, int *d, int *pred) \
    {                                                                                              \
        __shared__ __align__(16) ffShared2 sh;                                                     \
        ff_panels<MODE, PRED>(ld, r, d, pred, sh);                                                 \
    }                                                                                              \
    extern "C" __global__ void __launch_bounds__(256, MINB) ff_rest_##suffix(int ld, int r, int *d, int *pred) \
    {                                                                                              \
        __shared__ __align__(16) ffShared2 sh;                                                     \
        ff_rest<MODE, PRED>(ld, r, d, pred, sh);                                                   \
    }                                                                                              \
    extern "C" __global__ void __launch_bounds__(256, MINB)                                        \
        ff_stripe_col_##suffix(int ld, int r, int y0, int *d, int *pred, const int *bd, const int *bpred) \
    {                                                                                              \
        __shared__ __align__(16) ffShared2 sh;                                                     \
        ff_stripe_col<MODE, PRED>(ld, r, y0, d, pred, bd, bpred, sh);                              \
    }                                                                                              \
    extern "C" __global__ void __launch_bounds__(256, MINB)                                        \
        ff_stripe_rest_##suffix(int ld, int r, int y0, int *d, int *pred, const int *bd, const int *bpred) \
    {                                                                                              \
        __shared__ __align__(16) ffShared2 sh;                                                     \
        ff_stripe_rest<MODE, PRED>(ld, r, y0, d, pred, bd, bpred, sh);                             \
    }                                                                                              \
    extern "C" __global__ void __launch_bounds__(256) ff_qrest_##suffix(int ld, int r, int *d, int *pred) \
    {                                                                                              \
        __shared__ __align__(16) ffSharedQ sh;                                                     \
        ff_qrest<MODE, PRED>(ld, r, d, pred, sh);                                                  \
    }                                                                                              \
    extern "C" __global__ void __launch_bounds__(256) ff_small_##suffix(int n, int ld, int *d, int *pred, int *bar) \
    {                                                                                              \
        __shared__ __align__(16) ffSharedS sh;                                                     \
        __shared__ int abort;                                                                      \
        ff_small<MODE, PRED>(n, ld, d, pred, bar, sh, abort);                                      \
    }

// Two blocks of mp_tile per SM (at most 128 registers a thread) measured
// 7% faster than one for distances and 20% for packed predecessors on an
// H100; the general kernels with predecessors keep 64 more registers per
// thread, which would spill, so they ask for one.
// ff_qpanels, for the modes without predecessors.
#define FF_QPANELS(suffix, MODE)                                                                   \
    extern "C" __global__ void __launch_bounds__(256) ff_qpanels_##suffix(int ld, int r, int *d, int *pred) \
    {                                                                                              \
        __shared__ __align__(16) ffSharedQ sh;                                                     \
        ff_qpanels<MODE>(ld, r, d, sh);                                                            \
    }
#ifndef FF_GENERAL
FF_QPANELS(dist, MODE_DIST)
#else
FF_QPANELS(gen, MODE_GEN)
#endif

// ff_hpanels, for the modes with predecessors (without them the quarter
// panels or the whole-tile ones are faster).
#define FF_HPANELS(suffix, MODE)                                                                   \
    extern "C" __global__ void __launch_bounds__(256) ff_hpanels_##suffix(int ld, int r, int *d, int *pred) \
    {                                                                                              \
        __shared__ __align__(16) ffSharedR<2, 2> sh;                                               \
        ff_hpanels<MODE, true>(ld, r, d, pred, sh);                                                \
    }

#ifndef FF_GENERAL
FF_KERNELS(dist, MODE_DIST, false, 2)
FF_KERNELS(pack, MODE_PACK, true, 2)
FF_HPANELS(pack, MODE_PACK)
#else
FF_KERNELS(gen, MODE_GEN, false, 2)
FF_KERNELS(genpred, MODE_GEN, true, 1)
FF_HPANELS(genpred, MODE_GEN)
#endif

// fw-fast over many GPUs (package dist, docs/scale-out.md): rank (p, q) of a
// P x Q grid holds the tiles (I, J) with I mod P = p and J mod Q = q, as one
// local matrix of its tile rows and columns, and receives the pivot panels
// of each round into buffers of their own. Its diagonal tile is closed by
// ff_phase1 (r = 0, d pointing at the tile); everything else is
// ff_dist_update: block (x, y) updates local tile (y, x) with
// C = min(C, A(y) (x) B(x)), where A(y) is the y-th tile of the column of
// tiles at a (row length lda) and B(x) the x-th of the row of tiles at b
// (row length ldb, predecessors bp). A panel that left out the pivot tile
// has a gap there: the tiles of A past agap (of B past bgap) are one place
// earlier; -1 for no gap. The tiles of local rows sy0 and sy1 and columns
// sx0 and sx1 are left alone (-1: none): those of the pivot row and column,
// and those of the next ones, which the look-ahead updated already. The same kernel updates the pivot row (A the
// closed diagonal tile, B = C) and the pivot column (A = C, B the diagonal
// tile) before they are sent, and every other tile with the panels
// received. Grid (local tile columns, local tile rows), 256 threads.
template <int MODE, bool PRED>
__device__ __forceinline__ void ff_dist_update(int ldc, int *c, int *cp, int lda, const int *a, int agap, int ldb,
                                               const int *b, const int *bp, int bgap, int sy0, int sy1, int sx0,
                                               int sx1, ffShared2 &sh)
{
    const int x = blockIdx.x, y = blockIdx.y;
    if (x == sx0 || x == sx1 || y == sy0 || y == sy1)
        return;
    const int ay = agap >= 0 && y > agap ? y - 1 : y, bx = bgap >= 0 && x > bgap ? x - 1 : x;
    const size_t ci = (size_t)y * FF_B * ldc + (size_t)x * FF_B;
    mp_prod<MODE, PRED>(c + ci, cp + ci, ldc, a + (size_t)ay * FF_B * lda, lda, b + (size_t)bx * FF_B,
                        bp + (size_t)bx * FF_B, ldb, sh);
}

#define FF_DIST_KERNELS(suffix, MODE, PRED, MINB)                                                       \
    extern "C" __global__ void __launch_bounds__(256, MINB)                                        \
        ff_dist_update_##suffix(int ldc, int *c, int *cp, int lda, const int *a, int agap, int ldb,   \
                                const int *b, const int *bp, int bgap, int sy0, int sy1, int sx0,     \
                                int sx1)                                                           \
    {                                                                                              \
        __shared__ __align__(16) ffShared2 sh;                                                     \
        ff_dist_update<MODE, PRED>(ldc, c, cp, lda, a, agap, ldb, b, bp, bgap, sy0, sy1, sx0, sx1, sh); \
    }

#ifndef FF_GENERAL
FF_DIST_KERNELS(dist, MODE_DIST, false, 2)
FF_DIST_KERNELS(pack, MODE_PACK, true, 2)
#else
FF_DIST_KERNELS(gen, MODE_GEN, false, 2)
FF_DIST_KERNELS(genpred, MODE_GEN, true, 1)
#endif

// The helpers of every mode (copies, the matrix's build and check, Π from
// the tight arcs) are in fwfast.ptx only; the check and Π (ffcheck.cuh)
// are in fw16.ptx too.
#ifndef FF_GENERAL

// ff_dist_copy copies a block of rows x cols values from src (row length
// lds) to dst (row length ldd): a tile or a panel between a rank's local
// matrix and the buffers it sends from. cols, lds, ldd and both addresses
// are multiples of 4 values; each thread moves 16 bytes at a time, block
// (x, y) rows y, y + gridDim.y, ...
extern "C" __global__ void ff_dist_copy(int rows, int cols, int lds, const int *src, int ldd, int *dst)
{
    for (int r = blockIdx.y; r < rows; r += gridDim.y)
        for (int j = (blockIdx.x * blockDim.x + threadIdx.x) * 4; j < cols; j += gridDim.x * blockDim.x * 4)
            *(int4 *)(dst + (size_t)r * ldd + j) = *(const int4 *)(src + (size_t)r * lds + j);
}

// ff_scatter copies rows row0 .. row0+rows-1 of an n-wide row-major matrix
// src (a staging buffer) into the padded matrix dst of row length ld,
// turning INF into the mode's internal infinity inf (pass INF to copy
// values unchanged, as for predecessors). One thread per value.
extern "C" __global__ void ff_scatter(int n, int ld, int row0, int rows, int inf, const int *src, int *dst)
{
    const size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= (size_t)rows * n)
        return;
    const size_t i = c / n, j = c % n;
    const int v = src[c];
    dst[(row0 + i) * ld + j] = v == INF ? inf : v;
}

// ff_gather is the way back: values at or above the internal infinity inf
// become INF again (pass INF for predecessors).
extern "C" __global__ void ff_gather(int n, int ld, int row0, int rows, int inf, const int *src, int *dst)
{
    const size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= (size_t)rows * n)
        return;
    const size_t i = c / n, j = c % n;
    const int v = src[(row0 + i) * ld + j];
    dst[c] = v >= inf ? INF : v;
}

// ff_init starts rows row0 .. row0+rows-1 of the padded matrix (addressed
// as the whole matrix of side ld): 0 on the diagonal of the graph's n
// vertices, the internal infinity inf everywhere else, padding included;
// pred, when given, NIL everywhere. Each block takes rows blockIdx.y,
// blockIdx.y + gridDim.y, ..., four values a thread at a time (ld is a
// multiple of 128).
extern "C" __global__ void ff_init(int n, int ld, int row0, int rows, int inf, int *d, int *pred)
{
    for (int r = blockIdx.y; r < rows; r += gridDim.y) {
        const size_t i = (size_t)row0 + r;
        for (int j = (blockIdx.x * blockDim.x + threadIdx.x) * 4; j < ld; j += gridDim.x * blockDim.x * 4) {
            int4 v = make_int4(inf, inf, inf, inf);
            if (i < (size_t)n && i >= (size_t)j && i < (size_t)j + 4)
                (&v.x)[i - j] = 0;
            *(int4 *)(d + i * ld + j) = v;
            if (pred)
                *(int4 *)(pred + i * ld + j) = make_int4(NIL, NIL, NIL, NIL);
        }
    }
}

// ff_arcs writes the arcs of vertices lo .. hi-1 (CSR: off, tgt, w) into
// the matrix that ff_init started: d[u][v] = the lightest weight of the
// arcs u -> v (a self-loop only when negative, below the diagonal's 0),
// and pred[u][v] = u for v != u, as graph.Dense and Pi^0 have them; src,
// when given, the source of each arc (src[k] = u, for ff_tight). A warp
// per vertex.
extern "C" __global__ void ff_arcs(int ld, int lo, int hi, const int *off, const int *tgt, const int *w, int *d,
                                   int *pred, int *src)
{
    const int lane = threadIdx.x & 31;
    const int warps = gridDim.x * (blockDim.x >> 5);
    for (int u = lo + blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); u < hi; u += warps) {
        const size_t row = (size_t)u * ld;
        for (int k = off[u] + lane; k < off[u + 1]; k += 32) {
            const int v = tgt[k];
            atomicMin(d + row + v, w[k]);
            if (pred && v != u)
                pred[row + v] = u;
            if (src)
                src[k] = u;
        }
    }
}

#include "ffcheck.cuh"
#endif // FF_GENERAL

// fw16.cu: fw-fast's stages on 16-bit distances, two to a 32-bit word, for
// the packed min-plus of Hopper GPUs (compute capability 9.0 and later).
//
// fw-fast's inner statement c = min(c, a + b) is one VIADDMNMX instruction
// on int32 (ptx/fwfast.cu). On 16-bit halves, add.u16x2 and min.u16x2
// (PTX ISA 8.0, sm_90) become one VIADDMNMX.U16x2, which updates two cells:
// where every distance fits in 15 bits, the stages do half the
// instructions and move half the bytes.
//
// Values are unsigned halves in 0 .. F16_INF = 0x7fff, F16_INF standing for
// "no path". The sum of two halves is at most 0xfffe, so no half wraps, and
// min(c, a + b) with c <= F16_INF never exceeds F16_INF: the stages compute
// in the semiring of 0 .. F16_INF with min and the addition clamped at
// F16_INF, which min(x, F16_INF) maps the ordinary one onto (it keeps
// min and +, and 0 below everything, so closures and blocked Floyd-
// Warshall carry over). Each result is therefore min(true distance,
// F16_INF): exact below F16_INF, and F16_INF for a pair whose distance is
// F16_INF or more, reachable or not.
//
// The check (f16_widen): if some pair at a distance of F16_INF or more is
// reachable, follow one of its shortest paths from the start. With weights
// below F16_EXACT = 0x4000 its prefixes grow in steps below F16_EXACT, so
// one of them ends at a distance in F16_EXACT .. F16_INF - 1, and a prefix
// of a shortest path is a shortest path, which the stages computed
// exactly. So if no result lies in F16_EXACT .. F16_INF - 1, every result
// is exact; otherwise the host runs the 32-bit stages instead. The host
// sends only graphs whose weights are all in 0 .. F16_EXACT - 1.
//
// The layout is fw-fast's (the side padded to a multiple of 128 with
// F16_INF), each row of ld cells being ld / 2 words, column j in the low
// half of word j / 2 for even j. The kernels mirror fwfast.cu's 128-wide
// stages for MODE_DIST, and its ff_small for small n (f16_small: 64-wide
// tiles, whose phase 1, on one multiprocessor and on the critical path, is
// an eighth as long, all in one launch):
//
//   f16_phase1  one block closes the primary tile, 128 sequential steps.
//   f16_panels  the primary row and column, each a product with the closed
//               primary tile (a block per tile, or per part of one).
//   f16_rest    every other tile: min(C, D[i][r] (x) D[r][j]).
//
// f16_small builds the 16-bit matrix from the arcs and runs all the
// 64-wide stages of a small matrix in one launch; f16_build builds it for
// the 128-wide stages, as fwfast.cu's ff_init and ff_arcs build the 32-bit
// one. f16_widen writes the result into fw-fast's 32-bit matrix (F16_INF
// becomes INF, so that the result is final) and runs the check. f16_tight
// takes Π from the 16-bit result where a 32-bit row is too long for
// ff_tight's shared memory.
#include "common.cuh"
#include "ffcheck.cuh" // ff_finish and ff_tight_r*, so that the 16-bit path loads no other module (f16_tight, below, past their n)

#define F16_B 128         // tile side and k values per stage
#define F16_KC 16         // k values per shared-memory chunk of f16_prod
#define F16_INF 0x7fff    // internal infinity of a half
#define F16_EXACT 0x4000  // the least value whose presence fails the check

typedef unsigned int u32;

// addmin returns min(c, a + b) in each 16-bit half of the words.
__device__ __forceinline__ u32 addmin(u32 a, u32 b, u32 c)
{
    u32 s, d;
    asm("add.u16x2 %0, %1, %2;" : "=r"(s) : "r"(a), "r"(b));
    asm("min.u16x2 %0, %1, %2;" : "=r"(d) : "r"(s), "r"(c));
    return d;
}

// dup returns a word whose two halves both hold half hi (0: low, 1: high)
// of w.
__device__ __forceinline__ u32 dup(u32 w, int hi)
{
    return hi ? (w >> 16) | (w & 0xffff0000u) : (w & 0xffffu) | (w << 16);
}

// f16_row is the tile row of the e-th of a thread's 8 rows, as fwfast.cu's
// mp_off: 4 at t*4 and 4 at 64 + t*4. f16_word is the tile word (of 64) of
// the e-th of its 4 words: columns t*4 .. t*4+3 and 64 + t*4 .. 64 + t*4+3.
__device__ __forceinline__ int f16_row(int t, int e) { return (e < 4 ? 0 : 64) + t * 4 + (e & 3); }
__device__ __forceinline__ int f16_word(int t, int e) { return (e < 2 ? 0 : 32) + t * 2 + (e & 1); }

// f16_phase1 closes primary tile (r, r) of the matrix h (ldw words a row)
// with one block of 256 threads, each holding 8 rows x 4 words in
// registers. Step k: the threads that own row k and column k put them in
// shared memory (column k with its value in both halves), one barrier, and
// every thread updates its cells; the buffers alternate, so that one
// barrier a step suffices (as in fwfast.cu's ff_phase1).
extern "C" __global__ void __launch_bounds__(256) f16_phase1(int ldw, int r, u32 *h)
{
    __shared__ u32 rowK[2][F16_B / 2], colK[2][F16_B];
    const int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
    u32 *tile = h + (size_t)r * F16_B * ldw + r * (F16_B / 2);
    u32 c[8][4];
#pragma unroll
    for (int a = 0; a < 8; a++)
#pragma unroll
        for (int w = 0; w < 4; w++)
            c[a][w] = tile[(size_t)f16_row(ty, a) * ldw + f16_word(tx, w)];
    // Step k = half * 64 + t4 * 4 + e is row a = half * 4 + e of the
    // threads with ty = t4, and in word w = half * 2 + e / 2 (its half
    // e % 2) of those with tx = t4.
#pragma unroll
    for (int half = 0; half < 2; half++) {
        for (int t4 = 0; t4 < 16; t4++) {
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const int a0 = half * 4 + e, w0 = half * 2 + (e >> 1), buf = e & 1;
                if (ty == t4) {
#pragma unroll
                    for (int w = 0; w < 4; w++)
                        rowK[buf][f16_word(tx, w)] = c[a0][w];
                }
                if (tx == t4) {
#pragma unroll
                    for (int a = 0; a < 8; a++)
                        colK[buf][f16_row(ty, a)] = dup(c[a][w0], e & 1);
                }
                __syncthreads();
                u32 rk[4], ck[8];
#pragma unroll
                for (int w = 0; w < 4; w++)
                    rk[w] = rowK[buf][f16_word(tx, w)];
#pragma unroll
                for (int a = 0; a < 8; a++)
                    ck[a] = colK[buf][f16_row(ty, a)];
#pragma unroll
                for (int a = 0; a < 8; a++)
#pragma unroll
                    for (int w = 0; w < 4; w++)
                        c[a][w] = addmin(ck[a], rk[w], c[a][w]);
            }
        }
    }
#pragma unroll
    for (int a = 0; a < 8; a++)
#pragma unroll
        for (int w = 0; w < 4; w++)
            tile[(size_t)f16_row(ty, a) * ldw + f16_word(tx, w)] = c[a][w];
}

// f16Shared is the shared memory of f16_prod (f16_mul): double-buffered
// chunks of A and B.
template <int TB, int RA>
struct f16Shared {
    u32 a[2][F16_KC][16 * RA], b[2][F16_KC][TB / 2];
};

// f16_arow is the tile row of the a-th of the RA rows of thread ty * 16 +
// tx in f16_prod, and f16_aword the tile word of its w-th word.
template <int TB, int RA>
__device__ __forceinline__ int f16_arow(int ty, int a)
{
    return RA == 8 ? f16_row(ty, a) : ty * RA + a;
}

template <int TB>
__device__ __forceinline__ int f16_aword(int tx, int w)
{
    return TB == 128 ? f16_word(tx, w) : tx * 2 + w;
}

// f16_mul is f16_prod without the store: the thread's cells of C's result
// stay in c (its rows f16_arow, its words f16_aword).
template <int TB, int RA>
__device__ __forceinline__ void f16_mul(int ldw, const u32 *cw, const u32 *aw, const u32 *bw, f16Shared<TB, RA> &sh,
                                        u32 (&c)[RA][TB / 32])
{
    constexpr int W = TB / 32; // words a thread
    auto &As = sh.a;
    auto &Bs = sh.b;
    const int t = threadIdx.x, tx = t & 15, ty = t >> 4;
    // A thread's a-th row of the 16 RA: f16_row for RA = 8, t*RA + a
    // otherwise; its w-th word: f16_word in a 128-wide tile, t*2 + w in a
    // 64-wide one.
    auto arow = [&](int a) { return f16_arow<TB, RA>(ty, a); };
    auto word = [&](int w) { return f16_aword<TB>(tx, w); };
#pragma unroll
    for (int a = 0; a < RA; a++)
#pragma unroll
        for (int w = 0; w < W; w++)
            c[a][w] = cw[(size_t)arow(a) * ldw + word(w)];

    // Staging: A rows t / (16 / RA), RA k values from (t % (16 / RA)) * RA
    // (RA / 2 words); B row t / 16, words (t % 16) * W .. +W-1.
    const int per = 16 / RA, ar = t / per, ak = (t % per) * RA, br = t >> 4, bc = (t & 15) * W;
    uint4 ra, rb; // A's RA / 2 words (x, y for RA = 4, x for 2), B's W
    auto fetch = [&](int ch) {
        const u32 *pa = aw + (size_t)ar * ldw + (ch * F16_KC + ak) / 2;
        if (RA == 8) {
            ra = *(const uint4 *)pa;
        } else if (RA == 4) {
            const uint2 v = *(const uint2 *)pa;
            ra.x = v.x, ra.y = v.y;
        } else {
            ra.x = *pa;
        }
        const u32 *pb = bw + (size_t)(ch * F16_KC + br) * ldw + bc;
        if (W == 4) {
            rb = *(const uint4 *)pb;
        } else {
            const uint2 v = *(const uint2 *)pb;
            rb.x = v.x, rb.y = v.y;
        }
    };
    auto stage = [&](int buf) {
        const u32 rv[4] = {ra.x, ra.y, ra.z, ra.w};
#pragma unroll
        for (int e = 0; e < RA / 2; e++) {
            As[buf][ak + 2 * e][ar] = dup(rv[e], 0);
            As[buf][ak + 2 * e + 1][ar] = dup(rv[e], 1);
        }
        if (W == 4)
            *(uint4 *)&Bs[buf][br][bc] = rb;
        else
            *(uint2 *)&Bs[buf][br][bc] = make_uint2(rb.x, rb.y);
    };

    const int chunks = TB / F16_KC;
    fetch(0);
    stage(0);
    __syncthreads();
    for (int ch = 0; ch < chunks; ch++) {
        const int buf = ch & 1;
        if (ch + 1 < chunks)
            fetch(ch + 1);
#pragma unroll
        for (int kk = 0; kk < F16_KC; kk++) {
            u32 av[8], bv[4];
            if (RA == 2) {
                const uint2 a0 = *(const uint2 *)&As[buf][kk][ty * 2];
                av[0] = a0.x, av[1] = a0.y;
            } else {
                const uint4 a0 = *(const uint4 *)&As[buf][kk][ty * 4];
                av[0] = a0.x, av[1] = a0.y, av[2] = a0.z, av[3] = a0.w;
            }
            if (RA == 8) {
                const uint4 a1 = *(const uint4 *)&As[buf][kk][64 + ty * 4];
                av[4] = a1.x, av[5] = a1.y, av[6] = a1.z, av[7] = a1.w;
            }
            const uint2 b0 = *(const uint2 *)&Bs[buf][kk][tx * 2];
            bv[0] = b0.x, bv[1] = b0.y;
            if (W == 4) {
                const uint2 b1 = *(const uint2 *)&Bs[buf][kk][32 + tx * 2];
                bv[2] = b1.x, bv[3] = b1.y;
            }
#pragma unroll
            for (int a = 0; a < RA; a++)
#pragma unroll
                for (int w = 0; w < W; w++)
                    c[a][w] = addmin(av[a], bv[w], c[a][w]);
        }
        if (ch + 1 < chunks)
            stage(buf ^ 1);
        // Chunk ch+1 goes into the buffer every thread finished reading at
        // ch-1: one barrier a chunk.
        __syncthreads();
    }
}

// f16_prod computes C = min(C, A (x) B) for 16 RA rows of a TB-wide tile
// (TB = 128: RA = 8 the whole tile, 4 a half, 2 a quarter; TB = 64: RA = 4
// the whole tile, f16_small's) with 256 threads of RA rows x TB / 32 words:
// cw points at C's first word, aw at A's (the same rows, k over the TB
// columns of the stage) and bw at B's (the stage's TB rows, C's columns),
// all ldw words a row. The k values come in chunks of F16_KC through
// double-buffered shared memory, A's with each value in both halves of a
// word. C may be A or B: every read of them comes before the first write
// of C (after the last barrier).
template <int TB, int RA>
__device__ __forceinline__ void f16_prod(int ldw, u32 *cw, const u32 *aw, const u32 *bw, f16Shared<TB, RA> &sh)
{
    constexpr int W = TB / 32;
    const int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
    u32 c[RA][W];
    f16_mul<TB, RA>(ldw, cw, aw, bw, sh, c);
#pragma unroll
    for (int a = 0; a < RA; a++) {
        u32 *row = cw + (size_t)f16_arow<TB, RA>(ty, a) * ldw;
        *(uint2 *)(row + tx * 2) = make_uint2(c[a][0], c[a][1]);
        if (W == 4)
            *(uint2 *)(row + 32 + tx * 2) = make_uint2(c[a][2 % W], c[a][3 % W]);
    }
}

// f16_tile returns the first word of row y of TB-wide tile (i, j) in h.
template <int TB>
__device__ __forceinline__ u32 *f16_tile(u32 *h, int ldw, int i, int j, int y)
{
    return h + ((size_t)i * TB + y) * ldw + j * (TB / 2);
}

// f16_panels updates the primary row and column of stage r: block (j, 0,
// z) tile (r, j) of the row, block (j, 1, z) tile (j, r) of the column,
// rows z * 16 RA of it (tile r itself is closed and skipped). The panels
// are few blocks on the critical path (2 (nb - 1) tiles), so small RA
// spreads them over more multiprocessors. A block of the primary row
// reads the rows of its tile that its tile's other parts write: as for
// fwfast.cu's ff_qpanels, that race leaves the distances as they would be
// without it, since every value read, old or new, is the length of a real
// path and none is below the product of the old ones.
template <int TB, int RA>
__device__ __forceinline__ void f16_panels(int ldw, int r, u32 *h, f16Shared<TB, RA> &sh)
{
    const int j = blockIdx.x, y = blockIdx.z * 16 * RA;
    if (j == r)
        return;
    if (blockIdx.y == 0)
        f16_prod<TB, RA>(ldw, f16_tile<TB>(h, ldw, r, j, y), f16_tile<TB>(h, ldw, r, r, y),
                         f16_tile<TB>(h, ldw, r, j, 0), sh);
    else
        f16_prod<TB, RA>(ldw, f16_tile<TB>(h, ldw, j, r, y), f16_tile<TB>(h, ldw, j, r, y),
                         f16_tile<TB>(h, ldw, r, r, 0), sh);
}

// f16_rest updates every tile (i, j) off the primary row and column of
// stage r: block (j, i * TB / (16 RA) + z) its rows z * 16 RA.
template <int TB, int RA>
__device__ __forceinline__ void f16_rest(int ldw, int r, u32 *h, f16Shared<TB, RA> &sh)
{
    const int parts = TB / (16 * RA), j = blockIdx.x, i = blockIdx.y / parts, y = (blockIdx.y % parts) * 16 * RA;
    if (i == r || j == r)
        return;
    f16_prod<TB, RA>(ldw, f16_tile<TB>(h, ldw, i, j, y), f16_tile<TB>(h, ldw, i, r, y), f16_tile<TB>(h, ldw, r, j, 0),
                     sh);
}

// The entry points f16_panels_r8 .. f16_rest_r4 (128-wide tiles, 16 RA
// rows a block), each declaring its own shared memory (so that each
// kernel's PTX names only its own).
#define F16_KERNEL(name, RA)                                                                                           \
    extern "C" __global__ void __launch_bounds__(256) f16_##name##_r##RA(int ldw, int r, u32 *h)                     \
    {                                                                                                                  \
        __shared__ f16Shared<128, RA> sh;                                                                              \
        f16_##name<128, RA>(ldw, r, h, sh);                                                                            \
    }
F16_KERNEL(panels, 8)
F16_KERNEL(panels, 4)
F16_KERNEL(panels, 2)
F16_KERNEL(rest, 8)
F16_KERNEL(rest, 4)

// f16_close64 closes a 64-wide primary tile (tile, ldw words a row), as
// f16_phase1 does a 128-wide one, but two steps a barrier: each of 256
// threads holds rows ty*4 .. ty*4+3 and words tx*2, tx*2+1 (columns tx*4 ..
// tx*4+3) of it in c (f16_mul's cells of a 64-wide tile), and writes them
// into the tile at the end. For steps k and k+1 (k even) the threads that own rows k and
// k+1 and the word of columns k and k+1 put them in shared memory, one
// barrier, and every thread updates row k+1 and column k+1 with step k
// itself (row k+1 from D[k+1][k] and row k, column k+1 from column k and
// D[k][k+1]) before it runs both steps on its cells. The buffers alternate,
// so that one barrier a pair suffices. Phase 1 is on the critical path of
// f16_small: with one barrier a step it took about 8 us a tile on an H200.
struct f16Shared1 {
    u32 rowK[2][2][32], colK[2][64];
};

__device__ void f16_close64(u32 (&c)[4][2], u32 *tile, int ldw, f16Shared1 &sh)
{
    auto &rowK = sh.rowK;
    auto &colK = sh.colK;
    const int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
    // Steps k = t4 * 4 + e and k + 1 are rows e and e + 1 of the threads
    // with ty = t4, and the halves of word e / 2 of those with tx = t4.
    for (int t4 = 0; t4 < 16; t4++) {
#pragma unroll
        for (int e = 0; e < 4; e += 2) {
            const int buf = e >> 1, k = t4 * 4 + e;
            if (ty == t4) {
#pragma unroll
                for (int w = 0; w < 2; w++) {
                    rowK[buf][0][tx * 2 + w] = c[e][w];
                    rowK[buf][1][tx * 2 + w] = c[e + 1][w];
                }
            }
            if (tx == t4) {
#pragma unroll
                for (int a = 0; a < 4; a++)
                    colK[buf][ty * 4 + a] = c[a][e >> 1];
            }
            __syncthreads();
            const uint2 r0 = *(const uint2 *)&rowK[buf][0][tx * 2], r1 = *(const uint2 *)&rowK[buf][1][tx * 2];
            const uint4 cq = *(const uint4 *)&colK[buf][ty * 4];
            const u32 kk1 = dup(rowK[buf][0][k >> 1], 1), k1k = dup(colK[buf][k + 1], 0); // D[k][k+1], D[k+1][k]
            const u32 rk[2] = {r0.x, r0.y}, cv[4] = {cq.x, cq.y, cq.z, cq.w};
            u32 rk1[2] = {r1.x, r1.y}, ck[4], ck1[4];
#pragma unroll
            for (int w = 0; w < 2; w++)
                rk1[w] = addmin(k1k, rk[w], rk1[w]);
#pragma unroll
            for (int a = 0; a < 4; a++) {
                ck[a] = dup(cv[a], 0);
                ck1[a] = addmin(ck[a], kk1, dup(cv[a], 1));
            }
#pragma unroll
            for (int a = 0; a < 4; a++)
#pragma unroll
                for (int w = 0; w < 2; w++)
                    c[a][w] = addmin(ck1[a], rk1[w], addmin(ck[a], rk[w], c[a][w]));
        }
    }
#pragma unroll
    for (int a = 0; a < 4; a++)
        *(uint2 *)&tile[(size_t)f16_arow<64, 4>(ty, a) * ldw + f16_aword<64>(tx, 0)] = make_uint2(c[a][0], c[a][1]);
}

// f16_close64_at closes tile (r, r) of h from its cells in from (lds
// words a row: h itself, or a copy in shared memory).
__device__ void f16_close64_at(int ldw, int r, u32 *h, const u32 *from, int lds, f16Shared1 &sh)
{
    const int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
    u32 c[4][2];
#pragma unroll
    for (int a = 0; a < 4; a++)
#pragma unroll
        for (int w = 0; w < 2; w++)
            c[a][w] = from[(size_t)f16_arow<64, 4>(ty, a) * lds + f16_aword<64>(tx, w)];
    f16_close64(c, f16_tile<64>(h, ldw, r, r, 0), ldw, sh);
}

// f16_take_min lowers the half at bit shift (0 or 16) of the word at p to
// wk where it holds more, by a compare-and-swap of the whole word, since
// other threads may take arcs into either half at once (p in global or
// shared memory).
__device__ __forceinline__ void f16_take_min(u32 *p, int shift, u32 wk)
{
    u32 old = *(volatile u32 *)p, seen;
    do {
        seen = old;
        if (((seen >> shift) & 0xffff) <= wk)
            break;
        old = atomicCAS(p, seen, (seen & ~(0xffffu << shift)) | wk << shift);
    } while (old != seen);
}

// f16_build_row writes row u of the 16-bit matrix h (ldw words a row) for
// n vertices with the 32 lanes of a warp: F16_INF everywhere, padding
// included, then 0 on the diagonal and, for u < n, u's arcs (CSR: off,
// tgt, w, every weight in 0 .. F16_EXACT-1): h[u][v] = the lightest weight
// of the arcs u -> v (a self-loop never goes below the diagonal's 0),
// taken in by a compare-and-swap of the word that holds it, since two
// lanes may hold arcs into one word; src, when given, the source of each
// arc (src[k] = u, for ff_tight). The row is the warp's alone, so that
// __syncwarp orders its three parts. With tile0 set, the row's cells in
// the 64-wide tile (0, 0) are left alone (f16_small's block 0 builds that
// tile). fwfast.cu's ff_init and ff_arcs build the 32-bit matrix the same
// way.
__device__ __forceinline__ void f16_build_row(int n, int ldw, int u, const int *off, const int *tgt, const int *w,
                                              u32 *h, int *src, int lane, bool tile0)
{
    u32 *row = h + (size_t)u * ldw;
    const u32 none = F16_INF | F16_INF << 16;
    const int skip = tile0 && u < 64 ? 64 : 0; // columns left alone
    for (int q = skip / 8 + lane; q < ldw / 4; q += 32)
        *(uint4 *)(row + 4 * q) = make_uint4(none, none, none, none);
    __syncwarp();
    if (u >= n)
        return;
    if (lane == 0 && u >= skip)
        ((unsigned short *)row)[u] = 0;
    __syncwarp();
    for (int k = off[u] + lane; k < off[u + 1]; k += 32) {
        const int v = tgt[k], shift = (v & 1) * 16;
        if (src)
            src[k] = u;
        if (v < skip)
            continue;
        f16_take_min(row + (v >> 1), shift, w[k]);
    }
}

// f16_build_rows builds every row of h (f16_build_row), a warp a row,
// grid-stride over the warps of blocks from0 on (tile0: f16_build_row's).
__device__ __forceinline__ void f16_build_rows(int n, int ldw, const int *off, const int *tgt, const int *w, u32 *h,
                                               int *src, int from0, bool tile0)
{
    const int lane = threadIdx.x & 31, per = blockDim.x >> 5, warps = (gridDim.x - from0) * per;
    for (int u = (blockIdx.x - from0) * per + (threadIdx.x >> 5); u < 2 * ldw; u += warps)
        f16_build_row(n, ldw, u, off, tgt, w, h, src, lane, tile0);
}

// f16_build_tile0 builds the 64-wide tile (0, 0) of the 16-bit matrix in
// t (32 words a row) with a block's threads, as f16_build_row builds rows:
// F16_INF, 0 on the diagonal of the first n vertices, and the lightest arc
// u -> v of every u, v < 64 (a compare-and-swap in shared memory). The
// arcs of rows 0 .. 63 lie together in tgt, so the block takes them all,
// finding each one's row in offs, its copy of off's first 65 values. It
// writes no src: f16_build_row does, for the same arcs.
__device__ void f16_build_tile0(int n, const int *off, const int *tgt, const int *w, u32 (&t)[64][32], int (&offs)[65])
{
    const u32 none = F16_INF | F16_INF << 16;
    const int m = min(n, 64);
    for (int i = threadIdx.x; i < 64 * 32; i += blockDim.x)
        t[i >> 5][i & 31] = none;
    for (int i = threadIdx.x; i <= m; i += blockDim.x)
        offs[i] = off[i];
    __syncthreads();
    if (threadIdx.x < m)
        ((unsigned short *)t[threadIdx.x])[threadIdx.x] = 0;
    __syncthreads();
    for (int k = offs[0] + threadIdx.x; k < offs[m]; k += blockDim.x) {
        const int v = tgt[k];
        if (v >= 64)
            continue;
        // u: the last row whose arcs start at or before k.
        int lo = 0, hi = m - 1;
        while (lo < hi) {
            const int mid = (lo + hi + 1) >> 1;
            if (offs[mid] <= k)
                lo = mid;
            else
                hi = mid - 1;
        }
        f16_take_min(&t[lo][v >> 1], (v & 1) * 16, w[k]);
    }
    __syncthreads();
}

// f16_build builds the 16-bit matrix h of side ld (ld / 2 words a row)
// from the arcs of its n vertices (f16_build_row), for the 128-wide
// stages; f16_small builds its own.
extern "C" __global__ void f16_build(int n, int ld, const int *off, const int *tgt, const int *w, u32 *h, int *src)
{
    f16_build_rows(n, ld / 2, off, tgt, w, h, src, 0, false);
}

// f16_small builds the 16-bit matrix h from the arcs (f16_build_rows: off,
// tgt, w, and src when given; with off null, h is built already) and runs
// every 64-wide 16-bit stage of the n vertices on it, in one launch, its
// blocks meeting at grid barriers (ff_grid_sync; bar: the barrier's count,
// the abort flag, and at bar[2] the count of look-ahead panels), as
// fwfast.cu's ff_small does on 32-bit distances (which takes a matrix
// built before).
//
// Block 0 runs phase 1, the closing of each primary tile, one stage ahead,
// while the others update the rest of the matrix, so that phase 1 is off
// the critical path:
//   - at the start it builds tile (0, 0) in shared memory and closes it
//     while the other blocks build the rest of h, one barrier for both;
//   - stage s: the other blocks update the primary row's and column's
//     tiles, tiles (s, s + 1) and (s + 1, s) first, each counted in bar[2]
//     when written, and meet at a barrier before the rest. Block 0 counts
//     itself at that barrier without waiting there: it waits only for
//     those two tiles, updates tile (s + 1, s + 1) with pivot s (f16_mul)
//     and closes it from the registers that hold it (f16_close64, two
//     steps a barrier), and meets the others at the stage's second
//     barrier.
// The last stage has nothing to close: block 0 takes panels then. With a
// grid of one block, that block does everything in order. Tiles wholly
// past n are left alone.
union f16SharedS {
    struct {
        f16Shared1 p1;
        u32 t[64][32]; // tile (0, 0) as block 0 builds it
        int offs[65];
    } b0;
    f16Shared<64, 4> q;
};

extern "C" __global__ void __launch_bounds__(256) f16_small(int n, int ldw, u32 *h, int *bar, const int *off,
                                                             const int *tgt, const int *w, int *src)
{
    __shared__ f16SharedS sh;
    __shared__ int abort;
    const int nt = (n + 63) / 64;
    const bool ahead = gridDim.x > 1;
    int phase = 0;
    if (off && ahead) {
        if (blockIdx.x == 0) {
            f16_build_tile0(n, off, tgt, w, sh.b0.t, sh.b0.offs);
            f16_close64_at(ldw, 0, h, &sh.b0.t[0][0], 32, sh.b0.p1);
        } else {
            f16_build_rows(n, ldw, off, tgt, w, h, src, 1, true);
        }
    } else {
        if (off) {
            f16_build_rows(n, ldw, off, tgt, w, h, src, 0, false);
            if (!ff_grid_sync(bar, ++phase, abort))
                return;
        }
        if (blockIdx.x == 0)
            f16_close64_at(ldw, 0, h, h, ldw, sh.b0.p1);
    }
    if (nt == 1 || !ff_grid_sync(bar, ++phase, abort))
        return;
    const int first = ahead ? (int)blockIdx.x - 1 : 0, step = ahead ? (int)gridDim.x - 1 : 1;
    auto prod = [&](int y, int x, int s) {
        f16_prod<64, 4>(ldw, f16_tile<64>(h, ldw, y, x, 0), f16_tile<64>(h, ldw, y, s, 0),
                        f16_tile<64>(h, ldw, s, x, 0), sh.q);
    };
    int ready = 0; // look-ahead panels block 0 has waited for
    for (int s = 0; s < nt; s++) {
        const bool look = ahead && s + 1 < nt;
        if (look && blockIdx.x == 0) {
            ff_grid_arrive(bar);
            ++phase;
            ready += 2;
            if (!ff_grid_wait(bar, bar + 2, ready, abort))
                return;
            // Tile (s + 1, s + 1) with pivot s, closed from registers.
            u32 *next = f16_tile<64>(h, ldw, s + 1, s + 1, 0);
            u32 c[4][2];
            f16_mul<64, 4>(ldw, next, f16_tile<64>(h, ldw, s + 1, s, 0), f16_tile<64>(h, ldw, s, s + 1, 0), sh.q, c);
            f16_close64(c, next, ldw, sh.b0.p1);
        } else {
            // Panel item it is tile (s, x) (even) or (x, s) (odd) for
            // x = s + 1 + it / 2 (mod nt): items 0 and 1 first.
            for (int it = look ? first : blockIdx.x; it < 2 * nt; it += look ? step : gridDim.x) {
                const int x = (s + 1 + (it >> 1)) % nt;
                if (x == s)
                    continue;
                if (it & 1)
                    prod(x, s, s);
                else
                    prod(s, x, s);
                if (look && it < 2)
                    ff_grid_arrive(bar + 2);
            }
            if (!ff_grid_sync(bar, ++phase, abort))
                return;
            if (!ahead || blockIdx.x != 0) {
                for (int it = first; it < nt * nt; it += step) {
                    const int x = it % nt, y = it / nt;
                    if (x == s || y == s || (ahead && x == s + 1 && y == s + 1))
                        continue;
                    prod(y, x, s);
                }
            }
            if (!ahead && s + 1 < nt) {
                __syncthreads();
                f16_close64_at(ldw, s + 1, h, f16_tile<64>(h, ldw, s + 1, s + 1, 0), ldw, sh.b0.p1);
            }
        }
        if (s + 1 < nt && !ff_grid_sync(bar, ++phase, abort))
            return;
    }
}

// f16_widen writes the n x n result in h back into d (ld values a row):
// F16_INF becomes INF, every other value itself, so that d holds the final
// distances, each in 0 .. F16_INF-1 or INF (ff_finish's checks of the
// distances cannot fail on them, and the host runs none). It runs the
// check of this file's comment: flag (0 before) becomes 1 where a value
// lies in F16_EXACT .. F16_INF - 1, whose presence means the host must run
// the 32-bit stages. Block (x, y) takes words from x * blockDim.x on, rows
// y, y + gridDim.y, ...
extern "C" __global__ void f16_widen(int n, int ld, const u32 *h, int *d, int *flag)
{
    bool seen = false;
    for (int i = blockIdx.y; i < n; i += gridDim.y) {
        const u32 *src = h + (size_t)i * ld / 2;
        int *dst = d + (size_t)i * ld;
        for (int q = blockIdx.x * blockDim.x + threadIdx.x; 2 * q < n; q += gridDim.x * blockDim.x) {
            const u32 w = src[q];
            const int lo = w & 0xffff, hi = w >> 16;
            const bool bad = (lo >= F16_EXACT && lo < F16_INF) || (hi >= F16_EXACT && hi < F16_INF);
            if (bad && !seen) {
                seen = true;
                *(volatile int *)flag = 1;
            }
            *(int2 *)(dst + 2 * q) = make_int2(lo == F16_INF ? INF : lo, hi == F16_INF ? INF : hi);
        }
    }
}

// f16_tight is ff_tight (ffcheck.cuh) for graphs too large for it: where a
// row of n 32-bit distances does not fit a block's shared memory (n past
// 58112 on an H100 or H200), one row of the 16-bit matrix h (ldw words a
// row), two bytes a vertex, still does (up to twice that n). It runs only
// on a result that passed f16_widen's check, whose distances are exact
// below F16_INF and the same numbers that f16_widen writes into the 32-bit
// matrix, so its Π is ff_tight's: pred[i][v] (ld values a row) = the
// greatest k with an arc k -> v of weight w and h[i][k] + w = h[i][v]
// (both below F16_INF), NIL where none is. Block x takes row x, block y of
// gridDim.y its share of the m arcs (ff_tight_scan). The row takes one block of
// shared memory a multiprocessor, so a block has 1024 threads.
extern "C" __global__ void __launch_bounds__(1024)
    f16_tight(int n, int m, int ldw, int ld, const u32 *__restrict__ h, int *pred, const int *__restrict__ src,
              const int *__restrict__ tgt, const int *__restrict__ w)
{
    extern __shared__ u32 row16[];
    const unsigned short *ds = (const unsigned short *)row16;
    const int i = blockIdx.x;
    for (int q = threadIdx.x; 2 * q < n; q += blockDim.x)
        row16[q] = h[(size_t)i * ldw + q];
    __syncthreads();
    int *out = pred + (size_t)i * ld;
    ff_tight_scan(m, src, tgt, w, [&](int k, int v, int wt) {
        const int a = ds[k], b = ds[v];
        if (a < F16_INF && b < F16_INF && a + wt == b)
            atomicMax(out + v, k);
    });
}

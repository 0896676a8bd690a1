// sssp.cu: pathnotes' own work-efficient shortest-path kernels (no source
// document; they are the performance goals of docs/design.md).
//
//   sssp-fast     sssp_init, sssp_run, sssp_unpack   near-far worklists, one persistent grid
//                 (sssp_head: the arcs' heads)       (on graphs without hubs of mean out-degree
//                                                    above 4.5, bellmanford.cu's flag kernels)
//   bf-fast       sssp_init, sssp_run, sssp_unpack   the same with an infinite threshold:
//                                                    frontier Bellman-Ford, negative cycles
//   apsp-batched  apsp_batch                         one source per block at a time, each row
//                                                    unpacked, checked and counted by its block
//
// One engine, sssp_step (one step by a grid or by a block), serves all
// three. A distance and its predecessor are packed in one 64-bit word,
// (dist << 32) | (unsigned)pred, lowered with a 64-bit atomicMin, so the
// arc that set a vertex's final distance is its predecessor: no pass after
// the run, and no cycle of zero-weight arcs (a relaxation writes only after
// seeing a strictly larger distance, so along predecessor arcs the times at
// which vertices first reached their final distances strictly increase).
//
// The work is a sequence of steps separated by barriers (a device-wide one
// for sssp_run's grid steps, __syncthreads for its solo steps and for
// apsp_batch):
//
//   near step   every vertex of the current worklist relaxes its out-arcs;
//               improved targets below the threshold join the next worklist
//               (once: stamp[v] holds the last step v was queued for),
//               those at or above it join the far pile (once: infar[v]).
//   split step  when the worklist is empty: the threshold becomes the least
//               pending far distance plus delta, and the far pile splits
//               into the next worklist and what stays far.
//
// relaxed[v] is the distance v last relaxed its arcs from; a queued vertex
// whose distance is not below it has nothing new to push and is skipped.
// Heavy vertices in parts (split) never record it (relax_parts): it stays
// INF for them, so they are never skipped nor dropped from a far pile,
// which costs work, never a result.
//
// Local rounds (sssp_run's grid steps, local > 0): a grid-wide barrier
// costs microseconds and a grid's shortest-path tree is thousands of arcs
// deep, so a block does not wait for the next step to follow what it has
// just improved. An improved target below the threshold goes to a queue
// in the block's shared memory instead of the next worklist, and the block
// relaxes that queue for up to `local` rounds separated by __syncthreads;
// what does not fit, heavy vertices and what the last round improves join
// the next worklist as before. It is label-correcting Bellman-Ford either
// way: the order of relaxations changes, not their fixed point. A vertex
// may be relaxed by two blocks in one step (once from a local queue, once
// from the worklist), which costs work but loses nothing: every
// improvement is followed by a queueing of its vertex, locally or on the
// worklist (where stamp[] only drops a second entry for the same step,
// which reads the distance when it runs), and relaxed[] only skips a
// vertex whose current distance it has already relaxed from. With async
// the block's local work goes through a ring instead, from which its warps
// take entries without block barriers (local_async).
//
// The host launches sssp_run on a narrow grid (one block per
// multiprocessor) or a wide one (every block the device holds) and may
// change grid, delta and the other arguments between launches (see
// sssp_run).
//
// A worklist entry is handled by a group of `group` lanes (a power of two
// up to 32) that stride over its arcs, so high-degree vertices do not stall
// a whole warp on one lane; a heavy vertex (more than `heavy` out-arcs, the
// hubs of a skewed graph) is queued at the back of the worklist instead and
// handled by a whole block, so that a hub of 100,000 arcs takes a hundred
// trips of a block rather than thousands of a warp while the rest wait;
// or (split, sssp_run) it is queued in parts of `split` arcs on a
// worklist of its own, a warp a part, so that a hub's arcs are spread
// over the grid rather than given to one block that the others wait for.
#include "common.cuh"

// Words of the state array (global memory for sssp_run, shared for
// apsp_batch). The near-worklist counters rotate over three slots, indexed
// by step mod 3, so that the slot being reset is never the one being read
// or written; the far piles alternate between two.
#define ST_NEAR 0   // 3 counters
#define ST_FAR 3    // 2 counters
#define ST_FARSEL 5 // which far pile is current
#define ST_STEP 6   // steps done so far (kept across launches)
#define ST_DONE 7   // 0 running, 1 finished, 2 negative cycle
#define ST_NEG 8    // 1 + a vertex still on the worklist at round n
#define ST_MIN 9    // 2 slots: least pending far distance
#define ST_BAR 11   // grid barrier: arrivals, never reset (see grid_barrier)
#define ST_BASE 12  // the current bucket's lower end: the least far distance at the last split (0 before)
#define ST_HEAVY 16 // 3 counters of heavy entries, rotating as ST_NEAR's
#define ST_TAKE 20  // 3 counts of entries taken from the front of the next worklist by idle blocks (pool), rotating as ST_NEAR's
#define ST_BUSY 23  // 2 slots: blocks not idle in a grid step (pool), alternating by step
#define ST_WORDS 25

// Counters of a traced run (64-bit words; sssp_run's trace argument):
// vertices expanded (their arcs relaxed), arcs looked at, local rounds run
// (summed over blocks), improvements below the threshold that a full
// local queue sent to the worklist, and worklist entries that idle blocks
// took within their step (help_pool).
#define TR_EXPAND 0
#define TR_ARCS 1
#define TR_LOCAL 2
#define TR_SPILL 3
#define TR_POOL 4

// LQ_MAX bounds the local queue: two halves of LQ_MAX entries and their
// two counters stay within the 48 KB of shared memory a block gets
// without opting in (the host checks the same bound).
#define LQ_MAX 4096

__device__ __forceinline__ long long pack(int d, int p)
{
    return (long long)(((unsigned long long)(unsigned)d << 32) | (unsigned)p);
}

__device__ __forceinline__ int dist_of(long long x) { return (int)(x >> 32); }

// threshold is a bucket's upper end: its lower end plus delta, at most INF
// (delta = INF: a single bucket, as bf-fast's).
__device__ __forceinline__ int threshold(int base, int delta) { return (int)min((long long)base + delta, (long long)INF); }

// vload and dist_at read what other blocks wrote in earlier steps past the
// (incoherent) L1 cache: worklists, far piles, relaxed[] and distances.
__device__ __forceinline__ int vload(const int *p) { return *(const volatile int *)p; }

__device__ __forceinline__ int dist_at(const long long *d, int v)
{
    return dist_of(*(const volatile long long *)(d + v));
}

// grid_barrier waits until every block of the grid has arrived. All blocks
// must be resident at once (the host launches no more than that). The
// count of arrivals only grows (wrapping round): a launch starts with the
// count the previous one left, which the host passes it, and the k-th
// barrier of the launch is passed once the count has grown by k times the
// grid, so target holds that count for the next barrier (every thread
// keeps its own copy; thread 0's is used). One atomic per block and no
// reset: the last block's arrival is itself the release. The fences order
// each block's earlier writes before its arrival and the later reads after
// the release.
__device__ void grid_barrier(int *bar, unsigned &target)
{
    target += gridDim.x;
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        atomicAdd((unsigned *)bar, 1u);
        while ((int)((unsigned)vload(bar) - target) < 0)
            ;
        __threadfence();
    }
    __syncthreads();
}

template <bool GRID>
__device__ __forceinline__ void step_barrier(int *st, unsigned &target)
{
    if (GRID)
        grid_barrier(st + ST_BAR, target);
    else
        __syncthreads();
}

// claim adds one to *count for each lane of the warp that calls it at
// once and returns this lane's old value: one atomic per warp (its lowest
// active lane's), each lane's slot its rank among the active lanes. A
// counter that every relaxation of a wide step bumps would otherwise take
// millions of atomics on one address, which the memory system serialises.
// All lanes that call it together must pass the same counter. Without agg
// (apsp_batch's counters, in shared memory) each lane adds its own one.
__device__ __forceinline__ int claim(int *count, bool agg)
{
    if (!agg)
        return atomicAdd(count, 1);
    const unsigned mask = __activemask();
    const int lane = threadIdx.x & 31, leader = __ffs(mask) - 1;
    int base = 0;
    if (lane == leader)
        base = atomicAdd(count, __popc(mask));
    return __shfl_sync(mask, base, leader) + __popc(mask & ((1u << lane) - 1));
}

// push adds v to a worklist through its counter (see claim).
__device__ __forceinline__ void push(int *q, int *count, int v, bool agg)
{
    q[claim(count, agg)] = v;
}

// problem is one single-source problem's device arrays and parameters.
struct problem {
    int n;
    const int *__restrict__ off, *__restrict__ tgt, *__restrict__ w;
    long long *dist;
    int *relaxed, *stamp, *infar, *q0, *q1, *f0, *f1, *st;
    int delta, group, heavy;
    int split;       // heavy entries in parts of at most split arcs (hp0, hp1), 0: whole, at the back of the worklist
    int *hp0, *hp1;  // the parts' worklists (vertex, part), alternating as q0 and q1
    bool negcheck;
    int local, lcap; // local rounds per grid step (0: none), local queue entries (a half's, or the ring's)
    int *lq;         // shared: two counters, then two halves of lcap entries; or the ring's (see local_async)
    bool async;      // local work through local_async's ring instead of rounds
    bool preread;    // read a target's distance before the atomic that lowers it
    bool agg;        // counters in global memory: claim slots one atomic per warp
    unsigned long long *trace; // TR_* counters, or null
    const int2 *__restrict__ head; // group slots a vertex (see sssp_head), or null: arcs from the CSR only
    bool pool;       // idle blocks take the next worklist's entries within a grid step (help_pool)
};

// trace_add adds v to counter k of a traced run.
__device__ __forceinline__ void trace_add(const problem &p, int k, long long v)
{
    if (p.trace)
        atomicAdd(p.trace + k, (unsigned long long)v);
}

// is_heavy tells whether t has more than p.heavy out-arcs (p.heavy = 0:
// no vertex is heavy).
__device__ __forceinline__ bool is_heavy(const problem &p, int t)
{
    return p.heavy > 0 && p.off[t + 1] - p.off[t] > p.heavy;
}

// push_vertex queues t for step it+1 on worklist q (of n entries): a light
// vertex from the front, counted in st[ST_NEAR + (it+1)%3], a heavy one
// (more than p.heavy out-arcs; p.heavy = 0: none) from the back, counted
// in st[ST_HEAVY + (it+1)%3]. Each vertex is queued at most once per step,
// so the two ends never meet. With p.split, a heavy vertex goes instead to
// the next parts' worklist as one entry (t, j) for each p.split of its
// arcs, st[ST_HEAVY + (it+1)%3] counting the parts.
__device__ __forceinline__ void push_vertex(const problem &p, int *q, int it, int t)
{
    const int slot = (it + 1) % 3;
    if (!is_heavy(p, t)) {
        push(q, p.st + ST_NEAR + slot, t, p.agg);
    } else if (p.split > 0) {
        const int parts = (p.off[t + 1] - p.off[t] + p.split - 1) / p.split;
        int *hp = (it & 1) ? p.hp0 : p.hp1, k = atomicAdd(p.st + ST_HEAVY + slot, parts);
        for (int j = 0; j < parts; j++, k++) {
            hp[2 * k] = t;
            hp[2 * k + 1] = j;
        }
    } else {
        q[p.n - 1 - claim(p.st + ST_HEAVY + slot, p.agg)] = t;
    }
}

// queue_near queues t, improved in step it below the threshold: on the
// block's local queue lq (counted in *lcnt) when there is one, t is light
// and the queue has room, otherwise on the next worklist nxt unless t is
// already there.
__device__ __forceinline__ void queue_near(const problem &p, int t, int it, int *nxt, int *lq, int *lcnt)
{
    if (lq && !is_heavy(p, t)) {
        const int i = claim(lcnt, p.agg);
        if (i < p.lcap) {
            lq[i] = t;
            return;
        }
        trace_add(p, TR_SPILL, 1);
    }
    if (p.pool)
        __threadfence(); // the atomic that lowered t's distance before the stamp (see help_pool)
    if (atomicMax(p.stamp + t, it + 1) < it + 1)
        push_vertex(p, nxt, it, t);
}

// relax_one relaxes u's arc to t of weight wt from distance du, found in
// step it under threshold thr: an improved target below thr is queued by
// queue_near, one at or above it joins the far pile far.
// With p.preread a target's distance is read first and the atomic skipped
// when the arc cannot lower it (fewer atomics where most arcs do not
// improve; one memory round trip more on the path of each improvement).
__device__ __forceinline__ void relax_one(const problem &p, int u, int du, int t, int wt, int it, int thr, int *nxt,
                                          int *far, int *nfar, int *lq, int *lcnt)
{
    const int nd = relax_sum(du, wt);
    if (p.preread && nd >= dist_at(p.dist, t))
        return;
    if (nd >= dist_of(atomicMin(p.dist + t, pack(nd, u))))
        return;
    if (nd < thr)
        queue_near(p, t, it, nxt, lq, lcnt);
    else if (atomicExch(p.infar + t, 1) == 0)
        push(far, nfar, t, p.agg);
}

// relax_arcs relaxes u's CSR arcs a, a+stride, ... before end (relax_one).
__device__ __forceinline__ void relax_arcs(const problem &p, int u, int du, int a, int end, int stride, int it, int thr,
                                           int *nxt, int *far, int *nfar, int *lq, int *lcnt)
{
    for (; a < end; a += stride)
        relax_one(p, u, du, p.tgt[a], p.w[a], it, thr, nxt, far, nfar, lq, lcnt);
}

// expand reads what relaxing u's arcs needs: its distance du, its arcs
// beg..end, and whether du is below relaxed[u] (then it records du there
// and counts the expansion). The four loads depend on u alone and are
// issued together: one memory round trip on the path of a relaxation.
__device__ __forceinline__ bool expand(const problem &p, int u, int &du, int &beg, int &end)
{
    du = dist_at(p.dist, u);
    const int ru = vload(p.relaxed + u);
    beg = p.off[u];
    end = p.off[u + 1];
    if (du >= ru)
        return false;
    p.relaxed[u] = du;
    trace_add(p, TR_EXPAND, 1);
    trace_add(p, TR_ARCS, end - beg);
    return true;
}

// load_head reads one slot of the arcs' heads through the read-only data
// path (what __ldg does, which clang's CUDA cells lack): the heads do not
// change during a run.
__device__ __forceinline__ int2 load_head(const int2 *q)
{
    int2 v;
    asm("ld.global.nc.v2.s32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(q));
    return v;
}

// relax_head is relax_entry with the arcs' heads (p.head, see sssp_head):
// every lane of the group reads its slot of u's head while the first reads
// u's distance and relaxed[u], so that a vertex whose arcs all fit its
// slots is relaxed one memory round trip after it is taken (the CSR takes
// two: the offsets, then the arcs). A head that ends in a rest marker
// (-2 - a, e) leaves arcs a .. e-1 to the CSR, which the group strides
// over after its slots.
__device__ __forceinline__ void relax_head(const problem &p, int u, bool has, int it, int thr, int *nxt, int *far,
                                           int *nfar, int *lq, int *lcnt)
{
    const int group = p.group, sub = threadIdx.x & (group - 1);
    if (group > 1) {
        u = __shfl_sync(0xffffffffu, u, 0, group);
        has = __shfl_sync(0xffffffffu, (int)has, 0, group);
    }
    int2 a = make_int2(-1, 0);
    if (has)
        a = load_head(p.head + (size_t)u * group + sub);
    int du = 0;
    bool go = false;
    if (has && sub == 0) {
        du = dist_at(p.dist, u);
        go = du < vload(p.relaxed + u);
        if (go) {
            p.relaxed[u] = du;
            trace_add(p, TR_EXPAND, 1);
        }
    }
    int rx = a.x, ry = a.y;
    if (group > 1) {
        du = __shfl_sync(0xffffffffu, du, 0, group);
        go = __shfl_sync(0xffffffffu, (int)go, 0, group);
        rx = __shfl_sync(0xffffffffu, rx, group - 1, group);
        ry = __shfl_sync(0xffffffffu, ry, group - 1, group);
    }
    int beg = 0, end = 0;
    if (rx <= -2) {
        beg = -2 - rx;
        end = ry;
        if (sub == group - 1)
            a.x = -1;
    }
    if (!go)
        return;
    if (a.x >= 0)
        relax_one(p, u, du, a.x, a.y, it, thr, nxt, far, nfar, lq, lcnt);
    relax_arcs(p, u, du, beg + sub, end, group, it, thr, nxt, far, nfar, lq, lcnt);
    if (p.trace)
        trace_add(p, TR_ARCS, (a.x >= 0) + max(0, (end - beg - sub + group - 1) / group));
}

// relax_entry relaxes vertex u's out-arcs with a group of p.group lanes,
// if u is not skipped by expand: the group's first lane holds u (has),
// expands it and hands what it read to the others.
__device__ __forceinline__ void relax_entry(const problem &p, int u, bool has, int it, int thr, int *nxt, int *far,
                                            int *nfar, int *lq, int *lcnt)
{
    const int group = p.group, sub = threadIdx.x & (group - 1);
    if (p.head) {
        relax_head(p, u, has, it, thr, nxt, far, nfar, lq, lcnt);
        return;
    }
    int du = 0, beg = 0, end = 0;
    bool go = has && expand(p, u, du, beg, end);
    if (group > 1) {
        u = __shfl_sync(0xffffffffu, u, 0, group);
        du = __shfl_sync(0xffffffffu, du, 0, group);
        go = __shfl_sync(0xffffffffu, (int)go, 0, group);
        beg = __shfl_sync(0xffffffffu, beg, 0, group);
        end = __shfl_sync(0xffffffffu, end, 0, group);
    }
    if (go)
        relax_arcs(p, u, du, beg + sub, end, group, it, thr, nxt, far, nfar, lq, lcnt);
}

// relax_list relaxes the out-arcs of list's count vertices with threads
// tid of nthreads, a group of lanes per vertex; an entry whose distance is
// not below relaxed[] is skipped. The loop runs the same trips in every
// lane of a warp, so that the whole warp can take part in the broadcasts;
// a lane past the end of the list just has nothing to do.
__device__ __forceinline__ void relax_list(const problem &p, const int *list, int count, int tid, int nthreads, int it,
                                           int thr, int *nxt, int *far, int *nfar, int *lq, int *lcnt)
{
    const int lane = threadIdx.x & 31;
    const int group = p.group, sub = lane & (group - 1);
    for (int e0 = (tid & ~31) / group; e0 < count; e0 += nthreads / group) {
        const int e = e0 + lane / group;
        const bool has = sub == 0 && e < count;
        const int u = has ? vload(list + e) : 0;
        if (has && p.pool)
            const_cast<int *>(list)[e] = -1; // an empty slot for the idle blocks' next look (help_pool)
        relax_entry(p, u, has, it, thr, nxt, far, nfar, lq, lcnt);
    }
}

// local_rounds relaxes, with the block alone, what the block's part of
// step it queued locally (half 0 of p.lq), for up to p.local rounds: round
// r reads half r%2 and fills the other, except the last, which queues on
// the worklist nxt. Every thread reads a half's count between the same two
// block barriers, so all leave the loop together.
__device__ void local_rounds(const problem &p, int it, int thr, int *nxt, int *far, int *nfar)
{
    for (int r = 0; r < p.local; r++) {
        const int rd = r & 1;
        __syncthreads(); // the pushes into half rd are done
        const int count = min(p.lq[rd], p.lcap);
        if (threadIdx.x == 0) {
            p.lq[rd ^ 1] = 0; // last read in round r-1, before the barrier above
            if (count > 0)
                trace_add(p, TR_LOCAL, 1);
        }
        __syncthreads();
        if (count == 0)
            return;
        const bool last = r + 1 == p.local;
        int *fill = last ? nullptr : p.lq + 2 + (rd ^ 1) * p.lcap;
        relax_list(p, p.lq + 2 + rd * p.lcap, count, threadIdx.x, blockDim.x, it, thr, nxt, far, nfar, fill, p.lq + (rd ^ 1));
    }
}

// local_async is the asynchronous form of local rounds: the block's
// improvements below the threshold go to a ring in shared memory (lq + 4,
// lcap entries, each slot -1 until written; lq[0] the entries taken,
// lq[1] those claimed by producers, lq[2] the warps busy), and each warp
// takes up to 32/group of them at a time, relaxes them and adds what they
// improve, with no block barrier: a warp that follows a chain of
// improvements does not wait for the others at every hop. What does not
// fit the ring goes to the worklist. The step's local work ends when the
// ring is empty and no warp is busy: busy counts the warps still on their
// share of the step's worklist (all at first) and, for a moment, each
// warp that takes entries, which it then holds until it has relaxed them;
// entries are added only by busy warps, and a warp leaves only after it
// has seen no busy warp and, after that, an empty ring (the fences order
// a warp's additions before its release of busy, and a reader's check of
// busy before its second look at the ring).
__device__ void local_async(const problem &p, int it, int thr, int *nxt, int *far, int *nfar)
{
    int *ctl = p.lq, *ring = p.lq + 4;
    volatile int *vctl = ctl, *vring = ring;
    const int lane = threadIdx.x & 31, group = p.group, sub = lane & (group - 1), per = 32 / group;
    __syncwarp();
    if (lane == 0) {
        __threadfence_block();
        atomicSub(ctl + 2, 1); // this warp's share of the worklist is done
    }
    for (;;) {
        int h = 0, c = 0;
        if (lane == 0) {
            for (;;) {
                h = vctl[0];
                const int t = min(vctl[1], p.lcap);
                if (h < t) {
                    c = min(per, t - h);
                    atomicAdd(ctl + 2, 1);
                    if (atomicCAS(ctl, h, h + c) == h)
                        break;
                    atomicSub(ctl + 2, 1);
                    continue;
                }
                if (vctl[2] == 0) {
                    __threadfence_block();
                    if (vctl[0] >= min(vctl[1], p.lcap)) {
                        c = -1;
                        break;
                    }
                }
            }
        }
        c = __shfl_sync(0xffffffffu, c, 0);
        if (c < 0)
            return;
        h = __shfl_sync(0xffffffffu, h, 0);
        if (lane == 0)
            trace_add(p, TR_LOCAL, 1);
        const int e = lane / group;
        const bool has = sub == 0 && e < c;
        int u = 0;
        if (has)
            while ((u = vring[h + e]) < 0)
                ; // claimed by its producer, written in a moment
        relax_entry(p, u, has, it, thr, nxt, far, nfar, ring, ctl + 1);
        __syncwarp();
        if (lane == 0) {
            __threadfence_block();
            atomicSub(ctl + 2, 1);
        }
    }
}

// help_pool keeps an idle block at work within a grid step (pool): once
// its share of the worklist and its ring are done, it takes the entries
// that the step's blocks have queued on the next worklist nxt, from its
// front (st[ST_TAKE + (it+1)%3] counts those taken), into its ring, and
// relaxes them and what they improve through local_async. The step's work
// then ends when no block is busy and no entry is left, not when the
// slowest block's ring is empty: on a mesh the blocks waited at the grid
// barrier for about two thirds of their time (ncu). What is left on nxt
// becomes the next step's worklist, from the first entry not taken.
//
// st[ST_BUSY + it%2] counts the blocks not idle (the whole grid at the
// step's start); a block adds one before it takes entries and takes one
// away when it is idle again, and it leaves when it has seen no busy block
// and, after that, no entry to take (the protocol of local_async's ring).
// A producer claims a slot and then writes it, so that a taker waits for
// a slot that is still -1; every worklist slot is -1 when not in use
// (sssp_init, and relax_list and the heavy loop reset what they read).
//
// A vertex taken in step it gets stamp it, so that an improvement after it
// was taken queues it again: the taker resets the stamp, fences, and only
// then reads the distance (relax_entry), and a producer fences between the
// atomic that lowers a distance and the stamp (queue_near). Each vertex is
// thus queued once, plus once for each time it was taken: takers stop at
// n entries a step, and the worklists hold 2n (the host sizes them).
__device__ void help_pool(const problem &p, int it, int thr, int *nxt, int *far, int *nfar)
{
    int *busy = p.st + ST_BUSY + it % 2, *taken = p.st + ST_TAKE + (it + 1) % 3;
    const int *tail = p.st + ST_NEAR + (it + 1) % 3;
    int *ctl = p.lq, *ring = p.lq + 4;
    __shared__ int take_h, take_c;
    __syncthreads(); // every warp is out of local_async: the block is idle
    if (threadIdx.x == 0) {
        __threadfence();
        atomicSub(busy, 1);
    }
    for (;;) {
        if (threadIdx.x == 0) {
            int h = 0, c = 0;
            for (;;) {
                h = vload(taken);
                const int t = min(vload(tail), p.n);
                if (h < t) {
                    c = min(min(p.lcap, (int)blockDim.x), t - h);
                    atomicAdd(busy, 1);
                    if (atomicCAS(taken, h, h + c) == h)
                        break;
                    atomicSub(busy, 1);
                    continue;
                }
                if (vload(busy) == 0) {
                    __threadfence();
                    if (vload(taken) >= min(vload(tail), p.n)) {
                        c = -1;
                        break;
                    }
                }
            }
            take_h = h;
            take_c = c;
        }
        __syncthreads();
        const int h = take_h, c = take_c;
        if (c < 0)
            return;
        if (threadIdx.x == 0)
            trace_add(p, TR_POOL, c);
        // The ring: the c entries taken, then empty slots.
        for (int i = threadIdx.x; i < p.lcap; i += blockDim.x) {
            int v = -1;
            if (i < c) {
                while ((v = vload(nxt + h + i)) < 0)
                    ; // claimed by its producer, written in a moment
                nxt[h + i] = -1;
                atomicExch(p.stamp + v, it);
            }
            ring[i] = v;
        }
        if (threadIdx.x == 0) {
            ctl[0] = 0;
            ctl[1] = c;
            ctl[2] = blockDim.x / 32;
        }
        __threadfence();
        __syncthreads();
        local_async(p, it, thr, nxt, far, nfar);
        __syncthreads();
        if (threadIdx.x == 0) {
            __threadfence();
            atomicSub(busy, 1);
        }
    }
}

// relax_parts relaxes the nparts parts of heavy entries in hp (split
// mode), a warp a part, the parts dealt to the warps of threads tid of
// nthreads in turn: a hub's arcs go to many warps of many blocks, with no
// block barrier, instead of to one block. Each part's warp reads its
// vertex's distance itself and relaxes from it without relaxed[]'s check:
// the parts of one vertex could not agree on which of them records the
// distance, and a record by one could make another skip its arcs.
// Relaxing from a distance relaxed from before costs work, not results.
__device__ void relax_parts(const problem &p, const int *hp, int nparts, int tid, int nthreads, int it, int thr,
                            int *nxt, int *far, int *nfar, int *lq, int *lcnt)
{
    const int lane = threadIdx.x & 31;
    for (int k = tid >> 5; k < nparts; k += nthreads >> 5) {
        const int u = vload(hp + 2 * k), j = vload(hp + 2 * k + 1);
        const int end = p.off[u + 1], beg = p.off[u] + j * p.split;
        const int du = dist_at(p.dist, u);
        if (lane == 0) {
            trace_add(p, TR_EXPAND, j == 0);
            trace_add(p, TR_ARCS, min(end, beg + p.split) - beg);
        }
        relax_arcs(p, u, du, beg + lane, min(end, beg + p.split), 32, it, thr, nxt, far, nfar, lq, lcnt);
    }
}

// sssp_step runs step `it` of p with threads tid of nthreads: the grid's
// (GRID) or one block's. It returns 1, or 0 without doing anything when
// the run is over (an int: the emulator does not take the predicate
// constants nvcc emits for a bool result). Every thread takes the same branches: the values it
// reads at the start were written only before the barrier that ended the
// step before (or by the leader when all stop). fs (the current far pile)
// and thr (the threshold) live in registers; fs and the bucket's lower end
// (from which thr follows) are also kept in st, so that a later launch or
// other blocks can take over. target is the grid barrier's (GRID).
//
// negcheck makes a worklist at step n or later a negative cycle: with an
// infinite threshold every step is at least one Bellman-Ford round (more
// with local rounds) over the vertices improved in the step before, so
// after step k every distance is at most the shortest path of k+1 arcs;
// without a negative cycle nothing improves from step n-1 on, and the
// worklist holds only vertices improved in the step before.
template <bool GRID>
__device__ int sssp_step(const problem &p, int tid, int nthreads, int it, int &fs, int &thr, unsigned &target)
{
    int *st = p.st;
    volatile int *vst = st;
    const bool leader = tid == 0;
    if (vst[ST_DONE])
        return 0;
    // With pool, idle blocks took the front of this worklist in the step
    // before (help_pool): it starts at the first entry not taken.
    const int start = p.pool ? vst[ST_TAKE + it % 3] : 0;
    const int ncur = vst[ST_NEAR + it % 3] - start, nheavy = vst[ST_HEAVY + it % 3];
    int *cur = ((it & 1) ? p.q1 : p.q0) + start, *nxt = (it & 1) ? p.q0 : p.q1;
    if (p.negcheck && ncur + nheavy > 0 && it >= p.n) {
        if (leader) {
            st[ST_NEG] = (ncur > 0 ? cur[0] : p.split > 0 ? ((it & 1) ? p.hp1 : p.hp0)[0] : cur[p.n - 1 - start]) + 1;
            st[ST_DONE] = 2;
        }
        return 0;
    }
    if (leader) {
        st[ST_NEAR + (it + 2) % 3] = 0;
        st[ST_HEAVY + (it + 2) % 3] = 0;
        st[ST_TAKE + (it + 2) % 3] = 0;
        st[ST_MIN + (it + 1) % 2] = INF;
        st[ST_BUSY + (it + 1) % 2] = gridDim.x;
    }
    if (ncur + nheavy > 0) {
        if (leader)
            st[ST_FAR + (fs ^ 1)] = 0;
        int *far = fs ? p.f1 : p.f0, *nfar = st + ST_FAR + fs;
        // The local queue's half 0 (or the ring) is reset before any
        // thread can push.
        const bool local = GRID && p.local > 0;
        int *lq = nullptr, *lcnt = p.lq;
        if (local && p.async) {
            lq = p.lq + 4;
            lcnt = p.lq + 1;
            for (int i = threadIdx.x; i < p.lcap; i += blockDim.x)
                lq[i] = -1;
            if (threadIdx.x == 0) {
                p.lq[0] = p.lq[1] = 0;
                p.lq[2] = blockDim.x / 32;
            }
            __syncthreads();
        } else if (local) {
            lq = p.lq + 2;
            if (threadIdx.x == 0)
                lcnt[0] = 0;
            __syncthreads();
        }
        // Heavy entries, a whole block each: thread 0 reads the distance
        // and makes the relaxed[] check once for the block, so that all
        // its threads relax from the same distance that relaxed[] records.
        __shared__ int hu, hdu, hgo, hbeg, hend;
        if (p.split > 0)
            relax_parts(p, (it & 1) ? p.hp1 : p.hp0, nheavy, tid, nthreads, it, thr, nxt, far, nfar, lq, lcnt);
        for (int h = GRID ? blockIdx.x : 0; p.split == 0 && h < nheavy; h += GRID ? gridDim.x : 1) {
            if (threadIdx.x == 0) {
                int du, beg, end;
                hu = vload(cur - start + p.n - 1 - h);
                if (p.pool)
                    cur[p.n - 1 - h - start] = -1;
                hgo = expand(p, hu, du, beg, end);
                hdu = du;
                hbeg = beg;
                hend = end;
            }
            __syncthreads();
            if (hgo)
                relax_arcs(p, hu, hdu, hbeg + threadIdx.x, hend, blockDim.x, it, thr, nxt, far, nfar, lq, lcnt);
            __syncthreads();
        }
        relax_list(p, cur, ncur, tid, nthreads, it, thr, nxt, far, nfar, lq, lcnt);
        if (local && p.async) {
            local_async(p, it, thr, nxt, far, nfar);
            if (p.pool)
                help_pool(p, it, thr, nxt, far, nfar);
        } else if (local)
            local_rounds(p, it, thr, nxt, far, nfar);
        step_barrier<GRID>(st, target);
        return 1;
    }
    const int nfar = vst[ST_FAR + fs];
    if (nfar == 0) {
        if (leader)
            st[ST_DONE] = 1;
        return 0;
    }
    int *far = fs ? p.f1 : p.f0, *keep = fs ? p.f0 : p.f1;
    // The least pending far distance: each thread's, then with agg each
    // warp's (every lane of every warp is here), one atomic per warp.
    int *least = st + ST_MIN + it % 2;
    int mine = INF;
    for (int i = tid; i < nfar; i += nthreads) {
        const int v = vload(far + i), d = dist_at(p.dist, v);
        if (d < vload(p.relaxed + v))
            mine = min(mine, d);
    }
    if (p.agg)
        for (int o = 16; o > 0; o >>= 1)
            mine = min(mine, __shfl_xor_sync(0xffffffffu, mine, o));
    if ((!p.agg || (threadIdx.x & 31) == 0) && mine < INF)
        atomicMin(least, mine);
    step_barrier<GRID>(st, target);
    const int base = vload(least);
    thr = threshold(base, p.delta);
    for (int i = tid; i < nfar; i += nthreads) {
        const int v = vload(far + i), d = dist_at(p.dist, v);
        if (d >= vload(p.relaxed + v)) {
            p.infar[v] = 0;
        } else if (d < thr) {
            p.infar[v] = 0;
            if (atomicMax(p.stamp + v, it + 1) < it + 1)
                push_vertex(p, nxt, it, v);
        } else {
            push(keep, st + ST_FAR + (fs ^ 1), v, p.agg);
        }
    }
    fs ^= 1;
    if (leader) {
        st[ST_FARSEL] = fs;
        st[ST_BASE] = base;
    }
    step_barrier<GRID>(st, target);
    return 1;
}

// opaque hides x's value from the optimizer, so that nvcc keeps a step's
// result in an integer register instead of predicate constants
// (mov.pred p, 0), which the emulator does not take.
__device__ __forceinline__ int opaque(int x)
{
    asm volatile("" : "+r"(x));
    return x;
}

// work is what step `it` has to look at: the worklist's entries, or when
// it is empty (split is then set) the far pile that the step splits, then
// all that is left of the run. The far pile's count is read only then: in
// a near step the blocks that have started it already add to it.
__device__ __forceinline__ int work(const problem &p, int it, int fs, bool &split)
{
    const volatile int *vst = p.st;
    const int ncur = vst[ST_NEAR + it % 3] - (p.pool ? vst[ST_TAKE + it % 3] : 0) + vst[ST_HEAVY + it % 3];
    split = ncur == 0;
    return split ? vst[ST_FAR + fs] : ncur;
}

// init_vertex resets one vertex's distance and bookkeeping.
__device__ __forceinline__ void init_vertex(int v, long long *dist, int *relaxed, int *stamp, int *infar)
{
    dist[v] = pack(INF, NIL);
    relaxed[v] = INF;
    stamp[v] = -1;
    infar[v] = 0;
}

// sssp_init prepares one run of sssp_run from src: every distance INF
// without a predecessor, the source at 0 and alone on the first worklist.
// With qlen > 0 (pool) every other slot of the worklists q0 and q1, qlen
// entries each, is -1 (empty, see help_pool).
extern "C" __global__ void sssp_init(int n, int src, long long *dist, int *relaxed, int *stamp, int *infar, int *q0,
                                     int *q1, int qlen)
{
    const int all = max(n, qlen);
    for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < all; v += gridDim.x * blockDim.x) {
        if (v < qlen) {
            q0[v] = v == 0 ? src : -1;
            q1[v] = -1;
        }
        if (v >= n)
            continue;
        init_vertex(v, dist, relaxed, stamp, infar);
        if (v == src) {
            dist[v] = pack(0, NIL);
            stamp[v] = 0;
            q0[0] = v;
        }
    }
}

// sssp_head writes the heads of the n vertices' arcs: k slots a vertex
// (head[v*k + j], a power of two, sssp_run's group), each an arc's
// (target, weight) or (-1, 0) past the vertex's last arc. A vertex of more
// than k arcs keeps its first k-1 in slots 0 .. k-2 and in slot k-1 a rest
// marker (-2 - a, e): its arcs a .. e-1 in the CSR, a = off[v] + k - 1,
// e = off[v+1] (the host keeps the arcs below 2^30, so that -2 - a is
// negative and below -1).
extern "C" __global__ void sssp_head(int n, int k, const int *__restrict__ off, const int *__restrict__ tgt,
                                     const int *__restrict__ w, int2 *head)
{
    const long long all = (long long)n * k;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < all; i += (long long)gridDim.x * blockDim.x) {
        const int v = (int)(i / k), j = (int)(i % k), b = off[v], e = off[v + 1];
        int2 a = make_int2(-1, 0);
        if (e - b > k && j == k - 1)
            a = make_int2(-2 - (b + j), e);
        else if (j < e - b)
            a = make_int2(tgt[b + j], w[b + j]);
        head[i] = a;
    }
}

// sssp_run is the persistent kernel of sssp-fast and bf-fast: every block
// of the grid works on the one problem, steps separated by grid_barrier, so
// the grid must not exceed the blocks the device keeps resident at once.
// It returns after `steps` steps, when done, or before a step whose work()
// is above hi or, splitting a far pile that is not empty, below lo (never
// before its first step): the
// host relaunches
// it until st[ST_DONE] is set, reading st once per launch, and may change
// the grid, the block, delta and the other arguments from one launch to
// the next. That is how a run goes wide: a narrow grid of one block per
// multiprocessor (cheap grid barriers, local rounds) while the worklist is
// small, and every block the device holds from when it is large until
// all that is left of the run (the far pile at a split) is small. Each launch
// takes its threshold afresh from the bucket's lower end and its own delta;
// a threshold that changes within a bucket only moves improved vertices
// between the worklist and the far pile, where they wait for the next
// split, so any sequence of thresholds reaches the same distances.
//
// Solo mode: a grid-wide barrier costs microseconds, a block's barrier a
// fraction of one, and a grid or a road network spends most of its
// thousands of steps on worklists that a single block covers in a pass or
// two. So while a step has at most `solo` vertices to look at,
// block 0 runs the steps alone with __syncthreads between them, and the
// other blocks wait in the grid barrier that block 0 joins when the
// worklist outgrows solo (or the run ends, or the launch's steps are
// spent); then all take the state over from st. solo = 0 turns it off.
// Every block decides from the same st words, read after the same barrier,
// and one more grid barrier before block 0 goes solo keeps it from
// changing them while a slower block is still reading: a switch to solo
// and back costs two grid barriers, a solo step none.
//
// local > 0 turns on local rounds in grid steps (up to local rounds per
// step, see the top of this file) with a queue of lcap entries per half in
// the dynamic shared memory, which the host sizes (2 + 2 lcap ints); with
// async, local_async's ring of 2 lcap entries instead (4 + 2 lcap ints).
// split > 0 puts heavy vertices into the parts' worklists hp0 and hp1
// (two ints an entry, room for n + m/split + 1 entries each), a part of at
// most split arcs an entry, which the warps share (relax_parts).
// barbase is the grid barrier's count of arrivals when the launch starts
// (the host reads it from st after the launch before). trace, when not
// null, receives the TR_* counters. head, when not null, is sssp_head's
// array for k = group: worklist entries take their arcs from it
// (relax_head). pool (with local work through the ring; no heavy
// vertices, and worklists of 2n entries, -1 where empty) keeps idle blocks
// at work within a grid step (help_pool). The launch bounds ask for blocks of up
// to 1024 threads, one of them per multiprocessor at least, which gives
// the compiler registers enough not to spill (without the 1, ptxas
// planned for two and spilled).
extern "C" __global__ void __launch_bounds__(1024, 1)
    sssp_run(int n, const int *__restrict__ off, const int *__restrict__ tgt, const int *__restrict__ w, long long *dist,
             int *relaxed, int *stamp, int *infar, int *q0, int *q1, int *f0, int *f1, int *st, int delta, int group,
             int steps, int negcheck, int solo, int heavy, int split, int *hp0, int *hp1, int local, int lcap, int async,
             int preread, int lo, int hi, unsigned barbase, unsigned long long *trace, const int2 *head, int pool)
{
    extern __shared__ int lbuf[];
    const problem p = {n, off, tgt, w, dist, relaxed, stamp, infar, q0, q1, f0, f1, st, delta, group, heavy,
                       split, hp0, hp1, negcheck != 0, local, async ? min(2 * lcap, 2 * LQ_MAX) : min(lcap, LQ_MAX), lbuf, async != 0,
                       preread != 0, true, trace, head, pool != 0};
    const volatile int *vst = st;
    const int tid = blockIdx.x * blockDim.x + threadIdx.x, nthreads = gridDim.x * blockDim.x;
    int it = vst[ST_STEP], fs = vst[ST_FARSEL], thr = threshold(vst[ST_BASE], delta);
    unsigned target = barbase;
    if (pool) {
        // The first step's count of busy blocks is this launch's grid
        // (each step sets the next one's).
        if (tid == 0)
            st[ST_BUSY + it % 2] = gridDim.x;
        grid_barrier(st + ST_BAR, target);
    }
    const int last = it + steps;
    const bool watch = solo > 0 || lo > 0 || hi < INF; // work() costs a memory round trip per step
    for (int more = 1, first = 1; more && it < last; first = 0) {
        bool split = false;
        const int now = watch ? work(p, it, fs, split) : 0;
        if (!first && (now > hi || (split && now > 0 && now < lo)))
            break;
        if (solo > 0 && now <= solo) {
            // Block 0's steps rewrite the words work() just read: wait
            // until every block has read them.
            grid_barrier(st + ST_BAR, target);
            if (blockIdx.x == 0) {
                unsigned none = 0; // block barriers only
                for (int go = 1; go;) {
                    go = opaque(sssp_step<false>(p, threadIdx.x, blockDim.x, it, fs, thr, none));
                    it += go;
                    go = go && it < last && work(p, it, fs, split) <= solo;
                }
                if (threadIdx.x == 0)
                    st[ST_STEP] = it;
            }
            grid_barrier(st + ST_BAR, target); // also orders block 0's ST_STEP before its reads
            it = vst[ST_STEP];
            fs = vst[ST_FARSEL];
            thr = threshold(vst[ST_BASE], delta);
            more = opaque(vst[ST_DONE] == 0);
        } else {
            more = opaque(sssp_step<true>(p, tid, nthreads, it, fs, thr, target));
            it += more;
        }
    }
    if (tid == 0)
        st[ST_STEP] = it;
}

// finish_row unpacks the finished row of source src, packed in row, into
// the distances d and, when p is not null, the predecessors p, and checks
// it as ff_finish (fwfast.cu) checks a row in its general mode, with the
// same flags (set to INF by the host): flags[0] takes src if a distance is
// neither INF nor within +-MAXDIST, flags[1] if the diagonal is negative,
// flags[2] if a predecessor is outside NIL .. n-1. The block's threads
// take every blockDim.x-th vertex; the row's atomics, done before the
// barrier that ended the run, are read past L1.
__device__ void finish_row(int n, int src, const long long *row, int *d, int *p, int *flags)
{
    bool bad = false, neg = false, badp = false;
    for (int v = threadIdx.x; v < n; v += blockDim.x) {
        const long long x = *(const volatile long long *)(row + v);
        const int dv = dist_of(x), pv = (int)(unsigned)x;
        d[v] = dv;
        bad |= dv != INF && (dv > MAXDIST || dv < -MAXDIST);
        neg |= v == src && dv < 0;
        if (p) {
            p[v] = pv;
            badp |= pv < NIL || pv >= n;
        }
    }
    if (bad)
        atomicMin(flags, src);
    if (neg)
        atomicMin(flags + 1, src);
    if (badp)
        atomicMin(flags + 2, src);
}

// apsp_batch solves count sources: list[first .. first+count-1], or the
// sources first .. first+count-1 when list is null. Each block takes the
// next one, j, from *next and runs sssp_step's block form on it with its
// own scratch (7n ints per block: relaxed, stamp, infar, two worklists,
// two far piles) and its own row of n packed words (row blockIdx.x of
// slab), then takes another, until the sources are done. Its counters are
// in shared memory, whose atomics are cheap: it claims worklist slots one
// lane at a time.
//
// The block ends each source by unpacking its row into row j of d (count
// x n distances) and p (predecessors, when not null), checking it
// (finish_row, flags) and adding one to *done, so that the launch ends
// with its last block; the host compares *done with count, which catches
// a row that no block finished. With pieces not null it also adds one to
// pieces[j / piece] once the row is written and fenced, so that a copy of
// piece k's rows (rows k*piece onwards) may start, after a stream wait
// for that count (cuStreamWaitValue32), while the launch goes on. A host
// that sets *next to count or more stops the launch after the sources it
// has started.
//
// The bounds keep the registers at the 32 a thread that the kernel had
// before the fused finish: without them, the driver gave it 52 on an H200
// (ncu), half the resident blocks, and 35 % longer batches.
extern "C" __global__ void __launch_bounds__(1024, 2) apsp_batch(int n, const int *__restrict__ off, const int *__restrict__ tgt, const int *__restrict__ w,
                                      long long *slab, int first, int count, int *scratch, int *next, int delta, int group,
                                      int heavy, int *d, int *p, int *flags, int *done, int *pieces, int piece,
                                      const int *__restrict__ list)
{
    __shared__ int st[ST_WORDS];
    __shared__ int job;
    int *relaxed = scratch + (size_t)blockIdx.x * 7 * n;
    int *stamp = relaxed + n, *infar = stamp + n, *q0 = infar + n, *q1 = q0 + n, *f0 = q1 + n, *f1 = f0 + n;
    long long *dist = slab + (size_t)blockIdx.x * n;
    for (;;) {
        if (threadIdx.x == 0)
            job = atomicAdd(next, 1);
        __syncthreads();
        const int j = job;
        if (j >= count)
            return;
        const int src = list ? list[first + j] : first + j;
        for (int v = threadIdx.x; v < n; v += blockDim.x)
            init_vertex(v, dist, relaxed, stamp, infar);
        if (threadIdx.x < ST_WORDS)
            st[threadIdx.x] = threadIdx.x == ST_MIN || threadIdx.x == ST_MIN + 1 ? INF : 0;
        __syncthreads();
        if (threadIdx.x == 0) {
            dist[src] = pack(0, NIL);
            stamp[src] = 0;
            q0[0] = src;
            st[ST_NEAR] = 1;
        }
        __syncthreads();
        const problem prob = {n, off, tgt, w, dist, relaxed, stamp, infar, q0, q1, f0, f1, st, delta, group, heavy,
                              0, nullptr, nullptr, false, 0, 0, nullptr, false, true, false, nullptr, nullptr, false};
        int fs = 0, thr = threshold(0, delta);
        unsigned none = 0; // block barriers only
        for (int it = 0; opaque(sssp_step<false>(prob, threadIdx.x, blockDim.x, it, fs, thr, none)); it++)
            ;
        __syncthreads();
        finish_row(n, src, dist, d + (size_t)j * n, p ? p + (size_t)j * n : nullptr, flags);
        if (pieces)
            __threadfence_system(); // the row before its count, for a copy engine
        __syncthreads();
        if (threadIdx.x == 0) {
            atomicAdd(done, 1);
            if (pieces)
                atomicAdd(pieces + j / piece, 1);
        }
    }
}

// sssp_unpack splits count packed words into distances and, when pred is
// not null, predecessors.
extern "C" __global__ void sssp_unpack(long long count, const long long *packed, int *dist, int *pred)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count; i += (long long)gridDim.x * blockDim.x) {
        const long long x = packed[i];
        dist[i] = dist_of(x);
        if (pred)
            pred[i] = (int)(unsigned)x;
    }
}

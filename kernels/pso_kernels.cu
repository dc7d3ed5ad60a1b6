/* The PSO kernels of the GPU backend, compiled at start-up by NVRTC for the
 * device's own architecture and specialised to the problem by macros the
 * host defines in front of this file (gpu_kernel_defines, kernels/gpu_mapping.c):
 *
 *   IPSO_REAL      float or double
 *   IPSO_D         dimensions;  IPSO_PITCH  row pitch in elements (multiple of IPSO_V)
 *   IPSO_G         threads per particle (1..32, or a multiple of 32)
 *   IPSO_V         elements per thread and chunk (vector width: 1, 2 or 4)
 *   IPSO_BLOCK     threads per block;  IPSO_SIGN  +1 minimize, -1 maximize
 *   IPSO_OBJ       built-in objective name (sphere, ...), or IPSO_USER 1
 *   IPSO_USER_SEPARABLE  1: the user's objective is a sum of one function of
 *                  each coordinate (objective.separable), evaluated as terms
 *                  split across the group like a built-in's
 *   IPSO_ACC1      second accumulator of the objective (none, sum, product)
 *   IPSO_NEEDS_NEXT  the objective's term uses the next coordinate
 *   IPSO_VARIANT   the step kernel: 0 queue-lock, 1 queue, 2 reduction
 *   IPSO_CEC2017   1 for the CEC 2017 suite (the whole row, on one thread)
 *   IPSO_EVALUATE  1: evaluate_kernel too (a backend for --evaluate)
 *   IPSO_RELAXED   1 for sync = "relaxed"
 *   IPSO_UNIFORM   1 when every dimension has the same bounds (IPSO_LO, IPSO_HI,
 *                  IPSO_SPAN, IPSO_VMAX given as literals)
 *   IPSO_NCLAMP    values of swarm.velocity_clamp: island g's limits are row
 *                  g mod IPSO_NCLAMP of K.vmax (IPSO_VMAX where there is one)
 *   IPSO_RING      1 for swarm.topology = "ring", IPSO_RING_K its neighbours
 *                  on each side
 *   IPSO_CLPSO     1 for swarm.topology = "clpso", IPSO_CLPSO_REFRESH the
 *                  iterations of an epoch of exemplars
 *   IPSO_INERTIA_END  1 for an inertia schedule: IPSO_W0 at iteration 0 to
 *                  IPSO_W1 at IPSO_TMAX (exact literals)
 *   IPSO_SPEC_CB, IPSO_SPEC_THREADS, IPSO_SPEC_PPT  the speculative cluster
 *                  kernel's blocks per cluster, threads with particles per
 *                  block and particles per thread (0: not compiled);
 *                  IPSO_SPEC_WIN its longest window
 *   IPSO_DEAL      1: several islands of the global topology, the step
 *                  kernel's blocks dealt out over them (step)
 *
 * Layout: structure of arrays, particle i's row at [i * IPSO_PITCH], 16-byte
 * aligned; the backend's K islands one after the other in every array
 * (island-major), each with its own global-best slots, lock and history.
 * The per-iteration kernels run all K islands in one launch, island
 * blockIdx.y (island_ptrs), so small islands fill the GPU together; the
 * relaxed resident kernel runs one island, the speculative kernel one per
 * cluster (blockIdx.y). Random numbers: cuRAND's Philox4_32_10
 * addressed exactly as curand_init(seed, (island << 32) | particle, t * W) would (src/philox.h has
 * the host twin), W = swarm_words_per_iteration(D).
 *
 * Global best: two slots, one per iteration parity. In strict mode iteration
 * t reads slot (t-1)&1 (complete: it was written by the previous launch) and
 * improves slot t&1 under that slot's lock, so every particle sees the best
 * of t-1 and the result is the same on every run. The first block to take
 * the lock in iteration t copies the previous best forward; one block of
 * every island always does (block 0 of a single island; with several, the
 * block of linear index k for island k, in the grid's first wave: with the
 * blocks dealt out over the islands, IPSO_DEAL, that is island k's block
 * 0), so slot
 * t&1 holds the best of t after every launch. In relaxed mode
 * one slot is read live (without the lock, as the paper's enhanced variant
 * does) and written under the lock.
 *
 * Ring topology: the social attractor of particle i is row i of s.lbest,
 * which lbest_kernel writes before every iteration from the personal bests
 * as the previous kernel left them (complete, at a kernel boundary, in
 * strict and relaxed mode alike), so no step kernel reads a personal-best
 * row that another block may be rewriting. It rewrites only the rows whose
 * neighbourhood best or its personal best changed (s.lidx, s.pnew: the
 * step kernels mark the personal bests they change, migrate_kernel the
 * migrants; the host resets s.lidx after init and load_state). The global
 * best is kept as before (migration, history, result). Only one launch per
 * iteration (gpu_plan.c): the resident kernels are not compiled.
 *
 * clpso topology: the same, with exemplar_kernel writing the rows. */

#include "pso_device.cuh"

/* One iteration T of the swarm: update, evaluate, personal bests, and the
 * global best by VARIANT: 0 queue-lock (fused, one launch), 1 queue (block
 * candidates to slots, reduce_kernel next), 2 reduction (block tree
 * reduction of every personal best to slots, reduce_kernel next). */
template <int VARIANT> __device__ void step(swarm_ptrs s, long long t, long long first)
{
  __shared__ block_shared sh;
  pdl_start();
#if IPSO_DEAL
  /* Several islands, global topology: the grid's blocks dealt out over
   * them, block L (in the order the GPU starts them) working on island
   * L % K as its block L / K, so that each wave of blocks holds a part of
   * every island rather than whole islands: fewer of an island's blocks
   * offer candidates to its lock at once, and the later ones find its hint
   * lowered. Block L < K is block 0 of island L, in the first wave. */
  const unsigned int linear = blockIdx.x + gridDim.x * blockIdx.y;
  const unsigned int isl = linear % gridDim.y, bx = linear / gridDim.y;
#else
  const unsigned int isl = blockIdx.y, bx = blockIdx.x;
  const swarm_ptrs all = s;
#endif
  s = island_ptrs(s, isl);
  int lane = threadIdx.x % IPSO_G;
  long long i = (long long)bx * IPSO_PPB + threadIdx.x / IPSO_G;
  bool active = i < K.n;
  if (!active) i = K.n - 1;
  int cur = IPSO_RELAXED ? 0 : (int)(t & 1), prev = IPSO_RELAXED ? 0 : (int)((t - 1) & 1);
  real gc;
  long long gi;
  const real *g;
  if (threadIdx.x == 0) sh.q_n = 0;
  if (IPSO_RELAXED) {
    /* The live best, read without the lock: it only filters candidates and
     * steers the particles; every update of the best is decided under it. */
    volatile gbest_slot *live = s.gb;
    gc = live->cost;
    gi = live->idx;
  } else {
    gc = s.gb[prev].cost;
    gi = s.gb[prev].idx;
  }
  g = s.gpos + (size_t)prev * IPSO_PITCH;
  /* The attractor: the global best, or (ring, clpso) this particle's lbest row. */
  const real *attract = IPSO_RING || IPSO_CLPSO ? s.lbest + (size_t)i * IPSO_PITCH : g;
  __syncthreads();
  bool improved;
  real pc = particle_step(s, K.island + isl, i, t, attract, lane, active, sh, improved);
  /* Ring: whether this particle's personal best changed, for the next
   * lbest_kernel (which copies only the rows that change). */
  if (IPSO_RING && active && lane == 0) s.pnew[i] = improved ? 1 : 0;
  if (VARIANT == 2) {
    real c = active ? pc : (real)IPSO_INF;
    long long idx = active ? i : IPSO_NONE;
    if (lane != 0) c = (real)IPSO_INF, idx = IPSO_NONE;
    block_lexmin(c, idx, sh);
    if (threadIdx.x == 0) s.slot_cost[bx] = c, s.slot_idx[bx] = idx;
    return;
  }
  if (active && lane == 0 && improved && lex_less(pc, i, gc, gi)) {
    int k = atomicAdd(&sh.q_n, 1);
    sh.q_cost[k] = pc;
    sh.q_idx[k] = i;
  }
  __syncthreads();
  if (VARIANT == 1) {
    if (threadIdx.x == 0) {
      real bc;
      long long bi;
      queue_best(sh, bc, bi);
      s.slot_cost[bx] = bc;
      s.slot_idx[bx] = bi;
    }
    return;
  }
  real bc;
  long long bi;
  if (threadIdx.x == 0) queue_best(sh, bc, bi);
    /* The copy forward (strict): with one island, or the blocks dealt out,
     * island k's block 0 with its own candidate (block k of the grid's first
     * wave); otherwise island k's by the block of linear index k, which the
     * GPU starts in its first wave, so that no island's copy waits for a
     * block of the grid's last wave (island k's block 0 is there for the
     * last islands: measured in BENCHMARKS.md). */
#if IPSO_DEAL
  publish_queue_lock(s, t, cur, gc, gi, g, bc, bi, !IPSO_RELAXED && bx == 0, sh,
                     s.hist + (t - first));
#else
  const bool several = gridDim.y > 1;
  publish_queue_lock(s, t, cur, gc, gi, g, bc, bi, !IPSO_RELAXED && !several && blockIdx.x == 0, sh,
                     s.hist + (t - first));
  const unsigned int linear = blockIdx.x + gridDim.x * blockIdx.y;
  if (!IPSO_RELAXED && several && linear < gridDim.y) {
    __syncthreads();
    const swarm_ptrs o = island_ptrs(all, linear);
    publish_queue_lock(o, t, cur, o.gb[prev].cost, o.gb[prev].idx,
                       o.gpos + (size_t)prev * IPSO_PITCH, (real)IPSO_INF, -1, true, sh,
                       o.hist + (t - first));
  }
#endif
}

/* Only the configured variant's step kernel (each one holds its own copy
 * of the objective's code: compile time). */
#if IPSO_VARIANT == 0
extern "C" __global__ void __launch_bounds__(IPSO_BLOCK)
    step_queue_lock_kernel(swarm_ptrs s, long long t, long long first)
{
  step<0>(s, t, first);
}
#elif IPSO_VARIANT == 1
extern "C" __global__ void __launch_bounds__(IPSO_BLOCK)
    step_queue_kernel(swarm_ptrs s, long long t, long long first)
{
  step<1>(s, t, first);
}
#else
extern "C" __global__ void __launch_bounds__(IPSO_BLOCK)
    step_reduction_kernel(swarm_ptrs s, long long t, long long first)
{
  step<2>(s, t, first);
}
#endif

/* Ring topology: lbest_kernel, which writes the attractor rows. */
#if IPSO_RING
#include "pso_ring.cuh"
#endif

#if IPSO_CLPSO
/* clpso topology, before iteration T: row i of s.lbest = particle i's
 * exemplar, dimension d from the personal best of the winner of a
 * tournament between two other particles where the dimension's learning
 * word is below LEARN[i] (swarm_clpso_threshold), else from its own; where
 * no dimension learns from another particle, its random dimension of the
 * epoch does. Draws of the epoch T / IPSO_CLPSO_REFRESH (clpso_block), the
 * winners from the personal bests the previous kernels completed, as the
 * CPU backend's update_exemplars. One warp per particle, a lane per
 * dimension. */
extern "C" __global__ void __launch_bounds__(IPSO_BLOCK)
    exemplar_kernel(swarm_ptrs s, long long t, const unsigned int *learn)
{
  pdl_start();
  s = island_ptrs(s, blockIdx.y);
  const long long n = K.n, e = t / IPSO_CLPSO_REFRESH;
  long long i = (long long)blockIdx.x * (IPSO_BLOCK / 32) + threadIdx.x / 32;
  int lane = threadIdx.x & 31;
  if (i >= n) return; /* the whole warp: I is the same on its lanes */
  const unsigned int isl = island_id(), thr = learn[i];
  real *dst = s.lbest + (size_t)i * IPSO_PITCH;
  unsigned int any = 0;
  for (int base = 0; base < IPSO_D; base += 32) {
    int d = base + lane;
    bool other = false;
    if (d < IPSO_D) {
      uint4 r = clpso_block(isl, i, e, d);
      long long src = i;
      if (r.x < thr) {
        other = true;
        src = clpso_tournament(s.pcost, clpso_other(r.y, n, i), clpso_other(r.z, n, i));
      }
      dst[d] = s.p[(size_t)src * IPSO_PITCH + d];
    }
    any |= __ballot_sync(0xffffffffu, other);
  }
  if (any) return;
  int d = (int)(((unsigned long long)clpso_block(isl, i, e, IPSO_D).x * IPSO_D) >> 32);
  if (lane != (d & 31)) return; /* the lane that wrote dst[d] above */
  uint4 r = clpso_block(isl, i, e, d);
  long long src = clpso_tournament(s.pcost, clpso_other(r.y, n, i), clpso_other(r.z, n, i));
  dst[d] = s.p[(size_t)src * IPSO_PITCH + d];
}
#endif

/* The relaxed resident kernel keeps the best position in shared memory:
 * only for rows up to IPSO_RESIDENT_MAX_D coordinates (kernels/gpu_abi.h);
 * never with a ring or clpso (one launch per iteration, with lbest_kernel
 * or exemplar_kernel between). */
#if IPSO_RELAXED && IPSO_D <= IPSO_RESIDENT_MAX_D && !IPSO_RING && !IPSO_CLPSO
/* Iterations FIRST..LAST of a relaxed swarm in one launch. Every block
 * stays resident for the whole launch and loops over its tiles of
 * particles, so the launch cost is paid once per segment instead of once
 * per iteration. No barrier: blocks run ahead; each iteration uses the
 * live best read during the previous one (the load is issued before the
 * particles are updated, so its latency is hidden), possibly while a
 * writer updates it. */
extern "C" __global__ void __launch_bounds__(IPSO_BLOCK)
    resident_relaxed_kernel(swarm_ptrs s, long long first, long long last)
{
  __shared__ block_shared sh;
  __shared__ real gs[IPSO_PITCH];
  __shared__ real g_cost;
  __shared__ long long g_idx;
  int lane = threadIdx.x % IPSO_G;
  long long tiles = (K.n + IPSO_PPB - 1) / IPSO_PPB;
  const unsigned int isl = K.island;
  volatile gbest_slot *live = s.gb;
  if (threadIdx.x == 0) {
    g_cost = live->cost;
    g_idx = live->idx;
  }
  for (int d = threadIdx.x; d < IPSO_D; d += IPSO_BLOCK) gs[d] = ((volatile real *)s.gpos)[d];
  __syncthreads();
  for (long long t = first; t <= last; t++) {
    real gc = g_cost;
    long long gi = g_idx;
    /* Start reading the live best for the next iteration now. */
    real next_c = gc, next_g = (real)0;
    long long next_i = gi;
    if (threadIdx.x == 0) next_c = live->cost, next_i = live->idx;
    if (threadIdx.x < IPSO_D) next_g = ((volatile real *)s.gpos)[threadIdx.x];
    real bc = (real)IPSO_INF;
    long long bi = -1;
    for (long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
      if (threadIdx.x == 0) sh.q_n = 0;
      __syncthreads();
      long long i = tile * IPSO_PPB + threadIdx.x / IPSO_G;
      bool active = i < K.n;
      if (!active) i = K.n - 1;
      bool improved;
      real pc = particle_step(s, isl, i, t, gs, lane, active, sh, improved);
      if (active && lane == 0 && improved && lex_less(pc, i, gc, gi)) {
        int k = atomicAdd(&sh.q_n, 1);
        sh.q_cost[k] = pc;
        sh.q_idx[k] = i;
      }
      __syncthreads();
      if (threadIdx.x == 0) {
        real c;
        long long k;
        queue_best(sh, c, k);
        if (k >= 0 && (bi < 0 || lex_less(c, k, bc, bi))) bc = c, bi = k;
      }
    }
    publish_queue_lock(s, t, 0, gc, gi, gs, bc, bi, false, sh, NULL);
    if (threadIdx.x == 0) g_cost = next_c, g_idx = next_i;
    if (threadIdx.x < IPSO_D) gs[threadIdx.x] = next_g;
    for (int d = threadIdx.x + IPSO_BLOCK; d < IPSO_D; d += IPSO_BLOCK)
      gs[d] = ((volatile real *)s.gpos)[d];
    __syncthreads();
    if (blockIdx.x == 0 && threadIdx.x == 0) s.hist[t - first] = (double)g_cost;
  }
}
#endif

/* Strict swarms of short rows in one cluster each (the host sets its
 * shape, kernels/gpu_mapping.c): speculative_cluster_kernel. */
#if IPSO_SPEC_CB > 0 && !IPSO_RELAXED && !IPSO_RING && !IPSO_CLPSO
#include "pso_spec.cuh"
#endif

/* The island's best of iteration T, (C, IDX) as block_lexmin left them in
 * thread 0, into slot T & 1 (slot 0 relaxed) with its position (the
 * winner's personal best: nothing writes personal bests meanwhile) and the
 * history's entry T - FIRST. FRESH (after a reload or a migration, strict):
 * the other slot may hold a best that is no longer in the swarm: it is
 * marked empty, so that no candidate is compared with it. WIN: shared. */
__device__ void set_best(swarm_ptrs &s, real c, long long idx, long long t, long long first,
                         int fresh, long long &win)
{
  const int cur = IPSO_RELAXED ? 0 : (int)(t & 1), prev = IPSO_RELAXED ? 0 : (int)((t - 1) & 1);
  if (threadIdx.x == 0) {
    win = idx;
    if (fresh && !IPSO_RELAXED) {
      s.gb[prev].cost = (real)IPSO_INF;
      s.gb[prev].idx = IPSO_NONE;
      s.gb[prev].tag = -1;
      s.gb[prev].hint = ~0ull;
    }
  }
  __syncthreads();
  const real *src = s.p + (size_t)win * IPSO_PITCH;
  real *dst = s.gpos + (size_t)cur * IPSO_PITCH;
  for (int d = threadIdx.x; d < IPSO_D; d += blockDim.x) dst[d] = src[d];
  if (threadIdx.x == 0) {
    s.gb[cur].cost = c;
    s.gb[cur].idx = win;
    s.gb[cur].hint = ~0ull; /* the swarm may have changed: no offer stands */
    s.gb[cur].tag = t;
    if (s.hist) s.hist[t - first] = (double)c;
  }
}

/* The global best of iteration T from NSLOTS per-block candidates and the
 * best of T-1 (slot (t-1)&1, unless FRESH: then from the slots alone); one
 * block per island. Writes slot t&1 (position copied) and hist[t - first]. */
extern "C" __global__ void __launch_bounds__(IPSO_BLOCK)
    reduce_kernel(swarm_ptrs s, int nslots, long long t, long long first, int fresh)
{
  pdl_start();
  s = island_ptrs(s, blockIdx.y);
  __shared__ block_shared sh;
  __shared__ long long win;
  const int prev = IPSO_RELAXED ? 0 : (int)((t - 1) & 1);
  real c = (real)IPSO_INF;
  long long idx = IPSO_NONE;
  if (!fresh && threadIdx.x == 0) c = s.gb[prev].cost, idx = s.gb[prev].idx;
  for (int k = threadIdx.x; k < nslots; k += IPSO_BLOCK)
    if (s.slot_idx[k] >= 0 && lex_less(s.slot_cost[k], s.slot_idx[k], c, idx))
      c = s.slot_cost[k], idx = s.slot_idx[k];
  block_lexmin(c, idx, sh);
  set_best(s, c, idx, t, first, fresh, win);
}

/* Iteration 0: initial positions and velocities, costs, personal bests, and
 * the block candidates for reduce_kernel; islands by blockIdx.y. */
extern "C" __global__ void __launch_bounds__(IPSO_BLOCK) init_kernel(swarm_ptrs s)
{
  __shared__ block_shared sh;
  s = island_ptrs(s, blockIdx.y);
  int lane = threadIdx.x % IPSO_G;
  long long i = (long long)blockIdx.x * IPSO_PPB + threadIdx.x / IPSO_G;
  bool active = i < K.n;
  if (!active) i = K.n - 1;
  real xs[IPSO_C][IPSO_V];
  size_t row = (size_t)i * IPSO_PITCH;
#pragma unroll
  for (int c = 0; c < IPSO_C; c++) {
    int base = (c * IPSO_G + lane) * IPSO_V;
    if (base >= IPSO_D) continue;
    real x[IPSO_V], v[IPSO_V];
#pragma unroll
    for (int k = 0; k < IPSO_V; k++) x[k] = v[k] = (real)0;
#pragma unroll
    for (int k = 0; k < IPSO_V; k += 2) {
      uint4 r = rng_block(island_id(), i, 0, (base + k) / 2);
      if (base + k < IPSO_D) init_coord(x[k], v[k], r.x, r.y, base + k, island_id());
      if (IPSO_V > 1 && base + k + 1 < IPSO_D)
        init_coord(x[k + 1], v[k + 1], r.z, r.w, base + k + 1, island_id());
    }
    if (active) {
      vec<IPSO_V>::store(s.x + row + base, x);
      vec<IPSO_V>::store(s.v + row + base, v);
      vec<IPSO_V>::store(s.p + row + base, x);
    }
#pragma unroll
    for (int k = 0; k < IPSO_V; k++) xs[c][k] = x[k];
  }
  real cost = group_cost(xs, s.x + row, lane, sh);
  if (active && lane == 0) s.cost[i] = s.pcost[i] = cost;
  real c = active && lane == 0 ? cost : (real)IPSO_INF;
  long long idx = active && lane == 0 ? i : IPSO_NONE;
  block_lexmin(c, idx, sh);
  if (threadIdx.x == 0) s.slot_cost[blockIdx.x] = c, s.slot_idx[blockIdx.x] = idx;
}

/* Block candidates from the personal bests as they are (after a load or a
 * migration), for reduce_kernel with fresh = 1; islands by blockIdx.y. */
extern "C" __global__ void __launch_bounds__(IPSO_BLOCK) candidates_kernel(swarm_ptrs s)
{
  __shared__ block_shared sh;
  s = island_ptrs(s, blockIdx.y);
  long long i = (long long)blockIdx.x * IPSO_BLOCK + threadIdx.x;
  real c = i < K.n ? s.pcost[i] : (real)IPSO_INF;
  long long idx = i < K.n ? i : IPSO_NONE;
  block_lexmin(c, idx, sh);
  if (threadIdx.x == 0) s.slot_cost[blockIdx.x] = c, s.slot_idx[blockIdx.x] = idx;
}

/* select_kernel's work for one block: the COUNT picks of the entries
 * [LO, HI) into OUT[m] and OUT_COST[m] (thread 0 writes them; the block's
 * threads see them after its last barrier). LAST_C, LAST_I: shared. */
__device__ void select_block(const real *cost, const long long *index, long long lo, long long hi,
                             int worst, int count, long long *out, real *out_cost, block_shared &sh,
                             real &last_c, long long &last_i)
{
  if (threadIdx.x == 0) last_i = -1;
  __syncthreads();
  for (int m = 0; m < count; m++) {
    real lc = last_c;
    long long li = last_i;
    /* Keys: (cost, particle), negated in the worst order. */
    real lkey = worst ? -lc : lc;
    long long lkid = worst ? -li : li;
    real c = (real)IPSO_INF;
    long long kid_best = IPSO_NONE;
    for (long long e = lo + threadIdx.x; e < hi; e += IPSO_BLOCK) {
      long long i = index ? index[e] : e;
      if (i < 0) continue;
      real key = worst ? -cost[e] : cost[e];
      long long kid = worst ? -i : i;
      if (li >= 0 && !lex_less(lkey, lkid, key, kid)) continue;
      if (lex_less(key, kid, c, kid_best)) c = key, kid_best = kid;
    }
    block_lexmin(c, kid_best, sh);
    if (threadIdx.x == 0) {
      long long win = kid_best == IPSO_NONE ? -1 : (worst ? -kid_best : kid_best);
      real wc = worst ? -c : c;
      out[m] = win;
      out_cost[m] = win < 0 ? (real)IPSO_INF : wc;
      if (win >= 0) last_c = wc, last_i = win;
    }
    __syncthreads();
  }
}

/* The COUNT best (WORST = 0) or worst (WORST = 1) of N entries in the order
 * (cost, particle), or its reverse. Each block takes the entries
 * [blockIdx.x * CHUNK, +CHUNK) and writes its picks, in order, to
 * OUT[blockIdx.x * COUNT + m] and OUT_COST (particle -1: fewer entries than
 * COUNT); one pass per pick, each the next in the order after the previous.
 * INDEX gives the particle of each entry (NULL: the entry number), -1 entries
 * are skipped: so one launch over the personal bests and one single-block
 * launch over the blocks' picks select the swarm's COUNT best or worst.
 * Island blockIdx.y's entries start at IN_STRIDE * y, its picks at
 * OUT_STRIDE * y (all islands' selections in one launch). */
extern "C" __global__ void __launch_bounds__(IPSO_BLOCK)
    select_kernel(const real *cost, const long long *index, long long n, long long chunk,
                  long long in_stride, long long out_stride, int worst, int count, long long *out,
                  real *out_cost)
{
  __shared__ block_shared sh;
  __shared__ real last_c;
  __shared__ long long last_i;
  /* Island blockIdx.y's entries and picks. */
  cost += (size_t)blockIdx.y * (size_t)in_stride;
  if (index) index += (size_t)blockIdx.y * (size_t)in_stride;
  out += (size_t)blockIdx.y * (size_t)out_stride;
  out_cost += (size_t)blockIdx.y * (size_t)out_stride;
  long long lo = (long long)blockIdx.x * chunk, hi = lo + chunk < n ? lo + chunk : n;
  select_block(cost, index, lo, hi, worst, count, out + (long long)blockIdx.x * count,
               out_cost + (long long)blockIdx.x * count, sh, last_c, last_i);
}

/* A migrant's element E (row M, coordinate D, value R, personal-best cost
 * PC) of an edge island into the other ranks' messages in mapped host
 * memory: message 0 for the rank's FIRST island, 1 for its LAST (both
 * where one island is both), each COUNT rows (gather_kernel,
 * emigrate_kernel). */
__device__ void edge_out(real *edge_rows, real *edge_cost, bool first, bool last, int count,
                         long long e, long long m, long long d, real r, real pc)
{
  if (first) edge_rows[e] = r;
  if (last) edge_rows[(size_t)count * IPSO_PITCH + e] = r;
  if (d == 0 && first) edge_cost[m] = pc;
  if (d == 0 && last) edge_cost[count + m] = pc;
}

/* Every island's message out in one block (island blockIdx.x) where the
 * island fits one selection chunk: its COUNT best personal bests as
 * select_kernel picks them (into SEL, SEL_COST at [k * count]), their rows
 * as gather_kernel copies them (into MSG at [k * count * IPSO_PITCH], the
 * first and last island's also into EDGE_ROWS and EDGE_COST, mapped host
 * memory, NULL: none), then with VICTIMS > 0 its VICTIMS
 * worst (into VSEL, VCOST at [k * victims]). The same picks as select_kernel and the same
 * rows as gather_kernel, in one launch instead of three. */
extern "C" __global__ void __launch_bounds__(IPSO_BLOCK)
    emigrate_kernel(swarm_ptrs s, int count, long long *sel, real *sel_cost, real *msg,
                    real *edge_rows, real *edge_cost, int victims, long long *vsel, real *vcost)
{
  __shared__ block_shared sh;
  __shared__ real last_c;
  __shared__ long long last_i;
  const int k = (int)blockIdx.x;
  s = island_ptrs(s, (unsigned)k);
  sel += (size_t)k * (size_t)count;
  sel_cost += (size_t)k * (size_t)count;
  msg += (size_t)k * (size_t)count * IPSO_PITCH;
  select_block(s.pcost, NULL, 0, K.n, 0, count, sel, sel_cost, sh, last_c, last_i);
  const bool first = edge_rows && k == 0, last = edge_rows && k == (int)gridDim.x - 1;
  for (long long e = threadIdx.x; e < (long long)count * IPSO_PITCH; e += blockDim.x) {
    long long m = e / IPSO_PITCH, d = e % IPSO_PITCH;
    real r = s.p[(size_t)sel[m] * IPSO_PITCH + d];
    msg[e] = r;
    if (first || last) edge_out(edge_rows, edge_cost, first, last, count, e, m, d, r, sel_cost[m]);
  }
  if (victims > 0)
    select_block(s.pcost, NULL, 0, K.n, 1, victims, vsel + (size_t)k * (size_t)victims,
                 vcost + (size_t)k * (size_t)victims, sh, last_c, last_i);
}

/* A step's history (N values at SRC, device memory) into DST, the step's
 * pinned host buffer as the device addresses it, and SRC's entries set to
 * NaN again (all bits set: the mark of an entry that no launch of the
 * buffer's next step writes). A kernel behind the step's launches instead
 * of a copy and a memset, so that the stream's next kernel (a migration,
 * the next step) follows without the copy engine in between. */
extern "C" __global__ void hist_out_kernel(double *src, double *dst, long long n)
{
  pdl_start();
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    dst[i] = src[i];
    src[i] = __longlong_as_double(-1ll);
  }
}

#include "pso_migrate.cuh"

#if IPSO_EVALUATE
/* --evaluate: the objective (not sign-adjusted) at the N rows of PTS
 * (pitch IPSO_PITCH) into OUT, through the steps' own group_value; only in
 * a program for it (one more copy of the objective's code otherwise). */
extern "C" __global__ void __launch_bounds__(IPSO_BLOCK)
    evaluate_kernel(const real *pts, long long n, real *out)
{
  __shared__ block_shared sh;
  int lane = threadIdx.x % IPSO_G;
  long long i = (long long)blockIdx.x * IPSO_PPB + threadIdx.x / IPSO_G;
  bool active = i < n;
  if (!active) i = n - 1;
  const real *row = pts + (size_t)i * IPSO_PITCH;
  real xs[IPSO_C][IPSO_V];
#pragma unroll
  for (int c = 0; c < IPSO_C; c++) {
    int base = (c * IPSO_G + lane) * IPSO_V;
    if (base < IPSO_D) vec<IPSO_V>::load(row + base, xs[c]);
  }
  real f = (real)(IPSO_SIGN)*group_value(xs, row, lane, sh);
  if (active && lane == 0) out[i] = f;
}
#endif

#if IPSO_USER_SEPARABLE
/* The start-up check of objective.separable: at each of the N points PTS
 * (rows of IPSO_PITCH), the function of the whole row, the sum of its terms
 * (in the kernels' precision) and the sum of their magnitudes, into OUT[3 i..]. */
extern "C" __global__ void separable_check_kernel(const real *pts, int n, double *out)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const real *x = pts + (size_t)i * IPSO_PITCH;
  real s = (real)0;
  double m = 0;
  for (int d = 0; d < IPSO_D; d++) {
    real t = ipso_user_term(x[d], K.prm);
    s += t;
    m += fabs((double)t);
  }
  out[3 * i] = (double)ipso_user_objective(x, IPSO_D, K.prm);
  out[3 * i + 1] = (double)s;
  out[3 * i + 2] = m;
}
#endif

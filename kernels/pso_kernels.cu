/* The PSO kernels of the GPU backend, compiled at start-up by NVRTC for the
 * device's architecture and specialised by macros the host puts in front
 * (gpu_kernel_defines, kernels/gpu_mapping.c):
 *
 *   IPSO_REAL      float or double
 *   IPSO_D         dimensions;  IPSO_PITCH  row pitch in elements (multiple of IPSO_V)
 *   IPSO_G         threads per particle (1..32, or a multiple of 32)
 *   IPSO_V         elements per thread and chunk (vector width: 1, 2 or 4)
 *   IPSO_BLOCK     threads per block;  IPSO_SIGN  +1 minimize, -1 maximize
 *   IPSO_OBJ       built-in objective name (sphere, ...), or IPSO_USER 1
 *   IPSO_USER_SEPARABLE  1: the user's objective is a sum of terms of one
 *                  coordinate each, split across the group like a built-in's
 *   IPSO_ACC1      second accumulator of the objective (none, sum, product)
 *   IPSO_NEEDS_NEXT  the objective's term uses the next coordinate
 *   IPSO_VARIANT   the step kernel: 0 queue-lock, 1 queue, 2 reduction
 *   IPSO_CEC2017   1 for the CEC 2017 suite (the whole row, on one thread)
 *   IPSO_EVALUATE  1: evaluate_kernel too (--evaluate)
 *   IPSO_RELAXED   1 for sync = "relaxed"
 *   IPSO_UNIFORM   1: every dimension has the same bounds (IPSO_LO, IPSO_HI,
 *                  IPSO_SPAN, IPSO_VMAX as literals)
 *   IPSO_NCLAMP    values of swarm.velocity_clamp: island g's limits are row
 *                  g mod IPSO_NCLAMP of K.vmax
 *   IPSO_RING      ring topology, IPSO_RING_K neighbours on each side
 *   IPSO_CLPSO     clpso topology, IPSO_CLPSO_REFRESH iterations per epoch
 *   IPSO_INERTIA_END  1: inertia IPSO_W0 at iteration 0 to IPSO_W1 at IPSO_TMAX
 *   IPSO_SPEC_CB, IPSO_SPEC_THREADS, IPSO_SPEC_PPT  the speculative kernel's
 *                  blocks per cluster, threads with particles per block,
 *                  particles per thread (0: not compiled); IPSO_SPEC_WIN
 *                  its longest window
 *   IPSO_DEAL      1: the step kernel's blocks dealt out over several islands
 *
 * Layout: structure of arrays, particle i's row at [i * IPSO_PITCH], 16-byte
 * aligned; the backend's islands one after the other in every array, each
 * with its own global-best slots, lock and history. The per-iteration
 * kernels run all islands in one launch (island blockIdx.y) so that small
 * islands fill the GPU together. Random numbers: Philox4_32_10 addressed as
 * curand_init(seed, (island << 32) | particle, t * W) would, W =
 * swarm_words_per_iteration(D) (host twin: src/philox.h).
 *
 * Global best: two slots, one per iteration parity. Strict: iteration t
 * reads slot (t-1)&1 (complete since the previous launch) and improves slot
 * t&1 under its lock, so the result is the same on every run. One block of
 * every island always copies the previous best forward (block 0 of a single
 * island or of a dealt-out one, else the block of linear index k for island
 * k, in the grid's first wave), so slot t&1 holds the best of t after every
 * launch. Relaxed: one slot, read live without the lock (the paper's
 * enhanced variant) and written under it.
 *
 * Ring and clpso: particle i's social attractor is row i of s.lbest, which
 * lbest_kernel or exemplar_kernel writes before every iteration from the
 * personal bests complete at a kernel boundary, so no step reads a row that
 * another block may be rewriting. The ring rewrites only the rows whose
 * neighbourhood best or its personal best changed (s.lidx, s.pnew). The
 * global best is kept as before; one launch per iteration (no resident
 * kernels). */

#include "pso_device.cuh"

/* Iteration T: update, evaluate, personal bests, and the global best by
 * VARIANT: 0 queue-lock (fused), 1 queue or 2 reduction (block candidates
 * to slots for reduce_kernel). */
template <int VARIANT> __device__ void step(swarm_ptrs s, long long t, long long first)
{
  __shared__ block_shared sh;
  pdl_start();
#if IPSO_DEAL
  /* Block L (in start order) works on island L % K as its block L / K: each
   * wave holds part of every island, so fewer of an island's blocks offer to
   * its lock at once and later ones find its hint lowered. */
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
    /* Read without the lock: it only filters and steers; updates are decided
     * under it. */
    volatile gbest_slot *live = s.gb;
    gc = live->cost;
    gi = live->idx;
  } else {
    gc = s.gb[prev].cost;
    gi = s.gb[prev].idx;
  }
  g = s.gpos + (size_t)prev * IPSO_PITCH;
  const real *attract = IPSO_MEAN && mean_on(K.island + isl) ? s.lbest
                        : IPSO_RING || IPSO_CLPSO            ? s.lbest + (size_t)i * IPSO_PITCH
                                                             : g;
  __syncthreads();
  bool improved;
  real pc = particle_step(s, K.island + isl, i, t, attract, lane, active, sh, improved);
  /* For the next lbest_kernel, which copies only the rows that change. */
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
    /* The copy forward (strict): island k's by block 0 when alone or dealt
     * out, else by the block of linear index k, in the first wave, so that
     * no copy waits for the last wave (where the last islands' block 0 is). */
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

/* Only the configured variant's step kernel (each copies the objective's
 * code: compile time). */
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

#if IPSO_RING
#include "pso_ring.cuh"
#endif

#if IPSO_MEAN
/* Before each iteration, block k: island k's mean attractor (row 0 of
 * s.lbest) where it follows one, as the CPU backend's update_mean: the
 * swarm_mean_count best personal bests by (cost, index), rank r weighing
 * (count - r)^2, summed in double in rank order. The ranks by counting, the
 * costs in shared memory (IPSO_MEAN_MAX_PARTICLES at most). */
extern "C" __global__ void __launch_bounds__(1024) mean_kernel(swarm_ptrs s)
{
  __shared__ real pc[IPSO_MEAN_MAX_PARTICLES];
  __shared__ int order[IPSO_MEAN_MAX_PARTICLES / 4];
  const unsigned int k = blockIdx.x;
  if (!mean_on(K.island + k)) return;
  s = island_ptrs(s, k);
  const int n = (int)K.n, mu = n / 4 > 0 ? n / 4 : 1;
  for (int i = threadIdx.x; i < n; i += blockDim.x) pc[i] = s.pcost[i];
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const real c = pc[i];
    int r = 0;
    for (int j = 0; j < n; j++) r += pc[j] < c || (pc[j] == c && j < i);
    if (r < mu) order[r] = i;
  }
  __syncthreads();
  const double m = (double)mu, scale = m * (m + 1) * (2 * m + 1) / 6;
  for (int d = threadIdx.x; d < IPSO_D; d += blockDim.x) {
    double acc = 0.0;
#pragma unroll 8
    for (int r = 0; r < mu; r++) {
      const double w = (double)(mu - r);
      acc += w * w * (double)s.p[(size_t)order[r] * IPSO_PITCH + d];
    }
    s.lbest[d] = (real)(acc / scale);
  }
}
#endif

#if IPSO_CLPSO
/* clpso, before iteration T: row i of s.lbest = particle i's exemplar, as
 * the CPU backend's update_exemplars: dimension d from the winner of a
 * tournament of two other particles where its learning word is below
 * LEARN[i], else from its own; if none learns, the epoch's random dimension
 * does. One warp per particle, a lane per dimension. */
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

#if IPSO_FRAME
/* Before iteration T where swarm_frame_due(T): the eigen frame of every
 * island that has one (block k: island k), in the CPU backend's order
 * (update_frame, frame_rotate): the scatter S of the personal bests
 * about their mean, then B <- the orthonormalised columns of (S + mu I) B
 * by classical Gram-Schmidt applied twice, rounded to real; B kept where S
 * is zero. WORK:
 * 2 D^2 + 2 D doubles per island. */
extern "C" __global__ void __launch_bounds__(256) frame_kernel(swarm_ptrs s, double *work)
{
  const unsigned int k = blockIdx.x;
  if (!frame_on(K.island + k)) return;
  s = island_ptrs(s, k);
  const int D = IPSO_D, tid = threadIdx.x, nt = blockDim.x;
  const size_t DD = (size_t)D * D;
  real *B = s.frame;
  double *m = work + (size_t)k * (2 * DD + 2 * D), *S = m + D, *T = S + DD, *r = T + DD;
  __shared__ double mu, norm;
  __shared__ int ok;
  for (int d = tid; d < D; d += nt) {
    double acc = 0.0;
    for (long long i = 0; i < K.n; i++) acc += (double)s.p[(size_t)i * IPSO_PITCH + d];
    m[d] = acc / (double)K.n;
  }
  __syncthreads();
  for (size_t e = tid; e < DD; e += nt) {
    int a = (int)(e / D), b = (int)(e % D);
    double acc = 0.0;
    for (long long i = 0; i < K.n; i++) {
      const real *pi = s.p + (size_t)i * IPSO_PITCH;
      acc += ((double)pi[a] - m[a]) * ((double)pi[b] - m[b]);
    }
    S[e] = acc;
  }
  __syncthreads();
  if (tid == 0) {
    double trace = 0.0;
    for (int a = 0; a < D; a++) trace += S[(size_t)a * D + a];
    ok = trace > 0.0 && isfinite(trace);
    mu = trace / (double)D * IPSO_FRAME_RIDGE;
  }
  __syncthreads();
  if (!ok) return;
  for (size_t e = tid; e < DD; e += nt) {
    int a = (int)(e / D), b = (int)(e % D);
    double acc = 0.0;
    for (int q = 0; q < D; q++) acc += S[(size_t)a * D + q] * (double)B[(size_t)q * D + b];
    T[e] = acc + mu * (double)B[e];
  }
  __syncthreads();
  for (int j = 0; j < D; j++) {
    for (int pass = 0; pass < 2; pass++) {
      for (int q = tid; q < j; q += nt) {
        double acc = 0.0;
        for (int c = 0; c < D; c++) acc += T[(size_t)c * D + q] * T[(size_t)c * D + j];
        r[q] = acc;
      }
      __syncthreads();
      for (int c = tid; c < D; c += nt) {
        double acc = T[(size_t)c * D + j];
        for (int q = 0; q < j; q++) acc -= r[q] * T[(size_t)c * D + q];
        T[(size_t)c * D + j] = acc;
      }
      __syncthreads();
    }
    if (tid == 0) {
      double acc = 0.0;
      for (int c = 0; c < D; c++) acc += T[(size_t)c * D + j] * T[(size_t)c * D + j];
      norm = sqrt(acc);
      if (!(norm > 0.0)) ok = 0;
    }
    __syncthreads();
    if (!ok) return;
    for (int c = tid; c < D; c += nt) T[(size_t)c * D + j] /= norm;
    __syncthreads();
  }
  for (size_t e = tid; e < DD; e += nt) B[e] = (real)T[e];
}
#endif

/* The best position in shared memory: rows up to IPSO_RESIDENT_MAX_D only;
 * a ring, clpso or an eigen frame needs a kernel between the steps. */
#if IPSO_RELAXED && IPSO_D <= IPSO_RESIDENT_MAX_D && !IPSO_RING && !IPSO_CLPSO && !IPSO_FRAME
/* Iterations FIRST..LAST of a relaxed swarm in one launch of resident
 * blocks looping over their tiles. No barrier: each iteration uses the live
 * best loaded during the previous one (latency hidden behind the update). */
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

#if IPSO_SPEC_CB > 0 && !IPSO_RELAXED && !IPSO_RING && !IPSO_CLPSO
#include "pso_spec.cuh"
#endif

/* The island's best of iteration T ((C, IDX) of block_lexmin, thread 0)
 * into slot T & 1 with the winner's personal best and hist[T - FIRST].
 * FRESH (after a reload or migration): the other slot may hold a best no
 * longer in the swarm, so it is emptied. WIN: shared. */
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

/* The global best of iteration T from NSLOTS block candidates and, unless
 * FRESH, the best of T-1; one block per island. */
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

/* Iteration 0: positions, velocities, costs, personal bests and the block
 * candidates for reduce_kernel. */
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

/* Block candidates from the personal bests as they are, for reduce_kernel
 * with fresh = 1. */
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

/* One block's COUNT picks of the entries [LO, HI) into OUT, OUT_COST
 * (written by thread 0, visible after the last barrier). LAST_C, LAST_I:
 * shared. */
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

/* The COUNT best (WORST = 0) or worst of N entries by (cost, particle):
 * block x picks from [x * CHUNK, +CHUNK) into OUT[x * COUNT + m], OUT_COST
 * (particle -1: fewer entries), one pass per pick. INDEX: each entry's
 * particle (NULL: its number; -1: skipped), so a second single-block launch
 * over the picks selects the swarm's. Island y's entries at IN_STRIDE * y,
 * its picks at OUT_STRIDE * y. */
extern "C" __global__ void __launch_bounds__(IPSO_BLOCK)
    select_kernel(const real *cost, const long long *index, long long n, long long chunk,
                  long long in_stride, long long out_stride, int worst, int count, long long *out,
                  real *out_cost)
{
  __shared__ block_shared sh;
  __shared__ real last_c;
  __shared__ long long last_i;
  cost += (size_t)blockIdx.y * (size_t)in_stride;
  if (index) index += (size_t)blockIdx.y * (size_t)in_stride;
  out += (size_t)blockIdx.y * (size_t)out_stride;
  out_cost += (size_t)blockIdx.y * (size_t)out_stride;
  long long lo = (long long)blockIdx.x * chunk, hi = lo + chunk < n ? lo + chunk : n;
  select_block(cost, index, lo, hi, worst, count, out + (long long)blockIdx.x * count,
               out_cost + (long long)blockIdx.x * count, sh, last_c, last_i);
}

/* A migrant's element E (row M, coordinate D, value R, cost PC) into the
 * edge messages in mapped host memory: 0 for the rank's FIRST island, 1 for
 * its LAST, COUNT rows each. */
__device__ void edge_out(real *edge_rows, real *edge_cost, bool first, bool last, int count,
                         long long e, long long m, long long d, real r, real pc)
{
  if (first) edge_rows[e] = r;
  if (last) edge_rows[(size_t)count * IPSO_PITCH + e] = r;
  if (d == 0 && first) edge_cost[m] = pc;
  if (d == 0 && last) edge_cost[count + m] = pc;
}

/* Where an island fits one selection chunk, select_kernel's and
 * gather_kernel's work in one launch, a block per island k: its COUNT best
 * into SEL, SEL_COST [k * count], their rows into MSG (and the edge
 * messages, EDGE_ROWS NULL: none), then its VICTIMS worst into VSEL, VCOST
 * [k * victims]. */
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

/* A step's history (N values at SRC) into the mapped host buffer DST, and
 * SRC reset to NaN (all bits set: an entry no launch wrote). A kernel, not
 * a copy and a memset, so the next kernel follows without the copy engine. */
extern "C" __global__ void hist_out_kernel(double *src, double *dst, long long n)
{
  pdl_start();
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    dst[i] = src[i];
    src[i] = __longlong_as_double(-1ll);
  }
}

#if IPSO_MIGRATES
#include "pso_migrate.cuh"
#endif

#if IPSO_EVALUATE
/* --evaluate: the objective (not sign-adjusted) at the N rows of PTS into
 * OUT, by the steps' group_value; only where asked (a copy of its code). */
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
/* The start-up check of objective.separable: at each of N points PTS, the
 * whole row's value, the sum of its terms and of their magnitudes, into
 * OUT[3 i..]. */
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

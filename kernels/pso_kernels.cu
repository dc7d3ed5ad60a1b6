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
 *   IPSO_RELAXED   1 for sync = "relaxed"
 *   IPSO_UNIFORM   1 when every dimension has the same bounds (IPSO_LO, IPSO_HI,
 *                  IPSO_SPAN, IPSO_VMAX given as literals)
 *
 * Layout: structure of arrays, particle i's row at [i * IPSO_PITCH], 16-byte
 * aligned. Random numbers: cuRAND's Philox4_32_10 addressed exactly as
 * curand_init(seed, (island << 32) | particle, t * W) would (src/philox.h
 * has the host twin), W = swarm_words_per_iteration(D).
 *
 * Global best: two slots, one per iteration parity. In strict mode iteration
 * t reads slot (t-1)&1 (complete: it was written by the previous launch) and
 * improves slot t&1 under that slot's lock, so every particle sees the best
 * of t-1 and the result is the same on every run. The first block to take
 * the lock in iteration t copies the previous best forward; block 0 always
 * does, so slot t&1 holds the best of t after every launch. In relaxed mode
 * one slot is read live (without the lock, as the paper's enhanced variant
 * does) and written under the lock. */

#include <curand_philox4x32_x.h>

typedef IPSO_REAL real;

/* struct ipso_consts, struct gbest_slot, struct swarm_ptrs, IPSO_NONE and
 * the limits the host shares (spliced in by the build). */
#include "gpu_abi.h"

#define IPSO_INF (__longlong_as_double(0x7ff0000000000000ULL))

#define IPSO_HD static __device__ __forceinline__
#define IPSO_FN(name) obj_##name
#include "objectives.h"

#define IPSO_CAT2(a, b) a##b
#define IPSO_CAT(a, b) IPSO_CAT2(a, b)

#if IPSO_USER_SEPARABLE
/* A separable user objective in the built-ins' form: its term is the
 * user's function of one coordinate (ipso_user_term of the generated
 * wrapper), summed over the coordinates. */
IPSO_HD real obj_user_t0(real x, real xn, int d, int D, const real *prm)
{
  (void)xn, (void)d, (void)D;
  return ipso_user_term(x, prm);
}
IPSO_HD real obj_user_t1(real x, int d, const real *prm)
{
  (void)x, (void)d, (void)prm;
  return (real)0;
}
IPSO_HD real obj_user_final(real s0, real s1, int D, const real *prm)
{
  (void)s1, (void)D, (void)prm;
  return s0;
}
#define IPSO_USER_ROW 0
#else
#define IPSO_USER_ROW IPSO_USER /* the whole row, on one thread */
#endif
#define IPSO_PPB (IPSO_BLOCK / IPSO_G)                              /* particles per block */
#define IPSO_C ((IPSO_D + IPSO_G * IPSO_V - 1) / (IPSO_G * IPSO_V)) /* chunks per thread */
#define IPSO_W (IPSO_D == 1 ? 2ull : 4ull * ((IPSO_D + 1) / 2))     /* random words per iteration */

/* Scalars of the run, set once by the host. */
__constant__ ipso_consts K;

#if IPSO_UNIFORM
#define LO(d) ((real)(IPSO_LO))
#define HI(d) ((real)(IPSO_HI))
#define SPAN(d) ((real)(IPSO_SPAN))
#define VMAX(d) ((real)(IPSO_VMAX))
#else
#define LO(d) (__ldg(K.lo + (d)))
#define HI(d) (__ldg(K.hi + (d)))
#define SPAN(d) (__ldg(K.span + (d)))
#define VMAX(d) (__ldg(K.vmax + (d)))
#endif

IPSO_HD real u01(unsigned int w)
{
  /* curand_uniform_double / curand_uniform of one word. */
  if (sizeof(real) == sizeof(double)) return (real)((double)w * 0x1p-32 + 0x1p-32);
  return (real)((float)w * 0x1p-32f + 0x1p-33f);
}

/* The Philox block holding the random words of dimensions 2k, 2k+1 of
 * particle I at iteration T (in 1-D: the iteration's two words in .x, .y). */
IPSO_HD uint4 rng_block(long long i, long long t, int k)
{
  unsigned long long off = (unsigned long long)t * IPSO_W + 4ull * (unsigned long long)k;
  unsigned long long blk = off >> 2;
  uint4 ctr = make_uint4((unsigned int)blk, (unsigned int)(blk >> 32), (unsigned int)i, K.island);
  uint2 key = make_uint2((unsigned int)K.seed, (unsigned int)(K.seed >> 32));
  uint4 r = curand_Philox4x32_10(ctr, key);
  if (IPSO_D == 1 && (off & 2)) {
    r.x = r.z;
    r.y = r.w;
  }
  return r;
}

/* Lexicographic order of (cost, index): lower cost first, then lower index. */
IPSO_HD bool lex_less(real c1, long long i1, real c2, long long i2)
{
  return c1 < c2 || (c1 == c2 && i1 < i2);
}

/* A cost as an unsigned key in the same order (-0 taken as +0; costs are
 * never NaN), for atomicMin. */
IPSO_HD unsigned long long cost_key(real c)
{
  unsigned long long b = (unsigned long long)__double_as_longlong((double)c + 0.0);
  return (b >> 63) ? ~b : b | 0x8000000000000000ull;
}

/* The PSO update of one coordinate D (same operations as the CPU backend). */
IPSO_HD void update_coord(real &x, real &v, real p, real g, unsigned int wa, unsigned int wb, int d)
{
  real a = K.c1 * u01(wa);
  real b = K.c2 * u01(wb);
  real vn = fma(K.w, v, fma(a, p - x, b * (g - x)));
  real vm = VMAX(d);
  vn = vn > vm ? vm : (vn < -vm ? -vm : vn);
  real xn = x + vn;
  real lo = LO(d), hi = HI(d);
  if (xn < lo) {
    xn = lo;
    vn = (real)0;
  } else if (xn > hi) {
    xn = hi;
    vn = (real)0;
  }
  x = xn;
  v = vn;
}

/* The initial coordinate D from the two words of iteration 0. */
IPSO_HD void init_coord(real &x, real &v, unsigned int wa, unsigned int wb, int d)
{
  real lo = LO(d), hi = HI(d);
  real xd = fma(SPAN(d), u01(wa), lo);
  x = xd < lo ? lo : (xd > hi ? hi : xd);
  v = VMAX(d) * ((real)2 * u01(wb) - (real)1);
}

/* Vector loads and stores of IPSO_V elements. */
template <int V> struct vec;
template <> struct vec<1> {
  IPSO_HD void load(const real *a, real *r)
  {
    r[0] = a[0];
  }
  IPSO_HD void store(real *a, const real *r)
  {
    a[0] = r[0];
  }
};
template <> struct vec<2> {
  IPSO_HD void load(const real *a, real *r)
  {
    if (sizeof(real) == 8) {
      double2 t = *(const double2 *)a;
      r[0] = (real)t.x, r[1] = (real)t.y;
    } else {
      float2 t = *(const float2 *)a;
      r[0] = (real)t.x, r[1] = (real)t.y;
    }
  }
  IPSO_HD void store(real *a, const real *r)
  {
    if (sizeof(real) == 8)
      *(double2 *)a = make_double2((double)r[0], (double)r[1]);
    else
      *(float2 *)a = make_float2((float)r[0], (float)r[1]);
  }
};
template <> struct vec<4> {
  IPSO_HD void load(const real *a, real *r)
  {
    if (sizeof(real) == 8) {
      double2 s = *(const double2 *)a, t = *(const double2 *)(a + 2);
      r[0] = (real)s.x, r[1] = (real)s.y, r[2] = (real)t.x, r[3] = (real)t.y;
    } else {
      float4 t = *(const float4 *)a;
      r[0] = (real)t.x, r[1] = (real)t.y, r[2] = (real)t.z, r[3] = (real)t.w;
    }
  }
  IPSO_HD void store(real *a, const real *r)
  {
    if (sizeof(real) == 8) {
      *(double2 *)a = make_double2((double)r[0], (double)r[1]);
      *(double2 *)(a + 2) = make_double2((double)r[2], (double)r[3]);
    } else {
      *(float4 *)a = make_float4((float)r[0], (float)r[1], (float)r[2], (float)r[3]);
    }
  }
};

/* Shared memory of a block, reused by the phases of a kernel. */
struct block_shared {
  int q_n;        /* candidates queued */
  int win, stale; /* lock holder's decisions, for the block */
  long long win_idx;
  real q_cost[IPSO_PPB]; /* the queue: cost and particle index */
  long long q_idx[IPSO_PPB];
  real red_cost[IPSO_BLOCK / 32]; /* block reductions */
  long long red_idx[IPSO_BLOCK / 32];
#if IPSO_G > 32
  real acc[IPSO_PPB][IPSO_G / 32][2]; /* cross-warp objective accumulators */
#endif
};

/* Group-wide sum (or product) of a value over the IPSO_G threads of a
 * particle, in a fixed order, so every thread gets the same bits. */
IPSO_HD real group_combine(real a, bool product, block_shared &sh, int which)
{
#if IPSO_G > 1
  const int width = IPSO_G < 32 ? IPSO_G : 32;
  for (int off = width / 2; off > 0; off >>= 1) {
    real o = __shfl_xor_sync(0xffffffffu, a, off, width);
    a = product ? a * o : a + o;
  }
#endif
#if IPSO_G > 32
  int g = threadIdx.x / IPSO_G, w = (threadIdx.x % IPSO_G) / 32;
  if ((threadIdx.x & 31) == 0) sh.acc[g][w][which] = a;
  __syncthreads();
  a = sh.acc[g][0][which];
  for (int k = 1; k < IPSO_G / 32; k++)
    a = product ? a * sh.acc[g][k][which] : a + sh.acc[g][k][which];
  __syncthreads();
#endif
  return a;
}

/* The sign-adjusted cost of the particle whose new position is ROW (in
 * global memory; this thread holds its part in XS: chunk c, element k =
 * coordinate (c*G + lane)*V + k). Built-in and separable user objectives
 * are reduced across the group; any other user objective takes the whole
 * row and is evaluated by the group's first thread. ROW is read only after
 * the group's barrier, so every thread's stores to it are visible. */
IPSO_HD real group_cost(real (&xs)[IPSO_C][IPSO_V], const real *row, int lane, block_shared &sh)
{
#if IPSO_NEEDS_NEXT || IPSO_USER_ROW
#if IPSO_G > 32
  __syncthreads();
#else
  __syncwarp();
#endif
#endif
  real f;
#if IPSO_USER_ROW
  real mine = (real)0;
  if (lane == 0) mine = ipso_user_objective(row, IPSO_D, K.prm);
  f = group_combine(mine, false, sh, 0);
#else
  real s0 = (real)0, s1 = IPSO_ACC1 == IPSO_ACC_PRODUCT ? (real)1 : (real)0;
#pragma unroll
  for (int c = 0; c < IPSO_C; c++)
#pragma unroll
    for (int k = 0; k < IPSO_V; k++) {
      int d = (c * IPSO_G + lane) * IPSO_V + k;
      if (d >= IPSO_D) continue;
#if IPSO_NEEDS_NEXT
      real xn = d + 1 < IPSO_D ? row[d + 1] : (real)0;
#else
      real xn = (real)0;
#endif
      s0 += IPSO_CAT(IPSO_CAT(obj_, IPSO_OBJ), _t0)(xs[c][k], xn, d, IPSO_D, K.prm);
      if (IPSO_ACC1 == IPSO_ACC_SUM)
        s1 += IPSO_CAT(IPSO_CAT(obj_, IPSO_OBJ), _t1)(xs[c][k], d, K.prm);
      else if (IPSO_ACC1 == IPSO_ACC_PRODUCT)
        s1 *= IPSO_CAT(IPSO_CAT(obj_, IPSO_OBJ), _t1)(xs[c][k], d, K.prm);
    }
  s0 = group_combine(s0, false, sh, 0);
  if (IPSO_ACC1 != IPSO_ACC_NONE) s1 = group_combine(s1, IPSO_ACC1 == IPSO_ACC_PRODUCT, sh, 1);
  f = IPSO_CAT(IPSO_CAT(obj_, IPSO_OBJ), _final)(s0, s1, IPSO_D, K.prm);
#endif
  real cost = (real)(IPSO_SIGN)*f;
  return isnan(cost) ? (real)IPSO_INF : cost;
}

/* This thread's part of a particle's state, kept in registers across the
 * iterations of a resident launch when every block has one tile of
 * particles (particle_step<true>): the loads of position, velocity and
 * personal best are then paid once per launch instead of once per
 * iteration. Only for rows of few elements per thread (registers). */
struct particle_regs {
  real x[IPSO_C][IPSO_V], v[IPSO_C][IPSO_V], p[IPSO_C][IPSO_V];
  real pc;
};
#define IPSO_KEEP_OK (IPSO_C * IPSO_V <= IPSO_KEEP_MAX_ELEMENTS)

/* Updates particle I at iteration T against the global best position G:
 * new position and velocity, cost, personal best. Returns the cost and
 * whether the personal best improved (on every thread of the group).
 * KEEP: the state comes from R when HAVE (else from memory) and goes back
 * to R; memory is written as always. */
template <bool KEEP>
IPSO_HD real particle_step(const swarm_ptrs &s, long long i, long long t, const real *g, int lane,
                           bool active, block_shared &sh, bool &improved, particle_regs &r,
                           bool have)
{
  real xs[IPSO_C][IPSO_V];
  size_t row = (size_t)i * IPSO_PITCH;
#pragma unroll
  for (int c = 0; c < IPSO_C; c++) {
    int base = (c * IPSO_G + lane) * IPSO_V;
    if (base >= IPSO_D) continue;
    real x[IPSO_V], v[IPSO_V], p[IPSO_V], gg[IPSO_V];
    if (KEEP && have) {
#pragma unroll
      for (int k = 0; k < IPSO_V; k++) x[k] = r.x[c][k], v[k] = r.v[c][k], p[k] = r.p[c][k];
    } else {
      vec<IPSO_V>::load(s.x + row + base, x);
      vec<IPSO_V>::load(s.v + row + base, v);
      vec<IPSO_V>::load(s.p + row + base, p);
    }
#pragma unroll
    for (int k = 0; k < IPSO_V; k++) gg[k] = base + k < IPSO_D ? g[base + k] : (real)0;
#pragma unroll
    for (int k = 0; k < IPSO_V; k += 2) {
      uint4 r = rng_block(i, t, (base + k) / 2);
      if (base + k < IPSO_D) update_coord(x[k], v[k], p[k], gg[k], r.x, r.y, base + k);
      if (IPSO_V > 1 && base + k + 1 < IPSO_D)
        update_coord(x[k + 1], v[k + 1], p[k + 1], gg[k + 1], r.z, r.w, base + k + 1);
    }
    if (active) {
      vec<IPSO_V>::store(s.x + row + base, x);
      vec<IPSO_V>::store(s.v + row + base, v);
    }
#pragma unroll
    for (int k = 0; k < IPSO_V; k++) {
      xs[c][k] = x[k];
      if (KEEP) r.x[c][k] = x[k], r.v[c][k] = v[k], r.p[c][k] = p[k];
    }
  }
  /* Read before group_cost, whose shuffles (or, for a group of several
   * warps, block barriers) every thread of the group passes before lane 0
   * can write the new personal-best cost below: read after it, a warp of
   * the group that is behind could see the new cost, take the particle for
   * not improved, and leave its part of the personal-best row unwritten. */
  real pc = KEEP && have ? r.pc : s.pcost[i];
  real cost = group_cost(xs, s.x + row, lane, sh);
  improved = cost < pc;
  if (KEEP) {
    r.pc = improved ? cost : pc;
    if (improved)
#pragma unroll
      for (int c = 0; c < IPSO_C; c++)
#pragma unroll
        for (int k = 0; k < IPSO_V; k++) r.p[c][k] = xs[c][k];
  }
  if (active) {
    if (improved) {
#pragma unroll
      for (int c = 0; c < IPSO_C; c++) {
        int base = (c * IPSO_G + lane) * IPSO_V;
        if (base < IPSO_D) vec<IPSO_V>::store(s.p + row + base, xs[c]);
      }
    }
    if (lane == 0) {
      s.cost[i] = cost;
      if (improved) s.pcost[i] = cost;
    }
  }
  return improved ? cost : pc;
}

/* Block-wide lexicographic minimum of (cost, index); the result is valid in
 * thread 0. */
IPSO_HD void block_lexmin(real &c, long long &i, block_shared &sh)
{
  for (int off = 16; off > 0; off >>= 1) {
    real oc = __shfl_down_sync(0xffffffffu, c, off);
    long long oi = __shfl_down_sync(0xffffffffu, i, off);
    if (lex_less(oc, oi, c, i)) c = oc, i = oi;
  }
  int w = threadIdx.x / 32;
  if ((threadIdx.x & 31) == 0) sh.red_cost[w] = c, sh.red_idx[w] = i;
  __syncthreads();
  if (threadIdx.x == 0)
    for (int k = 1; k < IPSO_BLOCK / 32; k++)
      if (lex_less(sh.red_cost[k], sh.red_idx[k], c, i)) c = sh.red_cost[k], i = sh.red_idx[k];
  __syncthreads();
}

/* Spins for the lock with a short back-off, so waiting blocks do not flood
 * the L2 slice that holds it while the owner works. */
IPSO_HD void lock_acquire(int *lock)
{
  while (atomicCAS(lock, 0, 1) != 0) __nanosleep(100);
  __threadfence();
}

IPSO_HD void lock_release(int *lock)
{
  __threadfence();
  atomicExch(lock, 0);
}

/* Thread 0: the best candidate of the block's queue (index -1 if empty). */
IPSO_HD void queue_best(const block_shared &sh, real &bc, long long &bi)
{
  bc = (real)IPSO_INF;
  bi = -1;
  for (int k = 0; k < sh.q_n; k++)
    if (bi < 0 || lex_less(sh.q_cost[k], sh.q_idx[k], bc, bi)) bc = sh.q_cost[k], bi = sh.q_idx[k];
}

/* Queue-lock publication of the block's best candidate (BC, BI; BI < 0:
 * none), valid in thread 0. A candidate strictly worse than any cost the
 * slot has held is dropped without the lock (slot costs only decrease), and
 * so is one strictly worse than a cost another block has offered (that
 * offer, or a better one, ends in the slot): each offer lowers the slot's
 * hint by atomicMin, and only a block whose cost is not above the hint it
 * replaced goes on. Of k candidate blocks arriving in random order that
 * leaves about ln k queueing for the lock instead of up to k (the gain is
 * measured in BENCHMARKS.md). Otherwise the block takes the slot's lock,
 * compares with the slot (or, when the slot still holds an older
 * iteration's best, with the previous best GPREV), and if it wins copies
 * the position and publishes cost and index. FORWARD makes the block also
 * bring a stale slot up to GPREV (one launch per iteration: block 0, so the
 * slot always ends with the best of iteration T). */
IPSO_HD void publish_queue_lock(const swarm_ptrs &s, long long t, int cur, real gprev_c,
                                long long gprev_i, const real *gprev_pos, real bc, long long bi,
                                bool forward, block_shared &sh, double *hist_slot)
{
  gbest_slot *slot = s.gb + cur;
  if (threadIdx.x == 0) {
    volatile gbest_slot *vs = slot;
    bool take = bi >= 0 && !(bc > vs->cost);
    if (take) {
      unsigned long long key = cost_key(bc);
      take = atomicMin(&slot->hint, key) >= key;
    }
    take = take || forward;
    sh.win = 0;
    sh.stale = 0;
    if (take) {
      lock_acquire(&slot->lock);
      int stale = !IPSO_RELAXED && vs->tag != t;
      real cc = stale ? gprev_c : vs->cost;
      long long ci = stale ? gprev_i : vs->idx;
      sh.stale = stale;
      sh.win = bi >= 0 && lex_less(bc, bi, cc, ci);
      sh.win_idx = bi;
      if (sh.win) cc = bc, ci = bi;
      sh.q_cost[0] = cc; /* what the slot will hold */
      sh.q_idx[0] = ci;
      if (!sh.win && !stale) lock_release(&slot->lock);
    }
  }
  __syncthreads();
  if (!sh.win && !sh.stale) return;
  real *dst = s.gpos + (size_t)cur * IPSO_PITCH;
  if (sh.win) {
    const real *src = s.p + (size_t)sh.win_idx * IPSO_PITCH;
    for (int d = threadIdx.x; d < IPSO_D; d += IPSO_BLOCK) dst[d] = src[d];
  } else {
    for (int d = threadIdx.x; d < IPSO_D; d += IPSO_BLOCK) dst[d] = gprev_pos[d];
  }
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    volatile gbest_slot *vs = slot;
    vs->cost = sh.q_cost[0];
    vs->idx = sh.q_idx[0];
    __threadfence();
    vs->tag = t;
    if (hist_slot) *hist_slot = (double)sh.q_cost[0];
    lock_release(&slot->lock);
  }
}

/* Programmatic dependent launch (one launch per iteration, sm_90): wait
 * until the previous grid of the stream has completed and its writes are
 * visible, then let the next grid be scheduled while this one runs, so its
 * launch overlaps this grid's tail. No-ops for a launch without the
 * attribute. */
IPSO_HD void pdl_start()
{
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}

/* One iteration T of the swarm: update, evaluate, personal bests, and the
 * global best by VARIANT: 0 queue-lock (fused, one launch), 1 queue (block
 * candidates to slots, reduce_kernel next), 2 reduction (block tree
 * reduction of every personal best to slots, reduce_kernel next). */
template <int VARIANT> __device__ void step(swarm_ptrs s, long long t, long long first)
{
  __shared__ block_shared sh;
  pdl_start();
  int lane = threadIdx.x % IPSO_G;
  long long i = (long long)blockIdx.x * IPSO_PPB + threadIdx.x / IPSO_G;
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
  __syncthreads();
  bool improved;
  particle_regs none;
  real pc = particle_step<false>(s, i, t, g, lane, active, sh, improved, none, false);
  if (VARIANT == 2) {
    real c = active ? pc : (real)IPSO_INF;
    long long idx = active ? i : IPSO_NONE;
    if (lane != 0) c = (real)IPSO_INF, idx = IPSO_NONE;
    block_lexmin(c, idx, sh);
    if (threadIdx.x == 0) s.slot_cost[blockIdx.x] = c, s.slot_idx[blockIdx.x] = idx;
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
      s.slot_cost[blockIdx.x] = bc;
      s.slot_idx[blockIdx.x] = bi;
    }
    return;
  }
  real bc;
  long long bi;
  if (threadIdx.x == 0) queue_best(sh, bc, bi);
  publish_queue_lock(s, t, cur, gc, gi, g, bc, bi, !IPSO_RELAXED && blockIdx.x == 0, sh,
                     s.hist + (t - first));
}

extern "C" __global__ void __launch_bounds__(IPSO_BLOCK)
    step_queue_lock_kernel(swarm_ptrs s, long long t, long long first)
{
  step<0>(s, t, first);
}

extern "C" __global__ void __launch_bounds__(IPSO_BLOCK)
    step_queue_kernel(swarm_ptrs s, long long t, long long first)
{
  step<1>(s, t, first);
}

extern "C" __global__ void __launch_bounds__(IPSO_BLOCK)
    step_reduction_kernel(swarm_ptrs s, long long t, long long first)
{
  step<2>(s, t, first);
}

/* The resident kernels keep the best position in shared memory: only for
 * rows up to IPSO_RESIDENT_MAX_D coordinates (kernels/gpu_abi.h). */
#if IPSO_D <= IPSO_RESIDENT_MAX_D
/* Global-memory loads that bypass L1, for what other blocks wrote. */
template <typename T> IPSO_HD T ld_l2(const T *p)
{
  return __ldcg(p);
}

/* A barrier over every block of the grid, which must be co-resident (the
 * host launches it cooperatively): BAR[0] counts arrivals, BAR[1] is the
 * generation the waiting blocks watch. */
IPSO_HD void grid_barrier(unsigned int *bar)
{
  __syncthreads();
  if (threadIdx.x == 0) {
    volatile unsigned int *gen = bar + 1;
    unsigned int g = *gen;
    __threadfence();
    if (atomicAdd(bar, 1u) == gridDim.x - 1) {
      atomicExch(bar, 0u);
      __threadfence();
      atomicAdd(bar + 1, 1u);
    } else {
      while (*gen == g) {
      }
    }
    __threadfence();
  }
  __syncthreads();
}

/* The hardware barrier of a thread-block cluster (the whole grid is one
 * cluster), with release/acquire ordering of memory at cluster scope. */
IPSO_HD void cluster_barrier()
{
  asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
               "barrier.cluster.wait.acquire.aligned;" ::
                   : "memory");
}

/* Iterations FIRST..LAST in one launch. Every block stays resident for the
 * whole launch and loops over its tiles of particles, so the launch cost is
 * paid once per segment instead of once per iteration.
 *
 * Strict, SCOPE 1 (the swarm fits one thread-block cluster, which is the
 * grid): a block with a candidate publishes it under the global-memory
 * slot's lock (publish_queue_lock); after the cluster's hardware barrier
 * every block reads the slot of iteration t if it was written, and keeps
 * the best of t-1 otherwise.
 *
 * Strict, SCOPE 2 (any co-resident grid): the global-memory slots and
 * grid_barrier, a software barrier.
 *
 * Relaxed: no barrier; blocks run ahead; each iteration uses the live best
 * read during the previous one (the load is issued before the particles
 * are updated, so its latency is hidden), possibly while a writer updates
 * it.
 *
 * KEEP: every block has at most one tile, whose state stays in registers
 * from one iteration to the next (particle_regs). */
template <int SCOPE, bool KEEP>
__device__ void resident(swarm_ptrs s, long long first, long long last, unsigned int *bar)
{
  __shared__ block_shared sh;
  __shared__ real gs[IPSO_PITCH];
  __shared__ real g_cost;
  __shared__ long long g_idx;
  int lane = threadIdx.x % IPSO_G;
  long long tiles = (K.n + IPSO_PPB - 1) / IPSO_PPB;
  particle_regs keep; /* KEEP: one tile per block, its state across iterations */
  int start = IPSO_RELAXED ? 0 : (int)((first - 1) & 1);
  if (threadIdx.x == 0) {
    g_cost = ld_l2(&s.gb[start].cost);
    g_idx = ld_l2(&s.gb[start].idx);
  }
  for (int d = threadIdx.x; d < IPSO_D; d += IPSO_BLOCK)
    gs[d] = ld_l2(s.gpos + (size_t)start * IPSO_PITCH + d);
  __syncthreads();
  for (long long t = first; t <= last; t++) {
    int cur = IPSO_RELAXED ? 0 : (int)(t & 1);
    real gc = g_cost;
    long long gi = g_idx;
    /* Relaxed: start reading the live best for the next iteration now. */
    real next_c = gc, next_g = (real)0;
    long long next_i = gi;
    if (IPSO_RELAXED) {
      volatile gbest_slot *live = s.gb;
      if (threadIdx.x == 0) next_c = live->cost, next_i = live->idx;
      if (threadIdx.x < IPSO_D) next_g = ((volatile real *)s.gpos)[threadIdx.x];
    }
    real bc = (real)IPSO_INF;
    long long bi = -1;
    for (long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
      if (threadIdx.x == 0) sh.q_n = 0;
      __syncthreads();
      long long i = tile * IPSO_PPB + threadIdx.x / IPSO_G;
      bool active = i < K.n;
      if (!active) i = K.n - 1;
      bool improved;
      real pc = particle_step<KEEP>(s, i, t, gs, lane, active, sh, improved, keep, t > first);
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
    if (IPSO_RELAXED) {
      publish_queue_lock(s, t, cur, gc, gi, gs, bc, bi, false, sh, NULL);
      if (threadIdx.x == 0) g_cost = next_c, g_idx = next_i;
      if (threadIdx.x < IPSO_D) gs[threadIdx.x] = next_g;
      for (int d = threadIdx.x + IPSO_BLOCK; d < IPSO_D; d += IPSO_BLOCK)
        gs[d] = ((volatile real *)s.gpos)[d];
    } else {
      publish_queue_lock(s, t, cur, gc, gi, gs, bc, bi, false, sh, NULL);
      if (SCOPE == 1)
        cluster_barrier();
      else
        grid_barrier(bar);
      if (threadIdx.x == 0) {
        sh.win = ld_l2(&s.gb[cur].tag) == t;
        if (sh.win) {
          g_cost = ld_l2(&s.gb[cur].cost);
          g_idx = ld_l2(&s.gb[cur].idx);
        }
      }
      __syncthreads();
      if (sh.win)
        for (int d = threadIdx.x; d < IPSO_D; d += IPSO_BLOCK)
          gs[d] = ld_l2(s.gpos + (size_t)cur * IPSO_PITCH + d);
    }
    __syncthreads();
    if (blockIdx.x == 0 && threadIdx.x == 0) s.hist[t - first] = (double)g_cost;
  }
  if (!IPSO_RELAXED && blockIdx.x == 0) {
    /* Leave slot LAST&1 holding the final best, as one launch per iteration would. */
    int cur = (int)(last & 1);
    if (threadIdx.x == 0) sh.stale = ld_l2(&s.gb[cur].tag) != last;
    __syncthreads();
    if (sh.stale) {
      for (int d = threadIdx.x; d < IPSO_D; d += IPSO_BLOCK)
        s.gpos[(size_t)cur * IPSO_PITCH + d] = gs[d];
      __threadfence();
      __syncthreads();
      if (threadIdx.x == 0) {
        volatile gbest_slot *vs = s.gb + cur;
        vs->cost = g_cost;
        vs->idx = g_idx;
        __threadfence();
        vs->tag = last;
      }
    }
  }
}

#define IPSO_RESIDENT_KERNEL(NAME, SCOPE, KEEP)                                                    \
  extern "C" __global__ void __launch_bounds__(IPSO_BLOCK)                                         \
      NAME(swarm_ptrs s, long long first, long long last, unsigned int *bar)                       \
  {                                                                                                \
    resident<SCOPE, KEEP>(s, first, last, bar);                                                    \
  }
IPSO_RESIDENT_KERNEL(resident_cluster_kernel, 1, false)
IPSO_RESIDENT_KERNEL(resident_grid_kernel, 2, false)
/* With the state in registers: the host launches these when every block
 * has one tile and they fit (they use more registers). */
#if IPSO_KEEP_OK
IPSO_RESIDENT_KERNEL(resident_cluster_keep_kernel, 1, true)
IPSO_RESIDENT_KERNEL(resident_grid_keep_kernel, 2, true)
#endif

#endif

/* The global best of iteration T from NSLOTS per-block candidates and the
 * best of T-1 (slot (t-1)&1, unless FRESH: then from the slots alone); one
 * block. Writes slot t&1 (position copied) and hist[t - first]. */
extern "C" __global__ void __launch_bounds__(IPSO_BLOCK)
    reduce_kernel(swarm_ptrs s, int nslots, long long t, long long first, int fresh)
{
  pdl_start();
  __shared__ block_shared sh;
  __shared__ long long win;
  int cur = IPSO_RELAXED ? 0 : (int)(t & 1), prev = IPSO_RELAXED ? 0 : (int)((t - 1) & 1);
  real c = (real)IPSO_INF;
  long long idx = IPSO_NONE;
  if (!fresh && threadIdx.x == 0) c = s.gb[prev].cost, idx = s.gb[prev].idx;
  for (int k = threadIdx.x; k < nslots; k += IPSO_BLOCK)
    if (s.slot_idx[k] >= 0 && lex_less(s.slot_cost[k], s.slot_idx[k], c, idx))
      c = s.slot_cost[k], idx = s.slot_idx[k];
  block_lexmin(c, idx, sh);
  if (threadIdx.x == 0) {
    win = idx;
    /* After a reload or a migration the other slot may hold a best that is
     * no longer in the swarm: mark it empty, so that no candidate is
     * compared with it. */
    if (fresh && !IPSO_RELAXED) {
      s.gb[prev].cost = (real)IPSO_INF;
      s.gb[prev].idx = IPSO_NONE;
      s.gb[prev].tag = -1;
      s.gb[prev].hint = ~0ull;
    }
  }
  __syncthreads();
  /* The winner's personal best is its position: copy it (stable: nothing
   * writes personal bests during this kernel). */
  const real *src = s.p + (size_t)win * IPSO_PITCH;
  real *dst = s.gpos + (size_t)cur * IPSO_PITCH;
  for (int d = threadIdx.x; d < IPSO_D; d += IPSO_BLOCK) dst[d] = src[d];
  if (threadIdx.x == 0) {
    s.gb[cur].cost = c;
    s.gb[cur].idx = win;
    s.gb[cur].hint = ~0ull; /* the swarm may have changed: no offer stands */
    s.gb[cur].tag = t;
    if (s.hist) s.hist[t - first] = (double)c;
  }
}

/* Iteration 0: initial positions and velocities, costs, personal bests, and
 * the block candidates for reduce_kernel. */
extern "C" __global__ void __launch_bounds__(IPSO_BLOCK) init_kernel(swarm_ptrs s)
{
  __shared__ block_shared sh;
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
      uint4 r = rng_block(i, 0, (base + k) / 2);
      if (base + k < IPSO_D) init_coord(x[k], v[k], r.x, r.y, base + k);
      if (IPSO_V > 1 && base + k + 1 < IPSO_D)
        init_coord(x[k + 1], v[k + 1], r.z, r.w, base + k + 1);
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
 * migration), for reduce_kernel with fresh = 1. */
extern "C" __global__ void __launch_bounds__(IPSO_BLOCK) candidates_kernel(swarm_ptrs s)
{
  __shared__ block_shared sh;
  long long i = (long long)blockIdx.x * IPSO_BLOCK + threadIdx.x;
  real c = i < K.n ? s.pcost[i] : (real)IPSO_INF;
  long long idx = i < K.n ? i : IPSO_NONE;
  block_lexmin(c, idx, sh);
  if (threadIdx.x == 0) s.slot_cost[blockIdx.x] = c, s.slot_idx[blockIdx.x] = idx;
}

/* The COUNT best (WORST = 0) or worst (WORST = 1) of N entries in the order
 * (cost, particle), or its reverse. Each block takes the entries
 * [blockIdx.x * CHUNK, +CHUNK) and writes its picks, in order, to
 * OUT[blockIdx.x * COUNT + m] and OUT_COST (particle -1: fewer entries than
 * COUNT); one pass per pick, each the next in the order after the previous.
 * INDEX gives the particle of each entry (NULL: the entry number), -1 entries
 * are skipped: so one launch over the personal bests and one single-block
 * launch over the blocks' picks select the swarm's COUNT best or worst. */
extern "C" __global__ void __launch_bounds__(IPSO_BLOCK)
    select_kernel(const real *cost, const long long *index, long long n, long long chunk, int worst,
                  int count, long long *out, real *out_cost)
{
  __shared__ block_shared sh;
  __shared__ real last_c;
  __shared__ long long last_i;
  long long lo = (long long)blockIdx.x * chunk, hi = lo + chunk < n ? lo + chunk : n;
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
      out[(long long)blockIdx.x * count + m] = win;
      out_cost[(long long)blockIdx.x * count + m] = win < 0 ? (real)IPSO_INF : wc;
      if (win >= 0) last_c = wc, last_i = win;
    }
    __syncthreads();
  }
}

/* Copies the personal-best rows IDX[0..count) into BUF rows (migrants out). */
extern "C" __global__ void gather_kernel(swarm_ptrs s, const long long *idx, int count, real *buf)
{
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
       e < (long long)count * IPSO_PITCH; e += (long long)gridDim.x * blockDim.x) {
    long long m = e / IPSO_PITCH, d = e % IPSO_PITCH;
    buf[e] = s.p[(size_t)idx[m] * IPSO_PITCH + d];
  }
}

/* Migrants in: particle IDX[m] (if >= 0) takes BUF row m as position and
 * personal best, COST[m] as cost, and zero velocity. */
extern "C" __global__ void scatter_kernel(swarm_ptrs s, const long long *idx, int count,
                                          const real *buf, const real *cost)
{
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
       e < (long long)count * IPSO_PITCH; e += (long long)gridDim.x * blockDim.x) {
    long long m = e / IPSO_PITCH, d = e % IPSO_PITCH;
    long long i = idx[m];
    if (i < 0) continue;
    size_t at = (size_t)i * IPSO_PITCH + d;
    s.x[at] = s.p[at] = buf[e];
    s.v[at] = (real)0;
    if (d == 0) s.cost[i] = s.pcost[i] = cost[m];
  }
}

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

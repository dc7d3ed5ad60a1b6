/* The device side of kernels/pso_kernels.cu: types, random numbers, the
 * coordinate update, the objective across a particle's threads, the
 * particle step, block reductions and the global best's publication. An
 * NVRTC named header, embedded into the binary (gpu_compile.c). */
#ifndef IPSO_PSO_DEVICE_CUH
#define IPSO_PSO_DEVICE_CUH

#include <curand_philox4x32_x.h>

typedef IPSO_REAL real;

#include "gpu_abi.h"

#define IPSO_INF (__longlong_as_double(0x7ff0000000000000ULL))

#define IPSO_HD static __device__ __forceinline__
#define IPSO_FN(name) obj_##name
#include "objectives.h"

#define IPSO_CAT2(a, b) a##b
#define IPSO_CAT(a, b) IPSO_CAT2(a, b)

#if IPSO_USER_SEPARABLE
/* A separable user objective in the built-ins' form: the sum over the
 * coordinates of ipso_user_term (the generated wrapper's). */
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
#define IPSO_USER_ROW (IPSO_USER || IPSO_CEC2017) /* the whole row, on one thread */
#endif

#define IPSO_PPB (IPSO_BLOCK / IPSO_G)                              /* particles per block */
#define IPSO_C ((IPSO_D + IPSO_G * IPSO_V - 1) / (IPSO_G * IPSO_V)) /* chunks per thread */
#define IPSO_W (IPSO_D == 1 ? 2ull : 4ull * ((IPSO_D + 1) / 2))     /* random words per iteration */

__constant__ ipso_consts K;

#if IPSO_CEC2017
/* The CEC 2017 function K.prm[0], its data packed after it: one compilation
 * for every function of a dimension and precision. */
#include "cec2017.h"
/* Not inlined and D hidden from the optimizer: one copy of the suite's
 * loops, not unrolled per call site (minutes of NVRTC otherwise). */
static __device__ __noinline__ real row_objective(const real *row)
{
  real scratch[CEC2017_SCRATCH(IPSO_D)];
  int D = IPSO_D;
  asm volatile("" : "+r"(D));
  return obj_cec2017_packed(row, D, K.prm, scratch);
}
#elif IPSO_USER_ROW
IPSO_HD real row_objective(const real *row)
{
  return ipso_user_objective(row, IPSO_D, K.prm);
}
#endif

/* Island K's part of the island-major swarm arrays (kernels/gpu_abi.h). */
IPSO_HD swarm_ptrs island_ptrs(swarm_ptrs s, unsigned int k)
{
  size_t rows = (size_t)k * (size_t)K.n;
  s.x += rows * IPSO_PITCH;
  s.v += rows * IPSO_PITCH;
  s.p += rows * IPSO_PITCH;
  s.cost += rows;
  s.pcost += rows;
  s.gb += (size_t)k * IPSO_GB_SLOTS;
  s.gpos += (size_t)k * IPSO_GB_SLOTS * IPSO_PITCH;
  if (s.slot_cost) s.slot_cost += (size_t)k * (size_t)s.slot_stride;
  if (s.slot_idx) s.slot_idx += (size_t)k * (size_t)s.slot_stride;
  if (s.hist) s.hist += (size_t)k * (size_t)s.hist_stride;
  if (s.lbest) s.lbest += rows * IPSO_PITCH;
  if (s.lidx) s.lidx += rows;
  if (s.pnew) s.pnew += rows;
  if (s.frame) s.frame += (size_t)k * IPSO_D * IPSO_D;
  return s;
}

/* The global id (random stream) of this per-iteration block's island;
 * such kernels that draw are launched over all the backend's islands. */
IPSO_HD unsigned int island_id()
{
  return K.island + blockIdx.y;
}

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

/* The velocity limit of coordinate D on island ISL (global id): the vmax
 * table's row ISL mod IPSO_NCLAMP (src/model/swarm.h). */
IPSO_HD real vmax_at(unsigned int isl, int d)
{
#if IPSO_NCLAMP > 1
  return __ldg(K.vmax + (size_t)(isl % IPSO_NCLAMP) * IPSO_PITCH + d);
#else
  (void)isl;
  return VMAX(d);
#endif
}

/* curand_uniform_double / curand_uniform of one word. */
IPSO_HD real u01(unsigned int w)
{
  if (sizeof(real) == sizeof(double)) return (real)((double)w * 0x1p-32 + 0x1p-32);
  return (real)((float)w * 0x1p-32f + 0x1p-33f);
}

/* The Philox words of dimensions 2k, 2k+1 of particle I of island ISL at
 * iteration T (in 1-D: the iteration's two words in .x, .y). */
IPSO_HD uint4 rng_block(unsigned int isl, long long i, long long t, int k)
{
  unsigned long long off = (unsigned long long)t * IPSO_W + 4ull * (unsigned long long)k;
  unsigned long long blk = off >> 2;
  uint4 ctr = make_uint4((unsigned int)blk, (unsigned int)(blk >> 32), (unsigned int)i, isl);
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

#if IPSO_CLPSO
/* clpso's draws as on the host (swarm_clpso_block, src/swarm.h): Philox
 * block 2^63 + E (D + 1) + d of particle I, above every rng_block. */
IPSO_HD uint4 clpso_block(unsigned int isl, long long i, long long e, int d)
{
  unsigned long long blk =
      (1ull << 63) + (unsigned long long)e * (IPSO_D + 1ull) + (unsigned long long)d;
  uint4 ctr = make_uint4((unsigned int)blk, (unsigned int)(blk >> 32), (unsigned int)i, isl);
  uint2 key = make_uint2((unsigned int)K.seed, (unsigned int)(K.seed >> 32));
  return curand_Philox4x32_10(ctr, key);
}

/* A particle other than I of N, uniform, from one random word. */
IPSO_HD long long clpso_other(unsigned int w, long long n, long long i)
{
  long long j = (long long)(((unsigned long long)w * (unsigned long long)(n - 1)) >> 32);
  return j >= i ? j + 1 : j;
}

/* Of particles J and K, the one with the lower (personal-best cost, index). */
IPSO_HD long long clpso_tournament(const real *pc, long long j, long long k)
{
  return lex_less(pc[k], k, pc[j], j) ? k : j;
}
#endif

/* A cost as an unsigned key in the same order (-0 taken as +0; costs are
 * never NaN), for atomicMin. */
IPSO_HD unsigned long long cost_key(real c)
{
  unsigned long long b = (unsigned long long)__double_as_longlong((double)c + 0.0);
  return (b >> 63) ? ~b : b | 0x8000000000000000ull;
}

/* The inertia of iteration T: K.w, or the linear schedule in double then
 * rounded, as swarm_inertia_at (src/swarm.h). */
IPSO_HD real inertia_at(long long t)
{
#if IPSO_INERTIA_END
  long long at = t < IPSO_TMAX ? t : IPSO_TMAX;
  return (real)(IPSO_W0 + (IPSO_W1 - IPSO_W0) * ((double)at / (double)IPSO_TMAX));
#else
  (void)t;
  return K.w;
#endif
}

/* Coordinate D after velocity VN: VN clamped to VM, the position kept in
 * the bounds (velocity zero where it stops at one); the CPU backend's move. */
IPSO_HD void move_coord(real &x, real &v, real vn, int d, real vm)
{
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

/* The PSO update of coordinate D with inertia W, random factors A = c1 u1,
 * B = c2 u2 and velocity limit VM (the CPU backend's operations). */
IPSO_HD void update_coord_ab(real &x, real &v, real p, real g, real a, real b, int d, real w,
                             real vm)
{
  move_coord(x, v, fma(w, v, fma(a, p - x, b * (g - x))), d, vm);
}

/* The same from the two random words WA, WB, on island ISL. */
IPSO_HD void update_coord(real &x, real &v, real p, real g, unsigned int wa, unsigned int wb, int d,
                          real w, unsigned int isl)
{
  update_coord_ab(x, v, p, g, K.c1 * u01(wa), K.c2 * u01(wb), d, w, vmax_at(isl, d));
}

/* The initial coordinate D of island ISL from the two words of iteration 0. */
IPSO_HD void init_coord(real &x, real &v, unsigned int wa, unsigned int wb, int d, unsigned int isl)
{
  real lo = LO(d), hi = HI(d);
  real xd = fma(SPAN(d), u01(wa), lo);
  x = xd < lo ? lo : (xd > hi ? hi : xd);
  v = vmax_at(isl, d) * ((real)2 * u01(wb) - (real)1);
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

/* Whether island ISL (global id) follows its mean: every island (IPSO_MEAN
 * 1) or islands 6 and 7 of every 8 (2), as swarm_mean_on. */
IPSO_HD bool mean_on(unsigned int isl)
{
  return IPSO_MEAN == 1 || (IPSO_MEAN == 2 && isl % 8u >= 6u);
}

#if IPSO_FRAME
/* Whether island ISL (global id) moves in its eigen frame: every island
 * (IPSO_FRAME 1) or the odd ones (2), as swarm_frame_eigen. */
IPSO_HD bool frame_on(unsigned int isl)
{
  return IPSO_FRAME == 1 || (isl & 1u) != 0;
}

/* The sum of A over the particle's threads, the same bits on each. */
IPSO_HD double group_sum(double a)
{
#if IPSO_G > 1
  for (int off = IPSO_G / 2; off > 0; off >>= 1) a += __shfl_xor_sync(0xffffffffu, a, off, IPSO_G);
#endif
  return a;
}

/* Moves this thread's coordinates of particle I of island ISL at iteration
 * T in the island's eigen frame B (s.frame, column q axis q): velocity
 * w v + B (a o B^T (p - x) + b o B^T (g - x)), a and b drawn per axis; the
 * new positions into XS. The CPU backend's frame_pull, each sum in its
 * order (with one thread a particle, the same bits). */
IPSO_HD void frame_move(const swarm_ptrs &s, unsigned int isl, long long i, long long t,
                        const real *g, int lane, bool active, real w, real (&xs)[IPSO_C][IPSO_V])
{
  const real *B = s.frame;
  const size_t row = (size_t)i * IPSO_PITCH;
  double ep[IPSO_C][IPSO_V], eg[IPSO_C][IPSO_V], u[IPSO_D];
#pragma unroll
  for (int c = 0; c < IPSO_C; c++) {
    int base = (c * IPSO_G + lane) * IPSO_V;
    real x[IPSO_V], p[IPSO_V];
    if (base < IPSO_D) {
      vec<IPSO_V>::load(s.x + row + base, x);
      vec<IPSO_V>::load(s.p + row + base, p);
    }
#pragma unroll
    for (int k = 0; k < IPSO_V; k++) {
      bool in = base + k < IPSO_D;
      xs[c][k] = base < IPSO_D ? x[k] : (real)0;
      ep[c][k] = in ? (double)(p[k] - x[k]) : 0.0;
      eg[c][k] = in ? (double)(g[base + k] - x[k]) : 0.0;
    }
  }
  /* u = a o B^T (p - x) + b o B^T (g - x), each axis's sums over the
   * coordinates in order. */
#pragma unroll 1
  for (int q = 0; q < IPSO_D; q++) {
    double yp = 0.0, yg = 0.0;
#pragma unroll
    for (int c = 0; c < IPSO_C; c++)
#pragma unroll
      for (int k = 0; k < IPSO_V; k++) {
        int d = (c * IPSO_G + lane) * IPSO_V + k;
        if (d >= IPSO_D) continue;
        double bq = (double)B[(size_t)d * IPSO_D + q];
        yp += bq * ep[c][k];
        yg += bq * eg[c][k];
      }
    yp = group_sum(yp);
    yg = group_sum(yg);
    uint4 r = rng_block(isl, i, t, q / 2);
    unsigned int wa = q & 1 ? r.z : r.x, wb = q & 1 ? r.w : r.y;
    u[q] = (double)(K.c1 * u01(wa)) * yp + (double)(K.c2 * u01(wb)) * yg;
  }
  double dv[IPSO_C][IPSO_V];
#pragma unroll
  for (int c = 0; c < IPSO_C; c++)
#pragma unroll
    for (int k = 0; k < IPSO_V; k++) dv[c][k] = 0.0;
#pragma unroll 1
  for (int q = 0; q < IPSO_D; q++) {
    double uq = u[q];
#pragma unroll
    for (int c = 0; c < IPSO_C; c++)
#pragma unroll
      for (int k = 0; k < IPSO_V; k++) {
        int d = (c * IPSO_G + lane) * IPSO_V + k;
        if (d < IPSO_D) dv[c][k] += (double)B[(size_t)d * IPSO_D + q] * uq;
      }
  }
#pragma unroll
  for (int c = 0; c < IPSO_C; c++) {
    int base = (c * IPSO_G + lane) * IPSO_V;
    if (base >= IPSO_D) continue;
    real v[IPSO_V];
    vec<IPSO_V>::load(s.v + row + base, v);
#pragma unroll
    for (int k = 0; k < IPSO_V; k++)
      if (base + k < IPSO_D)
        move_coord(xs[c][k], v[k], fma(w, v[k], (real)dv[c][k]), base + k, vmax_at(isl, base + k));
    if (active) {
      vec<IPSO_V>::store(s.x + row + base, xs[c]);
      vec<IPSO_V>::store(s.v + row + base, v);
    }
  }
}
#endif

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

/* Sum (or product) over a particle's IPSO_G threads in a fixed order: the
 * same bits on every thread. */
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

/* The sign-adjusted objective of the particle at ROW (global memory; XS:
 * this thread's part, element k of chunk c = coordinate (c*G + lane)*V + k):
 * terms reduced across the group, or a whole-row objective on lane 0. ROW
 * is read only after the group's barrier, which makes its stores visible. */
IPSO_HD real group_value(real (&xs)[IPSO_C][IPSO_V], const real *row, int lane, block_shared &sh)
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
  if (lane == 0) mine = row_objective(row);
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
  return (real)(IPSO_SIGN)*f;
}

/* group_value with NaN as +infinity: the cost stored and compared. */
IPSO_HD real group_cost(real (&xs)[IPSO_C][IPSO_V], const real *row, int lane, block_shared &sh)
{
  real cost = group_value(xs, row, lane, sh);
  return isnan(cost) ? (real)IPSO_INF : cost;
}

/* Moves particle I of island ISL at iteration T towards G and evaluates
 * it; returns its personal-best cost and IMPROVED (on every thread). */
IPSO_HD real particle_step(const swarm_ptrs &s, unsigned int isl, long long i, long long t,
                           const real *g, int lane, bool active, block_shared &sh, bool &improved)
{
  real xs[IPSO_C][IPSO_V];
  size_t row = (size_t)i * IPSO_PITCH;
  const real w = inertia_at(t);
#if IPSO_FRAME
  if (frame_on(isl))
    frame_move(s, isl, i, t, g, lane, active, w, xs);
  else
#endif
#pragma unroll
    for (int c = 0; c < IPSO_C; c++) {
      int base = (c * IPSO_G + lane) * IPSO_V;
      if (base >= IPSO_D) continue;
      real x[IPSO_V], v[IPSO_V], p[IPSO_V], gg[IPSO_V];
      vec<IPSO_V>::load(s.x + row + base, x);
      vec<IPSO_V>::load(s.v + row + base, v);
      vec<IPSO_V>::load(s.p + row + base, p);
#pragma unroll
      for (int k = 0; k < IPSO_V; k++) gg[k] = base + k < IPSO_D ? g[base + k] : (real)0;
#pragma unroll
      for (int k = 0; k < IPSO_V; k += 2) {
        uint4 r = rng_block(isl, i, t, (base + k) / 2);
        if (base + k < IPSO_D) update_coord(x[k], v[k], p[k], gg[k], r.x, r.y, base + k, w, isl);
        if (IPSO_V > 1 && base + k + 1 < IPSO_D)
          update_coord(x[k + 1], v[k + 1], p[k + 1], gg[k + 1], r.z, r.w, base + k + 1, w, isl);
      }
      if (active) {
        vec<IPSO_V>::store(s.x + row + base, x);
        vec<IPSO_V>::store(s.v + row + base, v);
      }
#pragma unroll
      for (int k = 0; k < IPSO_V; k++) xs[c][k] = x[k];
    }
  /* Read before group_cost's shuffles (or barriers), which every thread
   * passes before lane 0 writes the new cost: read after, a lagging warp
   * could see it, take the particle for not improved and leave its part of
   * the personal-best row unwritten. */
  real pc = s.pcost[i];
  real cost = group_cost(xs, s.x + row, lane, sh);
  improved = cost < pc;
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

/* Block-wide lexicographic minimum of (cost, index), valid in thread 0. */
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

/* Spins with a back-off so waiters do not flood the lock's L2 slice. The
 * CAS's acquire orders the holder's reads; a fence would also wait for the
 * thread's stores in flight (its particles' rows). */
IPSO_HD void lock_acquire(int *lock)
{
  int old;
  for (;;) {
    asm volatile("atom.acquire.gpu.global.cas.b32 %0, [%1], 0, 1;"
                 : "=r"(old)
                 : "l"(lock)
                 : "memory");
    if (old == 0) return;
    __nanosleep(100);
  }
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
 * none; thread 0's). Dropped without the lock if worse than the slot (its
 * cost only decreases) or than another block's offer: each offer lowers
 * the slot's hint by atomicMin and goes on only if not above the hint it
 * replaced, so of k blocks in random order about ln k queue, not k. Under
 * the lock, compared with the slot (or GPREV while the slot holds an older
 * iteration's best); a winner copies its position, cost and index. FORWARD:
 * also bring a stale slot up to GPREV, so it ends with the best of T. */
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
  /* Relaxed: live readers take the slot without the lock, so row before
   * cost before tag. Strict: only the lock's holders read the slot
   * (ordered by the lock), and the row after the kernel's end or a barrier;
   * fences would only lengthen the chain every publisher waits on. */
  if (IPSO_RELAXED) __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    volatile gbest_slot *vs = slot;
    vs->cost = sh.q_cost[0];
    vs->idx = sh.q_idx[0];
    if (IPSO_RELAXED) __threadfence();
    vs->tag = t;
    if (hist_slot) *hist_slot = (double)sh.q_cost[0];
    lock_release(&slot->lock);
  }
}

/* Programmatic dependent launch (sm_90): wait for the previous grid's
 * writes, then let the next grid launch during this one's tail. No-ops
 * without the launch attribute. */
IPSO_HD void pdl_start()
{
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}

#endif

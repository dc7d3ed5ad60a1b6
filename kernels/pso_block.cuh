/* The one-block kernel of strict queue-lock swarms (kernels/pso_kernels.cu
 * includes it where the host asks for it: IPSO_BLK_THREADS > 0, strict,
 * global topology): every island in one block (island blockIdx.y), every
 * iteration of a segment in one launch, the particles' state in registers
 * (IPSO_BLK_PPT particles per group of IPSO_G threads; particle
 * j * IPSO_BLK_GROUPS + group), the island's global best in registers and
 * shared memory. Same bits as the other strict kernels: the same Philox
 * words (rng_block), the same operations (update_coord_ab, group_value),
 * and the best of iteration t the lowest (cost, index) of the best of t-1
 * and the particles that improved on it, as publish_queue_lock decides.
 *
 * Per iteration: the update of the thread's particles with the random
 * words drawn during the previous iteration; a flag when a personal best
 * improved to at most the best's cost; in a warp with such a particle (rare
 * once the swarm has settled) the exact test of the candidates, their
 * lowest (cost, index) by shuffles into shared memory and the winner's row
 * beside it; the next iteration's random words (they do not depend on the
 * best); one barrier, which also tells whether any warp found a candidate
 * (__syncthreads_or); only then every warp reduces the warps' entries
 * (shuffles) and reads the winner's row. The entries are double buffered by
 * iteration parity, so one barrier per iteration orders the writes of
 * iteration t + 2 after the reads of iteration t. */
#ifndef IPSO_PSO_BLOCK_CUH
#define IPSO_PSO_BLOCK_CUH

#define IPSO_BLK_GROUPS (IPSO_BLK_THREADS / IPSO_G) /* particles per slice of the block */
#define IPSO_BLK_WARPS (IPSO_BLK_THREADS / 32)
#define IPSO_BLK_NONE 0x7fffffff /* no candidate */

static_assert(IPSO_BLK_THREADS % 32 == 0 && IPSO_BLK_THREADS <= IPSO_BLK_MAX_THREADS &&
                  IPSO_G <= 32 && IPSO_BLK_PPT >= 1,
              "one-block kernel: shape");
static_assert(IPSO_BLK_WARPS * IPSO_PITCH <= IPSO_BLK_MAX_ROW_ELEMENTS,
              "one-block kernel: candidate rows");

/* The warps' candidates of the last two iterations (by parity): lowest
 * (cost, particle) of each warp (IPSO_BLK_NONE: none) and its position. */
struct block_one_shared {
  real cost[2][IPSO_BLK_WARPS];
  int idx[2][IPSO_BLK_WARPS];
  real row[2][IPSO_BLK_WARPS][IPSO_PITCH];
};

/* The random factor C * u01(W). SCALED (double, C = 0 or C >= 2^-960): CS *
 * (W + 1) with CS = C * 2^-32, the same number: u01(W) = (W + 1) * 2^-32
 * exactly, and a power of two leaves the rounding of a product that stays
 * normal unchanged. W + 1 is built without a conversion instruction (a
 * quarter of the FP64 rate): the bits of 2^52 + W, minus 2^52 - 1, both
 * exact. One subtraction and one product instead of a conversion, a product,
 * a sum and a product. */
template <bool SCALED> IPSO_HD real rand_factor(real c, real cs, unsigned int w)
{
  if (SCALED) {
    double m = __hiloint2double(0x43300000, (int)w) - 4503599627370495.0;
    return (real)((double)cs * m);
  }
  return c * u01(w);
}

/* The random words of iteration T for the thread's particles (particle j =
 * j * IPSO_BLK_GROUPS + GRP; this thread's coordinates: WA[j][c][k],
 * WB[j][c][k]). In 1-D one Philox block holds two iterations' words: an
 * even iteration keeps the odd one's in SPARE, which an odd iteration after
 * the first of the launch (FIRST) takes; the choice is the same for the
 * whole block, so it is made once for all particles (one branch, and the
 * particles' Philox blocks interleaved in it). */
IPSO_HD void draw_words(unsigned int isl, int grp, long long t, long long first, int lane,
                        uint2 (&spare)[IPSO_BLK_PPT],
                        unsigned int (&wa)[IPSO_BLK_PPT][IPSO_C][IPSO_V],
                        unsigned int (&wb)[IPSO_BLK_PPT][IPSO_C][IPSO_V])
{
  if (IPSO_D == 1) {
    /* Lane 0 of the group holds the coordinate. An if/else rather than an
     * early return, which made NVRTC warn of unreachable code below. */
    if (lane == 0 && (t & 1) && t > first) {
#pragma unroll
      for (int j = 0; j < IPSO_BLK_PPT; j++) wa[j][0][0] = spare[j].x, wb[j][0][0] = spare[j].y;
    } else if (lane == 0) {
#pragma unroll
      for (int j = 0; j < IPSO_BLK_PPT; j++) {
        uint4 r = rng_block(isl, j * IPSO_BLK_GROUPS + grp, t, 0);
        wa[j][0][0] = r.x;
        wb[j][0][0] = r.y;
        spare[j] = make_uint2(r.z, r.w);
      }
    }
  } else {
#pragma unroll
    for (int j = 0; j < IPSO_BLK_PPT; j++)
#pragma unroll
      for (int c = 0; c < IPSO_C; c++) {
        int base = (c * IPSO_G + lane) * IPSO_V;
#pragma unroll
        for (int k = 0; k < IPSO_V; k += 2) {
          if (base + k >= IPSO_D) continue;
          uint4 r = rng_block(isl, j * IPSO_BLK_GROUPS + grp, t, (base + k) / 2);
          wa[j][c][k] = r.x;
          wb[j][c][k] = r.y;
          if (IPSO_V > 1) {
            wa[j][c][k + 1] = r.z;
            wb[j][c][k + 1] = r.w;
          }
        }
      }
  }
}

/* Iterations FIRST..LAST of island blockIdx.y; the state and the best of
 * FIRST - 1 from memory, the state and the best of LAST back to memory, the
 * best cost after each iteration to the history. Particle j of this thread's
 * group is j * IPSO_BLK_GROUPS + group: stores address it from one base with
 * constant offsets (no register per particle); a particle past the island's
 * last computes on a copy of the last one and is never stored. */
template <bool SCALED>
__device__ void block_run(swarm_ptrs s, long long first, long long last, block_one_shared &bs,
                          block_shared &sh)
{
  enum { P = IPSO_BLK_PPT };
  s = island_ptrs(s, blockIdx.y);
  const unsigned int isl = island_id();
  const int lane = threadIdx.x % IPSO_G, grp = threadIdx.x / IPSO_G, warp = threadIdx.x / 32,
            wl = threadIdx.x % 32;
  const int n = (int)K.n;
  const real cs1 = K.c1 * (real)0x1p-32, cs2 = K.c2 * (real)0x1p-32;
#define IPSO_BLK_I(j) ((j)*IPSO_BLK_GROUPS + grp) /* particle j */
#define IPSO_BLK_ACT(j) (IPSO_BLK_I(j) < n)       /* in the island */
#define IPSO_BLK_ROW(j) ((size_t)(IPSO_BLK_ACT(j) ? IPSO_BLK_I(j) : n - 1) * IPSO_PITCH)
  real x[P][IPSO_C][IPSO_V], v[P][IPSO_C][IPSO_V], p[P][IPSO_C][IPSO_V], pc[P];
  unsigned int wa[P][IPSO_C][IPSO_V], wb[P][IPSO_C][IPSO_V];
  real gg[IPSO_C][IPSO_V];
  uint2 spare[P];
#pragma unroll
  for (int j = 0; j < P; j++) {
    size_t row = IPSO_BLK_ROW(j);
    spare[j] = make_uint2(0, 0);
#pragma unroll
    for (int c = 0; c < IPSO_C; c++) {
      int base = (c * IPSO_G + lane) * IPSO_V;
#pragma unroll
      for (int k = 0; k < IPSO_V; k++) {
        x[j][c][k] = v[j][c][k] = p[j][c][k] = (real)0;
        wa[j][c][k] = wb[j][c][k] = 0;
      }
      if (base >= IPSO_D) continue;
      vec<IPSO_V>::load(s.x + row + base, x[j][c]);
      vec<IPSO_V>::load(s.v + row + base, v[j][c]);
      vec<IPSO_V>::load(s.p + row + base, p[j][c]);
    }
    pc[j] = s.pcost[row / IPSO_PITCH];
  }
  const int start = (int)((first - 1) & 1);
  real gc = s.gb[start].cost;
  long long gi = s.gb[start].idx;
#pragma unroll
  for (int c = 0; c < IPSO_C; c++)
#pragma unroll
    for (int k = 0; k < IPSO_V; k++) {
      int d = (c * IPSO_G + lane) * IPSO_V + k;
      gg[c][k] = d < IPSO_D ? s.gpos[(size_t)start * IPSO_PITCH + d] : (real)0;
    }
  draw_words(isl, grp, first, first, lane, spare, wa, wb);

  for (long long t = first; t <= last; t++) {
    const int par = (int)(t & 1);
    const real w = inertia_at(t);
    bool maybe = false; /* a personal best improved to at most the best's cost */
#pragma unroll
    for (int j = 0; j < P; j++) {
#pragma unroll
      for (int c = 0; c < IPSO_C; c++) {
        int base = (c * IPSO_G + lane) * IPSO_V;
#pragma unroll
        for (int k = 0; k < IPSO_V; k++)
          if (base + k < IPSO_D)
            update_coord_ab(x[j][c][k], v[j][c][k], p[j][c][k], gg[c][k],
                            rand_factor<SCALED>(K.c1, cs1, wa[j][c][k]),
                            rand_factor<SCALED>(K.c2, cs2, wb[j][c][k]), base + k, w);
        /* Objectives that read the row from memory (the next coordinate, a
         * user function of the whole row) read it after group_value's
         * barrier. */
        if ((IPSO_NEEDS_NEXT || IPSO_USER_ROW) && IPSO_BLK_ACT(j) && base < IPSO_D)
          vec<IPSO_V>::store(s.x + (size_t)IPSO_BLK_I(j) * IPSO_PITCH + base, x[j][c]);
      }
      /* NaN is not taken as +infinity here: it improves nothing either way;
       * the stored cost is mapped. */
      real f = group_value(x[j], s.x + IPSO_BLK_ROW(j), lane, sh);
      bool improved = f < pc[j];
      if (improved) {
        pc[j] = f;
#pragma unroll
        for (int c = 0; c < IPSO_C; c++)
#pragma unroll
          for (int k = 0; k < IPSO_V; k++) p[j][c][k] = x[j][c][k];
      }
      /* Not pc[j] <= gc alone: once the swarm settles, many personal bests
       * equal the best's cost (at a bound) without being candidates. */
      maybe = maybe || (improved && f <= gc);
    }
    /* This warp's lowest candidate and its row, or none. A candidate is a
     * particle whose personal best is below the best of t-1 in the order
     * (cost, index): one that improved on it, as the other kernels queue
     * them (a personal best that did not change is not below the best,
     * which is the lowest of them). Tested exactly only in a warp with a
     * personal best not above the best's cost. */
    bool found = false;
    if (__any_sync(0xffffffffu, maybe)) {
      real bc = (real)IPSO_INF;
      int bi = IPSO_BLK_NONE;
#pragma unroll
      for (int j = 0; j < P; j++)
        if (IPSO_BLK_ACT(j) && lane == 0 && lex_less(pc[j], IPSO_BLK_I(j), gc, gi) &&
            lex_less(pc[j], IPSO_BLK_I(j), bc, bi))
          bc = pc[j], bi = IPSO_BLK_I(j);
      for (int off = 16; off > 0; off >>= 1) {
        real oc = __shfl_xor_sync(0xffffffffu, bc, off);
        int oi = __shfl_xor_sync(0xffffffffu, bi, off);
        if (lex_less(oc, oi, bc, bi)) bc = oc, bi = oi;
      }
      found = bi != IPSO_BLK_NONE;
#pragma unroll
      for (int j = 0; j < P; j++)
        if (IPSO_BLK_I(j) == bi)
#pragma unroll
          for (int c = 0; c < IPSO_C; c++)
#pragma unroll
            for (int k = 0; k < IPSO_V; k++) {
              int d = (c * IPSO_G + lane) * IPSO_V + k;
              if (d < IPSO_D) bs.row[par][warp][d] = p[j][c][k];
            }
      if (wl == 0) bs.cost[par][warp] = bc, bs.idx[par][warp] = bi;
    } else if (wl == 0) {
      bs.cost[par][warp] = (real)IPSO_INF;
      bs.idx[par][warp] = IPSO_BLK_NONE;
    }
    /* The next iteration's random words, while other warps finish. */
    if (t < last) draw_words(isl, grp, t + 1, first, lane, spare, wa, wb);
    if (__syncthreads_or(found)) {
      /* The lowest of the warps' candidates: every warp reduces them. */
      real bc = wl < IPSO_BLK_WARPS ? bs.cost[par][wl] : (real)IPSO_INF;
      int bi = wl < IPSO_BLK_WARPS ? bs.idx[par][wl] : IPSO_BLK_NONE;
      for (int off = 16; off > 0; off >>= 1) {
        real oc = __shfl_xor_sync(0xffffffffu, bc, off);
        int oi = __shfl_xor_sync(0xffffffffu, bi, off);
        if (lex_less(oc, oi, bc, bi)) bc = oc, bi = oi;
      }
      /* Candidates are below the best of t-1: the lowest is the new best. */
      int w = bi % IPSO_BLK_GROUPS * IPSO_G / 32;
      gc = bc;
      gi = bi;
#pragma unroll
      for (int c = 0; c < IPSO_C; c++)
#pragma unroll
        for (int k = 0; k < IPSO_V; k++) {
          int d = (c * IPSO_G + lane) * IPSO_V + k;
          if (d < IPSO_D) gg[c][k] = bs.row[par][w][d];
        }
    }
    if (threadIdx.x == 0 && s.hist) s.hist[t - first] = (double)gc;
  }

  /* The state of LAST, and slot LAST & 1 with its best, as one launch per
   * iteration would leave them. The costs of the last positions are
   * evaluated again (the same operations on the same coordinates: the same
   * bits), cheaper than keeping them in registers through the loop. */
#pragma unroll
  for (int j = 0; j < P; j++) {
    if (first <= last) {
      real f = group_value(x[j], s.x + IPSO_BLK_ROW(j), lane, sh);
      if (IPSO_BLK_ACT(j) && lane == 0) s.cost[IPSO_BLK_I(j)] = isnan(f) ? (real)IPSO_INF : f;
    }
    if (!IPSO_BLK_ACT(j)) continue;
    size_t row = (size_t)IPSO_BLK_I(j) * IPSO_PITCH;
#pragma unroll
    for (int c = 0; c < IPSO_C; c++) {
      int base = (c * IPSO_G + lane) * IPSO_V;
      if (base >= IPSO_D) continue;
      vec<IPSO_V>::store(s.x + row + base, x[j][c]);
      vec<IPSO_V>::store(s.v + row + base, v[j][c]);
      vec<IPSO_V>::store(s.p + row + base, p[j][c]);
    }
    if (lane == 0) s.pcost[IPSO_BLK_I(j)] = pc[j];
  }
#undef IPSO_BLK_I
#undef IPSO_BLK_ACT
#undef IPSO_BLK_ROW
  const int cur = (int)(last & 1);
  if (threadIdx.x < IPSO_G)
#pragma unroll
    for (int c = 0; c < IPSO_C; c++)
#pragma unroll
      for (int k = 0; k < IPSO_V; k++) {
        int d = (c * IPSO_G + lane) * IPSO_V + k;
        if (d < IPSO_D) s.gpos[(size_t)cur * IPSO_PITCH + d] = gg[c][k];
      }
  if (threadIdx.x == 0) {
    s.gb[cur].cost = gc;
    s.gb[cur].idx = gi;
    s.gb[cur].hint = ~0ull; /* no offer stands */
    s.gb[cur].tag = last;
  }
}

extern "C" __global__ void __launch_bounds__(IPSO_BLK_THREADS, 1)
    resident_block_kernel(swarm_ptrs s, long long first, long long last)
{
  __shared__ block_one_shared bs;
  __shared__ block_shared sh; /* group_value's cross-warp sums: unused (IPSO_G <= 32) */
  /* The scaled random factors are exact unless c1 or c2 is so small that
   * the products are subnormal. */
  bool scaled = sizeof(real) == sizeof(double) && (K.c1 == 0 || (double)K.c1 >= 0x1p-960) &&
                (K.c2 == 0 || (double)K.c2 >= 0x1p-960);
  if (scaled)
    block_run<sizeof(real) == sizeof(double)>(s, first, last, bs, sh);
  else
    block_run<false>(s, first, last, bs, sh);
}

#endif

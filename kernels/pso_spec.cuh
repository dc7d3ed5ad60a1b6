/* The speculative cluster kernel of strict queue-lock swarms of short rows
 * (IPSO_SPEC_CB > 0, one thread per particle): one island per cluster of
 * IPSO_SPEC_CB blocks (island blockIdx.y), a whole segment per launch, the
 * particles in registers; block r holds particles r * IPSO_SPEC_PPB +
 * j * IPSO_SPEC_THREADS + thread.
 *
 * Why: one block is bound by its multiprocessor, and a cluster barrier per
 * iteration is costly on its own. So the blocks run through windows of
 * iterations on a guess of the global best and check it once per window
 * (win_run). The result is the strict one, bit for bit: the same Philox
 * words and operations, and the best of t the lowest (cost, index) of the
 * best of t-1 and the particles improved at t, as publish_queue_lock. */
#ifndef IPSO_PSO_SPEC_CUH
#define IPSO_PSO_SPEC_CUH

#define IPSO_SPEC_WARPS (IPSO_SPEC_THREADS / 32)          /* warps with particles */
#define IPSO_SPEC_PPB (IPSO_SPEC_THREADS * IPSO_SPEC_PPT) /* particles per block */
#define IPSO_SPEC_RW ((int)(sizeof(real) / 4))            /* words of one real */
#define IPSO_SPEC_NONE 0x7fffffff

static_assert(IPSO_G == 1 && !IPSO_NEEDS_NEXT && !IPSO_USER_ROW,
              "speculative kernel: one thread per particle");
static_assert(IPSO_SPEC_THREADS % 32 == 0 && IPSO_SPEC_THREADS + 32 <= 1024 && IPSO_SPEC_PPT >= 1,
              "speculative kernel: shape");
static_assert(IPSO_SPEC_CB >= 2 && IPSO_SPEC_CB <= 8 && IPSO_D <= 4, "speculative kernel: records");

/* The random factor C * u01(W). SCALED (double, C = 0 or C >= 2^-960): CS *
 * (W + 1), CS = C * 2^-32, the same number (u01(W) = (W + 1) * 2^-32
 * exactly; a power of two keeps a normal product's rounding). W + 1 without
 * a conversion instruction (quarter FP64 rate): bits of 2^52 + W, minus
 * 2^52 - 1, both exact. */
template <bool SCALED> IPSO_HD real rand_factor(real c, real cs, unsigned int w)
{
  if (SCALED) {
    double m = __hiloint2double(0x43300000, (int)w) - 4503599627370495.0;
    return (real)((double)cs * m);
  }
  return c * u01(w);
}

/* The cluster's hardware barrier, release/acquire at cluster scope. */
IPSO_HD void cluster_barrier()
{
  asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
               "barrier.cluster.wait.acquire.aligned;" ::
                   : "memory");
}

/* This block's rank in its cluster. */
IPSO_HD unsigned int cluster_rank()
{
  unsigned int r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

/* Word P of this block's shared memory, written in block RANK's copy;
 * get_local reads this block's own. */
IPSO_HD void put_remote(const unsigned long long *p, unsigned int rank, unsigned long long w)
{
  unsigned int a = (unsigned int)__cvta_generic_to_shared(p);
  asm volatile("{\n\t.reg .u32 ra;\n\tmapa.shared::cluster.u32 ra, %0, %1;\n\t"
               "st.relaxed.cluster.shared::cluster.b64 [ra], %2;\n\t}" ::"r"(a),
               "r"(rank), "l"(w)
               : "memory");
}
IPSO_HD unsigned long long get_local(const unsigned long long *p)
{
  unsigned long long w;
  unsigned int a = (unsigned int)__cvta_generic_to_shared(p);
  asm volatile("ld.relaxed.cluster.shared::cta.b64 %0, [%1];" : "=l"(w) : "r"(a) : "memory");
  return w;
}

/* The random words of iteration T for the thread's particles (from I,
 * IPSO_SPEC_THREADS apart). In 1-D a Philox block holds two iterations: an
 * even one keeps the odd one's in SPARE, taken by an odd iteration after
 * FRESH (the first drawn since the launch or a return). */
IPSO_HD void spec_draw(unsigned int isl, long long i, long long t, long long fresh,
                       uint2 (&spare)[IPSO_SPEC_PPT],
                       unsigned int (&wa)[IPSO_SPEC_PPT][IPSO_C][IPSO_V],
                       unsigned int (&wb)[IPSO_SPEC_PPT][IPSO_C][IPSO_V])
{
  if (IPSO_D == 1) {
    if ((t & 1) && t > fresh) {
#pragma unroll
      for (int j = 0; j < IPSO_SPEC_PPT; j++) wa[j][0][0] = spare[j].x, wb[j][0][0] = spare[j].y;
    } else {
#pragma unroll
      for (int j = 0; j < IPSO_SPEC_PPT; j++) {
        uint4 r = rng_block(isl, i + j * IPSO_SPEC_THREADS, t, 0);
        wa[j][0][0] = r.x;
        wb[j][0][0] = r.y;
        spare[j] = make_uint2(r.z, r.w);
      }
    }
  } else {
#pragma unroll
    for (int j = 0; j < IPSO_SPEC_PPT; j++)
#pragma unroll
      for (int c = 0; c < IPSO_C; c++)
#pragma unroll
        for (int k = 0; k < IPSO_V; k += 2) {
          int d = c * IPSO_V + k;
          if (d >= IPSO_D) continue;
          uint4 r = rng_block(isl, i + j * IPSO_SPEC_THREADS, t, d / 2);
          wa[j][c][k] = r.x;
          wb[j][c][k] = r.y;
          if (IPSO_V > 1) {
            wa[j][c][k + 1] = r.z;
            wb[j][c][k + 1] = r.w;
          }
        }
  }
}

/* A thread's IPSO_SPEC_PPT particles, IPSO_SPEC_THREADS apart from BASE;
 * none for the extra warp (NONE), which reads the last particle's row. */
struct spec_thread {
  int base;
  bool none;
  __device__ __forceinline__ int i(int j) const
  {
    return base + j * IPSO_SPEC_THREADS;
  }
  __device__ __forceinline__ bool act(int j) const
  {
    return !none && i(j) < (int)K.n;
  }
  __device__ __forceinline__ size_t row(int j) const
  {
    return (size_t)(act(j) ? i(j) : (int)K.n - 1) * IPSO_PITCH;
  }
};

/* The thread's particles' x, v, p, their words, and kept states by slot. */
#define IPSO_SPEC_ROWS(a) real(&a)[IPSO_SPEC_PPT][IPSO_C][IPSO_V]
#define IPSO_SPEC_WORDS(a) unsigned int(&a)[IPSO_SPEC_PPT][IPSO_C][IPSO_V]
#define IPSO_SPEC_KEPT(a) real(&a)[R][IPSO_SPEC_PPT][IPSO_C * IPSO_V]

/* The particles' state from S; their words and spares cleared. */
IPSO_HD void spec_load(const swarm_ptrs &s, const spec_thread &th, IPSO_SPEC_ROWS(x),
                       IPSO_SPEC_ROWS(v), IPSO_SPEC_ROWS(p), real (&pc)[IPSO_SPEC_PPT],
                       IPSO_SPEC_WORDS(wa), IPSO_SPEC_WORDS(wb), uint2 (&spare)[IPSO_SPEC_PPT])
{
#pragma unroll
  for (int j = 0; j < IPSO_SPEC_PPT; j++) {
    size_t row = th.row(j);
    spare[j] = make_uint2(0, 0);
#pragma unroll
    for (int c = 0; c < IPSO_C; c++) {
#pragma unroll
      for (int k = 0; k < IPSO_V; k++) {
        x[j][c][k] = v[j][c][k] = p[j][c][k] = (real)0;
        wa[j][c][k] = wb[j][c][k] = 0;
      }
      if (c * IPSO_V >= IPSO_D) continue;
      vec<IPSO_V>::load(s.x + row + c * IPSO_V, x[j][c]);
      vec<IPSO_V>::load(s.v + row + c * IPSO_V, v[j][c]);
      vec<IPSO_V>::load(s.p + row + c * IPSO_V, p[j][c]);
    }
    pc[j] = s.pcost[row / IPSO_PITCH];
  }
}

/* The best of FIRST - 1 from its slot (index IPSO_SPEC_NONE: none). */
IPSO_HD void spec_best_before(const swarm_ptrs &s, long long first, real &vc, int &vi,
                              real (&vpos)[IPSO_C * IPSO_V])
{
  const int start = (int)((first - 1) & 1);
  vc = s.gb[start].cost;
  vi = s.gb[start].idx < IPSO_SPEC_NONE ? (int)s.gb[start].idx : IPSO_SPEC_NONE;
#pragma unroll
  for (int e = 0; e < IPSO_C * IPSO_V; e++)
    vpos[e] = e < IPSO_D ? s.gpos[(size_t)start * IPSO_PITCH + e] : (real)0;
}

/* Particle J's move towards G: its cost into F; whether it improved. */
template <bool SCALED>
IPSO_HD bool spec_move(const swarm_ptrs &s, const spec_thread &th, int j, IPSO_SPEC_ROWS(x),
                       IPSO_SPEC_ROWS(v), IPSO_SPEC_ROWS(p), real (&pc)[IPSO_SPEC_PPT],
                       const IPSO_SPEC_WORDS(ua), const IPSO_SPEC_WORDS(ub),
                       const real (&g)[IPSO_C * IPSO_V], real w, real cs1, real cs2, real &f,
                       block_shared &sh)
{
#pragma unroll
  for (int c = 0; c < IPSO_C; c++)
#pragma unroll
    for (int k = 0; k < IPSO_V; k++)
      if (c * IPSO_V + k < IPSO_D)
        update_coord_ab(x[j][c][k], v[j][c][k], p[j][c][k], g[c * IPSO_V + k],
                        rand_factor<SCALED>(K.c1, cs1, ua[j][c][k]),
                        rand_factor<SCALED>(K.c2, cs2, ub[j][c][k]), c * IPSO_V + k, w,
                        vmax_at(island_id(), c * IPSO_V + k));
  f = group_value(x[j], s.x + th.row(j), 0, sh);
  bool improved = f < pc[j];
  if (improved) {
    pc[j] = f;
#pragma unroll
    for (int c = 0; c < IPSO_C; c++)
#pragma unroll
      for (int k = 0; k < IPSO_V; k++) p[j][c][k] = x[j][c][k];
  }
  return improved;
}

/* Particle J's state into slot SLOT of the kept states. */
template <int R>
IPSO_HD void spec_keep(IPSO_SPEC_KEPT(kx), IPSO_SPEC_KEPT(kv), IPSO_SPEC_KEPT(kp),
                       real (&kc)[R][IPSO_SPEC_PPT], int slot, int j, IPSO_SPEC_ROWS(x),
                       IPSO_SPEC_ROWS(v), IPSO_SPEC_ROWS(p), const real (&pc)[IPSO_SPEC_PPT])
{
#pragma unroll
  for (int c = 0; c < IPSO_C; c++)
#pragma unroll
    for (int k = 0; k < IPSO_V; k++) {
      kx[slot][j][c * IPSO_V + k] = x[j][c][k];
      kv[slot][j][c * IPSO_V + k] = v[j][c][k];
      kp[slot][j][c * IPSO_V + k] = p[j][c][k];
    }
  kc[slot][j] = pc[j];
}

/* Every particle's state back from slot SLOT of the kept states. */
template <int R>
IPSO_HD void spec_back(IPSO_SPEC_KEPT(kx), IPSO_SPEC_KEPT(kv), IPSO_SPEC_KEPT(kp),
                       real (&kc)[R][IPSO_SPEC_PPT], int slot, IPSO_SPEC_ROWS(x), IPSO_SPEC_ROWS(v),
                       IPSO_SPEC_ROWS(p), real (&pc)[IPSO_SPEC_PPT])
{
#pragma unroll
  for (int j = 0; j < IPSO_SPEC_PPT; j++) {
#pragma unroll
    for (int c = 0; c < IPSO_C; c++)
#pragma unroll
      for (int k = 0; k < IPSO_V; k++) {
        x[j][c][k] = kx[slot][j][c * IPSO_V + k];
        v[j][c][k] = kv[slot][j][c * IPSO_V + k];
        p[j][c][k] = kp[slot][j][c * IPSO_V + k];
      }
    pc[j] = kc[slot][j];
  }
}

/* The state of LAST and slot LAST & 1 (VC, VI, VPOS) as one launch per
 * iteration leaves them (costs evaluated again: the same bits); then no
 * block leaves while another may still write its shared memory. */
IPSO_HD void spec_finish(const swarm_ptrs &s, const spec_thread &th, long long last,
                         IPSO_SPEC_ROWS(x), IPSO_SPEC_ROWS(v), IPSO_SPEC_ROWS(p),
                         const real (&pc)[IPSO_SPEC_PPT], real vc, int vi,
                         const real (&vpos)[IPSO_C * IPSO_V], block_shared &sh)
{
#pragma unroll
  for (int j = 0; j < IPSO_SPEC_PPT; j++) {
    if (!th.act(j)) continue;
    real f = group_value(x[j], s.x + th.row(j), 0, sh);
    const size_t row = (size_t)th.i(j) * IPSO_PITCH;
    s.cost[th.i(j)] = isnan(f) ? (real)IPSO_INF : f;
#pragma unroll
    for (int c = 0; c < IPSO_C; c++) {
      if (c * IPSO_V >= IPSO_D) continue;
      vec<IPSO_V>::store(s.x + row + c * IPSO_V, x[j][c]);
      vec<IPSO_V>::store(s.v + row + c * IPSO_V, v[j][c]);
      vec<IPSO_V>::store(s.p + row + c * IPSO_V, p[j][c]);
    }
    s.pcost[th.i(j)] = pc[j];
  }
  const int cur = (int)(last & 1);
  if (cluster_rank() == 0 && threadIdx.x == 0) {
#pragma unroll
    for (int e = 0; e < IPSO_D; e++) s.gpos[(size_t)cur * IPSO_PITCH + e] = vpos[e];
    s.gb[cur].cost = vc;
    s.gb[cur].idx = vi == IPSO_SPEC_NONE ? IPSO_NONE : vi;
    s.gb[cur].hint = ~0ull; /* no offer stands */
    s.gb[cur].tag = last;
  }
  cluster_barrier();
}

/* The windows: every thread runs its particles through up to IPSO_SPEC_WIN
 * iterations on the best it knows, then the cluster exchanges once. A
 * particle breaks the guess at the first iteration where its personal best
 * falls below the best known ((cost, index) lower). Until the island's
 * first break T*, every particle computed on the true best of t - 1, and
 * the best of T* is the lowest that broke there (the others are not below
 * it, which the strict rule keeps). So the window is taken up to T* (all
 * if none broke), the state of T* restored from local memory, and the next
 * starts after it. The length doubles after a whole window, halves after a
 * break (from 1): short while the best moves, long once it settles.
 *
 * The exchange: each warp's lowest (T, cost, index) and position into every
 * block of the cluster (distributed shared memory, by pass parity), one
 * cluster barrier, and every warp takes the lowest of all. */
#define IPSO_WIN_SLOTS (IPSO_SPEC_CB * IPSO_SPEC_WARPS)
#define IPSO_WIN_NONE 0xffffffffu

struct win_shared {
  unsigned long long head[2][IPSO_WIN_SLOTS]; /* (break << 32) | index */
  unsigned long long cost[2][IPSO_WIN_SLOTS];
  unsigned long long pos[2][IPSO_WIN_SLOTS][IPSO_D];
};

/* A real's bits as a word, and back. */
IPSO_HD unsigned long long real_bits(real x)
{
  if (IPSO_SPEC_RW == 2) return (unsigned long long)__double_as_longlong((double)x);
  return (unsigned long long)__float_as_uint((float)x);
}
IPSO_HD real bits_real(unsigned long long b)
{
  if (IPSO_SPEC_RW == 2) return (real)__longlong_as_double((long long)b);
  return (real)__uint_as_float((unsigned int)b);
}

/* This warp's lowest break (each lane's BRK, BC, BI, BPOS) into every
 * block of the cluster, in the slots of parity PP. */
IPSO_HD void win_publish(win_shared &ws, int pp, unsigned int rank, int warp, int wl,
                         unsigned int brk, real bc, int bi, const real *bpos)
{
  const unsigned int jw = __reduce_min_sync(0xffffffffu, brk);
  real c = (real)IPSO_INF, cpos[IPSO_C * IPSO_V];
  int i = IPSO_SPEC_NONE, l = wl;
  if (jw != IPSO_WIN_NONE) {
    if (brk == jw) c = bc, i = bi;
    for (int off = 16; off > 0; off >>= 1) {
      real oc = __shfl_xor_sync(0xffffffffu, c, off);
      int oi = __shfl_xor_sync(0xffffffffu, i, off);
      int ol = __shfl_xor_sync(0xffffffffu, l, off);
      if (lex_less(oc, oi, c, i)) c = oc, i = oi, l = ol;
    }
  }
#pragma unroll
  for (int e = 0; e < IPSO_C * IPSO_V; e++) cpos[e] = __shfl_sync(0xffffffffu, bpos[e], l);
  if (wl < IPSO_SPEC_CB) {
    const int slot = (int)rank * IPSO_SPEC_WARPS + warp;
    put_remote(&ws.head[pp][slot], (unsigned int)wl,
               ((unsigned long long)jw << 32) | (unsigned int)i);
    if (jw != IPSO_WIN_NONE) {
      put_remote(&ws.cost[pp][slot], (unsigned int)wl, real_bits(c));
#pragma unroll
      for (int e = 0; e < IPSO_D; e++)
        put_remote(&ws.pos[pp][slot][e], (unsigned int)wl, real_bits(cpos[e]));
    }
  }
}

/* Of the slots (heads H, this lane's) whose break is JS, the lowest (cost,
 * index): its cost C, index I and slot AT, on every lane of the warp. */
template <int PER_LANE>
IPSO_HD void win_lowest(win_shared &ws, int pp, int wl, const unsigned long long (&h)[PER_LANE],
                        unsigned int js, real &c, int &i, int &at)
{
  c = (real)IPSO_INF;
  i = IPSO_SPEC_NONE;
  at = 0;
#pragma unroll
  for (int r = 0; r < PER_LANE; r++) {
    const int q = wl + 32 * r;
    if (q < IPSO_WIN_SLOTS && (unsigned int)(h[r] >> 32) == js) {
      real oc = bits_real(get_local(&ws.cost[pp][q]));
      int oi = (int)(unsigned int)h[r];
      if (lex_less(oc, oi, c, i)) c = oc, i = oi, at = q;
    }
  }
  for (int off = 16; off > 0; off >>= 1) {
    real oc = __shfl_xor_sync(0xffffffffu, c, off);
    int oi = __shfl_xor_sync(0xffffffffu, i, off);
    int oa = __shfl_xor_sync(0xffffffffu, at, off);
    if (lex_less(oc, oi, c, i)) c = oc, i = oi, at = oa;
  }
}

/* Iterations FIRST..LAST of blockIdx.y's island in windows. */
template <bool SCALED>
__device__ void win_run(swarm_ptrs s, long long first, long long last, win_shared &ws,
                        block_shared &sh)
{
  enum { P = IPSO_SPEC_PPT, E = IPSO_C * IPSO_V, WIN = IPSO_SPEC_WIN };
  enum { PER_LANE = (IPSO_WIN_SLOTS + 31) / 32 };
  s = island_ptrs(s, blockIdx.y);
  const unsigned int isl = island_id(), rank = cluster_rank();
  const int tid = threadIdx.x, warp = tid / 32, wl = tid % 32;
  const bool idle = warp == IPSO_SPEC_WARPS; /* the launch's extra warp: no particles */
  const int base = (int)rank * IPSO_SPEC_PPB + (idle ? 0 : tid);
  const real cs1 = K.c1 * (real)0x1p-32, cs2 = K.c2 * (real)0x1p-32;
  const spec_thread th = {base, idle};
  real x[P][IPSO_C][IPSO_V], v[P][IPSO_C][IPSO_V], p[P][IPSO_C][IPSO_V], pc[P];
  unsigned int wa[P][IPSO_C][IPSO_V], wb[P][IPSO_C][IPSO_V];
  uint2 spare[P];
  /* The state after each iteration of the window (read if taken short). */
  real kx[WIN][P][E], kv[WIN][P][E], kp[WIN][P][E], kc[WIN][P];
  spec_load(s, th, x, v, p, pc, wa, wb, spare);
  /* The best of TC, the last iteration taken. */
  real vc, vpos[E];
  int vi;
  spec_best_before(s, first, vc, vi, vpos);
  long long tc = first - 1, fresh = first;
  int wlen = 1;
  if (!idle) spec_draw(isl, base, first, fresh, spare, wa, wb);
  /* No block writes into another's shared memory before it runs. */
  cluster_barrier();

  for (unsigned int pass = 0;; pass++) {
    const int pp = (int)(pass & 1);
    const int len = (int)(last - tc < wlen ? last - tc : wlen);
    /* The thread's first break: iteration (1..len), cost, index, position. */
    unsigned int brk = IPSO_WIN_NONE;
    real bc = (real)IPSO_INF;
    int bi = IPSO_SPEC_NONE;
    real bpos[E];
#pragma unroll
    for (int e = 0; e < E; e++) bpos[e] = (real)0;
    if (!idle)
      for (int q = 1; q <= len; q++) {
        const long long t = tc + q;
        const real w = inertia_at(t);
        unsigned int ua[P][IPSO_C][IPSO_V], ub[P][IPSO_C][IPSO_V];
#pragma unroll
        for (int j = 0; j < P; j++)
#pragma unroll
          for (int c = 0; c < IPSO_C; c++)
#pragma unroll
            for (int k = 0; k < IPSO_V; k++) ua[j][c][k] = wa[j][c][k], ub[j][c][k] = wb[j][c][k];
        if (t < last) spec_draw(isl, base, t + 1, fresh, spare, wa, wb);
#pragma unroll
        for (int j = 0; j < P; j++) {
          real f;
          if (spec_move<SCALED>(s, th, j, x, v, p, pc, ua, ub, vpos, w, cs1, cs2, f, sh) &&
              th.act(j) && lex_less(f, th.i(j), vc, vi) &&
              (brk == IPSO_WIN_NONE || (brk == (unsigned int)q && lex_less(f, th.i(j), bc, bi)))) {
            brk = (unsigned int)q;
            bc = f;
            bi = th.i(j);
#pragma unroll
            for (int c = 0; c < IPSO_C; c++)
#pragma unroll
              for (int k = 0; k < IPSO_V; k++) bpos[c * IPSO_V + k] = x[j][c][k];
          }
          spec_keep(kx, kv, kp, kc, q - 1, j, x, v, p, pc);
        }
      }

    if (!idle) win_publish(ws, pp, rank, warp, wl, brk, bc, bi, bpos);
    cluster_barrier();

    /* The island's first break (the same in every warp of the cluster). */
    unsigned long long h[PER_LANE];
    unsigned int js = IPSO_WIN_NONE;
#pragma unroll
    for (int r = 0; r < PER_LANE; r++) {
      const int q = wl + 32 * r;
      h[r] = q < IPSO_WIN_SLOTS ? get_local(&ws.head[pp][q]) : ~0ull;
      const unsigned int b = (unsigned int)(h[r] >> 32);
      js = b < js ? b : js;
    }
    js = __reduce_min_sync(0xffffffffu, js);
    if (js == IPSO_WIN_NONE) {
      if (rank == 0 && tid == 0 && s.hist)
        for (int q = 1; q <= len; q++) s.hist[tc + q - first] = (double)vc;
      tc += len;
      wlen = 2 * wlen < WIN ? 2 * wlen : WIN;
    } else {
      real c;
      int i, at;
      win_lowest(ws, pp, wl, h, js, c, i, at);
      if (rank == 0 && tid == 0 && s.hist) {
        for (int q = 1; q < (int)js; q++) s.hist[tc + q - first] = (double)vc;
        s.hist[tc + js - first] = (double)c;
      }
      vc = c;
      vi = i;
#pragma unroll
      for (int e = 0; e < E; e++)
        vpos[e] = e < IPSO_D ? bits_real(get_local(&ws.pos[pp][at][e])) : (real)0;
      /* Back to the state of T*, unless it ended the window. */
      if ((int)js < len && !idle) spec_back(kx, kv, kp, kc, (int)js - 1, x, v, p, pc);
      tc += js;
      if ((int)js < len) {
        fresh = tc + 1;
        if (!idle && tc < last) spec_draw(isl, base, tc + 1, fresh, spare, wa, wb);
      }
      wlen = wlen / 2 > 1 ? wlen / 2 : 1;
    }
    if (tc == last) break;
  }

  spec_finish(s, th, last, x, v, p, pc, vc, vi, vpos, sh);
}

/* win_run, with the scaled random factor where it is exact. */
extern "C" __global__ void __launch_bounds__(IPSO_SPEC_THREADS + 32, 1)
    speculative_cluster_kernel(swarm_ptrs s, long long first, long long last)
{
  __shared__ win_shared ss;
  __shared__ block_shared sh; /* group_value's cross-warp sums: unused (IPSO_G = 1) */
  if (first > last) return;
  bool scaled = sizeof(real) == sizeof(double) && (K.c1 == 0 || (double)K.c1 >= 0x1p-960) &&
                (K.c2 == 0 || (double)K.c2 >= 0x1p-960);
  if (scaled)
    win_run<sizeof(real) == sizeof(double)>(s, first, last, ss, sh);
  else
    win_run<false>(s, first, last, ss, sh);
}

#endif

/* The CPU reference swarm in one precision, included by backend_cpu.c with
 * REAL (float or double), R(name) (name mangling) and U01 (the cuRAND
 * conversion of one random word to (0, 1]) defined. Arithmetic is written
 * operation by operation, every fused multiply-add an explicit fma(), and
 * compiled without contraction, so the GPU kernels (compiled the same way)
 * produce the same bits for the objectives without transcendental functions. */

/* A REAL view of the swarm arrays. */
struct R(view) {
  REAL *x, *v, *p, *cost, *pcost, *gpos;
  const REAL *lo, *hi, *span, *vmax, *prm;
};

static struct R(view) R(view_of)(struct cpu_swarm *c)
{
  struct R(view)
      s = {(REAL *)c->x,          (REAL *)c->v,          (REAL *)c->p,        (REAL *)c->cost,
           (REAL *)c->pcost,      (REAL *)c->gpos,       (const REAL *)c->lo, (const REAL *)c->hi,
           (const REAL *)c->span, (const REAL *)c->vmax, (const REAL *)c->prm};
  return s;
}

/* Sign-adjusted cost of position X; NaN counts as +infinity. */
static REAL R(cost_of)(const struct cpu_swarm *c, const REAL *x, const REAL *prm)
{
  REAL f = c->R(eval)(x, c->D, prm);
  REAL cost = c->cfg->objective.goal == IPSO_MAXIMIZE ? -f : f;
  return isnan(cost) ? (REAL)INFINITY : cost;
}

/* The objective at the N points X ([n * D], double) into F, with X
 * rounded to REAL as the swarm's positions are. */
static int R(evaluate)(const struct cpu_swarm *c, const double *x, int64_t n, double *f)
{
  REAL *xr = malloc((size_t)c->D * sizeof *xr);
  if (!xr) return IPSO_FAIL("cpu", "out of memory");
  for (int64_t i = 0; i < n; i++) {
    for (int d = 0; d < c->D; d++) xr[d] = (REAL)x[i * c->D + d];
    f[i] = (double)c->R(eval)(xr, c->D, c->prm);
  }
  free(xr);
  return IPSO_OK;
}

/* The swarm's arrays in one block, the constant tables (lower, upper, span,
 * the island's vmax row, params) converted to REAL at its end. */
static int R(alloc)(struct cpu_swarm *c, const struct swarm_consts *k)
{
  size_t n = (size_t)c->N * (size_t)c->D, D = (size_t)c->D;
  size_t np = (size_t)k->nparam > D ? (size_t)k->nparam : D; /* zeros where none */
  const double *vmax = k->vmax + (size_t)(c->island % k->nclamps) * D;
  void **part[] = {&c->x,  &c->v,  &c->p,    &c->cost, &c->pcost, &c->gpos,
                   &c->lo, &c->hi, &c->span, &c->vmax, &c->prm};
  const size_t len[] = {n, n, n, (size_t)c->N, (size_t)c->N, D, D, D, D, D, np};
  size_t total = 0;
  for (int i = 0; i < 11; i++) total += len[i];
  REAL *t = calloc(total, sizeof(REAL));
  if (!t)
    return IPSO_FAIL("cpu", "cannot allocate a swarm of %lld particles x %d dimensions",
                     (long long)c->N, c->D);
  for (int i = 0; i < 11; t += len[i++]) *part[i] = t;
  if (c->ring || c->clpso || c->mean) {
    c->lbest = malloc((c->mean ? D : n) * sizeof(REAL));
    c->order = c->mean ? malloc((size_t)c->N * sizeof *c->order) : NULL;
    for (int64_t i = 0; c->order && i < c->N; i++) c->order[i] = i;
    if (!c->lbest || (c->mean && !c->order))
      return IPSO_FAIL("cpu", "cannot allocate the attractors of %lld particles x %d dimensions",
                       (long long)c->N, c->D);
  }
  if (c->clpso) {
    c->learn = malloc((size_t)c->N * sizeof *c->learn);
    if (!c->learn)
      return IPSO_FAIL("cpu", "cannot allocate the learning probabilities of %lld particles",
                       (long long)c->N);
    for (int64_t i = 0; i < c->N; i++) c->learn[i] = swarm_clpso_threshold(i, c->N);
  }
  t = c->lo;
  for (size_t d = 0; d < D; d++) {
    t[d] = (REAL)k->lower[d];
    t[D + d] = (REAL)k->upper[d];
    t[2 * D + d] = (REAL)k->span[d];
    t[3 * D + d] = (REAL)vmax[d];
  }
  for (size_t i = 0; i < (size_t)k->nparam; i++) t[4 * D + i] = (REAL)k->param[i];
  return IPSO_OK;
}

/* Recomputes the global best: the lowest (pbest cost, index). The minimum
 * of a total order, so the same for any number of threads. */
static void R(update_global_best)(struct cpu_swarm *c)
{
  struct R(view) s = R(view_of)(c);
  REAL best = s.pcost[0];
  int64_t arg = 0;
  for (int64_t i = 1; i < c->N; i++)
    if (s.pcost[i] < best) {
      best = s.pcost[i];
      arg = i;
    }
  c->gcost = (double)best;
  c->gidx = arg;
  memcpy(s.gpos, s.p + (size_t)arg * (size_t)c->D, (size_t)c->D * sizeof(REAL));
}

/* The particle with the lowest (personal-best cost, index) among particles
 * I-K..I+K (mod N) of the ring: the whole ring if 2K+1 >= N. */
static int64_t R(ring_best)(const REAL *pc, int64_t n, int64_t k, int64_t i)
{
  int64_t width = 2 * k + 1 >= n ? n : 2 * k + 1;
  int64_t first = 2 * k + 1 >= n ? 0 : ((i - k) % n + n) % n, arg = first;
  for (int64_t s = 1; s < width; s++) {
    int64_t j = (first + s) % n;
    if (pc[j] < pc[arg] || (pc[j] == pc[arg] && j < arg)) arg = j;
  }
  return arg;
}

/* Ring topology: lbest row i is the personal best of particle i's ring_best,
 * taken before the iteration moves anything (a function of iteration t-1). */
static void R(update_ring_best)(struct cpu_swarm *c)
{
  struct R(view) s = R(view_of)(c);
  const size_t D = (size_t)c->D;
  REAL *l = c->lbest;
#pragma omp parallel for schedule(static) if (c->N * c->D >= CPU_PARALLEL_MIN)
  for (int64_t i = 0; i < c->N; i++) {
    int64_t j = R(ring_best)(s.pcost, c->N, c->cfg->swarm.neighbours, i);
    memcpy(l + (size_t)i * D, s.p + (size_t)j * D, D * sizeof(REAL));
  }
}

/* Whether particle J comes before K by (personal-best cost, index). */
static int R(before)(const REAL *pc, int64_t j, int64_t k)
{
  return pc[j] < pc[k] || (pc[j] == pc[k] && j < k);
}

/* Mean topology: every particle's attractor (lbest row 0) is the mean of the
 * swarm_mean_count best personal bests, rank r weighing (count - r)^2, summed
 * in double in rank order (mean_kernel, kernels/pso_kernels.cu, in this order). */
static void R(update_mean)(struct cpu_swarm *c)
{
  struct R(view) s = R(view_of)(c);
  const size_t D = (size_t)c->D;
  const int64_t n = c->N, mu = swarm_mean_count(n);
  int64_t *o = c->order;
  /* Insertion sort of the last order (a permutation): it changes little. */
  for (int64_t i = 1; i < n; i++) {
    int64_t v = o[i], j = i;
    for (; j > 0 && R(before)(s.pcost, v, o[j - 1]); j--) o[j] = o[j - 1];
    o[j] = v;
  }
  const double m = (double)mu, scale = m * (m + 1) * (2 * m + 1) / 6;
  REAL *l = c->lbest;
  for (size_t d = 0; d < D; d++) {
    double acc = 0.0;
    for (int64_t r = 0; r < mu; r++) {
      const double w = (double)(mu - r);
      acc += w * w * (double)s.p[(size_t)o[r] * D + d];
    }
    l[d] = (REAL)(acc / scale);
  }
}

/* Of particles J and K, the one with the lower (personal-best cost, index). */
static int64_t R(tournament)(const REAL *pc, int64_t j, int64_t k)
{
  return R(before)(pc, k, j) ? k : j;
}

/* clpso topology: lbest row i is particle i's exemplar for iteration T
 * (docs/algorithm.md, "The clpso topology"): the draws of epoch T / refresh,
 * the tournaments' winners by the personal bests before the iteration. */
static void R(update_exemplars)(struct cpu_swarm *c, int64_t t)
{
  struct R(view) s = R(view_of)(c);
  const int D = c->D;
  const int64_t e = t / c->cfg->swarm.refresh, n = c->N;
  REAL *l = c->lbest;
#pragma omp parallel for schedule(static) if (c->N * c->D >= CPU_PARALLEL_MIN)
  for (int64_t i = 0; i < n; i++) {
    uint64_t sub = swarm_subsequence(c->island, i);
    REAL *row = l + (size_t)i * (size_t)D;
    uint32_t w[4];
    int any = 0;
    for (int d = 0; d < D; d++) {
      philox_block(c->seed, sub, swarm_clpso_block(e, D, d), w);
      int64_t src = i;
      if (w[0] < c->learn[i]) {
        any = 1;
        src = R(tournament)(s.pcost, swarm_clpso_other(w[1], n, i), swarm_clpso_other(w[2], n, i));
      }
      row[d] = s.p[(size_t)src * (size_t)D + (size_t)d];
    }
    if (any) continue;
    philox_block(c->seed, sub, swarm_clpso_block(e, D, D), w);
    int d = swarm_clpso_dimension(w[0], D);
    philox_block(c->seed, sub, swarm_clpso_block(e, D, d), w);
    int64_t src =
        R(tournament)(s.pcost, swarm_clpso_other(w[1], n, i), swarm_clpso_other(w[2], n, i));
    row[d] = s.p[(size_t)src * (size_t)D + (size_t)d];
  }
}

/* Iteration 0: positions uniform in the bounds, velocities uniform in
 * [-vmax, vmax], personal bests at the start positions. */
static void R(init)(struct cpu_swarm *c)
{
  struct R(view) s = R(view_of)(c);
  const int D = c->D;
#pragma omp parallel for schedule(static) if (c->N * D >= CPU_PARALLEL_MIN)
  for (int64_t i = 0; i < c->N; i++) {
    REAL *x = s.x + (size_t)i * (size_t)D, *v = s.v + (size_t)i * (size_t)D;
    uint64_t sub = swarm_subsequence(c->island, i);
    for (int k = 0; 2 * k < D; k++) {
      uint32_t w[4];
      cpu_words(c->seed, sub, D, c->W, 0, k, w);
      for (int j = 0; j < 2 && 2 * k + j < D; j++) {
        int d = 2 * k + j;
        REAL u1 = U01(w[2 * j]), u2 = U01(w[2 * j + 1]);
        REAL xd = IPSO_M_FMA(s.span[d], u1, s.lo[d]);
        x[d] = xd < s.lo[d] ? s.lo[d] : (xd > s.hi[d] ? s.hi[d] : xd);
        v[d] = s.vmax[d] * ((REAL)2 * u2 - (REAL)1);
      }
    }
    REAL cost = R(cost_of)(c, x, s.prm);
    s.cost[i] = cost;
    s.pcost[i] = cost;
    memcpy(s.p + (size_t)i * (size_t)D, x, (size_t)D * sizeof(REAL));
  }
  for (size_t e = 0; c->frame && e < (size_t)D * (size_t)D; e++)
    ((REAL *)c->frame)[e] = (REAL)(e % ((size_t)D + 1) == 0);
  R(update_global_best)(c);
}

/* B <- the columns of (S + mu I) B orthonormalised by classical Gram-Schmidt
 * twice, rounded to REAL; S is the personal bests' scatter matrix [D * D]
 * (docs/algorithm.md, "The eigen frame"), B kept where S is zero; T, R: scratch
 * [D * D], [D]. frame_kernel (kernels/pso_kernels.cu) computes each element in this order. */
static void R(frame_rotate)(int D, const double *S, REAL *B, double *T, double *r)
{
  double trace = 0;
  for (int a = 0; a < D; a++) trace += S[(size_t)a * D + a];
  if (!(trace > 0) || !isfinite(trace)) return;
  double mu = trace / (double)D * IPSO_FRAME_RIDGE;
  for (int a = 0; a < D; a++)
    for (int b = 0; b < D; b++) {
      double t = 0;
      for (int k = 0; k < D; k++) t += S[(size_t)a * D + k] * (double)B[(size_t)k * D + b];
      T[(size_t)a * D + b] = t + mu * (double)B[(size_t)a * D + b];
    }
  for (int j = 0; j < D; j++) {
    for (int pass = 0; pass < 2; pass++) {
      for (int q = 0; q < j; q++) {
        double t = 0;
        for (int k = 0; k < D; k++) t += T[(size_t)k * D + q] * T[(size_t)k * D + j];
        r[q] = t;
      }
      for (int k = 0; k < D; k++) {
        double t = T[(size_t)k * D + j];
        for (int q = 0; q < j; q++) t -= r[q] * T[(size_t)k * D + q];
        T[(size_t)k * D + j] = t;
      }
    }
    double norm = 0;
    for (int k = 0; k < D; k++) norm += T[(size_t)k * D + j] * T[(size_t)k * D + j];
    norm = sqrt(norm);
    if (!(norm > 0)) return;
    for (int k = 0; k < D; k++) T[(size_t)k * D + j] /= norm;
  }
  for (size_t e = 0; e < (size_t)D * (size_t)D; e++) B[e] = (REAL)T[e];
}

/* Island C's eigen frame for the iterations from now on (frame_rotate),
 * from the scatter of its personal bests about their mean. */
static void R(update_frame)(struct cpu_swarm *c)
{
  const int D = c->D;
  const size_t DD = (size_t)D * (size_t)D;
  const REAL *p = (const REAL *)c->p;
  double *m = c->frame_work, *S = m + D, *T = S + DD, *r = T + DD;
  for (int d = 0; d < D; d++) {
    double t = 0;
    for (int64_t i = 0; i < c->N; i++) t += (double)p[(size_t)i * D + d];
    m[d] = t / (double)c->N;
  }
  for (int a = 0; a < D; a++)
    for (int b = 0; b < D; b++) {
      double t = 0;
      for (int64_t i = 0; i < c->N; i++)
        t += ((double)p[(size_t)i * D + a] - m[a]) * ((double)p[(size_t)i * D + b] - m[b]);
      S[(size_t)a * D + b] = t;
    }
  R(frame_rotate)(D, S, (REAL *)c->frame, T, r);
}

/* The attraction of a particle at X to P and G in the eigen frame B: the
 * velocity change B (a o B^T (p - x) + b o B^T (g - x)), a and b drawn per
 * axis from the words of iteration T, into DV [D]. U: scratch [D]. */
static void R(frame_pull)(const struct cpu_swarm *c, const REAL *x, const REAL *p, const REAL *g,
                          uint64_t sub, int64_t t, double *u, double *dv)
{
  const int D = c->D;
  const REAL *B = (const REAL *)c->frame;
  const REAL c1 = (REAL)c->cfg->swarm.cognitive, c2 = (REAL)c->cfg->swarm.social;
  double ep[IPSO_FRAME_MAX_DIMENSIONS], eg[IPSO_FRAME_MAX_DIMENSIONS];
  for (int d = 0; d < D; d++) {
    ep[d] = (double)(p[d] - x[d]);
    eg[d] = (double)(g[d] - x[d]);
  }
  /* Axes 2k and 2k + 1 together (the same sums in the same order, four at once). */
  for (int k = 0; 2 * k < D; k++) {
    uint32_t rw[4];
    cpu_words(c->seed, sub, D, c->W, t, k, rw);
    int q = 2 * k, two = q + 1 < D;
    double yp0 = 0, yg0 = 0, yp1 = 0, yg1 = 0;
    for (int d = 0; d < D; d++) {
      const REAL *bd = B + (size_t)d * D + q;
      double b0 = (double)bd[0], b1 = two ? (double)bd[1] : 0.0;
      yp0 += b0 * ep[d];
      yg0 += b0 * eg[d];
      yp1 += b1 * ep[d];
      yg1 += b1 * eg[d];
    }
    u[q] = (double)(c1 * U01(rw[0])) * yp0 + (double)(c2 * U01(rw[1])) * yg0;
    if (two) u[q + 1] = (double)(c1 * U01(rw[2])) * yp1 + (double)(c2 * U01(rw[3])) * yg1;
  }
  int d = 0;
  for (; d + 2 <= D; d += 2) {
    const REAL *b0 = B + (size_t)d * D, *b1 = b0 + D;
    double a0 = 0, a1 = 0;
    for (int q = 0; q < D; q++) {
      a0 += (double)b0[q] * u[q];
      a1 += (double)b1[q] * u[q];
    }
    dv[d] = a0, dv[d + 1] = a1;
  }
  for (; d < D; d++) {
    double acc = 0;
    for (int q = 0; q < D; q++) acc += (double)B[(size_t)d * D + q] * u[q];
    dv[d] = acc;
  }
}

/* Coordinate D of a particle after velocity VN: VN clamped to vmax, the
 * position kept in the bounds (with velocity zero where it stops at one). */
static inline void R(move)(const struct R(view) * s, REAL *x, REAL *v, REAL vn, int d)
{
  vn = vn > s->vmax[d] ? s->vmax[d] : (vn < -s->vmax[d] ? -s->vmax[d] : vn);
  REAL xn = x[d] + vn;
  if (xn < s->lo[d]) {
    xn = s->lo[d];
    vn = (REAL)0;
  } else if (xn > s->hi[d]) {
    xn = s->hi[d];
    vn = (REAL)0;
  }
  x[d] = xn;
  v[d] = vn;
}

/* One iteration T of the swarm: every attractor is of iteration T - 1 (strict). */
static void R(iterate)(struct cpu_swarm *c, int64_t t)
{
  struct R(view) s = R(view_of)(c);
  const int D = c->D;
  const struct ipso_swarm_config *sw = &c->cfg->swarm;
  const REAL w = (REAL)swarm_inertia_at(sw->inertia, sw->has_inertia_end, sw->inertia_end, t,
                                        c->cfg->run.max_iterations);
  const REAL c1 = (REAL)sw->cognitive, c2 = (REAL)sw->social;
  if (c->ring) R(update_ring_best)(c);
  if (c->mean) R(update_mean)(c);
  if (c->clpso) R(update_exemplars)(c, t);
  if (c->frame && swarm_frame_due(t)) R(update_frame)(c);
  const REAL *lbest = c->lbest;
#pragma omp parallel for schedule(static) if (c->N * D >= CPU_PARALLEL_MIN)
  for (int64_t i = 0; i < c->N; i++) {
    REAL *x = s.x + (size_t)i * (size_t)D, *v = s.v + (size_t)i * (size_t)D;
    REAL *p = s.p + (size_t)i * (size_t)D;
    const REAL *g = c->mean ? lbest : lbest ? lbest + (size_t)i * (size_t)D : s.gpos;
    uint64_t sub = swarm_subsequence(c->island, i);
    if (c->frame) {
      double u[IPSO_FRAME_MAX_DIMENSIONS], dv[IPSO_FRAME_MAX_DIMENSIONS];
      R(frame_pull)(c, x, p, g, sub, t, u, dv);
      for (int d = 0; d < D; d++) R(move)(&s, x, v, IPSO_M_FMA(w, v[d], (REAL)dv[d]), d);
    } else {
      for (int k = 0; 2 * k < D; k++) {
        uint32_t rw[4];
        cpu_words(c->seed, sub, D, c->W, t, k, rw);
        for (int j = 0; j < 2 && 2 * k + j < D; j++) {
          int d = 2 * k + j;
          REAL a = c1 * U01(rw[2 * j]);
          REAL b = c2 * U01(rw[2 * j + 1]);
          R(move)(&s, x, v, IPSO_M_FMA(w, v[d], IPSO_M_FMA(a, p[d] - x[d], b * (g[d] - x[d]))), d);
        }
      }
    }
    REAL cost = R(cost_of)(c, x, s.prm);
    s.cost[i] = cost;
    if (cost < s.pcost[i]) {
      s.pcost[i] = cost;
      memcpy(p, x, (size_t)D * sizeof(REAL));
    }
  }
  R(update_global_best)(c);
}

/* Whether particle I comes before J (or, with TIE, is J) in the order (cost,
 * index), or with WORST in its reverse. */
static int R(ranks_before)(const REAL *pc, int worst, int64_t i, int64_t j, int tie)
{
  if (worst) return pc[i] > pc[j] || (pc[i] == pc[j] && i + tie > j);
  return pc[i] < pc[j] || (pc[i] == pc[j] && i < j + tie);
}

/* The best (WORST = 0) or worst (WORST = 1) personal best after AFTER (the
 * previous pick, or -1) in that order. */
static int64_t R(next_ranked)(const struct cpu_swarm *c, int worst, int64_t after)
{
  const REAL *pc = (const REAL *)c->pcost;
  int64_t arg = -1;
  for (int64_t i = 0; i < c->N; i++) {
    if (after >= 0 && R(ranks_before)(pc, worst, i, after, 1)) continue;
    if (arg < 0 || R(ranks_before)(pc, worst, i, arg, 0)) arg = i;
  }
  return arg;
}

/* The personal bests of particles CHOSEN[0..count), or with CHOSEN NULL of
 * the COUNT best (their indices into INDEX). */
static void R(pack)(struct cpu_swarm *c, int count, const int64_t *chosen, int64_t *index,
                    double *pos, double *cost)
{
  const REAL *p = (const REAL *)c->p, *pc = (const REAL *)c->pcost;
  int64_t last = -1;
  for (int m = 0; m < count; m++) {
    int64_t i = chosen ? chosen[m] : (index[m] = last = R(next_ranked)(c, 0, last));
    cost[m] = (double)pc[i];
    for (int d = 0; d < c->D; d++) pos[(size_t)m * c->D + d] = (double)p[(size_t)i * c->D + d];
  }
}

/* Migrant m replaces particle REPLACED[m] (CHOSEN[m], or with CHOSEN NULL the
 * m-th worst) if it is better than its personal best (else REPLACED[m]
 * becomes -1); then the new global best. */
static void R(unpack)(struct cpu_swarm *c, int count, const int64_t *chosen, const double *pos,
                      const double *cost, int64_t *replaced)
{
  struct R(view) s = R(view_of)(c);
  int64_t last = -1;
  /* All victims first, so a replacement does not change the ranking of the
   * particles still to be chosen. */
  for (int m = 0; m < count; m++)
    replaced[m] = chosen ? chosen[m] : (last = R(next_ranked)(c, 1, last));
  for (int m = 0; m < count; m++) {
    int64_t i = replaced[m];
    REAL mc = (REAL)cost[m];
    if (!(mc < s.pcost[i])) {
      replaced[m] = -1;
      continue;
    }
    for (int d = 0; d < c->D; d++) {
      size_t e = (size_t)i * c->D + d;
      s.x[e] = s.p[e] = (REAL)pos[(size_t)m * c->D + d];
      s.v[e] = (REAL)0;
    }
    s.cost[i] = s.pcost[i] = mc;
  }
  R(update_global_best)(c);
}

/* Copies the swarm into ST (LOAD = 0) or from it (LOAD = 1, then the global best). */
static void R(transfer)(struct cpu_swarm *c, struct swarm_state *st, int load)
{
  REAL *r[5] = {c->x, c->v, c->p, c->cost, c->pcost};
  double *h[5] = {st->position, st->velocity, st->pbest_position, st->cost, st->pbest_cost};
  for (int a = 0; a < 5; a++)
    for (size_t e = 0; e < (size_t)c->N * (size_t)(a < 3 ? c->D : 1); e++) {
      if (load)
        r[a][e] = (REAL)h[a][e];
      else
        h[a][e] = (double)r[a][e];
    }
  REAL *b = c->frame;
  for (size_t e = 0; st->frame && e < (size_t)c->D * (size_t)c->D; e++) {
    if (load && b)
      b[e] = (REAL)st->frame[e];
    else if (!load) /* an island along the axes: the identity */
      st->frame[e] = b ? (double)b[e] : (double)(e % ((size_t)c->D + 1) == 0);
  }
  if (load) R(update_global_best)(c);
}

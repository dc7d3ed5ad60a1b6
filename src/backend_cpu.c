/* The CPU reference backend: the swarms of the backend's islands in host
 * memory, structure of arrays, OpenMP over particles (or over islands, when
 * the islands are small), the GPU's random stream (src/philox.h). */
#include "backend_cpu_swarm.h"

/* The migration's buffers (cpu_migrate_out, cpu_migrate_in), for
 * messages of up to cap migrants. */
struct cpu_migration {
  int cap;
  double *msg;               /* [(count + 2) * message]: every island's, then the other ranks' */
  double *merged;            /* [2 * message]: an island's migrants in, in order */
  double *sent;              /* [count] the best cost of each island's message */
  int64_t *index, *replaced; /* [2 * cap] */
  int have_sent;             /* sent holds a migration's costs */
};

/* A backend's islands: island k (global id first + k) in isl[k], each with
 * its own arrays, sharing the objective. */
struct cpu_backend {
  int count;
  struct cpu_swarm *isl;       /* [count] */
  struct user_objective *user; /* a user objective, opened once */
  struct cpu_migration mig;
  /* step() in two halves (IPSO_CPU_HALVES=1): the histories of the steps
   * computed and not yet handed back, first in first out. */
  struct cpu_step {
    size_t n, cap; /* values */
    double *best;
  } steps[2];
  int oldest, pending;
};

#define REAL double
#define R(name) name##_d
#define U01 philox_uniform_double
#include "backend_cpu_impl.h"
#undef REAL
#undef R
#undef U01

#define REAL float
#define R(name) name##_f
#define U01 philox_uniform_float
#include "backend_cpu_impl.h"
#undef REAL
#undef R
#undef U01

#define DISPATCH(c, fn, ...)                                                                       \
  ((c)->precision == IPSO_FLOAT ? fn##_f(__VA_ARGS__) : fn##_d(__VA_ARGS__))

/* Iteration 0 and iteration T of swarm C, in the build this processor
 * runs (backend_cpu_fma.c where it has AVX2 and FMA; the same bits). */
static void cpu_swarm_init(struct cpu_swarm *c)
{
#if IPSO_CPU_FMA_BUILD
  if (c->fma) {
    cpu_fma_init(c);
    return;
  }
#endif
  DISPATCH(c, init, c);
}

static void cpu_swarm_iterate(struct cpu_swarm *c, int64_t t)
{
#if IPSO_CPU_FMA_BUILD
  if (c->fma) {
    cpu_fma_iterate(c, t);
    return;
  }
#endif
  DISPATCH(c, iterate, c, t);
}

static int cpu_init(struct backend *b)
{
  struct cpu_backend *cb = b->impl;
  for (int k = 0; k < cb->count; k++) cpu_swarm_init(&cb->isl[k]);
  return IPSO_OK;
}

/* Iterations FIRST..LAST of island C, its best after each into BEST[0..n). */
static void cpu_run(struct cpu_swarm *c, int64_t first, int64_t last, double *best)
{
  for (int64_t t = first; t <= last; t++) {
    cpu_swarm_iterate(c, t);
    best[t - first] = c->gcost;
  }
}

/* Islands are independent between migrations: small ones run in parallel,
 * one island per thread for the whole call (each island's arithmetic is the
 * same on any thread, so the results do not depend on the thread count);
 * large ones one after the other, each parallel over its particles. */
static int cpu_step(struct backend *b, int64_t first, int64_t last, double *best)
{
  struct cpu_backend *cb = b->impl;
  int64_t n = last - first + 1;
  int small = cb->isl[0].N * cb->isl[0].D < CPU_PARALLEL_MIN;
#pragma omp parallel for schedule(dynamic, 1) if (small && cb->count > 1)
  for (int k = 0; k < cb->count; k++) cpu_run(&cb->isl[k], first, last, best + (size_t)k * n);
  return IPSO_OK;
}

/* step() in two halves as the GPU's (backend.h), for the tests of the
 * solver's loop that the GPU runs (a slice begun ahead, the migrants in
 * behind the messages out; IPSO_CPU_HALVES=1): step_begin computes the
 * iterations at once, step_end hands back the oldest step's history. */
static int cpu_step_begin_out(struct backend *b, int64_t first, int64_t last, int64_t mid,
                              int (*out)(void *ctx), void *ctx)
{
  struct cpu_backend *cb = b->impl;
  if (cb->pending == 2) return IPSO_FAIL("cpu", "two steps begun and not ended");
  struct cpu_step *st = &cb->steps[(cb->oldest + cb->pending) % 2];
  size_t n = (size_t)(last - first + 1), K = (size_t)cb->count;
  st->n = n * K;
  if (2 * st->n > st->cap) {
    /* Room for the history and, behind it, its two parts. */
    double *p = realloc(st->best, 2 * st->n * sizeof *p);
    if (!p) return IPSO_FAIL("cpu", "out of memory");
    st->best = p;
    st->cap = 2 * st->n;
  }
  if (out && mid >= first && mid < last) {
    /* FIRST..MID, the messages out, MID + 1..LAST: each part's history
     * [K, part] behind the buffer's first half, then island by island into
     * it as one step's [K, n]. */
    size_t n1 = (size_t)(mid - first + 1), n2 = n - n1;
    double *a = st->best + st->n, *c = a + n1 * K;
    IPSO_TRY(cpu_step(b, first, mid, a));
    IPSO_TRY(out(ctx));
    IPSO_TRY(cpu_step(b, mid + 1, last, c));
    for (size_t k = 0; k < K; k++) {
      memcpy(st->best + k * n, a + k * n1, n1 * sizeof(double));
      memcpy(st->best + k * n + n1, c + k * n2, n2 * sizeof(double));
    }
  } else {
    IPSO_TRY(cpu_step(b, first, last, st->best));
  }
  cb->pending++;
  return IPSO_OK;
}

static int cpu_step_begin(struct backend *b, int64_t first, int64_t last)
{
  return cpu_step_begin_out(b, first, last, -1, NULL, NULL);
}

static int cpu_step_end(struct backend *b, double *best)
{
  struct cpu_backend *cb = b->impl;
  if (!cb->pending) return IPSO_FAIL("cpu", "no step begun");
  struct cpu_step *st = &cb->steps[cb->oldest];
  memcpy(best, st->best, st->n * sizeof *best);
  cb->oldest = (cb->oldest + 1) % 2;
  cb->pending--;
  return IPSO_OK;
}

static int cpu_best(struct backend *b, int k, struct island_best *out)
{
  struct cpu_swarm *c = &((struct cpu_backend *)b->impl)->isl[k];
  out->cost = c->gcost;
  out->particle = c->gidx;
  for (int d = 0; d < c->D; d++)
    out->position[d] =
        c->precision == IPSO_FLOAT ? (double)((float *)c->gpos)[d] : ((double *)c->gpos)[d];
  return IPSO_OK;
}

static int cpu_best_costs(struct backend *b, double *cost)
{
  const struct cpu_backend *cb = b->impl;
  for (int k = 0; k < cb->count; k++) cost[k] = cb->isl[k].gcost;
  return IPSO_OK;
}

static int cpu_pack(struct backend *b, int k, int count, double *pos, double *cost, int64_t *index)
{
  struct cpu_swarm *c = &((struct cpu_backend *)b->impl)->isl[k];
  DISPATCH(c, pack, c, count, pos, cost, index);
  return IPSO_OK;
}

static int cpu_unpack(struct backend *b, int k, int count, const double *pos, const double *cost,
                      int64_t *replaced)
{
  struct cpu_swarm *c = &((struct cpu_backend *)b->impl)->isl[k];
  DISPATCH(c, unpack, c, count, pos, cost, replaced);
  return IPSO_OK;
}

static int cpu_pack_chosen(struct backend *b, int k, int count, const int64_t *index, double *pos,
                           double *cost)
{
  struct cpu_swarm *c = &((struct cpu_backend *)b->impl)->isl[k];
  DISPATCH(c, pack_chosen, c, count, index, pos, cost);
  return IPSO_OK;
}

static int cpu_unpack_chosen(struct backend *b, int k, int count, const int64_t *index,
                             const double *pos, const double *cost, int64_t *replaced)
{
  struct cpu_swarm *c = &((struct cpu_backend *)b->impl)->isl[k];
  DISPATCH(c, unpack_chosen, c, count, index, pos, cost, replaced);
  return IPSO_OK;
}

static void cpu_migration_free(struct cpu_migration *m)
{
  free(m->msg);
  free(m->merged);
  free(m->sent);
  free(m->index);
  free(m->replaced);
  memset(m, 0, sizeof *m);
}

/* The migration's buffers for messages of COUNT migrants. */
static int cpu_reserve_migration(struct cpu_backend *cb, int count)
{
  struct cpu_migration *m = &cb->mig;
  if (count <= m->cap) return IPSO_OK;
  cpu_migration_free(m);
  size_t n = (size_t)migration_message_len(count, cb->isl[0].D);
  m->msg = malloc((size_t)(cb->count + 2) * n * sizeof(double));
  m->merged = malloc(2 * n * sizeof(double));
  m->sent = malloc((size_t)cb->count * sizeof(double));
  m->index = malloc(2 * (size_t)count * sizeof(int64_t));
  m->replaced = malloc(2 * (size_t)count * sizeof(int64_t));
  if (!m->msg || !m->merged || !m->sent || !m->index || !m->replaced) {
    cpu_migration_free(m);
    return IPSO_FAIL("migration", "cannot allocate migration buffers");
  }
  m->cap = count;
  return IPSO_OK;
}

/* The migration where the swarms are (backend.h), on the host: every
 * island's message packed, then island by island the messages of its links
 * that carry merged (migration_merge) and unpacked over its worst or drawn
 * particles. */
static int cpu_migrate_out(struct backend *b, int count, const int64_t *select, int victims,
                           double *const edge[2])
{
  (void)victims; /* chosen in cpu_migrate_in */
  struct cpu_backend *cb = b->impl;
  struct cpu_migration *m = &cb->mig;
  IPSO_TRY(cpu_reserve_migration(cb, count));
  int K = cb->count;
  size_t n = (size_t)migration_message_len(count, cb->isl[0].D);
  for (int k = 0; k < K; k++) {
    double *msg = m->msg + (size_t)k * n;
    if (select)
      IPSO_TRY(cpu_pack_chosen(b, k, count, select + (size_t)k * (size_t)count, msg + count, msg));
    else
      IPSO_TRY(cpu_pack(b, k, count, msg + count, msg, m->index));
    m->sent[k] = msg[0];
    for (int i = 1; i < count; i++)
      if (cost_better(msg[i], m->sent[k])) m->sent[k] = msg[i];
  }
  m->have_sent = 1;
  if (edge) {
    memcpy(edge[0], m->msg, n * sizeof(double));
    memcpy(edge[1], m->msg + (size_t)(K - 1) * n, n * sizeof(double));
  }
  return IPSO_OK;
}

static int cpu_migrate_in(struct backend *b, int count, int links, const unsigned char *carried,
                          const int64_t *replace, const double *const remote[2])
{
  struct cpu_backend *cb = b->impl;
  struct cpu_migration *m = &cb->mig;
  IPSO_TRY(cpu_reserve_migration(cb, count));
  int K = cb->count, D = cb->isl[0].D;
  size_t n = (size_t)migration_message_len(count, D);
  const double *msg = m->msg;
  if (remote) {
    memcpy(m->msg + (size_t)K * n, remote[0], n * sizeof(double));
    memcpy(m->msg + (size_t)(K + 1) * n, remote[1], n * sizeof(double));
  }
  for (int k = 0; k < K; k++) {
    /* The previous island's message (the previous rank's last island's, or
     * with the whole ring here the last one's), then the next one's. */
    const double *from[2] = {k > 0    ? msg + (size_t)(k - 1) * n
                             : remote ? msg + (size_t)K * n
                                      : msg + (size_t)(K - 1) * n,
                             k < K - 1 ? msg + (size_t)(k + 1) * n
                             : remote  ? msg + (size_t)(K + 1) * n
                                       : msg};
    const double *open[2] = {NULL, NULL};
    int nopen = 0;
    for (int l = 0; l < links && l < 2; l++)
      if (carried[2 * k + l]) open[nopen++] = from[l];
    if (!nopen) continue;
    int total = nopen * count;
    double *cost = m->merged, *pos = m->merged + total;
    IPSO_TRY(migration_merge(nopen, count, D, open, cost, pos));
    if (replace)
      IPSO_TRY(cpu_unpack_chosen(b, k, total, replace + (size_t)k * (size_t)links * (size_t)count,
                                 pos, cost, m->replaced));
    else
      IPSO_TRY(cpu_unpack(b, k, total, pos, cost, m->replaced));
  }
  return IPSO_OK;
}

static int cpu_migrate_sent(struct backend *b, double *sent)
{
  struct cpu_backend *cb = b->impl;
  if (!cb->mig.have_sent) return IPSO_FAIL("migration", "no migration's costs to read");
  memcpy(sent, cb->mig.sent, (size_t)cb->count * sizeof(double));
  return IPSO_OK;
}

static int cpu_save(struct backend *b, struct swarm_state *s)
{
  struct cpu_backend *cb = b->impl;
  for (int k = 0; k < cb->count; k++) {
    struct cpu_swarm *c = &cb->isl[k];
    struct swarm_state v = swarm_state_island(s, c->N, k);
    DISPATCH(c, save, c, &v);
  }
  return IPSO_OK;
}

static int cpu_load(struct backend *b, const struct swarm_state *s)
{
  struct cpu_backend *cb = b->impl;
  for (int k = 0; k < cb->count; k++) {
    struct cpu_swarm *c = &cb->isl[k];
    struct swarm_state v = swarm_state_island(s, c->N, k);
    DISPATCH(c, load, c, &v);
  }
  return IPSO_OK;
}

static void cpu_destroy(struct backend *b)
{
  struct cpu_backend *cb = b->impl;
  if (!cb) return;
  for (int k = 0; cb->isl && k < cb->count; k++) {
    struct cpu_swarm *c = &cb->isl[k];
    free(c->x);
    free(c->v);
    free(c->p);
    free(c->cost);
    free(c->pcost);
    free(c->gpos);
    free(c->lbest);
    free(c->learn);
    free(c->tables);
  }
  free(cb->isl);
  cpu_migration_free(&cb->mig);
  for (int i = 0; i < 2; i++) free(cb->steps[i].best);
  user_objective_close(cb->user);
  free(cb);
  b->impl = NULL;
}

static const struct backend_ops cpu_ops = {
    .name = "cpu",
    .init = cpu_init,
    .step = cpu_step,
    .best = cpu_best,
    .best_costs = cpu_best_costs,
    .pack_migrants = cpu_pack,
    .unpack_migrants = cpu_unpack,
    .pack_chosen = cpu_pack_chosen,
    .unpack_chosen = cpu_unpack_chosen,
    .migrate_out = cpu_migrate_out,
    .migrate_in = cpu_migrate_in,
    .migrate_sent = cpu_migrate_sent,
    .save_state = cpu_save,
    .load_state = cpu_load,
    .destroy = cpu_destroy,
};

/* cpu_ops with step() in two halves too (IPSO_CPU_HALVES=1), filled in
 * by backend_cpu_create. */
static struct backend_ops cpu_ops_halves;

void backend_cpu_threads(int ranks_on_node)
{
#ifdef _OPENMP
  if (getenv("OMP_NUM_THREADS")) {
    /* A number of threads no node can start (OMP_NUM_THREADS=100000: the
     * OpenMP runtime fails to create them and the first parallel region
     * crashes): at most 8 per core, 64 at least. */
    int limit = 8 * omp_get_num_procs(), asked = omp_get_max_threads();
    if (limit < 64) limit = 64;
    if (asked > limit) {
      log_warn("OMP_NUM_THREADS asks for %d threads, more than %d (8 per core on this node's %d): "
               "running %d",
               asked, limit, omp_get_num_procs(), limit);
      omp_set_num_threads(limit);
    }
    return;
  }
  int n = omp_get_num_procs() / (ranks_on_node > 0 ? ranks_on_node : 1);
  omp_set_num_threads(n > 0 ? n : 1);
#else
  (void)ranks_on_node;
#endif
}

int backend_cpu_create(const struct swarm_setup *setup, struct backend *b)
{
  const struct ipso_config *cfg = setup->cfg;
  struct cpu_backend *cb = calloc(1, sizeof *cb);
  if (!cb) return IPSO_FAIL("cpu", "out of memory");
  const char *halves = getenv("IPSO_CPU_HALVES");
  b->ops = &cpu_ops;
  if (halves && strcmp(halves, "1") == 0) {
    cpu_ops_halves = cpu_ops;
    cpu_ops_halves.step_begin = cpu_step_begin;
    cpu_ops_halves.step_end = cpu_step_end;
    cpu_ops_halves.step_begin_out = cpu_step_begin_out;
    b->ops = &cpu_ops_halves;
  }
  b->setup = *setup;
  b->impl = cb;
  b->segment_updates = 0x1p25; /* about 0.1 s on one core */
  b->exact = 1;
  cb->count = swarm_setup_count(setup);
  if (!(cb->isl = calloc((size_t)cb->count, sizeof *cb->isl))) {
    cpu_destroy(b);
    return IPSO_FAIL("cpu", "out of memory");
  }
  objective_fn_d eval_d, eval_d_fma;
  objective_fn_f eval_f, eval_f_fma;
  if (cfg->objective.id == IPSO_OBJ_USER) {
    int rc = user_objective_open_cpu(cfg, &cb->user);
    if (rc == IPSO_OK && cfg->objective.separable) rc = user_separable_check_cpu(cfg, cb->user);
    if (rc != IPSO_OK) {
      cpu_destroy(b);
      return rc;
    }
    eval_d = user_objective_fn_d(cb->user);
    eval_f = user_objective_fn_f(cb->user);
  } else {
    const struct objective_info *info = objective_get(cfg->objective.id);
    eval_d = info->eval_d;
    eval_f = info->eval_f;
  }
  /* A user objective is its own in both builds, as is a built-in one that
   * the AVX2 build does not list (the same bits either way). */
  eval_d_fma = eval_d;
  eval_f_fma = eval_f;
  int fma = 0;
#if IPSO_CPU_FMA_BUILD
  fma = cpu_fma_usable();
  if (fma) cpu_fma_objective(cfg->objective.id, &eval_d_fma, &eval_f_fma);
#endif
#ifdef _OPENMP
  int threads = omp_get_max_threads();
  snprintf(b->description, sizeof b->description, "cpu (%d OpenMP thread%s%s)", threads,
           threads == 1 ? "" : "s", fma ? ", AVX2 and FMA" : "");
#else
  snprintf(b->description, sizeof b->description, "cpu (1 thread%s)", fma ? ", AVX2 and FMA" : "");
#endif
  struct swarm_consts k;
  int rc = swarm_consts_build(cfg, &k);
  for (int i = 0; i < cb->count && rc == IPSO_OK; i++) {
    struct cpu_swarm *c = &cb->isl[i];
    c->cfg = cfg;
    c->island = setup->island + i;
    c->D = cfg->objective.dimensions;
    c->N = cfg->swarm.particles;
    c->seed = cfg->run.seed;
    c->W = swarm_words_per_iteration(c->D);
    c->precision = cfg->run.precision;
    c->sign = cfg->objective.goal == IPSO_MAXIMIZE ? -1.0 : 1.0;
    c->inertia = cfg->swarm.inertia;
    c->cognitive = cfg->swarm.cognitive;
    c->social = cfg->swarm.social;
    c->has_w_end = cfg->swarm.has_inertia_end;
    c->w_end = cfg->swarm.inertia_end;
    c->tmax = cfg->run.max_iterations;
    c->ring = cfg->swarm.topology == IPSO_SWARM_RING;
    c->neighbours = cfg->swarm.neighbours;
    c->clpso = cfg->swarm.topology == IPSO_SWARM_CLPSO;
    c->refresh = cfg->swarm.refresh;
    c->eval_d = eval_d;
    c->eval_f = eval_f;
    c->eval_d_fma = eval_d_fma;
    c->eval_f_fma = eval_f_fma;
    c->fma = fma;
    rc = DISPATCH(c, alloc, c, &k);
  }
  swarm_consts_free(&k);
  if (rc != IPSO_OK) cpu_destroy(b);
  return rc;
}

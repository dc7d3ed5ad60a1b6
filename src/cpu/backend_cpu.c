/* The CPU reference backend: the swarms of the backend's islands in host
 * memory, structure of arrays, OpenMP over particles (or over islands, when
 * the islands are small), the GPU's random stream (philox.h). */
#include <stdio.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <string.h>

#include "backend_cpu.h"
#include "check.h"
#include "migration.h"
#include "philox.h"
#include "user_objective.h"

#define IPSO_FN(name) cpu_unused_##name
#define IPSO_REAL double
#include "objectives.h" /* for IPSO_M_FMA */
#undef IPSO_FN
#undef IPSO_REAL

/* Swarms smaller than this (particles x dimensions) run on one thread: the
 * fork and join of a parallel region would cost more than they save. */
#define CPU_PARALLEL_MIN 16384

struct cpu_swarm {
  const struct ipso_config *cfg; /* the swarm's parameters */
  int island, D;
  int64_t N;
  uint64_t seed, W;
  objective_fn_d eval_d;
  objective_fn_f eval_f;
  int ring, clpso, mean;                 /* the topology: follow lbest rows (mean: row 0) */
  uint32_t *learn;                       /* clpso: [N] swarm_clpso_threshold */
  void *lbest;                           /* ring, clpso: REAL [N * D] attractors; mean: [D] */
  int64_t *order;                        /* mean: [N] particles by (personal-best cost, index) */
  void *x, *v, *p, *cost, *pcost, *gpos; /* REAL arrays, in one block from x */
  void *lo, *hi, *span, *vmax, *prm;     /* REAL [D] each, in the same block */
  double gcost;                          /* global best cost, exact */
  int64_t gidx;
  void *frame;        /* eigen frame: REAL [D * D] axes (column q axis q), or NULL */
  double *frame_work; /* its update's scratch: [2 D^2 + 2 D] */
};

/* The 4 random words of dimensions 2k and 2k+1 of one particle at iteration
 * T (in 1-D: the iteration's 2 words in w[0], w[1]). */
static inline void cpu_words(uint64_t seed, uint64_t sub, int D, uint64_t W, int64_t t, int k,
                             uint32_t w[4])
{
  uint64_t off = (uint64_t)t * W + 4u * (uint64_t)k;
  philox_block(seed, sub, off / 4, w);
  if (D == 1 && off % 4) {
    w[0] = w[2];
    w[1] = w[3];
  }
}

/* The migration's buffers, for messages of up to CAP migrants. */
struct cpu_migration {
  int cap;
  double *msg;               /* [(count + 2) * message]: every island's, then the other ranks' */
  double *merged;            /* [2 * message] after msg: an island's migrants in, in order */
  double *sent;              /* [count] after merged: the best cost of each island's message */
  int64_t *index, *replaced; /* [2 * cap] each, in one block */
  int have_sent;             /* sent holds a migration's costs */
};

/* A backend's islands: island k (global id first + k) in isl[k], each with
 * its own arrays, sharing the objective. */
struct cpu_backend {
  int count;
  struct cpu_swarm *isl;       /* [count] */
  struct user_objective *user; /* a user objective, opened once */
  struct cpu_migration mig;
};

/* Island C's eigen frame and the scratch of its update. */
static int cpu_frame_alloc(struct cpu_swarm *c, size_t es)
{
  size_t DD = (size_t)c->D * (size_t)c->D;
  c->frame = malloc(DD * es);
  c->frame_work = malloc((2 * DD + 2 * (size_t)c->D) * sizeof(double));
  if (!c->frame || !c->frame_work)
    return IPSO_FAIL("cpu", "cannot allocate the eigen frame of %d dimensions", c->D);
  return IPSO_OK;
}

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
  ((c)->cfg->run.precision == IPSO_FLOAT ? fn##_f(__VA_ARGS__) : fn##_d(__VA_ARGS__))

static int cpu_init(struct backend *b)
{
  struct cpu_backend *cb = b->impl;
  for (int k = 0; k < cb->count; k++) DISPATCH(&cb->isl[k], init, &cb->isl[k]);
  return IPSO_OK;
}

/* Iterations FIRST..LAST of island C, its best after each into BEST[0..n). */
static void cpu_run(struct cpu_swarm *c, int64_t first, int64_t last, double *best)
{
  for (int64_t t = first; t <= last; t++) {
    DISPATCH(c, iterate, c, t);
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

static int cpu_best(struct backend *b, int k, struct island_best *out)
{
  struct cpu_swarm *c = &((struct cpu_backend *)b->impl)->isl[k];
  out->cost = c->gcost;
  out->particle = c->gidx;
  for (int d = 0; d < c->D; d++)
    out->position[d] = c->cfg->run.precision == IPSO_FLOAT ? (double)((float *)c->gpos)[d]
                                                           : ((double *)c->gpos)[d];
  return IPSO_OK;
}

static int cpu_best_costs(struct backend *b, double *cost)
{
  const struct cpu_backend *cb = b->impl;
  for (int k = 0; k < cb->count; k++) cost[k] = cb->isl[k].gcost;
  return IPSO_OK;
}

int cpu_pack_migrants(struct backend *b, int k, int count, double *pos, double *cost,
                      int64_t *index)
{
  struct cpu_swarm *c = &((struct cpu_backend *)b->impl)->isl[k];
  DISPATCH(c, pack, c, count, NULL, index, pos, cost);
  return IPSO_OK;
}

int cpu_unpack_migrants(struct backend *b, int k, int count, const double *pos, const double *cost,
                        int64_t *replaced)
{
  struct cpu_swarm *c = &((struct cpu_backend *)b->impl)->isl[k];
  DISPATCH(c, unpack, c, count, NULL, pos, cost, replaced);
  return IPSO_OK;
}

int cpu_pack_chosen(struct backend *b, int k, int count, const int64_t *index, double *pos,
                    double *cost)
{
  struct cpu_swarm *c = &((struct cpu_backend *)b->impl)->isl[k];
  DISPATCH(c, pack, c, count, index, NULL, pos, cost);
  return IPSO_OK;
}

int cpu_unpack_chosen(struct backend *b, int k, int count, const int64_t *index, const double *pos,
                      const double *cost, int64_t *replaced)
{
  struct cpu_swarm *c = &((struct cpu_backend *)b->impl)->isl[k];
  DISPATCH(c, unpack, c, count, index, pos, cost, replaced);
  return IPSO_OK;
}

static void cpu_migration_free(struct cpu_migration *m)
{
  free(m->msg);
  free(m->index);
  memset(m, 0, sizeof *m);
}

/* The migration's buffers for messages of COUNT migrants. */
static int cpu_reserve_migration(struct cpu_backend *cb, int count)
{
  struct cpu_migration *m = &cb->mig;
  if (count <= m->cap) return IPSO_OK;
  cpu_migration_free(m);
  size_t n = (size_t)migration_message_len(count, cb->isl[0].D);
  m->msg = malloc(((size_t)(cb->count + 4) * n + (size_t)cb->count) * sizeof(double));
  m->index = malloc(4 * (size_t)count * sizeof(int64_t));
  if (!m->msg || !m->index) {
    cpu_migration_free(m);
    return IPSO_FAIL("migration", "cannot allocate migration buffers");
  }
  m->merged = m->msg + (size_t)(cb->count + 2) * n;
  m->sent = m->merged + 2 * n;
  m->replaced = m->index + 2 * (size_t)count;
  m->cap = count;
  return IPSO_OK;
}

/* Packs every island's message, the edge islands' also into EDGE (backend.h);
 * cpu_migrate_in merges the carried ones over each island's worst or drawn particles. */
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
    const int64_t *chosen = select ? select + (size_t)k * (size_t)count : NULL;
    DISPATCH(&cb->isl[k], pack, &cb->isl[k], count, chosen, m->index, msg + count, msg);
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
    const int64_t *chosen = replace ? replace + (size_t)k * (size_t)links * (size_t)count : NULL;
    DISPATCH(&cb->isl[k], unpack, &cb->isl[k], total, chosen, pos, cost, m->replaced);
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

/* Copies the swarms into S (LOAD = 0) or from it (LOAD = 1). */
static int cpu_transfer(struct backend *b, const struct swarm_state *s, int load)
{
  struct cpu_backend *cb = b->impl;
  for (int k = 0; k < cb->count; k++) {
    struct cpu_swarm *c = &cb->isl[k];
    struct swarm_state v = swarm_state_island(s, c->N, k);
    DISPATCH(c, transfer, c, &v, load);
  }
  return IPSO_OK;
}

static int cpu_save(struct backend *b, struct swarm_state *s)
{
  return cpu_transfer(b, s, 0);
}

static int cpu_load(struct backend *b, const struct swarm_state *s)
{
  return cpu_transfer(b, s, 1);
}

static int cpu_evaluate(struct backend *b, const double *x, int64_t n, double *f)
{
  struct cpu_backend *cb = b->impl;
  return DISPATCH(&cb->isl[0], evaluate, &cb->isl[0], x, n, f);
}

static void cpu_destroy(struct backend *b)
{
  struct cpu_backend *cb = b->impl;
  if (!cb) return;
  for (int k = 0; cb->isl && k < cb->count; k++) {
    struct cpu_swarm *c = &cb->isl[k];
    free(c->x);
    free(c->lbest);
    free(c->order);
    free(c->learn);
    free(c->frame);
    free(c->frame_work);
  }
  free(cb->isl);
  cpu_migration_free(&cb->mig);
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
    .migrate_out = cpu_migrate_out,
    .migrate_in = cpu_migrate_in,
    .migrate_sent = cpu_migrate_sent,
    .save_state = cpu_save,
    .load_state = cpu_load,
    .destroy = cpu_destroy,
    .evaluate = cpu_evaluate,
};

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
  b->ops = &cpu_ops;
  b->setup = *setup;
  b->impl = cb;
  b->segment_updates = 0x1p25; /* a fraction of a second of one core's work */
  b->exact = 1;
  cb->count = swarm_setup_count(setup);
  if (!(cb->isl = calloc((size_t)cb->count, sizeof *cb->isl))) {
    cpu_destroy(b);
    return IPSO_FAIL("cpu", "out of memory");
  }
  objective_fn_d eval_d;
  objective_fn_f eval_f;
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
#ifdef _OPENMP
  int threads = omp_get_max_threads();
  snprintf(b->description, sizeof b->description, "cpu (%d OpenMP thread%s)", threads,
           threads == 1 ? "" : "s");
#else
  snprintf(b->description, sizeof b->description, "cpu (1 thread)");
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
    c->mean = swarm_mean_on(cfg, c->island);
    c->ring = !c->mean &&
              (cfg->swarm.topology == IPSO_SWARM_RING || cfg->swarm.topology == IPSO_SWARM_MIXED);
    c->clpso = cfg->swarm.topology == IPSO_SWARM_CLPSO;
    c->eval_d = eval_d;
    c->eval_f = eval_f;
    if (rc == IPSO_OK && swarm_frame_eigen(cfg, c->island))
      rc = cpu_frame_alloc(c, cfg->run.precision == IPSO_FLOAT ? sizeof(float) : sizeof(double));
    if (rc == IPSO_OK) rc = DISPATCH(c, alloc, c, &k);
  }
  swarm_consts_free(&k);
  if (rc != IPSO_OK) cpu_destroy(b);
  return rc;
}

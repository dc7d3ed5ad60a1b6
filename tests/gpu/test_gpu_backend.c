/* GPU backend against the CPU reference: the kernel variants agree with
 * each other bit for bit in strict mode, with the CPU backend to rounding
 * (exactly where the objective has no transcendental functions and one
 * thread evaluates a particle), strict runs repeat exactly, save/load and
 * migration behave as on the CPU, and particle counts that are not
 * multiples of the block size work; all of it for the global and the ring
 * topology, and for clpso (exemplar rows; its inertia schedule). K islands
 * in one backend (one launch per iteration for all of them) give the bits
 * of K backends of one island each, migration and save/load included; so
 * do the random policies' operations on drawn particles (pack_chosen,
 * unpack_chosen); eigen frames too. Exit 77 without a GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_cpu.h"
#include "backend_gpu.h"
#include "config.h"
#include "gpu_plan.h"
#include "log.h"
#include "migration.h"

#include "state_compare.h"
#include "unit_check.h"

/* The plan's own choices. */
static const struct gpu_overrides no_overrides;

struct problem {
  const char *objective;
  int dims;
  int particles;
  const char *precision;
  int exact;         /* CPU and GPU must agree bit for bit */
  int ring;          /* 0: global topology; k > 0: ring of k neighbours on each side */
  int clpso;         /* r > 0: clpso topology with refresh r (ring 0) */
  const char *frame; /* swarm.frame (NULL: "axes") */
  int mean;          /* 1: mean topology; 2: mixed (the ring of k = ring neighbours) */
};

/* The topology in words, for the lines printed. */
static const char *topology_of(const struct problem *p, char *buf, size_t n)
{
  if (p->mean)
    snprintf(buf, n, p->mean == 1 ? "mean" : "mixed k=%d", p->ring);
  else if (p->clpso)
    snprintf(buf, n, "clpso refresh=%d", p->clpso);
  else if (p->ring)
    snprintf(buf, n, "ring k=%d", p->ring);
  else
    snprintf(buf, n, "global");
  return buf;
}

static int make_config(const struct problem *p, const char *kernel, const char *sync,
                       unsigned long long seed, struct ipso_config *cfg)
{
  char text[1024], ring[64] = "topology = \"global\"\n";
  if (p->ring) snprintf(ring, sizeof ring, "topology = \"ring\"\nneighbours = %d\n", p->ring);
  if (p->clpso) snprintf(ring, sizeof ring, "topology = \"clpso\"\nrefresh = %d\n", p->clpso);
  if (p->mean == 1) snprintf(ring, sizeof ring, "topology = \"mean\"\n");
  if (p->mean == 2) snprintf(ring, sizeof ring, "topology = \"mixed\"\nneighbours = %d\n", p->ring);
  snprintf(text, sizeof text,
           "[run]\nseed = %llu\nprecision = \"%s\"\nmax_iterations = 100\noutput = \"\"\n"
           "[objective]\nname = \"%s\"\ndimensions = %d\n"
           "[swarm]\nparticles = %d\nkernel = \"%s\"\nsync = \"%s\"\nframe = \"%s\"\n%s",
           seed, p->precision, p->objective, p->dims, p->particles, kernel, sync,
           p->frame ? p->frame : "axes", ring);
  return config_load_text(text, "test_gpu_backend", 0, NULL, 1, cfg);
}

/* Runs ITERS iterations on the CPU backend (GPU NULL) or on the GPU backend
 * with the overrides GPU, and copies the state out. */
static int run(const struct ipso_config *cfg, const struct gpu_overrides *gpu, int iters,
               struct swarm_state *st, double *best)
{
  struct swarm_setup setup = {cfg, 0, 1, 0, 1};
  struct backend b;
  memset(&b, 0, sizeof b);
  int rc = gpu ? backend_gpu_create_with(&setup, gpu, &b) : backend_cpu_create(&setup, &b);
  if (rc != IPSO_OK) return rc;
  rc = b.ops->init(&b);
  if (rc == IPSO_OK && iters > 0) rc = b.ops->step(&b, 1, iters, best);
  if (rc == IPSO_OK) rc = swarm_state_alloc(st, cfg->swarm.particles, cfg->objective.dimensions);
  if (rc == IPSO_OK && cfg->swarm.frame != IPSO_FRAME_AXES) rc = swarm_state_alloc_frames(st, 1);
  if (rc == IPSO_OK) rc = b.ops->save_state(&b, st);
  b.ops->destroy(&b);
  return rc;
}

static int states_equal(const struct swarm_state *a, const struct swarm_state *b, const char **what,
                        size_t *where)
{
  size_t n = (size_t)a->particles * (size_t)a->dims, m = (size_t)a->particles;
  if (!same_bits(a->position, b->position, n, where)) return *what = "position", 0;
  if (!same_bits(a->velocity, b->velocity, n, where)) return *what = "velocity", 0;
  if (!same_bits(a->pbest_position, b->pbest_position, n, where)) return *what = "pbest", 0;
  if (!same_bits(a->cost, b->cost, m, where)) return *what = "cost", 0;
  if (!same_bits(a->pbest_cost, b->pbest_cost, m, where)) return *what = "pbest_cost", 0;
  /* One island's frames (the states of one island that hold them). */
  size_t f = (size_t)a->dims * (size_t)a->dims;
  if (a->frame && b->frame && !same_bits(a->frame, b->frame, f, where)) return *what = "frame", 0;
  return 1;
}

/* Strict runs: variants equal, repeatable, and close to (or equal to) the CPU.
 * The queue-lock kernel runs four times: as the backend chooses, with one
 * launch per iteration (streaming), on the plain paths (no_pdl: no
 * programmatic dependent launch), and in the speculative kernel wherever it
 * can run (spec 8). */
static void check_problem(const struct problem *p)
{
  enum { NV = 6 };
  const char *kernels[NV] = {"queue_lock", "queue_lock", "queue",
                             "reduction",  "queue_lock", "queue_lock"};
  const char *labels[NV] = {"queue_lock",
                            "queue_lock (one launch per iteration)",
                            "queue",
                            "reduction",
                            "queue_lock (plain paths)",
                            "queue_lock (speculative kernel where it runs)"};
  /* Eigen frames where exact: past three of their updates (every 10). */
  const int iters = p->frame && p->exact ? 25 : 3;
  double best[32];
  struct ipso_config cfg;
  struct swarm_state cpu, gpu[NV], again;
  if (make_config(p, "queue_lock", "strict", 7, &cfg) != IPSO_OK) {
    CHECK(0, "config for %s", p->objective);
    return;
  }
  struct gpu_mapping m;
  gpu_mapping_choose(p->dims, cfg.run.precision == IPSO_FLOAT, 0, &m);
  char topo[32];
  printf("%-16s D=%-4d N=%-5d %-6s G=%d V=%d %s%s%s\n", p->objective, p->dims, p->particles,
         p->precision, m.group, m.vec, topology_of(p, topo, sizeof topo),
         p->frame ? ", frame " : "", p->frame ? p->frame : "");
  CHECK(run(&cfg, NULL, iters, &cpu, best) == IPSO_OK, "cpu run");
  const struct gpu_overrides chosen = {0};
  config_free(&cfg);
  for (int v = 0; v < NV; v++) {
    make_config(p, kernels[v], "strict", 7, &cfg);
    struct gpu_overrides o = chosen;
    if (v == 1) o.streaming = 1;
    if (v == 4) o.no_pdl = 1;
    if (v == 5) o.spec = 8;
    CHECK(run(&cfg, &o, iters, &gpu[v], best) == IPSO_OK, "gpu run %s", labels[v]);
    config_free(&cfg);
    const char *what;
    size_t where;
    if (v > 0)
      CHECK(states_equal(&gpu[0], &gpu[v], &what, &where),
            "%s: %s differs from queue_lock in %s[%zu]", p->objective, labels[v], what, where);
  }
  make_config(p, "queue_lock", "strict", 7, &cfg);
  CHECK(run(&cfg, &chosen, iters, &again, best) == IPSO_OK, "gpu rerun");
  double span = cfg.objective.upper[0] - cfg.objective.lower[0];
  config_free(&cfg);
  const char *what;
  size_t where;
  CHECK(states_equal(&gpu[0], &again, &what, &where), "%s: strict GPU run not repeatable (%s[%zu])",
        p->objective, what, where);
  size_t n = (size_t)p->particles * (size_t)p->dims;
  if (p->exact) {
    CHECK(states_equal(&cpu, &gpu[0], &what, &where),
          "%s: GPU and CPU differ in %s[%zu] (expected bit-identical)", p->objective, what, where);
  } else {
    int fl = strcmp(p->precision, "float") == 0;
    double tol_x = fl ? 1e-5 : 1e-12, tol_c = fl ? 1e-4 : 1e-10;
    double dx = max_rel(gpu[0].position, cpu.position, n, span);
    double dc = max_rel(gpu[0].pbest_cost, cpu.pbest_cost, (size_t)p->particles, 1.0);
    printf("    GPU vs CPU after %d iterations: positions %.2e, personal-best costs %.2e\n", iters,
           dx, dc);
    CHECK(dx <= tol_x, "%s: positions differ by %.3e (tolerance %.1e)", p->objective, dx, tol_x);
    CHECK(dc <= tol_c, "%s: costs differ by %.3e (tolerance %.1e)", p->objective, dc, tol_c);
  }
  swarm_state_free(&cpu);
  swarm_state_free(&again);
  for (int v = 0; v < NV; v++) swarm_state_free(&gpu[v]);
}

/* save_state / load_state continue exactly; a migration matches the CPU's,
 * and so do the iterations after it, with the best and worst particles and
 * with drawn ones (RING: ring of RING neighbours; CLPSO: clpso with refresh
 * CLPSO; MEAN: the mean topology). */
static void check_state_and_migrants(int ring, int clpso, const char *frame, int mean)
{
  enum { D = 2 }; /* one thread per particle: bit-identical to the CPU */
  struct problem p = {"sphere", D, 300, "double", 1, ring, clpso, frame, mean};
  struct ipso_config cfg;
  make_config(&p, "queue_lock", "strict", 11, &cfg);
  /* One island of two in all: a backend of the only island never migrates
   * (no migration kernels); this one migrates on its own ring. */
  struct swarm_setup setup = {&cfg, 0, 2, 0, 1};
  struct backend g, c;
  double best[64];
  CHECK(backend_gpu_create_with(&setup, &no_overrides, &g) == IPSO_OK, "gpu create");
  CHECK(backend_cpu_create(&setup, &c) == IPSO_OK, "cpu create");
  g.ops->init(&g);
  c.ops->init(&c);
  g.ops->step(&g, 1, 10, best);
  c.ops->step(&c, 1, 10, best);
  struct swarm_state s10, s20, r20, cs;
  swarm_state_alloc(&s10, p.particles, p.dims);
  swarm_state_alloc(&s20, p.particles, p.dims);
  swarm_state_alloc(&r20, p.particles, p.dims);
  swarm_state_alloc(&cs, p.particles, p.dims);
  struct swarm_state *states[] = {&s10, &s20, &r20, &cs};
  for (int i = 0; frame && i < 4; i++) swarm_state_alloc_frames(states[i], 1);
  g.ops->save_state(&g, &s10);
  g.ops->step(&g, 11, 20, best);
  g.ops->save_state(&g, &s20);
  g.ops->load_state(&g, &s10);
  g.ops->step(&g, 11, 20, best);
  g.ops->save_state(&g, &r20);
  const char *what;
  size_t where;
  CHECK(states_equal(&s20, &r20, &what, &where), "load_state did not continue exactly (%s[%zu])",
        what, where);

  /* A migration of the one island on its own ring (its best replace its
   * worst; then drawn particles replace drawn ones), on both backends: the
   * same messages, the same particles replaced, the same iterations after. */
  c.ops->step(&c, 11, 20, best);
  enum { M = 5 };
  for (int round = 0; round < 2; round++) {
    int64_t t = 20 + 5 * round, sel[M], rep[M];
    unsigned char carried[2] = {1, 0};
    CHECK(migration_draw(11, 0, t, MIGRATION_DRAW_SELECT, p.particles, M, sel) == IPSO_OK, "draw");
    CHECK(migration_draw(11, 0, t, MIGRATION_DRAW_REPLACE, p.particles, M, rep) == IPSO_OK, "draw");
    struct backend *both[2] = {&g, &c};
    double sent[2];
    for (int w = 0; w < 2; w++) {
      struct backend *x = both[w];
      CHECK(x->ops->migrate_out(x, M, round ? sel : NULL, round ? 0 : M, NULL) == IPSO_OK,
            "migrate_out");
      CHECK(x->ops->migrate_in(x, M, 1, carried, round ? rep : NULL, NULL) == IPSO_OK,
            "migrate_in");
      CHECK(x->ops->migrate_sent(x, &sent[w]) == IPSO_OK, "migrate_sent");
    }
    CHECK(sent[0] == sent[1], "ring %d clpso %d round %d: sent a best of %.17g, the CPU %.17g",
          ring, clpso, round, sent[0], sent[1]);
    g.ops->save_state(&g, &r20);
    c.ops->save_state(&c, &cs);
    CHECK(states_equal(&r20, &cs, &what, &where),
          "ring %d clpso %d round %d: after the migration GPU and CPU differ (%s[%zu])", ring,
          clpso, round, what, where);
    struct island_best gb = {0}, cb = {0};
    double gp[D], cp[D];
    gb.position = gp;
    cb.position = cp;
    g.ops->best(&g, 0, &gb);
    c.ops->best(&c, 0, &cb);
    CHECK(gb.cost == cb.cost && gb.particle == cb.particle,
          "best after migration: gpu %lld %.17g cpu %lld %.17g", (long long)gb.particle, gb.cost,
          (long long)cb.particle, cb.cost);
    /* The migrants attract their neighbourhoods (ring) or the swarm from
     * the next iteration on, alike on both. */
    g.ops->step(&g, t + 1, t + 5, best);
    c.ops->step(&c, t + 1, t + 5, best);
    g.ops->save_state(&g, &r20);
    c.ops->save_state(&c, &cs);
    CHECK(states_equal(&r20, &cs, &what, &where),
          "ring %d clpso %d round %d: iterations after migration differ between GPU and CPU "
          "(%s[%zu])",
          ring, clpso, round, what, where);
  }
  g.ops->destroy(&g);
  c.ops->destroy(&c);
  swarm_state_free(&s10);
  swarm_state_free(&s20);
  swarm_state_free(&r20);
  swarm_state_free(&cs);
  config_free(&cfg);
}

/* Relaxed mode keeps the invariants of the global best (RESIDENT: the
 * grid-resident kernel, else one launch per iteration; RING: a ring of RING
 * neighbours, always one launch per iteration). */
static void check_relaxed(int resident, int ring)
{
  struct gpu_overrides o = {0};
  if (!resident) o.streaming = 1;
  struct problem p = {"rastrigin", 30, 5000, "float", 0, ring, 0, NULL, 0};
  struct ipso_config cfg;
  make_config(&p, "queue_lock", "relaxed", 3, &cfg);
  struct swarm_setup setup = {&cfg, 0, 1, 0, 1};
  struct backend g;
  double best[50];
  CHECK(backend_gpu_create_with(&setup, &o, &g) == IPSO_OK, "gpu create relaxed");
  g.ops->init(&g);
  CHECK(g.ops->step(&g, 1, 50, best) == IPSO_OK, "relaxed step");
  for (int k = 1; k < 50; k++) CHECK(best[k] <= best[k - 1], "relaxed best got worse at %d", k);
  struct swarm_state s;
  swarm_state_alloc(&s, p.particles, p.dims);
  g.ops->save_state(&g, &s);
  int64_t arg = 0;
  for (int64_t i = 1; i < p.particles; i++)
    if (s.pbest_cost[i] < s.pbest_cost[arg]) arg = i;
  double pos[30];
  struct island_best b = {0};
  b.position = pos;
  g.ops->best(&g, 0, &b);
  CHECK(b.cost == s.pbest_cost[arg] && b.particle == arg,
        "relaxed global best %lld %.9g, lowest personal best %lld %.9g", (long long)b.particle,
        b.cost, (long long)arg, s.pbest_cost[arg]);
  CHECK(b.cost == best[49], "relaxed history %.9g vs best %.9g", best[49], b.cost);
  swarm_state_free(&s);
  g.ops->destroy(&g);
  config_free(&cfg);
}

/* A strict resident run split over several launches (segments) gives the
 * same bits as one launch, and as one launch per iteration (RING: ring of
 * RING neighbours, where all three are one launch per iteration). */
static void check_segments(int ring)
{
  struct problem p = {"rastrigin", 30, 5000, "float", 0, ring, 0, NULL, 0};
  struct ipso_config cfg;
  make_config(&p, "queue_lock", "strict", 9, &cfg);
  struct swarm_setup setup = {&cfg, 0, 1, 0, 1};
  struct swarm_state st[3];
  double best[12];
  for (int k = 0; k < 3; k++) {
    struct backend b;
    struct gpu_overrides o = {0};
    if (k == 2) o.streaming = 1;
    CHECK(backend_gpu_create_with(&setup, &o, &b) == IPSO_OK, "gpu create");
    b.ops->init(&b);
    if (k == 1) {
      b.ops->step(&b, 1, 5, best);
      b.ops->step(&b, 6, 7, best);
      b.ops->step(&b, 8, 12, best);
    } else {
      b.ops->step(&b, 1, 12, best);
    }
    swarm_state_alloc(&st[k], p.particles, p.dims);
    b.ops->save_state(&b, &st[k]);
    b.ops->destroy(&b);
  }
  const char *what;
  size_t where;
  CHECK(states_equal(&st[0], &st[1], &what, &where), "split segments differ (%s[%zu])", what,
        where);
  CHECK(states_equal(&st[0], &st[2], &what, &where),
        "resident and one launch per iteration differ (%s[%zu])", what, where);
  for (int k = 0; k < 3; k++) swarm_state_free(&st[k]);
  config_free(&cfg);
}

/* Island K's rows of a state of several islands. */
static struct swarm_state rows_of(const struct swarm_state *s, int particles, int k)
{
  return swarm_state_island(s, particles, k);
}

/* One migration of check_islands on the ring of K islands (global ids
 * FIRST..), island k taking island k-1's M migrants (ROUND 1: drawn
 * particles sent and replaced), in the NPARTS backends PART of K / NPARTS
 * islands each (one backend: the whole ring; more: their edge messages
 * crossing as between ranks). SENT [K]: the best each island sent. */
static void migrate_ring(struct backend *part, int nparts, int K, int first, int64_t t, int64_t N,
                         int M, int D, int round, double *sent)
{
  const int per = K / nparts;
  size_t n = (size_t)migration_message_len(M, D);
  int64_t *sel = malloc(sizeof(int64_t) * (size_t)(K * M));
  int64_t *rep = malloc(sizeof(int64_t) * (size_t)(K * M));
  double *edge = malloc(sizeof(double) * 2 * (size_t)nparts * n);
  unsigned char *carried = calloc(2 * (size_t)K, 1);
  for (int k = 0; k < K; k++) {
    carried[2 * k] = 1;
    migration_draw(13, first + k, t, MIGRATION_DRAW_SELECT, N, M, sel + k * M);
    migration_draw(13, first + k, t, MIGRATION_DRAW_REPLACE, N, M, rep + k * M);
  }
  for (int h = 0; h < nparts; h++) {
    double *out[2] = {edge + (size_t)(2 * h) * n, edge + (size_t)(2 * h + 1) * n};
    /* The worst replaced: chosen in migrate_out on even parts, in
     * migrate_in on odd ones (the same victims either way). */
    CHECK(part[h].ops->migrate_out(&part[h], M, round ? sel + h * per * M : NULL,
                                   round || h % 2 ? 0 : M, nparts > 1 ? out : NULL) == IPSO_OK,
          "migrate_out of part %d", h);
  }
  for (int h = 0; h < nparts; h++) {
    int prev = (h + nparts - 1) % nparts, next = (h + 1) % nparts;
    /* The previous part's last island's message, and the next part's first's. */
    const double *in[2] = {edge + (size_t)(2 * prev + 1) * n, edge + (size_t)(2 * next) * n};
    CHECK(part[h].ops->migrate_in(&part[h], M, 1, carried + 2 * h * per,
                                  round ? rep + h * per * M : NULL,
                                  nparts > 1 ? in : NULL) == IPSO_OK,
          "migrate_in of part %d", h);
  }
  /* The messages' best costs, once the migration is complete. */
  for (int h = 0; h < nparts; h++)
    CHECK(part[h].ops->migrate_sent(&part[h], sent + h * per) == IPSO_OK, "migrate_sent");
  free(sel);
  free(rep);
  free(edge);
  free(carried);
}

/* The state of the NPARTS backends PART (K / NPARTS islands each) against
 * SM, the state of K islands of N particles, bit for bit (SH: room for a
 * part's state). */
static void compare_parts(struct backend *part, int nparts, const struct swarm_state *sm,
                          struct swarm_state *sh, int K, int64_t N, const char *when)
{
  const char *what;
  size_t where;
  for (int h = 0; h < nparts; h++) {
    part[h].ops->save_state(&part[h], sh);
    struct swarm_state v = swarm_state_island(sm, (int64_t)K / nparts * N, h);
    CHECK(states_equal(&v, sh, &what, &where), "%s: part %d of %d differs (%s[%zu])", when, h,
          nparts, what, where);
  }
}

/* K islands (global ids FIRST..) in one GPU backend against the same
 * islands in two GPU backends of K/2 and in K GPU backends of one island
 * each (as the plan chooses), and against the CPU backend's K islands: the
 * same bits between the GPU runs (strict, kernel variant KERNEL), the
 * CPU's to rounding (exactly where P->exact); then a migration on the ring
 * of the K islands (the best replace the worst, then drawn particles
 * replace drawn ones; the parts' edge messages crossing as between ranks:
 * the same bits), more iterations, and save_state/load_state into a new
 * backend. STREAMING: one launch per iteration even where the plan would
 * run the islands otherwise. */
static void check_islands(const struct problem *p, const char *kernel, int streaming)
{
  enum { K = 4, FIRST = 3, ALL = 8, T = 7, M = 3 };
  struct ipso_config cfg;
  if (make_config(p, kernel, "strict", 13, &cfg) != IPSO_OK) {
    CHECK(0, "config");
    return;
  }
  char topo[32];
  printf("%d islands in one backend: %-10s %-10s D=%-3d N=%-5d %-6s %s\n", K, kernel, p->objective,
         p->dims, p->particles, p->precision, topology_of(p, topo, sizeof topo));
  const struct gpu_overrides chosen = {0};
  struct gpu_overrides together = chosen;
  if (streaming) together.streaming = 1;
  const int D = p->dims, N = p->particles;
  struct swarm_setup all = {&cfg, FIRST, ALL, 0, K};
  struct swarm_setup halves[2] = {{&cfg, FIRST, ALL, 0, K / 2},
                                  {&cfg, FIRST + K / 2, ALL, 0, K / 2}};
  struct backend multi, cpu, one[K], half[2];
  int ok = backend_gpu_create_with(&all, &together, &multi) == IPSO_OK;
  for (int h = 0; h < 2; h++)
    ok = ok && backend_gpu_create_with(&halves[h], &together, &half[h]) == IPSO_OK;
  ok = ok && backend_cpu_create(&all, &cpu) == IPSO_OK;
  for (int k = 0; ok && k < K; k++) {
    struct swarm_setup s1 = {&cfg, FIRST + k, ALL, 0, 1};
    ok = backend_gpu_create_with(&s1, &chosen, &one[k]) == IPSO_OK;
  }
  CHECK(ok, "create the backends");
  if (!ok) exit(1);
  printf("    %s\n", multi.description);
  multi.ops->init(&multi);
  for (int h = 0; h < 2; h++) half[h].ops->init(&half[h]);
  cpu.ops->init(&cpu);
  for (int k = 0; k < K; k++) one[k].ops->init(&one[k]);
  double hm[K * T], hc[K * T], hd[K * T];
  struct swarm_state sm, sc, s1, sh;
  swarm_state_alloc(&sm, (int64_t)K * N, D);
  swarm_state_alloc(&sc, (int64_t)K * N, D);
  if (p->frame) { /* the frames are state: the load below needs them */
    swarm_state_alloc_frames(&sm, K);
    swarm_state_alloc_frames(&sc, K);
  }
  swarm_state_alloc(&s1, N, D);
  swarm_state_alloc(&sh, (int64_t)K / 2 * N, D);
  double span = cfg.objective.upper[0] - cfg.objective.lower[0];
  int fl = strcmp(p->precision, "float") == 0;
  double tol_x = fl ? 1e-5 : 1e-12, tol_c = fl ? 1e-4 : 1e-10;
  const char *what;
  size_t where;
  for (int round = 0; round < 2; round++) {
    int64_t first = 1 + round * T, last = first + T - 1;
    CHECK(multi.ops->step(&multi, first, last, hm) == IPSO_OK, "step %d islands", K);
    CHECK(cpu.ops->step(&cpu, first, last, hc) == IPSO_OK, "cpu step");
    multi.ops->save_state(&multi, &sm);
    cpu.ops->save_state(&cpu, &sc);
    for (int h = 0; h < 2; h++) {
      CHECK(half[h].ops->step(&half[h], first, last, hd) == IPSO_OK, "step half");
      CHECK(!memcmp(hm + h * (K / 2) * T, hd, sizeof(double) * (K / 2) * T),
            "round %d: half %d: histories differ", round, h);
    }
    compare_parts(half, 2, &sm, &sh, K, N, "after the steps");
    for (int k = 0; k < K; k++) {
      CHECK(one[k].ops->step(&one[k], first, last, hd) == IPSO_OK, "step one");
      CHECK(!memcmp(hm + k * T, hd, sizeof(double) * T),
            "island %d's history differs from one island's", k);
      struct swarm_state v = rows_of(&sm, N, k), c = rows_of(&sc, N, k);
      if (p->exact) {
        CHECK(states_equal(&v, &c, &what, &where), "island %d: GPU and CPU differ (%s[%zu])", k,
              what, where);
      } else if (round == 0) {
        /* After a migration the CPU may pick other victims by rounding. */
        double dx = max_rel(v.position, c.position, (size_t)N * D, span);
        double dc = max_rel(v.pbest_cost, c.pbest_cost, (size_t)N, 1.0);
        CHECK(dx <= tol_x && dc <= tol_c, "island %d: GPU vs CPU positions %.2e, costs %.2e", k, dx,
              dc);
      }
      double pa[2048], pb[2048];
      struct island_best ba = {0, 0, pa}, bb = {0, 0, pb};
      multi.ops->best(&multi, k, &ba);
      one[k].ops->best(&one[k], 0, &bb);
      CHECK(ba.cost == bb.cost && ba.particle == bb.particle &&
                !memcmp(pa, pb, sizeof(double) * (size_t)D),
            "island %d's best differs from one island's", k);
    }
    compare_parts(one, K, &sm, &s1, K, N, "after the steps");
    /* A migration on the ring of the K islands, in all of them: the best
     * replace the worst (round 0), drawn particles replace drawn ones
     * (round 1). */
    double sent[4][K];
    migrate_ring(&multi, 1, K, FIRST, last, N, M, D, round, sent[0]);
    migrate_ring(half, 2, K, FIRST, last, N, M, D, round, sent[1]);
    migrate_ring(one, K, K, FIRST, last, N, M, D, round, sent[2]);
    migrate_ring(&cpu, 1, K, FIRST, last, N, M, D, round, sent[3]);
    CHECK(!memcmp(sent[0], sent[1], sizeof sent[0]) && !memcmp(sent[0], sent[2], sizeof sent[0]),
          "round %d: the islands' messages differ between the backends", round);
    if (p->exact)
      CHECK(!memcmp(sent[0], sent[3], sizeof sent[0]), "round %d: the CPU's messages differ",
            round);
    multi.ops->save_state(&multi, &sm);
    compare_parts(half, 2, &sm, &sh, K, N, "after the migration");
    compare_parts(one, K, &sm, &s1, K, N, "after the migration");
    if (p->exact) {
      cpu.ops->save_state(&cpu, &sc);
      CHECK(states_equal(&sm, &sc, &what, &where),
            "round %d: after the migration GPU and CPU differ (%s[%zu])", round, what, where);
    }
  }
  /* save_state of all islands, load_state into a new backend: the same. */
  multi.ops->save_state(&multi, &sm);
  struct backend again;
  CHECK(backend_gpu_create_with(&all, &together, &again) == IPSO_OK, "create again");
  again.ops->load_state(&again, &sm);
  double ha[K * T];
  multi.ops->step(&multi, 2 * T + 1, 3 * T, hm);
  again.ops->step(&again, 2 * T + 1, 3 * T, ha);
  CHECK(!memcmp(hm, ha, sizeof hm), "load_state into a new backend: histories differ");
  multi.ops->save_state(&multi, &sm);
  again.ops->save_state(&again, &sc);
  CHECK(states_equal(&sm, &sc, &what, &where), "load_state into a new backend: %s[%zu] differs",
        what, where);
  again.ops->destroy(&again);
  for (int h = 0; h < 2; h++) half[h].ops->destroy(&half[h]);
  swarm_state_free(&sh);
  multi.ops->destroy(&multi);
  cpu.ops->destroy(&cpu);
  for (int k = 0; k < K; k++) one[k].ops->destroy(&one[k]);
  swarm_state_free(&sm);
  swarm_state_free(&sc);
  swarm_state_free(&s1);
  config_free(&cfg);
}

/* Relaxed mode with K islands in one launch: each island's global best is
 * its lowest personal best, and its history never gets worse. */
static void check_islands_relaxed(int ring)
{
  enum { K = 3, T = 40 };
  struct problem p = {"rastrigin", 30, 3000, "float", 0, ring, 0, NULL, 0};
  struct ipso_config cfg;
  make_config(&p, "queue_lock", "relaxed", 5, &cfg);
  struct swarm_setup all = {&cfg, 0, K, 0, K};
  struct backend g;
  struct gpu_overrides o = {0};
  CHECK(backend_gpu_create_with(&all, &o, &g) == IPSO_OK, "gpu create relaxed islands");
  double best[K * T];
  g.ops->init(&g);
  CHECK(g.ops->step(&g, 1, T, best) == IPSO_OK, "relaxed islands step");
  struct swarm_state s;
  swarm_state_alloc(&s, (int64_t)K * p.particles, p.dims);
  g.ops->save_state(&g, &s);
  for (int k = 0; k < K; k++) {
    for (int t = 1; t < T; t++)
      CHECK(best[k * T + t] <= best[k * T + t - 1], "relaxed island %d got worse at %d", k, t);
    struct swarm_state v = rows_of(&s, p.particles, k);
    int64_t arg = 0;
    for (int64_t i = 1; i < p.particles; i++)
      if (v.pbest_cost[i] < v.pbest_cost[arg]) arg = i;
    double pos[30];
    struct island_best b = {0, 0, pos};
    g.ops->best(&g, k, &b);
    CHECK(b.cost == v.pbest_cost[arg] && b.particle == arg,
          "relaxed island %d: best %lld %.9g, lowest personal best %lld %.9g", k,
          (long long)b.particle, b.cost, (long long)arg, v.pbest_cost[arg]);
  }
  swarm_state_free(&s);
  g.ops->destroy(&g);
  config_free(&cfg);
}

int main(void)
{
  if (gpu_device_count() == 0) {
    printf("no GPU: skipped\n");
    return 77;
  }
  /* One thread per particle and no transcendental functions: bit-identical
   * to the CPU. Otherwise: equal to rounding. Particle counts that are not
   * multiples of the block size, and a single particle. */
  const struct problem problems[] = {
      {"cubic", 1, 2048, "double", 1, 0, 0, NULL, 0},
      {"cubic", 1, 1000, "float", 1, 0, 0, NULL, 0},
      {"sphere", 2, 333, "double", 1, 0, 0, NULL, 0},
      {"cubic", 120, 1000, "double", 0, 0, 0, NULL, 0},
      {"rastrigin", 30, 777, "float", 0, 0, 0, NULL, 0},
      {"rastrigin", 30, 513, "double", 0, 0, 0, NULL, 0},
      {"rosenbrock", 30, 300, "double", 0, 0, 0, NULL, 0},
      {"griewank", 50, 200, "double", 0, 0, 0, NULL, 0},
      {"ackley", 30, 256, "float", 0, 0, 0, NULL, 0},
      {"schwefel", 10, 100, "double", 0, 0, 0, NULL, 0},
      {"target_distance", 7, 99, "double", 0, 0, 0, NULL, 0},
      {"sphere", 1500, 40, "double", 0, 0, 0, NULL, 0},
      {"sphere", 2, 1, "double", 1, 0, 0, NULL, 0},
      /* Ring topology: bit-identical to the CPU where the global topology
       * is, between variants always; a ring that covers the swarm. */
      {"cubic", 1, 2048, "double", 1, 1, 0, NULL, 0},
      {"sphere", 2, 333, "double", 1, 2, 0, NULL, 0},
      {"cubic", 1, 1000, "float", 1, 3, 0, NULL, 0},
      {"rastrigin", 30, 777, "float", 0, 1, 0, NULL, 0},
      {"rosenbrock", 30, 300, "double", 0, 2, 0, NULL, 0},
      {"ackley", 30, 256, "float", 0, 5, 0, NULL, 0},
      {"sphere", 1500, 40, "double", 0, 2, 0, NULL, 0},
      {"sphere", 2, 7, "double", 1, 3, 0, NULL, 0},
      /* clpso (exemplar rows, inertia 0.9 -> 0.4): as the ring; epochs of
       * 1 and 2 iterations, so the three iterations cross them; two
       * particles (each the other's only tournament). */
      {"cubic", 1, 2048, "double", 1, 0, 1, NULL, 0},
      {"sphere", 2, 333, "double", 1, 0, 2, NULL, 0},
      {"cubic", 1, 1000, "float", 1, 0, 2, NULL, 0},
      {"rastrigin", 30, 777, "float", 0, 0, 1, NULL, 0},
      {"rastrigin", 30, 513, "double", 0, 0, 2, NULL, 0},
      {"ackley", 30, 256, "float", 0, 0, 2, NULL, 0},
      {"sphere", 1500, 40, "double", 0, 0, 1, NULL, 0},
      {"sphere", 2, 2, "double", 1, 0, 1, NULL, 0},
      /* Eigen frames (frame_kernel every 10 iterations): bit-identical to the
       * CPU with one thread a particle (25 iterations), to rounding otherwise. */
      {"sphere", 2, 333, "double", 1, 0, 0, "eigen", 0},
      {"sphere", 3, 100, "float", 1, 2, 0, "eigen", 0},
      {"sphere", 2, 333, "double", 1, 0, 2, "eigen", 0},
      {"rastrigin", 30, 777, "float", 0, 0, 0, "eigen", 0},
      {"rosenbrock", 30, 300, "double", 0, 2, 0, "eigen", 0},
      /* The mean topology (mean_kernel): as the ring; fewer than 4 particles
       * (the best alone), the largest island it takes. */
      {"cubic", 1, 2048, "double", 1, 0, 0, NULL, 1},
      {"sphere", 2, 333, "double", 1, 0, 0, NULL, 1},
      {"cubic", 1, 1000, "float", 1, 0, 0, NULL, 1},
      {"rastrigin", 30, 777, "float", 0, 0, 0, NULL, 1},
      {"rosenbrock", 30, 4096, "double", 0, 0, 0, NULL, 1},
      {"sphere", 2, 3, "double", 1, 0, 0, NULL, 1},
      {"sphere", 2, 333, "double", 1, 0, 0, "eigen", 1},
  };
  for (size_t k = 0; k < sizeof problems / sizeof problems[0]; k++) check_problem(&problems[k]);
  check_state_and_migrants(0, 0, NULL, 0);
  check_state_and_migrants(1, 0, NULL, 0);
  check_state_and_migrants(0, 3, NULL, 0);
  check_state_and_migrants(0, 0, "eigen", 0);
  check_state_and_migrants(2, 0, "eigen", 0);
  check_state_and_migrants(0, 0, NULL, 1);
  check_segments(0);
  check_segments(2);
  check_relaxed(1, 0);
  check_relaxed(0, 0);
  check_relaxed(0, 1);
  /* K islands together: every variant, global and ring, both precisions;
   * queue-lock grid-resident (where the plan takes it) and per iteration.
   * Few enough to run under the sanitizers (run_sanitizer.sh). */
  const struct {
    struct problem p;
    const char *kernel;
    int streaming;
  } island_cases[] = {
      {{"sphere", 2, 333, "double", 1, 0, 0, NULL, 0}, "queue_lock", 0},
      {{"sphere", 2, 333, "double", 1, 0, 0, NULL, 0}, "queue_lock", 1},
      {{"sphere", 2, 333, "double", 1, 0, 0, NULL, 0}, "queue", 0},
      {{"sphere", 2, 333, "double", 1, 0, 0, NULL, 0}, "reduction", 0},
      {{"cubic", 1, 1000, "float", 1, 0, 0, NULL, 0}, "queue_lock", 0},
      {{"rastrigin", 30, 777, "float", 0, 0, 0, NULL, 0}, "queue_lock", 0},
      {{"rastrigin", 30, 777, "float", 0, 0, 0, NULL, 0}, "queue_lock", 1},
      {{"rastrigin", 30, 777, "float", 0, 0, 0, NULL, 0}, "reduction", 0},
      {{"rosenbrock", 30, 300, "double", 0, 2, 0, NULL, 0}, "queue_lock", 0},
      {{"rosenbrock", 30, 300, "double", 0, 2, 0, NULL, 0}, "queue", 0},
      {{"cubic", 1, 2048, "double", 1, 3, 0, NULL, 0}, "queue_lock", 0},
      {{"sphere", 1500, 40, "double", 0, 0, 0, NULL, 0}, "queue_lock", 0},
      {{"rastrigin", 30, 777, "float", 0, 0, 2, NULL, 0}, "queue_lock", 0},
      {{"rastrigin", 30, 300, "double", 0, 0, 3, NULL, 0}, "reduction", 0},
      {{"sphere", 2, 333, "double", 1, 0, 1, NULL, 0}, "queue", 0},
      {{"sphere", 2, 333, "double", 1, 0, 0, "mixed", 0}, "queue_lock", 0},
      {{"rastrigin", 30, 777, "float", 0, 2, 0, "mixed", 0}, "queue_lock", 0},
      {{"sphere", 2, 333, "double", 1, 2, 0, "mixed", 2}, "queue_lock", 0},
      {{"rastrigin", 30, 777, "float", 0, 3, 0, "mixed", 2}, "reduction", 0},
      {{"rosenbrock", 30, 300, "double", 0, 0, 0, NULL, 1}, "queue_lock", 0},
  };
  for (size_t k = 0; k < sizeof island_cases / sizeof island_cases[0]; k++)
    check_islands(&island_cases[k].p, island_cases[k].kernel, island_cases[k].streaming);
  check_islands_relaxed(0);
  check_islands_relaxed(1);
  printf("%s (%d failures)\n", failures ? "FAILED" : "passed", failures);
  return failures ? 1 : 0;
}

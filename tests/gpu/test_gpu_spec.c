/* The speculative cluster kernel (kernels/pso_spec.cuh) against one launch
 * per iteration and the CPU backend: K islands in one backend run in the
 * speculative kernel (clusters of 8, 4 or 2 blocks), with one launch per
 * iteration, on the plain paths (no programmatic dependent launch), and on
 * the CPU, through segments that start on odd and even iterations, a migration
 * of the best and the worst, one of drawn particles, and a save/load round
 * trip into a new backend in the middle of the run: histories, states,
 * migrants and bests bit for bit between the GPU modes, to rounding (bit for
 * bit where the problem allows) against the CPU, up to iteration 3,000 (the
 * paper's 1-D 2,048 swarm among the problems: its best settles on the bound
 * and moves to lower indices, the rare path of the kernel). Exit 77 without
 * a GPU; IPSO_GPU_TEST_SHORT=1: up to iteration 200. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_cpu.h"
#include "backend_gpu.h"
#include "config.h"
#include "log.h"
#include "migration.h"

#include "state_compare.h"
#include "unit_check.h"

struct problem {
  const char *objective, *precision;
  int dims, particles;
  int exact; /* CPU and GPU agree bit for bit */
  int spec;  /* blocks of the speculative kernel's clusters */
};

static int make_config(const struct problem *p, unsigned long long seed, struct ipso_config *cfg)
{
  char text[1024];
  snprintf(text, sizeof text,
           "[run]\nseed = %llu\nprecision = \"%s\"\nmax_iterations = 100\noutput = \"\"\n"
           "[objective]\nname = \"%s\"\ndimensions = %d\n"
           "[swarm]\nparticles = %d\nkernel = \"queue_lock\"\nsync = \"strict\"\n"
           "topology = \"global\"\nvelocity_clamp = 0.5\nframe = \"axes\"\n",
           seed, p->precision, p->objective, p->dims, p->particles);
  return config_load_text(text, "test_gpu_spec", 0, NULL, 1, cfg);
}

/* The backends compared: the speculative kernel first, then the other GPU
 * modes, then the CPU. */
enum { SPEC, STREAMING, PLAIN, CPU, NB };
static const char *const names[NB] = {"cluster-speculative", "one launch per iteration",
                                      "plain paths", "cpu"};

static int spec_blocks; /* the speculative kernel's clusters */

static int create(int which, const struct swarm_setup *setup, struct backend *b)
{
  memset(b, 0, sizeof *b);
  if (which == CPU) return backend_cpu_create(setup, b);
  struct gpu_overrides o;
  memset(&o, 0, sizeof o);
  if (which == SPEC) o.spec = spec_blocks;
  if (which == STREAMING) o.streaming = 1;
  if (which == PLAIN) o.streaming = o.no_pdl = 1;
  return backend_gpu_create_with(setup, &o, b);
}

/* States A and B of N particles x D: bit for bit (EXACT), else to rounding
 * (TOL on positions relative to SPAN and on personal-best costs). */
static int states_match(const struct swarm_state *a, const struct swarm_state *b, size_t n,
                        size_t d, int exact, double span, double tol, const char **what)
{
  size_t where;
  if (!exact) {
    *what = "position (to rounding)";
    if (max_rel(a->position, b->position, n * d, span) > tol) return 0;
    *what = "personal-best cost (to rounding)";
    return max_rel(a->pbest_cost, b->pbest_cost, n, 1.0) <= tol * 100;
  }
  if (!same_bits(a->position, b->position, n * d, &where)) return *what = "position", 0;
  if (!same_bits(a->velocity, b->velocity, n * d, &where)) return *what = "velocity", 0;
  if (!same_bits(a->pbest_position, b->pbest_position, n * d, &where)) return *what = "pbest", 0;
  if (!same_bits(a->cost, b->cost, n, &where)) return *what = "cost", 0;
  if (!same_bits(a->pbest_cost, b->pbest_cost, n, &where)) return *what = "pbest_cost", 0;
  return 1;
}

/* Every backend's state and history against the speculative kernel's (the
 * CPU's only WITH_CPU: where the problem is not bit for bit, its swarm
 * drifts away by rounding after a few iterations). */
static void compare_all(struct backend *b, struct swarm_state *st, double *const *hist,
                        size_t hist_n, const struct problem *p, int K, double span,
                        const char *when, int with_cpu)
{
  size_t n = (size_t)K * (size_t)p->particles;
  double tol = strcmp(p->precision, "float") ? 1e-12 : 1e-5;
  for (int m = 0; m < NB; m++) CHECK(b[m].ops->save_state(&b[m], &st[m]) == IPSO_OK, "save");
  for (int m = 1; m < NB; m++) {
    if (m == CPU && !with_cpu) continue;
    int exact = m != CPU || p->exact;
    const char *what = "";
    CHECK(states_match(&st[SPEC], &st[m], n, (size_t)p->dims, exact, span, tol, &what),
          "%s D=%d N=%d x %d %s, %s: %s differs from the speculative kernel in %s", p->objective,
          p->dims, p->particles, K, p->precision, when, names[m], what);
    size_t where = 0;
    if (exact)
      CHECK(same_bits(hist[SPEC], hist[m], hist_n, &where),
            "%s %s, %s: history differs from the speculative kernel at %zu (%.17g, %.17g)",
            p->objective, names[m], when, where, hist[SPEC][where], hist[m][where]);
    else
      CHECK(max_rel(hist[SPEC], hist[m], hist_n, 1.0) <= tol * 100,
            "%s %s, %s: history differs from the speculative kernel", p->objective, names[m], when);
  }
  for (int k = 0; k < K; k++) {
    double pa[64], pb[64];
    struct island_best ba = {0, 0, pa};
    b[SPEC].ops->best(&b[SPEC], k, &ba);
    for (int m = 1; m < CPU; m++) {
      struct island_best bb = {0, 0, pb};
      b[m].ops->best(&b[m], k, &bb);
      CHECK(ba.cost == bb.cost && ba.particle == bb.particle &&
                !memcmp(pa, pb, sizeof(double) * (size_t)p->dims),
            "%s, %s: island %d's best %lld %.17g, %s's %lld %.17g", p->objective, when, k,
            (long long)ba.particle, ba.cost, names[m], (long long)bb.particle, bb.cost);
    }
  }
}

/* K islands (global ids 2.. of 2 + K + 1) of problem P in every mode. */
static void check_islands(const struct problem *p, int K)
{
  enum { FIRST = 2, M = 3 };
  struct ipso_config cfg;
  if (make_config(p, 21, &cfg) != IPSO_OK) {
    CHECK(0, "config %s", p->objective);
    return;
  }
  struct swarm_setup setup = {&cfg, FIRST, FIRST + K + 1, 0, K};
  struct backend b[NB];
  spec_blocks = p->spec;
  int ok = 1;
  for (int m = 0; m < NB && ok; m++) ok = create(m, &setup, &b[m]) == IPSO_OK;
  CHECK(ok, "create the backends for %s", p->objective);
  if (!ok) exit(1);
  printf("%-16s D=%-2d N=%-5d x %d %-6s %s\n", p->objective, p->dims, p->particles, K, p->precision,
         b[SPEC].description);
  CHECK(strstr(b[SPEC].description, "cluster-speculative") != NULL, "%s: clusters of %d gave %s",
        p->objective, spec_blocks, b[SPEC].description);
  CHECK(strstr(b[STREAMING].description, "one launch per iteration") != NULL,
        "%s: streaming gave %s", p->objective, b[STREAMING].description);
  for (int m = 0; m < NB; m++) b[m].ops->init(&b[m]);
  const size_t n = (size_t)K * (size_t)p->particles, D = (size_t)p->dims;
  const double span = cfg.objective.upper[0] - cfg.objective.lower[0];
  struct swarm_state st[NB], saved;
  for (int m = 0; m < NB; m++) swarm_state_alloc(&st[m], (int64_t)n, p->dims);
  swarm_state_alloc(&saved, (int64_t)n, p->dims);
  /* Segments starting on odd and even iterations, of one and of many; the
   * first as short as test_gpu_backend's, where a problem that is not bit
   * for bit is compared with the CPU. */
  /* IPSO_GPU_TEST_SHORT (under the sanitizers): up to iteration 200. */
  const int64_t end = getenv("IPSO_GPU_TEST_SHORT") ? 200 : 3000;
  const int64_t seg[][2] = {{1, 3}, {4, 6}, {7, 20}, {21, 21}, {22, 140}, {141, end}};
  double *hist[NB];
  for (int m = 0; m < NB; m++) hist[m] = malloc(sizeof(double) * (size_t)K * 3000);
  struct backend again;
  int have_again = 0;
  for (size_t s = 0; s < sizeof seg / sizeof seg[0]; s++) {
    int64_t first = seg[s][0], last = seg[s][1], len = last - first + 1;
    char when[64];
    snprintf(when, sizeof when, "after %lld", (long long)last);
    for (int m = 0; m < NB; m++)
      CHECK(b[m].ops->step(&b[m], first, last, hist[m]) == IPSO_OK, "%s step", names[m]);
    compare_all(b, st, hist, (size_t)(K * len), p, K, span, when, p->exact || s == 0);
    if (have_again) {
      /* The backend loaded in the middle continues as the one that ran on. */
      double *h = malloc(sizeof(double) * (size_t)(K * len));
      again.ops->step(&again, first, last, h);
      size_t where = 0;
      CHECK(same_bits(hist[SPEC], h, (size_t)(K * len), &where),
            "%s: loaded backend's history differs at %zu", p->objective, where);
      again.ops->save_state(&again, &saved);
      const char *what = "";
      CHECK(states_match(&st[SPEC], &saved, n, D, 1, span, 0, &what),
            "%s, %s: loaded backend differs in %s", p->objective, when, what);
      free(h);
    }
    if (s == 1) {
      /* Save in the middle, load into a new speculative backend. */
      CHECK(create(SPEC, &setup, &again) == IPSO_OK, "create again");
      b[SPEC].ops->save_state(&b[SPEC], &saved);
      CHECK(again.ops->load_state(&again, &saved) == IPSO_OK, "load_state");
      have_again = 1;
    }
    if (s == 2 || s == 3) {
      /* Every island's M best (s == 2) or M drawn (s == 3) personal bests
       * to the next island on the ring, into its worst (drawn) particles,
       * in every backend (the loaded one too): the same messages. */
      const int mc = p->particles < M ? p->particles : M;
      int64_t sel[8 * M], rep[8 * M];
      unsigned char carried[16];
      memset(carried, 0, sizeof carried);
      for (int k = 0; k < K; k++) {
        carried[2 * k] = 1;
        migration_draw(21, FIRST + k, last, MIGRATION_DRAW_SELECT, p->particles, mc, sel + k * mc);
        migration_draw(21, FIRST + k, last, MIGRATION_DRAW_REPLACE, p->particles, mc, rep + k * mc);
      }
      double sent[NB + 1][8];
      for (int m = 0; m <= NB; m++) {
        struct backend *x = m < NB ? &b[m] : have_again ? &again : NULL;
        if (!x) continue;
        CHECK(x->ops->migrate_out(x, mc, s == 3 ? sel : NULL, s == 2 ? mc : 0, NULL) == IPSO_OK,
              "%s migrate_out", m < NB ? names[m] : "loaded");
        CHECK(x->ops->migrate_in(x, mc, 1, carried, s == 3 ? rep : NULL, NULL) == IPSO_OK,
              "%s migrate_in", m < NB ? names[m] : "loaded");
        CHECK(x->ops->migrate_sent(x, sent[m]) == IPSO_OK, "migrate_sent");
        if (m > 0 && (m != CPU || p->exact))
          CHECK(!memcmp(sent[m], sent[SPEC], sizeof(double) * (size_t)K),
                "%s, %s: the messages differ (%s)", p->objective, when,
                m < NB ? names[m] : "loaded");
      }
      snprintf(when, sizeof when, "after the migration at %lld", (long long)last);
      compare_all(b, st, hist, (size_t)(K * len), p, K, span, when, p->exact);
    }
  }
  if (have_again) again.ops->destroy(&again);
  for (int m = 0; m < NB; m++) {
    b[m].ops->destroy(&b[m]);
    swarm_state_free(&st[m]);
    free(hist[m]);
  }
  swarm_state_free(&saved);
  config_free(&cfg);
}

int main(void)
{
  if (gpu_device_count() == 0) {
    printf("no GPU: skipped\n");
    return 77;
  }
  /* One thread per particle and no transcendental functions: bit for bit
   * with the CPU. Particles that do not fill a block's last warp, clusters
   * of 8, 4 and 2 blocks, rows of 1 and 2 coordinates, a single particle. */
  const struct {
    struct problem p;
    int islands;
  } cases[] = {
      {{"cubic", "double", 1, 2048, 1, 8}, 1}, {{"cubic", "double", 1, 2048, 1, 8}, 3},
      {{"cubic", "float", 1, 1000, 1, 4}, 4},  {{"cubic", "double", 1, 300, 1, 2}, 5},
      {{"sphere", "double", 2, 333, 1, 8}, 4}, {{"sphere", "double", 2, 1, 1, 8}, 2},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
    check_islands(&cases[k].p, cases[k].islands);
  printf("%s (%d failures)\n", failures ? "FAILED" : "passed", failures);
  return failures ? 1 : 0;
}

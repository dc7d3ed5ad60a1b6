/* The mean topology of the CPU reference backend: after an iteration every
 * particle's velocity and position are the documented formula with, as the
 * attractor, the mean computed here independently of the backend from the
 * state before the iteration (the n / 4 best personal bests by cost, ties on
 * the lower index, rank r weighing (n / 4 - r)^2); also right after migrants
 * arrive. "mixed" gives the mean to islands 6 and 7 of every 8. Results do not depend on the number
 * of OpenMP threads. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_cpu.h"
#include "config.h"
#include "philox.h"
#include "swarm.h"

#include "cpu_run.h"
#include "unit_check.h"

enum { SEED = 7, MAX_ITERATIONS = 50 };

/* A config of PARTICLES particles on OBJECTIVE in DIMS dimensions with TOPOLOGY. */
static void load(const char *objective, int dims, int particles, const char *topology,
                 struct ipso_config *cfg)
{
  char text[512];
  snprintf(text, sizeof text,
           "[run]\nseed = %d\nmax_iterations = %d\noutput = \"\"\n[objective]\nname = \"%s\"\n"
           "dimensions = %d\n[swarm]\nparticles = %d\ntopology = \"%s\"\nframe = \"axes\"\n",
           SEED, MAX_ITERATIONS, objective, dims, particles, topology);
  if (config_load_text(text, "test", 0, NULL, 1, cfg) != IPSO_OK) exit(1);
}

static const double *sort_costs;

static int by_cost(const void *a, const void *b)
{
  int64_t i = *(const int64_t *)a, j = *(const int64_t *)b;
  if (sort_costs[i] != sort_costs[j]) return sort_costs[i] < sort_costs[j] ? -1 : 1;
  return i < j ? -1 : i > j;
}

/* The mean of A's personal bests as documented, into G[dims]. */
static void mean_of(const struct swarm_state *a, double *g)
{
  const int64_t n = a->particles, mu = n / 4 > 0 ? n / 4 : 1;
  int64_t *order = malloc(sizeof(int64_t) * (size_t)n);
  for (int64_t i = 0; i < n; i++) order[i] = i;
  sort_costs = a->pbest_cost;
  qsort(order, (size_t)n, sizeof *order, by_cost);
  double sum = 0;
  for (int64_t r = 0; r < mu; r++) sum += (double)((mu - r) * (mu - r));
  for (int d = 0; d < a->dims; d++) {
    double acc = 0;
    for (int64_t r = 0; r < mu; r++)
      acc += (double)((mu - r) * (mu - r)) * a->pbest_position[order[r] * a->dims + d];
    g[d] = acc / sum;
  }
  free(order);
}

/* Iteration T from state A with every particle attracted by G; compares
 * position and velocity with B bit for bit. Returns how many particles
 * differ (each a failure if REPORT). */
static int check_iteration(const struct ipso_config *cfg, int64_t t, const struct swarm_state *a,
                           const struct swarm_state *b, const double *g, int report)
{
  struct swarm_consts k;
  if (swarm_consts_build(cfg, &k) != IPSO_OK) exit(1);
  int bad = 0;
  for (int64_t i = 0; i < a->particles; i++) {
    int ok = cpu_follows(cfg, &k, cfg->swarm.inertia, t, a, b, i, g);
    bad += !ok;
    if (report)
      CHECK(ok, "iteration %lld, particle %lld does not follow the mean", (long long)t,
            (long long)i);
  }
  swarm_consts_free(&k);
  return bad;
}

/* Runs iterations 1..T-1 of N particles, optionally lets two good migrants
 * in, then checks iteration T against the formula with the mean; and that
 * the island's best personal best as attractor fails it. */
static void check_follows(int n, int dims, int64_t T, int migrate)
{
  struct ipso_config cfg;
  load("rastrigin", dims, n, "mean", &cfg);
  struct swarm_state a, c;
  CHECK(run_around(&cfg, T, migrate, &a, &c), "migrants refused");
  double *g = malloc(sizeof(double) * (size_t)dims);
  mean_of(&a, g);
  int bad = check_iteration(&cfg, T, &a, &c, g, 1);
  printf("mean n %d dims %d t %lld%s: %d particles differ\n", n, dims, (long long)T,
         migrate ? " after migration" : "", bad);
  int64_t best = 0;
  for (int64_t i = 1; i < n; i++)
    if (a.pbest_cost[i] < a.pbest_cost[best]) best = i;
  if (n >= 8)
    CHECK(check_iteration(&cfg, T, &a, &c, a.pbest_position + best * dims, 0) > 0,
          "particles follow the best personal best");
  free(g);
  swarm_state_free(&a);
  swarm_state_free(&c);
  config_free(&cfg);
}

/* Big enough for the parallel loops (particles x dims >= 16384). */
static void check_threads(void)
{
  struct ipso_config cfg;
  struct swarm_state a, b;
  load("rastrigin", 30, 700, "mean", &cfg);
  run(&cfg, 1, 15, &a);
  run(&cfg, 2, 15, &b);
  CHECK(same_swarm(&a, &b), "mean: 1 and 2 threads differ");
  swarm_state_free(&a);
  swarm_state_free(&b);
  config_free(&cfg);
}

/* "mixed": islands 6, 7, 14, 15, ... follow the mean, the others the ring. */
static void check_mixed(void)
{
  struct ipso_config cfg;
  load("sphere", 2, 16, "mixed", &cfg);
  for (int g = 0; g < 18; g++)
    CHECK(swarm_mean_on(&cfg, g) == (g == 6 || g == 7 || g == 14 || g == 15), "mixed: island %d",
          g);
  config_free(&cfg);
  load("sphere", 2, 16, "ring", &cfg);
  CHECK(!swarm_mean_on(&cfg, 2), "ring: island 2 follows the mean");
  config_free(&cfg);
}

int main(void)
{
  check_follows(16, 5, 9, 0);
  check_follows(40, 4, 10, 1);
  check_follows(64, 30, 13, 1);
  check_follows(257, 2, 7, 0);
  check_follows(3, 3, 4, 0); /* fewer than 4 particles: the best alone */
  check_threads();
  check_mixed();
  printf("%s\n", failures ? "FAILED" : "passed");
  return failures ? 1 : 0;
}

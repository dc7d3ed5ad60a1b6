/* The ring topology of the CPU reference backend: after an iteration every
 * particle's velocity and position are the documented formula with, as the
 * social attractor, the personal best of its neighbourhood's best (lowest
 * (pbest cost, index) among particles i-k..i+k mod N) as of the previous
 * iteration, also right after migrants arrive; a ring that covers the whole
 * swarm (2k + 1 = N) is the global topology bit for bit; results do not
 * depend on the number of OpenMP threads; the default topology. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend_cpu.h"
#include "config.h"
#include "philox.h"
#include "swarm.h"

#include "cpu_run.h"
#include "unit_check.h"

/* A config of PARTICLES particles on OBJECTIVE in DIMS dimensions with the
 * swarm topology TOPOLOGY ("global" or "ring", then with K neighbours). */
static void load(const char *objective, int dims, int particles, const char *topology, int k,
                 struct ipso_config *cfg)
{
  char text[512], ring[64] = "";
  if (!strcmp(topology, "ring")) snprintf(ring, sizeof ring, "neighbours = %d\n", k);
  snprintf(text, sizeof text,
           "[run]\nseed = 42\noutput = \"\"\n[objective]\nname = \"%s\"\ndimensions = %d\n"
           "[swarm]\nparticles = %d\ntopology = \"%s\"\n%s",
           objective, dims, particles, topology, ring);
  if (config_load_text(text, "test", 0, NULL, 1, cfg) != IPSO_OK) exit(1);
}

/* The neighbourhood's best of particle I, written independently of the
 * backend: the lowest (cost, index) of i-k..i+k mod N. */
static int64_t ring_best(const double *pc, int64_t n, int64_t k, int64_t i)
{
  int64_t arg = -1;
  for (int64_t o = -k; o <= k; o++) {
    int64_t j = ((i + o) % n + n) % n;
    if (arg < 0 || pc[j] < pc[arg] || (pc[j] == pc[arg] && j < arg)) arg = j;
  }
  return arg;
}

/* Iteration T from state A, particle by particle with the README's formula
 * and as attractor the personal best of particle ATTRACTOR[i]; compares
 * position and velocity with B bit for bit. Returns how many particles
 * differ (each a failure if REPORT). */
static int check_iteration(const struct ipso_config *cfg, int64_t t, const struct swarm_state *a,
                           const struct swarm_state *b, const int64_t *attractor, int report)
{
  struct swarm_consts k;
  if (swarm_consts_build(cfg, &k) != IPSO_OK) exit(1);
  int bad = 0;
  for (int64_t i = 0; i < a->particles; i++) {
    const double *g = a->pbest_position + attractor[i] * a->dims;
    int ok = cpu_follows(cfg, &k, cfg->swarm.inertia, t, a, b, i, g);
    bad += !ok;
    if (report) {
      CHECK(ok, "iteration %lld, particle %lld does not follow particle %lld", (long long)t,
            (long long)i, (long long)attractor[i]);
    }
  }
  swarm_consts_free(&k);
  return bad;
}

/* Runs iterations 1..T-1 of a ring of K on N particles, optionally lets two
 * good migrants in, then checks iteration T against the formula. */
static void check_follows(int n, int kk, int dims, int migrate)
{
  struct ipso_config cfg;
  load("rastrigin", dims, n, "ring", kk, &cfg);
  const int64_t T = 9;
  struct swarm_state a, c;
  CHECK(run_around(&cfg, T, migrate, &a, &c), "migrants refused");

  int64_t *lbest = malloc(sizeof(int64_t) * (size_t)n), *gbest = malloc(sizeof(int64_t) * n);
  int64_t g = 0, differ = 0;
  for (int64_t i = 1; i < n; i++)
    if (a.pbest_cost[i] < a.pbest_cost[g]) g = i;
  for (int64_t i = 0; i < n; i++) {
    lbest[i] = ring_best(a.pbest_cost, n, kk, i);
    gbest[i] = g;
    differ += lbest[i] != g;
  }
  /* Not vacuous: some neighbourhoods' best is not the swarm's best. */
  CHECK(differ > 0, "n %d k %d: every neighbourhood's best is the global best", n, kk);
  int bad = check_iteration(&cfg, T, &a, &c, lbest, 1);
  printf("ring n %d k %d dims %d%s: %lld of %d particles follow another than the global best, "
         "%d differ from the formula\n",
         n, kk, dims, migrate ? " after migration" : "", (long long)differ, n, bad);
  /* And the formula with the global best does not describe them. */
  if (differ > 0)
    CHECK(check_iteration(&cfg, T, &a, &c, gbest, 0) > 0, "ring particles follow the global best");
  free(lbest);
  free(gbest);
  swarm_state_free(&a);
  swarm_state_free(&c);
  config_free(&cfg);
}

/* A ring with 2k + 1 = N is the whole swarm: the global topology's bits. */
static void check_covering_ring(int n, int dims)
{
  struct ipso_config ring, global;
  load("ackley", dims, n, "ring", (n - 1) / 2, &ring);
  load("ackley", dims, n, "global", 0, &global);
  struct swarm_state a, b;
  run(&ring, 1, 80, &a);
  run(&global, 1, 80, &b);
  CHECK(same_swarm(&a, &b), "ring of k = %d on %d particles differs from global", (n - 1) / 2, n);
  swarm_state_free(&a);
  swarm_state_free(&b);
  config_free(&ring);
  config_free(&global);
}

/* Big enough for the parallel loops (particles x dims >= 16384). */
static void check_threads(void)
{
  struct ipso_config cfg;
  struct swarm_state a, b;
  load("rastrigin", 30, 700, "ring", 2, &cfg);
  run(&cfg, 1, 15, &a);
  run(&cfg, 2, 15, &b);
  CHECK(same_swarm(&a, &b), "ring: 1 and 2 threads differ");
  swarm_state_free(&a);
  swarm_state_free(&b);
  config_free(&cfg);
}

/* The default topology is mixed (a ring of 4 neighbours and the mean); on a
 * swarm the ring would cover (2k + 1 > particles) it is the global topology,
 * above IPSO_MEAN_MAX_PARTICLES the ring, as written in the resolved config. */
static void check_default_topology(void)
{
  const int sizes[] = {8, 9, IPSO_MEAN_MAX_PARTICLES, IPSO_MEAN_MAX_PARTICLES + 1};
  for (int s = 0; s < 4; s++) {
    int n = sizes[s];
    char text[256];
    snprintf(text, sizeof text,
             "[run]\noutput = \"\"\n[objective]\nname = \"sphere\"\ndimensions = 3\n"
             "[swarm]\nparticles = %d\n",
             n);
    struct ipso_config cfg;
    if (config_load_text(text, "test", 0, NULL, 1, &cfg) != IPSO_OK) exit(1);
    const enum ipso_swarm_topology want[] = {IPSO_SWARM_GLOBAL, IPSO_SWARM_MIXED, IPSO_SWARM_MIXED,
                                             IPSO_SWARM_RING};
    const char *text_want[] = {"topology = \"global\"\n", "topology = \"mixed\"\nneighbours = 4\n",
                               "topology = \"mixed\"\nneighbours = 4\n",
                               "topology = \"ring\"\nneighbours = 4\n"};
    CHECK(cfg.swarm.topology == want[s], "%d particles: default topology %s", n,
          config_swarm_topology_name(cfg.swarm.topology));
    CHECK(cfg.swarm.neighbours == 4, "default neighbours %d", cfg.swarm.neighbours);
    CHECK(strstr(cfg.text, text_want[s]) && (s > 0 || !strstr(cfg.text, "neighbours")),
          "%d particles: resolved config\n%s", n, cfg.text);
    config_free(&cfg);
  }
}

int main(void)
{
  check_default_topology();
  check_follows(11, 1, 5, 0);
  check_follows(11, 2, 5, 0);
  check_follows(16, 1, 4, 1);
  check_follows(64, 3, 30, 1);
  check_covering_ring(9, 6);
  check_covering_ring(3, 2);
  check_threads();
  printf("%s\n", failures ? "FAILED" : "passed");
  return failures ? 1 : 0;
}

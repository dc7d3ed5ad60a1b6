/* The clpso topology of the CPU reference backend: after an iteration every
 * particle's velocity and position are the documented formula with, as the
 * attractor, its exemplar computed here independently of the backend from
 * the state before the iteration (per dimension: a learning draw against
 * Pc_i, a tournament between two other particles on personal-best cost with
 * ties on the lower index, else its own personal best; one random dimension
 * where none learns), with the draws of the epoch t / refresh and the
 * inertia of the linear schedule; also right after migrants arrive and in
 * the middle of an epoch. Results do not depend on the number of OpenMP
 * threads. (K islands in one backend: test_cpu_backend.) */
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

enum { SEED = 42, MAX_ITERATIONS = 50, REFRESH = 3 };

/* A clpso config of PARTICLES particles on OBJECTIVE in DIMS dimensions. */
static void load(const char *objective, int dims, int particles, struct ipso_config *cfg)
{
  char text[512];
  snprintf(text, sizeof text,
           "[run]\nseed = %d\nmax_iterations = %d\noutput = \"\"\n[objective]\nname = \"%s\"\n"
           "dimensions = %d\n[swarm]\nparticles = %d\ntopology = \"clpso\"\nrefresh = %d\n",
           SEED, MAX_ITERATIONS, objective, dims, particles, REFRESH);
  if (config_load_text(text, "test", 0, NULL, 1, cfg) != IPSO_OK) exit(1);
}

/* The 4 words of counter (block, particle I, island 0) with the block's top
 * bit set: the exemplar draws of epoch E, dimension D (D = DIMS: the
 * particle's own draws). */
static void draws(int64_t i, int64_t e, int dims, int d, uint32_t w[4])
{
  uint64_t block = (uint64_t)e * (uint64_t)(dims + 1) + (uint64_t)d;
  uint32_t ctr[4] = {(uint32_t)block, (uint32_t)(block >> 32) | 0x80000000u, (uint32_t)i, 0};
  philox4x32_10(ctr, SEED, 0, w);
}

/* A particle other than I of N from word W: floor(W (N - 1) / 2^32), the
 * indices from I on shifted by one. */
static int64_t other(uint32_t w, int64_t n, int64_t i)
{
  int64_t j = (int64_t)floor((double)w / 4294967296.0 * (double)(n - 1));
  return j < i ? j : j + 1;
}

/* The better of J and K by (personal-best cost, index). */
static int64_t winner(const double *pc, int64_t j, int64_t k)
{
  if (pc[j] != pc[k]) return pc[j] < pc[k] ? j : k;
  return j < k ? j : k;
}

/* Particle I's exemplar at iteration T: SRC[d] = the particle whose
 * personal best gives dimension d. Returns the dimensions that learn from
 * another particle by their draw; *FORCED: the random dimension did. */
static int exemplar(const struct swarm_state *a, int64_t t, int64_t i, int64_t *src, int *forced)
{
  const int D = a->dims;
  const int64_t n = a->particles, e = t / REFRESH;
  double pc = 0.05 + 0.45 * (exp(10.0 * (double)i / (double)(n - 1)) - 1.0) / (exp(10.0) - 1.0);
  double threshold = floor(pc * 4294967296.0);
  int learned = 0;
  uint32_t w[4];
  for (int d = 0; d < D; d++) {
    draws(i, e, D, d, w);
    src[d] = i;
    if ((double)w[0] < threshold) {
      src[d] = winner(a->pbest_cost, other(w[1], n, i), other(w[2], n, i));
      learned++;
    }
  }
  *forced = learned == 0;
  if (*forced) {
    draws(i, e, D, D, w);
    int d = (int)floor((double)w[0] / 4294967296.0 * D);
    draws(i, e, D, d, w);
    src[d] = winner(a->pbest_cost, other(w[1], n, i), other(w[2], n, i));
  }
  return learned;
}

/* Iteration T from state A with particle i attracted by the personal bests
 * SRC[i * D + d]; compares position and velocity with B bit for bit.
 * Returns how many particles differ (each a failure if REPORT). */
static int check_iteration(const struct ipso_config *cfg, int64_t t, const struct swarm_state *a,
                           const struct swarm_state *b, const int64_t *src, int report)
{
  const int D = a->dims;
  const double w = cfg->swarm.inertia + (cfg->swarm.inertia_end - cfg->swarm.inertia) *
                                            ((double)t / (double)MAX_ITERATIONS);
  struct swarm_consts k;
  if (swarm_consts_build(cfg, &k) != IPSO_OK) exit(1);
  double *g = malloc(sizeof(double) * (size_t)D);
  int bad = 0;
  for (int64_t i = 0; i < a->particles; i++) {
    for (int d = 0; d < D; d++) g[d] = a->pbest_position[src[i * D + d] * D + d];
    int ok = cpu_follows(cfg, &k, w, t, a, b, i, g);
    bad += !ok;
    if (report)
      CHECK(ok, "iteration %lld, particle %lld does not follow its exemplar", (long long)t,
            (long long)i);
  }
  free(g);
  swarm_consts_free(&k);
  return bad;
}

/* Runs iterations 1..T-1 of N particles, optionally lets two good migrants
 * in, then checks iteration T against the formula with the exemplars. */
static void check_follows(int n, int dims, int64_t T, int migrate)
{
  struct ipso_config cfg;
  load("rastrigin", dims, n, &cfg);
  struct swarm_state a, c;
  CHECK(run_around(&cfg, T, migrate, &a, &c), "migrants refused");

  int64_t *src = malloc(sizeof(int64_t) * (size_t)n * (size_t)dims);
  int64_t *own = malloc(sizeof(int64_t) * (size_t)n * (size_t)dims);
  int learned = 0, forced = 0, low = 0, high = 0;
  for (int64_t i = 0; i < n; i++) {
    int f;
    int l = exemplar(&a, T, i, src + i * dims, &f);
    learned += l;
    forced += f;
    /* Pc grows with the index: 0.05 for the first particles, 0.5 for the last. */
    if (i < n / 4) low += l;
    if (i >= n - n / 4) high += l;
    for (int d = 0; d < dims; d++) own[i * dims + d] = i;
  }
  CHECK(learned > 0 && forced > 0, "n %d dims %d: %d learned dimensions, %d forced", n, dims,
        learned, forced);
  CHECK(high > low, "n %d: the last quarter learns %d dimensions, the first %d", n, high, low);
  int bad = check_iteration(&cfg, T, &a, &c, src, 1);
  printf("clpso n %d dims %d t %lld (epoch %lld)%s: %d dimensions learn by their draw (first "
         "quarter %d, last %d), %d particles by their random dimension, %d differ\n",
         n, dims, (long long)T, (long long)(T / REFRESH), migrate ? " after migration" : "",
         learned, low, high, forced, bad);
  /* And without the exemplars (own personal best) the formula fails. */
  CHECK(check_iteration(&cfg, T, &a, &c, own, 0) > 0, "particles follow their own personal best");
  free(src);
  free(own);
  swarm_state_free(&a);
  swarm_state_free(&c);
  config_free(&cfg);
}

/* Big enough for the parallel loops (particles x dims >= 16384). */
static void check_threads(void)
{
  struct ipso_config cfg;
  struct swarm_state a, b;
  load("rastrigin", 30, 700, &cfg);
  run(&cfg, 1, 15, &a);
  run(&cfg, 2, 15, &b);
  CHECK(same_swarm(&a, &b), "clpso: 1 and 2 threads differ");
  swarm_state_free(&a);
  swarm_state_free(&b);
  config_free(&cfg);
}

/* Two particles: each one's only other particle wins every tournament. */
static void check_pair(void)
{
  struct ipso_config cfg;
  struct swarm_state a;
  load("sphere", 3, 2, &cfg);
  run(&cfg, 1, 20, &a);
  CHECK(isfinite(a.pbest_cost[0]) && isfinite(a.pbest_cost[1]), "two particles");
  swarm_state_free(&a);
  config_free(&cfg);
}

int main(void)
{
  check_follows(11, 5, 9, 0);  /* the first iteration of epoch 3 */
  check_follows(11, 5, 11, 0); /* its last: the same draws, costs of now */
  check_follows(40, 4, 10, 1);
  check_follows(64, 30, 13, 1);
  check_follows(257, 2, 7, 0);
  check_pair();
  check_threads();
  printf("%s\n", failures ? "FAILED" : "passed");
  return failures ? 1 : 0;
}

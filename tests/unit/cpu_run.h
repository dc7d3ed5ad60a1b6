/* Shared by the CPU backend's unit tests: a run of one island on the CPU
 * backend (the comparison of swarms: state_compare.h). */
#ifndef IPSO_CPU_RUN_H
#define IPSO_CPU_RUN_H

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend_cpu.h"
#include "config.h"
#include "philox.h"
#include "state_compare.h"
#include "swarm.h"

/* Runs ITERS iterations of CFG's island 0 on THREADS OpenMP threads and
 * copies the swarm into ST (allocated here). */
static void run(const struct ipso_config *cfg, int threads, int iters, struct swarm_state *st)
{
#ifdef _OPENMP
  omp_set_num_threads(threads);
#else
  (void)threads;
#endif
  struct swarm_setup setup = {cfg, 0, 1, -1, 1};
  struct backend b;
  double *best = malloc(sizeof(double) * (size_t)(iters + 1));
  if (backend_cpu_create(&setup, &b) != IPSO_OK) exit(1);
  b.ops->init(&b);
  b.ops->step(&b, 1, iters, best);
  swarm_state_alloc(st, cfg->swarm.particles, cfg->objective.dimensions);
  b.ops->save_state(&b, st);
  b.ops->destroy(&b);
  free(best);
}

/* Runs iterations 1..T-1 of CFG's island 0 (one island of N particles in
 * DIMS dimensions), with MIGRATE lets in two migrants much better than
 * anything (so neighbourhoods and tournaments change), and copies the swarm
 * before (A) and after (C) iteration T, both allocated here: what the
 * attractor tests check iteration T with. Returns 0 if a migrant was
 * refused, else 1. */
static inline int run_around(const struct ipso_config *cfg, int64_t T, int migrate,
                             struct swarm_state *a, struct swarm_state *c)
{
  const int64_t n = cfg->swarm.particles;
  const int dims = cfg->objective.dimensions;
  struct swarm_setup setup = {cfg, 0, 1, -1, 1};
  struct backend b;
  double *best = malloc(sizeof(double) * (size_t)T);
  int ok = 1;
  if (!best || backend_cpu_create(&setup, &b) != IPSO_OK) exit(1);
  b.ops->init(&b);
  b.ops->step(&b, 1, T - 1, best);
  if (migrate) {
    double *pos = calloc(2 * (size_t)dims, sizeof(double)), cost[2] = {0.0, 1e-3};
    int64_t rep[2];
    pos[dims] = 0.03125;
    cpu_unpack_migrants(&b, 0, 2, pos, cost, rep);
    ok = rep[0] >= 0 && rep[1] >= 0;
    free(pos);
  }
  swarm_state_alloc(a, n, dims);
  swarm_state_alloc(c, n, dims);
  b.ops->save_state(&b, a);
  b.ops->step(&b, T, T, best);
  b.ops->save_state(&b, c);
  b.ops->destroy(&b);
  free(best);
  return ok;
}

/* Whether particle I of B is particle I of A moved by iteration T of the
 * documented update towards G[dims] with inertia W (island 0: the config's
 * seed and coefficients, the first clamp of K, its bounds). */
static inline int cpu_follows(const struct ipso_config *cfg, const struct swarm_consts *k, double w,
                              int64_t t, const struct swarm_state *a, const struct swarm_state *b,
                              int64_t i, const double *g)
{
  const int D = a->dims;
  const double c1 = cfg->swarm.cognitive, c2 = cfg->swarm.social;
  const uint64_t W = swarm_words_per_iteration(D), sub = swarm_subsequence(0, i);
  const double *x = a->position + i * D, *v = a->velocity + i * D, *p = a->pbest_position + i * D;
  int ok = 1;
  for (int d = 0; d < D; d++) {
    uint64_t at = (uint64_t)t * W + 2u * (unsigned)d;
    double r1 = philox_uniform_double(philox_word(cfg->run.seed, sub, at));
    double r2 = philox_uniform_double(philox_word(cfg->run.seed, sub, at + 1));
    double vn = fma(w, v[d], fma(c1 * r1, p[d] - x[d], (c2 * r2) * (g[d] - x[d])));
    vn = vn > k->vmax[d] ? k->vmax[d] : (vn < -k->vmax[d] ? -k->vmax[d] : vn);
    double xn = x[d] + vn;
    if (xn < k->lower[d] || xn > k->upper[d]) {
      xn = xn < k->lower[d] ? k->lower[d] : k->upper[d];
      vn = 0;
    }
    ok &= b->position[i * D + d] == xn && b->velocity[i * D + d] == vn;
  }
  return ok;
}

#endif

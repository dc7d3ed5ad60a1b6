/* Shared by the CPU backend's unit tests: a run of one island on the CPU
 * backend (the comparison of swarms: state_compare.h). */
#ifndef IPSO_CPU_RUN_H
#define IPSO_CPU_RUN_H

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend_cpu.h"
#include "config.h"
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

#endif

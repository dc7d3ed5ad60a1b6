/* The CPU backend's swarm (backend_cpu.c), shared with its second build
 * for processors with AVX2 and FMA (backend_cpu_fma.c): the struct, the
 * random words, and what backend_cpu_impl.h needs around it. */
#ifndef IPSO_BACKEND_CPU_SWARM_H
#define IPSO_BACKEND_CPU_SWARM_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <string.h>

#include "backend_cpu.h"
#include "check.h"
#include "log.h"
#include "migration.h"
#include "objective.h"
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
  const struct ipso_config *cfg;
  int island, D;
  int64_t N;
  uint64_t seed, W;
  enum ipso_precision precision;
  double sign, inertia, cognitive, social;
  objective_fn_d eval_d;
  objective_fn_f eval_f;
  /* The same objective built for AVX2 and FMA (backend_cpu_fma.c; a user
   * objective's own), and whether this swarm's init and iterations run
   * that build. */
  objective_fn_d eval_d_fma;
  objective_fn_f eval_f_fma;
  int fma;
  int has_w_end; /* inertia decreasing to w_end at tmax */
  double w_end;
  int64_t tmax;                               /* run.max_iterations */
  int ring;                                   /* topology ring: follow lbest rows */
  int64_t neighbours;                         /* ring: k on each side */
  int clpso;                                  /* topology clpso: follow exemplar rows */
  int refresh;                                /* clpso: iterations of an epoch */
  uint32_t *learn;                            /* clpso: [N] swarm_clpso_threshold */
  void *lbest;                                /* ring, clpso: REAL [N * D] attractors */
  void *x, *v, *p, *cost, *pcost, *gpos;      /* REAL arrays */
  void *tables, *lo, *hi, *span, *vmax, *prm; /* REAL [D] each, in one block */
  double gcost;                               /* global best cost, exact */
  int64_t gidx;
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

#if IPSO_CPU_FMA_BUILD
/* backend_cpu_fma.c: whether this processor runs it (AVX2 and FMA, and
 * IPSO_CPU_FMA is not 0); the built-in objective ID's instances there
 * (*D and *F left as they are for any other); iteration 0 and iteration T
 * of swarm C. */
int cpu_fma_usable(void);
void cpu_fma_objective(int id, objective_fn_d *d, objective_fn_f *f);
void cpu_fma_init(struct cpu_swarm *c);
void cpu_fma_iterate(struct cpu_swarm *c, int64_t t);
#endif

#endif

/* The backend interface: one island's swarm on one device. The CPU
 * reference backend and the CUDA backend implement it; the solver drives it.
 *
 * Costs are sign-adjusted fitness values: the objective for goal = minimize,
 * its negation for maximize, so lower is always better and NaN counts as
 * +infinity. Ties are broken by the lower particle index. */
#ifndef IPSO_BACKEND_H
#define IPSO_BACKEND_H

#include <stdint.h>

#include "config.h"

/* A host copy of one island's swarm, in double precision (exact for float
 * runs too). Arrays are row-major: element (i, d) at [i * dims + d]. */
struct swarm_state {
  int64_t particles;
  int dims;
  double *position;       /* [particles * dims] */
  double *velocity;       /* [particles * dims] */
  double *pbest_position; /* [particles * dims] */
  double *cost;           /* [particles] cost at position */
  double *pbest_cost;     /* [particles] */
};

/* The best particle of an island. */
struct island_best {
  double cost;
  int64_t particle;
  double *position; /* [dims], owned by the caller */
};

/* What a backend is given when it is created. */
struct swarm_setup {
  const struct ipso_config *cfg;
  int island;  /* this island's id (the MPI rank) */
  int islands; /* number of islands */
  int device;  /* GPU ordinal (GPU backend), ignored by the CPU backend */
};

struct backend;

struct backend_ops {
  const char *name;
  /* Allocates the swarm and initialises it (iteration 0). */
  int (*init)(struct backend *b);
  /* Runs iterations FIRST..LAST (inclusive) and writes the island's best
   * cost after each of them to best[t - FIRST]. */
  int (*step)(struct backend *b, int64_t first, int64_t last, double *best);
  /* The island's best particle, position included. */
  int (*best)(struct backend *b, struct island_best *out);
  /* Copies the COUNT best personal bests (best first; position [count*dims]
   * and cost [count]) and their particle indices. */
  int (*pack_migrants)(struct backend *b, int count, double *position, double *cost,
                       int64_t *index);
  /* Replaces the worst particles by the COUNT migrants (best first): the
   * i-th migrant replaces the i-th worst particle if its cost is lower. The
   * replaced particle takes the migrant as position and personal best, with
   * zero velocity. REPLACED[i] is the index replaced, or -1. */
  int (*unpack_migrants)(struct backend *b, int count, const double *position, const double *cost,
                         int64_t *replaced);
  /* Copies the whole swarm to the host, and back. */
  int (*save_state)(struct backend *b, struct swarm_state *s);
  int (*load_state)(struct backend *b, const struct swarm_state *s);
  void (*destroy)(struct backend *b);
};

struct backend {
  const struct backend_ops *ops;
  struct swarm_setup setup;
  void *impl;
  char description[256]; /* what runs the island, e.g. "gpu 0: NVIDIA H100 ..." */
  int64_t segment;       /* iterations per step call that keep the host out of the way */
};

#ifdef __cplusplus
extern "C" {
#endif

/* Creates the backend the config asks for (cpu, gpu, or auto: gpu when one
 * is usable, else cpu with a notice). */
int backend_create(const struct swarm_setup *setup, struct backend *b);
int backend_cpu_create(const struct swarm_setup *setup, struct backend *b);
/* Shares the node's cores between the ranks on it (unless OMP_NUM_THREADS
 * is set): each CPU island gets cores / RANKS_ON_NODE OpenMP threads. */
void backend_cpu_threads(int ranks_on_node);
#ifdef IPSO_HAVE_CUDA
int backend_gpu_create(const struct swarm_setup *setup, struct backend *b);
/* Number of CUDA devices visible, 0 if none (or no driver). */
int gpu_device_count(void);
/* Why gpu_device_count() is 0, in words. */
const char *gpu_unavailable_reason(void);
/* Device time of the launches of the last step() call, by CUDA events (ms). */
double gpu_last_step_ms(struct backend *b);
/* The thread mapping in use, in words (for benchmarks). */
const char *gpu_mapping_of(struct backend *b, char *buf, size_t n);
#endif
/* Number of usable GPUs (0 without CUDA or without a device). */
int backend_gpu_count(void);

/* Per-dimension constants every backend uses, computed once in double:
 * span = upper - lower, vmax = velocity_clamp * span, and the objective's
 * parameter vector (NULL if it takes none). Backends round them to their
 * precision, so the CPU and the GPU use the same values. */
struct swarm_consts {
  double *lower, *upper, *span, *vmax, *param;
};
int swarm_consts_build(const struct ipso_config *cfg, struct swarm_consts *k);
void swarm_consts_free(struct swarm_consts *k);

int swarm_state_alloc(struct swarm_state *s, int64_t particles, int dims);
void swarm_state_free(struct swarm_state *s);

/* Words of the random stream each particle uses per iteration: 2 per
 * dimension (r1, r2), rounded up to whole Philox blocks of 4 except in 1-D. */
static inline uint64_t swarm_words_per_iteration(int dims)
{
  return dims == 1 ? 2u : 4u * (uint64_t)((dims + 1) / 2);
}

/* The random subsequence of a particle: (island << 32) | particle. */
static inline uint64_t swarm_subsequence(int island, int64_t particle)
{
  return ((uint64_t)(uint32_t)island << 32) | (uint64_t)particle;
}

#ifdef __cplusplus
}
#endif

#endif

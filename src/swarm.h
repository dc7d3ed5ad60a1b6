/* A swarm's data as every layer sees it: the host copy of an island's state
 * (snapshots, checkpoints, checks), the per-dimension constants both
 * backends round to their precision, and the addressing of the random
 * stream that makes the CPU and the GPU draw the same numbers. */
#ifndef IPSO_SWARM_H
#define IPSO_SWARM_H

#include <stdint.h>

#include "config.h"

/* A host copy of one island's swarm (or of a rank's islands, one after the
 * other: swarm_state_island), in double precision (exact for float
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

/* Per-dimension constants every backend uses, computed once in double:
 * span = upper - lower, vmax = velocity_clamp * span, and the objective's
 * parameter vector (NULL if it takes none). Backends round them to their
 * precision, so the CPU and the GPU use the same values. */
struct swarm_consts {
  double *lower, *upper, *span, *vmax, *param;
};

#ifdef __cplusplus
extern "C" {
#endif

int swarm_state_alloc(struct swarm_state *s, int64_t particles, int dims);

/* A copy of the state into BUF that the caller does not wait for: FN(CTX,
 * BUF) is called by the I/O thread of a checkpoint or a snapshot (the GPU's
 * captured state read back to the host). */
struct state_fill {
  int (*fn)(void *ctx, struct swarm_state *buf);
  void *ctx;
};
void swarm_state_free(struct swarm_state *s);

/* Island K's rows of S, which holds islands of PARTICLES particles one
 * after the other (a rank's islands, in global order): a view into S's
 * arrays, nothing copied. */
static inline struct swarm_state swarm_state_island(const struct swarm_state *s, int64_t particles,
                                                    int k)
{
  struct swarm_state v = *s;
  size_t rows = (size_t)particles * (size_t)k, coords = rows * (size_t)s->dims;
  v.particles = particles;
  v.position = s->position + coords;
  v.velocity = s->velocity + coords;
  v.pbest_position = s->pbest_position + coords;
  v.cost = s->cost + rows;
  v.pbest_cost = s->pbest_cost + rows;
  return v;
}

int swarm_consts_build(const struct ipso_config *cfg, struct swarm_consts *k);
void swarm_consts_free(struct swarm_consts *k);

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

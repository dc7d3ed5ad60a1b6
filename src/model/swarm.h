/* A swarm's data as every layer sees it: the host copy of its state, the
 * per-dimension constants, and the addressing of the random stream that
 * makes the CPU and the GPU draw the same numbers. */
#ifndef IPSO_SWARM_H
#define IPSO_SWARM_H

#include <stddef.h>

#include "config.h"

/* A host copy of one island's swarm (or of a rank's islands one after the
 * other), in double (exact for float runs too); element (i, d) at [i * dims + d]. */
struct swarm_state {
  int64_t particles;
  int dims;
  double *position;       /* [particles * dims] */
  double *velocity;       /* [particles * dims] */
  double *pbest_position; /* [particles * dims] */
  double *cost;           /* [particles] cost at position */
  double *pbest_cost;     /* [particles] */
  double *frame;          /* eigen frames (swarm_frame_islands): [islands * dims * dims], or NULL */
};

/* Per-dimension constants, computed once in double and rounded by each
 * backend to its precision: span = upper - lower; vmax, a row per value of
 * swarm.velocity_clamp (row r = velocity_clamp[r] * span; island g takes
 * row g % nclamps); and the objective's parameter vector (NULL if it takes
 * none). */
struct swarm_consts {
  double *lower, *upper, *span, *vmax, *param;
  int nclamps;    /* rows of vmax */
  int64_t nparam; /* values in param */
};

int swarm_state_alloc(struct swarm_state *s, int64_t particles, int dims);
/* S's eigen frames for ISLANDS islands (swarm_state_alloc leaves them NULL). */
int swarm_state_alloc_frames(struct swarm_state *s, int islands);

/* A checkpoint's arrays are summed and written in pieces of this many
 * elements of one array. */
#define STATE_PIECE_ELEMENTS ((int64_t)1 << 20)
/* The pieces of N elements, and the length of the one that starts at AT. */
static inline int64_t state_pieces(int64_t n)
{
  return (n + STATE_PIECE_ELEMENTS - 1) / STATE_PIECE_ELEMENTS;
}
static inline int64_t state_piece_length(int64_t n, int64_t at)
{
  return n - at < STATE_PIECE_ELEMENTS ? n - at : STATE_PIECE_ELEMENTS;
}
void swarm_state_free(struct swarm_state *s);

/* The host memory in bytes ISLANDS islands of CFG take on one rank (the
 * host copy, the checkpoints' and snapshots' buffers where used, with CPU
 * the CPU backend's swarms); the parts in WHY (LEN bytes). */
double swarm_host_bytes(const struct ipso_config *cfg, int islands, int cpu, char *why, size_t len);

/* Iterations between updates of an eigen frame: one before iteration t
 * where swarm_frame_due(t). */
#define IPSO_FRAME_EVERY 10
/* The frame's update adds this fraction of the mean variance to every
 * direction, so that directions the personal bests do not span keep
 * their axes. */
#define IPSO_FRAME_RIDGE 1e-6
static inline int swarm_frame_due(int64_t t)
{
  return (t - 1) % IPSO_FRAME_EVERY == 0;
}

/* Whether island ISLAND (global id) moves in an eigen frame. */
static inline int swarm_frame_eigen(const struct ipso_config *cfg, int island)
{
  return cfg->swarm.frame == IPSO_FRAME_EIGEN ||
         (cfg->swarm.frame == IPSO_FRAME_MIXED && island % 2 == 1);
}

/* The mean topology's attractor: the weighted mean of an island's
 * swarm_mean_count best personal bests, rank r weighing (count - r)^2. */
static inline int64_t swarm_mean_count(int64_t particles)
{
  return particles / 4 > 0 ? particles / 4 : 1;
}

/* Whether island ISLAND (global id) follows its mean (topology "mean", or
 * "mixed" on islands 6 and 7 of every 8; the others a ring). */
static inline int swarm_mean_on(const struct ipso_config *cfg, int island)
{
  return cfg->swarm.topology == IPSO_SWARM_MEAN ||
         (cfg->swarm.topology == IPSO_SWARM_MIXED && island % 8 >= 6);
}

/* Island K's rows of S (islands of PARTICLES each): a view, nothing copied. */
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
  if (s->frame) v.frame = s->frame + (size_t)k * (size_t)s->dims * (size_t)s->dims;
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

/* The inertia of iteration T: W0, or with a schedule (HAS_END) W0 + (W_END
 * - W0) T / TMAX, in double (kernels/pso_device.cuh's inertia_at alike). */
static inline double swarm_inertia_at(double w0, int has_end, double w_end, int64_t t, int64_t tmax)
{
  if (!has_end) return w0;
  int64_t at = t < tmax ? t : tmax;
  return w0 + (w_end - w0) * ((double)at / (double)tmax);
}

/* The clpso exemplars (device twins in kernels/pso_device.cuh): particle
 * i's in epoch E = t / refresh come from its stream's block
 * swarm_clpso_block(E, D, d) for dimension d (the learning draw, the two
 * tournament entrants) and block (E, D, D) for the particle (word 0: the
 * dimension that learns when no other does). From 2^63 up, beyond the
 * update's blocks (< 10^12 * 50,000) and apart from each other. */
#define IPSO_CLPSO_BLOCK_BASE (UINT64_C(1) << 63)
static inline uint64_t swarm_clpso_block(int64_t epoch, int dims, int d)
{
  return IPSO_CLPSO_BLOCK_BASE + (uint64_t)epoch * ((uint64_t)dims + 1u) + (uint64_t)d;
}

/* A particle other than I of N, uniform, from one random word. */
static inline int64_t swarm_clpso_other(uint32_t w, int64_t n, int64_t i)
{
  int64_t j = (int64_t)(((uint64_t)w * (uint64_t)(n - 1)) >> 32);
  return j >= i ? j + 1 : j;
}

/* One of D dimensions, uniform, from one random word. */
static inline int swarm_clpso_dimension(uint32_t w, int dims)
{
  return (int)(((uint64_t)w * (uint64_t)dims) >> 32);
}

/* Particle I of N learns a dimension from another when the dimension's
 * learning word is below Pc_i 2^32, Pc_i = 0.05 + 0.45 (exp(10 i / (N - 1))
 * - 1) / (exp(10) - 1); on the host only, so both backends use these integers. */
uint32_t swarm_clpso_threshold(int64_t i, int64_t n);

#endif

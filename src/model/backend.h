/* The backend interface: the swarms of a rank's K islands (global ids
 * first .. first + K - 1) on one device, implemented by the CPU reference
 * and the CUDA backend. Island k draws from the stream of its global id, so
 * K islands in one backend give the bits of K backends of one island.
 * Costs are sign-adjusted (lower is better, NaN the worst); ties go to the
 * lower particle index. */
#ifndef IPSO_BACKEND_H
#define IPSO_BACKEND_H

#include <math.h>

#include "swarm.h"

/* Whether cost A beats cost B (NaN counts as +infinity). */
static inline int cost_better(double a, double b)
{
  return a < b || (isnan(b) && !isnan(a));
}

/* The best particle of an island. */
struct island_best {
  double cost;
  int64_t particle;
  double *position; /* [dims], owned by the caller */
};

/* What a backend is given when it is created. */
struct swarm_setup {
  const struct ipso_config *cfg;
  int island;  /* global id of the first island (0..islands-1); island k's id, which
                  addresses its random stream, is island + k */
  int islands; /* number of islands in all */
  int device;  /* GPU ordinal (GPU backend), ignored by the CPU backend */
  int count;   /* K: islands in this backend (0 counts as 1) */
};

/* The number of islands a backend created with SETUP holds. */
static inline int swarm_setup_count(const struct swarm_setup *setup)
{
  return setup->count > 0 ? setup->count : 1;
}

struct backend;

/* What a device backend (the GPU's) offers beyond the core. */
struct backend_device {
  /* Destroys B and hands its device back to the driver (the run's end). */
  void (*end)(struct backend *b);
};

struct backend_ops {
  const char *name;
  /* Allocates the swarms and initialises them (iteration 0). */
  int (*init)(struct backend *b);
  /* Runs iterations FIRST..LAST (inclusive) of all K islands and writes
   * island k's best cost after iteration t to best[k * n + (t - FIRST)],
   * n = LAST - FIRST + 1 (with one island: best[t - FIRST]). */
  int (*step)(struct backend *b, int64_t first, int64_t last, double *best);
  /* Island K's best particle, position included. */
  int (*best)(struct backend *b, int k, struct island_best *out);
  /* Every island's best cost now into COST[K] (without best()'s position copies). */
  int (*best_costs)(struct backend *b, double *cost);
  /* One migration of all K islands where the swarms are, the same on every
   * backend. migrate_out: each island's message of COUNT migrants
   * (migration_message_len): its COUNT best personal bests, or those of the
   * particles in SELECT ([K * count]); EDGE (NULL where the backend holds
   * the whole ring): island 0's and island K-1's messages for the other
   * ranks; VICTIMS > 0 (replace_worst): the backend may choose the worst now.
   * migrate_in: island k takes its previous island's migrants on link 0 and
   * (LINKS = 2) its next one's on link 1 where CARRIED[2k + l], merged as
   * migration_merge does; each replaces one of its worst particles, or of
   * those in REPLACE ([K * links * count]), only where better than that
   * particle's personal best: position and personal best the migrant,
   * velocity zero. REMOTE (NULL: the ring closes inside the backend): the
   * previous rank's last and the next rank's first island's messages.
   * migrate_sent: the best cost of every island's last message, for the log
   * (after its migrate_in). */
  int (*migrate_out)(struct backend *b, int count, const int64_t *select, int victims,
                     double *const edge[2]);
  int (*migrate_in)(struct backend *b, int count, int links, const unsigned char *carried,
                    const int64_t *replace, const double *const remote[2]);
  int (*migrate_sent)(struct backend *b, double *sent);
  /* Copies all K swarms to the host, and back: S holds K * particles rows,
   * island-major (island k's rows are swarm_state_island(S, particles, k)). */
  int (*save_state)(struct backend *b, struct swarm_state *s);
  int (*load_state)(struct backend *b, const struct swarm_state *s);
  void (*destroy)(struct backend *b);
  /* The objective (its value, not the cost) at the N points X ([N * dims],
   * one after the other) into F [N], in the run's precision, as the swarms
   * evaluate it (islandpso --evaluate). */
  int (*evaluate)(struct backend *b, const double *x, int64_t n, double *f);
  /* Optional (NULL: a host backend). */
  const struct backend_device *device;
};

struct backend {
  const struct backend_ops *ops;
  struct swarm_setup setup;
  void *impl;
  char description[256]; /* what runs the islands, e.g. "gpu 0: NVIDIA H100 ..." */
  /* What the solver needs to know of the backend, set by its constructor: */
  double segment_updates; /* particle-dimension updates of one island per step() call
                             that keep the host's share of the time small */
  int exact;              /* costs are the host objective's bits (the CPU backend);
                             otherwise equal to rounding (another math library) */
};

#endif

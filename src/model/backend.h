/* The backend interface: the swarms of K islands (a rank's islands, global
 * ids first .. first + K - 1) on one device; a rank holds one backend. The
 * CPU reference backend and the CUDA backend implement it; the solver
 * drives it. Island k draws from the random stream of its global id
 * first + k, so K islands in one backend give the same bits as K backends
 * of one island.
 *
 * Costs are sign-adjusted fitness values: the objective for goal = minimize,
 * its negation for maximize, so lower is always better and NaN counts as
 * +infinity. Ties are broken by the lower particle index. */
#ifndef IPSO_BACKEND_H
#define IPSO_BACKEND_H

#include <math.h>
#include <stdint.h>

#include "config.h"
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

/* What a backend whose state lives on a device offers beyond the core
 * operations (the GPU's): the state for a checkpoint's I/O threads without
 * the run waiting for a copy, and the device handed back at the end. */
struct backend_device {
  /* Captures the state of all K swarms as it is now without waiting for a
   * copy to the host, and sets *CAPTURED (0: not possible now, use
   * save_state). The run goes on; the capture is read, once, by
   * read_captured or in pieces, from another thread while step() and the
   * migrations run. */
  int (*capture_state)(struct backend *b, int *captured);
  int (*read_captured)(struct backend *b, struct swarm_state *s);
  /* A piece of the capture, read by thread READER (each reader its own
   * buffer, all of them at once): state_fill.piece's contract (swarm.h). */
  int (*read_captured_piece)(struct backend *b, int reader, int array, int64_t first, int64_t n,
                             const double **data);
  /* Captures, as capture_state does, a state that nothing changes until its
   * readers are done (the run's last checkpoint, which the backend's end
   * follows): nothing is copied, the readers read the swarms themselves. */
  int (*hold_state)(struct backend *b);
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
  /* Every island's best cost now into COST[K], from what the backend
   * already holds where it can (without best()'s copy of each position). */
  int (*best_costs)(struct backend *b, double *cost);
  /* One migration of all K islands where the swarms are; the same result
   * on every backend.
   * migrate_out: every island's message of COUNT migrants (laid out as
   * migration_message_len says): its COUNT best personal bests, or with
   * SELECT ([K * count]; island k's at [k * count]) those of the particles
   * drawn. EDGE (NULL where the backend holds the whole ring): island 0's
   * message into EDGE[0] and island K-1's into EDGE[1], for the other
   * ranks. VICTIMS > 0 (with REPLACE NULL and LINKS * COUNT = VICTIMS in
   * the migrate_in that follows): the backend may choose every island's
   * worst now (the result is the same).
   * migrate_in: island k takes the migrants of its previous island on link
   * 0 and, with LINKS = 2, of its next one on link 1, on the links where
   * CARRIED[2k + l], merged as migration_merge merges them; they replace
   * its worst particles, or with REPLACE ([K * links * count]; island k's
   * at [k * links * count]) the particles drawn, each only where the
   * migrant is better than the particle's personal best: position and
   * personal best the migrant, velocity zero. REMOTE (NULL where the
   * backend holds the whole ring, which closes inside it): the messages of
   * the previous rank's last island and of the next rank's first.
   * migrate_sent: the best cost of every island's message of the last
   * migration (after its migrate_in), into SENT[K]. */
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

/* The backend interface: the swarms of K islands (a rank's islands, global
 * ids first .. first + K - 1) on one device; a rank holds one backend. The
 * CPU reference backend and the CUDA backend implement it; the solver
 * drives it. Operations on one island take its local index k (0..K-1);
 * island k draws from the random stream of its global id first + k, so K
 * islands in one backend give the same bits as K backends of one island.
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

/* The device's time over the slices by its own clock (backend_ops.
 * device_slices; --timings): SLICES steps of ITERATIONS in all ended since
 * init or a load, BUSY seconds from an event before each one's first
 * launch to one after its last, IDLE seconds from the end of one step's
 * launches to the next one's start (the history's copy, migrations, and
 * any wait for the host's launch), of which FIRST before the first (from
 * the end of init) and IDLE_MAX the largest, before step IDLE_MAX_AT
 * (counted from 1). */
struct device_slices {
  int64_t slices, iterations, idle_max_at;
  double busy, idle, first, idle_max;
};

/* The capture slots (backend_ops.capture_state): one per kind of
 * background writer, so a snapshot and a checkpoint can be in flight. */
enum capture_slot { CAPTURE_CHECKPOINT, CAPTURE_SNAPSHOT, CAPTURE_SLOTS };

struct backend_ops {
  const char *name;
  /* Allocates the swarms and initialises them (iteration 0). */
  int (*init)(struct backend *b);
  /* Runs iterations FIRST..LAST (inclusive) of all K islands and writes
   * island k's best cost after iteration t to best[k * n + (t - FIRST)],
   * n = LAST - FIRST + 1 (with one island: best[t - FIRST]). */
  int (*step)(struct backend *b, int64_t first, int64_t last, double *best);
  /* Optional, both or neither (NULL: step): step() in two halves, so that
   * the host works while the device computes. step_begin enqueues
   * iterations FIRST..LAST; step_end waits for them and writes BEST as
   * step() does. Between them only host work and a migrate_out (enqueued
   * after the iterations: the migration at their end, while the host reads
   * their history). */
  int (*step_begin)(struct backend *b, int64_t first, int64_t last);
  int (*step_end)(struct backend *b, double *best);
  /* Island K's best particle, position included. */
  int (*best)(struct backend *b, int k, struct island_best *out);
  /* Every island's best cost now into COST[K], from what the host already
   * holds where it can (without best()'s copy of each position). No step
   * may be begun. */
  int (*best_costs)(struct backend *b, double *cost);
  /* Copies island K's COUNT best personal bests (best first; position
   * [count*dims] and cost [count]) and their particle indices. */
  int (*pack_migrants)(struct backend *b, int k, int count, double *position, double *cost,
                       int64_t *index);
  /* Replaces island K's worst particles by the COUNT migrants (best first):
   * the i-th migrant replaces the i-th worst particle if its cost is lower.
   * The replaced particle takes the migrant as position and personal best,
   * with zero velocity. REPLACED[i] is the index replaced, or -1. */
  int (*unpack_migrants)(struct backend *b, int k, int count, const double *position,
                         const double *cost, int64_t *replaced);
  /* Copies the personal bests (position [count*dims], cost [count]) of
   * island K's particles INDEX[0..COUNT), in that order (the random
   * selection: the solver draws the particles). */
  int (*pack_chosen)(struct backend *b, int k, int count, const int64_t *index, double *position,
                     double *cost);
  /* Island K's particle INDEX[i] (distinct particles, drawn by the solver)
   * takes the i-th migrant if the migrant's cost is lower than the
   * particle's personal-best cost, as unpack_migrants replaces. REPLACED[i]
   * is INDEX[i], or -1. */
  int (*unpack_chosen)(struct backend *b, int k, int count, const int64_t *index,
                       const double *position, const double *cost, int64_t *replaced);
  /* One migration of all K islands where the swarms are (the solver's
   * migration; the CPU's composed of the operations above, island by
   * island; the GPU's on the device with the same result).
   * migrate_out: every island's message of COUNT migrants (laid out as
   * migration_message_len says): its COUNT best personal bests, or with
   * SELECT ([K * count]; island k's at [k * count]) those of the particles
   * drawn. EDGE (NULL where the backend holds the whole ring): island 0's
   * message into EDGE[0] and island K-1's into EDGE[1], for the other ranks,
   * there once migrate_edges has returned (at once where it is NULL).
   * VICTIMS > 0 (with REPLACE NULL and LINKS * COUNT = VICTIMS in the
   * migrate_in that follows): the backend may choose every island's worst
   * now, while the host exchanges the edges (the result is the same).
   * migrate_in: island k takes the migrants of its previous island on link
   * 0 and, with LINKS = 2, of its next one on link 1, on the links where
   * CARRIED[2k + l], merged as migration_merge merges them; they replace
   * its worst particles, or with REPLACE ([K * links * count]; island k's
   * at [k * links * count]) the particles drawn, each only where better, as
   * unpack_migrants and unpack_chosen replace. REMOTE (NULL where the
   * backend holds the whole ring, which closes inside it): the messages of
   * the previous rank's last island and of the next rank's first.
   * migrate_sent: the best cost of every island's message of the last
   * migration, into SENT[K] (waits for it). */
  int (*migrate_out)(struct backend *b, int count, const int64_t *select, int victims,
                     double *const edge[2]);
  /* Optional (NULL: migrate_out wrote the edges at once): waits for the
   * EDGE messages of the last migrate_out. */
  int (*migrate_edges)(struct backend *b);
  int (*migrate_in)(struct backend *b, int count, int links, const unsigned char *carried,
                    const int64_t *replace, const double *const remote[2]);
  int (*migrate_sent)(struct backend *b, double *sent);
  /* Optional: the device's time over the slices since init (--timings). */
  int (*device_slices)(struct backend *b, struct device_slices *d);
  /* Copies all K swarms to the host, and back: S holds K * particles rows,
   * island-major (island k's rows are swarm_state_island(S, particles, k)). */
  int (*save_state)(struct backend *b, struct swarm_state *s);
  int (*load_state)(struct backend *b, const struct swarm_state *s);
  /* Optional (NULL where save_state is as cheap): captures the state of all
   * K swarms as it is now into capture SLOT (enum capture_slot) without
   * waiting for a copy to the host, and sets *CAPTURED (0: not possible
   * now, use save_state). The run goes on; the capture is read, once, by
   * read_captured, which may be called from another thread while step()
   * and the migrations run and the other slot is read; a capture replaces
   * the one before it in its slot, which must not be being read. */
  int (*capture_state)(struct backend *b, int slot, int *captured);
  int (*read_captured)(struct backend *b, int slot, struct swarm_state *s);
  /* Optional (with capture_state): a piece of capture SLOT, read by thread
   * READER (each reader its own buffer, all of them at once):
   * state_fill.piece's contract (swarm.h). */
  int (*read_captured_piece)(struct backend *b, int slot, int reader, int array, int64_t first,
                             int64_t n, const double **data);
  /* Optional (with capture_state): capture SLOT as capture_state does, of
   * a state that nothing changes until its readers are done (the run's
   * last checkpoint, which the backend's end follows): nothing is copied
   * and no second buffer is taken, the readers read the swarms
   * themselves once the work enqueued so far is done. */
  int (*hold_state)(struct backend *b, int slot);
  void (*destroy)(struct backend *b);
  /* Optional (NULL: destroy): destroys B and hands its device back to the
   * driver, the end of the process's work on it (backend_end). */
  void (*end)(struct backend *b);
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

#ifdef __cplusplus
extern "C" {
#endif

/* Creates the backend the config asks for (cpu, gpu, or auto: gpu when one
 * is usable, else cpu with a notice). The only place that names both. */
int backend_create(const struct swarm_setup *setup, struct backend *b);
/* Destroys B (nothing when it is already) and hands its device back (the
 * GPU's: cudaDeviceReset, what the process's exit would otherwise do
 * last). The end of a run, once nothing reads B. */
void backend_end(struct backend *b);
/* Number of usable GPUs (0 without CUDA or without a device). */
int backend_gpu_count(void);
/* Shares the node's cores between the ranks on it (CPU backend). */
void backend_share_cores(int ranks_on_node);

#ifdef __cplusplus
}
#endif

#endif

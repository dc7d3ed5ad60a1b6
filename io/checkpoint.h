/* Checkpoints: the full state of every island in one HDF5 file of its own,
 * written collectively to a temporary name, flushed and renamed, with the
 * previous checkpoint kept as <path>.prev. Each island's arrays carry a
 * checksum, so a truncated or altered file is refused on reading. */
#ifndef IPSO_CHECKPOINT_H
#define IPSO_CHECKPOINT_H

#include <mpi.h>
#include <stdint.h>

#include "swarm.h"
#include "config.h"

struct checkpoint_info {
  int64_t iteration;        /* last completed iteration */
  int64_t evaluations;      /* objective evaluations so far, all islands */
  double elapsed_seconds;   /* run time so far, all earlier segments of the run */
  int64_t target_iteration; /* first iteration that reached target_fitness, or -1 */
  int64_t history_rows;     /* history rows written to the output so far */
  /* The run's identity: when it started (the output's 'started'), and the
   * objective's fingerprint (objective_fingerprint); "" in checkpoints
   * written before they were recorded. */
  char run_started[32];
  char objective_hash[17];
};

#ifdef __cplusplus
extern "C" {
#endif

/* Writes the checkpoint cfg->output.checkpoint from every rank's islands S
 * (the rank's islands one after the other; costs, not fitness). Returns IPSO_ERR_RUNTIME with the
 * path and errno on failure, leaving the previous checkpoint in place. */
int checkpoint_write(MPI_Comm comm, const struct ipso_config *cfg,
                     const struct checkpoint_info *info, const struct swarm_state *s);

/* Reads checkpoint PATH into this rank's islands S (allocated here, the
 * islands one after the other) and INFO; any number of ranks that divides
 * the island count reads a checkpoint of the same islands.
 * A file that is missing, unreadable, truncated or fails its checksum, or
 * that was written for a different problem (dimensions, particles, islands,
 * objective, bounds, goal, precision) is refused with IPSO_ERR_USAGE and a
 * message naming the file and the reason. Changed algorithm settings (seed,
 * coefficients, kernel, migration) are allowed with a warning. */
int checkpoint_read(MPI_Comm comm, const char *path, const struct ipso_config *cfg,
                    struct checkpoint_info *info, struct swarm_state *s);

/* Before anything is written: the checkpoint's directory must exist and be
 * writable, and for a FRESH run an older run's checkpoint (or the one kept
 * before it) at the path is refused unless OVERWRITE (and must then be a
 * regular file). IPSO_ERR_USAGE with the reason, agreed by every rank; OK
 * when checkpoints are off. */
int checkpoint_check_path(MPI_Comm comm, const struct ipso_config *cfg, int fresh, int overwrite);

/* With --overwrite, once the new output exists: removes the older run's
 * checkpoint and the one kept before it. */
int checkpoint_remove_old(MPI_Comm comm, const struct ipso_config *cfg);

#ifdef __cplusplus
}
#endif

#endif

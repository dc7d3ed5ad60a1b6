/* Checkpoints: the full state of every island in an HDF5 file of its own,
 * written to a temporary name, flushed and renamed, the previous one kept
 * as <path>.prev. Each island's arrays carry a checksum,
 * so a truncated or altered file is refused on reading. */
#ifndef IPSO_CHECKPOINT_H
#define IPSO_CHECKPOINT_H

#include <mpi.h>

#include "swarm.h"

struct checkpoint_info {
  int64_t iteration;        /* last completed iteration */
  int64_t evaluations;      /* objective evaluations so far, all islands */
  double elapsed_seconds;   /* run time so far, all earlier segments of the run */
  int64_t target_iteration; /* first iteration that reached target_fitness, or -1 */
  int64_t history_rows;     /* history rows written to the output so far */
  char run_started[32];     /* the run's identity: the output's 'started', */
  char objective_hash[17];  /* and the objective's fingerprint (objective_fingerprint) */
  int64_t migration_rows;   /* rows of /migrations in the output (every rank's records), */
  int migration_rows_known; /* where known; a restart checks the output against both counts */
};

#ifdef __cplusplus
extern "C" {
#endif

/* The writer of a run's checkpoints (checkpoint_write.c). */
struct checkpoint_writer;

/* A writer for the checkpoints cfg->output.checkpoint of this rank's
 * islands of the run on COMM. */
int checkpoint_writer_create(MPI_Comm comm, const struct ipso_config *cfg,
                             struct checkpoint_writer **w);
void checkpoint_writer_free(struct checkpoint_writer *w);

/* The host buffer to copy the rank's islands into before checkpoint_write
 * (allocated on the first call). */
int checkpoint_writer_buffer(struct checkpoint_writer *w, struct swarm_state **buf);

/* Writes the buffer with INFO as the checkpoint (collective): a temporary
 * file, flushed, renamed over the checkpoint, the previous one kept. What
 * must be on disk before the rename (the output's rows INFO counts) the
 * caller flushes first. A failed step on any rank (short write, ENOSPC,
 * EROFS, EIO, fsync) is reported by that rank with the path and errno's
 * text and returns IPSO_ERR_RUNTIME on every rank, the temporary file
 * removed and the previous checkpoint in place. */
int checkpoint_write(struct checkpoint_writer *w, const struct checkpoint_info *info);

/* Reads checkpoint PATH into this rank's islands S (allocated here, one
 * after the other) and INFO, on any number of ranks that divides the island
 * count. IPSO_ERR_USAGE, with a message naming the file and the reason, for
 * a file that is missing, unreadable, truncated or fails a checksum (also
 * the one over its iteration, counts and identity), that was written for
 * another problem (dimensions, particles, islands, objective, bounds, goal,
 * precision), whose counts contradict each other, whose state breaks what
 * every swarm holds to, or whose run's output does not hold the rows it
 * counts. Changed algorithm settings are allowed with a warning. */
int checkpoint_read(MPI_Comm comm, const char *path, const struct ipso_config *cfg,
                    struct checkpoint_info *info, struct swarm_state *s);

/* Before anything is written (agreed by every rank; OK when checkpoints are
 * off): the directory must be writable; a file that is not HDF5 at a name
 * the run would replace or remove is refused; and for a FRESH run an older
 * run's checkpoint (or .prev) is refused unless OVERWRITE. */
int checkpoint_check_path(MPI_Comm comm, const struct ipso_config *cfg, int fresh, int overwrite);

/* What --resume continues from, into PATH (N bytes): the checkpoint, else
 * the one kept before it (with a warning), else "" (collective). */
int checkpoint_resume_path(MPI_Comm comm, const struct ipso_config *cfg, char *path, size_t n);

/* With --overwrite, once the new output exists: the older run's checkpoint
 * and .prev are renamed away and unlinked by a thread (freeing a large
 * file's blocks takes a while), which checkpoint_remove_wait joins. */
int checkpoint_remove_old(MPI_Comm comm, const struct ipso_config *cfg);
void checkpoint_remove_wait(void);

#ifdef __cplusplus
}
#endif

#endif

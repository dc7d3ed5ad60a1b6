/* Checkpoints: the full state of every island in an HDF5 file of its own,
 * written in the background to a temporary name, flushed and renamed, the
 * previous one kept as <path>.prev. Each island's arrays carry a checksum,
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

/* Asynchronous checkpoints (checkpoint_async.c says how): at most one is in
 * flight; only the main thread calls HDF5 and MPI. */
struct checkpoint_writer;

/* A writer for the checkpoints cfg->output.checkpoint of this rank's
 * islands of the run on COMM. */
int checkpoint_writer_create(MPI_Comm comm, const struct ipso_config *cfg,
                             struct checkpoint_writer **w);

/* Ends the writer; a thread still writing is stopped and joined, its
 * temporary file removed. */
void checkpoint_writer_free(struct checkpoint_writer *w);

/* The host buffer to copy the rank's islands into before checkpoint_start
 * (allocated on the first call); untouchable while a checkpoint is in flight. */
int checkpoint_writer_buffer(struct checkpoint_writer *w, struct swarm_state **buf);

/* How the caller of checkpoint_start goes on. */
enum checkpoint_mode {
  CHECKPOINT_BACKGROUND, /* the run goes on: one I/O thread, so the run keeps its cores */
  CHECKPOINT_WAIT,       /* the caller commits at once (a stop): the buffer filled
                            first, several threads */
  CHECKPOINT_LAST        /* the run's end: several threads; the caller may end the
                            backend once checkpoint_wait_read returns */
};

/* Starts writing a checkpoint of the buffer with INFO (collective); FILL,
 * when not NULL, lets the I/O threads read the state through FILL->piece
 * instead (with CHECKPOINT_WAIT the buffer is filled at once). On failure
 * IPSO_ERR_RUNTIME with the path and the reason, the previous checkpoint
 * in place. */
int checkpoint_start(struct checkpoint_writer *w, const struct checkpoint_info *info,
                     enum checkpoint_mode mode, const struct state_fill *fill);

/* Returns once this rank's I/O threads have read and written every piece
 * (or failed): FILL is not called any more. */
void checkpoint_wait_read(struct checkpoint_writer *w);

/* Whether a checkpoint was started and not yet committed (the same on every
 * rank). */
int checkpoint_in_flight(const struct checkpoint_writer *w);

/* Whether this rank's I/O thread is still writing (does not block). */
int checkpoint_writing(const struct checkpoint_writer *w);

/* Waits for this rank's I/O threads and agrees with every rank on their
 * outcome (collective): a failed write is reported, the temporary file
 * removed and nothing left in flight. What must be on disk before the
 * checkpoint is renamed into place (the output) is flushed between this
 * and checkpoint_commit. */
int checkpoint_join(struct checkpoint_writer *w);

/* checkpoint_join if not yet, then commits the checkpoint (collective). A
 * failed write on any rank (short write, ENOSPC, EROFS, EIO, fsync) is
 * reported by that rank with the path and errno's text and returns
 * IPSO_ERR_RUNTIME on every rank, the previous checkpoint in place. */
int checkpoint_commit(struct checkpoint_writer *w);

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

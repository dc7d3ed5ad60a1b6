/* Checkpoints: the full state of every island in one HDF5 file of its own,
 * written to a temporary name (in the background: checkpoint_start and
 * checkpoint_commit), flushed and renamed, with the previous checkpoint
 * kept as <path>.prev. Each island's arrays carry a checksum, so a
 * truncated or altered file is refused on reading. */
#ifndef IPSO_CHECKPOINT_H
#define IPSO_CHECKPOINT_H

#include <mpi.h>
#include <stddef.h>
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
  /* Rows of /migrations in the output at the checkpoint (every rank's
   * records), when MIGRATION_ROWS_KNOWN; a restart checks the output it
   * continues against it, as against history_rows. */
  int64_t migration_rows;
  int migration_rows_known;
};

#ifdef __cplusplus
extern "C" {
#endif

/* Asynchronous checkpoints (checkpoint_async.c). The state is copied into
 * the writer's host buffer (or read by the I/O threads from a capture),
 * checkpoint_start creates the temporary file with HDF5 (every attribute
 * written, every dataset allocated) and hands the rank's rows to the rank's
 * I/O threads, which write them with pwrite() at the datasets' offsets,
 * sum them and flush the file to disk, while the run goes on;
 * checkpoint_join waits for the threads, and checkpoint_commit, once every
 * rank's threads have finished, writes the checksums and makes the file
 * the checkpoint (temporary name, flush, rename, previous kept). At most
 * one checkpoint is in flight. The threads call neither HDF5 nor
 * MPI: only the caller's (main) thread does. */
struct checkpoint_writer;

/* A writer for the checkpoints cfg->output.checkpoint of this rank's
 * islands (a rank's share) of the run on COMM. */
int checkpoint_writer_create(MPI_Comm comm, const struct ipso_config *cfg,
                             struct checkpoint_writer **w);

/* Ends the writer; a thread still writing is told to stop and joined, and
 * its temporary file is left for the next checkpoint to overwrite. */
void checkpoint_writer_free(struct checkpoint_writer *w);

/* The host buffer to copy the rank's islands into before checkpoint_start
 * (allocated on the first call); it must not be touched while a checkpoint
 * is in flight. */
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
 * when not NULL, fills it instead: the I/O threads read the state through
 * FILL->piece (no host copy of the state at all; with CHECKPOINT_WAIT the
 * buffer is filled at once). The threads sum each piece as they write it.
 * IPSO_ERR_RUNTIME with the path and the reason on failure, leaving the
 * previous checkpoint in place. */
int checkpoint_start(struct checkpoint_writer *w, const struct checkpoint_info *info,
                     enum checkpoint_mode mode, const struct state_fill *fill);

/* Returns once this rank's I/O threads have read and written every piece
 * of the checkpoint in flight (or failed): FILL is not called any more,
 * only the flush is left. */
void checkpoint_wait_read(struct checkpoint_writer *w);

/* Whether a checkpoint was started and not yet committed (the same on every
 * rank). */
int checkpoint_in_flight(const struct checkpoint_writer *w);

/* Whether this rank's I/O thread is still writing (does not block). */
int checkpoint_writing(const struct checkpoint_writer *w);

/* Waits for this rank's I/O threads and agrees with every rank on their
 * outcome (collective; nothing to do when none is in flight or it was
 * joined already): a failed write is reported as by checkpoint_commit, the
 * temporary file removed, and nothing is left in flight. What the caller
 * must have on disk before the checkpoint is renamed into place (the
 * output) is flushed between this and checkpoint_commit. */
int checkpoint_join(struct checkpoint_writer *w);

/* Waits for this rank's I/O threads (checkpoint_join, if not yet), agrees
 * with every rank on the outcome and commits the checkpoint (collective;
 * nothing to do when none is in flight). A failed write (a short write,
 * ENOSPC, EROFS, EIO, a failed fsync) on any rank is reported by that rank
 * with the path and errno's text and returns IPSO_ERR_RUNTIME on every
 * rank, the temporary file removed and the previous checkpoint in place. */
int checkpoint_commit(struct checkpoint_writer *w);

/* Reads checkpoint PATH into this rank's islands S (allocated here, the
 * islands one after the other) and INFO; any number of ranks that divides
 * the island count reads a checkpoint of the same islands.
 * A file that is missing, unreadable, truncated or fails its checksum, or
 * that was written for a different problem (dimensions, particles, islands,
 * objective, bounds, goal, precision) is refused with IPSO_ERR_USAGE and a
 * message naming the file and the reason; so is one whose iteration, counts
 * and identity are not covered by its checksum (written before they were,
 * or altered since), whose counts contradict each other (evaluations, the
 * target's iteration, history rows), whose state breaks what every swarm
 * holds to (positions and personal bests within the bounds, velocities
 * within the clamp, no NaN cost, no personal best worse than its current
 * cost), and one whose run's output (cfg->run.output, when it exists and
 * is that run's) does not hold the rows the checkpoint counts
 * (checkpoint_check_output). Changed algorithm settings (coefficients,
 * kernel, migration) are allowed with a warning. */
int checkpoint_read(MPI_Comm comm, const char *path, const struct ipso_config *cfg,
                    struct checkpoint_info *info, struct swarm_state *s);

/* Whether the output OUTPUT that a restart from checkpoint PATH (INFO)
 * continues holds what the checkpoint counts (rank 0 reads it, read-only;
 * collective): the history rows up to the checkpoint's iteration (the
 * longest run of increasing iterations not above it) must be
 * INFO->history_rows, and the migration records up to it
 * INFO->migration_rows where that is known. An output older than the
 * checkpoint would leave a gap in the history; one with more rows holds
 * another run's. IPSO_ERR_USAGE with the reason; OK when OUTPUT is "" or
 * missing (the reopen refuses that). */
int checkpoint_check_output(MPI_Comm comm, const char *path, const char *output,
                            const struct checkpoint_info *info);

/* Before anything is written: the checkpoint's directory must exist and be
 * writable; a file that is not an HDF5 file at a name the run would
 * replace or remove (.tmp, .removing, .prev.removing, and for a restart
 * the checkpoint and .prev) is refused; and for a FRESH run an older run's
 * checkpoint (or the one kept before it) at the path is refused unless
 * OVERWRITE (and must then be a checkpoint file). IPSO_ERR_USAGE with the
 * reason, agreed by every rank; OK when checkpoints are off. */
int checkpoint_check_path(MPI_Comm comm, const struct ipso_config *cfg, int fresh, int overwrite);

/* What --resume continues from, in PATH (N bytes): the config's checkpoint
 * if it exists, else the one kept before it (<checkpoint>.prev: the last
 * was lost, and that one is whole), with a warning; "" when neither exists
 * or checkpoints are off. Rank 0 looks; every rank gets the answer
 * (collective). */
int checkpoint_resume_path(MPI_Comm comm, const struct ipso_config *cfg, char *path, size_t n);

/* With --overwrite, once the new output exists: removes the older run's
 * checkpoint and the one kept before it. They are renamed away at once and
 * unlinked by a thread (freeing a large file's blocks takes a while);
 * checkpoint_remove_wait joins it. */
int checkpoint_remove_old(MPI_Comm comm, const struct ipso_config *cfg);
void checkpoint_remove_wait(void);

#ifdef __cplusplus
}
#endif

#endif

/* The run's HDF5 file (design.md "HDF5 file"), written collectively by all
 * ranks through parallel HDF5, or gathered to rank 0 with serial HDF5.
 * Every function here is collective over the communicator of h5out_create. */
#ifndef IPSO_H5OUT_H
#define IPSO_H5OUT_H

#include <mpi.h>

#include "swarm.h"

struct h5out;

/* One migration as logged in /migrations. */
struct migration_record {
  int64_t iteration;
  int32_t from;
  int32_t to;
  double best_fitness; /* the best fitness sent, in the objective's units */
};

/* The final result, identical on every rank. */
struct run_result {
  double best_fitness;         /* in the objective's units */
  const double *best_position; /* [dims] */
  int dims;
  int island;
  int64_t particle;
  int64_t iteration;   /* iteration at which the run ended */
  int64_t evaluations; /* objective evaluations, all islands */
  double elapsed_seconds;
};

#ifdef __cplusplus
extern "C" {
#endif

/* Creates the output file cfg->run.output. An existing file is an error
 * (IPSO_ERR_USAGE, message names it) unless OVERWRITE. Writes the root
 * attributes: version, config (cfg->text), seed, islands, started. */
int h5out_create(MPI_Comm comm, const struct ipso_config *cfg, int overwrite, struct h5out **out);

/* Opens the existing output of a run restarted from ITERATION and removes
 * what was written after it (history and migration rows, snapshots, the
 * result and 'finished'), which the continued run writes again; the config
 * attribute becomes CFG's. */
int h5out_reopen(MPI_Comm comm, const struct ipso_config *cfg, int64_t iteration,
                 struct h5out **out);

/* When the run of a file made by h5out_create started (its 'started'). */
const char *h5out_started(const struct h5out *h);

/* History rows in the file (after a reopen: those kept). */
int64_t h5out_history_rows(const struct h5out *h);
/* Rows of /migrations in the file (every rank's records). */
int64_t h5out_migration_rows(const struct h5out *h);

/* Appends N history rows. N, ITERATION, GLOBAL_BEST, EVALUATIONS and
 * WALL_SECONDS are the same on every rank; ISLAND_BEST [N, K] holds this
 * rank's K island columns (row-major, islands in global order). Fitness
 * values are in the objective's units. */
int h5out_append_history(struct h5out *h, int n, const int64_t *iteration,
                         const double *island_best, const double *global_best,
                         const int64_t *evaluations, const double *wall_seconds);

/* Appends this rank's N migration records (N may differ between ranks). */
int h5out_append_migrations(struct h5out *h, int n, const struct migration_record *rec);

/* Writes /snapshots/<iteration>/ from every rank's islands, S holding the
 * rank's islands one after the other (rows island-major, global order).
 * SIGN turns costs into fitness: +1 for minimize, -1 for maximize. */
int h5out_write_snapshot(struct h5out *h, int64_t iteration, const struct swarm_state *s,
                         double sign);

/* Writes /result/ (replacing an earlier one). */
int h5out_write_result(struct h5out *h, const struct run_result *r);

/* 1 with the reason in WHY when the output's path no longer names the file
 * this run opened (deleted, moved or replaced since), else 0. Rank 0 looks
 * with one stat, no MPI; every other rank answers 0. */
int h5out_identity_lost(const struct h5out *h, char *why, size_t len);

/* The same, agreed by every rank (collective): IPSO_ERR_RUNTIME on every
 * rank with rank 0's message naming the path. */
int h5out_check_identity(const struct h5out *h);

/* Flushes everything written so far to the file. */
int h5out_flush(struct h5out *h);

/* Closes the file; FINISHED writes the 'finished' attribute (time). */
int h5out_close(struct h5out *h, int finished);

/* Frees H after a runtime failure, with no HDF5 or MPI call (closing is
 * collective): the file is left as the last flush made it. */
void h5out_abandon(struct h5out *h);

#ifdef __cplusplus
}
#endif

#endif

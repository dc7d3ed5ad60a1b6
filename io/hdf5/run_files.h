/* What a run may do to the files it finds, decided before it writes any:
 * the identity of the run an existing output belongs to, read without
 * changing the file. */
#ifndef IPSO_RUN_FILES_H
#define IPSO_RUN_FILES_H

#include <mpi.h>

#include "config.h"

/* An existing output as found: whether it is there and readable, when its
 * run started (root attribute 'started'), whether that run finished, and
 * whether it was written with exactly CONFIG_TEXT (the resolved config). */
struct output_found {
  int exists, readable, finished, same_config;
  char started[32];
};

#ifdef __cplusplus
extern "C" {
#endif

/* Reads PATH's identity on rank 0 (read-only, serial HDF5) and gives it to
 * every rank of COMM. A missing file is exists = 0; never an error. */
int output_find(MPI_Comm comm, const char *path, const char *config_text, struct output_found *o);

/* The time now as ISO 8601 UTC, rank 0's clock, the same on every rank of
 * COMM ("unknown" if the clock fails): when a run started or finished. */
int run_clock(MPI_Comm comm, char stamp[32]);

/* The hash of the objective as the run computes it, in HEX (17 bytes): for
 * a user objective its source file, every file that one #includes, and the
 * function name; for a built-in its name. "" when the sources cannot be
 * followed (an #include through a macro). */
void objective_fingerprint(const struct ipso_config *cfg, char hex[17]);

/* Whether every rank runs the objective the run recorded (collective, once
 * every backend exists): each rank's fingerprint of the user objective it
 * loaded (user_objective_loaded) must be rank 0's, and of the sources now
 * RECORDED (the checkpoints' one; "" skips that). Otherwise the sources
 * changed while the ranks compiled them, or the ranks see different files:
 * IPSO_ERR_USAGE on every rank, rank 0 naming the rank and both. */
int objective_agree(MPI_Comm comm, const struct ipso_config *cfg, const char *recorded);

#ifdef __cplusplus
}
#endif

#endif

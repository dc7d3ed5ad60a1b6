/* The island loop: the only place that knows the config, the backend,
 * migration and the output together. */
#ifndef IPSO_SOLVER_H
#define IPSO_SOLVER_H

#include <mpi.h>

#include "backend.h"

struct solver_options {
  int overwrite;               /* replace an existing output file */
  int check_invariants;        /* check the swarm invariants after every iteration */
  const char *restart;         /* checkpoint to continue from, or NULL */
  int resume;                  /* continue from the config's checkpoint if it exists */
  int timings;                 /* print where the start-up time went (rank 0) */
  int allow_changed_objective; /* restart although the objective's sources changed */
};

/* Runs the configured optimisation on every rank of COMM (one island per
 * rank). Returns IPSO_OK, IPSO_STOPPED (signal or time limit, checkpoint
 * written), IPSO_ERR_USAGE (problem with the user's input, found before the
 * run starts) or IPSO_ERR_RUNTIME; the same value on every rank except for
 * a runtime failure of one rank. */
int solver_run(MPI_Comm comm, const struct ipso_config *cfg, const struct solver_options *opt);

/* islandpso CONFIG --evaluate FILE (evaluate.c): prints the objective at
 * every point of PATH (D numbers a line, '#' lines skipped) with 17
 * significant digits, one a line, computed by CFG's backend; writes no
 * file. IPSO_ERR_USAGE naming PATH:line for a line that is not D numbers. */
int evaluate_points(const struct ipso_config *cfg, const char *path);

/* The backend factory (backends.c, the only file naming both backends):
 * creates the backend the config asks for (cpu, gpu, or auto: gpu when one is
 * usable, else cpu with a notice); EVALUATE: for --evaluate alone (the GPU
 * compiles that kernel alone). */
int backend_create(const struct swarm_setup *setup, int evaluate, struct backend *b);
/* Destroys B (if not yet) and hands its device back (the GPU's: cudaDeviceReset,
 * else the process's exit's last work), once nothing reads B. */
void backend_end(struct backend *b);
/* Number of usable GPUs (0 without CUDA or without a device). */
int backend_gpu_count(void);
/* Shares the node's cores between the ranks on it (CPU backend). */
void backend_share_cores(int ranks_on_node);

#endif

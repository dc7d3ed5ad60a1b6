/* MPI for the islands: start-up with errors returned, rank -> GPU binding,
 * agreement between ranks, the global best, and ring migration. Knows the
 * backend interface but nothing of CUDA. */
#ifndef IPSO_ISLAND_MPI_H
#define IPSO_ISLAND_MPI_H

#include <mpi.h>
#include <stdint.h>

#include "backend.h"
#include "config.h"
#include "log.h"

/* Checks an MPI call; on failure reports the call and MPI's own error
 * string and returns IPSO_ERR_RUNTIME from the calling function. */
#define IPSO_CHECK_MPI(call)                                                                       \
  do {                                                                                             \
    int ipso_mpi_rc_ = (call);                                                                     \
    if (ipso_mpi_rc_ != MPI_SUCCESS)                                                               \
      return island_mpi_fail(#call, ipso_mpi_rc_, __FILE__, __LINE__);                             \
  } while (0)

struct ring_migration;

#ifdef __cplusplus
extern "C" {
#endif

/* Initialises MPI (errors returned, not fatal) and the log's rank. */
int island_mpi_init(int *argc, char ***argv, int *rank, int *size);
int island_mpi_fail(const char *call, int rc, const char *file, int line);

/* This rank's index and the number of ranks on its node. */
int island_local_rank(MPI_Comm comm, int *local_rank, int *local_size);

/* The GPU a rank drives: local rank modulo the visible devices. */
static inline int island_device_for(int local_rank, int devices)
{
  return devices > 0 ? local_rank % devices : -1;
}

/* The worst (largest) STATUS of all ranks, on every rank. A rank whose MPI
 * fails gets IPSO_ERR_RUNTIME. */
int island_agree(MPI_Comm comm, int status);

/* Bitwise OR of FLAGS over all ranks. */
int island_or(MPI_Comm comm, int flags, int *all);

/* Elementwise minimum of N doubles over all ranks, in place. */
int island_min(MPI_Comm comm, double *values, int n);

/* The best particle of all islands: lowest cost, ties by island. GLOBAL's
 * position buffer [dims] receives the winner's position on every rank. */
int island_global_best(MPI_Comm comm, const struct island_best *local, int dims,
                       struct island_best *global, int *island);

/* Ring migration: every migration.interval iterations each island sends
 * copies of its migration.migrants best particles to its right neighbour
 * (ring) or to both neighbours (bidirectional_ring; with two islands there
 * is one), and replaces its worst particles by what it receives (backend
 * unpack_migrants). Receives are posted ahead; sends are nonblocking. */
int ring_migration_create(MPI_Comm comm, const struct ipso_config *cfg,
                          struct ring_migration **out);

/* Whether this run migrates at all (interval > 0 and several islands). */
int ring_migration_active(const struct ring_migration *rm);

/* Exchanges migrants after iteration ITERATION. Fills the destinations
 * (TO[0..*NDEST)) and the best cost sent, and the number of particles
 * replaced here. */
int ring_migration_exchange(struct ring_migration *rm, struct backend *b, int *to, int *ndest,
                            double *best_sent, int *replaced);

void ring_migration_free(struct ring_migration *rm);

#ifdef __cplusplus
}
#endif

#endif

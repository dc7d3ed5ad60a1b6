/* MPI for the islands: start-up with errors returned, the node's ranks,
 * agreement, the global best, the ring migration's exchange. No CUDA. */
#ifndef IPSO_ISLAND_MPI_H
#define IPSO_ISLAND_MPI_H

#include <mpi.h>

#include "check.h"

/* Returns (or, _GOTO, jumps to LABEL with RC) the failure of an MPI call. */
#define IPSO_CHECK_MPI(call)                                                                       \
  do {                                                                                             \
    int ipso_mpi_rc_ = (call);                                                                     \
    if (ipso_mpi_rc_ != 0) return ipso_mpi_fail(#call, ipso_mpi_rc_, __FILE__, __LINE__);          \
  } while (0)

#define IPSO_CHECK_MPI_GOTO(call, rc, label)                                                       \
  do {                                                                                             \
    int ipso_mpi_rc_ = (call);                                                                     \
    if (ipso_mpi_rc_ != 0) {                                                                       \
      (rc) = ipso_mpi_fail(#call, ipso_mpi_rc_, __FILE__, __LINE__);                               \
      goto label;                                                                                  \
    }                                                                                              \
  } while (0)

#ifdef __cplusplus
extern "C" {
#endif

/* Reports a failed MPI call (MPI_Error_string); IPSO_ERR_RUNTIME. */
int ipso_mpi_fail(const char *call, int rc, const char *file, int line);

/* Initialises MPI (errors returned, not fatal) and the log's rank. */
int island_mpi_init(int *argc, char ***argv, int *rank, int *size);

/* This rank's index and the number of ranks on its node. */
int island_local_rank(MPI_Comm comm, int *local_rank, int *local_size);

/* The worst (largest) STATUS of all ranks; IPSO_ERR_RUNTIME where MPI fails. */
int island_agree(MPI_Comm comm, int status);

/* The best of all islands from each rank's best (COST, PARTICLE, POSITION
 * [dims], global id *ISLAND): the lowest cost, ties to the lower island; in
 * place on every rank. */
int island_best_of_all(MPI_Comm comm, double *cost, int64_t *particle, double *position, int dims,
                       int *island);

/* The ring migration between neighbouring ranks: COUNT doubles to the right
 * neighbour (with BOTH, to the left too), the same from the left (and the
 * right): what a rank's last island sends right and its first left. With two
 * ranks left and right are one rank; tags tell the directions apart. */
struct ring_exchange;

int ring_exchange_create(MPI_Comm comm, size_t count, int both, struct ring_exchange **out);
/* Sends TO_RIGHT (and TO_LEFT), receives FROM_LEFT (and FROM_RIGHT), all
 * complete on return. */
int ring_exchange(struct ring_exchange *rx, const double *to_right, const double *to_left,
                  double *from_left, double *from_right);
void ring_exchange_free(struct ring_exchange *rx);

#ifdef __cplusplus
}
#endif

#endif

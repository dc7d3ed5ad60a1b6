/* MPI for the islands: start-up with errors returned, rank -> GPU binding,
 * agreement between ranks, the global best, and the buffers of ring
 * migration. Knows neither the backends nor CUDA. */
#ifndef IPSO_ISLAND_MPI_H
#define IPSO_ISLAND_MPI_H

#include <mpi.h>
#include <stdint.h>

#include "ipso.h"
#include "check.h"

/* MPI: the call and MPI_Error_string (ipso_mpi_fail). */
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

struct ring_migration;

#ifdef __cplusplus
extern "C" {
#endif

/* Reports a failed MPI call (MPI_Error_string); IPSO_ERR_RUNTIME. */
int ipso_mpi_fail(const char *call, int rc, const char *file, int line);

/* Initialises MPI (errors returned, not fatal) and the log's rank. */
int island_mpi_init(int *argc, char ***argv, int *rank, int *size);

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

/* Elementwise minimum of N doubles over all ranks, in place. */
int island_min(MPI_Comm comm, double *values, int n);

/* The best of all islands from each rank's best island (COST, PARTICLE,
 * POSITION [dims], its global id in *ISLAND): the lowest cost, ties to the
 * lower island. Every rank gets the winner's cost, particle, position (in
 * place) and island. */
int island_best_of_all(MPI_Comm comm, double *cost, int64_t *particle, double *position, int dims,
                       int *island);

/* The exchange of the ring migration between neighbouring ranks: buffers of
 * COUNT doubles go to the right neighbour (and, with BOTH, to the left one
 * too), and the same come from the left (and the right). On the global ring
 * of islands, what a rank's last island sends to the right and its first
 * island to the left. With two ranks
 * the left and right neighbour are the same rank; tags tell the directions
 * apart. It moves buffers only: what they hold is the caller's. */
struct ring_exchange;

int ring_exchange_create(MPI_Comm comm, size_t count, int both, struct ring_exchange **out);
/* Sends TO_RIGHT (and TO_LEFT) and receives FROM_LEFT (and FROM_RIGHT);
 * returns when all four transfers are complete. The receives of the next
 * exchange are posted before it returns. */
int ring_exchange(struct ring_exchange *rx, const double *to_right, const double *to_left,
                  double *from_left, double *from_right);
/* The ranks this one sends to: right first, then left (if both). */
int ring_exchange_neighbours(const struct ring_exchange *rx, int to[2]);
void ring_exchange_free(struct ring_exchange *rx);

#ifdef __cplusplus
}
#endif

#endif

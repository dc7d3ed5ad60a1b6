/* MPI for the islands: start-up, agreement, the global best, ring exchange. */
#include "island_mpi.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int ipso_mpi_fail(const char *call, int rc, const char *file, int line)
{
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "code %d", rc);
  log_fail("mpi", file, line, "%s failed: %s", call, msg);
  return IPSO_ERR_RUNTIME;
}

/* A process started without a launcher is an MPI singleton that talks to
 * no other: unless the user chose otherwise, Open MPI runs it isolated on
 * ob1, without the helper daemon and the network probe it would start
 * (other MPI libraries ignore these variables). */
static void singleton_defaults(void)
{
  static const char *const launched[] = {
      "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MPI_LOCALNRANKS", NULL};
  for (const char *const *v = launched; *v; v++)
    if (getenv(*v)) return;
  setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
  setenv("OMPI_MCA_pml", "ob1", 0);
  /* hwloc's GPU plugins slow MPI_Init; a lone process needs no GPU topology. */
  setenv("HWLOC_COMPONENTS", "-cuda,-nvml,-opencl,-gl,-rsmi,-levelzero", 0);
  /* Isolated singletons all take job family 0: concurrent ones (a sweep)
   * would remove each other's session directory without one of their own. */
  const char *tmp = getenv("TMPDIR");
  char dir[4096];
  int n = snprintf(dir, sizeof dir, "%s/ompi-islandpso.%ld.%ld", tmp && *tmp ? tmp : "/tmp",
                   (long)getuid(), (long)getpid());
  if (n > 0 && (size_t)n < sizeof dir) setenv("OMPI_MCA_orte_jobfam_session_dir", dir, 0);
}

int island_mpi_init(int *argc, char ***argv, int *rank, int *size)
{
  int provided;
  singleton_defaults();
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    return IPSO_FAIL("mpi", "MPI_Init_thread failed");
  IPSO_CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  IPSO_CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, rank));
  IPSO_CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, size));
  log_init(*rank, *size);
  return IPSO_OK;
}

int island_local_rank(MPI_Comm comm, int *local_rank, int *local_size)
{
  MPI_Comm node;
  int rank;
  IPSO_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  IPSO_CHECK_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
  IPSO_CHECK_MPI(MPI_Comm_rank(node, local_rank));
  IPSO_CHECK_MPI(MPI_Comm_size(node, local_size));
  IPSO_CHECK_MPI(MPI_Comm_free(&node));
  return IPSO_OK;
}

int island_agree(MPI_Comm comm, int status)
{
  int worst = status;
  int rc = MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, comm);
  if (rc != MPI_SUCCESS) return ipso_mpi_fail("MPI_Allreduce(status)", rc, __FILE__, __LINE__);
  return worst;
}

int island_best_of_all(MPI_Comm comm, double *cost, int64_t *particle, double *position, int dims,
                       int *island)
{
  int me, size, owner;
  struct {
    double cost;
    int island;
  } mine = {*cost, *island}, best;
  IPSO_CHECK_MPI(MPI_Comm_rank(comm, &me));
  IPSO_CHECK_MPI(MPI_Comm_size(comm, &size));
  /* MINLOC picks the lowest island among equal costs. */
  IPSO_CHECK_MPI(MPI_Allreduce(&mine, &best, 1, MPI_DOUBLE_INT, MPI_MINLOC, comm));
  /* Island ids are unique: one rank holds the winner. */
  int holder = mine.island == best.island ? me : size;
  IPSO_CHECK_MPI(MPI_Allreduce(&holder, &owner, 1, MPI_INT, MPI_MIN, comm));
  if (owner >= size) return IPSO_FAIL("mpi", "no rank holds the best island %d", best.island);
  *cost = best.cost;
  IPSO_CHECK_MPI(MPI_Bcast(position, dims, MPI_DOUBLE, owner, comm));
  IPSO_CHECK_MPI(MPI_Bcast(particle, 1, MPI_INT64_T, owner, comm));
  *island = best.island;
  return IPSO_OK;
}

/* Tags of the two directions (two ranks are each other's left and right). */
enum { TAG_RIGHTWARD = 7301, TAG_LEFTWARD = 7302 };

struct ring_exchange {
  MPI_Comm comm;
  int left, right, both, count;
};

int ring_exchange_create(MPI_Comm comm, size_t count, int both, struct ring_exchange **out)
{
  int rank, size;
  struct ring_exchange *rx = calloc(1, sizeof *rx);
  *out = rx;
  if (!rx) return IPSO_FAIL("migration", "out of memory");
  if (count > (size_t)INT_MAX)
    return IPSO_FAIL("migration", "a migration message of %zu doubles is too large", count);
  IPSO_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  IPSO_CHECK_MPI(MPI_Comm_size(comm, &size));
  *rx = (struct ring_exchange){comm, (rank + size - 1) % size, (rank + 1) % size, both, (int)count};
  return IPSO_OK;
}

int ring_exchange(struct ring_exchange *rx, const double *to_right, const double *to_left,
                  double *from_left, double *from_right)
{
  MPI_Request req[4];
  int n = 0;
  IPSO_CHECK_MPI(
      MPI_Irecv(from_left, rx->count, MPI_DOUBLE, rx->left, TAG_RIGHTWARD, rx->comm, &req[n++]));
  if (rx->both)
    IPSO_CHECK_MPI(
        MPI_Irecv(from_right, rx->count, MPI_DOUBLE, rx->right, TAG_LEFTWARD, rx->comm, &req[n++]));
  IPSO_CHECK_MPI(
      MPI_Isend(to_right, rx->count, MPI_DOUBLE, rx->right, TAG_RIGHTWARD, rx->comm, &req[n++]));
  if (rx->both)
    IPSO_CHECK_MPI(
        MPI_Isend(to_left, rx->count, MPI_DOUBLE, rx->left, TAG_LEFTWARD, rx->comm, &req[n++]));
  IPSO_CHECK_MPI(MPI_Waitall(n, req, MPI_STATUSES_IGNORE));
  return IPSO_OK;
}

void ring_exchange_free(struct ring_exchange *rx)
{
  free(rx);
}

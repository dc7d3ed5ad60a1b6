/* MPI for the islands. */
#include "island_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int island_mpi_fail(const char *call, int rc, const char *file, int line)
{
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "code %d", rc);
  log_fail("mpi", file, line, "%s failed: %s", call, msg);
  return IPSO_ERR_RUNTIME;
}

int island_mpi_init(int *argc, char ***argv, int *rank, int *size)
{
  int provided;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    log_fail("mpi", __FILE__, __LINE__, "MPI_Init_thread failed");
    return IPSO_ERR_RUNTIME;
  }
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
  if (rc != MPI_SUCCESS) return island_mpi_fail("MPI_Allreduce(status)", rc, __FILE__, __LINE__);
  return worst;
}

int island_or(MPI_Comm comm, int flags, int *all)
{
  IPSO_CHECK_MPI(MPI_Allreduce(&flags, all, 1, MPI_INT, MPI_BOR, comm));
  return IPSO_OK;
}

int island_min(MPI_Comm comm, double *values, int n)
{
  IPSO_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_MIN, comm));
  return IPSO_OK;
}

int island_global_best(MPI_Comm comm, const struct island_best *local, int dims,
                       struct island_best *global, int *island)
{
  int rank;
  struct {
    double cost;
    int rank;
  } mine, best;
  IPSO_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  mine.cost = local->cost;
  mine.rank = rank;
  /* MINLOC picks the lowest rank among equal costs: ties go to the lower island. */
  IPSO_CHECK_MPI(MPI_Allreduce(&mine, &best, 1, MPI_DOUBLE_INT, MPI_MINLOC, comm));
  global->cost = best.cost;
  global->particle = local->particle;
  if (rank == best.rank) memcpy(global->position, local->position, sizeof(double) * (size_t)dims);
  IPSO_CHECK_MPI(MPI_Bcast(global->position, dims, MPI_DOUBLE, best.rank, comm));
  int64_t particle = local->particle;
  IPSO_CHECK_MPI(MPI_Bcast(&particle, 1, MPI_INT64_T, best.rank, comm));
  global->particle = particle;
  *island = best.rank;
  return IPSO_OK;
}

/* Tags of the two directions, so that two islands on a bidirectional ring
 * (each the other's left and right neighbour) tell the messages apart. */
enum { TAG_RIGHTWARD = 7301, TAG_LEFTWARD = 7302 };

/* A received migrant: which message, which slot. */
struct migrant_ref {
  double cost;
  int link, slot;
};

struct ring_migration {
  MPI_Comm comm;
  int rank, size, dims, migrants, nlinks;
  int left, right;
  double *send;             /* [migrants] costs, then [migrants * dims] positions */
  double *recv[2];          /* from the left, and (bidirectional) from the right */
  int64_t *index;           /* [migrants] indices packed */
  double *merged;           /* [2 * migrants * (dims + 1)]: sorted costs then positions */
  int64_t *replaced;        /* [2 * migrants] */
  struct migrant_ref *refs; /* [2 * migrants] */
  MPI_Request rreq[2], sreq[2];
  int posted;
};

int ring_migration_active(const struct ring_migration *rm)
{
  return rm && rm->nlinks > 0;
}

/* Posts the receives of the next exchange. */
static int ring_post(struct ring_migration *rm)
{
  int n = rm->migrants * (rm->dims + 1);
  IPSO_CHECK_MPI(
      MPI_Irecv(rm->recv[0], n, MPI_DOUBLE, rm->left, TAG_RIGHTWARD, rm->comm, &rm->rreq[0]));
  if (rm->nlinks == 2)
    IPSO_CHECK_MPI(
        MPI_Irecv(rm->recv[1], n, MPI_DOUBLE, rm->right, TAG_LEFTWARD, rm->comm, &rm->rreq[1]));
  rm->posted = 1;
  return IPSO_OK;
}

int ring_migration_create(MPI_Comm comm, const struct ipso_config *cfg, struct ring_migration **out)
{
  struct ring_migration *rm = calloc(1, sizeof *rm);
  *out = rm;
  if (!rm) return IPSO_FAIL("migration", "out of memory");
  rm->comm = comm;
  IPSO_CHECK_MPI(MPI_Comm_rank(comm, &rm->rank));
  IPSO_CHECK_MPI(MPI_Comm_size(comm, &rm->size));
  rm->dims = cfg->objective.dimensions;
  rm->migrants = cfg->migration.migrants;
  rm->left = (rm->rank + rm->size - 1) % rm->size;
  rm->right = (rm->rank + 1) % rm->size;
  if (cfg->migration.interval <= 0 || rm->size < 2) return IPSO_OK;
  /* Two islands are each other's only neighbour: one link, even when the ring
   * is bidirectional, so no migrant arrives twice. */
  rm->nlinks = cfg->migration.topology == IPSO_TOPOLOGY_BIDIRECTIONAL_RING && rm->size > 2 ? 2 : 1;
  size_t n = (size_t)rm->migrants * (size_t)(rm->dims + 1);
  rm->send = malloc(n * sizeof(double));
  rm->recv[0] = malloc(n * sizeof(double));
  rm->recv[1] = malloc(n * sizeof(double));
  rm->merged = malloc(2 * n * sizeof(double));
  rm->index = malloc((size_t)rm->migrants * sizeof(int64_t));
  rm->replaced = malloc(2 * (size_t)rm->migrants * sizeof(int64_t));
  rm->refs = malloc(2 * (size_t)rm->migrants * sizeof(struct migrant_ref));
  if (!rm->send || !rm->recv[0] || !rm->recv[1] || !rm->merged || !rm->index || !rm->replaced ||
      !rm->refs)
    return IPSO_FAIL("migration", "cannot allocate migration buffers");
  return ring_post(rm);
}

/* Order of migrants: cost, then the left neighbour's before the right's,
 * then the order within a message (which was best first). */
static int migrant_cmp(const void *a, const void *b)
{
  const struct migrant_ref *x = a, *y = b;
  if (x->cost != y->cost) return x->cost < y->cost ? -1 : 1;
  if (x->link != y->link) return x->link - y->link;
  return x->slot - y->slot;
}

int ring_migration_exchange(struct ring_migration *rm, struct backend *b, int *to, int *ndest,
                            double *best_sent, int *replaced)
{
  *ndest = 0;
  *replaced = 0;
  if (!ring_migration_active(rm)) return IPSO_OK;
  int m = rm->migrants, D = rm->dims, n = m * (D + 1);
  IPSO_TRY(b->ops->pack_migrants(b, m, rm->send + m, rm->send, rm->index));
  IPSO_CHECK_MPI(
      MPI_Isend(rm->send, n, MPI_DOUBLE, rm->right, TAG_RIGHTWARD, rm->comm, &rm->sreq[0]));
  to[(*ndest)++] = rm->right;
  if (rm->nlinks == 2) {
    IPSO_CHECK_MPI(
        MPI_Isend(rm->send, n, MPI_DOUBLE, rm->left, TAG_LEFTWARD, rm->comm, &rm->sreq[1]));
    to[(*ndest)++] = rm->left;
  }
  *best_sent = rm->send[0];
  IPSO_CHECK_MPI(MPI_Waitall(rm->nlinks, rm->rreq, MPI_STATUSES_IGNORE));
  rm->posted = 0;

  struct migrant_ref *refs = rm->refs;
  int total = 0;
  for (int l = 0; l < rm->nlinks; l++)
    for (int s = 0; s < m; s++) refs[total++] = (struct migrant_ref){rm->recv[l][s], l, s};
  qsort(refs, (size_t)total, sizeof refs[0], migrant_cmp);
  double *cost = rm->merged, *pos = rm->merged + total;
  for (int k = 0; k < total; k++) {
    cost[k] = refs[k].cost;
    memcpy(pos + (size_t)k * D, rm->recv[refs[k].link] + m + (size_t)refs[k].slot * D,
           sizeof(double) * (size_t)D);
  }
  IPSO_TRY(b->ops->unpack_migrants(b, total, pos, cost, rm->replaced));
  for (int k = 0; k < total; k++) *replaced += rm->replaced[k] >= 0;
  IPSO_CHECK_MPI(MPI_Waitall(rm->nlinks, rm->sreq, MPI_STATUSES_IGNORE));
  return ring_post(rm);
}

void ring_migration_free(struct ring_migration *rm)
{
  if (!rm) return;
  if (rm->posted) {
    for (int l = 0; l < rm->nlinks; l++) {
      MPI_Cancel(&rm->rreq[l]);
      MPI_Request_free(&rm->rreq[l]);
    }
  }
  free(rm->send);
  free(rm->recv[0]);
  free(rm->recv[1]);
  free(rm->merged);
  free(rm->index);
  free(rm->replaced);
  free(rm->refs);
  free(rm);
}

/* The node-shared memory of the devices' mailbox (mpi/island_mpi.c,
 * node_shared_create), on the ranks of one node: every rank maps one
 * segment, zero at the start, its own region page-aligned and apart from
 * the others'; what a rank writes in its region its neighbours read in
 * theirs; the segment's name is gone once it is mapped. */
#include <dirent.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "island_mpi.h"

static int fails;

static void check(int ok, const char *what, int rank)
{
  if (!ok) {
    printf("FAIL rank %d: %s\n", rank, what);
    fails++;
  }
}

/* Names of this program's segments left in /dev/shm. */
static int leftovers(void)
{
  DIR *d = opendir("/dev/shm");
  if (!d) return 0;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) n += strncmp(e->d_name, "islandpso-", 10) == 0;
  closedir(d);
  return n;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int before = leftovers();
  MPI_Barrier(MPI_COMM_WORLD);
  const size_t want = 5000; /* not a whole page */
  struct node_shared *ns = NULL;
  check(node_shared_create(MPI_COMM_WORLD, want, &ns) == IPSO_OK, "node_shared_create", rank);
  check(ns != NULL, "the ranks of one node get the memory", rank);
  if (!ns) {
    MPI_Finalize();
    return 1;
  }
  size_t bytes = 0;
  char *base = node_shared_base(ns, &bytes);
  long page = sysconf(_SC_PAGESIZE);
  unsigned char *own = node_shared_region(ns, rank);
  unsigned char *prev = node_shared_region(ns, (rank + size - 1) % size);
  unsigned char *next = node_shared_region(ns, (rank + 1) % size);
  size_t region = (size_t)((char *)node_shared_region(ns, 1 % size) - base);
  check(size == 1 || (region >= want && region % (size_t)page == 0),
        "regions are whole pages, at least the size asked for", rank);
  check(bytes >= (size_t)size * want, "the mapping holds every region", rank);
  check((uintptr_t)own % (uintptr_t)page == 0, "the own region is page-aligned", rank);
  int zero = 1;
  for (size_t i = 0; i < want; i++) zero &= own[i] == 0;
  check(zero, "the region is zero at the start", rank);
  MPI_Barrier(MPI_COMM_WORLD);
  memset(own, 0x40 + rank, want);
  MPI_Barrier(MPI_COMM_WORLD);
  int pr = (rank + size - 1) % size, nx = (rank + 1) % size;
  check(prev[0] == 0x40 + pr && prev[want - 1] == 0x40 + pr, "the previous rank's writes", rank);
  check(next[0] == 0x40 + nx && next[want - 1] == 0x40 + nx, "the next rank's writes", rank);
  check(leftovers() == before, "no name left in /dev/shm once mapped", rank);
  node_shared_free(ns);
  int all = 0;
  MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%s: %d ranks, %d failures\n", all ? "FAIL" : "ok", size, all);
  MPI_Finalize();
  return all ? 1 : 0;
}

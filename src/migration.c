/* The order of received migrants. */
#include "migration.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"

int migration_links(const struct ipso_config *cfg, int islands)
{
  if (cfg->migration.interval <= 0 || islands < 2) return 0;
  return cfg->migration.topology == IPSO_TOPOLOGY_BIDIRECTIONAL_RING && islands > 2 ? 2 : 1;
}

int migration_destinations(int island, int islands, int nlinks, int to[2])
{
  to[0] = (island + 1) % islands;
  to[1] = (island + islands - 1) % islands;
  return nlinks;
}

int migration_sources(int island, int islands, int nlinks, int from[2])
{
  from[0] = (island + islands - 1) % islands;
  from[1] = (island + 1) % islands;
  return nlinks;
}

/* Migrants of a merge: the cost, and where the migrant is. */
struct migrant_ref {
  double cost;
  int link, slot;
};

static int migrant_cmp(const void *a, const void *b)
{
  const struct migrant_ref *x = a, *y = b;
  if (x->cost != y->cost) return x->cost < y->cost ? -1 : 1;
  if (x->link != y->link) return x->link - y->link;
  return x->slot - y->slot;
}

int migration_merge(int nlinks, int m, int dims, const double *const msg[2], double *cost,
                    double *pos)
{
  struct migrant_ref *refs = malloc((size_t)(nlinks > 0 ? nlinks : 1) * (size_t)m * sizeof *refs);
  if (!refs) return IPSO_FAIL("migration", "out of memory");
  int total = 0;
  for (int l = 0; l < nlinks; l++)
    for (int k = 0; k < m; k++) refs[total++] = (struct migrant_ref){msg[l][k], l, k};
  qsort(refs, (size_t)total, sizeof refs[0], migrant_cmp);
  for (int k = 0; k < total; k++) {
    cost[k] = refs[k].cost;
    memcpy(pos + (size_t)k * dims, msg[refs[k].link] + m + (size_t)refs[k].slot * dims,
           sizeof(double) * (size_t)dims);
  }
  free(refs);
  return IPSO_OK;
}

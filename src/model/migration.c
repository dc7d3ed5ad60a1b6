/* The order of received migrants. */
#include "migration.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "philox.h"

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

/* The words of one Philox stream, in order. */
struct word_reader {
  uint64_t seed, sub, next; /* next: the word to return */
  uint32_t block[4];
};

static uint32_t next_word(struct word_reader *r)
{
  if (r->next % 4 == 0) philox_block(r->seed, r->sub, r->next / 4, r->block);
  return r->block[r->next++ % 4];
}

/* A uniform integer below N (1 <= N <= 2^32 - 1): the high word of
 * word * N, words whose low product falls in the biased part rejected. */
static uint32_t uniform_below(struct word_reader *r, uint32_t n)
{
  uint64_t m = (uint64_t)next_word(r) * n;
  if ((uint32_t)m < n) {
    uint32_t threshold = (uint32_t)(-n) % n;
    while ((uint32_t)m < threshold) m = (uint64_t)next_word(r) * n;
  }
  return (uint32_t)(m >> 32);
}

int migration_draw(uint64_t seed, int island, int64_t t, enum migration_purpose purpose, int64_t n,
                   int count, int64_t *out)
{
  if (island < 0 || island >= MIGRATION_STREAM_ISLANDS || t < 0 ||
      t >= MIGRATION_STREAM_ITERATIONS || n < 1 || n > (INT64_C(1) << 31) || count < 0 || count > n)
    return IPSO_FAIL("migration", "no draw of %d of %lld particles for island %d at iteration %lld",
                     count, (long long)n, island, (long long)t);
  /* The particles drawn so far, in an open-addressed set at least twice as
   * large as COUNT (entries particle + 1; 0 is empty). */
  size_t size = 16;
  while (size < 2 * (size_t)count) size *= 2;
  uint64_t *set = calloc(size, sizeof *set);
  if (!set) return IPSO_FAIL("migration", "out of memory");
  struct word_reader r = {seed, migration_stream(island, t, purpose), 0, {0, 0, 0, 0}};
  for (int k = 0; k < count;) {
    uint64_t p = uniform_below(&r, (uint32_t)n);
    size_t h = (size_t)((p * UINT64_C(0x9E3779B97F4A7C15)) >> 20) & (size - 1);
    while (set[h] && set[h] != p + 1) h = (h + 1) & (size - 1);
    if (set[h]) continue;
    set[h] = p + 1;
    out[k++] = (int64_t)p;
  }
  free(set);
  return IPSO_OK;
}

int migration_link_carries(uint64_t seed, int island, int64_t t, int link, double probability)
{
  if (probability >= 1) return 1;
  uint64_t sub = migration_stream(island, t, MIGRATION_DRAW_LINK);
  return philox_uniform_double(philox_word(seed, sub, (uint64_t)link)) <= probability;
}

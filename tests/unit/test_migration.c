/* The order of ring migration (src/migration.h): which islands a rank holds,
 * an island's neighbours on the global ring, how many messages an island
 * receives, how long a message is, and the order in which received migrants
 * replace the worst particles (cost, then link, then place in the message). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ipso.h"
#include "migration.h"

#include "unit_check.h"

/* Messages per island for a topology, interval and island count. */
static int links(enum ipso_topology topology, int64_t interval, int islands)
{
  struct ipso_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.migration.topology = topology;
  cfg.migration.interval = interval;
  cfg.migration.migrants = 2;
  return migration_links(&cfg, islands);
}

static void test_links(void)
{
  const enum ipso_topology R = IPSO_TOPOLOGY_RING, B = IPSO_TOPOLOGY_BIDIRECTIONAL_RING;
  /* { topology, interval, islands, links } */
  const struct {
    enum ipso_topology topology;
    int64_t interval;
    int islands, want;
  } cases[] = {
      {R, 0, 4, 0},   {B, 0, 4, 0},   {R, 100, 1, 0},    {B, 100, 1, 0},
      {R, 100, 2, 1}, {B, 100, 2, 1}, {R, 100, 3, 1},    {B, 100, 3, 2},
      {R, 1, 8, 1},   {B, 1, 8, 2},   {R, 100, 1024, 1}, {B, 100, 1024, 2},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int got = links(cases[i].topology, cases[i].interval, cases[i].islands);
    CHECK(got == cases[i].want, "migration_links(%s, interval %lld, %d islands) = %d, want %d",
          cases[i].topology == R ? "ring" : "bidirectional_ring", (long long)cases[i].interval,
          cases[i].islands, got, cases[i].want);
  }
}

static void test_message_len(void)
{
  CHECK(migration_message_len(3, 5) == 18, "len(3, 5) = %lld",
        (long long)migration_message_len(3, 5));
  CHECK(migration_message_len(2, 1) == 4, "len(2, 1) = %lld",
        (long long)migration_message_len(2, 1));
  CHECK(migration_message_len(0, 30) == 0, "len(0, 30) = %lld",
        (long long)migration_message_len(0, 30));
  /* Beyond 2^31: computed in 64 bits. */
  CHECK(migration_message_len(50000, 100000) == 5000050000LL, "len(50000, 100000) = %lld",
        (long long)migration_message_len(50000, 100000));
}

/* A message of M migrants in D dimensions: COSTS, then positions whose
 * coordinates are BASE + 10 * slot + d, so that each names its migrant. */
static void fill(double *msg, int m, int dims, const double *costs, double base)
{
  for (int k = 0; k < m; k++) {
    msg[k] = costs[k];
    for (int d = 0; d < dims; d++) msg[m + k * dims + d] = base + 10 * k + d;
  }
}

/* Merges and compares with the expected (link, slot) order. */
static void check_merge(const char *what, int nlinks, int m, int dims, const double *const msg[2],
                        const int (*want)[2])
{
  double cost[64], pos[64 * 4];
  int rc = migration_merge(nlinks, m, dims, msg, cost, pos);
  CHECK(rc == IPSO_OK, "%s: migration_merge returned %d", what, rc);
  for (int i = 0; i < nlinks * m; i++) {
    int l = want[i][0], k = want[i][1];
    double c = msg[l][k];
    CHECK(cost[i] == c, "%s: cost[%d] = %g, want %g (link %d, slot %d)", what, i, cost[i], c, l, k);
    for (int d = 0; d < dims; d++) {
      double p = msg[l][m + k * dims + d];
      CHECK(pos[i * dims + d] == p, "%s: pos[%d][%d] = %g, want %g (link %d, slot %d)", what, i, d,
            pos[i * dims + d], p, l, k);
    }
  }
}

static void test_merge(void)
{
  double a[3 + 3 * 2], b[3 + 3 * 2];

  /* Two links, interleaved costs, a tie across links: the left one first. */
  fill(a, 3, 2, (const double[]){1.0, 3.0, 5.0}, 100);
  fill(b, 3, 2, (const double[]){2.0, 3.0, 4.0}, 200);
  const double *const two[2] = {a, b};
  check_merge("two links", 2, 3, 2, two,
              (const int[][2]){{0, 0}, {1, 0}, {0, 1}, {1, 1}, {1, 2}, {0, 2}});

  /* The same messages from the other sides: the tie goes to link 0 again. */
  const double *const swapped[2] = {b, a};
  check_merge("two links swapped", 2, 3, 2, swapped,
              (const int[][2]){{1, 0}, {0, 0}, {0, 1}, {1, 1}, {0, 2}, {1, 2}});

  /* One link: the message's own order, ties by place in it; +infinity (a
   * NaN cost) last; negative costs (maximize) first. */
  fill(a, 3, 2, (const double[]){-7.5, -7.5, INFINITY}, 100);
  const double *const one[2] = {a, NULL};
  check_merge("one link", 1, 3, 2, one, (const int[][2]){{0, 0}, {0, 1}, {0, 2}});

  /* A message sent best first but with later ties and inf across links. */
  fill(a, 3, 2, (const double[]){0.0, INFINITY, INFINITY}, 100);
  fill(b, 3, 2, (const double[]){0.0, 0.5, INFINITY}, 200);
  check_merge("ties and infinities", 2, 3, 2, two,
              (const int[][2]){{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 2}, {1, 2}});

  /* One dimension, one migrant per link. */
  double c[2] = {9.0, 42.0}, d[2] = {8.0, 43.0};
  const double *const tiny[2] = {c, d};
  check_merge("1-D, one migrant", 2, 1, 1, tiny, (const int[][2]){{1, 0}, {0, 0}});
}

/* Islands over ranks: every island on exactly one rank, each rank's
 * islands contiguous and in rank order. */
static void test_island_map(void)
{
  const int cases[][2] = {{1, 1}, {8, 1}, {8, 2}, {8, 4}, {8, 8}, {12, 3}, {1024, 16}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    int islands = cases[c][0], ranks = cases[c][1], k = islands_per_rank(islands, ranks);
    CHECK(k * ranks == islands, "%d islands on %d ranks: %d per rank", islands, ranks, k);
    for (int g = 0; g < islands; g++) {
      int r = island_rank(g, islands, ranks), first = island_first(islands, ranks, r);
      CHECK(r >= 0 && r < ranks && first <= g && g < first + k,
            "%d islands on %d ranks: island %d on rank %d, whose islands are %d..%d", islands,
            ranks, g, r, first, first + k - 1);
    }
    for (int r = 0; r < ranks; r++)
      CHECK(island_first(islands, ranks, r) == r * k,
            "%d islands on %d ranks: rank %d starts at %d", islands, ranks, r,
            island_first(islands, ranks, r));
  }
  CHECK(island_first(8, 4, 3) == 6 && island_rank(5, 8, 4) == 2 && island_rank(7, 8, 2) == 1,
        "8 islands: rank 3 of 4 starts at %d; island 5 on rank %d of 4; island 7 on rank %d of 2",
        island_first(8, 4, 3), island_rank(5, 8, 4), island_rank(7, 8, 2));
}

/* Neighbours on the global ring: known cases, and every message sent is
 * received by its destination on the link it was sent along. */
static void test_neighbours(void)
{
  int to[2], from[2], n;
  n = migration_destinations(0, 8, 2, to);
  CHECK(n == 2 && to[0] == 1 && to[1] == 7, "island 0 of 8, 2 links: sends to %d, %d", to[0],
        to[1]);
  n = migration_sources(0, 8, 2, from);
  CHECK(n == 2 && from[0] == 7 && from[1] == 1, "island 0 of 8, 2 links: receives from %d, %d",
        from[0], from[1]);
  n = migration_destinations(7, 8, 1, to);
  CHECK(n == 1 && to[0] == 0, "island 7 of 8, ring: sends to %d", to[0]);
  n = migration_sources(5, 8, 1, from);
  CHECK(n == 1 && from[0] == 4, "island 5 of 8, ring: receives from %d", from[0]);
  n = migration_destinations(1, 2, 1, to);
  CHECK(n == 1 && to[0] == 0, "island 1 of 2: sends to %d", to[0]);
  for (int islands = 2; islands <= 9; islands++)
    for (int links = 1; links <= (islands > 2 ? 2 : 1); links++)
      for (int g = 0; g < islands; g++) {
        n = migration_destinations(g, islands, links, to);
        CHECK(n == links, "island %d of %d: %d destinations, want %d", g, islands, n, links);
        for (int l = 0; l < n; l++) {
          /* Sent to the right (l = 0) arrives from the left (link 0). */
          migration_sources(to[l], islands, links, from);
          CHECK(from[l] == g && to[l] != g,
                "%d islands, %d links: island %d sends to %d on link %d, which receives on "
                "it from %d",
                islands, links, g, to[l], l, from[l]);
        }
      }
}

int main(void)
{
  test_island_map();
  test_neighbours();
  test_links();
  test_message_len();
  test_merge();
  if (failures) {
    printf("FAILED (%d)\n", failures);
    return 1;
  }
  printf("passed\n");
  return 0;
}

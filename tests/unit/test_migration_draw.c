/* The random draws of the random migration policies (src/migration.h,
 * migration_draw): distinct particles in range, the same for the same
 * (seed, island, iteration, purpose) and different when any of them
 * changes, uniform, the exact words of their own Philox stream, and that
 * stream apart from every particle's; and whether a link carries migrants
 * (migration_link_carries): always with probability 1, else as often as
 * the probability says, from its own word. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipso.h"
#include "migration.h"
#include "philox.h"
#include "swarm.h"

#include "unit_check.h"

/* Whether the COUNT particles of P are distinct and below N. */
static int distinct_in_range(const int64_t *p, int count, int64_t n)
{
  for (int i = 0; i < count; i++) {
    if (p[i] < 0 || p[i] >= n) return 0;
    for (int j = 0; j < i; j++)
      if (p[i] == p[j]) return 0;
  }
  return 1;
}

/* Distinct and in range for many sizes, up to every particle drawn. */
static void test_distinct(void)
{
  int64_t p[600];
  const int64_t sizes[] = {1, 2, 3, 7, 16, 24, 100, 1000, 1024, 1000003, INT64_C(1) << 31};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    int64_t n = sizes[s];
    int counts[] = {1, (int)(n / 2 < 600 ? n / 2 : 600), (int)(n < 600 ? n : 600)};
    for (int c = 0; c < 3; c++)
      for (int t = 0; t < 20; t++) {
        int count = counts[c];
        int rc = migration_draw(7, 3, 100 * t, MIGRATION_DRAW_REPLACE, n, count, p);
        CHECK(rc == IPSO_OK && distinct_in_range(p, count, n),
              "%d of %lld particles at iteration %d: not %d distinct particles in range (rc %d)",
              count, (long long)n, 100 * t, count, rc);
      }
  }
  CHECK(migration_draw(7, 3, 100, MIGRATION_DRAW_SELECT, 4, 0, p) == IPSO_OK,
        "no particle drawn: refused");
}

/* Draws of 8 of 1024 differ when any part of the address changes, and are
 * the same when none does. */
static void test_addressing(void)
{
  int64_t a[8], b[8];
  const int n = 1024, m = 8;
  migration_draw(42, 5, 300, MIGRATION_DRAW_SELECT, n, m, a);
  migration_draw(42, 5, 300, MIGRATION_DRAW_SELECT, n, m, b);
  CHECK(!memcmp(a, b, sizeof a), "the same address drew different particles");
  const struct {
    const char *what;
    uint64_t seed;
    int island;
    int64_t t;
    enum migration_purpose purpose;
  } other[] = {
      {"another seed", 43, 5, 300, MIGRATION_DRAW_SELECT},
      {"another island", 42, 6, 300, MIGRATION_DRAW_SELECT},
      {"another iteration", 42, 5, 400, MIGRATION_DRAW_SELECT},
      {"the other purpose", 42, 5, 300, MIGRATION_DRAW_REPLACE},
      {"the highest island and iteration", 42, (int)MIGRATION_STREAM_ISLANDS - 1,
       MIGRATION_STREAM_ITERATIONS - 1, MIGRATION_DRAW_SELECT},
  };
  for (size_t i = 0; i < sizeof other / sizeof *other; i++) {
    int rc = migration_draw(other[i].seed, other[i].island, other[i].t, other[i].purpose, n, m, b);
    CHECK(rc == IPSO_OK && memcmp(a, b, sizeof a) != 0, "%s drew the same particles (rc %d)",
          other[i].what, rc);
  }
  /* Beyond what a stream can address: refused, not wrapped onto another. */
  CHECK(migration_draw(42, (int)MIGRATION_STREAM_ISLANDS, 0, MIGRATION_DRAW_SELECT, n, m, b) !=
            IPSO_OK,
        "island 2^21 drawn");
  CHECK(migration_draw(42, 0, MIGRATION_STREAM_ITERATIONS, MIGRATION_DRAW_SELECT, n, m, b) !=
            IPSO_OK,
        "iteration 2^40 drawn");
  CHECK(migration_draw(42, 0, 0, MIGRATION_DRAW_SELECT, 4, 5, b) != IPSO_OK,
        "5 distinct of 4 drawn");
}

/* The exact words: with N a power of two no word is rejected, so draw k is
 * the high word of word k * N while no particle repeats. */
static void test_words(void)
{
  const uint64_t seed = 1234;
  const int island = 9, m = 4;
  const int64_t t = 2000, n = 1 << 20;
  int64_t p[4];
  migration_draw(seed, island, t, MIGRATION_DRAW_REPLACE, n, m, p);
  uint64_t sub = migration_stream(island, t, MIGRATION_DRAW_REPLACE);
  for (int k = 0; k < m; k++) {
    int64_t want = (int64_t)(((uint64_t)philox_word(seed, sub, (uint64_t)k) * (uint64_t)n) >> 32);
    CHECK(p[k] == want, "draw %d = %lld, want %lld from word %d of the stream", k, (long long)p[k],
          (long long)want, k);
  }
  /* Apart from the particles' streams: bit 63 set, which (island << 32) |
   * particle never sets. */
  CHECK((sub >> 63) == 1 && (swarm_subsequence(65535, (INT64_C(1) << 31) - 1) >> 63) == 0,
        "stream %llx, a particle's %llx", (unsigned long long)sub,
        (unsigned long long)swarm_subsequence(65535, (INT64_C(1) << 31) - 1));
  CHECK(migration_stream(1, 2, MIGRATION_DRAW_SELECT) ==
            ((UINT64_C(1) << 63) | (UINT64_C(1) << 40) | 2u),
        "stream of island 1, iteration 2: %llx",
        (unsigned long long)migration_stream(1, 2, MIGRATION_DRAW_SELECT));
}

/* Uniform: 3 of 10 particles drawn 20,000 times (iterations 0..19999):
 * each particle about 6,000 times in all and about 2,000 times in each
 * place; chi-square of the 10 x 3 counts below 60 (29 degrees of freedom:
 * p about 0.0006 of a false failure; the draws are fixed, so it passes or
 * fails for good). */
static void test_uniform(void)
{
  const int n = 10, m = 3, draws = 20000;
  long count[10][3] = {{0}};
  int64_t p[3];
  for (int t = 0; t < draws; t++) {
    migration_draw(99, 0, t, MIGRATION_DRAW_SELECT, n, m, p);
    for (int k = 0; k < m; k++) count[p[k]][k]++;
  }
  double expect = (double)draws / n, chi2 = 0;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < m; k++) chi2 += (count[i][k] - expect) * (count[i][k] - expect) / expect;
  CHECK(chi2 < 60, "chi-square %.1f of 3 places x 10 particles (want < 60)", chi2);
  printf("uniform: chi-square %.1f over 30 cells of %d draws\n", chi2, draws);
}

/* Links: probability 1 always carries; 0.25 about a quarter of 40,000
 * (island, iteration, link) triples, each the documented word; the answer
 * depends on the link and the island. */
static void test_links(void)
{
  long carried = 0, n = 0, differ_link = 0, differ_island = 0;
  for (int island = 0; island < 4; island++)
    for (int64_t t = 0; t < 5000; t++)
      for (int l = 0; l < 2; l++) {
        CHECK(migration_link_carries(5, island, t, l, 1.0), "probability 1 did not carry");
        int c = migration_link_carries(5, island, t, l, 0.25);
        uint64_t sub = migration_stream(island, t, MIGRATION_DRAW_LINK);
        double u = philox_uniform_double(philox_word(5, sub, (uint64_t)l));
        CHECK(c == (u <= 0.25), "island %d, iteration %lld, link %d: %d, word gives %.17g", island,
              (long long)t, l, c, u);
        carried += c;
        n++;
        differ_link += l == 1 && c != migration_link_carries(5, island, t, 0, 0.25);
        differ_island += c != migration_link_carries(5, island + 4, t, l, 0.25);
      }
  double f = (double)carried / (double)n;
  CHECK(f > 0.24 && f < 0.26, "probability 0.25 carried %.4f of %ld links", f, n);
  CHECK(differ_link > 0 && differ_island > 0, "links or islands always agree");
  printf("links: probability 0.25 carried %.4f of %ld\n", f, n);
}

int main(void)
{
  test_links();
  test_distinct();
  test_addressing();
  test_words();
  test_uniform();
  if (failures) {
    printf("FAILED (%d)\n", failures);
    return 1;
  }
  printf("passed\n");
  return 0;
}

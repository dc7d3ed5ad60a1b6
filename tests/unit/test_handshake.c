/* The migrations' handshake from the mailbox's stamps (timings_handshake,
 * src/timings.h): the medians, 90th percentiles and means of the post, the
 * wait and the time between migrations on values; the ring's wrap, rows
 * with a stamp missing or out of order skipped, the first migration left
 * out, and nothing to report before a second migration. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "timings.h"

#include "unit_check.h"

#define CAP 8

/* Writes migration Q's row: block K-1 begun at A0, posted POST ns later;
 * block 0 begun at A2, waited WAIT ns. */
static void put(unsigned long long *st, unsigned long long q, unsigned long long a0,
                unsigned long long post, unsigned long long a2, unsigned long long wait)
{
  unsigned long long *r = st + (q % CAP) * 4;
  r[0] = a0;
  r[1] = a0 + post;
  r[2] = a2;
  r[3] = a2 + wait;
}

static int near(double a, double b)
{
  return fabs(a - b) <= 1e-12 + 1e-9 * fabs(b);
}

static void test_values(void)
{
  unsigned long long st[CAP * 4];
  memset(st, 0, sizeof st);
  /* Migration q (1..20) begins at 100,000 q ns; post (q % 5 + 1) us; wait
   * q us; the rows of 13..20 remain in a ring of 8. */
  for (unsigned long long q = 1; q <= 20; q++)
    put(st, q, 100000 * q + 50, 1000 * (q % 5 + 1), 100000 * q, 1000 * q);
  struct mailbox_waits w;
  CHECK(timings_handshake(st, CAP, 20, &w) == 0, "timings_handshake failed");
  /* Migrations 14..20 (13's row is the previous end for 14). */
  CHECK(w.migrations == 7, "%lld migrations, want 7", (long long)w.migrations);
  /* Waits 14..20 us: median 17, 90th percentile (nearest rank 5.4 -> 5) 19, mean 17. */
  CHECK(near(w.wait, 17e-6) && near(w.wait_p90, 19e-6) && near(w.wait_mean, 17e-6),
        "wait %g / %g / %g, want 17e-6 / 19e-6 / 17e-6", w.wait, w.wait_p90, w.wait_mean);
  /* Posts (q % 5 + 1) us for q = 14..20: 5 1 2 3 4 5 1 -> sorted 1 1 2 3 4 5 5: median 3. */
  CHECK(near(w.post, 3e-6), "post %g, want 3e-6", w.post);
  /* Between: 100,000 q - (100,000 (q-1) + 1000 (q-1)) = 101,000 - 1000 q ns: 81..87 us. */
  CHECK(near(w.between, 84e-6) && near(w.between_p90, 86e-6) && near(w.between_mean, 84e-6),
        "between %g / %g / %g, want 84e-6 / 86e-6 / 84e-6", w.between, w.between_p90,
        w.between_mean);

  /* A row with a stamp missing (17's post) and one out of order (19's wait
   * ending before it began) are left out. */
  st[(17 % CAP) * 4 + 1] = 0;
  st[(19 % CAP) * 4 + 3] = st[(19 % CAP) * 4 + 2] - 1;
  CHECK(timings_handshake(st, CAP, 20, &w) == 0, "timings_handshake failed");
  CHECK(w.migrations == 5, "%lld migrations with two rows spoilt, want 5", (long long)w.migrations);
  CHECK(near(w.wait_mean, (14 + 15 + 16 + 18 + 20) * 1e-6 / 5), "wait mean %g, want 16.6e-6",
        w.wait_mean);
}

static void test_empty(void)
{
  unsigned long long st[CAP * 4];
  memset(st, 0, sizeof st);
  struct mailbox_waits w;
  put(st, 1, 1000, 10, 1000, 10);
  CHECK(timings_handshake(st, CAP, 1, &w) == 0 && w.migrations == 0 && w.wait == 0,
        "one migration: %lld measured, want none", (long long)w.migrations);
  CHECK(timings_handshake(st, CAP, 0, &w) == 0 && w.migrations == 0, "no migration");
  /* Migration 2 not stamped (the stamps could not be allocated on the
   * device, or the kernel did not run): nothing. */
  CHECK(timings_handshake(st, CAP, 2, &w) == 0 && w.migrations == 0,
        "an unstamped migration counted");
}

int main(void)
{
  test_values();
  test_empty();
  if (failures) {
    printf("FAILED (%d)\n", failures);
    return 1;
  }
  printf("passed\n");
  return 0;
}

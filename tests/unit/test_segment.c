/* Cutting a run into segments (src/segment.h): the segment length for a
 * backend's update budget, and where each segment ends, on values, and that
 * the boundaries are the same whichever iteration a restart starts from;
 * the slices bounded by time. */
#include <stdio.h>

#include "segment.h"

#include "unit_check.h"

static void test_length(void)
{
  const struct {
    double updates;
    int64_t particles;
    int dims;
    int64_t want;
  } cases[] = {
      {33554432.0, 1024, 30, 1092},     /* 2^25 (CPU) / 30720 = 1092.3, rounded down */
      {2147483648.0, 32768, 120, 546},  /* 2^31 (GPU) / 3932160 = 546.1 */
      {2147483648.0, 2048, 1, 10000},   /* 1048576: at most SEGMENT_MAX_ITERATIONS */
      {33554432.0, 256, 20, 6553},      /* 6553.6 */
      {33554432.0, 1 << 20, 100000, 1}, /* less than one iteration: at least 1 */
      {0.0, 16, 2, 1},
      {10000.0, 1, 1, 10000}, /* exactly the cap */
      {10001.0, 1, 1, 10000},
      {9999.0, 1, 1, 9999},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int64_t got = segment_length(cases[i].updates, cases[i].particles, cases[i].dims);
    CHECK(got == cases[i].want, "segment_length(%.0f, %lld, %d) = %lld, want %lld",
          cases[i].updates, (long long)cases[i].particles, cases[i].dims, (long long)got,
          (long long)cases[i].want);
  }
}

/* segment_end on P from each T of TS gives the matching END. */
static void check_ends(const char *what, const struct segment_plan *p, int n, const int64_t *ts,
                       const int64_t *ends)
{
  for (int i = 0; i < n; i++) {
    int64_t got = segment_end(p, ts[i]);
    CHECK(got == ends[i], "%s: segment_end after %lld = %lld, want %lld", what, (long long)ts[i],
          (long long)got, (long long)ends[i]);
  }
}

static void test_end_values(void)
{
  /* Migration every 100, segments of 300: the intervals cut. */
  struct segment_plan a = {1000, 300, {100, 0, 0}, 0};
  check_ends("migration 100, length 300", &a, 6, (const int64_t[]){0, 99, 100, 150, 950, 999},
             (const int64_t[]){100, 100, 200, 200, 1000, 1000});

  /* Length 64 with snapshots every 30 and checkpoints every 250. */
  struct segment_plan b = {1000, 64, {0, 30, 250}, 0};
  check_ends("length 64, snapshot 30, checkpoint 250", &b, 9,
             (const int64_t[]){0, 30, 60, 64, 90, 120, 128, 240, 990},
             (const int64_t[]){30, 60, 64, 90, 120, 128, 150, 250, 1000});

  /* No intervals and no length: the whole run is one segment. */
  struct segment_plan c = {12345, 0, {0, 0, 0}, 0};
  check_ends("no intervals", &c, 2, (const int64_t[]){0, 12000}, (const int64_t[]){12345, 12345});

  /* The run's end cuts a segment short. */
  struct segment_plan d = {250, 10000, {100, 0, 0}, 0};
  check_ends("end before the next multiple", &d, 3, (const int64_t[]){0, 100, 200},
             (const int64_t[]){100, 200, 250});

  /* --check-invariants: one iteration per segment, whatever the intervals. */
  struct segment_plan e = {5, 10000, {100, 10, 0}, 1};
  check_ends("single", &e, 5, (const int64_t[]){0, 1, 2, 3, 4}, (const int64_t[]){1, 2, 3, 4, 5});

  /* Interval 1: every iteration. */
  struct segment_plan f = {3, 10000, {1, 0, 0}, 0};
  check_ends("migration every iteration", &f, 3, (const int64_t[]){0, 1, 2},
             (const int64_t[]){1, 2, 3});

  /* Beyond 2^31 iterations. */
  struct segment_plan g = {5000000000LL, 10000, {0, 0, 0}, 0};
  check_ends("64-bit iterations", &g, 2, (const int64_t[]){4294967296LL, 4999999999LL},
             (const int64_t[]){4294970000LL, 5000000000LL});
}

/* Multiple of K strictly between A and B. */
static int multiple_between(int64_t a, int64_t b, int64_t k)
{
  return k > 0 && (a / k + 1) * k < b;
}

/* Every plan cut from 0 to its end: segments advance, are at most the length,
 * end on a multiple or the run's end, skip no multiple, and a restart from
 * any boundary or from a point inside a segment meets the same boundaries. */
static void test_end_properties(void)
{
  const struct segment_plan plans[] = {
      {1000, 300, {100, 0, 0}, 0},     {997, 64, {0, 30, 250}, 0},
      {5000, 1092, {100, 17, 700}, 0}, {123, 10000, {0, 0, 0}, 0},
      {40, 7, {3, 5, 11}, 0},          {12, 10000, {100, 10, 0}, 1},
  };
  for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++) {
    const struct segment_plan *p = &plans[i];
    int64_t bound[6000], n = 0, t = 0;
    bound[n++] = 0;
    while (t < p->max_iterations && n < 6000) {
      int64_t e = segment_end(p, t);
      CHECK(e > t && e <= p->max_iterations, "plan %zu: segment after %lld ends at %lld", i,
            (long long)t, (long long)e);
      if (e <= t) break;
      if (p->length > 0)
        CHECK(e - t <= p->length, "plan %zu: segment %lld..%lld longer than %lld", i, (long long)t,
              (long long)e, (long long)p->length);
      if (p->single)
        CHECK(e == t + 1, "plan %zu: single, segment %lld..%lld", i, (long long)t, (long long)e);
      int on = e == p->max_iterations || (p->length > 0 && e % p->length == 0) || p->single;
      for (int j = 0; j < 3; j++) {
        on |= p->every[j] > 0 && e % p->every[j] == 0;
        CHECK(!multiple_between(t, e, p->every[j]),
              "plan %zu: segment %lld..%lld skips a multiple of %lld", i, (long long)t,
              (long long)e, (long long)p->every[j]);
      }
      CHECK(!multiple_between(t, e, p->length),
            "plan %zu: segment %lld..%lld skips a multiple of the length", i, (long long)t,
            (long long)e);
      CHECK(on, "plan %zu: segment ends at %lld, on no boundary", i, (long long)e);
      bound[n++] = t = e;
    }
    /* From inside a segment (a restart at any iteration): the next boundary. */
    for (int64_t k = 1; k < n; k++)
      for (int64_t s = bound[k - 1]; s < bound[k]; s++) {
        int64_t e = segment_end(p, s);
        CHECK(e == bound[k], "plan %zu: after %lld ends at %lld, uninterrupted at %lld", i,
              (long long)s, (long long)e, (long long)bound[k]);
        if (e != bound[k]) break;
      }
  }
}

/* Slices: the budget, and the next slice's length on values. */
static void test_slices(void)
{
  CHECK(segment_slice_budget(0, 0) == 1.0, "no watchdog, no timed checkpoints: 1 s");
  CHECK(segment_slice_budget(2, 0) == 0.5, "watchdog 2 s: 0.5 s");
  CHECK(segment_slice_budget(600, 1.2) == 0.3, "checkpoints every 1.2 s: 0.3 s");
  CHECK(segment_next_slice(1, 0.001, 1.0) == 62, "fast: up to a sixteenth of the budget, got %lld",
        (long long)segment_next_slice(1, 0.001, 1.0));
  CHECK(segment_next_slice(10, 0.01, 1.0) == 62, "a sixteenth of the budget, got %lld",
        (long long)segment_next_slice(10, 0.01, 1.0));
  CHECK(segment_next_slice(10, 0.05, 1.0) == 40, "past a sixteenth: 4-fold at most, got %lld",
        (long long)segment_next_slice(10, 0.05, 1.0));
  CHECK(segment_next_slice(1, 32e-6, 1.0) == 1953, "a 32 us iteration: 1,953, got %lld",
        (long long)segment_next_slice(1, 32e-6, 1.0));
  CHECK(segment_next_slice(100, 0.5, 1.0) == 200, "half the budget: doubles, got %lld",
        (long long)segment_next_slice(100, 0.5, 1.0));
  CHECK(segment_next_slice(100, 10.0, 1.0) == 10, "10x over budget: a tenth, got %lld",
        (long long)segment_next_slice(100, 10.0, 1.0));
  CHECK(segment_next_slice(1, 20.0, 1.0) == 1, "one iteration over budget: still 1");
  CHECK(segment_next_slice(8000, 0.0, 1.0) == SEGMENT_MAX_ITERATIONS, "capped, got %lld",
        (long long)segment_next_slice(8000, 0.0, 1.0));
}

int main(void)
{
  test_slices();
  test_length();
  test_end_values();
  test_end_properties();
  if (failures) {
    printf("FAILED (%d)\n", failures);
    return 1;
  }
  printf("passed\n");
  return 0;
}

/* The schedule of a run from its config alone (src/schedule.h): the segment
 * length for a backend's update budget; where segments end and what falls
 * on their ends (migrations, snapshots, checkpoints, the end), on values;
 * that every event lies on a segment end and the boundaries are the same
 * whichever iteration a restart starts from; the slices bounded by time. */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "schedule.h"

#include "unit_check.h"

/* The schedule of the config TEXT (a [run] table with max_iterations and
 * what else it gives) for UPDATES per step, with migration and an output. */
static struct schedule schedule_text(const char *text, double updates, int single)
{
  struct ipso_config cfg;
  struct schedule p;
  memset(&p, 0, sizeof p);
  if (config_load_text(text, "schedule", 0, NULL, 1, &cfg) != IPSO_OK) {
    CHECK(0, "config: %s", text);
    return p;
  }
  p = schedule_of(&cfg, updates, 1, 1, single);
  config_free(&cfg);
  return p;
}

static void test_length(void)
{
  const struct {
    double updates;
    int particles, dims;
    int64_t want;
  } cases[] = {
      {33554432.0, 1024, 30, 1092},    /* 2^25 (CPU) / 30720 = 1092.3, rounded down */
      {2147483648.0, 32768, 120, 546}, /* 2^31 (GPU) / 3932160 = 546.1 */
      {2147483648.0, 2048, 1, 10000},  /* 1048576: at most SCHEDULE_MAX_SEGMENT */
      {33554432.0, 256, 20, 6553},     /* 6553.6 */
      {33554432.0, 1 << 20, 1000, 1},  /* less than one iteration: at least 1 */
      {0.0, 16, 2, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[256];
    snprintf(text, sizeof text,
             "[run]\nmax_iterations = 5\n[objective]\nname = \"sphere\"\ndimensions = %d\n"
             "[swarm]\nparticles = %d\n",
             cases[i].dims, cases[i].particles);
    struct schedule p = schedule_text(text, cases[i].updates, 0);
    CHECK(p.length == cases[i].want, "%.0f updates, %d x %d: length %lld, want %lld",
          cases[i].updates, cases[i].particles, cases[i].dims, (long long)p.length,
          (long long)cases[i].want);
  }
}

/* The segment ends of P from 0 on, and the events on them, against WANT:
 * "iteration:events" pairs (events as letters m s c). */
static void check_run(const char *what, const struct schedule *p, const char *want)
{
  char got[2048] = "";
  size_t n = 0;
  for (int64_t t = 0; t < p->max_iterations && n + 32 < sizeof got;) {
    t = schedule_segment_end(p, t);
    unsigned ev = schedule_events(p, t);
    n += (size_t)snprintf(got + n, sizeof got - n, "%s%lld:%s%s%s", n ? " " : "", (long long)t,
                          ev & SCHEDULE_MIGRATE ? "m" : "", ev & SCHEDULE_SNAPSHOT ? "s" : "",
                          ev & SCHEDULE_CHECKPOINT ? "c" : "");
  }
  CHECK(!strcmp(got, want), "%s:\n  got  %s\n  want %s", what, got, want);
}

static void test_runs(void)
{
  /* Migration every 100, segments of 300 (2^25 updates of 1024 x 109.4):
   * the migrations and the length cut. */
  struct schedule a =
      schedule_text("[run]\nmax_iterations = 700\n[objective]\nname = \"sphere\"\n"
                    "dimensions = 4\n[swarm]\nparticles = 256\n[migration]\ninterval = 250\n",
                    307200.0, 0);
  check_run("migration every 250, length 300", &a, "250:m 300: 500:m 600: 700:");
  /* Snapshots every 30, checkpoints every 250, segments of 64. */
  struct schedule b = schedule_text(
      "[run]\nmax_iterations = 260\n[objective]\nname = \"sphere\"\ndimensions = 1\n"
      "[swarm]\nparticles = 1\n[migration]\ninterval = 0\n[output]\nsnapshot_interval = 30\n"
      "checkpoint_interval = 250\n",
      64.0, 0);
  check_run("snapshots 30, checkpoints 250, length 64", &b,
            "30:s 60:s 64: 90:s 120:s 128: 150:s 180:s 192: 210:s 240:s 250:c 256: 260:");
  /* Everything at once, and the end on a multiple. */
  struct schedule c = schedule_text(
      "[run]\nmax_iterations = 40\n[objective]\nname = \"sphere\"\ndimensions = 1\n"
      "[swarm]\nparticles = 1\n[migration]\ninterval = 20\n[output]\nsnapshot_interval = 10\n"
      "checkpoint_interval = 40\n",
      1e9, 0);
  check_run("migrations 20, snapshots 10, checkpoints 40", &c, "10:s 20:ms 30:s 40:msc");
  /* No intervals: the whole run in segments of the length. */
  struct schedule d = schedule_text(
      "[run]\nmax_iterations = 25000\n[objective]\nname = \"sphere\"\ndimensions = 1\n"
      "[swarm]\nparticles = 1\n[migration]\ninterval = 0\n",
      1e9, 0);
  check_run("no intervals", &d, "10000: 20000: 25000:");
  /* --check-invariants: one iteration per segment, whatever the intervals. */
  struct schedule e =
      schedule_text("[run]\nmax_iterations = 5\n[objective]\nname = \"sphere\"\ndimensions = 1\n"
                    "[swarm]\nparticles = 1\n[migration]\ninterval = 2\n",
                    1e9, 1);
  check_run("single", &e, "1: 2:m 3: 4:m 5:");
  /* No output: no snapshots; no migration when the islands do not migrate. */
  struct ipso_config cfg;
  if (config_load_text("[run]\nmax_iterations = 50\n[objective]\nname = \"sphere\"\n"
                       "dimensions = 1\n[swarm]\nparticles = 1\n[migration]\ninterval = 20\n"
                       "[output]\nsnapshot_interval = 25\n",
                       "schedule", 0, NULL, 1, &cfg) == IPSO_OK) {
    struct schedule f = schedule_of(&cfg, 1e9, 0, 0, 0);
    check_run("neither migration nor output", &f, "50:");
    f = schedule_of(&cfg, 1e9, 1, 0, 0);
    check_run("migration, no output", &f, "20:m 40:m 50:");
    config_free(&cfg);
  } else {
    CHECK(0, "config of the last case");
  }
  /* Beyond 2^31 iterations. */
  struct schedule g = {5000000000LL, 10000, 0, 0, 0, 0};
  CHECK(schedule_segment_end(&g, 4294967296LL) == 4294970000LL, "64-bit iterations");
  CHECK(schedule_segment_end(&g, 4999999999LL) == 5000000000LL, "64-bit end");
}

/* Multiple of K strictly between A and B. */
static int multiple_between(int64_t a, int64_t b, int64_t k)
{
  return k > 0 && (a / k + 1) * k < b;
}

/* Every plan cut from 0 to its end: segments advance, are at most the length,
 * end on a multiple or the run's end, skip no multiple, and a restart from
 * any boundary or from a point inside a segment meets the same boundaries. */
static void test_properties(void)
{
  const struct schedule plans[] = {
      {1000, 300, 100, 0, 0, 0}, {997, 64, 0, 30, 250, 0}, {5000, 1092, 100, 17, 700, 0},
      {123, 10000, 0, 0, 0, 0},  {40, 7, 3, 5, 11, 0},     {12, 10000, 100, 10, 0, 1},
  };
  for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++) {
    const struct schedule *p = &plans[i];
    int64_t bound[6000], n = 0, t = 0;
    bound[n++] = 0;
    while (t < p->max_iterations && n < 6000) {
      int64_t e = schedule_segment_end(p, t);
      CHECK(e > t && e <= p->max_iterations, "plan %zu: segment after %lld ends at %lld", i,
            (long long)t, (long long)e);
      if (e <= t) break;
      CHECK(e - t <= p->length, "plan %zu: segment %lld..%lld longer than %lld", i, (long long)t,
            (long long)e, (long long)p->length);
      if (p->single)
        CHECK(e == t + 1, "plan %zu: single, segment %lld..%lld", i, (long long)t, (long long)e);
      const int64_t every[4] = {p->length, p->migration, p->snapshot, p->checkpoint};
      int on = e == p->max_iterations || p->single;
      for (int j = 0; j < 4; j++) {
        on |= every[j] > 0 && e % every[j] == 0;
        CHECK(!multiple_between(t, e, every[j]),
              "plan %zu: segment %lld..%lld skips a multiple of %lld", i, (long long)t,
              (long long)e, (long long)every[j]);
      }
      CHECK(on, "plan %zu: segment ends at %lld, on no boundary", i, (long long)e);
      /* No event falls inside the segment. */
      for (int64_t u = t + 1; u < e; u++)
        CHECK(!schedule_events(p, u), "plan %zu: an event at %lld inside %lld..%lld", i,
              (long long)u, (long long)t, (long long)e);
      bound[n++] = t = e;
    }
    /* From inside a segment (a restart at any iteration): the next boundary. */
    for (int64_t k = 1; k < n; k++)
      for (int64_t s = bound[k - 1]; s < bound[k]; s++) {
        int64_t e = schedule_segment_end(p, s);
        CHECK(e == bound[k], "plan %zu: after %lld ends at %lld, uninterrupted at %lld", i,
              (long long)s, (long long)e, (long long)bound[k]);
        if (e != bound[k]) break;
      }
  }
}

/* Slices: the budget, and the next slice's length on values. */
static void test_slices(void)
{
  CHECK(schedule_slice_budget(0, 0) == 1.0, "no watchdog, no timed checkpoints: 1 s");
  CHECK(schedule_slice_budget(2, 0) == 0.5, "watchdog 2 s: 0.5 s");
  CHECK(schedule_slice_budget(600, 1.2) == 0.3, "checkpoints every 1.2 s: 0.3 s");
  CHECK(schedule_next_slice(1, 0.001, 1.0) == 62, "fast: up to a sixteenth of the budget, got %lld",
        (long long)schedule_next_slice(1, 0.001, 1.0));
  CHECK(schedule_next_slice(10, 0.01, 1.0) == 62, "a sixteenth of the budget, got %lld",
        (long long)schedule_next_slice(10, 0.01, 1.0));
  CHECK(schedule_next_slice(10, 0.05, 1.0) == 40, "past a sixteenth: 4-fold at most, got %lld",
        (long long)schedule_next_slice(10, 0.05, 1.0));
  CHECK(schedule_next_slice(1, 32e-6, 1.0) == 1953, "a 32 us iteration: 1,953, got %lld",
        (long long)schedule_next_slice(1, 32e-6, 1.0));
  CHECK(schedule_next_slice(100, 0.5, 1.0) == 200, "half the budget: doubles, got %lld",
        (long long)schedule_next_slice(100, 0.5, 1.0));
  CHECK(schedule_next_slice(100, 10.0, 1.0) == 10, "10x over budget: a tenth, got %lld",
        (long long)schedule_next_slice(100, 10.0, 1.0));
  CHECK(schedule_next_slice(1, 20.0, 1.0) == 1, "one iteration over budget: still 1");
  CHECK(schedule_next_slice(8000, 0.0, 1.0) == SCHEDULE_MAX_SEGMENT, "capped, got %lld",
        (long long)schedule_next_slice(8000, 0.0, 1.0));
}

int main(void)
{
  test_length();
  test_runs();
  test_properties();
  test_slices();
  printf("%s (%d failures)\n", failures ? "FAILED" : "passed", failures);
  return failures ? 1 : 0;
}

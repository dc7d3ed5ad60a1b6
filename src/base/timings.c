/* Start-up timings: the process's start from /proc/self/stat (to count
 * the loading before main()), the phases with CLOCK_MONOTONIC. */
#include "timings.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime.h"

#define MAX_MARKS 32

static struct {
  double start;   /* CLOCK_MONOTONIC at main() */
  double loaded;  /* seconds from exec to main(), or -1 if unknown */
  int n, printed; /* marks, and marks printed */
  const char *phase[MAX_MARKS];
  double at[MAX_MARKS];
} tm;

/* Clock ID in seconds. */
static double now(clockid_t id)
{
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double wall_seconds(void)
{
  return now(CLOCK_MONOTONIC);
}

/* Seconds between the process's creation and now, from /proc; -1 if unknown. */
static double age_from_proc(void)
{
  FILE *f = fopen("/proc/self/stat", "r");
  if (!f) return -1;
  char buf[1024];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  /* Field 22 (starttime) counts from the field after the command name,
   * which is in parentheses and may contain spaces. */
  char *p = strrchr(buf, ')');
  if (!p) return -1;
  unsigned long long start = 0;
  int field = 2;
  for (p++; *p && field < 22; p++)
    if (*p == ' ') field++;
  if (sscanf(p, "%llu", &start) != 1) return -1;
  long hz = sysconf(_SC_CLK_TCK);
  if (hz <= 0) return -1;
  double age = now(CLOCK_BOOTTIME) - (double)start / (double)hz;
  return age >= 0 ? age : -1;
}

void timings_begin(void)
{
  tm.start = wall_seconds();
  tm.loaded = age_from_proc();
}

void timings_mark(const char *phase)
{
  if (tm.n < MAX_MARKS) {
    tm.phase[tm.n] = phase;
    tm.at[tm.n++] = wall_seconds() - tm.start;
  }
}

void timings_print(const char *title)
{
  double base = tm.loaded > 0 ? tm.loaded : 0, prev = tm.printed ? tm.at[tm.printed - 1] : 0;
  printf("%s\n", title);
  if (tm.loaded >= 0 && !tm.printed)
    printf("  %-34s %8.3f s  (from /proc, 10 ms resolution)\n", "exec and libraries to main()",
           tm.loaded);
  for (int i = tm.printed; i < tm.n; i++) {
    printf("  %-34s %8.4f s  (at %.4f s)\n", tm.phase[i], tm.at[i] - prev, base + tm.at[i]);
    prev = tm.at[i];
  }
  tm.printed = tm.n;
  fflush(stdout);
}

static struct {
  double last, seconds[TIMINGS_PHASES];
  int64_t laps[TIMINGS_PHASES];
} loop;

void timings_loop_begin(void)
{
  memset(&loop, 0, sizeof loop);
  loop.last = wall_seconds();
}

void timings_lap(enum timings_phase phase)
{
  double t = wall_seconds();
  loop.seconds[phase] += t - loop.last;
  loop.laps[phase]++;
  loop.last = t;
}

void timings_print_loop(void)
{
  static const char *what[TIMINGS_PHASES] = {"slices", "history rows, reduction over ranks",
                                             "migrations", "result, checks, output"};
  printf("islandpso: the iterations (rank 0; %lld slices, %lld migrations)\n",
         (long long)loop.laps[TIMINGS_SLICES], (long long)loop.laps[TIMINGS_MIGRATIONS]);
  for (int i = 0; i < TIMINGS_PHASES; i++)
    printf("  %-34s %8.4f s  %8.1f us each\n", what[i], loop.seconds[i],
           loop.laps[i] ? 1e6 * loop.seconds[i] / (double)loop.laps[i] : 0.0);
  fflush(stdout);
}

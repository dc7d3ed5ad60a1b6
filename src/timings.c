/* Start-up timings. The process's start is taken from the kernel's record
 * (/proc/self/stat, clock ticks since boot, so 10 ms resolution) to count
 * the loading of the executable and its libraries before main(); the
 * phases themselves are timed with CLOCK_MONOTONIC from main(). */
#include "timings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"

#define MAX_MARKS 32

static struct {
  double start;   /* CLOCK_MONOTONIC at main() */
  double loaded;  /* seconds from exec to main(), or -1 if unknown */
  int n, printed; /* marks, and marks printed */
  const char *phase[MAX_MARKS];
  double at[MAX_MARKS];
} tm;

static double now(clockid_t id)
{
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
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
  tm.start = now(CLOCK_MONOTONIC);
  tm.loaded = age_from_proc();
  tm.n = 0;
  tm.printed = 0;
}

void timings_mark(const char *phase)
{
  if (tm.n < MAX_MARKS) {
    tm.phase[tm.n] = phase;
    tm.at[tm.n++] = now(CLOCK_MONOTONIC) - tm.start;
  }
}

double timings_since_start(void)
{
  return now(CLOCK_MONOTONIC) - tm.start + (tm.loaded > 0 ? tm.loaded : 0);
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

static int cmp_u64(const void *a, const void *b)
{
  unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
  return (x > y) - (x < y);
}

/* The Q-quantile of N sorted nanoseconds (the nearest rank), in seconds. */
static double quantile_s(const unsigned long long *v, size_t n, double q)
{
  return n ? 1e-9 * (double)v[(size_t)(q * (double)(n - 1) + 0.5)] : 0.0;
}

int timings_handshake(const unsigned long long *stamps, size_t cap, unsigned long long last,
                      struct mailbox_waits *w)
{
  memset(w, 0, sizeof *w);
  if (cap < 2 || last < 2) return 0;
  unsigned long long *v = malloc(3 * cap * sizeof *v);
  if (!v) return -1;
  unsigned long long first = last >= cap ? last - cap + 2 : 2;
  unsigned long long *post = v, *wait = v + cap, *between = v + 2 * cap;
  size_t n = 0;
  double wsum = 0, bsum = 0;
  for (unsigned long long q = first; q <= last; q++) {
    const unsigned long long *a = stamps + (q % cap) * 4, *p = stamps + ((q - 1) % cap) * 4;
    if (!a[0] || !a[1] || !a[2] || !a[3] || !p[3] || a[1] < a[0] || a[3] < a[2] || a[2] < p[3])
      continue;
    post[n] = a[1] - a[0];
    wait[n] = a[3] - a[2];
    between[n] = a[2] - p[3];
    wsum += 1e-9 * (double)wait[n];
    bsum += 1e-9 * (double)between[n];
    n++;
  }
  qsort(post, n, sizeof *post, cmp_u64);
  qsort(wait, n, sizeof *wait, cmp_u64);
  qsort(between, n, sizeof *between, cmp_u64);
  w->migrations = (int64_t)n;
  w->post = quantile_s(post, n, 0.5);
  w->wait = quantile_s(wait, n, 0.5);
  w->wait_p90 = quantile_s(wait, n, 0.9);
  w->wait_mean = n ? wsum / (double)n : 0.0;
  w->between = quantile_s(between, n, 0.5);
  w->between_p90 = quantile_s(between, n, 0.9);
  w->between_mean = n ? bsum / (double)n : 0.0;
  free(v);
  return 0;
}

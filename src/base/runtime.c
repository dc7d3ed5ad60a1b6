/* Signal flags, the watchdog thread and the guard against an early exit(). */
#include "runtime.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

static volatile sig_atomic_t stop_signal = 0;

/* Each asks for a checkpoint and a stop; SIGHUP and SIGPIPE would otherwise
 * end the process with nothing saved. */
static const int stop_signals[] = {SIGTERM, SIGINT, SIGUSR1, SIGHUP, SIGPIPE};

/* Keeps the first stop signal; a second SIGINT stops at once and says so. */
static void on_signal(int sig)
{
  if (sig == SIGINT && stop_signal != 0) {
    static const char msg[] = "islandpso: second interrupt: stopping at once, without a "
                              "checkpoint (the last one written stays as it was)\n";
    ssize_t k = write(STDERR_FILENO, msg, sizeof msg - 1); /* async-signal-safe */
    (void)k;
    signal(SIGINT, SIG_DFL);
    raise(SIGINT);
    return;
  }
  if (stop_signal == 0) stop_signal = sig;
}

void signals_install(void)
{
  struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < sizeof stop_signals / sizeof stop_signals[0]; i++)
    sigaction(stop_signals[i], &sa, NULL);
}

int signals_pending(void)
{
  return stop_signal;
}

/* The first number in file PATH after KEY at a line's start ("": the first
 * number), times SCALE; -1 when there is none (or "max"). */
static double number_in(const char *path, const char *key, double scale)
{
  FILE *f = fopen(path, "r");
  char line[512];
  double v = -1;
  size_t n = strlen(key);
  while (f && v < 0 && fgets(line, sizeof line, f)) {
    unsigned long long x;
    if (strncmp(line, key, n) == 0 && sscanf(line + n, " %llu", &x) == 1) v = (double)x * scale;
  }
  if (f) fclose(f);
  return v;
}

/* The memory this process's control group may still take (v2 or v1), or -1. */
static double cgroup_available(void)
{
  static const char *const root[2] = {"/sys/fs/cgroup", "/sys/fs/cgroup/memory"},
                           *const files[2][2] = {{"max", "current"},
                                                 {"limit_in_bytes", "usage_in_bytes"}};
  FILE *f = fopen("/proc/self/cgroup", "r");
  char line[4096], path[2][4200];
  double left = -1;
  while (f && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    const char *v1 = strstr(line, ":memory:");
    int v = strncmp(line, "0::", 3) == 0 ? 0 : v1 ? 1 : -1;
    if (v < 0) continue;
    for (int i = 0; i < 2; i++)
      snprintf(path[i], sizeof path[i], "%s%s/memory.%s", root[v], v == 0 ? line + 3 : v1 + 8,
               files[v][i]);
    double max = number_in(path[0], "", 1), used = number_in(path[1], "", 1);
    if (v == 1 && max >= 0x1p62) max = -1; /* v1's "no limit" */
    if (max >= 0 && used >= 0 && (left < 0 || max - used < left)) left = max - used;
  }
  if (f) fclose(f);
  return left;
}

double memory_available(int local_size, const char **what)
{
  double best = -1, v, share = local_size > 0 ? local_size : 1;
  *what = "unknown";
  if ((v = number_in("/proc/meminfo", "MemAvailable:", 1024)) >= 0) {
    best = v / share;
    *what = local_size > 1 ? "the node's MemAvailable, shared by its ranks" : "MemAvailable";
  }
  if ((v = cgroup_available()) >= 0 && (best < 0 || v / share < best)) {
    best = v / share;
    *what = "the control group's memory limit";
  }
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
    double mapped = number_in("/proc/self/statm", "", (double)sysconf(_SC_PAGESIZE));
    v = (double)rl.rlim_cur - (mapped > 0 ? mapped : 0);
    if (best < 0 || v < best) {
      best = v;
      *what = "the address-space limit (ulimit -v)";
    }
  }
  return best;
}

static struct {
  pthread_t thread;
  int running;
  double timeout;
  _Atomic double beat; /* wall_seconds() */
  _Atomic int64_t iteration;
  _Atomic(const char *) phase;
  pthread_mutex_t lock; /* guards quit; wake signals it */
  pthread_cond_t wake;
  int quit;
} wd = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

/* Wakes a few times per timeout and ends the process when the last beat is
 * older than it; watchdog_stop() wakes it at once. */
static void *watchdog_main(void *arg)
{
  (void)arg;
  double nap = wd.timeout / 8 > 1 ? 1 : wd.timeout / 8 < 0.01 ? 0.01 : wd.timeout / 8;
  pthread_mutex_lock(&wd.lock);
  while (!wd.quit) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    long long ns = (long long)until.tv_nsec + (long long)(nap * 1e9);
    until.tv_sec += (time_t)(ns / 1000000000);
    until.tv_nsec = (long)(ns % 1000000000);
    pthread_cond_timedwait(&wd.wake, &wd.lock, &until);
    if (wd.quit) break;
    double idle = wall_seconds() - atomic_load(&wd.beat);
    if (idle > wd.timeout) {
      log_fail("watchdog", __FILE__, __LINE__,
               "no progress for %.0f s (in %s at iteration %lld); a rank may be stopped or hung; "
               "ending the job (run.watchdog = %.0f s)",
               idle, atomic_load(&wd.phase), (long long)atomic_load(&wd.iteration), wd.timeout);
      _exit(1);
    }
  }
  pthread_mutex_unlock(&wd.lock);
  return NULL;
}

int watchdog_start(double seconds)
{
  if (seconds <= 0) return 0;
  wd.timeout = seconds;
  atomic_store(&wd.beat, wall_seconds());
  atomic_store(&wd.phase, "start-up");
  atomic_store(&wd.iteration, 0);
  wd.quit = 0;
  if (pthread_create(&wd.thread, NULL, watchdog_main, NULL) != 0) return -1;
  wd.running = 1;
  return 0;
}

void watchdog_beat(const char *phase, int64_t iteration)
{
  atomic_store(&wd.phase, phase);
  atomic_store(&wd.iteration, iteration);
  atomic_store(&wd.beat, wall_seconds());
}

void watchdog_stop(void)
{
  if (!wd.running) return;
  pthread_mutex_lock(&wd.lock);
  wd.quit = 1;
  pthread_cond_signal(&wd.wake);
  pthread_mutex_unlock(&wd.lock);
  pthread_join(wd.thread, NULL);
  wd.running = 0;
}

static atomic_int exit_expected = 1;

/* At exit() before main() returns (a user objective's): a status 0 or 3
 * would read as success or a requeue, so say so and end with status 1. */
static void exit_guard_check(int status, void *arg)
{
  (void)arg;
  if (atomic_load(&exit_expected)) return;
  log_fail("exit", __FILE__, __LINE__,
           "exit(%d) was called before the run finished (in %s at iteration %lld): the island "
           "left without finishing; did the objective call exit()? Ending with status 1",
           status, atomic_load(&wd.phase) ? atomic_load(&wd.phase) : "start-up",
           (long long)atomic_load(&wd.iteration));
  fflush(stdout);
  _exit(1);
}

int exit_guard_install(void)
{
  atomic_store(&exit_expected, 0);
  return on_exit(exit_guard_check, NULL);
}

void exit_guard_release(void)
{
  atomic_store(&exit_expected, 1);
}

/* Progress lines. */
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Whether an updating line suits stdout: a terminal, and not a launcher's
 * pseudo-terminal (mpirun and srun give ranks one even when the job's output
 * goes to a file, so under a launcher plain lines are the safe choice). */
static int interactive(void)
{
  const char *launcher[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_PROCID"};
  for (size_t i = 0; i < sizeof launcher / sizeof launcher[0]; i++)
    if (getenv(launcher[i])) return 0;
  return isatty(STDOUT_FILENO);
}

void progress_init(struct progress *p, enum ipso_progress mode, int rank, int64_t first,
                   int64_t last)
{
  int on = rank == 0 && mode != IPSO_PROGRESS_OFF;
  *p = (struct progress){.mode = on ? (mode == IPSO_PROGRESS_AUTO && interactive() ? 1 : 2) : 0,
                         .first = first,
                         .last = last,
                         .start = -1,
                         .last_print = -1,
                         .last_iteration = first};
}

/* Formats SECONDS as H:MM:SS. */
static void hms(char *buf, size_t n, double seconds)
{
  long s = seconds < 0 ? 0 : (long)(seconds + 0.5);
  snprintf(buf, n, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
}

void progress_update(struct progress *p, int64_t it, double best, int64_t evals, double now)
{
  if (!p->mode) return;
  if (p->start < 0) {
    p->start = p->last_print = now;
    p->last_iteration = it;
    p->evals0 = evals;
    return;
  }
  double interval = p->mode == 1 ? 0.25 : 10.0;
  if (now - p->last_print < interval) return;
  double rate = (double)(it - p->last_iteration) / (now - p->last_print);
  double evals_rate = (double)(evals - p->evals0) / (now - p->start);
  char eta[32];
  hms(eta, sizeof eta, rate > 0 ? (double)(p->last - it) / rate : 0);
  double pct =
      p->last > p->first ? 100.0 * (double)(it - p->first) / (double)(p->last - p->first) : 100.0;
  char line[256];
  snprintf(line, sizeof line,
           "iteration %lld/%lld (%.0f%%)  best %.10g  %.3g evaluations/s  ETA %s", (long long)it,
           (long long)p->last, pct, best, evals_rate, eta);
  if (p->mode == 1) {
    printf("\r%-100s", line);
    p->dirty = 1;
  } else {
    printf("%s\n", line);
  }
  fflush(stdout);
  p->last_print = now;
  p->last_iteration = it;
}

void progress_finish(struct progress *p)
{
  if (p->mode == 1 && p->dirty) {
    printf("\r%-100s\r", "");
    fflush(stdout);
  }
  p->dirty = 0;
}

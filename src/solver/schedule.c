/* The schedule of a run: segment ends and what falls on them. */
#include "schedule.h"

/* The next multiple of K after T. */
static int64_t next_multiple(int64_t t, int64_t k)
{
  return (t / k + 1) * k;
}

struct schedule schedule_of(const struct ipso_config *cfg, double updates, int migrates, int output,
                            int single)
{
  struct schedule p = {cfg->run.max_iterations, 0, 0, 0, 0, single};
  double k = updates / ((double)cfg->swarm.particles * (double)cfg->objective.dimensions);
  p.length = k < 1 ? 1 : (k > SCHEDULE_MAX_SEGMENT ? SCHEDULE_MAX_SEGMENT : (int64_t)k);
  p.migration = migrates ? cfg->migration.interval : 0;
  p.snapshot = output ? cfg->output.snapshot_interval : 0;
  p.checkpoint = cfg->output.checkpoint_interval;
  return p;
}

int64_t schedule_segment_end(const struct schedule *p, int64_t t)
{
  int64_t end = p->max_iterations;
  const int64_t every[4] = {p->length, p->migration, p->snapshot, p->checkpoint};
  for (int i = 0; i < 4; i++)
    if (every[i] > 0 && next_multiple(t, every[i]) < end) end = next_multiple(t, every[i]);
  if (p->single && t + 1 < end) end = t + 1;
  return end;
}

unsigned schedule_events(const struct schedule *p, int64_t t)
{
  unsigned ev = 0;
  if (p->migration > 0 && t % p->migration == 0) ev |= SCHEDULE_MIGRATE;
  if (p->snapshot > 0 && t % p->snapshot == 0) ev |= SCHEDULE_SNAPSHOT;
  if (p->checkpoint > 0 && t % p->checkpoint == 0) ev |= SCHEDULE_CHECKPOINT;
  return ev;
}

double schedule_slice_budget(double watchdog, double checkpoint_seconds)
{
  double b = 1.0;
  if (watchdog > 0 && watchdog / 4 < b) b = watchdog / 4;
  if (checkpoint_seconds > 0 && checkpoint_seconds / 4 < b) b = checkpoint_seconds / 4;
  return b;
}

int64_t schedule_next_slice(int64_t n, double seconds, double budget)
{
  /* Beyond 4-fold only while predicted at most a sixteenth of the budget: a slice
   * 16 times slower than its first iterations still ends within the budget. */
  double growth = seconds > 0 ? budget / 16 / seconds : 4.0;
  if (growth < 4.0) growth = 4.0;
  double fit = seconds > 0 ? budget / seconds * (double)n : growth * (double)n;
  if (fit > growth * (double)n) fit = growth * (double)n;
  if (fit > (double)SCHEDULE_MAX_SEGMENT) fit = SCHEDULE_MAX_SEGMENT;
  return fit < 1 ? 1 : (int64_t)fit;
}

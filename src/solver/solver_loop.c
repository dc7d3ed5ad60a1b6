/* The island loop's executor: the segments in slices bounded by time, and
 * what falls on their ends. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint.h"
#include "runtime.h"
#include "solver_internal.h"
#include "timings.h"

/* Stop reasons and a due checkpoint agreed at a slice's end (bits). */
enum { STOP_SIGNAL = 1, STOP_TIME = 2, CHECKPOINT_DUE = 4, FLAG_BITS = 3 };

/* Whether stdout takes an updating line: a terminal, not under a launcher
 * (mpirun and srun give ranks a pseudo-terminal even when output goes to a file). */
static int interactive(void)
{
  const char *launcher[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_PROCID"};
  for (size_t i = 0; i < sizeof launcher / sizeof launcher[0]; i++)
    if (getenv(launcher[i])) return 0;
  return isatty(STDOUT_FILENO);
}

/* The progress line of iterations FIRST..LAST, printed by rank 0: an
 * updating line on a terminal, plain lines (every 10 s) in a log. */
static void progress_init(struct progress *p, enum ipso_progress mode, int rank, int64_t first,
                          int64_t last)
{
  int on = rank == 0 && mode != IPSO_PROGRESS_OFF;
  *p = (struct progress){.mode = on ? (mode == IPSO_PROGRESS_AUTO && interactive() ? 1 : 2) : 0,
                         .first = first,
                         .last = last,
                         .start = -1};
}

/* Reports iteration IT, best BEST and evaluations EVALS at NOW, when due. */
static void progress_update(struct progress *p, int64_t it, double best, int64_t evals, double now)
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
  long eta = rate > 0 ? (long)((double)(p->last - it) / rate + 0.5) : 0; /* seconds */
  double pct =
      p->last > p->first ? 100.0 * (double)(it - p->first) / (double)(p->last - p->first) : 100.0;
  char line[256];
  snprintf(line, sizeof line,
           "iteration %lld/%lld (%.0f%%)  best %.10g  %.3g evaluations/s  ETA %ld:%02ld:%02ld",
           (long long)it, (long long)p->last, pct, best, evals_rate, eta / 3600, eta / 60 % 60,
           eta % 60);
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

/* Ends the terminal line, if any. */
static void progress_finish(struct progress *p)
{
  if (p->mode == 1 && p->dirty) {
    printf("\r%-100s\r", "");
    fflush(stdout);
  }
  p->dirty = 0;
}

/* Copies the rank's swarms to the host, into DST (the rank's islands). */
static int fetch_state_into(struct solver *s, struct swarm_state *dst)
{
  watchdog_beat("copying the swarm to the host", s->t);
  return s->b.ops->save_state(&s->b, dst);
}

int solver_take_result(struct solver *s)
{
  struct island_best *r = &s->result, ib = {0, 0, s->scratch};
  s->result_island = s->first; /* the rank's best first, ties to the lower island */
  IPSO_TRY(s->b.ops->best(&s->b, 0, r));
  for (int k = 1; k < s->local; k++) {
    IPSO_TRY(s->b.ops->best(&s->b, k, &ib));
    if (!cost_better(ib.cost, r->cost)) continue;
    r->cost = ib.cost;
    r->particle = ib.particle;
    memcpy(r->position, ib.position, sizeof(double) * (size_t)s->D);
    s->result_island = s->first + k;
  }
  IPSO_TRY(
      island_best_of_all(s->comm, &r->cost, &r->particle, r->position, s->D, &s->result_island));
  s->have_result = 1;
  return IPSO_OK;
}

/* The backend ended on a thread of its own (the GPU's teardown beside the
 * last checkpoint's write). */
static void *end_backend(void *b)
{
  backend_end(b);
  return NULL;
}

int solver_write_checkpoint(struct solver *s, int last)
{
  IPSO_TRY(solver_flush_records(s));
  /* The history rows the checkpoint counts are on disk before its rename
   * (a stop's output flushed also where checkpoints are off). */
  if (s->out) IPSO_TRY(h5out_flush(s->out));
  if (!s->ckw) return IPSO_OK;
  double t = wall_seconds();
  struct swarm_state *buf;
  IPSO_TRY(checkpoint_writer_buffer(s->ckw, &buf));
  IPSO_TRY(fetch_state_into(s, buf));
  pthread_t ender;
  const int ending = last && pthread_create(&ender, NULL, end_backend, &s->b) == 0;
  watchdog_beat("writing a checkpoint", s->t);
  struct checkpoint_info info = {.iteration = s->t,
                                 .evaluations = evaluations_at(s, s->t),
                                 .elapsed_seconds = s->elapsed0 + (wall_seconds() - s->t0),
                                 .target_iteration = s->target_iteration,
                                 .history_rows = s->hist.written,
                                 .migration_rows = s->out ? h5out_migration_rows(s->out) : 0,
                                 .migration_rows_known = s->out != NULL};
  snprintf(info.run_started, sizeof info.run_started, "%s", s->run_started);
  snprintf(info.objective_hash, sizeof info.objective_hash, "%s", s->objective_hash);
  int rc = checkpoint_write(s->ckw, &info);
  if (ending) pthread_join(ender, NULL);
  IPSO_TRY(rc);
  s->ckpt_iteration = s->t;
  s->ckpt_written++;
  s->last_checkpoint = t;
  /* What one costs (the time limit's margin). */
  s->checkpoint_cost = wall_seconds() - t;
  return IPSO_OK;
}

/* The snapshot of iteration s->t (collective). */
static int write_snapshot(struct solver *s)
{
  watchdog_beat("writing a snapshot", s->t);
  IPSO_TRY(fetch_state_into(s, &s->state));
  return h5out_write_snapshot(s->out, s->t, &s->state, s->sign);
}

/* Checks the swarm invariants after iteration s->t (--check-invariants). */
static int check_invariants(struct solver *s)
{
  IPSO_TRY(fetch_state_into(s, &s->state));
  for (int k = 0; k < s->local; k++) {
    struct swarm_state v = swarm_state_island(&s->state, s->N, k);
    IPSO_TRY(s->b.ops->best(&s->b, k, &s->best));
    IPSO_TRY(invariants_check(s->inv[k], s->t, &v, &s->best));
  }
  return IPSO_OK;
}

int solver_record_start(struct solver *s)
{
  IPSO_TRY(s->b.ops->best_costs(&s->b, s->step_best));
  int64_t hit;
  double now = wall_seconds();
  IPSO_TRY(solver_record_segment(s, 0, 0, now, now, 0, &hit, NULL, 0));
  if (hit >= 0) s->target_iteration = hit;
  if (schedule_events(&s->plan, 0) & SCHEDULE_SNAPSHOT) IPSO_TRY(write_snapshot(s));
  if (s->opt->check_invariants) IPSO_TRY(check_invariants(s));
  return IPSO_OK;
}

/* Stop flags seen by this rank at a slice's end. */
static int local_flags(struct solver *s)
{
  int flags = 0;
  double now = wall_seconds();
  if (signals_pending()) flags |= STOP_SIGNAL;
  if (s->deadline > 0) {
    double margin = 2 * s->slice_cost + 2 * s->checkpoint_cost + 0.5;
    if (now + margin >= s->deadline) flags |= STOP_TIME;
  }
  if (s->rank == 0 && s->cfg->output.checkpoint_seconds > 0 &&
      now - s->last_checkpoint >= s->cfg->output.checkpoint_seconds)
    flags |= CHECKPOINT_DUE;
  return flags;
}

int solver_iterate(struct solver *s)
{
  const struct ipso_config *cfg = s->cfg;
  const int64_t max_it = cfg->run.max_iterations;
  const double budget = schedule_slice_budget(cfg->run.watchdog, cfg->output.checkpoint_seconds);
  int64_t slice = 1;
  progress_init(&s->prog, cfg->output.progress, s->rank, s->t, max_it);
  timings_loop_begin();
  while (s->t < max_it) {
    watchdog_beat("computing", s->t);
    const int64_t first = s->t + 1, end = schedule_segment_end(&s->plan, s->t);
    const int64_t last = end - s->t > slice ? s->t + slice : end, n = last - first + 1;
    double a = wall_seconds();
    IPSO_TRY(s->b.ops->step(&s->b, first, last, s->step_best));
    double b = wall_seconds();
    timings_lap(TIMINGS_SLICES);
    s->slice_cost = b - a;
    s->t = last;
    watchdog_beat("recording history", s->t);
    /* One reduction at the slice's end: the history rows and target, the slowest
     * rank's time (the next slice), the flags (0 or -1: the minimum is their OR),
     * a stop's cause and whether rank 0 lost the output file. */
    enum { RIDE_TIME, RIDE_CAUSE = 1 + FLAG_BITS, RIDE_LOST, RIDES };
    _Static_assert(RIDES <= SOLVER_RIDE, "the slice's values ride along");
    double ride[RIDES];
    int mine = local_flags(s), flags = 0;
    char lost[3 * IPSO_PATH_MAX] = "";
    ride[RIDE_TIME] = -(b - a);
    for (int i = 0; i < FLAG_BITS; i++) ride[1 + i] = mine >> i & 1 ? -1.0 : 0.0;
    ride[RIDE_CAUSE] = -(double)signals_pending();
    ride[RIDE_LOST] = h5out_identity_lost(s->out, lost, sizeof lost) ? -1.0 : 0.0;
    int64_t hit;
    const int done = last == max_it, segment_end = last == end;
    IPSO_TRY(solver_record_segment(s, first, last, a, b, done, &hit, ride, RIDES));
    if (ride[RIDE_CAUSE] < s->stop_cause) s->stop_cause = ride[RIDE_CAUSE];
    if (ride[RIDE_LOST] < 0) {
      /* A checkpoint keeps what was computed, for a --resume once the file is back. */
      IPSO_TRY(solver_write_checkpoint(s, 0));
      if (s->rank == 0) (void)IPSO_FAIL("output", "%s", lost);
      return IPSO_ERR_RUNTIME;
    }
    slice = schedule_next_slice(n, -ride[RIDE_TIME], budget);
    for (int i = 0; i < FLAG_BITS; i++)
      if (ride[1 + i] < 0) flags |= 1 << i;
    double rank_best = s->seg_min[n - 1];
    if (hit >= 0 && s->target_iteration < 0) s->target_iteration = hit;
    const int reached = s->target_iteration >= 0 && !done && segment_end;
    timings_lap(TIMINGS_RECORDS);
    /* The result before the last migration: the island that found the best. */
    if (done || reached) IPSO_TRY(solver_take_result(s));
    const unsigned ev = segment_end ? schedule_events(&s->plan, last) : 0;
    if (ev & SCHEDULE_MIGRATE) {
      IPSO_TRY(solver_migrate(s));
      timings_lap(TIMINGS_MIGRATIONS);
    }
    if (s->opt->check_invariants) IPSO_TRY(check_invariants(s));
    if (ev & SCHEDULE_SNAPSHOT) IPSO_TRY(write_snapshot(s));
    if (reached && cfg->output.history_interval > 0 && s->t % cfg->output.history_interval != 0) {
      /* The run ends here: its last iteration gets a history row (one column of step_best). */
      for (int k = 0; k < s->local; k++) s->step_best[k] = s->step_best[k * n + (n - 1)];
      IPSO_TRY(solver_record_segment(s, s->t, s->t, b, b, 1, &hit, NULL, 0));
    }
    const int stop = flags & (STOP_SIGNAL | STOP_TIME);
    if (stop || flags & CHECKPOINT_DUE || (segment_end && ev & SCHEDULE_CHECKPOINT))
      IPSO_TRY(solver_write_checkpoint(s, 0));
    timings_lap(TIMINGS_OUTPUT);
    progress_update(&s->prog, s->t, fitness_of(s, rank_best), evaluations_at(s, s->t), b);
    if (stop) {
      s->stop_time = !!(flags & STOP_TIME);
      progress_finish(&s->prog);
      return IPSO_STOPPED;
    }
    if (reached) break;
  }
  progress_finish(&s->prog);
  return IPSO_OK;
}

/* The island loop. Islands have global ids 0..islands-1; rank r runs the K
 * islands r*K .. r*K + K - 1 (one backend for all of them) in segments of
 * iterations; at segment ends (fixed iterations, so a strict run is a pure
 * function of the config, the same on any number of ranks) the ranks record
 * history, migrate on the global ring of islands, agree on stopping, and
 * write snapshots and checkpoints (in the background: io/checkpoint_async.c). */
#include "solver.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "check.h"
#include "checkpoint.h"
#include "h5out.h"
#include "invariants.h"
#include "island_mpi.h"
#include "lock.h"
#include "log.h"
#include "migration.h"
#include "objective.h"
#include "paths.h"
#include "progress.h"
#include "run_files.h"
#include "runtime.h"
#include "segment.h"
#include "solver_internal.h"
#include "timings.h"

/* Stop reasons agreed between ranks at a segment end (bit flags). */
enum { STOP_SIGNAL = 1, STOP_TIME = 2, CHECKPOINT_DUE = 4, CHECKPOINT_WRITING = 8, FLAG_BITS = 4 };

static double elapsed(const struct solver *s)
{
  return s->elapsed0 + (wall_seconds() - s->t0);
}

/* The last iteration of the segment that starts after T. */
static int64_t next_segment_end(const struct solver *s, int64_t t)
{
  const struct ipso_config *cfg = s->cfg;
  struct segment_plan p = {cfg->run.max_iterations,
                           s->segment,
                           {s->links ? cfg->migration.interval : 0,
                            s->out ? cfg->output.snapshot_interval : 0,
                            cfg->output.checkpoint_interval},
                           s->opt->check_invariants};
  return segment_end(&p, t);
}

/* Copies the rank's swarms to the host, into DST (the rank's islands). */
static int fetch_state_into(struct solver *s, struct swarm_state *dst)
{
  watchdog_beat("copying the swarm to the host", s->t);
  return s->b.ops->save_state(&s->b, dst);
}

/* The checkpoint's fill (checkpoint.h): the capture taken by
 * start_checkpoint, read into BUF by the checkpoint's I/O thread. */
static int read_captured(void *ctx, struct swarm_state *buf)
{
  struct solver *s = ctx;
  return s->b.ops->read_captured(&s->b, CAPTURE_CHECKPOINT, buf);
}

/* Copies the rank's swarms to the host copy (snapshots, checks). */
static int fetch_state(struct solver *s)
{
  return fetch_state_into(s, &s->state);
}

/* The best of the rank's islands into s->best (ties to the lower island);
 * returns its index among them. */
static int local_best(struct solver *s, int *which)
{
  struct island_best ib = {0, 0, s->scratch};
  *which = 0;
  IPSO_TRY(s->b.ops->best(&s->b, 0, &s->best));
  for (int k = 1; k < s->local; k++) {
    IPSO_TRY(s->b.ops->best(&s->b, k, &ib));
    if (cost_better(ib.cost, s->best.cost)) {
      s->best.cost = ib.cost;
      s->best.particle = ib.particle;
      memcpy(s->best.position, ib.position, sizeof(double) * (size_t)s->D);
      *which = k;
    }
  }
  return IPSO_OK;
}

/* Waits for the checkpoint in flight, if any, flushes the output and
 * commits the checkpoint (collective). */
static int commit_checkpoint(struct solver *s)
{
  if (!checkpoint_in_flight(s->ckw)) return IPSO_OK;
  watchdog_beat("finishing a checkpoint", s->t);
  double t = wall_seconds();
  /* The output holds every history row the checkpoint counts (written at
   * its start) on disk before the checkpoint is renamed into place: the
   * output's flush (an fsync, 40-50 ms on a busy file system) comes here,
   * once the checkpoint's own writes succeeded, rather than at its start,
   * so that it leaves the run's path where the commit does (a short run's
   * only checkpoint is committed at its end). */
  IPSO_TRY(checkpoint_join(s->ckw));
  if (s->out) IPSO_TRY(h5out_flush(s->out));
  IPSO_TRY(checkpoint_commit(s->ckw));
  if (s->ckpt_started <= SOLVER_CKPT_LOG) {
    struct ckpt_timing *c = &s->ckpt_log[s->ckpt_started - 1];
    struct checkpoint_phases p;
    checkpoint_writer_phases(s->ckw, &p);
    c->write = checkpoint_writer_seconds(s->ckw);
    c->commit = wall_seconds() - t;
    c->threads = p.threads;
  }
  s->ckpt_written++;
  s->ckpt_path_seconds += wall_seconds() - t;
  /* What writing one costs when it must be waited for (the time limit's
   * margin): the copy and the file's creation, the thread, the commit. */
  s->checkpoint_cost = s->ckpt_start_cost + checkpoint_writer_seconds(s->ckw) + wall_seconds() - t;
  return IPSO_OK;
}

/* The checkpoint's pieces (checkpoint.h): read by its I/O threads from the
 * capture taken by start_checkpoint. */
static int read_captured_piece(void *ctx, int reader, int array, int64_t first, int64_t n,
                               const double **data)
{
  struct solver *s = ctx;
  return s->b.ops->read_captured_piece(&s->b, CAPTURE_CHECKPOINT, reader, array, first, n, data);
}

/* Starts the checkpoint of iteration s->t (collective): the records written
 * to the output (flushed to disk at the commit), the state captured on the
 * device or copied into the writer's buffer, the file created; the rank's
 * I/O threads write it while the run goes on. No checkpoint may be in
 * flight. MODE: how the caller goes on (checkpoint.h): a periodic
 * checkpoint's run, a stop that waits at once, or the end of the run,
 * which ends the backend meanwhile (the GPU's memory freed and its context
 * handed back, 0.06-0.07 s on an H100 that the process's exit would
 * otherwise spend after everything else). */
static int start_checkpoint(struct solver *s, enum checkpoint_mode mode)
{
  double t = wall_seconds();
  IPSO_TRY(solver_flush_records(s));
  if (!s->ckw) { /* checkpoints switched off: a stop's output flushed */
    if (s->out) IPSO_TRY(h5out_flush(s->out));
    return IPSO_OK;
  }
  struct ckpt_timing *log =
      s->ckpt_started < SOLVER_CKPT_LOG ? &s->ckpt_log[s->ckpt_started] : NULL;
  s->ckpt_started++;
  double t1 = wall_seconds(), t2;
  if (log) *log = (struct ckpt_timing){s->t, t1 - t, 0, 0, 0, 0, 1};
  struct swarm_state *buf;
  IPSO_TRY(checkpoint_writer_buffer(s->ckw, &buf));
  /* A checkpoint that is not waited for at once takes the state without
   * waiting for its copy to the host where the backend can (the GPU's):
   * its I/O threads read it, piece by piece where the backend offers. The
   * run's last reads the swarms themselves: nothing changes them before
   * the backend's end, which waits for its readers (write_checkpoint). */
  int captured = 0;
  if (mode == CHECKPOINT_LAST && s->b.ops->hold_state) {
    IPSO_TRY(s->b.ops->hold_state(&s->b, CAPTURE_CHECKPOINT));
    captured = 1;
  } else if (mode != CHECKPOINT_WAIT && s->b.ops->capture_state) {
    watchdog_beat("capturing the swarm", s->t);
    IPSO_TRY(s->b.ops->capture_state(&s->b, CAPTURE_CHECKPOINT, &captured));
  }
  if (!captured) IPSO_TRY(fetch_state_into(s, buf));
  if (mode == CHECKPOINT_LAST) timings_mark("final checkpoint: state taken");
  t2 = wall_seconds();
  if (log) log->take = t2 - t1;
  struct state_fill fill = {read_captured, s,
                            s->b.ops->read_captured_piece ? read_captured_piece : NULL};
  watchdog_beat("writing a checkpoint", s->t);
  struct checkpoint_info info = {
      s->t, evaluations_at(s, s->t), elapsed(s), s->target_iteration, s->hist.written, "", ""};
  snprintf(info.run_started, sizeof info.run_started, "%s", s->run_started);
  snprintf(info.objective_hash, sizeof info.objective_hash, "%s", s->objective_hash);
  IPSO_TRY(checkpoint_start(s->ckw, &info, mode, captured ? &fill : NULL));
  if (log) log->create = wall_seconds() - t2;
  s->ckpt_iteration = s->t;
  s->ckpt_pending = 0;
  s->last_checkpoint = wall_seconds();
  s->ckpt_begun = t;
  s->ckpt_start_cost = s->last_checkpoint - t;
  s->ckpt_path_seconds += s->ckpt_start_cost;
  /* Written whole where the asynchronous path cannot be taken. */
  if (!checkpoint_in_flight(s->ckw)) {
    s->ckpt_written++;
    s->checkpoint_cost = s->ckpt_start_cost;
  }
  return IPSO_OK;
}

/* A checkpoint of iteration s->t, written before returning: the one in
 * flight is committed first (stop signals, the time limit, the end). At
 * the end the backend is ended once the I/O threads have read the state
 * from it, while the file is flushed. */
static int write_checkpoint(struct solver *s, enum checkpoint_mode mode)
{
  IPSO_TRY(commit_checkpoint(s));
  IPSO_TRY(start_checkpoint(s, mode));
  if (mode != CHECKPOINT_LAST) return commit_checkpoint(s);
  timings_mark("final checkpoint: file created");
  if (s->ckw) {
    checkpoint_wait_read(s->ckw);
    timings_mark("final checkpoint: read and written");
    backend_end(&s->b);
    timings_mark("final checkpoint: backend ended");
  }
  int rc = commit_checkpoint(s);
  timings_mark("final checkpoint: flushed, renamed");
  return rc;
}

/* The snapshot's fill (h5out.h): the capture taken by write_snapshot. */
static int read_captured_snapshot(void *ctx, struct swarm_state *buf)
{
  struct solver *s = ctx;
  return s->b.ops->read_captured(&s->b, CAPTURE_SNAPSHOT, buf);
}

/* Starts the snapshot of iteration s->t (collective): the state captured
 * (the GPU's) or copied into the output's buffer; written in the
 * background where the output can (h5out_snapshot_start). */
static int write_snapshot(struct solver *s)
{
  watchdog_beat("writing a snapshot", s->t);
  IPSO_TRY(h5out_snapshot_wait(s->out));
  struct swarm_state *buf;
  IPSO_TRY(h5out_snapshot_buffer(s->out, &buf));
  int captured = 0;
  if (s->b.ops->capture_state)
    IPSO_TRY(s->b.ops->capture_state(&s->b, CAPTURE_SNAPSHOT, &captured));
  if (!captured) IPSO_TRY(fetch_state_into(s, buf));
  struct state_fill fill = {read_captured_snapshot, s, NULL};
  return h5out_snapshot_start(s->out, s->t, s->sign, captured ? &fill : NULL);
}

/* Checks the swarm invariants after iteration s->t (--check-invariants). */
static int check_invariants(struct solver *s)
{
  IPSO_TRY(fetch_state(s));
  for (int k = 0; k < s->local; k++) {
    struct swarm_state v = island_state(s, k);
    IPSO_TRY(s->b.ops->best(&s->b, k, &s->best));
    IPSO_TRY(invariants_check(s->inv[k], s->t, &v, &s->best));
  }
  return IPSO_OK;
}

/* Adds the time since *SINCE to the iterations' PHASE (--timings) and
 * restarts the clock. */
static void lap(struct solver *s, enum loop_phase phase, double *since)
{
  double now = wall_seconds();
  s->loop[phase] += now - *since;
  *since = now;
}

/* Stop flags seen by this rank at a segment end. */
static int local_flags(struct solver *s)
{
  int flags = 0;
  double now = wall_seconds();
  if (signals_pending()) flags |= STOP_SIGNAL;
  if (checkpoint_writing(s->ckw)) flags |= CHECKPOINT_WRITING;
  if (s->deadline > 0) {
    double margin = 2 * s->segment_cost + 2 * s->checkpoint_cost + 0.5;
    if (now + margin >= s->deadline) flags |= STOP_TIME;
  }
  if (s->rank == 0 && s->cfg->output.checkpoint_seconds > 0 &&
      now - s->last_checkpoint >= s->cfg->output.checkpoint_seconds)
    flags |= CHECKPOINT_DUE;
  return flags;
}

/* The checks on the files of the run, all before anything is written:
 * the paths (by identity), the locks, and on a restart the checkpoint and
 * whether it belongs to the output's run and objective. Sets *REPLACE when
 * --resume found no checkpoint and the output is an unfinished start of
 * this very run (same resolved config), which may then be started afresh. */
static int check_files(struct solver *s, const char *restart, struct checkpoint_info *info,
                       int *replace)
{
  const struct ipso_config *cfg = s->cfg;
  const char *out = cfg->run.output, *ckpt = cfg->output.checkpoint;
  *replace = 0;
  int rc = IPSO_OK;
  if (s->rank == 0) rc = paths_check(cfg->path, out, ckpt, restart);
  IPSO_TRY(island_agree(s->comm, rc));
  if (s->rank == 0 && out[0]) rc = run_lock_take(&s->lock_out, "output file", out);
  if (s->rank == 0 && rc == IPSO_OK && ckpt[0])
    rc = run_lock_take(&s->lock_ckpt, "checkpoint", ckpt);
  IPSO_TRY(island_agree(s->comm, rc));
  struct output_found found;
  IPSO_TRY(output_find(s->comm, out, cfg->text, &found));
  objective_fingerprint(cfg, s->objective_hash);
  if (!restart) {
    *replace =
        s->opt->resume && found.exists && found.readable && found.same_config && !found.finished;
    if (*replace && s->rank == 0)
      log_info("islandpso: no checkpoint to resume from; the output %s holds an unfinished start "
               "of this run (same config): starting it afresh",
               out);
    return checkpoint_check_path(s->comm, cfg, 1, s->opt->overwrite);
  }
  IPSO_TRY(checkpoint_check_path(s->comm, cfg, 0, s->opt->overwrite));
  IPSO_TRY(checkpoint_read(s->comm, restart, cfg, info, &s->state));
  timings_mark("checkpoint read");
  if (found.exists && found.started[0] && info->run_started[0] &&
      strcmp(found.started, info->run_started) != 0) {
    if (s->rank == 0)
      log_user_error("islandpso: error: the checkpoint '%s' belongs to the run started %s, the "
                     "output '%s' to the run started %s: continuing would splice two runs into "
                     "one output; give the output of the checkpoint's run, or start afresh",
                     restart, info->run_started, out, found.started);
    return IPSO_ERR_USAGE;
  }
  /* A checkpoint from before identities were recorded: the output's. */
  if (!info->run_started[0])
    snprintf(info->run_started, sizeof info->run_started, "%s", found.started);
  if (info->objective_hash[0] && s->objective_hash[0] &&
      strcmp(info->objective_hash, s->objective_hash) != 0) {
    if (!s->opt->allow_changed_objective) {
      if (s->rank == 0)
        log_user_error("islandpso: error: the objective changed since the checkpoint '%s' was "
                       "written (its source or a file it includes was edited): its personal "
                       "bests are costs of the old objective; continue anyway with "
                       "--allow-changed-objective, or start afresh",
                       restart);
      return IPSO_ERR_USAGE;
    }
    if (s->rank == 0)
      log_warn("the objective changed since the checkpoint '%s' was written; continuing with "
               "the new one (--allow-changed-objective)",
               restart);
  }
  return IPSO_OK;
}

/* Creates the backend and the swarm (fresh or from a checkpoint) and the
 * output file. Everything that can be refused (files, identity, locks, the
 * backend with a user objective's compilation) is refused before the
 * output is created, cut back or replaced and before old checkpoints are
 * removed. */
static int start(struct solver *s, const char *restart, struct checkpoint_info *info)
{
  const struct ipso_config *cfg = s->cfg;
  int local_rank = 0, local_size = 1, rc, replace;
  IPSO_TRY(island_local_rank(s->comm, &local_rank, &local_size));
  backend_share_cores(local_size);
  IPSO_TRY(check_files(s, restart, info, &replace));
  timings_mark("file checks");
  if (!restart) IPSO_TRY(swarm_state_alloc(&s->state, (int64_t)s->local * s->N, s->D));
  watchdog_beat("creating the backend", 0);
  int devices = cfg->run.backend == IPSO_BACKEND_CPU ? 0 : backend_gpu_count();
  if (devices) timings_mark("GPU driver (cuInit, device count)");
  /* One backend for the rank's islands, island k addressed by its global
   * id first + k (its random stream), on the rank's device. */
  struct swarm_setup setup = {cfg, s->first, s->islands, island_device_for(local_rank, devices),
                              s->local};
  /* A user objective is compiled by rank 0 first: a compile error or a
   * refused declaration is then reported once, and the other ranks load
   * the compiled object from the cache instead of all compiling at once. */
  int first = cfg->objective.id == IPSO_OBJ_USER && s->rank == 0;
  rc = island_agree(s->comm, first ? backend_create(&setup, &s->b) : IPSO_OK);
  if (rc != IPSO_OK) return rc;
  rc = island_agree(s->comm, first ? IPSO_OK : backend_create(&setup, &s->b));
  if (rc != IPSO_OK) return rc;
  timings_mark("backend created");
  /* The first writes. */
  if (restart) {
    if (cfg->run.output[0]) IPSO_TRY(h5out_reopen(s->comm, cfg, info->iteration, &s->out));
    snprintf(s->run_started, sizeof s->run_started, "%s", info->run_started);
  } else {
    if (cfg->run.output[0]) {
      IPSO_TRY(h5out_create(s->comm, cfg, s->opt->overwrite || replace, &s->out));
      /* On disk with its identity at once: a start that dies before its
       * first checkpoint leaves a file that --resume recognises. */
      IPSO_TRY(h5out_flush(s->out));
    }
    if (s->opt->overwrite) IPSO_TRY(checkpoint_remove_old(s->comm, cfg));
    if (s->out) snprintf(s->run_started, sizeof s->run_started, "%s", h5out_started(s->out));
  }
  if (!s->run_started[0]) IPSO_TRY(run_clock(s->comm, s->run_started));
  if (cfg->run.output[0]) timings_mark("output file");
  IPSO_TRY(solver_report_devices(s));
  IPSO_TRY(solver_migration_setup(s));
  watchdog_beat("initialising the swarm", 0);
  rc = restart ? s->b.ops->load_state(&s->b, &s->state) : s->b.ops->init(&s->b);
  if (restart) {
    s->t = info->iteration;
    s->target_iteration = info->target_iteration;
    s->elapsed0 = info->elapsed_seconds;
    s->hist.written = s->out ? h5out_history_rows(s->out) : info->history_rows;
  }
  rc = island_agree(s->comm, rc);
  timings_mark("swarm initialised");
  return rc;
}

/* Iteration 0 of a fresh run: its history row, snapshot and checks. No
 * checkpoint: --resume without one starts afresh, which is the same run. */
static int record_start(struct solver *s)
{
  IPSO_TRY(s->b.ops->best_costs(&s->b, s->step_best));
  for (int k = 0; k < s->local; k++) s->seg_best[k * s->segment] = s->step_best[k];
  int64_t hit;
  double now = wall_seconds();
  IPSO_TRY(solver_record_segment(s, 0, 0, now, now, 0, &hit, NULL, 0));
  if (hit >= 0) s->target_iteration = hit;
  if (s->out && s->cfg->output.snapshot_interval > 0) IPSO_TRY(write_snapshot(s));
  if (s->opt->check_invariants) IPSO_TRY(check_invariants(s));
  return IPSO_OK;
}

/* Takes the run's best of all islands now: at the last iteration, before
 * its migration, so that the result names the island that found the best
 * rather than one that only received a copy of it. Collective. */
static int take_result(struct solver *s)
{
  int k;
  IPSO_TRY(local_best(s, &k));
  s->result.cost = s->best.cost;
  s->result.particle = s->best.particle;
  memcpy(s->result.position, s->best.position, sizeof(double) * (size_t)s->D);
  s->result_island = s->first + k;
  IPSO_TRY(island_best_of_all(s->comm, &s->result.cost, &s->result.particle, s->result.position,
                              s->D, &s->result_island));
  s->have_result = 1;
  return IPSO_OK;
}

/* Before the run's last iterations FIRST..LAST complete (on the GPU, while
 * they are computed): the history rows so far written, and the rows those
 * iterations add reserved in the output, so that the run's end writes them
 * without extending the file's datasets (h5out_reserve_history). */
static int prepare_last_rows(struct solver *s, int64_t first, int64_t last)
{
  int64_t hi = s->cfg->output.history_interval;
  if (!s->out || hi <= 0) return IPSO_OK;
  IPSO_TRY(solver_flush_records(s));
  /* The multiples of the interval, and the run's last iteration. */
  int64_t rows = last / hi - (first - 1) / hi + (last % hi != 0);
  return h5out_reserve_history(s->out, h5out_history_rows(s->out) + rows);
}

/* A slice of iterations FIRST..LAST of the segment ending at END, and
 * what follows it on the device: a migration's messages out (OUT) and its
 * migrants in (IN), with AHEAD enqueued behind the iterations before they
 * are computed. */
struct slice {
  int64_t first, last, end;
  int out, in, ahead;
};

/* Whether slice C's migrants in may be enqueued behind its iterations
 * before they are computed, once the edges are there: nothing before them
 * reads the islands (the result, a target's stop, relaxed mode's
 * history). */
static int in_ahead_ok(const struct solver *s, const struct slice *c)
{
  const struct ipso_config *cfg = s->cfg;
  return c->in && s->b.ops->step_begin && c->last != cfg->run.max_iterations &&
         !cfg->run.has_target && cfg->swarm.sync == IPSO_SYNC_STRICT;
}

/* The slice after iteration T of at most LENGTH iterations. The migrants
 * in go behind the iterations when they are enqueued where no host takes
 * part (one rank) and nothing before them reads the islands (the result, a target's stop, relaxed mode's history). */
static struct slice plan_slice(const struct solver *s, int64_t t, int64_t length)
{
  const struct ipso_config *cfg = s->cfg;
  int64_t every = cfg->migration.interval;
  struct slice c;
  c.first = t + 1;
  c.end = next_segment_end(s, t);
  c.last = c.end - t > length ? t + length : c.end;
  /* A migration's messages out and its migrants in after the slice that
   * ends at its iteration (which ends a segment). */
  c.out = c.in = s->links && c.last == c.end && c.last % every == 0;
  int edges = s->size == 1;
  c.ahead = edges && in_ahead_ok(s, &c);
  return c;
}

/* Enqueues slice C on the device (the GPU's halves; the CPU computes it in
 * step()): the iterations, then a migration's messages out, which the
 * device selects while the host reads the history, and ahead the migrants
 * in. The iterations first: the migration's calls may wait for the
 * previous one's. */
static int begin_slice(struct solver *s, const struct slice *c)
{
  if (!s->b.ops->step_begin) return IPSO_OK;
  double t0 = wall_seconds();
  IPSO_TRY(s->b.ops->step_begin(&s->b, c->first, c->last));
  if (c->out) IPSO_TRY(solver_migrate_out(s, c->last));
  if (c->ahead) IPSO_TRY(solver_migrate_in(s, c->last));
  s->enqueue_seconds += wall_seconds() - t0;
  return IPSO_OK;
}

/* Whether the slice after C may be enqueued before C's history is read, so
 * that the device goes from C to it without waiting for the host: nothing
 * at C's end reads or copies the swarms or waits for the host (a snapshot,
 * a checkpoint, the result, a migration through the host, the checks), no
 * stop is pending, and neither C nor that slice is the run's last (whose
 * rows are reserved in the output before it computes). Collective
 * decisions only, so every rank enqueues the same. */
static int may_begin_ahead(const struct solver *s, const struct slice *c, int64_t length,
                           int stop_pending)
{
  const struct ipso_config *cfg = s->cfg;
  int64_t max_it = cfg->run.max_iterations, ci = cfg->output.checkpoint_interval,
          si = s->out ? cfg->output.snapshot_interval : 0;
  if (!s->b.ops->step_begin || cfg->swarm.sync != IPSO_SYNC_STRICT || cfg->run.has_target ||
      s->opt->check_invariants || stop_pending || s->ckpt_pending)
    return 0;
  if (c->last == max_it || (c->in && !c->ahead)) return 0;
  if ((ci > 0 && c->last % ci == 0) || (si > 0 && c->last % si == 0)) return 0;
  return plan_slice(s, c->last, length).last != max_it;
}

/* The loop over segments until the end, the target or a stop request.
 * Segments (whose ends are fixed iterations: migration, snapshots,
 * checkpoints, the target check) are computed in slices bounded by time,
 * so that a stop request is served within about a second however slow the
 * objective; slices do not change the result. On the GPU the next slice is
 * enqueued, where it may be (may_begin_ahead), before the host waits for
 * this one and records it; a stop or a time-based checkpoint then comes
 * one slice later. Returns IPSO_STOPPED when asked to stop early. */
static int iterate(struct solver *s)
{
  const struct ipso_config *cfg = s->cfg;
  int64_t max_it = cfg->run.max_iterations, slice = 1;
  double budget = segment_slice_budget(cfg->run.watchdog, cfg->output.checkpoint_seconds);
  /* IPSO_SLICE_MAX=N: slices of at most N iterations, so that a test puts
   * their ends where it wants them (slices do not change the result). */
  const char *slice_env = getenv("IPSO_SLICE_MAX");
  int64_t slice_max = slice_env ? atoll(slice_env) : 0;
  progress_init(&s->prog, cfg->output.progress, s->rank, s->t, max_it);
  struct slice cur, next;
  int have_next = 0, stop_pending = 0;
  double prev_end = wall_seconds();
  while (s->t < max_it) {
    watchdog_beat("computing", s->t);
    /* A slice begun ahead started on the device when the last one ended. */
    double a = have_next ? prev_end : wall_seconds();
    if (have_next) {
      cur = next;
      have_next = 0;
    } else {
      cur = plan_slice(s, s->t, slice);
      IPSO_TRY(begin_slice(s, &cur));
    }
    int64_t first = cur.first, last = cur.last, end = cur.end;
    /* The host's work for the run's last slice (the GPU's: while it
     * computes; the CPU's: before). */
    if (last == max_it) IPSO_TRY(prepare_last_rows(s, first, last));
    if (may_begin_ahead(s, &cur, slice, stop_pending)) {
      next = plan_slice(s, last, slice);
      IPSO_TRY(begin_slice(s, &next));
      have_next = 1;
      s->ahead++;
    }
    if (s->b.ops->step_begin) {
      double w = wall_seconds();
      IPSO_TRY(s->b.ops->step_end(&s->b, s->step_best));
      s->device_wait += wall_seconds() - w;
    } else {
      IPSO_TRY(s->b.ops->step(&s->b, first, last, s->step_best));
      if (cur.out) IPSO_TRY(solver_migrate_out(s, last));
    }
    double b = wall_seconds(), at = a;
    prev_end = b;
    lap(s, LOOP_DEVICE, &at);
    s->slices++;
    int64_t n = last - first + 1;
    for (int k = 0; k < s->local; k++)
      memcpy(s->seg_best + k * s->segment, s->step_best + k * n, sizeof(double) * (size_t)n);
    s->segment_cost = b - a;
    s->t = last;
    watchdog_beat("recording history", s->t);
    /* One reduction over the ranks at the slice's end: the history rows
     * and the target (solver_record_segment), the slowest rank's time,
     * which sets everyone's next slice, and the stop flags, each 0 or -1,
     * whose minimum is their OR. */
    _Static_assert(1 + FLAG_BITS <= SOLVER_RIDE, "the slice's values ride along");
    double ride[1 + FLAG_BITS];
    int mine = local_flags(s), flags = 0;
    ride[0] = -(b - a);
    for (int i = 0; i < FLAG_BITS; i++) ride[1 + i] = mine >> i & 1 ? -1.0 : 0.0;
    int64_t hit;
    int done = last == max_it, segment_end = last == end;
    IPSO_TRY(solver_record_segment(s, first, last, a, b, done, &hit, ride, 1 + FLAG_BITS));
    lap(s, LOOP_RECORD, &at);
    slice = segment_next_slice(last - first + 1, -ride[0], budget);
    if (slice_max > 0 && slice > slice_max) slice = slice_max;
    for (int i = 0; i < FLAG_BITS; i++)
      if (ride[1 + i] < 0) flags |= 1 << i;
    /* The rank's best after the segment, for the progress line: from the
     * step's history, not from every island's device (a copy each). */
    double rank_best = s->seg_min[last - first];
    if (hit >= 0 && s->target_iteration < 0) s->target_iteration = hit;
    int reached = s->target_iteration >= 0 && !done && segment_end;
    if (done || reached) IPSO_TRY(take_result(s));
    lap(s, LOOP_OUTPUT, &at);
    if (cur.in) {
      if (!cur.ahead) IPSO_TRY(solver_migrate_in(s, s->t));
      if (!s->migrations++) s->first_migration = wall_seconds() - at;
    }
    lap(s, LOOP_MIGRATE, &at);
    if (s->opt->check_invariants) IPSO_TRY(check_invariants(s));
    lap(s, LOOP_OTHER, &at);
    if (s->out && cfg->output.snapshot_interval > 0 && s->t % cfg->output.snapshot_interval == 0)
      IPSO_TRY(write_snapshot(s));
    /* With a slice begun ahead the device is past this one: a stop comes
     * at that slice's end, as does a checkpoint that fell due by time. */
    int stop = (flags | stop_pending) & (STOP_SIGNAL | STOP_TIME);
    if (have_next) {
      stop_pending = stop;
      stop = 0;
    }
    if (reached && cfg->output.history_interval > 0 && s->t % cfg->output.history_interval != 0) {
      /* The run ends here: its last iteration gets a history row. */
      for (int k = 0; k < s->local; k++)
        s->seg_best[k * s->segment] = s->seg_best[k * s->segment + (last - first)];
      IPSO_TRY(solver_record_segment(s, s->t, s->t, b, b, 1, &hit, NULL, 0));
    }
    /* Every rank's I/O thread has finished: the checkpoint in flight is
     * committed, without waiting. */
    if (checkpoint_in_flight(s->ckw) && !(flags & CHECKPOINT_WRITING))
      IPSO_TRY(commit_checkpoint(s));
    int periodic =
        cfg->output.checkpoint_interval > 0 && s->t % cfg->output.checkpoint_interval == 0;
    if (stop) {
      IPSO_TRY(write_checkpoint(s, CHECKPOINT_WAIT));
    } else if (have_next) {
      if (flags & CHECKPOINT_DUE) s->ckpt_pending = 1;
    } else if ((flags & CHECKPOINT_DUE) || periodic || (s->ckpt_pending && segment_end)) {
      /* A periodic checkpoint never waits for the writer: while it is busy
       * the checkpoint is deferred to the next segment end. */
      if (!checkpoint_in_flight(s->ckw)) {
        IPSO_TRY(start_checkpoint(s, CHECKPOINT_BACKGROUND));
      } else {
        /* One deferred checkpoint stands for all that fall due meanwhile. */
        if (!s->ckpt_pending || periodic) s->ckpt_deferred++;
        s->ckpt_pending = 1;
      }
    }
    lap(s, LOOP_OUTPUT, &at);
    progress_update(&s->prog, s->t, fitness_of(s, rank_best), evaluations_at(s, s->t), at);
    lap(s, LOOP_OTHER, &at);
    if (stop) {
      s->stop_signal = signals_pending();
      progress_finish(&s->prog);
      return IPSO_STOPPED;
    }
    if (reached) break;
  }
  progress_finish(&s->prog);
  return IPSO_OK;
}

/* A line of print_loop: SECONDS, its share of ALL, and per one of N. */
static void print_phase(const char *what, double seconds, double all, int64_t n)
{
  printf("  %-34s %8.4f s  %5.1f%%  %8.1f us each\n", what, seconds,
         all > 0 ? 100 * seconds / all : 0.0, n > 0 ? 1e6 * seconds / (double)n : 0.0);
}

/* Where the iterations' time went on rank 0's host (--timings). */
static void print_loop(const struct solver *s)
{
  static const char *what[LOOP_PHASES] = {
      "slices: launched and waited for", "history rows, reduction over ranks", "migrations",
      "snapshots, checkpoints, result", "progress and the rest"};
  double all = 0;
  for (int i = 0; i < LOOP_PHASES; i++) all += s->loop[i];
  printf("islandpso: the iterations (rank 0; %lld slices, %lld of them begun ahead, %lld "
         "migrations)\n",
         (long long)s->slices, (long long)s->ahead, (long long)s->migrations);
  printf("  %-34s %8.4f s\n", "iteration 0 (history row, checks)", s->start_row);
  for (int i = 0; i < LOOP_PHASES; i++) {
    print_phase(what[i], s->loop[i], all, i == LOOP_MIGRATE ? s->migrations : s->slices);
    /* Where the device computes slices the host enqueued ahead: whether the
     * host waited for it (the device the limit) or it for the host. */
    if (i == LOOP_DEVICE && s->b.ops->step_begin) {
      print_phase("  of them, waiting for the device", s->device_wait, all, s->slices);
      print_phase("  of them, enqueueing slices", s->enqueue_seconds, all, s->slices);
    }
  }
  struct device_slices d;
  if (s->b.ops->device_slices && s->b.ops->device_slices((struct backend *)&s->b, &d) == IPSO_OK &&
      d.slices > 0) {
    int64_t n = d.iterations;
    printf("  %-34s %8.4f s  %8.3f us per iteration\n", "on the device: the slices' launches",
           d.busy, n > 0 ? 1e6 * d.busy / (double)n : 0.0);
    printf("  %-34s %8.4f s  first %.1f us, largest %.1f us (before slice %lld)\n",
           "on the device: between them", d.idle, 1e6 * d.first, 1e6 * d.idle_max,
           (long long)d.idle_max_at);
  }
  if (s->migrations) {
    printf("  %-34s %8.1f us\n", "of the migrations, the first", 1e6 * s->first_migration);
    if (s->rx)
      printf("  %-34s %8.1f us each\n", "of the migrations, edges exchanged",
             1e6 * s->exchange_seconds / (double)s->migrations);
  }
}

/* Where the checkpoints' time went, and the I/O threads' of the last one
 * (--timings). */
static void print_last_checkpoint(const struct solver *s)
{
  struct checkpoint_phases p;
  if (s->ckpt_started) printf("islandpso: the checkpoints (rank 0, milliseconds)\n");
  for (int i = 0; i < s->ckpt_started && i < SOLVER_CKPT_LOG; i++) {
    const struct ckpt_timing *c = &s->ckpt_log[i];
    printf("  iteration %lld: flush %.1f, state %.1f, file and start %.1f; written in %.1f by %d "
           "thread%s; commit %.1f\n",
           (long long)c->iteration, 1e3 * c->flush, 1e3 * c->take, 1e3 * c->create, 1e3 * c->write,
           c->threads, c->threads == 1 ? "" : "s", 1e3 * c->commit);
  }
  checkpoint_writer_phases(s->ckw, &p);
  if (!p.threads) return;
  printf("islandpso: the last checkpoint's I/O (rank 0, %d thread%s, seconds summed over them)\n",
         p.threads, p.threads > 1 ? "s" : "");
  printf("  %-34s %8.4f s\n", "state copied from the GPU", p.fill);
  printf("  %-34s %8.4f s\n", "checksums", p.sums);
  printf("  %-34s %8.4f s\n", "writes", p.writes);
  printf("  %-34s %8.4f s\n", "flush to disk (fsync)", p.flush);
}

/* The end of a completed run: global best, result, summary, checkpoint. */
static int finish(struct solver *s)
{
  /* A run restarted at its last iteration has not taken its result yet. */
  if (!s->have_result) IPSO_TRY(take_result(s));
  struct island_best *g = &s->result;
  if (!(g->cost < INFINITY)) {
    if (s->rank == 0)
      log_user_error("islandpso: error: no finite objective value in %lld evaluations: every "
                     "value was NaN or infinite; check the objective and its bounds",
                     (long long)evaluations_at(s, s->t));
    return IPSO_ERR_RUNTIME;
  }
  struct run_result r = {fitness_of(s, g->cost),  g->position, s->D,
                         s->result_island,        g->particle, s->t,
                         evaluations_at(s, s->t), elapsed(s)};
  /* The last checkpoint: the one in flight if it is of this iteration.
   * Where one is written now, the backend is ended beside its write
   * (write_checkpoint); otherwise the process's exit hands the GPU back,
   * which is no slower when nothing else is left to do. */
  int rc = commit_checkpoint(s);
  if (rc == IPSO_OK && s->ckpt_iteration != s->t) rc = write_checkpoint(s, CHECKPOINT_LAST);
  if (rc == IPSO_OK && s->out) rc = h5out_write_result(s->out, &r);
  if (rc == IPSO_OK)
    solver_print_summary(s, &r, s->target_iteration >= 0 && s->t < s->cfg->run.max_iterations);
  return rc;
}

static void solver_free(struct solver *s)
{
  checkpoint_writer_free(s->ckw);
  checkpoint_remove_wait();
  if (s->b.ops) s->b.ops->destroy(&s->b);
  ring_exchange_free(s->rx);
  free(s->msg);
  free(s->carried);
  free(s->drawn);
  free(s->sent);
  solver_history_free(&s->hist);
  swarm_state_free(&s->state);
  free(s->mlog);
  free(s->best.position);
  free(s->result.position);
  free(s->seg_best);
  free(s->step_best);
  free(s->seg_min);
  free(s->row_cost);
  free(s->scratch);
  for (int k = 0; s->inv && k < s->local; k++) invariants_free(s->inv[k]);
  free(s->inv);
  run_lock_release(&s->lock_out);
  run_lock_release(&s->lock_ckpt);
}

int solver_run(MPI_Comm comm, const struct ipso_config *cfg, const struct solver_options *opt)
{
  struct solver s;
  memset(&s, 0, sizeof s);
  s.comm = comm;
  s.cfg = cfg;
  s.opt = opt;
  s.N = cfg->swarm.particles;
  s.D = cfg->objective.dimensions;
  s.sign = cfg->objective.goal == IPSO_MAXIMIZE ? -1.0 : 1.0;
  s.target_iteration = -1;
  s.ckpt_iteration = -1;
  s.lock_out.fd = s.lock_ckpt.fd = -1;
  IPSO_CHECK_MPI(MPI_Comm_rank(comm, &s.rank));
  IPSO_CHECK_MPI(MPI_Comm_size(comm, &s.size));
  s.islands = config_islands(cfg, s.size);
  s.local = islands_per_rank(s.islands, s.size);
  s.first = island_first(s.islands, s.size, s.rank);
  s.hist.width = s.local;
  if (s.local < 1 || s.local * s.size != s.islands)
    return IPSO_FAIL("solver", "%d islands cannot be spread evenly over %d ranks", s.islands,
                     s.size);

  const char *restart = opt->restart;
  if (!restart && opt->resume && cfg->output.checkpoint[0]) {
    int exists = access(cfg->output.checkpoint, F_OK) == 0;
    IPSO_CHECK_MPI(MPI_Bcast(&exists, 1, MPI_INT, 0, comm));
    if (exists) restart = cfg->output.checkpoint;
  }
  char spread[64] = "";
  if (s.local > 1)
    snprintf(spread, sizeof spread, " (%d per rank on %d rank%s)", s.local, s.size,
             s.size == 1 ? "" : "s");
  log_info("islandpso %s: %s, %s in %d dimensions, %lld particles x %d islands%s, seed %llu, %s%s",
           IPSO_VERSION, cfg->run.name, cfg->objective.name, s.D, (long long)s.N, s.islands, spread,
           (unsigned long long)cfg->run.seed, config_precision_name(cfg->run.precision),
           restart ? ", restarting" : "");
  if (restart) log_info("  restart from      %s", restart);

  struct checkpoint_info info;
  double started = wall_seconds();
  s.t0 = started;
  s.last_checkpoint = started;
  if (cfg->run.time_limit > 0) s.deadline = started + cfg->run.time_limit;
  int rc = start(&s, restart, &info);
  if (rc == IPSO_OK) {
    /* Per island's particles: the same segment ends on any number of ranks. */
    s.segment = segment_length(s.b.segment_updates, s.N, s.D);
    s.seg_best = malloc(sizeof(double) * (size_t)s.segment * (size_t)s.local);
    s.step_best = malloc(sizeof(double) * (size_t)s.segment * (size_t)s.local);
    s.seg_min = malloc(sizeof(double) * (size_t)s.segment);
    s.row_cost = malloc(sizeof(double) * (size_t)(s.segment + 1 + SOLVER_RIDE));
    s.best.position = malloc(sizeof(double) * (size_t)s.D);
    s.result.position = malloc(sizeof(double) * (size_t)s.D);
    s.scratch = malloc(sizeof(double) * (size_t)s.D);
    if (!s.seg_best || !s.step_best || !s.seg_min || !s.row_cost || !s.best.position ||
        !s.result.position || !s.scratch)
      rc = IPSO_FAIL("memory", "out of memory");
  }
  if (rc == IPSO_OK && cfg->output.checkpoint[0]) rc = checkpoint_writer_create(comm, cfg, &s.ckw);
  if (rc == IPSO_OK && opt->check_invariants) {
    if (!(s.inv = calloc((size_t)s.local, sizeof *s.inv)))
      rc = IPSO_FAIL("memory", "out of memory");
    for (int k = 0; rc == IPSO_OK && k < s.local; k++)
      rc = invariants_create(cfg, s.b.exact, s.N, &s.inv[k]);
  }
  /* The iterations' time starts when every rank is ready (a rank's later
   * start-up is start-up, not the first slice's). */
  if (rc == IPSO_OK && s.size > 1) {
    int mrc = MPI_Barrier(comm);
    if (mrc != MPI_SUCCESS) rc = ipso_mpi_fail("MPI_Barrier", mrc, __FILE__, __LINE__);
  }
  s.t0 = wall_seconds();
  if (rc == IPSO_OK && opt->timings && s.rank == 0)
    timings_print("islandpso: start-up (rank 0, seconds since the process started)");
  if (rc == IPSO_OK && !restart) rc = record_start(&s);
  s.start_row = wall_seconds() - s.t0;
  if (rc == IPSO_OK) rc = iterate(&s);
  timings_mark("iterations");
  if (opt->timings && s.rank == 0) print_loop(&s);
  if (rc == IPSO_OK) rc = solver_flush_records(&s);
  timings_mark("the history's last rows written");
  if (rc == IPSO_OK) {
    rc = finish(&s);
    timings_mark("result and final checkpoint");
    if (opt->timings && s.rank == 0) print_last_checkpoint(&s);
  } else if (rc == IPSO_STOPPED) {
    if (s.rank == 0) {
      const char *why = s.stop_signal ? strsignal(s.stop_signal) : "the time limit";
      if (cfg->output.checkpoint[0]) {
        log_info("islandpso: stopped at iteration %lld by %s; checkpoint written to %s",
                 (long long)s.t, why, cfg->output.checkpoint);
        log_info("  continue with: islandpso %s --restart %s", cfg->path, cfg->output.checkpoint);
      } else {
        log_info("islandpso: stopped at iteration %lld by %s; no checkpoint (output.checkpoint "
                 "is empty)",
                 (long long)s.t, why);
      }
    }
  }
  if (s.out && rc == IPSO_ERR_RUNTIME && s.size > 1) {
    h5out_abandon(s.out); /* main() aborts the job */
  } else if (s.out) {
    int crc = h5out_close(s.out, rc == IPSO_OK);
    if (rc == IPSO_OK || rc == IPSO_STOPPED) rc = crc == IPSO_OK ? rc : crc;
    timings_mark("output file closed");
  }
  solver_free(&s);
  timings_mark("swarms and writer freed");
  return rc;
}

/* The island loop's life: the checks of the files, the start (fresh or
 * from a checkpoint), the segments (solver_loop.c), the end. */
#include "solver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cec2017_data.h"
#include "checkpoint.h"
#include "migration.h"
#include "problem.h"
#include "run_files.h"
#include "runtime.h"
#include "solver_internal.h"
#include "timings.h"

/* The run's files checked before anything is written: paths, locks, on a restart
 * the checkpoint, its run and objective. *REPLACE: --resume found no checkpoint
 * but an unfinished start of this very run, which may be started afresh. */
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

/* Creates the backend, the swarm (fresh or restored) and the output; whatever can
 * be refused is, before the output is touched or old checkpoints are removed. */
static int start(struct solver *s, const char *restart, struct checkpoint_info *info)
{
  const struct ipso_config *cfg = s->cfg;
  int local_rank = 0, local_size = 1, rc, replace;
  IPSO_TRY(island_local_rank(s->comm, &local_rank, &local_size));
  backend_share_cores(local_size);
  IPSO_TRY(check_files(s, restart, info, &replace));
  timings_mark("file checks");
  if (!restart) IPSO_TRY(swarm_state_alloc(&s->state, (int64_t)s->local * s->N, s->D));
  if (cfg->objective.id == IPSO_OBJ_CEC2017) {
    double *data = NULL;
    int64_t n = 0;
    rc = island_agree(s->comm, cec2017_data_for(cfg, s->rank, &data, &n));
    if (rc != IPSO_OK) {
      free(data);
      return rc;
    }
    problem_data_set(data, n);
  }
  watchdog_beat("creating the backend", 0);
  int devices = cfg->run.backend == IPSO_BACKEND_CPU ? 0 : backend_gpu_count();
  if (devices) timings_mark("GPU driver (cuInit, device count)");
  /* The GPU a rank drives: its index on the node modulo the visible devices. */
  struct swarm_setup setup = {cfg, s->first, s->islands, devices > 0 ? local_rank % devices : -1,
                              s->local};
  /* Rank 0 compiles a user objective first: an error once, the others load the cache. */
  int first = cfg->objective.id == IPSO_OBJ_USER && s->rank == 0;
  IPSO_TRY(island_agree(s->comm, first ? backend_create(&setup, 0, &s->b) : IPSO_OK));
  IPSO_TRY(island_agree(s->comm, first ? IPSO_OK : backend_create(&setup, 0, &s->b)));
  timings_mark("backend created");
  /* Every rank runs rank 0's objective, the run's, and a restored swarm is its. */
  IPSO_TRY(objective_agree(s->comm, cfg, s->objective_hash));
  if (restart && !s->opt->allow_changed_objective)
    IPSO_TRY(invariants_check_restored(s->comm, cfg, s->b.exact, &s->state, s->first, restart));
  if (restart) {
    if (cfg->run.output[0]) IPSO_TRY(h5out_reopen(s->comm, cfg, info->iteration, &s->out));
    snprintf(s->run_started, sizeof s->run_started, "%s", info->run_started);
  } else {
    if (cfg->run.output[0]) {
      IPSO_TRY(h5out_create(s->comm, cfg, s->opt->overwrite || replace, &s->out));
      /* On disk at once: --resume recognises a start that died early. */
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

/* The end of a completed run: global best, result, summary, checkpoint. */
static int finish(struct solver *s)
{
  /* A run restarted at its last iteration has not taken its result yet. */
  if (!s->have_result) IPSO_TRY(solver_take_result(s));
  struct island_best *g = &s->result;
  if (!(g->cost < INFINITY)) {
    if (s->rank == 0)
      log_user_error("islandpso: error: no finite objective value in %lld evaluations: every "
                     "value was NaN or infinite; check the objective and its bounds",
                     (long long)evaluations_at(s, s->t));
    return IPSO_ERR_RUNTIME;
  }
  struct run_result r = {fitness_of(s, g->cost),
                         g->position,
                         s->D,
                         s->result_island,
                         g->particle,
                         s->t,
                         evaluations_at(s, s->t),
                         s->elapsed0 + (wall_seconds() - s->t0)};
  /* The last checkpoint, unless one of this iteration was written. */
  int rc = s->ckpt_iteration != s->t ? solver_write_checkpoint(s, 1) : IPSO_OK;
  if (rc == IPSO_OK && s->out) rc = h5out_write_result(s->out, &r);
  if (rc == IPSO_OK && s->out) rc = h5out_check_identity(s->out);
  if (rc == IPSO_OK)
    solver_print_summary(s, &r, s->target_iteration >= 0 && s->t < s->cfg->run.max_iterations);
  return rc;
}

/* Frees everything the solver holds and releases its locks. */
static void solver_free(struct solver *s)
{
  checkpoint_writer_free(s->ckw);
  checkpoint_remove_wait();
  if (s->b.ops) s->b.ops->destroy(&s->b);
  ring_exchange_free(s->rx);
  free(s->msg);
  free(s->hist.iteration);
  swarm_state_free(&s->state);
  free(s->mlog);
  free(s->step_best);
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

  const char *restart = opt->restart;
  char resume_from[IPSO_PATH_MAX + 8];
  if (!restart && opt->resume) {
    IPSO_TRY(checkpoint_resume_path(comm, cfg, resume_from, sizeof resume_from));
    if (resume_from[0]) restart = resume_from;
  }
  char spread[64] = "";
  if (s.local > 1)
    snprintf(spread, sizeof spread, " (%d per rank on %d rank%s)", s.local, s.size,
             s.size == 1 ? "" : "s");
  char fn[16] = "";
  if (cfg->objective.id == IPSO_OBJ_CEC2017) snprintf(fn, sizeof fn, " F%d", cfg->objective.number);
  log_info("islandpso %s: %s, %s%s in %d dimensions, %lld particles x %d islands%s, seed %llu, "
           "%s%s",
           IPSO_VERSION, cfg->run.name, cfg->objective.name, fn, s.D, (long long)s.N, s.islands,
           spread, (unsigned long long)cfg->run.seed, config_precision_name(cfg->run.precision),
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
    s.plan =
        schedule_of(cfg, s.b.segment_updates, s.links > 0, s.out != NULL, opt->check_invariants);
    const size_t seg = (size_t)s.plan.length, D = (size_t)s.D, steps = seg * (size_t)s.local;
    /* One block: step_best, seg_min, row_cost, the two positions, scratch. */
    s.step_best = malloc(sizeof(double) * (steps + 2 * seg + 1 + SOLVER_RIDE + 3 * D));
    if (!s.step_best) {
      rc = IPSO_FAIL("memory", "out of memory");
    } else {
      s.seg_min = s.step_best + steps;
      s.row_cost = s.seg_min + seg;
      s.best.position = s.row_cost + seg + 1 + SOLVER_RIDE;
      s.result.position = s.best.position + D;
      s.scratch = s.result.position + D;
    }
  }
  if (rc == IPSO_OK) rc = solver_history_alloc(&s);
  if (rc == IPSO_OK && cfg->output.checkpoint[0]) rc = checkpoint_writer_create(comm, cfg, &s.ckw);
  if (rc == IPSO_OK && opt->check_invariants) {
    if (!(s.inv = calloc((size_t)s.local, sizeof *s.inv)))
      rc = IPSO_FAIL("memory", "out of memory");
    for (int k = 0; rc == IPSO_OK && k < s.local; k++)
      rc = invariants_create(cfg, s.b.exact, s.first + k, &s.inv[k]);
  }
  /* The iterations' time starts when every rank is ready. */
  int mrc;
  if (rc == IPSO_OK && s.size > 1 && (mrc = MPI_Barrier(comm)) != MPI_SUCCESS)
    rc = ipso_mpi_fail("MPI_Barrier", mrc, __FILE__, __LINE__);
  s.t0 = wall_seconds();
  if (rc == IPSO_OK && opt->timings && s.rank == 0)
    timings_print("islandpso: start-up (rank 0, seconds since the process started)");
  if (rc == IPSO_OK && !restart) rc = solver_record_start(&s);
  if (rc == IPSO_OK) rc = solver_iterate(&s);
  timings_mark("iterations");
  if (opt->timings && s.rank == 0) timings_print_loop();
  if (rc == IPSO_OK) rc = solver_flush_records(&s);
  timings_mark("the history's last rows written");
  if (rc == IPSO_OK) {
    rc = finish(&s);
    timings_mark("result and final checkpoint");
  } else if (rc == IPSO_STOPPED && s.rank == 0) {
    int sig = (int)-s.stop_cause;
    const char *why = sig > 0 ? strsignal(sig) : s.stop_time ? "the time limit" : "a stop request";
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

/* What the island loop records and exchanges at segment ends: the history
 * rows (appended in blocks), the migration and its log, the device lines
 * and the final summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migration.h"
#include "problem.h"
#include "runtime.h"
#include "solver_internal.h"
#include "timings.h"

int solver_history_alloc(struct solver *s)
{
  struct history *h = &s->hist;
  const int64_t hi = s->cfg->output.history_interval, max = s->cfg->run.max_iterations;
  if (hi <= 0) return IPSO_OK;
  /* Fewer than HISTORY_FLUSH_ROWS rows wait before a call of solver_record_segment,
   * which adds at most length / hi + 2; a run has at most max / hi + 2. */
  const int64_t more = HISTORY_FLUSH_ROWS + s->plan.length / hi;
  const size_t cap = (size_t)(more < max / hi ? more : max / hi) + 2;
  /* One block: iteration, evaluations, global, wall, island. */
  if (!(h->iteration = malloc(cap * (4 + (size_t)s->local) * sizeof(double))))
    return IPSO_FAIL("memory", "cannot allocate the history buffer");
  h->evaluations = h->iteration + cap;
  h->global = (double *)(h->evaluations + cap);
  h->wall = h->global + cap;
  h->island = h->wall + cap;
  return IPSO_OK;
}

/* The last migration's records get the costs their islands sent (migrate_sent). */
static int take_sent(struct solver *s)
{
  if (s->sent_from < 0) return IPSO_OK;
  IPSO_TRY(s->b.ops->migrate_sent(&s->b, s->sent));
  for (int r = s->sent_from; r < s->mn; r++)
    s->mlog[r].best_fitness = fitness_of(s, s->sent[s->mlog[r].from - s->first]);
  s->sent_from = -1;
  return IPSO_OK;
}

int solver_flush_records(struct solver *s)
{
  IPSO_TRY(take_sent(s));
  struct history *h = &s->hist;
  if (s->out) {
    watchdog_beat("writing history", s->t);
    IPSO_TRY(h5out_append_history(s->out, (int)h->n, h->iteration, h->island, h->global,
                                  h->evaluations, h->wall));
    IPSO_TRY(h5out_append_migrations(s->out, s->mn, s->mlog));
  }
  h->written += h->n;
  h->n = 0;
  s->mn = 0;
  return IPSO_OK;
}

/* Adds history rows for iterations FIRST..LAST from s->step_best; *TARGET_HIT: the
 * first iteration (over all islands) that reached the target, or -1. Collective:
 * one reduction, which also takes the ranks' minimum of RIDE[0..nride) in place. */
int solver_record_segment(struct solver *s, int64_t first, int64_t last, double seg_start,
                          double seg_stop, int final, int64_t *target_hit, double *ride, int nride)
{
  const struct ipso_config *cfg = s->cfg;
  int64_t hi = cfg->output.history_interval, n = last - first + 1;
  int rows = 0;
  /* The rank's best after each iteration (NaN never wins: costs are not NaN). */
  for (int64_t k = 0; k < n; k++) {
    double m = s->step_best[k];
    for (int i = 1; i < s->local; i++)
      if (cost_better(s->step_best[i * n + k], m)) m = s->step_best[i * n + k];
    s->seg_min[k] = m;
  }
  /* The rows: multiples of history_interval, and the run's last iteration;
   * their global best once the ranks' minimum is known. */
  const int64_t row0 = s->hist.n;
  for (int64_t t = first; t <= last; t++) {
    if (!(hi > 0 && (t % hi == 0 || (final && t == last)))) continue;
    int64_t j = s->hist.n++;
    s->hist.iteration[j] = t;
    for (int i = 0; i < s->local; i++)
      s->hist.island[j * s->local + i] = fitness_of(s, s->step_best[i * n + (t - first)]);
    s->hist.evaluations[j] = evaluations_at(s, t);
    s->hist.wall[j] = s->elapsed0 + (seg_start - s->t0) +
                      (seg_stop - seg_start) * (double)(t - first + 1) / (double)n;
    s->row_cost[rows++] = s->seg_min[t - first];
  }
  /* The first iteration reaching the target rides along as a double. */
  double hit = INFINITY, target_cost = s->sign * cfg->run.target_fitness;
  for (int64_t k = 0; cfg->run.has_target && isinf(hit) && k < n; k++)
    if (s->seg_min[k] <= target_cost) hit = (double)(first + k);
  s->row_cost[rows] = hit;
  for (int i = 0; i < nride; i++) s->row_cost[rows + 1 + i] = ride[i];
  IPSO_CHECK_MPI(
      MPI_Allreduce(MPI_IN_PLACE, s->row_cost, rows + 1 + nride, MPI_DOUBLE, MPI_MIN, s->comm));
  for (int i = 0; i < nride; i++) ride[i] = s->row_cost[rows + 1 + i];
  *target_hit = isinf(s->row_cost[rows]) ? -1 : (int64_t)s->row_cost[rows];
  for (int r = 0; r < rows; r++) s->hist.global[row0 + r] = fitness_of(s, s->row_cost[r]);
  if (s->hist.n >= HISTORY_FLUSH_ROWS) return solver_flush_records(s);
  return IPSO_OK;
}

int solver_migration_setup(struct solver *s)
{
  const struct ipso_config *cfg = s->cfg;
  s->links = migration_links(cfg, s->islands);
  s->sent_from = -1;
  if (!s->links) return IPSO_OK;
  /* The migration streams address islands below 2^21 (iterations: the config's limit). */
  if (s->islands > MIGRATION_STREAM_ISLANDS &&
      (cfg->migration.select != IPSO_SELECT_BEST ||
       cfg->migration.policy != IPSO_POLICY_REPLACE_WORST || cfg->migration.probability < 1))
    return IPSO_FAIL("migration",
                     "%d islands: the random migration policies and "
                     "migration.probability need at most %lld",
                     s->islands, (long long)MIGRATION_STREAM_ISLANDS);
  int m = cfg->migration.migrants;
  size_t n = (size_t)migration_message_len(m, s->D);
  const size_t K = (size_t)s->local, draws = K * 2 * (size_t)m;
  /* One block: msg, sent, drawn, carried. */
  s->msg = malloc((4 * n + K) * sizeof(double) + draws * sizeof(int64_t) + 2 * K);
  if (!s->msg) return IPSO_FAIL("migration", "cannot allocate migration buffers");
  s->sent = s->msg + 4 * n;
  s->drawn = (int64_t *)(s->sent + K);
  s->carried = (unsigned char *)(s->drawn + draws);
  if (s->size == 1) return IPSO_OK;
  IPSO_TRY(ring_exchange_create(s->comm, n, s->links == 2, &s->rx));
  /* A first exchange (of nothing) sets the connections up at start-up. */
  memset(s->msg, 0, 4 * n * sizeof(double));
  IPSO_TRY(ring_exchange(s->rx, s->msg + n, s->msg, s->msg + 2 * n, s->msg + 3 * n));
  timings_mark("migration ring connected");
  return IPSO_OK;
}

/* The migration log's room for every island's records of one migration. */
static int reserve_log(struct solver *s)
{
  int K = s->local;
  if (s->mn + K * s->links > s->mcap) {
    int cap = s->mcap ? 2 * s->mcap : 64;
    while (cap < s->mn + K * s->links) cap *= 2;
    struct migration_record *r = realloc(s->mlog, (size_t)cap * sizeof *r);
    if (!r) return IPSO_FAIL("memory", "cannot grow the migration log");
    s->mlog = r;
    s->mcap = cap;
  }
  return IPSO_OK;
}

/* The solver draws and logs; the backend selects, merges and replaces where the
 * swarms are. Only the edge islands' messages come to the host, for the
 * neighbouring ranks, whether their link carries or not (the receiver knows). */
int solver_migrate(struct solver *s)
{
  const struct ipso_config *cfg = s->cfg;
  const int m = cfg->migration.migrants, K = s->local, L = s->links;
  const int64_t t = s->t;
  const size_t n = (size_t)migration_message_len(m, s->D);
  const uint64_t seed = cfg->run.seed;
  watchdog_beat("migrating", t);
  IPSO_TRY(take_sent(s));
  IPSO_TRY(reserve_log(s));
  if (cfg->migration.select != IPSO_SELECT_BEST)
    for (int k = 0; k < K; k++)
      IPSO_TRY(migration_draw(seed, s->first + k, t, MIGRATION_DRAW_SELECT, s->N, m,
                              s->drawn + (size_t)k * (size_t)m));
  /* The first and last islands' messages out, for the previous and next
   * ranks; with the worst replaced, the backend may choose them now. */
  double *edge[2] = {s->msg, s->msg + n};
  int victims = cfg->migration.policy == IPSO_POLICY_REPLACE_WORST ? L * m : 0;
  IPSO_TRY(s->b.ops->migrate_out(&s->b, m,
                                 cfg->migration.select == IPSO_SELECT_BEST ? NULL : s->drawn,
                                 victims, s->rx ? edge : NULL));
  if (s->rx) IPSO_TRY(ring_exchange(s->rx, s->msg + n, s->msg, s->msg + 2 * n, s->msg + 3 * n));
  const double *remote[2] = {s->msg + 2 * n, s->msg + 3 * n};
  const double probability = cfg->migration.probability;
  for (int k = 0; k < K; k++) {
    int island = s->first + k, src[2], to[2], open = 0;
    int nsrc = migration_sources(island, s->islands, L, src);
    for (int l = 0; l < 2; l++) {
      s->carried[2 * k + l] = l < nsrc && migration_link_carries(seed, src[l], t, l, probability);
      open += s->carried[2 * k + l];
    }
    if (open && cfg->migration.policy != IPSO_POLICY_REPLACE_WORST)
      IPSO_TRY(migration_draw(seed, island, t, MIGRATION_DRAW_REPLACE, s->N, open * m,
                              s->drawn + (size_t)k * (size_t)L * (size_t)m));
    int ndest = migration_destinations(island, s->islands, L, to);
    /* The records in the file's order (the lower receiver first): merged, not sorted. */
    int flip = ndest == 2 && to[1] < to[0];
    for (int i = 0; i < ndest; i++) {
      int l = flip ? 1 - i : i;
      if (migration_link_carries(seed, island, t, l, probability)) {
        if (s->sent_from < 0) s->sent_from = s->mn;
        s->mlog[s->mn++] = (struct migration_record){t, island, to[l], NAN};
      }
    }
  }
  return s->b.ops->migrate_in(&s->b, m, L, s->carried,
                              cfg->migration.policy == IPSO_POLICY_REPLACE_WORST ? NULL : s->drawn,
                              s->rx ? remote : NULL);
}

int solver_report_devices(struct solver *s)
{
  char *all = NULL;
  size_t len = sizeof s->b.description;
  if (s->rank == 0 && !(all = malloc(len * (size_t)s->size)))
    return IPSO_FAIL("memory", "out of memory");
  int rc = MPI_Gather(s->b.description, (int)len, MPI_CHAR, all, (int)len, MPI_CHAR, 0, s->comm);
  if (rc != MPI_SUCCESS) {
    free(all);
    return ipso_mpi_fail("MPI_Gather", rc, __FILE__, __LINE__);
  }
  if (s->rank == 0)
    for (int g = 0; g < s->islands; g++) {
      int r = island_rank(g, s->islands, s->size);
      if (s->local == 1)
        log_info("  island %d: %s", g, all + (size_t)r * len);
      else
        log_info("  island %d (rank %d): %s", g, r, all + (size_t)r * len);
    }
  free(all);
  return IPSO_OK;
}

void solver_print_summary(struct solver *s, const struct run_result *r, int reached)
{
  const struct ipso_config *cfg = s->cfg;
  double opt;
  if (s->rank != 0) return;
  log_info("islandpso: finished at iteration %lld (%s)", (long long)r->iteration,
           reached ? "target_fitness reached" : "max_iterations");
  if (reached) log_info("  target reached    iteration %lld", (long long)s->target_iteration);
  log_info("  best fitness      %.17g  (island %d, particle %lld)", r->best_fitness, r->island,
           (long long)r->particle);
  if (objective_optimum(cfg, &opt))
    log_info("  known optimum     %.17g  (error %.3e)", opt, fabs(r->best_fitness - opt));
  else
    log_info("  known optimum     n/a");
  char pos[512];
  int n = 0, D = r->dims, shown = D <= 8 ? D : 6;
  for (int d = 0; d < shown && n < (int)sizeof pos - 40; d++)
    n += snprintf(pos + n, sizeof pos - (size_t)n, "%s%.10g", d ? ", " : "", r->best_position[d]);
  if (shown < D) snprintf(pos + n, sizeof pos - (size_t)n, ", ..., %.10g", r->best_position[D - 1]);
  log_info("  position          [%s]  (%d dimensions)", pos, D);
  log_info("  evaluations       %lld  (%.3g per second)", (long long)r->evaluations,
           r->elapsed_seconds > 0 ? (double)r->evaluations / r->elapsed_seconds : 0.0);
  /* To 0.1 ms for short runs: the in-run time is compared with kernel times. */
  log_info("  time              %.*f s", r->elapsed_seconds < 10 ? 4 : 3, r->elapsed_seconds);
  if (s->out && cfg->output.history_interval > 0)
    log_info("  history           %lld rows", (long long)(s->hist.written + s->hist.n));
  if (s->out && h5out_migration_rows(s->out) > 0)
    log_info("  migration log     %lld records", (long long)h5out_migration_rows(s->out));
  if (cfg->output.checkpoint[0])
    log_info("  checkpoints       %lld written", (long long)s->ckpt_written);
  if (cfg->run.output[0]) log_info("  output            %s", cfg->run.output);
}

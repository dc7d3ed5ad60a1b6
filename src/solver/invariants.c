/* The swarm invariants. */
#include "invariants.h"

#include <stdio.h>
#include <stdlib.h>

#include "island_mpi.h"
#include "problem.h"
#include "user_objective.h"

struct invariants {
  const struct ipso_config *cfg;
  int exact, D, island; /* the island's global id */
  int64_t N;
  double sign;
  objective_fn_d ref_d;
  objective_fn_f ref_f;
  struct user_objective *user;
  double *prm;  /* the objective's parameter vector, or NULL */
  float *prm_f; /* the same in float */
  int64_t nprm;
  double *prev_pbest; /* [N] personal-best costs at the previous check */
};

int invariants_create(const struct ipso_config *cfg, int exact, int island, struct invariants **out)
{
  struct invariants *iv = calloc(1, sizeof *iv);
  *out = iv;
  if (!iv) return IPSO_FAIL("memory", "out of memory");
  iv->cfg = cfg;
  iv->exact = exact;
  iv->island = island;
  iv->D = cfg->objective.dimensions;
  iv->N = cfg->swarm.particles;
  iv->sign = cfg->objective.goal == IPSO_MAXIMIZE ? -1.0 : 1.0;
  iv->prev_pbest = malloc((size_t)iv->N * sizeof(double));
  if (!iv->prev_pbest) return IPSO_FAIL("memory", "out of memory");
  for (int64_t i = 0; i < iv->N; i++) iv->prev_pbest[i] = INFINITY;
  iv->prm = objective_param_vector(cfg, &iv->nprm);
  const int64_t nf = iv->nprm > iv->D ? iv->nprm : iv->D;
  if (!(iv->prm_f = malloc((size_t)nf * sizeof(float))))
    return IPSO_FAIL("memory", "out of memory");
  for (int64_t i = 0; i < nf; i++) iv->prm_f[i] = i < iv->nprm ? (float)iv->prm[i] : 0.0f;
  if (cfg->objective.id != IPSO_OBJ_USER) {
    iv->ref_d = objective_get(cfg->objective.id)->eval_d;
    iv->ref_f = objective_get(cfg->objective.id)->eval_f;
    return IPSO_OK;
  }
  IPSO_TRY(user_objective_open_cpu(cfg, &iv->user));
  iv->ref_d = user_objective_fn_d(iv->user);
  iv->ref_f = user_objective_fn_f(iv->user);
  return IPSO_OK;
}

void invariants_free(struct invariants *iv)
{
  if (!iv) return;
  user_objective_close(iv->user);
  free(iv->prm);
  free(iv->prm_f);
  free(iv->prev_pbest);
  free(iv);
}

/* Sign-adjusted cost of X by the host's own objective, as the backend
 * computes it (in the run's precision). */
static double reference_cost(const struct invariants *iv, const double *x)
{
  int D = iv->D;
  double f;
  if (iv->cfg->run.precision == IPSO_FLOAT) {
    float xf[D];
    for (int d = 0; d < D; d++) xf[d] = (float)x[d];
    f = (double)iv->ref_f(xf, D, iv->prm_f);
  } else {
    f = iv->ref_d(x, D, iv->prm);
  }
  double c = iv->sign * f;
  return isnan(c) ? INFINITY : c;
}

/* Whether A and B agree: exactly for an exact backend (same code), to a
 * relative tolerance otherwise (other math library, other summation order). */
static int costs_agree(const struct invariants *iv, double a, double b)
{
  if (a == b) return 1;
  if (iv->exact) return 0;
  double tol = iv->cfg->run.precision == IPSO_FLOAT ? 1e-5 : 1e-11;
  return fabs(a - b) <= tol * (1 + fabs(b)) * sqrt((double)iv->D);
}

/* A violation by particle I after iteration T (FMT goes on after the
 * particle's number): IPSO_ERR_RUNTIME. */
#define PARTICLE_FAIL(fmt, ...)                                                                    \
  IPSO_FAIL("invariant", "iteration %lld: particle %lld" fmt, (long long)t, (long long)i,          \
            __VA_ARGS__)

/* Positions and velocities of particle I within the bounds. */
static int check_bounds(const struct invariants *iv, int64_t t, int64_t i, const double *x,
                        const double *v)
{
  const struct ipso_config *cfg = iv->cfg;
  int fl = cfg->run.precision == IPSO_FLOAT;
  for (int d = 0; d < iv->D; d++) {
    double lo = fl ? (float)cfg->objective.lower[d] : cfg->objective.lower[d];
    double hi = fl ? (float)cfg->objective.upper[d] : cfg->objective.upper[d];
    double span = cfg->objective.upper[d] - cfg->objective.lower[d];
    double vmax = config_clamp(cfg, iv->island) * span;
    if (fl) vmax = (float)vmax;
    if (!(x[d] >= lo && x[d] <= hi))
      return PARTICLE_FAIL(" dimension %d: position %.17g outside [%.17g, %.17g]", d, x[d], lo, hi);
    if (!(fabs(v[d]) <= vmax))
      return PARTICLE_FAIL(" dimension %d: velocity %.17g beyond the clamp %.17g", d, v[d], vmax);
  }
  return IPSO_OK;
}

int invariants_check(struct invariants *iv, int64_t t, const struct swarm_state *st,
                     const struct island_best *best)
{
  int D = iv->D;
  int64_t arg = 0;
  for (int64_t i = 0; i < iv->N; i++) {
    const double *x = st->position + (size_t)i * D, *v = st->velocity + (size_t)i * D;
    IPSO_TRY(check_bounds(iv, t, i, x, v));
    double c = reference_cost(iv, x), pc = reference_cost(iv, st->pbest_position + (size_t)i * D);
    if (!costs_agree(iv, st->cost[i], c))
      return PARTICLE_FAIL(": cost %.17g but the objective at its position is %.17g", st->cost[i],
                           c);
    if (!costs_agree(iv, st->pbest_cost[i], pc))
      return PARTICLE_FAIL(": personal best %.17g but the objective at its position is %.17g",
                           st->pbest_cost[i], pc);
    if (st->pbest_cost[i] > st->cost[i])
      return PARTICLE_FAIL(": personal best %.17g worse than its current cost %.17g",
                           st->pbest_cost[i], st->cost[i]);
    if (iv->prev_pbest[i] < st->pbest_cost[i])
      return PARTICLE_FAIL(": personal best got worse (%.17g -> %.17g)", iv->prev_pbest[i],
                           st->pbest_cost[i]);
    iv->prev_pbest[i] = st->pbest_cost[i];
    if (st->pbest_cost[i] < st->pbest_cost[arg]) arg = i;
  }
  if (best->cost != st->pbest_cost[arg] || best->particle != arg)
    return IPSO_FAIL("invariant",
                     "iteration %lld: global best is particle %lld with %.17g, but "
                     "the best personal best is particle %lld with %.17g",
                     (long long)t, (long long)best->particle, best->cost, (long long)arg,
                     st->pbest_cost[arg]);
  for (int d = 0; d < D; d++)
    if (best->position[d] != st->pbest_position[(size_t)arg * D + d])
      return IPSO_FAIL("invariant",
                       "iteration %lld: global best position differs from particle "
                       "%lld's personal best in dimension %d",
                       (long long)t, (long long)arg, d);
  return IPSO_OK;
}

/* Whether particle I's cost and personal-best cost in S are the objective's; else WHY. */
static int restored_agrees(const struct invariants *iv, const struct swarm_state *s, int64_t i,
                           int island, int64_t p, char *why, size_t len)
{
  const int D = iv->D;
  const double c = reference_cost(iv, s->position + (size_t)i * D),
               pc = reference_cost(iv, s->pbest_position + (size_t)i * D);
  const int cost_ok = costs_agree(iv, s->cost[i], c);
  if (cost_ok && costs_agree(iv, s->pbest_cost[i], pc)) return 1;
  snprintf(why, len,
           "island %d particle %lld: %s %.17g, but the objective at its %s is %.17g: the "
           "checkpoint was altered, or written with another objective",
           island, (long long)p, cost_ok ? "personal best cost" : "cost",
           cost_ok ? s->pbest_cost[i] : s->cost[i], cost_ok ? "personal best" : "position",
           cost_ok ? pc : c);
  return 0;
}

int invariants_check_restored(MPI_Comm comm, const struct ipso_config *cfg, int exact,
                              const struct swarm_state *s, int first, const char *path)
{
  const int64_t n = cfg->swarm.particles;
  struct invariants *iv = NULL;
  char why[512] = "";
  int rank, size, st = invariants_create(cfg, exact, first, &iv), bad = 0;
  IPSO_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  IPSO_CHECK_MPI(MPI_Comm_size(comm, &size));
  for (int64_t k = 0; st == IPSO_OK && !bad && k < s->particles / n; k++) {
    const int64_t at = k * n;
    int64_t sample[10], best = 0, low = 0;
    for (int64_t p = 1; p < n; p++) {
      if (s->pbest_cost[at + p] < s->pbest_cost[at + best]) best = p;
      if (s->cost[at + p] < s->cost[at + low]) low = p;
    }
    sample[0] = best;
    sample[1] = low;
    for (int j = 0; j < 8; j++) sample[2 + j] = j * (n - 1) / 7;
    for (int j = 0; j < 10 && !bad; j++)
      bad = !restored_agrees(iv, s, at + sample[j], first + (int)k, sample[j], why, sizeof why);
  }
  invariants_free(iv);
  /* The lowest rank that found one says so. */
  int who = bad ? rank : size;
  IPSO_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &who, 1, MPI_INT, MPI_MIN, comm));
  if (who < size && rank == who)
    log_user_error("islandpso: error: checkpoint '%s': %s (continue anyway with "
                   "--allow-changed-objective where the objective was changed on purpose)",
                   path, why);
  if (st == IPSO_OK && who < size) st = IPSO_ERR_USAGE;
  return island_agree(comm, st);
}

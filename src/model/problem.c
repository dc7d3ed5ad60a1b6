/* The configured problem: its objective's parameter vector and its known
 * optimum. */
#include "problem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Where x sin(sqrt|x|) peaks on [-500, 500]: the minimiser of schwefel. */
#define SCHWEFEL_XSTAR 420.968746227503

static double *problem_data;
static int64_t problem_data_n;

void problem_data_set(double *v, int64_t n)
{
  free(problem_data);
  problem_data = v;
  problem_data_n = n;
}

double *objective_param_vector(const struct ipso_config *cfg, int64_t *n)
{
  const struct objective_info *info = objective_get(cfg->objective.id);
  *n = 0;
  if (cfg->objective.id == IPSO_OBJ_CEC2017) {
    double *v = problem_data ? malloc(sizeof(double) * (size_t)problem_data_n) : NULL;
    if (v) *n = problem_data_n;
    return v ? memcpy(v, problem_data, sizeof(double) * (size_t)problem_data_n) : NULL;
  }
  if (!info || !info->param) return NULL;
  int D = cfg->objective.dimensions;
  double *v = malloc(sizeof(double) * (size_t)D);
  if (!v) return NULL;
  *n = D;
  for (int d = 0; d < D; d++) v[d] = info->param_default;
  for (int i = 0; i < cfg->objective.nparams; i++) {
    const struct ipso_param *p = &cfg->objective.params[i];
    if (strcmp(p->name, info->param) != 0) continue;
    for (int d = 0; d < D; d++) v[d] = p->values[p->len == 1 ? 0 : d];
  }
  return v;
}

/* The best of one dimension of cubic, x^3 - 0.8 x^2 - 1000 x + 8000, on
 * [lo, hi]: at the ends or the stationary points. */
static double cubic_best(double lo, double hi, int maximize, double *where)
{
  double disc = sqrt(0.8 * 0.8 * 4 + 12 * 1000);
  double cand[4] = {lo, hi, (1.6 + disc) / 6, (1.6 - disc) / 6};
  double best = maximize ? -INFINITY : INFINITY;
  for (int i = 0; i < 4; i++) {
    if (cand[i] < lo || cand[i] > hi) continue;
    double x = cand[i], f = ((x - 0.8) * x - 1000) * x + 8000;
    if (maximize ? f > best : f < best) {
      best = f;
      *where = cand[i];
    }
  }
  return best;
}

int objective_optimum(const struct ipso_config *cfg, double *value)
{
  const struct ipso_objective_config *o = &cfg->objective;
  int D = o->dimensions;
  const struct objective_info *info = objective_get(o->id);
  if (!info || !info->eval_d) return 0;
  if (o->id == IPSO_OBJ_CEC2017) { /* 100 F, at a point in [-80, 80]^D */
    int known = o->goal == IPSO_MINIMIZE;
    for (int d = 0; d < D; d++)
      if (o->lower[d] > -80 || o->upper[d] < 80) known = 0;
    *value = 100.0 * o->number;
    return known;
  }
  int64_t np;
  double *x = malloc(sizeof(double) * (size_t)D);
  double *prm = objective_param_vector(cfg, &np);
  if (!x) return 0;
  int known = 1;
  if (o->id == IPSO_OBJ_CUBIC) {
    double sum = 0;
    for (int d = 0; d < D; d++)
      sum += cubic_best(o->lower[d], o->upper[d], o->goal == IPSO_MAXIMIZE, &x[d]);
    *value = sum;
  } else if (o->goal == IPSO_MINIMIZE) {
    for (int d = 0; d < D; d++) {
      x[d] = o->id == IPSO_OBJ_ROSENBROCK        ? 1
             : o->id == IPSO_OBJ_SCHWEFEL        ? SCHWEFEL_XSTAR
             : o->id == IPSO_OBJ_TARGET_DISTANCE ? prm[d]
                                                 : 0;
      if (x[d] < o->lower[d] || x[d] > o->upper[d]) known = 0;
    }
    /* Exactly 0 at the minimiser, except schwefel whose constant is rounded. */
    *value = o->id == IPSO_OBJ_SCHWEFEL ? info->eval_d(x, D, prm) : 0.0;
  } else {
    known = 0;
  }
  free(x);
  free(prm);
  return known;
}

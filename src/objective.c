/* The objective table and the CPU instances of the built-in objectives. */
#include "objective.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define IPSO_REAL double
#define IPSO_FN(name) obj_d_##name
#include "objectives.h"
#undef IPSO_REAL
#undef IPSO_FN

#define IPSO_REAL float
#define IPSO_FN(name) obj_f_##name
#include "objectives.h"
#undef IPSO_REAL
#undef IPSO_FN

static const struct objective_info table[IPSO_OBJ_COUNT] = {
    [IPSO_OBJ_SPHERE] = {"sphere", -100, 100, IPSO_MINIMIZE, NULL, 0, IPSO_ACC_NONE, 0,
                         obj_d_sphere, obj_f_sphere},
    [IPSO_OBJ_RASTRIGIN] = {"rastrigin", -5.12, 5.12, IPSO_MINIMIZE, NULL, 0, IPSO_ACC_NONE, 0,
                            obj_d_rastrigin, obj_f_rastrigin},
    [IPSO_OBJ_ROSENBROCK] = {"rosenbrock", -30, 30, IPSO_MINIMIZE, NULL, 0, IPSO_ACC_NONE, 1,
                             obj_d_rosenbrock, obj_f_rosenbrock},
    [IPSO_OBJ_GRIEWANK] = {"griewank", -600, 600, IPSO_MINIMIZE, NULL, 0, IPSO_ACC_PRODUCT, 0,
                           obj_d_griewank, obj_f_griewank},
    [IPSO_OBJ_ACKLEY] = {"ackley", -32.768, 32.768, IPSO_MINIMIZE, NULL, 0, IPSO_ACC_SUM, 0,
                         obj_d_ackley, obj_f_ackley},
    [IPSO_OBJ_SCHWEFEL] = {"schwefel", -500, 500, IPSO_MINIMIZE, NULL, 0, IPSO_ACC_NONE, 0,
                           obj_d_schwefel, obj_f_schwefel},
    [IPSO_OBJ_CUBIC] = {"cubic", -100, 100, IPSO_MAXIMIZE, NULL, 0, IPSO_ACC_NONE, 0, obj_d_cubic,
                        obj_f_cubic},
    [IPSO_OBJ_TARGET_DISTANCE] = {"target_distance", -100, 100, IPSO_MINIMIZE, "target", 1.0,
                                  IPSO_ACC_SUM, 0, obj_d_target_distance, obj_f_target_distance},
    [IPSO_OBJ_USER] = {"user", 0, 0, IPSO_MINIMIZE, NULL, 0, IPSO_ACC_NONE, 0, NULL, NULL},
};

/* Where x sin(sqrt|x|) peaks on [-500, 500]: the minimiser of schwefel. */
#define SCHWEFEL_XSTAR 420.968746227503

const struct objective_info *objective_find(const char *name)
{
  for (int i = 0; i < IPSO_OBJ_COUNT; i++)
    if (strcmp(table[i].name, name) == 0) return &table[i];
  return NULL;
}

const struct objective_info *objective_get(int id)
{
  return id >= 0 && id < IPSO_OBJ_COUNT ? &table[id] : NULL;
}

int objective_id(const struct objective_info *info)
{
  return (int)(info - table);
}

double *objective_param_vector(const struct ipso_config *cfg)
{
  const struct objective_info *info = objective_get(cfg->objective.id);
  if (!info || !info->param) return NULL;
  int D = cfg->objective.dimensions;
  double *v = malloc(sizeof(double) * (size_t)D);
  if (!v) return NULL;
  for (int d = 0; d < D; d++) v[d] = info->param_default;
  for (int i = 0; i < cfg->objective.nparams; i++) {
    const struct ipso_param *p = &cfg->objective.params[i];
    if (strcmp(p->name, info->param) != 0) continue;
    for (int d = 0; d < D; d++) v[d] = p->values[p->len == 1 ? 0 : d];
  }
  return v;
}

/* One dimension of cubic: x^3 - 0.8 x^2 - 1000 x + 8000. */
static double cubic1(double x)
{
  return ((x - 0.8) * x - 1000) * x + 8000;
}

/* The best of cubic on [lo, hi]: the ends and the stationary points. */
static double cubic_best(double lo, double hi, int maximize, double *where)
{
  double disc = sqrt(0.8 * 0.8 * 4 + 12 * 1000);
  double cand[4] = {lo, hi, (1.6 + disc) / 6, (1.6 - disc) / 6};
  double best = maximize ? -INFINITY : INFINITY;
  for (int i = 0; i < 4; i++) {
    if (cand[i] < lo || cand[i] > hi) continue;
    double f = cubic1(cand[i]);
    if (maximize ? f > best : f < best) {
      best = f;
      *where = cand[i];
    }
  }
  return best;
}

int objective_optimum(const struct ipso_config *cfg, double *value, double *position)
{
  const struct ipso_objective_config *o = &cfg->objective;
  int D = o->dimensions;
  const struct objective_info *info = objective_get(o->id);
  if (!info || !info->eval_d) return 0;
  double *x = malloc(sizeof(double) * (size_t)D);
  double *prm = objective_param_vector(cfg);
  if (!x) return 0;
  int known = 1;
  if (o->id == IPSO_OBJ_CUBIC) {
    double sum = 0;
    for (int d = 0; d < D; d++)
      sum += cubic_best(o->lower[d], o->upper[d], o->goal == IPSO_MAXIMIZE, &x[d]);
    *value = sum;
  } else if (o->goal == IPSO_MINIMIZE) {
    for (int d = 0; d < D; d++) {
      switch (o->id) {
      case IPSO_OBJ_ROSENBROCK:
        x[d] = 1;
        break;
      case IPSO_OBJ_SCHWEFEL:
        x[d] = SCHWEFEL_XSTAR;
        break;
      case IPSO_OBJ_TARGET_DISTANCE:
        x[d] = prm[d];
        break;
      default:
        x[d] = 0;
        break;
      }
      if (x[d] < o->lower[d] || x[d] > o->upper[d]) known = 0;
    }
    /* Exactly 0 at the minimiser, except schwefel whose constant is rounded. */
    *value = o->id == IPSO_OBJ_SCHWEFEL ? info->eval_d(x, D, prm) : 0.0;
  } else {
    known = 0;
  }
  if (known && position) memcpy(position, x, sizeof(double) * (size_t)D);
  free(x);
  free(prm);
  return known;
}

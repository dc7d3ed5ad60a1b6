/* The objective table: names, default bounds and goal, and the CPU
 * evaluation of every built-in (objectives.h). */
#ifndef IPSO_OBJECTIVE_H
#define IPSO_OBJECTIVE_H

enum ipso_goal { IPSO_MINIMIZE, IPSO_MAXIMIZE };

enum ipso_objective_id {
  IPSO_OBJ_SPHERE,
  IPSO_OBJ_RASTRIGIN,
  IPSO_OBJ_ROSENBROCK,
  IPSO_OBJ_GRIEWANK,
  IPSO_OBJ_ACKLEY,
  IPSO_OBJ_SCHWEFEL,
  IPSO_OBJ_CUBIC,
  IPSO_OBJ_TARGET_DISTANCE,
  IPSO_OBJ_CEC2017,
  IPSO_OBJ_USER,
  IPSO_OBJ_COUNT
};

typedef double (*objective_fn_d)(const double *x, int dims, const double *prm);
typedef float (*objective_fn_f)(const float *x, int dims, const float *prm);

struct objective_info {
  const char *name;
  double lower, upper;  /* default bounds, every dimension */
  enum ipso_goal goal;  /* default goal */
  const char *param;    /* the one parameter it takes (NULL: none) */
  double param_default; /* its default value, every dimension */
  int acc1;             /* second accumulator: IPSO_ACC_NONE, _SUM or _PRODUCT */
  int needs_next;       /* its term uses the next coordinate */
  objective_fn_d eval_d;
  objective_fn_f eval_f;
};

#ifdef __cplusplus
extern "C" {
#endif

/* The built-in with this name, or NULL; "user" gives the user entry. */
const struct objective_info *objective_find(const char *name);
const struct objective_info *objective_get(int id);
int objective_id(const struct objective_info *info);

#ifdef __cplusplus
}
#endif

#endif

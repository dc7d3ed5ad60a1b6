/* The objective table and the CPU instances of the built-in objectives. */
#include "objective.h"

#include <string.h>

#define IPSO_REAL double
#define IPSO_FN(name) obj_d_##name
#include "objectives.h"
#include "cec2017.h"
#undef IPSO_REAL
#undef IPSO_FN

#define IPSO_REAL float
#define IPSO_FN(name) obj_f_##name
#include "objectives.h"
#include "cec2017.h"
#undef IPSO_REAL
#undef IPSO_FN

/* The CEC 2017 functions: PRM is the function's packed data. */
static double cec2017_d(const double *x, int dims, const double *prm)
{
  double scratch[CEC2017_SCRATCH(CEC2017_DMAX)];
  return obj_d_cec2017_packed(x, dims, prm, scratch);
}

static float cec2017_f(const float *x, int dims, const float *prm)
{
  float scratch[CEC2017_SCRATCH(CEC2017_DMAX)];
  return obj_f_cec2017_packed(x, dims, prm, scratch);
}

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
    [IPSO_OBJ_CEC2017] = {"cec2017", -100, 100, IPSO_MINIMIZE, NULL, 0, IPSO_ACC_NONE, 0, cec2017_d,
                          cec2017_f},
    [IPSO_OBJ_USER] = {"user", 0, 0, IPSO_MINIMIZE, NULL, 0, IPSO_ACC_NONE, 0, NULL, NULL},
};

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

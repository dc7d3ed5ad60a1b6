/* The configured problem: its objective's parameter vector and its known
 * optimum (the objective table is src/problem/objective.h). */
#ifndef IPSO_PROBLEM_H
#define IPSO_PROBLEM_H

#include "config.h"
#include "objective.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The known optimum of the configured problem (bounds and goal respected):
 * returns 1 and sets *value (and POSITION, if not NULL, [dims]) if it is
 * known, 0 otherwise. */
int objective_optimum(const struct ipso_config *cfg, double *value, double *position);

/* The parameter vector of a built-in, expanded to one value per dimension
 * ([dims] doubles, malloc'd), or NULL if it takes none. */
double *objective_param_vector(const struct ipso_config *cfg);

#ifdef __cplusplus
}
#endif

#endif

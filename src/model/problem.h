/* The configured problem: its objective's parameter vector and its known
 * optimum (the objective table is src/problem/objective.h). */
#ifndef IPSO_PROBLEM_H
#define IPSO_PROBLEM_H

#include "config.h"

/* The known optimum of the configured problem (bounds and goal respected):
 * returns 1 and sets *value if it is known, 0 otherwise. */
int objective_optimum(const struct ipso_config *cfg, double *value);

/* Takes over the problem's data that the config does not hold (CEC 2017's
 * shifts, rotations and shuffles: io/hdf5/cec2017_data.h) as the
 * objective's parameter vector; set before anything is made of the config. */
void problem_data_set(double *v, int64_t n);

/* The parameter vector of a built-in ([*N] doubles, malloc'd: one value
 * per dimension, or the problem's data), or NULL (*N = 0) if it takes none
 * or memory runs out. */
double *objective_param_vector(const struct ipso_config *cfg, int64_t *n);

#endif

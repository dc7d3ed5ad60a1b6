/* Shared by the C tests that compare swarms: bit-for-bit and relative
 * comparisons of arrays of doubles, and of whole swarms. */
#ifndef IPSO_STATE_COMPARE_H
#define IPSO_STATE_COMPARE_H

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "swarm.h"

/* Whether A and B (N doubles) have the same bits; the first index that
 * differs into *WHERE otherwise. */
static inline int same_bits(const double *a, const double *b, size_t n, size_t *where)
{
  for (size_t k = 0; k < n; k++)
    if (memcmp(&a[k], &b[k], sizeof(double)) != 0) {
      *where = k;
      return 0;
    }
  return 1;
}

/* Largest difference of A and B relative to SCALE + |b|. */
static inline double max_rel(const double *a, const double *b, size_t n, double scale)
{
  double m = 0;
  for (size_t k = 0; k < n; k++) {
    double d = fabs(a[k] - b[k]) / (scale + fabs(b[k]));
    if (!(d <= m)) m = d;
  }
  return m;
}

/* Whether the swarms A and B (A's particles and dimensions) have the same
 * bits. */
static inline int same_swarm(const struct swarm_state *a, const struct swarm_state *b)
{
  size_t n = (size_t)a->particles * (size_t)a->dims * sizeof(double);
  size_t m = (size_t)a->particles * sizeof(double);
  return !memcmp(a->position, b->position, n) && !memcmp(a->velocity, b->velocity, n) &&
         !memcmp(a->pbest_position, b->pbest_position, n) && !memcmp(a->cost, b->cost, m) &&
         !memcmp(a->pbest_cost, b->pbest_cost, m);
}

#endif

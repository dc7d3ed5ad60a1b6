/* The arrays of a swarm's state as the snapshots (h5out.c) and the
 * checkpoints (checkpoint.c) hold them: float64 in the file, double in
 * memory, rows island-major (island i owns rows i*N .. (i+1)*N - 1). */
#ifndef IPSO_STATE_ARRAYS_H
#define IPSO_STATE_ARRAYS_H

#include "swarm.h"

struct state_array {
  const char *name;          /* checkpoint dataset: the array as struct swarm_state holds it */
  const char *snapshot_name; /* snapshot dataset */
  int fitness;               /* snapshots hold fitness (sign * cost) rather than cost */
  int per_coordinate;        /* [islands*N, D] rather than [islands*N] */
  size_t member;             /* offset of the array's pointer in struct swarm_state */
  const char *units;
  const char *description;          /* of the checkpoint dataset */
  const char *snapshot_description; /* of the snapshot dataset */
  int frame;                        /* the eigen frames: D rows an island rather than N */
};

/* The six arrays, in the order of the checkpoints' checksums: the five of
 * every swarm (the snapshots'), then the eigen frames, which a state holds
 * only where swarm.frame is not "axes". */
#define STATE_ARRAYS 6
#define STATE_SWARM_ARRAYS 5

#ifdef __cplusplus
extern "C" {
#endif

extern const struct state_array state_arrays[STATE_ARRAYS];

#ifdef __cplusplus
}
#endif

/* The array A of S. */
static inline double *state_array_data(const struct state_array *a, const struct swarm_state *s)
{
  return *(double *const *)((const char *)s + a->member);
}

/* The dataset's rank (1 or 2) and the elements of one row for DIMS dimensions. */
static inline int state_array_rank(const struct state_array *a)
{
  return a->per_coordinate ? 2 : 1;
}

static inline int64_t state_array_width(const struct state_array *a, int dims)
{
  return a->per_coordinate ? dims : 1;
}

/* The elements of array A of one island of N particles in DIMS dimensions. */
static inline int64_t state_array_island(const struct state_array *a, int64_t n, int dims)
{
  return (a->frame ? dims : n) * state_array_width(a, dims);
}

/* The arrays a state holds: the frames too where it has them. */
static inline int state_arrays_of(const struct swarm_state *s)
{
  return s->frame ? STATE_ARRAYS : STATE_SWARM_ARRAYS;
}

#endif

/* The arrays of a swarm's state as the HDF5 files hold them: one table for
 * the snapshots of the run output (h5out.c) and the checkpoints
 * (checkpoint.c). In both, rows are island-major: island i owns rows
 * i*N .. (i+1)*N - 1 of every array. */
#ifndef IPSO_STATE_ARRAYS_H
#define IPSO_STATE_ARRAYS_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "swarm.h"

/* The element type: float64 in the file, double in memory. */
enum state_element { STATE_FLOAT64 };

/* The shape of an array, for N particles per island in D dimensions. */
enum state_shape {
  STATE_PER_PARTICLE,  /* [islands*N] */
  STATE_PER_COORDINATE /* [islands*N, D] */
};

struct state_array {
  const char *name;          /* checkpoint dataset: the array as struct swarm_state holds it */
  const char *snapshot_name; /* snapshot dataset */
  int fitness;               /* snapshots hold fitness (sign * cost) rather than cost */
  enum state_element element;
  enum state_shape shape;
  size_t member; /* offset of the array's pointer in struct swarm_state */
  const char *units;
  const char *description;          /* of the checkpoint dataset */
  const char *snapshot_description; /* of the snapshot dataset */
};

/* The five arrays, in the order of the checkpoints' checksums. */
#define STATE_ARRAYS 5

#ifdef __cplusplus
extern "C" {
#endif

extern const struct state_array state_arrays[STATE_ARRAYS];

/* The array A of S. */
double *state_array_data(const struct state_array *a, const struct swarm_state *s);

/* The dataset's rank (1 or 2) and the elements of one row for DIMS dimensions. */
int state_array_rank(const struct state_array *a);
int64_t state_array_width(const struct state_array *a, int dims);

/* The HDF5 types of A's elements in the file and in memory. */
hid_t state_array_file_type(const struct state_array *a);
hid_t state_array_mem_type(const struct state_array *a);

#ifdef __cplusplus
}
#endif

#endif

/* The CEC 2017 suite's data (shifts, rotations, shuffles) of one function
 * and dimension, read from the HDF5 file that tools/cec2017_pack.py writes
 * (data/cec2017.h5; beside the binary in a build tree, in
 * share/islandpso where installed).
 *
 * The arrays are as src/problem/cec2017.h takes them (struct cec2017_data),
 * in double: shift [nshift * D], rotation [nrot * D * D] row-major (NULL
 * where nrot is 0: F6), shuffle [nshuffle * D] 0-based (NULL but for
 * F11-F20, F29, F30). */
#ifndef IPSO_CEC2017_DATA_H
#define IPSO_CEC2017_DATA_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CEC2017_DATA_FORMAT_VERSION 1

struct cec2017_host_data {
  int fn, D;
  int nshift, nrot, nshuffle;
  double *shift;
  double *rotation;
  double *shuffle;
  char error[512]; /* why cec2017_data_load failed; "" on success */
};

/* Reads function fn (1, 3..30) in D dimensions (10, 30, 50, 100) from the
 * file at path into *out. 0 on success; -1 on failure, with out->error
 * saying what and where (the file, the dataset, what is missing or wrong)
 * and no arrays held. HDF5's own error printing is off while it reads. */
int cec2017_data_load(const char *path, int fn, int D, struct cec2017_host_data *out);

/* Frees the arrays of a loaded *d (safe on a failed or zeroed one). */
void cec2017_data_free(struct cec2017_host_data *d);

/* The packed data (cec2017_data_packed) of the configured function, from
 * the file found beside the running binary or in ../share/islandpso from
 * it; IPSO_ERR_USAGE, naming the paths and what is wrong (from rank 0:
 * RANK is the caller's), when there is none or it is damaged. */
struct ipso_config;
int cec2017_data_for(const struct ipso_config *cfg, int rank, double **v, int64_t *n);

#ifdef __cplusplus
}
#endif

#endif

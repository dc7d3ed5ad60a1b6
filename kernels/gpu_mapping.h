/* How the kernels map particles to threads, chosen from the problem alone
 * (so a strict run gives the same bits on any GPU): G threads per particle,
 * each handling chunks of V consecutive coordinates (16-byte vectors), rows
 * padded to a multiple of V. */
#ifndef IPSO_GPU_MAPPING_H
#define IPSO_GPU_MAPPING_H

#include "config.h"
#include "gpu_abi.h"
#include "swarm.h"

struct gpu_mapping {
  int migrates; /* compile the migration kernels (more than one island in all) */
  int evaluate; /* compile evaluate_kernel (a backend for --evaluate) */
  int group;    /* G: threads per particle, a power of two */
  int vec;      /* V: coordinates per thread and chunk */
  int pitch;    /* row length in elements */
  int block;    /* threads per block */
  /* The speculative cluster kernel (0: not compiled): blocks per cluster,
   * threads with particles per block (one warp more), particles per thread,
   * longest window. */
  int spec_cb, spec_threads, spec_ppt, spec_win;
  /* The step's blocks dealt out over several global islands (IPSO_DEAL). */
  int deal;
};

/* The mapping for D dimensions (FL: float precision, WHOLE_ROW: a user
 * objective that is not declared separable, evaluated on one thread). */
void gpu_mapping_choose(int dims, int fl, int whole_row, struct gpu_mapping *m);

/* Particles per block. */
static inline int gpu_mapping_ppb(const struct gpu_mapping *m)
{
  return m->block / m->group;
}

/* Sets M's speculative shape for an island of PARTICLES in D <= 4 over a
 * cluster of CB blocks (2, 4 or 8), one particle per thread, up to 992 per
 * block; 0 where it does not fit. */
void gpu_mapping_spec(struct gpu_mapping *m, int dims, long long particles, int cb);

struct gpu_plan;

/* The #define block that specialises the kernel source to CFG with plan P
 * (kernels/gpu_plan.h) and per-dimension constants K (malloc'd). */
char *gpu_kernel_defines(const struct ipso_config *cfg, const struct gpu_plan *p,
                         const struct swarm_consts *k);

#endif

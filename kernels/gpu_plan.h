/* The launch plan of the GPU backend (thread mapping, launch mode, PDL),
 * decided once from the problem and the device's facts; plain C, no CUDA. */
#ifndef IPSO_GPU_PLAN_H
#define IPSO_GPU_PLAN_H

#include <stddef.h>

#include "config.h"
#include "swarm.h"

/* How the kernels map particles to threads (gpu_mapping.c), chosen from
 * the problem alone (so a strict run gives the same bits on any GPU): G
 * threads per particle, each handling chunks of V consecutive coordinates
 * (16-byte vectors), rows padded to a multiple of V. */
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

/* What a benchmark or test forces instead of the plan's choice
 * (backend_gpu_create_with); all zero: the plan decides. */
struct gpu_overrides {
  int streaming; /* one launch per iteration always */
  int no_pdl;    /* plain launches, no programmatic dependent launch */
  int spec;      /* -1: never the speculative kernel; 2, 4 or 8: it, clusters of that many
                    blocks, for every island it can run */
  int evaluate;  /* evaluate_kernel too (the evaluate operation; --evaluate) */
};

/* How iterations are launched. */
enum gpu_launch_mode {
  GPU_MODE_STREAMING, /* one launch per iteration (two for queue and reduction) */
  GPU_MODE_RELAXED,   /* relaxed, one island's co-resident grid running ahead */
  GPU_MODE_SPEC       /* strict, one cluster per island (speculative_cluster_kernel) */
};

/* The step kernel that computes the global best. */
enum gpu_variant { GPU_QUEUE_LOCK, GPU_QUEUE, GPU_REDUCTION };

/* The device and the compiled kernels (blocks per SM by the occupancy
 * calculator; 0 where the kernel does not exist or was not asked). */
struct gpu_device_facts {
  int major;           /* compute capability */
  int multiprocessors; /* SMs */
  int per_sm;          /* resident_relaxed_kernel */
  int per_sm_step;     /* the step kernel of one launch per iteration */
  /* The driver places no cluster of the speculative kernel's shape (as in
   * a GPU partition with fewer SMs per GPC than a cluster's blocks). */
  int spec_refused;
};

/* The speculative kernel's cluster by default (the portable cluster size). */
#define GPU_PLAN_MAX_CLUSTER 8

struct gpu_plan {
  struct gpu_mapping map;
  enum gpu_variant variant;
  int dims;
  long long particles; /* of one island */
  int islands;         /* K: the backend's islands, all in every per-iteration launch */
  int relaxed;
  int ring; /* swarm.topology = "ring" or "mixed": lbest_kernel before every step */
  int mean; /* 1: "mean", 2: "mixed" (swarm_mean_on): mean_kernel before every step */
  int neighbours;
  int clpso; /* swarm.topology = "clpso": exemplar_kernel before every step */
  int frame; /* swarm.frame not "axes": frame_kernel where swarm_frame_due, no resident kernel */
  int refresh;
  int blocks; /* grid of the per-iteration kernels */
  enum gpu_launch_mode mode;
  int res_blocks; /* grid of the resident kernels */
  int pdl;        /* one launch per iteration with programmatic dependent launch */
  struct gpu_overrides overrides;
};

/* The plan before the kernels are compiled: mapping, variant and grid for
 * CFG with ISLANDS islands under overrides O. */
void gpu_plan_mapping(const struct ipso_config *cfg, const struct gpu_overrides *o, int islands,
                      struct gpu_plan *p);

/* Whether the program has the relaxed resident kernel (the caller measures its occupancy). */
int gpu_plan_relaxed_possible(const struct gpu_plan *p);

/* The rest: launch mode, resident grid and PDL on device DEV. */
void gpu_plan_launch(struct gpu_plan *p, const struct gpu_device_facts *dev);

/* The launch mode in words, for the device line. */
const char *gpu_plan_mode_name(const struct gpu_plan *p);
/* The same with the islands that run together, e.g. "64 islands together,
 * one launch per iteration (PDL)". */
const char *gpu_plan_describe(const struct gpu_plan *p, char *buf, size_t n);

/* The #define block that specialises the kernel source to CFG with plan P
 * and per-dimension constants K (malloc'd). */
char *gpu_kernel_defines(const struct ipso_config *cfg, const struct gpu_plan *p,
                         const struct swarm_consts *k);

#endif

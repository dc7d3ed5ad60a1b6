/* The launch plan of the GPU backend: the thread mapping, the launch mode
 * and whether one launch per iteration uses programmatic dependent launch,
 * decided once from the problem and the device. The policy is plain C
 * without CUDA: the caller gives it the device's facts. */
#ifndef IPSO_GPU_PLAN_H
#define IPSO_GPU_PLAN_H

#include <stddef.h>

#include "config.h"
#include "gpu_mapping.h"

/* What a benchmark or a test program forces instead of the plan's own
 * choice, for comparisons (backend_gpu_create_with); all zero: the plan
 * decides. */
struct gpu_overrides {
  int streaming; /* one launch per iteration always */
  int no_pdl;    /* plain launches, no programmatic dependent launch */
  int spec;      /* -1: never the speculative cluster kernel; 2, 4 or 8: it, with clusters of
                    that many blocks, for every island it can run (strict, global, one thread per
                    particle) */
  int evaluate;  /* evaluate_kernel too (the evaluate operation; --evaluate) */
};

/* How iterations are launched: one launch per iteration (for all the
 * backend's islands at once), or one launch per segment. */
enum gpu_launch_mode {
  GPU_MODE_STREAMING, /* one launch per iteration (two for queue and reduction) */
  GPU_MODE_RELAXED,   /* relaxed, one island's co-resident grid running ahead */
  GPU_MODE_SPEC       /* strict, each island in one cluster whose blocks run ahead on a
                         guess of the best and check it (speculative_cluster_kernel) */
};

/* The step kernel that computes the global best. */
enum gpu_variant { GPU_QUEUE_LOCK, GPU_QUEUE, GPU_REDUCTION };

/* What the plan needs to know of the device and of the compiled kernels
 * (blocks per multiprocessor by the occupancy calculator; 0 where the
 * kernel does not exist or was not asked). */
struct gpu_device_facts {
  int major;           /* compute capability */
  int multiprocessors; /* SMs */
  int per_sm;          /* resident_relaxed_kernel */
  int per_sm_step;     /* the step kernel of one launch per iteration */
  /* The driver places no cluster of the speculative kernel's shape
   * (cudaOccupancyMaxActiveClusters: 0, as where a partition of the GPU
   * has fewer multiprocessors in a GPC than a cluster's blocks); 0 where
   * it does or was not asked. */
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
  int ring; /* swarm.topology = "ring": lbest_kernel before every step, one launch per
               iteration */
  int neighbours;
  int clpso; /* swarm.topology = "clpso": exemplar_kernel before every step, one launch per
                iteration */
  int refresh;
  int blocks; /* grid of the per-iteration kernels */
  enum gpu_launch_mode mode;
  int res_blocks; /* grid of the resident kernels */
  int pdl;        /* one launch per iteration with programmatic dependent launch */
  struct gpu_overrides overrides;
};

#ifdef __cplusplus
extern "C" {
#endif

/* The first half of the plan, before the kernels are compiled: mapping,
 * variant and grid for CFG with ISLANDS islands under overrides O. */
void gpu_plan_mapping(const struct ipso_config *cfg, const struct gpu_overrides *o, int islands,
                      struct gpu_plan *p);

/* Whether the program has the relaxed resident kernel (then the caller
 * measures its occupancy for gpu_plan_launch). */
int gpu_plan_relaxed_possible(const struct gpu_plan *p);

/* The second half: launch mode, resident grid and PDL on a device with
 * facts DEV. */
void gpu_plan_launch(struct gpu_plan *p, const struct gpu_device_facts *dev);

/* The launch mode in words, for the device line. */
const char *gpu_plan_mode_name(const struct gpu_plan *p);
/* The same with the islands that run together, e.g. "64 islands together,
 * one launch per iteration (PDL)". */
const char *gpu_plan_describe(const struct gpu_plan *p, char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif

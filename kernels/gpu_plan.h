/* The launch plan of the GPU backend: the thread mapping, the launch mode,
 * whether the resident kernels keep the state in registers, and whether
 * one launch per iteration uses programmatic dependent launch, decided once
 * from the problem, the device and one set of overrides. The policy is
 * plain C without CUDA: the caller gives it the device's facts. */
#ifndef IPSO_GPU_PLAN_H
#define IPSO_GPU_PLAN_H

#include <stddef.h>

#include "config.h"
#include "gpu_mapping.h"

/* What a benchmark, a test or the user forces instead of the plan's own
 * choice, for comparisons; all zero: the plan decides. From the
 * environment: gpu_overrides_from_env. */
struct gpu_overrides {
  int no_resident; /* IPSO_GPU_RESIDENT=0: one launch per iteration always */
  int no_keep;     /* IPSO_GPU_KEEP=0: never the state in registers */
  int no_pdl;      /* IPSO_GPU_PDL=0: plain launches, no programmatic dependent launch */
  int pdl;         /* IPSO_GPU_PDL=1: programmatic dependent launch wherever the device has it,
                      also for islands that the plan would launch plainly */
  int no_block;    /* IPSO_GPU_BLOCK=0: never the one-block kernel (cluster or grid instead) */
  int blk_threads; /* IPSO_GPU_BLOCK_THREADS=T (512 or 1024): the one-block kernel in
                      at least T threads (fewer particles per thread) */
  int spec;        /* IPSO_GPU_SPEC=0 (-1 here): never the speculative cluster kernel; =2, 4
                      or 8: it, with clusters of that many blocks, for every island it
                      can run (strict, global, one thread per particle) */
  int spec_win;    /* IPSO_GPU_SPEC_WIN=0 (-1 here): the speculative kernel checks every
                      iteration; =W (1..64): windows of up to W iterations */
  int group;       /* IPSO_GPU_GROUP=G: threads per particle (a power of two up to
                      1024; changes the summation order, hence the last bits) */
};

/* How iterations are launched: one launch per iteration (for all the
 * backend's islands at once), or one launch per segment with every block
 * resident (queue-lock kernel; several islands only strict grid-resident
 * with the state in registers, or one block per island). */
enum gpu_launch_mode {
  GPU_MODE_STREAMING, /* one launch per iteration (two for queue and reduction) */
  GPU_MODE_CLUSTER,   /* strict, the swarm fits one thread-block cluster */
  GPU_MODE_GRID,      /* strict, co-resident grid with a grid barrier */
  GPU_MODE_RELAXED,   /* relaxed, co-resident grid running ahead */
  GPU_MODE_BLOCK,     /* strict, each island in one block, its state in registers */
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
  int per_sm;          /* resident_grid_kernel */
  int per_sm_keep;     /* resident_grid_keep_kernel */
  int per_sm_step;     /* the step kernel of one launch per iteration */
  /* The driver places no cluster of the speculative kernel's shape, or of
   * the cluster-resident kernel's (cudaOccupancyMaxActiveClusters: 0, as
   * where a partition of the GPU has fewer multiprocessors in a GPC than
   * a cluster's blocks); 0 where it does or was not asked. */
  int spec_refused, cluster_refused;
};

/* Largest cluster the cluster kernels use (the portable cluster size; the
 * speculative kernel's by default); the GPU backend asks the driver whether
 * their clusters fit. */
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
  int keep;       /* resident kernels keep the state in registers (one tile per block) */
  int pdl;        /* one launch per iteration with programmatic dependent launch */
  struct gpu_overrides overrides;
};

#ifdef __cplusplus
extern "C" {
#endif

/* The overrides the IPSO_GPU_* environment variables ask for (the one
 * place that reads them). */
struct gpu_overrides gpu_overrides_from_env(void);

/* The overrides in words ("" when none), e.g. "IPSO_GPU_RESIDENT=0". */
const char *gpu_overrides_describe(const struct gpu_overrides *o, char *buf, size_t n);

/* The first half of the plan, before the kernels are compiled: mapping,
 * variant and grid for CFG with ISLANDS islands under overrides O. */
void gpu_plan_mapping(const struct ipso_config *cfg, const struct gpu_overrides *o, int islands,
                      struct gpu_plan *p);

/* Whether the plan may run the resident kernels (then the caller measures
 * their occupancy for gpu_plan_launch). */
int gpu_plan_resident_possible(const struct gpu_plan *p);

/* Whether the program has the one-block kernel (strict queue-lock, global
 * topology, an island that fits one block: map.blk_threads). */
int gpu_plan_block_compiled(const struct gpu_plan *p);

/* The second half: launch mode, resident grid, registers and PDL on a
 * device with facts DEV. */
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

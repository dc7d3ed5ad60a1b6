/* The host side of kernels/pso_kernels.cu: kernel lookup and one launcher
 * per kernel (inline, over ipso_launch). A launcher only enqueues on K's
 * stream and returns CUDA's status. S: all of K's islands (gridDim.y);
 * PDL: with programmatic dependent launch. */
#ifndef IPSO_GPU_LAUNCH_H
#define IPSO_GPU_LAUNCH_H

#include <cuda_runtime_api.h>

#include "gpu_abi.h"
#include "gpu_plan.h"

/* Grid and block of the copy kernels (gather, hist_out: grid-stride loops). */
#define IPSO_COPY_GRID 64
#define IPSO_COPY_BLOCK 256

/* The kernels of one compiled program (NULL where it has none: the
 * resident kernels, the separability check) and how they are launched. */
struct gpu_kernels {
  cudaKernel_t step;     /* the plan's variant */
  cudaKernel_t lbest;    /* ring topology only */
  cudaKernel_t exemplar; /* clpso topology only */
  cudaKernel_t reduce, init, candidates, select, gather, migrate, emigrate, hist_out;
  cudaKernel_t res_relaxed; /* one relaxed island in one launch per segment */
  cudaKernel_t res_spec;    /* one cluster per island (map.spec_cb > 0) */
  cudaKernel_t separable_check;
  cudaKernel_t evaluate; /* --evaluate */
  unsigned islands;      /* the plan's islands: gridDim.y of the per-island launches */
  unsigned block;        /* the plan's threads per block */
  cudaStream_t stream;
};

/* Looks up the kernels of LIBRARY that plan P uses (SEPARABLE: the
 * separability check too), to be launched on STREAM. */
cudaError_t ipso_kernels_load(cudaLibrary_t library, const struct gpu_plan *p, int separable,
                              cudaStream_t stream, struct gpu_kernels *k);

/* KERNEL on GRID x ISLANDS blocks of BLOCK threads with ARGS, on K's
 * stream; PDL: the kernel waits for the previous one itself (pdl_start). */
cudaError_t ipso_launch(const struct gpu_kernels *k, cudaKernel_t kernel, unsigned grid,
                        unsigned islands, unsigned block, int pdl, void **args);

/* *PLACED: whether the driver can place a cluster of CLUSTER blocks of
 * BLOCK threads of KERNEL. */
cudaError_t ipso_cluster_placed(cudaKernel_t kernel, unsigned cluster, unsigned block, int *placed);

/* Iterations FIRST..LAST, a cluster of M's spec_cb blocks per island
 * (speculative_cluster_kernel). */
cudaError_t ipso_launch_spec(const struct gpu_kernels *k, const struct gpu_mapping *m,
                             struct swarm_ptrs s, long long first, long long last);

/* Iteration T of the islands (step kernel, GRID blocks per island). */
static inline cudaError_t ipso_launch_step(const struct gpu_kernels *k, unsigned grid, int pdl,
                                           struct swarm_ptrs s, long long t, long long first)
{
  return ipso_launch(k, k->step, grid, k->islands, k->block, pdl, (void *[]){&s, &t, &first});
}

/* Ring: the attractor rows (lbest_kernel), a thread per particle of N. */
static inline cudaError_t ipso_launch_lbest(const struct gpu_kernels *k, int pdl,
                                            struct swarm_ptrs s, long long n)
{
  return ipso_launch(k, k->lbest, (unsigned)((n + k->block - 1) / k->block), k->islands, k->block,
                     pdl, (void *[]){&s});
}

/* clpso: the exemplar rows for iteration T (exemplar_kernel, thresholds
 * D_LEARN[n]), a warp per particle of N. */
static inline cudaError_t ipso_launch_exemplar(const struct gpu_kernels *k, int pdl,
                                               struct swarm_ptrs s, long long n, long long t,
                                               const unsigned int *d_learn)
{
  long long warps = k->block / 32;
  return ipso_launch(k, k->exemplar, (unsigned)((n + warps - 1) / warps), k->islands, k->block, pdl,
                     (void *[]){&s, &t, &d_learn});
}

/* The global best of iteration T from NSLOTS block candidates (FRESH:
 * without the best of T-1). */
static inline cudaError_t ipso_launch_reduce(const struct gpu_kernels *k, int pdl,
                                             struct swarm_ptrs s, int nslots, long long t,
                                             long long first, int fresh)
{
  return ipso_launch(k, k->reduce, 1, k->islands, k->block, pdl,
                     (void *[]){&s, &nslots, &t, &first, &fresh});
}

/* Iterations FIRST..LAST of one relaxed island, GRID resident blocks. */
static inline cudaError_t ipso_launch_relaxed(const struct gpu_kernels *k, unsigned grid,
                                              struct swarm_ptrs s, long long first, long long last)
{
  return ipso_launch(k, k->res_relaxed, grid, 1, k->block, 0, (void *[]){&s, &first, &last});
}

/* KERNEL, whose one argument is S, on GRID blocks per island: init_kernel
 * (iteration 0), candidates_kernel (the block candidates after a load). */
static inline cudaError_t ipso_launch_swarm(const struct gpu_kernels *k, cudaKernel_t kernel,
                                            unsigned grid, struct swarm_ptrs s)
{
  return ipso_launch(k, kernel, grid, k->islands, k->block, 0, (void *[]){&s});
}

/* The COUNT best (WORST = 0) or worst of N entries D_COST, CHUNK per block,
 * into D_OUT, D_OUT_COST (select_kernel says how). */
static inline cudaError_t ipso_launch_select(const struct gpu_kernels *k, unsigned grid,
                                             const void *d_cost, const long long *d_index,
                                             long long n, long long chunk, long long in_stride,
                                             long long out_stride, int worst, int count,
                                             long long *d_out, void *d_out_cost)
{
  return ipso_launch(k, k->select, grid, k->islands, k->block, 0,
                     (void *[]){&d_cost, &d_index, &n, &chunk, &in_stride, &out_stride, &worst,
                                &count, &d_out, &d_out_cost});
}

/* Personal-best rows D_IDX of each island into D_BUF, their costs into
 * D_COST, the edge islands' into D_EDGE_ROWS, D_EDGE_COST (gather_kernel). */
static inline cudaError_t ipso_launch_gather(const struct gpu_kernels *k, struct swarm_ptrs s,
                                             const long long *d_idx, int count, void *d_buf,
                                             void *d_cost, void *d_edge_rows, void *d_edge_cost)
{
  return ipso_launch(k, k->gather, IPSO_COPY_GRID, k->islands, IPSO_COPY_BLOCK, 0,
                     (void *[]){&s, &d_idx, &count, &d_buf, &d_cost, &d_edge_rows, &d_edge_cost});
}

/* Every island's message out and its VICTIMS (emigrate_kernel). */
static inline cudaError_t ipso_launch_emigrate(const struct gpu_kernels *k, struct swarm_ptrs s,
                                               int count, long long *d_sel, void *d_sel_cost,
                                               void *d_msg, void *d_edge_rows, void *d_edge_cost,
                                               int victims, long long *d_vsel, void *d_vcost)
{
  return ipso_launch(k, k->emigrate, k->islands, 1, k->block, 0,
                     (void *[]){&s, &count, &d_sel, &d_sel_cost, &d_msg, &d_edge_rows, &d_edge_cost,
                                &victims, &d_vsel, &d_vcost});
}

/* One migration of all the islands of S (migrate_kernel). */
static inline cudaError_t ipso_launch_migrate(const struct gpu_kernels *k, struct swarm_ptrs s,
                                              int count, int links, int closed, void *d_msg,
                                              void *d_mcost, const unsigned char *d_carried,
                                              const long long *d_vidx, const void *d_vcost,
                                              int vstride, int *d_order, void *d_sent,
                                              const void *const d_rmsg[2],
                                              const void *const d_rcost[2], long long t)
{
  int islands = (int)k->islands;
  const void *rmsg0 = d_rmsg[0], *rcost0 = d_rcost[0], *rmsg1 = d_rmsg[1], *rcost1 = d_rcost[1];
  return ipso_launch(k, k->migrate, k->islands, 1, k->block, 0,
                     (void *[]){&s, &islands, &count, &links, &closed, &d_msg, &d_mcost, &d_carried,
                                &d_vidx, &d_vcost, &vstride, &d_order, &d_sent, &rmsg0, &rcost0,
                                &rmsg1, &rcost1, &t});
}

/* A step's N history values at D_SRC into mapped D_DST (hist_out_kernel). */
static inline cudaError_t ipso_launch_hist_out(const struct gpu_kernels *k, int pdl, double *d_src,
                                               double *d_dst, long long n)
{
  long long blocks = (n + IPSO_COPY_BLOCK - 1) / IPSO_COPY_BLOCK;
  return ipso_launch(k, k->hist_out, (unsigned)(blocks < IPSO_COPY_GRID ? blocks : IPSO_COPY_GRID),
                     1, IPSO_COPY_BLOCK, pdl, (void *[]){&d_src, &d_dst, &n});
}

/* The objective at the N rows of D_PTS into D_OUT (evaluate_kernel). */
static inline cudaError_t ipso_launch_evaluate(const struct gpu_kernels *k, unsigned grid,
                                               const void *d_pts, long long n, void *d_out)
{
  return ipso_launch(k, k->evaluate, grid, 1, k->block, 0, (void *[]){&d_pts, &n, &d_out});
}

/* The separability check at N points D_PTS (rows), into D_OUT[3 N]. */
static inline cudaError_t ipso_launch_separable_check(const struct gpu_kernels *k,
                                                      const void *d_pts, int n, double *d_out)
{
  return ipso_launch(k, k->separable_check, 1, 1, (unsigned)n, 0, (void *[]){&d_pts, &n, &d_out});
}

#endif

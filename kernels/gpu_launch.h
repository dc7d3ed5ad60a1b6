/* The host side of kernels/pso_kernels.cu: kernel lookup and one launcher
 * per kernel. A launcher only enqueues on K's stream and returns CUDA's
 * status. S: all of K's islands (gridDim.y), or one island's view where the
 * launch runs one island; PDL: with programmatic dependent launch. */
#ifndef IPSO_GPU_LAUNCH_H
#define IPSO_GPU_LAUNCH_H

#include <cuda_runtime_api.h>

#include "gpu_abi.h"
#include "gpu_plan.h"

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

/* Iteration T of the islands (step kernel, GRID blocks per island). */
cudaError_t ipso_launch_step(const struct gpu_kernels *k, unsigned grid, int pdl,
                             struct swarm_ptrs s, long long t, long long first);

/* Ring: the attractor rows (lbest_kernel), a thread per particle of N. */
cudaError_t ipso_launch_lbest(const struct gpu_kernels *k, int pdl, struct swarm_ptrs s,
                              long long n);

/* clpso: the exemplar rows for iteration T (exemplar_kernel, thresholds
 * D_LEARN[n]), a warp per particle of N. */
cudaError_t ipso_launch_exemplar(const struct gpu_kernels *k, int pdl, struct swarm_ptrs s,
                                 long long n, long long t, const unsigned int *d_learn);

/* The global best of iteration T from NSLOTS block candidates (FRESH:
 * without the best of T-1). */
cudaError_t ipso_launch_reduce(const struct gpu_kernels *k, int pdl, struct swarm_ptrs s,
                               int nslots, long long t, long long first, int fresh);

/* Iterations FIRST..LAST of one relaxed island, GRID resident blocks. */
cudaError_t ipso_launch_relaxed(const struct gpu_kernels *k, unsigned grid, struct swarm_ptrs s,
                                long long first, long long last);

/* *PLACED: whether the driver can place a cluster of CLUSTER blocks of
 * BLOCK threads of KERNEL. */
cudaError_t ipso_cluster_placed(cudaKernel_t kernel, unsigned cluster, unsigned block, int *placed);

/* Iterations FIRST..LAST, a cluster of M's spec_cb blocks per island
 * (speculative_cluster_kernel). */
cudaError_t ipso_launch_spec(const struct gpu_kernels *k, const struct gpu_mapping *m,
                             struct swarm_ptrs s, long long first, long long last);

/* KERNEL, whose one argument is S, on GRID blocks per island: init_kernel
 * (iteration 0), candidates_kernel (the block candidates after a load). */
cudaError_t ipso_launch_swarm(const struct gpu_kernels *k, cudaKernel_t kernel, unsigned grid,
                              struct swarm_ptrs s);

/* The COUNT best (WORST = 0) or worst of N entries D_COST, CHUNK per block,
 * into D_OUT, D_OUT_COST (select_kernel says how). */
cudaError_t ipso_launch_select(const struct gpu_kernels *k, unsigned grid, const void *d_cost,
                               const long long *d_index, long long n, long long chunk,
                               long long in_stride, long long out_stride, int worst, int count,
                               long long *d_out, void *d_out_cost);

/* Personal-best rows D_IDX of each island into D_BUF, their costs into
 * D_COST, the edge islands' into D_EDGE_ROWS, D_EDGE_COST (gather_kernel). */
cudaError_t ipso_launch_gather(const struct gpu_kernels *k, struct swarm_ptrs s,
                               const long long *d_idx, int count, void *d_buf, void *d_cost,
                               void *d_edge_rows, void *d_edge_cost);
/* Every island's message out and its VICTIMS (emigrate_kernel). */
cudaError_t ipso_launch_emigrate(const struct gpu_kernels *k, struct swarm_ptrs s, int count,
                                 long long *d_sel, void *d_sel_cost, void *d_msg, void *d_edge_rows,
                                 void *d_edge_cost, int victims, long long *d_vsel, void *d_vcost);
/* One migration of all the islands of S (migrate_kernel). */
cudaError_t ipso_launch_migrate(const struct gpu_kernels *k, struct swarm_ptrs s, int count,
                                int links, int closed, void *d_msg, void *d_mcost,
                                const unsigned char *d_carried, const long long *d_vidx,
                                const void *d_vcost, int vstride, int *d_order, void *d_sent,
                                const void *const d_rmsg[2], const void *const d_rcost[2],
                                long long t);

/* A step's N history values at D_SRC into mapped D_DST (hist_out_kernel). */
cudaError_t ipso_launch_hist_out(const struct gpu_kernels *k, int pdl, double *d_src, double *d_dst,
                                 long long n);

/* The objective at the N rows of D_PTS into D_OUT (evaluate_kernel). */
cudaError_t ipso_launch_evaluate(const struct gpu_kernels *k, unsigned grid, const void *d_pts,
                                 long long n, void *d_out);

/* The separability check at N points D_PTS (rows), into D_OUT[3 N]. */
cudaError_t ipso_launch_separable_check(const struct gpu_kernels *k, const void *d_pts, int n,
                                        double *d_out);

#endif

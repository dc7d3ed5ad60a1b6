/* Kernel lookup and the launchers (kernels/gpu_launch.h). */
#include "gpu_launch.h"

#include <string.h>

/* Grid of the migrant copy kernel (gather: a grid-stride loop). */
#define COPY_GRID 64
#define COPY_BLOCK 256

/* A dim3 of X by Y. */
static dim3 dims(unsigned x, unsigned y)
{
  dim3 d = {x, y, 1};
  return d;
}

cudaError_t ipso_kernels_load(cudaLibrary_t library, const struct gpu_plan *p, int separable,
                              cudaStream_t stream, struct gpu_kernels *k)
{
  static const char *step_names[] = {"step_queue_lock_kernel", "step_queue_kernel",
                                     "step_reduction_kernel"};
  /* Whether the program has resident_relaxed_kernel (as in pso_kernels.cu). */
  int resident = p->relaxed && p->dims <= IPSO_RESIDENT_MAX_D && !p->ring && !p->clpso;
  struct {
    const char *name;
    int wanted;
    cudaKernel_t *k;
  } table[] = {{step_names[p->variant], 1, &k->step},
               {"lbest_kernel", p->ring, &k->lbest},
               {"exemplar_kernel", p->clpso, &k->exemplar},
               {"reduce_kernel", 1, &k->reduce},
               {"init_kernel", 1, &k->init},
               {"candidates_kernel", 1, &k->candidates},
               {"select_kernel", p->map.migrates, &k->select},
               {"gather_kernel", p->map.migrates, &k->gather},
               {"migrate_kernel", p->map.migrates, &k->migrate},
               {"emigrate_kernel", p->map.migrates, &k->emigrate},
               {"hist_out_kernel", 1, &k->hist_out},
               {"resident_relaxed_kernel", resident, &k->res_relaxed},
               {"speculative_cluster_kernel", p->map.spec_cb > 0, &k->res_spec},
               {"separable_check_kernel", separable, &k->separable_check},
               {"evaluate_kernel", p->map.evaluate, &k->evaluate}};
  k->islands = (unsigned)p->islands;
  k->block = (unsigned)p->map.block;
  k->stream = stream;
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    *table[i].k = NULL;
    cudaError_t e =
        table[i].wanted ? cudaLibraryGetKernel(table[i].k, library, table[i].name) : cudaSuccess;
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

/* GRID blocks for each of ISLANDS islands (blockIdx.y), with programmatic
 * dependent launch when PDL (the kernel waits itself: pdl_start). */
static cudaError_t launch(cudaKernel_t k, unsigned grid, unsigned islands, unsigned block, int pdl,
                          void **args, cudaStream_t stream)
{
  if (!pdl)
    return cudaLaunchKernel((const void *)k, dims(grid, islands), dims(block, 1), args, 0, stream);
  cudaLaunchConfig_t lc;
  cudaLaunchAttribute attr;
  memset(&lc, 0, sizeof lc);
  memset(&attr, 0, sizeof attr);
  lc.gridDim = dims(grid, islands);
  lc.blockDim = dims(block, 1);
  lc.stream = stream;
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  lc.attrs = &attr;
  lc.numAttrs = 1;
  return cudaLaunchKernelExC(&lc, (const void *)k, args);
}

cudaError_t ipso_launch_step(const struct gpu_kernels *k, unsigned grid, int pdl,
                             struct swarm_ptrs s, long long t, long long first)
{
  void *args[] = {&s, &t, &first};
  return launch(k->step, grid, k->islands, k->block, pdl, args, k->stream);
}

cudaError_t ipso_launch_lbest(const struct gpu_kernels *k, int pdl, struct swarm_ptrs s,
                              long long n)
{
  void *args[] = {&s};
  return launch(k->lbest, (unsigned)((n + k->block - 1) / k->block), k->islands, k->block, pdl,
                args, k->stream);
}

cudaError_t ipso_launch_exemplar(const struct gpu_kernels *k, int pdl, struct swarm_ptrs s,
                                 long long n, long long t, const unsigned int *d_learn)
{
  long long warps = k->block / 32;
  void *args[] = {&s, &t, &d_learn};
  return launch(k->exemplar, (unsigned)((n + warps - 1) / warps), k->islands, k->block, pdl, args,
                k->stream);
}

cudaError_t ipso_launch_reduce(const struct gpu_kernels *k, int pdl, struct swarm_ptrs s,
                               int nslots, long long t, long long first, int fresh)
{
  void *args[] = {&s, &nslots, &t, &first, &fresh};
  return launch(k->reduce, 1, k->islands, k->block, pdl, args, k->stream);
}

cudaError_t ipso_launch_relaxed(const struct gpu_kernels *k, unsigned grid, struct swarm_ptrs s,
                                long long first, long long last)
{
  void *args[] = {&s, &first, &last};
  return launch(k->res_relaxed, grid, 1, k->block, 0, args, k->stream);
}

/* LC for GRID blocks of BLOCK threads in clusters of CLUSTER along x (its
 * attribute in ATTR). */
static void cluster_config(cudaLaunchConfig_t *lc, cudaLaunchAttribute *attr, dim3 grid, dim3 block,
                           unsigned cluster, cudaStream_t stream)
{
  memset(lc, 0, sizeof *lc);
  memset(attr, 0, sizeof *attr);
  lc->gridDim = grid;
  lc->blockDim = block;
  lc->stream = stream;
  lc->attrs = attr;
  lc->numAttrs = 1;
  attr->id = cudaLaunchAttributeClusterDimension;
  attr->val.clusterDim.x = cluster;
  attr->val.clusterDim.y = attr->val.clusterDim.z = 1;
}

cudaError_t ipso_cluster_placed(cudaKernel_t kernel, unsigned cluster, unsigned block, int *placed)
{
  cudaLaunchConfig_t lc;
  cudaLaunchAttribute attr;
  cluster_config(&lc, &attr, dims(cluster, 1), dims(block, 1), cluster, 0);
  int n = 0;
  cudaError_t e = cudaOccupancyMaxActiveClusters(&n, (const void *)kernel, &lc);
  *placed = e == cudaSuccess && n > 0;
  return e;
}

cudaError_t ipso_launch_spec(const struct gpu_kernels *k, const struct gpu_mapping *m,
                             struct swarm_ptrs s, long long first, long long last)
{
  cudaLaunchConfig_t lc;
  cudaLaunchAttribute attr;
  cluster_config(&lc, &attr, dims((unsigned)m->spec_cb, k->islands),
                 dims((unsigned)m->spec_threads + 32, 1), (unsigned)m->spec_cb, k->stream);
  void *args[] = {&s, &first, &last};
  return cudaLaunchKernelExC(&lc, (const void *)k->res_spec, args);
}

cudaError_t ipso_launch_swarm(const struct gpu_kernels *k, cudaKernel_t kernel, unsigned grid,
                              struct swarm_ptrs s)
{
  void *args[] = {&s};
  return launch(kernel, grid, k->islands, k->block, 0, args, k->stream);
}

cudaError_t ipso_launch_select(const struct gpu_kernels *k, unsigned grid, const void *d_cost,
                               const long long *d_index, long long n, long long chunk,
                               long long in_stride, long long out_stride, int worst, int count,
                               long long *d_out, void *d_out_cost)
{
  void *args[] = {&d_cost,     &d_index, &n,     &chunk, &in_stride,
                  &out_stride, &worst,   &count, &d_out, &d_out_cost};
  return launch(k->select, grid, k->islands, k->block, 0, args, k->stream);
}

cudaError_t ipso_launch_gather(const struct gpu_kernels *k, struct swarm_ptrs s,
                               const long long *d_idx, int count, void *d_buf, void *d_cost,
                               void *d_edge_rows, void *d_edge_cost)
{
  void *args[] = {&s, &d_idx, &count, &d_buf, &d_cost, &d_edge_rows, &d_edge_cost};
  return launch(k->gather, COPY_GRID, k->islands, COPY_BLOCK, 0, args, k->stream);
}

cudaError_t ipso_launch_emigrate(const struct gpu_kernels *k, struct swarm_ptrs s, int count,
                                 long long *d_sel, void *d_sel_cost, void *d_msg, void *d_edge_rows,
                                 void *d_edge_cost, int victims, long long *d_vsel, void *d_vcost)
{
  void *args[] = {&s,           &count,       &d_sel,   &d_sel_cost, &d_msg,
                  &d_edge_rows, &d_edge_cost, &victims, &d_vsel,     &d_vcost};
  return launch(k->emigrate, k->islands, 1, k->block, 0, args, k->stream);
}

cudaError_t ipso_launch_migrate(const struct gpu_kernels *k, struct swarm_ptrs s, int count,
                                int links, int closed, void *d_msg, void *d_mcost,
                                const unsigned char *d_carried, const long long *d_vidx,
                                const void *d_vcost, int vstride, int *d_order, void *d_sent,
                                const void *const d_rmsg[2], const void *const d_rcost[2],
                                long long t)
{
  int islands = (int)k->islands;
  const void *rmsg0 = d_rmsg[0], *rcost0 = d_rcost[0], *rmsg1 = d_rmsg[1], *rcost1 = d_rcost[1];
  void *args[] = {&s,       &islands,   &count,  &links,   &closed,  &d_msg,
                  &d_mcost, &d_carried, &d_vidx, &d_vcost, &vstride, &d_order,
                  &d_sent,  &rmsg0,     &rcost0, &rmsg1,   &rcost1,  &t};
  return launch(k->migrate, k->islands, 1, k->block, 0, args, k->stream);
}

cudaError_t ipso_launch_hist_out(const struct gpu_kernels *k, int pdl, double *d_src, double *d_dst,
                                 long long n)
{
  long long blocks = (n + COPY_BLOCK - 1) / COPY_BLOCK;
  void *args[] = {&d_src, &d_dst, &n};
  return launch(k->hist_out, (unsigned)(blocks < COPY_GRID ? blocks : COPY_GRID), 1, COPY_BLOCK,
                pdl, args, k->stream);
}

cudaError_t ipso_launch_separable_check(const struct gpu_kernels *k, const void *d_pts, int n,
                                        double *d_out)
{
  void *args[] = {&d_pts, &n, &d_out};
  return launch(k->separable_check, 1, 1, (unsigned)n, 0, args, k->stream);
}

cudaError_t ipso_launch_evaluate(const struct gpu_kernels *k, unsigned grid, const void *d_pts,
                                 long long n, void *d_out)
{
  void *args[] = {&d_pts, &n, &d_out};
  return launch(k->evaluate, grid, 1, k->block, 0, args, k->stream);
}

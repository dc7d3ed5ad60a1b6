/* Kernel lookup, the generic and the cluster launches (kernels/gpu_swarm.h). */
#include "gpu_swarm.h"

#include <string.h>

cudaError_t ipso_kernels_load(cudaLibrary_t library, const struct gpu_plan *p, int separable,
                              cudaStream_t stream, struct gpu_kernels *k)
{
  static const char *step_names[] = {"step_queue_lock_kernel", "step_queue_kernel",
                                     "step_reduction_kernel"};
  /* Whether the program has resident_relaxed_kernel (as in pso_kernels.cu). */
  int resident = p->relaxed && p->dims <= IPSO_RESIDENT_MAX_D && !p->ring && !p->clpso &&
                 !p->mean && !p->frame;
  struct {
    const char *name;
    int wanted;
    cudaKernel_t *k;
  } table[] = {{step_names[p->variant], 1, &k->step},
               {"lbest_kernel", p->ring, &k->lbest},
               {"exemplar_kernel", p->clpso, &k->exemplar},
               {"frame_kernel", p->frame, &k->frame},
               {"mean_kernel", p->mean, &k->mean},
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

/* LC for GRID by BLOCK on STREAM with one attribute, ATTR, which the
 * caller sets (zeroed here). */
static void config(cudaLaunchConfig_t *lc, cudaLaunchAttribute *attr, dim3 grid, dim3 block,
                   cudaStream_t stream)
{
  memset(lc, 0, sizeof *lc);
  memset(attr, 0, sizeof *attr);
  lc->gridDim = grid;
  lc->blockDim = block;
  lc->stream = stream;
  lc->attrs = attr;
  lc->numAttrs = 1;
}

cudaError_t ipso_launch(const struct gpu_kernels *k, cudaKernel_t kernel, unsigned grid,
                        unsigned islands, unsigned block, int pdl, void **args)
{
  if (!pdl)
    return cudaLaunchKernel((const void *)kernel, (dim3){grid, islands, 1}, (dim3){block, 1, 1},
                            args, 0, k->stream);
  cudaLaunchConfig_t lc;
  cudaLaunchAttribute attr;
  config(&lc, &attr, (dim3){grid, islands, 1}, (dim3){block, 1, 1}, k->stream);
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  return cudaLaunchKernelExC(&lc, (const void *)kernel, args);
}

/* LC for GRID blocks of BLOCK threads in clusters of CLUSTER along x (its
 * attribute in ATTR). */
static void cluster_config(cudaLaunchConfig_t *lc, cudaLaunchAttribute *attr, dim3 grid, dim3 block,
                           unsigned cluster, cudaStream_t stream)
{
  config(lc, attr, grid, block, stream);
  attr->id = cudaLaunchAttributeClusterDimension;
  attr->val.clusterDim.x = cluster;
  attr->val.clusterDim.y = attr->val.clusterDim.z = 1;
}

cudaError_t ipso_cluster_placed(cudaKernel_t kernel, unsigned cluster, unsigned block, int *placed)
{
  cudaLaunchConfig_t lc;
  cudaLaunchAttribute attr;
  cluster_config(&lc, &attr, (dim3){cluster, 1, 1}, (dim3){block, 1, 1}, cluster, 0);
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
  cluster_config(&lc, &attr, (dim3){(unsigned)m->spec_cb, k->islands, 1},
                 (dim3){(unsigned)m->spec_threads + 32, 1, 1}, (unsigned)m->spec_cb, k->stream);
  return cudaLaunchKernelExC(&lc, (const void *)k->res_spec, (void *[]){&s, &first, &last});
}

/* The CUDA backend: one island's swarm in device memory, kernels compiled
 * at start-up by NVRTC (kernels/pso_kernels.cu) for this problem and this
 * GPU. Host code only enqueues work on the island's stream; the only
 * host<->device copies inside the iteration loop are the per-iteration best
 * costs at segment ends (a few bytes per iteration) and the migrants. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "backend_gpu.h"
#include "gpu_abi.h"
#include "gpu_compile.h"
#include "gpu_mapping.h"
#include "check.h"
#include "log.h"
#include "objective.h"
#include "user_objective.h"

/* Checks a CUDA runtime call; reports the call and CUDA's own message. */
#define CUDA_TRY(call)                                                                             \
  do {                                                                                             \
    cudaError_t cuda_rc_ = (call);                                                                 \
    if (cuda_rc_ != cudaSuccess)                                                                   \
      return IPSO_FAIL("cuda", "%s: %s (%s)", #call, cudaGetErrorString(cuda_rc_),                 \
                       cudaGetErrorName(cuda_rc_));                                                \
  } while (0)

enum {
  K_STEP,
  K_REDUCE,
  K_INIT,
  K_CAND,
  K_SELECT,
  K_GATHER,
  K_SCATTER,
  K_RES_CLUSTER,
  K_RES_GRID,
  K_RES_CLUSTER_KEEP,
  K_RES_GRID_KEEP,
  K_COUNT
};
static const char *kernel_names[K_COUNT] = {NULL,
                                            "reduce_kernel",
                                            "init_kernel",
                                            "candidates_kernel",
                                            "select_kernel",
                                            "gather_kernel",
                                            "scatter_kernel",
                                            "resident_cluster_kernel",
                                            "resident_grid_kernel",
                                            "resident_cluster_keep_kernel",
                                            "resident_grid_keep_kernel"};

/* How iterations are launched: one launch per iteration, or one launch per
 * segment with every block resident (queue-lock kernel only). */
enum launch_mode {
  MODE_STREAMING, /* one launch per iteration (two for queue and reduction) */
  MODE_CLUSTER,   /* strict, the swarm fits one thread-block cluster */
  MODE_GRID,      /* strict, co-resident grid with a grid barrier */
  MODE_RELAXED    /* relaxed, co-resident grid running ahead */
};
static const char *mode_names[] = {"one launch per iteration", "cluster-resident", "grid-resident",
                                   "grid-resident, relaxed"};

/* Largest cluster the resident kernel uses (portable cluster size). */
#define MAX_CLUSTER 8
/* Strict swarms up to this many particle-dimensions run grid-resident: the
 * grid barrier costs less than a launch while an iteration is short. */
#define GRID_RESIDENT_MAX_ELEMENTS (1 << 22)

struct gpu_swarm {
  const struct ipso_config *cfg;
  struct gpu_mapping map;
  int device, island, D, fl, relaxed, variant, blocks;
  enum launch_mode mode;
  int res_blocks;      /* grid of the resident kernels */
  int keep;            /* resident kernels keep the state in registers (one tile per block) */
  int pdl;             /* one launch per iteration with programmatic dependent launch */
  unsigned int *d_bar; /* grid barrier: arrivals, generation */
  int64_t N;
  size_t es; /* bytes per element */
  int64_t t; /* last completed iteration */
  cudaStream_t stream;
  struct gpu_program prog;
  cudaKernel_t k[K_COUNT];
  struct swarm_ptrs s;
  void *d_tables;    /* lo, hi, span, vmax, prm: [pitch] each */
  long long *d_sel;  /* [2 * cap] selected indices */
  void *d_selcost;   /* [2 * cap] their costs */
  long long *d_pick; /* [pick_blocks * cap] the selection blocks' picks */
  void *d_pickcost;  /* [pick_blocks * cap] their costs */
  void *d_buf;       /* [cap * pitch] migrant rows */
  void *d_bufcost;   /* [cap] migrant costs */
  void *h_stage;     /* pinned staging: rows, costs, indices */
  int cap;           /* migrants the buffers hold */
  int64_t hist_cap;
  double *h_hist;
  double last_best;              /* best cost after iteration t */
  cudaEvent_t ev_start, ev_stop; /* around the launches of the last step() */
};

static dim3 dim3_of(unsigned x)
{
  dim3 d = {x, 1, 1};
  return d;
}

/* Enqueues kernel WHICH on the island's stream. */
static int launch(struct gpu_swarm *g, int which, unsigned grid, unsigned block, void **args)
{
  CUDA_TRY(cudaLaunchKernel((const void *)g->k[which], dim3_of(grid), dim3_of(block), args, 0,
                            g->stream));
  return IPSO_OK;
}

/* The same with programmatic dependent launch when g->pdl (the kernel waits
 * for the previous grid itself: pdl_start in kernels/pso_kernels.cu). */
static int launch_iteration(struct gpu_swarm *g, int which, unsigned grid, unsigned block,
                            void **args)
{
  if (!g->pdl) return launch(g, which, grid, block, args);
  cudaLaunchConfig_t lc;
  cudaLaunchAttribute attr;
  memset(&lc, 0, sizeof lc);
  memset(&attr, 0, sizeof attr);
  lc.gridDim = dim3_of(grid);
  lc.blockDim = dim3_of(block);
  lc.stream = g->stream;
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  lc.attrs = &attr;
  lc.numAttrs = 1;
  CUDA_TRY(cudaLaunchKernelExC(&lc, (const void *)g->k[which], args));
  return IPSO_OK;
}

static const char *variant_kernel(int variant)
{
  static const char *names[] = {"step_queue_lock_kernel", "step_queue_kernel",
                                "step_reduction_kernel"};
  return names[variant];
}

/* Copies the per-dimension tables and the constants to the device. */
static int upload_constants(struct gpu_swarm *g, const struct swarm_consts *k)
{
  size_t pitch = (size_t)g->map.pitch, bytes = 5 * pitch * g->es;
  CUDA_TRY(cudaMalloc(&g->d_tables, bytes));
  char *h = calloc(1, bytes);
  if (!h) return IPSO_FAIL("memory", "out of memory");
  const double *src[5] = {k->lower, k->upper, k->span, k->vmax, k->param};
  for (int t = 0; t < 5; t++)
    for (int d = 0; d < g->D; d++) {
      double v = src[t] ? src[t][d] : 0.0;
      if (g->fl)
        ((float *)h)[t * pitch + (size_t)d] = (float)v;
      else
        ((double *)h)[t * pitch + (size_t)d] = v;
    }
  cudaError_t e = cudaMemcpy(g->d_tables, h, bytes, cudaMemcpyHostToDevice);
  free(h);
  CUDA_TRY(e);
  char *base = g->d_tables;
  const void *tab[5];
  for (int t = 0; t < 5; t++) tab[t] = base + (size_t)t * pitch * g->es;
  void *sym;
  size_t symsize;
  CUDA_TRY(cudaLibraryGetGlobal(&sym, &symsize, g->prog.library, "K"));
  const struct ipso_config *cfg = g->cfg;
  if (g->fl) {
    struct ipso_consts_f c = {cfg->run.seed,
                              (unsigned)g->island,
                              g->N,
                              (float)cfg->swarm.inertia,
                              (float)cfg->swarm.cognitive,
                              (float)cfg->swarm.social,
                              tab[0],
                              tab[1],
                              tab[2],
                              tab[3],
                              tab[4]};
    if (symsize != sizeof c) return IPSO_FAIL("gpu", "constant block size mismatch");
    CUDA_TRY(cudaMemcpy(sym, &c, sizeof c, cudaMemcpyHostToDevice));
  } else {
    struct ipso_consts_d c = {cfg->run.seed,
                              (unsigned)g->island,
                              g->N,
                              cfg->swarm.inertia,
                              cfg->swarm.cognitive,
                              cfg->swarm.social,
                              tab[0],
                              tab[1],
                              tab[2],
                              tab[3],
                              tab[4]};
    if (symsize != sizeof c) return IPSO_FAIL("gpu", "constant block size mismatch");
    CUDA_TRY(cudaMemcpy(sym, &c, sizeof c, cudaMemcpyHostToDevice));
  }
  return IPSO_OK;
}

/* Allocates the swarm arrays (zeroed, so row padding is defined). */
static int allocate(struct gpu_swarm *g)
{
  size_t rows = (size_t)g->N * (size_t)g->map.pitch * g->es, n = (size_t)g->N * g->es;
  void **arr[3] = {&g->s.x, &g->s.v, &g->s.p};
  for (int i = 0; i < 3; i++) {
    cudaError_t e = cudaMalloc(arr[i], rows);
    if (e != cudaSuccess)
      return IPSO_FAIL("cuda", "cannot allocate %.2f GiB for the swarm on GPU %d: %s",
                       (double)rows / (1 << 30), g->device, cudaGetErrorString(e));
    CUDA_TRY(cudaMemset(*arr[i], 0, rows));
  }
  CUDA_TRY(cudaMalloc(&g->s.cost, n));
  CUDA_TRY(cudaMalloc(&g->s.pcost, n));
  CUDA_TRY(cudaMalloc(&g->s.gb, IPSO_GB_SLOTS * IPSO_GB_SLOT_BYTES));
  /* Both slots empty: cost +infinity (no candidate is ever compared with a
   * cost that was not in the swarm), no particle, no iteration, no offer
   * (a hint above every key); padding zero. */
  union {
    struct gbest_slot_f f[IPSO_GB_SLOTS];
    struct gbest_slot_d d[IPSO_GB_SLOTS];
  } slots;
  memset(&slots, 0, sizeof slots);
  for (int k = 0; k < IPSO_GB_SLOTS; k++) {
    if (g->fl) {
      slots.f[k].cost = INFINITY;
      slots.f[k].idx = IPSO_NONE;
      slots.f[k].tag = -1;
      slots.f[k].hint = ~0ull;
    } else {
      slots.d[k].cost = INFINITY;
      slots.d[k].idx = IPSO_NONE;
      slots.d[k].tag = -1;
      slots.d[k].hint = ~0ull;
    }
  }
  CUDA_TRY(cudaMemcpy(g->s.gb, &slots, sizeof slots, cudaMemcpyHostToDevice));
  CUDA_TRY(cudaMalloc(&g->s.gpos, 2 * (size_t)g->map.pitch * g->es));
  CUDA_TRY(cudaMemset(g->s.gpos, 0, 2 * (size_t)g->map.pitch * g->es));
  CUDA_TRY(cudaMalloc(&g->s.slot_cost, (size_t)g->blocks * g->es));
  CUDA_TRY(cudaMalloc((void **)&g->s.slot_idx, (size_t)g->blocks * sizeof(long long)));
  CUDA_TRY(cudaMalloc((void **)&g->d_bar, 2 * sizeof(unsigned int)));
  CUDA_TRY(cudaMemset(g->d_bar, 0, 2 * sizeof(unsigned int)));
  g->hist_cap = 1;
  CUDA_TRY(cudaMalloc((void **)&g->s.hist, sizeof(double)));
  return IPSO_OK;
}

/* Recomputes the global best from the personal bests as they are, into the
 * slot of iteration g->t (after init, a load or a migration). */
static int recompute_best(struct gpu_swarm *g, int from_init)
{
  struct swarm_ptrs s = g->s;
  s.hist = NULL;
  long long t = g->t, first = g->t;
  int fresh = 1;
  unsigned cand_blocks = (unsigned)((g->N + g->map.block - 1) / g->map.block);
  if (!from_init) {
    void *a[] = {&s};
    IPSO_TRY(launch(g, K_CAND, cand_blocks, (unsigned)g->map.block, a));
  }
  int nslots = from_init ? g->blocks : (int)cand_blocks;
  void *a[] = {&s, &nslots, &t, &first, &fresh};
  IPSO_TRY(launch(g, K_REDUCE, 1, (unsigned)g->map.block, a));
  return IPSO_OK;
}

/* Reads the best of the slot of iteration g->t: cost, index, position. */
static int read_best(struct gpu_swarm *g, double *cost, int64_t *idx, double *pos)
{
  int cur = g->relaxed ? 0 : (int)(g->t & 1);
  union {
    struct gbest_slot_f f;
    struct gbest_slot_d d;
  } slot;
  char *gb = g->s.gb;
  CUDA_TRY(cudaMemcpyAsync(&slot, gb + cur * IPSO_GB_SLOT_BYTES, IPSO_GB_SLOT_BYTES,
                           cudaMemcpyDeviceToHost, g->stream));
  if (pos) {
    char *gp = g->s.gpos;
    CUDA_TRY(cudaMemcpyAsync(g->h_stage, gp + (size_t)cur * g->map.pitch * g->es,
                             (size_t)g->D * g->es, cudaMemcpyDeviceToHost, g->stream));
  }
  CUDA_TRY(cudaStreamSynchronize(g->stream));
  *cost = g->fl ? slot.f.cost : slot.d.cost;
  if (idx) *idx = g->fl ? slot.f.idx : slot.d.idx;
  if (pos)
    for (int d = 0; d < g->D; d++)
      pos[d] = g->fl ? ((float *)g->h_stage)[d] : ((double *)g->h_stage)[d];
  return IPSO_OK;
}

static int gpu_init(struct backend *b)
{
  struct gpu_swarm *g = b->impl;
  g->t = 0;
  void *a[] = {&g->s};
  IPSO_TRY(launch(g, K_INIT, (unsigned)g->blocks, (unsigned)g->map.block, a));
  IPSO_TRY(recompute_best(g, 1));
  return read_best(g, &g->last_best, NULL, NULL);
}

/* One launch for iterations FIRST..LAST: a cluster of all blocks, or a
 * cooperative grid (so every block is resident), or a plain grid (relaxed). */
static int launch_resident(struct gpu_swarm *g, long long first, long long last)
{
  cudaLaunchConfig_t lc;
  cudaLaunchAttribute attr;
  memset(&lc, 0, sizeof lc);
  memset(&attr, 0, sizeof attr);
  lc.gridDim = dim3_of((unsigned)g->res_blocks);
  lc.blockDim = dim3_of((unsigned)g->map.block);
  lc.stream = g->stream;
  lc.attrs = &attr;
  if (g->mode == MODE_CLUSTER) {
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = (unsigned)g->res_blocks;
    attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
    lc.numAttrs = 1;
  } else if (g->mode == MODE_GRID) {
    attr.id = cudaLaunchAttributeCooperative;
    attr.val.cooperative = 1;
    lc.numAttrs = 1;
  }
  int which = g->mode == MODE_CLUSTER ? K_RES_CLUSTER : K_RES_GRID;
  if (g->keep) which = g->mode == MODE_CLUSTER ? K_RES_CLUSTER_KEEP : K_RES_GRID_KEEP;
  cudaKernel_t k = g->k[which];
  void *args[] = {&g->s, &first, &last, &g->d_bar};
  CUDA_TRY(cudaLaunchKernelExC(&lc, (const void *)k, args));
  return IPSO_OK;
}

/* Picks the launch mode (IPSO_GPU_RESIDENT=0 forbids the resident kernels,
 * for comparison) and the resident grid: every block must fit on the GPU at
 * once. */
static int choose_mode(struct gpu_swarm *g, const struct cudaDeviceProp *prop)
{
  const char *env = getenv("IPSO_GPU_RESIDENT");
  g->mode = MODE_STREAMING;
  if (g->variant != 0 || g->D > IPSO_RESIDENT_MAX_D || (env && env[0] == '0')) return IPSO_OK;
  int per_sm = 0, per_sm_keep = 0;
  CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)g->k[K_RES_GRID],
                                                         g->map.block, 0));
  if (gpu_mapping_keep_ok(&g->map, g->D))
    CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm_keep, (const void *)g->k[K_RES_GRID_KEEP], g->map.block, 0));
  int resident = per_sm * prop->multiProcessorCount;
  if (resident < 1) return IPSO_OK;
  if (g->relaxed) {
    g->mode = MODE_RELAXED;
    g->res_blocks = g->blocks < resident ? g->blocks : resident;
  } else if (g->blocks <= MAX_CLUSTER && prop->major >= 9) {
    g->mode = MODE_CLUSTER;
    g->res_blocks = g->blocks;
  } else if ((double)g->N * g->D <= GRID_RESIDENT_MAX_ELEMENTS) {
    g->mode = MODE_GRID;
    g->res_blocks = g->blocks < resident ? g->blocks : resident;
  }
  /* The state in registers when every block can have its own tile at once
   * (IPSO_GPU_KEEP=0 forbids it, for comparison). */
  const char *keep = getenv("IPSO_GPU_KEEP");
  if (g->mode != MODE_STREAMING && g->blocks <= per_sm_keep * prop->multiProcessorCount &&
      !(keep && keep[0] == '0')) {
    g->keep = 1;
    g->res_blocks = g->blocks;
  }
  /* Without the state in registers, a strict grid-resident launch gains
   * nothing over one launch per iteration with programmatic dependent
   * launch, whose overlap costs less than the software grid barrier
   * (measured in BENCHMARKS.md). */
  if (g->mode == MODE_GRID && !g->keep && g->pdl) g->mode = MODE_STREAMING;
  return IPSO_OK;
}

static int gpu_step(struct backend *b, int64_t first, int64_t last, double *best)
{
  struct gpu_swarm *g = b->impl;
  int64_t n = last - first + 1;
  if (n > g->hist_cap) {
    CUDA_TRY(cudaFree(g->s.hist));
    CUDA_TRY(cudaMalloc((void **)&g->s.hist, (size_t)n * sizeof(double)));
    g->hist_cap = n;
  }
  /* NaN marks an iteration in which nothing improved the best (relaxed). */
  CUDA_TRY(cudaMemsetAsync(g->s.hist, 0xff, (size_t)n * sizeof(double), g->stream));
  long long f = first;
  CUDA_TRY(cudaEventRecord(g->ev_start, g->stream));
  if (g->mode != MODE_STREAMING) {
    IPSO_TRY(launch_resident(g, first, last));
  } else {
    for (long long t = first; t <= last; t++) {
      void *a[] = {&g->s, &t, &f};
      IPSO_TRY(launch_iteration(g, K_STEP, (unsigned)g->blocks, (unsigned)g->map.block, a));
      if (g->variant != 0) {
        int nslots = g->blocks, fresh = 0;
        void *r[] = {&g->s, &nslots, &t, &f, &fresh};
        IPSO_TRY(launch_iteration(g, K_REDUCE, 1, (unsigned)g->map.block, r));
      }
    }
  }
  CUDA_TRY(cudaGetLastError());
  CUDA_TRY(cudaEventRecord(g->ev_stop, g->stream));
  CUDA_TRY(cudaMemcpyAsync(best, g->s.hist, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost,
                           g->stream));
  CUDA_TRY(cudaStreamSynchronize(g->stream));
  for (int64_t k = 0; k < n; k++) {
    if (isnan(best[k])) best[k] = k ? best[k - 1] : g->last_best;
  }
  g->t = last;
  /* Relaxed: blocks ran ahead, so the history is what block 0 saw; the
   * best after the last iteration is the slot itself. */
  if (g->relaxed) IPSO_TRY(read_best(g, &best[n - 1], NULL, NULL));
  g->last_best = best[n - 1];
  return IPSO_OK;
}

static int gpu_best(struct backend *b, struct island_best *out)
{
  struct gpu_swarm *g = b->impl;
  return read_best(g, &out->cost, &out->particle, out->position);
}

/* Grows the migrant buffers to COUNT migrants. */
/* Entries per block in the first selection pass. */
#define PICK_CHUNK_PER_THREAD 16

static long long pick_chunk(const struct gpu_swarm *g)
{
  return (long long)g->map.block * PICK_CHUNK_PER_THREAD;
}

static int pick_blocks(const struct gpu_swarm *g)
{
  return (int)((g->N + pick_chunk(g) - 1) / pick_chunk(g));
}

static int reserve_migrants(struct gpu_swarm *g, int count)
{
  if (count <= g->cap) return IPSO_OK;
  cudaFree(g->d_sel);
  cudaFree(g->d_selcost);
  cudaFree(g->d_pick);
  cudaFree(g->d_pickcost);
  cudaFree(g->d_buf);
  cudaFree(g->d_bufcost);
  cudaFreeHost(g->h_stage);
  g->d_sel = g->d_pick = NULL;
  g->d_selcost = g->d_pickcost = g->d_buf = g->d_bufcost = g->h_stage = NULL;
  size_t picks = (size_t)pick_blocks(g) * (size_t)count;
  CUDA_TRY(cudaMalloc((void **)&g->d_pick, picks * sizeof(long long)));
  CUDA_TRY(cudaMalloc(&g->d_pickcost, picks * g->es));
  size_t rows = (size_t)count * (size_t)g->map.pitch * g->es;
  CUDA_TRY(cudaMalloc((void **)&g->d_sel, 2 * (size_t)count * sizeof(long long)));
  CUDA_TRY(cudaMalloc(&g->d_selcost, 2 * (size_t)count * g->es));
  CUDA_TRY(cudaMalloc(&g->d_buf, rows));
  CUDA_TRY(cudaMalloc(&g->d_bufcost, (size_t)count * g->es));
  CUDA_TRY(cudaMallocHost(&g->h_stage, rows + (size_t)count * (g->es + 2 * sizeof(long long)) +
                                           (size_t)g->map.pitch * 8));
  g->cap = count;
  return IPSO_OK;
}

/* The COUNT best (WORST = 0) or worst personal bests into d_sel and
 * d_selcost: each block picks from its chunk, then one block from the picks. */
static int select_particles(struct gpu_swarm *g, int worst, int count)
{
  const void *no_index = NULL;
  long long n = g->N, chunk = pick_chunk(g);
  int nb = pick_blocks(g);
  void *a[] = {&g->s.pcost, &no_index, &n, &chunk, &worst, &count, &g->d_pick, &g->d_pickcost};
  IPSO_TRY(launch(g, K_SELECT, (unsigned)nb, (unsigned)g->map.block, a));
  long long picks = (long long)nb * count;
  void *b[] = {&g->d_pickcost, &g->d_pick, &picks,    &picks,
               &worst,         &count,     &g->d_sel, &g->d_selcost};
  return launch(g, K_SELECT, 1, (unsigned)g->map.block, b);
}

static int gpu_pack(struct backend *b, int count, double *pos, double *cost, int64_t *index)
{
  struct gpu_swarm *g = b->impl;
  IPSO_TRY(reserve_migrants(g, count));
  IPSO_TRY(select_particles(g, 0, count));
  void *ga[] = {&g->s, &g->d_sel, &count, &g->d_buf};
  IPSO_TRY(launch(g, K_GATHER, 64, 256, ga));
  size_t rows = (size_t)count * (size_t)g->map.pitch * g->es;
  char *h = g->h_stage;
  CUDA_TRY(cudaMemcpyAsync(h, g->d_buf, rows, cudaMemcpyDeviceToHost, g->stream));
  CUDA_TRY(cudaMemcpyAsync(h + rows, g->d_selcost, (size_t)count * g->es, cudaMemcpyDeviceToHost,
                           g->stream));
  long long *idx = (long long *)(h + rows + (size_t)count * g->es);
  CUDA_TRY(cudaMemcpyAsync(idx, g->d_sel, (size_t)count * sizeof(long long), cudaMemcpyDeviceToHost,
                           g->stream));
  CUDA_TRY(cudaStreamSynchronize(g->stream));
  for (int m = 0; m < count; m++) {
    for (int d = 0; d < g->D; d++) {
      size_t e = (size_t)m * g->map.pitch + (size_t)d;
      pos[(size_t)m * g->D + d] = g->fl ? ((float *)h)[e] : ((double *)h)[e];
    }
    cost[m] = g->fl ? ((float *)(h + rows))[m] : ((double *)(h + rows))[m];
    index[m] = idx[m];
  }
  return IPSO_OK;
}

static int gpu_unpack(struct backend *b, int count, const double *pos, const double *cost,
                      int64_t *replaced)
{
  struct gpu_swarm *g = b->impl;
  IPSO_TRY(reserve_migrants(g, count));
  IPSO_TRY(select_particles(g, 1, count));
  size_t rows = (size_t)count * (size_t)g->map.pitch * g->es;
  char *h = g->h_stage;
  char *hcost = h + rows;
  long long *idx = (long long *)(hcost + (size_t)count * g->es);
  CUDA_TRY(cudaMemcpyAsync(idx, g->d_sel, (size_t)count * sizeof(long long), cudaMemcpyDeviceToHost,
                           g->stream));
  CUDA_TRY(cudaMemcpyAsync(hcost, g->d_selcost, (size_t)count * g->es, cudaMemcpyDeviceToHost,
                           g->stream));
  CUDA_TRY(cudaStreamSynchronize(g->stream));
  memset(h, 0, rows);
  for (int m = 0; m < count; m++) {
    double victim = g->fl ? ((float *)hcost)[m] : ((double *)hcost)[m];
    double mc = g->fl ? (double)(float)cost[m] : cost[m];
    replaced[m] = mc < victim ? idx[m] : -1;
    idx[m] = replaced[m];
    for (int d = 0; d < g->D; d++) {
      size_t e = (size_t)m * g->map.pitch + (size_t)d;
      if (g->fl)
        ((float *)h)[e] = (float)pos[(size_t)m * g->D + d];
      else
        ((double *)h)[e] = pos[(size_t)m * g->D + d];
    }
    if (g->fl)
      ((float *)hcost)[m] = (float)cost[m];
    else
      ((double *)hcost)[m] = cost[m];
  }
  CUDA_TRY(cudaMemcpyAsync(g->d_buf, h, rows, cudaMemcpyHostToDevice, g->stream));
  CUDA_TRY(cudaMemcpyAsync(g->d_bufcost, hcost, (size_t)count * g->es, cudaMemcpyHostToDevice,
                           g->stream));
  CUDA_TRY(cudaMemcpyAsync(g->d_sel, idx, (size_t)count * sizeof(long long), cudaMemcpyHostToDevice,
                           g->stream));
  void *sa[] = {&g->s, &g->d_sel, &count, &g->d_buf, &g->d_bufcost};
  IPSO_TRY(launch(g, K_SCATTER, 64, 256, sa));
  IPSO_TRY(recompute_best(g, 0));
  return read_best(g, &g->last_best, NULL, NULL);
}

/* Copies one pitched device array of N rows to or from a dense double array. */
static int copy_rows(struct gpu_swarm *g, void *dev, double *host, int to_host)
{
  size_t n = (size_t)g->N * (size_t)g->D;
  void *tmp = malloc(n * g->es);
  if (!tmp) return IPSO_FAIL("memory", "cannot stage the swarm on the host");
  size_t dpitch = (size_t)g->map.pitch * g->es, w = (size_t)g->D * g->es;
  cudaError_t e;
  if (to_host) {
    e = cudaMemcpy2D(tmp, w, dev, dpitch, w, (size_t)g->N, cudaMemcpyDeviceToHost);
    for (size_t k = 0; k < n && e == cudaSuccess; k++)
      host[k] = g->fl ? ((float *)tmp)[k] : ((double *)tmp)[k];
  } else {
    for (size_t k = 0; k < n; k++) {
      if (g->fl)
        ((float *)tmp)[k] = (float)host[k];
      else
        ((double *)tmp)[k] = host[k];
    }
    e = cudaMemcpy2D(dev, dpitch, tmp, w, w, (size_t)g->N, cudaMemcpyHostToDevice);
  }
  free(tmp);
  CUDA_TRY(e);
  return IPSO_OK;
}

/* Copies a per-particle array between device REALs and host doubles. */
static int copy_costs(struct gpu_swarm *g, void *dev, double *host, int to_host)
{
  size_t n = (size_t)g->N;
  void *tmp = malloc(n * g->es);
  if (!tmp) return IPSO_FAIL("memory", "cannot stage the costs on the host");
  cudaError_t e = cudaSuccess;
  if (to_host) {
    e = cudaMemcpy(tmp, dev, n * g->es, cudaMemcpyDeviceToHost);
    for (size_t k = 0; k < n && e == cudaSuccess; k++)
      host[k] = g->fl ? ((float *)tmp)[k] : ((double *)tmp)[k];
  } else {
    for (size_t k = 0; k < n; k++) {
      if (g->fl)
        ((float *)tmp)[k] = (float)host[k];
      else
        ((double *)tmp)[k] = host[k];
    }
    e = cudaMemcpy(dev, tmp, n * g->es, cudaMemcpyHostToDevice);
  }
  free(tmp);
  CUDA_TRY(e);
  return IPSO_OK;
}

static int gpu_save(struct backend *b, struct swarm_state *st)
{
  struct gpu_swarm *g = b->impl;
  CUDA_TRY(cudaStreamSynchronize(g->stream));
  IPSO_TRY(copy_rows(g, g->s.x, st->position, 1));
  IPSO_TRY(copy_rows(g, g->s.v, st->velocity, 1));
  IPSO_TRY(copy_rows(g, g->s.p, st->pbest_position, 1));
  IPSO_TRY(copy_costs(g, g->s.cost, st->cost, 1));
  return copy_costs(g, g->s.pcost, st->pbest_cost, 1);
}

static int gpu_load(struct backend *b, const struct swarm_state *st)
{
  struct gpu_swarm *g = b->impl;
  CUDA_TRY(cudaStreamSynchronize(g->stream));
  IPSO_TRY(copy_rows(g, g->s.x, st->position, 0));
  IPSO_TRY(copy_rows(g, g->s.v, st->velocity, 0));
  IPSO_TRY(copy_rows(g, g->s.p, st->pbest_position, 0));
  IPSO_TRY(copy_costs(g, g->s.cost, st->cost, 0));
  IPSO_TRY(copy_costs(g, g->s.pcost, st->pbest_cost, 0));
  IPSO_TRY(recompute_best(g, 0));
  return read_best(g, &g->last_best, NULL, NULL);
}

static void gpu_destroy(struct backend *b)
{
  struct gpu_swarm *g = b->impl;
  if (!g) return;
  void *dev[] = {g->s.x,      g->s.v,    g->s.p,         g->s.cost,     g->s.pcost,
                 g->s.gb,     g->s.gpos, g->s.slot_cost, g->s.slot_idx, g->s.hist,
                 g->d_tables, g->d_sel,  g->d_selcost,   g->d_buf,      g->d_bufcost,
                 g->d_bar,    g->d_pick, g->d_pickcost};
  for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
    if (dev[i]) cudaFree(dev[i]);
  if (g->h_stage) cudaFreeHost(g->h_stage);
  if (g->prog.library) cudaLibraryUnload(g->prog.library);
  if (g->ev_start) cudaEventDestroy(g->ev_start);
  if (g->ev_stop) cudaEventDestroy(g->ev_stop);
  if (g->stream) cudaStreamDestroy(g->stream);
  free(g);
  b->impl = NULL;
}

static const struct backend_ops gpu_ops = {
    .name = "gpu",
    .init = gpu_init,
    .step = gpu_step,
    .best = gpu_best,
    .pack_migrants = gpu_pack,
    .unpack_migrants = gpu_unpack,
    .save_state = gpu_save,
    .load_state = gpu_load,
    .destroy = gpu_destroy,
};

double gpu_last_step_ms(struct backend *b)
{
  struct gpu_swarm *g = b->impl;
  float ms = 0;
  if (cudaEventElapsedTime(&ms, g->ev_start, g->ev_stop) != cudaSuccess) return -1;
  return ms;
}

const char *gpu_mapping_of(struct backend *b, char *buf, size_t n)
{
  struct gpu_swarm *g = b->impl;
  snprintf(buf, n, "G=%d V=%d %s%s", g->map.group, g->map.vec,
           g->mode == MODE_STREAMING ? "streaming"
           : g->mode == MODE_CLUSTER ? "cluster"
                                     : "resident",
           g->keep ? "+regs" : "");
  return buf;
}

int gpu_device_count(void)
{
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return 0;
  return n;
}

const char *gpu_unavailable_reason(void)
{
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) return cudaGetErrorString(e);
  return n == 0 ? "no CUDA device" : "devices present";
}

/* Compiles the kernels and looks them up. */
static int build_program(struct gpu_swarm *g, const struct swarm_consts *k, int major, int minor)
{
  const struct ipso_config *cfg = g->cfg;
  char *defines = gpu_kernel_defines(cfg, &g->map, k);
  char *prelude = NULL;
  int user = cfg->objective.id == IPSO_OBJ_USER;
  if (!defines) return IPSO_FAIL("memory", "out of memory");
  if (user && !(prelude = user_objective_wrapper(cfg))) {
    free(defines);
    return IPSO_FAIL("memory", "out of memory");
  }
  int rc = gpu_compile(defines, prelude, major, minor, user, &g->prog);
  free(defines);
  free(prelude);
  if (rc != IPSO_OK) return rc;
  for (int i = 0; i < K_COUNT; i++) {
    const char *name = i == K_STEP ? variant_kernel(g->variant) : kernel_names[i];
    if ((i == K_RES_CLUSTER || i == K_RES_GRID || i == K_RES_CLUSTER_KEEP ||
         i == K_RES_GRID_KEEP) &&
        g->D > IPSO_RESIDENT_MAX_D)
      continue;
    if ((i == K_RES_CLUSTER_KEEP || i == K_RES_GRID_KEEP) && !gpu_mapping_keep_ok(&g->map, g->D))
      continue;
    CUDA_TRY(cudaLibraryGetKernel(&g->k[i], g->prog.library, name));
  }
  return IPSO_OK;
}

/* objective.separable: the promise checked with the kernels' own arithmetic
 * at the points of user_separable_points. */
static int check_separable(struct gpu_swarm *g)
{
  enum { N = USER_SEPARABLE_POINTS };
  size_t P = (size_t)g->map.pitch, rows_bytes = N * P * g->es;
  double *pts = malloc((size_t)N * (size_t)g->D * sizeof *pts);
  char *rows = calloc(1, rows_bytes);
  double out[3 * N], whole[N], terms[N], mag[N];
  void *d_rows = NULL, *d_out = NULL;
  cudaKernel_t k;
  cudaError_t e = cudaSuccess;
  if (!pts || !rows) {
    free(pts);
    free(rows);
    return IPSO_FAIL("memory", "out of memory");
  }
  user_separable_points(g->cfg, pts);
  for (size_t i = 0; i < N; i++)
    for (size_t d = 0; d < (size_t)g->D; d++) {
      double x = pts[i * (size_t)g->D + d];
      if (g->fl)
        ((float *)rows)[i * P + d] = (float)x;
      else
        ((double *)rows)[i * P + d] = x;
    }
  int n = N;
  void *args[] = {&d_rows, &n, &d_out};
  e = cudaLibraryGetKernel(&k, g->prog.library, "separable_check_kernel");
  if (e == cudaSuccess) e = cudaMalloc(&d_rows, rows_bytes);
  if (e == cudaSuccess) e = cudaMalloc(&d_out, sizeof out);
  if (e == cudaSuccess) e = cudaMemcpy(d_rows, rows, rows_bytes, cudaMemcpyHostToDevice);
  if (e == cudaSuccess)
    e = cudaLaunchKernel((const void *)k, dim3_of(1), dim3_of(N), args, 0, g->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(g->stream);
  if (e == cudaSuccess) e = cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost);
  if (d_rows) cudaFree(d_rows);
  if (d_out) cudaFree(d_out);
  free(pts);
  free(rows);
  if (e != cudaSuccess)
    return IPSO_FAIL("cuda", "checking objective.separable: %s (%s)", cudaGetErrorString(e),
                     cudaGetErrorName(e));
  for (int i = 0; i < N; i++) {
    whole[i] = out[3 * i];
    terms[i] = out[3 * i + 1];
    mag[i] = out[3 * i + 2];
  }
  return user_separable_verdict(g->cfg, whole, terms, mag);
}

int backend_gpu_create(const struct swarm_setup *setup, struct backend *b)
{
  const struct ipso_config *cfg = setup->cfg;
  struct gpu_swarm *g = calloc(1, sizeof *g);
  if (!g) return IPSO_FAIL("gpu", "out of memory");
  b->ops = &gpu_ops;
  b->setup = *setup;
  b->impl = g;
  b->segment_updates = 0x1p31; /* launches queued ahead of the host: milliseconds */
  b->exact = 0;
  g->cfg = cfg;
  g->device = setup->device < 0 ? 0 : setup->device;
  g->D = cfg->objective.dimensions;
  g->N = cfg->swarm.particles;
  g->fl = cfg->run.precision == IPSO_FLOAT;
  g->es = g->fl ? sizeof(float) : sizeof(double);
  g->relaxed = cfg->swarm.sync == IPSO_SYNC_RELAXED;
  g->variant = cfg->swarm.kernel == IPSO_KERNEL_QUEUE_LOCK ? 0
               : cfg->swarm.kernel == IPSO_KERNEL_QUEUE    ? 1
                                                           : 2;
  gpu_mapping_choose(g->D, g->fl, cfg->objective.id == IPSO_OBJ_USER && !cfg->objective.separable,
                     &g->map);
  g->island = setup->island;
  g->blocks = (int)((g->N + gpu_mapping_ppb(&g->map) - 1) / gpu_mapping_ppb(&g->map));

  struct cudaDeviceProp prop;
  int rc = IPSO_OK;
  struct swarm_consts k = {0};
  cudaError_t e = cudaSetDevice(g->device);
  if (e == cudaSuccess) e = cudaGetDeviceProperties(&prop, g->device);
  if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking);
  if (e == cudaSuccess) e = cudaEventCreate(&g->ev_start);
  if (e == cudaSuccess) e = cudaEventCreate(&g->ev_stop);
  if (e != cudaSuccess)
    rc = IPSO_FAIL("cuda", "cannot use GPU %d: %s", g->device, cudaGetErrorString(e));
  if (rc == IPSO_OK) rc = swarm_consts_build(cfg, &k);
  if (rc == IPSO_OK) rc = build_program(g, &k, prop.major, prop.minor);
  const char *pdl = getenv("IPSO_GPU_PDL"); /* 0: plain launches, for comparison */
  g->pdl = prop.major >= 9 && !(pdl && pdl[0] == '0');
  if (rc == IPSO_OK) rc = choose_mode(g, &prop);
  if (rc == IPSO_OK) {
    char bus[32] = "?";
    cudaDeviceGetPCIBusId(bus, sizeof bus, g->device);
    snprintf(b->description, sizeof b->description, "gpu %d (%.96s, %s, %.0f GiB), %s %s, %s%s",
             g->device, prop.name, bus, (double)prop.totalGlobalMem / (1 << 30),
             config_kernel_name(cfg->swarm.kernel), config_sync_name(cfg->swarm.sync),
             mode_names[g->mode], g->keep ? " (state in registers)" : "");
  }
  if (rc == IPSO_OK) rc = allocate(g);
  if (rc == IPSO_OK) rc = upload_constants(g, &k);
  if (rc == IPSO_OK && cfg->objective.id == IPSO_OBJ_USER && cfg->objective.separable)
    rc = check_separable(g);
  if (rc == IPSO_OK) rc = reserve_migrants(g, 1);
  swarm_consts_free(&k);
  if (rc == IPSO_OK && g->prog.compile_seconds > 0 && setup->island == 0)
    log_info("islandpso: compiled the GPU kernels in %.2f s (cached for later runs)",
             g->prog.compile_seconds);
  if (rc != IPSO_OK) gpu_destroy(b);
  return rc;
}

/* The CUDA backend: the swarms of K islands in device memory, one set of
 * arrays with the islands one after the other (kernels/gpu_abi.h), kernels
 * compiled at start-up by NVRTC (kernels/pso_kernels.cu) for this problem
 * and this GPU. Every per-iteration launch runs all K islands (blockIdx.y);
 * migration and reading a best work on one island through its view. Host
 * code only enqueues work on the backend's stream; the only host<->device
 * copies inside the iteration loop are the per-iteration best costs at
 * segment ends (a few bytes per iteration and island) and the migrants.
 *
 * The backend's operations are here; the launch plan is in gpu_plan.c, the
 * launchers in gpu_launch.c, the float/double staging in gpu_stage.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "backend_gpu.h"
#include "check.h"
#include "gpu_abi.h"
#include "gpu_compile.h"
#include "gpu_launch.h"
#include "gpu_plan.h"
#include "gpu_stage.h"
#include "log.h"
#include "timings.h"
#include "objective.h"
#include "user_objective.h"

struct gpu_swarm {
  const struct ipso_config *cfg;
  struct gpu_plan plan;
  int device, island, D, fl;
  int count;           /* K: islands, global ids island .. island + count - 1 */
  unsigned int *d_bar; /* grid barrier: arrivals, generation */
  int64_t N;
  size_t es; /* bytes per element */
  int64_t t; /* last completed iteration */
  cudaStream_t stream;
  struct gpu_program prog;
  struct gpu_kernels k;
  struct swarm_ptrs s;
  void *d_tables;    /* lo, hi, span, vmax, prm: [pitch] each */
  long long *d_sel;  /* [count * cap] selected indices, island-major */
  void *d_selcost;   /* [2 * cap] their costs */
  long long *d_pick; /* [pick_blocks * cap] the selection blocks' picks */
  void *d_pickcost;  /* [pick_blocks * cap] their costs */
  void *d_buf;       /* [cap * pitch] migrant rows */
  void *d_bufcost;   /* [cap] migrant costs */
  long long *d_in;   /* [count * cap] indices of the migrants in */
  void *h_stage;     /* pinned staging: a position, then migrants out and in */
  size_t stage_pos;  /* bytes of the position at the start of h_stage */
  int cap;           /* migrants per island the buffers hold */
  int packed;        /* migrants per island in pinned area 0 (0: none, stale) */
  int victims;       /* victims per island in pinned area 0 (0: none, stale) */
  char *unpacked;    /* [count] island took migrants since the victims were chosen */
  int stale;         /* last_best needs reading (after migrants came in) */
  int64_t hist_cap;
  double *last_best;             /* [count] each island's best cost after iteration t */
  union gpu_slot *h_slots;       /* [count * IPSO_GB_SLOTS] read_last_bests' copy */
  cudaEvent_t ev_start, ev_stop; /* around the launches of the last step() */
};

/* Allocates the swarm arrays (zeroed, so row padding is defined). */
static int allocate(struct gpu_swarm *g)
{
  int pitch = g->plan.map.pitch;
  size_t K = (size_t)g->count;
  size_t rows = K * (size_t)g->N * (size_t)pitch * g->es, n = K * (size_t)g->N * g->es;
  void **arr[3] = {&g->s.x, &g->s.v, &g->s.p};
  for (int i = 0; i < 3; i++) {
    cudaError_t e = cudaMalloc(arr[i], rows);
    if (e != cudaSuccess)
      return IPSO_FAIL("cuda", "cannot allocate %.2f GiB for the swarm on GPU %d: %s",
                       (double)rows / (1 << 30), g->device, cudaGetErrorString(e));
    IPSO_CHECK_CUDA(cudaMemset(*arr[i], 0, rows));
  }
  if (g->plan.ring) {
    cudaError_t e = cudaMalloc(&g->s.lbest, rows);
    if (e != cudaSuccess)
      return IPSO_FAIL("cuda", "cannot allocate %.2f GiB for the ring attractors on GPU %d: %s",
                       (double)rows / (1 << 30), g->device, cudaGetErrorString(e));
    IPSO_CHECK_CUDA(cudaMemset(g->s.lbest, 0, rows));
  }
  IPSO_CHECK_CUDA(cudaMalloc(&g->s.cost, n));
  IPSO_CHECK_CUDA(cudaMalloc(&g->s.pcost, n));
  union gpu_slot slots[IPSO_GB_SLOTS];
  gpu_slots_empty(slots, g->fl);
  IPSO_CHECK_CUDA(cudaMalloc(&g->s.gb, K * sizeof slots));
  for (size_t k = 0; k < K; k++)
    IPSO_CHECK_CUDA(cudaMemcpy((char *)g->s.gb + k * sizeof slots, slots, sizeof slots,
                               cudaMemcpyHostToDevice));
  size_t gpos = K * IPSO_GB_SLOTS * (size_t)pitch * g->es;
  IPSO_CHECK_CUDA(cudaMalloc(&g->s.gpos, gpos));
  IPSO_CHECK_CUDA(cudaMemset(g->s.gpos, 0, gpos));
  /* Per-block candidates: the step kernels' blocks, at least as many as
   * candidates_kernel's (a particle per thread). */
  g->s.slot_stride = g->plan.blocks;
  IPSO_CHECK_CUDA(cudaMalloc(&g->s.slot_cost, K * (size_t)g->plan.blocks * g->es));
  IPSO_CHECK_CUDA(
      cudaMalloc((void **)&g->s.slot_idx, K * (size_t)g->plan.blocks * sizeof(long long)));
  IPSO_CHECK_CUDA(cudaMalloc((void **)&g->d_bar, 2 * sizeof(unsigned int)));
  IPSO_CHECK_CUDA(cudaMemset(g->d_bar, 0, 2 * sizeof(unsigned int)));
  g->hist_cap = (int64_t)K;
  g->s.hist_stride = 1;
  IPSO_CHECK_CUDA(cudaMalloc((void **)&g->s.hist, K * sizeof(double)));
  return IPSO_OK;
}

/* Island K's part of the swarm arrays (island_ptrs of kernels/pso_device.cuh
 * on the host), for the launches of one island (gridDim.y = 1). */
static struct swarm_ptrs island_view(const struct gpu_swarm *g, int k)
{
  struct swarm_ptrs v = g->s;
  size_t rows = (size_t)k * (size_t)g->N, pitch = (size_t)g->plan.map.pitch, es = g->es;
  v.x = (char *)v.x + rows * pitch * es;
  v.v = (char *)v.v + rows * pitch * es;
  v.p = (char *)v.p + rows * pitch * es;
  v.cost = (char *)v.cost + rows * es;
  v.pcost = (char *)v.pcost + rows * es;
  v.gb = (char *)v.gb + (size_t)k * IPSO_GB_SLOTS * IPSO_GB_SLOT_BYTES;
  v.gpos = (char *)v.gpos + (size_t)k * IPSO_GB_SLOTS * pitch * es;
  v.slot_cost = (char *)v.slot_cost + (size_t)k * (size_t)v.slot_stride * es;
  v.slot_idx = v.slot_idx + (size_t)k * (size_t)v.slot_stride;
  v.hist = NULL;
  if (v.lbest) v.lbest = (char *)v.lbest + rows * pitch * es;
  return v;
}

/* Recomputes the global best of COUNT islands from island FIRST on from the
 * personal bests as they are, into the slot of iteration g->t (after init,
 * a load or a migration). */
static int recompute_best(struct gpu_swarm *g, int first, int count, int from_init)
{
  struct swarm_ptrs s = island_view(g, first);
  unsigned block = (unsigned)g->plan.map.block;
  unsigned cand_blocks = (unsigned)((g->N + block - 1) / block);
  if (!from_init)
    IPSO_CHECK_CUDA(
        ipso_launch_candidates(&g->k, cand_blocks, (unsigned)count, block, s, g->stream));
  int nslots = from_init ? g->plan.blocks : (int)cand_blocks;
  IPSO_CHECK_CUDA(
      ipso_launch_reduce(&g->k, (unsigned)count, block, 0, s, nslots, g->t, g->t, 1, g->stream));
  return IPSO_OK;
}

/* Reads island K's best of the slot of iteration g->t: cost, index, position. */
static int read_best(struct gpu_swarm *g, int k, double *cost, int64_t *idx, double *pos)
{
  int cur = g->plan.relaxed ? 0 : (int)(g->t & 1);
  union gpu_slot slot;
  struct swarm_ptrs v = island_view(g, k);
  char *gb = v.gb;
  IPSO_CHECK_CUDA(cudaMemcpyAsync(&slot, gb + cur * IPSO_GB_SLOT_BYTES, IPSO_GB_SLOT_BYTES,
                                  cudaMemcpyDeviceToHost, g->stream));
  int pitch = g->plan.map.pitch;
  if (pos) {
    char *gp = v.gpos;
    IPSO_CHECK_CUDA(cudaMemcpyAsync(g->h_stage, gp + (size_t)cur * pitch * g->es,
                                    (size_t)g->D * g->es, cudaMemcpyDeviceToHost, g->stream));
  }
  IPSO_CHECK_CUDA(cudaStreamSynchronize(g->stream));
  *cost = gpu_slot_cost(&slot, g->fl);
  if (idx) *idx = gpu_slot_particle(&slot, g->fl);
  if (pos) gpu_rows_from_real(pos, g->h_stage, pitch, 1, g->D, g->fl);
  return IPSO_OK;
}

/* Every island's best after iteration g->t into last_best (one copy of
 * all the slots). */
static int read_last_bests(struct gpu_swarm *g)
{
  int cur = g->plan.relaxed ? 0 : (int)(g->t & 1);
  size_t bytes = (size_t)g->count * IPSO_GB_SLOTS * IPSO_GB_SLOT_BYTES;
  IPSO_CHECK_CUDA(cudaMemcpyAsync(g->h_slots, g->s.gb, bytes, cudaMemcpyDeviceToHost, g->stream));
  IPSO_CHECK_CUDA(cudaStreamSynchronize(g->stream));
  for (int k = 0; k < g->count; k++)
    g->last_best[k] = gpu_slot_cost(&g->h_slots[k * IPSO_GB_SLOTS + cur], g->fl);
  g->stale = 0;
  return IPSO_OK;
}

/* The migrants selected (out or victims) are no longer those of the swarms
 * (they moved, or were reloaded). */
static void forget_selection(struct gpu_swarm *g)
{
  g->packed = g->victims = 0;
}

static int gpu_init(struct backend *b)
{
  struct gpu_swarm *g = b->impl;
  g->t = 0;
  forget_selection(g);
  IPSO_CHECK_CUDA(ipso_launch_init(&g->k, (unsigned)g->plan.blocks, (unsigned)g->count,
                                   (unsigned)g->plan.map.block, g->s, g->stream));
  IPSO_TRY(recompute_best(g, 0, g->count, 1));
  return read_last_bests(g);
}

static int gpu_step(struct backend *b, int64_t first, int64_t last, double *best)
{
  struct gpu_swarm *g = b->impl;
  const struct gpu_plan *p = &g->plan;
  int64_t n = last - first + 1, all = n * g->count;
  forget_selection(g);
  if (g->stale) IPSO_TRY(read_last_bests(g));
  if (all > g->hist_cap) {
    IPSO_CHECK_CUDA(cudaFree(g->s.hist));
    g->s.hist = NULL;
    IPSO_CHECK_CUDA(cudaMalloc((void **)&g->s.hist, (size_t)all * sizeof(double)));
    g->hist_cap = all;
  }
  /* Island k's history at [k * n]: the interface's layout of BEST. */
  g->s.hist_stride = n;
  /* NaN marks an iteration in which nothing improved the best (relaxed). */
  IPSO_CHECK_CUDA(cudaMemsetAsync(g->s.hist, 0xff, (size_t)all * sizeof(double), g->stream));
  unsigned block = (unsigned)p->map.block, islands = (unsigned)g->count;
  IPSO_CHECK_CUDA(cudaEventRecord(g->ev_start, g->stream));
  if (p->mode != GPU_MODE_STREAMING) {
    IPSO_CHECK_CUDA(ipso_launch_resident(&g->k, p->mode, p->keep, (unsigned)p->res_blocks, block,
                                         g->s, first, last, g->d_bar, g->stream));
  } else {
    for (long long t = first; t <= last; t++) {
      if (p->ring)
        IPSO_CHECK_CUDA(ipso_launch_lbest(&g->k, islands, block, p->pdl, g->s, g->N, g->stream));
      IPSO_CHECK_CUDA(ipso_launch_step(&g->k, (unsigned)p->blocks, islands, block, p->pdl, g->s, t,
                                       first, g->stream));
      if (p->variant != GPU_QUEUE_LOCK)
        IPSO_CHECK_CUDA(ipso_launch_reduce(&g->k, islands, block, p->pdl, g->s, p->blocks, t, first,
                                           0, g->stream));
    }
  }
  IPSO_CHECK_CUDA(cudaGetLastError());
  IPSO_CHECK_CUDA(cudaEventRecord(g->ev_stop, g->stream));
  IPSO_CHECK_CUDA(cudaMemcpyAsync(best, g->s.hist, (size_t)all * sizeof(double),
                                  cudaMemcpyDeviceToHost, g->stream));
  IPSO_CHECK_CUDA(cudaStreamSynchronize(g->stream));
  for (int k = 0; k < g->count; k++) {
    double *h = best + (size_t)k * (size_t)n;
    for (int64_t j = 0; j < n; j++)
      if (isnan(h[j])) h[j] = j ? h[j - 1] : g->last_best[k];
  }
  g->t = last;
  /* Relaxed: blocks ran ahead, so the history is what block 0 saw; the
   * best after the last iteration is the slot itself. */
  if (p->relaxed) IPSO_TRY(read_last_bests(g));
  for (int k = 0; k < g->count; k++) {
    double *h = best + (size_t)k * (size_t)n;
    if (p->relaxed)
      h[n - 1] = g->last_best[k];
    else
      g->last_best[k] = h[n - 1];
  }
  return IPSO_OK;
}

static int gpu_best(struct backend *b, int k, struct island_best *out)
{
  struct gpu_swarm *g = b->impl;
  return read_best(g, k, &out->cost, &out->particle, out->position);
}

/* Entries per block in the first selection pass. */
#define PICK_CHUNK_PER_THREAD 16

static long long pick_chunk(const struct gpu_swarm *g)
{
  return (long long)g->plan.map.block * PICK_CHUNK_PER_THREAD;
}

static int pick_blocks(const struct gpu_swarm *g)
{
  return (int)((g->N + pick_chunk(g) - 1) / pick_chunk(g));
}

static size_t align16(size_t n)
{
  return (n + 15) & ~(size_t)15;
}

/* Grows the migrant buffers to COUNT migrants per island (every island's
 * selection, rows and costs side by side, island-major); the cached
 * selections go with the old buffers. */
static int reserve_migrants(struct gpu_swarm *g, int count)
{
  if (count <= g->cap) return IPSO_OK;
  /* Copies of migrants in may still read the pinned buffer. */
  IPSO_CHECK_CUDA(cudaStreamSynchronize(g->stream));
  cudaFree(g->d_sel);
  cudaFree(g->d_selcost);
  cudaFree(g->d_pick);
  cudaFree(g->d_pickcost);
  cudaFree(g->d_buf);
  cudaFree(g->d_bufcost);
  cudaFree(g->d_in);
  cudaFreeHost(g->h_stage);
  g->d_sel = g->d_pick = g->d_in = NULL;
  g->d_selcost = g->d_pickcost = g->d_buf = g->d_bufcost = g->h_stage = NULL;
  g->packed = g->victims = 0;
  g->cap = 0;
  size_t K = (size_t)g->count, c = (size_t)count, pitch = (size_t)g->plan.map.pitch;
  size_t picks = K * (size_t)pick_blocks(g) * c;
  IPSO_CHECK_CUDA(cudaMalloc((void **)&g->d_pick, picks * sizeof(long long)));
  IPSO_CHECK_CUDA(cudaMalloc(&g->d_pickcost, picks * g->es));
  size_t rows = K * c * pitch * g->es;
  IPSO_CHECK_CUDA(cudaMalloc((void **)&g->d_sel, K * c * sizeof(long long)));
  IPSO_CHECK_CUDA(cudaMalloc(&g->d_selcost, K * c * g->es));
  IPSO_CHECK_CUDA(cudaMalloc((void **)&g->d_in, K * c * sizeof(long long)));
  IPSO_CHECK_CUDA(cudaMalloc(&g->d_buf, rows));
  IPSO_CHECK_CUDA(cudaMalloc(&g->d_bufcost, K * c * g->es));
  /* Pinned: the position read_best copies, then two areas of K * COUNT
   * rows, costs and indices: the migrants out (and the victims), and the
   * migrants in, each island in its own part, so that the copies of one
   * island's migrants in never wait for another's. */
  size_t area = align16(rows) + align16(K * c * sizeof(long long)) + align16(K * c * g->es);
  g->stage_pos = align16(pitch * 8);
  IPSO_CHECK_CUDA(cudaMallocHost(&g->h_stage, g->stage_pos + 2 * area));
  g->cap = count;
  return IPSO_OK;
}

/* The parts of a pinned area (AREA 0: out and victims, 1: in), each
 * 16-byte aligned: rows, indices and costs of K * cap migrants; island K's
 * COUNT migrants (COUNT <= cap) at [k * count] of each part, as on the
 * device. */
static size_t part_rows(const struct gpu_swarm *g)
{
  return align16((size_t)g->count * (size_t)g->cap * (size_t)g->plan.map.pitch * g->es);
}

static size_t part_index(const struct gpu_swarm *g)
{
  return align16((size_t)g->count * (size_t)g->cap * sizeof(long long));
}

static char *area_base(struct gpu_swarm *g, int area)
{
  size_t size = part_rows(g) + part_index(g) + align16((size_t)g->count * (size_t)g->cap * g->es);
  return (char *)g->h_stage + g->stage_pos + (size_t)area * size;
}

static char *stage_rows(struct gpu_swarm *g, int area, int k, int count)
{
  return area_base(g, area) + (size_t)k * (size_t)count * (size_t)g->plan.map.pitch * g->es;
}

static long long *stage_index(struct gpu_swarm *g, int area, int k, int count)
{
  return (long long *)(area_base(g, area) + part_rows(g)) + (size_t)k * (size_t)count;
}

static char *stage_costs(struct gpu_swarm *g, int area, int k, int count)
{
  return area_base(g, area) + part_rows(g) + part_index(g) + (size_t)k * (size_t)count * g->es;
}

/* The COUNT best (WORST = 0) or worst personal bests of every island into
 * d_sel and d_selcost (island k's at [k * count]): each block picks from its
 * chunk of its island, then one block per island from the picks. Two
 * launches for all islands. */
static int select_particles(struct gpu_swarm *g, int worst, int count)
{
  unsigned block = (unsigned)g->plan.map.block, islands = (unsigned)g->count;
  int nb = pick_blocks(g);
  long long picks = (long long)nb * count;
  IPSO_CHECK_CUDA(ipso_launch_select(&g->k, (unsigned)nb, islands, block, g->s.pcost, NULL, g->N,
                                     pick_chunk(g), g->N, picks, worst, count, g->d_pick,
                                     g->d_pickcost, g->stream));
  IPSO_CHECK_CUDA(ipso_launch_select(&g->k, 1, islands, block, g->d_pickcost, g->d_pick, picks,
                                     picks, picks, count, worst, count, g->d_sel, g->d_selcost,
                                     g->stream));
  return IPSO_OK;
}

/* Every island's COUNT best personal bests (rows, costs, indices) into the
 * pinned area 0, in one pass: the solver packs all islands before it
 * unpacks any, so one selection, one gather and one copy serve them all. */
static int pack_all(struct gpu_swarm *g, int count)
{
  IPSO_TRY(reserve_migrants(g, count));
  if (g->packed == count) return IPSO_OK;
  IPSO_TRY(select_particles(g, 0, count));
  IPSO_CHECK_CUDA(
      ipso_launch_gather(&g->k, (unsigned)g->count, g->s, g->d_sel, count, g->d_buf, g->stream));
  size_t n = (size_t)g->count * (size_t)count;
  size_t rows = n * (size_t)g->plan.map.pitch * g->es;
  IPSO_CHECK_CUDA(cudaMemcpyAsync(stage_rows(g, 0, 0, count), g->d_buf, rows,
                                  cudaMemcpyDeviceToHost, g->stream));
  IPSO_CHECK_CUDA(cudaMemcpyAsync(stage_costs(g, 0, 0, count), g->d_selcost, n * g->es,
                                  cudaMemcpyDeviceToHost, g->stream));
  IPSO_CHECK_CUDA(cudaMemcpyAsync(stage_index(g, 0, 0, count), g->d_sel, n * sizeof(long long),
                                  cudaMemcpyDeviceToHost, g->stream));
  IPSO_CHECK_CUDA(cudaStreamSynchronize(g->stream));
  g->packed = count;
  g->victims = 0; /* area 0 now holds the migrants out */
  return IPSO_OK;
}

static int gpu_pack(struct backend *b, int k, int count, double *pos, double *cost, int64_t *index)
{
  struct gpu_swarm *g = b->impl;
  IPSO_TRY(pack_all(g, count));
  gpu_rows_from_real(pos, stage_rows(g, 0, k, count), g->plan.map.pitch, (size_t)count, g->D,
                     g->fl);
  const char *c = stage_costs(g, 0, k, count);
  const long long *idx = stage_index(g, 0, k, count);
  for (int m = 0; m < count; m++) {
    cost[m] = gpu_real_get(c, (size_t)m, g->fl);
    index[m] = idx[m];
  }
  return IPSO_OK;
}

/* Every island's COUNT worst personal bests (costs, indices) into the
 * pinned area 0, in one pass, unless they are there and island K has not
 * taken migrants since. */
static int victims_all(struct gpu_swarm *g, int k, int count)
{
  IPSO_TRY(reserve_migrants(g, count));
  if (g->victims == count && !g->unpacked[k]) return IPSO_OK;
  IPSO_TRY(select_particles(g, 1, count));
  size_t n = (size_t)g->count * (size_t)count;
  IPSO_CHECK_CUDA(cudaMemcpyAsync(stage_costs(g, 0, 0, count), g->d_selcost, n * g->es,
                                  cudaMemcpyDeviceToHost, g->stream));
  IPSO_CHECK_CUDA(cudaMemcpyAsync(stage_index(g, 0, 0, count), g->d_sel, n * sizeof(long long),
                                  cudaMemcpyDeviceToHost, g->stream));
  IPSO_CHECK_CUDA(cudaStreamSynchronize(g->stream));
  g->victims = count;
  g->packed = 0; /* area 0 now holds the victims */
  memset(g->unpacked, 0, (size_t)g->count * sizeof *g->unpacked);
  return IPSO_OK;
}

/* Island K takes the migrants: its victims from the one selection of all
 * islands' worst; the rows, costs and indices go through island K's own
 * part of the pinned area 1, and the copies, the scatter and the new global
 * best are only enqueued (the next step, best or migration waits for them). */
static int gpu_unpack(struct backend *b, int k, int count, const double *pos, const double *cost,
                      int64_t *replaced)
{
  struct gpu_swarm *g = b->impl;
  IPSO_TRY(victims_all(g, k, count));
  int pitch = g->plan.map.pitch;
  size_t rows = (size_t)count * (size_t)pitch * g->es;
  const char *vcost = stage_costs(g, 0, k, count);
  const long long *vidx = stage_index(g, 0, k, count);
  char *h = stage_rows(g, 1, k, count), *hcost = stage_costs(g, 1, k, count);
  long long *idx = stage_index(g, 1, k, count);
  memset(h, 0, rows);
  for (int m = 0; m < count; m++) {
    double victim = gpu_real_get(vcost, (size_t)m, g->fl);
    double mc = g->fl ? (double)(float)cost[m] : cost[m];
    replaced[m] = mc < victim ? vidx[m] : -1;
    idx[m] = replaced[m];
    gpu_real_set(hcost, (size_t)m, cost[m], g->fl);
  }
  gpu_rows_to_real(h, pitch, pos, (size_t)count, g->D, g->fl);
  size_t at = (size_t)k * (size_t)count;
  char *d_buf = (char *)g->d_buf + at * (size_t)pitch * g->es;
  char *d_cost = (char *)g->d_bufcost + at * g->es;
  long long *d_idx = g->d_in + at;
  IPSO_CHECK_CUDA(cudaMemcpyAsync(d_buf, h, rows, cudaMemcpyHostToDevice, g->stream));
  IPSO_CHECK_CUDA(
      cudaMemcpyAsync(d_cost, hcost, (size_t)count * g->es, cudaMemcpyHostToDevice, g->stream));
  IPSO_CHECK_CUDA(cudaMemcpyAsync(d_idx, idx, (size_t)count * sizeof(long long),
                                  cudaMemcpyHostToDevice, g->stream));
  IPSO_CHECK_CUDA(
      ipso_launch_scatter(&g->k, island_view(g, k), d_idx, count, d_buf, d_cost, g->stream));
  IPSO_TRY(recompute_best(g, k, 1, 0));
  g->unpacked[k] = 1;
  g->packed = 0;
  g->stale = 1;
  return IPSO_OK;
}

static int gpu_save(struct backend *b, struct swarm_state *st)
{
  struct gpu_swarm *g = b->impl;
  int pitch = g->plan.map.pitch;
  size_t n = (size_t)g->N * (size_t)g->count; /* island-major on both sides */
  IPSO_CHECK_CUDA(cudaStreamSynchronize(g->stream));
  IPSO_TRY(gpu_stage_rows(g->s.x, pitch, st->position, n, g->D, g->fl, 1));
  IPSO_TRY(gpu_stage_rows(g->s.v, pitch, st->velocity, n, g->D, g->fl, 1));
  IPSO_TRY(gpu_stage_rows(g->s.p, pitch, st->pbest_position, n, g->D, g->fl, 1));
  IPSO_TRY(gpu_stage_costs(g->s.cost, st->cost, n, g->fl, 1));
  return gpu_stage_costs(g->s.pcost, st->pbest_cost, n, g->fl, 1);
}

static int gpu_load(struct backend *b, const struct swarm_state *st)
{
  struct gpu_swarm *g = b->impl;
  int pitch = g->plan.map.pitch;
  size_t n = (size_t)g->N * (size_t)g->count;
  IPSO_CHECK_CUDA(cudaStreamSynchronize(g->stream));
  IPSO_TRY(gpu_stage_rows(g->s.x, pitch, st->position, n, g->D, g->fl, 0));
  IPSO_TRY(gpu_stage_rows(g->s.v, pitch, st->velocity, n, g->D, g->fl, 0));
  IPSO_TRY(gpu_stage_rows(g->s.p, pitch, st->pbest_position, n, g->D, g->fl, 0));
  IPSO_TRY(gpu_stage_costs(g->s.cost, st->cost, n, g->fl, 0));
  IPSO_TRY(gpu_stage_costs(g->s.pcost, st->pbest_cost, n, g->fl, 0));
  forget_selection(g);
  IPSO_TRY(recompute_best(g, 0, g->count, 0));
  return read_last_bests(g);
}

static void gpu_destroy(struct backend *b)
{
  struct gpu_swarm *g = b->impl;
  if (!g) return;
  void *dev[] = {g->s.x,      g->s.v,    g->s.p,         g->s.cost,     g->s.pcost,
                 g->s.gb,     g->s.gpos, g->s.slot_cost, g->s.slot_idx, g->s.hist,
                 g->d_tables, g->d_sel,  g->d_selcost,   g->d_buf,      g->d_bufcost,
                 g->d_bar,    g->d_pick, g->d_pickcost,  g->s.lbest,    g->d_in};
  for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
    if (dev[i]) cudaFree(dev[i]);
  if (g->h_stage) cudaFreeHost(g->h_stage);
  if (g->prog.library) cudaLibraryUnload(g->prog.library);
  if (g->ev_start) cudaEventDestroy(g->ev_start);
  if (g->ev_stop) cudaEventDestroy(g->ev_stop);
  if (g->stream) cudaStreamDestroy(g->stream);
  free(g->last_best);
  free(g->h_slots);
  free(g->unpacked);
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
  const struct gpu_plan *p = &g->plan;
  snprintf(buf, n, "G=%d V=%d %s%s", p->map.group, p->map.vec,
           p->mode == GPU_MODE_STREAMING ? "streaming"
           : p->mode == GPU_MODE_CLUSTER ? "cluster"
                                         : "resident",
           p->keep ? "+regs" : "");
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
  char *defines = gpu_kernel_defines(cfg, &g->plan.map, k);
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
  IPSO_CHECK_CUDA(
      ipso_kernels_load(g->prog.library, &g->plan, user && cfg->objective.separable, &g->k));
  return IPSO_OK;
}

/* The launch mode, from the device and the resident kernels' occupancy. */
static int plan_launch(struct gpu_swarm *g, const struct cudaDeviceProp *prop)
{
  struct gpu_device_facts dev = {prop->major, prop->multiProcessorCount, 0, 0};
  int block = g->plan.map.block;
  if (gpu_plan_resident_possible(&g->plan)) {
    IPSO_CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &dev.per_sm, (const void *)g->k.res_grid, block, 0));
    if (g->k.res_grid_keep)
      IPSO_CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &dev.per_sm_keep, (const void *)g->k.res_grid_keep, block, 0));
  }
  gpu_plan_launch(&g->plan, &dev);
  return IPSO_OK;
}

/* objective.separable: the promise checked with the kernels' own arithmetic
 * at the points of user_separable_points. */
static int check_separable(struct gpu_swarm *g)
{
  enum { N = USER_SEPARABLE_POINTS };
  int pitch = g->plan.map.pitch;
  size_t rows_bytes = N * (size_t)pitch * g->es;
  double *pts = malloc((size_t)N * (size_t)g->D * sizeof *pts);
  char *rows = calloc(1, rows_bytes);
  double out[3 * N], whole[N], terms[N], mag[N];
  void *d_rows = NULL, *d_out = NULL;
  int rc = IPSO_OK;
  if (!pts || !rows) {
    rc = IPSO_FAIL("memory", "out of memory");
    goto done;
  }
  user_separable_points(g->cfg, pts);
  gpu_rows_to_real(rows, pitch, pts, N, g->D, g->fl);
  IPSO_CHECK_CUDA_GOTO(cudaMalloc(&d_rows, rows_bytes), rc, done);
  IPSO_CHECK_CUDA_GOTO(cudaMalloc(&d_out, sizeof out), rc, done);
  IPSO_CHECK_CUDA_GOTO(cudaMemcpy(d_rows, rows, rows_bytes, cudaMemcpyHostToDevice), rc, done);
  IPSO_CHECK_CUDA_GOTO(ipso_launch_separable_check(&g->k, d_rows, N, d_out, g->stream), rc, done);
  IPSO_CHECK_CUDA_GOTO(cudaStreamSynchronize(g->stream), rc, done);
  IPSO_CHECK_CUDA_GOTO(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost), rc, done);
done:
  if (d_rows) cudaFree(d_rows);
  if (d_out) cudaFree(d_out);
  free(pts);
  free(rows);
  if (rc != IPSO_OK) return rc;
  for (int i = 0; i < N; i++) {
    whole[i] = out[3 * i];
    terms[i] = out[3 * i + 1];
    mag[i] = out[3 * i + 2];
  }
  return user_separable_verdict(g->cfg, whole, terms, mag);
}

int backend_gpu_create(const struct swarm_setup *setup, struct backend *b)
{
  struct gpu_overrides o = gpu_overrides_from_env();
  return backend_gpu_create_with(setup, &o, b);
}

int backend_gpu_create_with(const struct swarm_setup *setup, const struct gpu_overrides *o,
                            struct backend *b)
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
  g->island = setup->island;
  g->count = swarm_setup_count(setup);
  gpu_plan_mapping(cfg, o, g->count, &g->plan);
  if (g->count > IPSO_MAX_ISLANDS) {
    gpu_destroy(b);
    return IPSO_FAIL("gpu", "%d islands on one GPU: at most %d", swarm_setup_count(setup),
                     IPSO_MAX_ISLANDS);
  }
  g->last_best = calloc((size_t)g->count, sizeof *g->last_best);
  g->h_slots = calloc((size_t)g->count * IPSO_GB_SLOTS, sizeof *g->h_slots);
  g->unpacked = calloc((size_t)g->count, 1);
  if (!g->last_best || !g->h_slots || !g->unpacked) {
    gpu_destroy(b);
    return IPSO_FAIL("gpu", "out of memory");
  }

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
  timings_mark("GPU context");
  if (rc == IPSO_OK) rc = swarm_consts_build(cfg, &k);
  if (rc == IPSO_OK) rc = build_program(g, &k, prop.major, prop.minor);
  timings_mark(g->prog.compile_seconds > 0 ? "GPU kernels compiled (NVRTC)" : "GPU kernels loaded");
  if (rc == IPSO_OK) rc = plan_launch(g, &prop);
  if (rc == IPSO_OK) {
    char bus[32] = "?", forced[96], ring[48] = "", mode[96];
    cudaDeviceGetPCIBusId(bus, sizeof bus, g->device);
    gpu_overrides_describe(o, forced, sizeof forced);
    if (g->plan.ring) snprintf(ring, sizeof ring, " ring k=%d", g->plan.neighbours);
    snprintf(b->description, sizeof b->description,
             "gpu %d (%.96s, %s, %.0f GiB), %s %s%s, %s%s%s%s", g->device, prop.name, bus,
             (double)prop.totalGlobalMem / (1 << 30), config_kernel_name(cfg->swarm.kernel),
             config_sync_name(cfg->swarm.sync), ring,
             gpu_plan_describe(&g->plan, mode, sizeof mode),
             g->plan.keep ? " (state in registers)" : "", forced[0] ? ", overrides " : "", forced);
  }
  if (rc == IPSO_OK) rc = allocate(g);
  if (rc == IPSO_OK)
    rc = gpu_stage_constants(g->prog.library, cfg, g->island, &k, g->D, g->plan.map.pitch, g->fl,
                             &g->d_tables);
  if (rc == IPSO_OK && cfg->objective.id == IPSO_OBJ_USER && cfg->objective.separable)
    rc = check_separable(g);
  if (rc == IPSO_OK) rc = reserve_migrants(g, 1);
  timings_mark("GPU allocation and constants");
  swarm_consts_free(&k);
  if (rc == IPSO_OK && g->prog.compile_seconds > 0 && setup->island == 0)
    log_info("islandpso: compiled the GPU kernels in %.2f s (cached for later runs)",
             g->prog.compile_seconds);
  if (rc != IPSO_OK) gpu_destroy(b);
  return rc;
}

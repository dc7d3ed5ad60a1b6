/* The CUDA backend's migration: the best (migrants out) or worst (victims)
 * personal bests of every island selected, gathered and copied in one go,
 * or those of the particles the solver drew (random policies) gathered one
 * island at a time, and each island's migrants in scattered over its
 * victims, only enqueued. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gpu_swarm.h"

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
int gpu_reserve_migrants(struct gpu_swarm *g, int count)
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
  IPSO_TRY(gpu_reserve_migrants(g, count));
  if (g->packed == count) return IPSO_OK;
  IPSO_TRY(select_particles(g, 0, count));
  IPSO_CHECK_CUDA(ipso_launch_gather(&g->k, (unsigned)g->count, g->s, g->d_sel, count, g->d_buf,
                                     NULL, g->stream));
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

int gpu_pack(struct backend *b, int k, int count, double *pos, double *cost, int64_t *index)
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
  IPSO_TRY(gpu_reserve_migrants(g, count));
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

/* Island K's particles REPLACED[m] (those >= 0) take migrant m (rows POS,
 * costs COST) through island K's own part of the pinned area 1: the
 * copies, the scatter and the new global best are only enqueued (the next
 * step, best or migration waits for them). */
static int scatter_in(struct gpu_swarm *g, int k, int count, const double *pos, const double *cost,
                      const int64_t *replaced)
{
  int pitch = g->plan.map.pitch;
  size_t rows = (size_t)count * (size_t)pitch * g->es;
  char *h = stage_rows(g, 1, k, count), *hcost = stage_costs(g, 1, k, count);
  long long *idx = stage_index(g, 1, k, count);
  memset(h, 0, rows);
  for (int m = 0; m < count; m++) {
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
      ipso_launch_scatter(&g->k, gpu_island_view(g, k), d_idx, count, d_buf, d_cost, g->stream));
  IPSO_TRY(gpu_recompute_best(g, k, 1, 0));
  g->unpacked[k] = 1;
  g->packed = 0;
  g->stale = 1;
  return IPSO_OK;
}

/* The migrant in the precision of the swarm, as the CPU backend compares it. */
static double migrant_cost(const struct gpu_swarm *g, double cost)
{
  return g->fl ? (double)(float)cost : cost;
}

/* Island K takes the migrants: its victims from the one selection of all
 * islands' worst, each replaced if the migrant is better. */
int gpu_unpack(struct backend *b, int k, int count, const double *pos, const double *cost,
               int64_t *replaced)
{
  struct gpu_swarm *g = b->impl;
  IPSO_TRY(victims_all(g, k, count));
  const char *vcost = stage_costs(g, 0, k, count);
  const long long *vidx = stage_index(g, 0, k, count);
  for (int m = 0; m < count; m++)
    replaced[m] = migrant_cost(g, cost[m]) < gpu_real_get(vcost, (size_t)m, g->fl) ? vidx[m] : -1;
  return scatter_in(g, k, count, pos, cost, replaced);
}

/* Island K's particles INDEX[0..count): their personal-best costs (with
 * ROWS also their rows) into island K's part of the pinned area 0, through
 * its part of d_sel, d_selcost and d_buf. */
static int gather_chosen(struct gpu_swarm *g, int k, int count, const int64_t *index, int rows)
{
  IPSO_TRY(gpu_reserve_migrants(g, count));
  /* Area 0 no longer holds every island's migrants or victims. */
  g->packed = g->victims = 0;
  long long *idx = stage_index(g, 0, k, count);
  for (int m = 0; m < count; m++) idx[m] = index[m];
  size_t at = (size_t)k * (size_t)count, pitch = (size_t)g->plan.map.pitch;
  size_t n_rows = (size_t)count * pitch * g->es;
  char *d_buf = (char *)g->d_buf + at * pitch * g->es;
  char *d_cost = (char *)g->d_selcost + at * g->es;
  IPSO_CHECK_CUDA(cudaMemcpyAsync(g->d_sel + at, idx, (size_t)count * sizeof(long long),
                                  cudaMemcpyHostToDevice, g->stream));
  IPSO_CHECK_CUDA(ipso_launch_gather(&g->k, 1, gpu_island_view(g, k), g->d_sel + at, count,
                                     rows ? d_buf : NULL, d_cost, g->stream));
  if (rows)
    IPSO_CHECK_CUDA(cudaMemcpyAsync(stage_rows(g, 0, k, count), d_buf, n_rows,
                                    cudaMemcpyDeviceToHost, g->stream));
  IPSO_CHECK_CUDA(cudaMemcpyAsync(stage_costs(g, 0, k, count), d_cost, (size_t)count * g->es,
                                  cudaMemcpyDeviceToHost, g->stream));
  IPSO_CHECK_CUDA(cudaStreamSynchronize(g->stream));
  return IPSO_OK;
}

int gpu_pack_chosen(struct backend *b, int k, int count, const int64_t *index, double *pos,
                    double *cost)
{
  struct gpu_swarm *g = b->impl;
  IPSO_TRY(gather_chosen(g, k, count, index, 1));
  gpu_rows_from_real(pos, stage_rows(g, 0, k, count), g->plan.map.pitch, (size_t)count, g->D,
                     g->fl);
  const char *c = stage_costs(g, 0, k, count);
  for (int m = 0; m < count; m++) cost[m] = gpu_real_get(c, (size_t)m, g->fl);
  return IPSO_OK;
}

/* Island K's drawn particles INDEX take the migrants, each if it is better
 * than the particle's personal best. */
int gpu_unpack_chosen(struct backend *b, int k, int count, const int64_t *index, const double *pos,
                      const double *cost, int64_t *replaced)
{
  struct gpu_swarm *g = b->impl;
  IPSO_TRY(gather_chosen(g, k, count, index, 0));
  const char *vcost = stage_costs(g, 0, k, count);
  for (int m = 0; m < count; m++)
    replaced[m] = migrant_cost(g, cost[m]) < gpu_real_get(vcost, (size_t)m, g->fl) ? index[m] : -1;
  return scatter_in(g, k, count, pos, cost, replaced);
}

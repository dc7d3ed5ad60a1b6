/* The CUDA backend's migration. Through the host (the operations island by
 * island): the best (migrants out) or worst (victims) personal bests of
 * every island selected, gathered and copied in one go, or those of the
 * particles the solver drew (random policies) gathered one island at a
 * time, and each island's migrants in scattered over its victims, only
 * enqueued. On the device (migrate_out, migrate_in): every island's
 * message selected and gathered into device buffers, all islands' merges
 * and replacements in one launch; the rank's edge islands' messages are
 * written by the gather into mapped host memory, and the neighbouring
 * ranks' ones read from there by the islands that take them, so no copy
 * stands between the kernels and MPI; nothing waits for the device but
 * the edges (migrate_edges), and the solver enqueues migrate_out right
 * behind the iterations, so the device selects the messages and the
 * victims while the host reads the iterations' history. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "log.h"
#include "timings.h"
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
 * OUT and OUT_COST (island k's at [k * count]; the pick buffers must hold
 * COUNT per block): each block picks from its chunk of its island, then one
 * block per island from the picks. Two launches for all islands. */
static int select_into(struct gpu_swarm *g, int worst, int count, long long *out, void *out_cost)
{
  unsigned block = (unsigned)g->plan.map.block, islands = (unsigned)g->count;
  int nb = pick_blocks(g);
  long long picks = (long long)nb * count;
  /* One block's chunk holds the island: its picks are the selection (the
   * second pass would copy them in the same order). */
  if (nb == 1) {
    IPSO_CHECK_CUDA(ipso_launch_select(&g->k, 1, islands, block, g->s.pcost, NULL, g->N,
                                       pick_chunk(g), g->N, count, worst, count, out, out_cost,
                                       g->stream));
    return IPSO_OK;
  }
  IPSO_CHECK_CUDA(ipso_launch_select(&g->k, (unsigned)nb, islands, block, g->s.pcost, NULL, g->N,
                                     pick_chunk(g), g->N, picks, worst, count, g->d_pick,
                                     g->d_pickcost, g->stream));
  IPSO_CHECK_CUDA(ipso_launch_select(&g->k, 1, islands, block, g->d_pickcost, g->d_pick, picks,
                                     picks, picks, count, worst, count, out, out_cost, g->stream));
  return IPSO_OK;
}

/* The same into d_sel and d_selcost. */
static int select_particles(struct gpu_swarm *g, int worst, int count)
{
  return select_into(g, worst, count, g->d_sel, g->d_selcost);
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
                                     NULL, NULL, NULL, g->stream));
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
                                     rows ? d_buf : NULL, d_cost, NULL, NULL, g->stream));
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

/* The pinned, mapped buffer h_mig of the migration on the device: what
 * migrate_out uploads (the particles drawn to send) and the gather writes
 * (the edge messages), and what migrate_in uploads (links, victims drawn),
 * what migrate_kernel reads (the other ranks' messages) and what comes
 * back (the messages' best costs); parts of K islands and mcap migrants,
 * each 16-byte aligned. */
struct mig_layout {
  size_t select, edge_rows, edge_costs;                           /* migrate_out's */
  size_t carried, replace, remote_rows, remote_costs, sent, size; /* migrate_in's */
};

static struct mig_layout mig_layout(const struct gpu_swarm *g, int cap)
{
  size_t K = (size_t)g->count, c = (size_t)cap, row = (size_t)g->plan.map.pitch * g->es;
  struct mig_layout L;
  size_t at = 0;
  L.select = at, at += align16(K * c * sizeof(long long));
  L.edge_rows = at, at += align16(2 * c * row);
  L.edge_costs = at, at += align16(2 * c * g->es);
  L.carried = at, at += align16(2 * K);
  L.replace = at, at += align16(K * 2 * c * sizeof(long long));
  L.remote_rows = at, at += align16(2 * c * row);
  L.remote_costs = at, at += align16(2 * c * g->es);
  L.sent = at, at += align16(K * g->es);
  L.size = at;
  return L;
}

void gpu_migrate_free(struct gpu_swarm *g)
{
  void *dev[] = {g->d_msg,   g->d_mcost, g->d_msel,    g->d_vsel,
                 g->d_vcost, g->d_order, g->d_carried};
  for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
    if (dev[i]) cudaFree(dev[i]);
  if (g->h_mig) cudaFreeHost(g->h_mig);
  for (int i = 0; i < 2; i++)
    if (g->ev_mig[i]) cudaEventDestroy(g->ev_mig[i]);
  g->d_msg = g->d_mcost = g->d_vcost = g->h_mig = NULL;
  g->d_hmig = NULL;
  g->vpre = 0;
  g->d_msel = g->d_vsel = NULL;
  g->d_order = NULL;
  g->d_carried = NULL;
  g->ev_mig[0] = g->ev_mig[1] = NULL;
  g->mcap = 0;
  g->sent_pending = 0;
  g->carried_valid = 0;
}

/* Grows the buffers of the migration on the device to messages of COUNT
 * migrants (and the selection's pick buffers to 2 * COUNT victims). */
int gpu_reserve_device_migration(struct gpu_swarm *g, int count)
{
  IPSO_TRY(gpu_reserve_migrants(g, 2 * count));
  if (count <= g->mcap) return IPSO_OK;
  IPSO_CHECK_CUDA(cudaStreamSynchronize(g->stream));
  gpu_migrate_free(g);
  size_t K = (size_t)g->count, c = (size_t)count, row = (size_t)g->plan.map.pitch * g->es;
  IPSO_CHECK_CUDA(cudaMalloc(&g->d_msg, (K + 2) * c * row));
  IPSO_CHECK_CUDA(cudaMalloc(&g->d_mcost, (K + 2) * c * g->es));
  IPSO_CHECK_CUDA(cudaMalloc((void **)&g->d_msel, K * c * sizeof(long long)));
  IPSO_CHECK_CUDA(cudaMalloc((void **)&g->d_vsel, K * 2 * c * sizeof(long long)));
  IPSO_CHECK_CUDA(cudaMalloc(&g->d_vcost, K * 2 * c * g->es));
  IPSO_CHECK_CUDA(cudaMalloc((void **)&g->d_order, K * 2 * c * sizeof(int)));
  IPSO_CHECK_CUDA(cudaMalloc((void **)&g->d_carried, 2 * K));
  /* Mapped: the edge islands' messages are written, and the other ranks'
   * read, by the kernels themselves (no copies between them and MPI). */
  IPSO_CHECK_CUDA(cudaHostAlloc(&g->h_mig, mig_layout(g, count).size, cudaHostAllocMapped));
  IPSO_CHECK_CUDA(cudaHostGetDevicePointer((void **)&g->d_hmig, g->h_mig, 0));
  for (int i = 0; i < 2; i++)
    IPSO_CHECK_CUDA(cudaEventCreateWithFlags(&g->ev_mig[i], cudaEventDisableTiming));
  g->mcap = count;
  return IPSO_OK;
}

int gpu_migrate_out(struct backend *b, int count, const int64_t *select, int victims,
                    double *const edge[2])
{
  struct gpu_swarm *g = b->impl;
  IPSO_TRY(gpu_reserve_device_migration(g, count));
  struct mig_layout L = mig_layout(g, g->mcap);
  char *h = g->h_mig;
  size_t K = (size_t)g->count, c = (size_t)count;
  /* The previous migration's copies from this part are long done (a step
   * waited for the device since). */
  IPSO_CHECK_CUDA(cudaEventSynchronize(g->ev_mig[0]));
  g->vpre = 0;
  /* The edge islands' messages straight into h_mig (mapped) by the gather. */
  void *erows = edge ? g->d_hmig + L.edge_rows : NULL;
  void *ecost = edge ? g->d_hmig + L.edge_costs : NULL;
  if (select) {
    long long *sel = (long long *)(h + L.select);
    for (size_t i = 0; i < K * c; i++) sel[i] = select[i];
    IPSO_CHECK_CUDA(cudaMemcpyAsync(g->d_msel, sel, K * c * sizeof(long long),
                                    cudaMemcpyHostToDevice, g->stream));
    IPSO_CHECK_CUDA(ipso_launch_gather(&g->k, (unsigned)K, g->s, g->d_msel, count, g->d_msg,
                                       g->d_mcost, erows, ecost, g->stream));
  } else if (pick_blocks(g) == 1) {
    /* Each island fits one block's selection: its message and its victims
     * in one launch. */
    g->vpre = victims > 0 && victims <= 2 * count ? victims : 0;
    IPSO_CHECK_CUDA(ipso_launch_emigrate(&g->k, (unsigned)K, (unsigned)g->plan.map.block, g->s,
                                         count, g->d_msel, g->d_mcost, g->d_msg, erows, ecost,
                                         g->vpre, g->d_vsel, g->d_vcost, g->stream));
  } else {
    IPSO_TRY(select_into(g, 0, count, g->d_msel, g->d_mcost));
    IPSO_CHECK_CUDA(ipso_launch_gather(&g->k, (unsigned)K, g->s, g->d_msel, count, g->d_msg, NULL,
                                       erows, ecost, g->stream));
  }
  IPSO_CHECK_CUDA(cudaEventRecord(g->ev_mig[0], g->stream));
  g->packed = g->victims = 0;
  /* The victims now, for migrate_in: the device chooses them while the
   * host waits for the edges and exchanges them with the other ranks. */
  if (!g->vpre && victims > 0 && victims <= 2 * count) {
    IPSO_TRY(select_into(g, 1, victims, g->d_vsel, g->d_vcost));
    g->vpre = victims;
  }
  /* The host reads the edges in migrate_edges: nothing waits here, so the
   * solver may enqueue this behind the iterations and read their history
   * first. */
  g->edge[0] = edge ? edge[0] : NULL;
  g->edge[1] = edge ? edge[1] : NULL;
  g->edge_count = count;
  return IPSO_OK;
}

int gpu_migrate_edges(struct backend *b)
{
  struct gpu_swarm *g = b->impl;
  if (!g->edge[0]) return IPSO_OK;
  struct mig_layout L = mig_layout(g, g->mcap);
  const char *h = g->h_mig;
  size_t c = (size_t)g->edge_count, row = (size_t)g->plan.map.pitch * g->es;
  IPSO_CHECK_CUDA(cudaEventSynchronize(g->ev_mig[0]));
  for (int e = 0; e < 2; e++) {
    const char *costs = h + L.edge_costs + (size_t)e * c * g->es;
    for (size_t m = 0; m < c; m++) g->edge[e][m] = gpu_real_get(costs, m, g->fl);
    gpu_rows_from_real(g->edge[e] + c, h + L.edge_rows + (size_t)e * c * row, g->plan.map.pitch, c,
                       g->D, g->fl);
  }
  g->edge[0] = g->edge[1] = NULL;
  return IPSO_OK;
}

int gpu_migrate_in(struct backend *b, int count, int links, const unsigned char *carried,
                   const int64_t *replace, const double *const remote[2])
{
  struct gpu_swarm *g = b->impl;
  IPSO_TRY(gpu_reserve_device_migration(g, count));
  struct mig_layout L = mig_layout(g, g->mcap);
  char *h = g->h_mig;
  int K = g->count;
  size_t c = (size_t)count, row = (size_t)g->plan.map.pitch * g->es, vs = (size_t)links * c;
  IPSO_CHECK_CUDA(cudaEventSynchronize(g->ev_mig[1]));
  /* The other ranks' messages, where the host put them. */
  const void *rmsg[2] = {NULL, NULL}, *rcost[2] = {NULL, NULL};
  if (remote) {
    rmsg[0] = g->d_hmig + L.remote_rows;
    rmsg[1] = g->d_hmig + L.remote_rows + c * row;
    rcost[0] = g->d_hmig + L.remote_costs;
    rcost[1] = g->d_hmig + L.remote_costs + c * g->es;
  }
  /* The links that carry: uploaded when they differ from the last ones
   * (with migration.probability = 1 they never do). */
  unsigned char *hc = (unsigned char *)h + L.carried;
  int changed = !g->carried_valid;
  for (int k = 0; k < K; k++)
    for (int l = 0; l < 2; l++) {
      unsigned char on = l < links && carried[2 * k + l];
      changed |= hc[2 * k + l] != on;
      hc[2 * k + l] = on;
    }
  if (changed)
    IPSO_CHECK_CUDA(
        cudaMemcpyAsync(g->d_carried, hc, 2 * (size_t)K, cudaMemcpyHostToDevice, g->stream));
  g->carried_valid = 1;
  if (remote) {
    /* Slots K and K + 1, side by side as the parts of h_mig, which the
     * islands that take them read there (migrate_kernel). */
    for (int e = 0; e < 2; e++) {
      char *costs = h + L.remote_costs + (size_t)e * c * g->es;
      for (size_t m = 0; m < c; m++) gpu_real_set(costs, m, remote[e][m], g->fl);
      gpu_rows_to_real(h + L.remote_rows + (size_t)e * c * row, g->plan.map.pitch, remote[e] + c, c,
                       g->D, g->fl);
    }
  }
  if (replace) {
    /* Island k reads the first (links that carry) * COUNT of its part; the
     * rest are set to particle 0 for the gather. */
    long long *rep = (long long *)(h + L.replace);
    for (int k = 0; k < K; k++) {
      size_t used = (size_t)(hc[2 * k] + hc[2 * k + 1]) * c;
      for (size_t j = 0; j < vs; j++) rep[k * vs + j] = j < used ? replace[k * vs + j] : 0;
    }
    IPSO_CHECK_CUDA(cudaMemcpyAsync(g->d_vsel, rep, (size_t)K * vs * sizeof(long long),
                                    cudaMemcpyHostToDevice, g->stream));
    IPSO_CHECK_CUDA(ipso_launch_gather(&g->k, (unsigned)K, g->s, g->d_vsel, (int)vs, NULL,
                                       g->d_vcost, NULL, NULL, g->stream));
  } else if (g->vpre != (int)vs) {
    IPSO_TRY(select_into(g, 1, (int)vs, g->d_vsel, g->d_vcost));
  }
  g->vpre = 0;
  /* The iteration of the migration: the step's end where the solver
   * enqueues the migration behind a step it has not waited for. */
  long long t = g->steps_pending ? (long long)g->queued_t : (long long)g->t;
  /* The messages' best costs (the log's) straight into h_mig: no copy
   * between this kernel and the next step's. */
  IPSO_CHECK_CUDA(ipso_launch_migrate(&g->k, (unsigned)g->plan.map.block, g->s, K, count, links,
                                      !rmsg[0], g->d_msg, g->d_mcost, g->d_carried,
                                      g->d_vsel, g->d_vcost, (int)vs, g->d_order,
                                      g->d_hmig + L.sent, rmsg, rcost, t, g->stream));
  IPSO_CHECK_CUDA(cudaEventRecord(g->ev_mig[1], g->stream));
  g->sent_pending = 1;
  /* The islands that took migrants found their best again in
   * migrate_kernel: the next step reads the slots as it begins. */
  g->stale = 1;
  g->packed = g->victims = 0;
  return IPSO_OK;
}

int gpu_migrate_sent(struct backend *b, double *sent)
{
  struct gpu_swarm *g = b->impl;
  if (!g->sent_pending) return IPSO_FAIL("migration", "no migration's costs to read");
  IPSO_CHECK_CUDA(cudaEventSynchronize(g->ev_mig[1]));
  const char *h = (const char *)g->h_mig + mig_layout(g, g->mcap).sent;
  for (int k = 0; k < g->count; k++) sent[k] = gpu_real_get(h, (size_t)k, g->fl);
  g->sent_pending = 0;
  return IPSO_OK;
}

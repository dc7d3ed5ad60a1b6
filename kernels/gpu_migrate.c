/* The CUDA backend's migration on the device: every island's message
 * selected and gathered, all merges and replacements in one launch. The
 * edge islands' messages go to, and the other ranks' come from, mapped host
 * memory, so no copy stands between the kernels and MPI. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "log.h"
#include "gpu_swarm.h"

/* Entries per block in the first selection pass. */
#define PICK_CHUNK_PER_THREAD 16

/* Entries per block of the first pass, and its blocks per island. */
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

/* The COUNT best (WORST = 0) or worst personal bests of every island into
 * OUT, OUT_COST (island k's at [k * count]): each block picks from its
 * chunk, then one block per island from the picks. */
static int select_into(struct gpu_swarm *g, int worst, int count, long long *out, void *out_cost)
{
  int nb = pick_blocks(g);
  long long picks = (long long)nb * count;
  /* One chunk holds the island: its picks are the selection. */
  if (nb == 1) {
    IPSO_CHECK_CUDA(ipso_launch_select(&g->k, 1, g->s.pcost, NULL, g->N, pick_chunk(g), g->N, count,
                                       worst, count, out, out_cost));
    return IPSO_OK;
  }
  IPSO_CHECK_CUDA(ipso_launch_select(&g->k, (unsigned)nb, g->s.pcost, NULL, g->N, pick_chunk(g),
                                     g->N, picks, worst, count, g->d_pick, g->d_pickcost));
  IPSO_CHECK_CUDA(ipso_launch_select(&g->k, 1, g->d_pickcost, g->d_pick, picks, picks, picks, count,
                                     worst, count, out, out_cost));
  return IPSO_OK;
}

/* The parts of the pinned, mapped buffer h_mig for K islands and CAP
 * migrants, each 16-byte aligned: uploads (drawn migrants, links, victims),
 * the edge messages both ways, and the messages' best costs back. */
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
  void *dev[] = {g->d_msg,   g->d_mcost,   g->d_msel, g->d_vsel,    g->d_vcost,
                 g->d_order, g->d_carried, g->d_pick, g->d_pickcost};
  for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
    if (dev[i]) cudaFree(dev[i]);
  if (g->h_mig) cudaFreeHost(g->h_mig);
  for (int i = 0; i < 2; i++)
    if (g->ev_mig[i]) cudaEventDestroy(g->ev_mig[i]);
  g->d_msg = g->d_mcost = g->d_vcost = g->h_mig = g->d_pickcost = NULL;
  g->d_msel = g->d_vsel = g->d_pick = NULL;
  g->d_hmig = NULL;
  g->d_order = NULL;
  g->d_carried = NULL;
  g->ev_mig[0] = g->ev_mig[1] = NULL;
  g->mcap = g->vpre = g->sent_pending = g->carried_valid = 0;
}

int gpu_migrate_reserve(struct gpu_swarm *g, int count)
{
  if (count <= g->mcap) return IPSO_OK;
  IPSO_CHECK_CUDA(cudaStreamSynchronize(g->stream));
  gpu_migrate_free(g);
  size_t K = (size_t)g->count, c = (size_t)count, row = (size_t)g->plan.map.pitch * g->es;
  size_t picks = K * (size_t)pick_blocks(g) * 2 * c;
  const struct gpu_part p[] = {{&g->d_msg, (K + 2) * c * row, -1},
                               {&g->d_mcost, (K + 2) * c * g->es, -1},
                               {(void **)&g->d_msel, K * c * sizeof(long long), -1},
                               {(void **)&g->d_vsel, K * 2 * c * sizeof(long long), -1},
                               {&g->d_vcost, K * 2 * c * g->es, -1},
                               {(void **)&g->d_order, K * 2 * c * sizeof(int), -1},
                               {(void **)&g->d_carried, 2 * K, -1},
                               {(void **)&g->d_pick, picks * sizeof(long long), -1},
                               {&g->d_pickcost, picks * g->es, -1}};
  IPSO_TRY(gpu_alloc_parts(g, p, sizeof p / sizeof p[0], "the migration"));
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
  IPSO_TRY(gpu_migrate_reserve(g, count));
  struct mig_layout L = mig_layout(g, g->mcap);
  char *h = g->h_mig;
  size_t K = (size_t)g->count, c = (size_t)count;
  /* The previous migration's copies from this part are long done. */
  IPSO_CHECK_CUDA(cudaEventSynchronize(g->ev_mig[0]));
  g->vpre = 0;
  void *erows = edge ? g->d_hmig + L.edge_rows : NULL;
  void *ecost = edge ? g->d_hmig + L.edge_costs : NULL;
  if (select) {
    long long *sel = (long long *)(h + L.select);
    for (size_t i = 0; i < K * c; i++) sel[i] = select[i];
    IPSO_CHECK_CUDA(cudaMemcpyAsync(g->d_msel, sel, K * c * sizeof(long long),
                                    cudaMemcpyHostToDevice, g->stream));
    IPSO_CHECK_CUDA(
        ipso_launch_gather(&g->k, g->s, g->d_msel, count, g->d_msg, g->d_mcost, erows, ecost));
  } else if (pick_blocks(g) == 1) {
    /* Each island fits one block: message and victims in one launch. */
    g->vpre = victims > 0 && victims <= 2 * count ? victims : 0;
    IPSO_CHECK_CUDA(ipso_launch_emigrate(&g->k, g->s, count, g->d_msel, g->d_mcost, g->d_msg, erows,
                                         ecost, g->vpre, g->d_vsel, g->d_vcost));
  } else {
    IPSO_TRY(select_into(g, 0, count, g->d_msel, g->d_mcost));
    IPSO_CHECK_CUDA(
        ipso_launch_gather(&g->k, g->s, g->d_msel, count, g->d_msg, NULL, erows, ecost));
  }
  IPSO_CHECK_CUDA(cudaEventRecord(g->ev_mig[0], g->stream));
  /* The victims now, chosen while the host exchanges the edges. */
  if (!g->vpre && victims > 0 && victims <= 2 * count) {
    IPSO_TRY(select_into(g, 1, victims, g->d_vsel, g->d_vcost));
    g->vpre = victims;
  }
  if (!edge) return IPSO_OK;
  size_t row = (size_t)g->plan.map.pitch * g->es;
  IPSO_CHECK_CUDA(cudaEventSynchronize(g->ev_mig[0]));
  /* A message: its COUNT costs, then their rows. */
  for (int e = 0; e < 2; e++) {
    gpu_rows_from_real(edge[e], h + L.edge_costs + (size_t)e * c * g->es, 1, c, 1, g->fl);
    gpu_rows_from_real(edge[e] + c, h + L.edge_rows + (size_t)e * c * row, g->plan.map.pitch, c,
                       g->D, g->fl);
  }
  return IPSO_OK;
}

int gpu_migrate_in(struct backend *b, int count, int links, const unsigned char *carried,
                   const int64_t *replace, const double *const remote[2])
{
  struct gpu_swarm *g = b->impl;
  IPSO_TRY(gpu_migrate_reserve(g, count));
  struct mig_layout L = mig_layout(g, g->mcap);
  char *h = g->h_mig;
  int K = g->count;
  size_t c = (size_t)count, row = (size_t)g->plan.map.pitch * g->es, vs = (size_t)links * c;
  IPSO_CHECK_CUDA(cudaEventSynchronize(g->ev_mig[1]));
  const void *rmsg[2] = {NULL, NULL}, *rcost[2] = {NULL, NULL};
  /* The links that carry: uploaded only when they change. */
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
    /* Slots K and K + 1, read there by the islands that take them. */
    for (int e = 0; e < 2; e++) {
      rmsg[e] = g->d_hmig + L.remote_rows + (size_t)e * c * row;
      rcost[e] = g->d_hmig + L.remote_costs + (size_t)e * c * g->es;
      gpu_rows_to_real(h + L.remote_costs + (size_t)e * c * g->es, 1, remote[e], c, 1, g->fl);
      gpu_rows_to_real(h + L.remote_rows + (size_t)e * c * row, g->plan.map.pitch, remote[e] + c, c,
                       g->D, g->fl);
    }
  }
  if (replace) {
    /* Island k reads (links that carry) * COUNT of its part; the rest are
     * particle 0 for the gather. */
    long long *rep = (long long *)(h + L.replace);
    for (int k = 0; k < K; k++) {
      size_t used = (size_t)(hc[2 * k] + hc[2 * k + 1]) * c;
      for (size_t j = 0; j < vs; j++) rep[k * vs + j] = j < used ? replace[k * vs + j] : 0;
    }
    IPSO_CHECK_CUDA(cudaMemcpyAsync(g->d_vsel, rep, (size_t)K * vs * sizeof(long long),
                                    cudaMemcpyHostToDevice, g->stream));
    IPSO_CHECK_CUDA(
        ipso_launch_gather(&g->k, g->s, g->d_vsel, (int)vs, NULL, g->d_vcost, NULL, NULL));
  } else if (g->vpre != (int)vs) {
    IPSO_TRY(select_into(g, 1, (int)vs, g->d_vsel, g->d_vcost));
  }
  g->vpre = 0;
  long long t = (long long)g->t; /* the last step's end */
  /* The messages' best costs go straight into h_mig: no copy before the next step. */
  IPSO_CHECK_CUDA(ipso_launch_migrate(&g->k, g->s, count, links, !rmsg[0], g->d_msg, g->d_mcost,
                                      g->d_carried, g->d_vsel, g->d_vcost, (int)vs, g->d_order,
                                      g->d_hmig + L.sent, rmsg, rcost, t));
  IPSO_CHECK_CUDA(cudaEventRecord(g->ev_mig[1], g->stream));
  g->sent_pending = 1;
  /* migrate_kernel set the bests anew: the next step reads the slots. */
  g->stale = 1;
  return IPSO_OK;
}

int gpu_migrate_sent(struct backend *b, double *sent)
{
  struct gpu_swarm *g = b->impl;
  if (!g->sent_pending) return IPSO_FAIL("migration", "no migration's costs to read");
  IPSO_CHECK_CUDA(cudaEventSynchronize(g->ev_mig[1]));
  gpu_rows_from_real(sent, (char *)g->h_mig + mig_layout(g, g->mcap).sent, 1, (size_t)g->count, 1,
                     g->fl);
  g->sent_pending = 0;
  return IPSO_OK;
}

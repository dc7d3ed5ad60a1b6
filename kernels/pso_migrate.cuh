/* The migration kernels of kernels/pso_kernels.cu: the migrants' rows
 * gathered, and one migration of all the backend's islands on the device.
 * Only for the kernel source: embedded into the binary and given to NVRTC
 * as a named header (gpu_compile.c). */
#ifndef IPSO_PSO_MIGRATE_CUH
#define IPSO_PSO_MIGRATE_CUH

/* Copies the personal-best rows IDX[0..count) into BUF rows (migrants out;
 * BUF NULL: none) and, when COST is not NULL, their personal-best costs
 * into COST, for island blockIdx.y: its indices at IDX[y * count], its rows
 * at BUF[y * count * IPSO_PITCH], its costs at COST[y * count]. EDGE_ROWS
 * (NULL: none; host memory mapped for the device): the first island's rows
 * also into message 0 of EDGE_ROWS and its personal-best costs into
 * EDGE_COST, the last island's (of gridDim.y) into message 1, each message
 * COUNT rows, for the other ranks without a copy. */
extern "C" __global__ void gather_kernel(swarm_ptrs s, const long long *idx, int count, real *buf,
                                         real *cost, real *edge_rows, real *edge_cost)
{
  s = island_ptrs(s, blockIdx.y);
  idx += (size_t)blockIdx.y * (size_t)count;
  if (buf) buf += (size_t)blockIdx.y * (size_t)count * IPSO_PITCH;
  if (cost) cost += (size_t)blockIdx.y * (size_t)count;
  const bool first = edge_rows && blockIdx.y == 0, last = edge_rows && blockIdx.y == gridDim.y - 1;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
       e < (long long)count * IPSO_PITCH; e += (long long)gridDim.x * blockDim.x) {
    long long m = e / IPSO_PITCH, d = e % IPSO_PITCH;
    real r = s.p[(size_t)idx[m] * IPSO_PITCH + d];
    if (buf) buf[e] = r;
    if (cost && d == 0) cost[m] = s.pcost[idx[m]];
    if (first || last)
      edge_out(edge_rows, edge_cost, first, last, count, e, m, d, r, s.pcost[idx[m]]);
  }
}

/* One migration of all the backend's islands on the device, island
 * blockIdx.x (one block each). Message slot j (rows MSG[j * count *
 * IPSO_PITCH], costs MCOST[j * count]) is island j's COUNT migrants out for
 * j < ISLANDS, and with CLOSED = 0 slots ISLANDS and ISLANDS + 1 hold those
 * of the previous rank's last island and the next rank's first one (CLOSED:
 * one rank holds the whole ring, which closes here). Island k receives on
 * link 0 from its previous island and, with LINKS = 2, on link 1 from its
 * next one, where CARRIED[2k + l]; the migrants of the links that carry,
 * ordered by (cost, link, slot) as migration_merge orders them, replace
 * its victims VIDX[k * VSTRIDE + j] (its worst first, or particles drawn)
 * where the j-th migrant's cost is below VCOST[k * VSTRIDE + j]: position
 * and personal best (the pitch's padding zero), cost, zero velocity, and
 * the ring's mark. ORDER: [ISLANDS * 2 * count]
 * scratch. SENT[k]: the best cost of island k's message (the log's).
 * RMSG0, RCOST0 and RMSG1, RCOST1 (NULL: slots ISLANDS and ISLANDS + 1 are
 * filled already): the other ranks' two messages, the previous rank's and
 * the next rank's, copied into those slots by the islands that take them.
 * T: the iteration, whose best slot an island that took
 * migrants sets anew. Blocks of IPSO_BLOCK threads. */
extern "C" __global__ void migrate_kernel(swarm_ptrs s, int islands, int count, int links,
                                          int closed, real *msg, real *mcost,
                                          const unsigned char *carried, const long long *vidx,
                                          const real *vcost, int vstride, int *order, real *sent,
                                          const real *rmsg0, const real *rcost0, const real *rmsg1,
                                          const real *rcost1, long long t)
{
  const int k = (int)blockIdx.x;
  s = island_ptrs(s, (unsigned)k);
  const int src[2] = {k > 0 ? k - 1 : (closed ? islands - 1 : islands),
                      k < islands - 1 ? k + 1 : (closed ? 0 : islands + 1)};
  int from[2] = {0, 0}, open = 0;
  for (int l = 0; l < links; l++)
    if (carried[2 * k + l]) from[open++] = src[l];
  const int total = open * count;
  /* The other ranks' messages this island takes (RMSG0, RCOST0 and RMSG1,
   * RCOST1 in mapped host memory) into slots ISLANDS and ISLANDS + 1 here,
   * read once, past any cache, and in parallel; only this block reads
   * them. */
  if (rmsg0) {
    for (int o = 0; o < open; o++) {
      const int q = from[o];
      if (q < islands) continue;
      const int l = q - islands; /* 0: the previous rank's, 1: the next rank's */
      real *to = msg + (size_t)q * count * IPSO_PITCH, *to_cost = mcost + (size_t)q * count;
      const real *rm = l ? rmsg1 : rmsg0, *rc = l ? rcost1 : rcost0;
      for (long long e = threadIdx.x; e < (long long)count * IPSO_PITCH; e += blockDim.x)
        to[e] = __ldcv(rm + e);
      for (int m = threadIdx.x; m < count; m += blockDim.x) to_cost[m] = __ldcv(rc + m);
    }
    __syncthreads();
  }
  order += (size_t)k * 2 * (size_t)count;
  vidx += (size_t)k * (size_t)vstride;
  vcost += (size_t)k * (size_t)vstride;
  /* Candidate i = o * count + q is slot q of the o-th open link: its place
   * in the merge is the number of candidates before it in (cost, o, q). */
  for (int i = threadIdx.x; i < total; i += blockDim.x) {
    real ci = mcost[(size_t)from[i / count] * count + i % count];
    int r = 0;
    for (int j = 0; j < total; j++) {
      real cj = mcost[(size_t)from[j / count] * count + j % count];
      r += cj < ci || (cj == ci && j < i);
    }
    order[r] = i;
  }
  if (threadIdx.x == 0) {
    real b = mcost[(size_t)k * count];
    for (int m = 1; m < count; m++)
      b = mcost[(size_t)k * count + m] < b ? mcost[(size_t)k * count + m] : b;
    sent[k] = b;
  }
  __syncthreads();
  for (long long e = threadIdx.x; e < (long long)total * IPSO_PITCH; e += blockDim.x) {
    int j = (int)(e / IPSO_PITCH), d = (int)(e % IPSO_PITCH), i = order[j];
    size_t slot = (size_t)from[i / count] * count + i % count;
    real c = mcost[slot];
    long long v = vidx[j];
    if (v < 0 || !(c < vcost[j])) continue;
    size_t at = (size_t)v * IPSO_PITCH + d;
    s.x[at] = s.p[at] = d < IPSO_D ? msg[slot * IPSO_PITCH + d] : (real)0;
    s.v[at] = (real)0;
    if (d == 0) {
      s.cost[v] = s.pcost[v] = c;
      if (s.pnew) s.pnew[v] = 1;
    }
  }
  /* An island that took migrants finds its best again, as candidates_kernel
   * and reduce_kernel with fresh = 1 find it (the same lowest (cost,
   * particle) of the personal bests, an exact minimum in any order): into
   * slot T & 1 with its position, the other slot emptied, the history's
   * entry of iteration T (the step of T + 1 writes over it). */
  if (total == 0) return;
  __shared__ block_shared sh;
  __shared__ long long win;
  __syncthreads();
  real c = (real)IPSO_INF;
  long long idx = IPSO_NONE;
  for (long long i = threadIdx.x; i < K.n; i += blockDim.x) {
    real pc = s.pcost[i];
    if (lex_less(pc, i, c, idx)) c = pc, idx = i;
  }
  block_lexmin(c, idx, sh);
  set_best(s, c, idx, t, t, 1, win);
}

#endif

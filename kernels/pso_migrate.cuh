/* The migration kernels of kernels/pso_kernels.cu (an NVRTC named header,
 * gpu_compile.c): migrants' rows gathered, and one migration of all the
 * backend's islands. */
#ifndef IPSO_PSO_MIGRATE_CUH
#define IPSO_PSO_MIGRATE_CUH

/* Island y's personal-best rows IDX[y * count ..] into BUF (NULL: none)
 * and their costs into COST (NULL: none), island after island; the first
 * and last island's also into the edge messages EDGE_ROWS, EDGE_COST
 * (mapped host memory, NULL: none), for the other ranks without a copy. */
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

/* One migration of all the backend's islands, a block per island k.
 * Message slot j (rows MSG[j * count * IPSO_PITCH], costs MCOST[j * count])
 * holds island j's COUNT migrants; unless CLOSED (one rank holds the whole
 * ring), slots ISLANDS and ISLANDS + 1 the previous rank's last island's
 * and the next rank's first's. Island k takes link 0 from its previous
 * island and, with LINKS = 2, link 1 from its next, where CARRIED[2k + l];
 * the migrants, ordered by (cost, link, slot) as migration_merge, replace
 * its victims VIDX[k * VSTRIDE + j] where cheaper than VCOST[k * VSTRIDE +
 * j]: position and personal best (padding zero), cost, zero velocity, the
 * ring's mark. ORDER: scratch [ISLANDS * 2 * count]. SENT[k]: the best cost
 * of island k's message. RMSG0, RCOST0, RMSG1, RCOST1 (NULL: the slots are
 * filled): the other ranks' messages, copied into their slots by the
 * islands that take them. An island that took migrants sets its best of
 * iteration T anew. */
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
  /* The other ranks' messages (mapped host memory) into their slots, read
   * once, past any cache: only this block reads them. */
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
  /* Candidate i = o * count + q (slot q of open link o) goes to its rank in
   * (cost, o, q). */
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
  /* An island that took migrants finds its best again as candidates_kernel
   * and reduce_kernel with fresh = 1 would (an exact minimum in any order);
   * the step of T + 1 writes over its history entry. */
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

/* The ring topology's lbest_kernel (an NVRTC named header included where
 * IPSO_RING is 1, gpu_compile.c). */
#ifndef IPSO_PSO_RING_CUH
#define IPSO_PSO_RING_CUH

/* (C, IDX) lowered to the lowest (personal-best cost, index) of COUNT
 * particles of the ring of N, J, J + STRIDE, ... (mod N; STRIDE < N). */
IPSO_HD void ring_scan(const real *pcost, long long n, long long j, long long count, int stride,
                       real &c, long long &idx)
{
  for (long long m = 0; m < count; m++) {
    real cj = pcost[j];
    if (lex_less(cj, j, c, idx)) c = cj, idx = j;
    j += stride;
    if (j >= n) j -= n;
  }
}

/* X mod N in 0..N-1. */
IPSO_HD long long ring_at(long long x, long long n)
{
  x %= n;
  return x < 0 ? x + n : x;
}

/* The lowest (cost, index) of the warp's 32 pairs, on every lane: the
 * minimum of a total order, so the same whatever the order of the scans. */
IPSO_HD void warp_lexmin(real &c, long long &idx)
{
  for (int off = 16; off > 0; off >>= 1) {
    real oc = __shfl_xor_sync(0xffffffffu, c, off);
    long long oi = __shfl_xor_sync(0xffffffffu, idx, off);
    if (lex_less(oc, oi, c, idx)) c = oc, idx = oi;
  }
}

/* Lanes that copy one attractor row together: its vectors rounded up to a
 * power of two, at most 32. */
#define IPSO_LB_VECS ((IPSO_D + IPSO_V - 1) / IPSO_V)
#define IPSO_LB_LANES                                                                              \
  (IPSO_LB_VECS > 16  ? 32                                                                         \
   : IPSO_LB_VECS > 8 ? 16                                                                         \
   : IPSO_LB_VECS > 4 ? 8                                                                          \
   : IPSO_LB_VECS > 2 ? 4                                                                          \
   : IPSO_LB_VECS > 1 ? 2                                                                          \
                      : 1)

/* Before each iteration: row i of s.lbest = the personal best of the lowest
 * (personal-best cost, index) of particles i-k..i+k mod n, k = IPSO_RING_K.
 *
 * A thread per particle scans its 2k+1 costs (for k >= 16 the warp first
 * scans the core its 32 neighbourhoods share; the whole swarm once if
 * 2k+1 >= n). Row i is rewritten only if s.lidx[i] (whose personal best it
 * holds, -1: none) changes or s.pnew of the winner is set (its personal
 * best changed since the last pass); the warp copies those rows together,
 * IPSO_LB_LANES lanes per row. */
extern "C" __global__ void __launch_bounds__(IPSO_BLOCK) lbest_kernel(swarm_ptrs s)
{
  __shared__ unsigned char rows[IPSO_BLOCK]; /* per warp: the lanes whose row is copied */
  pdl_start();
  if (IPSO_MEAN && mean_on(K.island + blockIdx.y)) return; /* mean_kernel's */
  s = island_ptrs(s, blockIdx.y);
  const long long n = K.n, k = IPSO_RING_K;
  int lane = threadIdx.x & 31;
  long long i = (long long)blockIdx.x * IPSO_BLOCK + threadIdx.x, i0 = i - lane;
  if (i0 >= n) return; /* the whole warp */
  bool active = i < n;
  real c = (real)IPSO_INF;
  long long win = IPSO_NONE;
  if (2 * k + 1 >= n) {
    if (lane < n) ring_scan(s.pcost, n, lane, (n - 1 - lane) / 32 + 1, 32, c, win);
    warp_lexmin(c, win);
  } else if (k < 16) {
    if (active) ring_scan(s.pcost, n, ring_at(i - k, n), 2 * k + 1, 1, c, win);
  } else {
    /* The core i0+31-k .. i0+k (2k-30 particles; n > 2k+1 > 32); lane l's
     * own: i0+l-k .. i0+30-k and i0+k+1 .. i0+k+l. */
    long long core = 2 * k - 30;
    if (lane < core)
      ring_scan(s.pcost, n, ring_at(i0 + 31 - k + lane, n), (core - 1 - lane) / 32 + 1, 32, c, win);
    warp_lexmin(c, win);
    if (active) {
      ring_scan(s.pcost, n, ring_at(i - k, n), 31 - lane, 1, c, win);
      ring_scan(s.pcost, n, ring_at(i0 + k + 1, n), lane, 1, c, win);
    }
  }
  bool copy = active && (s.lidx[i] != win || s.pnew[win]);
  unsigned need = __ballot_sync(0xffffffffu, copy);
  if (!need) return; /* the common case late in a run */
  unsigned char *list = rows + (threadIdx.x - lane);
  if (copy) {
    s.lidx[i] = win;
    list[__popc(need & ((1u << lane) - 1u))] = (unsigned char)lane;
  }
  __syncwarp();
  const int per = 32 / IPSO_LB_LANES, grp = lane / IPSO_LB_LANES, sub = lane % IPSO_LB_LANES;
  const int total = __popc(need);
  for (int base = 0; base < total; base += per) {
    int r = base + grp;
    int l = r < total ? list[r] : 0;
    long long src = __shfl_sync(0xffffffffu, win, l);
    if (r >= total) continue;
    const real *from = s.p + (size_t)src * IPSO_PITCH;
    real *to = s.lbest + (size_t)(i0 + l) * IPSO_PITCH;
    for (int d = sub * IPSO_V; d < IPSO_D; d += IPSO_LB_LANES * IPSO_V) {
      real v[IPSO_V];
      vec<IPSO_V>::load(from + d, v);
      vec<IPSO_V>::store(to + d, v);
    }
  }
}

#endif

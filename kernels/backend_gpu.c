/* The CUDA backend's operations: the swarms of K islands in device memory,
 * one after the other (kernels/gpu_abi.h), kernels compiled at start-up by
 * NVRTC for this problem and GPU. Every per-iteration launch runs all K
 * islands (blockIdx.y). Inside the iteration loop the only host<->device
 * copies are the best costs at segment ends and the migrants. The launch
 * plan is in gpu_plan.c, the launches in gpu_launch.c, the staging in
 * gpu_stage.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_gpu.h"
#include "check.h"
#include "gpu_swarm.h"
#include "log.h"
#include "timings.h"
#include "objective.h"
#include "user_objective.h"

/* clpso: the learning thresholds of the particles, computed on the host
 * (swarm_clpso_threshold), so both backends compare with the same integers. */
static int upload_learning(struct gpu_swarm *g)
{
  size_t bytes = (size_t)g->N * sizeof(unsigned int);
  unsigned int *h = malloc(bytes);
  if (!h) return IPSO_FAIL("memory", "out of memory");
  for (int64_t i = 0; i < g->N; i++) h[i] = swarm_clpso_threshold(i, g->N);
  cudaError_t e = cudaMemcpy(g->d_learn, h, bytes, cudaMemcpyHostToDevice);
  free(h);
  IPSO_CHECK_CUDA(e);
  return IPSO_OK;
}

/* The history buffers' first size: at most this many iterations and bytes. */
#define HIST_FIRST_ITERATIONS 10000
#define HIST_FIRST_BYTES ((size_t)1 << 20)

/* The history buffers for ALL values: the kernels' on the device, set to NaN
 * (an entry no launch wrote), and the pinned, mapped one hist_out_kernel fills. */
static int alloc_history(struct gpu_swarm *g, int64_t all)
{
  IPSO_CHECK_CUDA(cudaMalloc((void **)&g->d_hist, (size_t)all * sizeof(double)));
  IPSO_CHECK_CUDA(cudaMemsetAsync(g->d_hist, 0xff, (size_t)all * sizeof(double), g->stream));
  IPSO_CHECK_CUDA(
      cudaHostAlloc((void **)&g->h_hist, (size_t)all * sizeof(double), cudaHostAllocMapped));
  IPSO_CHECK_CUDA(cudaHostGetDevicePointer((void **)&g->dh_hist, g->h_hist, 0));
  g->hist_cap = all;
  return IPSO_OK;
}

int gpu_alloc_parts(const struct gpu_swarm *g, const struct gpu_part *p, size_t n, const char *what)
{
  for (size_t i = 0; i < n; i++) {
    if (!p[i].bytes) continue;
    cudaError_t e = cudaMalloc(p[i].ptr, p[i].bytes);
    if (e != cudaSuccess)
      return IPSO_FAIL("cuda", "cannot allocate %.2f GiB for %s on GPU %d: %s",
                       (double)p[i].bytes / (1 << 30), what, g->device, cudaGetErrorString(e));
    if (p[i].fill >= 0) IPSO_CHECK_CUDA(cudaMemset(*p[i].ptr, p[i].fill, p[i].bytes));
  }
  return IPSO_OK;
}

/* Allocates the swarm arrays: rows zeroed (so row padding is defined), no
 * attractor row's owner known yet (lidx -1), the global-best slots empty. */
static int allocate(struct gpu_swarm *g)
{
  size_t K = (size_t)g->count, parts = K * (size_t)g->N, es = g->es;
  size_t pitch = (size_t)g->plan.map.pitch, rows = parts * pitch * es;
  /* Per-block candidates: the step kernels' blocks, at least as many as
   * candidates_kernel's (a particle per thread). */
  size_t cand = K * (size_t)g->plan.blocks;
  int ring = g->plan.ring, clpso = g->plan.clpso;
  size_t DD = (size_t)g->D * (size_t)g->D, frames = g->plan.frame ? K : 0;
  const struct gpu_part p[] = {
      {&g->s.x, rows, 0},
      {&g->s.v, rows, 0},
      {&g->s.p, rows, 0},
      {&g->s.lbest, ring || clpso || g->plan.mean ? rows : 0, 0},
      {(void **)&g->s.lidx, ring ? parts * sizeof(long long) : 0, 0xff},
      {(void **)&g->s.pnew, ring ? parts : 0, 0},
      {(void **)&g->d_learn, clpso ? (size_t)g->N * sizeof(unsigned int) : 0, -1},
      {&g->s.frame, frames * DD * es, -1},
      {(void **)&g->d_frame_work, frames * (2 * DD + 2 * (size_t)g->D) * sizeof(double), -1},
      {&g->s.cost, parts * es, -1},
      {&g->s.pcost, parts * es, -1},
      {&g->s.gb, K * IPSO_GB_SLOTS * IPSO_GB_SLOT_BYTES, -1},
      {&g->s.gpos, K * IPSO_GB_SLOTS * pitch * es, 0},
      {&g->s.slot_cost, cand * es, -1},
      {(void **)&g->s.slot_idx, cand * sizeof(long long), -1}};
  IPSO_TRY(gpu_alloc_parts(g, p, sizeof p / sizeof p[0], "the swarm"));
  if (clpso) IPSO_TRY(upload_learning(g));
  union gpu_slot slots[IPSO_GB_SLOTS];
  gpu_slots_empty(slots, g->fl);
  for (size_t k = 0; k < K; k++)
    IPSO_CHECK_CUDA(cudaMemcpy((char *)g->s.gb + k * sizeof slots, slots, sizeof slots,
                               cudaMemcpyHostToDevice));
  g->s.slot_stride = g->plan.blocks;
  g->s.hist_stride = 1;
  /* The history of a whole run where it is short, else of a slice of
   * HIST_FIRST_ITERATIONS (both within HIST_FIRST_BYTES): growing the
   * buffers waits for the device (cudaFree) and pins memory. */
  int64_t its = g->cfg->run.max_iterations, cap = (int64_t)(HIST_FIRST_BYTES / sizeof(double));
  if (its > HIST_FIRST_ITERATIONS) its = HIST_FIRST_ITERATIONS;
  int64_t first = (int64_t)K * its;
  if (first > cap) first = cap > (int64_t)K ? cap : (int64_t)K;
  IPSO_TRY(alloc_history(g, first));
  g->s.hist = g->d_hist;
  IPSO_CHECK_CUDA(cudaMallocHost((void **)&g->h_slots, K * IPSO_GB_SLOTS * sizeof *g->h_slots));
  IPSO_CHECK_CUDA(cudaMallocHost(&g->h_pos, pitch * 8));
  return IPSO_OK;
}

/* candidates_kernel's blocks: a particle per thread. */
static int candidate_blocks(const struct gpu_swarm *g)
{
  return (int)((g->N + g->plan.map.block - 1) / g->plan.map.block);
}

/* The slot of iteration T's best. */
static int slot_of(const struct gpu_swarm *g, int64_t t)
{
  return g->plan.relaxed ? 0 : (int)(t & 1);
}

/* Every island's best after iteration g->t into last_best (one copy of all slots). */
static int read_last_bests(struct gpu_swarm *g)
{
  size_t bytes = (size_t)g->count * IPSO_GB_SLOTS * IPSO_GB_SLOT_BYTES;
  IPSO_CHECK_CUDA(cudaMemcpyAsync(g->h_slots, g->s.gb, bytes, cudaMemcpyDeviceToHost, g->stream));
  IPSO_CHECK_CUDA(cudaStreamSynchronize(g->stream));
  for (int k = 0; k < g->count; k++)
    g->last_best[k] = gpu_slot_cost(&g->h_slots[k * IPSO_GB_SLOTS + slot_of(g, g->t)], g->fl);
  g->stale = 0;
  return IPSO_OK;
}

/* After init or a load: every island's global best recomputed from the
 * personal bests as they are, into the slot of iteration g->t, and read. */
static int recompute_best(struct gpu_swarm *g, int from_init)
{
  struct swarm_ptrs s = g->s;
  s.hist = NULL; /* no history entry */
  g->vpre = 0;
  /* Ring: every personal best may have changed, so the next lbest_kernel
   * rewrites every attractor row (s.lidx = -1, in stream order). */
  if (g->s.lidx)
    IPSO_CHECK_CUDA(cudaMemsetAsync(
        g->s.lidx, 0xff, (size_t)g->count * (size_t)g->N * sizeof(long long), g->stream));
  if (!from_init)
    IPSO_CHECK_CUDA(ipso_launch_swarm(&g->k, g->k.candidates, (unsigned)candidate_blocks(g), s));
  int nslots = from_init ? g->plan.blocks : candidate_blocks(g);
  IPSO_CHECK_CUDA(ipso_launch_reduce(&g->k, 0, s, nslots, g->t, g->t, 1));
  /* After a load the iteration continued from is not known here and the
   * next step reads the slot of its parity: the other slot gets the same
   * best too (reduced again from the candidates), tagged g->t - 1 so that
   * the step writing it next still finds it stale, brings it forward and
   * records its entry. */
  if (!from_init && !g->plan.relaxed)
    IPSO_CHECK_CUDA(ipso_launch_reduce(&g->k, 0, s, candidate_blocks(g), g->t - 1, g->t - 1, 0));
  return read_last_bests(g);
}

/* Every island's eigen frame set to the axes (identity; costs no sync: a
 * pageable upload). */
static int frames_to_axes(struct gpu_swarm *g)
{
  size_t DD = (size_t)g->D * (size_t)g->D, n = (size_t)g->count * DD;
  double *id = malloc(n * sizeof *id);
  if (!id) return IPSO_FAIL("memory", "cannot stage the eigen frames");
  for (size_t e = 0; e < n; e++) id[e] = (double)(e % DD % ((size_t)g->D + 1) == 0);
  int rc = gpu_stage_rows(g->s.frame, g->D, id, (size_t)g->count * (size_t)g->D, g->D, g->fl, 0);
  free(id);
  return rc;
}

/* Initialises every island (iteration 0) and reads their bests. */
static int gpu_init(struct backend *b)
{
  struct gpu_swarm *g = b->impl;
  g->t = 0;
  if (g->s.frame) IPSO_TRY(frames_to_axes(g));
  IPSO_CHECK_CUDA(ipso_launch_swarm(&g->k, g->k.init, (unsigned)g->plan.blocks, g->s));
  return recompute_best(g, 1);
}

/* Enqueues iterations FIRST..LAST of every island, their history at g->s.hist. */
static int enqueue_iterations(struct gpu_swarm *g, int64_t first, int64_t last)
{
  const struct gpu_plan *p = &g->plan;
  if (p->mode == GPU_MODE_SPEC)
    IPSO_CHECK_CUDA(ipso_launch_spec(&g->k, &p->map, g->s, first, last));
  else if (p->mode == GPU_MODE_RELAXED)
    IPSO_CHECK_CUDA(ipso_launch_relaxed(&g->k, (unsigned)p->res_blocks, g->s, first, last));
  else
    for (long long t = first; t <= last; t++) {
      if (p->ring) IPSO_CHECK_CUDA(ipso_launch_lbest(&g->k, p->pdl, g->s, g->N));
      if (p->mean) IPSO_CHECK_CUDA(ipso_launch_mean(&g->k, g->s));
      if (p->clpso) IPSO_CHECK_CUDA(ipso_launch_exemplar(&g->k, p->pdl, g->s, g->N, t, g->d_learn));
      if (p->frame && swarm_frame_due(t))
        IPSO_CHECK_CUDA(ipso_launch_frame(&g->k, g->s, g->d_frame_work));
      IPSO_CHECK_CUDA(ipso_launch_step(&g->k, (unsigned)p->blocks, p->pdl, g->s, t, first));
      if (p->variant != GPU_QUEUE_LOCK)
        IPSO_CHECK_CUDA(ipso_launch_reduce(&g->k, p->pdl, g->s, p->blocks, t, first, 0));
    }
  return IPSO_OK;
}

/* Iterations FIRST..LAST of every island: their launches, then
 * hist_out_kernel bringing their history to the pinned buffer, then the wait. */
static int gpu_step(struct backend *b, int64_t first, int64_t last, double *best)
{
  struct gpu_swarm *g = b->impl;
  const struct gpu_plan *p = &g->plan;
  int64_t n = last - first + 1, all = n * g->count;
  g->vpre = 0;
  if (all > g->hist_cap) {
    IPSO_CHECK_CUDA(cudaStreamSynchronize(g->stream));
    IPSO_CHECK_CUDA(cudaFree(g->d_hist));
    g->d_hist = NULL;
    IPSO_CHECK_CUDA(cudaFreeHost(g->h_hist));
    g->h_hist = NULL;
    /* At least twice as large: slices grow, each growth waits. */
    IPSO_TRY(alloc_history(g, all > 2 * g->hist_cap ? all : 2 * g->hist_cap));
  }
  /* Island k's history at [k * n]: the interface's layout of BEST. */
  g->s.hist = g->d_hist;
  g->s.hist_stride = n;
  /* Relaxed: NaN marks an iteration that improved nothing, which takes the
   * best before it (the slots read again after migrants came in). Strict:
   * the launches write every entry (one left NaN is an error), so no memset
   * or copy sits between the last migration's kernel and the step's. */
  if (p->relaxed) {
    if (g->stale) IPSO_TRY(read_last_bests(g));
    IPSO_CHECK_CUDA(cudaMemsetAsync(g->s.hist, 0xff, (size_t)all * sizeof(double), g->stream));
  }
  g->stale = 0;
  IPSO_CHECK_CUDA(cudaEventRecord(g->start, g->stream));
  IPSO_TRY(enqueue_iterations(g, first, last));
  IPSO_CHECK_CUDA(cudaGetLastError());
  IPSO_CHECK_CUDA(cudaEventRecord(g->stop, g->stream));
  IPSO_CHECK_CUDA(ipso_launch_hist_out(&g->k, p->pdl, g->s.hist, g->dh_hist, all));
  IPSO_CHECK_CUDA(cudaStreamSynchronize(g->stream));
  memcpy(best, g->h_hist, (size_t)all * sizeof(double));
  for (int k = 0; k < g->count; k++) {
    double *h = best + (size_t)k * (size_t)n;
    for (int64_t j = 0; j < n; j++)
      if (isnan(h[j])) {
        if (!p->relaxed)
          return IPSO_FAIL("gpu", "island %d: no best recorded for iteration %lld", g->island + k,
                           (long long)(first + j));
        h[j] = j ? h[j - 1] : g->last_best[k];
      }
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

/* From last_best, read again only after migrants came in. */
static int gpu_best_costs(struct backend *b, double *cost)
{
  struct gpu_swarm *g = b->impl;
  if (g->stale) IPSO_TRY(read_last_bests(g));
  memcpy(cost, g->last_best, sizeof(double) * (size_t)g->count);
  return IPSO_OK;
}

/* Island K's best of the slot of iteration g->t: cost, particle, position. */
static int gpu_best(struct backend *b, int k, struct island_best *out)
{
  struct gpu_swarm *g = b->impl;
  int pitch = g->plan.map.pitch;
  size_t slot_k = (size_t)k * IPSO_GB_SLOTS + (size_t)slot_of(g, g->t); /* island-major */
  union gpu_slot slot;
  IPSO_CHECK_CUDA(cudaMemcpyAsync(&slot, (char *)g->s.gb + slot_k * IPSO_GB_SLOT_BYTES,
                                  IPSO_GB_SLOT_BYTES, cudaMemcpyDeviceToHost, g->stream));
  IPSO_CHECK_CUDA(cudaMemcpyAsync(g->h_pos, (char *)g->s.gpos + slot_k * (size_t)pitch * g->es,
                                  (size_t)g->D * g->es, cudaMemcpyDeviceToHost, g->stream));
  IPSO_CHECK_CUDA(cudaStreamSynchronize(g->stream));
  out->cost = gpu_slot_cost(&slot, g->fl);
  out->particle = gpu_slot_particle(&slot, g->fl);
  gpu_rows_from_real(out->position, g->h_pos, pitch, 1, g->D, g->fl);
  return IPSO_OK;
}

/* Copies all K swarms between the device and ST (island-major on both sides). */
static int stage_state(struct gpu_swarm *g, const struct swarm_state *st, int to_host)
{
  double *host[5] = {st->position, st->velocity, st->pbest_position, st->cost, st->pbest_cost};
  IPSO_CHECK_CUDA(cudaStreamSynchronize(g->stream));
  for (int a = 0; a < 5; a++)
    IPSO_TRY(gpu_stage_rows(gpu_state_array(g, a), a < 3 ? g->plan.map.pitch : 1, host[a],
                            (size_t)g->N * (size_t)g->count, a < 3 ? g->D : 1, g->fl, to_host));
  if (st->frame && g->s.frame)
    IPSO_TRY(gpu_stage_rows(g->s.frame, g->D, st->frame, (size_t)g->count * (size_t)g->D, g->D,
                            g->fl, to_host));
  return IPSO_OK;
}

/* Copies all K swarms to ST. */
static int gpu_save(struct backend *b, struct swarm_state *st)
{
  return stage_state(b->impl, st, 1);
}

/* Loads all K swarms from ST and recomputes their bests. */
static int gpu_load(struct backend *b, const struct swarm_state *st)
{
  struct gpu_swarm *g = b->impl;
  IPSO_TRY(stage_state(g, st, 0));
  return recompute_best(g, 0);
}

/* Frees everything the backend holds on the device and the host. */
static void gpu_destroy(struct backend *b)
{
  struct gpu_swarm *g = b->impl;
  if (!g) return;
  /* s.hist is d_hist. */
  void *dev[] = {g->s.x,    g->s.v,         g->s.p,        g->s.cost,   g->s.pcost,     g->s.gb,
                 g->s.gpos, g->s.slot_cost, g->s.slot_idx, g->d_tables, g->s.lbest,     g->s.lidx,
                 g->s.pnew, g->d_learn,     g->d_hist,     g->s.frame,  g->d_frame_work};
  for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
    if (dev[i]) cudaFree(dev[i]);
  void *pinned[] = {g->h_pos, g->h_hist, g->h_slots};
  for (size_t i = 0; i < sizeof pinned / sizeof pinned[0]; i++)
    if (pinned[i]) cudaFreeHost(pinned[i]);
  if (g->prog.library) cudaLibraryUnload(g->prog.library);
  if (g->start) cudaEventDestroy(g->start);
  if (g->stop) cudaEventDestroy(g->stop);
  if (g->stream) cudaStreamDestroy(g->stream);
  gpu_migrate_free(g);
  free(g->last_best);
  free(g);
  b->impl = NULL;
}

/* Destroys B and resets its device (the rank's only backend on it). */
static void gpu_end(struct backend *b)
{
  int device = b->impl ? ((struct gpu_swarm *)b->impl)->device : -1;
  gpu_destroy(b);
  if (device >= 0 && cudaSetDevice(device) == cudaSuccess) cudaDeviceReset();
}

static const struct backend_device gpu_device = {
    .end = gpu_end,
};

/* The kernels' arithmetic at the N points X ([n * D]) into OUT: the objective
 * (evaluate_kernel) or, SEPARABLE, separable_check_kernel's 3 values a point. */
static int run_points(struct gpu_swarm *g, const double *x, int64_t n, int separable, double *out)
{
  int pitch = g->plan.map.pitch;
  size_t rows_bytes = (size_t)n * (size_t)pitch * g->es;
  int fl = g->fl && !separable; /* the check's values are doubles */
  size_t values = separable ? 3 * (size_t)n : (size_t)n, es = fl ? sizeof(float) : sizeof(double);
  char *rows = calloc(1, rows_bytes), *res = malloc(values * es);
  void *d_rows = NULL, *d_out = NULL;
  int rc = IPSO_OK;
  if (!rows || !res) {
    rc = IPSO_FAIL("memory", "out of memory");
    goto done;
  }
  gpu_rows_to_real(rows, pitch, x, (size_t)n, g->D, g->fl);
  IPSO_CHECK_CUDA_GOTO(cudaMalloc(&d_rows, rows_bytes), rc, done);
  IPSO_CHECK_CUDA_GOTO(cudaMalloc(&d_out, values * es), rc, done);
  IPSO_CHECK_CUDA_GOTO(cudaMemcpy(d_rows, rows, rows_bytes, cudaMemcpyHostToDevice), rc, done);
  long long ppb = gpu_mapping_ppb(&g->plan.map);
  IPSO_CHECK_CUDA_GOTO(
      separable ? ipso_launch_separable_check(&g->k, d_rows, (int)n, d_out)
                : ipso_launch_evaluate(&g->k, (unsigned)((n + ppb - 1) / ppb), d_rows, n, d_out),
      rc, done);
  IPSO_CHECK_CUDA_GOTO(cudaStreamSynchronize(g->stream), rc, done);
  IPSO_CHECK_CUDA_GOTO(cudaMemcpy(res, d_out, values * es, cudaMemcpyDeviceToHost), rc, done);
  for (size_t i = 0; i < values; i++) out[i] = gpu_real_get(res, i, fl);
done:
  if (d_rows) cudaFree(d_rows);
  if (d_out) cudaFree(d_out);
  free(rows);
  free(res);
  return rc;
}

/* The objective at the N points X ([n * D]) into F, with the steps' own arithmetic. */
static int gpu_evaluate(struct backend *b, const double *x, int64_t n, double *f)
{
  struct gpu_swarm *g = b->impl;
  if (!g->k.evaluate) return IPSO_FAIL("gpu", "a backend not created for evaluation");
  return n == 0 ? IPSO_OK : run_points(g, x, n, 0, f);
}

static const struct backend_ops gpu_ops = {
    .name = "gpu",
    .init = gpu_init,
    .step = gpu_step,
    .best = gpu_best,
    .best_costs = gpu_best_costs,
    .migrate_out = gpu_migrate_out,
    .migrate_in = gpu_migrate_in,
    .migrate_sent = gpu_migrate_sent,
    .save_state = gpu_save,
    .load_state = gpu_load,
    .destroy = gpu_destroy,
    .evaluate = gpu_evaluate,
    .device = &gpu_device,
};

int gpu_device_count(void)
{
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
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
  int user = cfg->objective.id == IPSO_OBJ_USER;
  char *defines = gpu_kernel_defines(cfg, &g->plan, k);
  char *prelude = user ? user_objective_wrapper(cfg) : NULL;
  int rc = !defines || (user && !prelude)
               ? IPSO_FAIL("memory", "out of memory")
               : gpu_compile(defines, prelude, major, minor, user, &g->prog);
  free(defines);
  free(prelude);
  if (rc != IPSO_OK) return rc;
  IPSO_CHECK_CUDA(ipso_kernels_load(g->prog.library, &g->plan, user && cfg->objective.separable,
                                    g->stream, &g->k));
  return IPSO_OK;
}

/* The launch mode, from the device and the kernels' occupancy. */
static int plan_launch(struct gpu_swarm *g, const struct cudaDeviceProp *prop)
{
  struct gpu_device_facts dev = {.major = prop->major,
                                 .multiprocessors = prop->multiProcessorCount};
  int block = g->plan.map.block;
  if (g->plan.islands > 1)
    IPSO_CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &dev.per_sm_step, (const void *)g->k.step, block, 0));
  if (gpu_plan_relaxed_possible(&g->plan))
    IPSO_CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &dev.per_sm, (const void *)g->k.res_relaxed, block, 0));
  /* A cluster the driver cannot place would fail at its launch: the plan
   * takes another mode instead. A driver that cannot answer (an error of
   * the query, cleared) leaves the plan as it was. */
  int placed = 1;
  if (g->plan.map.spec_cb > 0 && g->k.res_spec && prop->major >= 9) {
    if (ipso_cluster_placed(g->k.res_spec, (unsigned)g->plan.map.spec_cb,
                            (unsigned)g->plan.map.spec_threads + 32, &placed) == cudaSuccess)
      dev.spec_refused = !placed;
    (void)cudaGetLastError();
  }
  gpu_plan_launch(&g->plan, &dev);
  return IPSO_OK;
}

/* objective.separable checked with the kernels' arithmetic at user_separable_points. */
static int check_separable(struct gpu_swarm *g)
{
  enum { N = USER_SEPARABLE_POINTS };
  double *pts = malloc((size_t)N * (size_t)g->D * sizeof *pts);
  double out[3 * N], whole[N], terms[N], mag[N];
  if (!pts) return IPSO_FAIL("memory", "out of memory");
  user_separable_points(g->cfg, pts);
  int rc = run_points(g, pts, N, 1, out);
  free(pts);
  IPSO_TRY(rc);
  for (int i = 0; i < N; i++) {
    whole[i] = out[3 * i];
    terms[i] = out[3 * i + 1];
    mag[i] = out[3 * i + 2];
  }
  return user_separable_verdict(g->cfg, whole, terms, mag);
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
  g->plan.map.evaluate = o->evaluate;
  /* One island in all never migrates: no migration kernels to compile. */
  g->plan.map.migrates = !(setup->islands == 1 && g->count == 1);
  int rc = IPSO_OK;
  if (g->count > IPSO_MAX_ISLANDS)
    rc = IPSO_FAIL("gpu", "%d islands on one GPU: at most %d", g->count, IPSO_MAX_ISLANDS);
  else if (!(g->last_best = calloc((size_t)g->count, sizeof *g->last_best)))
    rc = IPSO_FAIL("gpu", "out of memory");
  if (rc != IPSO_OK) {
    gpu_destroy(b);
    return rc;
  }
  struct cudaDeviceProp prop;
  struct swarm_consts k = {0};
  cudaError_t e = cudaSetDevice(g->device);
  if (e == cudaSuccess) e = cudaGetDeviceProperties(&prop, g->device);
  if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking);
  if (e == cudaSuccess) e = cudaEventCreate(&g->start);
  if (e == cudaSuccess) e = cudaEventCreate(&g->stop);
  if (e != cudaSuccess)
    rc = IPSO_FAIL("cuda", "cannot use GPU %d: %s", g->device, cudaGetErrorString(e));
  timings_mark("GPU context");
  if (rc == IPSO_OK) rc = swarm_consts_build(cfg, &k);
  if (rc == IPSO_OK) rc = build_program(g, &k, prop.major, prop.minor);
  timings_mark(g->prog.compile_seconds > 0 ? "GPU kernels compiled (NVRTC)" : "GPU kernels loaded");
  if (rc == IPSO_OK) rc = plan_launch(g, &prop);
  if (rc == IPSO_OK) {
    char bus[32] = "?", ring[48] = "", mode[96];
    cudaDeviceGetPCIBusId(bus, sizeof bus, g->device);
    if (g->plan.ring) snprintf(ring, sizeof ring, " ring k=%d", g->plan.neighbours);
    if (g->plan.mean == 2) snprintf(ring, sizeof ring, " ring k=%d/mean", g->plan.neighbours);
    if (g->plan.mean == 1) snprintf(ring, sizeof ring, " mean");
    if (g->plan.clpso) snprintf(ring, sizeof ring, " clpso refresh=%d", g->plan.refresh);
    snprintf(b->description, sizeof b->description, "gpu %d (%.96s, %s, %.0f GiB), %s %s%s, %s",
             g->device, prop.name, bus, (double)prop.totalGlobalMem / (1 << 30),
             config_kernel_name(cfg->swarm.kernel), config_sync_name(cfg->swarm.sync), ring,
             gpu_plan_describe(&g->plan, mode, sizeof mode));
  }
  if (rc == IPSO_OK) rc = allocate(g);
  if (rc == IPSO_OK)
    rc = gpu_stage_constants(g->prog.library, cfg, g->island, &k, g->D, g->plan.map.pitch, g->fl,
                             &g->d_tables);
  if (rc == IPSO_OK && cfg->objective.id == IPSO_OBJ_USER && cfg->objective.separable)
    rc = check_separable(g);
  /* The migration's buffers now, not in the run's first migration (pinning is slow). */
  if (rc == IPSO_OK && cfg->migration.interval > 0 && cfg->migration.migrants > 0)
    rc = gpu_migrate_reserve(g, cfg->migration.migrants);
  timings_mark("GPU allocation and constants");
  swarm_consts_free(&k);
  if (rc == IPSO_OK && g->prog.compile_seconds > 0 && setup->island == 0)
    log_info("islandpso: compiled the GPU kernels in %.2f s (cached for later runs)",
             g->prog.compile_seconds);
  if (rc != IPSO_OK) gpu_destroy(b);
  return rc;
}

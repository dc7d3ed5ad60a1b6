/* The CUDA backend's internal header, host code only: the kernels'
 * compilation and launchers, the staging between host and device, and the
 * backend's state, shared by backend_gpu.c and gpu_migrate.c. */
#ifndef IPSO_GPU_SWARM_H
#define IPSO_GPU_SWARM_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "backend.h"
#include "config.h"
#include "gpu_abi.h"
#include "gpu_plan.h"
#include "swarm.h"

/* A kernel program compiled with NVRTC for the device's own architecture,
 * with an on-disk cache (gpu_compile.c). */
struct gpu_program {
  cudaLibrary_t library;
  double compile_seconds; /* 0 when the cache had it */
};

/* Compiles DEFINES (#define lines) + PRELUDE (NULL: none; e.g. the user
 * objective's wrapper) + the kernel source for compute capability
 * MAJOR.MINOR, or takes it from the cache, and loads it as a library. A
 * compile error in user code: IPSO_ERR_USAGE, NVRTC's log printed; any
 * other failure IPSO_ERR_RUNTIME. */
int gpu_compile(const char *defines, const char *prelude, int major, int minor, int user_code,
                struct gpu_program *out);

/* Compiles without a device or the cache: the cubin image (malloc'd). */
int gpu_compile_image(const char *defines, const char *prelude, int major, int minor, int user_code,
                      char **image, size_t *size);

/* The host side of kernels/pso_kernels.cu (gpu_launch.c): kernel lookup
 * and one launcher per kernel (inline, over ipso_launch). A launcher only
 * enqueues on K's stream and returns CUDA's status. S: all of K's islands
 * (gridDim.y); PDL: with programmatic dependent launch. */

/* Grid and block of the copy kernels (gather, hist_out: grid-stride loops). */
#define IPSO_COPY_GRID 64
#define IPSO_COPY_BLOCK 256

/* The kernels of one compiled program (NULL where it has none: the
 * resident kernels, the separability check) and how they are launched. */
struct gpu_kernels {
  cudaKernel_t step;     /* the plan's variant */
  cudaKernel_t lbest;    /* ring topology only */
  cudaKernel_t exemplar; /* clpso topology only */
  cudaKernel_t frame;    /* eigen frames only */
  cudaKernel_t mean;     /* mean and mixed topologies only */
  cudaKernel_t reduce, init, candidates, select, gather, migrate, emigrate, hist_out;
  cudaKernel_t res_relaxed; /* one relaxed island in one launch per segment */
  cudaKernel_t res_spec;    /* one cluster per island (map.spec_cb > 0) */
  cudaKernel_t separable_check;
  cudaKernel_t evaluate; /* --evaluate */
  unsigned islands;      /* the plan's islands: gridDim.y of the per-island launches */
  unsigned block;        /* the plan's threads per block */
  cudaStream_t stream;
};

/* Looks up the kernels of LIBRARY that plan P uses (SEPARABLE: the
 * separability check too), to be launched on STREAM. */
cudaError_t ipso_kernels_load(cudaLibrary_t library, const struct gpu_plan *p, int separable,
                              cudaStream_t stream, struct gpu_kernels *k);

/* KERNEL on GRID x ISLANDS blocks of BLOCK threads with ARGS, on K's
 * stream; PDL: the kernel waits for the previous one itself (pdl_start). */
cudaError_t ipso_launch(const struct gpu_kernels *k, cudaKernel_t kernel, unsigned grid,
                        unsigned islands, unsigned block, int pdl, void **args);

/* *PLACED: whether the driver can place a cluster of CLUSTER blocks of
 * BLOCK threads of KERNEL. */
cudaError_t ipso_cluster_placed(cudaKernel_t kernel, unsigned cluster, unsigned block, int *placed);

/* Iterations FIRST..LAST, a cluster of M's spec_cb blocks per island
 * (speculative_cluster_kernel). */
cudaError_t ipso_launch_spec(const struct gpu_kernels *k, const struct gpu_mapping *m,
                             struct swarm_ptrs s, long long first, long long last);

/* Iteration T of the islands (step kernel, GRID blocks per island). */
static inline cudaError_t ipso_launch_step(const struct gpu_kernels *k, unsigned grid, int pdl,
                                           struct swarm_ptrs s, long long t, long long first)
{
  return ipso_launch(k, k->step, grid, k->islands, k->block, pdl, (void *[]){&s, &t, &first});
}

/* Ring: the attractor rows (lbest_kernel), a thread per particle of N. */
static inline cudaError_t ipso_launch_lbest(const struct gpu_kernels *k, int pdl,
                                            struct swarm_ptrs s, long long n)
{
  return ipso_launch(k, k->lbest, (unsigned)((n + k->block - 1) / k->block), k->islands, k->block,
                     pdl, (void *[]){&s});
}

/* clpso: the exemplar rows for iteration T (exemplar_kernel, thresholds
 * D_LEARN[n]), a warp per particle of N. */
static inline cudaError_t ipso_launch_exemplar(const struct gpu_kernels *k, int pdl,
                                               struct swarm_ptrs s, long long n, long long t,
                                               const unsigned int *d_learn)
{
  long long warps = k->block / 32;
  return ipso_launch(k, k->exemplar, (unsigned)((n + warps - 1) / warps), k->islands, k->block, pdl,
                     (void *[]){&s, &t, &d_learn});
}

/* frame_kernel: every island's eigen frame, a block each (WORK: its scratch). */
static inline cudaError_t ipso_launch_frame(const struct gpu_kernels *k, struct swarm_ptrs s,
                                            double *work)
{
  return ipso_launch(k, k->frame, k->islands, 1, 256, 0, (void *[]){&s, &work});
}

/* mean_kernel: the mean attractor of every island that follows one, a block each. */
static inline cudaError_t ipso_launch_mean(const struct gpu_kernels *k, struct swarm_ptrs s)
{
  return ipso_launch(k, k->mean, k->islands, 1, 1024, 0, (void *[]){&s});
}

/* The global best of iteration T from NSLOTS block candidates (FRESH:
 * without the best of T-1). */
static inline cudaError_t ipso_launch_reduce(const struct gpu_kernels *k, int pdl,
                                             struct swarm_ptrs s, int nslots, long long t,
                                             long long first, int fresh)
{
  return ipso_launch(k, k->reduce, 1, k->islands, k->block, pdl,
                     (void *[]){&s, &nslots, &t, &first, &fresh});
}

/* Iterations FIRST..LAST of one relaxed island, GRID resident blocks. */
static inline cudaError_t ipso_launch_relaxed(const struct gpu_kernels *k, unsigned grid,
                                              struct swarm_ptrs s, long long first, long long last)
{
  return ipso_launch(k, k->res_relaxed, grid, 1, k->block, 0, (void *[]){&s, &first, &last});
}

/* KERNEL, whose one argument is S, on GRID blocks per island: init_kernel
 * (iteration 0), candidates_kernel (the block candidates after a load). */
static inline cudaError_t ipso_launch_swarm(const struct gpu_kernels *k, cudaKernel_t kernel,
                                            unsigned grid, struct swarm_ptrs s)
{
  return ipso_launch(k, kernel, grid, k->islands, k->block, 0, (void *[]){&s});
}

/* The COUNT best (WORST = 0) or worst of N entries D_COST, CHUNK per block,
 * into D_OUT, D_OUT_COST (select_kernel says how). */
static inline cudaError_t ipso_launch_select(const struct gpu_kernels *k, unsigned grid,
                                             const void *d_cost, const long long *d_index,
                                             long long n, long long chunk, long long in_stride,
                                             long long out_stride, int worst, int count,
                                             long long *d_out, void *d_out_cost)
{
  return ipso_launch(k, k->select, grid, k->islands, k->block, 0,
                     (void *[]){&d_cost, &d_index, &n, &chunk, &in_stride, &out_stride, &worst,
                                &count, &d_out, &d_out_cost});
}

/* Personal-best rows D_IDX of each island into D_BUF, their costs into
 * D_COST, the edge islands' into D_EDGE_ROWS, D_EDGE_COST (gather_kernel). */
static inline cudaError_t ipso_launch_gather(const struct gpu_kernels *k, struct swarm_ptrs s,
                                             const long long *d_idx, int count, void *d_buf,
                                             void *d_cost, void *d_edge_rows, void *d_edge_cost)
{
  return ipso_launch(k, k->gather, IPSO_COPY_GRID, k->islands, IPSO_COPY_BLOCK, 0,
                     (void *[]){&s, &d_idx, &count, &d_buf, &d_cost, &d_edge_rows, &d_edge_cost});
}

/* Every island's message out and its VICTIMS (emigrate_kernel). */
static inline cudaError_t ipso_launch_emigrate(const struct gpu_kernels *k, struct swarm_ptrs s,
                                               int count, long long *d_sel, void *d_sel_cost,
                                               void *d_msg, void *d_edge_rows, void *d_edge_cost,
                                               int victims, long long *d_vsel, void *d_vcost)
{
  return ipso_launch(k, k->emigrate, k->islands, 1, k->block, 0,
                     (void *[]){&s, &count, &d_sel, &d_sel_cost, &d_msg, &d_edge_rows, &d_edge_cost,
                                &victims, &d_vsel, &d_vcost});
}

/* One migration of all the islands of S (migrate_kernel). */
static inline cudaError_t ipso_launch_migrate(const struct gpu_kernels *k, struct swarm_ptrs s,
                                              int count, int links, int closed, void *d_msg,
                                              void *d_mcost, const unsigned char *d_carried,
                                              const long long *d_vidx, const void *d_vcost,
                                              int vstride, int *d_order, void *d_sent,
                                              const void *const d_rmsg[2],
                                              const void *const d_rcost[2], long long t)
{
  int islands = (int)k->islands;
  const void *rmsg0 = d_rmsg[0], *rcost0 = d_rcost[0], *rmsg1 = d_rmsg[1], *rcost1 = d_rcost[1];
  return ipso_launch(k, k->migrate, k->islands, 1, k->block, 0,
                     (void *[]){&s, &islands, &count, &links, &closed, &d_msg, &d_mcost, &d_carried,
                                &d_vidx, &d_vcost, &vstride, &d_order, &d_sent, &rmsg0, &rcost0,
                                &rmsg1, &rcost1, &t});
}

/* A step's N history values at D_SRC into mapped D_DST (hist_out_kernel). */
static inline cudaError_t ipso_launch_hist_out(const struct gpu_kernels *k, int pdl, double *d_src,
                                               double *d_dst, long long n)
{
  long long blocks = (n + IPSO_COPY_BLOCK - 1) / IPSO_COPY_BLOCK;
  return ipso_launch(k, k->hist_out, (unsigned)(blocks < IPSO_COPY_GRID ? blocks : IPSO_COPY_GRID),
                     1, IPSO_COPY_BLOCK, pdl, (void *[]){&d_src, &d_dst, &n});
}

/* The objective at the N rows of D_PTS into D_OUT (evaluate_kernel). */
static inline cudaError_t ipso_launch_evaluate(const struct gpu_kernels *k, unsigned grid,
                                               const void *d_pts, long long n, void *d_out)
{
  return ipso_launch(k, k->evaluate, grid, 1, k->block, 0, (void *[]){&d_pts, &n, &d_out});
}

/* The separability check at N points D_PTS (rows), into D_OUT[3 N]. */
static inline cudaError_t ipso_launch_separable_check(const struct gpu_kernels *k,
                                                      const void *d_pts, int n, double *d_out)
{
  return ipso_launch(k, k->separable_check, 1, 1, (unsigned)n, 0, (void *[]){&d_pts, &n, &d_out});
}

/* The staging between the host's doubles and the device's REALs (float or
 * double; gpu_stage.c). */

/* A global-best slot in either precision, as the device holds it. */
union gpu_slot {
  struct gbest_slot_f f;
  struct gbest_slot_d d;
};

/* Element I of a REAL array A (FL: float) as a double, and the reverse. */
static inline double gpu_real_get(const void *a, size_t i, int fl)
{
  return fl ? ((const float *)a)[i] : ((const double *)a)[i];
}

static inline void gpu_real_set(void *a, size_t i, double v, int fl)
{
  if (fl)
    ((float *)a)[i] = (float)v;
  else
    ((double *)a)[i] = v;
}

/* ROWS rows of DIMS doubles (dense) into REAL rows of PITCH elements, and
 * back; the padding of the REAL rows is left as it is. */
void gpu_rows_to_real(void *dst, int pitch, const double *src, size_t rows, int dims, int fl);
void gpu_rows_from_real(double *dst, const void *src, int pitch, size_t rows, int dims, int fl);

/* The kernels' constants (K in LIBRARY) for island ISLAND of CFG, and their
 * tables (lo, hi, span, vmax a row per velocity clamp, PITCH REALs each;
 * then param) in a new device allocation *D_TABLES. */
int gpu_stage_constants(cudaLibrary_t library, const struct ipso_config *cfg, int island,
                        const struct swarm_consts *k, int dims, int pitch, int fl, void **d_tables);

/* Both slots empty: cost +infinity (no candidate is compared with a cost
 * not in the swarm), no particle, iteration or offer; padding zero. */
void gpu_slots_empty(union gpu_slot slots[IPSO_GB_SLOTS], int fl);

/* A slot's cost and particle. */
static inline double gpu_slot_cost(const union gpu_slot *s, int fl)
{
  return fl ? s->f.cost : s->d.cost;
}

static inline long long gpu_slot_particle(const union gpu_slot *s, int fl)
{
  return fl ? s->f.idx : s->d.idx;
}

/* Copies N rows of DIMS coordinates between the device array DEV (PITCH
 * elements per row; costs: 1 and 1) and dense host doubles (TO_HOST: from
 * the device). Synchronous. */
int gpu_stage_rows(void *dev, int pitch, double *host, size_t n, int dims, int fl, int to_host);

struct gpu_swarm {
  const struct ipso_config *cfg;
  struct gpu_plan plan;
  int device, island, D, fl;
  int count; /* K: islands, global ids island .. island + count - 1 */
  int64_t N;
  size_t es; /* bytes per element */
  int64_t t; /* last completed iteration */
  cudaStream_t stream;
  struct gpu_program prog;
  struct gpu_kernels k;
  struct swarm_ptrs s;
  void *d_tables;        /* lo, hi, span, vmax, prm: [pitch] each */
  long long *d_pick;     /* [pick_blocks * 2 * mcap] the selection blocks' picks */
  void *d_pickcost;      /* [pick_blocks * 2 * mcap] their costs */
  unsigned int *d_learn; /* clpso: [N] swarm_clpso_threshold, the same for every island */
  double *d_frame_work;  /* eigen frames: frame_kernel's scratch, [2 D^2 + 2 D] an island */
  void *h_pos;           /* pinned: the position gpu_best copies */
  int stale;             /* last_best needs reading (after migrants came in) */
  /* The migration on the device (gpu_migrate.c: migrate_out, migrate_in),
   * for messages of up to mcap migrants: */
  int mcap;
  void *d_msg;              /* [(count + 2) * mcap * pitch] the messages' rows: every island's
                               out, then the two from the neighbouring ranks */
  void *d_mcost;            /* [(count + 2) * mcap] their costs */
  long long *d_msel;        /* [count * mcap] the particles sent */
  long long *d_vsel;        /* [count * 2 * mcap] the victims (worst or drawn) */
  void *d_vcost;            /* [count * 2 * mcap] their personal-best costs */
  int *d_order;             /* [count * 2 * mcap] migrate_kernel's merge order */
  unsigned char *d_carried; /* [2 * count] which links carry migrants */
  void *h_mig;              /* pinned, mapped: what goes to and comes from the device for it */
  char *d_hmig;             /* h_mig as the device addresses it */
  int vpre;                 /* victims per island migrate_out chose in d_vsel (0: none) */
  cudaEvent_t ev_mig[2];    /* after migrate_out's and migrate_in's last copies of h_mig */
  int sent_pending;         /* a migration's sent costs are on their way to h_mig */
  int carried_valid;        /* d_carried holds h_mig's links (uploaded, unchanged since) */
  double *last_best;        /* [count] each island's best cost after iteration t */
  union gpu_slot *h_slots;  /* [count * IPSO_GB_SLOTS] pinned: the slots as read */
  /* step()'s history: the kernels' on the device, the pinned, mapped copy hist_out_kernel fills. */
  int64_t hist_cap;
  double *d_hist, *h_hist, *dh_hist;
  cudaEvent_t start, stop; /* around the last step's launches (bench_gpu's kernel time) */
};

/* Array A of the state: 0-2 the rows x, v, p; 3, 4 the costs cost, pcost;
 * 5 the eigen frames (dense, D x D an island; NULL where none). */
static inline void *gpu_state_array(const struct gpu_swarm *g, int a)
{
  void *const arr[6] = {g->s.x, g->s.v, g->s.p, g->s.cost, g->s.pcost, g->s.frame};
  return arr[a];
}

/* A device array: where its pointer is, its bytes (0: none, left NULL) and
 * the byte it is filled with (-1: left as allocated). */
struct gpu_part {
  void **ptr;
  size_t bytes;
  int fill;
};

/* Allocates the N arrays of P on G's device; WHAT names them in the error. */
int gpu_alloc_parts(const struct gpu_swarm *g, const struct gpu_part *p, size_t n,
                    const char *what);

/* The backend's migration (gpu_migrate.c), and the release of its buffers. */
int gpu_migrate_out(struct backend *b, int count, const int64_t *select, int victims,
                    double *const edge[2]);
int gpu_migrate_in(struct backend *b, int count, int links, const unsigned char *carried,
                   const int64_t *replace, const double *const remote[2]);
int gpu_migrate_sent(struct backend *b, double *sent);
/* Grows the migration's buffers to messages of COUNT migrants (and the
 * selection's to 2 * COUNT victims). */
int gpu_migrate_reserve(struct gpu_swarm *g, int count);
void gpu_migrate_free(struct gpu_swarm *g);

#endif

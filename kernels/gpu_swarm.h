/* The CUDA backend's internal header, host code only: the kernels'
 * compilation, the staging between host and device, and the backend's
 * state, shared by backend_gpu.c, gpu_migrate.c and gpu_capture.c. */
#ifndef IPSO_GPU_SWARM_H
#define IPSO_GPU_SWARM_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "backend.h"
#include "config.h"
#include "gpu_abi.h"
#include "gpu_launch.h"
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

/* The staging between the host's doubles and the device's REALs (float or
 * double; gpu_stage.c). A global-best slot in either precision: */
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
  /* The state captured for the checkpoint's I/O threads (gpu_capture.c): a dense
   * device copy of x, v, p, cost, pcost (or, held, the swarms themselves), read in
   * pieces by threads each with a stream and pinned buffers of its own. */
  struct gpu_capture {
    void *d;
    int held; /* gpu_hold: the pieces come from the swarms themselves, not d */
    cudaEvent_t taken;
    struct gpu_capture_reader {
      cudaStream_t stream;
      double *out; /* [STATE_PIECE_ELEMENTS] pinned */
      void *raw;   /* [STATE_PIECE_ELEMENTS] floats, pinned (float swarms) */
    } reader[STATE_PIECE_READERS];
  } capture;
  int capture_failed; /* no memory for one: captures are not offered */
};

/* Array A of the state: 0-2 the rows x, v, p; 3, 4 the costs cost, pcost. */
static inline void *gpu_state_array(const struct gpu_swarm *g, int a)
{
  void *const arr[5] = {g->s.x, g->s.v, g->s.p, g->s.cost, g->s.pcost};
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

/* The backend's state capture (gpu_capture.c), and its release. */
int gpu_capture(struct backend *b, int *captured);
int gpu_hold(struct backend *b);
int gpu_read_captured_piece(struct backend *b, int reader, int array, int64_t first, int64_t n,
                            const double **data);
void gpu_capture_free(struct gpu_swarm *g);

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

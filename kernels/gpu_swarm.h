/* The CUDA backend's state, shared by its operations (backend_gpu.c) and
 * its migration (gpu_migrate.c). Host code only. */
#ifndef IPSO_GPU_SWARM_H
#define IPSO_GPU_SWARM_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "backend.h"
#include "gpu_abi.h"
#include "gpu_compile.h"
#include "gpu_launch.h"
#include "gpu_plan.h"
#include "gpu_stage.h"

/* Steps begun and not ended at most (gpu_swarm.steps). */
#define GPU_STEPS 2

struct gpu_swarm {
  const struct ipso_config *cfg;
  struct gpu_plan plan;
  int device, island, D, fl;
  int count;           /* K: islands, global ids island .. island + count - 1 */
  int64_t N;
  size_t es; /* bytes per element */
  int64_t t; /* last completed iteration */
  cudaStream_t stream;
  struct gpu_program prog;
  struct gpu_kernels k;
  struct swarm_ptrs s;
  void *d_tables;        /* lo, hi, span, vmax, prm: [pitch] each */
  long long *d_sel;      /* [count * cap] selected indices, island-major */
  void *d_selcost;       /* [2 * cap] their costs */
  long long *d_pick;     /* [pick_blocks * cap] the selection blocks' picks */
  void *d_pickcost;      /* [pick_blocks * cap] their costs */
  void *d_buf;           /* [cap * pitch] migrant rows */
  void *d_bufcost;       /* [cap] migrant costs */
  long long *d_in;       /* [count * cap] indices of the migrants in */
  unsigned int *d_learn; /* clpso: [N] swarm_clpso_threshold, the same for every island */
  void *h_stage;         /* pinned staging: a position, then migrants out and in */
  size_t stage_pos;      /* bytes of the position at the start of h_stage */
  int cap;               /* migrants per island the buffers hold */
  int packed;            /* migrants per island in pinned area 0 (0: none, stale) */
  int victims;           /* victims per island in pinned area 0 (0: none, stale) */
  char *unpacked;        /* [count] island took migrants since the victims were chosen */
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
  double *edge[2];   /* where migrate_edges writes the last migrate_out's edges (NULL: none) */
  int edge_count;    /* their migrants */
  int sent_pending;  /* a migration's sent costs are on their way to h_mig */
  int carried_valid; /* d_carried holds h_mig's links (uploaded, unchanged since) */
  double *last_best;       /* [count] each island's best cost after iteration t */
  union gpu_slot *h_slots; /* [count * IPSO_GB_SLOTS] read_last_bests' copy */
  /* The steps begun and not yet ended (gpu_step_begin, gpu_step_end), first
   * in first out: at most GPU_STEPS, a second begun while the first
   * computes (the solver's slice ahead), each with its history's buffers,
   * its copy of the slots and its events. */
  struct gpu_step {
    int64_t first, last;
    int stale;       /* began with stale bests: its slots copy is taken at its end */
    int64_t slots_t; /* the iteration of that copy */
    int64_t hist_cap;
    double *d_hist;          /* [hist_cap] the kernels' history (s.hist of its launches) */
    double *h_hist;          /* [hist_cap] pinned, mapped: its copy */
    double *dh_hist;         /* h_hist as the device addresses it */
    union gpu_slot *h_slots; /* [count * IPSO_GB_SLOTS] pinned: the slots as it began */
    cudaEvent_t start, stop; /* around its launches */
    cudaEvent_t hist;        /* after hist_out_kernel (gpu_step_end waits for it) */
  } steps[GPU_STEPS];
  int step_oldest, steps_pending;
  int step_ended;   /* the step ended last (gpu_last_step_ms) */
  /* The device's clock over the steps (gpu_device_slices): recorded at
   * init's end, the steps' start and stop events measured from it as
   * each step ends. */
  cudaEvent_t origin;
  int clocked; /* origin recorded */
  double last_stop_ms;
  struct device_slices slices;
  int64_t queued_t; /* the last iteration of the last step begun: where the stream is */
  /* The captured states (gpu_capture.c), one per slot (enum capture_slot):
   * a dense device copy of x, v, p, cost, pcost taken in the stream's
   * order (or, held, the swarms themselves once the stream gets there),
   * read by another thread through its own stream and pinned buffer, or
   * in pieces by several threads, each through a stream and pinned
   * buffers of its own (allocated by that thread on first use). */
  struct gpu_capture {
    void *d;
    int held; /* gpu_hold: the pieces come from the swarms themselves, not d */
    void *h_bounce;
    cudaStream_t stream;
    cudaEvent_t taken;
    struct gpu_capture_reader {
      cudaStream_t stream;
      double *out; /* [STATE_PIECE_ELEMENTS] pinned */
      void *raw;   /* [STATE_PIECE_ELEMENTS] floats, pinned (float swarms) */
    } reader[STATE_PIECE_READERS];
  } capture[CAPTURE_SLOTS];
  int capture_failed; /* no memory for one: captures are not offered */
};

/* Island K's part of the swarm arrays. */
struct swarm_ptrs gpu_island_view(const struct gpu_swarm *g, int k);
/* Recomputes the global best of COUNT islands from island FIRST on. */
int gpu_recompute_best(struct gpu_swarm *g, int first, int count, int from_init);

/* The backend's state capture (gpu_capture.c), and its release. */
int gpu_capture(struct backend *b, int slot, int *captured);
int gpu_hold(struct backend *b, int slot);
int gpu_read_captured(struct backend *b, int slot, struct swarm_state *st);
int gpu_read_captured_piece(struct backend *b, int slot, int reader, int array, int64_t first,
                            int64_t n, const double **data);
void gpu_capture_free(struct gpu_swarm *g);

/* Grows the migrant buffers to COUNT migrants per island (gpu_migrate.c). */
int gpu_reserve_migrants(struct gpu_swarm *g, int count);
/* Grows the buffers of the migration on the device to messages of COUNT
 * migrants (and the selection's to 2 * COUNT victims). */
int gpu_reserve_device_migration(struct gpu_swarm *g, int count);
/* The backend's migration operations (gpu_migrate.c), and the release of
 * their buffers. */
int gpu_pack(struct backend *b, int k, int count, double *pos, double *cost, int64_t *index);
int gpu_unpack(struct backend *b, int k, int count, const double *pos, const double *cost,
               int64_t *replaced);
int gpu_pack_chosen(struct backend *b, int k, int count, const int64_t *index, double *pos,
                    double *cost);
int gpu_unpack_chosen(struct backend *b, int k, int count, const int64_t *index, const double *pos,
                      const double *cost, int64_t *replaced);
int gpu_migrate_out(struct backend *b, int count, const int64_t *select, int victims,
                    double *const edge[2]);
int gpu_migrate_edges(struct backend *b);
int gpu_migrate_in(struct backend *b, int count, int links, const unsigned char *carried,
                   const int64_t *replace, const double *const remote[2]);
int gpu_migrate_sent(struct backend *b, double *sent);
void gpu_migrate_free(struct gpu_swarm *g);

#endif

/* Private to the island loop (solver.c, solver_loop.c, solver_records.c):
 * the solver's state, and what it records and exchanges at segment ends. */
#ifndef IPSO_SOLVER_INTERNAL_H
#define IPSO_SOLVER_INTERNAL_H

#include "files.h"
#include "h5out.h"
#include "invariants.h"
#include "island_mpi.h"
#include "schedule.h"
#include "solver.h"

struct checkpoint_writer;

/* The progress line (solver_loop.c). */
struct progress {
  int mode; /* 0 off, 1 terminal line, 2 plain lines */
  int64_t first, last;
  double start, last_print;
  int64_t last_iteration, evals0; /* at the last print; evaluations at the first update */
  int dirty;                      /* a terminal line is on screen */
};

/* History rows buffered before they are appended to the file. */
#define HISTORY_FLUSH_ROWS 4096

/* The history rows not yet in the file. */
struct history {
  int64_t n, written; /* rows buffered, rows already in the file */
  int64_t *iteration, *evaluations;
  double *island, *global, *wall; /* island: [rows, the rank's islands] */
};

/* A rank's part of the run: its islands, their output and migration. */
struct solver {
  MPI_Comm comm;
  int rank, size;
  int islands;      /* in all */
  int local, first; /* this rank's islands: global ids first .. first + local - 1 */
  const struct ipso_config *cfg;
  const struct solver_options *opt;
  struct backend b; /* the rank's islands, one backend (island k: global id first + k) */
  struct schedule plan;
  struct h5out *out;
  struct ring_exchange *rx; /* between ranks; NULL without migration or with one rank */
  int links;                /* migration messages each island receives (migration_links) */
  double *msg;              /* [4 * message]: the edge islands' messages out, then those in */
  unsigned char *carried;   /* [2 * local] whether island k's link l carries migrants */
  int64_t *drawn;           /* [local * 2 * migrants] the random policies' draws */
  double *sent;             /* [local] the best cost each island sent */
  int sent_from;            /* the first migration record waiting for its cost, or -1 */
  struct history hist;
  struct migration_record *mlog;
  int mn, mcap;
  struct progress prog;
  struct swarm_state state; /* host copy of the rank's islands (snapshots, checkpoints, checks) */
  struct island_best best;
  double *scratch;           /* [dims] */
  struct island_best result; /* the run's best, taken before the last migration */
  int result_island, have_result;
  double *step_best; /* [local, n] each island's best cost after each of a slice's n iterations */
  double *seg_min;   /* [segment] the rank's best of them */
  double *row_cost;  /* [segment + 1 + SOLVER_RIDE] scratch for the rows' global minimum */
  double sign;       /* cost = sign * fitness */
  int64_t N;
  int D;
  int64_t t;                /* last completed iteration */
  int64_t target_iteration; /* first iteration an island reached the target, or -1 */
  /* Earlier invocations' run time, this one's start of iterating, when to stop (0: never),
   * the last checkpoint's start, a slice's and a checkpoint's cost (the limit's margin). */
  double elapsed0, t0, deadline, last_checkpoint, slice_cost, checkpoint_cost;
  struct checkpoint_writer *ckw;       /* the checkpoints; NULL when they are off */
  int64_t ckpt_iteration;              /* of the last checkpoint written, or -1 */
  int64_t ckpt_written;                /* this invocation's */
  double stop_cause;                   /* minus a stop signal, the ranks' minimum */
  int stop_time;                       /* the time limit stopped the run */
  struct invariants **inv;             /* [local] --check-invariants */
  struct run_lock lock_out, lock_ckpt; /* rank 0: held for the run */
  char run_started[32];                /* the run's identity, in every checkpoint */
  char objective_hash[17];
};

/* A cost in the objective's units. */
static inline double fitness_of(const struct solver *s, double cost)
{
  return s->sign * cost;
}

/* Objective evaluations of all islands after iteration T. */
static inline int64_t evaluations_at(const struct solver *s, int64_t t)
{
  return s->N * (int64_t)s->islands * (t + 1);
}

/* solver_loop.c: the segments until the end, the target or a stop (IPSO_STOPPED, checkpointed). */
int solver_iterate(struct solver *s);
/* Iteration 0 of a fresh run: its history row, snapshot and checks. */
int solver_record_start(struct solver *s);
/* The run's best of all islands now, into s->result (collective). */
int solver_take_result(struct solver *s);
/* The checkpoint of iteration s->t (collective); LAST: the run's end, the
 * backend ended beside its write. */
int solver_write_checkpoint(struct solver *s, int last);

/* solver_records.c: the history buffer, for the schedule s->plan. */
int solver_history_alloc(struct solver *s);
/* Writes the buffered history rows and migration records to the file. */
int solver_flush_records(struct solver *s);
/* Adds history rows for iterations FIRST..LAST (solver_records.c says more). */
int solver_record_segment(struct solver *s, int64_t first, int64_t last, double seg_start,
                          double seg_stop, int final, int64_t *target_hit, double *ride, int nride);
/* The most values that ride along with solver_record_segment's reduction. */
#define SOLVER_RIDE 8
/* Allocates the migration buffers and connects the ranks' ring. */
int solver_migration_setup(struct solver *s);
/* One migration of the rank's islands after iteration s->t. */
int solver_migrate(struct solver *s);
/* Prints every island's device from rank 0. */
int solver_report_devices(struct solver *s);
/* Prints the final summary (rank 0). */
void solver_print_summary(struct solver *s, const struct run_result *r, int reached);

#endif

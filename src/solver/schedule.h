/* What happens at which iteration: the segments (iterations the backend
 * computes without the host) and at their ends migrations, snapshots,
 * checkpoints and the run's end. Boundaries are multiples of the intervals
 * and of the segment length, so a strict run is a pure function of the config. */
#ifndef IPSO_SCHEDULE_H
#define IPSO_SCHEDULE_H

#include "config.h"

/* Segments are at most this long: signals, progress and the target are noticed promptly. */
#define SCHEDULE_MAX_SEGMENT 10000

/* What falls on an iteration (bits of schedule_events). */
enum schedule_event {
  SCHEDULE_MIGRATE = 1,   /* a migration after it */
  SCHEDULE_SNAPSHOT = 2,  /* a snapshot of it */
  SCHEDULE_CHECKPOINT = 4 /* a checkpoint of it (checkpoint_interval) */
};

struct schedule {
  int64_t max_iterations;                  /* the run's last iteration */
  int64_t length;                          /* iterations per segment at most */
  int64_t migration, snapshot, checkpoint; /* intervals; 0 = none */
  int single;                              /* one iteration per segment (--check-invariants) */
};

/* The schedule of CFG for a backend whose step() should cover UPDATES
 * (backend.segment_updates); MIGRATES: the islands migrate; OUTPUT: there
 * is an output file (its snapshots); SINGLE: every iteration a segment. */
struct schedule schedule_of(const struct ipso_config *cfg, double updates, int migrates, int output,
                            int single);

/* The last iteration of the segment after T: the nearest of the run's end
 * and the next multiple of the segment length and of each interval. */
int64_t schedule_segment_end(const struct schedule *p, int64_t t);

/* What falls on iteration T (enum schedule_event bits). */
unsigned schedule_events(const struct schedule *p, int64_t t);

/* Segments run in slices bounded by time (the result unchanged), so signals, the
 * time limit and the watchdog are served however slow the objective: at most
 * 1 s and a quarter of WATCHDOG and of CHECKPOINT_SECONDS (0: none). */
double schedule_slice_budget(double watchdog, double checkpoint_seconds);

/* The next slice's length after N iterations took SECONDS (the slowest
 * rank's): as many as fit BUDGET, growing at most 4-fold unless predicted
 * to take at most BUDGET / 16, within [1, SCHEDULE_MAX_SEGMENT]. */
int64_t schedule_next_slice(int64_t n, double seconds, double budget);

#endif

/* What happens at which iteration of a run: its segments (runs of
 * iterations that the backend computes without the host), and at their
 * ends the migrations, snapshots, checkpoints by iteration and the run's
 * end. Boundaries are multiples of the intervals and of the segment
 * length, so they do not depend on where a restart began, and a strict
 * run is a pure function of the config. */
#ifndef IPSO_SCHEDULE_H
#define IPSO_SCHEDULE_H

#include <stdint.h>

#include "config.h"

/* Segments are at most this long: signals, progress and the target are
 * noticed promptly, and the host stays out of the way. */
#define SCHEDULE_MAX_SEGMENT 10000

/* What falls on an iteration (bits of schedule_events). */
enum schedule_event {
  SCHEDULE_MIGRATE = 1,    /* a migration after it */
  SCHEDULE_SNAPSHOT = 2,   /* a snapshot of it */
  SCHEDULE_CHECKPOINT = 4, /* a checkpoint of it (checkpoint_interval) */
  SCHEDULE_END = 8         /* the run's last iteration */
};

struct schedule {
  int64_t max_iterations;                  /* the run's last iteration */
  int64_t length;                          /* iterations per segment at most */
  int64_t migration, snapshot, checkpoint; /* intervals; 0 = none */
  int single;                              /* one iteration per segment (--check-invariants) */
};

#ifdef __cplusplus
extern "C" {
#endif

/* The schedule of CFG for a backend whose step() should cover UPDATES
 * particle-dimension updates of one island (backend.segment_updates);
 * MIGRATES: the islands migrate; OUTPUT: there is an output file (its
 * snapshots); SINGLE: every iteration a segment. */
struct schedule schedule_of(const struct ipso_config *cfg, double updates, int migrates, int output,
                            int single);

/* The last iteration of the segment that starts after T: the nearest of the
 * run's end and the next multiple of the segment length and of each
 * interval. */
int64_t schedule_segment_end(const struct schedule *p, int64_t t);

/* What falls on iteration T (enum schedule_event bits). */
unsigned schedule_events(const struct schedule *p, int64_t t);

/* Segments are computed in slices bounded by time, so that stop signals,
 * the time limit, time-based checkpoints and the watchdog are served
 * between slices however slow the objective; slices do not change the
 * result. The longest a slice may take, in seconds: 1 s, and at most a
 * quarter of the WATCHDOG and of CHECKPOINT_SECONDS (0: none). */
double schedule_slice_budget(double watchdog, double checkpoint_seconds);

/* The next slice's length after N iterations took SECONDS (the slowest
 * rank's): as many as fit BUDGET, growing at most 4-fold at a time unless
 * the longer slice is predicted to take at most BUDGET / 16 (so a fast run
 * waits for the host a few times, not once per 4-fold step), within
 * [1, SCHEDULE_MAX_SEGMENT]. */
int64_t schedule_next_slice(int64_t n, double seconds, double budget);

#ifdef __cplusplus
}
#endif

#endif

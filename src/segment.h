/* How a run is cut into segments: runs of iterations that the backend
 * computes without the host, ending where the host has something to do
 * (migration, snapshot, checkpoint, the run's end). Boundaries are
 * multiples of the intervals, so they do not depend on where a restart
 * began, and a strict run is a pure function of the config. */
#ifndef IPSO_SEGMENT_H
#define IPSO_SEGMENT_H

#include <stdint.h>

/* Segment length bounds: short enough that signals, progress and the target
 * are noticed promptly; long enough that the host stays out of the way. */
#define SEGMENT_MAX_ITERATIONS 10000

struct segment_plan {
  int64_t max_iterations; /* the run's last iteration */
  int64_t length;         /* iterations per segment at most (segment_length) */
  int64_t every[3];       /* migration, snapshot and checkpoint intervals; 0 = none */
  int single;             /* one iteration per segment (--check-invariants) */
};

#ifdef __cplusplus
extern "C" {
#endif

/* Iterations per segment for a backend budget of UPDATES particle-dimension
 * updates per segment: within [1, SEGMENT_MAX_ITERATIONS]. */
int64_t segment_length(double updates, int64_t particles, int dims);

/* The last iteration of the segment that starts after T: the nearest of the
 * run's end and the next multiple of the segment length and of each
 * interval. */
int64_t segment_end(const struct segment_plan *p, int64_t t);

/* Segments are computed in slices bounded by time, so that stop signals,
 * the time limit, time-based checkpoints and the watchdog are served
 * between slices however slow the objective; slices do not change the
 * result. The longest a slice may take, in seconds: 1 s, and at most a
 * quarter of the WATCHDOG and of CHECKPOINT_SECONDS (0: none). */
double segment_slice_budget(double watchdog, double checkpoint_seconds);

/* The next slice's length after N iterations took SECONDS (the slowest
 * rank's): as many as fit BUDGET, growing at most 4-fold at a time unless
 * the longer slice is predicted to take at most BUDGET / 16 (so a fast run
 * waits for the host a few times, not once per 4-fold step), within
 * [1, SEGMENT_MAX_ITERATIONS]. */
int64_t segment_next_slice(int64_t n, double seconds, double budget);

#ifdef __cplusplus
}
#endif

#endif

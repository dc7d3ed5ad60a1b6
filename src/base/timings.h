/* Where the start-up and the iterations went (--timings). */
#ifndef IPSO_TIMINGS_H
#define IPSO_TIMINGS_H

/* Records the process's start (call first thing in main). */
void timings_begin(void);
/* Marks the end of PHASE (a string literal); cheap, always on. */
void timings_mark(const char *phase);
/* Prints under a TITLE line the phases marked since the last print. */
void timings_print(const char *title);

/* The iterations' host time by phase. */
enum timings_phase {
  TIMINGS_SLICES,     /* the slices: computed, or launched and waited for */
  TIMINGS_RECORDS,    /* their history rows and the one reduction over the ranks */
  TIMINGS_MIGRATIONS, /* the migrations (with the exchange between ranks) */
  TIMINGS_OUTPUT,     /* the result, checks, snapshots, checkpoints */
  TIMINGS_PHASES
};
/* Starts the laps. */
void timings_loop_begin(void);
/* Adds the time since the last lap to PHASE. */
void timings_lap(enum timings_phase phase);
/* Prints the iterations' phases (rank 0's) to stdout. */
void timings_print_loop(void);

#endif

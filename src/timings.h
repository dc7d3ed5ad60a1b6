/* Where the start-up and the end went (--timings): each phase is marked
 * when it ends, with the seconds since the process started. */
#ifndef IPSO_TIMINGS_H
#define IPSO_TIMINGS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Records the process's start (call first thing in main). */
void timings_begin(void);
/* Marks the end of PHASE (a string literal); cheap, always on. */
void timings_mark(const char *phase);
/* Seconds from the process's start to now. */
double timings_since_start(void);
/* Prints the phases marked since the last print (all, the first time) and
 * their durations to stdout under a TITLE line. */
void timings_print(const char *title);

#ifdef __cplusplus
}
#endif

#endif

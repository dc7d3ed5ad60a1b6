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

struct mailbox_waits;
/* The migrations' handshake (struct mailbox_waits, backend.h) from the
 * mailbox's stamps: STAMPS [CAP * 4], row q % CAP for migration q (island
 * K-1's block begun, its message posted; island 0's block begun, the
 * neighbour's message come; see mailbox.stamps), migrations 2..LAST that
 * rows still hold (the first's wait is start-up's; rows with a stamp
 * missing or out of order are skipped). Zero migrations where none is
 * left. Returns 0, or -1 out of memory. */
int timings_handshake(const unsigned long long *stamps, size_t cap, unsigned long long last,
                      struct mailbox_waits *w);

#ifdef __cplusplus
}
#endif

#endif

/* The process's run-time guards: stop signals (SIGTERM, SIGINT, SIGUSR1,
 * SIGHUP, SIGPIPE ask for a checkpoint and exit 3; a second SIGINT stops at
 * once), a watchdog that ends a rank that makes no progress, and a guard
 * that turns an exit() from inside the run into a failure. */
#ifndef IPSO_RUNTIME_H
#define IPSO_RUNTIME_H

#include <stdint.h>

void signals_install(void);
/* The first stop signal this rank received, or 0. */
int signals_pending(void);

/* This rank's stop cause, to reduce over the ranks by their minimum: minus
 * the first stop signal's number, 0 if none. */
double stop_cause_ride(void);
/* The words for a stop whose cause RIDE was so reduced: the signal's name,
 * else "the time limit" where TIME_LIMIT, else "a stop request". */
const char *stop_cause_text(double ride, int time_limit);

/* Starts the watchdog (SECONDS > 0): with no watchdog_beat() for SECONDS it
 * prints what the rank was doing and exits with status 1, ending the job. */
int watchdog_start(double seconds);
/* Records progress: the phase entered (a string literal) and the iteration. */
void watchdog_beat(const char *phase, int64_t iteration);
void watchdog_stop(void);

/* Until exit_guard_release(), an exit() (a user objective's, say) says that
 * the island left without finishing and ends with status 1. Returns 0, or
 * -1 when the guard cannot be registered. */
int exit_guard_install(void);
/* main() is finishing: exit() is expected from now on. */
void exit_guard_release(void);
/* The host memory in bytes this process may still take: the least of the
 * node's MemAvailable shared by LOCAL_SIZE processes, the control group's
 * limit less its use, and RLIMIT_AS less what is mapped; what set it in
 * *WHAT. -1 when none is known. */
double memory_available(int local_size, const char **what);

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC). */
double wall_seconds(void);

#endif

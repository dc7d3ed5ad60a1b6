/* The process's run-time guards: stop signals, the watchdog, and a guard that
 * turns an exit() from inside the run into a failure (docs/reliability.md). */
#ifndef IPSO_RUNTIME_H
#define IPSO_RUNTIME_H

#include <stdint.h>

/* Installs the stop signals' handler. */
void signals_install(void);
/* The first stop signal this rank received, or 0. */
int signals_pending(void);

/* Starts the watchdog (SECONDS > 0): with no watchdog_beat() for SECONDS it
 * says what the rank was doing and exits with status 1. */
int watchdog_start(double seconds);
/* Records progress: the phase entered (a string literal) and the iteration. */
void watchdog_beat(const char *phase, int64_t iteration);
/* Stops the watchdog (no-op if not started). */
void watchdog_stop(void);

/* Until exit_guard_release(), an exit() (a user objective's, say) is a
 * failure with status 1. 0, or -1 when it cannot be registered. */
int exit_guard_install(void);
/* main() is finishing: exit() is expected from now on. */
void exit_guard_release(void);
/* The host memory in bytes this process may still take: the least of
 * MemAvailable over LOCAL_SIZE processes, the control group's room and
 * RLIMIT_AS's; what set it in *WHAT. -1 when none is known. */
double memory_available(int local_size, const char **what);

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC). */
double wall_seconds(void);

#endif

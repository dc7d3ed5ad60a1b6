/* The process's run-time guards: signal flags (SIGTERM, SIGINT, SIGUSR1,
 * SIGHUP and SIGPIPE ask for a checkpoint and exit 3; a second SIGINT
 * stops at once, saying so) and a watchdog
 * thread that ends the job when a rank makes no progress for too long, and a
 * guard that turns an exit() from inside the run into a failure. */
#ifndef IPSO_RUNTIME_H
#define IPSO_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

void signals_install(void);
/* The first stop signal this rank received, or 0. */
int signals_pending(void);

/* This rank's stop cause as a value to reduce over the ranks with a
 * minimum (the solver's reduction at a segment end): minus the number of
 * the first stop signal it received, 0 if none; the minimum over the
 * ranks is then a signal some rank got, whichever got it. */
double stop_cause_ride(void);

/* The words for a stop whose cause RIDE was reduced over the ranks by
 * their minimum (stop_cause_ride): the signal's name, else "the time
 * limit" where TIME_LIMIT (the deadline flag), else "a stop request". The
 * same on every rank. */
const char *stop_cause_text(double ride, int time_limit);

/* Starts the watchdog: if no watchdog_beat() comes for SECONDS, it prints
 * what the rank was doing and ends the process with exit status 1, which
 * makes mpirun/srun end the whole job. SECONDS <= 0: no watchdog. */
int watchdog_start(double seconds);
/* Records progress: the phase being entered (a string literal) and the
 * iteration. */
void watchdog_beat(const char *phase, int64_t iteration);
void watchdog_stop(void);

/* From here until exit_guard_release(), a call of exit() (by a user
 * objective, say) prints that the island left without finishing and ends
 * the process with status 1 (IPSO_ERR_RUNTIME) whatever status was asked
 * for. Returns 0, or -1 when the guard cannot be registered. */
int exit_guard_install(void);
/* main() is finishing: exit() is expected from now on. */
void exit_guard_release(void);

/* The host memory this process may still take, in bytes: the node's
 * available memory (MemAvailable) shared by LOCAL_SIZE processes, or the
 * process's control group's limit less what the group uses, or its
 * address-space limit (RLIMIT_AS) less what it maps, whichever is least;
 * what set it in *WHAT. -1 when none is known. */
double memory_available(int local_size, const char **what);

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC). */
double wall_seconds(void);

#ifdef __cplusplus
}
#endif

#endif

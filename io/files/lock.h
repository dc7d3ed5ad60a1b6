/* Exclusive locks on the files of a run: a second run on the same output
 * or checkpoint is refused, naming the run that holds it. A lock is an
 * fcntl write lock on <path>.lock (the path with symbolic links and ..
 * resolved), held by rank 0 for the whole run; the
 * kernel releases it when the process ends however it ends, so the lock
 * file of a dead run is stale and simply taken over. */
#ifndef IPSO_LOCK_H
#define IPSO_LOCK_H

#ifdef __cplusplus
extern "C" {
#endif

struct run_lock {
  int fd;         /* -1: not held */
  char path[4200]; /* <path>.lock */
};

/* Takes the lock of PATH for ROLE ("output file", "checkpoint"). Another
 * live holder: IPSO_ERR_USAGE with its pid, host and start. A directory
 * where no lock file can be made: a warning, and no lock (IPSO_OK). */
int run_lock_take(struct run_lock *l, const char *role, const char *path);

/* Releases the lock and removes its file (no-op when not held). */
void run_lock_release(struct run_lock *l);

#ifdef __cplusplus
}
#endif

#endif

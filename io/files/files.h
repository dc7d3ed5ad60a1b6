/* The run's files, compared by identity rather than spelling, and locked by
 * rank 0 with fcntl on <path>.lock, which the kernel releases however the
 * process ends (docs/reliability.md, "One run per output and checkpoint"). */
#ifndef IPSO_FILES_H
#define IPSO_FILES_H

#ifdef __cplusplus
extern "C" {
#endif

/* Checks the files a run uses before anything is written: the config, the
 * output, the checkpoint and the names derived from them, RESTART (or NULL).
 * Two roles on one file, a special file to write, and a path beyond PATH_MAX
 * (with the working directory) are refused with IPSO_ERR_USAGE. */
int paths_check(const char *config, const char *output, const char *checkpoint,
                const char *restart);

struct run_lock {
  int fd;          /* -1: not held */
  char path[4200]; /* <path>.lock */
};

/* Takes the lock of PATH for ROLE ("output file", "checkpoint"). A live
 * holder, or a file there that is no lock file: IPSO_ERR_USAGE. Where no lock
 * file can be made: a warning, and IPSO_OK without a lock. */
int run_lock_take(struct run_lock *l, const char *role, const char *path);

/* Releases the lock, removing its file if the path still names it. */
void run_lock_release(struct run_lock *l);

#ifdef __cplusplus
}
#endif

#endif

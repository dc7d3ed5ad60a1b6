/* Exclusive locks on the files of a run: a second run on the same output
 * or checkpoint is refused, naming the run that holds it. A lock is an
 * fcntl write lock on <path>.lock (the path with symbolic links and ..
 * resolved), held by rank 0 for the whole run; the
 * kernel releases it when the process ends however it ends, so the lock
 * file of a dead run is stale and simply taken over. A lock file is known
 * by what islandpso writes into it ("pid P on HOST since TIME"): any other
 * file at that path is refused, never overwritten or removed. */
#ifndef IPSO_LOCK_H
#define IPSO_LOCK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct run_lock {
  int fd;          /* -1: not held */
  char path[4200]; /* <path>.lock */
};

/* The name of PATH's lock file in OUT (N bytes): the real path of PATH
 * (or of its directory, for a file not yet created) with ".lock". 0, or
 * -1 when it does not fit. */
int run_lock_path(const char *path, char *out, size_t n);

/* Whether TEXT (N bytes) is what run_lock_take writes into a lock file. */
int run_lock_text_valid(const char *text, size_t n);

/* Takes the lock of PATH for ROLE ("output file", "checkpoint"). Another
 * live holder: IPSO_ERR_USAGE with its pid, host and start. A file at the
 * lock's path that is not a lock file (another content, a symbolic link,
 * not a regular file): IPSO_ERR_USAGE, the file left as it is. A directory
 * where no lock file can be made: a warning, and no lock (IPSO_OK). */
int run_lock_take(struct run_lock *l, const char *role, const char *path);

/* Releases the lock and removes its file if the path still names it
 * (no-op when not held). */
void run_lock_release(struct run_lock *l);

#ifdef __cplusplus
}
#endif

#endif

/* Exclusive locks on the files of a run: an fcntl write lock on <path>.lock
 * (symbolic links and .. resolved) held by rank 0, so that a second run on
 * the same output or checkpoint is refused, naming the holder. The kernel
 * releases a lock however its process ends: the lock file of a dead run is
 * taken over. A file at that path that is not what islandpso writes ("pid P
 * on HOST since TIME") is refused, never overwritten or removed. */
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

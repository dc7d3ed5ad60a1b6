/* The files of a run compared by what they are, not how they are spelled:
 * ./out.h5, an absolute path, sub/../out.h5, a symbolic or a hard link all
 * name the same file. */
#ifndef IPSO_PATHS_H
#define IPSO_PATHS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The real path of PATH's directory joined with its last component, in
 * OUT (N bytes): 0, or -1 when the directory cannot be resolved. */
int path_canonical(const char *path, char *out, size_t n);

/* Whether A and B name the same file: the same device and inode when both
 * exist, else the same real directory and name (a file not yet created). */
int path_same(const char *a, const char *b);

/* The checks of the files a run uses before anything is written: the
 * config, the output and its lock file, the checkpoint with its .prev,
 * .tmp, lock file and the names an --overwrite moves old checkpoints to
 * (.removing), and RESTART (or NULL). Two roles on one file, an output or
 * checkpoint that exists and is a device, a FIFO or a socket, and a path
 * longer than the system can open (PATH_MAX, the working directory
 * included) are refused with IPSO_ERR_USAGE and a message naming the
 * paths. */
int paths_check(const char *config, const char *output, const char *checkpoint,
                const char *restart);

#ifdef __cplusplus
}
#endif

#endif

/* The files of a run compared by what they are, not how they are spelled:
 * ./out.h5, an absolute path, sub/../out.h5, a symbolic or a hard link all
 * name the same file. */
#ifndef IPSO_PATHS_H
#define IPSO_PATHS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Checks the files a run uses before anything is written: the config, the
 * output and its lock file, the checkpoint with its .prev, .tmp, .removing
 * and lock files, and RESTART (or NULL). Two roles on one file, an output or
 * checkpoint that is a device, a FIFO or a socket, and a path longer than
 * PATH_MAX (with the working directory) are refused with IPSO_ERR_USAGE. */
int paths_check(const char *config, const char *output, const char *checkpoint,
                const char *restart);

#ifdef __cplusplus
}
#endif

#endif

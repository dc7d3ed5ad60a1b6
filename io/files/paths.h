/* The files of a run compared by identity, not spelling (./out.h5,
 * sub/../out.h5, an absolute path, a symbolic or hard link are one file). */
#ifndef IPSO_PATHS_H
#define IPSO_PATHS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Checks the files a run uses before anything is written: the config, the
 * output, the checkpoint and the names derived from them, RESTART (or NULL).
 * Two roles on one file, a special file to write, and a path beyond PATH_MAX
 * (with the working directory) are refused with IPSO_ERR_USAGE. */
int paths_check(const char *config, const char *output, const char *checkpoint,
                const char *restart);

#ifdef __cplusplus
}
#endif

#endif

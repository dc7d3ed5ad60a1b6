/* Messages to the user: information from rank 0, warnings and errors from
 * any rank, naming the rank. */
#ifndef IPSO_LOG_H
#define IPSO_LOG_H

#include "ipso.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sets the rank and size shown in messages (before MPI: rank 0 of 1). */
void log_init(int rank, int size);
/* This process's rank. */
int log_rank(void);
/* "islandpso: error: [rank R on HOST] COMPONENT: message (file:line)" on
 * stderr, flushed (the check macros of check.h). */
void log_fail(const char *component, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A problem with the user's input, printed as given, on stderr, flushed. */
void log_user_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A warning from any rank, prefixed with the rank when there are several. */
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Information for the user, printed by rank 0 only, on stdout. */
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* log_info to stderr from now on: stdout holds only a result (--evaluate). */
void log_info_to_stderr(void);

#ifdef __cplusplus
}
#endif

#endif

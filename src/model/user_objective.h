/* User-defined objectives (objective.name = "user", with source and
 * function): the user's file wrapped in a generated translation unit (its
 * parameters as constants, the type ipso_real, an entry point with the
 * built-ins' signature), compiled by the system C compiler into a cached
 * shared object for the CPU, by NVRTC with the kernels for the GPU. */
#ifndef IPSO_USER_OBJECTIVE_H
#define IPSO_USER_OBJECTIVE_H

#include <stddef.h>

#include "config.h"

struct user_objective;

/* The generated wrapper for the config's precision (parameters, ipso_real,
 * an #include of the user's file so messages carry its own name and lines,
 * ipso_user_objective(x, d, prm)). malloc'd. */
char *user_objective_wrapper(const struct ipso_config *cfg);

/* Compiles (or takes from the cache) and loads the user's objective for the
 * CPU; a compile error prints the compiler's messages (IPSO_ERR_USAGE). */
int user_objective_open_cpu(const struct ipso_config *cfg, struct user_objective **out);
objective_fn_d user_objective_fn_d(struct user_objective *u);
objective_fn_f user_objective_fn_f(struct user_objective *u);
void user_objective_close(struct user_objective *u);

/* objective.separable = true promises f(x, d) = f(&x[0], 1) + ... +
 * f(&x[d-1], 1) (the GPU then splits a row across threads); each backend
 * checks it at start-up at this many fixed points, uniform in the bounds,
 * which user_separable_points writes to PTS[points * dimensions]. */
#define USER_SEPARABLE_POINTS 16
void user_separable_points(const struct ipso_config *cfg, double *pts);

/* IPSO_OK, or IPSO_ERR_USAGE with a message, when some point's value WHOLE
 * and the sum TERMS of its single coordinates' values (MAG: the sum of
 * their magnitudes) differ by more than rounding. */
int user_separable_verdict(const struct ipso_config *cfg, const double *whole, const double *terms,
                           const double *mag);

/* The check with the CPU's compiled function (cfg->objective.separable). */
int user_separable_check_cpu(const struct ipso_config *cfg, struct user_objective *u);

/* The directory of compiled code: $IPSO_CACHE_DIR, else
 * $XDG_CACHE_HOME/islandpso, else $HOME/.cache/islandpso (made 0700). It
 * must be this user's and writable by nobody else, the directories above it
 * too (or root's, or sticky). Else IPSO_ERR_USAGE: user_cache_dir after a
 * warning, once, that the cache is not used (the GPU's kernels),
 * user_cache_dir_trusted after an error (a user objective on the CPU). */
int user_cache_dir(char *dir, size_t size);
int user_cache_dir_trusted(char *dir, size_t size);

/* Why the cached file PATH may not be loaded (not a regular file, another
 * user's, or writable by others) in WHY (LEN bytes); 0 when it may. */
int user_cache_file_untrusted(const char *path, char *why, size_t len);

/* The fingerprint (hash of the source compiled, includes and all) of the
 * user objective this process loaded last, in HEX: 1, or 0 and "" when
 * none. The ranks compare theirs; a backend that compiles the objective
 * itself (the GPU's) records it with user_objective_note_loaded. */
int user_objective_loaded(char hex[17]);
void user_objective_note_loaded(uint64_t fingerprint);

/* 64-bit FNV-1a of N bytes, continuing from H (start with 0). */
uint64_t ipso_hash(uint64_t h, const void *data, size_t n);

/* Continues *H with every file that TEXT names in an #include "..." line,
 * recursively, found as NVRTC finds them (next to the including file; for
 * TEXT, the working directory), conditionals not evaluated. Returns 0, or
 * -1 when a macro names a file or there are more than 256 files. */
int user_includes_hash(const char *text, uint64_t *h);

/* Reads a whole regular file into a malloc'd, NUL-terminated buffer (NULL
 * with errno for anything else: a FIFO would wait for a writer). */
char *ipso_read_file(const char *path, size_t *len);

#endif

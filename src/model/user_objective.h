/* User-defined objectives: objective.name = "user" with objective.source and
 * objective.function. The user's file is wrapped in a generated translation
 * unit (its parameters as constants, the type ipso_real, an entry point with
 * the built-ins' signature) that the CPU backend compiles with the system C
 * compiler into a shared object, and the GPU backend compiles with NVRTC
 * together with the kernels. Compiled objects are cached on disk. */
#ifndef IPSO_USER_OBJECTIVE_H
#define IPSO_USER_OBJECTIVE_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "objective.h"

struct user_objective;

#ifdef __cplusplus
extern "C" {
#endif

/* The generated wrapper source for the config's precision: parameters,
 * "typedef ... ipso_real", #include of the user's file (so messages carry its
 * own name and lines), and ipso_user_objective(x, d, prm). malloc'd. */
char *user_objective_wrapper(const struct ipso_config *cfg);

/* Compiles (or takes from the cache) and loads the user's objective for the
 * CPU. A compile error prints the compiler's messages (with the user's file
 * and lines) and returns IPSO_ERR_USAGE. */
int user_objective_open_cpu(const struct ipso_config *cfg, struct user_objective **out);
objective_fn_d user_objective_fn_d(struct user_objective *u);
objective_fn_f user_objective_fn_f(struct user_objective *u);
void user_objective_close(struct user_objective *u);

/* objective.separable = true promises f(x, d) = f(&x[0], 1) + ... +
 * f(&x[d-1], 1), which lets the GPU split a particle's coordinates across
 * threads. Each backend checks the promise at start-up at these points. */
#define USER_SEPARABLE_POINTS 16

/* Fills PTS[USER_SEPARABLE_POINTS * dimensions] with points drawn uniformly
 * within the bounds (the same points on every run). */
void user_separable_points(const struct ipso_config *cfg, double *pts);

/* The verdict on the promise from, at each point, the function's value
 * WHOLE, the sum of its values at the single coordinates TERMS and the sum
 * of their magnitudes MAG: IPSO_OK, or IPSO_ERR_USAGE with a message when a
 * value differs from its sum by more than rounding. */
int user_separable_verdict(const struct ipso_config *cfg, const double *whole, const double *terms,
                           const double *mag);

/* The check with the CPU's compiled function (cfg->objective.separable). */
int user_separable_check_cpu(const struct ipso_config *cfg, struct user_objective *u);

/* The directory of compiled code: $IPSO_CACHE_DIR, else
 * $XDG_CACHE_HOME/islandpso, else $HOME/.cache/islandpso (missing
 * directories created 0700); with none of them set there is none (a
 * directory that every user shares is never taken). It must belong to
 * this user and be writable by nobody else, and the directories above it
 * root's or this user's and writable by nobody else unless sticky.
 * user_cache_dir: IPSO_OK, or IPSO_ERR_USAGE after a warning (once) that
 * the cache is not used (the GPU's kernels, which compile without it).
 * user_cache_dir_trusted: the same with an error message instead (a user
 * objective on the CPU, which cannot run without it). */
int user_cache_dir(char *dir, size_t size);
int user_cache_dir_trusted(char *dir, size_t size);

/* Why the cached file PATH may not be loaded, in WHY (LEN bytes): not a
 * regular file, another user's, or writable by its group or every user.
 * 0 when it may be loaded. */
int user_cache_file_untrusted(const char *path, char *why, size_t len);

/* The fingerprint of the user objective this process compiled or loaded
 * last, in HEX (17 bytes): the hash of the source text it was compiled
 * from, every #include'd file in it (the CPU: the preprocessed source).
 * Returns 1, or 0 and "" when it loaded none. The ranks compare theirs
 * (objective_agree in io/run_files.h). user_objective_note_loaded records
 * it for a backend that compiles the objective itself (the GPU's). */
int user_objective_loaded(char hex[17]);
void user_objective_note_loaded(uint64_t fingerprint);

/* 64-bit FNV-1a of N bytes, continuing from H (start with 0). */
uint64_t ipso_hash(uint64_t h, const void *data, size_t n);

/* Continues the hash *H with every file that TEXT names in an #include
 * "..." line, and the files those include, found as NVRTC finds them: a
 * relative name next to the including file (TEXT's: the working directory).
 * Conditionals are not evaluated, so a header under a false #if is hashed
 * too (at worst a needless recompile). Returns 0, or -1 when an #include
 * names its file through a macro or there are more than 256 files: the
 * compilation then cannot be keyed on its sources. */
int user_includes_hash(const char *text, uint64_t *h);

/* Reads a whole regular file into a malloc'd, NUL-terminated buffer (NULL
 * with errno for anything else: a FIFO would wait for a writer). */
char *ipso_read_file(const char *path, size_t *len);

#ifdef __cplusplus
}
#endif

#endif

/* Comparing files by identity. */
#include "paths.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "lock.h"
#include "log.h"

int path_canonical(const char *path, char *out, size_t n)
{
  char dir[PATH_MAX], real[PATH_MAX];
  const char *slash = strrchr(path, '/');
  const char *name = slash ? slash + 1 : path;
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else if (slash == path)
    snprintf(dir, sizeof dir, "/");
  else
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
  if (!realpath(dir, real)) return -1;
  int k = snprintf(out, n, "%s/%s", strcmp(real, "/") ? real : "", name);
  return k < 0 || (size_t)k >= n ? -1 : 0;
}

int path_same(const char *a, const char *b)
{
  if (!a || !b || !*a || !*b) return 0;
  struct stat sa, sb;
  int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
  if (ea && eb) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (ea != eb) return 0;
  char ca[PATH_MAX + 256], cb[PATH_MAX + 256];
  if (path_canonical(a, ca, sizeof ca) || path_canonical(b, cb, sizeof cb)) return !strcmp(a, b);
  return !strcmp(ca, cb);
}

/* A file the run writes: if it exists it must be a regular file. */
static int check_writable_kind(const char *role, const char *path)
{
  struct stat st;
  /* (A directory is reported by the output and checkpoint checks.) */
  if (!path || !*path || stat(path, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
    return IPSO_OK;
  log_user_error("islandpso: error: the %s '%s' exists and is not a regular file (%s): "
                 "islandpso writes it through a temporary file and a rename",
                 role, path,
                 S_ISCHR(st.st_mode)    ? "a character device"
                 : S_ISBLK(st.st_mode)  ? "a block device"
                 : S_ISFIFO(st.st_mode) ? "a FIFO"
                                        : "a socket or other special file");
  return IPSO_ERR_USAGE;
}

/* The file PATH of ROLE can be opened by the system's calls: its absolute
 * name (the working directory's with it, for a relative one) and the
 * longest name the run derives from it (SUFFIX) fit PATH_MAX. MPI-IO and
 * HDF5 take absolute names of that size at most, and some of them fail
 * worse than with an error beyond it. */
static int check_length(const char *role, const char *path, const char *suffix)
{
  char cwd[PATH_MAX];
  size_t n = strlen(path) + strlen(suffix);
  if (path[0] != '/') {
    if (!getcwd(cwd, sizeof cwd)) {
      int e = errno;
      log_user_error("islandpso: error: the %s '%s' is relative, and the working directory %s: "
                     "run islandpso from a shorter path, or give absolute paths of fewer than "
                     "%d bytes",
                     role, path,
                     e == ERANGE || e == ENAMETOOLONG
                         ? "is longer than the system's limit on a path (PATH_MAX)"
                         : "cannot be found",
                     PATH_MAX);
      return IPSO_ERR_USAGE;
    }
    n += strlen(cwd) + 1;
  }
  if (n < PATH_MAX) return IPSO_OK;
  log_user_error("islandpso: error: the %s '%s' is too long: with the working directory and "
                 "'%s' its path has %zu bytes, the system's limit (PATH_MAX) is %d",
                 role, path, suffix, n, PATH_MAX - 1);
  return IPSO_ERR_USAGE;
}

/* Roles of the run's files, in the order their names are reported. */
enum {
  CONFIG,
  OUTPUT,
  CKPT,
  PREV,
  TMP,
  RESTART,
  OUTPUT_LOCK,
  CKPT_LOCK,
  REMOVING,
  PREV_REMOVING,
  ROLES
};

int paths_check(const char *config, const char *output, const char *checkpoint, const char *restart)
{
  static const char *const role[ROLES] = {"config file",
                                          "output file",
                                          "checkpoint",
                                          "previous checkpoint",
                                          "temporary checkpoint",
                                          "restart checkpoint",
                                          "output's lock file",
                                          "checkpoint's lock file",
                                          "checkpoint being removed",
                                          "previous checkpoint being removed"};
  /* The files the run creates, replaces, renames or removes. */
  static const int written[ROLES] = {0, 1, 1, 1, 1, 0, 1, 1, 1, 1};
  static char names[ROLES][PATH_MAX + 32];
  const char *path[ROLES] = {config, output, checkpoint, NULL, NULL, restart};
  int ckpt = checkpoint && *checkpoint, out = output && *output;
  if (out) IPSO_TRY(check_length("output file", output, ".lock"));
  if (ckpt) IPSO_TRY(check_length("checkpoint", checkpoint, ".prev.removing"));
  if (ckpt) {
    snprintf(names[PREV], sizeof names[PREV], "%s.prev", checkpoint);
    snprintf(names[TMP], sizeof names[TMP], "%s.tmp", checkpoint);
    snprintf(names[REMOVING], sizeof names[REMOVING], "%s.removing", checkpoint);
    snprintf(names[PREV_REMOVING], sizeof names[PREV_REMOVING], "%s.prev.removing", checkpoint);
    if (run_lock_path(checkpoint, names[CKPT_LOCK], sizeof names[CKPT_LOCK]) == 0)
      path[CKPT_LOCK] = names[CKPT_LOCK];
    path[PREV] = names[PREV];
    path[TMP] = names[TMP];
    path[REMOVING] = names[REMOVING];
    path[PREV_REMOVING] = names[PREV_REMOVING];
  }
  if (out && run_lock_path(output, names[OUTPUT_LOCK], sizeof names[OUTPUT_LOCK]) == 0)
    path[OUTPUT_LOCK] = names[OUTPUT_LOCK];
  /* Every file the run writes must be a file of its own, apart from every
   * other one it uses; the restart checkpoint may be the config's
   * checkpoint or the one kept before it (--resume does that), and those
   * two may be hard links of one file (a commit leaves them so for a
   * moment). */
  for (int a = 0; a < ROLES; a++)
    for (int b = a + 1; b < ROLES; b++) {
      if (!written[a] && !written[b] && !(a == CONFIG && b == RESTART)) continue;
      if ((a == CKPT || a == PREV) && b == RESTART) continue;
      if (a == CKPT && b == PREV) continue;
      if (!path[a] || !*path[a] || !path[b] || !*path[b]) continue;
      if (path_same(path[a], path[b])) {
        log_user_error("islandpso: error: the %s '%s' and the %s '%s' are the same file; give "
                       "each its own path",
                       role[a], path[a], role[b], path[b]);
        return IPSO_ERR_USAGE;
      }
    }
  IPSO_TRY(check_writable_kind("output file", output));
  IPSO_TRY(check_writable_kind("checkpoint", checkpoint));
  /* (Lock files: run_lock_take says what is wrong with one.) */
  static const int derived[] = {PREV, TMP, REMOVING, PREV_REMOVING};
  for (size_t i = 0; i < sizeof derived / sizeof derived[0]; i++)
    IPSO_TRY(check_writable_kind(role[derived[i]], path[derived[i]]));
  return IPSO_OK;
}

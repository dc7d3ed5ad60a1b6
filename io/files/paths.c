/* Comparing files by identity. */
#include "paths.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
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

int paths_check(const char *config, const char *output, const char *checkpoint,
                const char *restart)
{
  char prev[PATH_MAX + 16] = "", tmp[PATH_MAX + 16] = "";
  if (checkpoint && *checkpoint) {
    snprintf(prev, sizeof prev, "%s.prev", checkpoint);
    snprintf(tmp, sizeof tmp, "%s.tmp", checkpoint);
  }
  struct {
    const char *role, *path;
  } f[] = {{"config file", config},          {"output file", output},
           {"checkpoint", checkpoint},         {"previous checkpoint", prev},
           {"temporary checkpoint", tmp},      {"restart checkpoint", restart}};
  enum { CONFIG, OUTPUT, CKPT, PREV, TMP, RESTART, N };
  /* The pairs that must be different files: everything the run writes
   * against everything else; the restart checkpoint may be the config's
   * checkpoint or the one kept before it (--resume does that). */
  static const int pairs[][2] = {{CONFIG, OUTPUT}, {CONFIG, CKPT},   {CONFIG, PREV},
                                 {CONFIG, TMP},    {OUTPUT, CKPT},   {OUTPUT, PREV},
                                 {OUTPUT, TMP},    {OUTPUT, RESTART}, {TMP, RESTART},
                                 {CONFIG, RESTART}};
  (void)N;
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    int a = pairs[i][0], b = pairs[i][1];
    if (!f[a].path || !*f[a].path || !f[b].path || !*f[b].path) continue;
    if (path_same(f[a].path, f[b].path)) {
      log_user_error("islandpso: error: the %s '%s' and the %s '%s' are the same file; give "
                     "each its own path",
                     f[a].role, f[a].path, f[b].role, f[b].path);
      return IPSO_ERR_USAGE;
    }
  }
  IPSO_TRY(check_writable_kind("output file", output));
  IPSO_TRY(check_writable_kind("checkpoint", checkpoint));
  IPSO_TRY(check_writable_kind("previous checkpoint", prev));
  return IPSO_OK;
}

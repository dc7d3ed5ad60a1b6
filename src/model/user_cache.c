/* The cache of compiled code (user objectives, the GPU's kernels): where it
 * is, and whether what is in it may be run (only what no other user can
 * have put there). */
#include "user_objective.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

/* Why PATH may not hold or be code this process runs, in WHY (LEN bytes); 0
 * when it may: a regular file (FILE) or a directory, this user's alone (OWN),
 * else root's or this user's and writable by nobody else unless sticky (/tmp). */
static int untrusted(const char *path, int file, int own, char *why, size_t len)
{
  struct stat st;
  uid_t me = geteuid();
  if (lstat(path, &st) != 0)
    snprintf(why, len, "'%s': %s", path, strerror(errno));
  else if (file ? !S_ISREG(st.st_mode) : !S_ISDIR(st.st_mode))
    snprintf(why, len, "'%s' is not a %s", path, file ? "regular file" : "directory");
  else if (own && st.st_uid != me)
    snprintf(why, len, "'%s' belongs to uid %ld, not to this user (uid %ld)", path, (long)st.st_uid,
             (long)me);
  else if (!own && st.st_uid != me && st.st_uid != 0)
    snprintf(why, len,
             "'%s', a directory above it, belongs to uid %ld (neither root nor this "
             "user, uid %ld)",
             path, (long)st.st_uid, (long)me);
  else if ((st.st_mode & (S_IWGRP | S_IWOTH)) && (own || !(st.st_mode & S_ISVTX)))
    snprintf(why, len, "'%s'%s is writable by %s (mode %04o%s)", path,
             own ? "" : ", a directory above it,",
             st.st_mode & S_IWOTH ? "every user" : "its group", (unsigned)(st.st_mode & 07777),
             file ? "" : "; chmod go-w makes it yours alone");
  else
    return 0;
  return 1;
}

/* Why directory DIR may not hold code this process runs (untrusted), it
 * this user's alone where OWN, every directory above it held to the rule. */
static int cache_dir_untrusted(const char *dir, int own, char *why, size_t len)
{
  char real[PATH_MAX];
  if (!realpath(dir, real)) {
    snprintf(why, len, "'%s' cannot be resolved: %s", dir, strerror(errno));
    return 1;
  }
  for (;; own = 0) {
    if (untrusted(real, 0, own, why, len)) return 1;
    if (strcmp(real, "/") == 0) return 0;
    char *slash = strrchr(real, '/');
    slash[slash == real] = '\0';
  }
}

/* The cache directory's path in DIR (user_cache_dir), missing directories
 * made 0700; IPSO_OK, or IPSO_ERR_USAGE with the reason in WHY. */
static int cache_dir_find(char *dir, size_t size, char *why, size_t len)
{
  const char *env = getenv("IPSO_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"),
             *home = getenv("HOME");
  int k;
  if (env && *env)
    k = snprintf(dir, size, "%s", env);
  else if (xdg && *xdg)
    k = snprintf(dir, size, "%s/islandpso", xdg);
  else if (home && *home)
    k = snprintf(dir, size, "%s/.cache/islandpso", home);
  else {
    snprintf(why, len,
             "none of IPSO_CACHE_DIR, XDG_CACHE_HOME and HOME is set: set one to a "
             "directory of your own (a directory that every user can write to is never used)");
    return IPSO_ERR_USAGE;
  }
  if (k < 0 || (size_t)k >= size) {
    snprintf(why, len, "its path is too long");
    return IPSO_ERR_USAGE;
  }
  /* Create each missing component, for this user alone, and only in a
   * directory that no other user may change. */
  for (char *p = dir + 1;; p++) {
    if (*p != '/' && *p != '\0') continue;
    char c = *p, parent[PATH_MAX];
    struct stat st;
    int bad = 0, e = 0;
    *p = '\0';
    if (lstat(dir, &st) != 0 && errno == ENOENT) {
      const char *slash = strrchr(dir, '/');
      snprintf(parent, sizeof parent, "%.*s", slash && slash != dir ? (int)(slash - dir) : 1,
               slash ? dir : ".");
      bad = cache_dir_untrusted(parent, 0, why, len);
      if (!bad && mkdir(dir, 0700) != 0 && errno != EEXIST) e = errno;
    }
    *p = c;
    if (e) snprintf(why, len, "cannot create '%.*s': %s", (int)(p - dir), dir, strerror(e));
    if (bad || e) return IPSO_ERR_USAGE;
    if (!c) break;
  }
  return cache_dir_untrusted(dir, 1, why, len) ? IPSO_ERR_USAGE : IPSO_OK;
}

/* The cache directory, or IPSO_ERR_USAGE with a warning (once) or, where
 * TRUSTED is needed, an error. */
static int cache_dir(char *dir, size_t size, int trusted)
{
  static int warned;
  char why[2 * PATH_MAX];
  if (cache_dir_find(dir, size, why, sizeof why) == IPSO_OK) return IPSO_OK;
  if (trusted)
    log_user_error("islandpso: error: the cache directory for compiled user objectives cannot be "
                   "used: %s",
                   why);
  else if (!warned++)
    log_warn("the cache of compiled code is not used: %s; compiling afresh instead", why);
  return IPSO_ERR_USAGE;
}

int user_cache_dir(char *dir, size_t size)
{
  return cache_dir(dir, size, 0);
}

int user_cache_dir_trusted(char *dir, size_t size)
{
  return cache_dir(dir, size, 1);
}

int user_cache_file_untrusted(const char *path, char *why, size_t len)
{
  return untrusted(path, 1, 1, why, len);
}

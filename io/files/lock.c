/* Lock files with fcntl write locks. */
#define _GNU_SOURCE /* mkostemp */
#include "lock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "log.h"
#include "paths.h"

/* The most bytes a lock file of ours holds. */
#define LOCK_TEXT_MAX 512

/* Locks FD's whole file without waiting: 0, or the errno. */
static int lock_fd(int fd)
{
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  return fcntl(fd, F_SETLK, &fl) == 0 ? 0 : errno;
}

/* The locks held, released at exit() too (a user objective calling exit(),
 * say): the kernel would release them, but their files would stay. */
static struct run_lock *held[8];

static void release_all(void)
{
  for (size_t i = 0; i < sizeof held / sizeof held[0]; i++)
    if (held[i]) run_lock_release(held[i]);
}

static void remember(struct run_lock *l)
{
  static int registered;
  if (!registered) registered = atexit(release_all) == 0;
  for (size_t i = 0; i < sizeof held / sizeof held[0]; i++)
    if (!held[i]) {
      held[i] = l;
      return;
    }
}

int run_lock_path(const char *path, char *out, size_t n)
{
  /* Named after the file itself, not the spelling: a symbolic link or
   * sub/../ to the same output finds the same lock. */
  char real[PATH_MAX];
  if (!realpath(path, real) && path_canonical(path, real, sizeof real) != 0)
    snprintf(real, sizeof real, "%s", path);
  int k = snprintf(out, n, "%s.lock", real);
  return k < 0 || (size_t)k >= n ? -1 : 0;
}

/* Skips a run of digits (DIGITS) or of characters other than blanks,
 * line ends and NULs at P, at least one: where it ends, or NULL. */
static const char *skip_some(const char *p, const char *end, int digits)
{
  const char *q = p;
  while (q < end && (digits ? (*q >= '0' && *q <= '9') : (*q != ' ' && *q != '\n' && *q != '\0')))
    q++;
  return q > p ? q : NULL;
}

/* Skips the literal WORD at P (NULL: nothing to skip): where it ends, or
 * NULL. */
static const char *skip_word(const char *p, const char *end, const char *word)
{
  size_t n = strlen(word);
  return p && (size_t)(end - p) >= n && memcmp(p, word, n) == 0 ? p + n : NULL;
}

int run_lock_text_valid(const char *text, size_t n)
{
  const char *end = text + n, *p = text;
  if (n == 0 || n >= LOCK_TEXT_MAX) return 0;
  p = skip_word(p, end, "pid ");
  if (p) p = skip_some(p, end, 1);
  p = skip_word(p, end, " on ");
  if (p) p = skip_some(p, end, 0);
  p = skip_word(p, end, " since ");
  if (p) p = skip_some(p, end, 0);
  p = skip_word(p, end, "\n");
  return p == end;
}

/* This process's line for its lock file in TEXT; its length. */
static int lock_text(char text[LOCK_TEXT_MAX])
{
  char host[256] = "?", when[32] = "?";
  if (gethostname(host, sizeof host - 1) != 0) snprintf(host, sizeof host, "?");
  host[sizeof host - 1] = '\0';
  for (char *c = host; *c; c++)
    if (*c == ' ' || *c == '\n') *c = '_';
  time_t now = time(NULL);
  struct tm tm;
  if (gmtime_r(&now, &tm)) strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return snprintf(text, LOCK_TEXT_MAX, "pid %ld on %s since %s\n", (long)getpid(), host, when);
}

/* Refuses the file at the lock's path: it is not a lock file of ours. */
static int refuse_foreign(const struct run_lock *l, const char *role, const char *path,
                          const char *what)
{
  log_user_error("islandpso: error: '%s', the lock file of the %s '%s', %s: islandpso neither "
                 "overwrites nor removes it; move it away, or give this run another path",
                 l->path, role, path, what);
  return IPSO_ERR_USAGE;
}

/* Creates the lock file L->path holding TEXT (LEN bytes), locked, without
 * a moment in which it exists empty: written under a temporary name and
 * linked to its own (where the file system has no hard links: created
 * exclusively and written). The open file, or -1 with errno (EEXIST:
 * someone else created it first). */
static int create_locked(const struct run_lock *l, const char *text, int len)
{
  char tmp[sizeof l->path + 16];
  int e, fd;
  snprintf(tmp, sizeof tmp, "%s.XXXXXX", l->path);
  fd = mkostemp(tmp, O_CLOEXEC);
  if (fd >= 0) {
    if (fchmod(fd, 0644) != 0 || write(fd, text, (size_t)len) != len || lock_fd(fd) != 0) {
      e = errno;
      close(fd);
      unlink(tmp);
      errno = e;
      return -1;
    }
    if (link(tmp, l->path) == 0) {
      unlink(tmp);
      return fd;
    }
    e = errno;
    close(fd);
    unlink(tmp);
    if (e != EPERM && e != ENOTSUP && e != EOPNOTSUPP && e != ENOSYS && e != EMLINK) {
      errno = e;
      return -1;
    }
  } else if (errno != EACCES && errno != EPERM && errno != EINVAL) {
    return -1;
  }
  fd = open(l->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return -1;
  if (lock_fd(fd) != 0 || write(fd, text, (size_t)len) != len) {
    e = errno;
    close(fd);
    unlink(l->path);
    errno = e;
    return -1;
  }
  return fd;
}

/* Whether FD is the file L->path names now. */
static int names_it(const struct run_lock *l, int fd)
{
  struct stat a, b;
  return fstat(fd, &a) == 0 && lstat(l->path, &b) == 0 && a.st_dev == b.st_dev &&
         a.st_ino == b.st_ino;
}

int run_lock_take(struct run_lock *l, const char *role, const char *path)
{
  char text[LOCK_TEXT_MAX];
  l->fd = -1;
  if (run_lock_path(path, l->path, sizeof l->path) != 0)
    return IPSO_FAIL("lock", "path too long: '%s'", path);
  int len = lock_text(text);
  /* The lock file can be replaced between open and lock (its holder
   * removes it on release): lock, then check it is still the file named. */
  for (int attempt = 0; attempt < 5; attempt++) {
    int fd = open(l->path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0 && errno == ENOENT) {
      fd = create_locked(l, text, len);
      if (fd < 0 && errno == EEXIST) continue; /* created by another run meanwhile */
      if (fd < 0) {
        log_warn("cannot create the lock file '%s' (%s): the %s '%s' is not protected against a "
                 "second run",
                 l->path, strerror(errno), role, path);
        return IPSO_OK;
      }
      if (!names_it(l, fd)) { /* replaced at once: try again */
        close(fd);
        continue;
      }
      l->fd = fd;
      remember(l);
      return IPSO_OK;
    }
    if (fd < 0 && errno == ELOOP) return refuse_foreign(l, role, path, "is a symbolic link");
    struct stat st;
    if (fd < 0 && lstat(l->path, &st) != 0) {
      log_warn("cannot create the lock file '%s' (%s): the %s '%s' is not protected against a "
               "second run",
               l->path, strerror(errno), role, path);
      return IPSO_OK;
    }
    if (fd < 0) {
      log_user_error("islandpso: error: cannot open the lock file '%s' of the %s '%s': %s; remove "
                     "it if no run uses that %s",
                     l->path, role, path, strerror(errno), role);
      return IPSO_ERR_USAGE;
    }
    char found[LOCK_TEXT_MAX];
    ssize_t k = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) k = pread(fd, found, sizeof found, 0);
    if (k < 0 || !run_lock_text_valid(found, (size_t)k)) {
      close(fd);
      return refuse_foreign(l, role, path,
                            k < 0 ? "is not a regular file" : "is not an islandpso lock file");
    }
    int e = lock_fd(fd);
    if (e == EACCES || e == EAGAIN) {
      found[strcspn(found, "\n")] = '\0';
      close(fd);
      log_user_error("islandpso: error: the %s '%s' is in use by another run (%s; lock file "
                     "'%s'): wait for it to end or give this run other paths",
                     role, path, found, l->path);
      return IPSO_ERR_USAGE;
    }
    if (e) {
      close(fd);
      log_warn("cannot lock '%s' (%s): the %s '%s' is not protected against a second run", l->path,
               strerror(e), role, path);
      return IPSO_OK;
    }
    if (names_it(l, fd)) {
      /* A stale lock of a run that died: ours now. The new text goes over
       * the old before the rest is cut, so the file is never empty. */
      if (pwrite(fd, text, (size_t)len, 0) != len || ftruncate(fd, len) != 0)
        log_warn("cannot write the lock file '%s': %s", l->path, strerror(errno));
      l->fd = fd;
      remember(l);
      return IPSO_OK;
    }
    close(fd); /* removed or replaced meanwhile: try again */
  }
  return IPSO_FAIL("lock", "the lock file '%s' keeps being replaced", l->path);
}

void run_lock_release(struct run_lock *l)
{
  for (size_t i = 0; i < sizeof held / sizeof held[0]; i++)
    if (held[i] == l) held[i] = NULL;
  if (l->fd < 0) return;
  /* While still locked, so a waiting run then locks a new file; and only
   * the file this run holds: one put in its place stays. */
  if (names_it(l, l->fd)) unlink(l->path);
  close(l->fd);
  l->fd = -1;
}

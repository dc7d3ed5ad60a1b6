/* The run's files: compared by identity (paths_check), and locked (run_lock_take). */
#define _GNU_SOURCE /* mkostemp */
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
#include "files.h"

/* The real path of PATH's directory and its last component in OUT (N bytes):
 * 0, or -1 when the directory cannot be resolved. */
static int path_canonical(const char *path, char *out, size_t n)
{
  char dir[PATH_MAX], real[PATH_MAX];
  const char *slash = strrchr(path, '/');
  const char *name = slash ? slash + 1 : path;
  snprintf(dir, sizeof dir, "%.*s", !slash || slash == path ? 1 : (int)(slash - path),
           slash ? path : ".");
  if (!realpath(dir, real)) return -1;
  int k = snprintf(out, n, "%s/%s", strcmp(real, "/") ? real : "", name);
  return k < 0 || (size_t)k >= n ? -1 : 0;
}

/* Whether A and B name the same file: the same device and inode when both
 * exist, else the same real directory and name (a file not yet created). */
static int path_same(const char *a, const char *b)
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
  /* (A directory is reported elsewhere.) */
  if (!path || !*path || stat(path, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
    return IPSO_OK;
  return IPSO_USAGE("islandpso: error: the %s '%s' exists and is not a regular file (%s): "
                    "islandpso writes it through a temporary file and a rename",
                    role, path,
                    S_ISCHR(st.st_mode)    ? "a character device"
                    : S_ISBLK(st.st_mode)  ? "a block device"
                    : S_ISFIFO(st.st_mode) ? "a FIFO"
                                           : "a socket or other special file");
}

/* Whether PATH of ROLE, absolute, with SUFFIX (its longest derived name) fits
 * PATH_MAX: beyond it some MPI-IO and HDF5 calls fail worse than with an error. */
static int check_length(const char *role, const char *path, const char *suffix)
{
  char cwd[PATH_MAX];
  size_t n = strlen(path) + strlen(suffix);
  if (path[0] != '/' && !getcwd(cwd, sizeof cwd))
    return IPSO_USAGE("islandpso: error: the %s '%s' is relative, and the working directory %s: "
                      "run islandpso from a shorter path, or give absolute paths of fewer than "
                      "%d bytes",
                      role, path,
                      errno == ERANGE || errno == ENAMETOOLONG
                          ? "is longer than the system's limit on a path (PATH_MAX)"
                          : "cannot be found",
                      PATH_MAX);
  if (path[0] != '/') n += strlen(cwd) + 1;
  if (n < PATH_MAX) return IPSO_OK;
  return IPSO_USAGE("islandpso: error: the %s '%s' is too long: with the working directory and "
                    "'%s' its path has %zu bytes, the system's limit (PATH_MAX) is %d",
                    role, path, suffix, n, PATH_MAX - 1);
}

/* PATH's lock file in OUT (N bytes): its real path (every spelling finds one
 * lock) with ".lock"; 0, or -1 when it does not fit. */
static int lock_path(const char *path, char *out, size_t n)
{
  char real[PATH_MAX];
  if (!realpath(path, real) && path_canonical(path, real, sizeof real) != 0)
    snprintf(real, sizeof real, "%s", path);
  int k = snprintf(out, n, "%s.lock", real);
  return k < 0 || (size_t)k >= n ? -1 : 0;
}

/* Roles of the run's files, in the order their names are reported. */
enum { CONFIG, OUTPUT, CKPT, PREV, TMP, RESTART, OUTPUT_LOCK, CKPT_LOCK, REMOVING, PREV_REMOVING };
#define ROLES (PREV_REMOVING + 1)

int paths_check(const char *config, const char *output, const char *checkpoint, const char *restart)
{
  /* Each role's name, whether the run writes (or removes) the file, and the
   * suffix of a name derived from the checkpoint's. */
  static const struct {
    const char *role;
    int written;
    const char *suffix;
  } roles[ROLES] = {{"config file", 0, NULL},
                    {"output file", 1, NULL},
                    {"checkpoint", 1, NULL},
                    {"previous checkpoint", 1, ".prev"},
                    {"temporary checkpoint", 1, ".tmp"},
                    {"restart checkpoint", 0, NULL},
                    {"output's lock file", 1, NULL},
                    {"checkpoint's lock file", 1, NULL},
                    {"checkpoint being removed", 1, ".removing"},
                    {"previous checkpoint being removed", 1, ".prev.removing"}};
  static char names[ROLES][PATH_MAX + 32];
  const char *path[ROLES] = {config, output, checkpoint, NULL, NULL, restart};
  int ckpt = checkpoint && *checkpoint, out = output && *output;
  if (out) IPSO_TRY(check_length("output file", output, ".lock"));
  if (ckpt) IPSO_TRY(check_length("checkpoint", checkpoint, ".prev.removing"));
  for (int r = 0; r < ROLES; r++)
    if (ckpt && roles[r].suffix) {
      snprintf(names[r], sizeof names[r], "%s%s", checkpoint, roles[r].suffix);
      path[r] = names[r];
    }
  if (ckpt && lock_path(checkpoint, names[CKPT_LOCK], sizeof names[CKPT_LOCK]) == 0)
    path[CKPT_LOCK] = names[CKPT_LOCK];
  if (out && lock_path(output, names[OUTPUT_LOCK], sizeof names[OUTPUT_LOCK]) == 0)
    path[OUTPUT_LOCK] = names[OUTPUT_LOCK];
  /* Every file the run writes is apart from every other it uses; but the
   * restart may be the checkpoint or its .prev (--resume), and those two may
   * be hard links of one file (a commit leaves them so for a moment). */
  for (int a = 0; a < ROLES; a++)
    for (int b = a + 1; b < ROLES; b++) {
      if (!roles[a].written && !roles[b].written && !(a == CONFIG && b == RESTART)) continue;
      if ((a == CKPT || a == PREV) && b == RESTART) continue;
      if (a == CKPT && b == PREV) continue;
      if (!path[a] || !*path[a] || !path[b] || !*path[b]) continue;
      if (path_same(path[a], path[b]))
        return IPSO_USAGE("islandpso: error: the %s '%s' and the %s '%s' are the same file; give "
                          "each its own path",
                          roles[a].role, path[a], roles[b].role, path[b]);
    }
  /* (Lock files: run_lock_take says what is wrong with one.) */
  for (int r = OUTPUT; r < ROLES; r++)
    if (r == OUTPUT || r == CKPT || roles[r].suffix)
      IPSO_TRY(check_writable_kind(roles[r].role, path[r]));
  return IPSO_OK;
}

/* The most bytes a lock file of ours holds. */
#define LOCK_TEXT_MAX 512

/* Locks FD's whole file without waiting: 0, or the errno. */
static int lock_fd(int fd)
{
  struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
  return fcntl(fd, F_SETLK, &fl) == 0 ? 0 : errno;
}

/* The locks held, released at exit() too (a user objective's, say), or
 * their files would stay. */
static struct run_lock *held[8];
static void release_all(void)
{
  for (size_t i = 0; i < sizeof held / sizeof held[0]; i++)
    if (held[i]) run_lock_release(held[i]);
}

/* L holds its lock file open as FD from now on. */
static int hold(struct run_lock *l, int fd)
{
  static int registered;
  if (!registered) registered = atexit(release_all) == 0;
  size_t i = 0;
  while (i < sizeof held / sizeof held[0] - 1 && held[i]) i++;
  if (!held[i]) held[i] = l;
  l->fd = fd;
  return IPSO_OK;
}

/* Whether TEXT (N bytes) is what run_lock_take writes: "pid P on HOST since
 * TIME\n", P digits, HOST and TIME without blanks, line ends or NULs. */
static int lock_text_valid(const char *text, size_t n)
{
  static const char *const words[] = {"pid ", " on ", " since ", "\n"};
  const char *p = text, *end = text + n;
  if (n == 0 || n >= LOCK_TEXT_MAX) return 0;
  for (int i = 0;; i++) {
    size_t len = strlen(words[i]);
    if ((size_t)(end - p) < len || memcmp(p, words[i], len) != 0) return 0;
    p += len;
    if (i == 3) return p == end;
    const char *q = p;
    while (q < end && (i == 0 ? *q >= '0' && *q <= '9' : *q != ' ' && *q != '\n' && *q != '\0'))
      q++;
    if (q == p) return 0;
    p = q;
  }
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

/* Warns that the lock file of PATH cannot be made (ERR), and goes on without it. */
static int unprotected(const struct run_lock *l, const char *role, const char *path, int err)
{
  log_warn("cannot create the lock file '%s' (%s): the %s '%s' is not protected against a "
           "second run",
           l->path, strerror(err), role, path);
  return IPSO_OK;
}

/* Refuses the file at the lock's path: it is not a lock file of ours. */
static int refuse_foreign(const struct run_lock *l, const char *role, const char *path,
                          const char *what)
{
  return IPSO_USAGE("islandpso: error: '%s', the lock file of the %s '%s', %s: islandpso neither "
                    "overwrites nor removes it; move it away, or give this run another path",
                    l->path, role, path, what);
}

/* Closes FD and removes NAME, keeping errno: -1. */
static int discard(int fd, const char *name)
{
  int e = errno;
  close(fd);
  unlink(name);
  errno = e;
  return -1;
}

/* Creates L->path holding TEXT (LEN bytes), locked, never empty: written
 * under a temporary name and linked (without hard links: created
 * exclusively). The open file, or -1 with errno (EEXIST: taken). */
static int create_locked(const struct run_lock *l, const char *text, int len)
{
  char tmp[sizeof l->path + 16];
  snprintf(tmp, sizeof tmp, "%s.XXXXXX", l->path);
  int fd = mkostemp(tmp, O_CLOEXEC);
  if (fd >= 0) {
    if (fchmod(fd, 0644) != 0 || write(fd, text, (size_t)len) != len || lock_fd(fd) != 0)
      return discard(fd, tmp);
    if (link(tmp, l->path) == 0) {
      unlink(tmp);
      return fd;
    }
    discard(fd, tmp);
    if (errno != EPERM && errno != ENOTSUP && errno != EOPNOTSUPP && errno != ENOSYS &&
        errno != EMLINK)
      return -1;
  } else if (errno != EACCES && errno != EPERM && errno != EINVAL) {
    return -1;
  }
  fd = open(l->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd >= 0 && (lock_fd(fd) != 0 || write(fd, text, (size_t)len) != len))
    return discard(fd, l->path);
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
  if (lock_path(path, l->path, sizeof l->path) != 0)
    return IPSO_FAIL("lock", "path too long: '%s'", path);
  int len = lock_text(text);
  /* Its holder may remove it between our open and lock: lock, then check
   * that it is still the file named. */
  for (int attempt = 0; attempt < 5; attempt++) {
    int fd = open(l->path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0 && errno == ENOENT) {
      fd = create_locked(l, text, len);
      if (fd >= 0 && names_it(l, fd)) return hold(l, fd);
      if (fd < 0 && errno != EEXIST) return unprotected(l, role, path, errno);
      if (fd >= 0) close(fd); /* replaced at once, or created by another run: again */
      continue;
    }
    if (fd < 0 && errno == ELOOP) return refuse_foreign(l, role, path, "is a symbolic link");
    struct stat st;
    if (fd < 0 && lstat(l->path, &st) != 0) return unprotected(l, role, path, errno);
    if (fd < 0)
      return IPSO_USAGE("islandpso: error: cannot open the lock file '%s' of the %s '%s': %s; "
                        "remove it if no run uses that %s",
                        l->path, role, path, strerror(errno), role);
    char found[LOCK_TEXT_MAX];
    ssize_t k = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) k = pread(fd, found, sizeof found, 0);
    if (k < 0 || !lock_text_valid(found, (size_t)k)) {
      close(fd);
      return refuse_foreign(l, role, path,
                            k < 0 ? "is not a regular file" : "is not an islandpso lock file");
    }
    int e = lock_fd(fd);
    if (e == EACCES || e == EAGAIN) {
      found[strcspn(found, "\n")] = '\0';
      close(fd);
      return IPSO_USAGE("islandpso: error: the %s '%s' is in use by another run (%s; lock file "
                        "'%s'): wait for it to end or give this run other paths",
                        role, path, found, l->path);
    }
    if (e) {
      close(fd);
      log_warn("cannot lock '%s' (%s): the %s '%s' is not protected against a second run", l->path,
               strerror(e), role, path);
      return IPSO_OK;
    }
    if (names_it(l, fd)) {
      /* A dead run's lock, ours now: the text goes over the old before the
       * rest is cut, so the file is never empty. */
      if (pwrite(fd, text, (size_t)len, 0) != len || ftruncate(fd, len) != 0)
        log_warn("cannot write the lock file '%s': %s", l->path, strerror(errno));
      return hold(l, fd);
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
  /* While locked, so a waiting run locks a new file; and only our file. */
  if (names_it(l, l->fd)) unlink(l->path);
  close(l->fd);
  l->fd = -1;
}

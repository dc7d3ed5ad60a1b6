/* Lock files with fcntl write locks. */
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

int run_lock_take(struct run_lock *l, const char *role, const char *path)
{
  l->fd = -1;
  /* Named after the file itself, not the spelling: a symbolic link or
   * sub/../ to the same output finds the same lock. */
  char real[PATH_MAX];
  if (!realpath(path, real) && path_canonical(path, real, sizeof real) != 0)
    snprintf(real, sizeof real, "%s", path);
  int n = snprintf(l->path, sizeof l->path, "%s.lock", real);
  if (n < 0 || (size_t)n >= sizeof l->path) return IPSO_FAIL("lock", "path too long: '%s'", path);
  /* The lock file can be replaced between open and lock (its holder
   * removes it on release): lock, then check it is still the file named. */
  for (int attempt = 0; attempt < 5; attempt++) {
    int fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      log_warn("cannot create the lock file '%s' (%s): the %s '%s' is not protected against a "
               "second run",
               l->path, strerror(errno), role, path);
      return IPSO_OK;
    }
    int e = lock_fd(fd);
    if (e == EACCES || e == EAGAIN) {
      char holder[256] = "";
      ssize_t k = pread(fd, holder, sizeof holder - 1, 0);
      holder[k > 0 ? k : 0] = '\0';
      holder[strcspn(holder, "\n")] = '\0';
      close(fd);
      log_user_error("islandpso: error: the %s '%s' is in use by another run (%s; lock file "
                     "'%s'): wait for it to end or give this run other paths",
                     role, path, holder[0] ? holder : "holder unknown", l->path);
      return IPSO_ERR_USAGE;
    }
    if (e) {
      close(fd);
      log_warn("cannot lock '%s' (%s): the %s '%s' is not protected against a second run",
               l->path, strerror(e), role, path);
      return IPSO_OK;
    }
    struct stat a, b;
    if (fstat(fd, &a) == 0 && stat(l->path, &b) == 0 && a.st_dev == b.st_dev &&
        a.st_ino == b.st_ino) {
      char host[256] = "?", text[512];
      gethostname(host, sizeof host - 1);
      time_t now = time(NULL);
      char when[32];
      strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
      int len = snprintf(text, sizeof text, "pid %ld on %s since %s\n", (long)getpid(), host, when);
      if (ftruncate(fd, 0) != 0 || pwrite(fd, text, (size_t)len, 0) != len)
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
  unlink(l->path); /* while still locked: a waiting run then locks a new file */
  close(l->fd);
  l->fd = -1;
}

/* The output's identity while the run goes on: the file its path names
 * must stay the one the run opened (h5out_identity_lost). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "h5out_internal.h"
#include "check.h"
#include "log.h"

void h5out_identity_take(struct h5out *h)
{
  struct stat st;
  h->identity_known = 0;
  if (h->f.rank != 0 || stat(h->f.path, &st) != 0) return;
  h->dev = (uint64_t)st.st_dev;
  h->ino = (uint64_t)st.st_ino;
  h->identity_known = 1;
}

int h5out_identity_lost(const struct h5out *h, char *why, size_t len)
{
  struct stat st;
  if (!h || h->f.rank != 0 || !h->identity_known) return 0;
  if (stat(h->f.path, &st) != 0) {
    snprintf(why, len,
             "'%s' is gone (%s): it was deleted or moved away while the run wrote it; the rows "
             "written so far are in the file the run opened, wherever it is now",
             h->f.path, strerror(errno));
    return 1;
  }
  if ((uint64_t)st.st_dev == h->dev && (uint64_t)st.st_ino == h->ino) return 0;
  snprintf(why, len,
           "'%s' is no longer the file this run writes: another file was put at its path while "
           "the run wrote it; the rows written so far are in the file the run opened, wherever "
           "it is now (put it back at '%s' to continue)",
           h->f.path, h->f.path);
  return 1;
}

int h5out_check_identity(const struct h5out *h)
{
  char why[3 * 4096];
  int st = IPSO_OK;
  if (!h) return IPSO_OK;
  if (h5out_identity_lost(h, why, sizeof why)) st = IPSO_FAIL("output", "%s", why);
  return island_agree(h->comm, st);
}

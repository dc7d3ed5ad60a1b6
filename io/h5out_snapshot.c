/* Snapshots written in the background (h5out.h): the main thread creates
 * /snapshots/<iteration>/ with its datasets allocated (contiguous, never
 * filled) and learns where their data lie in the file; then a thread of
 * each rank fills the rank's buffer (the GPU's captured state, read back),
 * turns costs into fitness and writes the rank's rows with pwrite() at
 * those offsets through a descriptor of its own. HDF5 never touches the
 * raw data of these datasets, and nothing else writes to the file while
 * the thread runs: every h5out call that writes, flushes or closes first
 * waits for it (h5out_snapshot_wait), so the file's own writes (MPI-IO
 * may read and write back whole extents) never meet the thread's. Where
 * this path cannot be taken (serial HDF5 on several ranks, a big-endian
 * host) the snapshot is written at once by h5out_write_snapshot. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "h5out_internal.h"
#include "island_mpi.h"
#include "log.h"
#include "state_arrays.h"

struct h5out_snapshots {
  int async; /* the pwrite path can be taken */
  int fd;    /* the output file, for the thread's writes; -1 until the first */
  struct swarm_state buf;
  struct state_fill fill; /* fills buf in the thread (fn NULL: filled) */
  double sign;
  int64_t iteration;
  uint64_t offset[STATE_ARRAYS]; /* of each dataset's data in the file */
  pthread_t thread;
  int running;
  int err;        /* errno of the failed step, or 0 */
  char what[256]; /* the failed step */
};

static void *snapshot_thread(void *arg)
{
  struct h5out *h = arg;
  struct h5out_snapshots *w = h->snap;
  if (w->fill.fn && w->fill.fn(w->fill.ctx, &w->buf) != IPSO_OK) {
    w->err = EIO;
    snprintf(w->what, sizeof w->what, "copying the state to the host");
    return NULL;
  }
  for (int a = 0; a < STATE_ARRAYS; a++) {
    const struct state_array *sa = &state_arrays[a];
    const int64_t width = state_array_width(sa, h->dims);
    const uint64_t n = (uint64_t)(h->local * h->particles * width);
    double *data = state_array_data(sa, &w->buf);
    /* The costs become fitness in the objective's units. */
    if (sa->fitness && w->sign != 1.0)
      for (uint64_t i = 0; i < n; i++) data[i] = w->sign * data[i];
    const uint64_t first_row = (uint64_t)h->f.rank * (uint64_t)h->local * (uint64_t)h->particles;
    const uint64_t at = w->offset[a] + first_row * (uint64_t)width * sizeof(double);
    int e = h5u_pwrite_all(w->fd, data, n * sizeof(double), at);
    if (e) {
      w->err = e;
      snprintf(w->what, sizeof w->what, "writing /snapshots/%" PRId64 "/%s", w->iteration,
               sa->snapshot_name);
      return NULL;
    }
  }
  return NULL;
}

int h5out_snapshot_buffer(struct h5out *h, struct swarm_state **buf)
{
  if (!h->snap) {
    if (!(h->snap = calloc(1, sizeof *h->snap)))
      return IPSO_FAIL("hdf5", "'%s': out of memory", h->f.path);
    h->snap->fd = -1;
    h->snap->async = h5u_pwrite_possible(h->f.size);
  }
  struct h5out_snapshots *w = h->snap;
  if (w->running)
    return IPSO_FAIL("hdf5", "'%s': the buffer of a snapshot being written was asked for",
                     h->f.path);
  if (!w->buf.position)
    IPSO_TRY(swarm_state_alloc(&w->buf, (int64_t)h->local * h->particles, h->dims));
  *buf = &w->buf;
  return IPSO_OK;
}

int h5out_snapshot_wait(struct h5out *h)
{
  struct h5out_snapshots *w = h ? h->snap : NULL;
  if (!w || !w->running) return IPSO_OK;
  pthread_join(w->thread, NULL);
  w->running = 0;
  int st = IPSO_OK;
  if (w->err) {
    log_fail("hdf5", __FILE__, __LINE__, "'%s': %s failed: %s", h->f.path, w->what,
             strerror(w->err));
    st = IPSO_ERR_RUNTIME;
  }
  /* Every rank started the thread, so every rank is here. */
  return island_agree(h->comm, st);
}

/* Creates /snapshots/<ITERATION>/ and its datasets, allocated; their data
 * offsets into w->offset (writers; collective with parallel HDF5). */
static int create_snapshot_group(struct h5out *h, int64_t iteration)
{
  struct h5u_file *f = &h->f;
  struct h5out_snapshots *w = h->snap;
  hid_t group = H5I_INVALID_HID, dsets[STATE_ARRAYS];
  char gname[64], dname[128];
  int st = IPSO_ERR_RUNTIME;
  for (int a = 0; a < STATE_ARRAYS; a++) dsets[a] = H5I_INVALID_HID;
  hsize_t dims[2] = {(hsize_t)h->islands * (hsize_t)h->particles, (hsize_t)h->dims};
  if ((group = h5out_snapshot_group(h, iteration, gname, sizeof gname)) < 0) goto done;
  for (int a = 0; a < STATE_ARRAYS; a++) {
    const struct state_array *sa = &state_arrays[a];
    snprintf(dname, sizeof dname, "%s/%s", gname, sa->snapshot_name);
    dsets[a] = h5u_create_dataset_allocated(f, f->id, dname, state_array_file_type(sa),
                                            state_array_rank(sa), dims, sa->units,
                                            sa->snapshot_description);
    if (dsets[a] < 0 || h5u_dataset_offset(f, dsets[a], &w->offset[a]) != IPSO_OK) goto done;
  }
  st = IPSO_OK;
done:
  st = H5U_CLOSE(f, st, group);
  return h5u_close_ids(f, st, dsets, STATE_ARRAYS);
}

int h5out_snapshot_start(struct h5out *h, int64_t iteration, double sign,
                         const struct state_fill *fill)
{
  IPSO_TRY(h5out_snapshot_wait(h));
  struct swarm_state *buf;
  IPSO_TRY(h5out_snapshot_buffer(h, &buf));
  struct h5out_snapshots *w = h->snap;
  if (!w->async) {
    if (fill && fill->fn) IPSO_TRY(fill->fn(fill->ctx, buf));
    return h5out_write_snapshot(h, iteration, buf, sign);
  }
  int st = h->f.writer ? create_snapshot_group(h, iteration) : IPSO_OK;
  st = island_agree(h->comm, st);
  if (st != IPSO_OK) return st;
  /* Every writer has the same offsets (collective metadata); rank 0's count. */
  int rc = MPI_Bcast(w->offset, STATE_ARRAYS, MPI_UINT64_T, 0, h->comm);
  if (rc != MPI_SUCCESS) return ipso_mpi_fail("MPI_Bcast", rc, __FILE__, __LINE__);
  if (w->fd < 0) {
    w->fd = open(h->f.path, O_WRONLY | O_CLOEXEC);
    if (w->fd < 0)
      st = IPSO_FAIL("hdf5", "'%s': cannot open the file for its snapshots: %s", h->f.path,
                     strerror(errno));
  }
  st = island_agree(h->comm, st);
  if (st != IPSO_OK) return st;
  w->iteration = iteration;
  w->sign = sign;
  w->err = 0;
  w->what[0] = '\0';
  memset(&w->fill, 0, sizeof w->fill);
  if (fill) w->fill = *fill;
  /* Signals stay with the main thread (the stop flags are its business). */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  rc = pthread_create(&w->thread, NULL, snapshot_thread, h);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc == 0) {
    w->running = 1;
    return IPSO_OK;
  }
  /* No thread: written here instead. */
  snapshot_thread(h);
  st = w->err ? IPSO_FAIL("hdf5", "'%s': %s failed: %s", h->f.path, w->what, strerror(w->err))
              : IPSO_OK;
  return island_agree(h->comm, st);
}

void h5out_snapshot_free(struct h5out *h)
{
  struct h5out_snapshots *w = h->snap;
  if (!w) return;
  if (w->running) pthread_join(w->thread, NULL);
  if (w->fd >= 0) close(w->fd);
  swarm_state_free(&w->buf);
  free(w);
  h->snap = NULL;
}

/* Asynchronous checkpoints (checkpoint.h). checkpoint_start creates the
 * temporary file with HDF5, every attribute written and every dataset
 * allocated (contiguous, never filled); the rank's I/O threads write its
 * rows with pwrite() at the datasets' offsets in pieces of
 * STATE_PIECE_ELEMENTS (thread i of n takes every n-th), each read from the
 * buffer or the backend's capture and summed as it is written, while the
 * run goes on; the last thread flushes the file. The threads call neither
 * HDF5 (not thread-safe here) nor MPI (MPI_THREAD_FUNNELED). Every pwrite(),
 * fsync() and close() is checked, so no full read-back is needed: at the
 * commit rank 0 reads back only the metadata HDF5 wrote through MPI-IO,
 * writes the checksums and renames the file over the checkpoint. */
#define _GNU_SOURCE /* sync_file_range */
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint.h"
#include "checkpoint_internal.h"
#include "h5util.h"
#include "state_arrays.h"

/* I/O threads of a checkpoint that the caller waits for (a stop's, the
 * run's last): they share its pieces. One otherwise. */
#define IO_THREADS STATE_PIECE_READERS

/* The datasets whose bytes the threads write, then the checksums. */
#define CK_DATASETS (STATE_ARRAYS + 1)

struct checkpoint_writer {
  MPI_Comm comm;
  const struct ipso_config *cfg;
  int rank, size, islands, K; /* K islands on this rank */
  int64_t N;                  /* particles per island */
  int dims;
  int arrays; /* of state_arrays written: the frames too where swarm.frame is not "axes" */
  int cores;  /* online */
  char tmp[IPSO_PATH_MAX + 8], prev[IPSO_PATH_MAX + 8];
  struct swarm_state buf; /* the rank's islands, as copied for the checkpoint */
  int64_t delay_ms;       /* IPSO_TEST_CHECKPOINT_DELAY_MS (test builds): each piece's */

  /* The checkpoint in flight. */
  struct state_fill fill;          /* fills the buffer in the thread (fn NULL: filled) */
  int in_flight, threads, started; /* threads sharing the pieces; started */
  int64_t iteration;
  struct job_thread {
    struct checkpoint_writer *w;
    int index;
    pthread_t id;
  } thread[IO_THREADS];
  pthread_mutex_t lock; /* err and what */
  int fd;
  uint64_t offset[CK_DATASETS]; /* of each dataset's data in the file */
  uint64_t file_end;            /* the end of the last dataset's data */
  uint64_t *sums;               /* [K] this rank's islands' checksums */
  uint64_t *all;                /* [islands] every island's, gathered on rank 0 */
  int64_t pieces;               /* of one island, all arrays */
  uint64_t *piece_sums;         /* [K * pieces] their sums, in file order */
  int joined;                   /* checkpoint_join returned: only the commit is left */
  atomic_int done, cancel, failed, finished, read;
  int err;        /* errno of the failed step, or 0 */
  char what[256]; /* the failed step */
};

/* Whether a failed link(2) means the file system has no hard links. */
static int links_unsupported(int e)
{
  return e == EPERM || e == ENOTSUP || e == EOPNOTSUPP || e == ENOSYS || e == EMLINK || e == EXDEV;
}

/* Reports a failed step WHAT on file NAME of making the checkpoint PATH
 * (errno E) and returns IPSO_ERR_RUNTIME. */
static int commit_fail(const char *path, const char *what, const char *name, int e)
{
  log_fail("checkpoint", __FILE__, __LINE__, "'%s': %s '%s': %s", path, what, name, strerror(e));
  return IPSO_ERR_RUNTIME;
}

/* Flushes file NAME (DIR: directory) of the checkpoint PATH to disk. */
static int flush_file(const char *path, const char *name, int dir)
{
  int fd = open(name, dir ? O_RDONLY | O_DIRECTORY : O_RDONLY), e = 0;
  if (fd < 0) return commit_fail(path, dir ? "cannot open directory" : "cannot open", name, errno);
  /* Some file systems cannot flush a directory: they say EINVAL. */
  if (fsync(fd) != 0 && !(dir && (errno == EINVAL || errno == ENOTSUP))) e = errno;
  if (e) {
    close(fd);
    return commit_fail(path, dir ? "cannot flush directory" : "cannot flush to disk", name, e);
  }
  if (close(fd) != 0 && !dir) return commit_fail(path, "cannot close", name, errno);
  return IPSO_OK;
}

/* Makes the written TMP the checkpoint PATH (rank 0): flushes it, keeps the
 * previous checkpoint as PREV, renames TMP over PATH, flushes the directory. */
static int commit_file(const char *path, const char *tmp, const char *prev)
{
  char dir[IPSO_PATH_MAX];
  struct stat sb;
  int e, moved = 0;
  IPSO_TRY(flush_file(path, tmp, 0));
  if (lstat(path, &sb) == 0) {
    if (unlink(prev) != 0 && errno != ENOENT)
      return commit_fail(path, "cannot remove", prev, errno);
    /* A second name for the previous checkpoint keeps PATH whole until the
     * rename below replaces it atomically. */
    if (link(path, prev) != 0) {
      if (!links_unsupported(errno)) return commit_fail(path, "cannot keep a copy as", prev, errno);
      if (rename(path, prev) != 0) return commit_fail(path, "cannot keep a copy as", prev, errno);
      moved = 1;
    }
  } else if (errno != ENOENT) {
    return commit_fail(path, "cannot examine", path, errno);
  }
  if (rename(tmp, path) != 0) {
    e = errno;
    if (moved && rename(prev, path) != 0)
      log_warn("checkpoint '%s': the previous checkpoint is now '%s'", path, prev);
    return commit_fail(path, "cannot rename to it", tmp, e);
  }
  h5u_directory(path, dir, sizeof dir);
  return flush_file(path, dir, 1);
}

/* Closes the thread's file; STATUS, or the failure of the close. */
static int close_file(struct checkpoint_writer *w, int status)
{
  int rc = w->fd >= 0 ? close(w->fd) : 0;
  w->fd = -1;
  if (rc != 0 && status == IPSO_OK)
    return commit_fail(w->cfg->output.checkpoint, "cannot close", w->tmp, errno);
  return status;
}

int checkpoint_writer_create(MPI_Comm comm, const struct ipso_config *cfg,
                             struct checkpoint_writer **out)
{
  struct checkpoint_writer *w = calloc(1, sizeof *w);
  *out = NULL;
  if (!w) return IPSO_FAIL("checkpoint", "out of memory");
  w->comm = comm;
  w->cfg = cfg;
  w->fd = -1;
  pthread_mutex_init(&w->lock, NULL);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  w->cores = cores > 0 ? (int)cores : 1;
  MPI_Comm_rank(comm, &w->rank);
  MPI_Comm_size(comm, &w->size);
  w->islands = config_islands(cfg, w->size);
  w->K = w->islands / w->size;
  w->N = cfg->swarm.particles;
  w->dims = cfg->objective.dimensions;
  w->arrays = cfg->swarm.frame != IPSO_FRAME_AXES ? STATE_ARRAYS : STATE_SWARM_ARRAYS;
#ifdef IPSO_TEST_HOOKS
  const char *delay = getenv("IPSO_TEST_CHECKPOINT_DELAY_MS");
  if (delay) w->delay_ms = strtoll(delay, NULL, 10);
#endif
  snprintf(w->tmp, sizeof w->tmp, "%s.tmp", cfg->output.checkpoint);
  snprintf(w->prev, sizeof w->prev, "%s.prev", cfg->output.checkpoint);
  for (int a = 0; a < w->arrays; a++)
    w->pieces += state_pieces(state_array_island(&state_arrays[a], w->N, w->dims));
  w->sums = malloc((size_t)w->K * sizeof *w->sums);
  w->all = malloc((size_t)w->islands * sizeof *w->all);
  w->piece_sums = malloc((size_t)w->K * (size_t)w->pieces * sizeof *w->piece_sums);
  if (!w->sums || !w->all || !w->piece_sums) {
    checkpoint_writer_free(w);
    return IPSO_FAIL("checkpoint", "out of memory");
  }
  *out = w;
  return IPSO_OK;
}

int checkpoint_writer_buffer(struct checkpoint_writer *w, struct swarm_state **buf)
{
  if (w->in_flight)
    return IPSO_FAIL("checkpoint", "'%s': the buffer of a checkpoint in flight was asked for",
                     w->cfg->output.checkpoint);
  if (!w->buf.position) {
    IPSO_TRY(swarm_state_alloc(&w->buf, (int64_t)w->K * w->N, w->dims));
    if (w->arrays > STATE_SWARM_ARRAYS) IPSO_TRY(swarm_state_alloc_frames(&w->buf, w->K));
  }
  *buf = &w->buf;
  return IPSO_OK;
}

int checkpoint_in_flight(const struct checkpoint_writer *w)
{
  return w && w->in_flight;
}

int checkpoint_writing(const struct checkpoint_writer *w)
{
  return w && w->in_flight && !atomic_load_explicit(&w->done, memory_order_acquire);
}

/* Writes LEN bytes of BUF at offset AT of FD through short writes and EINTR;
 * 0, or the errno of the failure (EIO for a write that makes no progress). */
static int pwrite_all(int fd, const void *buf, uint64_t len, uint64_t at)
{
  const char *p = buf;
  while (len > 0) {
    ssize_t n = pwrite(fd, p, len, (off_t)at);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return EIO; /* a regular file that takes nothing: no progress */
    p += n;
    at += (uint64_t)n;
    len -= (uint64_t)n;
  }
  return 0;
}

/* Records the failed step of a thread (the first one). */
static void job_fail(struct checkpoint_writer *w, int e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void job_fail(struct checkpoint_writer *w, int e, const char *fmt, ...)
{
  va_list ap;
  pthread_mutex_lock(&w->lock);
  if (!w->err) {
    w->err = e ? e : EIO;
    va_start(ap, fmt);
    vsnprintf(w->what, sizeof w->what, fmt, ap);
    va_end(ap);
  }
  pthread_mutex_unlock(&w->lock);
  atomic_store(&w->failed, 1);
}

/* An I/O thread: its share of this rank's rows of each array (island by
 * island, in pieces: every n-th piece of n threads), each piece read (from
 * the capture, or the buffer once filled), summed and written; the last
 * thread to finish folds the pieces' sums into the islands' and flushes
 * the file to disk. */
static void *job_run(void *arg)
{
  const struct job_thread *me = arg;
  struct checkpoint_writer *w = me->w;
  const struct swarm_state *s = &w->buf;
  uint64_t piece = 0;
  int e;
  for (int a = 0, first_piece = 0; a < w->arrays; a++) {
    const struct state_array *sa = &state_arrays[a];
    const int64_t n = state_array_island(sa, w->N, w->dims);
    const uint64_t block = (uint64_t)n * sizeof(double);
    const char *data = (const char *)state_array_data(sa, s);
    const int pieces = (int)state_pieces(n);
    for (int k = 0; k < w->K; k++) {
      const uint64_t island = (uint64_t)w->rank * (uint64_t)w->K + (uint64_t)k;
      const uint64_t base = w->offset[a] + island * block;
      for (int p = 0; p < pieces; p++) {
        const int64_t at = (int64_t)p * STATE_PIECE_ELEMENTS;
        const int64_t count = state_piece_length(n, at);
        const uint64_t off = (uint64_t)at * sizeof(double), len = (uint64_t)count * sizeof(double);
        const double *src = (const double *)(data + (uint64_t)k * block + off);
        if (piece++ % (uint64_t)w->threads != (uint64_t)me->index) continue;
        if (atomic_load(&w->failed)) goto out;
        if (atomic_load_explicit(&w->cancel, memory_order_relaxed)) {
          job_fail(w, ECANCELED, "stopped");
          goto out;
        }
        if (w->fill.piece) {
          const int64_t first = (int64_t)k * n + at;
          if (w->fill.piece(w->fill.ctx, me->index, a, first, count, &src) != IPSO_OK) {
            job_fail(w, EIO, "copying %s to the host", sa->name);
            goto out;
          }
        }
        w->piece_sums[(int64_t)k * w->pieces + first_piece + p] = checkpoint_piece_sum(src, count);
        if ((e = pwrite_all(w->fd, (const char *)src, len, base + off)) != 0) {
          job_fail(w, e, "writing %s (bytes %" PRIu64 "..%" PRIu64 ")", sa->name, base + off,
                   base + off + len);
          goto out;
        }
#ifdef SYNC_FILE_RANGE_WRITE
        /* Start the write-back now, so that the fsync below waits less
         * (advisory: fsync reports what fails). */
        sync_file_range(w->fd, (off_t)(base + off), (off_t)len, SYNC_FILE_RANGE_WRITE);
#endif
        if (w->delay_ms > 0) {
          struct timespec ts = {w->delay_ms / 1000, (w->delay_ms % 1000) * 1000000L};
          nanosleep(&ts, NULL);
        }
      }
    }
    first_piece += pieces;
  }
out:
  atomic_fetch_add_explicit(&w->read, 1, memory_order_release);
  if (atomic_fetch_add(&w->finished, 1) + 1 < w->threads) return NULL;
  struct stat sb;
  if (!atomic_load(&w->failed)) {
    for (int k = 0; k < w->K; k++) {
      w->sums[k] = FNV_OFFSET;
      for (int64_t p = 0; p < w->pieces; p++)
        w->sums[k] = checkpoint_fold_piece(w->sums[k], w->piece_sums[(int64_t)k * w->pieces + p]);
    }
    int synced = fsync(w->fd) == 0 ? 0 : errno;
    if (synced)
      job_fail(w, synced, "flushing to disk");
    else if (fstat(w->fd, &sb) != 0)
      job_fail(w, errno, "examining");
    else if ((uint64_t)sb.st_size < w->file_end)
      job_fail(w, EIO, "the file is %lld bytes long, its data end at %" PRIu64,
               (long long)sb.st_size, w->file_end);
  }
  atomic_store_explicit(&w->done, 1, memory_order_release);
  return NULL;
}

void checkpoint_wait_read(struct checkpoint_writer *w)
{
  if (!w || !w->in_flight) return;
  while (atomic_load_explicit(&w->read, memory_order_acquire) < w->threads) {
    struct timespec ts = {0, 20000};
    nanosleep(&ts, NULL);
  }
}

/* Creates the temporary file with HDF5 (writers, collective with parallel
 * HDF5): the identity, and the state and checksum datasets allocated but
 * not written; their offsets into w->offset. Closes it. */
static int create_file(struct checkpoint_writer *w, const struct checkpoint_info *info)
{
  struct h5u_file f;
  hid_t dsets[CK_DATASETS];
  char why[1024];
  int st = IPSO_ERR_RUNTIME;
  for (int a = 0; a < CK_DATASETS; a++) dsets[a] = H5I_INVALID_HID;
  h5u_init(&f, w->comm, w->tmp);
  if (h5u_open(&f, H5U_REPLACE, why, sizeof why) != IPSO_OK) {
    /* MPI-IO's reason rarely names the system's: the directory may. */
    char dir[IPSO_PATH_MAX];
    int e = h5u_directory_error(f.path, dir, sizeof dir);
    if (e)
      log_fail("hdf5", __FILE__, __LINE__,
               "'%s': creating the file failed: directory '%s': %s (%s)", f.path, dir, strerror(e),
               why);
    else
      log_fail("hdf5", __FILE__, __LINE__, "'%s': creating the file failed: %s", f.path, why);
    return IPSO_ERR_RUNTIME;
  }
  if (checkpoint_write_identity(&f, w->cfg, info) != IPSO_OK) goto done;
  for (int a = 0; a < w->arrays; a++) {
    const struct state_array *sa = &state_arrays[a];
    hsize_t rows[2] = {(hsize_t)w->islands * (hsize_t)(sa->frame ? w->dims : w->N),
                       (hsize_t)w->dims};
    dsets[a] = h5u_create_dataset(&f, f.id, sa->name, H5T_IEEE_F64LE, state_array_rank(sa), rows, 0,
                                  sa->units, sa->description);
    if (dsets[a] < 0) goto done;
  }
  hsize_t n[1] = {(hsize_t)w->islands};
  dsets[STATE_ARRAYS] = h5u_create_dataset(
      &f, f.id, "checksum", H5T_STD_U64LE, 1, n, 0, CHECKSUM_UNITS_PIECES,
      "checksum of each island's rows of position, velocity, pbest_position, cost, "
      "pbest_cost and (where the file has it) frame, in that order");
  if (dsets[STATE_ARRAYS] < 0) goto done;
  w->file_end = 0;
  for (int a = 0; a < CK_DATASETS; a++) {
    if (a >= w->arrays && a < STATE_ARRAYS) continue;
    if (h5u_dataset_offset(&f, dsets[a], &w->offset[a]) != IPSO_OK) goto done;
    uint64_t bytes = a < STATE_ARRAYS
                         ? (uint64_t)w->islands *
                               (uint64_t)state_array_island(&state_arrays[a], w->N, w->dims) *
                               sizeof(double)
                         : (uint64_t)w->islands * sizeof(uint64_t);
    if (w->offset[a] + bytes > w->file_end) w->file_end = w->offset[a] + bytes;
  }
  st = IPSO_OK;
done:
  st = h5u_close_ids(&f, st, dsets, CK_DATASETS);
  /* Closing is collective: only when every rank got here (h5util.h). */
  if (st == IPSO_OK || f.size == 1) {
    int closed = h5u_close(&f);
    return st == IPSO_OK ? closed : st;
  }
  return st;
}

/* Fills the buffer on the caller's thread, piece by piece. */
static int fill_now(struct checkpoint_writer *w, const struct state_fill *fill)
{
  for (int a = 0; a < w->arrays; a++) {
    const int64_t n = (int64_t)w->K * state_array_island(&state_arrays[a], w->N, w->dims);
    double *to = state_array_data(&state_arrays[a], &w->buf);
    for (int64_t at = 0; at < n; at += STATE_PIECE_ELEMENTS) {
      const int64_t count = state_piece_length(n, at);
      const double *from;
      IPSO_TRY(fill->piece(fill->ctx, 0, a, at, count, &from));
      memcpy(to + at, from, (size_t)count * sizeof(double));
    }
  }
  return IPSO_OK;
}

int checkpoint_start(struct checkpoint_writer *w, const struct checkpoint_info *info,
                     enum checkpoint_mode mode, const struct state_fill *fill)
{
  const int wait = mode == CHECKPOINT_WAIT;
  const char *path = w->cfg->output.checkpoint;
  char dir[IPSO_PATH_MAX];
  int st = IPSO_OK, rc, e;
  if (w->in_flight) return IPSO_FAIL("checkpoint", "'%s': a checkpoint is already in flight", path);
  if (!w->buf.position) return IPSO_FAIL("checkpoint", "'%s': nothing to write", path);
  memset(&w->fill, 0, sizeof w->fill);
  if (fill && !fill->piece) fill = NULL;
  /* Filled now where the caller waits anyway (one thread fills, then any
   * number write). */
  if (fill && wait) IPSO_TRY(fill_now(w, fill));
  if (w->rank == 0 && (e = h5u_directory_error(path, dir, sizeof dir)) != 0)
    st = IPSO_FAIL("checkpoint", "'%s': directory '%s': %s", path, dir, strerror(e));
  st = island_agree(w->comm, st);
  if (st != IPSO_OK) return st;
  st = create_file(w, info);
  if (st != IPSO_OK) {
    /* Runtime failure: leave at once (h5util.h); the previous checkpoint
     * was not touched. */
    if (w->rank == 0) unlink(w->tmp);
    return st;
  }
  /* Every rank has the same offsets (collective metadata); rank 0's count. */
  IPSO_CHECK_MPI(MPI_Bcast(w->offset, CK_DATASETS, MPI_UINT64_T, 0, w->comm));
  IPSO_CHECK_MPI(MPI_Bcast(&w->file_end, 1, MPI_UINT64_T, 0, w->comm));
  w->fd = open(w->tmp, O_WRONLY | O_CLOEXEC);
  if (w->fd < 0) st = commit_fail(path, "cannot open", w->tmp, errno);
  st = island_agree(w->comm, st);
  if (st != IPSO_OK) {
    close_file(w, IPSO_OK);
    if (w->rank == 0) unlink(w->tmp);
    return st;
  }
  w->err = 0;
  w->what[0] = '\0';
  atomic_store(&w->done, 0);
  atomic_store(&w->cancel, 0);
  atomic_store(&w->failed, 0);
  atomic_store(&w->finished, 0);
  atomic_store(&w->read, 0);
  w->iteration = info->iteration;
  if (fill && !wait) w->fill = *fill;
  int want = mode == CHECKPOINT_BACKGROUND ? 1 : w->cores < IO_THREADS ? w->cores : IO_THREADS;
  /* Signals stay with the main thread (the stop flags are its business). */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  w->threads = want;
  w->started = 0;
  for (int j = 0; j < want; j++) {
    w->thread[j].w = w;
    w->thread[j].index = j;
    rc = pthread_create(&w->thread[j].id, NULL, job_run, &w->thread[j]);
    if (rc != 0) {
      /* The missing threads count as finished, and failed. */
      job_fail(w, rc, "starting I/O thread %d", j);
      atomic_fetch_add(&w->read, want - j);
      if (atomic_fetch_add(&w->finished, want - j) + (want - j) == want)
        atomic_store_explicit(&w->done, 1, memory_order_release);
      break;
    }
    w->started++;
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  w->in_flight = 1;
  return IPSO_OK;
}

/* Rank 0, once every thread has written: the file's structure must read
 * back as created (MPI-IO once reported failed collective writes as done),
 * then the checksums are written and the file flushed again. */
static int finish_file(struct checkpoint_writer *w, const uint64_t *sums)
{
  const char *path = w->cfg->output.checkpoint;
  hid_t fapl = H5I_INVALID_HID, file = H5I_INVALID_HID, dset = H5I_INVALID_HID;
  char why[1024] = "", hdf5[512];
  int64_t iteration = -1;
  int e, ok = 1;
  errno = 0;
  if ((fapl = H5Pcreate(H5P_FILE_ACCESS)) < 0 || H5Pset_fapl_sec2(fapl) < 0 ||
      (file = H5Fopen(w->tmp, H5F_ACC_RDONLY, fapl)) < 0) {
    e = errno;
    h5u_error_text(hdf5, sizeof hdf5);
    if (h5u_file_errno(e))
      snprintf(why, sizeof why, "%s (%s)", strerror(e), hdf5);
    else
      snprintf(why, sizeof why, "%s", hdf5);
    ok = 0;
  }
  for (int a = 0; ok && a < CK_DATASETS; a++) {
    if (a >= w->arrays && a < STATE_ARRAYS) continue;
    const char *name = a < STATE_ARRAYS ? state_arrays[a].name : "checksum";
    haddr_t at = HADDR_UNDEF;
    if ((dset = H5Dopen2(file, name, H5P_DEFAULT)) >= 0) at = H5Dget_offset(dset);
    if (at == HADDR_UNDEF || (uint64_t)at != w->offset[a]) {
      snprintf(why, sizeof why, "dataset '%s' is missing or moved", name);
      ok = 0;
    }
    if (dset >= 0) H5Dclose(dset);
    dset = H5I_INVALID_HID;
  }
  if (ok && (h5u_read_attr(file, "iteration", H5T_NATIVE_INT64, 1, &iteration) < 0 ||
             iteration != w->iteration)) {
    snprintf(why, sizeof why, "attribute 'iteration' is missing or wrong");
    ok = 0;
  }
  if (file >= 0) H5Fclose(file);
  if (fapl >= 0) H5Pclose(fapl);
  H5Eclear2(H5E_DEFAULT);
  if (!ok) {
    log_fail("checkpoint", __FILE__, __LINE__,
             "'%s': the new checkpoint '%s' does not read back as written: %s; the previous "
             "checkpoint is kept",
             path, w->tmp, why);
    return IPSO_ERR_RUNTIME;
  }
  struct stat sb;
  if ((e = pwrite_all(w->fd, (const char *)sums, (uint64_t)w->islands * sizeof *sums,
                      w->offset[STATE_ARRAYS])) != 0)
    return commit_fail(path, "cannot write the checksums of", w->tmp, e);
  if (fsync(w->fd) != 0) return commit_fail(path, "cannot flush to disk", w->tmp, errno);
  if (fstat(w->fd, &sb) != 0) return commit_fail(path, "cannot examine", w->tmp, errno);
  if ((uint64_t)sb.st_size < w->file_end)
    return commit_fail(path, "the file is shorter than its data:", w->tmp, EIO);
  return IPSO_OK;
}

int checkpoint_join(struct checkpoint_writer *w)
{
  int st = IPSO_OK;
  if (!w || !w->in_flight || w->joined) return IPSO_OK;
  for (int j = 0; j < w->started; j++) pthread_join(w->thread[j].id, NULL);
  w->started = 0;
  w->joined = 1;
  if (w->err)
    st = IPSO_FAIL("checkpoint",
                   "'%s': the new checkpoint '%s': %s failed: %s; the previous checkpoint is kept",
                   w->cfg->output.checkpoint, w->tmp, w->what, strerror(w->err));
  if (w->rank != 0) st = close_file(w, st);
  st = island_agree(w->comm, st);
  if (st != IPSO_OK) {
    w->in_flight = w->joined = 0;
    close_file(w, IPSO_OK);
    if (w->rank == 0) unlink(w->tmp);
  }
  return st;
}

int checkpoint_commit(struct checkpoint_writer *w)
{
  int st = IPSO_OK, rc;
  if (!w || !w->in_flight) return IPSO_OK;
  IPSO_TRY(checkpoint_join(w));
  w->in_flight = w->joined = 0;
  rc = MPI_Gather(w->sums, w->K, MPI_UINT64_T, w->all, w->K, MPI_UINT64_T, 0, w->comm);
  if (rc != MPI_SUCCESS) st = ipso_mpi_fail("MPI_Gather", rc, __FILE__, __LINE__);
  if (st == IPSO_OK && w->rank == 0) {
    st = close_file(w, finish_file(w, w->all));
    if (st == IPSO_OK) st = commit_file(w->cfg->output.checkpoint, w->tmp, w->prev);
  }
  close_file(w, IPSO_OK);
  st = island_agree(w->comm, st);
  if (st != IPSO_OK && w->rank == 0) unlink(w->tmp);
  return st;
}

void checkpoint_writer_free(struct checkpoint_writer *w)
{
  if (!w) return;
  atomic_store(&w->cancel, 1);
  for (int j = 0; j < w->started; j++) pthread_join(w->thread[j].id, NULL);
  if (w->fd >= 0) close(w->fd);
  /* A checkpoint abandoned in flight (the run failed elsewhere): its
   * unfinished file goes; the previous checkpoint was never touched. */
  if (w->in_flight && w->rank == 0) unlink(w->tmp);
  swarm_state_free(&w->buf);
  pthread_mutex_destroy(&w->lock);
  free(w->sums);
  free(w->all);
  free(w->piece_sums);
  free(w);
}

/* Writing a checkpoint (checkpoint.h): checkpoint_write creates the
 * temporary file with HDF5, every attribute written and every dataset
 * allocated (contiguous, never filled); each rank's threads write its rows
 * with pwrite() at the datasets' offsets in pieces of STATE_PIECE_ELEMENTS,
 * each summed as it is written, and the rank flushes them. Every pwrite(),
 * fsync() and close() is checked, so no full read-back is needed: rank 0
 * reads back only the metadata HDF5 wrote through MPI-IO, writes the
 * checksums and renames the file over the checkpoint. The run waits: at
 * the default interval of 15 minutes a write of hundreds of MB costs well
 * under 1% of the run (BENCHMARKS.md, Checkpoints). */
#define _GNU_SOURCE /* sync_file_range */
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
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

/* The datasets whose bytes the ranks write, then the checksums. */
#define CK_DATASETS (STATE_ARRAYS + 1)
/* Threads that write a rank's pieces at once: one per PIECES_PER_WRITER
 * pieces (32 MiB), at most WRITERS and one per core. */
#define WRITERS 4
#define PIECES_PER_WRITER 4

struct checkpoint_writer {
  MPI_Comm comm;
  const struct ipso_config *cfg;
  int rank, size, islands, K; /* K islands on this rank */
  int64_t N;                  /* particles per island */
  int dims;
  int arrays; /* of state_arrays written: the frames too where swarm.frame is not "axes" */
  char tmp[IPSO_PATH_MAX + 8], prev[IPSO_PATH_MAX + 8];
  struct swarm_state buf; /* the rank's islands, as copied for the checkpoint */
  int64_t delay_ms;       /* IPSO_TEST_CHECKPOINT_DELAY_MS (test builds): each piece's */
  int fd;
  uint64_t offset[CK_DATASETS]; /* of each dataset's data in the file */
  uint64_t file_end;            /* the end of the last dataset's data */
  uint64_t *sums;               /* [K] this rank's islands' checksums */
  uint64_t *all;                /* [islands] every island's, gathered on rank 0 */
  int64_t pieces;               /* of one island, all arrays */
  uint64_t *piece_sums;         /* [K * pieces] their sums, in file order */
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

/* Closes the rank's file; STATUS, or the failure of the close. */
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
  if (!w->buf.position) {
    IPSO_TRY(swarm_state_alloc(&w->buf, (int64_t)w->K * w->N, w->dims));
    if (w->arrays > STATE_SWARM_ARRAYS) IPSO_TRY(swarm_state_alloc_frames(&w->buf, w->K));
  }
  *buf = &w->buf;
  return IPSO_OK;
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

/* A writing thread's share of this rank's pieces: every n-th of n. */
struct share {
  struct checkpoint_writer *w;
  int index, n;
  int err;        /* errno of its failed write, or 0 */
  char what[160]; /* the failed write */
  pthread_t id;
};

/* Writes a share of this rank's rows of each array at their offsets
 * (island by island, in pieces), each piece summed into w->piece_sums. */
static void *write_share(void *arg)
{
  struct share *me = arg;
  struct checkpoint_writer *w = me->w;
  uint64_t piece = 0;
  for (int a = 0, first = 0; a < w->arrays; a++) {
    const struct state_array *sa = &state_arrays[a];
    const int64_t n = state_array_island(sa, w->N, w->dims);
    const uint64_t block = (uint64_t)n * sizeof(double);
    const char *data = (const char *)state_array_data(sa, &w->buf);
    const int pieces = (int)state_pieces(n);
    for (int k = 0; k < w->K; k++) {
      const uint64_t island = (uint64_t)w->rank * (uint64_t)w->K + (uint64_t)k;
      const uint64_t base = w->offset[a] + island * block;
      for (int p = 0; p < pieces; p++) {
        if (piece++ % (uint64_t)me->n != (uint64_t)me->index) continue;
        const int64_t at = (int64_t)p * STATE_PIECE_ELEMENTS, count = state_piece_length(n, at);
        const uint64_t off = (uint64_t)at * sizeof(double), len = (uint64_t)count * sizeof(double);
        const double *src = (const double *)(data + (uint64_t)k * block + off);
        w->piece_sums[(int64_t)k * w->pieces + first + p] = checkpoint_piece_sum(src, count);
        if ((me->err = pwrite_all(w->fd, (const char *)src, len, base + off)) != 0) {
          snprintf(me->what, sizeof me->what, "writing %s (bytes %" PRIu64 "..%" PRIu64 ")",
                   sa->name, base + off, base + off + len);
          return NULL;
        }
#ifdef SYNC_FILE_RANGE_WRITE
        /* The write-back started now, so that the fsync waits less
         * (advisory: fsync reports what fails). */
        sync_file_range(w->fd, (off_t)(base + off), (off_t)len, SYNC_FILE_RANGE_WRITE);
#endif
        if (w->delay_ms > 0) {
          struct timespec ts = {w->delay_ms / 1000, (w->delay_ms % 1000) * 1000000L};
          nanosleep(&ts, NULL);
        }
      }
    }
    first += pieces;
  }
  return NULL;
}

/* Writes this rank's rows by several threads where they are large (the
 * page-cache copies and sums side by side), folds the pieces' sums into the
 * islands' and flushes the file to disk. */
static int write_rows(struct checkpoint_writer *w)
{
  const char *path = w->cfg->output.checkpoint;
  struct share share[WRITERS];
  struct stat sb;
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  const int64_t want = (w->K * w->pieces + PIECES_PER_WRITER - 1) / PIECES_PER_WRITER;
  int n = want < WRITERS ? (int)want : WRITERS;
  if (cores > 0 && cores < n) n = (int)cores;
  for (int j = 0; j < n; j++) share[j] = (struct share){.w = w, .index = j, .n = n};
  /* Signals stay with the main thread (the stop flags are its business). */
  sigset_t all, old;
  int started = 1;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  while (started < n && pthread_create(&share[started].id, NULL, write_share, &share[started]) == 0)
    started++;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  /* This thread's share, and those of threads that did not start. */
  write_share(&share[0]);
  for (int j = started; j < n; j++) write_share(&share[j]);
  for (int j = 1; j < started; j++) pthread_join(share[j].id, NULL);
  for (int j = 0; j < n; j++)
    if (share[j].err)
      return IPSO_FAIL("checkpoint",
                       "'%s': the new checkpoint '%s': %s failed: %s; the previous checkpoint is "
                       "kept",
                       path, w->tmp, share[j].what, strerror(share[j].err));
  for (int k = 0; k < w->K; k++) {
    w->sums[k] = FNV_OFFSET;
    for (int64_t p = 0; p < w->pieces; p++)
      w->sums[k] = checkpoint_fold_piece(w->sums[k], w->piece_sums[(int64_t)k * w->pieces + p]);
  }
  if (fsync(w->fd) != 0) return commit_fail(path, "cannot flush to disk", w->tmp, errno);
  if (fstat(w->fd, &sb) != 0) return commit_fail(path, "cannot examine", w->tmp, errno);
  if ((uint64_t)sb.st_size < w->file_end)
    return commit_fail(path, "the file is shorter than its data:", w->tmp, EIO);
  return IPSO_OK;
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

/* Rank 0, once every rank has written the checkpoint of ITERATION: the
 * file's structure must read back as created (MPI-IO once reported failed
 * collective writes as done), then the gathered checksums are written and
 * the file flushed again. */
static int finish_file(struct checkpoint_writer *w, int64_t iteration)
{
  const char *path = w->cfg->output.checkpoint;
  hid_t fapl = H5I_INVALID_HID, file = H5I_INVALID_HID, dset = H5I_INVALID_HID;
  char why[1024] = "", hdf5[512];
  int64_t stored = -1;
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
  if (ok &&
      (h5u_read_attr(file, "iteration", H5T_NATIVE_INT64, 1, &stored) < 0 || stored != iteration)) {
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
  if ((e = pwrite_all(w->fd, (const char *)w->all, (uint64_t)w->islands * sizeof *w->all,
                      w->offset[STATE_ARRAYS])) != 0)
    return commit_fail(path, "cannot write the checksums of", w->tmp, e);
  if (fsync(w->fd) != 0) return commit_fail(path, "cannot flush to disk", w->tmp, errno);
  if (fstat(w->fd, &sb) != 0) return commit_fail(path, "cannot examine", w->tmp, errno);
  if ((uint64_t)sb.st_size < w->file_end)
    return commit_fail(path, "the file is shorter than its data:", w->tmp, EIO);
  return IPSO_OK;
}

int checkpoint_write(struct checkpoint_writer *w, const struct checkpoint_info *info)
{
  const char *path = w->cfg->output.checkpoint;
  char dir[IPSO_PATH_MAX];
  int st = IPSO_OK, rc, e;
  if (!w->buf.position) return IPSO_FAIL("checkpoint", "'%s': nothing to write", path);
  if (w->rank == 0 && (e = h5u_directory_error(path, dir, sizeof dir)) != 0)
    st = IPSO_FAIL("checkpoint", "'%s': directory '%s': %s", path, dir, strerror(e));
  IPSO_TRY(island_agree(w->comm, st));
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
  st = w->fd < 0 ? commit_fail(path, "cannot open", w->tmp, errno) : write_rows(w);
  if (w->rank != 0) st = close_file(w, st);
  st = island_agree(w->comm, st);
  if (st == IPSO_OK) {
    rc = MPI_Gather(w->sums, w->K, MPI_UINT64_T, w->all, w->K, MPI_UINT64_T, 0, w->comm);
    if (rc != MPI_SUCCESS) st = ipso_mpi_fail("MPI_Gather", rc, __FILE__, __LINE__);
  }
  if (st == IPSO_OK && w->rank == 0) {
    st = close_file(w, finish_file(w, info->iteration));
    if (st == IPSO_OK) st = commit_file(path, w->tmp, w->prev);
  }
  close_file(w, IPSO_OK);
  st = island_agree(w->comm, st);
  if (st != IPSO_OK && w->rank == 0) unlink(w->tmp);
  return st;
}

void checkpoint_writer_free(struct checkpoint_writer *w)
{
  if (!w) return;
  if (w->fd >= 0) close(w->fd);
  swarm_state_free(&w->buf);
  free(w->sums);
  free(w->all);
  free(w->piece_sums);
  free(w);
}

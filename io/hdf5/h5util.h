/* HDF5 helpers shared by the run output (h5out.c) and the checkpoints
 * (checkpoint.c), implemented in h5util.c: opening a file with parallel
 * HDF5, attributes, and transfers of the blocks of rows that ranks own.
 * Calls are checked with IPSO_CHECK_H5 / IPSO_CHECK_H5_GOTO (below), which
 * report through ipso_h5_fail. Every rank opens the file, takes part in
 * every collective call and moves its own rows (collective transfers,
 * collective metadata operations).
 *
 * Failures: a failed HDF5 or MPI call is reported with the file's path, the
 * operation and the library's own message, and the function returns
 * IPSO_ERR_RUNTIME at once. It does not wait for the other ranks, which may
 * still be inside a collective call it skipped (waiting could deadlock);
 * main() turns the status into MPI_Abort, which ends them. Verdicts on the
 * user's input (an existing output, a bad checkpoint) are reached where
 * every rank passes and agreed with h5u_agree(), so every rank returns the
 * same IPSO_ERR_USAGE.
 *
 * Reads: HDF5 (1.10 at least) looks up the chunks of a chunked dataset
 * independently on each rank that reads, so ranks that read different
 * chunks end up with different metadata caches, and the next collective
 * metadata access hangs. Every rank therefore reads the same rows of a
 * chunked dataset; rows per rank are read from contiguous datasets only.
 * Writes allocate chunks collectively and may differ between ranks. */
#ifndef IPSO_H5UTIL_H
#define IPSO_H5UTIL_H

#include <errno.h>
#include <hdf5.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "check.h"
#include "ipso.h"
#include "island_mpi.h"
#include "log.h"

#ifndef H5_HAVE_PARALLEL
#error "islandpso needs an HDF5 built with parallel (MPI-IO) support"
#endif
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the checkpoints' threads write little-endian data: a little-endian host is needed"
#endif

/* An HDF5 file shared by the ranks of a communicator. */
struct h5u_file {
  MPI_Comm comm; /* not owned */
  int rank;
  int size;
  hid_t id;   /* the open file, or H5I_INVALID_HID */
  hid_t dxpl; /* data transfer properties: collective */
  char path[IPSO_PATH_MAX];
};

enum h5u_mode {
  H5U_CREATE,   /* a new file; fails if it exists */
  H5U_REPLACE,  /* a new file, truncating an existing one */
  H5U_READ,     /* an existing file, read only */
  H5U_READWRITE /* an existing file, read and write */
};

/* Closes the listed HDF5 identifiers (invalid ones are skipped); evaluates
 * to STATUS, or to IPSO_ERR_RUNTIME if a close failed. */
#define H5U_CLOSE(f, status, ...)                                                                  \
  h5u_close_ids((f), (status), (hid_t[]){__VA_ARGS__},                                             \
                sizeof((hid_t[]){__VA_ARGS__}) / sizeof(hid_t))

/* HDF5 (a negative return is a failure): the file's PATH, the operation
 * (printf format and arguments), HDF5's message and, for a failed read or
 * write of the file, the system's reason (ipso_h5_fail). */
#define IPSO_CHECK_H5(path, call, ...)                                                             \
  do {                                                                                             \
    errno = 0;                                                                                     \
    if ((call) < 0) return ipso_h5_fail(path, errno, __FILE__, __LINE__, __VA_ARGS__);             \
  } while (0)

#define IPSO_CHECK_H5_GOTO(path, call, rc, label, ...)                                             \
  do {                                                                                             \
    errno = 0;                                                                                     \
    if ((call) < 0) {                                                                              \
      (rc) = ipso_h5_fail(path, errno, __FILE__, __LINE__, __VA_ARGS__);                           \
      goto label;                                                                                  \
    }                                                                                              \
  } while (0)

#ifdef __cplusplus
extern "C" {
#endif

/* Reports a failed HDF5 call (HDF5's message, and strerror(E) when E
 * explains a failed file access); IPSO_ERR_RUNTIME. */
int ipso_h5_fail(const char *path, int e, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Prepares F for PATH on COMM (nothing is opened) and silences HDF5's own
 * printing of errors: failures are reported by islandpso's messages. */
void h5u_init(struct h5u_file *f, MPI_Comm comm, const char *path);

/* Opens or creates the file (collective).
 * Prints nothing: on failure returns IPSO_ERR_RUNTIME with HDF5's reason in
 * WHY, for the caller to report as it sees fit. */
int h5u_open(struct h5u_file *f, enum h5u_mode mode, char *why, size_t len);

/* Closes the file (collective); every
 * object in it must be closed already. Reports a failure. */
int h5u_close(struct h5u_file *f);

/* The innermost message on HDF5's error stack (the most specific one), or
 * "no HDF5 error message" if it is empty. Call it right after the failed
 * call: the next HDF5 call clears the stack. */
void h5u_error_text(char *buf, size_t len);

/* "; directory 'DIR': No space left on device" in BUF when the file system
 * of PATH's directory has no space left, for a failure that MPI-IO reports
 * without a reason; "" otherwise. */
void h5u_full_note(const char *path, char *buf, size_t len);

/* Whether E is an errno value that explains a failed file access. */
int h5u_file_errno(int e);

/* Prints a verdict on the user's input once, from rank 0 (RANK is the
 * caller's): every rank reaches the same verdict. */
void h5u_user_error(int rank, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The directory part of PATH ("." for a bare file name). */
void h5u_directory(const char *path, char *dir, size_t len);

/* Whether a file can be created at PATH: 0 if its directory (named in DIR)
 * exists, is a directory and can be written and searched, else the errno
 * value that says why not. Callers word the verdict. */
int h5u_directory_error(const char *path, char *dir, size_t len);

/* Closes N identifiers of any kind (invalid ones are skipped). */
int h5u_close_ids(const struct h5u_file *f, int status, hid_t *ids, size_t n);

/* Creates dataset NAME in LOC of TYPE with RANK (0: scalar, 1 or 2) DIMS,
 * and its 'units' and 'description' attributes. CHUNK_ROWS > 0 makes it
 * extendible along the first dimension in chunks of that many rows;
 * otherwise it is contiguous and never pre-filled (every element is
 * written). Reports a failure and returns a negative identifier. */
hid_t h5u_create_dataset(const struct h5u_file *f, hid_t loc, const char *name, hid_t type,
                         int rank, const hsize_t *dims, hsize_t chunk_rows, const char *units,
                         const char *description);

/* A contiguous dataset as h5u_create_dataset makes it (never pre-filled),
 * with its storage allocated at once: its bytes have a place in the file
 * from the start (h5u_dataset_offset), to be written there by plain POSIX
 * I/O (checkpoint_async.c). Reports a failure and returns a negative
 * identifier. */
hid_t h5u_create_dataset_allocated(const struct h5u_file *f, hid_t loc, const char *name,
                                   hid_t type, int rank, const hsize_t *dims, const char *units,
                                   const char *description);

/* The byte offset in the file of the data of the contiguous, allocated
 * dataset DSET; reports a failure. */
int h5u_dataset_offset(const struct h5u_file *f, hid_t dset, uint64_t *offset);

/* Writes LEN bytes of BUF at offset AT of FD, through short writes and
 * EINTR; 0, or the errno of the failure (EIO for a write that makes no
 * progress). */
int h5u_pwrite_all(int fd, const void *buf, uint64_t len, uint64_t at);

/* Opens dataset NAME in LOC; reports a failure. */
hid_t h5u_open_dataset(const struct h5u_file *f, hid_t loc, const char *name);

/* Writes attribute NAME of OBJ (replacing one of that name): a scalar, or
 * an array of N elements; a string (UTF-8, fixed length). Collective,
 * with the same value on every rank. Report failures. */
int h5u_write_attr(const struct h5u_file *f, hid_t obj, const char *name, hid_t file_type,
                   hid_t mem_type, const void *value);
int h5u_write_attr_array(const struct h5u_file *f, hid_t obj, const char *name, hid_t file_type,
                         hid_t mem_type, hsize_t n, const void *values);
int h5u_write_attr_string(const struct h5u_file *f, hid_t obj, const char *name, const char *value);

/* Reads attribute NAME of OBJ, which must hold N elements (1 for a scalar),
 * converted to MEM_TYPE. Prints nothing; returns a negative value if it is
 * missing or of another kind. */
int h5u_read_attr(hid_t obj, const char *name, hid_t mem_type, hsize_t n, void *values);

/* The number of elements of attribute NAME of OBJ; -1 (nothing printed)
 * if it is missing. */
hssize_t h5u_attr_length(hid_t obj, const char *name);

/* Reads string attribute NAME of OBJ into a malloc'd string; NULL (and
 * nothing printed) if it is missing or not a string. */
char *h5u_read_attr_string(hid_t obj, const char *name);

/* Writes or reads the block at START of COUNT (rows, and columns for 2-D
 * datasets; a scalar dataset is all or nothing) of DSET from or to the
 * contiguous BUF. Collective: a rank with COUNT[0] = 0 takes part with an
 * empty selection. */
int h5u_write(const struct h5u_file *f, hid_t dset, hid_t mem_type, const hsize_t start[2],
              const hsize_t count[2], const void *buf);
int h5u_read(const struct h5u_file *f, hid_t dset, hid_t mem_type, const hsize_t start[2],
             const hsize_t count[2], void *buf);

/* Writes or reads every rank's block of ROWS rows (WIDTH elements each) of
 * DSET, [size * ROWS] or [size * ROWS, WIDTH]: rank r's rows are
 * r*ROWS .. (r+1)*ROWS - 1 and BUF holds them. Every rank calls it; large
 * blocks move in pieces. */
int h5u_write_island_rows(const struct h5u_file *f, hid_t dset, hid_t mem_type, int64_t rows,
                          int64_t width, const void *buf);
int h5u_read_island_rows(const struct h5u_file *f, hid_t dset, hid_t mem_type, int64_t rows,
                         int64_t width, void *buf);

#ifdef __cplusplus
}
#endif

#endif

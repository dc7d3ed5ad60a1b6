/* HDF5 helpers shared by the run output and the checkpoints: opening a file
 * with parallel HDF5, attributes, datasets and transfers of the rows that
 * ranks own. Every rank opens the file and takes part in every collective
 * call (collective transfers and metadata operations).
 *
 * Failures: a failed HDF5 call is reported with the path, the operation and
 * HDF5's message, and the function returns IPSO_ERR_RUNTIME at once, without
 * waiting for ranks that may be inside a collective call it skipped (that
 * could deadlock); main() turns it into MPI_Abort. Verdicts on the user's
 * input are reached where every rank passes and agreed with island_agree(),
 * so every rank returns the same IPSO_ERR_USAGE.
 *
 * Reads: HDF5 looks up the chunks of a chunked dataset independently on each
 * reading rank, so ranks reading different chunks end up with different
 * metadata caches and the next collective metadata access hangs. Every rank
 * therefore reads the same rows of a chunked dataset; rows per rank are read
 * from contiguous datasets only. */
#ifndef IPSO_H5UTIL_H
#define IPSO_H5UTIL_H

#include <errno.h>
#include <hdf5.h>
#include <stddef.h>

#include "island_mpi.h"

#ifndef H5_HAVE_PARALLEL
#error "islandpso needs an HDF5 built with parallel (MPI-IO) support"
#endif
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the checkpoints' threads write little-endian data: a little-endian host is needed"
#endif
/* So a native type (H5T_NATIVE_INT64) is the little-endian type of the file
 * (H5T_STD_I64LE) too: the writers below take one type for both. */

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

/* Closes the listed identifiers (invalid ones skipped); evaluates to STATUS,
 * or to IPSO_ERR_RUNTIME if a close failed. */
#define H5U_CLOSE(f, status, ...)                                                                  \
  h5u_close_ids((f), (status), (hid_t[]){__VA_ARGS__},                                             \
                sizeof((hid_t[]){__VA_ARGS__}) / sizeof(hid_t))

/* A negative return of CALL is a failure of the operation (printf format and
 * arguments) on the file PATH, reported by ipso_h5_fail. */
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

/* Prints a verdict on the user's input (from rank 0, where RANK is the
 * caller's); evaluates to IPSO_ERR_USAGE. */
#define H5U_USER_ERROR(rank, ...) ((rank) == 0 ? IPSO_USAGE(__VA_ARGS__) : IPSO_ERR_USAGE)

#ifdef __cplusplus
extern "C" {
#endif

/* Reports a failed HDF5 call (HDF5's message, and strerror(E) when E
 * explains a failed file access); IPSO_ERR_RUNTIME. */
int ipso_h5_fail(const char *path, int e, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Prepares F for PATH on COMM (nothing opened) and silences HDF5's own
 * printing of errors. */
void h5u_init(struct h5u_file *f, MPI_Comm comm, const char *path);

/* Opens or creates the file (collective). Prints nothing: on failure
 * IPSO_ERR_RUNTIME with HDF5's reason in WHY. */
int h5u_open(struct h5u_file *f, enum h5u_mode mode, char *why, size_t len);

/* Closes the file (collective; its objects closed already); reports a failure. */
int h5u_close(struct h5u_file *f);

/* The innermost message on HDF5's error stack, or "no HDF5 error message";
 * call it right after the failed call. */
void h5u_error_text(char *buf, size_t len);

/* Whether E is an errno value that explains a failed file access. */
int h5u_file_errno(int e);

/* Puts a reason to refuse the user's file into WHY; IPSO_ERR_USAGE. */
int h5u_reason(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The directory part of PATH ("." for a bare file name). */
void h5u_directory(const char *path, char *dir, size_t len);

/* 0 if the directory of PATH (into DIR) exists, is a directory and can be
 * written and searched, else the errno value that says why not. */
int h5u_directory_error(const char *path, char *dir, size_t len);

/* Closes N identifiers of any kind (invalid ones skipped); see H5U_CLOSE. */
int h5u_close_ids(const struct h5u_file *f, int status, hid_t *ids, size_t n);

/* Deletes link NAME of LOC, or attribute NAME of OBJ, if it exists. */
int h5u_delete_link(const struct h5u_file *f, hid_t loc, const char *name);
int h5u_delete_attr(const struct h5u_file *f, hid_t obj, const char *name);

/* Creates dataset NAME in LOC of TYPE with RANK (0: scalar, 1 or 2) DIMS and
 * its 'units' and 'description'. CHUNK_ROWS > 0 makes it extendible along
 * the first dimension in chunks of that many rows; otherwise it is
 * contiguous, never pre-filled, and its storage allocated at once, so that
 * its bytes have a place in the file (h5u_dataset_offset) for plain POSIX
 * writes. Negative after reporting a failure. */
hid_t h5u_create_dataset(const struct h5u_file *f, hid_t loc, const char *name, hid_t type,
                         int rank, const hsize_t *dims, hsize_t chunk_rows, const char *units,
                         const char *description);

/* A contiguous dataset of N elements (RANK 1) or a scalar (RANK 0) holding
 * VALUE, written by rank 0; the open dataset, or negative after reporting. */
hid_t h5u_write_dataset(const struct h5u_file *f, hid_t loc, const char *name, hid_t type, int rank,
                        hsize_t n, const void *value, const char *units, const char *description);

/* The byte offset in the file of the data of the allocated dataset DSET. */
int h5u_dataset_offset(const struct h5u_file *f, hid_t dset, uint64_t *offset);

/* Writes attribute NAME of OBJ (replacing one of that name): a scalar, an
 * array of N elements, or a UTF-8 string. Collective, the same value on
 * every rank. */
int h5u_write_attr(const struct h5u_file *f, hid_t obj, const char *name, hid_t type,
                   const void *value);
int h5u_write_attr_array(const struct h5u_file *f, hid_t obj, const char *name, hid_t type,
                         hsize_t n, const void *values);
int h5u_write_attr_string(const struct h5u_file *f, hid_t obj, const char *name, const char *value);

/* Reads attribute NAME of OBJ, which must hold N elements, as MEM_TYPE.
 * Prints nothing; negative if it is missing or of another kind. */
int h5u_read_attr(hid_t obj, const char *name, hid_t mem_type, hsize_t n, void *values);

/* The number of elements of attribute NAME of OBJ; -1 if it is missing. */
hssize_t h5u_attr_length(hid_t obj, const char *name);

/* String attribute NAME of OBJ, malloc'd; NULL if missing or not a string. */
char *h5u_read_attr_string(hid_t obj, const char *name);

/* Writes or reads the block at START of COUNT (rows, and columns of a 2-D
 * dataset; a scalar is all or nothing) of DSET from or to the contiguous
 * BUF. Collective: a rank with COUNT[0] = 0 takes part with nothing. */
int h5u_write(const struct h5u_file *f, hid_t dset, hid_t mem_type, const hsize_t start[2],
              const hsize_t count[2], const void *buf);
int h5u_read(const struct h5u_file *f, hid_t dset, hid_t mem_type, const hsize_t start[2],
             const hsize_t count[2], void *buf);

/* Writes or reads every rank's ROWS rows (WIDTH elements each) of DSET:
 * rank r's are r*ROWS .. (r+1)*ROWS - 1, in BUF. Large blocks move in pieces. */
int h5u_write_island_rows(const struct h5u_file *f, hid_t dset, hid_t mem_type, int64_t rows,
                          int64_t width, const void *buf);
int h5u_read_island_rows(const struct h5u_file *f, hid_t dset, hid_t mem_type, int64_t rows,
                         int64_t width, void *buf);

#ifdef __cplusplus
}
#endif

#endif

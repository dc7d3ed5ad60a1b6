/* The HDF5 helpers of h5util.h: files, failures reported with HDF5's own
 * message, attributes, datasets and transfers of the rows ranks own. */
#include "h5util.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* H5Pset_file_locking exists from HDF5 1.10.7 in the 1.10 series and 1.12.1. */
#if (H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 10 && H5_VERS_RELEASE >= 7) || H5_VERSION_GE(1, 12, 1)
#define H5U_HAVE_FILE_LOCKING 1
#else
#define H5U_HAVE_FILE_LOCKING 0
#endif

/* Bytes one transfer of island rows moves: keeps MPI-IO requests well below
 * 2 GiB. */
#define H5U_PIECE_BYTES (INT64_C(256) << 20)

struct h5u_text {
  char *buf;
  size_t len;
};

/* Keeps the first entry of an upward walk: the innermost, most specific. */
static herr_t h5u_first_error(unsigned n, const H5E_error2_t *err, void *data)
{
  struct h5u_text *t = data;
  if (n == 0 && err->desc) snprintf(t->buf, t->len, "%s", err->desc);
  return 0;
}

void h5u_error_text(char *buf, size_t len)
{
  struct h5u_text t = {buf, len};
  if (len == 0) return;
  buf[0] = '\0';
  if (H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, h5u_first_error, &t) < 0 || buf[0] == '\0')
    snprintf(buf, len, "no HDF5 error message");
  /* HDF5 puts line breaks in some messages; keep ours on one line. */
  for (char *c = buf; *c; c++)
    if (*c == '\n') *c = ' ';
}

int h5u_file_errno(int e)
{
  return e == ENOSPC || e == EDQUOT || e == EROFS || e == EIO || e == EFBIG || e == EACCES ||
         e == ENOTDIR || e == ESTALE;
}

/* "; directory 'DIR': No space left on device" when PATH's file system is
 * full, for a failure that MPI-IO reports without a reason; "" otherwise. */
static void h5u_full_note(const char *path, char *buf, size_t len)
{
  char dir[IPSO_PATH_MAX];
  struct statvfs vfs;
  if (len) buf[0] = '\0';
  h5u_directory(path, dir, sizeof dir);
  if (statvfs(dir, &vfs) == 0 && vfs.f_bavail == 0)
    snprintf(buf, len, "; directory '%s': %s", dir, strerror(ENOSPC));
}

int ipso_h5_fail(const char *path, int e, const char *file, int line, const char *fmt, ...)
{
  char hdf5[1024], what[1024], full[IPSO_PATH_MAX + 64] = "";
  va_list ap;
  h5u_error_text(hdf5, sizeof hdf5);
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (h5u_file_errno(e)) {
    log_fail("hdf5", file, line, "'%s': %s failed: %s (%s)", path, what, strerror(e), hdf5);
  } else {
    h5u_full_note(path, full, sizeof full);
    log_fail("hdf5", file, line, "'%s': %s failed: %s%s", path, what, hdf5, full);
  }
  H5Eclear2(H5E_DEFAULT);
  return IPSO_ERR_RUNTIME;
}

int h5u_reason(char *why, size_t len, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, len, fmt, ap);
  va_end(ap);
  return IPSO_ERR_USAGE;
}

void h5u_directory(const char *path, char *dir, size_t len)
{
  const char *slash = strrchr(path, '/');
  if (!slash)
    snprintf(dir, len, ".");
  else if (slash == path)
    snprintf(dir, len, "/");
  else
    snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

int h5u_directory_error(const char *path, char *dir, size_t len)
{
  struct stat sb;
  h5u_directory(path, dir, len);
  if (stat(dir, &sb) != 0) return errno;
  if (!S_ISDIR(sb.st_mode)) return ENOTDIR;
  if (access(dir, W_OK | X_OK) != 0) return errno;
  return 0;
}

void h5u_init(struct h5u_file *f, MPI_Comm comm, const char *path)
{
  memset(f, 0, sizeof *f);
  f->comm = comm;
  MPI_Comm_rank(comm, &f->rank);
  MPI_Comm_size(comm, &f->size);
  f->id = f->dxpl = H5I_INVALID_HID;
  snprintf(f->path, sizeof f->path, "%s", path);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

int h5u_open(struct h5u_file *f, enum h5u_mode mode, char *why, size_t len)
{
  const unsigned flags[] = {H5F_ACC_EXCL, H5F_ACC_TRUNC, H5F_ACC_RDONLY, H5F_ACC_RDWR};
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (len > 0) why[0] = '\0';
  /* MPI-IO with collective metadata operations, the 1.8 format or later
   * (attributes over 64 KiB, such as a long config, need it), and file
   * locking that gives way on file systems without locks. */
  int ok = fapl >= 0 && H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST) >= 0 &&
           H5Pset_fapl_mpio(fapl, f->comm, MPI_INFO_NULL) >= 0 &&
           H5Pset_all_coll_metadata_ops(fapl, 1) >= 0 && H5Pset_coll_metadata_write(fapl, 1) >= 0;
#if H5U_HAVE_FILE_LOCKING
  ok = ok && H5Pset_file_locking(fapl, 1, 1) >= 0;
#endif
  if (ok)
    f->id = mode <= H5U_REPLACE ? H5Fcreate(f->path, flags[mode], H5P_DEFAULT, fapl)
                                : H5Fopen(f->path, flags[mode], fapl);
  ok = ok && f->id >= 0 && (f->dxpl = H5Pcreate(H5P_DATASET_XFER)) >= 0 &&
       H5Pset_dxpl_mpio(f->dxpl, H5FD_MPIO_COLLECTIVE) >= 0;
  /* HDF5's reason before the next call clears it. */
  if (!ok) h5u_error_text(why, len);
  if (fapl >= 0 && H5Pclose(fapl) < 0 && ok) {
    h5u_error_text(why, len);
    ok = 0;
  }
  if (ok) return IPSO_OK;
  if (f->dxpl >= 0) H5Pclose(f->dxpl);
  if (f->id >= 0) H5Fclose(f->id);
  f->id = f->dxpl = H5I_INVALID_HID;
  return IPSO_ERR_RUNTIME;
}

int h5u_close(struct h5u_file *f)
{
  int st = IPSO_OK;
  if (f->dxpl >= 0 && H5Pclose(f->dxpl) < 0)
    st = ipso_h5_fail(f->path, 0, __FILE__, __LINE__, "closing the transfer properties");
  errno = 0;
  if (f->id >= 0 && H5Fclose(f->id) < 0)
    st = ipso_h5_fail(f->path, errno, __FILE__, __LINE__, "closing the file");
  f->dxpl = f->id = H5I_INVALID_HID;
  return st;
}

int h5u_close_ids(const struct h5u_file *f, int status, hid_t *ids, size_t n)
{
  /* Dropping an identifier's only reference closes it, whatever its kind. */
  for (size_t i = 0; i < n; i++)
    if (ids[i] >= 0 && H5Idec_ref(ids[i]) < 0)
      status = ipso_h5_fail(f->path, 0, __FILE__, __LINE__, "closing an HDF5 object");
  return status;
}

int h5u_delete_link(const struct h5u_file *f, hid_t loc, const char *name)
{
  htri_t exists;
  IPSO_CHECK_H5(f->path, exists = H5Lexists(loc, name, H5P_DEFAULT), "looking up /%s", name);
  if (exists) IPSO_CHECK_H5(f->path, H5Ldelete(loc, name, H5P_DEFAULT), "deleting /%s", name);
  return IPSO_OK;
}

int h5u_delete_attr(const struct h5u_file *f, hid_t obj, const char *name)
{
  htri_t exists;
  IPSO_CHECK_H5(f->path, exists = H5Aexists(obj, name), "looking up attribute '%s'", name);
  if (exists) IPSO_CHECK_H5(f->path, H5Adelete(obj, name), "deleting attribute '%s'", name);
  return IPSO_OK;
}

/* The path of an open object in its file, for messages. */
static void h5u_object_name(hid_t obj, char *buf, size_t len)
{
  if (H5Iget_name(obj, buf, len) <= 0) snprintf(buf, len, "(unnamed object)");
}

/* Writes attribute NAME of OBJ: a scalar (RANK 0) or N elements. */
static int h5u_attr(const struct h5u_file *f, hid_t obj, const char *name, hid_t type, int rank,
                    hsize_t n, const void *value)
{
  hid_t space = H5I_INVALID_HID, attr = H5I_INVALID_HID;
  int st = h5u_delete_attr(f, obj, name);
  if (st != IPSO_OK) return st;
  st = IPSO_ERR_RUNTIME;
  IPSO_CHECK_H5_GOTO(f->path, space = rank ? H5Screate_simple(1, &n, NULL) : H5Screate(H5S_SCALAR),
                     st, done, "creating the dataspace of attribute '%s'", name);
  IPSO_CHECK_H5_GOTO(f->path, attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT),
                     st, done, "creating attribute '%s'", name);
  IPSO_CHECK_H5_GOTO(f->path, H5Awrite(attr, type, value), st, done, "writing attribute '%s'",
                     name);
  st = IPSO_OK;
done:
  return H5U_CLOSE(f, st, attr, space);
}

int h5u_write_attr(const struct h5u_file *f, hid_t obj, const char *name, hid_t type,
                   const void *value)
{
  return h5u_attr(f, obj, name, type, 0, 1, value);
}

int h5u_write_attr_array(const struct h5u_file *f, hid_t obj, const char *name, hid_t type,
                         hsize_t n, const void *values)
{
  return h5u_attr(f, obj, name, type, 1, n, values);
}

int h5u_write_attr_string(const struct h5u_file *f, hid_t obj, const char *name, const char *value)
{
  hid_t type = H5I_INVALID_HID;
  int st = IPSO_ERR_RUNTIME;
  if (!value) value = "";
  IPSO_CHECK_H5_GOTO(f->path, type = H5Tcopy(H5T_C_S1), st, done,
                     "creating the string type of attribute '%s'", name);
  IPSO_CHECK_H5_GOTO(f->path, H5Tset_size(type, strlen(value) + 1), st, done,
                     "sizing attribute '%s'", name);
  IPSO_CHECK_H5_GOTO(f->path, H5Tset_cset(type, H5T_CSET_UTF8), st, done,
                     "setting the character set of attribute '%s'", name);
  st = h5u_write_attr(f, obj, name, type, value);
done:
  return H5U_CLOSE(f, st, type);
}

/* Opens attribute NAME of OBJ with its dataspace and type (nothing printed);
 * negative if it is missing. */
static hid_t h5u_attr_open(hid_t obj, const char *name, hid_t *space, hid_t *type)
{
  hid_t attr;
  *space = *type = H5I_INVALID_HID;
  if (H5Aexists(obj, name) <= 0 || (attr = H5Aopen(obj, name, H5P_DEFAULT)) < 0)
    return H5I_INVALID_HID;
  *space = H5Aget_space(attr);
  *type = H5Aget_type(attr);
  return attr;
}

/* Closes what h5u_attr_open opened, quietly. */
static void h5u_attr_done(hid_t attr, hid_t space, hid_t type)
{
  hid_t ids[3] = {type, space, attr};
  for (int i = 0; i < 3; i++)
    if (ids[i] >= 0) H5Idec_ref(ids[i]);
}

int h5u_read_attr(hid_t obj, const char *name, hid_t mem_type, hsize_t n, void *values)
{
  hid_t space, type, attr = h5u_attr_open(obj, name, &space, &type);
  int rc = -1;
  if (attr < 0) return -1;
  if (space >= 0 && type >= 0 && H5Sget_simple_extent_npoints(space) == (hssize_t)n &&
      H5Tget_class(type) == H5Tget_class(mem_type) && H5Aread(attr, mem_type, values) >= 0)
    rc = 0;
  h5u_attr_done(attr, space, type);
  return rc;
}

hssize_t h5u_attr_length(hid_t obj, const char *name)
{
  hid_t space, type, attr = h5u_attr_open(obj, name, &space, &type);
  hssize_t n = attr >= 0 && space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
  if (attr >= 0) h5u_attr_done(attr, space, type);
  return n;
}

char *h5u_read_attr_string(hid_t obj, const char *name)
{
  hid_t space, type, attr = h5u_attr_open(obj, name, &space, &type);
  char *s = NULL;
  if (attr < 0) return NULL;
  /* Read as stored (HDF5 does not convert between ASCII and UTF-8), then
   * terminated here. */
  size_t size = type >= 0 ? H5Tget_size(type) : 0;
  if (space >= 0 && size > 0 && H5Sget_simple_extent_npoints(space) == 1 &&
      H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) == 0)
    s = malloc(size + 1);
  if (s && H5Aread(attr, type, s) < 0) {
    free(s);
    s = NULL;
  }
  if (s) s[size] = '\0';
  h5u_attr_done(attr, space, type);
  return s;
}

hid_t h5u_create_dataset(const struct h5u_file *f, hid_t loc, const char *name, hid_t type,
                         int rank, const hsize_t *dims, hsize_t chunk_rows, const char *units,
                         const char *description)
{
  hid_t space = H5I_INVALID_HID, dcpl = H5I_INVALID_HID, dset = H5I_INVALID_HID;
  hsize_t maxdims[2] = {0, 0}, chunk[2] = {0, 0};
  int st = IPSO_ERR_RUNTIME;
  for (int d = 0; d < rank; d++) maxdims[d] = chunk[d] = dims[d];
  if (chunk_rows > 0) {
    maxdims[0] = H5S_UNLIMITED;
    chunk[0] = chunk_rows;
  }
  IPSO_CHECK_H5_GOTO(f->path,
                     space = rank ? H5Screate_simple(rank, dims, maxdims) : H5Screate(H5S_SCALAR),
                     st, done, "creating the dataspace of %s", name);
  IPSO_CHECK_H5_GOTO(f->path, dcpl = H5Pcreate(H5P_DATASET_CREATE), st, done,
                     "creating the properties of %s", name);
  if (rank > 0 && chunk_rows > 0) {
    IPSO_CHECK_H5_GOTO(f->path, H5Pset_chunk(dcpl, rank, chunk), st, done, "chunking %s", name);
  } else {
    IPSO_CHECK_H5_GOTO(f->path, H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), st, done,
                       "setting the fill time of %s", name);
    IPSO_CHECK_H5_GOTO(f->path, H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY), st, done,
                       "setting the allocation time of %s", name);
  }
  IPSO_CHECK_H5_GOTO(f->path,
                     dset = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT), st,
                     done, "creating dataset %s", name);
  if (h5u_write_attr_string(f, dset, "units", units) != IPSO_OK ||
      h5u_write_attr_string(f, dset, "description", description) != IPSO_OK)
    goto done;
  st = IPSO_OK;
done:
  st = H5U_CLOSE(f, st, space, dcpl);
  if (st != IPSO_OK) {
    H5U_CLOSE(f, st, dset);
    return H5I_INVALID_HID;
  }
  return dset;
}

hid_t h5u_write_dataset(const struct h5u_file *f, hid_t loc, const char *name, hid_t type, int rank,
                        hsize_t n, const void *value, const char *units, const char *description)
{
  hsize_t start[2] = {0, 0}, count[2] = {f->rank != 0 ? 0 : rank ? n : 1, 0};
  hid_t dset = h5u_create_dataset(f, loc, name, type, rank, &n, 0, units, description);
  if (dset >= 0 && h5u_write(f, dset, type, start, count, value) != IPSO_OK) {
    H5U_CLOSE(f, IPSO_OK, dset);
    return H5I_INVALID_HID;
  }
  return dset;
}

int h5u_dataset_offset(const struct h5u_file *f, hid_t dset, uint64_t *offset)
{
  char name[256];
  haddr_t at = H5Dget_offset(dset);
  if (at != HADDR_UNDEF) {
    *offset = (uint64_t)at;
    return IPSO_OK;
  }
  h5u_object_name(dset, name, sizeof name);
  return ipso_h5_fail(f->path, 0, __FILE__, __LINE__, "locating the data of %s", name);
}

/* Moves the block START/COUNT of DSET to or from the contiguous BUF.
 * COUNT[0] = 0 selects nothing; a scalar dataset is selected whole otherwise. */
static int h5u_transfer(const struct h5u_file *f, hid_t dset, hid_t mem_type, const hsize_t *start,
                        const hsize_t *count, void *buf, int write)
{
  hid_t fspace = H5I_INVALID_HID, mspace = H5I_INVALID_HID;
  char name[256];
  double empty = 0; /* HDF5 wants a buffer even for an empty selection */
  hsize_t n = 1;
  hssize_t points;
  int ndims, st = IPSO_ERR_RUNTIME;
  h5u_object_name(dset, name, sizeof name);
  IPSO_CHECK_H5_GOTO(f->path, fspace = H5Dget_space(dset), st, done, "getting the dataspace of %s",
                     name);
  IPSO_CHECK_H5_GOTO(f->path, ndims = H5Sget_simple_extent_ndims(fspace), st, done,
                     "getting the rank of %s", name);
  IPSO_CHECK_H5_GOTO(f->path, points = H5Sget_simple_extent_npoints(fspace), st, done,
                     "getting the size of %s", name);
  if (points == 0) {
    /* An empty dataset has no storage to transfer to (every rank sees it). */
    st = IPSO_OK;
    goto done;
  }
  for (int d = 0; d < ndims; d++) n *= count[d];
  if (count[0] == 0) {
    n = 0;
    IPSO_CHECK_H5_GOTO(f->path, H5Sselect_none(fspace), st, done, "selecting nothing in %s", name);
  } else if (ndims > 0) {
    IPSO_CHECK_H5_GOTO(f->path,
                       H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL), st,
                       done, "selecting rows of %s", name);
  }
  /* The memory in the selection's shape for a block of 2-D rows: HDF5 then
   * copies it whole, where a 1-D memory space took its slow path. */
  hsize_t mdims[2] = {n > 0 ? n : 1, 1};
  int mrank = 1;
  if (n > 0 && ndims == 2) {
    mdims[0] = count[0];
    mdims[1] = count[1];
    mrank = 2;
  }
  IPSO_CHECK_H5_GOTO(f->path, mspace = H5Screate_simple(mrank, mdims, NULL), st, done,
                     "creating a memory dataspace for %s", name);
  if (n == 0) {
    IPSO_CHECK_H5_GOTO(f->path, H5Sselect_none(mspace), st, done,
                       "selecting nothing in memory for %s", name);
    buf = &empty;
  }
  if (write)
    IPSO_CHECK_H5_GOTO(f->path, H5Dwrite(dset, mem_type, mspace, fspace, f->dxpl, buf), st, done,
                       "writing %s", name);
  else
    IPSO_CHECK_H5_GOTO(f->path, H5Dread(dset, mem_type, mspace, fspace, f->dxpl, buf), st, done,
                       "reading %s", name);
  st = IPSO_OK;
done:
  return H5U_CLOSE(f, st, mspace, fspace);
}

int h5u_write(const struct h5u_file *f, hid_t dset, hid_t mem_type, const hsize_t start[2],
              const hsize_t count[2], const void *buf)
{
  return h5u_transfer(f, dset, mem_type, start, count, (void *)buf, 1);
}

int h5u_read(const struct h5u_file *f, hid_t dset, hid_t mem_type, const hsize_t start[2],
             const hsize_t count[2], void *buf)
{
  return h5u_transfer(f, dset, mem_type, start, count, buf, 0);
}

/* Moves every rank's ROWS x WIDTH block, each rank its own, collectively, in
 * pieces of about H5U_PIECE_BYTES. */
static int h5u_island_rows(const struct h5u_file *f, hid_t dset, hid_t mem_type, int64_t rows,
                           int64_t width, char *buf, int write)
{
  size_t esize = H5Tget_size(mem_type);
  int64_t row_bytes = width * (int64_t)esize;
  if (esize == 0 || row_bytes <= 0)
    return IPSO_FAIL("hdf5", "'%s': rows of %" PRId64 " elements cannot be moved", f->path, width);
  int64_t piece = H5U_PIECE_BYTES / row_bytes;
  if (piece < 1) piece = 1;
  for (int64_t off = 0; off < rows; off += piece) {
    hsize_t start[2] = {(hsize_t)(f->rank * rows + off), 0};
    hsize_t count[2] = {(hsize_t)(rows - off < piece ? rows - off : piece), (hsize_t)width};
    IPSO_TRY(h5u_transfer(f, dset, mem_type, start, count, buf + off * row_bytes, write));
  }
  return IPSO_OK;
}

int h5u_write_island_rows(const struct h5u_file *f, hid_t dset, hid_t mem_type, int64_t rows,
                          int64_t width, const void *buf)
{
  return h5u_island_rows(f, dset, mem_type, rows, width, (char *)buf, 1);
}

int h5u_read_island_rows(const struct h5u_file *f, hid_t dset, hid_t mem_type, int64_t rows,
                         int64_t width, void *buf)
{
  return h5u_island_rows(f, dset, mem_type, rows, width, buf, 0);
}

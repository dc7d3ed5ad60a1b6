/* Reads one function's CEC 2017 data from the packed HDF5 file
 * (tools/cec2017_pack.py): /FNN/DDD/shift, /FNN/DDD/rotation,
 * /FNN/DDD/shuffle, checking the format version, each dataset's type and
 * shape against what the function uses, that the numbers are finite and
 * that each shuffle is a permutation. */
#include "cec2017_data.h"

#include <limits.h>
#include <unistd.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "h5util.h"

#define IPSO_REAL double
#define IPSO_FN(name) cec2017_data_##name
#include "cec2017.h"

static int fail(struct cec2017_host_data *out, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(out->error, sizeof out->error, fmt, ap);
  va_end(ap);
  return -1;
}

/* "[a, b, c]" of the first RANK of DIMS into BUF. */
static const char *format_shape(char buf[64], int rank, const hsize_t *dims)
{
  int at = snprintf(buf, 64, "[");
  for (int d = 0; d < rank && at < 64; d++)
    at += snprintf(buf + at, 64 - (size_t)at, "%s%llu", d ? ", " : "", (unsigned long long)dims[d]);
  if (at < 64) snprintf(buf + at, 64 - (size_t)at, "]");
  return buf;
}

/* Reads the dataset name of group g into buf (class cls, as double),
 * checking its rank and dimensions against dims[rank]. */
static int read_dataset(struct cec2017_host_data *out, const char *path, hid_t g, const char *where,
                        const char *name, H5T_class_t cls, int rank, const hsize_t *dims,
                        double *buf)
{
  if (H5Lexists(g, name, H5P_DEFAULT) <= 0)
    return fail(out, "%s: %s/%s is missing", path, where, name);
  hid_t ds = H5Dopen2(g, name, H5P_DEFAULT);
  if (ds < 0) return fail(out, "%s: cannot open dataset %s/%s", path, where, name);
  int rc = -1;
  hid_t type = H5Dget_type(ds), space = H5Dget_space(ds);
  hsize_t have[3] = {0, 0, 0};
  int r = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
  if (type < 0 || space < 0 || r < 0) {
    fail(out, "%s: %s/%s: cannot read its type or shape", path, where, name);
  } else if (H5Tget_class(type) != cls) {
    fail(out, "%s: %s/%s is not %s", path, where, name,
         cls == H5T_FLOAT ? "floating-point" : "integer");
  } else if (r != rank || H5Sget_simple_extent_dims(space, have, NULL) != rank ||
             memcmp(have, dims, (size_t)rank * sizeof *dims) != 0) {
    char want[64], got[64];
    if (r >= 1 && r <= 3)
      format_shape(got, r, have);
    else
      snprintf(got, sizeof got, "rank %d", r);
    fail(out, "%s: %s/%s has shape %s, expected %s", path, where, name, got,
         format_shape(want, rank, dims));
  } else if (H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
    fail(out, "%s: %s/%s: cannot read its data (damaged file?)", path, where, name);
  } else {
    rc = 0;
  }
  if (space >= 0) H5Sclose(space);
  if (type >= 0) H5Tclose(type);
  H5Dclose(ds);
  return rc;
}

/* Whether each of the NSHUFFLE rows of D in SHUFFLE is a permutation of 0..D-1. */
static int check_shuffle(struct cec2017_host_data *out, const char *path, const char *where)
{
  unsigned char seen[256];
  const int D = out->D;
  if (D > (int)sizeof seen) return fail(out, "%s: D = %d too large", path, D);
  for (int b = 0; b < out->nshuffle; b++) {
    const double *p = out->shuffle + (size_t)b * (size_t)D;
    memset(seen, 0, sizeof seen);
    for (int i = 0; i < D; i++)
      if (!(p[i] >= 0 && p[i] < D) || seen[(int)p[i]]++)
        return fail(out, "%s: %s/shuffle row %d is not a permutation of 0..%d (element %d is %g)",
                    path, where, b, D - 1, i, p[i]);
  }
  return 0;
}

static int load(const char *path, int fn, int D, struct cec2017_host_data *out, hid_t file)
{
  int version = 0;
  if (H5Aexists(file, "format_version") <= 0)
    return fail(out, "%s: no format_version attribute (not a file of tools/cec2017_pack.py?)",
                path);
  if (h5u_read_attr(file, "format_version", H5T_NATIVE_INT, 1, &version) != 0)
    return fail(out, "%s: cannot read the format_version attribute", path);
  if (version != CEC2017_DATA_FORMAT_VERSION)
    return fail(out, "%s: format_version %d, this reader knows %d", path, version,
                CEC2017_DATA_FORMAT_VERSION);

  char where[32], top[8];
  snprintf(where, sizeof where, "/F%02d/D%d", fn, D);
  snprintf(top, sizeof top, "/F%02d", fn);
  if (H5Lexists(file, top, H5P_DEFAULT) <= 0)
    return fail(out, "%s: group %s (F%d) is missing", path, top, fn);
  if (H5Lexists(file, where, H5P_DEFAULT) <= 0)
    return fail(out, "%s: group %s (F%d, D = %d) is missing", path, where, fn, D);
  hid_t g = H5Gopen2(file, where, H5P_DEFAULT);
  if (g < 0) return fail(out, "%s: cannot open group %s", path, where);

  const hsize_t nd = (hsize_t)D;
  const struct {
    const char *name;
    int n, rank;
    H5T_class_t cls;
    double **buf;
  } arrays[3] = {{"shift", out->nshift, 2, H5T_FLOAT, &out->shift},
                 {"rotation", out->nrot, 3, H5T_FLOAT, &out->rotation},
                 {"shuffle", out->nshuffle, 2, H5T_INTEGER, &out->shuffle}};
  int rc = 0;
  for (int i = 0; i < 3 && rc == 0; i++) {
    const hsize_t dims[3] = {(hsize_t)arrays[i].n, nd, nd};
    const size_t n = (size_t)arrays[i].n * nd * (arrays[i].rank == 3 ? nd : 1);
    if (i > 0 && arrays[i].n == 0) continue; /* every function has shifts */
    if (!(*arrays[i].buf = malloc((n ? n : 1) * sizeof(double))))
      rc = fail(out, "%s: out of memory for %s", path, where);
    else if ((rc = read_dataset(out, path, g, where, arrays[i].name, arrays[i].cls, arrays[i].rank,
                                dims, *arrays[i].buf)) != 0)
      break;
    for (size_t k = 0; rc == 0 && arrays[i].cls == H5T_FLOAT && k < n; k++)
      if (!isfinite((*arrays[i].buf)[k]))
        rc = fail(out, "%s: %s/%s: element %zu is not finite", path, where, arrays[i].name, k);
  }
  if (rc == 0 && out->nshuffle) rc = check_shuffle(out, path, where);
  H5Gclose(g);
  return rc;
}

int cec2017_data_load(const char *path, int fn, int D, struct cec2017_host_data *out)
{
  memset(out, 0, sizeof *out);
  out->fn = fn, out->D = D;
  if (fn < 1 || fn > 30 || cec2017_table[fn].kind == CEC2017_KIND_NONE)
    return fail(out, "CEC 2017: no function F%d (the suite has F1 and F3..F30)", fn);
  out->nshift = cec2017_table[fn].nshift;
  out->nrot = cec2017_table[fn].nrot;
  out->nshuffle = cec2017_table[fn].nshuffle;
  if (D != 10 && D != 30 && D != 50 && D != 100)
    return fail(out, "CEC 2017: no data for D = %d (the suite has D = 10, 30, 50, 100)", D);
  if (!path || !*path) return fail(out, "CEC 2017: no data file given");

  /* Our messages instead of HDF5's error stack on stderr. */
  H5E_auto2_t efunc;
  void *edata;
  H5Eget_auto2(H5E_DEFAULT, &efunc, &edata);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);

  int rc = -1;
  FILE *probe = fopen(path, "rb");
  if (!probe) {
    fail(out, "%s: cannot open the CEC 2017 data file", path);
  } else {
    fclose(probe);
    htri_t is = H5Fis_hdf5(path);
    hid_t file = is > 0 ? H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT) : -1;
    if (is <= 0)
      fail(out, "%s: not an HDF5 file", path);
    else if (file < 0)
      fail(out, "%s: HDF5 cannot open it (damaged?)", path);
    else {
      rc = load(path, fn, D, out, file);
      H5Fclose(file);
    }
  }
  H5Eset_auto2(H5E_DEFAULT, efunc, edata);
  if (rc) cec2017_data_free(out); /* keeps out->error */
  return rc;
}

void cec2017_data_free(struct cec2017_host_data *d)
{
  if (!d) return;
  free(d->shift);
  free(d->rotation);
  free(d->shuffle);
  d->shift = d->rotation = d->shuffle = NULL;
}

/* The function's number and arrays one after the other in a malloc'd
 * vector of *N doubles (what cec2017_packed of src/problem/cec2017.h
 * takes); NULL when memory runs out. */
static double *cec2017_data_packed(const struct cec2017_host_data *d, int64_t *n)
{
  size_t D = (size_t)d->D, ns = (size_t)d->nshift * D, nr = (size_t)d->nrot * D * D,
         nq = (size_t)d->nshuffle * D;
  double *v = malloc((1 + ns + nr + nq) * sizeof *v);
  if (!v) return NULL;
  v[0] = d->fn;
  if (ns) memcpy(v + 1, d->shift, ns * sizeof *v);
  if (nr) memcpy(v + 1 + ns, d->rotation, nr * sizeof *v);
  if (nq) memcpy(v + 1 + ns + nr, d->shuffle, nq * sizeof *v);
  *n = (int64_t)(1 + ns + nr + nq);
  return v;
}

int cec2017_data_for(const struct ipso_config *cfg, int rank, double **v, int64_t *n)
{
  char exe[PATH_MAX], path[2][PATH_MAX + 64];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[len > 0 ? len : 0] = '\0';
  char *slash = strrchr(exe, '/');
  if (slash) *slash = '\0';
  snprintf(path[0], sizeof path[0], "%s/cec2017.h5", exe);
  snprintf(path[1], sizeof path[1], "%s/../share/islandpso/cec2017.h5", exe);
  int at = access(path[0], F_OK) == 0 ? 0 : access(path[1], F_OK) == 0 ? 1 : -1;
  if (at < 0)
    return H5U_USER_ERROR(rank,
                          "islandpso: error: the CEC 2017 data file is missing: neither '%s' nor "
                          "'%s' exists (a build puts it beside the binary, an installation in "
                          "share/islandpso)",
                          path[0], path[1]);
  struct cec2017_host_data d;
  if (cec2017_data_load(path[at], cfg->objective.number, cfg->objective.dimensions, &d) != 0)
    return H5U_USER_ERROR(rank, "islandpso: error: %s", d.error);
  *v = cec2017_data_packed(&d, n);
  cec2017_data_free(&d);
  return *v ? IPSO_OK : IPSO_FAIL("memory", "out of memory for the CEC 2017 data");
}

/* Continuing the run's HDF5 file on a restart. First the output is checked
 * against the checkpoint (checkpoint_check_output): the rows it holds up to
 * the checkpoint's iteration must be those the checkpoint counts, so that
 * continuing leaves no gap and splices in no other run's rows. Then
 * h5out_reopen judges the file read-only and removes what was written after
 * the checkpoint's iteration (history rows, migration rows, snapshots, the
 * result and 'finished'). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint.h"
#include "checkpoint_internal.h"
#include "h5out_internal.h"

/* Migration rows a restart examines at a time (24 bytes each). */
#define H5OUT_MIGRATION_PIECE (INT64_C(1) << 20)

/* Rank 0's verdict on continuing the output PATH: an existing regular file
 * that can be read and written. */
static int output_continuable(const char *path)
{
  struct stat sb;
  const char *why = NULL;
  if (stat(path, &sb) != 0)
    why = strerror(errno);
  else if (!S_ISREG(sb.st_mode))
    why = "not a regular file";
  else if (access(path, R_OK | W_OK) != 0)
    why = strerror(errno);
  return why ? IPSO_USAGE("islandpso: error: output '%s' cannot be continued: %s", path, why)
             : IPSO_OK;
}

/* Opens the datasets of an existing output and checks that it was written
 * by as many islands (writers). IPSO_ERR_USAGE if it is not such a file. */
static int h5out_open_layout(struct h5out *h)
{
  struct h5u_file *f = &h->f;
  hid_t space = H5I_INVALID_HID;
  hsize_t dims[2] = {0, 0};
  int islands = -1;
  if (h5u_read_attr(f->id, "islands", H5T_NATIVE_INT, 1, &islands) < 0)
    return H5U_USER_ERROR(f->rank,
                          "islandpso: error: output '%s' is not an islandpso output (no "
                          "'islands' attribute)",
                          f->path);
  if (islands != h->islands)
    return H5U_USER_ERROR(
        f->rank, "islandpso: error: output '%s' was written by %d islands; this run has %d",
        f->path, islands, h->islands);
  for (int c = 0; c <= HIST_COLUMNS; c++) {
    const char *name = c < HIST_COLUMNS ? history_specs[c].name : "migrations";
    hid_t dset = H5Dopen2(f->id, name, H5P_DEFAULT);
    if (dset < 0)
      return H5U_USER_ERROR(
          f->rank,
          "islandpso: error: output '%s' has no dataset /%s (not an islandpso output, or damaged)",
          f->path, name);
    if (c < HIST_COLUMNS)
      h->history[c] = dset;
    else
      h->migrations = dset;
  }
  space = H5Dget_space(h->history[HIST_ISLAND_BEST]);
  if (space < 0 || H5Sget_simple_extent_ndims(space) != 2 ||
      H5Sget_simple_extent_dims(space, dims, NULL) < 0 || dims[1] != (hsize_t)h->islands) {
    if (space >= 0) H5Sclose(space);
    return H5U_USER_ERROR(
        f->rank, "islandpso: error: output '%s': /history/island_best does not have %d columns",
        f->path, h->islands);
  }
  IPSO_CHECK_H5(f->path, H5Sclose(space), "closing a dataspace");
  h->migration_type = h5out_migration_type(f);
  return h->migration_type < 0 ? IPSO_ERR_RUNTIME : IPSO_OK;
}

/* The number of rows of DSET (writers). */
static int h5out_rows(const struct h5u_file *f, hid_t dset, int64_t *rows)
{
  hid_t space = H5I_INVALID_HID;
  hsize_t dims[2] = {0, 0};
  int st = IPSO_ERR_RUNTIME;
  IPSO_CHECK_H5_GOTO(f->path, space = H5Dget_space(dset), st, done, "getting a dataspace");
  IPSO_CHECK_H5_GOTO(f->path, H5Sget_simple_extent_dims(space, dims, NULL), st, done,
                     "getting the extent of a dataset");
  *rows = (int64_t)dims[0];
  st = IPSO_OK;
done:
  return H5U_CLOSE(f, st, space);
}

/* Shrinks the histories to the rows up to ITERATION: the longest prefix of
 * strictly increasing iterations not above it (rows a crash left half
 * written end the prefix). A row at ITERATION itself stays, whatever the
 * history interval (a run's closing row, or one of another interval): the
 * continued run never writes it again. Every rank reads the iterations,
 * so that all make the same metadata accesses. */
static int h5out_truncate_history(struct h5out *h, int64_t iteration)
{
  struct h5u_file *f = &h->f;
  int64_t rows = 0, keep = 0, *its = NULL;
  int st = IPSO_ERR_RUNTIME;
  if (h5out_rows(f, h->history[HIST_ITERATION], &rows) != IPSO_OK) goto done;
  for (int c = 1; c < HIST_COLUMNS; c++) {
    int64_t n;
    if (h5out_rows(f, h->history[c], &n) != IPSO_OK) goto done;
    if (n < rows) rows = n;
  }
  if (!(its = malloc((size_t)(rows > 0 ? rows : 1) * sizeof *its))) {
    log_fail("hdf5", __FILE__, __LINE__, "'%s': out of memory for %" PRId64 " rows", f->path, rows);
    goto done;
  }
  hsize_t start[2] = {0, 0}, count[2] = {(hsize_t)rows, 0};
  if (h5u_read(f, h->history[HIST_ITERATION], H5T_NATIVE_INT64, start, count, its) != IPSO_OK)
    goto done;
  while (keep < rows && its[keep] <= iteration && (keep == 0 || its[keep] > its[keep - 1])) keep++;
  if (h5out_set_history_extent(h, keep) != IPSO_OK) goto done;
  IPSO_CHECK_MPI_GOTO(MPI_Bcast(&keep, 1, MPI_INT64_T, 0, h->comm), st, done);
  h->history_rows = h->history_extent = keep;
  st = IPSO_OK;
done:
  free(its);
  return st;
}

/* Whether migration record R is one to keep on a restart from ITERATION:
 * not later, and a real record (rows a crash left half written are not). */
static int migration_kept(const struct migration_record *r, int64_t iteration, int islands)
{
  return r->iteration <= iteration && r->from >= 0 && r->from < islands && r->to >= 0 &&
         r->to < islands && r->from != r->to;
}

/* Removes the migration rows after ITERATION: the table is read in pieces
 * (by every rank, for the same metadata accesses everywhere), the rows
 * kept move forward (written by rank 0), and the table is shrunk. */
static int h5out_truncate_migrations(struct h5out *h, int64_t iteration)
{
  struct h5u_file *f = &h->f;
  struct migration_record *rec = NULL;
  int64_t rows = 0, kept = 0;
  int st = IPSO_ERR_RUNTIME;
  if (h5out_rows(f, h->migrations, &rows) != IPSO_OK) goto done;
  if (!(rec = malloc((size_t)H5OUT_MIGRATION_PIECE * sizeof *rec))) {
    log_fail("hdf5", __FILE__, __LINE__, "'%s': out of memory", f->path);
    goto done;
  }
  for (int64_t r = 0; r < rows; r += H5OUT_MIGRATION_PIECE) {
    int64_t n = rows - r < H5OUT_MIGRATION_PIECE ? rows - r : H5OUT_MIGRATION_PIECE, k = 0;
    hsize_t start[2] = {(hsize_t)r, 0}, count[2] = {(hsize_t)n, 0};
    if (h5u_read(f, h->migrations, h->migration_type, start, count, rec) != IPSO_OK) goto done;
    for (int64_t i = 0; i < n; i++)
      if (migration_kept(&rec[i], iteration, h->islands)) rec[k++] = rec[i];
    if (kept != r || k != n) {
      start[0] = (hsize_t)kept;
      count[0] = (hsize_t)(f->rank == 0 ? k : 0);
      if (h5u_write(f, h->migrations, h->migration_type, start, count, rec) != IPSO_OK) goto done;
    }
    kept += k;
  }
  hsize_t dims[1] = {(hsize_t)kept};
  IPSO_CHECK_H5_GOTO(f->path, H5Dset_extent(h->migrations, dims), st, done,
                     "shrinking /migrations");
  IPSO_CHECK_MPI_GOTO(MPI_Bcast(&kept, 1, MPI_INT64_T, 0, h->comm), st, done);
  h->migration_rows = kept;
  st = IPSO_OK;
done:
  free(rec);
  return st;
}

/* Deletes the snapshots after ITERATION, the result and 'finished'
 * (writers). */
static int h5out_truncate_groups(struct h5out *h, int64_t iteration)
{
  struct h5u_file *f = &h->f;
  hid_t group = H5I_INVALID_HID;
  H5G_info_t info;
  int st = IPSO_ERR_RUNTIME;
  IPSO_CHECK_H5_GOTO(f->path, group = H5Gopen2(f->id, "snapshots", H5P_DEFAULT), st, done,
                     "opening group /snapshots");
  IPSO_CHECK_H5_GOTO(f->path, H5Gget_info(group, &info), st, done, "listing /snapshots");
  /* From the last name down, so that deleting one leaves the lower indices
   * in place. */
  for (hsize_t i = info.nlinks; i-- > 0;) {
    char name[64], *end;
    ssize_t len;
    long long it;
    IPSO_CHECK_H5_GOTO(f->path,
                       len = H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, name,
                                                sizeof name, H5P_DEFAULT),
                       st, done, "listing /snapshots");
    if ((size_t)len >= sizeof name) continue; /* not a name this program writes */
    errno = 0;
    it = strtoll(name, &end, 10);
    if (errno != 0 || end == name || *end != '\0' || it <= iteration) continue;
    IPSO_CHECK_H5_GOTO(f->path, H5Ldelete(group, name, H5P_DEFAULT), st, done,
                       "deleting /snapshots/%s", name);
  }
  if (h5u_delete_link(f, f->id, "result") != IPSO_OK ||
      h5u_delete_attr(f, f->id, "finished") != IPSO_OK)
    goto done;
  st = IPSO_OK;
done:
  return H5U_CLOSE(f, st, group);
}

/* Opens the existing output in MODE and its datasets, with the verdicts
 * on it agreed by every rank. A refused file is closed again (every rank
 * refuses at the same point) and IPSO_ERR_USAGE returned. */
static int h5out_open_existing(struct h5out *h, enum h5u_mode mode)
{
  char why[1024];
  int st = IPSO_OK;
  if (h5u_open(&h->f, mode, why, sizeof why) != IPSO_OK) {
    st = H5U_USER_ERROR(h->f.rank,
                        "islandpso: error: output '%s' cannot be continued: not a readable HDF5 "
                        "file (%s)",
                        h->f.path, why);
  }
  st = island_agree(h->comm, st);
  if (st != IPSO_OK) return st;
  st = h5out_open_layout(h);
  st = island_agree(h->comm, st);
  if (st != IPSO_OK) h5out_close_file(h);
  return st;
}

int h5out_reopen(MPI_Comm comm, const struct ipso_config *cfg, int64_t iteration,
                 struct h5out **out)
{
  struct h5out *h;
  int rank, st = IPSO_OK;
  *out = NULL;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) st = output_continuable(cfg->run.output);
  st = island_agree(comm, st);
  if (st != IPSO_OK) return st;
  h = h5out_new(comm, cfg);
  if (!h) return IPSO_ERR_RUNTIME;
  /* Judged read-only first, so that a refused file is left as it was. */
  st = h5out_open_existing(h, H5U_READ);
  if (st == IPSO_OK) st = h5out_close_file(h);
  if (st == IPSO_OK) st = h5out_open_existing(h, H5U_READWRITE);
  if (st == IPSO_OK) st = h5out_truncate_history(h, iteration);
  if (st == IPSO_OK) st = h5out_truncate_migrations(h, iteration);
  if (st == IPSO_OK) st = h5out_truncate_groups(h, iteration);
  /* The file describes the run as continued now (max_iterations may grow). */
  if (st == IPSO_OK) st = h5u_write_attr_string(&h->f, h->f.id, "config", cfg->text);
  /* Shrinking rewrites the chunk it cuts through in HDF5's chunk cache,
   * which writes it back when the dataset is closed: with parallel HDF5
   * that would overwrite the rows written collectively in the meantime
   * (collective writes bypass the cache). Closing now writes it first. */
  if (st == IPSO_OK) st = h5out_close_file(h);
  if (st == IPSO_OK) st = h5out_open_existing(h, H5U_READWRITE);
  return h5out_finish(h, st, out);
}

/* The rows the output F (open read-only) holds up to iteration T: history
 * rows (the longest run of increasing iterations not above T, as the
 * restart's cut-back keeps them) and their last iteration in *LAST (-1:
 * none), and migration records not after T (-1 in *MROWS where the table
 * is missing). IPSO_OK, or IPSO_ERR_USAGE with the reason in WHY. */
static int output_rows(hid_t f, const char *output, int64_t t, int64_t *hrows, int64_t *last,
                       int64_t *mrows, char *why, size_t len)
{
  struct rec {
    int64_t iteration;
    int32_t from, to;
  } *rec = NULL;
  const hsize_t piece = (hsize_t)1 << 20;
  hid_t dset = H5I_INVALID_HID, space = H5I_INVALID_HID, type = H5I_INVALID_HID;
  hsize_t n = 0;
  int64_t *its = NULL;
  int st = IPSO_ERR_USAGE;
  *hrows = 0, *last = -1, *mrows = -1;
  snprintf(why, len, "output '%s': /history/iteration is missing or unreadable (damaged)", output);
  if ((dset = H5Dopen2(f, "history/iteration", H5P_DEFAULT)) < 0 ||
      (space = H5Dget_space(dset)) < 0 || H5Sget_simple_extent_dims(space, &n, NULL) != 1 ||
      !(its = malloc((size_t)(n > 0 ? n : 1) * sizeof *its)) ||
      (n > 0 && H5Dread(dset, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, its) < 0))
    goto done;
  while ((hsize_t)*hrows < n && its[*hrows] <= t && (*hrows == 0 || its[*hrows] > its[*hrows - 1]))
    (*hrows)++;
  if (*hrows > 0) *last = its[*hrows - 1];
  H5Sclose(space);
  H5Dclose(dset);
  space = dset = H5I_INVALID_HID;
  /* The migration records, by their iteration, in pieces. */
  snprintf(why, len, "output '%s': /migrations is unreadable (damaged)", output);
  if ((dset = H5Dopen2(f, "migrations", H5P_DEFAULT)) < 0) {
    st = IPSO_OK; /* no table: nothing to compare */
    goto done;
  }
  if ((space = H5Dget_space(dset)) < 0 || H5Sget_simple_extent_dims(space, &n, NULL) != 1 ||
      (type = H5Tcreate(H5T_COMPOUND, sizeof *rec)) < 0 ||
      H5Tinsert(type, "iteration", offsetof(struct rec, iteration), H5T_NATIVE_INT64) < 0 ||
      H5Tinsert(type, "from", offsetof(struct rec, from), H5T_NATIVE_INT32) < 0 ||
      H5Tinsert(type, "to", offsetof(struct rec, to), H5T_NATIVE_INT32) < 0 ||
      !(rec = malloc((size_t)(n < piece ? (n ? n : 1) : piece) * sizeof *rec)))
    goto done;
  *mrows = 0;
  for (hsize_t at = 0; at < n; at += piece) {
    hsize_t count = n - at < piece ? n - at : piece;
    hid_t mem = H5Screate_simple(1, &count, NULL);
    int ok = mem >= 0 && H5Sselect_hyperslab(space, H5S_SELECT_SET, &at, NULL, &count, NULL) >= 0 &&
             H5Dread(dset, type, mem, space, H5P_DEFAULT, rec) >= 0;
    if (mem >= 0) H5Sclose(mem);
    if (!ok) goto done;
    for (hsize_t i = 0; i < count; i++)
      *mrows +=
          rec[i].iteration <= t && rec[i].from >= 0 && rec[i].to >= 0 && rec[i].from != rec[i].to;
  }
  st = IPSO_OK;
done:
  free(rec);
  free(its);
  if (type >= 0) H5Tclose(type);
  if (space >= 0) H5Sclose(space);
  if (dset >= 0) H5Dclose(dset);
  return st;
}

int checkpoint_check_output(MPI_Comm comm, const char *path, const char *output,
                            const struct checkpoint_info *info)
{
  int rank, st = IPSO_OK;
  char why[2048] = "";
  struct stat sb;
  IPSO_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  /* HDF5 prints no errors: checkpoint_read's h5u_init turned that off. */
  if (rank == 0 && output && *output && stat(output, &sb) == 0 && S_ISREG(sb.st_mode)) {
    hid_t f = H5Fopen(output, H5F_ACC_RDONLY, H5P_DEFAULT);
    char *started = f >= 0 ? h5u_read_attr_string(f, "started") : NULL;
    /* Only the output of the checkpoint's own run (another run's is
     * refused by the run's identity, an unreadable one by the reopen). */
    if (started && info->run_started[0] && !strcmp(started, info->run_started)) {
      const int64_t t = info->iteration;
      int64_t hrows, last, mrows;
      st = output_rows(f, output, t, &hrows, &last, &mrows, why, sizeof why);
      if (st == IPSO_OK && hrows < info->history_rows)
        st = h5u_reason(
            why, sizeof why,
            "the output '%s' holds %" PRId64 " history rows up to the checkpoint's "
            "iteration %" PRId64 " (the last at iteration %" PRId64 "), the checkpoint "
            "counts %" PRId64 ": the output is older than the checkpoint (a copy from "
            "before it, or rows lost), and continuing would leave a gap in its history; "
            "give the output this checkpoint was written with, or continue from a "
            "checkpoint no newer than the output (the one kept as .prev, or an older copy)",
            output, hrows, t, last, info->history_rows);
      else if (st == IPSO_OK && hrows > info->history_rows)
        st = h5u_reason(why, sizeof why,
                        "the output '%s' holds %" PRId64 " history rows up to the checkpoint's "
                        "iteration %" PRId64 ", the checkpoint counts %" PRId64 ": rows that this "
                        "checkpoint's run did not write are in it",
                        output, hrows, t, info->history_rows);
      else if (st == IPSO_OK && info->migration_rows_known && mrows >= 0 &&
               mrows != info->migration_rows)
        st = h5u_reason(
            why, sizeof why,
            "the output '%s' holds %" PRId64 " migration records up to the checkpoint's "
            "iteration %" PRId64 ", the checkpoint counts %" PRId64 ": %s",
            output, mrows, t, info->migration_rows,
            mrows < info->migration_rows
                ? "the output is older than the checkpoint, and continuing would leave a gap "
                  "in its migration log"
                : "records that this checkpoint's run did not write are in it");
    }
    free(started);
    if (f >= 0) H5Fclose(f);
    H5Eclear2(H5E_DEFAULT);
  }
  st = island_agree(comm, st);
  if (st == IPSO_ERR_USAGE && rank == 0)
    log_user_error("islandpso: error: checkpoint '%s': %s", path, why);
  return st;
}

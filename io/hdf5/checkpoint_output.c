/* A restart's output against its checkpoint (checkpoint_check_output):
 * the rows the output holds up to the checkpoint's iteration must be those
 * the checkpoint counts, so that continuing leaves no gap and splices in
 * no other run's rows. */
#include "checkpoint.h"

#include <hdf5.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "checkpoint_internal.h"
#include "h5util.h"
#include "check.h"
#include "log.h"

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

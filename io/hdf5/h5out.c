/* The run's HDF5 file (design.md "HDF5 file"); every dataset has 'units' and
 * 'description'. The result's scalars are scalar datasets rather than
 * attributes, so that every result value is read the same way and carries
 * its own units. */
#include "h5out.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "h5out_internal.h"
#include "run_files.h"
#include "state_arrays.h"

const struct history_spec history_specs[HIST_COLUMNS] = {
    {"history/iteration", 0, 1, "iterations", "iteration after which the row was recorded"},
    {"history/island_best", 1, 0, "objective units",
     "best fitness each island has found so far (column = island)"},
    {"history/global_best", 0, 0, "objective units", "best fitness any island has found so far"},
    {"history/evaluations", 0, 1, "evaluations", "objective evaluations so far, all islands"},
    {"history/wall_seconds", 0, 0, "s", "wall-clock time of the run so far, all segments"},
};

/* Rows per chunk of the one-column histories and of the migration table. */
#define H5OUT_CHUNK_ROWS 1024

/* Rows per chunk of island_best: 1024, fewer with many islands so that a
 * chunk stays near 1 MiB. */
static hsize_t history_chunk_rows(int islands)
{
  hsize_t rows = ((hsize_t)1 << 20) / (sizeof(double) * (hsize_t)islands);
  if (rows < 1) rows = 1;
  return rows > H5OUT_CHUNK_ROWS ? H5OUT_CHUNK_ROWS : rows;
}

struct h5out *h5out_new(MPI_Comm comm, const struct ipso_config *cfg)
{
  struct h5out *h = calloc(1, sizeof *h);
  int rc;
  if (!h) {
    log_fail("hdf5", __FILE__, __LINE__, "'%s': out of memory", cfg->run.output);
    return NULL;
  }
  rc = MPI_Comm_dup(comm, &h->comm);
  if (rc != MPI_SUCCESS) {
    ipso_mpi_fail("MPI_Comm_dup", rc, __FILE__, __LINE__);
    free(h);
    return NULL;
  }
  h5u_init(&h->f, h->comm, cfg->run.output);
  h->particles = cfg->swarm.particles;
  h->islands = config_islands(cfg, h->f.size); /* a multiple of the ranks (config_validate) */
  h->local = h->islands / h->f.size;
  for (int c = 0; c < HIST_COLUMNS; c++) h->history[c] = H5I_INVALID_HID;
  h->migrations = h->migration_type = H5I_INVALID_HID;
  return h;
}

int h5out_close_file(struct h5out *h)
{
  int st = h5u_close_ids(&h->f, IPSO_OK, h->history, HIST_COLUMNS);
  st = H5U_CLOSE(&h->f, st, h->migrations, h->migration_type);
  if (h5u_close(&h->f) != IPSO_OK) st = IPSO_ERR_RUNTIME;
  for (int c = 0; c < HIST_COLUMNS; c++) h->history[c] = H5I_INVALID_HID;
  h->migrations = h->migration_type = H5I_INVALID_HID;
  return st;
}

void h5out_abandon(struct h5out *h)
{
  free(h);
}

/* Records which file H's path names now (rank 0), the one just opened. */
static void h5out_identity_take(struct h5out *h)
{
  struct stat st;
  h->identity_known = 0;
  if (h->f.rank != 0 || stat(h->f.path, &st) != 0) return;
  h->dev = (uint64_t)st.st_dev;
  h->ino = (uint64_t)st.st_ino;
  h->identity_known = 1;
}

int h5out_finish(struct h5out *h, int st, struct h5out **out)
{
  if (st != IPSO_OK) {
    /* A refusal is agreed, its file closed: every rank frees the
     * communicator. A runtime failure leaves at once (h5util.h). */
    if (st == IPSO_ERR_USAGE) MPI_Comm_free(&h->comm);
    h5u_close_ids(&h->f, IPSO_OK, h->history, HIST_COLUMNS);
    H5U_CLOSE(&h->f, IPSO_OK, h->migrations, h->migration_type);
    free(h);
    return st;
  }
  h5out_identity_take(h);
  *out = h;
  return IPSO_OK;
}

hid_t h5out_migration_type(const struct h5u_file *f)
{
  static const char *const names[4] = {"iteration", "from", "to", "best_fitness"};
  const size_t offsets[4] = {
      offsetof(struct migration_record, iteration), offsetof(struct migration_record, from),
      offsetof(struct migration_record, to), offsetof(struct migration_record, best_fitness)};
  const hid_t types[4] = {H5T_NATIVE_INT64, H5T_NATIVE_INT32, H5T_NATIVE_INT32, H5T_NATIVE_DOUBLE};
  hid_t t = H5I_INVALID_HID;
  int st = IPSO_ERR_RUNTIME;
  IPSO_CHECK_H5_GOTO(f->path, t = H5Tcreate(H5T_COMPOUND, sizeof(struct migration_record)), st,
                     done, "creating the migration record type");
  for (int i = 0; i < 4; i++)
    IPSO_CHECK_H5_GOTO(f->path, H5Tinsert(t, names[i], offsets[i], types[i]), st, done,
                       "adding field '%s' to the migration record type", names[i]);
  st = IPSO_OK;
done:
  if (st != IPSO_OK) {
    H5U_CLOSE(f, st, t);
    return H5I_INVALID_HID;
  }
  return t;
}

/* Creates group NAME under the root afresh (an older one deleted) with its
 * DESCRIPTION, or where that is NULL its ITERATION. */
static int h5out_group(const struct h5u_file *f, const char *name, const char *description,
                       int64_t iteration)
{
  hid_t group = H5I_INVALID_HID;
  int st = h5u_delete_link(f, f->id, name);
  if (st != IPSO_OK) return st;
  IPSO_CHECK_H5_GOTO(f->path,
                     group = H5Gcreate2(f->id, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), st,
                     done, "creating group /%s", name);
  st = description ? h5u_write_attr_string(f, group, "description", description)
                   : h5u_write_attr(f, group, "iteration", H5T_NATIVE_INT64, &iteration);
done:
  return H5U_CLOSE(f, st, group);
}

/* Rank 0's verdict on creating the output PATH: its directory must exist
 * and be writable, and an existing file may be replaced only with
 * OVERWRITE. Nothing is created. */
static int output_creatable(const char *path, int overwrite)
{
  char dir[IPSO_PATH_MAX];
  struct stat sb;
  int e;
  if (path[0] == '\0') return IPSO_USAGE("islandpso: error: no output file given ([run] output)");
  e = h5u_directory_error(path, dir, sizeof dir);
  if (e)
    return IPSO_USAGE("islandpso: error: output '%s': directory '%s': %s", path, dir, strerror(e));
  if (lstat(path, &sb) != 0)
    return errno == ENOENT ? IPSO_OK
                           : IPSO_USAGE("islandpso: error: output '%s': %s", path, strerror(errno));
  if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
    return IPSO_USAGE("islandpso: error: output '%s' is a directory", path);
  if (!overwrite)
    return IPSO_USAGE("islandpso: error: output '%s' exists; use --overwrite to replace it, or "
                      "--restart to continue it",
                      path);
  if (access(path, W_OK) != 0 && errno != ENOENT)
    return IPSO_USAGE("islandpso: error: output '%s' cannot be replaced: %s", path,
                      strerror(errno));
  return IPSO_OK;
}

/* Creates the file and its root attributes, groups, histories and
 * migration table (writers). */
static int h5out_create_file(struct h5out *h, const struct ipso_config *cfg, int overwrite)
{
  struct h5u_file *f = &h->f;
  hsize_t dims[2] = {0, (hsize_t)h->islands};
  char why[1024];
  if (h5u_open(f, overwrite ? H5U_REPLACE : H5U_CREATE, why, sizeof why) != IPSO_OK) {
    log_fail("hdf5", __FILE__, __LINE__, "'%s': creating the file failed: %s", f->path, why);
    return IPSO_ERR_RUNTIME;
  }
  if (h5u_write_attr_string(f, f->id, "version", IPSO_VERSION) != IPSO_OK ||
      h5u_write_attr_string(f, f->id, "config", cfg->text) != IPSO_OK ||
      h5u_write_attr(f, f->id, "seed", H5T_NATIVE_UINT64, &cfg->run.seed) != IPSO_OK ||
      h5u_write_attr(f, f->id, "islands", H5T_NATIVE_INT, &h->islands) != IPSO_OK ||
      h5u_write_attr_string(f, f->id, "started", h->started) != IPSO_OK)
    return IPSO_ERR_RUNTIME;
  if (h5out_group(f, "history", "convergence history: one row per recorded iteration", 0) !=
          IPSO_OK ||
      h5out_group(f, "snapshots", "swarm snapshots, one group per iteration, rows island-major",
                  0) != IPSO_OK)
    return IPSO_ERR_RUNTIME;
  for (int c = 0; c < HIST_COLUMNS; c++) {
    const struct history_spec *spec = &history_specs[c];
    h->history[c] =
        h5u_create_dataset(f, f->id, spec->name, spec->integer ? H5T_STD_I64LE : H5T_IEEE_F64LE,
                           spec->per_island ? 2 : 1, dims,
                           spec->per_island ? history_chunk_rows(h->islands) : H5OUT_CHUNK_ROWS,
                           spec->units, spec->description);
    if (h->history[c] < 0) return IPSO_ERR_RUNTIME;
  }
  if ((h->migration_type = h5out_migration_type(f)) < 0) return IPSO_ERR_RUNTIME;
  h->migrations = h5u_create_dataset(
      f, f->id, "migrations", h->migration_type, 1, dims, H5OUT_CHUNK_ROWS,
      "iteration: iterations; from, to: island; best_fitness: objective units",
      "migrations: iteration, sending island, receiving island, best fitness sent");
  return h->migrations < 0 ? IPSO_ERR_RUNTIME : IPSO_OK;
}

int h5out_create(MPI_Comm comm, const struct ipso_config *cfg, int overwrite, struct h5out **out)
{
  struct h5out *h;
  int rank, st = IPSO_OK;
  *out = NULL;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) st = output_creatable(cfg->run.output, overwrite);
  st = island_agree(comm, st);
  if (st != IPSO_OK) return st;
  h = h5out_new(comm, cfg);
  if (!h) return IPSO_ERR_RUNTIME;
  st = run_clock(h->comm, h->started);
  if (st == IPSO_OK) st = h5out_create_file(h, cfg, overwrite);
  return h5out_finish(h, st, out);
}

const char *h5out_started(const struct h5out *h)
{
  return h->started;
}

int64_t h5out_history_rows(const struct h5out *h)
{
  return h->history_rows;
}

int64_t h5out_migration_rows(const struct h5out *h)
{
  return h->migration_rows;
}

int h5out_set_history_extent(struct h5out *h, int64_t rows)
{
  struct h5u_file *f = &h->f;
  for (int c = 0; c < HIST_COLUMNS; c++) {
    hsize_t dims[2] = {(hsize_t)rows, (hsize_t)h->islands};
    IPSO_CHECK_H5(f->path, H5Dset_extent(h->history[c], dims), "setting the extent of /%s",
                  history_specs[c].name);
  }
  h->history_extent = rows;
  return IPSO_OK;
}

int h5out_append_history(struct h5out *h, int n, const int64_t *iteration,
                         const double *island_best, const double *global_best,
                         const int64_t *evaluations, const double *wall_seconds)
{
  struct h5u_file *f = &h->f;
  double *matrix = NULL, *gathered = NULL;
  int st = IPSO_ERR_RUNTIME;
  /* N is the same on every rank (the solver takes each row in a reduction). */
  if (n == 0) return IPSO_OK;
  /* Rank 0 writes every rank's island_best columns, gathered: a collective
   * write of every rank's strided columns was most of an append's time. */
  const int K = h->local, islands = h->islands;
  if (f->rank == 0) {
    gathered = malloc((size_t)n * (size_t)islands * sizeof *gathered);
    matrix = malloc((size_t)n * (size_t)islands * sizeof *matrix);
    if (!gathered || !matrix) {
      log_fail("hdf5", __FILE__, __LINE__, "'%s': out of memory", f->path);
      goto done;
    }
  }
  IPSO_CHECK_MPI_GOTO(
      MPI_Gather(island_best, n * K, MPI_DOUBLE, gathered, n * K, MPI_DOUBLE, 0, h->comm), st,
      done);
  /* Rank r's block [n, K] holds the columns of islands r*K .. r*K + K - 1. */
  if (f->rank == 0)
    for (int r = 0; r < f->size; r++)
      for (int t = 0; t < n; t++)
        memcpy(matrix + (size_t)t * islands + (size_t)r * K,
               gathered + ((size_t)r * n + t) * (size_t)K, (size_t)K * sizeof *matrix);
  if (h->history_rows + n > h->history_extent &&
      h5out_set_history_extent(h, h->history_rows + n) != IPSO_OK)
    goto done;
  /* Rank 0 writes every column (the others select nothing). */
  const void *data[HIST_COLUMNS] = {iteration, matrix, global_best, evaluations, wall_seconds};
  for (int c = 0; c < HIST_COLUMNS; c++) {
    const struct history_spec *spec = &history_specs[c];
    hsize_t start[2] = {(hsize_t)h->history_rows, 0};
    hsize_t count[2] = {(hsize_t)(f->rank == 0 ? n : 0), spec->per_island ? (hsize_t)islands : 1};
    if (h5u_write(f, h->history[c], spec->integer ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE, start,
                  count, data[c]) != IPSO_OK)
      goto done;
  }
  h->history_rows += n;
  st = IPSO_OK;
done:
  free(gathered);
  free(matrix);
  return st;
}

/* Order of /migrations rows: iteration, then sender, then receiver. */
static int migration_cmp(const void *a, const void *b)
{
  const struct migration_record *x = a, *y = b;
  if (x->iteration != y->iteration) return x->iteration < y->iteration ? -1 : 1;
  if (x->from != y->from) return x->from < y->from ? -1 : 1;
  return (x->to > y->to) - (x->to < y->to);
}

/* Appends every rank's N records REC to /migrations in migration_cmp's
 * order, so that the table does not depend on when records were flushed (a
 * restarted run flushes at other points than an uninterrupted one): rank 0
 * gathers and sorts them and writes them all. */
int h5out_append_migrations(struct h5out *h, int n, const struct migration_record *rec)
{
  struct h5u_file *f = &h->f;
  MPI_Datatype rec_type = MPI_DATATYPE_NULL;
  struct migration_record *all = NULL;
  int *counts = NULL, st = IPSO_OK;
  int64_t mine = n, total = 0;
  IPSO_CHECK_MPI(MPI_Allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, h->comm));
  if (total == 0) return IPSO_OK;
  if (total > INT_MAX)
    return IPSO_FAIL("hdf5", "'%s': %" PRId64 " migration records in one flush exceed one gather",
                     f->path, total);
  if (f->rank == 0 && (!(counts = malloc(2 * (size_t)f->size * sizeof *counts)) ||
                       !(all = malloc((size_t)total * sizeof *all))))
    st = IPSO_FAIL("hdf5", "'%s': out of memory", f->path);
  if ((st = island_agree(h->comm, st)) != IPSO_OK) goto done;
  st = IPSO_ERR_RUNTIME;
  IPSO_CHECK_MPI_GOTO(MPI_Type_contiguous((int)sizeof *rec, MPI_BYTE, &rec_type), st, done);
  IPSO_CHECK_MPI_GOTO(MPI_Type_commit(&rec_type), st, done);
  int *displs = counts ? counts + f->size : NULL;
  IPSO_CHECK_MPI_GOTO(MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, h->comm), st, done);
  if (f->rank == 0)
    for (int r = 0, at = 0; r < f->size; at += counts[r], r++) displs[r] = at;
  IPSO_CHECK_MPI_GOTO(MPI_Gatherv(rec, n, rec_type, all, counts, displs, rec_type, 0, h->comm), st,
                      done);
  if (f->rank == 0) qsort(all, (size_t)total, sizeof *all, migration_cmp);
  hsize_t dims[1] = {(hsize_t)(h->migration_rows + total)};
  hsize_t start[2] = {(hsize_t)h->migration_rows, 0};
  hsize_t count[2] = {f->rank == 0 ? (hsize_t)total : 0, 0};
  IPSO_CHECK_H5_GOTO(f->path, H5Dset_extent(h->migrations, dims), st, done,
                     "extending /migrations");
  if (h5u_write(f, h->migrations, h->migration_type, start, count, all) != IPSO_OK) goto done;
  h->migration_rows += total;
  st = IPSO_OK;
done:
  if (rec_type != MPI_DATATYPE_NULL) MPI_Type_free(&rec_type);
  free(counts);
  free(all);
  return st;
}

int h5out_write_snapshot(struct h5out *h, int64_t iteration, const struct swarm_state *s,
                         double sign)
{
  struct h5u_file *f = &h->f;
  hid_t dsets[STATE_SWARM_ARRAYS];
  double *fitness[STATE_SWARM_ARRAYS] = {NULL};
  const double *data[STATE_SWARM_ARRAYS];
  char gname[64], dname[128];
  int st = IPSO_ERR_RUNTIME;
  for (int a = 0; a < STATE_SWARM_ARRAYS; a++) dsets[a] = H5I_INVALID_HID;
  /* The costs become fitness in the objective's units. */
  for (int a = 0; a < STATE_SWARM_ARRAYS; a++) {
    const struct state_array *sa = &state_arrays[a];
    const double *x = state_array_data(sa, s);
    int64_t n = s->particles * state_array_width(sa, s->dims);
    data[a] = x;
    if (!sa->fitness) continue;
    if (!(fitness[a] = malloc((size_t)n * sizeof *fitness[a]))) {
      log_fail("hdf5", __FILE__, __LINE__, "'%s': out of memory", f->path);
      goto done;
    }
    for (int64_t i = 0; i < n; i++) fitness[a][i] = sign * x[i];
    data[a] = fitness[a];
  }
  hsize_t dims[2] = {(hsize_t)h->islands * (hsize_t)h->particles, (hsize_t)s->dims};
  snprintf(gname, sizeof gname, "snapshots/%" PRId64, iteration);
  if (h5out_group(f, gname, NULL, iteration) != IPSO_OK) goto done;
  for (int a = 0; a < STATE_SWARM_ARRAYS; a++) {
    const struct state_array *sa = &state_arrays[a];
    snprintf(dname, sizeof dname, "%s/%s", gname, sa->snapshot_name);
    dsets[a] = h5u_create_dataset(f, f->id, dname, H5T_IEEE_F64LE, state_array_rank(sa), dims, 0,
                                  sa->units, sa->snapshot_description);
    if (dsets[a] < 0) goto done;
  }
  for (int a = 0; a < STATE_SWARM_ARRAYS; a++)
    if (h5u_write_island_rows(f, dsets[a], H5T_NATIVE_DOUBLE, s->particles,
                              state_array_width(&state_arrays[a], s->dims), data[a]) != IPSO_OK)
      goto done;
  st = IPSO_OK;
done:
  for (int a = 0; a < STATE_SWARM_ARRAYS; a++) free(fitness[a]);
  return h5u_close_ids(f, st, dsets, STATE_SWARM_ARRAYS);
}

int h5out_write_result(struct h5out *h, const struct run_result *r)
{
  struct h5u_file *f = &h->f;
  const struct {
    const char *name;
    int rank; /* 1: [dims], 0: scalar */
    hid_t type;
    const void *value;
    const char *units;
    const char *description;
  } items[7] = {
      {"result/best_position", 1, H5T_NATIVE_DOUBLE, r->best_position, "objective variables",
       "best position found"},
      {"result/best_fitness", 0, H5T_NATIVE_DOUBLE, &r->best_fitness, "objective units",
       "fitness at the best position"},
      {"result/island", 0, H5T_NATIVE_INT, &r->island, "island",
       "island that found the best position"},
      {"result/particle", 0, H5T_NATIVE_INT64, &r->particle, "particle",
       "particle (index within its island) whose personal best it is"},
      {"result/iteration", 0, H5T_NATIVE_INT64, &r->iteration, "iterations",
       "iteration at which the run ended"},
      {"result/evaluations", 0, H5T_NATIVE_INT64, &r->evaluations, "evaluations",
       "objective evaluations, all islands"},
      {"result/elapsed_seconds", 0, H5T_NATIVE_DOUBLE, &r->elapsed_seconds, "s",
       "wall-clock time of the run, all segments"},
  };
  if (h5out_group(f, "result", "the best position found and how the run ended", 0) != IPSO_OK)
    return IPSO_ERR_RUNTIME;
  for (int i = 0; i < 7; i++) {
    hid_t dset =
        h5u_write_dataset(f, f->id, items[i].name, items[i].type, items[i].rank, (hsize_t)r->dims,
                          items[i].value, items[i].units, items[i].description);
    if (dset < 0 || H5U_CLOSE(f, IPSO_OK, dset) != IPSO_OK) return IPSO_ERR_RUNTIME;
  }
  return IPSO_OK;
}

int h5out_flush(struct h5out *h)
{
  IPSO_CHECK_H5(h->f.path, H5Fflush(h->f.id, H5F_SCOPE_GLOBAL), "flushing the file");
  return IPSO_OK;
}

int h5out_close(struct h5out *h, int finished)
{
  char stamp[32];
  int st = IPSO_OK, closed;
  if (!h) return IPSO_OK;
  if (finished) {
    st = run_clock(h->comm, stamp);
    if (st == IPSO_OK) st = h5u_write_attr_string(&h->f, h->f.id, "finished", stamp);
  }
  /* Every rank goes through the whole (collective) close, failure or not. */
  closed = h5out_close_file(h);
  MPI_Comm_free(&h->comm);
  free(h);
  return st != IPSO_OK ? st : closed;
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

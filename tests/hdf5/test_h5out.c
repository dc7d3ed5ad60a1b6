/* The run's HDF5 output and the checkpoints, under several MPI ranks: the
 * file layout, every value written, the refusals that protect existing
 * files, restart truncation, and checkpoint round trips and refusals.
 *
 * Usage: test_h5out [DIR]. Files go to a new temporary directory, removed
 * at the end; with DIR they go there and the run file DIR/run.h5 is kept
 * (the report check reads it). Exit 0 pass, 1 fail. */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>
#include <mpi.h>

#include "swarm.h"
#include "checkpoint.h"
#include "h5out.h"
#include "h5util.h"
#include "log.h"
#include "state_arrays.h"

#define DIMS 3
#define PARTICLES 5
#define SEED UINT64_C(12345)

static int rank, size, failures;

/* Records a failed check on this rank with its location and a message. */
#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      failures++;                                                                                  \
      fprintf(stderr, "[rank %d] %s:%d: check failed: %s: ", rank, __FILE__, __LINE__, #cond);     \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      fflush(stderr);                                                                              \
    }                                                                                              \
  } while (0)

/* Formats the path DIR/NAME (IPSO_PATH_MAX bytes); too long is fatal. */
static void path_in(char *out, const char *dir, const char *name)
{
  if (snprintf(out, IPSO_PATH_MAX, "%s/%s", dir, name) >= IPSO_PATH_MAX) {
    fprintf(stderr, "test_h5out: path %s/%s is too long\n", dir, name);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

/* Formats the path PATH followed by SUFFIX; too long is fatal. */
static void path_with(char *out, const char *path, const char *suffix)
{
  if (snprintf(out, IPSO_PATH_MAX, "%s%s", path, suffix) >= IPSO_PATH_MAX) {
    fprintf(stderr, "test_h5out: path %s%s is too long\n", path, suffix);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

static double lower_bounds[DIMS] = {-5.12, -5.12, -4.0};
static double upper_bounds[DIMS] = {5.12, 5.12, 6.0};
static double shift_values[3] = {0.5, -1.0, 2.0};
static char config_text[] = "[run]\nname = \"h5test\"\nseed = 12345\noutput = \"run.h5\"\n"
                            "[objective]\nname = \"rastrigin\"\ndimensions = 3\n"
                            "[swarm]\nparticles = 5\n";

/* A config as the reader would fill it, with outputs in DIR. */
static void fake_config(struct ipso_config *cfg, const char *dir)
{
  memset(cfg, 0, sizeof *cfg);
  snprintf(cfg->run.name, sizeof cfg->run.name, "h5test");
  cfg->run.seed = SEED;
  cfg->run.backend = IPSO_BACKEND_CPU;
  cfg->run.precision = IPSO_DOUBLE;
  cfg->run.max_iterations = 100;
  path_in(cfg->run.output, dir, "run.h5");
  snprintf(cfg->objective.name, sizeof cfg->objective.name, "rastrigin");
  cfg->objective.dimensions = DIMS;
  cfg->objective.lower = lower_bounds;
  cfg->objective.upper = upper_bounds;
  cfg->objective.goal = IPSO_MINIMIZE;
  cfg->objective.nparams = 1;
  snprintf(cfg->objective.params[0].name, sizeof cfg->objective.params[0].name, "shift");
  cfg->objective.params[0].len = 3;
  cfg->objective.params[0].is_array = 1;
  cfg->objective.params[0].values = shift_values;
  cfg->swarm.particles = PARTICLES;
  cfg->swarm.inertia = 0.7213475204444817;
  cfg->swarm.cognitive = 1.1931471805599454;
  cfg->swarm.social = 1.1931471805599454;
  cfg->swarm.velocity_clamp[0] = 0.2;
  cfg->swarm.nclamps = 1;
  cfg->migration.interval = 4;
  cfg->migration.migrants = 2;
  cfg->output.history_interval = 1;
  cfg->output.snapshot_interval = 5;
  path_in(cfg->output.checkpoint, dir, "ckpt.h5");
  path_in(cfg->path, dir, "h5test.toml");
  cfg->text = config_text;
}

/* The value the fake swarm of ISLAND holds in ARRAY (0..4) at element I
 * after iteration IT: distinct everywhere, computed the same way on reading. */
static double state_value(int island, int array, int64_t i, int64_t it)
{
  return island * 1000.0 + array * 100.0 + (double)i * 0.25 + (double)it * 1e-3;
}

/* Fills S (allocated) with this rank's fake swarm after iteration IT. */
static void fill_state(struct swarm_state *s, int island, int64_t it)
{
  for (int64_t i = 0; i < s->particles * s->dims; i++) {
    s->position[i] = state_value(island, 0, i, it);
    s->velocity[i] = state_value(island, 1, i, it);
    s->pbest_position[i] = state_value(island, 2, i, it);
  }
  for (int64_t i = 0; i < s->particles; i++) {
    s->cost[i] = state_value(island, 3, i, it);
    s->pbest_cost[i] = state_value(island, 4, i, it);
  }
}

/* Fills S (allocated) with a swarm of this rank's island after iteration
 * IT that keeps what every swarm keeps to, as a restart checks: positions
 * and personal bests within the bounds, velocities within the clamp,
 * personal bests no worse than the current costs. */
static void fill_swarm(struct swarm_state *s, int island, int64_t it)
{
  for (int64_t i = 0; i < s->particles * s->dims; i++) {
    int d = (int)(i % s->dims);
    double lo = lower_bounds[d], span = upper_bounds[d] - lower_bounds[d];
    double u = fmod(state_value(island, 0, i, it) * 0.0137, 1.0);
    s->position[i] = lo + u * span;
    s->pbest_position[i] = lo + (1 - u) * span;
    s->velocity[i] = (u - 0.5) * 0.2 * span;
  }
  for (int64_t i = 0; i < s->particles; i++) {
    s->cost[i] = state_value(island, 3, i, it);
    s->pbest_cost[i] = s->cost[i] - 1.5;
  }
}

/* Sets the attribute NAME of checkpoint PATH to the int64 V (rank 0;
 * collective), as a hand with h5py might. */
static void set_attribute(const char *path, const char *name, int64_t v)
{
  if (rank == 0) {
    hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t attr = file >= 0 ? H5Aopen(file, name, H5P_DEFAULT) : -1;
    CHECK(attr >= 0 && H5Awrite(attr, H5T_NATIVE_INT64, &v) >= 0, "setting '%s' of '%s'", name,
          path);
    if (attr >= 0) H5Aclose(attr);
    if (file >= 0) H5Fclose(file);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Deletes the attribute NAME of checkpoint PATH (rank 0; collective). */
static void delete_attribute(const char *path, const char *name)
{
  if (rank == 0) {
    hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(file >= 0 && H5Adelete(file, name) >= 0, "deleting '%s' of '%s'", name, path);
    if (file >= 0) H5Fclose(file);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* History values of iteration IT: this island's best, and the global one. */
static double island_best_at(int island, int64_t it)
{
  return 100.0 / (double)it + island;
}

/* Migration record K of ISLAND in call CALL: iterations 4 and 8 alternate
 * in the first call, so a restart at 7 keeps rows that are not a prefix
 * (each rank's block out of order: sorted); the second call's are at 12,
 * 14, ... (each rank's block in order, the ranks' interleaved: merged);
 * the third (after a restart at 7) at 9. */
static struct migration_record migration_at(int call, int island, int k)
{
  struct migration_record r;
  r.iteration = call == 0 ? (k % 2 ? 8 : 4) : call == 1 ? 12 + 2 * k : 9;
  r.from = island;
  r.to = (island + 1) % size;
  r.best_fitness = 1.5 * island + 0.25 * k + call;
  return r;
}

/* Records this island sends in call CALL: uneven over the ranks, none on
 * some of them. */
static int migrations_in(int call, int island)
{
  return call == 0 ? island : call == 1 ? (size - island) % 3 : 1 + island % 2;
}

/* Everything about a file that a refusal must leave alone: its bytes. */
struct file_image {
  unsigned char *bytes;
  size_t len;
  int exists;
};

/* Reads the whole of PATH (rank 0's view). */
static struct file_image file_image(const char *path)
{
  struct file_image im = {NULL, 0, 0};
  FILE *fp = fopen(path, "rb");
  if (!fp) return im;
  im.exists = 1;
  fseek(fp, 0, SEEK_END);
  im.len = (size_t)ftell(fp);
  fseek(fp, 0, SEEK_SET);
  im.bytes = malloc(im.len ? im.len : 1);
  if (!im.bytes || fread(im.bytes, 1, im.len, fp) != im.len) im.exists = 0;
  fclose(fp);
  return im;
}

/* Whether PATH still holds exactly the bytes of IM; checked on rank 0. */
static int unchanged(const char *path, struct file_image *im)
{
  int same = 1;
  if (rank == 0) {
    struct file_image now = file_image(path);
    same = now.exists == im->exists && now.len == im->len &&
           (!now.exists || memcmp(now.bytes, im->bytes, now.len) == 0);
    free(now.bytes);
  }
  MPI_Bcast(&same, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return same;
}

/* Whether PATH exists (rank 0's view, shared). */
static int exists(const char *path)
{
  int yes = 0;
  if (rank == 0) yes = access(path, F_OK) == 0;
  MPI_Bcast(&yes, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return yes;
}

/* Copies SRC to DST on rank 0, keeping only the first KEEP bytes if KEEP
 * is not negative. */
static void copy_file(const char *src, const char *dst, long keep)
{
  if (rank == 0) {
    struct file_image im = file_image(src);
    FILE *fp = fopen(dst, "wb");
    size_t len = keep >= 0 && (size_t)keep < im.len ? (size_t)keep : im.len;
    CHECK(im.exists && fp && fwrite(im.bytes, 1, len, fp) == len, "copying %s to %s", src, dst);
    if (fp) fclose(fp);
    free(im.bytes);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Flips the bits of byte OFFSET of PATH in place (rank 0). */
static void flip_byte(const char *path, long offset)
{
  if (rank == 0) {
    FILE *fp = fopen(path, "r+b");
    int c = EOF;
    if (fp && fseek(fp, offset, SEEK_SET) == 0) c = fgetc(fp);
    CHECK(c != EOF, "reading byte %ld of %s", offset, path);
    if (c != EOF && fseek(fp, offset, SEEK_SET) == 0) fputc(c ^ 0xff, fp);
    if (fp) fclose(fp);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Checks that a call WHAT returned WANT on this rank. */
static void expect_status(int got, int want, const char *what)
{
  CHECK(got == want, "%s: status %d, expected %d", what, got, want);
}

/* Writes a small text file at PATH (rank 0). */
static void write_text_file(const char *path)
{
  if (rank == 0) {
    FILE *fp = fopen(path, "w");
    CHECK(fp && fputs("not HDF5\n", fp) >= 0, "writing %s", path);
    if (fp) fclose(fp);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* The file's byte offset of the raw data of dataset NAME (contiguous). */
static long data_offset(const char *path, const char *name)
{
  long offset = -1;
  if (rank == 0) {
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t dset = file >= 0 ? H5Dopen2(file, name, H5P_DEFAULT) : -1;
    haddr_t at = dset >= 0 ? H5Dget_offset(dset) : HADDR_UNDEF;
    if (at != HADDR_UNDEF) offset = (long)at;
    if (dset >= 0) H5Dclose(dset);
    if (file >= 0) H5Fclose(file);
  }
  MPI_Bcast(&offset, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  CHECK(offset > 0, "offset of %s in %s", name, path);
  return offset;
}

/* Checks that dataset NAME of FILE is of TYPE with RANK dimensions DIMS,
 * carries units and description, and returns its values read as MEM_TYPE
 * (malloc'd; NULL after a failed check). */
static void *read_dataset(hid_t file, const char *name, hid_t type, hid_t mem_type, int rank_,
                          const hsize_t *dims)
{
  hid_t dset = H5Dopen2(file, name, H5P_DEFAULT), space, ftype;
  hsize_t got[2] = {0, 0};
  size_t n = 1;
  void *buf = NULL;
  CHECK(dset >= 0, "dataset %s is missing", name);
  if (dset < 0) return NULL;
  space = H5Dget_space(dset);
  ftype = H5Dget_type(dset);
  CHECK(H5Tequal(ftype, type) > 0, "dataset %s has another type", name);
  CHECK(H5Sget_simple_extent_ndims(space) == rank_, "dataset %s has rank %d, expected %d", name,
        H5Sget_simple_extent_ndims(space), rank_);
  H5Sget_simple_extent_dims(space, got, NULL);
  for (int d = 0; d < rank_; d++) {
    CHECK(got[d] == dims[d], "dataset %s dimension %d is %llu, expected %llu", name, d,
          (unsigned long long)got[d], (unsigned long long)dims[d]);
    n *= dims[d];
  }
  CHECK(H5Aexists(dset, "units") > 0 && H5Aexists(dset, "description") > 0,
        "dataset %s lacks units or description", name);
  if (H5Tequal(ftype, type) > 0 && H5Sget_simple_extent_ndims(space) == rank_ &&
      (rank_ < 1 || got[0] == dims[0]) && (rank_ < 2 || got[1] == dims[1])) {
    buf = malloc((n ? n : 1) * H5Tget_size(mem_type));
    if (H5Dread(dset, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
      CHECK(0, "reading dataset %s", name);
      free(buf);
      buf = NULL;
    }
  }
  H5Tclose(ftype);
  H5Sclose(space);
  H5Dclose(dset);
  return buf;
}

/* Reads string attribute NAME of OBJ (malloc'd), or NULL. */
static char *string_attribute(hid_t obj, const char *name)
{
  hid_t attr, type, mem;
  char *s = NULL;
  if (H5Aexists(obj, name) <= 0) return NULL;
  attr = H5Aopen(obj, name, H5P_DEFAULT);
  type = H5Aget_type(attr);
  if (H5Tget_class(type) == H5T_STRING && !H5Tis_variable_str(type)) {
    size_t len = H5Tget_size(type);
    mem = H5Tcopy(type);
    s = calloc(len + 1, 1);
    H5Aread(attr, mem, s);
    H5Tclose(mem);
  }
  H5Tclose(type);
  H5Aclose(attr);
  return s;
}

/* Whether STAMP looks like 2024-05-01T12:34:56Z. */
static int iso_time(const char *stamp)
{
  int y, mo, d, h, mi, s;
  char z;
  return stamp && strlen(stamp) == 20 &&
         sscanf(stamp, "%4d-%2d-%2dT%2d:%2d:%2d%c", &y, &mo, &d, &h, &mi, &s, &z) == 7 && z == 'Z';
}

/* What the checks expect of a run file. */
struct expected {
  int64_t rows;     /* history rows: iterations 1..rows */
  int migrations;   /* 0: none, 1: those up to iteration 7 (a restart at 7), 2: the first
                       two calls, 3: those up to iteration 7, then the third call */
  int snapshots[2]; /* snapshot 5 and 10 present */
  int result;       /* /result present (second write) */
  int finished;     /* 'finished' present */
};

/* Checks the root attributes and the histories of run file FILE. */
static void check_history(hid_t file, const struct expected *e)
{
  hsize_t rows[2] = {(hsize_t)e->rows, (hsize_t)size};
  char *version = string_attribute(file, "version"), *config = string_attribute(file, "config");
  char *started = string_attribute(file, "started"), *finished = string_attribute(file, "finished");
  uint64_t seed = 0;
  int islands = 0;
  hid_t attr;
  CHECK(version && strcmp(version, IPSO_VERSION) == 0, "version '%s'", version ? version : "");
  CHECK(config && strcmp(config, config_text) == 0, "config attribute differs");
  CHECK(iso_time(started), "started '%s'", started ? started : "(none)");
  CHECK(e->finished ? iso_time(finished) : finished == NULL, "finished '%s'",
        finished ? finished : "(none)");
  attr = H5Aopen(file, "seed", H5P_DEFAULT);
  CHECK(attr >= 0 && H5Aread(attr, H5T_NATIVE_UINT64, &seed) >= 0 && seed == SEED, "seed");
  if (attr >= 0) H5Aclose(attr);
  attr = H5Aopen(file, "islands", H5P_DEFAULT);
  CHECK(attr >= 0 && H5Aread(attr, H5T_NATIVE_INT, &islands) >= 0 && islands == size, "islands");
  if (attr >= 0) H5Aclose(attr);
  free(version);
  free(config);
  free(started);
  free(finished);

  int64_t *its = read_dataset(file, "history/iteration", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, rows);
  double *ib =
      read_dataset(file, "history/island_best", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, rows);
  double *gb =
      read_dataset(file, "history/global_best", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, rows);
  int64_t *ev = read_dataset(file, "history/evaluations", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, rows);
  double *ws =
      read_dataset(file, "history/wall_seconds", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, rows);
  for (int64_t t = 0; its && ib && gb && ev && ws && t < e->rows; t++) {
    int64_t it = t + 1;
    CHECK(its[t] == it, "history/iteration[%" PRId64 "] = %" PRId64, t, its[t]);
    CHECK(gb[t] == island_best_at(0, it), "history/global_best[%" PRId64 "]", t);
    CHECK(ev[t] == it * PARTICLES * size, "history/evaluations[%" PRId64 "]", t);
    CHECK(ws[t] == 0.5 * (double)it, "history/wall_seconds[%" PRId64 "]", t);
    for (int i = 0; i < size; i++)
      CHECK(ib[t * size + i] == island_best_at(i, it), "history/island_best[%" PRId64 ", %d]", t,
            i);
  }
  free(its);
  free(ib);
  free(gb);
  free(ev);
  free(ws);

  /* Extendible and chunked. */
  hid_t dset = H5Dopen2(file, "history/island_best", H5P_DEFAULT);
  hid_t dcpl = H5Dget_create_plist(dset), space = H5Dget_space(dset);
  hsize_t maxdims[2] = {0, 0};
  H5Sget_simple_extent_dims(space, NULL, maxdims);
  CHECK(H5Pget_layout(dcpl) == H5D_CHUNKED && maxdims[0] == H5S_UNLIMITED,
        "island_best is not extendible and chunked");
  H5Sclose(space);
  H5Pclose(dcpl);
  H5Dclose(dset);
}

/* Migration rows of all three calls. */
static int all_migration_rows(void)
{
  int n = 0;
  for (int call = 0; call < 3; call++)
    for (int i = 0; i < size; i++) n += migrations_in(call, i);
  return n;
}

/* Order of the rows of one append: iteration, sender, receiver. */
static int migration_order(const void *a, const void *b)
{
  const struct migration_record *x = a, *y = b;
  if (x->iteration != y->iteration) return x->iteration < y->iteration ? -1 : 1;
  if (x->from != y->from) return x->from < y->from ? -1 : 1;
  return (x->to > y->to) - (x->to < y->to);
}

/* Checks that /migrations of FILE holds the N rows WANT. */
static void check_migration_rows(hid_t file, const struct migration_record *want, int n)
{
  hid_t mem = H5Tcreate(H5T_COMPOUND, sizeof(struct migration_record));
  H5Tinsert(mem, "iteration", offsetof(struct migration_record, iteration), H5T_NATIVE_INT64);
  H5Tinsert(mem, "from", offsetof(struct migration_record, from), H5T_NATIVE_INT32);
  H5Tinsert(mem, "to", offsetof(struct migration_record, to), H5T_NATIVE_INT32);
  H5Tinsert(mem, "best_fitness", offsetof(struct migration_record, best_fitness),
            H5T_NATIVE_DOUBLE);
  hid_t ftype = H5Tcreate(H5T_COMPOUND, 24);
  H5Tinsert(ftype, "iteration", 0, H5T_STD_I64LE);
  H5Tinsert(ftype, "from", 8, H5T_STD_I32LE);
  H5Tinsert(ftype, "to", 12, H5T_STD_I32LE);
  H5Tinsert(ftype, "best_fitness", 16, H5T_IEEE_F64LE);
  hsize_t dims[1] = {(hsize_t)n};
  struct migration_record *got = read_dataset(file, "migrations", ftype, mem, 1, dims);
  for (int i = 0; got && i < n; i++)
    CHECK(got[i].iteration == want[i].iteration && got[i].from == want[i].from &&
              got[i].to == want[i].to && got[i].best_fitness == want[i].best_fitness,
          "migration row %d: (%" PRId64 ", %d, %d, %g), expected (%" PRId64 ", %d, %d, %g)", i,
          got[i].iteration, got[i].from, got[i].to, got[i].best_fitness, want[i].iteration,
          want[i].from, want[i].to, want[i].best_fitness);
  H5Tclose(mem);
  H5Tclose(ftype);
  free(got);
}

/* Checks /migrations of run file FILE: each append's rows in the order
 * (iteration, from, to), appends in call order. */
static void check_migrations(hid_t file, const struct expected *e)
{
  int rows = all_migration_rows();
  struct migration_record *want = calloc((size_t)rows + 1, sizeof *want);
  struct migration_record *block = calloc((size_t)rows + 1, sizeof *block);
  int n = 0;
  for (int call = 0; call < 3 && e->migrations > 0; call++) {
    int m = 0;
    for (int i = 0; i < size; i++)
      for (int k = 0; k < migrations_in(call, i); k++) block[m++] = migration_at(call, i, k);
    qsort(block, (size_t)m, sizeof *block, migration_order);
    for (int k = 0; k < m; k++) {
      struct migration_record r = block[k];
      if (e->migrations == 2 ? call < 2 : r.iteration <= 7 || (call == 2 && e->migrations == 3))
        want[n++] = r;
    }
  }
  free(block);
  check_migration_rows(file, want, n);
  free(want);
}

/* Checks /snapshots/IT of run file FILE, written with SIGN. */
static void check_snapshot(hid_t file, int64_t it, double sign, int present)
{
  static const char *const names[5] = {"position", "velocity", "pbest_position", "fitness",
                                       "pbest_fitness"};
  char name[128];
  snprintf(name, sizeof name, "snapshots/%" PRId64, it);
  CHECK((H5Lexists(file, name, H5P_DEFAULT) > 0) == present, "%s present: %d, expected %d", name,
        H5Lexists(file, name, H5P_DEFAULT) > 0, present);
  if (!present) return;
  for (int a = 0; a < 5; a++) {
    int per_dim = a < 3;
    hsize_t dims[2] = {(hsize_t)(size * PARTICLES), DIMS};
    snprintf(name, sizeof name, "snapshots/%" PRId64 "/%s", it, names[a]);
    double *v = read_dataset(file, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, per_dim ? 2 : 1, dims);
    int64_t per_island = per_dim ? PARTICLES * DIMS : PARTICLES;
    for (int i = 0; v && i < size; i++)
      for (int64_t k = 0; k < per_island; k++) {
        double want = per_dim ? state_value(i, a, k, it) : sign * state_value(i, a, k, it);
        CHECK(v[i * per_island + k] == want, "%s[%" PRId64 "] of island %d", name, k, i);
      }
    free(v);
  }
}

/* Checks /result of run file FILE (the second result written). */
static void check_result(hid_t file, int present)
{
  hsize_t dims[1] = {DIMS};
  CHECK((H5Lexists(file, "result", H5P_DEFAULT) > 0) == present, "result present, expected %d",
        present);
  if (!present) return;
  double *pos =
      read_dataset(file, "result/best_position", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, dims);
  double *fit =
      read_dataset(file, "result/best_fitness", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, NULL);
  int *island = read_dataset(file, "result/island", H5T_STD_I32LE, H5T_NATIVE_INT, 0, NULL);
  int64_t *particle =
      read_dataset(file, "result/particle", H5T_STD_I64LE, H5T_NATIVE_INT64, 0, NULL);
  int64_t *it = read_dataset(file, "result/iteration", H5T_STD_I64LE, H5T_NATIVE_INT64, 0, NULL);
  int64_t *ev = read_dataset(file, "result/evaluations", H5T_STD_I64LE, H5T_NATIVE_INT64, 0, NULL);
  double *el =
      read_dataset(file, "result/elapsed_seconds", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, NULL);
  CHECK(pos && pos[0] == 0.125 && pos[1] == -0.25 && pos[2] == 3.0, "result/best_position");
  CHECK(fit && *fit == 0.015625, "result/best_fitness");
  CHECK(island && *island == size - 1, "result/island");
  CHECK(particle && *particle == 3, "result/particle");
  CHECK(it && *it == 10, "result/iteration");
  CHECK(ev && *ev == 10 * PARTICLES * size, "result/evaluations");
  CHECK(el && *el == 5.0, "result/elapsed_seconds");
  free(pos);
  free(fit);
  free(island);
  free(particle);
  free(it);
  free(ev);
  free(el);
}

/* Checks run file PATH against E, on rank 0 through serial access. */
static void check_run_file(const char *path, const struct expected *e)
{
  if (rank == 0) {
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(file >= 0, "cannot open %s", path);
    if (file >= 0) {
      check_history(file, e);
      check_migrations(file, e);
      check_snapshot(file, 5, 1.0, e->snapshots[0]);
      check_snapshot(file, 10, -1.0, e->snapshots[1]);
      check_result(file, e->result);
      H5Fclose(file);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Appends history rows for iterations FIRST..LAST to H. */
static int append_rows(struct h5out *h, int64_t first, int64_t last)
{
  int n = (int)(last - first + 1);
  int64_t its[16], ev[16];
  double ib[16], gb[16], ws[16];
  for (int t = 0; t < n; t++) {
    int64_t it = first + t;
    its[t] = it;
    ib[t] = island_best_at(rank, it);
    gb[t] = island_best_at(0, it);
    ev[t] = it * PARTICLES * size;
    ws[t] = 0.5 * (double)it;
  }
  return h5out_append_history(h, n, its, ib, gb, ev, ws);
}

/* Writes the run file of CFG as a short run would: histories in two
 * blocks, migrations in uneven calls, two snapshots, a result twice. */
static void write_run(const struct ipso_config *cfg)
{
  struct h5out *h = NULL;
  struct swarm_state s;
  struct migration_record rec[8];
  double best[DIMS] = {0.125, -0.25, 3.0}, other[DIMS] = {9, 9, 9};
  struct run_result r = {0.015625, best, DIMS, size - 1, 3, 10, 10 * PARTICLES * size, 5.0};
  struct run_result first = {1.0, other, DIMS, 0, 0, 5, 1, 1.0};
  int st = h5out_create(MPI_COMM_WORLD, cfg, 0, &h);
  expect_status(st, IPSO_OK, "h5out_create");
  if (st != IPSO_OK) return;
  expect_status(append_rows(h, 1, 7), IPSO_OK, "history block 1..7");
  for (int call = 0; call < 2; call++) {
    int n = migrations_in(call, rank);
    for (int k = 0; k < n; k++) rec[k] = migration_at(call, rank, k);
    expect_status(h5out_append_migrations(h, n, rec), IPSO_OK, "migrations");
    expect_status(h5out_append_migrations(h, 0, rec), IPSO_OK, "no migrations");
    if (call == 0) {
      CHECK(swarm_state_alloc(&s, PARTICLES, DIMS) == IPSO_OK, "allocating a swarm");
      fill_state(&s, rank, 5);
      expect_status(h5out_write_snapshot(h, 5, &s, 1.0), IPSO_OK, "snapshot 5");
      CHECK(h5out_history_rows(h) == 7, "%lld history rows, want 7",
            (long long)h5out_history_rows(h));
      expect_status(append_rows(h, 8, 10), IPSO_OK, "history block 8..10");
    }
  }
  fill_state(&s, rank, 10);
  expect_status(h5out_write_snapshot(h, 10, &s, -1.0), IPSO_OK, "snapshot 10");
  expect_status(h5out_write_result(h, &first), IPSO_OK, "result");
  expect_status(h5out_write_result(h, &r), IPSO_OK, "result again");
  expect_status(h5out_flush(h), IPSO_OK, "flush");
  expect_status(h5out_close(h, 1), IPSO_OK, "close");
  swarm_state_free(&s);
}

/* The output's refusals: an existing file, a bad directory. */
static void test_refusals(const struct ipso_config *cfg, const char *dir)
{
  struct ipso_config c = *cfg;
  struct h5out *h = NULL;
  struct file_image im;
  char over[IPSO_PATH_MAX];

  im = file_image(cfg->run.output);
  expect_status(h5out_create(MPI_COMM_WORLD, cfg, 0, &h), IPSO_ERR_USAGE, "existing output");
  CHECK(h == NULL, "handle after a refusal");
  CHECK(unchanged(cfg->run.output, &im), "the refused output was altered");
  free(im.bytes);

  /* --overwrite replaces a copy with a new, empty run. */
  path_in(over, dir, "over.h5");
  copy_file(cfg->run.output, over, -1);
  snprintf(c.run.output, sizeof c.run.output, "%s", over);
  expect_status(h5out_create(MPI_COMM_WORLD, &c, 1, &h), IPSO_OK, "overwrite");
  if (h) expect_status(h5out_close(h, 0), IPSO_OK, "close the overwritten output");
  struct expected empty = {0, 0, {0, 0}, 0, 0};
  check_run_file(over, &empty);

  path_in(c.run.output, dir, "missing/run.h5");
  expect_status(h5out_create(MPI_COMM_WORLD, &c, 1, &h), IPSO_ERR_USAGE, "missing directory");
  CHECK(!exists(c.run.output), "created under a missing directory");
  path_in(c.run.output, cfg->run.output, "x.h5");
  expect_status(h5out_create(MPI_COMM_WORLD, &c, 1, &h), IPSO_ERR_USAGE, "a file as directory");
  path_in(c.run.output, dir, "");
  expect_status(h5out_create(MPI_COMM_WORLD, &c, 1, &h), IPSO_ERR_USAGE, "a directory as output");
  if (geteuid() != 0) {
    char ro[IPSO_PATH_MAX];
    path_in(ro, dir, "readonly");
    if (rank == 0) mkdir(ro, 0555);
    MPI_Barrier(MPI_COMM_WORLD);
    path_in(c.run.output, ro, "run.h5");
    expect_status(h5out_create(MPI_COMM_WORLD, &c, 0, &h), IPSO_ERR_USAGE, "unwritable directory");
    CHECK(!exists(c.run.output), "created in an unwritable directory");
    if (rank == 0) rmdir(ro);
  } else if (rank == 0) {
    printf("test_h5out: running as root, the unwritable-directory case is not testable\n");
  }
  CHECK(h == NULL, "handle after a refusal");
}

/* Restart: the output cut back to iteration 7, then continued. */
static void test_reopen(const struct ipso_config *cfg, const char *dir)
{
  struct ipso_config c = *cfg;
  struct h5out *h = NULL;
  struct file_image im;
  MPI_Comm half;

  path_in(c.run.output, dir, "restart.h5");
  copy_file(cfg->run.output, c.run.output, -1);
  expect_status(h5out_reopen(MPI_COMM_WORLD, &c, 7, &h), IPSO_OK, "reopen at 7");
  if (h) expect_status(h5out_close(h, 0), IPSO_OK, "close after reopen");
  struct expected cut = {7, 1, {1, 0}, 0, 0};
  check_run_file(c.run.output, &cut);

  /* Continued in the same session as the cut: new rows follow the kept
   * ones. Then cut back again. */
  copy_file(cfg->run.output, c.run.output, -1);
  h = NULL;
  expect_status(h5out_reopen(MPI_COMM_WORLD, &c, 7, &h), IPSO_OK, "reopen at 7 again");
  if (h) {
    struct migration_record rec[2];
    int n = migrations_in(2, rank);
    for (int k = 0; k < n; k++) rec[k] = migration_at(2, rank, k);
    expect_status(append_rows(h, 8, 9), IPSO_OK, "history after reopen");
    expect_status(h5out_append_migrations(h, n, rec), IPSO_OK, "migrations after reopen");
    expect_status(h5out_close(h, 1), IPSO_OK, "close after appending");
  }
  struct expected continued = {9, 3, {1, 0}, 0, 1};
  check_run_file(c.run.output, &continued);
  h = NULL;
  expect_status(h5out_reopen(MPI_COMM_WORLD, &c, 7, &h), IPSO_OK, "reopen the continued run");
  if (h) expect_status(h5out_close(h, 0), IPSO_OK, "close the continued run");
  check_run_file(c.run.output, &cut);

  /* A run of another size, a missing file, a file that is not HDF5. */
  im = file_image(c.run.output);
  if (size > 1) {
    MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2 ? 0 : 1, rank, &half);
    if (rank < size / 2) {
      h = NULL;
      int st = h5out_reopen(half, &c, 7, &h);
      CHECK(st == IPSO_ERR_USAGE && h == NULL, "reopen with other islands: status %d", st);
    }
    MPI_Comm_free(&half);
  }
  CHECK(unchanged(c.run.output, &im), "a refused restart altered the output");
  free(im.bytes);
  path_in(c.run.output, dir, "absent.h5");
  expect_status(h5out_reopen(MPI_COMM_WORLD, &c, 7, &h), IPSO_ERR_USAGE, "reopen a missing file");
  path_in(c.run.output, dir, "text.h5");
  write_text_file(c.run.output);
  expect_status(h5out_reopen(MPI_COMM_WORLD, &c, 7, &h), IPSO_ERR_USAGE, "reopen a text file");
}

/* Whether A and B hold the same swarm, bit for bit. */
static int same_state(const struct swarm_state *a, const struct swarm_state *b)
{
  size_t nd = (size_t)a->particles * (size_t)a->dims * sizeof(double);
  size_t n = (size_t)a->particles * sizeof(double);
  return a->particles == b->particles && a->dims == b->dims &&
         memcmp(a->position, b->position, nd) == 0 && memcmp(a->velocity, b->velocity, nd) == 0 &&
         memcmp(a->pbest_position, b->pbest_position, nd) == 0 &&
         memcmp(a->cost, b->cost, n) == 0 && memcmp(a->pbest_cost, b->pbest_cost, n) == 0;
}

/* Reads checkpoint PATH with config C on COMM and expects WANT. */
static void expect_read(MPI_Comm comm, const char *path, const struct ipso_config *c, int want,
                        const char *what)
{
  struct checkpoint_info info;
  struct swarm_state s;
  int st = checkpoint_read(comm, path, c, &info, &s);
  CHECK(st == want, "%s: status %d, expected %d", what, st, want);
  if (st == IPSO_OK) swarm_state_free(&s);
}

/* 64-bit FNV-1a over N doubles taken as 64-bit words (written out here
 * again, apart from the writer's, from the format's description). */
static uint64_t fnv_words(uint64_t h, const double *x, int64_t n)
{
  for (int64_t i = 0; i < n; i++) {
    uint64_t w;
    memcpy(&w, &x[i], sizeof w);
    h = (h ^ w) * UINT64_C(0x100000001b3);
  }
  return h;
}

/* An island's checksum as the file's units say: in pieces (or over all its
 * words at once, the older kind). */
static uint64_t island_sum(const struct swarm_state *s, int pieces)
{
  const uint64_t offset = UINT64_C(0xcbf29ce484222325);
  const int64_t nd = s->particles * s->dims;
  const double *arr[5] = {s->position, s->velocity, s->pbest_position, s->cost, s->pbest_cost};
  const int64_t len[5] = {nd, nd, nd, s->particles, s->particles};
  uint64_t h = offset;
  for (int a = 0; a < 5; a++) {
    if (!pieces) {
      h = fnv_words(h, arr[a], len[a]);
      continue;
    }
    for (int64_t at = 0; at < len[a]; at += STATE_PIECE_ELEMENTS) {
      int64_t n = len[a] - at < STATE_PIECE_ELEMENTS ? len[a] - at : STATE_PIECE_ELEMENTS;
      h = (h ^ fnv_words(offset, arr[a] + at, n)) * UINT64_C(0x100000001b3);
    }
  }
  return h;
}

/* Replaces every island's checksum in PATH by SUM (each rank's own
 * island's) and the dataset's units by UNITS (collective; rank 0 writes). */
static void rewrite_checksum(const char *path, uint64_t sum, const char *units)
{
  uint64_t *all = malloc((size_t)size * sizeof *all);
  MPI_Gather(&sum, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (rank != 0) {
    free(all);
    MPI_Barrier(MPI_COMM_WORLD);
    return;
  }
  hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  hid_t dset = file >= 0 ? H5Dopen2(file, "checksum", H5P_DEFAULT) : -1;
  hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR), attr = -1;
  int ok = dset >= 0 &&
           H5Dwrite(dset, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, all) >= 0 &&
           H5Tset_size(type, strlen(units)) >= 0 && H5Adelete(dset, "units") >= 0 &&
           (attr = H5Acreate2(dset, "units", type, space, H5P_DEFAULT, H5P_DEFAULT)) >= 0 &&
           H5Awrite(attr, type, units) >= 0;
  CHECK(ok, "rewriting the checksum of '%s'", path);
  if (attr >= 0) H5Aclose(attr);
  H5Sclose(space);
  H5Tclose(type);
  if (dset >= 0) H5Dclose(dset);
  if (file >= 0) H5Fclose(file);
  free(all);
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Rank 0: island 0's checksum and the checksum dataset's units in PATH. */
static uint64_t stored_checksum(const char *path, char *units, size_t len)
{
  uint64_t sum = 0;
  hsize_t islands[1] = {(hsize_t)size};
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t dset = file >= 0 ? H5Dopen2(file, "checksum", H5P_DEFAULT) : -1;
  uint64_t *all = dset >= 0
                      ? read_dataset(file, "checksum", H5T_STD_U64LE, H5T_NATIVE_UINT64, 1, islands)
                      : NULL;
  char *u = dset >= 0 ? string_attribute(dset, "units") : NULL;
  CHECK(all && u, "reading the checksums of '%s'", path);
  if (all) sum = all[0];
  snprintf(units, len, "%s", u ? u : "");
  free(all);
  free(u);
  if (dset >= 0) H5Dclose(dset);
  if (file >= 0) H5Fclose(file);
  return sum;
}

/* Writes S as the checkpoint of C with INFO through a writer of its own,
 * as the solver does: copied into the buffer, written. */
static int write_checkpoint(const struct ipso_config *c, const struct checkpoint_info *info,
                            const struct swarm_state *s)
{
  struct checkpoint_writer *w = NULL;
  struct swarm_state *buf = NULL;
  int st = checkpoint_writer_create(MPI_COMM_WORLD, c, &w);
  if (st == IPSO_OK) st = checkpoint_writer_buffer(w, &buf);
  for (int a = 0; st == IPSO_OK && a < state_arrays_of(s); a++) {
    const struct state_array *sa = &state_arrays[a];
    memcpy(state_array_data(sa, buf), state_array_data(sa, s),
           (size_t)state_array_island(sa, s->particles, s->dims) * sizeof(double));
  }
  if (st == IPSO_OK) st = checkpoint_write(w, info);
  checkpoint_writer_free(w);
  return st;
}

/* A checkpoint of several pieces per array: it reads back bit for bit;
 * its checksums are the format's (recomputed here); a checkpoint summed
 * the older way (over all the words) is still read, and a wrong sum
 * refused; the next one keeps it as .prev. */
static void test_checkpoint_pieces(const struct ipso_config *cfg)
{
  struct ipso_config c = *cfg;
  /* 2 pieces of each row array (1.2 M elements), 1 of each cost array. */
  c.swarm.particles = 400000;
  struct checkpoint_info info = {77, 0, 3.5, -1, 10, "2026-01-01T00:00:00Z", "0123456789abcdef",
                                 0,  0},
                         got;
  info.evaluations = (int64_t)size * c.swarm.particles * 78;
  struct swarm_state s, back;
  const char *path = c.output.checkpoint;
  char units[128] = "", prev[IPSO_PATH_MAX + 8];
  CHECK(swarm_state_alloc(&s, c.swarm.particles, DIMS) == IPSO_OK, "allocating a swarm");
  fill_swarm(&s, rank, 77);
  expect_status(write_checkpoint(&c, &info, &s), IPSO_OK, "writing a checkpoint of pieces");
  int st = checkpoint_read(MPI_COMM_WORLD, path, &c, &got, &back);
  expect_status(st, IPSO_OK, "reading a checkpoint of pieces");
  if (st == IPSO_OK) {
    CHECK(got.iteration == 77 && same_state(&s, &back), "the pieces read back differ");
    swarm_state_free(&back);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    uint64_t sum = stored_checksum(path, units, sizeof units);
    CHECK(sum == island_sum(&s, 1), "island 0's checksum %016" PRIx64 ", recomputed %016" PRIx64,
          sum, island_sum(&s, 1));
    CHECK(strstr(units, "piece") != NULL, "units '%s'", units);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  rewrite_checksum(path, island_sum(&s, 0), "FNV-1a over 64-bit words");
  expect_read(MPI_COMM_WORLD, path, &c, IPSO_OK, "a checkpoint summed over all the words");
  MPI_Barrier(MPI_COMM_WORLD);
  rewrite_checksum(path, island_sum(&s, 1), "FNV-1a over 64-bit words");
  expect_read(MPI_COMM_WORLD, path, &c, IPSO_ERR_USAGE, "a sum of the wrong kind");
  MPI_Barrier(MPI_COMM_WORLD);
  /* The next checkpoint replaces it and keeps it as .prev. */
  fill_swarm(&s, rank, 78);
  info.iteration = 78;
  info.evaluations = (int64_t)size * c.swarm.particles * 79;
  expect_status(write_checkpoint(&c, &info, &s), IPSO_OK, "writing the next checkpoint");
  st = checkpoint_read(MPI_COMM_WORLD, path, &c, &got, &back);
  expect_status(st, IPSO_OK, "reading the next checkpoint");
  if (st == IPSO_OK) {
    CHECK(got.iteration == 78 && same_state(&s, &back), "the next checkpoint reads back differ");
    swarm_state_free(&back);
  }
  snprintf(prev, sizeof prev, "%s.prev", path);
  expect_read(MPI_COMM_WORLD, prev, &c, IPSO_ERR_USAGE, "the .prev with the wrong kind of sum");
  swarm_state_free(&s);
}

/* Checkpoints: round trip, .prev, and every refusal. */
static void test_checkpoint(const struct ipso_config *cfg, const char *dir)
{
  struct ipso_config c = *cfg;
  struct checkpoint_info info = {42, 0, 12.5, -1, 10, "2026-01-01T00:00:00Z", "0123456789abcdef",
                                 0,  0},
                         got;
  info.evaluations = (int64_t)size * PARTICLES * 43;
  struct swarm_state s, back;
  char path[IPSO_PATH_MAX], copy[IPSO_PATH_MAX];
  struct file_image im;
  double lower2[DIMS], shift2[3];
  MPI_Comm half;

  CHECK(swarm_state_alloc(&s, PARTICLES, DIMS) == IPSO_OK, "allocating a swarm");
  fill_swarm(&s, rank, 42);
  /* Values that only a bit-exact copy keeps (within what a swarm holds). */
  s.cost[0] = INFINITY;
  s.cost[1] = s.pbest_cost[1] = -0.0;
  s.pbest_cost[2] = 4.9e-324;
  s.position[3] = upper_bounds[0];
  s.velocity[4] = -0.0;
  snprintf(path, sizeof path, "%s", cfg->output.checkpoint);

  expect_status(write_checkpoint(&c, &info, &s), IPSO_OK, "checkpoint_write");
  path_with(copy, path, ".tmp");
  CHECK(exists(path) && !exists(copy), "after a write: %s and no .tmp", path);
  path_with(copy, path, ".prev");
  CHECK(!exists(copy), "a first checkpoint has no .prev");
  int st = checkpoint_read(MPI_COMM_WORLD, path, &c, &got, &back);
  expect_status(st, IPSO_OK, "checkpoint_read");
  if (st == IPSO_OK) {
    CHECK(same_state(&s, &back), "the state read back differs");
    CHECK(got.iteration == 42 && got.evaluations == info.evaluations &&
              got.elapsed_seconds == 12.5 && got.target_iteration == -1 && got.history_rows == 10 &&
              !got.migration_rows_known,
          "info read back differs");
    swarm_state_free(&back);
  }

  /* A second checkpoint keeps the first as .prev. */
  info.iteration = 43;
  info.evaluations = (int64_t)size * PARTICLES * 44;
  info.migration_rows = 6;
  info.migration_rows_known = 1;
  s.velocity[0] = -1.5;
  expect_status(write_checkpoint(&c, &info, &s), IPSO_OK, "second write");
  CHECK(exists(copy), ".prev after a second write");
  st = checkpoint_read(MPI_COMM_WORLD, copy, &c, &got, &back);
  expect_status(st, IPSO_OK, "reading .prev");
  if (st == IPSO_OK) {
    CHECK(got.iteration == 42, ".prev holds iteration %" PRId64, got.iteration);
    swarm_state_free(&back);
  }
  st = checkpoint_read(MPI_COMM_WORLD, path, &c, &got, &back);
  expect_status(st, IPSO_OK, "reading the second");
  if (st == IPSO_OK) {
    CHECK(got.iteration == 43 && same_state(&s, &back) && got.migration_rows_known &&
              got.migration_rows == 6,
          "second checkpoint read back");
    swarm_state_free(&back);
  }

  im = file_image(path);
  /* Damaged copies. */
  path_in(copy, dir, "truncated.h5");
  copy_file(path, copy, (long)(im.len / 2));
  expect_read(MPI_COMM_WORLD, copy, &c, IPSO_ERR_USAGE, "truncated checkpoint");
  path_in(copy, dir, "cut.h5");
  copy_file(path, copy, (long)im.len - 1);
  expect_read(MPI_COMM_WORLD, copy, &c, IPSO_ERR_USAGE, "checkpoint one byte short");
  path_in(copy, dir, "flipped.h5");
  copy_file(path, copy, -1);
  flip_byte(copy, data_offset(copy, "position") + (long)((size - 1) * PARTICLES * DIMS) * 8 + 3);
  expect_read(MPI_COMM_WORLD, copy, &c, IPSO_ERR_USAGE, "bit flip in position");
  copy_file(path, copy, -1);
  flip_byte(copy, data_offset(copy, "pbest_cost") + 8 * 2);
  expect_read(MPI_COMM_WORLD, copy, &c, IPSO_ERR_USAGE, "bit flip in pbest_cost");
  path_in(copy, dir, "absent.h5");
  expect_read(MPI_COMM_WORLD, copy, &c, IPSO_ERR_USAGE, "missing checkpoint");
  path_in(copy, dir, "text.h5");
  write_text_file(copy);
  expect_read(MPI_COMM_WORLD, copy, &c, IPSO_ERR_USAGE, "text file as checkpoint");

  /* Another problem. */
  c.objective.dimensions = DIMS - 1;
  expect_read(MPI_COMM_WORLD, path, &c, IPSO_ERR_USAGE, "other dimensions");
  c = *cfg;
  c.swarm.particles = PARTICLES + 1;
  expect_read(MPI_COMM_WORLD, path, &c, IPSO_ERR_USAGE, "other particles");
  c = *cfg;
  snprintf(c.objective.name, sizeof c.objective.name, "sphere");
  expect_read(MPI_COMM_WORLD, path, &c, IPSO_ERR_USAGE, "other objective");
  c = *cfg;
  c.objective.goal = IPSO_MAXIMIZE;
  expect_read(MPI_COMM_WORLD, path, &c, IPSO_ERR_USAGE, "other goal");
  c = *cfg;
  c.run.precision = IPSO_FLOAT;
  expect_read(MPI_COMM_WORLD, path, &c, IPSO_ERR_USAGE, "other precision");
  c = *cfg;
  memcpy(lower2, lower_bounds, sizeof lower2);
  lower2[2] = -4.5;
  c.objective.lower = lower2;
  expect_read(MPI_COMM_WORLD, path, &c, IPSO_ERR_USAGE, "other bounds");
  c = *cfg;
  memcpy(shift2, shift_values, sizeof shift2);
  shift2[1] = -1.5;
  c.objective.params[0].values = shift2;
  expect_read(MPI_COMM_WORLD, path, &c, IPSO_ERR_USAGE, "other parameter values");
  c = *cfg;
  c.objective.nparams = 0;
  expect_read(MPI_COMM_WORLD, path, &c, IPSO_ERR_USAGE, "no parameters");
  if (size > 1) {
    MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2 ? 0 : 1, rank, &half);
    if (rank < size / 2) expect_read(half, path, cfg, IPSO_ERR_USAGE, "other islands");
    MPI_Comm_free(&half);
  }

  /* Another seed is another run: refused. */
  c = *cfg;
  c.run.seed = SEED + 1;
  expect_read(MPI_COMM_WORLD, path, &c, IPSO_ERR_USAGE, "another seed");

  /* Changed algorithm settings are allowed (with warnings). */
  c = *cfg;
  c.swarm.inertia = 0.5;
  c.swarm.kernel = IPSO_KERNEL_REDUCTION;
  c.migration.interval = 8;
  expect_read(MPI_COMM_WORLD, path, &c, IPSO_OK, "changed settings");
  CHECK(unchanged(path, &im), "reading altered the checkpoint");

  /* An objective without parameters. */
  c = *cfg;
  c.objective.nparams = 0;
  path_in(c.output.checkpoint, dir, "noparams.h5");
  expect_status(write_checkpoint(&c, &info, &s), IPSO_OK, "write, no parameters");
  expect_read(MPI_COMM_WORLD, c.output.checkpoint, &c, IPSO_OK, "read, no parameters");
  expect_read(MPI_COMM_WORLD, c.output.checkpoint, cfg, IPSO_ERR_USAGE, "parameters added");

  /* The iteration, counts and identity under their checksum, and what
   * they and the state hold to. */
  c = *cfg;
  path_in(c.output.checkpoint, dir, "edited.h5");
  const char *names[] = {"iteration", "evaluations", "history_rows", "target_iteration",
                         "migration_rows"};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    expect_status(write_checkpoint(&c, &info, &s), IPSO_OK, "write to edit");
    set_attribute(c.output.checkpoint, names[k], 7);
    char what[96];
    snprintf(what, sizeof what, "'%s' edited", names[k]);
    expect_read(MPI_COMM_WORLD, c.output.checkpoint, &c, IPSO_ERR_USAGE, what);
  }
  expect_status(write_checkpoint(&c, &info, &s), IPSO_OK, "write to edit");
  delete_attribute(c.output.checkpoint, "format");
  expect_read(MPI_COMM_WORLD, c.output.checkpoint, &c, IPSO_ERR_USAGE, "no 'format' (format 1)");
  struct checkpoint_info odd = info;
  odd.evaluations += 1;
  expect_status(write_checkpoint(&c, &odd, &s), IPSO_OK, "write, odd evaluations");
  expect_read(MPI_COMM_WORLD, c.output.checkpoint, &c, IPSO_ERR_USAGE, "evaluations off");
  odd = info;
  odd.target_iteration = info.iteration + 1;
  expect_status(write_checkpoint(&c, &odd, &s), IPSO_OK, "write, late target");
  expect_read(MPI_COMM_WORLD, c.output.checkpoint, &c, IPSO_ERR_USAGE, "target after iteration");
  odd = info;
  odd.history_rows = info.iteration + 2;
  expect_status(write_checkpoint(&c, &odd, &s), IPSO_OK, "write, many rows");
  expect_read(MPI_COMM_WORLD, c.output.checkpoint, &c, IPSO_ERR_USAGE, "more rows than iterations");
  /* A state that no swarm holds, with its checksums written to match: on
   * the last rank only, so that every rank must agree on the refusal. */
  struct {
    const char *what;
    double *at, value;
  } bad[] = {{"position above the bound", &s.position[4], upper_bounds[1] + 1e-9},
             {"personal best below the bound", &s.pbest_position[5], lower_bounds[2] - 0.5},
             {"velocity beyond the clamp", &s.velocity[6], 0.2 * 10.24 * 1.01},
             {"NaN cost", &s.cost[3], NAN},
             {"personal best worse than the cost", &s.pbest_cost[4], s.cost[4] + 1}};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    double keep = *bad[k].at;
    if (rank == size - 1) *bad[k].at = bad[k].value;
    expect_status(write_checkpoint(&c, &info, &s), IPSO_OK, "write a bad state");
    expect_read(MPI_COMM_WORLD, c.output.checkpoint, &c, IPSO_ERR_USAGE, bad[k].what);
    *bad[k].at = keep;
  }
  expect_status(write_checkpoint(&c, &info, &s), IPSO_OK, "write, state restored");
  expect_read(MPI_COMM_WORLD, c.output.checkpoint, &c, IPSO_OK, "the state restored");

  /* A checkpoint that cannot be written leaves the last one alone. */
  c = *cfg;
  path_in(c.output.checkpoint, dir, "missing/ckpt.h5");
  expect_status(write_checkpoint(&c, &info, &s), IPSO_ERR_RUNTIME,
                "checkpoint in a missing directory");
  CHECK(unchanged(path, &im), "the checkpoint was altered");
  free(im.bytes);
  swarm_state_free(&s);
}

/* The output's identity while the run goes on: its path names the file
 * the run opened; moved away and replaced, deleted, put back. */
static void test_identity(const struct ipso_config *cfg, const char *dir)
{
  struct ipso_config c = *cfg;
  struct h5out *h = NULL;
  char moved[IPSO_PATH_MAX], why[8192];
  path_in(c.run.output, dir, "identity.h5");
  path_in(moved, dir, "identity-moved.h5");
  expect_status(h5out_create(MPI_COMM_WORLD, &c, 0, &h), IPSO_OK, "create, identity");
  if (!h) return;
  expect_status(h5out_check_identity(h), IPSO_OK, "the file just opened");
  if (rank == 0) CHECK(rename(c.run.output, moved) == 0, "moving the output away");
  write_text_file(c.run.output);
  expect_status(h5out_check_identity(h), IPSO_ERR_RUNTIME, "another file at the path");
  if (rank == 0) {
    CHECK(h5out_identity_lost(h, why, sizeof why) && strstr(why, "is no longer the file"),
          "reason '%s'", why);
    unlink(c.run.output);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  expect_status(h5out_check_identity(h), IPSO_ERR_RUNTIME, "the path gone");
  if (rank == 0) {
    CHECK(h5out_identity_lost(h, why, sizeof why) && strstr(why, "is gone"), "reason '%s'", why);
    CHECK(rename(moved, c.run.output) == 0, "putting the output back");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  expect_status(h5out_check_identity(h), IPSO_OK, "the file put back");
  expect_status(h5out_close(h, 0), IPSO_OK, "close, identity");
}

/* Record K of rank R at iteration IT in test_regular_migrations. */
static struct migration_record regular_record(int64_t it, int r, int k)
{
  struct migration_record m = {it, r, k, (double)it + 0.5 * r + 0.125 * k};
  return m;
}

/* Migration records of a shape every rank shares (the same migrations, a
 * fixed number each, which differs between ranks: 1 + rank % 3), whose
 * rows each rank's share receives from the others, in two appends; then
 * an uneven one (rank r r records, none on rank 0) and one of a shared
 * shape whose senders run against the ranks' order, both gathered: the
 * table holds each append's records in (iteration, from, to) order. */
static void test_regular_migrations(const struct ipso_config *cfg, const char *dir)
{
  struct ipso_config c = *cfg;
  path_in(c.run.output, dir, "regular.h5");
  struct h5out *h = NULL;
  expect_status(h5out_create(MPI_COMM_WORLD, &c, 0, &h), IPSO_OK, "h5out_create regular.h5");
  if (!h) return;
  const int64_t firsts[2] = {10, 60}, events[2] = {5, 3};
  int total = 0, cap = 64 * size + 64;
  struct migration_record *want = malloc((size_t)cap * sizeof *want), mine[64];
  for (int call = 0; call < 4; call++) {
    int n = 0, start = total;
    for (int r = 0; r < size; r++) {
      int per = call < 2 ? 1 + r % 3 : call == 2 ? r : 2;
      int64_t first = call < 2 ? firsts[call] : call == 2 ? 90 : 100;
      for (int64_t e = 0; e < (call < 2 ? events[call] : call == 2 ? 1 : 2); e++)
        for (int k = 0; k < per; k++) {
          /* The last append's senders in the reverse of the ranks' order:
           * regular in shape, but its rows are not the ranks' blocks. */
          struct migration_record m =
              regular_record(first + 10 * e, call == 3 ? size - 1 - r : r, k);
          if (r == rank && n < 64) mine[n++] = m;
          if (total < cap) want[total++] = m;
        }
    }
    qsort(want + start, (size_t)(total - start), sizeof *want, migration_order);
    expect_status(h5out_append_migrations(h, n, mine), IPSO_OK, "regular migrations");
  }
  CHECK(h5out_migration_rows(h) == total, "%lld migration rows, want %d",
        (long long)h5out_migration_rows(h), total);
  expect_status(h5out_close(h, 0), IPSO_OK, "close regular.h5");
  if (rank == 0) {
    hid_t file = H5Fopen(c.run.output, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(file >= 0, "opening %s", c.run.output);
    if (file >= 0) {
      check_migration_rows(file, want, total);
      H5Fclose(file);
    }
  }
  free(want);
}

/* Removes DIR and the files the test leaves in it; KEEP names one to keep. */
static void clean(const char *dir, const char *keep)
{
  static const char *const names[] = {
      "run.h5",       "over.h5",     "restart.h5",   "absent.h5",      "text.h5",    "ckpt.h5",
      "ckpt.h5.prev", "ckpt.h5.tmp", "truncated.h5", "cut.h5",         "flipped.h5", "noparams.h5",
      "snapfail.h5",  "regular.h5",  "edited.h5",    "edited.h5.prev", "identity.h5"};
  char path[IPSO_PATH_MAX];
  if (rank != 0) return;
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    if (keep && strcmp(names[i], keep) == 0) continue;
    path_in(path, dir, names[i]);
    unlink(path);
  }
  if (!keep) rmdir(dir);
}

int main(int argc, char **argv)
{
  char dir[IPSO_PATH_MAX];
  struct ipso_config cfg;
  int total;
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  log_init(rank, size);
  if (argc > 1) {
    snprintf(dir, sizeof dir, "%s", argv[1]);
  } else {
    const char *tmp = getenv("TMPDIR");
    if (rank == 0) {
      snprintf(dir, sizeof dir, "%s/ipso-h5test.XXXXXX", tmp && *tmp ? tmp : "/tmp");
      if (!mkdtemp(dir)) {
        perror("mkdtemp");
        dir[0] = '\0';
      }
    }
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!dir[0]) MPI_Abort(MPI_COMM_WORLD, 1);
  }
  fake_config(&cfg, dir);

  write_run(&cfg);
  struct expected full = {10, 2, {1, 1}, 1, 1};
  check_run_file(cfg.run.output, &full);
  test_refusals(&cfg, dir);
  test_reopen(&cfg, dir);
  test_checkpoint(&cfg, dir);
  test_checkpoint_pieces(&cfg);
  test_regular_migrations(&cfg, dir);
  test_identity(&cfg, dir);

  clean(dir, argc > 1 ? "run.h5" : NULL);
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("test_h5out: %d ranks, %d failed checks\n", size, total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}

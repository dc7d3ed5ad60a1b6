/* Reading a checkpoint (checkpoint_read): the verdicts on the file, each
 * agreed by every rank, then the state and every island's checksum over what
 * it read. The layout is in checkpoint.c. */
#include "checkpoint.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint_internal.h"
#include "h5util.h"
#include "state_arrays.h"

/* Rank 0's first look at checkpoint PATH: a readable regular HDF5 file.
 * Otherwise IPSO_ERR_USAGE with the reason in WHY. */
static int probe(const char *path, char *why, size_t len)
{
  struct stat sb;
  char text[512];
  if (stat(path, &sb) != 0) return h5u_reason(why, len, "%s", strerror(errno));
  if (!S_ISREG(sb.st_mode)) return h5u_reason(why, len, "not a regular file");
  if (access(path, R_OK) != 0) return h5u_reason(why, len, "%s", strerror(errno));
#if H5_VERSION_GE(1, 12, 0)
  htri_t hdf5 = H5Fis_accessible(path, H5P_DEFAULT);
#else
  htri_t hdf5 = H5Fis_hdf5(path);
#endif
  if (hdf5 > 0) return IPSO_OK;
  if (hdf5 == 0) return h5u_reason(why, len, "not an HDF5 file");
  h5u_error_text(text, sizeof text);
  return h5u_reason(why, len, "cannot be read (%s)", text);
}

/* Puts HDF5's reason for not opening a checkpoint (HDF5) in the user's
 * terms into WHY. */
static void explain_open_failure(const char *hdf5, char *why, size_t len)
{
  unsigned long long eof, base, stored;
  const char *t = strstr(hdf5, "truncated file");
  if (t && sscanf(t, "truncated file: eof = %llu, sblock->base_addr = %llu, stored_eof = %llu",
                  &eof, &base, &stored) == 3)
    snprintf(why, len, "truncated: %llu bytes of %llu (written incompletely, or cut short since)",
             eof, stored);
  else if (t)
    snprintf(why, len, "truncated (written incompletely, or cut short since)");
  else
    snprintf(why, len, "cannot be opened as HDF5 (%s)", hdf5);
}

/* The reason to refuse a file without root attribute NAME; IPSO_ERR_USAGE. */
static int missing_attr(const char *name, char *why, size_t len)
{
  return h5u_reason(
      why, len, "attribute '%s' is missing or unreadable (not an islandpso checkpoint, or damaged)",
      name);
}

/* Reads root attribute NAME (one value) into V, or refuses the file
 * (missing_attr). */
static int need_attr(const struct h5u_file *f, const char *name, hid_t mem_type, void *v, char *why,
                     size_t len)
{
  return h5u_read_attr(f->id, name, mem_type, 1, v) >= 0 ? IPSO_OK : missing_attr(name, why, len);
}

/* The velocity clamps a checkpoint was written with (swarm.velocity_clamp). */
struct clamps {
  int n;
  double v[IPSO_MAX_CLAMPS];
};

/* Reads attribute velocity_clamp (1 to IPSO_MAX_CLAMPS values) into C. */
static int need_clamps(const struct h5u_file *f, struct clamps *c, char *why, size_t len)
{
  c->n = (int)h5u_attr_length(f->id, "velocity_clamp");
  int ok = c->n >= 1 && c->n <= IPSO_MAX_CLAMPS &&
           h5u_read_attr(f->id, "velocity_clamp", H5T_NATIVE_DOUBLE, (hsize_t)c->n, c->v) == 0;
  return ok ? IPSO_OK : missing_attr("velocity_clamp", why, len);
}

/* Opens dataset NAME, which must have RANK dimensions DIMS and type class
 * CLS; IPSO_ERR_USAGE with the reason in WHY otherwise. */
static int need_dataset(const struct h5u_file *f, const char *name, int rank, const hsize_t *dims,
                        H5T_class_t cls, hid_t *dset, char *why, size_t len)
{
  hid_t space = H5I_INVALID_HID, type = H5I_INVALID_HID;
  hsize_t got[2] = {0, 0};
  int ok;
  *dset = H5Dopen2(f->id, name, H5P_DEFAULT);
  if (*dset < 0)
    return h5u_reason(why, len, "dataset '%s' is missing (not an islandpso checkpoint, or damaged)",
                      name);
  space = H5Dget_space(*dset);
  type = H5Dget_type(*dset);
  ok = space >= 0 && type >= 0 && H5Tget_class(type) == cls &&
       H5Sget_simple_extent_ndims(space) == rank &&
       H5Sget_simple_extent_dims(space, got, NULL) >= 0;
  for (int d = 0; ok && d < rank; d++) ok = got[d] == dims[d];
  if (type >= 0) H5Tclose(type);
  if (space >= 0) H5Sclose(space);
  if (ok) return IPSO_OK;
  H5Dclose(*dset);
  *dset = H5I_INVALID_HID;
  char shape[48];
  snprintf(shape, sizeof shape, rank == 2 ? "%llu, %llu" : "%llu", (unsigned long long)dims[0],
           (unsigned long long)(rank == 2 ? dims[1] : 0));
  return h5u_reason(why, len, "dataset '%s' is not [%s] %s values (damaged)", name, shape,
                    cls == H5T_FLOAT ? "floating-point" : "integer");
}

/* Whether A and B are the same value (NaNs alike). */
static int same_double(double a, double b)
{
  return a == b || (isnan(a) && isnan(b));
}

/* Formats V into BUF (32 bytes) with the fewest digits that read back as V. */
static const char *format_double(char buf[32], double v)
{
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(buf, 32, "%.*g", digits, v);
    if (strtod(buf, NULL) == v) break;
  }
  return buf;
}

/* Root attribute NAME of class CLS (one number or a string) as a config
 * writes it, into BUF (N bytes, at least 32); see need_attr. */
static int need_text(const struct h5u_file *f, const char *name, H5T_class_t cls, char *buf,
                     size_t n, char *why, size_t len)
{
  int64_t i;
  double v;
  char *text;
  if (cls == H5T_STRING) {
    if (!(text = h5u_read_attr_string(f->id, name))) return missing_attr(name, why, len);
    snprintf(buf, n, "%s", text);
    free(text);
  } else if (cls == H5T_INTEGER) {
    IPSO_TRY(need_attr(f, name, H5T_NATIVE_INT64, &i, why, len));
    format_double(buf, (double)i);
  } else {
    IPSO_TRY(need_attr(f, name, H5T_NATIVE_DOUBLE, &v, why, len));
    format_double(buf, v);
  }
  return IPSO_OK;
}

/* Refuses the file where element I of WHAT is THEN in it and NOW in the
 * config. */
static int same_value(const char *what, int64_t i, double then, double now, char *why, size_t len)
{
  char a[32], b[32];
  if (same_double(then, now)) return IPSO_OK;
  return h5u_reason(why, len, "%s[%" PRId64 "] is %s in the checkpoint, %s in the config", what, i,
                    format_double(a, then), format_double(b, now));
}

/* Reads [N] doubles of dataset NAME into a malloc'd *OUT (every rank
 * reads all of them); IPSO_ERR_USAGE if it is missing or of another size. */
static int read_vector(const struct h5u_file *f, const char *name, int64_t n, double **out,
                       char *why, size_t len)
{
  hsize_t dims[1] = {(hsize_t)n}, start[2] = {0, 0}, count[2] = {(hsize_t)n, 0};
  hid_t dset;
  int st = need_dataset(f, name, 1, dims, H5T_FLOAT, &dset, why, len);
  *out = NULL;
  if (st != IPSO_OK) return st;
  *out = malloc((size_t)(n > 0 ? n : 1) * sizeof **out);
  st = *out ? h5u_read(f, dset, H5T_NATIVE_DOUBLE, start, count, *out)
            : IPSO_FAIL("checkpoint", "'%s': out of memory", f->path);
  return H5U_CLOSE(f, st, dset);
}

/* Compares the bounds and the objective parameters of the checkpoint with
 * the config's (writers). */
static int check_vectors(const struct h5u_file *f, const struct ipso_config *cfg, char *why,
                         size_t len)
{
  const struct ipso_objective_config *o = &cfg->objective;
  double *lower = NULL, *upper = NULL, *values = NULL;
  int64_t *lengths = NULL, total = 0;
  char *names = NULL, what[PARAM_NAME_BYTES + 32];
  hid_t dset = H5I_INVALID_HID, name_type = H5I_INVALID_HID;
  int np, st = read_vector(f, "lower", o->dimensions, &lower, why, len);
  if (st == IPSO_OK) st = read_vector(f, "upper", o->dimensions, &upper, why, len);
  for (int d = 0; st == IPSO_OK && d < o->dimensions; d++) {
    st = same_value("lower", d, lower[d], o->lower[d], why, len);
    if (st == IPSO_OK) st = same_value("upper", d, upper[d], o->upper[d], why, len);
  }
  if (st != IPSO_OK) goto done;

  /* The parameters: the same names, each with the same values. */
  st = h5u_reason(why, len, "the objective parameters are missing or unreadable (damaged)");
  dset = H5Dopen2(f->id, "objective_params", H5P_DEFAULT);
  np = dset < 0 ? -1 : (int)h5u_attr_length(dset, "names");
  if (np < 0) goto done;
  if (np != o->nparams) {
    h5u_reason(why, len, "written with %d objective parameter%s, the config has %d", np,
               np == 1 ? "" : "s", o->nparams);
    goto done;
  }
  lengths = malloc((size_t)(np > 0 ? np : 1) * sizeof *lengths);
  names = calloc((size_t)(np > 0 ? np : 1), PARAM_NAME_BYTES + 1);
  if (!lengths || !names) {
    st = IPSO_FAIL("checkpoint", "'%s': out of memory", f->path);
    goto done;
  }
  name_type = H5Tcopy(H5T_C_S1);
  if (name_type < 0 || H5Tset_size(name_type, PARAM_NAME_BYTES + 1) < 0 ||
      h5u_read_attr(dset, "names", name_type, (hsize_t)np, names) < 0 ||
      h5u_read_attr(dset, "lengths", H5T_NATIVE_INT64, (hsize_t)np, lengths) < 0)
    goto done;
  for (int p = 0; p < np; p++) {
    if (lengths[p] < 0) goto done;
    total += lengths[p];
  }
  st = read_vector(f, "objective_params", total, &values, why, len);
  for (int q = 0; q < o->nparams && st == IPSO_OK; q++) {
    const struct ipso_param *c = &o->params[q];
    int64_t at = 0;
    int p = 0;
    for (; p < np && strcmp(names + (size_t)p * (PARAM_NAME_BYTES + 1), c->name) != 0; p++)
      at += lengths[p];
    if (p == np)
      st = h5u_reason(why, len, "objective parameter '%s' of the config is not in the checkpoint",
                      c->name);
    else if (lengths[p] != c->len)
      st = h5u_reason(why, len,
                      "objective parameter '%s' has %" PRId64 " values in the checkpoint, %" PRId64
                      " in the config",
                      c->name, lengths[p], c->len);
    snprintf(what, sizeof what, "objective parameter '%s'", c->name);
    for (int64_t i = 0; i < c->len && st == IPSO_OK; i++)
      st = same_value(what, i, values[at + i], c->values[i], why, len);
  }
done:
  free(lower);
  free(upper);
  free(values);
  free(lengths);
  free(names);
  return H5U_CLOSE(f, st, dset, name_type);
}

/* The N clamps V as a config writes them: "x" or "[x, y, ...]". */
static char *format_clamps(char *buf, size_t len, int n, const double *v)
{
  size_t at = 0;
  char x[32];
  const char *open = n > 1 ? "[" : "", *close = n > 1 ? "]" : "";
  for (int i = 0; i < n && at < len; i++)
    at += (size_t)snprintf(buf + at, len - at, "%s%s%s", i ? ", " : open, format_double(x, v[i]),
                           i == n - 1 ? close : "");
  return buf;
}

/* "global", "mean", "ring, K neighbours on each side", "mixed, ..." or
 * "clpso, exemplars refreshed every R iterations". */
static char *describe_topology(char *buf, size_t len, const char *topology, int k, int r)
{
  if (strcmp(topology, "ring") == 0 || strcmp(topology, "mixed") == 0)
    snprintf(buf, len, "%s, %d neighbours on each side", topology, k);
  else if (strcmp(topology, "clpso") == 0)
    snprintf(buf, len, "clpso, exemplars refreshed every %d iterations", r);
  else
    snprintf(buf, len, "%s", topology);
  return buf;
}

/* Compares the algorithm settings of the checkpoint (its clamps in CLAMP)
 * with the config's and warns from rank 0 about each change (writers). */
static int check_settings(const struct h5u_file *f, const struct ipso_config *cfg,
                          const struct clamps *clamp, char *why, size_t len)
{
  const struct ipso_swarm_config *sw = &cfg->swarm;
  const struct ipso_migration_config *mg = &cfg->migration;
  char num[7][32], clamps[2][IPSO_MAX_CLAMPS * 40], topology[2][96], then[96];
  uint64_t seed;
  int k, r;
  IPSO_TRY(need_attr(f, "seed", H5T_NATIVE_UINT64, &seed, why, len));
  if (seed != cfg->run.seed)
    return h5u_reason(why, len,
                      "it belongs to a run with seed %" PRIu64 ", the config's seed is %" PRIu64
                      ": another run (continue it with run.seed = %" PRIu64 ")",
                      seed, cfg->run.seed, seed);
  IPSO_TRY(need_attr(f, "neighbours", H5T_NATIVE_INT, &k, why, len));
  IPSO_TRY(need_attr(f, "refresh", H5T_NATIVE_INT, &r, why, len));
  IPSO_TRY(need_text(f, "swarm_topology", H5T_STRING, then, sizeof then, why, len));
  const struct {
    const char *key;  /* the setting, as the warning names it */
    const char *name; /* its root attribute (NULL: THEN is given) */
    H5T_class_t cls;
    const char *then, *now;
  } settings[] = {
      {"inertia", "inertia", H5T_FLOAT, NULL, format_double(num[0], sw->inertia)},
      {"cognitive", "cognitive", H5T_FLOAT, NULL, format_double(num[1], sw->cognitive)},
      {"social", "social", H5T_FLOAT, NULL, format_double(num[2], sw->social)},
      {"velocity_clamp", NULL, 0, format_clamps(clamps[0], sizeof clamps[0], clamp->n, clamp->v),
       format_clamps(clamps[1], sizeof clamps[1], sw->nclamps, sw->velocity_clamp)},
      {"kernel", "kernel", H5T_STRING, NULL, config_kernel_name(sw->kernel)},
      {"sync", "sync", H5T_STRING, NULL, config_sync_name(sw->sync)},
      {"topology", "topology", H5T_STRING, NULL, config_topology_name(mg->topology)},
      {"policy", "policy", H5T_STRING, NULL, config_policy_name(mg->policy)},
      {"swarm.topology", NULL, 0, describe_topology(topology[0], sizeof topology[0], then, k, r),
       describe_topology(topology[1], sizeof topology[1], config_swarm_topology_name(sw->topology),
                         sw->neighbours, sw->refresh)},
      {"migration.probability", "probability", H5T_FLOAT, NULL,
       format_double(num[3], mg->probability)},
      {"migration.select", "select", H5T_STRING, NULL, config_select_name(mg->select)},
      /* A constant inertia is the schedule that ends where it starts. */
      {"inertia_end", "inertia_end", H5T_FLOAT, NULL,
       format_double(num[4], sw->has_inertia_end ? sw->inertia_end : sw->inertia)},
      {"migration.interval", "migration_interval", H5T_INTEGER, NULL,
       format_double(num[5], (double)mg->interval)},
      {"migration.migrants", "migrants", H5T_INTEGER, NULL, format_double(num[6], mg->migrants)},
      /* Checkpoints from before the eigen frames have no "frame": the axes. */
      {"frame", "frame", H5T_STRING, H5Aexists(f->id, "frame") > 0 ? NULL : "axes",
       config_frame_name(sw->frame)},
  };
  for (size_t i = 0; i < sizeof settings / sizeof *settings; i++) {
    const char *was = settings[i].then;
    if (!was)
      IPSO_TRY(need_text(f, settings[i].name, settings[i].cls, then, sizeof then, why, len));
    if (f->rank == 0 && strcmp(was ? was : then, settings[i].now) != 0)
      log_warn("checkpoint '%s' was written with %s = %s; continuing with %s", f->path,
               settings[i].key, was ? was : then, settings[i].now);
  }
  return IPSO_OK;
}

/* Reads INFO from F and checks that its iteration, counts and identity are
 * covered by the file's checksum over them and agree with each other and
 * with CFG's problem (writers). IPSO_ERR_USAGE with the reason in WHY if not. */
static int check_counts(const struct h5u_file *f, const struct ipso_config *cfg,
                        struct checkpoint_info *info, char *why, size_t len)
{
  int64_t rows;
  uint64_t sum;
  const int islands = config_islands(cfg, f->size);
  const int64_t N = cfg->swarm.particles;
  IPSO_TRY(need_attr(f, "iteration", H5T_NATIVE_INT64, &info->iteration, why, len));
  IPSO_TRY(need_attr(f, "evaluations", H5T_NATIVE_INT64, &info->evaluations, why, len));
  IPSO_TRY(need_attr(f, "elapsed_seconds", H5T_NATIVE_DOUBLE, &info->elapsed_seconds, why, len));
  IPSO_TRY(need_attr(f, "target_iteration", H5T_NATIVE_INT64, &info->target_iteration, why, len));
  IPSO_TRY(need_attr(f, "history_rows", H5T_NATIVE_INT64, &info->history_rows, why, len));
  IPSO_TRY(need_text(f, "run_started", H5T_STRING, info->run_started, sizeof info->run_started, why,
                     len));
  IPSO_TRY(need_text(f, "objective_hash", H5T_STRING, info->objective_hash,
                     sizeof info->objective_hash, why, len));
  IPSO_TRY(need_attr(f, "migration_rows", H5T_NATIVE_INT64, &rows, why, len));
  IPSO_TRY(need_attr(f, "info_checksum", H5T_NATIVE_UINT64, &sum, why, len));
  info->migration_rows = rows;
  info->migration_rows_known = rows >= 0;
  if (sum != checkpoint_info_checksum(info, islands, N, cfg->objective.dimensions, cfg->run.seed))
    return h5u_reason(why, len,
                      "its iteration (%" PRId64
                      "), counts or identity do not match the checksum over "
                      "them (altered since it was written)",
                      info->iteration);
  /* What every checkpoint of a run holds to. */
  const int64_t t = info->iteration;
  const int overflow = t > INT64_MAX / ((int64_t)islands * N) - 1;
  if (t < 0) return h5u_reason(why, len, "iteration %" PRId64 " is negative", t);
  if (overflow || info->evaluations != (int64_t)islands * N * (t + 1))
    return h5u_reason(why, len,
                      "%" PRId64 " evaluations at iteration %" PRId64
                      ", where %d islands of %" PRId64 " particles make %" PRId64,
                      info->evaluations, t, islands, N,
                      overflow ? INT64_MAX : (int64_t)islands * N * (t + 1));
  if (!(info->elapsed_seconds >= 0) || isinf(info->elapsed_seconds))
    return h5u_reason(why, len, "the run time so far, %g s, is not a time", info->elapsed_seconds);
  if (info->target_iteration < -1 || info->target_iteration > t)
    return h5u_reason(
        why, len, "the target was reached at iteration %" PRId64 ", after its iteration %" PRId64,
        info->target_iteration, t);
  if (info->history_rows < 0 || info->history_rows > t + 1)
    return h5u_reason(why, len,
                      "%" PRId64 " history rows up to iteration %" PRId64
                      " (at most one per iteration: %" PRId64 ")",
                      info->history_rows, t, t + 1);
  if (rows < -1) return h5u_reason(why, len, "%" PRId64 " migration rows", rows);
  return IPSO_OK;
}

/* Checks that checkpoint F was written for the problem of CFG with as many
 * islands, and reads INFO and the writing run's CLAMP (writers).
 * IPSO_ERR_USAGE with the reason in WHY if not; changed algorithm settings
 * are warned about from rank 0. */
static int check_problem(const struct h5u_file *f, const struct ipso_config *cfg,
                         struct checkpoint_info *info, struct clamps *clamp, char *why, size_t len)
{
  const struct ipso_objective_config *o = &cfg->objective;
  const struct {
    const char *key;
    const char *now;
    const char *what;
  } strings[] = {
      {"objective", o->name, "objective"},
      {"function", o->function, "user function"},
      {"goal", config_goal_name(o->goal), "goal"},
      {"precision", config_precision_name(cfg->run.precision), "precision"},
  };
  int64_t particles;
  int islands, dims, format = 1;
  char then[IPSO_NAME_MAX + 1]; /* longer than any name of the config */
  IPSO_TRY(need_text(f, "version", H5T_STRING, then, sizeof then, why, len));
  if (f->rank == 0 && strcmp(then, IPSO_VERSION) != 0)
    log_warn("checkpoint '%s' was written by islandpso %s; this is %s", f->path, then,
             IPSO_VERSION);
  /* Every checkpoint of this format holds every attribute read here. */
  if (h5u_read_attr(f->id, "format", H5T_NATIVE_INT, 1, &format) != 0) format = 1;
  if (format < CHECKPOINT_FORMAT)
    return h5u_reason(
        why, len,
        "written by an earlier islandpso (checkpoint format %d), whose iteration and counts "
        "no checksum covers, so they cannot be verified; continue it with the islandpso "
        "that wrote it, or start afresh",
        format);
  if (format > CHECKPOINT_FORMAT)
    return h5u_reason(why, len,
                      "written by a later islandpso (checkpoint format %d; this one reads %d)",
                      format, CHECKPOINT_FORMAT);
  IPSO_TRY(need_attr(f, "islands", H5T_NATIVE_INT, &islands, why, len));
  if (islands != config_islands(cfg, f->size))
    return h5u_reason(why, len, "written by %d islands, the run has %d (run.islands)", islands,
                      config_islands(cfg, f->size));
  IPSO_TRY(need_attr(f, "dimensions", H5T_NATIVE_INT, &dims, why, len));
  if (dims != o->dimensions)
    return h5u_reason(why, len, "written for %d dimensions, the config has %d", dims,
                      o->dimensions);
  IPSO_TRY(need_attr(f, "particles", H5T_NATIVE_INT64, &particles, why, len));
  if (particles != cfg->swarm.particles)
    return h5u_reason(why, len,
                      "written for %" PRId64 " particles per island, the config has %" PRId64,
                      particles, cfg->swarm.particles);
  for (size_t i = 0; i < sizeof strings / sizeof *strings; i++) {
    IPSO_TRY(need_text(f, strings[i].key, H5T_STRING, then, sizeof then, why, len));
    if (strcmp(then, strings[i].now) != 0)
      return h5u_reason(why, len, "written for %s '%s', the config has '%s'", strings[i].what, then,
                        strings[i].now);
  }
  IPSO_TRY(check_vectors(f, cfg, why, len));
  IPSO_TRY(need_clamps(f, clamp, why, len));
  IPSO_TRY(check_settings(f, cfg, clamp, why, len));
  return check_counts(f, cfg, info, why, len);
}

/* Opens the state datasets and then the checksums into DSETS, checking
 * their shapes (writers); the frames where the file has them. */
static int open_state(const struct h5u_file *f, int islands, int64_t particles, int dims,
                      hid_t dsets[STATE_ARRAYS + 1], char *why, size_t len)
{
  hsize_t n[1] = {(hsize_t)islands};
  for (int a = 0; a < STATE_ARRAYS; a++) {
    const struct state_array *sa = &state_arrays[a];
    hsize_t rows[2] = {(hsize_t)islands * (hsize_t)(sa->frame ? dims : particles), (hsize_t)dims};
    if (sa->frame && H5Lexists(f->id, sa->name, H5P_DEFAULT) <= 0) continue;
    IPSO_TRY(need_dataset(f, sa->name, state_array_rank(sa), rows, H5T_FLOAT, &dsets[a], why, len));
  }
  return need_dataset(f, "checksum", 1, n, H5T_INTEGER, &dsets[STATE_ARRAYS], why, len);
}

/* Whether X (a coordinate of the run's precision, held as a double) lies
 * within [LO, HI], the bounds as that precision holds them. */
static int within(double x, double lo, double hi, int fl)
{
  if (fl) {
    lo = (float)lo;
    hi = (float)hi;
  }
  return x >= lo && x <= hi;
}

/* The first of the rank's islands in S (global ids FIRST on, N particles
 * each) whose state breaks what every swarm holds to: positions and
 * personal bests within the bounds, velocities within the island's clamp
 * (of CLAMP, the writing run's velocity_clamp), costs that are not NaN (the run
 * keeps NaN as +infinity), no personal best worse than its current cost.
 * Its global id with the reason in WHY, or INT_MAX. */
static int check_state(const struct ipso_config *cfg, const struct swarm_state *s, int first,
                       int64_t N, const struct clamps *clamp, char *why, size_t len)
{
  const struct ipso_objective_config *o = &cfg->objective;
  const int D = o->dimensions, fl = cfg->run.precision == IPSO_FLOAT;
  for (int64_t i = 0; i < s->particles; i++) {
    const int island = first + (int)(i / N);
    const int64_t p = i % N;
    const double *x = s->position + (size_t)i * D, *v = s->velocity + (size_t)i * D,
                 *b = s->pbest_position + (size_t)i * D;
    for (int d = 0; d < D; d++) {
      double vmax = clamp->v[island % clamp->n] * (o->upper[d] - o->lower[d]);
      if (fl) vmax = (float)vmax;
      char val[32], lo[32], hi[32];
      const int outside_x = !within(x[d], o->lower[d], o->upper[d], fl);
      if (outside_x || !within(b[d], o->lower[d], o->upper[d], fl))
        snprintf(why, len,
                 "island %d particle %" PRId64 " dimension %d: %s %s outside the bounds [%s, "
                 "%s] (altered, or not a swarm of this problem)",
                 island, p, d, outside_x ? "position" : "personal best",
                 format_double(val, outside_x ? x[d] : b[d]), format_double(lo, o->lower[d]),
                 format_double(hi, o->upper[d]));
      else if (!(fabs(v[d]) <= vmax))
        snprintf(why, len,
                 "island %d particle %" PRId64 " dimension %d: velocity %s beyond the clamp %s "
                 "(altered, or not a swarm of this problem)",
                 island, p, d, format_double(val, v[d]), format_double(hi, vmax));
      else
        continue;
      return island;
    }
    char c[32], pc[32];
    if (isnan(s->cost[i]) || isnan(s->pbest_cost[i]))
      snprintf(why, len,
               "island %d particle %" PRId64 ": a cost is NaN (the run keeps NaN as +inf)", island,
               p);
    else if (s->pbest_cost[i] > s->cost[i])
      snprintf(why, len,
               "island %d particle %" PRId64 ": personal best cost %s worse than its current cost "
               "%s (a personal best never is)",
               island, p, format_double(pc, s->pbest_cost[i]), format_double(c, s->cost[i]));
    else
      continue;
    return island;
  }
  return INT_MAX;
}

/* Prints the refusal of checkpoint PATH (from rank 0) and returns
 * IPSO_ERR_USAGE. */
static int refuse(int rank, const char *path, const char *why)
{
  return H5U_USER_ERROR(rank, "islandpso: error: checkpoint '%s': %s", path,
                        why[0] ? why : "refused by another rank");
}

/* Opens checkpoint F and reaches every verdict on it short of its state,
 * agreed by every rank: reads INFO, the writing run's CLAMP and the
 * checksums' kind (PIECES), and opens the state datasets and the checksums
 * (DSETS, open_state). On a verdict, the file is closed again. */
static int open_checked(struct h5u_file *f, const struct ipso_config *cfg,
                        struct checkpoint_info *info, struct clamps *clamp, int *pieces,
                        hid_t dsets[STATE_ARRAYS + 1], char *why, size_t len)
{
  const int islands = config_islands(cfg, f->size);
  char hdf5[512];
  int st = IPSO_OK;
  if (f->rank == 0) st = probe(f->path, why, len);
  IPSO_TRY(island_agree(f->comm, st));
  if (h5u_open(f, H5U_READ, hdf5, sizeof hdf5) != IPSO_OK) {
    explain_open_failure(hdf5, why, len);
    st = IPSO_ERR_USAGE;
  }
  IPSO_TRY(island_agree(f->comm, st));
  st = check_problem(f, cfg, info, clamp, why, len);
  if (st == IPSO_OK)
    st = open_state(f, islands, cfg->swarm.particles, cfg->objective.dimensions, dsets, why, len);
  st = island_agree(f->comm, st);
  if (st != IPSO_OK) {
    h5u_close_ids(f, IPSO_OK, dsets, STATE_ARRAYS + 1);
    h5u_close(f);
    return st;
  }
  /* The checksums' algorithm, by the units of the dataset: in pieces, or
   * (older files) over all the words. Byte-wise sums came before format 2. */
  char *units = h5u_read_attr_string(dsets[STATE_ARRAYS], "units");
  *pieces = units && !strcmp(units, CHECKSUM_UNITS_PIECES);
  free(units);
  IPSO_CHECK_MPI(MPI_Bcast(pieces, 1, MPI_INT, 0, f->comm));
  IPSO_CHECK_MPI(MPI_Bcast(info, (int)sizeof *info, MPI_BYTE, 0, f->comm));
  IPSO_CHECK_MPI(MPI_Bcast(clamp, (int)sizeof *clamp, MPI_BYTE, 0, f->comm));
  return IPSO_OK;
}

/* Reads the state of this rank's K islands (rows of islands r*K .. r*K + K
 * - 1, one block) into S and closes the file; *BAD is the first of them
 * whose checksum does not match what was read (INT_MAX: none). S holds
 * the file's eigen frames where it has them (their checksums need them),
 * else with FRAMES the axes. A runtime failure leaves at once (h5util.h). */
static int read_state(struct h5u_file *f, int K, int64_t N, int dims, int pieces, int frames,
                      hid_t dsets[STATE_ARRAYS + 1], struct swarm_state *s, int *bad)
{
  const int islands = K * f->size, have = dsets[STATE_SWARM_ARRAYS] >= 0;
  const size_t DD = (size_t)dims * (size_t)dims;
  uint64_t *sums = NULL;
  int st = IPSO_ERR_RUNTIME;
  IPSO_TRY(swarm_state_alloc(s, K * N, dims));
  if (frames || have) IPSO_TRY(swarm_state_alloc_frames(s, K));
  for (size_t e = 0; frames && !have && e < (size_t)K * DD; e++)
    s->frame[e] = (double)(e % DD % ((size_t)dims + 1) == 0);
  if (!(sums = malloc((size_t)islands * sizeof *sums)))
    return IPSO_FAIL("checkpoint", "'%s': out of memory", f->path);
  for (int a = 0; a < STATE_ARRAYS; a++)
    if (dsets[a] >= 0 &&
        h5u_read_island_rows(f, dsets[a], H5T_NATIVE_DOUBLE,
                             state_arrays[a].frame ? (int64_t)K * dims : s->particles,
                             state_array_width(&state_arrays[a], s->dims),
                             state_array_data(&state_arrays[a], s)) != IPSO_OK)
      goto done;
  hsize_t start[2] = {0, 0}, count[2] = {(hsize_t)islands, 0};
  if (h5u_read(f, dsets[STATE_ARRAYS], H5T_NATIVE_UINT64, start, count, sums) != IPSO_OK) goto done;
  IPSO_CHECK_MPI_GOTO(MPI_Bcast(sums, islands, MPI_UINT64_T, 0, f->comm), st, done);
  *bad = INT_MAX;
  for (int k = K - 1; k >= 0; k--) {
    struct swarm_state v = swarm_state_island(s, N, k);
    if (!have) v.frame = NULL; /* not in the file's sums */
    if (checkpoint_island_checksum(&v, pieces) != sums[f->rank * K + k]) *bad = f->rank * K + k;
  }
  st = h5u_close_ids(f, IPSO_OK, dsets, STATE_ARRAYS + 1);
  if (h5u_close(f) != IPSO_OK) st = IPSO_ERR_RUNTIME;
done:
  free(sums);
  return st;
}

int checkpoint_read(MPI_Comm comm, const char *path, const struct ipso_config *cfg,
                    struct checkpoint_info *info, struct swarm_state *s)
{
  struct h5u_file f;
  hid_t dsets[STATE_ARRAYS + 1]; /* the state's, then the checksums' */
  char why[1024] = "";
  struct clamps clamp;
  int pieces, bad = INT_MAX, st;
  memset(s, 0, sizeof *s);
  memset(info, 0, sizeof *info);
  for (int a = 0; a <= STATE_ARRAYS; a++) dsets[a] = H5I_INVALID_HID;
  h5u_init(&f, comm, path);
  /* The islands are a multiple of the ranks (config_validate). */
  const int islands = config_islands(cfg, f.size), K = islands / f.size;
  const int64_t N = cfg->swarm.particles;
  st = open_checked(&f, cfg, info, &clamp, &pieces, dsets, why, sizeof why);
  if (st != IPSO_OK) return st == IPSO_ERR_USAGE ? refuse(f.rank, path, why) : st;
  st = read_state(&f, K, N, cfg->objective.dimensions, pieces, cfg->swarm.frame != IPSO_FRAME_AXES,
                  dsets, s, &bad);
  /* The first island whose checksum fails, else the first whose state
   * breaks what every swarm holds to (ranked after every checksum), with
   * its reason from the rank that holds it. */
  if (st == IPSO_OK) {
    why[0] = '\0';
    if (bad != INT_MAX) {
      snprintf(why, sizeof why, "checksum of island %d does not match (file altered or truncated)",
               bad);
    } else {
      bad = check_state(cfg, s, f.rank * K, N, &clamp, why, sizeof why);
      if (bad != INT_MAX) bad += islands;
    }
    IPSO_CHECK_MPI_GOTO(MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MIN, comm), st, done);
    if (bad != INT_MAX) {
      IPSO_CHECK_MPI_GOTO(MPI_Bcast(why, (int)sizeof why, MPI_CHAR, bad % islands / K, comm), st,
                          done);
      st = refuse(f.rank, path, why);
    }
  }
  /* The output this checkpoint continues, where it is that run's. */
  if (st == IPSO_OK) st = checkpoint_check_output(comm, path, cfg->run.output, info);
done:
  if (st != IPSO_OK) swarm_state_free(s);
  return st;
}

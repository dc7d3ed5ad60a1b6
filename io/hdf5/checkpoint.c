/* Checkpoints: every island's swarm in one HDF5 file of its own, with the
 * problem it was written for and a checksum per island. Layout (datasets
 * contiguous, so a reader can find their bytes):
 *   /                  attributes: the run's counts and identity, the problem
 *                      and the algorithm's settings (checkpoint_write_identity)
 *   /lower, /upper     [D] float64, the bounds
 *   /objective_params  [sum of lengths] float64; attributes names [P], lengths [P]
 *   /position, /velocity, /pbest_position [islands*N, D], /cost, /pbest_cost
 *                      [islands*N] float64 (costs: lower is better)
 *   /checksum          [islands] uint64, over each island's rows of the five
 * Rows are island-major in global island order: island i owns rows i*N ..
 * (i+1)*N - 1 wherever it ran. */
#include "checkpoint.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint_internal.h"
#include "h5util.h"
#include "state_arrays.h"

/* Continues the 64-bit FNV-1a hash H over the N bytes of the little-endian
 * form of V (the file's order), so the sum is the same on any host. */
static uint64_t hash_le(uint64_t h, uint64_t v, int n)
{
  for (int b = 0; b < n; b++) h = (h ^ ((v >> (8 * b)) & 0xffu)) * FNV_PRIME;
  return h;
}

/* Continues H over N doubles, each taken as one 64-bit word. */
static uint64_t fnv_words(uint64_t h, const double *x, int64_t n)
{
  for (int64_t i = 0; i < n; i++) {
    uint64_t bits;
    memcpy(&bits, &x[i], sizeof bits);
    h = checkpoint_fold_piece(h, bits);
  }
  return h;
}

uint64_t checkpoint_piece_sum(const double *x, int64_t n)
{
  return fnv_words(FNV_OFFSET, x, n);
}

uint64_t checkpoint_island_checksum(const struct swarm_state *s, int pieces)
{
  uint64_t h = FNV_OFFSET;
  for (int a = 0; a < state_arrays_of(s); a++) {
    const double *x = state_array_data(&state_arrays[a], s);
    const int64_t n = state_array_island(&state_arrays[a], s->particles, s->dims);
    if (!pieces) h = fnv_words(h, x, n);
    for (int64_t at = 0; pieces && at < n; at += STATE_PIECE_ELEMENTS)
      h = checkpoint_fold_piece(h, checkpoint_piece_sum(x + at, state_piece_length(n, at)));
  }
  return h;
}

/* Continues H over the string S with its terminating NUL. */
static uint64_t hash_string(uint64_t h, const char *s)
{
  do h = hash_le(h, (unsigned char)*s, 1);
  while (*s++);
  return h;
}

uint64_t checkpoint_info_checksum(const struct checkpoint_info *info, int islands,
                                  int64_t particles, int dims, uint64_t seed)
{
  uint64_t elapsed, h = FNV_OFFSET;
  memcpy(&elapsed, &info->elapsed_seconds, sizeof elapsed);
  int64_t migration_rows = info->migration_rows_known ? info->migration_rows : -1;
  const uint64_t words[] = {CHECKPOINT_FORMAT,
                            (uint64_t)info->iteration,
                            (uint64_t)info->evaluations,
                            elapsed,
                            (uint64_t)info->target_iteration,
                            (uint64_t)info->history_rows,
                            (uint64_t)migration_rows,
                            (uint64_t)islands,
                            (uint64_t)particles,
                            (uint64_t)dims,
                            seed};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) h = hash_le(h, words[i], 8);
  h = hash_string(h, info->run_started);
  return hash_string(h, info->objective_hash);
}

int checkpoint_write_identity(const struct h5u_file *f, const struct ipso_config *cfg,
                              const struct checkpoint_info *info)
{
  const struct ipso_objective_config *o = &cfg->objective;
  const int islands = config_islands(cfg, f->size);
  /* A constant inertia is the schedule that ends where it starts. */
  const double inertia_end =
      cfg->swarm.has_inertia_end ? cfg->swarm.inertia_end : cfg->swarm.inertia;
  const int format = CHECKPOINT_FORMAT;
  const int64_t migration_rows = info->migration_rows_known ? info->migration_rows : -1;
  const uint64_t info_sum =
      checkpoint_info_checksum(info, islands, cfg->swarm.particles, o->dimensions, cfg->run.seed);
  const struct {
    const char *name;
    hid_t type; /* H5T_C_S1: a string */
    const void *value;
  } attrs[] = {
      {"iteration", H5T_NATIVE_INT64, &info->iteration},
      {"evaluations", H5T_NATIVE_INT64, &info->evaluations},
      {"elapsed_seconds", H5T_NATIVE_DOUBLE, &info->elapsed_seconds},
      {"target_iteration", H5T_NATIVE_INT64, &info->target_iteration},
      {"history_rows", H5T_NATIVE_INT64, &info->history_rows},
      {"migration_rows", H5T_NATIVE_INT64, &migration_rows},
      {"format", H5T_NATIVE_INT, &format},
      {"info_checksum", H5T_NATIVE_UINT64, &info_sum},
      {"dimensions", H5T_NATIVE_INT, &o->dimensions},
      {"particles", H5T_NATIVE_INT64, &cfg->swarm.particles},
      {"islands", H5T_NATIVE_INT, &islands},
      {"seed", H5T_NATIVE_UINT64, &cfg->run.seed},
      {"inertia", H5T_NATIVE_DOUBLE, &cfg->swarm.inertia},
      {"cognitive", H5T_NATIVE_DOUBLE, &cfg->swarm.cognitive},
      {"social", H5T_NATIVE_DOUBLE, &cfg->swarm.social},
      {"migration_interval", H5T_NATIVE_INT64, &cfg->migration.interval},
      {"migrants", H5T_NATIVE_INT, &cfg->migration.migrants},
      {"probability", H5T_NATIVE_DOUBLE, &cfg->migration.probability},
      {"neighbours", H5T_NATIVE_INT, &cfg->swarm.neighbours},
      {"refresh", H5T_NATIVE_INT, &cfg->swarm.refresh},
      {"inertia_end", H5T_NATIVE_DOUBLE, &inertia_end},
      {"version", H5T_C_S1, IPSO_VERSION},
      {"config", H5T_C_S1, cfg->text},
      {"objective", H5T_C_S1, o->name},
      {"function", H5T_C_S1, o->function},
      {"goal", H5T_C_S1, config_goal_name(o->goal)},
      {"precision", H5T_C_S1, config_precision_name(cfg->run.precision)},
      {"kernel", H5T_C_S1, config_kernel_name(cfg->swarm.kernel)},
      {"sync", H5T_C_S1, config_sync_name(cfg->swarm.sync)},
      {"swarm_topology", H5T_C_S1, config_swarm_topology_name(cfg->swarm.topology)},
      {"frame", H5T_C_S1, config_frame_name(cfg->swarm.frame)},
      {"topology", H5T_C_S1, config_topology_name(cfg->migration.topology)},
      {"select", H5T_C_S1, config_select_name(cfg->migration.select)},
      {"policy", H5T_C_S1, config_policy_name(cfg->migration.policy)},
      {"run_started", H5T_C_S1, info->run_started},
      {"objective_hash", H5T_C_S1, info->objective_hash},
  };
  hid_t dset = H5I_INVALID_HID, name_type = H5I_INVALID_HID;
  const int np = o->nparams;
  int64_t total = 0, at = 0, *lengths = NULL;
  double *values = NULL;
  char *names = NULL;
  int st = IPSO_ERR_RUNTIME;
  for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i++)
    if ((attrs[i].type == H5T_C_S1
             ? h5u_write_attr_string(f, f->id, attrs[i].name, attrs[i].value)
             : h5u_write_attr(f, f->id, attrs[i].name, attrs[i].type, attrs[i].value)) != IPSO_OK)
      goto done;
  /* A scalar for one clamp (as before there could be more), else an array. */
  if ((cfg->swarm.nclamps == 1 ? h5u_write_attr(f, f->id, "velocity_clamp", H5T_NATIVE_DOUBLE,
                                                cfg->swarm.velocity_clamp)
                               : h5u_write_attr_array(f, f->id, "velocity_clamp", H5T_NATIVE_DOUBLE,
                                                      (hsize_t)cfg->swarm.nclamps,
                                                      cfg->swarm.velocity_clamp)) != IPSO_OK)
    goto done;

  for (int b = 0; b < 2; b++) {
    hid_t id = h5u_write_dataset(f, f->id, b ? "upper" : "lower", H5T_NATIVE_DOUBLE, 1,
                                 (hsize_t)o->dimensions, b ? o->upper : o->lower,
                                 "objective variables", b ? "upper bounds" : "lower bounds");
    if (id < 0 || H5U_CLOSE(f, IPSO_OK, id) != IPSO_OK) goto done;
  }

  for (int p = 0; p < np; p++) total += o->params[p].len;
  lengths = malloc((size_t)(np > 0 ? np : 1) * sizeof *lengths);
  names = calloc((size_t)(np > 0 ? np : 1), PARAM_NAME_BYTES);
  values = malloc((size_t)(total > 0 ? total : 1) * sizeof *values);
  if (!lengths || !names || !values) {
    log_fail("checkpoint", __FILE__, __LINE__, "'%s': out of memory", f->path);
    goto done;
  }
  for (int p = 0; p < np; p++) {
    lengths[p] = o->params[p].len;
    snprintf(names + (size_t)p * PARAM_NAME_BYTES, PARAM_NAME_BYTES, "%s", o->params[p].name);
    memcpy(values + at, o->params[p].values, (size_t)o->params[p].len * sizeof *values);
    at += o->params[p].len;
  }
  dset = h5u_write_dataset(f, f->id, "objective_params", H5T_NATIVE_DOUBLE, 1, (hsize_t)total,
                           values, "as in the config", "objective parameters, one after the other");
  if (dset < 0) goto done;
  IPSO_CHECK_H5_GOTO(f->path, name_type = H5Tcopy(H5T_C_S1), st, done,
                     "creating the parameter name type");
  IPSO_CHECK_H5_GOTO(f->path, H5Tset_size(name_type, PARAM_NAME_BYTES), st, done,
                     "sizing the parameter name type");
  if (h5u_write_attr_array(f, dset, "names", name_type, (hsize_t)np, names) != IPSO_OK ||
      h5u_write_attr_array(f, dset, "lengths", H5T_NATIVE_INT64, (hsize_t)np, lengths) != IPSO_OK)
    goto done;
  st = IPSO_OK;
done:
  free(lengths);
  free(names);
  free(values);
  return H5U_CLOSE(f, st, dset, name_type);
}

/* Whether PATH holds an HDF5 file (its signature at 0 or at 512 * 2^k)
 * or what a run that died while writing one leaves: an empty file, or one
 * whose first 8 bytes are zero (HDF5 writes the superblock at offset 0 only
 * when it flushes the file, after the data). What a run may replace or
 * remove at a checkpoint's names. */
static int hdf5_or_empty(const char *path)
{
  static const unsigned char signature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  struct stat st;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), found = 0;
  if (fd < 0) return 0;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    found = st.st_size == 0;
    for (off_t at = 0; !found && at + 8 <= st.st_size; at = at ? 2 * at : 512) {
      unsigned char b[8];
      static const unsigned char zero[8];
      found = pread(fd, b, sizeof b, at) == (ssize_t)sizeof b &&
              (!memcmp(b, signature, 8) || (at == 0 && !memcmp(b, zero, 8)));
    }
  }
  close(fd);
  return found;
}

/* A usage error unless every file at the names the checkpoints of PATH
 * use (ALL: the checkpoint and the one kept before it too) that exists is
 * one a run may replace or remove, an HDF5 file: a user's file that
 * happens to be named so is never touched. (Rank 0.) */
static int checkpoint_names_ours(const char *path, int all)
{
  static const char *const suffix[] = {".tmp", ".removing", ".prev.removing", "", ".prev"};
  static const char *const role[] = {"temporary checkpoint", "checkpoint being removed",
                                     "previous checkpoint being removed", "checkpoint",
                                     "previous checkpoint"};
  for (size_t k = 0; k < (all ? 5u : 3u); k++) {
    char name[IPSO_PATH_MAX + 32];
    struct stat st;
    snprintf(name, sizeof name, "%s%s", path, suffix[k]);
    if (lstat(name, &st) != 0 || S_ISDIR(st.st_mode) || hdf5_or_empty(name)) continue;
    return IPSO_USAGE("islandpso: error: %s '%s': not an HDF5 file, and islandpso would replace "
                      "or remove it, so it leaves it alone; move it away, or give "
                      "output.checkpoint another path",
                      role[k], name);
  }
  return IPSO_OK;
}

/* A fresh run must not leave an older run's checkpoint where --resume would
 * find it: an existing checkpoint (or the one kept before it) is an error
 * unless OVERWRITE, and must be a checkpoint file (rank 0). */
static int checkpoint_path_free(const char *path, int overwrite)
{
  char prev[IPSO_PATH_MAX + 8];
  const char *files[2] = {path, prev};
  struct stat st;
  snprintf(prev, sizeof prev, "%s.prev", path);
  for (int k = 0; k < 2; k++) {
    if (lstat(files[k], &st) != 0) continue;
    /* The last checkpoint lost (else refused as k = 0): only the one kept
     * before it is left. */
    if (!overwrite && k == 1)
      return IPSO_USAGE("islandpso: error: checkpoint '%s' exists from an earlier run, but its "
                        "successor '%s' does not: continue from it with --restart %s, or start "
                        "over with --overwrite",
                        files[k], path, files[k]);
    if (!overwrite)
      return IPSO_USAGE("islandpso: error: checkpoint '%s' exists from an earlier run; continue it "
                        "with --resume (or --restart %s), or start over with --overwrite",
                        files[k], files[k]);
    if (!S_ISREG(st.st_mode) || !hdf5_or_empty(files[k]))
      return IPSO_USAGE("islandpso: error: checkpoint '%s' is %s; --overwrite replaces only "
                        "checkpoint files",
                        files[k],
                        S_ISDIR(st.st_mode)    ? "a directory"
                        : !S_ISREG(st.st_mode) ? "not a regular file"
                                               : "not an HDF5 file");
  }
  return IPSO_OK;
}

int checkpoint_check_path(MPI_Comm comm, const struct ipso_config *cfg, int fresh, int overwrite)
{
  int rank, status = IPSO_OK;
  const char *path = cfg->output.checkpoint;
  char dir[IPSO_PATH_MAX];
  if (!path[0]) return IPSO_OK;
  IPSO_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    int e = h5u_directory_error(path, dir, sizeof dir);
    if (e)
      status =
          IPSO_USAGE("islandpso: error: output.checkpoint '%s': directory '%s' is not writable: %s",
                     path, dir, strerror(e));
    if (status == IPSO_OK) status = checkpoint_names_ours(path, !fresh);
    if (status == IPSO_OK && fresh) status = checkpoint_path_free(path, overwrite);
  }
  return island_agree(comm, status);
}

int checkpoint_resume_path(MPI_Comm comm, const struct ipso_config *cfg, char *path, size_t n)
{
  int rank, which = 0;
  const char *ckpt = cfg->output.checkpoint;
  path[0] = '\0';
  if (!ckpt[0]) return IPSO_OK;
  IPSO_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    char prev[IPSO_PATH_MAX + 8];
    snprintf(prev, sizeof prev, "%s.prev", ckpt);
    if (access(ckpt, F_OK) == 0)
      which = 1;
    else if (access(prev, F_OK) == 0)
      which = 2;
    if (which == 2)
      log_warn("the checkpoint '%s' is missing; resuming from the one kept before it, '%s'", ckpt,
               prev);
  }
  IPSO_CHECK_MPI(MPI_Bcast(&which, 1, MPI_INT, 0, comm));
  if (which && snprintf(path, n, "%s%s", ckpt, which == 2 ? ".prev" : "") >= (int)n)
    return IPSO_FAIL("checkpoint", "checkpoint path '%s' too long", ckpt);
  return IPSO_OK;
}

/* The files checkpoint_remove_old renamed away, and the thread that
 * unlinks them. */
static struct {
  char path[2][IPSO_PATH_MAX + 16];
  pthread_t thread;
  int started;
} removal;

static void *unlink_renamed(void *arg)
{
  (void)arg;
  for (int k = 0; k < 2; k++)
    if (removal.path[k][0]) unlink(removal.path[k]);
  return NULL;
}

int checkpoint_remove_old(MPI_Comm comm, const struct ipso_config *cfg)
{
  int rank, status = IPSO_OK, any = 0;
  if (!cfg->output.checkpoint[0]) return IPSO_OK;
  IPSO_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0 && !removal.started) {
    char prev[IPSO_PATH_MAX + 8];
    const char *files[2] = {cfg->output.checkpoint, prev};
    snprintf(prev, sizeof prev, "%s.prev", cfg->output.checkpoint);
    for (int k = 0; k < 2; k++) {
      char *to = removal.path[k];
      snprintf(to, sizeof removal.path[k], "%s.removing", files[k]);
      if (rename(files[k], to) == 0) {
        any = 1;
        continue;
      }
      to[0] = '\0';
      if (errno != ENOENT)
        status = IPSO_FAIL("checkpoint", "cannot remove the earlier checkpoint '%s': %s", files[k],
                           strerror(errno));
    }
    if (any) {
      if (pthread_create(&removal.thread, NULL, unlink_renamed, NULL) == 0)
        removal.started = 1;
      else
        unlink_renamed(NULL);
    }
  }
  return island_agree(comm, status);
}

void checkpoint_remove_wait(void)
{
  if (removal.started) pthread_join(removal.thread, NULL);
  removal.started = 0;
}

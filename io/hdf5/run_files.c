/* Reading an output's identity without touching it; the objective's hash. */
#include "run_files.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "h5util.h"
#include "user_objective.h"

int output_find(MPI_Comm comm, const char *path, const char *config_text, struct output_found *o)
{
  int rank;
  memset(o, 0, sizeof *o);
  IPSO_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  struct stat st;
  if (rank == 0 && path && *path && stat(path, &st) == 0) {
    o->exists = 1;
    H5E_auto2_t func;
    void *data;
    H5Eget_auto2(H5E_DEFAULT, &func, &data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f >= 0) {
      o->readable = 1;
      char *started = h5u_read_attr_string(f, "started");
      char *config = h5u_read_attr_string(f, "config");
      if (started) snprintf(o->started, sizeof o->started, "%s", started);
      o->same_config = config && config_text && !strcmp(config, config_text);
      o->finished = H5Aexists(f, "finished") > 0 || H5Lexists(f, "result", H5P_DEFAULT) > 0;
      free(started);
      free(config);
      H5Fclose(f);
    }
    H5Eset_auto2(H5E_DEFAULT, func, data);
  }
  IPSO_CHECK_MPI(MPI_Bcast(o, (int)sizeof *o, MPI_BYTE, 0, comm));
  return IPSO_OK;
}

void objective_fingerprint(const struct ipso_config *cfg, char hex[17])
{
  const struct ipso_objective_config *ob = &cfg->objective;
  uint64_t h = ipso_hash(0, ob->name, strlen(ob->name) + 1);
  if (ob->id == IPSO_OBJ_USER) {
    char text[IPSO_PATH_MAX + 32];
    snprintf(text, sizeof text, "#include \"%s\"\n", ob->source);
    h = ipso_hash(h, ob->function, strlen(ob->function) + 1);
    if (user_includes_hash(text, &h) != 0) {
      hex[0] = '\0';
      return;
    }
  }
  snprintf(hex, 17, "%016" PRIx64, h);
}

int objective_agree(MPI_Comm comm, const struct ipso_config *cfg, const char *recorded)
{
  struct fingerprints {
    char compiled[17], source[17];
  } mine, *all = NULL;
  int rank, size, st = IPSO_OK;
  IPSO_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  IPSO_CHECK_MPI(MPI_Comm_size(comm, &size));
  memset(&mine, 0, sizeof mine);
  user_objective_loaded(mine.compiled);
  objective_fingerprint(cfg, mine.source);
  if (rank == 0 && !(all = calloc((size_t)size, sizeof *all)))
    st = IPSO_FAIL("objective", "out of memory");
  IPSO_TRY(island_agree(comm, st));
  int rc = MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0, comm);
  if (rc != MPI_SUCCESS) st = ipso_mpi_fail("MPI_Gather", rc, __FILE__, __LINE__);
  for (int r = 0; st == IPSO_OK && rank == 0 && r < size; r++) {
    const struct fingerprints *f = &all[r];
    if (strcmp(f->compiled, all[0].compiled) != 0) {
      log_user_error("islandpso: error: rank %d compiled another objective than rank 0 "
                     "(fingerprint %s, rank 0's %s): objective.source or a file it includes "
                     "changed while the ranks compiled it, or the ranks see different files (a "
                     "network file system's cache); start again once every node sees the same "
                     "files",
                     r, f->compiled[0] ? f->compiled : "none",
                     all[0].compiled[0] ? all[0].compiled : "none");
      st = IPSO_ERR_USAGE;
    } else if (recorded && recorded[0] && strcmp(f->source, recorded) != 0) {
      log_user_error("islandpso: error: the objective's sources on rank %d are not those the run "
                     "started with (fingerprint %s now, %s when the run's files were checked): "
                     "objective.source or a file it includes changed while the run started, or "
                     "the ranks see different files; start again once the sources stay as they "
                     "are",
                     r, f->source[0] ? f->source : "none", recorded);
      st = IPSO_ERR_USAGE;
    }
  }
  free(all);
  return island_agree(comm, st);
}

int run_clock(MPI_Comm comm, char stamp[32])
{
  int rank;
  memset(stamp, 0, 32);
  IPSO_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    time_t t = time(NULL);
    struct tm tm;
    if (t == (time_t)-1 || !gmtime_r(&t, &tm) ||
        strftime(stamp, 32, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
      snprintf(stamp, 32, "unknown");
  }
  IPSO_CHECK_MPI(MPI_Bcast(stamp, 32, MPI_CHAR, 0, comm));
  return IPSO_OK;
}

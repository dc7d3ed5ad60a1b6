/* Every rank runs the objective the run recorded (io/run_files.c,
 * objective_agree), on 3 ranks that each compile a user objective from the
 * file at the same path in a directory of their own, as ranks on nodes
 * whose file systems disagree would: the same file on every rank agrees;
 * another file on rank 1 is refused on every rank, rank 0 naming rank 1
 * and both fingerprints; sources that changed since the run recorded their
 * fingerprint are refused naming both; a built-in objective agrees. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "ipso.h"
#include "log.h"
#include "run_files.h"
#include "user_objective.h"

static int fails;

static void check(int ok, const char *what, int rank)
{
  if (!ok) {
    printf("FAIL rank %d: %s\n", rank, what);
    fails++;
  }
}

/* Writes the objective s = sum FACTOR x^2 into DIR/f.cu. */
static void write_source(const char *dir, int factor)
{
  char path[512];
  snprintf(path, sizeof path, "%s/f.cu", dir);
  FILE *f = fopen(path, "w");
  fprintf(f,
          "ipso_real f(const ipso_real *x, int d)\n{\n  ipso_real s = 0;\n"
          "  for (int i = 0; i < d; i++) s += (ipso_real)%d * x[i] * x[i];\n  return s;\n}\n",
          factor);
  fclose(f);
}

/* Loads a config of objective NAME ("user": f in f.cu, in the working
 * directory). */
static int load(const char *name, struct ipso_config *cfg)
{
  char text[512];
  snprintf(text, sizeof text,
           "[run]\nbackend = \"cpu\"\noutput = \"\"\n[objective]\nname = \"%s\"\n%s"
           "dimensions = 3\nlower = -1\nupper = 1\n[swarm]\nparticles = 8\n"
           "[output]\ncheckpoint = \"\"\n",
           name, strcmp(name, "user") ? "" : "source = \"f.cu\"\nfunction = \"f\"\n");
  int rc = config_load_text(text, "u.toml", 0, NULL, 1, cfg);
  /* The one path every rank's config holds (rank 0's, broadcast), which
   * names another file on each rank here. */
  if (rc == IPSO_OK && !strcmp(name, "user"))
    snprintf(cfg->objective.source, sizeof cfg->objective.source, "f.cu");
  return rc;
}

/* Runs objective_agree with RECORDED (NULL: rank 0's fingerprint of the
 * sources), rank 0's messages captured into MSG [LEN]; its status. */
static int agree(MPI_Comm comm, const struct ipso_config *cfg, const char *recorded, int rank,
                 char *msg, size_t len)
{
  char mine[17];
  objective_fingerprint(cfg, mine);
  MPI_Bcast(mine, sizeof mine, MPI_CHAR, 0, comm);
  fflush(stderr);
  FILE *saved = rank == 0 ? freopen("agree.log", "w", stderr) : NULL;
  int rc = objective_agree(comm, cfg, recorded ? recorded : mine);
  msg[0] = '\0';
  if (saved) {
    fflush(stderr);
    FILE *f = fopen("agree.log", "r");
    size_t n = f ? fread(msg, 1, len - 1, f) : 0;
    msg[n] = '\0';
    if (f) fclose(f);
    if (!freopen("/dev/null", "w", stderr)) fails++;
  }
  return rc;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  log_init(rank, size);
  char top[256] = "agree-XXXXXX", dir[300], msg[4096];
  if (rank == 0 && !mkdtemp(top)) top[0] = '\0';
  MPI_Bcast(top, sizeof top, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (!top[0]) MPI_Abort(MPI_COMM_WORLD, 1);
  snprintf(dir, sizeof dir, "%s/rank%d", top, rank);
  mkdir(dir, 0700);
  char cache[320];
  snprintf(cache, sizeof cache, "%s/cache", dir);
  setenv("IPSO_CACHE_DIR", cache, 1);
  if (chdir(dir) != 0) MPI_Abort(MPI_COMM_WORLD, 1);

  /* The same file on every rank. */
  write_source(".", 2);
  struct ipso_config cfg;
  struct user_objective *u = NULL;
  check(load("user", &cfg) == IPSO_OK, "config", rank);
  check(user_objective_open_cpu(&cfg, &u) == IPSO_OK, "compile", rank);
  char hex[17];
  check(user_objective_loaded(hex) == 1 && strlen(hex) == 16, "a fingerprint recorded", rank);
  check(agree(MPI_COMM_WORLD, &cfg, NULL, rank, msg, sizeof msg) == IPSO_OK,
        "the same objective everywhere agrees", rank);
  user_objective_close(u);

  /* Rank 1 sees another file at the same path. */
  char first[17];
  snprintf(first, sizeof first, "%s", hex);
  MPI_Bcast(first, sizeof first, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 1) write_source(".", 3);
  check(user_objective_open_cpu(&cfg, &u) == IPSO_OK, "compile again", rank);
  user_objective_loaded(hex);
  char theirs[17];
  snprintf(theirs, sizeof theirs, "%s", hex);
  MPI_Bcast(theirs, sizeof theirs, MPI_CHAR, 1, MPI_COMM_WORLD);
  check(strcmp(theirs, first) != 0, "rank 1's object has another fingerprint", rank);
  check(agree(MPI_COMM_WORLD, &cfg, NULL, rank, msg, sizeof msg) == IPSO_ERR_USAGE,
        "another objective on rank 1 is refused on every rank (exit 2)", rank);
  if (rank == 0) {
    char want[256];
    snprintf(want, sizeof want,
             "rank 1 compiled another objective than rank 0 (fingerprint %s, rank 0's %s)", theirs,
             first);
    check(strstr(msg, want) != NULL, "rank 0 names rank 1 and both fingerprints", rank);
    if (!strstr(msg, want)) printf("     message: %s\n     want: %s\n", msg, want);
  }
  user_objective_close(u);
  if (rank == 1) write_source(".", 2);

  /* The sources changed after the run recorded them. */
  check(user_objective_open_cpu(&cfg, &u) == IPSO_OK, "compile a third time", rank);
  char now[17];
  objective_fingerprint(&cfg, now);
  check(agree(MPI_COMM_WORLD, &cfg, "0123456789abcdef", rank, msg, sizeof msg) == IPSO_ERR_USAGE,
        "sources changed since they were recorded: refused on every rank", rank);
  if (rank == 0) {
    char want[256];
    snprintf(want, sizeof want,
             "the objective's sources on rank 0 are not those the run started with (fingerprint "
             "%s now, 0123456789abcdef when",
             now);
    check(strstr(msg, want) != NULL, "names both fingerprints", rank);
    if (!strstr(msg, want)) printf("     message: %s\n     want: %s\n", msg, want);
  }
  user_objective_close(u);
  config_free(&cfg);

  /* A built-in on every rank (this process loaded a user objective before:
   * every rank alike, so they still agree). */
  check(load("sphere", &cfg) == IPSO_OK, "built-in config", rank);
  check(agree(MPI_COMM_WORLD, &cfg, NULL, rank, msg, sizeof msg) == IPSO_OK, "a built-in agrees",
        rank);
  config_free(&cfg);

  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
    if (system(cmd) != 0) printf("could not remove %s\n", top);
  }
  int all = 0;
  MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf(all ? "FAILED (%d)\n" : "passed\n", all);
  MPI_Finalize();
  return all ? 1 : 0;
}

/* islandpso: the command line. --help, --version, --dry-run, --evaluate
 * and usage errors are answered before MPI is started; for a run, rank 0
 * reads the config and broadcasts its resolved text. Only here does a
 * runtime failure turn into MPI_Abort. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "island_mpi.h"
#include "runtime.h"
#include "solver.h"
#include "timings.h"

#define MAX_OVERRIDES 256

static const char usage_text[] =
    "usage: islandpso CONFIG [options]\n"
    "       mpirun -np N islandpso CONFIG [options]     (one island per rank)\n"
    "\n"
    "options:\n"
    "  --set SECTION.KEY=VALUE  override a config key (repeatable; VALUE in TOML syntax)\n"
    "  --backend cpu|gpu|auto   same as --set run.backend=...\n"
    "  --dry-run                check the config, print it resolved, and exit\n"
    "  --evaluate FILE          print the objective at the points in FILE (D numbers a line)\n"
    "  --overwrite              replace an existing output file\n"
    "  --restart CHECKPOINT     continue the run saved in CHECKPOINT\n"
    "  --resume                 continue from the config's checkpoint if it exists\n"
    "  --allow-changed-objective  continue although the objective's sources changed\n"
    "  --check-invariants       check the swarm invariants after every iteration (slow)\n"
    "  --timings                print where the start-up and the end of the run went\n"
    "  --version                print the version and the build's features\n"
    "  --help                   print this help\n"
    "\n"
    "exit codes: 0 finished, 1 runtime failure, 2 usage or config error,\n"
    "            3 stopped by a signal or the time limit (checkpoint written),\n"
    "            4 stopped so with checkpoints off (nothing to continue from)\n";

struct cli {
  const char *config;
  char *overrides[MAX_OVERRIDES + 1]; /* and --backend's */
  int noverrides;
  char backend_override[64];
  int dry_run, help, version;
  const char *evaluate; /* --evaluate FILE */
  struct solver_options opt;
};

/* A usage error, printed by rank 0 (every rank decides alike). */
#define USAGE_ERROR(...)                                                                           \
  do {                                                                                             \
    if (rank == 0) log_user_error(__VA_ARGS__);                                                    \
    return IPSO_ERR_USAGE;                                                                         \
  } while (0)

/* Parses the command line; IPSO_ERR_USAGE if it is malformed. */
static int parse_cli(int argc, char **argv, struct cli *c, int rank)
{
  enum { O_SET = 256, O_BACKEND, O_RESTART, O_EVALUATE };
  /* The switches set their flag themselves (getopt_long returns 0). */
  const struct option longopts[] = {
      {"set", required_argument, NULL, O_SET},
      {"backend", required_argument, NULL, O_BACKEND},
      {"dry-run", no_argument, &c->dry_run, 1},
      {"overwrite", no_argument, &c->opt.overwrite, 1},
      {"restart", required_argument, NULL, O_RESTART},
      {"resume", no_argument, &c->opt.resume, 1},
      {"check-invariants", no_argument, &c->opt.check_invariants, 1},
      {"timings", no_argument, &c->opt.timings, 1},
      {"allow-changed-objective", no_argument, &c->opt.allow_changed_objective, 1},
      {"version", no_argument, &c->version, 1},
      {"evaluate", required_argument, NULL, O_EVALUATE},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  memset(c, 0, sizeof *c);
  opterr = 0;
  int ch;
  while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
    switch (ch) {
    case O_SET:
      if (c->noverrides == MAX_OVERRIDES)
        USAGE_ERROR("islandpso: error: more than %d --set options", MAX_OVERRIDES);
      c->overrides[c->noverrides++] = optarg;
      break;
    case O_BACKEND:
      if (strcmp(optarg, "cpu") && strcmp(optarg, "gpu") && strcmp(optarg, "auto"))
        USAGE_ERROR("islandpso: error: --backend must be cpu, gpu or auto, not '%s'\n\n%s", optarg,
                    usage_text);
      snprintf(c->backend_override, sizeof c->backend_override, "run.backend=\"%s\"", optarg);
      break;
    case 0:
      break;
    case O_RESTART:
      c->opt.restart = optarg;
      break;
    case O_EVALUATE:
      c->evaluate = optarg;
      break;
    case 'h':
      c->help = 1;
      break;
    default:
      if (rank == 0) {
        /* optopt: a short option, 1 a switch given a value, 0 or >= 256 a long option */
        if (optopt > 1 && optopt < 256)
          log_user_error("islandpso: error: unknown option '-%c'\n\n%s", optopt, usage_text);
        else
          log_user_error("islandpso: error: unknown or incomplete option '%s'\n\n%s",
                         argv[optind - 1], usage_text);
      }
      return IPSO_ERR_USAGE;
    }
  }
  if (c->help || c->version) return IPSO_OK;
  if (optind >= argc) USAGE_ERROR("islandpso: error: no config file given\n\n%s", usage_text);
  if (optind + 1 < argc)
    USAGE_ERROR("islandpso: error: unexpected argument '%s' (one config file only)\n\n%s",
                argv[optind + 1], usage_text);
  if (c->opt.restart && c->opt.resume)
    USAGE_ERROR("islandpso: error: --restart and --resume exclude each other\n\n%s", usage_text);
  if (c->opt.overwrite && (c->opt.restart || c->opt.resume))
    USAGE_ERROR("islandpso: error: --overwrite with %s: a continued run never replaces its "
                "output; give one or the other\n\n%s",
                c->opt.restart ? "--restart" : "--resume", usage_text);
  c->config = argv[optind];
  if (c->backend_override[0]) c->overrides[c->noverrides++] = c->backend_override;
  return IPSO_OK;
}

/* MPI_Get_library_version may be called before MPI_Init (MPI 3.1, 8.1.1). */
static void print_version(void)
{
  char mpi[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(mpi, &len);
  mpi[strcspn(mpi, "\n,")] = '\0';
#ifdef IPSO_HAVE_CUDA
  const char *gpu = "CUDA (NVRTC kernels)";
#else
  const char *gpu = "none (CPU-only build)";
#endif
  printf("islandpso %s\n  GPU backend: %s\n  HDF5: parallel\n  MPI: %s\n", IPSO_VERSION, gpu, mpi);
}

/* Rank 0 loads the config (reporting what is wrong with it) and sends its
 * resolved text, which every other rank reads into the same config. */
static int load_config(const struct cli *c, int rank, int size, struct ipso_config *cfg)
{
  int rc = IPSO_OK;
  long long n = 0;
  if (rank == 0) {
    rc = config_load(c->config, c->noverrides, c->overrides, size, cfg);
    /* Below 2 GiB: at most IPSO_MAX_PARAMS parameters of 10^6 values. */
    if (rc == IPSO_OK) n = (long long)strlen(cfg->text) + 1;
  }
  long long head[2] = {rc, n};
  IPSO_CHECK_MPI(MPI_Bcast(head, 2, MPI_LONG_LONG, 0, MPI_COMM_WORLD));
  if ((rc = (int)head[0]) != IPSO_OK) return rc;
  char *text = rank == 0 ? cfg->text : malloc((size_t)head[1]);
  if (!text) rc = IPSO_FAIL("memory", "out of memory");
  if ((rc = island_agree(MPI_COMM_WORLD, rc)) != IPSO_OK) return rc;
  IPSO_CHECK_MPI(MPI_Bcast(text, (int)head[1], MPI_CHAR, 0, MPI_COMM_WORLD));
  if (rank != 0) {
    rc = config_load_text(text, c->config, 0, NULL, size, cfg);
    free(text);
  }
  return island_agree(MPI_COMM_WORLD, rc);
}

/* The process's rank and size as the launcher sets them (Open MPI, PMIx,
 * MPICH/PMI, Slurm), for what is answered before MPI_Init; FALLBACK when
 * none is set. */
static int launcher_value(const char *const *names, int fallback)
{
  for (; *names; names++) {
    const char *v = getenv(*names);
    if (v && *v) return atoi(v);
  }
  return fallback;
}

static const char *const rank_vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                        "SLURM_PROCID", NULL};
static const char *const size_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", NULL};

/* Without MPI: --help, --version, --dry-run, --evaluate and usage errors
 * (every rank decides alike, rank 0 prints). Returns the exit status, or -1
 * for a run. */
static int answer_on_rank(int argc, char **argv, struct cli *c, int rank)
{
  int size = launcher_value(size_vars, 1);
  log_init(rank, size);
  int rc = parse_cli(argc, argv, c, rank);
  if (rc != IPSO_OK) return rc;
  if (c->help || c->version) {
    if (rank == 0) c->version ? print_version() : (void)fputs(usage_text, stdout);
    return IPSO_OK;
  }
  if (!c->dry_run && !c->evaluate) return -1;
  struct ipso_config cfg;
  rc = config_load(c->config, c->noverrides, c->overrides, size, &cfg);
  if (rc == IPSO_OK && rank == 0 && c->evaluate)
    rc = evaluate_points(&cfg, c->evaluate);
  else if (rc == IPSO_OK && rank == 0)
    printf("%s# config OK: %s\n", cfg.text, cfg.path);
  config_free(&cfg);
  return rc;
}

/* Before any allocation (collective): the rank's swarms must fit its host memory,
 * else the OOM killer comes at first touch; exit 2 with the lowest such rank's
 * numbers. IPSO_MEMORY_CHECK=0 skips it. */
static int check_memory(const struct ipso_config *cfg, int rank, int size)
{
  const char *env = getenv("IPSO_MEMORY_CHECK");
  if (env && strcmp(env, "0") == 0) return IPSO_OK;
  int local_rank = 0, local_size = 1, islands = config_islands(cfg, size);
  IPSO_TRY(island_local_rank(MPI_COMM_WORLD, &local_rank, &local_size));
  int per_rank = islands / size > 0 ? islands / size : 1;
#ifdef IPSO_HAVE_CUDA
  int cpu = cfg->run.backend == IPSO_BACKEND_CPU;
#else
  int cpu = 1;
#endif
  char parts[512];
  const char *what;
  const double gib = 1024.0 * 1024.0 * 1024.0;
  double need = swarm_host_bytes(cfg, per_rank, cpu, parts, sizeof parts);
  double left = memory_available(local_size, &what);
  int who = left >= 0 && need > left ? rank : size;
  IPSO_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &who, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  if (who == rank)
    log_user_error("islandpso: error: the swarms need about %.2f GiB of host memory per rank "
                   "(%d island%s of %lld particles in %d dimension%s: %s), but this rank may take "
                   "%.2f GiB (%s%s%s); give fewer particles or islands per rank, or more "
                   "nodes (IPSO_MEMORY_CHECK=0 skips this check)",
                   need / gib, per_rank, per_rank == 1 ? "" : "s", (long long)cfg->swarm.particles,
                   cfg->objective.dimensions, cfg->objective.dimensions == 1 ? "" : "s", parts,
                   left / gib, what, local_size > 1 ? ", " : "",
                   local_size > 1 ? "several ranks on this node" : "");
  return who < size ? IPSO_ERR_USAGE : IPSO_OK;
}

/* The command line's answer, or the run on every rank; the exit status. */
int main(int argc, char **argv)
{
#if IPSO_FMA
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("fma")) {
    log_fail("cpu", __FILE__, __LINE__,
             "this islandpso was built for processors with FMA and this one has none; "
             "build it again with -DIPSO_FMA=OFF");
    return IPSO_ERR_RUNTIME;
  }
#endif
  timings_begin();
  /* From the start, so a stop signal during start-up is honoured at the first
   * segment end; again after MPI_Init in case MPI installed its own. */
  signals_install();
  struct cli c;
  int launcher_rank = launcher_value(rank_vars, 0);
  int rc = answer_on_rank(argc, argv, &c, launcher_rank);
  /* The other ranks leave quietly: a launcher ends the whole job at the
   * first non-zero exit, maybe before rank 0's message is out. */
  if (rc >= 0) return rc > 0 && launcher_rank != 0 ? IPSO_OK : rc;
  /* CUDA_DEVICE_MAX_CONNECTIONS=2 unless set: hardware queues are most of a context's
   * start and end, and the backend needs two. Set while this is the only thread. */
  if (setenv("CUDA_DEVICE_MAX_CONNECTIONS", "2", 0) != 0)
    log_warn("cannot set CUDA_DEVICE_MAX_CONNECTIONS: %s", strerror(errno));
  int rank = 0, size = 1;
  if (island_mpi_init(&argc, &argv, &rank, &size) != IPSO_OK) return IPSO_ERR_RUNTIME;
  signals_install();
  timings_mark("MPI_Init");
  /* An exit() before main() returns (a user objective's) is a failure. */
  if (exit_guard_install() != 0) log_warn("cannot register the exit() guard");
  struct ipso_config cfg;
  memset(&cfg, 0, sizeof cfg);
  rc = load_config(&c, rank, size, &cfg);
  timings_mark("config read and broadcast");
  /* Every rank has its signal handlers now (load_config ends collectively):
   * IPSO_READY_FILE tells a signal-forwarding job script they make a checkpoint. */
  const char *ready = rank == 0 ? getenv("IPSO_READY_FILE") : NULL;
  FILE *f = ready && *ready ? fopen(ready, "w") : NULL;
  if (f) fclose(f);
  if (!f && ready && *ready) log_warn("cannot create IPSO_READY_FILE '%s'", ready);
  if (rc == IPSO_OK) rc = check_memory(&cfg, rank, size);
  if (rc == IPSO_OK) {
    if (watchdog_start(cfg.run.watchdog) != 0)
      rc = IPSO_FAIL("watchdog", "cannot start the thread");
    if (rc == IPSO_OK) rc = solver_run(MPI_COMM_WORLD, &cfg, &c.opt);
    watchdog_stop();
    /* 3 promises a checkpoint to continue from (a batch script requeues
     * on it); without checkpoints a stop is another outcome. */
    if (rc == IPSO_STOPPED && !cfg.output.checkpoint[0]) rc = IPSO_STOPPED_NO_CHECKPOINT;
  }
  config_free(&cfg);
  exit_guard_release();
  if (rc == IPSO_ERR_RUNTIME && size > 1) MPI_Abort(MPI_COMM_WORLD, IPSO_ERR_RUNTIME);
  MPI_Finalize();
  timings_mark("MPI_Finalize");
  if (c.opt.timings && rank == 0 && rc == IPSO_OK)
    timings_print("islandpso: the run and its end (rank 0, seconds since the process started)");
  return rc;
}

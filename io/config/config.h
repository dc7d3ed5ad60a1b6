/* The run configuration: a C struct filled from a TOML file and validated
 * by config_load() (toml++ behind this C API). */
#ifndef IPSO_CONFIG_H
#define IPSO_CONFIG_H

#include "ipso.h"
#include "objective.h"

enum ipso_backend_kind { IPSO_BACKEND_AUTO, IPSO_BACKEND_GPU, IPSO_BACKEND_CPU };
enum ipso_precision { IPSO_DOUBLE, IPSO_FLOAT };
enum ipso_kernel { IPSO_KERNEL_QUEUE_LOCK, IPSO_KERNEL_QUEUE, IPSO_KERNEL_REDUCTION };
enum ipso_sync { IPSO_SYNC_STRICT, IPSO_SYNC_RELAXED };
/* swarm.topology: whom a particle follows (docs/algorithm.md). */
enum ipso_swarm_topology {
  IPSO_SWARM_GLOBAL,
  IPSO_SWARM_RING,
  IPSO_SWARM_CLPSO,
  IPSO_SWARM_MEAN,
  IPSO_SWARM_MIXED
};
/* swarm.frame: the axes of the velocity update (docs/algorithm.md). */
enum ipso_frame { IPSO_FRAME_AXES, IPSO_FRAME_EIGEN, IPSO_FRAME_MIXED };
enum ipso_topology { IPSO_TOPOLOGY_RING, IPSO_TOPOLOGY_BIDIRECTIONAL_RING };
/* Which particles an island sends, and which the migrants replace when better. */
enum ipso_select { IPSO_SELECT_BEST, IPSO_SELECT_RANDOM };
enum ipso_policy { IPSO_POLICY_REPLACE_WORST, IPSO_POLICY_REPLACE_RANDOM };
enum ipso_progress { IPSO_PROGRESS_AUTO, IPSO_PROGRESS_LINES, IPSO_PROGRESS_OFF };

/* A named constant of the objective: [objective.params] name = x or [x, ...]. */
struct ipso_param {
  char name[64];
  int64_t len;    /* 1 for a scalar */
  int is_array;   /* written as an array in the config */
  double *values; /* [len] */
};

struct ipso_run_config {
  char name[IPSO_NAME_MAX];
  uint64_t seed;
  enum ipso_backend_kind backend;
  enum ipso_precision precision;
  int islands; /* in all, a multiple of the ranks; 0: one per rank (see config_islands) */
  int64_t max_iterations;
  int has_target;
  double target_fitness;      /* in the objective's own units (not sign-adjusted) */
  double time_limit;          /* seconds; 0 = none */
  double watchdog;            /* seconds without progress before the job is ended; 0 = off */
  char output[IPSO_PATH_MAX]; /* "" = no HDF5 output */
};

struct ipso_objective_config {
  char name[IPSO_NAME_MAX];
  int id; /* enum ipso_objective_id (objective.h) */
  int dimensions;
  double *lower; /* [dimensions] */
  double *upper; /* [dimensions] */
  enum ipso_goal goal;
  char source[IPSO_PATH_MAX];   /* name = "user": file, resolved against the config's directory */
  char function[IPSO_NAME_MAX]; /* name = "user": function name in source */
  int separable; /* name = "user": f(x) = sum over i of f(&x[i], 1), checked at start-up */
  int number;    /* name = "cec2017": the function, 1 or 3..30 */
  int nparams;
  struct ipso_param params[IPSO_MAX_PARAMS];
};

struct ipso_swarm_config {
  int64_t particles; /* per island */
  double inertia;
  int has_inertia_end; /* inertia decreases linearly to inertia_end at max_iterations */
  double inertia_end;
  double cognitive;
  double social;
  /* Fractions of (upper - lower), islands in turn (config_clamp). */
  double velocity_clamp[IPSO_MAX_CLAMPS];
  int nclamps;
  enum ipso_kernel kernel;
  enum ipso_sync sync;
  enum ipso_swarm_topology topology;
  int neighbours;        /* topology ring: k particles on each side, 2k + 1 <= particles */
  int refresh;           /* topology clpso: iterations an epoch of exemplars lasts */
  enum ipso_frame frame; /* the coordinates of the velocity update (src/model/swarm.h) */
};

struct ipso_migration_config {
  int64_t interval; /* 0 = isolated islands */
  int migrants;
  enum ipso_topology topology;
  double probability; /* each link carries its migrants at a migration with it, (0, 1] */
  enum ipso_select select;
  enum ipso_policy policy;
};

struct ipso_output_config {
  int64_t history_interval;    /* 0 = no history */
  int64_t snapshot_interval;   /* 0 = no snapshots */
  int64_t checkpoint_interval; /* iterations; 0 = not by iterations */
  double checkpoint_seconds;   /* wall time; 0 = not by time */
  char checkpoint[IPSO_PATH_MAX];
  enum ipso_progress progress;
};

struct ipso_config {
  struct ipso_run_config run;
  struct ipso_objective_config objective;
  struct ipso_swarm_config swarm;
  struct ipso_migration_config migration;
  struct ipso_output_config output;
  char path[IPSO_PATH_MAX]; /* the config file as given */
  char *text;               /* resolved config: every key with the value used, as TOML */
};

#ifdef __cplusplus
extern "C" {
#endif

/* Reads, validates and resolves config PATH with OVERRIDES ("section.key=value",
 * a TOML value or a bare word) for RANKS ranks. Each problem goes to stderr as
 * "file:line:column: error: ..." (or "--set ...: error: ...") and yields
 * IPSO_ERR_USAGE; on success CFG owns its memory (config_free). */
int config_load(const char *path, int noverrides, char *const *overrides, int ranks,
                struct ipso_config *cfg);

/* Same, from TOML text already in memory; SOURCE_NAME names it in messages. */
int config_load_text(const char *text, const char *source_name, int noverrides,
                     char *const *overrides, int ranks, struct ipso_config *cfg);

void config_free(struct ipso_config *cfg);

/* The run's islands on RANKS ranks: run.islands, or one per rank where it is 0. */
static inline int config_islands(const struct ipso_config *cfg, int ranks)
{
  return cfg->run.islands > 0 ? cfg->run.islands : ranks;
}

/* The velocity clamp of island ISLAND (global id). */
static inline double config_clamp(const struct ipso_config *cfg, int island)
{
  return cfg->swarm.velocity_clamp[island % cfg->swarm.nclamps];
}

/* "HH:MM:SS" in seconds; -1 if malformed. */
double config_parse_hms(const char *s);

/* Names of enum values as written in the config ("unknown" for others). */
const char *config_backend_name(enum ipso_backend_kind b);
const char *config_precision_name(enum ipso_precision p);
const char *config_kernel_name(enum ipso_kernel k);
const char *config_sync_name(enum ipso_sync s);
const char *config_swarm_topology_name(enum ipso_swarm_topology t);
const char *config_frame_name(enum ipso_frame f);
const char *config_goal_name(enum ipso_goal g);
const char *config_topology_name(enum ipso_topology t);
const char *config_select_name(enum ipso_select s);
const char *config_policy_name(enum ipso_policy p);

#ifdef __cplusplus
}
#endif

#endif

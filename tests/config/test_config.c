/* Unit test of the config reader: good configs field by field, defaults,
 * overrides, user source resolution, the resolved text and pack/unpack round
 * trips, durations, and every bad config of tests/config/bad in-process with
 * its expected message. Data files are found through $IPSO_TEST_DIR. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "objective.h"
#include "problem.h"

static int failures;

/* Counts and reports a failed check without stopping the test. */
#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                     \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

/* Integers (and enums) must be equal. */
#define CHECK_INT(a, b)                                                                            \
  do {                                                                                             \
    long long a_ = (long long)(a), b_ = (long long)(b);                                            \
    if (a_ != b_) {                                                                                \
      fprintf(stderr, "%s:%d: %s = %lld, expected %lld\n", __FILE__, __LINE__, #a, a_, b_);        \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

/* Doubles must match bit for bit: the reader may not round anything. */
#define CHECK_DBL(a, b)                                                                            \
  do {                                                                                             \
    double a_ = (a), b_ = (b);                                                                     \
    if (memcmp(&a_, &b_, sizeof a_) != 0) {                                                        \
      fprintf(stderr, "%s:%d: %s = %.17g, expected %.17g\n", __FILE__, __LINE__, #a, a_, b_);      \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

/* Strings must be equal. */
#define CHECK_STR(a, b)                                                                            \
  do {                                                                                             \
    const char *a_ = (a), *b_ = (b);                                                               \
    if (strcmp(a_, b_) != 0) {                                                                     \
      fprintf(stderr, "%s:%d: %s = \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a, a_, b_);    \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

#define SPSO_INERTIA 0.72134752044448170
#define SPSO_ACCELERATION 1.1931471805599453

static char test_dir[PATH_MAX];

/* DIR/config/NAME as a static string (valid until the next call). */
static const char *data_path(const char *name)
{
  static char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/config/%s", test_dir, name);
  return path;
}

/* A template for mkdtemp/mkstemp in $TMPDIR (or /tmp) as a static string. */
static char *temp_template(const char *name)
{
  static char path[PATH_MAX];
  const char *tmp = getenv("TMPDIR");
  snprintf(path, sizeof path, "%s/%s_XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
  return path;
}

/* Captured stderr while a call runs, so messages can be checked. */
static FILE *capture_file;
static int saved_stderr = -1;

/* Sends stderr to a temporary file until capture_end(). */
static void capture_begin(void)
{
  fflush(stderr);
  capture_file = tmpfile();
  saved_stderr = dup(STDERR_FILENO);
  if (!capture_file || saved_stderr < 0 || dup2(fileno(capture_file), STDERR_FILENO) < 0) {
    perror("test_config: cannot capture stderr");
    exit(1);
  }
}

/* Restores stderr and returns what was written to it (malloc'd). */
static char *capture_end(void)
{
  fflush(stderr);
  dup2(saved_stderr, STDERR_FILENO);
  close(saved_stderr);
  long n = ftell(capture_file);
  char *text = malloc((size_t)n + 1);
  rewind(capture_file);
  size_t got = fread(text, 1, (size_t)n, capture_file);
  text[got] = '\0';
  fclose(capture_file);
  return text;
}

/* Loads the good config NAME of tests/config/good with overrides; checks success. */
static int load_good(const char *name, int nov, char **ov, int islands, struct ipso_config *cfg)
{
  int rc = config_load(data_path(name), nov, ov, islands, cfg);
  if (rc != IPSO_OK) {
    fprintf(stderr, "test_config: good config %s failed to load (rc %d)\n", name, rc);
    failures++;
  }
  return rc;
}

/* Whether A and B are the same config field by field (PATH compared if WITH_PATH). */
static int configs_equal(const struct ipso_config *a, const struct ipso_config *b, int with_path)
{
  int before = failures;
  CHECK_STR(a->run.name, b->run.name);
  CHECK_INT(a->run.seed, b->run.seed);
  CHECK_INT(a->run.backend, b->run.backend);
  CHECK_INT(a->run.precision, b->run.precision);
  CHECK_INT(a->run.islands, b->run.islands);
  CHECK_INT(a->run.max_iterations, b->run.max_iterations);
  CHECK_INT(a->run.has_target, b->run.has_target);
  CHECK_DBL(a->run.target_fitness, b->run.target_fitness);
  CHECK_DBL(a->run.time_limit, b->run.time_limit);
  CHECK_DBL(a->run.watchdog, b->run.watchdog);
  CHECK_STR(a->run.output, b->run.output);

  const struct ipso_objective_config *p = &a->objective, *q = &b->objective;
  CHECK_STR(p->name, q->name);
  CHECK_INT(p->id, q->id);
  CHECK_INT(p->dimensions, q->dimensions);
  CHECK(p->lower && q->lower && p->upper && q->upper);
  if (p->dimensions == q->dimensions && p->lower && q->lower && p->upper && q->upper) {
    size_t bytes = sizeof(double) * (size_t)p->dimensions;
    CHECK(memcmp(p->lower, q->lower, bytes) == 0);
    CHECK(memcmp(p->upper, q->upper, bytes) == 0);
  }
  CHECK_INT(p->goal, q->goal);
  CHECK_STR(p->source, q->source);
  CHECK_STR(p->function, q->function);
  CHECK_INT(p->nparams, q->nparams);
  for (int i = 0; i < p->nparams && i < q->nparams; i++) {
    CHECK_STR(p->params[i].name, q->params[i].name);
    CHECK_INT(p->params[i].len, q->params[i].len);
    CHECK_INT(p->params[i].is_array, q->params[i].is_array);
    if (p->params[i].len == q->params[i].len)
      CHECK(memcmp(p->params[i].values, q->params[i].values,
                   sizeof(double) * (size_t)p->params[i].len) == 0);
  }

  CHECK_INT(a->swarm.particles, b->swarm.particles);
  CHECK_DBL(a->swarm.inertia, b->swarm.inertia);
  CHECK_DBL(a->swarm.cognitive, b->swarm.cognitive);
  CHECK_DBL(a->swarm.social, b->swarm.social);
  CHECK_INT(a->swarm.nclamps, b->swarm.nclamps);
  for (int i = 0; i < a->swarm.nclamps; i++)
    CHECK_DBL(a->swarm.velocity_clamp[i], b->swarm.velocity_clamp[i]);
  CHECK_INT(a->swarm.kernel, b->swarm.kernel);
  CHECK_INT(a->swarm.sync, b->swarm.sync);
  CHECK_INT(a->swarm.topology, b->swarm.topology);
  CHECK_INT(a->swarm.neighbours, b->swarm.neighbours);
  CHECK_INT(a->swarm.has_inertia_end, b->swarm.has_inertia_end);
  CHECK_DBL(a->swarm.inertia_end, b->swarm.inertia_end);
  CHECK_INT(a->swarm.refresh, b->swarm.refresh);

  CHECK_INT(a->migration.interval, b->migration.interval);
  CHECK_INT(a->migration.migrants, b->migration.migrants);
  CHECK_INT(a->migration.topology, b->migration.topology);
  CHECK_DBL(a->migration.probability, b->migration.probability);
  CHECK_INT(a->migration.select, b->migration.select);
  CHECK_INT(a->migration.policy, b->migration.policy);

  CHECK_INT(a->output.history_interval, b->output.history_interval);
  CHECK_INT(a->output.snapshot_interval, b->output.snapshot_interval);
  CHECK_INT(a->output.checkpoint_interval, b->output.checkpoint_interval);
  CHECK_DBL(a->output.checkpoint_seconds, b->output.checkpoint_seconds);
  CHECK_STR(a->output.checkpoint, b->output.checkpoint);
  CHECK_INT(a->output.progress, b->output.progress);

  if (with_path) CHECK_STR(a->path, b->path);
  CHECK(a->text && b->text);
  if (a->text && b->text) CHECK_STR(a->text, b->text);
  return failures == before;
}

/* Checks that every bound of CFG is LO and HI. */
static void check_uniform_bounds(const struct ipso_config *cfg, double lo, double hi)
{
  for (int d = 0; d < cfg->objective.dimensions; d++) {
    CHECK_DBL(cfg->objective.lower[d], lo);
    CHECK_DBL(cfg->objective.upper[d], hi);
  }
}

/* Reloads CFG from its resolved text (what rank 0 sends the other ranks): it must equal CFG. */
static void check_round_trips(const struct ipso_config *cfg, int islands)
{
  struct ipso_config again;
  int rc = config_load_text(cfg->text, "resolved.toml", 0, NULL, islands, &again);
  CHECK_INT(rc, IPSO_OK);
  if (rc == IPSO_OK && !configs_equal(cfg, &again, 0))
    fprintf(stderr, "test_config: resolved text of %s does not reproduce it:\n%s\n", cfg->path,
            cfg->text);
  config_free(&again);
}

/* good/basic.toml: every key written out. */
static void test_basic(void)
{
  struct ipso_config c;
  if (load_good("good/basic.toml", 0, NULL, 4, &c) != IPSO_OK) return;
  CHECK_STR(c.path, data_path("good/basic.toml"));
  CHECK_STR(c.run.name, "sphere30");
  CHECK_INT(c.run.seed, 2024);
  CHECK_INT(c.run.backend, IPSO_BACKEND_CPU);
  CHECK_INT(c.run.precision, IPSO_DOUBLE);
  CHECK_INT(c.run.max_iterations, 5000);
  CHECK_INT(c.run.has_target, 1);
  CHECK_DBL(c.run.target_fitness, 1e-8);
  CHECK_DBL(c.run.time_limit, 600);
  CHECK_DBL(c.run.watchdog, 300);
  CHECK_STR(c.run.output, "results/sphere30.h5");
  CHECK_STR(c.objective.name, "sphere");
  CHECK_INT(c.objective.id, IPSO_OBJ_SPHERE);
  CHECK_INT(c.objective.dimensions, 30);
  check_uniform_bounds(&c, -100, 100);
  CHECK_INT(c.objective.goal, IPSO_MINIMIZE);
  CHECK_STR(c.objective.source, "");
  CHECK_STR(c.objective.function, "");
  CHECK_INT(c.objective.nparams, 0);
  CHECK_INT(c.swarm.particles, 256);
  CHECK_DBL(c.swarm.inertia, 0.7);
  CHECK_DBL(c.swarm.cognitive, 1.5);
  CHECK_DBL(c.swarm.social, 1.5);
  CHECK_INT(c.swarm.nclamps, 1);
  CHECK_DBL(c.swarm.velocity_clamp[0], 0.25);
  CHECK_INT(c.swarm.kernel, IPSO_KERNEL_QUEUE);
  CHECK_INT(c.swarm.sync, IPSO_SYNC_STRICT);
  CHECK_INT(c.swarm.topology, IPSO_SWARM_RING);
  CHECK_INT(c.swarm.neighbours, 3);
  CHECK_INT(c.migration.interval, 50);
  CHECK_INT(c.migration.migrants, 4);
  CHECK_INT(c.migration.topology, IPSO_TOPOLOGY_BIDIRECTIONAL_RING);
  CHECK_DBL(c.migration.probability, 0.5);
  CHECK_INT(c.migration.select, IPSO_SELECT_RANDOM);
  CHECK_INT(c.migration.policy, IPSO_POLICY_REPLACE_RANDOM);
  CHECK_INT(c.output.history_interval, 5);
  CHECK_INT(c.output.snapshot_interval, 1000);
  CHECK_INT(c.output.checkpoint_interval, 1000);
  CHECK_DBL(c.output.checkpoint_seconds, 0);
  CHECK_STR(c.output.checkpoint, "results/sphere30.restart.h5");
  CHECK_INT(c.output.progress, IPSO_PROGRESS_LINES);
  CHECK(c.text && strstr(c.text, "topology = \"bidirectional_ring\"\n"));
  CHECK(c.text && strstr(c.text, "checkpoint_interval = 1000\n"));
  check_round_trips(&c, 4);
  config_free(&c);
  config_free(&c); /* harmless on a freed config */
}

/* good/cubic_paper.toml: defaults from the objective table, wall-time checkpoints. */
static void test_cubic(void)
{
  struct ipso_config c;
  if (load_good("good/cubic_paper.toml", 0, NULL, 1, &c) != IPSO_OK) return;
  CHECK_STR(c.run.name, "cubic120");
  CHECK_INT(c.run.seed, 1);
  CHECK_INT(c.run.backend, IPSO_BACKEND_GPU);
  CHECK_INT(c.run.precision, IPSO_FLOAT);
  CHECK_INT(c.run.max_iterations, 1000);
  CHECK_INT(c.run.has_target, 0);
  CHECK_DBL(c.run.time_limit, 0);
  CHECK_DBL(c.run.watchdog, 1800);
  CHECK_STR(c.run.output, "cubic120.h5");
  CHECK_INT(c.objective.id, IPSO_OBJ_CUBIC);
  CHECK_INT(c.objective.dimensions, 120);
  check_uniform_bounds(&c, -100, 100);
  CHECK_INT(c.objective.goal, IPSO_MAXIMIZE);
  CHECK_INT(c.swarm.particles, 32768);
  CHECK_INT(c.swarm.kernel, IPSO_KERNEL_QUEUE_LOCK);
  CHECK_INT(c.swarm.sync, IPSO_SYNC_RELAXED);
  CHECK_INT(c.migration.interval, 0);
  CHECK_INT(c.output.history_interval, 0);
  CHECK_INT(c.output.checkpoint_interval, 0);
  CHECK_DBL(c.output.checkpoint_seconds, 3600);
  CHECK_STR(c.output.checkpoint, "cubic120.ckpt.h5");
  CHECK_INT(c.output.progress, IPSO_PROGRESS_OFF);
  CHECK(c.text && strstr(c.text, "# time_limit: none\n"));
  CHECK(c.text && strstr(c.text, "checkpoint_interval = \"01:00:00\"\n"));
  check_round_trips(&c, 1);
  config_free(&c);
}

/* good/target_distance.toml: per-dimension bounds and target, no output file. */
static void test_target_distance(void)
{
  struct ipso_config c;
  if (load_good("good/target_distance.toml", 0, NULL, 2, &c) != IPSO_OK) return;
  CHECK_STR(c.run.name, "target4");
  CHECK_INT(c.run.seed, 7);
  CHECK_INT(c.run.has_target, 1);
  CHECK_DBL(c.run.target_fitness, 0);
  CHECK_DBL(c.run.time_limit, 360000);
  CHECK_DBL(c.run.watchdog, 0);
  CHECK_STR(c.run.output, "");
  CHECK_INT(c.objective.id, IPSO_OBJ_TARGET_DISTANCE);
  CHECK_INT(c.objective.dimensions, 4);
  const double lo[4] = {-10, -20.5, -30, -1e3};
  for (int d = 0; d < 4; d++) {
    CHECK_DBL(c.objective.lower[d], lo[d]);
    CHECK_DBL(c.objective.upper[d], 50);
  }
  CHECK_INT(c.objective.nparams, 1);
  CHECK_STR(c.objective.params[0].name, "target");
  CHECK_INT(c.objective.params[0].len, 4);
  CHECK_INT(c.objective.params[0].is_array, 1);
  const double target[4] = {1.5, -2, 3.25, 0};
  for (int d = 0; d < 4; d++) CHECK_DBL(c.objective.params[0].values[d], target[d]);
  int64_t nprm;
  double *prm = objective_param_vector(&c, &nprm);
  CHECK(prm != NULL);
  if (prm) CHECK_DBL(prm[2], 3.25);
  free(prm);
  CHECK_INT(c.swarm.particles, 4096);
  CHECK_DBL(c.swarm.inertia, 0);
  CHECK_DBL(c.swarm.cognitive, 4);
  CHECK_DBL(c.swarm.social, 0);
  CHECK_DBL(c.swarm.velocity_clamp[0], 1);
  CHECK_INT(c.output.history_interval, 100);
  CHECK_INT(c.output.checkpoint_interval, 0);
  CHECK_DBL(c.output.checkpoint_seconds, 0);
  CHECK_STR(c.output.checkpoint, "target4.ckpt.h5");
  CHECK(c.text && strstr(c.text, "time_limit = \"100:00:00\"\n"));
  CHECK(c.text && strstr(c.text, "watchdog = \"00:00:00\"\n"));
  CHECK(c.text && strstr(c.text, "lower = [-10.0, -20.5, -30.0, -1000.0]\n"));
  CHECK(c.text && strstr(c.text, "upper = 50.0\n"));
  check_round_trips(&c, 2);
  config_free(&c);
}

/* good/defaults.toml: every default of the contract. */
static void test_defaults(void)
{
  struct ipso_config c;
  if (load_good("good/defaults.toml", 0, NULL, 8, &c) != IPSO_OK) return;
  CHECK_STR(c.run.name, "islandpso");
  CHECK_INT(c.run.seed, 1);
  CHECK_INT(c.run.backend, IPSO_BACKEND_AUTO);
  CHECK_INT(c.run.precision, IPSO_DOUBLE);
  CHECK_INT(c.run.max_iterations, 1000);
  CHECK_INT(c.run.has_target, 0);
  CHECK_DBL(c.run.time_limit, 0);
  CHECK_DBL(c.run.watchdog, 1800);
  CHECK_STR(c.run.output, "islandpso.h5");
  CHECK_STR(c.objective.name, "rastrigin");
  CHECK_INT(c.objective.id, IPSO_OBJ_RASTRIGIN);
  CHECK_INT(c.objective.dimensions, 10);
  check_uniform_bounds(&c, -5.12, 5.12);
  CHECK_INT(c.objective.goal, IPSO_MINIMIZE);
  CHECK_INT(c.objective.nparams, 0);
  CHECK_INT(c.swarm.particles, 1024);
  CHECK_DBL(c.swarm.inertia, SPSO_INERTIA);
  CHECK_DBL(c.swarm.inertia, 1 / (2 * log(2)));
  CHECK_DBL(c.swarm.cognitive, SPSO_ACCELERATION);
  CHECK_DBL(c.swarm.social, SPSO_ACCELERATION);
  CHECK_INT(c.swarm.nclamps, 2); /* islands in turn: 5% of the range, the whole range */
  CHECK_DBL(c.swarm.velocity_clamp[0], 0.05);
  CHECK_DBL(c.swarm.velocity_clamp[1], 1);
  CHECK_DBL(config_clamp(&c, 5), 1);
  CHECK_INT(c.swarm.kernel, IPSO_KERNEL_QUEUE_LOCK);
  CHECK_INT(c.swarm.sync, IPSO_SYNC_STRICT);
  CHECK_INT(c.swarm.topology, IPSO_SWARM_MIXED);
  CHECK_INT(c.swarm.neighbours, 4);
  CHECK_INT(c.migration.interval, 100);
  CHECK_INT(c.migration.migrants, 2);
  CHECK_INT(c.migration.topology, IPSO_TOPOLOGY_RING);
  CHECK_DBL(c.migration.probability, 1.0);
  CHECK_INT(c.migration.select, IPSO_SELECT_BEST);
  CHECK_INT(c.migration.policy, IPSO_POLICY_REPLACE_WORST);
  CHECK_INT(c.output.history_interval, 10);
  CHECK_INT(c.output.snapshot_interval, 0);
  CHECK_INT(c.output.checkpoint_interval, 0);
  CHECK_DBL(c.output.checkpoint_seconds, 900);
  CHECK_STR(c.output.checkpoint, "islandpso.ckpt.h5");
  CHECK_INT(c.output.progress, IPSO_PROGRESS_AUTO);
  check_round_trips(&c, 8);
  config_free(&c);

  /* target_distance without params gets its default target, written out. */
  const char *td = "[objective]\nname = \"target_distance\"\ndimensions = 3\n";
  CHECK_INT(config_load_text(td, "td.toml", 0, NULL, 1, &c), IPSO_OK);
  CHECK_INT(c.objective.nparams, 1);
  CHECK_STR(c.objective.params[0].name, "target");
  CHECK_INT(c.objective.params[0].len, 1);
  CHECK_INT(c.objective.params[0].is_array, 0);
  CHECK_DBL(c.objective.params[0].values[0], 1.0);
  CHECK(c.text && strstr(c.text, "[objective.params]\ntarget = 1.0\n"));
  check_round_trips(&c, 1);
  config_free(&c);
}

/* --set: replacing, inserting, 3-part keys, bare strings, durations. */
static void test_overrides(void)
{
  char *ov[] = {
      "swarm.particles=64",
      "run.output=out",
      "objective.params.target=[1.5, -2, 3, 4]",
      "objective.name=target_distance",
      "objective.dimensions = 4",
      "run.time_limit=01:30:00",
      "output.checkpoint_interval=\"00:00:30\"",
      "run.name=overridden-run",
      "migration.topology=bidirectional_ring",
      "output.progress=off",
      "swarm.particles=128",
      "run.target_fitness=-3",
  };
  int nov = (int)(sizeof ov / sizeof ov[0]);
  struct ipso_config c;
  if (load_good("good/basic.toml", nov, ov, 3, &c) != IPSO_OK) return;
  CHECK_INT(c.swarm.particles, 128);
  CHECK_STR(c.run.output, "out");
  CHECK_STR(c.output.checkpoint, "results/sphere30.restart.h5");
  CHECK_INT(c.objective.id, IPSO_OBJ_TARGET_DISTANCE);
  CHECK_INT(c.objective.dimensions, 4);
  CHECK_INT(c.objective.nparams, 1);
  CHECK_INT(c.objective.params[0].len, 4);
  CHECK_DBL(c.objective.params[0].values[0], 1.5);
  CHECK_DBL(c.objective.params[0].values[3], 4);
  CHECK_DBL(c.run.time_limit, 5400);
  CHECK_INT(c.output.checkpoint_interval, 0);
  CHECK_DBL(c.output.checkpoint_seconds, 30);
  CHECK_STR(c.run.name, "overridden-run");
  CHECK_INT(c.migration.topology, IPSO_TOPOLOGY_BIDIRECTIONAL_RING);
  CHECK_INT(c.output.progress, IPSO_PROGRESS_OFF);
  CHECK_DBL(c.run.target_fitness, -3);
  CHECK_INT(c.swarm.kernel, IPSO_KERNEL_QUEUE); /* untouched keys keep the file's value */
  check_round_trips(&c, 3);
  config_free(&c);

  /* The default checkpoint follows an overridden output; an override creates tables. */
  char *ov2[] = {"run.output=runs/x.h5", "objective.name=sphere", "objective.dimensions=2"};
  CHECK_INT(config_load_text("", "empty.toml", 3, ov2, 1, &c), IPSO_OK);
  CHECK_STR(c.output.checkpoint, "runs/x.ckpt.h5");
  CHECK_INT(c.objective.dimensions, 2);
  config_free(&c);

  /* An empty value is the empty string: no output file. */
  char *ov3[] = {"run.output=", "objective.name=sphere", "objective.dimensions=2"};
  CHECK_INT(config_load_text("", "empty.toml", 3, ov3, 1, &c), IPSO_OK);
  CHECK_STR(c.run.output, "");
  CHECK_STR(c.output.checkpoint, "islandpso.ckpt.h5");
  config_free(&c);
}

/* Writes TEXT to PATH; returns 0 on success. */
static int write_file(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  int ok = fputs(text, f) >= 0;
  return fclose(f) == 0 && ok ? 0 : -1;
}

/* A user objective whose relative source is resolved against the config's directory. */
static void test_user_source(void)
{
  char tmp[1024];
  snprintf(tmp, sizeof tmp, "%s", temp_template("ipso_test_config"));
  if (!mkdtemp(tmp)) {
    perror("test_config: mkdtemp");
    failures++;
    return;
  }
  char dir[1100], conf[1200], src[1200], expect[PATH_MAX + 96];
  snprintf(dir, sizeof dir, "%s/sub", tmp);
  snprintf(conf, sizeof conf, "%s/user.toml", dir);
  snprintf(src, sizeof src, "%s/my_objective.c", dir);
  CHECK(mkdir(dir, 0700) == 0);
  CHECK(write_file(src, "double my_f(const double *x, int d, const double *p) { return 0; }\n") ==
        0);
  CHECK(write_file(conf, "[run]\n"
                         "name = \"user-run\"\n"
                         "\n"
                         "[objective]\n"
                         "name = \"user\"\n"
                         "dimensions = 3\n"
                         "lower = [-1, -2, -3]\n"
                         "upper = [1, 2.5, 3]\n"
                         "goal = \"maximize\"\n"
                         "source = \"my_objective.c\"\n"
                         "function = \"my_f\"\n"
                         "\n"
                         "[objective.params]\n"
                         "scale = 2.5\n"
                         "weights = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"
                         "single = [7]\n") == 0);

  struct ipso_config c;
  CHECK_INT(config_load(conf, 0, NULL, 1, &c), IPSO_OK);
  CHECK_STR(c.objective.source, src);
  CHECK_STR(c.objective.function, "my_f");
  CHECK_INT(c.objective.id, IPSO_OBJ_USER);
  CHECK_INT(c.objective.goal, IPSO_MAXIMIZE);
  CHECK_DBL(c.objective.upper[1], 2.5);
  /* Parameters come in key order. */
  CHECK_INT(c.objective.nparams, 3);
  if (c.objective.nparams == 3) {
    CHECK_STR(c.objective.params[0].name, "scale");
    CHECK_INT(c.objective.params[0].is_array, 0);
    CHECK_DBL(c.objective.params[0].values[0], 2.5);
    CHECK_STR(c.objective.params[1].name, "single");
    CHECK_INT(c.objective.params[1].is_array, 1);
    CHECK_INT(c.objective.params[1].len, 1);
    CHECK_STR(c.objective.params[2].name, "weights");
    CHECK_INT(c.objective.params[2].len, 10);
    CHECK_DBL(c.objective.params[2].values[9], 10);
  }
  if (c.text) check_round_trips(&c, 1);
  config_free(&c);

  /* A relative config path: the source is still found next to the config. */
  char cwd[PATH_MAX];
  CHECK(getcwd(cwd, sizeof cwd) != NULL);
  CHECK(chdir(tmp) == 0);
  char here[PATH_MAX];
  CHECK(getcwd(here, sizeof here) != NULL);
  snprintf(expect, sizeof expect, "%s/sub/my_objective.c", here);
  CHECK_INT(config_load("sub/user.toml", 0, NULL, 1, &c), IPSO_OK);
  CHECK_STR(c.objective.source, expect);
  config_free(&c);
  CHECK_INT(config_load("./sub/user.toml", 0, NULL, 1, &c), IPSO_OK);
  CHECK_STR(c.objective.source, expect);
  config_free(&c);
  CHECK(chdir("sub") == 0);
  snprintf(expect, sizeof expect, "%s/sub/my_objective.c", here);
  CHECK_INT(config_load("user.toml", 0, NULL, 1, &c), IPSO_OK);
  CHECK_STR(c.objective.source, expect);
  config_free(&c);
  CHECK(chdir(cwd) == 0);

  /* An absolute source is kept; a missing one is named with its resolved path. */
  char setabs[1300], setmissing[] = "objective.source=gone.c";
  snprintf(setabs, sizeof setabs, "objective.source=%s", src);
  char *ov[] = {setabs};
  CHECK_INT(config_load(conf, 1, ov, 1, &c), IPSO_OK);
  CHECK_STR(c.objective.source, src);
  config_free(&c);
  char *ov2[] = {setmissing};
  capture_begin();
  int rc = config_load(conf, 1, ov2, 1, &c);
  char *err = capture_end();
  CHECK_INT(rc, IPSO_ERR_USAGE);
  snprintf(expect, sizeof expect, "cannot read '%s/gone.c': No such file or directory", dir);
  CHECK(strstr(err, expect) != NULL);
  CHECK(strstr(err, "--set objective.source=gone.c: error: objective.source: ") != NULL);
  free(err);

  unlink(src);
  unlink(conf);
  rmdir(dir);
  rmdir(tmp);
}

/* config_parse_hms on good and malformed durations. */
static void test_hms(void)
{
  CHECK_DBL(config_parse_hms("00:00:00"), 0);
  CHECK_DBL(config_parse_hms("00:00:01"), 1);
  CHECK_DBL(config_parse_hms("01:02:03"), 3723);
  CHECK_DBL(config_parse_hms("0:30:00"), 1800);
  CHECK_DBL(config_parse_hms("100:00:00"), 360000);
  CHECK_DBL(config_parse_hms("0000100:59:59"), 363599);
  CHECK_DBL(config_parse_hms("999999999:59:59"), 999999999.0 * 3600 + 3599);
  const char *bad[] = {
      "",          "1:2",    "00:61:00",         "00:00:60", "abc",      "1:00",     ":00:00",
      "1:0:00",    "1:00:0", " 1:00:00",         "+1:00:00", "-1:00:00", "01:0a:00", "1:00:00:00",
      "01:00:00 ", "1h",     "10000000000:00:00"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    if (config_parse_hms(bad[i]) != -1) {
      fprintf(stderr, "test_config: config_parse_hms(\"%s\") accepted\n", bad[i]);
      failures++;
    }
  }
  CHECK_DBL(config_parse_hms(NULL), -1);
}

/* The config spellings of every enum value. */
static void test_enum_names(void)
{
  CHECK_STR(config_backend_name(IPSO_BACKEND_AUTO), "auto");
  CHECK_STR(config_backend_name(IPSO_BACKEND_GPU), "gpu");
  CHECK_STR(config_backend_name(IPSO_BACKEND_CPU), "cpu");
  CHECK_STR(config_precision_name(IPSO_DOUBLE), "double");
  CHECK_STR(config_precision_name(IPSO_FLOAT), "float");
  CHECK_STR(config_kernel_name(IPSO_KERNEL_QUEUE_LOCK), "queue_lock");
  CHECK_STR(config_kernel_name(IPSO_KERNEL_QUEUE), "queue");
  CHECK_STR(config_kernel_name(IPSO_KERNEL_REDUCTION), "reduction");
  CHECK_STR(config_sync_name(IPSO_SYNC_STRICT), "strict");
  CHECK_STR(config_sync_name(IPSO_SYNC_RELAXED), "relaxed");
  CHECK_STR(config_goal_name(IPSO_MINIMIZE), "minimize");
  CHECK_STR(config_goal_name(IPSO_MAXIMIZE), "maximize");
  CHECK_STR(config_topology_name(IPSO_TOPOLOGY_RING), "ring");
  CHECK_STR(config_topology_name(IPSO_TOPOLOGY_BIDIRECTIONAL_RING), "bidirectional_ring");
}

/* Loads TEXT (named "inline.toml") and checks it fails with a message containing EXPECT. */
static void check_bad_text(const char *text, int nov, char **ov, int islands, const char *expect)
{
  struct ipso_config c;
  capture_begin();
  int rc = config_load_text(text, "inline.toml", nov, ov, islands, &c);
  char *err = capture_end();
  if (rc != IPSO_ERR_USAGE || !strstr(err, expect)) {
    fprintf(stderr, "test_config: bad config gave rc %d, expected %d and \"%s\"; stderr:\n%s\n", rc,
            IPSO_ERR_USAGE, expect, err);
    failures++;
  }
  CHECK(c.text == NULL && c.objective.lower == NULL); /* nothing left allocated */
  free(err);
  config_free(&c);
}

/* Bad configs in memory: exact locations, several errors at once, the cap. */
static void test_bad_inline(void)
{
  const char *obj = "[objective]\nname = \"sphere\"\ndimensions = 10\n";
  char text[8192];

  snprintf(text, sizeof text, "[run]\nseed = 3\nbackend = \"gpuu\"\n%s", obj);
  check_bad_text(text, 0, NULL, 1,
                 "inline.toml:3:11: error: run.backend: must be one of auto, gpu, cpu "
                 "(did you mean 'gpu'?)\n");
  check_bad_text("", 0, NULL, 1, "inline.toml:1:1: error: objective.name: is required\n");
  check_bad_text("", 0, NULL, 1, "inline.toml:1:1: error: objective.dimensions: is required\n");

  /* Every problem is reported, in file order. */
  snprintf(text, sizeof text,
           "[swarm]\ninertai = 1\nparticles = 0\n[run]\nseed = -4\n[objective]\nname = \"x\"\n");
  struct ipso_config c;
  capture_begin();
  int rc = config_load_text(text, "inline.toml", 0, NULL, 1, &c);
  char *err = capture_end();
  CHECK_INT(rc, IPSO_ERR_USAGE);
  const char *order[] = {"inline.toml:2:1: error: swarm.inertai",
                         "inline.toml:3:13: error: swarm.particles",
                         "inline.toml:5:8: error: run.seed",
                         "inline.toml:6:1: error: objective.dimensions: is required",
                         "inline.toml:7:8: error: objective.name"};
  const char *at = err;
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
    const char *found = strstr(at, order[i]);
    if (!found) {
      fprintf(stderr, "test_config: missing or out of order: %s\nstderr:\n%s\n", order[i], err);
      failures++;
      break;
    }
    at = found;
  }
  free(err);

  /* Many problems: the first are printed, the rest counted. */
  size_t n = (size_t)snprintf(text, sizeof text, "%s[swarm]\n", obj);
  for (int i = 0; i < 40; i++) n += (size_t)snprintf(text + n, sizeof text - n, "bad%d = 1\n", i);
  check_bad_text(text, 0, NULL, 1, "islandpso: error: 15 more errors in config 'inline.toml'");

  /* Migration consistency depends on the number of islands. */
  snprintf(text, sizeof text, "%s[swarm]\nparticles = 3\n[migration]\nmigrants = 2\n", obj);
  check_bad_text(text, 0, NULL, 2, "would replace 2 of the 3 particles");
  CHECK_INT(config_load_text(text, "inline.toml", 0, NULL, 1, &c), IPSO_OK);
  config_free(&c);
  snprintf(text, sizeof text, "%s[swarm]\nparticles = 4\n[migration]\ninterval = 0\nmigrants = 3\n",
           obj);
  CHECK_INT(config_load_text(text, "inline.toml", 0, NULL, 4, &c), IPSO_OK);
  config_free(&c);

  /* run.islands: one per rank unless given (and then not in the resolved
   * text, which does not depend on the ranks), a multiple of the ranks, and
   * the island count (not the ranks) decides the migration check. */
  CHECK_INT(config_load_text(obj, "inline.toml", 0, NULL, 4, &c), IPSO_OK);
  CHECK_INT(c.run.islands, 0);
  CHECK_INT(config_islands(&c, 4), 4);
  CHECK(c.text && strstr(c.text, "# islands: one per rank\n"));
  check_round_trips(&c, 4);
  config_free(&c);
  snprintf(text, sizeof text, "[run]\nislands = 8\n%s", obj);
  CHECK_INT(config_load_text(text, "inline.toml", 0, NULL, 4, &c), IPSO_OK);
  CHECK_INT(c.run.islands, 8);
  CHECK_INT(config_islands(&c, 4), 8);
  CHECK(c.text && strstr(c.text, "\nislands = 8\n"));
  check_round_trips(&c, 2);
  config_free(&c);
  check_bad_text(text, 0, NULL, 3,
                 "inline.toml:2:11: error: run.islands: 8 islands cannot be spread evenly over 3 "
                 "MPI ranks: give a multiple of 3, or run on a number of ranks that divides 8");
  check_bad_text(obj, 1, (char *[]){"run.islands=6"}, 4,
                 "run.islands: 6 islands cannot be spread evenly over 4 MPI ranks");
  check_bad_text(obj, 1, (char *[]){"run.islands=0"}, 1, "run.islands: must be between 1 and");
  snprintf(text, sizeof text,
           "[run]\nislands = 3\n%s[swarm]\nparticles = 3\n[migration]\nmigrants = 1\n"
           "topology = \"bidirectional_ring\"\n",
           obj);
  check_bad_text(text, 0, NULL, 1, "would replace 2 of the 3 particles");
  snprintf(text, sizeof text,
           "[run]\nislands = 2\n%s[swarm]\nparticles = 3\n[migration]\nmigrants = 1\n"
           "topology = \"bidirectional_ring\"\n",
           obj);
  CHECK_INT(config_load_text(text, "inline.toml", 0, NULL, 1, &c), IPSO_OK);
  config_free(&c);

  /* Type, range and name checks of keys no bad/ file covers. */
  snprintf(text, sizeof text, "%s[objective.params]\n", obj);
  CHECK_INT(config_load_text(text, "inline.toml", 0, NULL, 1, &c), IPSO_OK);
  config_free(&c);
  snprintf(text, sizeof text, "%sgoal = \"maximise\"\n", obj);
  check_bad_text(text, 0, NULL, 1, "must be one of minimize, maximize (did you mean 'maximize'?)");
  snprintf(text, sizeof text, "[run]\nprecision = \"Float\"\n%s", obj);
  check_bad_text(text, 0, NULL, 1, "(did you mean 'float'?)");
  snprintf(text, sizeof text, "[run]\nname = \"\"\n%s", obj);
  check_bad_text(text, 0, NULL, 1, "run.name: must be 1 to 127 characters");
  snprintf(text, sizeof text, "[run]\nmax_iterations = 1000000000001\n%s", obj);
  check_bad_text(text, 0, NULL, 1, "must be between 1 and 1000000000000, got 1000000000001");
  snprintf(text, sizeof text, "%s[swarm]\ncognitive = 4.5\nsocial = -0.1\n", obj);
  check_bad_text(text, 0, NULL, 1, "swarm.cognitive: must be between 0 and 4, got 4.5");
  check_bad_text(text, 0, NULL, 1, "swarm.social: must be between 0 and 4, got -0.1");
  snprintf(text, sizeof text, "%s[swarm]\nvelocity_clamp = 1.5\n", obj);
  check_bad_text(text, 0, NULL, 1, "must be greater than 0 and at most 1, got 1.5");
  snprintf(text, sizeof text, "%s[swarm]\nvelocity_clamp = [0.1, 0]\n", obj);
  check_bad_text(text, 0, NULL, 1, "must be greater than 0 and at most 1, got 0 (value 1)");
  snprintf(text, sizeof text, "%s[swarm]\nvelocity_clamp = []\n", obj);
  check_bad_text(text, 0, NULL, 1, "velocity_clamp: must have 1 to 8 values, got 0");
  snprintf(text, sizeof text, "%s[swarm]\nvelocity_clamp = [0.1, \"x\"]\n", obj);
  check_bad_text(text, 0, NULL, 1, "swarm.velocity_clamp[1]");
  snprintf(text, sizeof text, "%s[output]\nhistory_interval = -1\nprogress = \"line\"\n", obj);
  check_bad_text(text, 0, NULL, 1, "output.history_interval: must be at least 0, got -1");
  check_bad_text(text, 0, NULL, 1, "must be one of auto, lines, off (did you mean 'lines'?)");
  snprintf(text, sizeof text, "%s[objective.params]\n2x = 1\n", obj);
  check_bad_text(text, 0, NULL, 1, "objective 'sphere' takes no parameters");
  check_bad_text("[objective]\nname = \"user\"\ndimensions = 1\nlower = 0\nupper = 1\n"
                 "source = \"inline.toml\"\nfunction = \"f\"\n[objective.params]\n\"2x\" = 1\n"
                 "e = []\n",
                 0, NULL, 1, "objective.params.2x: parameter names must be C identifiers");
  check_bad_text("[objective]\nname = \"user\"\ndimensions = 1\nlower = 0\nupper = 1\n"
                 "source = \"inline.toml\"\nfunction = \"f\"\n[objective.params]\ne = []\n",
                 0, NULL, 1, "objective.params.e: must have 1 to 1000000 values, got 0");
  snprintf(text, sizeof text,
           "[objective]\nname = \"user\"\ndimensions = 1\nlower = 0\n"
           "upper = 1\nsource = \"inline.toml\"\nfunction = \"f\"\n"
           "[objective.params]\n");
  n = strlen(text);
  for (int i = 0; i <= IPSO_MAX_PARAMS; i++)
    n += (size_t)snprintf(text + n, sizeof text - n, "p%d = %d\n", i, i);
  check_bad_text(text, 0, NULL, 1, "objective.params: has 17 parameters, at most 16");
  check_bad_text("[objective]\nname = \"sphere\"\ndimensions = 2\nlower = \"-1\"\n", 0, NULL, 1,
                 "objective.lower: expected a number or an array of numbers, got a string");
  check_bad_text("[objective]\nname = \"sphere\"\ndimensions = 2\nlower = [-1, true]\n", 0, NULL, 1,
                 "objective.lower[1]: expected a number, got a boolean");
  check_bad_text("[[swarm]]\nparticles = 3\n", 0, NULL, 1, "swarm: expected a table, got an array");
  check_bad_text("[objective]\nname = \"sphere\"\ndimensions = 2\nparams = 3\n", 0, NULL, 1,
                 "objective.params: expected a table, got an integer");
  check_bad_text("[objective.parms]\n", 0, NULL, 1,
                 "unknown table [objective.parms] (did you mean [objective.params]?)");
  check_bad_text("[run]\nparticle = 3\n", 0, NULL, 1,
                 "unknown key 'particle' in [run] (did you mean 'particles' in [swarm]?)");
  check_bad_text("[run]\nname = \"a\\u0000b\"\n", 0, NULL, 1,
                 "run.name: must not contain a NUL character");
  check_bad_text("[run]\n\"esc\\u001b[31m\" = 1\n", 0, NULL, 1, "unknown key 'esc?[31m' in [run]");

  /* Overrides: malformed forms, bad values named by their --set text. */
  char *ov[] = {"=3", "run.=3", "run", ".seed=1", "a.b.c.d=1", "run.seed=1e3"};
  check_bad_text(obj, 1, &ov[0], 1, "--set =3: error: expected section.key=value\n");
  check_bad_text(obj, 1, &ov[1], 1, "--set run.=3: error: expected section.key=value\n");
  check_bad_text(obj, 1, &ov[2], 1, "--set run: error: expected section.key=value\n");
  check_bad_text(obj, 1, &ov[3], 1, "--set .seed=1: error: expected section.key=value\n");
  check_bad_text(obj, 1, &ov[4], 1, "--set a.b.c.d=1: error: expected section.key=value\n");
  check_bad_text(obj, 1, &ov[5], 1,
                 "--set run.seed=1e3: error: run.seed: expected an integer, got a float\n");
  char *ov2[] = {"swarm.sync=relaxed", "swarm.kernel=queue"};
  check_bad_text(obj, 2, ov2, 1, "--set swarm.sync=relaxed: error: swarm.sync: sync = \"relaxed\"");
  char *ov3[] = {"run.seed.x=1"};
  snprintf(text, sizeof text, "[run]\nseed = 2\n%s", obj);
  check_bad_text(text, 1, ov3, 1, "--set run.seed.x=1: error: run.seed.x: cannot be set");
  char *ov4[] = {"swam.particles=3"};
  check_bad_text(
      obj, 1, ov4, 1,
      "--set swam.particles=3: error: swam: unknown table [swam] (did you mean [swarm]?)");
  /* A file that does not parse still has its malformed overrides reported. */
  check_bad_text("[run\n", 1, ov, 1, "--set =3: error: expected section.key=value\n");
  check_bad_text("[run\n", 1, ov, 1, "inline.toml:1:5: error: Error while parsing table header");
}

/* config_load's own failures: missing file, directory, too large, NUL bytes. */
static void test_bad_files(void)
{
  struct ipso_config c;
  capture_begin();
  int rc = config_load("/nonexistent/islandpso.toml", 0, NULL, 1, &c);
  char *err = capture_end();
  CHECK_INT(rc, IPSO_ERR_USAGE);
  CHECK(strstr(err, "islandpso: error: cannot read config '/nonexistent/islandpso.toml': "
                    "No such file or directory\n") != NULL);
  free(err);

  capture_begin();
  rc = config_load(test_dir, 0, NULL, 1, &c);
  err = capture_end();
  CHECK_INT(rc, IPSO_ERR_USAGE);
  CHECK(strstr(err, "Is a directory") != NULL);
  free(err);

  char big[PATH_MAX];
  snprintf(big, sizeof big, "%s", temp_template("ipso_test_config_big"));
  int fd = mkstemp(big);
  CHECK(fd >= 0);
  if (fd >= 0) {
    CHECK(ftruncate(fd, (off_t)(17 << 20)) == 0);
    close(fd);
    capture_begin();
    rc = config_load(big, 0, NULL, 1, &c);
    err = capture_end();
    CHECK_INT(rc, IPSO_ERR_USAGE);
    CHECK(strstr(err, "is too large (more than 16 MiB)") != NULL);
    free(err);
    /* NUL bytes inside the file are an error, not the end of the text. */
    FILE *f = fopen(big, "wb");
    CHECK(f != NULL);
    if (f) {
      static const char nul_text[] = "[objective]\nname = \"sphere\"\ndimensions = 2\n\0x = 1\n";
      fwrite(nul_text, 1, sizeof nul_text - 1, f);
      fclose(f);
      capture_begin();
      rc = config_load(big, 0, NULL, 1, &c);
      err = capture_end();
      CHECK_INT(rc, IPSO_ERR_USAGE);
      CHECK(strstr(err, ":4:1: error: ") != NULL);
      free(err);
    }
    unlink(big);
  }
}

/* Reads the "# expect:", "# set:" and "# ranks:" lines at the top of PATH. */
static int read_header(const char *path, char *expect, size_t n, char sets[][1024], int *nsets,
                       int *ranks)
{
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  char line[1024];
  *expect = '\0';
  *nsets = 0;
  *ranks = 1;
  while (fgets(line, sizeof line, f) && strncmp(line, "# ", 2) == 0) {
    line[strcspn(line, "\n")] = '\0';
    if (strncmp(line, "# expect: ", 10) == 0)
      snprintf(expect, n, "%s", line + 10);
    else if (strncmp(line, "# set: ", 7) == 0 && *nsets < 4)
      snprintf(sets[(*nsets)++], 1024, "%s", line + 7);
    else if (strncmp(line, "# ranks: ", 9) == 0)
      *ranks = atoi(line + 9);
  }
  fclose(f);
  return *expect ? 0 : -1;
}

/* Every config in tests/config/bad through config_load, as the CLI would load it. */
static void test_bad_corpus(void)
{
  const char *dir = data_path("bad");
  char dirpath[PATH_MAX + 64];
  snprintf(dirpath, sizeof dirpath, "%s", dir);
  DIR *d = opendir(dirpath);
  if (!d) {
    fprintf(stderr, "test_config: cannot open %s: %s\n", dirpath, strerror(errno));
    failures++;
    return;
  }
  int count = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 6 || strcmp(e->d_name + len - 5, ".toml") != 0) continue;
    char path[PATH_MAX + 320], expect[1024], sets[4][1024];
    snprintf(path, sizeof path, "%s/%s", dirpath, e->d_name);
    int nsets, ranks;
    if (read_header(path, expect, sizeof expect, sets, &nsets, &ranks) != 0) {
      fprintf(stderr, "test_config: %s has no \"# expect:\" line\n", path);
      failures++;
      continue;
    }
    char *ov[4];
    for (int i = 0; i < nsets; i++) ov[i] = sets[i];
    struct ipso_config c;
    capture_begin();
    int rc = config_load(path, nsets, ov, ranks, &c);
    char *err = capture_end();
    if (rc != IPSO_ERR_USAGE || !strstr(err, expect)) {
      fprintf(stderr, "test_config: %s: rc %d, expected %d and \"%s\"; stderr:\n%s\n", e->d_name,
              rc, IPSO_ERR_USAGE, expect, err);
      failures++;
    }
    free(err);
    config_free(&c);
    count++;
  }
  closedir(d);
  if (count < 30) {
    fprintf(stderr, "test_config: only %d bad configs found in %s\n", count, dirpath);
    failures++;
  }
}

int main(void)
{
  const char *dir = getenv("IPSO_TEST_DIR");
  if (!dir || !*dir) {
    fprintf(stderr, "test_config: IPSO_TEST_DIR must name the tests/ source directory\n");
    return 1;
  }
  snprintf(test_dir, sizeof test_dir, "%s", dir);

  test_basic();
  test_cubic();
  test_target_distance();
  test_defaults();
  test_overrides();
  test_user_source();
  test_hms();
  test_enum_names();
  test_bad_inline();
  test_bad_files();
  test_bad_corpus();

  if (failures) {
    fprintf(stderr, "test_config: %d check%s failed\n", failures, failures == 1 ? "" : "s");
    return 1;
  }
  printf("test_config: all checks passed\n");
  return 0;
}

/* The table of the config's keys, from which the reader's schema, its typed
 * lookups, the enum names and the resolved config text are made. */
#include <climits>
#include <cstddef>
#include <cstring>

#include "config_internal.hpp"

namespace config_impl
{
namespace
{

/* SPSO-2011 coefficients: w = 1/(2 ln 2), c1 = c2 = 0.5 + ln 2. */
constexpr double kSpsoInertia = 0.72134752044448170;
constexpr double kSpsoAcceleration = 1.1931471805599453;
/* run.islands at most: global island ids address the random stream in 32 bits,
 * and every island is a column of /history/island_best. */
constexpr double kMaxIslands = 65536;
constexpr double kMaxIterations = 1e12;
constexpr size_t kBoundsPerLine = 8; /* array values per line in the resolved text */

const char *const kBackend[] = {"auto", "gpu", "cpu", nullptr};
const char *const kPrecision[] = {"double", "float", nullptr};
const char *const kKernel[] = {"queue_lock", "queue", "reduction", nullptr};
const char *const kSync[] = {"strict", "relaxed", nullptr};
const char *const kSwarmTopology[] = {"global", "ring", "clpso", "mean", "mixed", nullptr};
const char *const kFrame[] = {"axes", "eigen", "mixed", nullptr};
const char *const kGoal[] = {"minimize", "maximize", nullptr};
const char *const kTopology[] = {"ring", "bidirectional_ring", nullptr};
const char *const kSelect[] = {"best", "random", nullptr};
const char *const kPolicy[] = {"replace_worst", "replace_random", nullptr};
const char *const kProgress[] = {"auto", "lines", "off", nullptr};

/* NAMES[V], or "unknown" for a V outside them. */
const char *name_of(const char *const *names, int64_t v)
{
  for (int i = 0; names[i]; i++)
    if (i == v) return names[i];
  return "unknown";
}

/* Rows of kKeys: table, key, default and range, member, when it is shown. */
#define AT(m) offsetof(ipso_config, m), sizeof(static_cast<ipso_config *>(nullptr)->m)
// clang-format off
#define INT(t, k, def, lo, hi, m, ...) {t, k, kind::integer, def, lo, hi, false, AT(m), nullptr, __VA_ARGS__}
#define NUM(t, k, def, lo, hi, open, m, ...) {t, k, kind::number, def, lo, hi, open, AT(m), nullptr, __VA_ARGS__}
#define ENUM(t, k, def, m, names) {t, k, kind::enumeration, def, 0, 0, false, AT(m), names}
#define OF(t, k, type, def, m, ...) {t, k, type, def, 0, 0, false, AT(m), nullptr, __VA_ARGS__}
// clang-format on
#define WHEN(condition) [](const ipso_config &c) { return condition; }

/* The keys in the resolved text's order; the default ring of 4 neighbours as
 * BENCHMARKS.md measured ("Solution quality"). Defaults that depend on other
 * keys are the validator's. */
const key kKeys[] = {
    OF("run", "name", kind::string, 0, run.name),
    INT("run", "seed", 1, 0, kNoMax, run.seed),
    ENUM("run", "backend", IPSO_BACKEND_AUTO, run.backend, kBackend),
    ENUM("run", "precision", IPSO_DOUBLE, run.precision, kPrecision),
    INT("run", "islands", 0, 1, kMaxIslands, run.islands, WHEN(c.run.islands > 0), "one per rank"),
    INT("run", "max_iterations", 1000, 1, kMaxIterations, run.max_iterations),
    NUM("run", "target_fitness", 0, -HUGE_VAL, HUGE_VAL, false, run.target_fitness,
        WHEN(c.run.has_target != 0), "none"),
    OF("run", "time_limit", kind::hms, 0, run.time_limit, WHEN(c.run.time_limit > 0), "none"),
    OF("run", "watchdog", kind::hms, 30 * 60, run.watchdog),
    OF("run", "output", kind::string, 0, run.output),
    OF("objective", "name", kind::string, 0, objective.name),
    INT("objective", "number", 0, 1, 30, objective.number,
        WHEN(c.objective.id == IPSO_OBJ_CEC2017)),
    INT("objective", "dimensions", 0, 1, IPSO_MAX_DIMENSIONS, objective.dimensions),
    OF("objective", "lower", kind::bounds, 0, objective.lower),
    OF("objective", "upper", kind::bounds, 0, objective.upper),
    ENUM("objective", "goal", IPSO_MINIMIZE, objective.goal, kGoal),
    OF("objective", "source", kind::string, 0, objective.source,
       WHEN(c.objective.id == IPSO_OBJ_USER)),
    OF("objective", "function", kind::string, 0, objective.function,
       WHEN(c.objective.id == IPSO_OBJ_USER)),
    OF("objective", "separable", kind::boolean, 0, objective.separable,
       WHEN(c.objective.id == IPSO_OBJ_USER)),
    OF("objective", "params", kind::params, 0, objective.params),
    INT("swarm", "particles", 1024, 1, IPSO_MAX_PARTICLES, swarm.particles),
    NUM("swarm", "inertia", kSpsoInertia, 0, 1, false, swarm.inertia),
    NUM("swarm", "inertia_end", 0.4, 0, 1, false, swarm.inertia_end,
        WHEN(c.swarm.has_inertia_end != 0), "none (constant inertia)"),
    NUM("swarm", "cognitive", kSpsoAcceleration, 0, 4, false, swarm.cognitive),
    NUM("swarm", "social", kSpsoAcceleration, 0, 4, false, swarm.social),
    OF("swarm", "velocity_clamp", kind::clamps, 0, swarm.velocity_clamp),
    ENUM("swarm", "kernel", IPSO_KERNEL_QUEUE_LOCK, swarm.kernel, kKernel),
    ENUM("swarm", "sync", IPSO_SYNC_STRICT, swarm.sync, kSync),
    ENUM("swarm", "topology", IPSO_SWARM_MIXED, swarm.topology, kSwarmTopology),
    INT("swarm", "neighbours", 4, 1, INT_MAX, swarm.neighbours,
        WHEN(c.swarm.topology == IPSO_SWARM_RING || c.swarm.topology == IPSO_SWARM_MIXED)),
    INT("swarm", "refresh", 7, 1, INT_MAX, swarm.refresh,
        WHEN(c.swarm.topology == IPSO_SWARM_CLPSO)),
    ENUM("swarm", "frame", IPSO_FRAME_MIXED, swarm.frame, kFrame),
    INT("migration", "interval", 100, 0, kNoMax, migration.interval),
    INT("migration", "migrants", 2, 1, INT_MAX, migration.migrants),
    ENUM("migration", "topology", IPSO_TOPOLOGY_RING, migration.topology, kTopology),
    NUM("migration", "probability", 1, 0, 1, true, migration.probability),
    ENUM("migration", "select", IPSO_SELECT_BEST, migration.select, kSelect),
    ENUM("migration", "policy", IPSO_POLICY_REPLACE_WORST, migration.policy, kPolicy),
    INT("output", "history_interval", 10, 0, kNoMax, output.history_interval),
    INT("output", "snapshot_interval", 0, 0, kNoMax, output.snapshot_interval),
    key{"output", "checkpoint_interval", kind::interval, 0, 0, kNoMax, false,
        AT(output.checkpoint_interval)},
    OF("output", "checkpoint", kind::string, 0, output.checkpoint),
    ENUM("output", "progress", IPSO_PROGRESS_AUTO, output.progress, kProgress),
};

/* "[a, b, ...]" with at most kBoundsPerLine values a line. */
std::string toml_array(const double *v, int64_t n)
{
  const auto per_line = static_cast<int64_t>(kBoundsPerLine);
  std::string s = "[";
  for (int64_t i = 0; i < n; i++) {
    if (n <= per_line)
      s += (i ? ", " : "") + toml_double(v[i]);
    else
      s += (i % per_line == 0 ? "\n  " : " ") + toml_double(v[i]) + ",";
  }
  return s + (n <= per_line ? "]" : "\n]");
}

/* Bounds as a scalar if every dimension has the same value, else an array. */
std::string toml_bounds(const double *v, int n)
{
  for (int d = 1; d < n; d++)
    if (std::memcmp(&v[d], &v[0], sizeof v[0]) != 0) return toml_array(v, n);
  return toml_double(v[0]);
}

/* The integer of SIZE bytes at P. */
int64_t load_integer(const char *p, size_t size)
{
  if (size == sizeof(int64_t)) return *reinterpret_cast<const int64_t *>(p);
  return *reinterpret_cast<const int *>(p);
}

/* The value of key K in C as TOML. */
std::string value_text(const key &k, const ipso_config &c)
{
  const char *p = reinterpret_cast<const char *>(&c) + k.offset;
  switch (k.type) {
  case kind::integer:
    return std::to_string(load_integer(p, k.size));
  case kind::number:
    return toml_double(*reinterpret_cast<const double *>(p));
  case kind::boolean:
    return load_integer(p, k.size) ? "true" : "false";
  case kind::string:
    return toml_string(p);
  case kind::enumeration:
    return toml_string(name_of(k.names, load_integer(p, k.size)));
  case kind::hms:
    return toml_string(format_hms(*reinterpret_cast<const double *>(p)));
  case kind::bounds:
    return toml_bounds(*reinterpret_cast<double *const *>(p), c.objective.dimensions);
  case kind::interval:
    if (c.output.checkpoint_seconds > 0)
      return toml_string(format_hms(c.output.checkpoint_seconds));
    return std::to_string(c.output.checkpoint_interval);
  case kind::clamps:
    if (c.swarm.nclamps == 1) return toml_double(c.swarm.velocity_clamp[0]);
    return toml_array(c.swarm.velocity_clamp, c.swarm.nclamps);
  case kind::params:
    break;
  }
  std::string t;
  for (int i = 0; i < c.objective.nparams; i++) {
    const ipso_param &q = c.objective.params[i];
    t += cat(q.name, " = ", q.is_array ? toml_array(q.values, q.len) : toml_double(q.values[0]),
             "\n");
  }
  return t;
}

} // namespace

const std::vector<table_schema> &config_schema()
{
  static const std::vector<table_schema> schema = [] {
    std::vector<table_schema> s;
    for (const key &k : kKeys) {
      if (s.empty() || s.back().name != k.table) s.push_back({k.table, {}});
      s.back().keys.emplace_back(k.name);
    }
    return s;
  }();
  return schema;
}

const key &find_key(std::string_view table, std::string_view name)
{
  const key *k = kKeys;
  while (k->table != table || k->name != name) k++;
  return *k;
}

std::vector<std::string_view> enum_names(const key &k)
{
  std::vector<std::string_view> names;
  for (const char *const *n = k.names; *n; n++) names.emplace_back(*n);
  return names;
}

std::string resolved_text(const ipso_config &c)
{
  std::string t;
  const char *table = "";
  for (const key &k : kKeys) {
    if (std::strcmp(table, k.table) != 0) t += std::string(*table ? "\n[" : "[") + k.table + "]\n";
    table = k.table;
    if (k.type == kind::params)
      t += "\n[objective.params]\n" + value_text(k, c);
    else if (!k.shown || k.shown(c))
      t += std::string(k.name) + " = " + value_text(k, c) + "\n";
    else if (k.unset)
      t += std::string("# ") + k.name + ": " + k.unset + "\n";
  }
  return t;
}

} // namespace config_impl

using config_impl::name_of;

// clang-format off
#define ENUM_NAME(fn, type, names) const char *fn(enum type v) { return name_of(config_impl::names, v); }
// clang-format on

ENUM_NAME(config_backend_name, ipso_backend_kind, kBackend)
ENUM_NAME(config_precision_name, ipso_precision, kPrecision)
ENUM_NAME(config_kernel_name, ipso_kernel, kKernel)
ENUM_NAME(config_sync_name, ipso_sync, kSync)
ENUM_NAME(config_swarm_topology_name, ipso_swarm_topology, kSwarmTopology)
ENUM_NAME(config_frame_name, ipso_frame, kFrame)
ENUM_NAME(config_goal_name, ipso_goal, kGoal)
ENUM_NAME(config_topology_name, ipso_topology, kTopology)
ENUM_NAME(config_select_name, ipso_select, kSelect)
ENUM_NAME(config_policy_name, ipso_policy, kPolicy)

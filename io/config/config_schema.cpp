/* The keys of every table of the config, and the resolved config written
 * back as TOML with every key in that order. */
#include <cstring>

#include "config_internal.hpp"

namespace config_impl
{

/* The schema of every table of the config. */
const std::vector<table_schema> &config_schema()
{
  static const std::vector<table_schema> schema = {
      {"run",
       {"name", "seed", "backend", "precision", "islands", "max_iterations", "target_fitness",
        "time_limit", "watchdog", "output"}},
      {"objective",
       {"name", "number", "dimensions", "lower", "upper", "goal", "source", "function", "separable",
        "params"}},
      {"swarm",
       {"particles", "inertia", "inertia_end", "cognitive", "social", "velocity_clamp", "kernel",
        "sync", "topology", "neighbours", "refresh"}},
      {"migration", {"interval", "migrants", "topology", "probability", "select", "policy"}},
      {"output",
       {"history_interval", "snapshot_interval", "checkpoint_interval", "checkpoint", "progress"}},
  };
  return schema;
}

/* The names accepted by objective_find(), in table order. */
std::vector<std::string_view> objective_names()
{
  std::vector<std::string_view> names;
  for (int i = 0; i < IPSO_OBJ_COUNT; i++) names.emplace_back(objective_get(i)->name);
  return names;
}

namespace
{

/* "[a, b, ...]" with at most kBoundsPerLine values a line. */
std::string toml_array(const double *v, int64_t n)
{
  if (n <= static_cast<int64_t>(kBoundsPerLine)) {
    std::string s = "[";
    for (int64_t i = 0; i < n; i++) s += (i ? ", " : "") + toml_double(v[i]);
    return s + "]";
  }
  std::string s = "[";
  for (int64_t i = 0; i < n; i++) {
    s += i % static_cast<int64_t>(kBoundsPerLine) == 0 ? "\n  " : " ";
    s += toml_double(v[i]) + ",";
  }
  return s + "\n]";
}

/* Bounds as a scalar if every dimension has the same value, else an array. */
std::string toml_bounds(const double *v, int n)
{
  for (int d = 1; d < n; d++)
    if (std::memcmp(&v[d], &v[0], sizeof v[0]) != 0) return toml_array(v, n);
  return toml_double(v[0]);
}

} // namespace

/* The resolved config as TOML: every key with the value used, in schema order. */
std::string resolved_text(const ipso_config &c)
{
  std::string t;
  auto kv = [&t](const char *key, const std::string &value) {
    t += key;
    t += " = ";
    t += value;
    t += '\n';
  };
  auto str = [](const char *s) { return toml_string(s); };

  const ipso_run_config &r = c.run;
  t += "[run]\n";
  kv("name", str(r.name));
  kv("seed", std::to_string(r.seed));
  kv("backend", str(config_backend_name(r.backend)));
  kv("precision", str(config_precision_name(r.precision)));
  if (r.islands > 0)
    kv("islands", std::to_string(r.islands));
  else
    t += "# islands: one per rank\n";
  kv("max_iterations", std::to_string(r.max_iterations));
  if (r.has_target)
    kv("target_fitness", toml_double(r.target_fitness));
  else
    t += "# target_fitness: none\n";
  if (r.time_limit > 0)
    kv("time_limit", str(format_hms(r.time_limit).c_str()));
  else
    t += "# time_limit: none\n";
  kv("watchdog", str(format_hms(r.watchdog).c_str()));
  kv("output", str(r.output));

  const ipso_objective_config &o = c.objective;
  t += "\n[objective]\n";
  kv("name", str(o.name));
  if (o.id == IPSO_OBJ_CEC2017) kv("number", std::to_string(o.number));
  kv("dimensions", std::to_string(o.dimensions));
  kv("lower", toml_bounds(o.lower, o.dimensions));
  kv("upper", toml_bounds(o.upper, o.dimensions));
  kv("goal", str(config_goal_name(o.goal)));
  if (o.id == IPSO_OBJ_USER) {
    kv("source", str(o.source));
    kv("function", str(o.function));
    kv("separable", o.separable ? "true" : "false");
  }
  t += "\n[objective.params]\n";
  for (int i = 0; i < o.nparams; i++) {
    const ipso_param &p = o.params[i];
    kv(p.name, p.is_array ? toml_array(p.values, p.len) : toml_double(p.values[0]));
  }

  const ipso_swarm_config &w = c.swarm;
  t += "\n[swarm]\n";
  kv("particles", std::to_string(w.particles));
  kv("inertia", toml_double(w.inertia));
  if (w.has_inertia_end)
    kv("inertia_end", toml_double(w.inertia_end));
  else
    t += "# inertia_end: none (constant inertia)\n";
  kv("cognitive", toml_double(w.cognitive));
  kv("social", toml_double(w.social));
  kv("velocity_clamp", toml_double(w.velocity_clamp));
  kv("kernel", str(config_kernel_name(w.kernel)));
  kv("sync", str(config_sync_name(w.sync)));
  kv("topology", str(config_swarm_topology_name(w.topology)));
  if (w.topology == IPSO_SWARM_RING) kv("neighbours", std::to_string(w.neighbours));
  if (w.topology == IPSO_SWARM_CLPSO) kv("refresh", std::to_string(w.refresh));

  const ipso_migration_config &m = c.migration;
  t += "\n[migration]\n";
  kv("interval", std::to_string(m.interval));
  kv("migrants", std::to_string(m.migrants));
  kv("topology", str(config_topology_name(m.topology)));
  kv("probability", toml_double(m.probability));
  kv("select", str(config_select_name(m.select)));
  kv("policy", str(config_policy_name(m.policy)));

  const ipso_output_config &u = c.output;
  t += "\n[output]\n";
  kv("history_interval", std::to_string(u.history_interval));
  kv("snapshot_interval", std::to_string(u.snapshot_interval));
  if (u.checkpoint_seconds > 0)
    kv("checkpoint_interval", str(format_hms(u.checkpoint_seconds).c_str()));
  else
    kv("checkpoint_interval", std::to_string(u.checkpoint_interval));
  kv("checkpoint", str(u.checkpoint));
  kv("progress", str(config_progress_name(u.progress)));
  return t;
}

} // namespace config_impl

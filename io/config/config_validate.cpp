/* The validator's rules for each table of the config: types, ranges,
 * defaults and the settings that must agree with each other. */
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <sys/stat.h>
#include <unistd.h>

#include "config_internal.hpp"

namespace config_impl
{

/* Validates ROOT into OUT; problems go to the diagnostics. */
void validator::run(const toml::table &root, staged &out)
{
  check_top_level(root);
  section s_run = get_section(root, "run");
  section s_obj = get_section(root, "objective");
  section s_swarm = get_section(root, "swarm");
  section s_mig = get_section(root, "migration");
  section s_out = get_section(root, "output");
  read_run(s_run, out.cfg.run);
  read_objective(s_obj, out);
  read_swarm(s_swarm, out);
  read_migration(s_mig, out);
  read_output(s_out, out);
}

/* [run] */
void validator::read_run(const section &s, ipso_run_config &r)
{
  std::string name = "islandpso";
  if (get_string(s, "name", IPSO_NAME_MAX - 1, name) == got::ok) {
    bool good = !name.empty();
    for (char c : name)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'))
        good = false;
    if (!good)
      diag_.error(s.tbl->get("name")->source(), "run.name",
                  "must be 1 to " + std::to_string(IPSO_NAME_MAX - 1) +
                      " characters of A-Z a-z 0-9 . _ -, got " + toml_string(name));
  }
  copy_string(r.name, name);

  int64_t seed = 1;
  get_integer(s, "seed", 0, INT64_MAX, seed);
  r.seed = static_cast<uint64_t>(seed);

  int e = IPSO_BACKEND_AUTO;
  get_enum(s, "backend", enum_names(config_backend_name, 3), e);
  r.backend = static_cast<ipso_backend_kind>(e);
  e = IPSO_DOUBLE;
  get_enum(s, "precision", enum_names(config_precision_name, 2), e);
  r.precision = static_cast<ipso_precision>(e);

  /* Absent: 0, one island per rank (config_islands), so that the resolved
   * config does not depend on how many ranks read it. */
  int64_t islands = 0;
  if (get_integer(s, "islands", 1, kMaxIslands, islands) == got::ok && islands % ranks_ != 0) {
    diag_.error(s.tbl->get("islands")->source(), "run.islands",
                std::to_string(islands) + " islands cannot be spread evenly over " +
                    std::to_string(ranks_) + " MPI ranks: give a multiple of " +
                    std::to_string(ranks_) + ", or run on a number of ranks that divides " +
                    std::to_string(islands));
    islands = 0;
  }
  r.islands = static_cast<int>(islands);

  int64_t iters = 1000;
  get_integer(s, "max_iterations", 1, kMaxIterations, iters);
  r.max_iterations = iters;

  double target = 0;
  r.has_target = get_number(s, "target_fitness", target) == got::ok;
  r.target_fitness = r.has_target ? target : 0;

  double limit = 0;
  if (get_hms(s, "time_limit", limit) == got::ok && limit <= 0) {
    diag_.error(s.tbl->get("time_limit")->source(), "run.time_limit",
                "must be longer than 00:00:00 (leave it out for no limit)");
    limit = 0;
  }
  r.time_limit = limit;

  double watchdog = kDefaultWatchdog;
  get_hms(s, "watchdog", watchdog);
  r.watchdog = watchdog;

  std::string output = name + ".h5";
  get_string(s, "output", IPSO_PATH_MAX - 1, output);
  copy_string(r.output, output);
}

/* The directory part of the config's name, made absolute; "" if unknown. */
std::string validator::config_directory() const
{
  std::string dir;
  size_t slash = source_name_.rfind('/');
  if (slash != std::string_view::npos) dir = std::string(source_name_.substr(0, slash + 1));
  if (!dir.empty() && dir[0] == '/') return dir;
  while (dir.compare(0, 2, "./") == 0) dir.erase(0, 2);
  std::vector<char> cwd(IPSO_PATH_MAX);
  if (!getcwd(cwd.data(), cwd.size())) return dir;
  std::string abs = cwd.data();
  if (abs.empty() || abs.back() != '/') abs += '/';
  return abs + dir;
}

/* [objective] source: resolved against the config's directory, readable. */
void validator::read_source(const section &s, ipso_objective_config &o)
{
  std::string source;
  if (get_string(s, "source", IPSO_PATH_MAX - 1, source) != got::ok) return;
  const toml::node *n = s.tbl->get("source");
  if (source.empty()) {
    diag_.error(n->source(), "objective.source", "must name a file");
    return;
  }
  std::string rel = source;
  while (rel.compare(0, 2, "./") == 0) rel.erase(0, 2);
  std::string path = source[0] == '/' ? source : config_directory() + rel;
  if (path.size() > IPSO_PATH_MAX - 1) {
    diag_.error(n->source(), "objective.source",
                "resolved path '" + path + "' is too long (at most " +
                    std::to_string(IPSO_PATH_MAX - 1) + " characters)");
    return;
  }
  struct stat st;
  int err = 0;
  if (stat(path.c_str(), &st) != 0) {
    err = errno;
  } else if (S_ISDIR(st.st_mode)) {
    err = EISDIR;
  } else if (!S_ISREG(st.st_mode)) {
    /* A FIFO would hold the compile (and every rank) until a writer came. */
    diag_.error(n->source(), "objective.source",
                "'" + path + "' is not a regular file (a FIFO, a device or a socket)");
    return;
  } else if (FILE *f = std::fopen(path.c_str(), "r")) {
    std::fclose(f);
  } else {
    err = errno;
  }
  if (err) {
    diag_.error(n->source(), "objective.source",
                "cannot read '" + path + "': " + std::strerror(err));
    return;
  }
  copy_string(o.source, path);
}

/* [objective] lower or upper as given: one number, or DIMS numbers (any
 * count while DIMS is unknown). */
got validator::read_bounds(const section &s, std::string_view key, int dims,
                           std::vector<double> &out)
{
  const toml::node *n = s.tbl ? s.tbl->get(key) : nullptr;
  if (!n) return got::absent;
  std::string name = qualified(s, key);
  if (!n->is_array()) {
    if (!n->is_number()) {
      type_error(name, *n, "a number or an array of numbers");
      return got::bad;
    }
    out.assign(1, 0.0);
    return number_of(*n, name, out[0]);
  }
  return read_number_array(*n->as_array(), name, dims, "objective.dimensions", out);
}

/* Every element of A as a finite number into OUT; when WANT > 0 A must have
 * WANT elements (WANT_NAME says where the count comes from). */
got validator::read_number_array(const toml::array &a, const std::string &name, int64_t want,
                                 std::string_view want_name, std::vector<double> &out)
{
  if (want > 0 && static_cast<int64_t>(a.size()) != want) {
    diag_.error(a.source(), name,
                "has " + std::to_string(a.size()) + " value" + (a.size() == 1 ? "" : "s") +
                    " but " + std::string(want_name) + " is " + std::to_string(want));
    return got::bad;
  }
  out.resize(a.size());
  for (size_t i = 0; i < a.size(); i++) {
    if (number_of(*a.get(i), name + "[" + std::to_string(i) + "]", out[i]) != got::ok)
      return got::bad;
  }
  return got::ok;
}

/* [objective] lower and upper: given, or the objective's defaults; expanded. */
void validator::read_all_bounds(const section &s, const objective_info *info, int dims, staged &out)
{
  bool user = info && objective_id(info) == IPSO_OBJ_USER;
  std::vector<double> lo, hi;
  got glo = read_bounds(s, "lower", dims, lo);
  got ghi = read_bounds(s, "upper", dims, hi);
  if (user) {
    if (glo == got::absent) require(s, "lower", "objective 'user' has no default bounds");
    if (ghi == got::absent) require(s, "upper", "objective 'user' has no default bounds");
  }
  if (!info || dims <= 0 || glo == got::bad || ghi == got::bad) return;
  if (user && (glo == got::absent || ghi == got::absent)) return;
  if (glo == got::absent) lo.assign(1, info->lower);
  if (ghi == got::absent) hi.assign(1, info->upper);
  bool uniform = lo.size() == 1 && hi.size() == 1;
  if (lo.size() == 1) lo.assign(static_cast<size_t>(dims), lo[0]);
  if (hi.size() == 1) hi.assign(static_cast<size_t>(dims), hi[0]);
  size_t first = SIZE_MAX, count = 0;
  for (size_t d = 0; d < lo.size(); d++) {
    if (lo[d] < hi[d]) continue;
    if (count++ == 0) first = d;
  }
  if (count > 0) {
    std::string msg = "lower (" + format_double(lo[first]) + ") must be less than upper (" +
                      format_double(hi[first]) + ") in dimension " + std::to_string(first);
    if (count > 1 && !uniform)
      msg += " (and " + std::to_string(count - 1) + " more dimension" + (count > 2 ? "s)" : ")");
    const char *key = glo == got::ok ? "lower" : "upper";
    diag_.error(s.tbl->get(key)->source(), qualified(s, key), msg);
    return;
  }
  /* Both finite, but the span overflows: the swarm could be neither
   * initialised nor clamped (velocity limits are fractions of the span). */
  for (size_t d = 0; d < lo.size(); d++) {
    if (std::isfinite(hi[d] - lo[d])) continue;
    const char *key = ghi == got::ok ? "upper" : "lower";
    diag_.error(s.tbl->get(key)->source(), qualified(s, key),
                "upper - lower must be finite, but it overflows in dimension " + std::to_string(d) +
                    " (" + format_double(lo[d]) + " to " + format_double(hi[d]) + ")");
    return;
  }
  /* In single precision the swarm lives on the bounds rounded to float:
   * bounds that round to the same value (or cross) leave no room. */
  if (out.cfg.run.precision == IPSO_FLOAT)
    for (size_t d = 0; d < lo.size(); d++) {
      if (static_cast<float>(lo[d]) < static_cast<float>(hi[d])) continue;
      const char *key = glo == got::ok ? "lower" : "upper";
      diag_.error(s.tbl->get(key)->source(), qualified(s, key),
                  "lower (" + format_double(lo[d]) + ") and upper (" + format_double(hi[d]) +
                      ") round to the same float in dimension " + std::to_string(d) +
                      " (run.precision = \"float\"): widen the bounds or use \"double\"");
      return;
    }
  out.lower = std::move(lo);
  out.upper = std::move(hi);
}

/* [objective.params]: the one parameter of a built-in, or any for "user". */
void validator::read_params(const section &s, const objective_info *info, int dims, staged &out)
{
  bool user = info && objective_id(info) == IPSO_OBJ_USER;
  const toml::node *n = s.tbl ? s.tbl->get("params") : nullptr;
  const toml::table *t = n ? n->as_table() : nullptr;
  if (n && !t) {
    type_error("objective.params", *n, "a table");
    return;
  }
  if (t && user && t->size() > IPSO_MAX_PARAMS) {
    diag_.error(n->source(), "objective.params",
                "has " + std::to_string(t->size()) + " parameters, at most " +
                    std::to_string(IPSO_MAX_PARAMS) + " are allowed");
    return;
  }
  if (t) read_param_entries(*t, info, dims, out);
  bool given = t && info && info->param && t->get(info->param);
  if (info && !user && info->param && !given)
    out.params.push_back({info->param, false, {info->param_default}});
}

/* The entries of [objective.params] T, checked against the objective INFO. */
void validator::read_param_entries(const toml::table &t, const objective_info *info, int dims,
                                   staged &out)
{
  bool user = info && objective_id(info) == IPSO_OBJ_USER;
  for (auto &&[k, v] : t) {
    std::string name(k.str());
    std::string key = "objective.params." + name;
    if (info && !user && !info->param) {
      diag_.error(k.source(), key,
                  "objective '" + std::string(info->name) + "' takes no parameters");
      continue;
    }
    if (info && !user && name != info->param) {
      diag_.error(k.source(), key,
                  "unknown parameter '" + name + "' of objective '" + info->name +
                      "' (its only parameter is '" + info->param + "')");
      continue;
    }
    if (!is_identifier(name) || name.size() > kMaxParamName) {
      diag_.error(k.source(), key,
                  "parameter names must be C identifiers of at most " +
                      std::to_string(kMaxParamName) + " characters");
      continue;
    }
    staged_param p{name, v.is_array(), {}};
    got g;
    if (const toml::array *a = v.as_array()) {
      if (user && (a->empty() || static_cast<int64_t>(a->size()) > kMaxParamValues)) {
        diag_.error(v.source(), key,
                    "must have 1 to " + std::to_string(kMaxParamValues) + " values, got " +
                        std::to_string(a->size()));
        continue;
      }
      g = read_number_array(*a, key, user ? 0 : dims, "objective.dimensions", p.values);
    } else if (v.is_number()) {
      p.values.assign(1, 0.0);
      g = number_of(v, key, p.values[0]);
    } else {
      type_error(key, v, "a number or an array of numbers");
      g = got::bad;
    }
    if (g == got::ok) out.params.push_back(std::move(p));
  }
}

/* [objective] */
void validator::read_objective(const section &s, staged &out)
{
  ipso_objective_config &o = out.cfg.objective;
  const objective_info *info = nullptr;
  std::string name;
  got g = get_string(s, "name", IPSO_NAME_MAX - 1, name);
  if (g == got::absent) require(s, "name");
  if (g == got::ok) {
    info = objective_find(name.c_str());
    if (!info)
      enum_error(*s.tbl->get("name"), "objective.name", name, objective_names());
    else
      o.id = objective_id(info);
    copy_string(o.name, name);
  }
  bool user = info && o.id == IPSO_OBJ_USER;

  int64_t dims = 0;
  g = get_integer(s, "dimensions", 1, IPSO_MAX_DIMENSIONS, dims);
  if (g == got::absent) require(s, "dimensions");
  if (g != got::ok) dims = 0;
  o.dimensions = static_cast<int>(dims);

  read_all_bounds(s, info, o.dimensions, out);

  int goal = info ? info->goal : IPSO_MINIMIZE;
  get_enum(s, "goal", enum_names(config_goal_name, 2), goal);
  o.goal = static_cast<ipso_goal>(goal);

  for (const char *key : {"source", "function", "separable"}) {
    const toml::node *n = s.tbl ? s.tbl->get(key) : nullptr;
    if (info && !user && n)
      diag_.error(n->source(), qualified(s, key), "is only allowed with objective.name = \"user\"");
    else if (user && !n && std::string_view(key) != "separable")
      require(s, key, "objective 'user' needs source and function");
  }
  read_cec2017(s, info, o);
  if (user) {
    read_source(s, o);
    std::string fn;
    if (get_string(s, "function", IPSO_NAME_MAX - 1, fn) == got::ok) {
      if (is_identifier(fn))
        copy_string(o.function, fn);
      else
        diag_.error(s.tbl->get("function")->source(), "objective.function",
                    "must be a C identifier, got " + toml_string(fn));
    }
    bool sep = false;
    get_bool(s, "separable", sep);
    o.separable = sep;
  }
  read_params(s, info, o.dimensions, out);
}

/* [objective] number: the CEC 2017 function (F2 was withdrawn from the
 * suite), whose data exist in 10, 30, 50 and 100 dimensions. */
void validator::read_cec2017(const section &s, const objective_info *info, ipso_objective_config &o)
{
  const toml::node *n = s.tbl ? s.tbl->get("number") : nullptr;
  if (!info || o.id != IPSO_OBJ_CEC2017) {
    if (info && n)
      diag_.error(n->source(), qualified(s, "number"),
                  "is only allowed with objective.name = \"cec2017\"");
    return;
  }
  int64_t f = 0;
  got g = get_integer(s, "number", 1, 30, f);
  if (g == got::absent) require(s, "number", "objective 'cec2017' needs the function's number");
  if (g == got::ok && f == 2) {
    diag_.error(n->source(), "objective.number",
                "F2 is not in the CEC 2017 suite: give 1 or 3..30");
    f = 0;
  }
  o.number = static_cast<int>(f);
  int D = o.dimensions;
  if (D != 0 && D != 10 && D != 30 && D != 50 && D != 100)
    diag_.error(s.tbl->get("dimensions")->source(), "objective.dimensions",
                "the CEC 2017 suite has 10, 30, 50 or 100 dimensions, got " + std::to_string(D));
}

/* [swarm] */
void validator::read_swarm(const section &s, staged &out)
{
  ipso_swarm_config &w = out.cfg.swarm;
  int64_t particles = 1024;
  got gp = get_integer(s, "particles", 1, IPSO_MAX_PARTICLES, particles);
  w.particles = particles;
  int64_t dims = out.cfg.objective.dimensions;
  if (gp != got::bad && dims > 0 && particles * dims > IPSO_MAX_ELEMENTS) {
    const toml::node *n = s.tbl ? s.tbl->get("particles") : nullptr;
    diag_.error(n ? n->source() : s.region, "swarm.particles",
                "particles * objective.dimensions = " + std::to_string(particles) + " * " +
                    std::to_string(dims) + " = " + std::to_string(particles * dims) +
                    " exceeds the limit of " + std::to_string(IPSO_MAX_ELEMENTS) + " per island");
  }

  /* The topology first: clpso has coefficients of its own. */
  read_topology(s, gp != got::bad, w);
  bool clpso = w.topology == IPSO_SWARM_CLPSO;
  w.inertia = clpso ? kClpsoInertia : kSpsoInertia;
  get_number_in(s, "inertia", 0, 1, false, w.inertia);
  /* A constant inertia unless inertia_end is given (clpso: 0.4 by default). */
  w.inertia_end = kClpsoInertiaEnd;
  got ge = get_number_in(s, "inertia_end", 0, 1, false, w.inertia_end);
  w.has_inertia_end = ge == got::ok || (ge == got::absent && clpso);
  if (!w.has_inertia_end) w.inertia_end = 0;
  w.cognitive = clpso ? 0.0 : kSpsoAcceleration;
  get_number_in(s, "cognitive", 0, 4, false, w.cognitive);
  w.social = clpso ? kClpsoAcceleration : kSpsoAcceleration;
  get_number_in(s, "social", 0, 4, false, w.social);
  w.velocity_clamp = kDefaultVelocityClamp;
  get_number_in(s, "velocity_clamp", 0, 1, true, w.velocity_clamp);

  int kernel = IPSO_KERNEL_QUEUE_LOCK, sync = IPSO_SYNC_STRICT;
  got gk = get_enum(s, "kernel", enum_names(config_kernel_name, 3), kernel);
  got gs = get_enum(s, "sync", enum_names(config_sync_name, 2), sync);
  w.kernel = static_cast<ipso_kernel>(kernel);
  w.sync = static_cast<ipso_sync>(sync);
  if (gk != got::bad && gs == got::ok && sync == IPSO_SYNC_RELAXED &&
      kernel != IPSO_KERNEL_QUEUE_LOCK)
    diag_.error(s.tbl->get("sync")->source(), "swarm.sync",
                std::string("sync = \"relaxed\" requires kernel = \"queue_lock\" (kernel is \"") +
                    config_kernel_name(w.kernel) + "\")");
  read_refresh(s, gp != got::bad, w);
  particles_ok_ = gp != got::bad;
}

/* [swarm] topology and neighbours. PARTICLES_OK: W.particles was read. A
 * ring by default (not named in the config) on a swarm too small for it
 * (2k + 1 > particles) is the whole swarm, so it runs as global. */
void validator::read_topology(const section &s, bool particles_ok, ipso_swarm_config &w)
{
  int topology = kDefaultSwarmTopology;
  got gt = get_enum(s, "topology", enum_names(config_swarm_topology_name, 3), topology);
  int64_t k = kDefaultNeighbours;
  got gk = get_integer(s, "neighbours", 1, INT_MAX, k);
  w.topology = static_cast<ipso_swarm_topology>(topology);
  w.neighbours = static_cast<int>(k);
  if (gt == got::bad || gk == got::bad) return;
  if (gk == got::ok && topology != IPSO_SWARM_RING) {
    diag_.error(s.tbl->get("neighbours")->source(), "swarm.neighbours",
                std::string("neighbours is for topology = \"ring\" (topology is \"") +
                    config_swarm_topology_name(w.topology) + "\")");
    return;
  }
  if (topology != IPSO_SWARM_RING || !particles_ok || 2 * k + 1 <= w.particles) return;
  if (gt == got::absent && gk == got::absent) {
    w.topology = IPSO_SWARM_GLOBAL;
    return;
  }
  const toml::node *n = s.tbl->get(gk == got::ok ? "neighbours" : "topology");
  diag_.error(n->source(), gk == got::ok ? "swarm.neighbours" : "swarm.topology",
              "a ring of " + std::to_string(k) + " neighbour" + (k == 1 ? "" : "s") +
                  " on each side needs 2 * " + std::to_string(k) +
                  " + 1 = " + std::to_string(2 * k + 1) + " particles, the swarm has " +
                  std::to_string(w.particles) + " (swarm.particles)");
}

/* [swarm] refresh (clpso only) and the swarm clpso needs: a tournament
 * between other particles, so at least two particles. PARTICLES_OK:
 * W.particles was read. */
void validator::read_refresh(const section &s, bool particles_ok, ipso_swarm_config &w)
{
  int64_t refresh = kDefaultRefresh;
  got gr = get_integer(s, "refresh", 1, INT_MAX, refresh);
  w.refresh = static_cast<int>(refresh);
  if (gr == got::ok && w.topology != IPSO_SWARM_CLPSO) {
    diag_.error(s.tbl->get("refresh")->source(), "swarm.refresh",
                std::string("refresh is for topology = \"clpso\" (topology is \"") +
                    config_swarm_topology_name(w.topology) + "\")");
    return;
  }
  if (w.topology != IPSO_SWARM_CLPSO || !particles_ok || w.particles >= 2) return;
  diag_.error(s.tbl->get("topology")->source(), "swarm.topology",
              "clpso learns from other particles' personal bests and needs at least 2 "
              "particles, the swarm has " +
                  std::to_string(w.particles) + " (swarm.particles)");
}

/* [migration] */
void validator::read_migration(const section &s, staged &out)
{
  ipso_migration_config &m = out.cfg.migration;
  int64_t interval = 100, migrants = 2;
  got gi = get_integer(s, "interval", 0, INT64_MAX, interval);
  got gm = get_integer(s, "migrants", 1, INT_MAX, migrants);
  m.interval = interval;
  m.migrants = static_cast<int>(migrants);
  int topology = IPSO_TOPOLOGY_RING, select = IPSO_SELECT_BEST, policy = IPSO_POLICY_REPLACE_WORST;
  got gt = get_enum(s, "topology", enum_names(config_topology_name, 2), topology);
  m.probability = 1.0;
  get_number_in(s, "probability", 0, 1, true, m.probability);
  get_enum(s, "select", enum_names(config_select_name, 2), select);
  get_enum(s, "policy", enum_names(config_policy_name, 2), policy);
  m.topology = static_cast<ipso_topology>(topology);
  m.select = static_cast<ipso_select>(select);
  m.policy = static_cast<ipso_policy>(policy);

  if (gi == got::bad || gm == got::bad || gt == got::bad || !particles_ok_) return;
  int islands = config_islands(&out.cfg, ranks_);
  if (interval == 0 || islands <= 1) return;
  /* Two islands are each other's only neighbour, even on a bidirectional ring. */
  int64_t neighbours = topology == IPSO_TOPOLOGY_BIDIRECTIONAL_RING && islands > 2 ? 2 : 1;
  int64_t particles = out.cfg.swarm.particles;
  int64_t replaced = migrants * neighbours;
  if (replaced <= particles / 2) return;
  const toml::node *n = s.tbl ? s.tbl->get("migrants") : nullptr;
  diag_.error(n ? n->source() : s.region, "migration.migrants",
              std::to_string(migrants) + " migrant" + (migrants == 1 ? "" : "s") +
                  " from each of " + std::to_string(neighbours) + " neighbour" +
                  (neighbours == 1 ? "" : "s") + " (" + config_topology_name(m.topology) +
                  ") would replace " + std::to_string(replaced) + " of the " +
                  std::to_string(particles) +
                  " particles of an island (swarm.particles); at most half (" +
                  std::to_string(particles / 2) + ") may be replaced");
}

/* [output] */
void validator::read_output(const section &s, staged &out)
{
  ipso_output_config &o = out.cfg.output;
  o.history_interval = 10;
  get_integer(s, "history_interval", 0, INT64_MAX, o.history_interval);
  o.snapshot_interval = 0;
  get_integer(s, "snapshot_interval", 0, INT64_MAX, o.snapshot_interval);

  o.checkpoint_interval = 0;
  o.checkpoint_seconds = kDefaultCheckpointSeconds;
  const toml::node *n = s.tbl ? s.tbl->get("checkpoint_interval") : nullptr;
  if (n && n->is_integer()) {
    o.checkpoint_seconds = 0;
    get_integer(s, "checkpoint_interval", 0, INT64_MAX, o.checkpoint_interval);
  } else if (n && n->is_string()) {
    get_hms(s, "checkpoint_interval", o.checkpoint_seconds);
  } else if (n) {
    type_error("output.checkpoint_interval", *n,
               "an integer (iterations) or a string \"HH:MM:SS\" (wall time)");
  }

  const ipso_run_config &r = out.cfg.run;
  std::string ckpt;
  got g = get_string(s, "checkpoint", IPSO_PATH_MAX - 1, ckpt);
  if (g == got::absent) {
    std::string base = r.output[0] ? r.output : std::string(r.name) + ".h5";
    if (base.size() >= 3 && base.compare(base.size() - 3, 3, ".h5") == 0)
      base.erase(base.size() - 3);
    ckpt = base + ".ckpt.h5";
    if (ckpt.size() > IPSO_PATH_MAX - 1) {
      diag_.error(s.region, "output.checkpoint",
                  "the default derived from run.output is too long; set output.checkpoint");
      ckpt.clear();
    }
  } else if (g == got::ok && !ckpt.empty() && ckpt == r.output) {
    diag_.error(s.tbl->get("checkpoint")->source(), "output.checkpoint",
                "must differ from run.output");
  }
  copy_string(o.checkpoint, ckpt);

  int progress = IPSO_PROGRESS_AUTO;
  get_enum(s, "progress", enum_names(config_progress_name, 3), progress);
  o.progress = static_cast<ipso_progress>(progress);
}

} // namespace config_impl

/* The checks of a parsed config: unknown names (with the one meant), each
 * key's type, range and default, and the rules between keys. */
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <sys/stat.h>

#include "config_internal.hpp"

namespace config_impl
{
namespace
{

/* What a lookup found: nothing, a good value, or a problem (reported). */
enum class got { absent, ok, bad };

constexpr size_t kMaxEnumName = 64; /* longest string read as an enum or duration */
constexpr int64_t kMaxParamValues = 1000000;
constexpr size_t kMaxParamName = sizeof(ipso_param::name) - 1;

/* One table of the config as found in the document (TBL null if absent). */
struct section {
  std::string_view name;
  const toml::table *tbl = nullptr;
  toml::source_region region{};

  const toml::node *node(std::string_view key) const
  {
    return tbl ? tbl->get(key) : nullptr;
  }
  std::string qualified(std::string_view key) const
  {
    return cat(name, ".", key);
  }
};

/* The tables that have KEY, as "[a]" or "[a] or [b]". */
std::string tables_with_key(std::string_view key)
{
  std::string found;
  for (const table_schema &t : config_schema())
    if (std::find(t.keys.begin(), t.keys.end(), key) != t.keys.end())
      found += cat(found.empty() ? "[" : " or [", t.name, "]");
  return found;
}

/* Checks a parsed document against the table of keys into a config. */
class validator
{
public:
  validator(diagnostics &diag, std::string_view source_name, int ranks, ipso_config &cfg)
      : diag_(diag), source_name_(source_name), ranks_(ranks < 1 ? 1 : ranks), cfg_(cfg)
  {
  }

  /* Checks ROOT, table by table. */
  void run(const toml::table &root)
  {
    check_entries(root, nullptr);
    std::vector<section> s;
    for (const table_schema &t : config_schema()) s.push_back(get_section(root, t.name));
    read_run(s[0]);
    read_objective(s[1]);
    read_swarm(s[2]);
    read_migration(s[3]);
    read_output(s[4]);
  }

private:
  /* Reports MESSAGE about KEY at REGION. */
  got fail(const toml::source_region &region, std::string_view key, const std::string &message)
  {
    diag_.error(region, key, message);
    return got::bad;
  }

  /* Reports MESSAGE about KEY of S at its value, or at S where KEY is absent. */
  got fail(const section &s, std::string_view key, const std::string &message)
  {
    const toml::node *n = s.node(key);
    return fail(n ? n->source() : s.region, s.qualified(key), message);
  }

  /* The table NAME of ROOT, reporting it if it is not a table. */
  section get_section(const toml::table &root, std::string_view name)
  {
    section s{name};
    const toml::node *n = root.get(name);
    if (!n) return s;
    s.region = n->source();
    s.tbl = n->as_table();
    if (s.tbl) {
      check_entries(*s.tbl, &s);
    } else {
      std::string msg = cat("expected a table, got ", type_phrase(*n));
      if (name == "output" && n->is_string()) msg += " (the output file is run.output)";
      fail(n->source(), name, msg);
    }
    return s;
  }

  /* Reports the entries of T (the root where S is null) the schema lacks. */
  void check_entries(const toml::table &t, const section *s)
  {
    const auto &schema = config_schema();
    std::vector<std::string_view> known;
    for (const table_schema &x : schema)
      if (!s)
        known.push_back(x.name);
      else if (x.name == s->name)
        known = x.keys;
    for (auto &&[k, v] : t) {
      std::string name(k.str()), where = tables_with_key(name), msg;
      if (std::find(known.begin(), known.end(), name) != known.end()) continue;
      std::string key = s ? s->qualified(name) : name;
      std::string_view c = closest(name, known);
      if (!where.empty() && s) {
        msg = cat("'", name, "' is not a key of [", s->name, "] (it belongs in ", where, ")");
      } else if (!where.empty() && !v.is_table()) {
        msg = cat("'", name, "' must be inside a table (it belongs in ", where, ")");
      } else if (!s) {
        msg = v.is_table() ? cat("unknown table [", name, "]") : cat("unknown key '", name, "'");
        if (!c.empty()) msg += cat(" (did you mean [", c, "]?)");
      } else {
        msg = v.is_table() ? cat("unknown table [", key, "]")
                           : cat("unknown key '", name, "' in [", s->name, "]");
        if (c == "params")
          msg += " (did you mean [objective.params]?)";
        else if (!c.empty())
          msg += cat(" (did you mean '", c, "'?)");
        for (size_t i = 0; c.empty() && i < schema.size(); i++)
          if (!(c = closest(name, schema[i].keys)).empty())
            msg += cat(" (did you mean '", c, "' in [", schema[i].name, "]?)");
      }
      fail(k.source(), key, msg);
    }
  }

  /* Reports that the required KEY is missing from S. */
  void require(const section &s, std::string_view key, std::string_view why = {})
  {
    fail(s, key, why.empty() ? "is required" : cat("is required (", why, ")"));
  }

  /* Reports that node N of KEY has the wrong type. */
  got type_error(const std::string &key, const toml::node &n, std::string_view expected)
  {
    std::string msg = cat("expected ", expected, ", got ", type_phrase(n));
    if (const auto *t = n.as_time()) {
      char hms[16];
      std::snprintf(hms, sizeof hms, "%02u:%02u:%02u", unsigned(t->get().hour),
                    unsigned(t->get().minute), unsigned(t->get().second));
      msg += cat(" (write a duration in quotes: \"", hms, "\")");
    }
    return fail(n.source(), key, msg);
  }

  /* A finite number (integer or float) from node N, named KEY in messages. */
  got number_of(const toml::node &n, const std::string &key, double &out)
  {
    if (const auto *i = n.as_integer()) {
      out = static_cast<double>(i->get());
      return got::ok;
    }
    const auto *f = n.as_floating_point();
    if (!f) return type_error(key, n, "a number");
    if (!std::isfinite(f->get()))
      return fail(n.source(), key, "must be finite, got " + format_double(f->get()));
    out = f->get();
    return got::ok;
  }

  /* A string from node N without NUL characters, at most MAX_LEN bytes. */
  got string_of(const toml::node &n, const std::string &key, size_t max_len, std::string &out)
  {
    if (!n.is_string()) return type_error(key, n, "a string");
    const std::string &x = n.as_string()->get();
    if (x.find('\0') != std::string::npos)
      return fail(n.source(), key, "must not contain a NUL character");
    if (x.size() > max_len)
      return fail(n.source(), key,
                  cat("is too long (", x.size(), " characters, at most ", max_len, ")"));
    out = x;
    return got::ok;
  }

  /* A duration "HH:MM:SS" from node N, in seconds. */
  got hms_of(const toml::node &n, const std::string &key, double &out)
  {
    std::string x;
    if (!n.is_string()) return type_error(key, n, "a string \"HH:MM:SS\"");
    if (string_of(n, key, kMaxEnumName, x) != got::ok) return got::bad;
    double secs = config_parse_hms(x.c_str());
    if (secs < 0)
      return fail(n.source(), key,
                  "must be a duration \"HH:MM:SS\" (minutes and seconds 00-59), got " +
                      toml_string(x));
    out = secs;
    return got::ok;
  }

  /* Reports that VALUE of KEY (node N) is not one of NAMES, with the one meant. */
  got enum_error(const toml::node &n, const std::string &key, const std::string &value,
                 const std::vector<std::string_view> &names)
  {
    std::string msg = "must be one of ";
    for (size_t i = 0; i < names.size(); i++) msg += cat(i ? ", " : "", names[i]);
    std::string_view c = closest(value, names);
    msg += c.empty() ? ", got " + toml_string(value) : cat(" (did you mean '", c, "'?)");
    return fail(n.source(), key, msg);
  }

  /* Node N as key K (NAME in messages), checked against K's type and range,
   * into X (numbers, durations), V (integers, booleans, enums) or STR. */
  got read_value(const toml::node &n, const key &k, const std::string &name, double &x, int64_t &v,
                 std::string &str)
  {
    std::vector<std::string_view> names;
    switch (k.type) {
    case kind::boolean:
      if (!n.is_boolean()) return type_error(name, n, "true or false");
      v = n.as_boolean()->get();
      return got::ok;
    case kind::enumeration:
      if (string_of(n, name, kMaxEnumName, str) != got::ok) return got::bad;
      names = enum_names(k);
      if (std::find(names.begin(), names.end(), str) == names.end())
        return enum_error(n, name, str, names);
      v = std::find(names.begin(), names.end(), str) - names.begin();
      return got::ok;
    case kind::integer:
    case kind::interval: {
      if (!n.is_integer()) return type_error(name, n, "an integer");
      int64_t i = n.as_integer()->get(), lo = static_cast<int64_t>(k.lo);
      if (i < k.lo || i > k.hi)
        return fail(n.source(), name,
                    cat(k.hi == kNoMax ? cat("must be at least ", lo)
                                       : cat("must be between ", lo, " and ", int64_t(k.hi)),
                        ", got ", i));
      v = i;
      return got::ok;
    }
    case kind::number: {
      double d;
      if (number_of(n, name, d) != got::ok) return got::bad;
      std::string lo = format_double(k.lo), hi = format_double(k.hi);
      if ((k.lo_open ? d <= k.lo : d < k.lo) || d > k.hi)
        return fail(n.source(), name,
                    cat(k.lo_open ? "must be greater than " + lo + " and at most " + hi
                                  : "must be between " + lo + " and " + hi,
                        ", got ", format_double(d)));
      x = d;
      return got::ok;
    }
    case kind::hms:
      return hms_of(n, name, x);
    case kind::string:
      return string_of(n, name, k.size - 1, str);
    default:
      return got::bad;
    }
  }

  /* KEY of S into the config: its value, or its default where it is absent or bad. */
  got get(const section &s, std::string_view name)
  {
    const key &k = find_key(s.name, name);
    char *at = reinterpret_cast<char *>(&cfg_) + k.offset;
    const toml::node *n = s.node(name);
    double x = k.def;
    auto v = static_cast<int64_t>(k.def);
    std::string str;
    got g = n ? read_value(*n, k, s.qualified(name), x, v, str) : got::absent;
    if (k.type == kind::string && g == got::ok)
      std::memcpy(at, str.c_str(), str.size() + 1);
    else if (k.type == kind::number || k.type == kind::hms)
      std::memcpy(at, &x, sizeof x);
    else if (k.type != kind::string && k.size == sizeof v)
      std::memcpy(at, &v, sizeof v);
    else if (k.type != kind::string)
      *reinterpret_cast<int *>(at) = static_cast<int>(v);
    return g;
  }

  /* [run]: the name must suit file names, the islands the ranks. */
  void read_run(const section &s)
  {
    ipso_run_config &r = cfg_.run;
    std::snprintf(r.name, sizeof r.name, "islandpso");
    if (get(s, "name") == got::ok) {
      bool good = r.name[0] != '\0';
      for (const char *c = r.name; *c; c++)
        if (!std::isalnum(static_cast<unsigned char>(*c)) && !std::strchr("._-", *c)) good = false;
      if (!good)
        fail(s, "name",
             cat("must be 1 to ", IPSO_NAME_MAX - 1, " characters of A-Z a-z 0-9 . _ -, got ",
                 toml_string(r.name)));
    }
    for (const char *key : {"seed", "backend", "precision"}) get(s, key);
    /* Absent: 0, one per rank, so the resolved config is the same on any ranks. */
    if (get(s, "islands") == got::ok && r.islands % ranks_ != 0) {
      fail(s, "islands",
           cat(r.islands, " islands cannot be spread evenly over ", ranks_,
               " MPI ranks: give a multiple of ", ranks_,
               ", or run on a number of ranks that divides ", r.islands));
      r.islands = 0;
    }
    get(s, "max_iterations");
    r.has_target = get(s, "target_fitness") == got::ok;
    if (get(s, "time_limit") == got::ok && r.time_limit <= 0) {
      fail(s, "time_limit", "must be longer than 00:00:00 (leave it out for no limit)");
      r.time_limit = 0;
    }
    get(s, "watchdog");
    if (get(s, "output") != got::ok) std::snprintf(r.output, sizeof r.output, "%s.h5", r.name);
  }

  /* [objective] source: resolved against the config's directory, readable. */
  void read_source(const section &s)
  {
    char *source = cfg_.objective.source;
    if (get(s, "source") != got::ok) return;
    std::string path = source, rel = source;
    source[0] = '\0';
    if (path.empty()) return (void)fail(s, "source", "must name a file");
    while (rel.compare(0, 2, "./") == 0) rel.erase(0, 2);
    if (path[0] != '/') path = config_directory(source_name_) + rel;
    if (path.size() > IPSO_PATH_MAX - 1)
      return (void)fail(s, "source",
                        cat("resolved path '", path, "' is too long (at most ", IPSO_PATH_MAX - 1,
                            " characters)"));
    struct stat st;
    int err = stat(path.c_str(), &st) != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
    /* A FIFO would hold the compile (and every rank) until a writer came. */
    if (!err && !S_ISREG(st.st_mode))
      return (void)fail(s, "source",
                        cat("'", path, "' is not a regular file (a FIFO, a device or a socket)"));
    FILE *f = err ? nullptr : std::fopen(path.c_str(), "r");
    if (!err && !f) err = errno;
    if (f) std::fclose(f);
    if (err) return (void)fail(s, "source", cat("cannot read '", path, "': ", std::strerror(err)));
    std::memcpy(source, path.c_str(), path.size() + 1);
  }

  /* Node N as one finite number or an array of them (of WANT where WANT > 0). */
  got read_numbers(const toml::node &n, const std::string &name, int64_t want,
                   std::vector<double> &out)
  {
    const toml::array *a = n.as_array();
    if (!a && !n.is_number()) return type_error(name, n, "a number or an array of numbers");
    out.assign(1, 0.0);
    if (!a) return number_of(n, name, out[0]);
    if (want > 0 && static_cast<int64_t>(a->size()) != want)
      return fail(a->source(), name,
                  cat("has ", a->size(), a->size() == 1 ? " value" : " values",
                      " but objective.dimensions is ", want));
    out.resize(a->size());
    for (size_t i = 0; i < a->size(); i++)
      if (number_of(*a->get(i), cat(name, "[", i, "]"), out[i]) != got::ok) return got::bad;
    return got::ok;
  }

  /* [swarm] velocity_clamp: 1 to IPSO_MAX_CLAMPS values in (0, 1], islands in turn. */
  void read_clamps(const section &s)
  {
    const toml::node *n = s.node("velocity_clamp");
    const std::string name = s.qualified("velocity_clamp");
    std::vector<double> v(std::begin(kDefaultClamps), std::end(kDefaultClamps));
    if (n && read_numbers(*n, name, 0, v) == got::ok) {
      if (v.empty() || v.size() > IPSO_MAX_CLAMPS)
        fail(n->source(), name, cat("must have 1 to ", IPSO_MAX_CLAMPS, " values, got ", v.size()));
      for (size_t i = 0; i < v.size(); i++)
        if (!(v[i] > 0 && v[i] <= 1))
          fail(n->source(), name,
               cat("must be greater than 0 and at most 1, got ", format_double(v[i]),
                   v.size() > 1 ? cat(" (value ", i, ")") : ""));
    }
    v.resize(std::clamp<size_t>(v.size(), 1, IPSO_MAX_CLAMPS)); /* a size refused above */
    std::copy(v.begin(), v.end(), cfg_.swarm.velocity_clamp);
    cfg_.swarm.nclamps = static_cast<int>(v.size());
  }

  /* [objective] lower and upper (or the defaults) per dimension, checked. */
  void check_bounds(const section &s, const objective_info *info)
  {
    bool user = info && objective_id(info) == IPSO_OBJ_USER;
    int dims = cfg_.objective.dimensions;
    std::vector<double> lo, hi;
    /* Each one number, or as many as objective.dimensions (any while unknown). */
    auto read = [&](const char *key, std::vector<double> &out) {
      const toml::node *n = s.node(key);
      return n ? read_numbers(*n, s.qualified(key), dims, out) : got::absent;
    };
    got glo = read("lower", lo), ghi = read("upper", hi);
    if (user && glo == got::absent) require(s, "lower", "objective 'user' has no default bounds");
    if (user && ghi == got::absent) require(s, "upper", "objective 'user' has no default bounds");
    if (!info || dims <= 0 || glo == got::bad || ghi == got::bad) return;
    if (user && (glo == got::absent || ghi == got::absent)) return;
    if (glo == got::absent) lo.assign(1, info->lower);
    if (ghi == got::absent) hi.assign(1, info->upper);
    bool uniform = lo.size() == 1 && hi.size() == 1;
    if (lo.size() == 1) lo.assign(static_cast<size_t>(dims), lo[0]);
    if (hi.size() == 1) hi.assign(static_cast<size_t>(dims), hi[0]);
    const char *given = glo == got::ok ? "lower" : "upper";
    size_t first = SIZE_MAX, count = 0;
    for (size_t d = 0; d < lo.size(); d++)
      if (!(lo[d] < hi[d]) && count++ == 0) first = d;
    if (count > 0)
      return (void)fail(s, given,
                        cat("lower (", format_double(lo[first]), ") must be less than upper (",
                            format_double(hi[first]), ") in dimension ", first,
                            count > 1 && !uniform ? cat(" (and ", count - 1, " more dimension",
                                                        count > 2 ? "s)" : ")")
                                                  : ""));
    /* A span that overflows could neither place nor clamp the swarm. */
    for (size_t d = 0; d < lo.size(); d++)
      if (!std::isfinite(hi[d] - lo[d]))
        return (void)fail(s, ghi == got::ok ? "upper" : "lower",
                          cat("upper - lower must be finite, but it overflows in dimension ", d,
                              " (", format_double(lo[d]), " to ", format_double(hi[d]), ")"));
    /* In float the swarm lives on the bounds rounded to float. */
    for (size_t d = 0; d < lo.size() && cfg_.run.precision == IPSO_FLOAT; d++)
      if (!(static_cast<float>(lo[d]) < static_cast<float>(hi[d])))
        return (void)fail(s, given,
                          cat("lower (", format_double(lo[d]), ") and upper (",
                              format_double(hi[d]), ") round to the same float in dimension ", d,
                              " (run.precision = \"float\"): widen the bounds or use \"double\""));
    cfg_.objective.lower = malloc_copy(lo);
    cfg_.objective.upper = malloc_copy(hi);
  }

  /* [objective.params]: the one parameter of a built-in, or any for "user". */
  void read_params(const section &s, const objective_info *info)
  {
    bool user = info && objective_id(info) == IPSO_OBJ_USER;
    const toml::node *n = s.node("params");
    const toml::table *t = n ? n->as_table() : nullptr;
    if (n && !t) return (void)type_error("objective.params", *n, "a table");
    if (t && user && t->size() > IPSO_MAX_PARAMS)
      return diag_.error(
          n->source(), "objective.params",
          cat("has ", t->size(), " parameters, at most ", IPSO_MAX_PARAMS, " are allowed"));
    if (t)
      for (auto &&[k, v] : *t) read_param(k, v, info, user);
    if (info && !user && info->param && !(t && t->get(info->param)))
      add_param(info->param, false, {info->param_default});
  }

  /* Adds the parameter NAME = VALUES (written as an array if IS_ARRAY). */
  void add_param(const std::string &name, bool is_array, const std::vector<double> &values)
  {
    ipso_param &q = cfg_.objective.params[cfg_.objective.nparams++];
    std::snprintf(q.name, sizeof q.name, "%s", name.c_str());
    q.len = static_cast<int64_t>(values.size());
    q.is_array = is_array;
    q.values = malloc_copy(values);
  }

  /* The entry K = V of [objective.params], checked against the objective INFO. */
  void read_param(const toml::key &k, const toml::node &v, const objective_info *info, bool user)
  {
    std::string name(k.str()), key = "objective.params." + name;
    if (info && !user && !info->param)
      return diag_.error(k.source(), key, cat("objective '", info->name, "' takes no parameters"));
    if (info && !user && name != info->param)
      return diag_.error(k.source(), key,
                         cat("unknown parameter '", name, "' of objective '", info->name,
                             "' (its only parameter is '", info->param, "')"));
    if (!is_identifier(name) || name.size() > kMaxParamName)
      return diag_.error(
          k.source(), key,
          cat("parameter names must be C identifiers of at most ", kMaxParamName, " characters"));
    const toml::array *a = v.as_array();
    if (user && a && (a->empty() || static_cast<int64_t>(a->size()) > kMaxParamValues))
      return diag_.error(v.source(), key,
                         cat("must have 1 to ", kMaxParamValues, " values, got ", a->size()));
    std::vector<double> values;
    if (read_numbers(v, key, user ? 0 : cfg_.objective.dimensions, values) == got::ok)
      add_param(name, a != nullptr, values);
  }

  /* [objective]: a known objective and the keys that go with it. */
  void read_objective(const section &s)
  {
    ipso_objective_config &o = cfg_.objective;
    const objective_info *info = nullptr;
    got g = get(s, "name");
    if (g == got::absent) require(s, "name");
    if (g == got::ok && !(info = objective_find(o.name))) {
      std::vector<std::string_view> names;
      for (int i = 0; i < IPSO_OBJ_COUNT; i++) names.emplace_back(objective_get(i)->name);
      enum_error(*s.node("name"), "objective.name", o.name, names);
    }
    if (info) o.id = objective_id(info);
    bool user = info && o.id == IPSO_OBJ_USER;
    if (get(s, "dimensions") == got::absent) require(s, "dimensions");
    check_bounds(s, info);
    if (get(s, "goal") != got::ok && info) o.goal = info->goal;
    for (const char *key : {"source", "function", "separable"}) {
      const toml::node *n = s.node(key);
      if (info && !user && n)
        fail(s, key, "is only allowed with objective.name = \"user\"");
      else if (user && !n && std::string_view(key) != "separable")
        require(s, key, "objective 'user' needs source and function");
    }
    read_cec2017(s, info);
    if (user) {
      read_source(s);
      if (get(s, "function") == got::ok && !is_identifier(o.function)) {
        fail(s, "function", "must be a C identifier, got " + toml_string(o.function));
        o.function[0] = '\0';
      }
      get(s, "separable");
    }
    read_params(s, info);
  }

  /* [objective] number: the CEC 2017 function (F2 withdrawn), D of its data. */
  void read_cec2017(const section &s, const objective_info *info)
  {
    ipso_objective_config &o = cfg_.objective;
    const toml::node *n = s.node("number");
    if (info && o.id != IPSO_OBJ_CEC2017 && n)
      fail(s, "number", "is only allowed with objective.name = \"cec2017\"");
    if (!info || o.id != IPSO_OBJ_CEC2017) return;
    got g = get(s, "number");
    if (g == got::absent) require(s, "number", "objective 'cec2017' needs the function's number");
    if (g == got::ok && o.number == 2) {
      fail(s, "number", "F2 is not in the CEC 2017 suite: give 1 or 3..30");
      o.number = 0;
    }
    int D = o.dimensions;
    if (D != 0 && D != 10 && D != 30 && D != 50 && D != 100)
      fail(s, "dimensions", cat("the CEC 2017 suite has 10, 30, 50 or 100 dimensions, got ", D));
  }

  /* [swarm]: the size against the dimensions, and the topology's keys. */
  void read_swarm(const section &s)
  {
    ipso_swarm_config &w = cfg_.swarm;
    bool particles_ok = get(s, "particles") != got::bad;
    int64_t dims = cfg_.objective.dimensions;
    if (particles_ok && dims > 0 && w.particles * dims > IPSO_MAX_ELEMENTS)
      fail(s, "particles",
           cat("particles * objective.dimensions = ", w.particles, " * ", dims, " = ",
               w.particles * dims, " exceeds the limit of ", IPSO_MAX_ELEMENTS, " per island"));
    /* The topology first: clpso (Liang et al., IEEE TEC 2006) has defaults of its own. */
    read_topology(s, particles_ok);
    bool clpso = w.topology == IPSO_SWARM_CLPSO;
    if (get(s, "inertia") != got::ok && clpso) w.inertia = 0.9;
    got ge = get(s, "inertia_end");
    w.has_inertia_end = ge == got::ok || (ge == got::absent && clpso);
    if (!w.has_inertia_end) w.inertia_end = 0;
    if (get(s, "cognitive") != got::ok && clpso) w.cognitive = 0.0;
    if (get(s, "social") != got::ok && clpso) w.social = 1.49445;
    read_clamps(s);
    /* Eigen frames by default from 2 to IPSO_FRAME_MAX_DIMENSIONS dimensions
     * (one dimension has no other axes), and only there. */
    got gf = get(s, "frame");
    if (gf == got::absent && (dims < 2 || dims > IPSO_FRAME_MAX_DIMENSIONS))
      w.frame = IPSO_FRAME_AXES;
    else if (gf == got::ok && w.frame != IPSO_FRAME_AXES && dims > IPSO_FRAME_MAX_DIMENSIONS)
      fail(s, "frame",
           cat("an eigen frame takes at most ", IPSO_FRAME_MAX_DIMENSIONS,
               " dimensions, objective.dimensions is ", dims));
    got gk = get(s, "kernel"), gs = get(s, "sync");
    if (gk != got::bad && gs == got::ok && w.sync == IPSO_SYNC_RELAXED &&
        w.kernel != IPSO_KERNEL_QUEUE_LOCK)
      fail(s, "sync",
           cat("sync = \"relaxed\" requires kernel = \"queue_lock\" (kernel is \"",
               config_kernel_name(w.kernel), "\")"));
    particles_ok_ = particles_ok;
    /* refresh (clpso's alone), and clpso's tournament between other particles needs two. */
    if (get(s, "refresh") == got::ok && w.topology != IPSO_SWARM_CLPSO)
      fail(s, "refresh",
           cat("refresh is for topology = \"clpso\" (topology is \"",
               config_swarm_topology_name(w.topology), "\")"));
    else if (w.topology == IPSO_SWARM_CLPSO && particles_ok && w.particles < 2)
      fail(s, "topology",
           cat("clpso learns from other particles' personal bests and needs at least 2 "
               "particles, the swarm has ",
               w.particles, " (swarm.particles)"));
  }

  /* [swarm] topology and neighbours. A default ring on a swarm too small for
   * it (2k + 1 > particles) is the whole swarm: it runs as global. */
  void read_topology(const section &s, bool particles_ok)
  {
    ipso_swarm_config &w = cfg_.swarm;
    got gt = get(s, "topology"), gk = get(s, "neighbours");
    int64_t k = w.neighbours;
    if (gt == got::bad || gk == got::bad) return;
    bool ring = w.topology == IPSO_SWARM_RING || w.topology == IPSO_SWARM_MIXED;
    if (gk == got::ok && !ring)
      return (void)fail(s, "neighbours",
                        cat("neighbours is for topology = \"ring\" or \"mixed\" (topology is \"",
                            config_swarm_topology_name(w.topology), "\")"));
    bool mean = w.topology == IPSO_SWARM_MEAN || w.topology == IPSO_SWARM_MIXED;
    if (mean && particles_ok && w.particles > IPSO_MEAN_MAX_PARTICLES) {
      if (gt == got::absent) {
        w.topology = IPSO_SWARM_RING;
      } else {
        return (void)fail(s, "topology",
                          cat("topology = \"", config_swarm_topology_name(w.topology),
                              "\" takes at most ", IPSO_MEAN_MAX_PARTICLES,
                              " particles an island, the swarm has ", w.particles,
                              " (swarm.particles)"));
      }
    }
    if (!ring || !particles_ok || 2 * k + 1 <= w.particles) return;
    if (gt == got::absent && gk == got::absent)
      w.topology = IPSO_SWARM_GLOBAL;
    else
      fail(s, gk == got::ok ? "neighbours" : "topology",
           cat("a ring of ", k, k == 1 ? " neighbour" : " neighbours", " on each side needs 2 * ",
               k, " + 1 = ", 2 * k + 1, " particles, the swarm has ", w.particles,
               " (swarm.particles)"));
  }

  /* [migration]: at most half an island may be replaced at a migration. */
  void read_migration(const section &s)
  {
    ipso_migration_config &m = cfg_.migration;
    got gi = get(s, "interval"), gm = get(s, "migrants"), gt = get(s, "topology");
    for (const char *key : {"probability", "select", "policy"}) get(s, key);
    int islands = config_islands(&cfg_, ranks_);
    if (gi == got::bad || gm == got::bad || gt == got::bad || !particles_ok_) return;
    if (m.interval == 0 || islands <= 1) return;
    /* Two islands are each other's only neighbour, even on a bidirectional ring. */
    int64_t neighbours = m.topology == IPSO_TOPOLOGY_BIDIRECTIONAL_RING && islands > 2 ? 2 : 1;
    int64_t migrants = m.migrants, particles = cfg_.swarm.particles;
    if (migrants * neighbours <= particles / 2) return;
    fail(s, "migrants",
         cat(migrants, migrants == 1 ? " migrant" : " migrants", " from each of ", neighbours,
             neighbours == 1 ? " neighbour" : " neighbours", " (", config_topology_name(m.topology),
             ") would replace ", migrants * neighbours, " of the ", particles,
             " particles of an island (swarm.particles); at most half (", particles / 2,
             ") may be replaced"));
  }

  /* [output]: the checkpoint by default next to the output, never the output. */
  void read_output(const section &s)
  {
    ipso_output_config &o = cfg_.output;
    for (const char *key : {"history_interval", "snapshot_interval"}) get(s, key);
    o.checkpoint_seconds = 15 * 60;
    const toml::node *n = s.node("checkpoint_interval");
    if (n && n->is_integer()) o.checkpoint_seconds = 0;
    if (!n || n->is_integer())
      get(s, "checkpoint_interval");
    else if (n->is_string())
      hms_of(*n, "output.checkpoint_interval", o.checkpoint_seconds);
    else
      type_error("output.checkpoint_interval", *n,
                 "an integer (iterations) or a string \"HH:MM:SS\" (wall time)");
    const ipso_run_config &r = cfg_.run;
    got g = get(s, "checkpoint");
    std::string base = r.output[0] ? r.output : cat(r.name, ".h5");
    if (base.size() >= 3 && base.compare(base.size() - 3, 3, ".h5") == 0)
      base.resize(base.size() - 3);
    base += ".ckpt.h5";
    if (g == got::absent && base.size() > IPSO_PATH_MAX - 1)
      fail(s, "checkpoint",
           "the default derived from run.output is too long; set output.checkpoint");
    else if (g == got::absent)
      std::memcpy(o.checkpoint, base.c_str(), base.size() + 1);
    else if (g == got::ok && o.checkpoint[0] && std::strcmp(o.checkpoint, r.output) == 0)
      fail(s, "checkpoint", "must differ from run.output");
    get(s, "progress");
  }

  diagnostics &diag_;
  std::string_view source_name_;
  int ranks_; /* MPI ranks of the run */
  ipso_config &cfg_;
  bool particles_ok_ = false;
};

} // namespace

void validate(const toml::table &root, std::string_view source_name, int ranks, diagnostics &diag,
              ipso_config &cfg)
{
  validator(diag, source_name, ranks, cfg).run(root);
}

} // namespace config_impl

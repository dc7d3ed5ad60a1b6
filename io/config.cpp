/* The config reader: TOML text (parsed by toml++) and --set overrides in,
 * a validated struct ipso_config out. Every problem found is reported with
 * the file, line and column of the offending node (or the --set text it came
 * from), and with the key meant where a key or value looks misspelt. */
#include "config.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include <toml++/toml.h>

#include "check.h"
#include "log.h"
#include "objective.h"

namespace
{

constexpr size_t kMaxFileBytes = size_t{16} << 20; /* larger files are refused unread */
constexpr size_t kMaxShownErrors = 25;             /* errors printed before "N more" */
constexpr size_t kMaxCollectedErrors = 1000;       /* bounds the memory a hostile file costs */
constexpr int64_t kMaxIterations = INT64_C(1000000000000);
constexpr int64_t kMaxParamValues = 1000000;
constexpr size_t kMaxParamName = sizeof(ipso_param::name) - 1;
constexpr size_t kBoundsPerLine = 8; /* array values per line in the resolved text */

/* SPSO-2011 coefficients: w = 1/(2 ln 2), c1 = c2 = 0.5 + ln 2. */
constexpr double kSpsoInertia = 0.72134752044448170;
constexpr double kSpsoAcceleration = 1.1931471805599453;
constexpr double kDefaultWatchdog = 30 * 60;
constexpr double kDefaultCheckpointSeconds = 15 * 60;

/* The keys each table accepts, in the canonical order of the resolved text. */
struct table_schema {
  std::string_view name;
  std::vector<std::string_view> keys;
};

/* The schema of every table of the config. */
const std::vector<table_schema> &config_schema()
{
  static const std::vector<table_schema> schema = {
      {"run",
       {"name", "seed", "backend", "precision", "max_iterations", "target_fitness", "time_limit",
        "watchdog", "output"}},
      {"objective",
       {"name", "dimensions", "lower", "upper", "goal", "source", "function", "separable",
        "params"}},
      {"swarm",
       {"particles", "inertia", "cognitive", "social", "velocity_clamp", "kernel", "sync"}},
      {"migration", {"interval", "migrants", "topology", "policy"}},
      {"output",
       {"history_interval", "snapshot_interval", "checkpoint_interval", "checkpoint", "progress"}},
  };
  return schema;
}

/* The config spellings of the N values 0..N-1 of an enum, from its name function. */
template <typename E> std::vector<std::string_view> enum_names(const char *(*name_of)(E), int n)
{
  std::vector<std::string_view> names;
  for (int i = 0; i < n; i++) names.emplace_back(name_of(static_cast<E>(i)));
  return names;
}

/* The names accepted by objective_find(), in table order. */
std::vector<std::string_view> objective_names()
{
  std::vector<std::string_view> names;
  for (int i = 0; i < IPSO_OBJ_COUNT; i++) names.emplace_back(objective_get(i)->name);
  return names;
}

/* ASCII lower case, so that a wrong case counts as a close match. */
char lower_ascii(char c)
{
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

/* Edit distance with adjacent transpositions (optimal string alignment),
 * ignoring ASCII case: "inertai" is one edit from "inertia". */
size_t edit_distance(std::string_view a, std::string_view b)
{
  const size_t n = a.size(), m = b.size();
  std::vector<size_t> d((n + 1) * (m + 1));
  auto at = [m, &d](size_t i, size_t j) -> size_t & { return d[i * (m + 1) + j]; };
  for (size_t i = 0; i <= n; i++) at(i, 0) = i;
  for (size_t j = 0; j <= m; j++) at(0, j) = j;
  for (size_t i = 1; i <= n; i++) {
    for (size_t j = 1; j <= m; j++) {
      size_t cost = lower_ascii(a[i - 1]) == lower_ascii(b[j - 1]) ? 0 : 1;
      size_t best = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost});
      if (i > 1 && j > 1 && lower_ascii(a[i - 1]) == lower_ascii(b[j - 2]) &&
          lower_ascii(a[i - 2]) == lower_ascii(b[j - 1]))
        best = std::min(best, at(i - 2, j - 2) + 1);
      at(i, j) = best;
    }
  }
  return at(n, m);
}

/* The candidate WORD most likely stands for: within 2 edits (3 for words
 * longer than 8 characters) and fewer edits than WORD has characters; ""
 * if there is none. */
std::string_view closest(std::string_view word, const std::vector<std::string_view> &candidates)
{
  size_t limit = word.size() > 8 ? 3 : 2;
  size_t best = SIZE_MAX;
  std::string_view found;
  for (std::string_view c : candidates) {
    /* The lengths alone bound the distance; skipping keeps huge words cheap. */
    if (word.size() > c.size() + limit || c.size() > word.size() + limit) continue;
    size_t dist = edit_distance(word, c);
    if (dist <= limit && dist < word.size() && dist < best) {
      best = dist;
      found = c;
    }
  }
  return found;
}

/* "a, b, c": the candidates, for "must be one of ...". */
std::string join(const std::vector<std::string_view> &words, std::string_view sep)
{
  std::string s;
  for (size_t i = 0; i < words.size(); i++) {
    if (i) s += sep;
    s += words[i];
  }
  return s;
}

/* The shortest decimal that reads back as exactly V (up to 17 significant
 * digits), in plain notation unless the exponent is far from zero. */
std::string format_double(double v)
{
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[48];
  int digits = 1;
  for (; digits < 17; digits++) {
    std::snprintf(buf, sizeof buf, "%.*e", digits - 1, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::snprintf(buf, sizeof buf, "%.*e", digits - 1, v);
  int exponent = std::atoi(std::strchr(buf, 'e') + 1);
  if (exponent < -5 || exponent > 16) return buf;
  std::snprintf(buf, sizeof buf, "%.*f", std::max(digits - 1 - exponent, 0), v);
  return buf;
}

/* V as a TOML float that reads back exactly: always with a '.' or exponent. */
std::string toml_double(double v)
{
  std::string s = format_double(v);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

/* S as a TOML basic string, quoted, with the characters TOML forbids escaped. */
std::string toml_string(std::string_view s)
{
  std::string out = "\"";
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\b':
      out += "\\b";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\f':
      out += "\\f";
      break;
    case '\r':
      out += "\\r";
      break;
    default:
      if (c < 0x20 || c == 0x7f) {
        char esc[8];
        std::snprintf(esc, sizeof esc, "\\u%04X", c);
        out += esc;
      } else {
        out += ch;
      }
    }
  }
  return out + "\"";
}

/* Whole SECONDS as "HH:MM:SS" (hours as many digits as needed). */
std::string format_hms(double seconds)
{
  auto total = static_cast<long long>(seconds);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld", total / 3600, total / 60 % 60, total % 60);
  return buf;
}

/* "an integer", "a string", ...: the TOML type of a node, for messages. */
const char *type_phrase(const toml::node &n)
{
  switch (n.type()) {
  case toml::node_type::string:
    return "a string";
  case toml::node_type::integer:
    return "an integer";
  case toml::node_type::floating_point:
    return "a float";
  case toml::node_type::boolean:
    return "a boolean";
  case toml::node_type::date:
    return "a date";
  case toml::node_type::time:
    return "a time";
  case toml::node_type::date_time:
    return "a date-time";
  case toml::node_type::array:
    return "an array";
  case toml::node_type::table:
    return "a table";
  default:
    return "nothing";
  }
}

/* Whether S is a C identifier. */
bool is_identifier(std::string_view s)
{
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

/* S without the spaces and tabs at either end. */
std::string_view trim(std::string_view s)
{
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

/* The problems found in one config, kept until the whole config has been
 * checked and then printed in file order (overrides last). */
class diagnostics
{
public:
  explicit diagnostics(std::string source) : source_(std::move(source)) {}

  /* Marks NAME as the source path of nodes that came from a --set override. */
  void add_override(const std::string &name)
  {
    overrides_.insert(name);
  }

  /* Reports "KEY: MESSAGE" at REGION: the --set text it came from, or the
   * file's line and column (1:1 where the region is unknown). */
  void error(const toml::source_region &region, std::string_view key, std::string_view message)
  {
    std::string text = std::string(key) + ": " + std::string(message);
    if (region.path && overrides_.count(*region.path)) {
      add(*region.path, 1, 0, 0, text);
      return;
    }
    uint32_t line = region.begin.line ? region.begin.line : 1;
    uint32_t column = region.begin.line ? region.begin.column : 1;
    add(source_ + ":" + std::to_string(line) + ":" + std::to_string(column), 0, line, column, text);
  }

  /* Reports MESSAGE about the --set override OVERRIDE itself. */
  void override_error(const std::string &override_source, std::string_view message)
  {
    add(override_source, 1, 0, 0, std::string(message));
  }

  /* Whether any problem was found. */
  bool failed() const
  {
    return !entries_.empty() || dropped_ > 0;
  }

  /* Prints the problems to stderr, file problems by position, then overrides. */
  void print()
  {
    std::stable_sort(entries_.begin(), entries_.end(), [](const entry &a, const entry &b) {
      if (a.group != b.group) return a.group < b.group;
      if (a.line != b.line) return a.line < b.line;
      return a.column < b.column;
    });
    size_t shown = std::min(entries_.size(), kMaxShownErrors);
    for (size_t i = 0; i < shown; i++)
      log_user_error("%s: error: %s", entries_[i].where.c_str(), entries_[i].text.c_str());
    size_t more = entries_.size() - shown + dropped_;
    if (more > 0)
      log_user_error("islandpso: error: %zu more error%s in config '%s' not shown", more,
                     more == 1 ? "" : "s", source_.c_str());
  }

private:
  struct entry {
    std::string where;
    int group; /* 0: the file, 1: --set overrides */
    uint32_t line, column;
    std::string text;
  };

  /* Keeps one problem, or counts it once enough are kept. */
  void add(std::string where, int group, uint32_t line, uint32_t column, std::string text)
  {
    if (entries_.size() >= kMaxCollectedErrors) {
      dropped_++;
      return;
    }
    /* Keys and values are echoed: keep their control characters off the terminal. */
    for (std::string *str : {&where, &text})
      for (char &c : *str)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    entries_.push_back({std::move(where), group, line, column, std::move(text)});
  }

  std::string source_;
  std::set<std::string> overrides_;
  std::vector<entry> entries_;
  size_t dropped_ = 0;
};

/* What a lookup found: nothing, a good value, or a problem (reported). */
enum class got { absent, ok, bad };

/* One table of the config as found in the document (TBL null if absent). */
struct section {
  std::string_view name;
  const toml::table *tbl = nullptr;
  toml::source_region region{};
};

/* A parameter of the objective, before it is copied into the C struct. */
struct staged_param {
  std::string name;
  bool is_array;
  std::vector<double> values;
};

/* The config as validated, before its arrays are copied into malloc'd memory. */
struct staged {
  ipso_config cfg{};
  std::vector<double> lower, upper;
  std::vector<staged_param> params;
};

/* Checks a parsed document against the schema and fills a staged config. */
class validator
{
public:
  validator(diagnostics &diag, std::string_view source_name, int islands)
      : diag_(diag), source_name_(source_name), islands_(islands < 1 ? 1 : islands)
  {
  }

  /* Validates ROOT into OUT; problems go to the diagnostics. */
  void run(const toml::table &root, staged &out)
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

private:
  /* "section.key", the name of a key in messages. */
  static std::string qualified(const section &s, std::string_view key)
  {
    return std::string(s.name) + "." + std::string(key);
  }

  /* The tables that have KEY, as "[a]" or "[a] or [b]". */
  static std::string tables_with_key(std::string_view key)
  {
    std::string found;
    for (const table_schema &t : config_schema()) {
      if (std::find(t.keys.begin(), t.keys.end(), key) == t.keys.end()) continue;
      if (!found.empty()) found += " or ";
      found += "[" + std::string(t.name) + "]";
    }
    return found;
  }

  /* The first table with a key close to KEY (that key in *MATCH), or null. */
  static const table_schema *table_with_close_key(std::string_view key, std::string_view *match)
  {
    for (const table_schema &t : config_schema()) {
      std::string_view c = closest(key, t.keys);
      if (!c.empty()) {
        *match = c;
        return &t;
      }
    }
    return nullptr;
  }

  /* Reports the entries of the root that are not the tables of the schema. */
  void check_top_level(const toml::table &root)
  {
    std::vector<std::string_view> tables;
    for (const table_schema &t : config_schema()) tables.push_back(t.name);
    for (auto &&[k, v] : root) {
      if (std::find(tables.begin(), tables.end(), k.str()) != tables.end()) continue;
      std::string name(k.str());
      std::string where = tables_with_key(name);
      if (!v.is_table() && !where.empty()) {
        diag_.error(k.source(), name,
                    "'" + name + "' must be inside a table (it belongs in " + where + ")");
        continue;
      }
      std::string msg =
          v.is_table() ? "unknown table [" + name + "]" : "unknown key '" + name + "'";
      std::string_view c = closest(name, tables);
      if (!c.empty()) msg += " (did you mean [" + std::string(c) + "]?)";
      diag_.error(k.source(), name, msg);
    }
  }

  /* The table NAME of ROOT, reporting it if it is not a table. */
  section get_section(const toml::table &root, std::string_view name)
  {
    section s;
    s.name = name;
    const toml::node *n = root.get(name);
    if (!n) return s;
    s.region = n->source();
    if (const toml::table *t = n->as_table()) {
      s.tbl = t;
      check_keys(s);
    } else {
      std::string msg = std::string("expected a table, got ") + type_phrase(*n);
      if (name == "output" && n->is_string()) msg += " (the output file is run.output)";
      diag_.error(n->source(), name, msg);
    }
    return s;
  }

  /* Reports the keys of S that its schema does not have, with the key meant. */
  void check_keys(const section &s)
  {
    const table_schema *schema = nullptr;
    for (const table_schema &t : config_schema())
      if (t.name == s.name) schema = &t;
    for (auto &&[k, v] : *s.tbl) {
      std::string_view key = k.str();
      if (std::find(schema->keys.begin(), schema->keys.end(), key) != schema->keys.end()) continue;
      std::string name(key);
      std::string where = tables_with_key(key);
      std::string msg;
      if (!where.empty()) {
        msg = "'" + name + "' is not a key of [" + std::string(s.name) + "] (it belongs in " +
              where + ")";
      } else {
        msg = v.is_table() ? "unknown table [" + std::string(s.name) + "." + name + "]"
                           : "unknown key '" + name + "' in [" + std::string(s.name) + "]";
        std::string_view c = closest(key, schema->keys);
        std::string_view other;
        const table_schema *t = c.empty() ? table_with_close_key(key, &other) : nullptr;
        if (c == "params")
          msg += " (did you mean [objective.params]?)";
        else if (!c.empty())
          msg += " (did you mean '" + std::string(c) + "'?)";
        else if (t)
          msg += " (did you mean '" + std::string(other) + "' in [" + std::string(t->name) + "]?)";
      }
      diag_.error(k.source(), qualified(s, key), msg);
    }
  }

  /* Reports that the required KEY is missing from S. */
  void require(const section &s, std::string_view key, std::string_view why = {})
  {
    std::string msg = "is required";
    if (!why.empty()) msg += " (" + std::string(why) + ")";
    diag_.error(s.region, qualified(s, key), msg);
  }

  /* Reports that node N of KEY has the wrong type. */
  void type_error(const std::string &key, const toml::node &n, std::string_view expected)
  {
    std::string msg = "expected " + std::string(expected) + ", got " + type_phrase(n);
    if (const auto *t = n.as_time()) {
      char hms[16];
      std::snprintf(hms, sizeof hms, "%02u:%02u:%02u", unsigned(t->get().hour),
                    unsigned(t->get().minute), unsigned(t->get().second));
      msg += std::string(" (write a duration in quotes: \"") + hms + "\")";
    }
    diag_.error(n.source(), key, msg);
  }

  /* An integer KEY of S in [LO, HI]. */
  got get_integer(const section &s, std::string_view key, int64_t lo, int64_t hi, int64_t &out)
  {
    const toml::node *n = s.tbl ? s.tbl->get(key) : nullptr;
    if (!n) return got::absent;
    const auto *v = n->as_integer();
    if (!v) {
      type_error(qualified(s, key), *n, "an integer");
      return got::bad;
    }
    int64_t x = v->get();
    if (x < lo || x > hi) {
      std::string msg =
          hi == INT64_MAX ? "must be at least " + std::to_string(lo)
                          : "must be between " + std::to_string(lo) + " and " + std::to_string(hi);
      diag_.error(n->source(), qualified(s, key), msg + ", got " + std::to_string(x));
      return got::bad;
    }
    out = x;
    return got::ok;
  }

  /* A finite number (integer or float) from node N, named KEY in messages. */
  got number_of(const toml::node &n, const std::string &key, double &out)
  {
    if (const auto *i = n.as_integer()) {
      out = static_cast<double>(i->get());
      return got::ok;
    }
    const auto *f = n.as_floating_point();
    if (!f) {
      type_error(key, n, "a number");
      return got::bad;
    }
    if (!std::isfinite(f->get())) {
      diag_.error(n.source(), key, "must be finite, got " + format_double(f->get()));
      return got::bad;
    }
    out = f->get();
    return got::ok;
  }

  /* A finite number KEY of S. */
  got get_number(const section &s, std::string_view key, double &out)
  {
    const toml::node *n = s.tbl ? s.tbl->get(key) : nullptr;
    if (!n) return got::absent;
    return number_of(*n, qualified(s, key), out);
  }

  /* A number KEY of S in [LO, HI], or in (LO, HI] when LO_OPEN. */
  got get_number_in(const section &s, std::string_view key, double lo, double hi, bool lo_open,
                    double &out)
  {
    double x;
    got g = get_number(s, key, x);
    if (g != got::ok) return g;
    if ((lo_open ? x <= lo : x < lo) || x > hi) {
      range_error(s, key, lo, hi, lo_open, x);
      return got::bad;
    }
    out = x;
    return got::ok;
  }

  /* Reports that number X of KEY is outside its range. */
  void range_error(const section &s, std::string_view key, double lo, double hi, bool lo_open,
                   double x)
  {
    std::string msg =
        lo_open ? "must be greater than " + format_double(lo) + " and at most " + format_double(hi)
                : "must be between " + format_double(lo) + " and " + format_double(hi);
    diag_.error(s.tbl->get(key)->source(), qualified(s, key), msg + ", got " + format_double(x));
  }

  /* A boolean KEY of S. */
  got get_bool(const section &s, std::string_view key, bool &out)
  {
    const toml::node *n = s.tbl ? s.tbl->get(key) : nullptr;
    if (!n) return got::absent;
    const auto *v = n->as_boolean();
    if (!v) {
      type_error(qualified(s, key), *n, "true or false");
      return got::bad;
    }
    out = v->get();
    return got::ok;
  }

  /* A string KEY of S without NUL characters, at most MAX_LEN bytes. */
  got get_string(const section &s, std::string_view key, size_t max_len, std::string &out)
  {
    const toml::node *n = s.tbl ? s.tbl->get(key) : nullptr;
    if (!n) return got::absent;
    const auto *v = n->as_string();
    if (!v) {
      type_error(qualified(s, key), *n, "a string");
      return got::bad;
    }
    const std::string &x = v->get();
    if (x.find('\0') != std::string::npos) {
      diag_.error(n->source(), qualified(s, key), "must not contain a NUL character");
      return got::bad;
    }
    if (x.size() > max_len) {
      diag_.error(n->source(), qualified(s, key),
                  "is too long (" + std::to_string(x.size()) + " characters, at most " +
                      std::to_string(max_len) + ")");
      return got::bad;
    }
    out = x;
    return got::ok;
  }

  /* Reports that VALUE of KEY (node N) is not one of NAMES, with the one meant. */
  void enum_error(const toml::node &n, const std::string &key, const std::string &value,
                  const std::vector<std::string_view> &names)
  {
    std::string msg = "must be one of " + join(names, ", ");
    std::string_view c = closest(value, names);
    if (!c.empty())
      msg += " (did you mean '" + std::string(c) + "'?)";
    else
      msg += ", got " + toml_string(value);
    diag_.error(n.source(), key, msg);
  }

  /* A string KEY of S that is one of NAMES; OUT is its index. */
  got get_enum(const section &s, std::string_view key, const std::vector<std::string_view> &names,
               int &out)
  {
    std::string x;
    got g = get_string(s, key, 64, x);
    if (g != got::ok) return g;
    for (size_t i = 0; i < names.size(); i++) {
      if (names[i] == x) {
        out = static_cast<int>(i);
        return got::ok;
      }
    }
    enum_error(*s.tbl->get(key), qualified(s, key), x, names);
    return got::bad;
  }

  /* A duration "HH:MM:SS" KEY of S, in seconds. */
  got get_hms(const section &s, std::string_view key, double &out)
  {
    const toml::node *n = s.tbl ? s.tbl->get(key) : nullptr;
    if (n && !n->is_string()) {
      type_error(qualified(s, key), *n, "a string \"HH:MM:SS\"");
      return got::bad;
    }
    std::string x;
    got g = get_string(s, key, 64, x);
    if (g != got::ok) return g;
    double secs = config_parse_hms(x.c_str());
    if (secs < 0) {
      diag_.error(n->source(), qualified(s, key),
                  "must be a duration \"HH:MM:SS\" (minutes and seconds 00-59), got " +
                      toml_string(x));
      return got::bad;
    }
    out = secs;
    return got::ok;
  }

  /* Copies S into the char array DST (its length already checked). */
  template <size_t N> static void copy_string(char (&dst)[N], const std::string &s)
  {
    std::snprintf(dst, N, "%s", s.c_str());
  }

  /* [run] */
  void read_run(const section &s, ipso_run_config &r)
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
  std::string config_directory() const
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
  void read_source(const section &s, ipso_objective_config &o)
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
  got read_bounds(const section &s, std::string_view key, int dims, std::vector<double> &out)
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
  got read_number_array(const toml::array &a, const std::string &name, int64_t want,
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
  void read_all_bounds(const section &s, const objective_info *info, int dims, staged &out)
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
                  "upper - lower must be finite, but it overflows in dimension " +
                      std::to_string(d) + " (" + format_double(lo[d]) + " to " +
                      format_double(hi[d]) + ")");
      return;
    }
    out.lower = std::move(lo);
    out.upper = std::move(hi);
  }

  /* [objective.params]: the one parameter of a built-in, or any for "user". */
  void read_params(const section &s, const objective_info *info, int dims, staged &out)
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
  void read_param_entries(const toml::table &t, const objective_info *info, int dims, staged &out)
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
  void read_objective(const section &s, staged &out)
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
        diag_.error(n->source(), qualified(s, key),
                    "is only allowed with objective.name = \"user\"");
      else if (user && !n && std::string_view(key) != "separable")
        require(s, key, "objective 'user' needs source and function");
    }
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

  /* [swarm] */
  void read_swarm(const section &s, staged &out)
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

    w.inertia = kSpsoInertia;
    get_number_in(s, "inertia", 0, 1, false, w.inertia);
    w.cognitive = kSpsoAcceleration;
    get_number_in(s, "cognitive", 0, 4, false, w.cognitive);
    w.social = kSpsoAcceleration;
    get_number_in(s, "social", 0, 4, false, w.social);
    w.velocity_clamp = 0.5;
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
    particles_ok_ = gp != got::bad;
  }

  /* [migration] */
  void read_migration(const section &s, staged &out)
  {
    ipso_migration_config &m = out.cfg.migration;
    int64_t interval = 100, migrants = 2;
    got gi = get_integer(s, "interval", 0, INT64_MAX, interval);
    got gm = get_integer(s, "migrants", 1, INT_MAX, migrants);
    m.interval = interval;
    m.migrants = static_cast<int>(migrants);
    int topology = IPSO_TOPOLOGY_RING, policy = IPSO_POLICY_REPLACE_WORST;
    got gt = get_enum(s, "topology", enum_names(config_topology_name, 2), topology);
    get_enum(s, "policy", enum_names(config_policy_name, 1), policy);
    m.topology = static_cast<ipso_topology>(topology);
    m.policy = static_cast<ipso_policy>(policy);

    if (gi == got::bad || gm == got::bad || gt == got::bad || !particles_ok_) return;
    if (interval == 0 || islands_ <= 1) return;
    /* Two islands are each other's only neighbour, even on a bidirectional ring. */
    int64_t neighbours = topology == IPSO_TOPOLOGY_BIDIRECTIONAL_RING && islands_ > 2 ? 2 : 1;
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
  void read_output(const section &s, staged &out)
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

  diagnostics &diag_;
  std::string_view source_name_;
  int islands_;
  bool particles_ok_ = false;
};

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
  kv("cognitive", toml_double(w.cognitive));
  kv("social", toml_double(w.social));
  kv("velocity_clamp", toml_double(w.velocity_clamp));
  kv("kernel", str(config_kernel_name(w.kernel)));
  kv("sync", str(config_sync_name(w.sync)));

  const ipso_migration_config &m = c.migration;
  t += "\n[migration]\n";
  kv("interval", std::to_string(m.interval));
  kv("migrants", std::to_string(m.migrants));
  kv("topology", str(config_topology_name(m.topology)));
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

/* A malloc'd copy of V (which is not empty). */
double *malloc_copy(const std::vector<double> &v)
{
  auto *p = static_cast<double *>(std::malloc(v.size() * sizeof(double)));
  if (!p) throw std::bad_alloc();
  std::memcpy(p, v.data(), v.size() * sizeof(double));
  return p;
}

/* Moves the staged config into CFG: arrays malloc'd, text generated. */
void commit(const staged &st, ipso_config *cfg)
{
  *cfg = st.cfg;
  cfg->objective.lower = nullptr;
  cfg->objective.upper = nullptr;
  cfg->objective.nparams = 0;
  cfg->text = nullptr;
  try {
    cfg->objective.lower = malloc_copy(st.lower);
    cfg->objective.upper = malloc_copy(st.upper);
    for (const staged_param &p : st.params) {
      ipso_param &q = cfg->objective.params[cfg->objective.nparams];
      std::snprintf(q.name, sizeof q.name, "%s", p.name.c_str());
      q.len = static_cast<int64_t>(p.values.size());
      q.is_array = p.is_array;
      q.values = malloc_copy(p.values);
      cfg->objective.nparams++;
    }
    std::string text = resolved_text(*cfg);
    cfg->text = static_cast<char *>(std::malloc(text.size() + 1));
    if (!cfg->text) throw std::bad_alloc();
    std::memcpy(cfg->text, text.c_str(), text.size() + 1);
  } catch (...) {
    config_free(cfg);
    throw;
  }
}

/* Splits KEY ("section.key" or "section.table.key") into its bare-key parts;
 * empty if it is not of that form. */
std::vector<std::string> override_key_parts(std::string_view key)
{
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = key.find('.', start);
    std::string_view part = key.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (part.empty()) return {};
    for (char c : part)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return {};
    parts.emplace_back(part);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (parts.size() < 2 || parts.size() > 3) return {};
  return parts;
}

/* Whether DOC is the nested key path PARTS holding one value that is not a
 * date or time (which are no config value, so "01:00:00" means a string). */
bool is_single_value(const toml::table &doc, const std::vector<std::string> &parts)
{
  const toml::table *t = &doc;
  for (size_t i = 0; i < parts.size(); i++) {
    if (t->size() != 1) return false;
    const toml::node *n = t->get(parts[i]);
    if (!n) return false;
    if (i + 1 == parts.size()) return !(n->is_date() || n->is_time() || n->is_date_time());
    t = n->as_table();
    if (!t) return false;
  }
  return false;
}

/* Moves the one-entry path of SRC into DST at depth DEPTH: tables on the path
 * are merged, the last key replaced, so the nodes keep their --set source. */
void merge_override(toml::table &dst, toml::table &src, size_t depth, size_t last,
                    const std::string &source, const std::string &keypath, diagnostics &diag)
{
  auto it = src.begin();
  const toml::key &k = it->first;
  toml::node &v = it->second;
  if (depth == last) {
    dst.insert_or_assign(k, std::move(v));
    return;
  }
  toml::node *existing = dst.get(k.str());
  if (!existing) {
    dst.insert(k, std::move(v));
    return;
  }
  if (toml::table *t = existing->as_table()) {
    merge_override(*t, *v.as_table(), depth + 1, last, source, keypath, diag);
    return;
  }
  diag.override_error(source, keypath + ": cannot be set, '" + std::string(k.str()) +
                                  "' is not a table in the config");
}

/* Applies the override TEXT ("section.key=value") to ROOT. */
void apply_override(toml::table &root, const std::string &text, diagnostics &diag)
{
  std::string source = "--set " + text;
  size_t eq = text.find('=');
  std::vector<std::string> parts;
  if (eq != std::string::npos)
    parts = override_key_parts(trim(std::string_view(text).substr(0, eq)));
  if (parts.empty()) {
    diag.override_error(source, "expected section.key=value");
    return;
  }
  std::string keypath = parts[0];
  for (size_t i = 1; i < parts.size(); i++) keypath += "." + parts[i];
  std::string value = text.substr(eq + 1);
  diag.add_override(source);

  toml::table doc;
  bool parsed = false;
  try {
    doc = toml::parse(std::string_view(keypath + " = " + value + "\n"), std::string_view(source));
    parsed = is_single_value(doc, parts);
  } catch (const toml::parse_error &) {
    parsed = false;
  }
  if (!parsed) {
    std::string bare(trim(value));
    try {
      doc = toml::parse(std::string_view(keypath + " = " + toml_string(bare) + "\n"),
                        std::string_view(source));
    } catch (const toml::parse_error &e) {
      diag.override_error(source, keypath + ": " + std::string(e.description()));
      return;
    }
  }
  merge_override(root, doc, 0, parts.size() - 1, source, keypath, diag);
}

/* Parses, overrides, validates and resolves TEXT (named SOURCE_NAME) into CFG. */
int load(std::string_view text, const char *source_name, int noverrides, char *const *overrides,
         int islands, ipso_config *cfg)
{
  std::memset(cfg, 0, sizeof *cfg);
  if (std::strlen(source_name) > IPSO_PATH_MAX - 1) {
    log_user_error("islandpso: error: config path '%s' is too long (at most %d characters)",
                   source_name, IPSO_PATH_MAX - 1);
    return IPSO_ERR_USAGE;
  }
  diagnostics diag(source_name);
  toml::table root;
  bool parsed = true;
  try {
    root = toml::parse(text, std::string_view(source_name));
  } catch (const toml::parse_error &e) {
    const toml::source_position &p = e.source().begin;
    log_user_error("%s:%u:%u: error: %s", source_name, p.line ? p.line : 1u, p.line ? p.column : 1u,
                   std::string(e.description()).c_str());
    parsed = false;
  }
  for (int i = 0; i < noverrides; i++) apply_override(root, overrides[i], diag);
  if (!parsed) {
    diag.print();
    return IPSO_ERR_USAGE;
  }
  staged st;
  validator(diag, source_name, islands).run(root, st);
  if (diag.failed()) {
    diag.print();
    return IPSO_ERR_USAGE;
  }
  commit(st, cfg);
  std::snprintf(cfg->path, sizeof cfg->path, "%s", source_name);
  return IPSO_OK;
}

/* Reads the whole file PATH into TEXT, reporting why not if it cannot. */
int read_config_file(const char *path, std::string &text)
{
  FILE *f = std::fopen(path, "rb");
  if (!f) {
    log_user_error("islandpso: error: cannot read config '%s': %s", path, std::strerror(errno));
    return IPSO_ERR_USAGE;
  }
  struct stat st;
  int err = 0;
  if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) err = EISDIR;
  char chunk[65536];
  while (!err && text.size() <= kMaxFileBytes) {
    size_t n = std::fread(chunk, 1, sizeof chunk, f);
    text.append(chunk, n);
    if (n < sizeof chunk) {
      if (std::ferror(f)) err = errno ? errno : EIO;
      break;
    }
  }
  std::fclose(f);
  if (err) {
    log_user_error("islandpso: error: cannot read config '%s': %s", path, std::strerror(err));
    return IPSO_ERR_USAGE;
  }
  if (text.size() > kMaxFileBytes) {
    log_user_error("islandpso: error: config '%s' is too large (more than %zu MiB)", path,
                   kMaxFileBytes >> 20);
    return IPSO_ERR_USAGE;
  }
  return IPSO_OK;
}

/* Runs BODY, turning an exception (out of memory) into a runtime failure. */
template <typename F> int guarded(F &&body)
{
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return IPSO_FAIL("config", "out of memory while reading the config");
  } catch (const std::exception &e) {
    return IPSO_FAIL("config", "%s", e.what());
  }
}

} // namespace

extern "C" int config_load(const char *path, int noverrides, char *const *overrides, int islands,
                           ipso_config *cfg)
{
  return guarded([&] {
    std::memset(cfg, 0, sizeof *cfg);
    if (!path) {
      log_user_error("islandpso: error: no config file given");
      return static_cast<int>(IPSO_ERR_USAGE);
    }
    std::string text;
    IPSO_TRY(read_config_file(path, text));
    return load(text, path, noverrides, overrides, islands, cfg);
  });
}

extern "C" int config_load_text(const char *text, const char *source_name, int noverrides,
                                char *const *overrides, int islands, ipso_config *cfg)
{
  return guarded([&] {
    return load(text ? text : "", source_name ? source_name : "<config>", noverrides, overrides,
                islands, cfg);
  });
}

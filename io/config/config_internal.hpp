/* Private to the config reader (io/config*.cpp), which is split by concern:
 *   config.cpp           reading: the file, --set overrides, the C API
 *   config_text.cpp      words and numbers: suggestions, TOML spellings
 *   config_schema.cpp    the keys of every table and the resolved text
 *   config_values.cpp    the schema checks and the typed lookups
 *   config_validate.cpp  the rules and defaults of each table
 * Problems are collected by diagnostics (here) and printed in file order. */
#ifndef IPSO_CONFIG_INTERNAL_HPP
#define IPSO_CONFIG_INTERNAL_HPP

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <toml++/toml.h>

#include "config.h"
#include "log.h"
#include "objective.h"

namespace config_impl
{

constexpr size_t kMaxFileBytes = size_t{16} << 20; /* larger files are refused unread */
constexpr size_t kMaxShownErrors = 25;             /* errors printed before "N more" */
constexpr size_t kMaxCollectedErrors = 1000;       /* bounds the memory a hostile file costs */
constexpr int64_t kMaxIterations = INT64_C(1000000000000);
/* run.islands at most: global island ids address the random stream in 32 bits,
 * and every island is a column of /history/island_best. */
constexpr int64_t kMaxIslands = 65536;
constexpr int64_t kMaxParamValues = 1000000;
constexpr size_t kMaxParamName = sizeof(ipso_param::name) - 1;
constexpr size_t kBoundsPerLine = 8; /* array values per line in the resolved text */

/* SPSO-2011 coefficients: w = 1/(2 ln 2), c1 = c2 = 0.5 + ln 2. */
constexpr double kSpsoInertia = 0.72134752044448170;
constexpr double kSpsoAcceleration = 1.1931471805599453;
/* The swarm topology and velocity clamp where the config names none: a ring
 * of 4 neighbours on each side and 5% of the range, the setting that beats
 * pagmo's PSO archipelago on all five objectives of bench/quality.sh (README,
 * "Choosing the topology", has the measurements behind it). */
constexpr int kDefaultSwarmTopology = IPSO_SWARM_RING;
constexpr int64_t kDefaultNeighbours = 4;
constexpr double kDefaultVelocityClamp = 0.05;
/* The clpso topology's defaults (Liang, Qin, Suganthan and Baskar, IEEE TEC
 * 2006): one attractor, the exemplar, with c = 1.49445 (social; cognitive
 * 0, so the update has the exemplar's term alone), inertia from 0.9 down to
 * 0.4 at max_iterations, and a new exemplar every 7 iterations. */
constexpr double kClpsoInertia = 0.9;
constexpr double kClpsoInertiaEnd = 0.4;
constexpr double kClpsoAcceleration = 1.49445;
constexpr int64_t kDefaultRefresh = 7;
constexpr double kDefaultWatchdog = 30 * 60;
constexpr double kDefaultCheckpointSeconds = 15 * 60;

/* The keys each table accepts, in the canonical order of the resolved text. */
struct table_schema {
  std::string_view name;
  std::vector<std::string_view> keys;
};

/* The schema of every table of the config (config_schema.cpp). */
const std::vector<table_schema> &config_schema();

/* The config spellings of the N values 0..N-1 of an enum, from its name function. */
template <typename E> std::vector<std::string_view> enum_names(const char *(*name_of)(E), int n)
{
  std::vector<std::string_view> names;
  for (int i = 0; i < n; i++) names.emplace_back(name_of(static_cast<E>(i)));
  return names;
}

/* The names accepted by objective_find(), in table order. */
std::vector<std::string_view> objective_names();

/* The resolved config as TOML: every key with the value used, in schema order. */
std::string resolved_text(const ipso_config &c);

/* Words and numbers (config_text.cpp). */

/* The candidate WORD most likely stands for: within 2 edits (3 for words
 * longer than 8 characters) and fewer edits than WORD has characters; ""
 * if there is none. */
std::string_view closest(std::string_view word, const std::vector<std::string_view> &candidates);

/* "a, b, c": the candidates, for "must be one of ...". */
std::string join(const std::vector<std::string_view> &words, std::string_view sep);

/* The shortest decimal that reads back as exactly V (up to 17 significant
 * digits), in plain notation unless the exponent is far from zero. */
std::string format_double(double v);

/* V as a TOML float that reads back exactly: always with a '.' or exponent. */
std::string toml_double(double v);

/* S as a TOML basic string, quoted, with the characters TOML forbids escaped. */
std::string toml_string(std::string_view s);

/* Whole SECONDS as "HH:MM:SS" (hours as many digits as needed). */
std::string format_hms(double seconds);

/* "an integer", "a string", ...: the TOML type of a node, for messages. */
const char *type_phrase(const toml::node &n);

/* Whether S is a C identifier. */
bool is_identifier(std::string_view s);

/* S without the spaces and tabs at either end. */
std::string_view trim(std::string_view s);

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

/* Checks a parsed document against the schema and fills a staged config.
 * The schema checks and typed lookups are in config_values.cpp, the
 * sections' rules in config_validate.cpp. */
class validator
{
public:
  validator(diagnostics &diag, std::string_view source_name, int ranks)
      : diag_(diag), source_name_(source_name), ranks_(ranks < 1 ? 1 : ranks)
  {
  }

  /* Validates ROOT into OUT; problems go to the diagnostics. */
  void run(const toml::table &root, staged &out);

private:
  /* The schema and typed values (config_values.cpp). */
  static std::string qualified(const section &s, std::string_view key);
  static std::string tables_with_key(std::string_view key);
  static const table_schema *table_with_close_key(std::string_view key, std::string_view *match);
  void check_top_level(const toml::table &root);
  section get_section(const toml::table &root, std::string_view name);
  void check_keys(const section &s);
  void require(const section &s, std::string_view key, std::string_view why = {});
  void type_error(const std::string &key, const toml::node &n, std::string_view expected);
  got get_integer(const section &s, std::string_view key, int64_t lo, int64_t hi, int64_t &out);
  got number_of(const toml::node &n, const std::string &key, double &out);
  got get_number(const section &s, std::string_view key, double &out);
  got get_number_in(const section &s, std::string_view key, double lo, double hi, bool lo_open,
                    double &out);
  void range_error(const section &s, std::string_view key, double lo, double hi, bool lo_open,
                   double x);
  got get_bool(const section &s, std::string_view key, bool &out);
  got get_string(const section &s, std::string_view key, size_t max_len, std::string &out);
  void enum_error(const toml::node &n, const std::string &key, const std::string &value,
                  const std::vector<std::string_view> &names);
  got get_enum(const section &s, std::string_view key, const std::vector<std::string_view> &names,
               int &out);
  got get_hms(const section &s, std::string_view key, double &out);

  /* The sections (config_validate.cpp). */
  void read_run(const section &s, ipso_run_config &r);
  std::string config_directory() const;
  void read_cec2017(const section &s, const objective_info *info, ipso_objective_config &o);
  void read_source(const section &s, ipso_objective_config &o);
  got read_bounds(const section &s, std::string_view key, int dims, std::vector<double> &out);
  got read_number_array(const toml::array &a, const std::string &name, int64_t want,
                        std::string_view want_name, std::vector<double> &out);
  void read_all_bounds(const section &s, const objective_info *info, int dims, staged &out);
  void read_params(const section &s, const objective_info *info, int dims, staged &out);
  void read_param_entries(const toml::table &t, const objective_info *info, int dims, staged &out);
  void read_objective(const section &s, staged &out);
  void read_swarm(const section &s, staged &out);
  void read_topology(const section &s, bool particles_ok, ipso_swarm_config &w);
  void read_refresh(const section &s, bool particles_ok, ipso_swarm_config &w);
  void read_migration(const section &s, staged &out);
  void read_output(const section &s, staged &out);

  /* Copies S into the char array DST (its length already checked). */
  template <size_t N> static void copy_string(char (&dst)[N], const std::string &s)
  {
    std::snprintf(dst, N, "%s", s.c_str());
  }

  diagnostics &diag_;
  std::string_view source_name_;
  int ranks_; /* MPI ranks of the run */
  bool particles_ok_ = false;
};

} // namespace config_impl

#endif

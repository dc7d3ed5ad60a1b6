/* Private to the config reader: config_keys.cpp (the table of keys, the
 * resolved text), config_text.cpp (words and numbers), config_validate.cpp
 * (the checks), config.cpp (the file, --set overrides, the C API). */
#ifndef IPSO_CONFIG_INTERNAL_HPP
#define IPSO_CONFIG_INTERNAL_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <toml++/toml.h>

#include "config.h"
#include "log.h"

namespace config_impl
{

constexpr size_t kMaxShownErrors = 25;       /* errors printed before "N more" */
constexpr size_t kMaxCollectedErrors = 1000; /* bounds the memory a hostile file costs */
constexpr double kNoMax = HUGE_VAL;          /* an integer key without an upper bound */

/* How a key is read and written back. */
enum class kind {
  integer,
  number,
  boolean,
  string,
  enumeration,
  hms,
  bounds,
  interval,
  params,
  clamps
};

/* swarm.velocity_clamp by default (BENCHMARKS.md, "Solution quality"). */
constexpr double kDefaultClamps[] = {0.05, 1.0};

/* One key: stored at OFFSET in struct ipso_config (SIZE bytes: int, int64_t,
 * double, or a char array bounding a string), DEF where not given, integers
 * and numbers in [LO, HI] ((LO, HI] when LO_OPEN). The resolved text shows
 * it where SHOWN (null: always), else the comment UNSET if any. */
struct key {
  const char *table, *name;
  kind type;
  double def, lo, hi;
  bool lo_open;
  size_t offset, size;
  const char *const *names = nullptr; /* kind::enumeration, null-terminated */
  bool (*shown)(const ipso_config &) = nullptr;
  const char *unset = nullptr;
};

/* A table of the config and its keys, in the order of the resolved text. */
struct table_schema {
  std::string_view name;
  std::vector<std::string_view> keys;
};

const std::vector<table_schema> &config_schema();
/* The key NAME of TABLE (which exists). */
const key &find_key(std::string_view table, std::string_view name);
/* The config spellings of an enum key's values, in the enum's order. */
std::vector<std::string_view> enum_names(const key &k);
/* The directory part of config name SOURCE_NAME, made absolute; "" if unknown. */
std::string config_directory(std::string_view source_name);
/* The resolved config as TOML: every key with the value used, in table order. */
std::string resolved_text(const ipso_config &c);
/* The candidate WORD most likely stands for: within 2 edits (3 for words
 * longer than 8), fewer than WORD has characters; "" if there is none. */
std::string_view closest(std::string_view word, const std::vector<std::string_view> &candidates);
/* A malloc'd copy of V (which is not empty); std::bad_alloc if out of memory. */
double *malloc_copy(const std::vector<double> &v);
/* The shortest decimal that reads back as exactly V (at most 17 digits),
 * in plain notation unless the exponent is far from zero. */
std::string format_double(double v);
/* V as a TOML float that reads back exactly: always with a '.' or exponent. */
std::string toml_double(double v);
/* S as a TOML basic string, quoted, with the characters TOML forbids escaped. */
std::string toml_string(std::string_view s);
/* Whole SECONDS as "HH:MM:SS" (hours as many digits as needed). */
std::string format_hms(double seconds);
/* "an integer", "a string", ...: a node's TOML type, for messages. */
const char *type_phrase(const toml::node &n);
/* Whether S is a C identifier. */
bool is_identifier(std::string_view s);

/* Appends V, a string or an integer, to S (for cat). */
inline void append(std::string &s, std::string_view v)
{
  s += v;
}
template <typename I, typename = std::enable_if_t<std::is_integral_v<I>>>
void append(std::string &s, I v)
{
  s += std::to_string(v);
}

/* ARGS (strings and integers) one after the other, for messages. */
template <typename... T> std::string cat(const T &...args)
{
  std::string s;
  (append(s, args), ...);
  return s;
}

/* The problems of one config, printed once all is checked: in file order,
 * then the overrides as they came. */
class diagnostics
{
public:
  explicit diagnostics(std::string source) : source_(std::move(source)) {}

  /* Marks NAME as the source path of a --set override's nodes. */
  void add_override(const std::string &name)
  {
    overrides_.insert(name);
  }

  /* Reports "KEY: MESSAGE" at REGION: its --set text, or file:line:column
   * (1:1 where unknown). */
  void error(const toml::source_region &region, std::string_view key, std::string_view message)
  {
    std::string text = std::string(key) + ": " + std::string(message);
    if (region.path && overrides_.count(*region.path)) return add(*region.path, 1, 0, 0, text);
    uint32_t line = region.begin.line ? region.begin.line : 1;
    uint32_t column = region.begin.line ? region.begin.column : 1;
    add(source_ + ":" + std::to_string(line) + ":" + std::to_string(column), 0, line, column, text);
  }

  /* Reports MESSAGE about the --set override OVERRIDE_SOURCE itself. */
  void override_error(const std::string &override_source, std::string_view message)
  {
    add(override_source, 1, 0, 0, std::string(message));
  }

  /* Whether any problem was reported. */
  bool failed() const
  {
    return !entries_.empty() || dropped_ > 0;
  }

  /* Prints the problems to stderr. */
  void print()
  {
    std::stable_sort(entries_.begin(), entries_.end(), [](const entry &a, const entry &b) {
      return std::tie(a.group, a.line, a.column) < std::tie(b.group, b.line, b.column);
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

/* Checks ROOT (from SOURCE_NAME, for RANKS ranks) against the table of keys
 * into CFG, which then owns bounds and parameters; problems go to DIAG. */
void validate(const toml::table &root, std::string_view source_name, int ranks, diagnostics &diag,
              ipso_config &cfg);

} // namespace config_impl

#endif

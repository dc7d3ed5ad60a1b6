/* The validator's schema checks (unknown tables and keys, with the one
 * meant) and its typed lookups of values, each reporting a problem where
 * the value is. */
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>

#include "config_internal.hpp"

namespace config_impl
{

/* "section.key", the name of a key in messages. */
std::string validator::qualified(const section &s, std::string_view key)
{
  return std::string(s.name) + "." + std::string(key);
}

/* The tables that have KEY, as "[a]" or "[a] or [b]". */
std::string validator::tables_with_key(std::string_view key)
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
const table_schema *validator::table_with_close_key(std::string_view key, std::string_view *match)
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
void validator::check_top_level(const toml::table &root)
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
    std::string msg = v.is_table() ? "unknown table [" + name + "]" : "unknown key '" + name + "'";
    std::string_view c = closest(name, tables);
    if (!c.empty()) msg += " (did you mean [" + std::string(c) + "]?)";
    diag_.error(k.source(), name, msg);
  }
}

/* The table NAME of ROOT, reporting it if it is not a table. */
section validator::get_section(const toml::table &root, std::string_view name)
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
void validator::check_keys(const section &s)
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
      msg = "'" + name + "' is not a key of [" + std::string(s.name) + "] (it belongs in " + where +
            ")";
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
void validator::require(const section &s, std::string_view key, std::string_view why)
{
  std::string msg = "is required";
  if (!why.empty()) msg += " (" + std::string(why) + ")";
  diag_.error(s.region, qualified(s, key), msg);
}

/* Reports that node N of KEY has the wrong type. */
void validator::type_error(const std::string &key, const toml::node &n, std::string_view expected)
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
got validator::get_integer(const section &s, std::string_view key, int64_t lo, int64_t hi,
                           int64_t &out)
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
    std::string msg = hi == INT64_MAX
                          ? "must be at least " + std::to_string(lo)
                          : "must be between " + std::to_string(lo) + " and " + std::to_string(hi);
    diag_.error(n->source(), qualified(s, key), msg + ", got " + std::to_string(x));
    return got::bad;
  }
  out = x;
  return got::ok;
}

/* A finite number (integer or float) from node N, named KEY in messages. */
got validator::number_of(const toml::node &n, const std::string &key, double &out)
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
got validator::get_number(const section &s, std::string_view key, double &out)
{
  const toml::node *n = s.tbl ? s.tbl->get(key) : nullptr;
  if (!n) return got::absent;
  return number_of(*n, qualified(s, key), out);
}

/* A number KEY of S in [LO, HI], or in (LO, HI] when LO_OPEN. */
got validator::get_number_in(const section &s, std::string_view key, double lo, double hi,
                             bool lo_open, double &out)
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
void validator::range_error(const section &s, std::string_view key, double lo, double hi,
                            bool lo_open, double x)
{
  std::string msg =
      lo_open ? "must be greater than " + format_double(lo) + " and at most " + format_double(hi)
              : "must be between " + format_double(lo) + " and " + format_double(hi);
  diag_.error(s.tbl->get(key)->source(), qualified(s, key), msg + ", got " + format_double(x));
}

/* A boolean KEY of S. */
got validator::get_bool(const section &s, std::string_view key, bool &out)
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
got validator::get_string(const section &s, std::string_view key, size_t max_len, std::string &out)
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
void validator::enum_error(const toml::node &n, const std::string &key, const std::string &value,
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
got validator::get_enum(const section &s, std::string_view key,
                        const std::vector<std::string_view> &names, int &out)
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
got validator::get_hms(const section &s, std::string_view key, double &out)
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

} // namespace config_impl

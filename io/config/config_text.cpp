/* The config reader's words and numbers: the key or value a misspelt one
 * stands for, and numbers and strings as TOML writes them. */
#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "config_internal.hpp"

namespace config_impl
{
namespace
{

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

} // namespace

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

} // namespace config_impl

/* The config reader's words and numbers: what a misspelt word stands for,
 * numbers and strings as TOML, durations. */
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "config_internal.hpp"

namespace config_impl
{
namespace
{

/* Edit distance with adjacent transpositions (optimal string alignment),
 * ignoring ASCII case: "inertai" is one edit from "inertia". */
size_t edit_distance(std::string_view a, std::string_view b)
{
  auto lower_ascii = [](char c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; };
  const size_t n = a.size(), m = b.size();
  std::vector<size_t> d((n + 1) * (m + 1));
  auto at = [m, &d](size_t i, size_t j) -> size_t & { return d[i * (m + 1) + j]; };
  for (size_t i = 0; i <= n; i++) at(i, 0) = i;
  for (size_t j = 0; j <= m; j++) at(0, j) = j;
  for (size_t i = 1; i <= n; i++)
    for (size_t j = 1; j <= m; j++) {
      size_t cost = lower_ascii(a[i - 1]) == lower_ascii(b[j - 1]) ? 0 : 1;
      size_t best = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost});
      if (i > 1 && j > 1 && lower_ascii(a[i - 1]) == lower_ascii(b[j - 2]) &&
          lower_ascii(a[i - 2]) == lower_ascii(b[j - 1]))
        best = std::min(best, at(i - 2, j - 2) + 1);
      at(i, j) = best;
    }
  return at(n, m);
}

} // namespace

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

double *malloc_copy(const std::vector<double> &v)
{
  auto *p = static_cast<double *>(std::malloc(v.size() * sizeof(double)));
  if (!p) throw std::bad_alloc();
  std::memcpy(p, v.data(), v.size() * sizeof(double));
  return p;
}

std::string format_double(double v)
{
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[48];
  int digits = 0; /* significant digits printed */
  do std::snprintf(buf, sizeof buf, "%.*e", digits++, v);
  while (digits < 17 && std::strtod(buf, nullptr) != v);
  int exponent = std::atoi(std::strchr(buf, 'e') + 1);
  if (exponent < -5 || exponent > 16) return buf;
  std::snprintf(buf, sizeof buf, "%.*f", std::max(digits - 1 - exponent, 0), v);
  return buf;
}

std::string toml_double(double v)
{
  std::string s = format_double(v);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

std::string toml_string(std::string_view s)
{
  static const char kEscaped[] = "\"\\\b\t\n\f\r", kLetter[] = "\"\\btnfr";
  std::string out = "\"";
  for (char ch : s) {
    const char *e = ch ? std::strchr(kEscaped, ch) : nullptr;
    auto c = static_cast<unsigned char>(ch);
    char esc[8] = {ch, 0};
    if (e)
      std::snprintf(esc, sizeof esc, "\\%c", kLetter[e - kEscaped]);
    else if (c < 0x20 || c == 0x7f)
      std::snprintf(esc, sizeof esc, "\\u%04X", c);
    out += esc;
  }
  return out + "\"";
}

std::string format_hms(double seconds)
{
  auto total = static_cast<long long>(seconds);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld", total / 3600, total / 60 % 60, total % 60);
  return buf;
}

const char *type_phrase(const toml::node &n)
{
  static const char *const kPhrase[] = {"nothing",    "a table",    "an array",  "a string",
                                        "an integer", "a float",    "a boolean", "a date",
                                        "a time",     "a date-time"};
  auto t = static_cast<size_t>(n.type());
  return t < sizeof kPhrase / sizeof *kPhrase ? kPhrase[t] : "nothing";
}

bool is_identifier(std::string_view s)
{
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

} // namespace config_impl

/* Frees what CFG owns and zeroes it: a second call is harmless. */
void config_free(ipso_config *cfg)
{
  if (!cfg) return;
  std::free(cfg->objective.lower);
  std::free(cfg->objective.upper);
  for (ipso_param &p : cfg->objective.params) std::free(p.values);
  std::free(cfg->text);
  std::memset(cfg, 0, sizeof *cfg);
}

/* At least one hour digit, minutes and seconds 00-59; hours beyond 1e9 are
 * refused, so seconds stay exact in a double and print back as read. */
double config_parse_hms(const char *s)
{
  size_t n = s ? std::strlen(s) : 0;
  if (n < 7 || s[n - 3] != ':' || s[n - 6] != ':') return -1;
  double v[3] = {0, 0, 0};
  for (size_t i = 0; i < n; i++) {
    size_t part = i < n - 6 ? 0 : i < n - 3 ? 1 : 2;
    if (i == n - 6 || i == n - 3) continue;
    if (s[i] < '0' || s[i] > '9') return -1;
    v[part] = v[part] * 10 + (s[i] - '0');
  }
  if (v[1] > 59 || v[2] > 59 || v[0] > 1e9) return -1;
  return v[0] * 3600 + v[1] * 60 + v[2];
}

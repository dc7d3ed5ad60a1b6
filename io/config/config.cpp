/* The config reader's entry points: the file, its --set overrides, and the
 * parse, validation and resolved text of a struct ipso_config. */
#include "config.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config_internal.hpp"

#include "check.h"

using namespace config_impl;

std::string config_impl::config_directory(std::string_view source_name)
{
  size_t slash = source_name.rfind('/');
  std::string dir(slash == std::string_view::npos ? "" : source_name.substr(0, slash + 1));
  if (!dir.empty() && dir[0] == '/') return dir;
  while (dir.compare(0, 2, "./") == 0) dir.erase(0, 2);
  std::vector<char> cwd(IPSO_PATH_MAX);
  if (!getcwd(cwd.data(), cwd.size())) return dir;
  std::string abs = cwd.data();
  return abs + (abs.empty() || abs.back() != '/' ? "/" : "") + dir;
}

namespace
{

constexpr size_t kMaxFileBytes = size_t{16} << 20; /* larger files are refused unread */

/* S without the spaces and tabs at either end. */
std::string_view trim(std::string_view s)
{
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

/* The bare-key parts of "section.key" or "section.table.key"; empty if not so. */
std::vector<std::string> override_key_parts(std::string_view key)
{
  std::vector<std::string> parts(1);
  for (char c : key) {
    if (c == '.')
      parts.emplace_back();
    else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')
      parts.back() += c;
    else
      return {};
  }
  for (const std::string &part : parts)
    if (part.empty()) return {};
  return parts.size() < 2 || parts.size() > 3 ? std::vector<std::string>{} : parts;
}

/* Whether DOC is the key path PARTS holding one value that is not a date or
 * time (no config value is one, so "01:00:00" means a string). */
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

/* Moves the one-entry path of SRC into DST (tables merged, the last key
 * replaced), so the nodes keep their --set source. */
void merge_override(toml::table &dst, toml::table &src, size_t depth, size_t last,
                    const std::string &source, const std::string &keypath, diagnostics &diag)
{
  auto it = src.begin();
  const toml::key &k = it->first;
  toml::node &v = it->second;
  toml::node *existing = dst.get(k.str());
  if (depth == last)
    dst.insert_or_assign(k, std::move(v));
  else if (!existing)
    dst.insert(k, std::move(v));
  else if (toml::table *t = existing->as_table())
    merge_override(*t, *v.as_table(), depth + 1, last, source, keypath, diag);
  else
    diag.override_error(source, keypath + ": cannot be set, '" + std::string(k.str()) +
                                    "' is not a table in the config");
}

/* Applies the override TEXT ("section.key=value") to ROOT. */
void apply_override(toml::table &root, const std::string &text, diagnostics &diag)
{
  std::string source = "--set " + text;
  size_t eq = text.find('=');
  std::string keypath(eq == std::string::npos ? "" : trim(std::string_view(text).substr(0, eq)));
  std::vector<std::string> parts = override_key_parts(keypath);
  if (parts.empty()) return diag.override_error(source, "expected section.key=value");
  std::string value = text.substr(eq + 1);
  diag.add_override(source);

  toml::table doc;
  bool parsed = false;
  try {
    doc = toml::parse(std::string_view(keypath + " = " + value + "\n"), std::string_view(source));
    parsed = is_single_value(doc, parts);
  } catch (const toml::parse_error &) {
  }
  if (!parsed) {
    std::string bare(trim(value));
    try {
      doc = toml::parse(std::string_view(keypath + " = " + toml_string(bare) + "\n"),
                        std::string_view(source));
    } catch (const toml::parse_error &e) {
      return diag.override_error(source, keypath + ": " + std::string(e.description()));
    }
  }
  merge_override(root, doc, 0, parts.size() - 1, source, keypath, diag);
}

/* Parses, overrides, validates and resolves TEXT (named SOURCE_NAME) into CFG. */
int load(std::string_view text, const char *source_name, int noverrides, char *const *overrides,
         int ranks, ipso_config *cfg)
{
  std::memset(cfg, 0, sizeof *cfg);
  if (std::strlen(source_name) > IPSO_PATH_MAX - 1)
    return IPSO_USAGE("islandpso: error: config path '%s' is too long (at most %d characters)",
                      source_name, IPSO_PATH_MAX - 1);
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
  try {
    if (parsed) validate(root, source_name, ranks, diag, *cfg);
    if (!parsed || diag.failed()) {
      config_free(cfg);
      diag.print();
      return IPSO_ERR_USAGE;
    }
    cfg->text = strdup(resolved_text(*cfg).c_str());
    if (!cfg->text) throw std::bad_alloc();
  } catch (...) {
    config_free(cfg);
    throw;
  }
  std::snprintf(cfg->path, sizeof cfg->path, "%s", source_name);
  return IPSO_OK;
}

/* Reads the whole file PATH into TEXT, or reports why not. Opened without
 * waiting (a FIFO with no writer would hold the process through every stop
 * signal): FIFOs, sockets and devices with nothing to read at once refused. */
int read_config_file(const char *path, std::string &text)
{
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return IPSO_USAGE("islandpso: error: cannot read config '%s': %s", path, std::strerror(errno));
  struct stat st;
  int err = 0;
  if (fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
    close(fd);
    return IPSO_USAGE("islandpso: error: config '%s' is %s, not a file: islandpso reads its config "
                      "from a regular file (a pipe may have no writer, and the run would wait for "
                      "one); write the config to a file first",
                      path, S_ISFIFO(st.st_mode) ? "a FIFO (a named pipe, or <(...))" : "a socket");
  }
  if (S_ISDIR(st.st_mode)) err = EISDIR;
  char chunk[65536];
  while (!err && text.size() <= kMaxFileBytes) {
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n == 0) break;
    if (n > 0)
      text.append(chunk, static_cast<size_t>(n));
    else if (errno != EINTR)
      err = errno;
  }
  close(fd);
  if (err == EAGAIN || err == EWOULDBLOCK)
    return IPSO_USAGE("islandpso: error: config '%s' has nothing to read without waiting (a "
                      "terminal or another device): give a regular file",
                      path);
  if (err)
    return IPSO_USAGE("islandpso: error: cannot read config '%s': %s", path, std::strerror(err));
  if (text.size() > kMaxFileBytes)
    return IPSO_USAGE("islandpso: error: config '%s' is too large (more than %zu MiB)", path,
                      kMaxFileBytes >> 20);
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

extern "C" int config_load(const char *path, int noverrides, char *const *overrides, int ranks,
                           ipso_config *cfg)
{
  return guarded([&] {
    std::memset(cfg, 0, sizeof *cfg);
    if (!path) return IPSO_USAGE("islandpso: error: no config file given");
    std::string text;
    IPSO_TRY(read_config_file(path, text));
    return load(text, path, noverrides, overrides, ranks, cfg);
  });
}

extern "C" int config_load_text(const char *text, const char *source_name, int noverrides,
                                char *const *overrides, int ranks, ipso_config *cfg)
{
  return guarded([&] {
    return load(text ? text : "", source_name ? source_name : "<config>", noverrides, overrides,
                ranks, cfg);
  });
}

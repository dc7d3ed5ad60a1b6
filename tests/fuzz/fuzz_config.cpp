/* libFuzzer target for the config reader: config_load_text() with --set
 * overrides on arbitrary bytes. Beyond crashes, leaks and undefined
 * behaviour (the sanitizers' part), it checks what a config that the reader
 * accepts promises to the rest of islandpso: every value within its
 * documented range, and a resolved text that reads back to itself (what
 * rank 0 sends the other ranks).
 *
 * Input: the config text, then up to 16 overrides, each after a NUL byte
 * ("section.key=value"). The last byte picks the number of ranks (1-8), so
 * the checks that depend on it (run.islands, migrants) are reached too. */
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "config.h"
#include "ipso.h"

namespace
{

constexpr size_t kMaxOverrides = 16;

/* Stops the run with WHAT; libFuzzer keeps the input as a crash. Replaying it
 * (run_fuzz.sh does) shows the message. */
[[noreturn]] void broken(const char *what)
{
  std::fprintf(stderr, "fuzz_config: accepted config breaks a promise: %s\n", what);
  std::fflush(stderr);
  std::abort();
}

void require(bool ok, const char *what)
{
  if (!ok) broken(what);
}

/* Whether the char array S of N bytes holds a NUL-terminated string. */
bool terminated(const char *s, size_t n)
{
  return std::memchr(s, '\0', n) != nullptr;
}

/* The documented ranges of an accepted config (config.h, design.md). */
void check_ranges(const ipso_config &c)
{
  const ipso_objective_config &o = c.objective;
  require(terminated(c.run.name, sizeof c.run.name) && c.run.name[0] != '\0', "run.name");
  require(terminated(c.run.output, sizeof c.run.output), "run.output");
  require(terminated(c.output.checkpoint, sizeof c.output.checkpoint), "output.checkpoint");
  require(terminated(o.name, sizeof o.name) && terminated(o.source, sizeof o.source) &&
              terminated(o.function, sizeof o.function),
          "objective strings");
  require(c.run.backend >= IPSO_BACKEND_AUTO && c.run.backend <= IPSO_BACKEND_CPU, "run.backend");
  require(c.run.precision == IPSO_DOUBLE || c.run.precision == IPSO_FLOAT, "run.precision");
  require(c.run.max_iterations >= 1 && c.run.max_iterations <= INT64_C(1000000000000),
          "run.max_iterations");
  require(!c.run.has_target || std::isfinite(c.run.target_fitness), "run.target_fitness");
  require(std::isfinite(c.run.time_limit) && c.run.time_limit >= 0, "run.time_limit");
  require(std::isfinite(c.run.watchdog) && c.run.watchdog >= 0, "run.watchdog");

  require(o.dimensions >= 1 && o.dimensions <= IPSO_MAX_DIMENSIONS, "objective.dimensions");
  require(o.lower && o.upper, "objective bounds allocated");
  for (int d = 0; d < o.dimensions; d++) {
    require(std::isfinite(o.lower[d]) && std::isfinite(o.upper[d]), "bounds finite");
    require(o.lower[d] < o.upper[d], "lower < upper");
    /* The swarm is placed at lower + r * (upper - lower) and its velocity
     * clamped to a fraction of upper - lower: the range must be finite. */
    require(std::isfinite(o.upper[d] - o.lower[d]), "upper - lower finite");
  }
  require(o.goal == IPSO_MINIMIZE || o.goal == IPSO_MAXIMIZE, "objective.goal");
  require(o.nparams >= 0 && o.nparams <= IPSO_MAX_PARAMS, "objective.params count");
  for (int p = 0; p < o.nparams; p++) {
    const ipso_param &q = o.params[p];
    require(terminated(q.name, sizeof q.name) && q.name[0] != '\0', "parameter name");
    require(q.len >= 1 && q.values, "parameter values");
    require(q.is_array || q.len == 1, "scalar parameter has one value");
    for (int64_t i = 0; i < q.len; i++) require(std::isfinite(q.values[i]), "parameter finite");
  }

  const ipso_swarm_config &w = c.swarm;
  require(w.particles >= 1 && w.particles <= IPSO_MAX_PARTICLES, "swarm.particles");
  require(w.particles * o.dimensions <= IPSO_MAX_ELEMENTS, "particles * dimensions");
  require(w.inertia >= 0 && w.inertia <= 1, "swarm.inertia");
  require(w.cognitive >= 0 && w.cognitive <= 4, "swarm.cognitive");
  require(w.social >= 0 && w.social <= 4, "swarm.social");
  require(w.nclamps >= 1 && w.nclamps <= IPSO_MAX_CLAMPS, "swarm.velocity_clamp count");
  for (int i = 0; i < w.nclamps; i++)
    require(w.velocity_clamp[i] > 0 && w.velocity_clamp[i] <= 1, "swarm.velocity_clamp");
  require(w.kernel >= IPSO_KERNEL_QUEUE_LOCK && w.kernel <= IPSO_KERNEL_REDUCTION, "swarm.kernel");
  require(w.sync == IPSO_SYNC_STRICT || w.sync == IPSO_SYNC_RELAXED, "swarm.sync");
  require(w.sync == IPSO_SYNC_STRICT || w.kernel == IPSO_KERNEL_QUEUE_LOCK,
          "relaxed only with queue_lock");
  require(w.topology == IPSO_SWARM_GLOBAL || w.topology == IPSO_SWARM_RING ||
              w.topology == IPSO_SWARM_CLPSO || w.topology == IPSO_SWARM_MEAN ||
              w.topology == IPSO_SWARM_MIXED,
          "swarm.topology");
  require((w.topology != IPSO_SWARM_RING && w.topology != IPSO_SWARM_MIXED) ||
              (w.neighbours >= 1 && 2 * static_cast<int64_t>(w.neighbours) + 1 <= w.particles),
          "swarm.neighbours: 2k + 1 <= particles on a ring");
  require((w.topology != IPSO_SWARM_MEAN && w.topology != IPSO_SWARM_MIXED) ||
              w.particles <= IPSO_MEAN_MAX_PARTICLES,
          "swarm.particles: the mean takes at most IPSO_MEAN_MAX_PARTICLES");
  require(w.topology != IPSO_SWARM_CLPSO || (w.refresh >= 1 && w.particles >= 2),
          "swarm.refresh >= 1 and at least 2 particles with clpso");
  require(!w.has_inertia_end || (w.inertia_end >= 0 && w.inertia_end <= 1), "swarm.inertia_end");

  const ipso_migration_config &m = c.migration;
  require(m.interval >= 0 && m.migrants >= 1, "migration");
  require(m.topology == IPSO_TOPOLOGY_RING || m.topology == IPSO_TOPOLOGY_BIDIRECTIONAL_RING,
          "migration.topology");
  require(m.probability > 0 && m.probability <= 1, "migration.probability");
  require(m.select == IPSO_SELECT_BEST || m.select == IPSO_SELECT_RANDOM, "migration.select");
  require(m.policy == IPSO_POLICY_REPLACE_WORST || m.policy == IPSO_POLICY_REPLACE_RANDOM,
          "migration.policy");

  const ipso_output_config &u = c.output;
  require(u.history_interval >= 0 && u.snapshot_interval >= 0 && u.checkpoint_interval >= 0,
          "output intervals");
  require(std::isfinite(u.checkpoint_seconds) && u.checkpoint_seconds >= 0,
          "output.checkpoint_interval seconds");
  require(u.checkpoint[0] == '\0' || std::strcmp(u.checkpoint, c.run.output) != 0,
          "checkpoint differs from output");
  require(u.progress >= IPSO_PROGRESS_AUTO && u.progress <= IPSO_PROGRESS_OFF, "output.progress");
  require(c.text != nullptr, "resolved text");
}

/* The resolved text is a config that resolves to itself (what --dry-run
 * prints can be run as it is, and what rank 0 sends the other ranks). */
void check_fixed_point(const ipso_config &c, int ranks)
{
  ipso_config again;
  int rc = config_load_text(c.text, "fuzz.toml", 0, nullptr, ranks, &again);
  require(rc == IPSO_OK, "the resolved text is refused");
  require(std::strcmp(again.text, c.text) == 0, "the resolved text resolves differently");
  config_free(&again);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  std::vector<std::string> pieces(1);
  for (size_t i = 0; i < size; i++) {
    if (data[i] == '\0') {
      if (pieces.size() > kMaxOverrides) break;
      pieces.emplace_back();
    } else {
      pieces.back() += static_cast<char>(data[i]);
    }
  }
  std::vector<char *> overrides;
  for (size_t i = 1; i < pieces.size(); i++) overrides.push_back(pieces[i].data());
  int ranks = size > 0 ? 1 + data[size - 1] % 8 : 1;

  ipso_config cfg;
  int rc = config_load_text(pieces[0].c_str(), "fuzz.toml", static_cast<int>(overrides.size()),
                            overrides.data(), ranks, &cfg);
  require(rc == IPSO_OK || rc == IPSO_ERR_USAGE, "config_load_text returned neither 0 nor 2");
  if (rc != IPSO_OK) {
    require(cfg.text == nullptr && cfg.objective.lower == nullptr, "a refused config owns memory");
    return 0;
  }
  check_ranges(cfg);
  require(cfg.run.islands == 0 || (cfg.run.islands >= 1 && cfg.run.islands % ranks == 0),
          "run.islands is not a multiple of the ranks");
  check_fixed_point(cfg, ranks);
  config_free(&cfg);
  return 0;
}

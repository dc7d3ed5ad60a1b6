/* The config's release, durations and the config spellings of its enums. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

/* Frees what CFG owns and zeroes it, so a second call is harmless. */
void config_free(struct ipso_config *cfg)
{
  if (!cfg) return;
  free(cfg->objective.lower);
  free(cfg->objective.upper);
  for (int i = 0; i < IPSO_MAX_PARAMS; i++) free(cfg->objective.params[i].values);
  free(cfg->text);
  memset(cfg, 0, sizeof *cfg);
}

/* The value of the N decimal digits at S, or -1 if one is not a digit. */
static double parse_digits(const char *s, size_t n)
{
  double v = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

/* Hours beyond this (about 114,000 years) are refused, so that seconds stay
 * exact integers in a double and print back as they were read. */
#define HMS_MAX_HOURS 1e9

/* "HH:MM:SS" (any number of hour digits, minutes and seconds 00-59) in seconds. */
double config_parse_hms(const char *s)
{
  if (!s) return -1;
  size_t n = strlen(s);
  /* H...H:MM:SS with at least one hour digit. */
  if (n < 7 || s[n - 3] != ':' || s[n - 6] != ':') return -1;
  double h = parse_digits(s, n - 6);
  double m = parse_digits(s + n - 5, 2);
  double sec = parse_digits(s + n - 2, 2);
  if (h < 0 || m < 0 || sec < 0 || m > 59 || sec > 59 || h > HMS_MAX_HOURS) return -1;
  return h * 3600 + m * 60 + sec;
}

/* NAMES[V], or "unknown" for a V outside the N names. */
static const char *name_of(int v, const char *const *names, int n)
{
  return v >= 0 && v < n ? names[v] : "unknown";
}

/* The config spelling of each value of an enum, in the enum's order. */
#define ENUM_NAMES(fn, type, ...)                                                                  \
  const char *fn(enum type v)                                                                      \
  {                                                                                                \
    static const char *const names[] = {__VA_ARGS__};                                              \
    return name_of((int)v, names, (int)(sizeof names / sizeof *names));                            \
  }

ENUM_NAMES(config_backend_name, ipso_backend_kind, "auto", "gpu", "cpu")
ENUM_NAMES(config_precision_name, ipso_precision, "double", "float")
ENUM_NAMES(config_kernel_name, ipso_kernel, "queue_lock", "queue", "reduction")
ENUM_NAMES(config_sync_name, ipso_sync, "strict", "relaxed")
ENUM_NAMES(config_swarm_topology_name, ipso_swarm_topology, "global", "ring", "clpso")
ENUM_NAMES(config_goal_name, ipso_goal, "minimize", "maximize")
ENUM_NAMES(config_topology_name, ipso_topology, "ring", "bidirectional_ring")
ENUM_NAMES(config_select_name, ipso_select, "best", "random")
ENUM_NAMES(config_policy_name, ipso_policy, "replace_worst", "replace_random")
ENUM_NAMES(config_progress_name, ipso_progress, "auto", "lines", "off")

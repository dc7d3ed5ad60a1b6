/* The config as one byte buffer (for MPI_Bcast between ranks of one build),
 * its release, durations and the config spellings of its enums. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "log.h"

#define PACK_MAGIC UINT64_C(0x4950534f434f4e46) /* "IPSOCONF" */

/* What follows the struct in a packed buffer, in this order: lower, upper,
 * the values of each parameter, the text with its NUL. */
struct pack_header {
  uint64_t magic;
  uint64_t struct_size;
  uint64_t n_lower;
  uint64_t n_upper;
  uint64_t n_values[IPSO_MAX_PARAMS];
  uint64_t text_size; /* bytes including the NUL; 0: no text */
  uint64_t total;     /* bytes of the whole buffer */
};

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

/* The number of values parameter I of CFG carries (0 if it has none). */
static uint64_t param_values(const struct ipso_config *cfg, int i)
{
  const struct ipso_param *p = &cfg->objective.params[i];
  return i < cfg->objective.nparams && p->values && p->len > 0 ? (uint64_t)p->len : 0;
}

/* Appends N bytes of SRC at *AT and advances it. */
static void put(unsigned char **at, const void *src, size_t n)
{
  if (n) memcpy(*at, src, n);
  *at += n;
}

/* Packs CFG with its arrays and text into one malloc'd buffer *BUF of *LEN bytes. */
int config_pack(const struct ipso_config *cfg, void **buf, size_t *len)
{
  struct pack_header h;
  memset(&h, 0, sizeof h);
  h.magic = PACK_MAGIC;
  h.struct_size = sizeof *cfg;
  int dims = cfg->objective.dimensions > 0 ? cfg->objective.dimensions : 0;
  h.n_lower = cfg->objective.lower ? (uint64_t)dims : 0;
  h.n_upper = cfg->objective.upper ? (uint64_t)dims : 0;
  h.text_size = cfg->text ? strlen(cfg->text) + 1 : 0;
  uint64_t doubles = h.n_lower + h.n_upper;
  for (int i = 0; i < IPSO_MAX_PARAMS; i++) {
    h.n_values[i] = param_values(cfg, i);
    doubles += h.n_values[i];
  }
  h.total = sizeof h + sizeof *cfg + doubles * sizeof(double) + h.text_size;

  unsigned char *out = malloc(h.total);
  if (!out)
    return IPSO_FAIL("config", "cannot allocate %llu bytes to send the config",
                     (unsigned long long)h.total);
  unsigned char *at = out;
  put(&at, &h, sizeof h);
  /* The struct travels with its pointers cleared: they mean nothing elsewhere. */
  struct ipso_config flat = *cfg;
  flat.objective.lower = NULL;
  flat.objective.upper = NULL;
  for (int i = 0; i < IPSO_MAX_PARAMS; i++) flat.objective.params[i].values = NULL;
  flat.text = NULL;
  put(&at, &flat, sizeof flat);
  put(&at, cfg->objective.lower, h.n_lower * sizeof(double));
  put(&at, cfg->objective.upper, h.n_upper * sizeof(double));
  for (int i = 0; i < IPSO_MAX_PARAMS; i++)
    put(&at, cfg->objective.params[i].values, h.n_values[i] * sizeof(double));
  put(&at, cfg->text, h.text_size);
  *buf = out;
  *len = (size_t)h.total;
  return IPSO_OK;
}

/* A malloc'd copy of the N doubles at *AT (NULL if N is 0), advancing *AT;
 * sets *FAILED if memory runs out. */
static double *take_doubles(const unsigned char **at, uint64_t n, int *failed)
{
  if (n == 0) return NULL;
  double *v = malloc(n * sizeof(double));
  if (!v) {
    *failed = 1;
    return NULL;
  }
  memcpy(v, *at, n * sizeof(double));
  *at += n * sizeof(double);
  return v;
}

/* Rebuilds CFG from a buffer made by config_pack() in the same build. */
int config_unpack(const void *buf, size_t len, struct ipso_config *cfg)
{
  memset(cfg, 0, sizeof *cfg);
  struct pack_header h;
  if (len < sizeof h + sizeof *cfg)
    return IPSO_FAIL("config", "received config of %zu bytes is truncated", len);
  memcpy(&h, buf, sizeof h);
  if (h.magic != PACK_MAGIC || h.struct_size != sizeof *cfg || h.total != len)
    return IPSO_FAIL("config", "received config does not match this build of islandpso");
  /* Every count is bounded by the buffer, so the sum below cannot overflow. */
  uint64_t doubles = h.n_lower + h.n_upper;
  int counts_ok = h.n_lower <= len && h.n_upper <= len && h.text_size <= len;
  for (int i = 0; i < IPSO_MAX_PARAMS; i++) {
    counts_ok = counts_ok && h.n_values[i] <= len;
    doubles += h.n_values[i];
  }
  if (!counts_ok || sizeof h + sizeof *cfg + doubles * sizeof(double) + h.text_size != len)
    return IPSO_FAIL("config", "received config has inconsistent sizes");

  const unsigned char *at = (const unsigned char *)buf + sizeof h;
  memcpy(cfg, at, sizeof *cfg);
  at += sizeof *cfg;
  if (cfg->objective.nparams < 0 || cfg->objective.nparams > IPSO_MAX_PARAMS) {
    memset(cfg, 0, sizeof *cfg);
    return IPSO_FAIL("config", "received config has inconsistent sizes");
  }
  int failed = 0;
  cfg->objective.lower = take_doubles(&at, h.n_lower, &failed);
  cfg->objective.upper = take_doubles(&at, h.n_upper, &failed);
  for (int i = 0; i < IPSO_MAX_PARAMS; i++)
    cfg->objective.params[i].values = take_doubles(&at, h.n_values[i], &failed);
  if (h.text_size > 0) {
    cfg->text = malloc(h.text_size);
    if (cfg->text) {
      memcpy(cfg->text, at, h.text_size);
      cfg->text[h.text_size - 1] = '\0';
    } else {
      failed = 1;
    }
  }
  if (failed) {
    config_free(cfg);
    return IPSO_FAIL("config", "cannot allocate memory for the received config");
  }
  return IPSO_OK;
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

/* The config spelling of backend B. */
const char *config_backend_name(enum ipso_backend_kind b)
{
  switch (b) {
  case IPSO_BACKEND_AUTO:
    return "auto";
  case IPSO_BACKEND_GPU:
    return "gpu";
  case IPSO_BACKEND_CPU:
    return "cpu";
  }
  return "unknown";
}

/* The config spelling of precision P. */
const char *config_precision_name(enum ipso_precision p)
{
  switch (p) {
  case IPSO_DOUBLE:
    return "double";
  case IPSO_FLOAT:
    return "float";
  }
  return "unknown";
}

/* The config spelling of kernel K. */
const char *config_kernel_name(enum ipso_kernel k)
{
  switch (k) {
  case IPSO_KERNEL_QUEUE_LOCK:
    return "queue_lock";
  case IPSO_KERNEL_QUEUE:
    return "queue";
  case IPSO_KERNEL_REDUCTION:
    return "reduction";
  }
  return "unknown";
}

/* The config spelling of sync mode S. */
const char *config_sync_name(enum ipso_sync s)
{
  switch (s) {
  case IPSO_SYNC_STRICT:
    return "strict";
  case IPSO_SYNC_RELAXED:
    return "relaxed";
  }
  return "unknown";
}

/* The config spelling of swarm topology T. */
const char *config_swarm_topology_name(enum ipso_swarm_topology t)
{
  switch (t) {
  case IPSO_SWARM_GLOBAL:
    return "global";
  case IPSO_SWARM_RING:
    return "ring";
  case IPSO_SWARM_CLPSO:
    return "clpso";
  }
  return "unknown";
}

/* The config spelling of goal G. */
const char *config_goal_name(enum ipso_goal g)
{
  switch (g) {
  case IPSO_MINIMIZE:
    return "minimize";
  case IPSO_MAXIMIZE:
    return "maximize";
  }
  return "unknown";
}

/* The config spelling of topology T. */
const char *config_topology_name(enum ipso_topology t)
{
  switch (t) {
  case IPSO_TOPOLOGY_RING:
    return "ring";
  case IPSO_TOPOLOGY_BIDIRECTIONAL_RING:
    return "bidirectional_ring";
  }
  return "unknown";
}

/* The config spelling of migrant selection S. */
const char *config_select_name(enum ipso_select s)
{
  switch (s) {
  case IPSO_SELECT_BEST:
    return "best";
  case IPSO_SELECT_RANDOM:
    return "random";
  }
  return "unknown";
}

/* The config spelling of migration policy P. */
const char *config_policy_name(enum ipso_policy p)
{
  switch (p) {
  case IPSO_POLICY_REPLACE_WORST:
    return "replace_worst";
  case IPSO_POLICY_REPLACE_RANDOM:
    return "replace_random";
  }
  return "unknown";
}

/* The config spelling of progress mode P. */
const char *config_progress_name(enum ipso_progress p)
{
  switch (p) {
  case IPSO_PROGRESS_AUTO:
    return "auto";
  case IPSO_PROGRESS_LINES:
    return "lines";
  case IPSO_PROGRESS_OFF:
    return "off";
  }
  return "unknown";
}

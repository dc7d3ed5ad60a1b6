/* A process alone on its node starts only its own GPU (gpu_visible.h). */
#include "gpu_visible.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

/* A GPU as the driver's information file describes it. */
struct node_gpu {
  char model[96];
  char uuid[80];
  char bus[32];
  int minor;
};

/* The most GPUs of one node considered (more: nothing is restricted). */
#define MAX_NODE_GPUS 64

static struct gpu_visible applied = {.shown = -1, .why = "not decided"};

static const struct gpu_visible_paths system_paths = {"/proc/driver/nvidia/gpus", "/dev",
                                                      "/proc/driver/nvidia/capabilities"};

int gpu_visible_slurm_tasks(const char *spec, int nodeid)
{
  if (!spec || nodeid < 0) return 0;
  const char *s = spec;
  while (*s) {
    char *end;
    long tasks = strtol(s, &end, 10), times = 1;
    if (end == s || tasks < 0) return 0;
    s = end;
    if (strncmp(s, "(x", 2) == 0) {
      times = strtol(s + 2, &end, 10);
      if (end == s + 2 || *end != ')' || times < 1) return 0;
      s = end + 1;
    }
    if (nodeid < times) return (int)tasks;
    nodeid -= (int)times;
    if (*s == ',')
      s++;
    else if (*s)
      return 0;
  }
  return 0;
}

int gpu_visible_local_rank(int *local_rank, int *local_size)
{
  /* The launchers' names for a process's index on its node, and for how
   * many there are; mpirun's own before Slurm's, which a job step's
   * processes inherit from the batch script. */
  static const char *const names[][2] = {
      {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
      {"MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
      {"MV2_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_SIZE"},
      {"PALS_LOCAL_RANKID", "PALS_LOCAL_SIZE"},
      {"SLURM_LOCALID", NULL},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const char *v = getenv(names[i][0]);
    if (!v || !isdigit((unsigned char)v[0])) continue;
    const char *n = names[i][1] ? getenv(names[i][1]) : NULL;
    *local_rank = atoi(v);
    if (n) {
      *local_size = isdigit((unsigned char)n[0]) ? atoi(n) : 0;
    } else {
      const char *node = getenv("SLURM_NODEID");
      *local_size = node && isdigit((unsigned char)node[0])
                        ? gpu_visible_slurm_tasks(getenv("SLURM_STEP_TASKS_PER_NODE"), atoi(node))
                        : 0;
    }
    return 0;
  }
  /* Started by an MPI launcher this does not know: its index is unknown. */
  if (getenv("PMI_RANK") || getenv("PMIX_RANK") || getenv("PMI_SIZE")) return -1;
  *local_rank = 0;
  *local_size = 1;
  return 0;
}

/* The value after "KEY:" on a line of the information file, trimmed. */
static int field(const char *line, const char *key, char *out, size_t n)
{
  size_t k = strlen(key);
  if (strncmp(line, key, k) != 0 || line[k] != ':') return 0;
  const char *v = line + k + 1;
  while (*v == ' ' || *v == '\t') v++;
  size_t len = strcspn(v, "\r\n");
  while (len > 0 && (v[len - 1] == ' ' || v[len - 1] == '\t')) len--;
  if (len >= n) len = n - 1;
  memcpy(out, v, len);
  out[len] = '\0';
  return 1;
}

/* Reads DIR/NAME/information. Returns 1 for a GPU this process may use. */
static int read_gpu(const struct gpu_visible_paths *p, const char *name, struct node_gpu *g)
{
  char path[512], line[256], minor[16] = "", excluded[16] = "";
  snprintf(path, sizeof path, "%s/%s/information", p->gpus, name);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  memset(g, 0, sizeof *g);
  while (fgets(line, sizeof line, f)) {
    field(line, "Model", g->model, sizeof g->model);
    field(line, "GPU UUID", g->uuid, sizeof g->uuid);
    field(line, "Bus Location", g->bus, sizeof g->bus);
    field(line, "Device Minor", minor, sizeof minor);
    field(line, "GPU Excluded", excluded, sizeof excluded);
  }
  fclose(f);
  if (!g->model[0] || strncmp(g->uuid, "GPU-", 4) != 0 || !g->bus[0] ||
      !isdigit((unsigned char)minor[0]))
    return 0;
  if (strcmp(excluded, "Yes") == 0) return 0;
  g->minor = atoi(minor);
  for (char *c = g->bus; *c; c++) *c = (char)tolower((unsigned char)*c);
  /* CUDA shows only the GPUs whose device nodes this process may open (a
   * container has the nodes of its own GPUs only). Checked, not opened:
   * an open would start a GPU that is not kept started. */
  snprintf(path, sizeof path, "%s/nvidia%d", p->dev, g->minor);
  return access(path, R_OK | W_OK) == 0;
}

/* Whether the GPU of MINOR has MIG instances (CUDA then shows those). */
static int has_mig_instances(const struct gpu_visible_paths *p, int minor)
{
  char path[512];
  snprintf(path, sizeof path, "%s/gpu%d/mig", p->caps, minor);
  DIR *d = opendir(path);
  if (!d) return 0;
  int found = 0;
  for (struct dirent *e; !found && (e = readdir(d));) found = strncmp(e->d_name, "gi", 2) == 0;
  closedir(d);
  return found;
}

static int by_bus(const void *a, const void *b)
{
  return strcmp(((const struct node_gpu *)a)->bus, ((const struct node_gpu *)b)->bus);
}

/* The node's usable GPUs in PCI order. Returns their number, or -1 with
 * WHY where they cannot be told apart from here. */
static int node_gpus(const struct gpu_visible_paths *p, struct node_gpu *gpus, char *why, size_t n)
{
  DIR *d = opendir(p->gpus);
  if (!d) {
    snprintf(why, n, "no %s", p->gpus);
    return -1;
  }
  int count = 0, listed = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    if (++listed > MAX_NODE_GPUS) {
      closedir(d);
      snprintf(why, n, "more than %d GPUs", MAX_NODE_GPUS);
      return -1;
    }
    if (read_gpu(p, e->d_name, &gpus[count])) count++;
  }
  closedir(d);
  for (int i = 0; i < count; i++) {
    if (strcmp(gpus[i].model, gpus[0].model) != 0) {
      snprintf(why, n, "GPUs of different models");
      return -1;
    }
    if (has_mig_instances(p, gpus[i].minor)) {
      snprintf(why, n, "MIG instances on %s", gpus[i].bus);
      return -1;
    }
  }
  qsort(gpus, (size_t)count, sizeof *gpus, by_bus);
  return count;
}

int gpu_visible_choose(const char *visible, const struct gpu_visible_paths *paths, int local_rank,
                       struct gpu_visible *out)
{
  const struct gpu_visible_paths *p = paths ? paths : &system_paths;
  memset(out, 0, sizeof *out);
  out->shown = -1;
  if (local_rank < 0) local_rank = 0;
  struct node_gpu gpus[MAX_NODE_GPUS];
  char why[sizeof out->why];
  int count = node_gpus(p, gpus, why, sizeof why);
  if (visible) {
    /* The user's list, in the order CUDA numbers it: its entry for this
     * rank. An index past the node's GPUs (where they are known) would
     * end CUDA's list there, so such a list is left as it is. */
    char entries[MAX_NODE_GPUS][sizeof out->value];
    int n = 0;
    for (const char *s = visible; *s;) {
      size_t len = strcspn(s, ",");
      const char *b = s, *e = s + len;
      while (b < e && isspace((unsigned char)*b)) b++;
      while (e > b && isspace((unsigned char)e[-1])) e--;
      if (e == b || (size_t)(e - b) >= sizeof entries[0] || n == MAX_NODE_GPUS) {
        snprintf(out->why, sizeof out->why, "CUDA_VISIBLE_DEVICES not a plain list");
        return 0;
      }
      memcpy(entries[n], b, (size_t)(e - b));
      entries[n][e - b] = '\0';
      if (count >= 0 && strspn(entries[n], "0123456789") == strlen(entries[n]) &&
          atoi(entries[n]) >= count) {
        snprintf(out->why, sizeof out->why, "CUDA_VISIBLE_DEVICES names GPU %s of %d", entries[n],
                 count);
        return 0;
      }
      n++;
      s += len;
      if (*s == ',') s++;
    }
    if (n < 2) {
      snprintf(out->why, sizeof out->why, "CUDA_VISIBLE_DEVICES has %s", n ? "one GPU" : "none");
      return 0;
    }
    out->shown = local_rank % n;
    out->of = n;
    snprintf(out->value, sizeof out->value, "%s", entries[out->shown]);
    return 1;
  }
  if (count < 0) {
    snprintf(out->why, sizeof out->why, "%s", why);
    return 0;
  }
  if (count < 2) {
    snprintf(out->why, sizeof out->why, "%s", count ? "one GPU" : "no GPU listed");
    return 0;
  }
  out->shown = local_rank % count;
  out->of = count;
  snprintf(out->value, sizeof out->value, "%s", gpus[out->shown].uuid);
  return 1;
}

void gpu_visible_restrict(void)
{
  struct gpu_visible v = {.shown = -1};
  const char *mask = getenv("IPSO_GPU_MASK");
  int local_rank, local_size, always = mask && strcmp(mask, "1") == 0;
  if (mask && mask[0] == '0') {
    snprintf(v.why, sizeof v.why, "IPSO_GPU_MASK=0");
  } else if (gpu_visible_local_rank(&local_rank, &local_size) != 0 || local_size < 1) {
    snprintf(v.why, sizeof v.why, "the ranks on the node unknown");
  } else if (local_size > 1 && !always) {
    /* Ranks of one node open each other's GPU memory for the migrants,
     * and a GPU the process does not see costs more to open and to close
     * than it saves (BENCHMARKS.md). */
    snprintf(v.why, sizeof v.why, "%d ranks on the node", local_size);
  } else if (gpu_visible_choose(getenv("CUDA_VISIBLE_DEVICES"), NULL, local_rank, &v) &&
             setenv("CUDA_VISIBLE_DEVICES", v.value, 1) != 0) {
    log_warn("cannot set CUDA_VISIBLE_DEVICES: %s", strerror(errno));
    snprintf(v.why, sizeof v.why, "setenv failed");
    v.shown = -1;
  }
  applied = v;
}

int gpu_visible_shown(void)
{
  return applied.shown;
}

const char *gpu_visible_value(void)
{
  return applied.shown >= 0 ? applied.value : "";
}

const char *gpu_visible_describe(void)
{
  static char buf[sizeof applied.value + sizeof applied.why + 64];
  if (applied.shown >= 0)
    snprintf(buf, sizeof buf, "visible GPUs: %s (gpu %d of %d)", applied.value, applied.shown,
             applied.of);
  else
    snprintf(buf, sizeof buf, "visible GPUs: all (%s)", applied.why);
  return buf;
}

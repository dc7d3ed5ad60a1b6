/* The host copy of a swarm and the per-dimension constants. */
#include "swarm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "problem.h"

int swarm_state_alloc(struct swarm_state *s, int64_t particles, int dims)
{
  double **a[] = {&s->position, &s->velocity, &s->pbest_position, &s->cost, &s->pbest_cost};
  int ok = 1;
  memset(s, 0, sizeof *s);
  s->particles = particles;
  s->dims = dims;
  for (int i = 0; i < 5; i++) /* positions, then costs */
    ok &= (*a[i] = malloc((size_t)particles * (size_t)(i < 3 ? dims : 1) * sizeof(double))) != 0;
  if (!ok) {
    swarm_state_free(s);
    return IPSO_FAIL("memory", "cannot allocate the host copy of %lld particles x %d dimensions",
                     (long long)particles, dims);
  }
  return IPSO_OK;
}

int swarm_state_alloc_frames(struct swarm_state *s, int islands)
{
  size_t n = (size_t)islands * (size_t)s->dims * (size_t)s->dims;
  if (!(s->frame = malloc(n * sizeof(double))))
    return IPSO_FAIL("memory", "cannot allocate the eigen frames of %d islands of %d dimensions",
                     islands, s->dims);
  return IPSO_OK;
}

void swarm_state_free(struct swarm_state *s)
{
  free(s->position);
  free(s->velocity);
  free(s->pbest_position);
  free(s->cost);
  free(s->pbest_cost);
  free(s->frame);
  memset(s, 0, sizeof *s);
}

int swarm_consts_build(const struct ipso_config *cfg, struct swarm_consts *k)
{
  int D = cfg->objective.dimensions;
  memset(k, 0, sizeof *k);
  k->nclamps = cfg->swarm.nclamps;
  k->lower = malloc((3 + (size_t)k->nclamps) * (size_t)D * sizeof(double));
  if (!k->lower) return IPSO_FAIL("memory", "cannot allocate %d-dimensional bounds", D);
  k->upper = k->lower + D;
  k->span = k->upper + D;
  k->vmax = k->span + D;
  for (int d = 0; d < D; d++) {
    k->lower[d] = cfg->objective.lower[d];
    k->upper[d] = cfg->objective.upper[d];
    k->span[d] = k->upper[d] - k->lower[d];
    for (int r = 0; r < k->nclamps; r++)
      k->vmax[(size_t)r * D + d] = cfg->swarm.velocity_clamp[r] * k->span[d];
  }
  k->param = objective_param_vector(cfg, &k->nparam);
  if (cfg->objective.id == IPSO_OBJ_CEC2017 && !k->param)
    return IPSO_FAIL("objective", "the CEC 2017 data of F%d in %d dimensions is not loaded",
                     cfg->objective.number, D);
  return IPSO_OK;
}

void swarm_consts_free(struct swarm_consts *k)
{
  free(k->lower);
  free(k->param);
  memset(k, 0, sizeof *k);
}

uint32_t swarm_clpso_threshold(int64_t i, int64_t n)
{
  if (n < 2) return 0;
  double pc = 0.05 + 0.45 * (exp(10.0 * (double)i / (double)(n - 1)) - 1.0) / (exp(10.0) - 1.0);
  return (uint32_t)(pc * 4294967296.0);
}

double swarm_host_bytes(const struct ipso_config *cfg, int islands, int cpu, char *why, size_t len)
{
  const double n = (double)islands * (double)cfg->swarm.particles, d = cfg->objective.dimensions;
  const double copy = n * (3 * d + 2) * sizeof(double);
  const double real = cfg->run.precision == IPSO_FLOAT ? sizeof(float) : sizeof(double);
  const int attractors = cfg->swarm.topology != IPSO_SWARM_GLOBAL;
  /* Eigen frames: D x D an island in the checkpoints' buffer and the CPU's
   * swarms (with their update's scratch). */
  const double frames = cfg->swarm.frame != IPSO_FRAME_AXES ? islands * d * d : 0;
  const double gib = 1024.0 * 1024.0 * 1024.0;
  const struct {
    int counts;
    const char *what;
    double bytes;
  } parts[] = {
      {1, "the host copy", copy},
      {cfg->output.checkpoint[0] != '\0', "the checkpoints' buffer", copy + frames * 8},
      {cfg->run.output[0] && cfg->output.snapshot_interval > 0, "the snapshots' buffer", copy},
      {cpu, "the CPU backend's swarms",
       n * ((3 + attractors) * d + 2) * real + frames * (real + 16)},
  };
  double total = 0;
  size_t at = 0;
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
    if (!parts[i].counts) continue;
    total += parts[i].bytes;
    int k = snprintf(why + at, at < len ? len - at : 0, "%s%s %.2f GiB", at ? ", " : "",
                     parts[i].what, parts[i].bytes / gib);
    if (k > 0) at += (size_t)k;
  }
  return total;
}

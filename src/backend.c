/* Backend selection and the host-side helpers every backend shares. */
#include "backend.h"

#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "objective.h"

int swarm_state_alloc(struct swarm_state *s, int64_t particles, int dims)
{
  size_t n = (size_t)particles * (size_t)dims;
  memset(s, 0, sizeof *s);
  s->particles = particles;
  s->dims = dims;
  s->position = malloc(n * sizeof(double));
  s->velocity = malloc(n * sizeof(double));
  s->pbest_position = malloc(n * sizeof(double));
  s->cost = malloc((size_t)particles * sizeof(double));
  s->pbest_cost = malloc((size_t)particles * sizeof(double));
  if (!s->position || !s->velocity || !s->pbest_position || !s->cost || !s->pbest_cost) {
    swarm_state_free(s);
    return IPSO_FAIL("memory", "cannot allocate the host copy of %lld particles x %d dimensions",
                     (long long)particles, dims);
  }
  return IPSO_OK;
}

void swarm_state_free(struct swarm_state *s)
{
  free(s->position);
  free(s->velocity);
  free(s->pbest_position);
  free(s->cost);
  free(s->pbest_cost);
  memset(s, 0, sizeof *s);
}

int swarm_consts_build(const struct ipso_config *cfg, struct swarm_consts *k)
{
  int D = cfg->objective.dimensions;
  memset(k, 0, sizeof *k);
  k->lower = malloc(4 * (size_t)D * sizeof(double));
  if (!k->lower) return IPSO_FAIL("memory", "cannot allocate %d-dimensional bounds", D);
  k->upper = k->lower + D;
  k->span = k->upper + D;
  k->vmax = k->span + D;
  for (int d = 0; d < D; d++) {
    k->lower[d] = cfg->objective.lower[d];
    k->upper[d] = cfg->objective.upper[d];
    k->span[d] = k->upper[d] - k->lower[d];
    k->vmax[d] = cfg->swarm.velocity_clamp * k->span[d];
  }
  k->param = objective_param_vector(cfg);
  return IPSO_OK;
}

void swarm_consts_free(struct swarm_consts *k)
{
  free(k->lower);
  free(k->param);
  memset(k, 0, sizeof *k);
}

int backend_gpu_count(void)
{
#ifdef IPSO_HAVE_CUDA
  return gpu_device_count();
#else
  return 0;
#endif
}

int backend_create(const struct swarm_setup *setup, struct backend *b)
{
  enum ipso_backend_kind kind = setup->cfg->run.backend;
  memset(b, 0, sizeof *b);
  if (kind == IPSO_BACKEND_CPU) return backend_cpu_create(setup, b);
#ifdef IPSO_HAVE_CUDA
  if (backend_gpu_count() > 0) return backend_gpu_create(setup, b);
  if (kind == IPSO_BACKEND_GPU)
    return IPSO_FAIL("gpu", "backend = \"gpu\" but no usable CUDA device is visible (%s)",
                     gpu_unavailable_reason());
#else
  if (kind == IPSO_BACKEND_GPU)
    return IPSO_FAIL("gpu", "backend = \"gpu\" but this islandpso was built without CUDA");
#endif
  if (setup->island == 0) log_info("islandpso: no GPU available; running on the CPU backend");
  return backend_cpu_create(setup, b);
}

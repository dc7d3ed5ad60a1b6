/* The backend factory: the only file that names both backends. */
#include "solver.h"

#include <string.h>

#include "backend_cpu.h"
#include "check.h"
#ifdef IPSO_HAVE_CUDA
#include "backend_gpu.h"
#endif

int backend_gpu_count(void)
{
#ifdef IPSO_HAVE_CUDA
  return gpu_device_count();
#else
  return 0;
#endif
}

void backend_end(struct backend *b)
{
  if (!b->ops) return;
  (b->ops->device ? b->ops->device->end : b->ops->destroy)(b);
  b->ops = NULL;
}

void backend_share_cores(int ranks_on_node)
{
  backend_cpu_threads(ranks_on_node);
}

int backend_create(const struct swarm_setup *setup, int evaluate, struct backend *b)
{
  enum ipso_backend_kind kind = setup->cfg->run.backend;
  memset(b, 0, sizeof *b);
  if (kind == IPSO_BACKEND_CPU) return backend_cpu_create(setup, b);
#ifdef IPSO_HAVE_CUDA
  struct gpu_overrides o = {.evaluate = evaluate};
  if (backend_gpu_count() > 0) return backend_gpu_create_with(setup, &o, b);
  if (kind == IPSO_BACKEND_GPU)
    return IPSO_FAIL("gpu", "backend = \"gpu\" but no usable CUDA device is visible (%s)",
                     gpu_unavailable_reason());
#else
  (void)evaluate;
  if (kind == IPSO_BACKEND_GPU)
    return IPSO_FAIL("gpu", "backend = \"gpu\" but this islandpso was built without CUDA");
#endif
  if (setup->island == 0) log_info("islandpso: no GPU available; running on the CPU backend");
  return backend_cpu_create(setup, b);
}

/* The backend factory: the only file that names both backends. */
#include "backend.h"

#include <stdio.h>
#include <string.h>

#include "backend_cpu.h"
#include "check.h"
#include "gpu_visible.h"
#include "log.h"
#ifdef IPSO_HAVE_CUDA
#include "backend_gpu.h"
#endif

/* Where the GPU this rank was given (gpu_visible.h) turned out unusable:
 * what was done, and how to undo it. */
static const char *narrowed(void)
{
  static char buf[320];
  buf[0] = '\0';
  if (gpu_visible_shown() >= 0)
    snprintf(buf, sizeof buf,
             "; islandpso set CUDA_VISIBLE_DEVICES=%s for this rank, IPSO_GPU_MASK=0 leaves it "
             "as it is",
             gpu_visible_value());
  return buf;
}

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
  (b->ops->end ? b->ops->end : b->ops->destroy)(b);
  b->ops = NULL;
}

void backend_share_cores(int ranks_on_node)
{
  backend_cpu_threads(ranks_on_node);
}

int backend_create(const struct swarm_setup *setup, struct backend *b)
{
  enum ipso_backend_kind kind = setup->cfg->run.backend;
  memset(b, 0, sizeof *b);
  if (kind == IPSO_BACKEND_CPU) return backend_cpu_create(setup, b);
#ifdef IPSO_HAVE_CUDA
  if (backend_gpu_count() > 0) return backend_gpu_create(setup, b);
  if (kind == IPSO_BACKEND_GPU)
    return IPSO_FAIL("gpu", "backend = \"gpu\" but no usable CUDA device is visible (%s)%s",
                     gpu_unavailable_reason(), narrowed());
#else
  if (kind == IPSO_BACKEND_GPU)
    return IPSO_FAIL("gpu", "backend = \"gpu\" but this islandpso was built without CUDA");
#endif
  if (setup->island == 0)
    log_info("islandpso: no GPU available%s; running on the CPU backend", narrowed());
  return backend_cpu_create(setup, b);
}

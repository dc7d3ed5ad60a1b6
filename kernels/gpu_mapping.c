/* The thread mapping and the kernel specialisation. */
#include "gpu_plan.h"

#include <stdio.h>
#include <stdlib.h>

#include "objective.h"

/* Chunks per thread at most, before more threads share a particle: each
 * chunk keeps V coordinates in registers until the personal best is known. */
#define MAX_CHUNKS 8

/* The least power of two >= N. */
static int pow2_at_least(int n)
{
  int p = 1;
  while (p < n) p *= 2;
  return p;
}

void gpu_mapping_choose(int dims, int fl, int whole_row, struct gpu_mapping *m)
{
  int V = dims == 1 ? 1 : (fl ? 4 : 2);
  while (V > dims) V /= 2;
  int lanes = (dims + V - 1) / V; /* threads that one chunk would need */
  int G;
  if (whole_row) {
    /* The whole row on one thread, unless it is too long to keep. */
    G = 1;
    while ((lanes + G - 1) / G > 2 * MAX_CHUNKS && G < 1024) G *= 2;
  } else {
    /* About two chunks per thread, at most 8 threads per particle (fewer
     * shuffles, more independent loads per thread); more for long rows. */
    G = pow2_at_least((lanes + 1) / 2);
    if (G > 8) G = 8;
    while ((lanes + G - 1) / G > MAX_CHUNKS && G < 1024) G *= 2;
  }
  m->evaluate = 0;
  m->vec = V;
  m->pitch = (dims + V - 1) / V * V;
  m->spec_cb = m->spec_threads = m->spec_ppt = m->spec_win = 0;
  m->group = G;
  m->block = G > 256 ? G : 256;
}

void gpu_mapping_spec(struct gpu_mapping *m, int dims, long long particles, int cb)
{
  m->spec_cb = m->spec_threads = m->spec_ppt = m->spec_win = 0;
  if (m->group != 1 || dims > 4 || particles < 1 || (cb != 2 && cb != 4 && cb != 8)) return;
  /* One particle per thread: the only shape the GPU tests compare bit for
   * bit (the kernel takes IPSO_SPEC_PPT > 1 too). */
  long long threads = ((particles + cb - 1) / cb + 31) / 32 * 32;
  if (threads > 992) return;
  m->spec_cb = cb;
  m->spec_threads = (int)threads;
  m->spec_ppt = 1;
}

char *gpu_kernel_defines(const struct ipso_config *cfg, const struct gpu_plan *p,
                         const struct swarm_consts *k)
{
  const struct objective_info *info = objective_get(cfg->objective.id);
  const struct gpu_mapping *m = &p->map;
  int D = p->dims, user = cfg->objective.id == IPSO_OBJ_USER, uniform = 1;
  for (int d = 1; d < D; d++)
    if (k->lower[d] != k->lower[0] || k->upper[d] != k->upper[0]) uniform = 0;
  size_t cap = 2048;
  char *s = malloc(cap);
  if (!s) return NULL;
  int n = snprintf(
      s, cap,
      "#define IPSO_REAL %s\n#define IPSO_D %d\n#define IPSO_PITCH %d\n"
      "#define IPSO_G %d\n#define IPSO_V %d\n#define IPSO_BLOCK %d\n"
      "#define IPSO_SIGN %d\n#define IPSO_OBJ %s\n#define IPSO_ACC1 %d\n"
      "#define IPSO_NEEDS_NEXT %d\n#define IPSO_USER %d\n#define IPSO_USER_SEPARABLE %d\n"
      "#define IPSO_RELAXED %d\n#define IPSO_UNIFORM %d\n#define IPSO_RING %d\n"
      "#define IPSO_RING_K %d\n#define IPSO_CLPSO %d\n#define IPSO_CLPSO_REFRESH %d\n"
      "#define IPSO_INERTIA_END %d\n#define IPSO_DEAL %d\n#define IPSO_SPEC_CB %d\n"
      "#define IPSO_SPEC_THREADS %d\n#define IPSO_SPEC_PPT %d\n#define IPSO_SPEC_WIN %d\n"
      "#define IPSO_CEC2017 %d\n#define IPSO_VARIANT %d\n#define IPSO_EVALUATE %d\n"
      "#define IPSO_NCLAMP %d\n#define IPSO_MIGRATES %d\n#define IPSO_FRAME %d\n"
      "#define IPSO_FRAME_RIDGE %a\n#define IPSO_MEAN %d\n#define IPSO_MEAN_MAX_PARTICLES %d\n",
      cfg->run.precision == IPSO_FLOAT ? "float" : "double", D, m->pitch, m->group, m->vec,
      m->block, cfg->objective.goal == IPSO_MAXIMIZE ? -1 : 1, user ? "user" : info->name,
      user ? 0 : info->acc1, user ? 0 : info->needs_next, user, user && cfg->objective.separable,
      p->relaxed, uniform, p->ring, p->neighbours, p->clpso, p->clpso ? p->refresh : 1,
      cfg->swarm.has_inertia_end, m->deal, m->spec_cb, m->spec_threads, m->spec_ppt, m->spec_win,
      cfg->objective.id == IPSO_OBJ_CEC2017, (int)p->variant, m->evaluate, k->nclamps, m->migrates,
      (int)cfg->swarm.frame, IPSO_FRAME_RIDGE, p->mean, IPSO_MEAN_MAX_PARTICLES);
  /* The inertia schedule's ends and uniform bounds as exact hexadecimal
   * literals (the kernel computes and rounds as the host does). */
  if (cfg->swarm.has_inertia_end)
    n += snprintf(s + n, cap - (size_t)n,
                  "#define IPSO_W0 %a\n#define IPSO_W1 %a\n#define IPSO_TMAX %lldLL\n",
                  cfg->swarm.inertia, cfg->swarm.inertia_end, (long long)cfg->run.max_iterations);
  if (uniform)
    snprintf(s + n, cap - (size_t)n,
             "#define IPSO_LO %a\n#define IPSO_HI %a\n#define IPSO_SPAN %a\n#define IPSO_VMAX %a\n",
             k->lower[0], k->upper[0], k->span[0], k->vmax[0]);
  return s;
}

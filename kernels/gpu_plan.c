/* The launch plan: mapping, launch mode and PDL, decided once. */
#include "gpu_plan.h"

#include <stdio.h>
#include <string.h>

#include "gpu_abi.h"
#include "objective.h"

/* A single strict island of at least this many particles (rows of one
 * thread) runs in the speculative cluster kernel (BENCHMARKS.md). */
#define SPEC_MIN_PARTICLES 1536
/* At most this many particle elements of an island in the speculative
 * kernel (its registers and its window's local memory). */
#define SPEC_MAX_ELEMENTS 2048
/* The speculative kernel's longest window: half the local memory of 64
 * for little speed (BENCHMARKS.md). */
#define SPEC_WINDOW 32

void gpu_plan_mapping(const struct ipso_config *cfg, const struct gpu_overrides *o, int islands,
                      struct gpu_plan *p)
{
  memset(p, 0, sizeof *p);
  p->overrides = *o;
  p->islands = islands > 0 ? islands : 1;
  p->dims = cfg->objective.dimensions;
  p->particles = cfg->swarm.particles;
  p->relaxed = cfg->swarm.sync == IPSO_SYNC_RELAXED;
  p->frame = cfg->swarm.frame != IPSO_FRAME_AXES;
  p->ring = cfg->swarm.topology == IPSO_SWARM_RING || cfg->swarm.topology == IPSO_SWARM_MIXED;
  p->mean = cfg->swarm.topology == IPSO_SWARM_MEAN    ? 1
            : cfg->swarm.topology == IPSO_SWARM_MIXED ? 2
                                                      : 0;
  p->neighbours = p->ring ? cfg->swarm.neighbours : 0;
  p->clpso = cfg->swarm.topology == IPSO_SWARM_CLPSO;
  p->refresh = p->clpso ? cfg->swarm.refresh : 0;
  p->variant = cfg->swarm.kernel == IPSO_KERNEL_QUEUE_LOCK ? GPU_QUEUE_LOCK
               : cfg->swarm.kernel == IPSO_KERNEL_QUEUE    ? GPU_QUEUE
                                                           : GPU_REDUCTION;
  gpu_mapping_choose(p->dims, cfg->run.precision == IPSO_FLOAT,
                     (cfg->objective.id == IPSO_OBJ_USER && !cfg->objective.separable) ||
                         cfg->objective.id == IPSO_OBJ_CEC2017,
                     &p->map);
  /* The speculative kernel for strict queue-lock global islands whose
   * terms take one coordinate each: where asked, or for one large island. */
  const struct objective_info *info = objective_get(cfg->objective.id);
  if (!p->relaxed && !p->ring && !p->clpso && !p->mean && !p->frame &&
      p->variant == GPU_QUEUE_LOCK && o->spec >= 0 && cfg->objective.id != IPSO_OBJ_USER &&
      cfg->objective.id != IPSO_OBJ_CEC2017 && !info->needs_next &&
      p->particles * p->map.pitch <= SPEC_MAX_ELEMENTS &&
      (o->spec > 0 || (p->islands == 1 && p->particles >= SPEC_MIN_PARTICLES)))
    gpu_mapping_spec(&p->map, p->dims, p->particles, o->spec > 0 ? o->spec : GPU_PLAN_MAX_CLUSTER);
  if (p->map.spec_cb > 0) p->map.spec_win = SPEC_WINDOW;
  /* Dealing the blocks out helps global islands, not a ring's (BENCHMARKS.md). */
  p->map.deal = p->islands > 1 && !p->ring && !p->clpso && !p->mean;
  long long ppb = gpu_mapping_ppb(&p->map);
  p->blocks = (int)((p->particles + ppb - 1) / ppb);
}

/* A ring or clpso needs complete personal bests, which only a kernel
 * boundary gives: one launch per iteration, as for several islands. */
int gpu_plan_relaxed_possible(const struct gpu_plan *p)
{
  return p->relaxed && p->variant == GPU_QUEUE_LOCK && p->dims <= IPSO_RESIDENT_MAX_D &&
         !p->frame && !p->ring && !p->clpso && !p->mean && p->islands == 1;
}

void gpu_plan_launch(struct gpu_plan *p, const struct gpu_device_facts *dev)
{
  const struct gpu_overrides *o = &p->overrides;
  p->pdl = dev->major >= 9 && !o->no_pdl;
  p->mode = GPU_MODE_STREAMING;
  p->res_blocks = 0;
  if (o->streaming) return;
  if (p->map.spec_cb > 0 && dev->major >= 9 && !dev->spec_refused &&
      (o->spec > 0 || p->islands * p->map.spec_cb <= dev->multiprocessors)) {
    p->mode = GPU_MODE_SPEC;
    p->res_blocks = p->map.spec_cb;
    return;
  }
  int resident = dev->per_sm * dev->multiprocessors;
  if (gpu_plan_relaxed_possible(p) && resident >= 1) {
    p->mode = GPU_MODE_RELAXED;
    p->res_blocks = p->blocks < resident ? p->blocks : resident;
    return;
  }
  /* Several global islands launched once per iteration use programmatic
   * dependent launch only where the step's grid is more than one wave of the
   * GPU: with fewer blocks it was slower (BENCHMARKS.md). The cases not
   * measured keep it: ring, clpso, relaxed, queue and reduction. */
  if (p->islands >= 2 && !p->ring && !p->clpso && !p->mean && !p->relaxed &&
      p->variant == GPU_QUEUE_LOCK && dev->per_sm_step >= 1 &&
      (long long)p->blocks * p->islands <= (long long)dev->per_sm_step * dev->multiprocessors)
    p->pdl = 0;
}

const char *gpu_plan_mode_name(const struct gpu_plan *p)
{
  static const char *names[] = {"one launch per iteration", "grid-resident, relaxed",
                                "cluster-speculative"};
  if (p->mean) return "one launch per iteration with the mean kernel";
  if (p->ring) return "one launch per iteration with the lbest kernel";
  if (p->clpso) return "one launch per iteration with the exemplar kernel";
  return names[p->mode];
}

const char *gpu_plan_describe(const struct gpu_plan *p, char *buf, size_t n)
{
  char win[48] = "";
  if (p->mode == GPU_MODE_SPEC)
    snprintf(win, sizeof win, " (windows of up to %d iterations)", p->map.spec_win);
  if (p->islands > 1)
    snprintf(buf, n, "%d islands together, %s%s%s", p->islands, gpu_plan_mode_name(p),
             p->pdl && p->mode == GPU_MODE_STREAMING ? " (PDL)" : "", win);
  else
    snprintf(buf, n, "%s%s", gpu_plan_mode_name(p), win);
  return buf;
}

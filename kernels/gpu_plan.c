/* The launch plan: mapping, launch mode, registers and PDL, decided once. */
#include "gpu_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_abi.h"
#include "objective.h"

/* Strict swarms up to this many particle-dimensions run grid-resident: the
 * grid barrier costs less than a launch while an iteration is short. */
#define GRID_RESIDENT_MAX_ELEMENTS (1 << 22)
/* Strict islands up to this many particle-dimensions run in one block each
 * when they fit one (gpu_mapping_block): one multiprocessor's issue rate
 * against a cluster's or a grid's barrier per iteration (an estimate, to be
 * measured: 2,048 1-D particles are ~1,150 issue cycles of each scheduler
 * per iteration by the instructions ptxas emits, ~0.6 us; the
 * cluster-resident kernel takes 1.4 us per iteration). */
#define BLOCK_MAX_ELEMENTS 4096
/* A single strict island of at least this many particles (rows of one
 * thread) runs in the speculative cluster kernel. Measured (BENCHMARKS.md):
 * 2,048 1-D particles took 0.68-0.69 us per iteration there (checking
 * every iteration; 0.22 us in windows of up to 32) against 1.02 us in one
 * block, on an H100 and an H200. Its iteration is bound by the
 * latency of the blocks' chains rather than by the particles, while one
 * block's time grows with them; the threshold between the two was an
 * estimate from those two numbers. Measured since (windows of up to 32,
 * 1-D cubic and Rastrigin, H200, BENCHMARKS.md): clusters of 8 are faster
 * than one block from 128 particles up (1.2-1.3x at 128, 3.2-3.5x at 1,024);
 * the threshold stays until the GPU tests run single islands below it in
 * the speculative kernel by default. */
#define SPEC_MIN_PARTICLES 1536
/* The speculative kernel's longest window (0: it checks every iteration).
 * Measured on the 1-D 2,048 (H200, kernel alone): 0.0683 s checking every
 * iteration, 0.0360 s with windows of up to 4, 0.0290 s 8, 0.0242 s 16,
 * 0.0219 s 32, 0.0204 s 64 (BENCHMARKS.md); 32 for half the local memory
 * of 64 (a window's states: (3 D + 1) x 32 reals per particle). */
#define SPEC_WINDOW 32

/* Whether the variable NAME is set and starts with '0'. */
static int env_is_zero(const char *name)
{
  const char *v = getenv(name);
  return v && v[0] == '0';
}

struct gpu_overrides gpu_overrides_from_env(void)
{
  struct gpu_overrides o;
  memset(&o, 0, sizeof o);
  o.no_resident = env_is_zero("IPSO_GPU_RESIDENT");
  o.no_keep = env_is_zero("IPSO_GPU_KEEP");
  o.no_pdl = env_is_zero("IPSO_GPU_PDL");
  const char *pdl = getenv("IPSO_GPU_PDL");
  o.pdl = pdl && pdl[0] == '1';
  o.no_block = env_is_zero("IPSO_GPU_BLOCK");
  const char *sp = getenv("IPSO_GPU_SPEC");
  if (sp && (!strcmp(sp, "0") || !strcmp(sp, "2") || !strcmp(sp, "4") || !strcmp(sp, "8")))
    o.spec = sp[0] == '0' ? -1 : atoi(sp); /* else ignored */
  const char *sw = getenv("IPSO_GPU_SPEC_WIN");
  char *end = NULL;
  long win = sw && *sw ? strtol(sw, &end, 10) : -1;
  if (end && *end == '\0' && win >= 0 && win <= 64)
    o.spec_win = win == 0 ? -1 : (int)win; /* else ignored */
  const char *bt = getenv("IPSO_GPU_BLOCK_THREADS");
  if (bt && (atoi(bt) == 512 || atoi(bt) == 1024)) o.blk_threads = atoi(bt); /* else ignored */
  const char *g = getenv("IPSO_GPU_GROUP");
  if (g && *g) {
    int e = atoi(g);
    if (e >= 1 && e <= 1024 && (e & (e - 1)) == 0) o.group = e; /* else ignored */
  }
  return o;
}

const char *gpu_overrides_describe(const struct gpu_overrides *o, char *buf, size_t n)
{
  snprintf(buf, n, "%s%s%s%s%s", o->no_resident ? " IPSO_GPU_RESIDENT=0" : "",
           o->no_keep ? " IPSO_GPU_KEEP=0" : "", o->no_pdl ? " IPSO_GPU_PDL=0" : "",
           o->pdl ? " IPSO_GPU_PDL=1" : "", o->no_block ? " IPSO_GPU_BLOCK=0" : "");
  if (o->group) {
    size_t used = strlen(buf);
    snprintf(buf + used, n - used, " IPSO_GPU_GROUP=%d", o->group);
  }
  if (o->spec) {
    size_t used = strlen(buf);
    snprintf(buf + used, n - used, " IPSO_GPU_SPEC=%d", o->spec > 0 ? o->spec : 0);
  }
  if (o->spec_win) {
    size_t used = strlen(buf);
    snprintf(buf + used, n - used, " IPSO_GPU_SPEC_WIN=%d", o->spec_win > 0 ? o->spec_win : 0);
  }
  if (o->blk_threads) {
    size_t used = strlen(buf);
    snprintf(buf + used, n - used, " IPSO_GPU_BLOCK_THREADS=%d", o->blk_threads);
  }
  if (buf[0] == ' ') memmove(buf, buf + 1, strlen(buf));
  return buf;
}

void gpu_plan_mapping(const struct ipso_config *cfg, const struct gpu_overrides *o, int islands,
                      struct gpu_plan *p)
{
  memset(p, 0, sizeof *p);
  p->overrides = *o;
  p->islands = islands > 0 ? islands : 1;
  p->dims = cfg->objective.dimensions;
  p->particles = cfg->swarm.particles;
  p->relaxed = cfg->swarm.sync == IPSO_SYNC_RELAXED;
  p->ring = cfg->swarm.topology == IPSO_SWARM_RING;
  p->neighbours = p->ring ? cfg->swarm.neighbours : 0;
  p->clpso = cfg->swarm.topology == IPSO_SWARM_CLPSO;
  p->refresh = p->clpso ? cfg->swarm.refresh : 0;
  p->variant = cfg->swarm.kernel == IPSO_KERNEL_QUEUE_LOCK ? GPU_QUEUE_LOCK
               : cfg->swarm.kernel == IPSO_KERNEL_QUEUE    ? GPU_QUEUE
                                                           : GPU_REDUCTION;
  gpu_mapping_choose(p->dims, cfg->run.precision == IPSO_FLOAT,
                     cfg->objective.id == IPSO_OBJ_USER && !cfg->objective.separable, &p->map);
  if (o->group) gpu_mapping_set_group(&p->map, o->group);
  /* The one-block kernel is compiled whenever the island fits, whatever the
   * overrides, so that both choices share one program. */
  if (!p->relaxed && !p->ring && !p->clpso && p->variant == GPU_QUEUE_LOCK &&
      p->dims <= IPSO_RESIDENT_MAX_D)
    gpu_mapping_block(&p->map, p->dims, p->particles, o->blk_threads);
  /* The speculative kernel beside the one-block kernel (it shares its
   * random factors), for objectives whose terms take one coordinate each:
   * where IPSO_GPU_SPEC asks for it, or for one island large enough. */
  const struct objective_info *info = objective_get(cfg->objective.id);
  if (gpu_plan_block_compiled(p) && o->spec >= 0 && cfg->objective.id != IPSO_OBJ_USER &&
      !info->needs_next &&
      (o->spec > 0 || (p->islands == 1 && p->particles >= SPEC_MIN_PARTICLES && !o->blk_threads)))
    gpu_mapping_spec(&p->map, p->dims, p->particles, o->spec > 0 ? o->spec : GPU_PLAN_MAX_CLUSTER);
  if (p->map.spec_cb > 0)
    p->map.spec_win = o->spec_win < 0 ? 0 : o->spec_win > 0 ? o->spec_win : SPEC_WINDOW;
  /* Measured in BENCHMARKS.md: dealing the blocks out made 64 islands of
   * the global topology 4% faster and the ring's 2.5% slower. */
  p->map.deal = p->islands > 1 && !p->ring && !p->clpso;
  long long ppb = gpu_mapping_ppb(&p->map);
  p->blocks = (int)((p->particles + ppb - 1) / ppb);
  p->mode = GPU_MODE_STREAMING;
}

/* A ring (or clpso) reads every particle's neighbourhood (or exemplar) from
 * complete personal bests, which only a kernel boundary gives (lbest_kernel
 * or exemplar_kernel between the steps): it runs one launch per iteration. Several islands run
 * resident only strict, grid-resident with the state in registers (every block one tile of one
 * island, gpu_plan_launch); otherwise one launch per iteration runs all of
 * them. */
int gpu_plan_resident_possible(const struct gpu_plan *p)
{
  return p->variant == GPU_QUEUE_LOCK && p->dims <= IPSO_RESIDENT_MAX_D && !p->ring && !p->clpso &&
         !p->overrides.no_resident &&
         (p->islands == 1 ||
          (!p->relaxed && !p->overrides.no_keep && gpu_mapping_keep_ok(&p->map, p->dims)));
}

int gpu_plan_block_compiled(const struct gpu_plan *p)
{
  return p->map.blk_threads > 0;
}

/* Several islands of the global topology launched once per iteration use
 * programmatic dependent launch only where the step's grid is more than
 * one wave of the GPU (its blocks more than the multiprocessors hold at
 * once). Measured in BENCHMARKS.md (1,024 particles of 30-D Rastrigin in
 * float per island, 16 blocks each, 5 per multiprocessor on an H100):
 * with it 64 islands were 9-10% faster, 32 were 4-9% slower without
 * migration, 16 the same. Islands measured with it only keep it: a ring's or
 * clpso's (another kernel between the steps), relaxed ones, and those of
 * the queue and reduction variants (two launches per iteration). */
static void plan_island_pdl(struct gpu_plan *p, const struct gpu_device_facts *dev)
{
  if (!p->pdl || p->overrides.pdl || p->islands < 2 || p->mode != GPU_MODE_STREAMING || p->ring ||
      p->clpso || p->relaxed || p->variant != GPU_QUEUE_LOCK || dev->per_sm_step < 1)
    return;
  if ((long long)p->blocks * p->islands <= (long long)dev->per_sm_step * dev->multiprocessors)
    p->pdl = 0;
}

/* The resident grid: every block must fit on the GPU at once. The one-block
 * kernel first, where it may run: its blocks (one per island) never wait
 * for each other, so any number of islands can run in waves. */
void gpu_plan_launch(struct gpu_plan *p, const struct gpu_device_facts *dev)
{
  const struct gpu_overrides *o = &p->overrides;
  p->pdl = dev->major >= 9 && !o->no_pdl;
  p->mode = GPU_MODE_STREAMING;
  p->keep = 0;
  p->res_blocks = 0;
  if (p->map.spec_cb > 0 && dev->major >= 9 && !dev->spec_refused && !o->no_resident &&
      !o->no_block && !o->no_keep &&
      (o->spec > 0 || p->islands * p->map.spec_cb <= dev->multiprocessors)) {
    p->mode = GPU_MODE_SPEC;
    p->keep = 1;
    p->res_blocks = p->map.spec_cb;
    return;
  }
  if (gpu_plan_block_compiled(p) && !o->no_resident && !o->no_block && !o->no_keep &&
      (double)p->particles * p->dims <= BLOCK_MAX_ELEMENTS) {
    p->mode = GPU_MODE_BLOCK;
    p->keep = 1;
    p->res_blocks = 1;
    return;
  }
  if (!gpu_plan_resident_possible(p)) {
    plan_island_pdl(p, dev);
    return;
  }
  if (p->islands > 1) {
    /* The islands' tiles side by side in one cooperative grid, one tile per
     * block, the state in registers: as one island of as many particles
     * would run (below), or one launch per iteration. */
    long long blocks = (long long)p->blocks * p->islands;
    if (blocks <= (long long)dev->per_sm_keep * dev->multiprocessors &&
        (double)p->particles * p->dims * p->islands <= GRID_RESIDENT_MAX_ELEMENTS) {
      p->mode = GPU_MODE_GRID;
      p->keep = 1;
      p->res_blocks = (int)blocks;
    }
    plan_island_pdl(p, dev);
    return;
  }
  int resident = dev->per_sm * dev->multiprocessors;
  if (resident < 1) return;
  if (p->relaxed) {
    p->mode = GPU_MODE_RELAXED;
    p->res_blocks = p->blocks < resident ? p->blocks : resident;
  } else if (p->blocks <= GPU_PLAN_MAX_CLUSTER && dev->major >= 9 && !dev->cluster_refused) {
    p->mode = GPU_MODE_CLUSTER;
    p->res_blocks = p->blocks;
  } else if ((double)p->particles * p->dims <= GRID_RESIDENT_MAX_ELEMENTS) {
    p->mode = GPU_MODE_GRID;
    p->res_blocks = p->blocks < resident ? p->blocks : resident;
  }
  /* The state in registers when every block can have its own tile at once. */
  if (p->mode != GPU_MODE_STREAMING && p->blocks <= dev->per_sm_keep * dev->multiprocessors &&
      !p->overrides.no_keep) {
    p->keep = 1;
    p->res_blocks = p->blocks;
  }
  /* Without the state in registers, a strict grid-resident launch gains
   * nothing over one launch per iteration with programmatic dependent
   * launch, whose overlap costs less than the software grid barrier
   * (measured in BENCHMARKS.md). */
  if (p->mode == GPU_MODE_GRID && !p->keep && p->pdl) p->mode = GPU_MODE_STREAMING;
}

const char *gpu_plan_mode_name(const struct gpu_plan *p)
{
  static const char *names[] = {
      "one launch per iteration", "cluster-resident", "grid-resident",
      "grid-resident, relaxed",   "block-resident",   "cluster-speculative"};
  if (p->ring) return "one launch per iteration with the lbest kernel";
  if (p->clpso) return "one launch per iteration with the exemplar kernel";
  return names[p->mode];
}

const char *gpu_plan_describe(const struct gpu_plan *p, char *buf, size_t n)
{
  char win[48] = "";
  if (p->mode == GPU_MODE_SPEC && p->map.spec_win > 0)
    snprintf(win, sizeof win, " (windows of up to %d iterations)", p->map.spec_win);
  if (p->islands > 1)
    snprintf(buf, n, "%d islands together, %s%s%s", p->islands, gpu_plan_mode_name(p),
             p->pdl && p->mode == GPU_MODE_STREAMING ? " (PDL)" : "", win);
  else
    snprintf(buf, n, "%s%s", gpu_plan_mode_name(p), win);
  return buf;
}

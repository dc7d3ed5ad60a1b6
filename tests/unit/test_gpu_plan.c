/* The launch plan (kernels/gpu_plan.c, plain C, no GPU needed): a single
 * strict queue-lock island of short rows of the global topology runs in the
 * speculative cluster kernel; one relaxed island runs grid-resident; every
 * other case (several islands, a ring, clpso, queue and reduction, long
 * rows) one launch per iteration for all islands, with programmatic
 * dependent launch where the plan's rule keeps it; the device line names
 * the islands that run together. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "gpu_plan.h"

#include "unit_check.h"

/* Blocks per SM of the step kernel, as plan_of's device reports them (0:
 * not asked, as for one island). */
static int step_per_sm;
/* The driver places no cluster of the speculative kernel's shape (a
 * partitioned GPU). */
static int spec_refused;

/* The plan for ISLANDS islands of PARTICLES (DIMS-D OBJECTIVE in
 * PRECISION) on an H100-like device (132 SMs, 8 blocks per SM of the
 * relaxed resident kernel, step_per_sm of the step kernel). */
static struct gpu_plan plan_of(const char *objective, int dims, const char *precision, int islands,
                               int particles, const char *kernel, const char *sync,
                               const char *topology, const struct gpu_overrides *o)
{
  char text[512];
  snprintf(text, sizeof text,
           "[run]\nprecision = \"%s\"\noutput = \"\"\n[objective]\nname = \"%s\"\n"
           "dimensions = %d\n[swarm]\nparticles = %d\nkernel = \"%s\"\nsync = \"%s\"\n"
           "topology = \"%s\"\n",
           precision, objective, dims, particles, kernel, sync, topology);
  struct ipso_config cfg;
  struct gpu_plan p;
  memset(&p, 0, sizeof p);
  if (config_load_text(text, "plan", 0, NULL, 1, &cfg) != IPSO_OK) {
    CHECK(0, "config");
    return p;
  }
  gpu_plan_mapping(&cfg, o, islands, &p);
  struct gpu_device_facts dev = {.major = 9,
                                 .multiprocessors = 132,
                                 .per_sm = 8,
                                 .per_sm_step = step_per_sm,
                                 .spec_refused = spec_refused};
  gpu_plan_launch(&p, &dev);
  config_free(&cfg);
  return p;
}

/* 30-D Rastrigin, float. */
static struct gpu_plan plan(int islands, int particles, const char *kernel, const char *sync,
                            const char *topology, const struct gpu_overrides *o)
{
  return plan_of("rastrigin", 30, "float", islands, particles, kernel, sync, topology, o);
}

/* The speculative kernel: the paper's 1-D 2,048 as 8 blocks of 256 threads,
 * one particle each, in windows of up to 32 iterations; forced for small
 * islands with other clusters; never where a particle takes several
 * threads, its term the next coordinate, the island too large, the driver
 * places no cluster, or for relaxed, a ring, queue or reduction. */
static void check_spec_plans(void)
{
  struct gpu_overrides none, o;
  memset(&none, 0, sizeof none);
  char buf[128];
  struct gpu_plan b =
      plan_of("cubic", 1, "double", 1, 2048, "queue_lock", "strict", "global", &none);
  CHECK(b.mode == GPU_MODE_SPEC && b.map.spec_cb == 8 && b.map.spec_threads == 256 &&
            b.map.spec_ppt == 1 && b.res_blocks == 8 && b.map.spec_win == 32,
        "1-D 2,048: the speculative kernel, 8 blocks of 256 x 1 (mode %d, %d: %d x %d)", b.mode,
        b.map.spec_cb, b.map.spec_threads, b.map.spec_ppt);
  CHECK(!strcmp(gpu_plan_mode_name(&b), "cluster-speculative"), "mode name '%s'",
        gpu_plan_mode_name(&b));
  gpu_plan_describe(&b, buf, sizeof buf);
  CHECK(!strcmp(buf, "cluster-speculative (windows of up to 32 iterations)"), "described '%s'",
        buf);
  o = none;
  o.spec = -1;
  b = plan_of("cubic", 1, "double", 1, 2048, "queue_lock", "strict", "global", &o);
  CHECK(b.mode == GPU_MODE_STREAMING && b.map.spec_cb == 0, "spec -1: one launch per iteration");
  o = none;
  o.spec = 4;
  b = plan_of("cubic", 1, "double", 8, 300, "queue_lock", "strict", "global", &o);
  CHECK(b.mode == GPU_MODE_SPEC && b.map.spec_cb == 4 && b.map.spec_threads == 96,
        "spec 4: 8 islands of 300, clusters of 4 blocks of 96 (mode %d, %d x %d)", b.mode,
        b.map.spec_cb, b.map.spec_threads);
  gpu_plan_describe(&b, buf, sizeof buf);
  CHECK(!strcmp(buf, "8 islands together, cluster-speculative (windows of up to 32 iterations)"),
        "described '%s'", buf);
  o.spec = 2;
  b = plan_of("cubic", 1, "double", 1, 2048, "queue_lock", "strict", "global", &o);
  CHECK(b.mode == GPU_MODE_STREAMING && b.map.spec_cb == 0,
        "spec 2, 1-D 2,048: 1,024 particles a block do not fit one per thread");
  o.spec = 8;
  b = plan_of("rosenbrock", 2, "double", 1, 333, "queue_lock", "strict", "global", &o);
  CHECK(b.mode == GPU_MODE_STREAMING && b.map.spec_cb == 0,
        "spec 8, Rosenbrock (the next coordinate): one launch per iteration");
  b = plan_of("cubic", 1, "double", 1, 1024, "queue_lock", "strict", "global", &none);
  CHECK(b.mode == GPU_MODE_STREAMING && b.map.spec_cb == 0, "1-D 1,024: below the threshold");
  b = plan_of("cubic", 1, "double", 1, 4096, "queue_lock", "strict", "global", &none);
  CHECK(b.mode == GPU_MODE_STREAMING && b.map.spec_cb == 0, "1-D 4,096: too large");
  b = plan_of("cubic", 1, "double", 2, 2048, "queue_lock", "strict", "global", &none);
  CHECK(b.mode == GPU_MODE_STREAMING, "2 islands of 2,048: not by default");
  o = none;
  o.streaming = 1;
  b = plan_of("cubic", 1, "double", 1, 2048, "queue_lock", "strict", "global", &o);
  CHECK(b.mode == GPU_MODE_STREAMING && b.pdl, "streaming: one launch per iteration, PDL");
  /* Where the driver cannot place the cluster (a partitioned GPU), the
   * launch would fail: one launch per iteration instead, forced or not. */
  spec_refused = 1;
  b = plan_of("cubic", 1, "double", 1, 2048, "queue_lock", "strict", "global", &none);
  CHECK(b.mode == GPU_MODE_STREAMING, "no cluster of 8 placed: one launch per iteration");
  o = none;
  o.spec = 8;
  b = plan_of("cubic", 1, "double", 1, 2048, "queue_lock", "strict", "global", &o);
  CHECK(b.mode == GPU_MODE_STREAMING, "no cluster of 8 placed, spec 8: one launch per iteration");
  spec_refused = 0;
  const char *other[][3] = {{"queue_lock", "relaxed", "global"},
                            {"queue_lock", "strict", "ring"},
                            {"queue_lock", "strict", "clpso"},
                            {"queue", "strict", "global"},
                            {"reduction", "strict", "global"}};
  for (int v = 0; v < 5; v++) {
    b = plan_of("cubic", 1, "double", 1, 2048, other[v][0], other[v][1], other[v][2], &none);
    CHECK(b.mode != GPU_MODE_SPEC && b.map.spec_cb == 0, "%s %s %s: no speculative kernel",
          other[v][0], other[v][1], other[v][2]);
  }
}

/* One relaxed island: grid-resident over at most the blocks the GPU holds;
 * several, a ring or clpso: one launch per iteration. */
static void check_relaxed_plans(void)
{
  struct gpu_overrides none, o;
  memset(&none, 0, sizeof none);
  struct gpu_plan p = plan_of("cubic", 1, "double", 1, 65536, "queue_lock", "relaxed", "global",
                              &none);
  CHECK(p.mode == GPU_MODE_RELAXED && p.res_blocks == 256 && p.blocks == 256,
        "1-D 65,536 relaxed: grid-resident over %d blocks (mode %d)", p.res_blocks, p.mode);
  CHECK(!strcmp(gpu_plan_mode_name(&p), "grid-resident, relaxed"), "mode name '%s'",
        gpu_plan_mode_name(&p));
  p = plan_of("cubic", 1, "double", 1, 1 << 20, "queue_lock", "relaxed", "global", &none);
  CHECK(p.mode == GPU_MODE_RELAXED && p.res_blocks == 8 * 132,
        "1-D 2^20 relaxed: as many blocks as the GPU holds (%d)", p.res_blocks);
  o = none;
  o.streaming = 1;
  p = plan_of("cubic", 1, "double", 1, 65536, "queue_lock", "relaxed", "global", &o);
  CHECK(p.mode == GPU_MODE_STREAMING, "streaming: relaxed one launch per iteration");
  const struct {
    int islands;
    const char *kernel, *topology;
  } other[] = {{2, "queue_lock", "global"}, {1, "queue_lock", "ring"}, {1, "queue_lock", "clpso"}};
  for (int v = 0; v < 3; v++) {
    p = plan(other[v].islands, 4096, other[v].kernel, "relaxed", other[v].topology, &none);
    CHECK(p.mode == GPU_MODE_STREAMING && !gpu_plan_relaxed_possible(&p),
          "relaxed %d x %s %s: one launch per iteration", other[v].islands, other[v].kernel,
          other[v].topology);
  }
  p = plan_of("cubic", 120, "double", 1, 32768, "queue_lock", "strict", "global", &none);
  CHECK(p.mode == GPU_MODE_STREAMING && p.pdl, "120-D 32,768 strict: one launch per iteration");
}

/* Programmatic dependent launch for several islands launched once per
 * iteration: only where the step's grid is more than one wave (5 blocks of
 * the step kernel per SM, 132 SMs: 660 blocks); one island, a ring, clpso,
 * relaxed islands and the queue variant keep it; no_pdl never. Islands of
 * 1,024 30-D particles in float are 16 blocks each. */
static void check_island_pdl(void)
{
  struct gpu_overrides none, o;
  memset(&none, 0, sizeof none);
  char buf[128];
  step_per_sm = 5;
  const int islands[] = {17, 32, 41, 42, 64, 128};
  for (int i = 0; i < 6; i++) {
    struct gpu_plan p = plan(islands[i], 1024, "queue_lock", "strict", "global", &none);
    int blocks = p.blocks * islands[i];
    CHECK(p.mode == GPU_MODE_STREAMING && p.blocks == 16 && p.pdl == (blocks > 660),
          "%d islands (%d blocks): mode %d, PDL %d", islands[i], blocks, p.mode, p.pdl);
  }
  struct gpu_plan p = plan(32, 1024, "queue_lock", "strict", "global", &none);
  gpu_plan_describe(&p, buf, sizeof buf);
  CHECK(!strcmp(buf, "32 islands together, one launch per iteration"), "32 x 1,024: '%s'", buf);
  p = plan(64, 1024, "queue_lock", "strict", "global", &none);
  gpu_plan_describe(&p, buf, sizeof buf);
  CHECK(!strcmp(buf, "64 islands together, one launch per iteration (PDL)"), "64 x 1,024: '%s'",
        buf);
  CHECK(p.map.deal, "64 x 1,024 global: the blocks dealt out over the islands");
  o = none;
  o.no_pdl = 1;
  p = plan(64, 1024, "queue_lock", "strict", "global", &o);
  CHECK(!p.pdl, "no_pdl: no PDL for 64 x 1,024");
  p = plan(1, 4096, "queue_lock", "strict", "global", &none);
  CHECK(p.mode == GPU_MODE_STREAMING && p.pdl && !p.map.deal,
        "one island of 4,096: PDL, blocks not dealt out");
  gpu_plan_describe(&p, buf, sizeof buf);
  CHECK(!strcmp(buf, gpu_plan_mode_name(&p)), "one island: the mode alone ('%s')", buf);
  p = plan(32, 1024, "queue_lock", "strict", "ring", &none);
  CHECK(p.pdl && !p.map.deal, "32 ring islands: PDL, blocks not dealt out");
  gpu_plan_describe(&p, buf, sizeof buf);
  CHECK(!strcmp(buf, "32 islands together, one launch per iteration with the lbest kernel (PDL)"),
        "ring device line '%s'", buf);
  p = plan(32, 1024, "queue_lock", "strict", "clpso", &none);
  CHECK(p.pdl && p.clpso && p.refresh == 7, "32 clpso islands: PDL");
  gpu_plan_describe(&p, buf, sizeof buf);
  CHECK(!strcmp(buf, "32 islands together, one launch per iteration with the exemplar kernel "
                     "(PDL)"),
        "clpso device line '%s'", buf);
  p = plan(32, 1024, "queue_lock", "relaxed", "global", &none);
  CHECK(p.pdl && p.mode == GPU_MODE_STREAMING, "32 relaxed islands: one launch per iteration, PDL");
  p = plan(32, 1024, "queue", "strict", "global", &none);
  CHECK(p.pdl, "32 islands of the queue variant: PDL");
  step_per_sm = 0;
  p = plan(32, 1024, "queue_lock", "strict", "global", &none);
  CHECK(p.pdl, "the step's occupancy not known: PDL");
}

int main(void)
{
  check_spec_plans();
  check_relaxed_plans();
  check_island_pdl();
  printf("%s (%d failures)\n", failures ? "FAILED" : "passed", failures);
  return failures ? 1 : 0;
}

/* The launch plan for several islands on one GPU (kernels/gpu_plan.c, plain
 * C, no GPU needed): strict queue-lock islands run grid-resident with the
 * state in registers when all their tiles fit the GPU at once, as one swarm
 * of as many particles would; otherwise, and for relaxed, ring, clpso, queue
 * and reduction, one launch per iteration for all islands; the device line
 * names the islands that run together. One island plans as before.
 * Strict queue-lock islands that fit one block run block-resident, unless
 * an override says otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "gpu_plan.h"

#include "unit_check.h"

/* Blocks per SM of the step kernel and of the resident kernel that keeps
 * the state in registers, as plan_of's device reports them (step 0: not
 * asked, as for one island). */
static int step_per_sm, keep_per_sm = 8;
/* The driver places no cluster of the speculative kernel's shape, or of
 * the cluster-resident kernel's (a partitioned GPU). */
static int spec_refused, cluster_refused;

/* The plan for ISLANDS islands of PARTICLES (DIMS-D OBJECTIVE in
 * PRECISION) on an H100-like device (132 SMs, 8 blocks per SM of the
 * resident kernel, keep_per_sm of the one in registers, step_per_sm of the
 * step kernel). */
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
                                 .per_sm_keep = keep_per_sm,
                                 .per_sm_step = step_per_sm,
                                 .spec_refused = spec_refused,
                                 .cluster_refused = cluster_refused};
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

/* The one-block kernel: strict queue-lock islands that fit one block (the
 * paper's 1-D 2,048 as 8 particles per thread of 256), alone or several;
 * IPSO_GPU_BLOCK=0 gives the cluster kernel back, IPSO_GPU_RESIDENT=0 one
 * launch per iteration, IPSO_GPU_KEEP=0 no state in registers; never for
 * relaxed, a ring, queue or reduction, or an island too large for it. */
static void check_block_plans(void)
{
  struct gpu_overrides none, o;
  memset(&none, 0, sizeof none);
  char buf[128];
  struct gpu_plan b =
      plan_of("cubic", 1, "double", 1, 2048, "queue_lock", "strict", "global", &none);
  CHECK(b.mode == GPU_MODE_SPEC && b.keep && b.map.spec_cb == 8 && b.map.spec_threads == 256 &&
            b.map.spec_ppt == 1 && b.res_blocks == 8 && b.map.blk_threads == 256,
        "1-D 2,048: the speculative kernel, 8 blocks of 256 x 1 (mode %d, %d: %d x %d)", b.mode,
        b.map.spec_cb, b.map.spec_threads, b.map.spec_ppt);
  CHECK(!strcmp(gpu_plan_mode_name(&b), "cluster-speculative"), "mode name '%s'",
        gpu_plan_mode_name(&b));
  /* In windows of up to 32 iterations unless IPSO_GPU_SPEC_WIN says. */
  CHECK(b.map.spec_win == 32, "1-D 2,048: windows of up to %d", b.map.spec_win);
  gpu_plan_describe(&b, buf, sizeof buf);
  CHECK(!strcmp(buf, "cluster-speculative (windows of up to 32 iterations)"), "described '%s'",
        buf);
  o = none;
  o.spec_win = -1;
  b = plan_of("cubic", 1, "double", 1, 2048, "queue_lock", "strict", "global", &o);
  CHECK(b.mode == GPU_MODE_SPEC && b.map.spec_win == 0, "IPSO_GPU_SPEC_WIN=0: window %d",
        b.map.spec_win);
  gpu_overrides_describe(&o, buf, sizeof buf);
  CHECK(!strcmp(buf, "IPSO_GPU_SPEC_WIN=0"), "overrides '%s'", buf);
  /* From the environment: 0 to 64, digits only; anything else ignored. */
  const struct {
    const char *value;
    int win;
  } env[] = {{"0", -1}, {"8", 8}, {"64", 64}, {"65", 0}, {"-1", 0}, {"8x", 0}, {"", 0}, {"abc", 0}};
  for (size_t k = 0; k < sizeof env / sizeof env[0]; k++) {
    setenv("IPSO_GPU_SPEC_WIN", env[k].value, 1);
    struct gpu_overrides from = gpu_overrides_from_env();
    CHECK(from.spec_win == env[k].win, "IPSO_GPU_SPEC_WIN='%s': %d, not %d", env[k].value,
          from.spec_win, env[k].win);
  }
  unsetenv("IPSO_GPU_SPEC_WIN");
  o.spec_win = 8;
  b = plan_of("cubic", 1, "double", 1, 2048, "queue_lock", "strict", "global", &o);
  CHECK(b.mode == GPU_MODE_SPEC && b.map.spec_win == 8, "IPSO_GPU_SPEC_WIN=8: window %d",
        b.map.spec_win);
  o = none;
  o.spec = -1;
  b = plan_of("cubic", 1, "double", 1, 2048, "queue_lock", "strict", "global", &o);
  CHECK(b.mode == GPU_MODE_BLOCK && b.keep && b.map.blk_threads == 256 && b.map.blk_ppt == 8 &&
            b.map.spec_cb == 0,
        "IPSO_GPU_SPEC=0: one block of 256 x 8 (mode %d, %d x %d)", b.mode, b.map.blk_threads,
        b.map.blk_ppt);
  CHECK(!strcmp(gpu_plan_mode_name(&b), "block-resident"), "mode name '%s'",
        gpu_plan_mode_name(&b));
  gpu_overrides_describe(&o, buf, sizeof buf);
  CHECK(!strcmp(buf, "IPSO_GPU_SPEC=0"), "overrides '%s'", buf);
  o = none;
  o.spec = 4;
  b = plan_of("cubic", 1, "double", 8, 300, "queue_lock", "strict", "global", &o);
  CHECK(b.mode == GPU_MODE_SPEC && b.map.spec_cb == 4 && b.map.spec_threads == 96,
        "IPSO_GPU_SPEC=4: 8 islands of 300, clusters of 4 blocks of 96 (mode %d, %d x %d)", b.mode,
        b.map.spec_cb, b.map.spec_threads);
  o.spec = 2;
  b = plan_of("cubic", 1, "double", 1, 2048, "queue_lock", "strict", "global", &o);
  CHECK(b.mode == GPU_MODE_BLOCK && b.map.spec_cb == 0,
        "IPSO_GPU_SPEC=2, 1-D 2,048: 1,024 particles a block do not fit one per thread");
  o.spec = 8;
  b = plan_of("rosenbrock", 2, "double", 1, 333, "queue_lock", "strict", "global", &o);
  CHECK(b.mode == GPU_MODE_BLOCK && b.map.spec_cb == 0,
        "IPSO_GPU_SPEC=8, Rosenbrock (the next coordinate): block-resident");
  b = plan_of("cubic", 1, "double", 1, 1024, "queue_lock", "strict", "global", &none);
  CHECK(b.mode == GPU_MODE_BLOCK && b.map.spec_cb == 0, "1-D 1,024: block-resident");
  o = none;
  o.no_block = 1;
  b = plan_of("cubic", 1, "double", 1, 2048, "queue_lock", "strict", "global", &o);
  CHECK(b.mode == GPU_MODE_CLUSTER && b.keep && b.map.blk_threads == 256,
        "IPSO_GPU_BLOCK=0: cluster-resident in registers, the block kernel still compiled");
  gpu_overrides_describe(&o, buf, sizeof buf);
  CHECK(!strcmp(buf, "IPSO_GPU_BLOCK=0"), "overrides '%s'", buf);
  /* Where the driver cannot place the cluster (a partitioned GPU), the
   * launch would fail: the next mode instead, forced or not. */
  spec_refused = 1;
  b = plan_of("cubic", 1, "double", 1, 2048, "queue_lock", "strict", "global", &none);
  CHECK(b.mode == GPU_MODE_BLOCK && b.res_blocks == 1,
        "no cluster of 8 placed: 1-D 2,048 block-resident (mode %d)", b.mode);
  o = none;
  o.spec = 8;
  b = plan_of("cubic", 1, "double", 1, 2048, "queue_lock", "strict", "global", &o);
  CHECK(b.mode == GPU_MODE_BLOCK, "no cluster of 8 placed, IPSO_GPU_SPEC=8: block-resident");
  spec_refused = 0;
  cluster_refused = 1;
  o = none;
  o.no_block = 1;
  b = plan_of("cubic", 1, "double", 1, 2048, "queue_lock", "strict", "global", &o);
  CHECK(b.mode == GPU_MODE_GRID && b.keep,
        "no cluster placed, IPSO_GPU_BLOCK=0: grid-resident in registers (mode %d)", b.mode);
  b = plan_of("cubic", 1, "double", 1, 2048, "queue_lock", "strict", "global", &none);
  CHECK(b.mode == GPU_MODE_SPEC, "only the cluster-resident kernel refused: speculative");
  cluster_refused = 0;
  o = none;
  o.blk_threads = 512;
  b = plan_of("cubic", 1, "double", 1, 2048, "queue_lock", "strict", "global", &o);
  CHECK(b.mode == GPU_MODE_BLOCK && b.map.blk_threads == 512 && b.map.blk_ppt == 4,
        "IPSO_GPU_BLOCK_THREADS=512: 512 x 4 (%d x %d)", b.map.blk_threads, b.map.blk_ppt);
  o.blk_threads = 1024;
  b = plan_of("cubic", 1, "double", 1, 2048, "queue_lock", "strict", "global", &o);
  CHECK(b.mode == GPU_MODE_BLOCK && b.map.blk_threads == 1024 && b.map.blk_ppt == 2,
        "IPSO_GPU_BLOCK_THREADS=1024: 1024 x 2 (%d x %d)", b.map.blk_threads, b.map.blk_ppt);
  gpu_overrides_describe(&o, buf, sizeof buf);
  CHECK(!strcmp(buf, "IPSO_GPU_BLOCK_THREADS=1024"), "overrides '%s'", buf);
  o = none;
  o.no_resident = 1;
  b = plan_of("cubic", 1, "double", 1, 2048, "queue_lock", "strict", "global", &o);
  CHECK(b.mode == GPU_MODE_STREAMING, "IPSO_GPU_RESIDENT=0: one launch per iteration");
  o = none;
  o.no_keep = 1;
  b = plan_of("cubic", 1, "double", 1, 2048, "queue_lock", "strict", "global", &o);
  CHECK(b.mode == GPU_MODE_CLUSTER && !b.keep, "IPSO_GPU_KEEP=0: cluster-resident");
  b = plan_of("cubic", 1, "double", 8, 2048, "queue_lock", "strict", "global", &none);
  gpu_plan_describe(&b, buf, sizeof buf);
  CHECK(b.mode == GPU_MODE_BLOCK && !strcmp(buf, "8 islands together, block-resident"),
        "8 islands of 2,048: block-resident ('%s')", buf);
  b = plan_of("cubic", 1, "double", 500, 300, "queue_lock", "strict", "global", &none);
  CHECK(b.mode == GPU_MODE_BLOCK && b.map.blk_threads == 160 && b.map.blk_ppt == 2,
        "500 islands of 300: block-resident in waves (%d x %d)", b.map.blk_threads, b.map.blk_ppt);
  b = plan_of("sphere", 2, "double", 1, 333, "queue_lock", "strict", "global", &none);
  CHECK(b.mode == GPU_MODE_BLOCK, "2-D 333: block-resident");
  b = plan_of("cubic", 1, "double", 1, 8192, "queue_lock", "strict", "global", &none);
  CHECK(b.mode != GPU_MODE_BLOCK && b.map.blk_threads == 0, "1-D 8,192: not one block");
  b = plan_of("rastrigin", 30, "float", 1, 300, "queue_lock", "strict", "global", &none);
  CHECK(b.mode == GPU_MODE_CLUSTER && b.map.blk_threads == 0, "30-D 300: cluster-resident");
  const char *other[][3] = {{"queue_lock", "relaxed", "global"},
                            {"queue_lock", "strict", "ring"},
                            {"queue", "strict", "global"},
                            {"reduction", "strict", "global"}};
  for (int v = 0; v < 4; v++) {
    b = plan_of("cubic", 1, "double", 1, 2048, other[v][0], other[v][1], other[v][2], &none);
    CHECK(b.mode != GPU_MODE_BLOCK && b.map.blk_threads == 0, "%s %s %s: no one-block kernel",
          other[v][0], other[v][1], other[v][2]);
  }
}

/* Programmatic dependent launch for several islands launched once per
 * iteration: only where the step's grid is more than one wave (5 blocks of
 * the step kernel per SM, 132 SMs: 660 blocks); one island, a ring, clpso,
 * relaxed islands and the queue variant keep it; IPSO_GPU_PDL=1 asks for it anyway, =0 never.
 * Islands of 1,024 30-D particles in float are 16 blocks each; with 2 blocks per SM of the resident
 * kernel that keeps the state in registers they run once per iteration from 17 islands on. */
static void check_island_pdl(void)
{
  struct gpu_overrides none, o;
  memset(&none, 0, sizeof none);
  char buf[128];
  step_per_sm = 5;
  keep_per_sm = 2;
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
  o = none;
  o.pdl = 1;
  p = plan(32, 1024, "queue_lock", "strict", "global", &o);
  gpu_overrides_describe(&o, buf, sizeof buf);
  CHECK(p.pdl && !strcmp(buf, "IPSO_GPU_PDL=1"), "IPSO_GPU_PDL=1: PDL for 32 x 1,024 ('%s')", buf);
  o = none;
  o.no_pdl = 1;
  p = plan(64, 1024, "queue_lock", "strict", "global", &o);
  CHECK(!p.pdl, "IPSO_GPU_PDL=0: no PDL for 64 x 1,024");
  o = none;
  o.no_resident = 1;
  p = plan(1, 4096, "queue_lock", "strict", "global", &o);
  CHECK(p.mode == GPU_MODE_STREAMING && p.pdl, "one island of 4,096 per iteration: PDL");
  p = plan(32, 1024, "queue_lock", "strict", "ring", &none);
  CHECK(p.pdl, "32 ring islands: PDL");
  p = plan(32, 1024, "queue_lock", "strict", "clpso", &none);
  CHECK(p.pdl, "32 clpso islands: PDL");
  p = plan(32, 1024, "queue_lock", "relaxed", "global", &none);
  CHECK(p.pdl, "32 relaxed islands: PDL");
  p = plan(32, 1024, "queue", "strict", "global", &none);
  CHECK(p.pdl, "32 islands of the queue variant: PDL");
  step_per_sm = 0;
  p = plan(32, 1024, "queue_lock", "strict", "global", &none);
  CHECK(p.pdl, "the step's occupancy not known: PDL");
  keep_per_sm = 8;
}

int main(void)
{
  struct gpu_overrides none, streaming, no_keep;
  memset(&none, 0, sizeof none);
  streaming = no_keep = none;
  streaming.no_resident = 1;
  no_keep.no_keep = 1;
  char buf[128];

  struct gpu_plan one = plan(1, 65536, "queue_lock", "strict", "global", &none);
  struct gpu_plan many = plan(64, 1024, "queue_lock", "strict", "global", &none);
  CHECK(one.islands == 1 && many.islands == 64, "islands %d %d", one.islands, many.islands);
  CHECK(one.mode == GPU_MODE_GRID && one.keep, "one swarm of 65,536: grid-resident in registers");
  CHECK(many.mode == GPU_MODE_GRID && many.keep && many.res_blocks == 64 * many.blocks &&
            many.res_blocks == one.res_blocks,
        "64 x 1,024: grid-resident in registers over %d blocks (mode %d, keep %d, %d blocks)",
        one.res_blocks, many.mode, many.keep, many.res_blocks);
  gpu_plan_describe(&many, buf, sizeof buf);
  CHECK(!strcmp(buf, "64 islands together, grid-resident"), "device line '%s'", buf);

  /* More tiles than the GPU holds at once: one launch per iteration. */
  struct gpu_plan big = plan(128, 1024, "queue_lock", "strict", "global", &none);
  CHECK(big.mode == GPU_MODE_STREAMING && !big.keep && big.pdl, "128 x 1,024: per iteration");
  gpu_plan_describe(&big, buf, sizeof buf);
  CHECK(!strcmp(buf, "128 islands together, one launch per iteration (PDL)"), "device line '%s'",
        buf);

  const char *other[][3] = {{"queue_lock", "relaxed", "global"},
                            {"queue_lock", "strict", "ring"},
                            {"queue_lock", "strict", "clpso"},
                            {"queue", "strict", "global"},
                            {"reduction", "strict", "global"}};
  for (int v = 0; v < 5; v++) {
    struct gpu_plan p = plan(16, 4096, other[v][0], other[v][1], other[v][2], &none);
    CHECK(p.mode == GPU_MODE_STREAMING && !p.keep, "16 islands %s %s %s: per iteration",
          other[v][0], other[v][1], other[v][2]);
  }
  struct gpu_plan ring = plan(16, 4096, "queue_lock", "strict", "ring", &none);
  gpu_plan_describe(&ring, buf, sizeof buf);
  CHECK(!strcmp(buf, "16 islands together, one launch per iteration with the lbest kernel (PDL)"),
        "device line '%s'", buf);
  /* clpso: never resident, one island or many. */
  struct gpu_plan cl = plan(64, 1024, "queue_lock", "strict", "clpso", &none);
  gpu_plan_describe(&cl, buf, sizeof buf);
  CHECK(cl.clpso && cl.refresh == 7 && !gpu_plan_resident_possible(&cl) &&
            !strcmp(buf, "64 islands together, one launch per iteration with the exemplar "
                         "kernel (PDL)"),
        "clpso device line '%s'", buf);
  cl = plan(1, 4096, "queue_lock", "strict", "clpso", &none);
  CHECK(cl.mode == GPU_MODE_STREAMING && !gpu_plan_resident_possible(&cl), "one clpso swarm");
  /* Nor block-resident where a global island of that size would be. */
  cl = plan_of("cubic", 1, "double", 4, 300, "queue_lock", "strict", "clpso", &none);
  CHECK(cl.mode == GPU_MODE_STREAMING && !gpu_plan_block_compiled(&cl),
        "a clpso island that fits one block is not block-resident");
  struct gpu_plan s = plan(16, 4096, "queue_lock", "strict", "global", &streaming);
  CHECK(s.mode == GPU_MODE_STREAMING, "IPSO_GPU_RESIDENT=0: per iteration");
  s = plan(16, 4096, "queue_lock", "strict", "global", &no_keep);
  CHECK(s.mode == GPU_MODE_STREAMING, "IPSO_GPU_KEEP=0: several islands per iteration");
  s = plan(1, 4096, "queue_lock", "strict", "global", &none);
  gpu_plan_describe(&s, buf, sizeof buf);
  CHECK(!strcmp(buf, gpu_plan_mode_name(&s)), "one island: the mode alone ('%s')", buf);
  /* The step kernel's blocks dealt out over the islands (IPSO_DEAL): several
   * islands of the global topology only, any variant and sync mode. */
  CHECK(!s.map.deal && many.map.deal && big.map.deal, "deal: one island %d, 64 %d, 128 %d",
        s.map.deal, many.map.deal, big.map.deal);
  for (int v = 0; v < 5; v++) {
    struct gpu_plan p = plan(16, 4096, other[v][0], other[v][1], other[v][2], &none);
    int global = !strcmp(other[v][2], "global");
    CHECK(p.map.deal == global, "deal for 16 islands %s %s %s: %d", other[v][0], other[v][1],
          other[v][2], p.map.deal);
  }
  check_block_plans();
  check_island_pdl();
  printf("%s (%d failures)\n", failures ? "FAILED" : "passed", failures);
  return failures ? 1 : 0;
}

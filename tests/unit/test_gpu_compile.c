/* Every kernel variant compiles with NVRTC for sm_90 (no GPU needed): each
 * built-in objective in both precisions, the thread mappings of short,
 * medium and long rows, strict and relaxed (with the relaxed resident
 * kernel), the speculative cluster kernel where it may run, the ring
 * topology (with its lbest kernel and without the resident kernel), the
 * clpso topology (with its exemplar kernel, without the resident kernel),
 * the mean and mixed topologies (with the mean kernel),
 * an inertia schedule, and a user objective, whole-row and separable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "swarm.h"
#include "config.h"
#include "gpu_swarm.h"
#include "objective.h"
#include "problem.h"
#include "user_objective.h"

/* Whether the image of N bytes names the kernel NAME (its symbol table). */
static int has_kernel(const char *image, size_t n, const char *name)
{
  size_t len = strlen(name);
  for (size_t i = 0; i + len < n; i++)
    if (!memcmp(image + i, name, len) && image[i + len] == '\0' && (i == 0 || image[i - 1] == '\0'))
      return 1;
  return 0;
}

/* Compiles the kernels of the config TOML; with WANT (NULL: no check) the
 * image must have the kernel WANT and must not have the kernel NOT. */
static int compile_checked(const char *toml, const char *what, const char *want, const char * not )
{
  struct ipso_config cfg;
  if (config_load_text(toml, what, 0, NULL, 1, &cfg) != IPSO_OK) return 1;
  int user = cfg.objective.id == IPSO_OBJ_USER;
  /* The plan's mapping, with the speculative kernel wherever it may run. */
  struct gpu_overrides spec = {.spec = 8};
  struct gpu_plan p;
  gpu_plan_mapping(&cfg, &spec, 1, &p);
  p.map.evaluate = cfg.objective.id == IPSO_OBJ_CEC2017;
  p.map.migrates = 1;
  const struct gpu_mapping m = p.map;
  struct swarm_consts k;
  swarm_consts_build(&cfg, &k);
  char *defines = gpu_kernel_defines(&cfg, &p, &k);
  char *prelude = user ? user_objective_wrapper(&cfg) : NULL;
  char *image = NULL;
  size_t n = 0;
  int rc = gpu_compile_image(defines, prelude, 9, 0, user, &image, &n);
  if (rc == IPSO_OK && want && (!has_kernel(image, n, want) || has_kernel(image, n, not ))) {
    printf("FAIL %s: %s should have %s and not %s\n", what, "the image", want, not );
    rc = IPSO_ERR_RUNTIME;
  }
  printf("%-4s %-60s G=%-3d V=%d cluster %dx%d %zu bytes\n", rc == IPSO_OK ? "ok" : "FAIL", what,
         m.group, m.vec, m.spec_cb, m.spec_threads, n);
  free(image);
  free(defines);
  free(prelude);
  swarm_consts_free(&k);
  config_free(&cfg);
  return rc != IPSO_OK;
}

static int compile(const char *toml, const char *what)
{
  return compile_checked(toml, what, NULL, NULL);
}

int main(void)
{
  const char *objectives[] = {"sphere", "rastrigin", "rosenbrock", "griewank",
                              "ackley", "schwefel",  "cubic",      "target_distance"};
  const int dims[] = {1, 3, 30, 120, 1500};
  int fail = 0, k = 0;
  char toml[1024], what[128];
  for (size_t o = 0; o < sizeof objectives / sizeof *objectives; o++)
    for (int fl = 0; fl < 2; fl++, k++) {
      int D = dims[k % 5];
      const char *sync = k % 3 == 0 ? "relaxed" : "strict";
      snprintf(toml, sizeof toml,
               "[run]\nprecision = \"%s\"\n[objective]\nname = \"%s\"\ndimensions = %d\n"
               "[swarm]\nsync = \"%s\"\ntopology = \"global\"\n",
               fl ? "float" : "double", objectives[o], D, sync);
      snprintf(what, sizeof what, "%s D=%d %s %s global", objectives[o], D, fl ? "float" : "double",
               sync);
      fail += compile(toml, what);
    }
  /* Rows too long for the resident kernels, non-uniform bounds, and a user
   * objective with a parameter array (with the default topology: a ring,
   * but global for the 8 particles of the long rows). */
  fail += compile("[objective]\nname = \"rastrigin\"\ndimensions = 20000\n[swarm]\nparticles = 8\n"
                  "sync = \"relaxed\"\n",
                  "rastrigin D=20000 double relaxed");
  fail += compile("[objective]\nname = \"sphere\"\ndimensions = 3\nlower = [-1, -2, -3]\n"
                  "upper = [1, 2, 3]\n",
                  "sphere D=3 per-dimension bounds");
  /* The ring topology: short, medium and long rows, strict and relaxed. */
  const int ring_dims[] = {1, 30, 1500};
  for (int r = 0; r < 4; r++) {
    int D = ring_dims[r % 3];
    snprintf(toml, sizeof toml,
             "[run]\nprecision = \"%s\"\n[objective]\nname = \"%s\"\ndimensions = %d\n"
             "[swarm]\nparticles = 64\nsync = \"%s\"\ntopology = \"ring\"\nneighbours = %d\n",
             r % 2 ? "float" : "double", r < 2 ? "rastrigin" : "rosenbrock", D,
             r == 1 ? "relaxed" : "strict", 1 + r);
    snprintf(what, sizeof what, "ring k=%d %s D=%d %s %s", 1 + r,
             r < 2 ? "rastrigin" : "rosenbrock", D, r % 2 ? "float" : "double",
             r == 1 ? "relaxed" : "strict");
    fail += compile_checked(toml, what, "lbest_kernel", "resident_relaxed_kernel");
  }
  /* A ring of 2k+1 > 32: lbest_kernel's warp scans the shared core. */
  fail += compile_checked("[run]\nprecision = \"float\"\n[objective]\nname = \"rastrigin\"\n"
                          "dimensions = 30\n[swarm]\nparticles = 64\ntopology = \"ring\"\n"
                          "neighbours = 20\n",
                          "ring k=20 rastrigin D=30 float strict", "lbest_kernel",
                          "resident_relaxed_kernel");
  fail += compile_checked("[objective]\nname = \"sphere\"\ndimensions = 30\n[swarm]\n"
                          "topology = \"global\"\nsync = \"relaxed\"\nframe = \"axes\"\n",
                          "sphere D=30 global relaxed", "resident_relaxed_kernel", "lbest_kernel");
  fail += compile_checked("[objective]\nname = \"sphere\"\ndimensions = 30\n[swarm]\n"
                          "topology = \"global\"\n",
                          "sphere D=30 global strict", "step_queue_lock_kernel",
                          "resident_relaxed_kernel");
  /* clpso: short, medium and long rows, strict and relaxed, with its
   * inertia schedule; and a schedule on the global topology. */
  const int clpso_dims[] = {1, 30, 1500};
  for (int r = 0; r < 3; r++) {
    int D = clpso_dims[r];
    snprintf(toml, sizeof toml,
             "[run]\nprecision = \"%s\"\n[objective]\nname = \"%s\"\ndimensions = %d\n"
             "[swarm]\nparticles = 64\nsync = \"%s\"\ntopology = \"clpso\"\nrefresh = %d\n",
             r % 2 ? "float" : "double", r < 2 ? "rastrigin" : "rosenbrock", D,
             r == 1 ? "relaxed" : "strict", 3 + r);
    snprintf(what, sizeof what, "clpso refresh=%d %s D=%d %s %s", 3 + r,
             r < 2 ? "rastrigin" : "rosenbrock", D, r % 2 ? "float" : "double",
             r == 1 ? "relaxed" : "strict");
    fail += compile_checked(toml, what, "exemplar_kernel", "resident_relaxed_kernel");
  }
  fail += compile_checked("[objective]\nname = \"ackley\"\ndimensions = 30\n[swarm]\n"
                          "topology = \"global\"\ninertia = 0.9\ninertia_end = 0.4\n",
                          "ackley D=30 global, inertia 0.9 -> 0.4", "step_queue_lock_kernel",
                          "exemplar_kernel");
  /* The speculative cluster kernel: rows on one thread, both precisions. */
  const char *spec[] = {"precision = \"double\"\n[objective]\nname = \"cubic\"\ndimensions = 1\n"
                        "[swarm]\nparticles = 2048\n",
                        "precision = \"float\"\n[objective]\nname = \"cubic\"\ndimensions = 1\n"
                        "[swarm]\nparticles = 300\n",
                        "precision = \"double\"\n[objective]\nname = \"sphere\"\ndimensions = 3\n"
                        "[swarm]\nparticles = 333\nframe = \"axes\"\n"};
  for (size_t b = 0; b < sizeof spec / sizeof spec[0]; b++) {
    snprintf(toml, sizeof toml, "[run]\n%stopology = \"global\"\n", spec[b]);
    snprintf(what, sizeof what, "speculative cluster %zu", b);
    fail += compile_checked(toml, what, "speculative_cluster_kernel", "lbest_kernel");
  }
  /* None where it may not run: too many particles, relaxed, a ring, a
   * term that reads the next coordinate. */
  const char *nospec[] = {"[objective]\nname = \"cubic\"\ndimensions = 1\n[swarm]\n"
                          "particles = 8192\ntopology = \"global\"\n",
                          "[objective]\nname = \"cubic\"\ndimensions = 1\n[swarm]\n"
                          "particles = 2048\ntopology = \"global\"\nsync = \"relaxed\"\n",
                          "[objective]\nname = \"cubic\"\ndimensions = 1\n[swarm]\n"
                          "particles = 2048\ntopology = \"ring\"\n",
                          "[objective]\nname = \"rosenbrock\"\ndimensions = 2\n[swarm]\n"
                          "particles = 200\ntopology = \"global\"\n"};
  for (size_t b = 0; b < sizeof nospec / sizeof nospec[0]; b++) {
    snprintf(what, sizeof what, "no speculative cluster %zu", b);
    fail += compile_checked(nospec[b], what, "init_kernel", "speculative_cluster_kernel");
  }
  char dir[] = "/tmp/ipso-gpu-compile-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  char src[256];
  snprintf(src, sizeof src, "%s/shifted.cu", dir);
  FILE *f = fopen(src, "w");
  fputs("ipso_real shifted(const ipso_real *x, int d)\n{\n  ipso_real s = 0;\n"
        "  for (int i = 0; i < d; i++) s += (x[i] - shift[i % 3]) * (x[i] - shift[i % 3]);\n"
        "  return s * scale;\n}\n",
        f);
  fclose(f);
  for (int fl = 0; fl < 2; fl++)
    for (int sep = 0; sep < 2; sep++) {
      snprintf(toml, sizeof toml,
               "[run]\nprecision = \"%s\"\n[objective]\nname = \"user\"\ndimensions = 20\n"
               "lower = -5\nupper = 5\nsource = \"%s\"\nfunction = \"shifted\"\n"
               "separable = %s\n[objective.params]\nshift = [1, 2, 3]\nscale = 0.5\n",
               fl ? "float" : "double", src, sep ? "true" : "false");
      snprintf(what, sizeof what, "user objective (%s%s)", fl ? "float" : "double",
               sep ? ", separable" : "");
      fail += compile(toml, what);
    }
  /* A user function of the whole row, one thread per particle, on the
   * global topology (never the speculative kernel). */
  snprintf(toml, sizeof toml,
           "[run]\nprecision = \"double\"\n[objective]\nname = \"user\"\ndimensions = 4\n"
           "lower = -5\nupper = 5\nsource = \"%s\"\nfunction = \"shifted\"\n"
           "[objective.params]\nshift = [1, 2, 3]\nscale = 0.5\n[swarm]\nparticles = 100\n"
           "topology = \"global\"\n",
           src);
  fail += compile_checked(toml, "user objective (double, whole rows) D=4 N=100, global",
                          "step_queue_lock_kernel", "speculative_cluster_kernel");
  /* The CEC 2017 suite: the function in the data, so one program per
   * dimension and precision (the data's values do not matter here). */
  problem_data_set(calloc(1, sizeof(double)), 1);
  for (int fl = 0; fl < 2; fl++)
    for (int D = 10; D <= 100; D += 90) {
      snprintf(toml, sizeof toml,
               "[run]\nprecision = \"%s\"\n[objective]\nname = \"cec2017\"\nnumber = 5\n"
               "dimensions = %d\n[swarm]\ntopology = \"global\"\nparticles = 4096\n",
               fl ? "float" : "double", D);
      snprintf(what, sizeof what, "cec2017 D=%d %s, global", D, fl ? "float" : "double");
      fail += compile_checked(toml, what, "evaluate_kernel", "speculative_cluster_kernel");
    }
  /* Eigen frames (frame_kernel): every island or the odd ones, rows on one
   * thread and split over up to 32, the CEC suite's whole rows. */
  const char *frames[] = {"name = \"rastrigin\"\ndimensions = 30\n[swarm]\nframe = \"eigen\"\n",
                          "name = \"sphere\"\ndimensions = 1\n[swarm]\nframe = \"mixed\"\n"
                          "topology = \"global\"\n",
                          "name = \"rosenbrock\"\ndimensions = 512\n[swarm]\nparticles = 64\n"
                          "frame = \"eigen\"\ntopology = \"clpso\"\n",
                          "name = \"cec2017\"\nnumber = 12\ndimensions = 30\n[swarm]\n"
                          "frame = \"mixed\"\n"};
  for (size_t b = 0; b < sizeof frames / sizeof frames[0]; b++)
    for (int fl = 0; fl < 2; fl++) {
      snprintf(toml, sizeof toml, "[run]\nprecision = \"%s\"\n[objective]\n%s",
               fl ? "float" : "double", frames[b]);
      snprintf(what, sizeof what, "eigen frame %zu %s", b, fl ? "float" : "double");
      fail += compile_checked(toml, what, "frame_kernel", "resident_relaxed_kernel");
    }
  /* The mean topology (mean_kernel) on every island, and mixed with the
   * ring (lbest_kernel too), the largest island it takes, both precisions. */
  const char *means[] = {"name = \"rastrigin\"\ndimensions = 30\n[swarm]\ntopology = \"mean\"\n",
                         "name = \"cec2017\"\nnumber = 5\ndimensions = 100\n[swarm]\n"
                         "particles = 4096\ntopology = \"mixed\"\n"};
  for (size_t b = 0; b < sizeof means / sizeof means[0]; b++)
    for (int fl = 0; fl < 2; fl++) {
      snprintf(toml, sizeof toml, "[run]\nprecision = \"%s\"\n[objective]\n%s",
               fl ? "float" : "double", means[b]);
      snprintf(what, sizeof what, "mean topology %zu %s", b, fl ? "float" : "double");
      fail += compile_checked(toml, what, "mean_kernel",
                              b ? "resident_relaxed_kernel" : "lbest_kernel");
    }
  remove(src);
  rmdir(dir);
  printf("%s\n", fail ? "FAILED" : "passed");
  return fail ? 1 : 0;
}

/* The benchmark harness behind BENCHMARKS.md: the design.md workloads for
 * every kernel variant, sync mode and precision on one GPU, timed with CUDA
 * events around the launches (warm-up first, median of REPS runs), with
 * evaluations per second and the fraction of the memory roofline (bytes:
 * every position, velocity and personal-best element read once and every
 * position and velocity element written once per iteration, over the
 * device-to-device copy bandwidth measured here; the rows of the ring
 * topology, "+ring" (and of clpso, "+clpso"), count the same bytes, not the
 * attractor rows that the lbest (exemplar) kernel writes and the step reads). Optionally the CPU
 * backend on the same problems (--cpu), for the GPU/CPU speedup.
 *
 * Islands: the 30-D float Rastrigin workload's 65,536 particles as 64
 * islands of 1,024 and 16 of 4,096 in one backend (all islands in one launch
 * per iteration) against one swarm of 65,536, global topology, ring and
 * clpso: the time per iteration of each and the ratio to the one swarm (--only
 * islands for these rows alone).
 *
 * --user FILE: the 30-D float Rastrigin workload with the built-in objective
 * and with FILE's rastrigin_user (configs/user/rastrigin.cu), declared
 * separable and on whole rows: time of each,
 * and the start-up time of the user version with an empty kernel cache
 * (NVRTC compile) and with the cache filled.
 *
 * Migration (--only migration for these rows alone): 64 islands of 1,024
 * in segments of 10 and 100 iterations, without migration and migrating
 * on the device: wall time and kernel time per iteration.
 *
 * --no-pdl: plain launches instead of programmatic dependent launch (what a
 * GPU before Hopper runs).
 *
 * --cec: the CEC 2017 suite's rotated functions' evaluation speed (cec_speed).
 *
 *   bench_gpu [--reps N] [--only NAME|islands|migration] [--cpu] [--csv FILE] [--user FILE]
 *             [--no-pdl] [--cec]  */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "backend_cpu.h"
#include "backend_gpu.h"
#include "cec2017_data.h"
#include "config.h"
#include "check.h"
#include "gpu_swarm.h"
#include "log.h"
#include "problem.h"
#include "runtime.h"

/* Device time of the launches of the GPU backend B's last step() call, by
 * the CUDA events it records around them (ms). */
static double gpu_last_step_ms(struct backend *b)
{
  struct gpu_swarm *g = b->impl;
  float ms = 0;
  if (cudaEventElapsedTime(&ms, g->start, g->stop) != cudaSuccess) return -1;
  return ms;
}

/* The thread mapping of the GPU backend B, in words. */
static const char *gpu_mapping_of(struct backend *b, char *buf, size_t n)
{
  struct gpu_swarm *g = b->impl;
  const struct gpu_plan *p = &g->plan;
  snprintf(buf, n, "G=%d V=%d %s", p->map.group, p->map.vec,
           p->mode == GPU_MODE_STREAMING ? "streaming"
           : p->mode == GPU_MODE_SPEC    ? "speculative"
                                         : "resident");
  return buf;
}

struct workload {
  const char *name, *objective, *precision;
  int dims, particles;
  long iterations;
  const char *target; /* design.md's target, for the table */
};

static const struct workload workloads[] = {
    {"cubic-1d-2048", "cubic", "double", 1, 2048, 100000, "<= 0.04 s"},
    {"cubic-1d-65536", "cubic", "double", 1, 65536, 100000, "<= 0.06 s (relaxed)"},
    {"cubic-120d-32768", "cubic", "double", 120, 32768, 1000, "<= 0.065 s"},
    {"cubic-120d-131072", "cubic", "double", 120, 131072, 800, "<= 0.2 s"},
    {"rastrigin-30d-65536-float", "rastrigin", "float", 30, 65536, 1000, "<= 0.015 s"},
};

struct variant {
  const char *kernel, *sync;
  int streaming; /* force one launch per iteration (gpu_overrides.streaming) */
  int topology;  /* 0 global; 1 ring (4 neighbours), labelled "<sync>+ring"; 2 clpso, "+clpso" */
};
static const struct variant variants[] = {
    {"queue_lock", "strict", 0, 0}, {"queue_lock", "strict", 1, 0}, {"queue_lock", "relaxed", 0, 0},
    {"queue", "strict", 0, 0},      {"reduction", "strict", 0, 0},  {"queue_lock", "strict", 0, 1},
    {"queue_lock", "relaxed", 0, 1}};
enum { V_QUEUE_LOCK = 0, V_REDUCTION = 4 };

static const char *const topology_names[] = {"global", "ring", "clpso"};

/* What every backend of this run is forced to (--no-pdl). */
static struct gpu_overrides forced;

/* The sync column of a variant: the mode, "+ring" or "+clpso" for those
 * topologies. */
static const char *sync_label(const struct variant *v, char *buf, size_t n)
{
  snprintf(buf, n, "%s%s%s", v->sync, v->topology ? "+" : "",
           v->topology ? topology_names[v->topology] : "");
  return buf;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Device-to-device copy bandwidth (bytes read + written per second). */
static double copy_bandwidth(void)
{
  size_t n = (size_t)2 << 30;
  void *a, *b;
  cudaEvent_t e0, e1;
  if (cudaMalloc(&a, n) != cudaSuccess || cudaMalloc(&b, n) != cudaSuccess) return 0;
  cudaMemset(a, 1, n);
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  double t[7];
  for (int r = 0; r < 8; r++) {
    cudaEventRecord(e0, 0);
    cudaMemcpy(b, a, n, cudaMemcpyDeviceToDevice);
    cudaEventRecord(e1, 0);
    cudaEventSynchronize(e1);
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    if (r > 0) t[r - 1] = ms;
  }
  qsort(t, 7, sizeof t[0], cmp_double);
  cudaFree(a);
  cudaFree(b);
  return 2.0 * (double)n / (t[3] * 1e-3);
}

static int make_config(const struct workload *w, const struct variant *v, const char *backend,
                       struct ipso_config *cfg)
{
  char text[1024];
  snprintf(text, sizeof text,
           "[run]\nbackend = \"%s\"\nprecision = \"%s\"\nmax_iterations = %ld\noutput = \"\"\n"
           "[objective]\nname = \"%s\"\ndimensions = %d\n"
           "[swarm]\nparticles = %d\nkernel = \"%s\"\nsync = \"%s\"\ntopology = \"%s\"\n"
           "velocity_clamp = 0.5\nframe = \"axes\"\n[output]\ncheckpoint = \"\"\n",
           backend, w->precision, w->iterations, w->objective, w->dims, w->particles, v->kernel,
           v->sync, topology_names[v->topology]);
  return config_load_text(text, w->name, 0, NULL, 1, cfg);
}

/* Times ITERATIONS iterations of ISLANDS islands in one backend REPS times
 * (after a warm-up) on the GPU; the median device time in seconds, and the
 * final best of the last run (the best of its islands). STREAMING: one
 * launch per iteration. */
static int time_islands(const struct ipso_config *cfg, int islands, int streaming, long iterations,
                        int reps, double *median, double *spread, double *best_out, char *mapping,
                        size_t mlen)
{
  struct swarm_setup setup = {cfg, 0, islands, 0, islands};
  struct backend b;
  struct gpu_overrides o = forced;
  o.streaming = streaming;
  IPSO_TRY(backend_gpu_create_with(&setup, &o, &b));
  gpu_mapping_of(&b, mapping, mlen);
  double *best = malloc(sizeof(double) * (size_t)iterations * (size_t)islands);
  double *t = malloc(sizeof(double) * (size_t)reps);
  int rc = best && t ? IPSO_OK : IPSO_FAIL("memory", "out of memory");
  long warm = iterations < 200 ? iterations : 200;
  if (rc == IPSO_OK) rc = b.ops->init(&b);
  if (rc == IPSO_OK) rc = b.ops->step(&b, 1, warm, best);
  for (int r = 0; r < reps && rc == IPSO_OK; r++) {
    rc = b.ops->init(&b);
    if (rc == IPSO_OK) rc = b.ops->step(&b, 1, iterations, best);
    t[r] = gpu_last_step_ms(&b) * 1e-3;
  }
  if (rc == IPSO_OK) {
    *best_out = best[iterations - 1];
    for (int k = 1; k < islands; k++)
      if (best[(size_t)k * (size_t)iterations + (size_t)iterations - 1] < *best_out)
        *best_out = best[(size_t)k * (size_t)iterations + (size_t)iterations - 1];
    qsort(t, (size_t)reps, sizeof t[0], cmp_double);
    *median = t[reps / 2];
    *spread = (t[reps - 1] - t[0]) / t[reps / 2];
  }
  free(best);
  free(t);
  b.ops->destroy(&b);
  return rc;
}

/* The same for one island. */
static int time_gpu(const struct ipso_config *cfg, int streaming, long iterations, int reps,
                    double *median, double *spread, double *best_out, char *mapping, size_t mlen)
{
  return time_islands(cfg, 1, streaming, iterations, reps, median, spread, best_out, mapping, mlen);
}

/* The 30-D float Rastrigin workload's particles as one swarm and as islands
 * in one backend, global, ring and clpso (strict queue-lock): time per iteration
 * and the ratio to the one swarm as the plan runs it. */
static int compare_islands(int reps, FILE *csv)
{
  const struct workload *w = &workloads[4];
  const struct {
    int islands, streaming;
  } rows[] = {{1, 0}, {1, 1}, {16, 0}, {64, 0}};
  long iterations = w->iterations;
  for (int topo = 0; topo < 3; topo++) {
    double base = 0;
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
      struct workload iw = *w;
      iw.particles = w->particles / rows[r].islands;
      struct variant v = {"queue_lock", "strict", rows[r].streaming, topo};
      struct ipso_config cfg;
      IPSO_TRY(make_config(&iw, &v, "gpu", &cfg));
      double med = 0, spread = 0, best = 0;
      char mapping[64] = "", label[64];
      int rc = time_islands(&cfg, rows[r].islands, rows[r].streaming, iterations, reps, &med,
                            &spread, &best, mapping, sizeof mapping);
      config_free(&cfg);
      snprintf(label, sizeof label, "%d x %d%s", rows[r].islands, iw.particles,
               rows[r].streaming ? " (per iteration)" : "");
      if (rc != IPSO_OK) {
        printf("islands %-6s %-28s failed\n", topology_names[topo], label);
        continue;
      }
      if (r == 0) base = med;
      double per_it = med / (double)iterations;
      printf("islands %-6s %-28s %-26s %9.2f us/iteration %6.1f%% %6.3fx one swarm  best %.6g\n",
             topology_names[topo], label, mapping, 1e6 * per_it, 100 * spread,
             base > 0 ? med / base : 0, fabs(best));
      if (csv)
        fprintf(csv, "islands-%d-%d,queue_lock,strict%s,%s,%.6f,%.4f,%.6e,,%.17g\n",
                rows[r].islands, iw.particles, topo ? (topo == 1 ? "+ring" : "+clpso") : "",
                mapping, med, spread, (double)w->particles * (double)iterations / med, fabs(best));
    }
  }
  printf("islands: target 64 x 1,024 within 1.10x of one swarm of 65,536 per iteration\n");
  return IPSO_OK;
}

/* What migration costs K islands in one backend: ITERATIONS iterations in
 * segments of INTERVAL (one step() call each), after each segment nothing
 * (HOW 0) or the migration on the device (1: migrate_out, migrate_in). The medians of REPS runs
 * (after a warm-up) of the wall time from the first step to the device's end, and of the sum of the
 * steps' device times (CUDA events), both per iteration. */
static int time_migration(const struct ipso_config *cfg, int K, int interval, int how,
                          long iterations, int reps, double *wall, double *kernel)
{
  struct swarm_setup setup = {cfg, 0, K, 0, K};
  struct backend b;
  IPSO_TRY(backend_gpu_create_with(&setup, &forced, &b));
  int M = cfg->migration.migrants;
  double *best = malloc(sizeof(double) * (size_t)interval * (size_t)K);
  unsigned char *carried = calloc(2 * (size_t)K, 1);
  double *tw = malloc(sizeof(double) * (size_t)(reps + 1));
  double *tk = malloc(sizeof(double) * (size_t)(reps + 1));
  int rc = best && carried && tw && tk ? IPSO_OK : IPSO_FAIL("memory", "out of memory");
  for (int k = 0; k < K; k++) carried[2 * k] = 1;
  for (int r = 0; r <= reps && rc == IPSO_OK; r++) {
    rc = b.ops->init(&b);
    if (rc == IPSO_OK && cudaDeviceSynchronize() != cudaSuccess) rc = IPSO_FAIL("cuda", "sync");
    double t0 = wall_seconds(), ksum = 0;
    for (long first = 1; first <= iterations && rc == IPSO_OK; first += interval) {
      long last = first + interval - 1 < iterations ? first + interval - 1 : iterations;
      rc = b.ops->step(&b, first, last, best);
      ksum += gpu_last_step_ms(&b) * 1e-3;
      if (how == 1) {
        rc = b.ops->migrate_out(&b, M, NULL, M, NULL);
        if (rc == IPSO_OK) rc = b.ops->migrate_in(&b, M, 1, carried, NULL, NULL);
      }
    }
    if (rc == IPSO_OK && cudaDeviceSynchronize() != cudaSuccess) rc = IPSO_FAIL("cuda", "sync");
    tw[r] = (wall_seconds() - t0) / (double)iterations;
    tk[r] = ksum / (double)iterations;
  }
  if (rc == IPSO_OK) {
    /* Run 0 is the warm-up. */
    qsort(tw + 1, (size_t)reps, sizeof tw[0], cmp_double);
    qsort(tk + 1, (size_t)reps, sizeof tk[0], cmp_double);
    *wall = tw[1 + reps / 2];
    *kernel = tk[1 + reps / 2];
  }
  free(best);
  free(carried);
  free(tw);
  free(tk);
  b.ops->destroy(&b);
  return rc;
}

/* 64 islands of 1,024 (the islands rows' global swarm, 2 migrants on a
 * ring): per iteration, in segments of 10 and of 100 iterations, without
 * migration and with it. */
static int compare_migration(int reps)
{
  const struct workload *w = &workloads[4];
  struct workload iw = *w;
  enum { K = 64 };
  iw.particles = w->particles / K;
  struct variant v = {"queue_lock", "strict", 0, 0};
  struct ipso_config cfg;
  IPSO_TRY(make_config(&iw, &v, "gpu", &cfg));
  const char *hows[] = {"none", "on the device"};
  const int intervals[] = {10, 100};
  long iterations = 2000;
  for (int i = 0; i < 2; i++) {
    double base = 0;
    for (int how = 0; how < 2; how++) {
      double wall = 0, kernel = 0;
      int rc = time_migration(&cfg, K, intervals[i], how, iterations, reps, &wall, &kernel);
      if (rc != IPSO_OK) {
        printf("migration %d x %d every %d, %s: failed\n", K, iw.particles, intervals[i],
               hows[how]);
        continue;
      }
      if (how == 0) base = wall;
      printf("migration %d x %d segments of %-3d migration %-17s %8.2f us/iteration wall "
             "(%.3fx none)  %8.2f us/iteration in kernels\n",
             K, iw.particles, intervals[i], hows[how], 1e6 * wall, base > 0 ? wall / base : 0,
             1e6 * kernel);
    }
  }
  config_free(&cfg);
  return IPSO_OK;
}

/* Seconds per iteration of the CPU backend on the same problem (all cores). */
static int time_cpu(const struct workload *w, double *per_iteration)
{
  struct ipso_config cfg;
  IPSO_TRY(make_config(w, &variants[0], "cpu", &cfg));
  struct swarm_setup setup = {&cfg, 0, 1, -1, 1};
  struct backend b;
  IPSO_TRY(backend_cpu_create(&setup, &b));
  /* Enough iterations for a fraction of a second of work, at least 3. */
  long its = (long)(5e7 / ((double)w->particles * w->dims));
  if (its < 3) its = 3;
  if (its > w->iterations) its = w->iterations;
  double *best = malloc(sizeof(double) * (size_t)its);
  b.ops->init(&b);
  b.ops->step(&b, 1, 2, best);
  double t0 = wall_seconds();
  int rc = b.ops->step(&b, 3, its + 2, best);
  *per_iteration = (wall_seconds() - t0) / (double)its;
  free(best);
  b.ops->destroy(&b);
  config_free(&cfg);
  return rc;
}

/* Seconds to create (compile or load from the cache) and destroy a backend. */
static double startup_seconds(const struct ipso_config *cfg)
{
  struct swarm_setup setup = {cfg, 0, 1, 0, 1};
  struct backend b;
  double t0 = wall_seconds();
  if (backend_gpu_create_with(&setup, &forced, &b) != IPSO_OK) return -1;
  double t = wall_seconds() - t0;
  b.ops->destroy(&b);
  return t;
}

/* Built-in against user-defined Rastrigin on the float workload: the user's
 * function declared separable (split across a particle's threads like the
 * built-in) and evaluated on whole rows (one thread per particle). */
static int compare_user(const char *source, int reps)
{
  const struct workload *w = &workloads[4];
  char text[2048];
  struct ipso_config builtin, user[2];
  snprintf(text, sizeof text,
           "[run]\nprecision = \"float\"\noutput = \"\"\nmax_iterations = %ld\n[objective]\n"
           "name = \"rastrigin\"\ndimensions = %d\n[swarm]\nparticles = %d\ntopology = \"global\"\n"
           "frame = \"axes\"\n[output]\ncheckpoint = "
           "\"\"\n",
           w->iterations, w->dims, w->particles);
  IPSO_TRY(config_load_text(text, "builtin", 0, NULL, 1, &builtin));
  for (int sep = 0; sep < 2; sep++) {
    snprintf(text, sizeof text,
             "[run]\nprecision = \"float\"\noutput = \"\"\nmax_iterations = %ld\n[objective]\n"
             "name = \"user\"\nsource = \"%s\"\nfunction = \"rastrigin_user\"\nseparable = %s\n"
             "dimensions = %d\nlower = -5.12\nupper = 5.12\n[swarm]\nparticles = %d\n"
             "topology = \"global\"\nframe = \"axes\"\n[output]\n"
             "checkpoint = \"\"\n",
             w->iterations, source, sep ? "true" : "false", w->dims, w->particles);
    IPSO_TRY(config_load_text(text, "user", 0, NULL, 1, &user[sep]));
  }
  char dir[] = "/tmp/ipso-bench-cache-XXXXXX";
  if (!mkdtemp(dir)) return IPSO_ERR_RUNTIME;
  setenv("IPSO_CACHE_DIR", dir, 1);
  double first = startup_seconds(&user[1]), cached = startup_seconds(&user[1]);
  double tb, tu[2], spread, best_b, best_u[2];
  char mb[64], mu[2][64];
  IPSO_TRY(time_gpu(&builtin, 0, w->iterations, reps, &tb, &spread, &best_b, mb, sizeof mb));
  for (int sep = 1; sep >= 0; sep--)
    IPSO_TRY(time_gpu(&user[sep], 0, w->iterations, reps, &tu[sep], &spread, &best_u[sep], mu[sep],
                      sizeof mu[sep]));
  printf("user objective: built-in rastrigin %.4f s (%s, best %.6g)\n", tb, mb, best_b);
  printf("user objective: rastrigin_user, separable = true %.4f s (%s, best %.6g): user/built-in "
         "%.3f\n",
         tu[1], mu[1], best_u[1], tu[1] / tb);
  printf("user objective: rastrigin_user, whole rows %.4f s (%s, best %.6g): user/built-in %.3f\n",
         tu[0], mu[0], best_u[0], tu[0] / tb);
  printf("user objective: start-up with an empty kernel cache %.2f s (NVRTC), cached %.3f s\n",
         first, cached);
  config_free(&builtin);
  config_free(&user[0]);
  config_free(&user[1]);
  return IPSO_OK;
}

/* --cec: CEC 2017 F1, F3..F10 (shifted and rotated) in 30 and 100
 * dimensions, float and double, one swarm of 65,536 (strict queue-lock,
 * global): evaluations per second, and the fraction of the device's FMA
 * peak that the D^2 FMAs of the rotation alone reach (peak: SMs x clock x
 * FMA units per SM, 128 FP32 and 64 FP64 on Hopper). */
static int cec_speed(const struct cudaDeviceProp *prop, int reps, FILE *csv)
{
  int khz = 0;
  cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
  const int dims[] = {30, 100};
  const long iterations = 200, particles = 65536;
  printf("%-16s %-7s %10s %12s %12s\n", "cec2017", "real", "time [s]", "evals/s", "FMA peak");
  for (int di = 0; di < 2; di++)
    for (int fl = 1; fl >= 0; fl--)
      for (int f = 1; f <= 10; f += f == 1 ? 2 : 1) {
        char text[512], name[32];
        snprintf(name, sizeof name, "F%d D=%d", f, dims[di]);
        snprintf(text, sizeof text,
                 "[run]\nbackend = \"gpu\"\nprecision = \"%s\"\nmax_iterations = %ld\n"
                 "output = \"\"\n[objective]\nname = \"cec2017\"\nnumber = %d\n"
                 "dimensions = %d\n[swarm]\nparticles = %ld\ntopology = \"global\"\n"
                 "frame = \"axes\"\n[output]\ncheckpoint = \"\"\n",
                 fl ? "float" : "double", iterations, f, dims[di], particles);
        struct ipso_config cfg;
        double *data = NULL, med = 0, spread = 0, best = 0;
        int64_t n = 0;
        char mapping[64] = "";
        IPSO_TRY(config_load_text(text, name, 0, NULL, 1, &cfg));
        int rc = cec2017_data_for(&cfg, 0, &data, &n);
        if (rc == IPSO_OK) problem_data_set(data, n);
        if (rc == IPSO_OK)
          rc = time_islands(&cfg, 1, 0, iterations, reps, &med, &spread, &best, mapping,
                            sizeof mapping);
        config_free(&cfg);
        if (rc != IPSO_OK) return rc;
        double evals = (double)particles * (double)iterations / med;
        double peak = (double)prop->multiProcessorCount * khz * 1e3 * (fl ? 128 : 64);
        double frac = evals * dims[di] * dims[di] / peak;
        printf("%-16s %-7s %10.4f %12.3e %11.2f%%\n", name, fl ? "float" : "double", med, evals,
               100 * frac);
        if (csv)
          fprintf(csv, "cec2017 %s,queue_lock,strict,%s,%.6f,%.4f,%.6e,%.6f,%.17g\n", name,
                  fl ? "float" : "double", med, spread, evals, frac, best);
      }
  return IPSO_OK;
}

int main(int argc, char **argv)
{
  int reps = 5, cpu = 0, cec = 0;
  const char *only = NULL, *csv_path = NULL, *user = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else if (!strcmp(argv[i], "--cpu"))
      cpu = 1;
    else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
      csv_path = argv[++i];
    else if (!strcmp(argv[i], "--user") && i + 1 < argc)
      user = argv[++i];
    else if (!strcmp(argv[i], "--no-pdl"))
      forced.no_pdl = 1;
    else if (!strcmp(argv[i], "--cec"))
      cec = 1;
    else {
      fprintf(stderr,
              "usage: bench_gpu [--reps N] [--only NAME|islands|migration] [--cpu] [--csv FILE] "
              "[--user FILE] [--no-pdl] [--cec]\n");
      return 2;
    }
  }
  if (reps < 1) reps = 1;
  /* The start-up time with an empty kernel cache must be a real compile:
   * with the CUDA driver's compute cache (~/.nv/ComputeCache) on, a
   * repeated NVRTC compile of the same source took 0.05 s instead of 3.2 s
   * (H200, CUDA 13). Read when CUDA starts: set before the first CUDA call. */
  if (user) setenv("CUDA_CACHE_DISABLE", "1", 1);
  if (gpu_device_count() == 0) {
    printf("no GPU: nothing to benchmark\n");
    return 77;
  }
  struct cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  double bw = copy_bandwidth();
  time_t now = time(NULL);
  char date[32];
  strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
  printf("device: %s (%d SMs), %s; copy bandwidth %.2f TB/s (read + write); median of %d runs\n",
         prop.name, prop.multiProcessorCount, date, bw / 1e12, reps);
  FILE *csv = csv_path ? fopen(csv_path, "w") : NULL;
  if (csv)
    fprintf(csv,
            "workload,kernel,sync,mapping,seconds,spread,evals_per_s,roofline_fraction,best\n");
  if (cec) {
    int rc = cec_speed(&prop, reps, csv);
    if (csv) fclose(csv);
    return rc == IPSO_OK ? 0 : 1;
  }
  printf("%-26s %-11s %-8s %-26s %10s %7s %11s %8s %14s\n", "workload", "kernel", "sync", "mapping",
         "time [s]", "spread", "evals/s", "roofline", "best");
  for (size_t k = 0; k < sizeof workloads / sizeof workloads[0]; k++) {
    const struct workload *w = &workloads[k];
    if (only && (!strstr(w->name, only) || !strcmp(only, "islands") || !strcmp(only, "migration")))
      continue;
    double es = strcmp(w->precision, "float") ? 8 : 4;
    double bytes = 5.0 * w->particles * (double)w->dims * es * (double)w->iterations;
    double ql = 0, red = 0;
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
      struct ipso_config cfg;
      if (make_config(w, &variants[v], "gpu", &cfg) != IPSO_OK) return 1;
      double med = 0, spread = 0, best = 0;
      char mapping[64] = "";
      int rc = time_islands(&cfg, 1, variants[v].streaming, w->iterations, reps, &med, &spread,
                            &best, mapping, sizeof mapping);
      config_free(&cfg);
      char sync[32];
      sync_label(&variants[v], sync, sizeof sync);
      if (rc != IPSO_OK) {
        printf("%-26s %-11s %-8s failed\n", w->name, variants[v].kernel, sync);
        continue;
      }
      double evals = (double)w->particles * (double)w->iterations / med;
      double roof = bytes / bw / med;
      printf("%-26s %-11s %-8s %-26s %10.4f %6.1f%% %11.3e %7.1f%% %14.8g\n", w->name,
             variants[v].kernel, sync, mapping, med, 100 * spread, evals, 100 * roof, fabs(best));
      if (csv)
        fprintf(csv, "%s,%s,%s,%s,%.6f,%.4f,%.6e,%.4f,%.17g\n", w->name, variants[v].kernel, sync,
                mapping, med, spread, evals, roof, fabs(best));
      if (v == V_QUEUE_LOCK) ql = med;
      if (v == V_REDUCTION) red = med;
    }
    if (ql > 0 && red > 0)
      printf("%-26s queue_lock strict vs reduction: %.2fx   (target %s)\n", w->name, red / ql,
             w->target);
    if (cpu) {
      double per_it;
      if (time_cpu(w, &per_it) == IPSO_OK)
        printf("%-26s cpu backend: %.4g s per iteration -> %.4g s for %ld iterations "
               "(%.0fx the queue_lock strict GPU run)\n",
               w->name, per_it, per_it * (double)w->iterations, w->iterations,
               per_it * (double)w->iterations / (ql > 0 ? ql : 1));
    }
  }
  if ((!only || !strcmp(only, "islands")) && compare_islands(reps, csv) != IPSO_OK) return 1;
  if ((!only || !strcmp(only, "migration")) && compare_migration(reps) != IPSO_OK) return 1;
  if (csv) fclose(csv);
  if (user && compare_user(user, reps) != IPSO_OK) return 1;
  return 0;
}

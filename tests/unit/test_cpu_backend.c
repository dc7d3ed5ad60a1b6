/* The CPU reference backend: the initial swarm is the documented function of
 * the Philox stream; results are byte-identical for 1 and 2 OpenMP threads;
 * migrants are the best personal bests and replace the worst particles only
 * when better; save/load continues exactly. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend_cpu.h"
#include "config.h"
#include "philox.h"

static int failures = 0;
#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      failures++;                                                                                  \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                  \
      printf(__VA_ARGS__);                                                                         \
      printf("\n");                                                                                \
    }                                                                                              \
  } while (0)

static void load(const char *objective, int dims, int particles, const char *precision,
                 struct ipso_config *cfg)
{
  char text[512];
  snprintf(text, sizeof text,
           "[run]\nseed = 42\nprecision = \"%s\"\noutput = \"\"\n[objective]\nname = \"%s\"\n"
           "dimensions = %d\n[swarm]\nparticles = %d\n",
           precision, objective, dims, particles);
  if (config_load_text(text, "test", 0, NULL, 1, cfg) != IPSO_OK) exit(1);
}

static void run(const struct ipso_config *cfg, int threads, int iters, struct swarm_state *st)
{
#ifdef _OPENMP
  omp_set_num_threads(threads);
#else
  (void)threads;
#endif
  struct swarm_setup setup = {cfg, 0, 1, -1};
  struct backend b;
  double *best = malloc(sizeof(double) * (size_t)(iters + 1));
  backend_cpu_create(&setup, &b);
  b.ops->init(&b);
  b.ops->step(&b, 1, iters, best);
  swarm_state_alloc(st, cfg->swarm.particles, cfg->objective.dimensions);
  b.ops->save_state(&b, st);
  b.ops->destroy(&b);
  free(best);
}

static int same(const struct swarm_state *a, const struct swarm_state *b)
{
  size_t n = (size_t)a->particles * (size_t)a->dims * sizeof(double);
  size_t m = (size_t)a->particles * sizeof(double);
  return !memcmp(a->position, b->position, n) && !memcmp(a->velocity, b->velocity, n) &&
         !memcmp(a->pbest_position, b->pbest_position, n) && !memcmp(a->cost, b->cost, m) &&
         !memcmp(a->pbest_cost, b->pbest_cost, m);
}

/* Iteration 0 is x = fma(span, u(w[2d]), lower), v = vmax (2 u(w[2d+1]) - 1)
 * with the words of particle i's subsequence (island << 32 | i). */
static void check_initial_swarm(void)
{
  struct ipso_config cfg;
  load("sphere", 3, 5, "double", &cfg);
  struct swarm_state st;
  run(&cfg, 1, 0, &st);
  for (int i = 0; i < 5; i++) {
    uint64_t sub = swarm_subsequence(0, i);
    for (int d = 0; d < 3; d++) {
      double u1 = philox_uniform_double(philox_word(42, sub, 2u * (unsigned)d));
      double u2 = philox_uniform_double(philox_word(42, sub, 2u * (unsigned)d + 1));
      double x = fma(200.0, u1, -100.0);
      double v = (cfg.swarm.velocity_clamp * 200.0) * (2 * u2 - 1);
      CHECK(st.position[i * 3 + d] == x && st.velocity[i * 3 + d] == v,
            "particle %d dim %d: %.17g %.17g, want %.17g %.17g", i, d, st.position[i * 3 + d],
            st.velocity[i * 3 + d], x, v);
    }
  }
  swarm_state_free(&st);
  config_free(&cfg);
}

static void check_threads(const char *objective, int dims, const char *precision)
{
  struct ipso_config cfg;
  struct swarm_state a, b;
  load(objective, dims, 203, precision, &cfg);
  run(&cfg, 1, 60, &a);
  run(&cfg, 2, 60, &b);
  CHECK(same(&a, &b), "%s %s: 1 and 2 threads differ", objective, precision);
  swarm_state_free(&a);
  swarm_state_free(&b);
  config_free(&cfg);
}

static void check_migrants(void)
{
  struct ipso_config cfg;
  load("rastrigin", 4, 50, "double", &cfg);
  struct swarm_setup setup = {&cfg, 0, 1, -1};
  struct backend b;
  double best[20];
  backend_cpu_create(&setup, &b);
  b.ops->init(&b);
  b.ops->step(&b, 1, 20, best);
  struct swarm_state st;
  swarm_state_alloc(&st, 50, 4);
  b.ops->save_state(&b, &st);
  enum { M = 6 };
  double pos[M * 4], cost[M];
  int64_t idx[M], rep[M];
  b.ops->pack_migrants(&b, M, pos, cost, idx);
  /* The M best in (cost, index) order: nothing outside is better. */
  for (int m = 0; m < M; m++) {
    CHECK(cost[m] == st.pbest_cost[idx[m]], "migrant %d cost", m);
    CHECK(!memcmp(pos + m * 4, st.pbest_position + idx[m] * 4, 4 * sizeof(double)),
          "migrant %d position", m);
    if (m)
      CHECK(cost[m - 1] < cost[m] || (cost[m - 1] == cost[m] && idx[m - 1] < idx[m]),
            "migrants out of order");
  }
  for (int i = 0; i < 50; i++) {
    int chosen = 0;
    for (int m = 0; m < M; m++) chosen |= idx[m] == i;
    if (!chosen) CHECK(st.pbest_cost[i] >= cost[M - 1], "particle %d better than a migrant", i);
  }
  /* Incoming: three good ones replace the three worst, a bad one is refused. */
  double before = best[19];
  double in[4 * 4], in_cost[4] = {0.5, 0.75, 1.0, 1e300};
  for (int k = 0; k < 16; k++) in[k] = 0.125 * (k % 4);
  int64_t worst[4];
  for (int w = 0; w < 4; w++) {
    int64_t arg = -1;
    for (int i = 0; i < 50; i++) {
      int taken = 0;
      for (int k = 0; k < w; k++) taken |= worst[k] == i;
      if (taken) continue;
      if (arg < 0 || st.pbest_cost[i] > st.pbest_cost[arg] ||
          (st.pbest_cost[i] == st.pbest_cost[arg] && i > arg))
        arg = i;
    }
    worst[w] = arg;
  }
  b.ops->unpack_migrants(&b, 4, in, in_cost, rep);
  for (int k = 0; k < 3; k++)
    CHECK(rep[k] == worst[k], "migrant %d replaced %lld, want %lld", k, (long long)rep[k],
          (long long)worst[k]);
  CHECK(rep[3] == -1, "a worse migrant replaced a particle");
  struct island_best ib;
  double p[4];
  ib.position = p;
  b.ops->best(&b, &ib);
  CHECK(ib.cost <= before, "island best got worse across migration");
  CHECK(ib.cost == 0.5 || before < 0.5, "best migrant not adopted as island best");
  b.ops->save_state(&b, &st);
  CHECK(st.velocity[rep[0] * 4] == 0 && st.position[rep[0] * 4 + 1] == 0.125,
        "replaced particle not reset to the migrant");
  swarm_state_free(&st);
  b.ops->destroy(&b);
  config_free(&cfg);
}

int main(void)
{
  check_initial_swarm();
  check_threads("rastrigin", 30, "double");
  check_threads("rosenbrock", 7, "float");
  check_threads("cubic", 1, "double");
  check_migrants();
  printf("%s\n", failures ? "FAILED" : "passed");
  return failures ? 1 : 0;
}

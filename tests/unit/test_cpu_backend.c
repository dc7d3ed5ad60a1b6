/* The CPU reference backend: the initial swarm is the documented function of
 * the Philox stream; results are byte-identical for 1 and 2 OpenMP threads;
 * migrants are the best personal bests and replace the worst particles only
 * when better; the random policies' chosen particles are sent as given and
 * replaced exactly where given, only when better; save/load continues
 * exactly; K islands in one backend give
 * the bits of K backends of one island each (any thread count). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend_cpu.h"
#include "config.h"
#include "migration.h"
#include "philox.h"

#include "cpu_run.h"
#include "unit_check.h"

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

/* Iteration 0 is x = fma(span, u(w[2d]), lower), v = vmax (2 u(w[2d+1]) - 1)
 * with the words of particle i's subsequence (island << 32 | i), vmax the
 * island's clamp (the defaults: 5% of the range on island 0, all of it on
 * island 1). */
static void check_initial_swarm(void)
{
  struct ipso_config cfg;
  load("sphere", 3, 5, "double", &cfg);
  CHECK(config_clamp(&cfg, 0) == 0.05 && config_clamp(&cfg, 1) == 1, "the default clamps");
  for (int island = 0; island < 2; island++) {
    struct swarm_setup setup = {&cfg, island, 2, -1, 1};
    struct backend b;
    struct swarm_state st;
    if (backend_cpu_create(&setup, &b) != IPSO_OK) exit(1);
    b.ops->init(&b);
    swarm_state_alloc(&st, 5, 3);
    b.ops->save_state(&b, &st);
    b.ops->destroy(&b);
    for (int i = 0; i < 5; i++) {
      uint64_t sub = swarm_subsequence(island, i);
      for (int d = 0; d < 3; d++) {
        double u1 = philox_uniform_double(philox_word(42, sub, 2u * (unsigned)d));
        double u2 = philox_uniform_double(philox_word(42, sub, 2u * (unsigned)d + 1));
        double x = fma(200.0, u1, -100.0);
        double v = (config_clamp(&cfg, island) * 200.0) * (2 * u2 - 1);
        CHECK(st.position[i * 3 + d] == x && st.velocity[i * 3 + d] == v,
              "island %d particle %d dim %d: %.17g %.17g, want %.17g %.17g", island, i, d,
              st.position[i * 3 + d], st.velocity[i * 3 + d], x, v);
      }
    }
    swarm_state_free(&st);
  }
}

static void check_threads(const char *objective, int dims, const char *precision)
{
  struct ipso_config cfg;
  struct swarm_state a, b;
  load(objective, dims, 203, precision, &cfg);
  run(&cfg, 1, 60, &a);
  run(&cfg, 2, 60, &b);
  CHECK(same_swarm(&a, &b), "%s %s: 1 and 2 threads differ", objective, precision);
  swarm_state_free(&a);
  swarm_state_free(&b);
  config_free(&cfg);
}

static void check_migrants(void)
{
  struct ipso_config cfg;
  load("rastrigin", 4, 50, "double", &cfg);
  struct swarm_setup setup = {&cfg, 0, 1, -1, 1};
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
  cpu_pack_migrants(&b, 0, M, pos, cost, idx);
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
  cpu_unpack_migrants(&b, 0, 4, in, in_cost, rep);
  for (int k = 0; k < 3; k++)
    CHECK(rep[k] == worst[k], "migrant %d replaced %lld, want %lld", k, (long long)rep[k],
          (long long)worst[k]);
  CHECK(rep[3] == -1, "a worse migrant replaced a particle");
  struct island_best ib;
  double p[4];
  ib.position = p;
  b.ops->best(&b, 0, &ib);
  CHECK(ib.cost <= before, "island best got worse across migration");
  CHECK(ib.cost == 0.5 || before < 0.5, "best migrant not adopted as island best");
  b.ops->save_state(&b, &st);
  CHECK(st.velocity[rep[0] * 4] == 0 && st.position[rep[0] * 4 + 1] == 0.125,
        "replaced particle not reset to the migrant");
  swarm_state_free(&st);
  b.ops->destroy(&b);
  config_free(&cfg);
}

/* The random policies' operations on given particles (PRECISION): the
 * personal bests of the particles asked for, in that order; migrants into
 * the particles asked for, each only if strictly better than the particle's
 * personal best, every other particle untouched. */
static void check_chosen(const char *precision)
{
  struct ipso_config cfg;
  load("rastrigin", 4, 50, precision, &cfg);
  struct swarm_setup setup = {&cfg, 0, 1, -1, 1};
  struct backend b;
  double best[20];
  backend_cpu_create(&setup, &b);
  b.ops->init(&b);
  b.ops->step(&b, 1, 20, best);
  struct swarm_state st, after;
  swarm_state_alloc(&st, 50, 4);
  swarm_state_alloc(&after, 50, 4);
  b.ops->save_state(&b, &st);
  const int64_t out[4] = {7, 0, 49, 13};
  double pos[4 * 4], cost[4];
  cpu_pack_chosen(&b, 0, 4, out, pos, cost);
  for (int m = 0; m < 4; m++)
    CHECK(cost[m] == st.pbest_cost[out[m]] &&
              !memcmp(pos + m * 4, st.pbest_position + out[m] * 4, 4 * sizeof(double)),
          "%s: chosen migrant %d is not particle %lld's personal best", precision, m,
          (long long)out[m]);
  /* Into 3, 20, 41 and 8: better (0.25), equal to the particle's personal
   * best (kept: strictly better only), worse (1e300), better (half the
   * particle's). */
  const int64_t at[4] = {3, 20, 41, 8};
  double in[4 * 4], in_cost[4] = {0.25, st.pbest_cost[20], 1e300, 0.5 * st.pbest_cost[8]};
  for (int e = 0; e < 16; e++) in[e] = 0.125 * e;
  int64_t rep[4];
  CHECK(st.pbest_cost[3] > 0.25 && st.pbest_cost[8] > 0, "%s: the case needs worse particles",
        precision);
  cpu_unpack_chosen(&b, 0, 4, at, in, in_cost, rep);
  const int64_t want[4] = {3, -1, -1, 8};
  for (int m = 0; m < 4; m++)
    CHECK(rep[m] == want[m], "%s: migrant %d into %lld: replaced %lld, want %lld", precision, m,
          (long long)at[m], (long long)rep[m], (long long)want[m]);
  b.ops->save_state(&b, &after);
  for (int i = 0; i < 50; i++) {
    int m = i == 3 ? 0 : i == 8 ? 3 : -1;
    if (m < 0) {
      CHECK(!memcmp(after.position + i * 4, st.position + i * 4, 4 * sizeof(double)) &&
                !memcmp(after.velocity + i * 4, st.velocity + i * 4, 4 * sizeof(double)) &&
                !memcmp(after.pbest_position + i * 4, st.pbest_position + i * 4,
                        4 * sizeof(double)) &&
                after.cost[i] == st.cost[i] && after.pbest_cost[i] == st.pbest_cost[i],
            "%s: particle %d changed, no migrant was meant for it", precision, i);
      continue;
    }
    double c = strcmp(precision, "float") ? in_cost[m] : (double)(float)in_cost[m];
    for (int d = 0; d < 4; d++)
      CHECK(after.position[i * 4 + d] == in[m * 4 + d] &&
                after.pbest_position[i * 4 + d] == in[m * 4 + d] && after.velocity[i * 4 + d] == 0,
            "%s: particle %d dimension %d is not migrant %d with zero velocity", precision, i, d,
            m);
    CHECK(after.cost[i] == c && after.pbest_cost[i] == c, "%s: particle %d's costs %g %g, want %g",
          precision, i, after.cost[i], after.pbest_cost[i], c);
  }
  struct island_best ib;
  double p[4];
  ib.position = p;
  b.ops->best(&b, 0, &ib);
  CHECK(ib.cost <= 0.25 && ib.cost <= best[19], "%s: island best %g after a migrant of 0.25",
        precision, ib.cost);
  swarm_state_free(&st);
  swarm_state_free(&after);
  b.ops->destroy(&b);
  config_free(&cfg);
}

/* K islands in one backend (global ids FIRST..FIRST+K-1) against K backends
 * of one island each: the same histories, states, bests and migrations, bit
 * for bit, on THREADS OpenMP threads. */
static void check_islands(const char *objective, int dims, int particles, const char *precision,
                          const char *topology, int threads)
{
  enum { K = 3, FIRST = 5, T = 6, M = 2 };
  char text[512];
  snprintf(text, sizeof text,
           "[run]\nseed = 42\nprecision = \"%s\"\noutput = \"\"\n[objective]\nname = \"%s\"\n"
           "dimensions = %d\n[swarm]\nparticles = %d\ntopology = \"%s\"\n",
           precision, objective, dims, particles, topology);
  struct ipso_config cfg;
  if (config_load_text(text, "test", 0, NULL, 1, &cfg) != IPSO_OK) exit(1);
#ifdef _OPENMP
  omp_set_num_threads(threads);
#else
  (void)threads;
#endif
  struct swarm_setup all = {&cfg, FIRST, 16, -1, K};
  struct backend multi, one[K];
  CHECK(backend_cpu_create(&all, &multi) == IPSO_OK, "create %d islands", K);
  for (int k = 0; k < K; k++) {
    struct swarm_setup s1 = {&cfg, FIRST + k, 16, -1, 1};
    CHECK(backend_cpu_create(&s1, &one[k]) == IPSO_OK, "create island %d", FIRST + k);
    one[k].ops->init(&one[k]);
  }
  multi.ops->init(&multi);
  double hm[K * T], h1[T];
  struct swarm_state sm, s1;
  swarm_state_alloc(&sm, (int64_t)K * particles, dims);
  swarm_state_alloc(&s1, particles, dims);
  for (int round = 0; round < 2; round++) {
    int64_t first = 1 + round * T, last = first + T - 1;
    multi.ops->step(&multi, first, last, hm);
    multi.ops->save_state(&multi, &sm);
    for (int k = 0; k < K; k++) {
      one[k].ops->step(&one[k], first, last, h1);
      one[k].ops->save_state(&one[k], &s1);
      struct swarm_state v = swarm_state_island(&sm, particles, k);
      CHECK(!memcmp(hm + k * T, h1, sizeof h1), "%s %s: island %d's history differs", objective,
            topology, k);
      CHECK(same_swarm(&v, &s1), "%s %s %s, %d threads: island %d's swarm differs after %lld",
            objective, precision, topology, threads, k, (long long)last);
      double pa[dims], pb[dims];
      struct island_best ba = {0, 0, pa}, bb = {0, 0, pb};
      multi.ops->best(&multi, k, &ba);
      one[k].ops->best(&one[k], 0, &bb);
      CHECK(ba.cost == bb.cost && ba.particle == bb.particle && !memcmp(pa, pb, sizeof pa),
            "island %d's best differs", k);
    }
    /* A migration: each island takes its left neighbour's best and
     * replaces its worst (round 0), or sends drawn particles and replaces
     * drawn ones (round 1), in both. */
    double pos[K][M * dims], cost[K][M];
    int64_t idx[M], rep_m[M], rep_1[M];
    for (int k = 0; k < K; k++) {
      double p1[M * dims], c1[M];
      int64_t i1[M];
      if (round == 0) {
        cpu_pack_migrants(&multi, k, M, pos[k], cost[k], idx);
        cpu_pack_migrants(&one[k], 0, M, p1, c1, i1);
      } else {
        migration_draw(42, FIRST + k, last, MIGRATION_DRAW_SELECT, particles, M, idx);
        cpu_pack_chosen(&multi, k, M, idx, pos[k], cost[k]);
        cpu_pack_chosen(&one[k], 0, M, idx, p1, c1);
      }
      CHECK(!memcmp(p1, pos[k], sizeof p1) && !memcmp(c1, cost[k], sizeof c1),
            "island %d's migrants differ", k);
    }
    for (int k = 0; k < K; k++) {
      int from = (k + K - 1) % K;
      if (round == 0) {
        cpu_unpack_migrants(&multi, k, M, pos[from], cost[from], rep_m);
        cpu_unpack_migrants(&one[k], 0, M, pos[from], cost[from], rep_1);
      } else {
        migration_draw(42, FIRST + k, last, MIGRATION_DRAW_REPLACE, particles, M, idx);
        cpu_unpack_chosen(&multi, k, M, idx, pos[from], cost[from], rep_m);
        cpu_unpack_chosen(&one[k], 0, M, idx, pos[from], cost[from], rep_1);
      }
      CHECK(!memcmp(rep_m, rep_1, sizeof rep_m), "island %d replaced other particles", k);
    }
  }
  /* save/load of all islands continues exactly. */
  multi.ops->save_state(&multi, &sm);
  multi.ops->load_state(&multi, &sm);
  multi.ops->step(&multi, 2 * T + 1, 3 * T, hm);
  for (int k = 0; k < K; k++) {
    one[k].ops->step(&one[k], 2 * T + 1, 3 * T, h1);
    CHECK(!memcmp(hm + k * T, h1, sizeof h1), "island %d after load_state differs", k);
    one[k].ops->destroy(&one[k]);
  }
  multi.ops->destroy(&multi);
  swarm_state_free(&sm);
  swarm_state_free(&s1);
  config_free(&cfg);
}

/* The whole migration (migrate_out, migrate_in, migrate_sent) against the
 * per-island operations as the solver composed them before: 4 islands in
 * one backend (the ring of the 4 closing inside it, one link each) and in
 * two backends of 2 whose edge messages cross as between ranks, against 4
 * islands migrated island by island (pack all, merge each island's
 * message, unpack); the best and worst (ROUND 0) and drawn particles
 * (ROUND 1, drawn migrants merged by cost): the same bits, and the log's
 * costs the best of each message. */
static void check_whole_migration(const char *precision)
{
  enum { K = 4, H = K / 2, N = 40, D = 5, M = 3, T = 6 };
  struct ipso_config cfg;
  load("rastrigin", D, N, precision, &cfg);
  struct swarm_setup all = {&cfg, 2, 8, -1, K};
  struct swarm_setup halves[2] = {{&cfg, 2, 8, -1, H}, {&cfg, 2 + H, 8, -1, H}};
  struct backend ref, one, half[2];
  int ok = backend_cpu_create(&all, &ref) == IPSO_OK && backend_cpu_create(&all, &one) == IPSO_OK;
  for (int h = 0; h < 2; h++) ok = ok && backend_cpu_create(&halves[h], &half[h]) == IPSO_OK;
  CHECK(ok, "create the backends");
  if (!ok) exit(1);
  struct backend *b4[] = {&ref, &one, &half[0], &half[1]};
  double best[K * T];
  for (int i = 0; i < 4; i++) b4[i]->ops->init(b4[i]);
  enum { n = M * (D + 1) };
  static double msg[K][n], merged[n], edge[2][2][n], sent[K];
  int64_t idx[M], rep[M], sel[K * M], drawn[K * M];
  unsigned char carried[2 * K] = {0};
  for (int k = 0; k < K; k++) carried[2 * k] = 1;
  struct swarm_state sr, so, sh;
  swarm_state_alloc(&sr, (int64_t)K * N, D);
  swarm_state_alloc(&so, (int64_t)K * N, D);
  swarm_state_alloc(&sh, (int64_t)H * N, D);
  for (int round = 0; round < 2; round++) {
    int64_t first = 1 + round * T, last = first + T - 1;
    for (int i = 0; i < 4; i++) b4[i]->ops->step(b4[i], first, last, best);
    for (int k = 0; k < K; k++) {
      migration_draw(7, 2 + k, last, MIGRATION_DRAW_SELECT, N, M, sel + k * M);
      migration_draw(7, 2 + k, last, MIGRATION_DRAW_REPLACE, N, M, drawn + k * M);
      if (round)
        cpu_pack_chosen(&ref, k, M, sel + k * M, msg[k] + M, msg[k]);
      else
        cpu_pack_migrants(&ref, k, M, msg[k] + M, msg[k], idx);
    }
    for (int k = 0; k < K; k++) {
      const double *from[2] = {msg[(k + K - 1) % K], NULL};
      CHECK(migration_merge(1, M, D, from, merged, merged + M) == IPSO_OK, "merge");
      if (round)
        cpu_unpack_chosen(&ref, k, M, drawn + k * M, merged + M, merged, rep);
      else
        cpu_unpack_migrants(&ref, k, M, merged + M, merged, rep);
    }
    CHECK(one.ops->migrate_out(&one, M, round ? sel : NULL, 0, NULL) == IPSO_OK, "migrate_out");
    CHECK(one.ops->migrate_in(&one, M, 1, carried, round ? drawn : NULL, NULL) == IPSO_OK,
          "migrate_in");
    CHECK(one.ops->migrate_sent(&one, sent) == IPSO_OK, "migrate_sent");
    for (int k = 0; k < K; k++) {
      double b = msg[k][0];
      for (int m = 1; m < M; m++) b = msg[k][m] < b ? msg[k][m] : b;
      CHECK(sent[k] == b, "%s round %d: island %d sent %.17g, its message's best is %.17g",
            precision, round, k, sent[k], b);
    }
    for (int h = 0; h < 2; h++) {
      double *out[2] = {edge[h][0], edge[h][1]};
      CHECK(half[h].ops->migrate_out(&half[h], M, round ? sel + h * H * M : NULL, 0, out) ==
                IPSO_OK,
            "migrate_out of half %d", h);
      CHECK(!memcmp(edge[h][0], msg[h * H], sizeof msg[0]) &&
                !memcmp(edge[h][1], msg[h * H + H - 1], sizeof msg[0]),
            "%s round %d: half %d's edge messages", precision, round, h);
    }
    for (int h = 0; h < 2; h++) {
      const double *in[2] = {edge[1 - h][1], edge[1 - h][0]};
      CHECK(half[h].ops->migrate_in(&half[h], M, 1, carried + 2 * h * H,
                                    round ? drawn + h * H * M : NULL, in) == IPSO_OK,
            "migrate_in of half %d", h);
    }
    ref.ops->save_state(&ref, &sr);
    one.ops->save_state(&one, &so);
    CHECK(same_swarm(&sr, &so), "%s round %d: one backend differs", precision, round);
    for (int h = 0; h < 2; h++) {
      half[h].ops->save_state(&half[h], &sh);
      struct swarm_state v = swarm_state_island(&sr, (int64_t)H * N, h);
      CHECK(same_swarm(&v, &sh), "%s round %d: half %d differs", precision, round, h);
    }
  }
  for (int i = 0; i < 4; i++) b4[i]->ops->destroy(b4[i]);
  swarm_state_free(&sr);
  swarm_state_free(&so);
  swarm_state_free(&sh);
  config_free(&cfg);
}

/* Eigen frames (swarm.frame = "mixed"): the even island keeps the axes, the
 * odd one's frame is orthonormal and has left them; save/load continues
 * exactly (the frame is state). */
static void check_frames(void)
{
  struct ipso_config cfg;
  load("rosenbrock", 7, 40, "double", &cfg);
  CHECK(cfg.swarm.frame == IPSO_FRAME_MIXED, "the default frame is mixed");
  struct swarm_setup setup = {&cfg, 0, 2, -1, 2};
  struct backend b, r;
  struct swarm_state a, c;
  double best[2 * 60];
  if (backend_cpu_create(&setup, &b) != IPSO_OK || backend_cpu_create(&setup, &r) != IPSO_OK)
    exit(1);
  b.ops->init(&b);
  b.ops->step(&b, 1, 35, best);
  swarm_state_alloc(&a, 80, 7);
  swarm_state_alloc_frames(&a, 2);
  const double *frames = a.frame;
  b.ops->save_state(&b, &a);
  double off = 0, moved = 0;
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < 7; i++)
      for (int j = 0; j < 7; j++) {
        const double *B = frames + k * 49;
        double dot = 0;
        for (int d = 0; d < 7; d++) dot += B[d * 7 + i] * B[d * 7 + j];
        off = fmax(off, fabs(dot - (i == j)));
        if (k == 0) CHECK(B[i * 7 + j] == (i == j), "island 0 keeps the axes");
        if (k == 1) moved = fmax(moved, fabs(B[i * 7 + j] - (i == j)));
      }
  CHECK(off < 1e-12, "frames orthonormal to %.3g", off);
  CHECK(moved > 1e-3, "island 1's frame has left the axes (%.3g)", moved);
  r.ops->init(&r);
  r.ops->load_state(&r, &a);
  b.ops->step(&b, 36, 60, best);
  r.ops->step(&r, 36, 60, best);
  swarm_state_alloc(&c, 80, 7);
  swarm_state_alloc_frames(&c, 2);
  b.ops->save_state(&b, &a);
  r.ops->save_state(&r, &c);
  CHECK(same_swarm(&a, &c) && !memcmp(a.frame, c.frame, 2 * 49 * sizeof(double)),
        "load_state with frames does not continue exactly");
  b.ops->destroy(&b);
  r.ops->destroy(&r);
  swarm_state_free(&a);
  swarm_state_free(&c);
  config_free(&cfg);
}

int main(void)
{
  check_initial_swarm();
  check_frames();
  check_threads("rastrigin", 30, "double");
  check_threads("rosenbrock", 7, "float");
  check_threads("cubic", 1, "double");
  check_migrants();
  check_chosen("double");
  check_chosen("float");
  check_whole_migration("double");
  check_whole_migration("float");
  /* Small islands run in parallel over islands, large ones over particles. */
  for (int threads = 1; threads <= 2; threads++) {
    check_islands("rastrigin", 30, 50, "double", "global", threads);
    check_islands("rosenbrock", 7, 33, "float", "ring", threads);
    check_islands("sphere", 30, 700, "float", "global", threads);
    check_islands("cubic", 1, 100, "double", "ring", threads);
    check_islands("rastrigin", 30, 50, "double", "clpso", threads);
    check_islands("ackley", 30, 700, "float", "clpso", threads);
  }
  printf("%s\n", failures ? "FAILED" : "passed");
  return failures ? 1 : 0;
}

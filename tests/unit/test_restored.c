/* A restart's state checked against the objective (src/invariants.c,
 * invariants_check_restored), on one process: two islands of the sphere
 * whose costs are the objective's agree, in double and in float; a
 * personal best, a current cost or the best's cost changed (with every
 * checksum of a checkpoint recomputed, which this check does not read) is
 * refused with exit status 2 naming the island and the particle. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "invariants.h"
#include "log.h"
#include "swarm.h"
#include "unit_check.h"

#define N 8
#define D 3

/* A swarm of two islands of the sphere in precision FL: costs and
 * personal-best costs the objective's at their positions. */
static void fill(struct swarm_state *s, int fl)
{
  for (int64_t i = 0; i < 2 * N; i++) {
    double c = 0, pc = 0;
    float cf = 0, pf = 0; /* the float objective sums in float */
    for (int d = 0; d < D; d++) {
      double x = 0.37 * (double)(i + 1) - 0.11 * d, b = 0.5 * x;
      if (fl) x = (float)x, b = (float)b;
      s->position[i * D + d] = x;
      s->pbest_position[i * D + d] = b;
      s->velocity[i * D + d] = 0;
      c += x * x;
      pc += b * b;
      cf += (float)x * (float)x;
      pf += (float)b * (float)b;
    }
    s->cost[i] = fl ? cf : c;
    s->pbest_cost[i] = fl ? pf : pc;
  }
}

/* Expects the verdict WANT (0 or 2) on S. */
static void expect(const struct ipso_config *cfg, const struct swarm_state *s, int want,
                   const char *what)
{
  int st = invariants_check_restored(MPI_COMM_WORLD, cfg, 1, s, 4, "ckpt.h5");
  CHECK(st == want, "%s: status %d, want %d", what, st, want);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  log_init(0, 1);
  for (int fl = 0; fl < 2; fl++) {
    const char *text = fl ? "[run]\nprecision = \"float\"\n[objective]\nname = \"sphere\"\n"
                            "dimensions = 3\n[swarm]\nparticles = 8\n"
                          : "[objective]\nname = \"sphere\"\ndimensions = 3\n"
                            "[swarm]\nparticles = 8\n";
    struct ipso_config cfg;
    struct swarm_state s;
    CHECK(config_load_text(text, "t.toml", 0, NULL, 1, &cfg) == 0, "config");
    CHECK(swarm_state_alloc(&s, 2 * N, D) == 0, "state");
    fill(&s, fl);
    expect(&cfg, &s, 0, fl ? "float: the objective's costs" : "the objective's costs");
    struct {
      const char *what;
      double *at;
    } edits[] = {{"a personal best's cost", &s.pbest_cost[N + 5]},
                 {"a current cost", &s.cost[3]},
                 {"the best personal best's cost", &s.pbest_cost[0]}};
    for (size_t k = 0; k < sizeof edits / sizeof edits[0]; k++) {
      double keep = *edits[k].at;
      *edits[k].at = keep - 0.25;
      expect(&cfg, &s, 2, edits[k].what);
      *edits[k].at = keep;
    }
    expect(&cfg, &s, 0, "restored again");
    swarm_state_free(&s);
    config_free(&cfg);
  }
  MPI_Finalize();
  if (failures) printf("FAILED (%d)\n", failures);
  return failures ? 1 : 0;
}

/* Each built-in objective at its known optimum and at a hand-computed point,
 * in double and float; and objective_optimum() for default and custom bounds. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "objective.h"
#include "problem.h"

static int failures = 0;

static void expect(const char *name, int n, const double *x, const double *prm, double want,
                   double tol)
{
  const struct objective_info *info = objective_find(name);
  double got = info->eval_d(x, n, prm);
  float xf[8], pf[8];
  for (int d = 0; d < n; d++) {
    xf[d] = (float)x[d];
    pf[d] = prm ? (float)prm[d] : 0.0f;
  }
  double gotf = info->eval_f(xf, n, prm ? pf : NULL);
  double tolf = 1e-5 * (1 + fabs(want)) + tol;
  if (!(fabs(got - want) <= tol) || !(fabs(gotf - want) <= tolf)) {
    printf("FAIL %s: double %.17g float %.9g, want %.17g\n", name, got, gotf, want);
    failures++;
  }
}

static void optimum(const char *toml_name, int dims, double lo, double hi, enum ipso_goal goal,
                    int known, double want)
{
  struct ipso_config cfg;
  memset(&cfg, 0, sizeof cfg);
  double lower[4], upper[4];
  for (int d = 0; d < dims; d++) lower[d] = lo, upper[d] = hi;
  const struct objective_info *info = objective_find(toml_name);
  cfg.objective.id = objective_id(info);
  cfg.objective.dimensions = dims;
  cfg.objective.lower = lower;
  cfg.objective.upper = upper;
  cfg.objective.goal = goal;
  double v = 0;
  int k = objective_optimum(&cfg, &v);
  if (k != known || (known && !(fabs(v - want) <= 1e-9 * (1 + fabs(want))))) {
    printf("FAIL optimum of %s on [%g, %g]: known %d value %.17g, want %d %.17g\n", toml_name, lo,
           hi, k, v, known, want);
    failures++;
  }
}

int main(void)
{
  const double zero[4] = {0, 0, 0, 0}, one[4] = {1, 1, 1, 1};
  /* At the optimum. */
  expect("sphere", 4, zero, NULL, 0, 0);
  expect("rastrigin", 4, zero, NULL, 0, 0);
  expect("rosenbrock", 4, one, NULL, 0, 0);
  expect("griewank", 4, zero, NULL, 0, 0);
  expect("ackley", 4, zero, NULL, 0, 1e-14);
  const double xs[2] = {420.968746227503, 420.968746227503};
  expect("schwefel", 2, xs, NULL, 0, 1e-9);
  const double c100[3] = {100, 100, 100};
  expect("cubic", 3, c100, NULL, 2700000, 0);
  expect("target_distance", 2, one, one, 0, 0);
  /* At hand-computed points. */
  const double p123[3] = {1, 2, 3};
  expect("sphere", 3, p123, NULL, 14, 0);
  const double r[2] = {0.5, 1.0};
  expect("rastrigin", 2, r, NULL, 21.25, 1e-12);
  expect("rosenbrock", 3, zero, NULL, 2, 0);
  const double r12[2] = {1, 2};
  expect("rosenbrock", 2, r12, NULL, 100, 0);
  expect("griewank", 2, one, NULL, 0.5897380911762422, 1e-15);
  expect("ackley", 2, one, NULL, 3.6253849384403636, 1e-13);
  expect("schwefel", 1, zero, NULL, 418.9828872724338, 1e-12);
  expect("cubic", 1, zero, NULL, 8000, 0);
  expect("cubic", 2, r12, NULL, 13005, 1e-9);
  expect("target_distance", 2, zero, one, 0.2, 1e-15);
  const double t20[2] = {2, 0};
  expect("target_distance", 2, t20, one, 80.2, 1e-12);

  optimum("sphere", 3, -100, 100, IPSO_MINIMIZE, 1, 0);
  optimum("sphere", 3, 1, 100, IPSO_MINIMIZE, 0, 0); /* optimum outside the bounds */
  optimum("sphere", 3, -100, 100, IPSO_MAXIMIZE, 0, 0);
  optimum("rosenbrock", 2, -5, 10, IPSO_MINIMIZE, 1, 0);
  optimum("schwefel", 4, -500, 500, IPSO_MINIMIZE, 1, 0);
  optimum("cubic", 2, -100, 100, IPSO_MAXIMIZE, 1, 1800000);
  optimum("cubic", 1, -100, 100, IPSO_MINIMIZE, 1, -900000);
  /* On [-50, 10] the interior stationary point is the maximum: x ~ -17.99. */
  double xm = (1.6 - sqrt(0.8 * 0.8 * 4 + 12000)) / 6;
  optimum("cubic", 1, -50, 10, IPSO_MAXIMIZE, 1, ((xm - 0.8) * xm - 1000) * xm + 8000);
  printf("%s\n", failures ? "FAILED" : "passed");
  return failures ? 1 : 0;
}

/* islandpso CONFIG --evaluate FILE: the configured objective at the points
 * of FILE, on the configured backend, one value a line; nothing written. */
#include "solver.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cec2017_data.h"
#include "check.h"
#include "problem.h"

/* The points of PATH, D numbers a line ('#' and blank lines skipped), into *X
 * (NULL on entry) and *N; IPSO_ERR_USAGE naming PATH:line otherwise. */
static int read_points(const char *path, int D, double **x, int64_t *n)
{
  FILE *f = fopen(path, "r");
  if (!f)
    return IPSO_USAGE("islandpso: error: cannot read the points '%s': %s", path, strerror(errno));
  char *line = NULL;
  size_t cap = 0;
  int64_t have = 0, room = 0, lineno = 0;
  int rc = IPSO_OK;
  while (rc == IPSO_OK && getline(&line, &cap, f) >= 0) {
    lineno++;
    char *p = line + strspn(line, " \t\r\n");
    if (*p == '#' || *p == '\0') continue;
    if (have == room) {
      room = room ? 2 * room : 64;
      double *grown = realloc(*x, (size_t)room * (size_t)D * sizeof **x);
      if (!grown) {
        rc = IPSO_FAIL("memory", "out of memory for the points of '%s'", path);
        break;
      }
      *x = grown;
    }
    int count = 0;
    for (char *tok = strtok(p, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n"), count++) {
      char *end;
      errno = 0;
      double v = strtod(tok, &end);
      if (*end || end == tok || errno == ERANGE || !isfinite(v)) {
        rc =
            IPSO_USAGE("%s:%lld: error: '%s' is not a finite number", path, (long long)lineno, tok);
        break;
      }
      if (count < D) (*x)[have * D + count] = v;
    }
    if (rc == IPSO_OK && count != D)
      rc = IPSO_USAGE("%s:%lld: error: %d number%s on the line, the objective has %d dimension%s",
                      path, (long long)lineno, count, count == 1 ? "" : "s", D, D == 1 ? "" : "s");
    have++;
  }
  free(line);
  fclose(f);
  *n = have;
  return rc;
}

int evaluate_points(const struct ipso_config *config, const char *path)
{
  /* "auto" decided here, the backend's messages to stderr: stdout has the values alone. */
  log_info_to_stderr();
  struct ipso_config c = *config;
  if (c.run.backend == IPSO_BACKEND_AUTO)
    c.run.backend = backend_gpu_count() > 0 ? IPSO_BACKEND_GPU : IPSO_BACKEND_CPU;
  int D = c.objective.dimensions;
  double *x = NULL, *f = NULL, *data;
  int64_t n, nd;
  int rc = read_points(path, D, &x, &n);
  if (rc == IPSO_OK && c.objective.id == IPSO_OBJ_CEC2017 &&
      (rc = cec2017_data_for(&c, 0, &data, &nd)) == IPSO_OK)
    problem_data_set(data, nd);
  struct swarm_setup setup = {&c, 0, 1, 0, 1};
  struct backend b = {0};
  if (rc == IPSO_OK) rc = backend_create(&setup, 1, &b);
  if (rc == IPSO_OK && !(f = malloc((size_t)(n > 0 ? n : 1) * sizeof *f)))
    rc = IPSO_FAIL("memory", "out of memory");
  if (rc == IPSO_OK) rc = b.ops->evaluate(&b, x, n, f);
  for (int64_t i = 0; rc == IPSO_OK && i < n; i++) printf("%.17g\n", f[i]);
  backend_end(&b);
  problem_data_set(NULL, 0);
  free(f);
  free(x);
  return rc;
}

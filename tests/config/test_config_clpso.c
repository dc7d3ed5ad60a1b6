/* The config of the clpso topology and of the inertia schedule: clpso's own
 * defaults (inertia 0.9 -> 0.4, cognitive 0, social 1.49445, refresh 7)
 * written into the resolved text, its keys set by overrides, a schedule on
 * another topology, the defaults without one; the resolved text reads back
 * as the same config and so does a packed buffer; the topology's name.
 * (Bad values: tests/config/bad, file, line and column checked by
 * test_config and config_bad_inputs.) Data files through $IPSO_TEST_DIR. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#include "unit_check.h"

static char good[PATH_MAX];

/* Loads tests/config/good/clpso.toml with the overrides OV[0..n). */
static int load(int n, char **ov, struct ipso_config *cfg)
{
  int rc = config_load(good, n, ov, 4, cfg);
  CHECK(rc == IPSO_OK, "%s with %d overrides does not load", good, n);
  return rc;
}

/* The swarm settings of A and B are the same, and so are their texts. */
static int same_swarm(const struct ipso_config *a, const struct ipso_config *b)
{
  const struct ipso_swarm_config *p = &a->swarm, *q = &b->swarm;
  return p->topology == q->topology && p->inertia == q->inertia &&
         p->has_inertia_end == q->has_inertia_end && p->inertia_end == q->inertia_end &&
         p->cognitive == q->cognitive && p->social == q->social && p->refresh == q->refresh &&
         p->neighbours == q->neighbours && p->particles == q->particles && a->text && b->text &&
         !strcmp(a->text, b->text);
}

/* CFG's resolved text reads back as CFG. */
static void check_round_trips(const struct ipso_config *cfg)
{
  struct ipso_config again;
  CHECK(config_load_text(cfg->text, "resolved.toml", 0, NULL, 4, &again) == IPSO_OK,
        "resolved text does not load:\n%s", cfg->text);
  CHECK(same_swarm(cfg, &again), "resolved text reads back as another config:\n%s", cfg->text);
  config_free(&again);
}

int main(void)
{
  const char *dir = getenv("IPSO_TEST_DIR");
  if (!dir || !*dir) {
    printf("test_config_clpso: IPSO_TEST_DIR must name the tests/ source directory\n");
    return 1;
  }
  snprintf(good, sizeof good, "%s/config/good/clpso.toml", dir);
  CHECK(!strcmp(config_swarm_topology_name(IPSO_SWARM_CLPSO), "clpso"), "topology name");

  struct ipso_config c;
  if (load(0, NULL, &c) != IPSO_OK) return 1;
  CHECK(c.swarm.topology == IPSO_SWARM_CLPSO && c.swarm.inertia == 0.9 && c.swarm.has_inertia_end &&
            c.swarm.inertia_end == 0.4 && c.swarm.cognitive == 0.0 && c.swarm.social == 1.49445 &&
            c.swarm.refresh == 7,
        "clpso defaults");
  CHECK(strstr(c.text, "inertia = 0.9\ninertia_end = 0.4\ncognitive = 0.0\nsocial = 1.49445\n") &&
            strstr(c.text, "topology = \"clpso\"\nrefresh = 7\n") && !strstr(c.text, "neighbours"),
        "resolved text of the defaults:\n%s", c.text);
  check_round_trips(&c);
  config_free(&c);

  char *ov[] = {"swarm.refresh=3", "swarm.inertia_end=0.6", "swarm.inertia=0.7",
                "swarm.cognitive=0.5"};
  if (load(4, ov, &c) != IPSO_OK) return 1;
  CHECK(c.swarm.refresh == 3 && c.swarm.inertia == 0.7 && c.swarm.inertia_end == 0.6 &&
            c.swarm.cognitive == 0.5 && c.swarm.social == 1.49445,
        "clpso keys set");
  check_round_trips(&c);
  config_free(&c);

  /* A schedule on the ring, which keeps SPSO's coefficients. */
  char *ring[] = {"swarm.topology=\"ring\"", "swarm.inertia_end=0.25"};
  if (load(2, ring, &c) != IPSO_OK) return 1;
  CHECK(c.swarm.topology == IPSO_SWARM_RING && c.swarm.has_inertia_end &&
            c.swarm.inertia_end == 0.25 && c.swarm.inertia == 0.72134752044448170 &&
            strstr(c.text, "inertia_end = 0.25\n") && !strstr(c.text, "refresh"),
        "ring with a schedule:\n%s", c.text);
  check_round_trips(&c);
  config_free(&c);

  /* Without clpso and without inertia_end: constant, and said so. */
  char *global[] = {"swarm.topology=\"global\""};
  if (load(1, global, &c) != IPSO_OK) return 1;
  CHECK(!c.swarm.has_inertia_end && c.swarm.cognitive == 1.1931471805599453 &&
            strstr(c.text, "# inertia_end: none (constant inertia)\n") &&
            !strstr(c.text, "refresh"),
        "global without a schedule:\n%s", c.text);
  check_round_trips(&c);
  config_free(&c);
  printf("%s\n", failures ? "FAILED" : "passed");
  return failures ? 1 : 0;
}

/* Progress of a long run, printed by rank 0: an updating line on a
 * terminal, plain lines (every 10 s) in a log. */
#ifndef IPSO_PROGRESS_H
#define IPSO_PROGRESS_H

#include <stdint.h>

#include "config.h"

struct progress {
  int mode; /* 0 off, 1 terminal line, 2 plain lines */
  int64_t first, last;
  double start, last_print;
  int64_t last_iteration, evals0; /* at the last print; evaluations at the first update */
  int dirty;                      /* a terminal line is on screen */
};

void progress_init(struct progress *p, enum ipso_progress mode, int rank, int64_t first,
                   int64_t last);
/* Reports iteration IT, best fitness BEST and evaluations so far EVALS at
 * time NOW (wall_seconds()). Prints if it is time to. */
void progress_update(struct progress *p, int64_t it, double best, int64_t evals, double now);
/* Ends the terminal line, if any. */
void progress_finish(struct progress *p);

#endif

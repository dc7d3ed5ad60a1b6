/* islandpso CONFIG --evaluate FILE (evaluate.c). */
#ifndef IPSO_EVALUATE_H
#define IPSO_EVALUATE_H

#include "config.h"

/* Prints the objective of CFG at every point of the file PATH (D numbers a
 * line, '#' lines skipped) with 17 significant digits, one a line,
 * computed by CFG's backend; writes no file. IPSO_ERR_USAGE naming
 * PATH:line for a line that is not D numbers. */
int evaluate_points(const struct ipso_config *cfg, const char *path);

#endif

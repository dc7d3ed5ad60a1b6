/* Ring migration between islands, as the solver composes it: which
 * neighbours an island has, and the order in which the migrants it receives
 * replace its worst particles. Moving the messages is mpi/'s part. */
#ifndef IPSO_MIGRATION_H
#define IPSO_MIGRATION_H

#include <stdint.h>

#include "config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Messages an island receives per migration: 0 when migration is off
 * (interval 0 or a single island), 2 on a bidirectional ring of three or
 * more islands, else 1 (two islands are each other's only neighbour, so no
 * migrant arrives twice). */
int migration_links(const struct ipso_config *cfg, int islands);

/* Doubles in one message of M migrants in D dimensions: the M costs (best
 * first), then the M positions. */
static inline int64_t migration_message_len(int m, int dims)
{
  return (int64_t)m * (dims + 1);
}

/* Merges the NLINKS received messages (MSG[0] from the left neighbour,
 * MSG[1] from the right one) into one list ordered by cost, then link (the
 * left neighbour's first), then place in its message: COST [nlinks * m] and
 * POS [nlinks * m * dims]. The i-th of the list replaces the i-th worst
 * particle if it is better. */
int migration_merge(int nlinks, int m, int dims, const double *const msg[2], double *cost,
                    double *pos);

#ifdef __cplusplus
}
#endif

#endif

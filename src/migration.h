/* Ring migration between islands, as the solver composes it: which islands
 * a rank holds, which neighbours an island has on the global ring of
 * islands, and the order in which the migrants it receives replace its
 * worst particles. Moving the messages between ranks is mpi/'s part. */
#ifndef IPSO_MIGRATION_H
#define IPSO_MIGRATION_H

#include <stdint.h>

#include "config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Islands per rank: RANKS ranks hold ISLANDS islands (a multiple of RANKS),
 * rank r the islands r*K .. r*K + K - 1 with K = ISLANDS / RANKS. */
static inline int islands_per_rank(int islands, int ranks)
{
  return islands / ranks;
}

/* The first (global) island of RANK. */
static inline int island_first(int islands, int ranks, int rank)
{
  return rank * (islands / ranks);
}

/* The rank that holds ISLAND. */
static inline int island_rank(int island, int islands, int ranks)
{
  return island / (islands / ranks);
}

/* The islands ISLAND sends to on the global ring of ISLANDS with NLINKS
 * (migration_links) links: the next island, then (2 links) the previous
 * one. Returns how many (0 to 2). */
int migration_destinations(int island, int islands, int nlinks, int to[2]);

/* The islands whose messages ISLAND receives, in the order migration_merge
 * takes them: the previous island (its left neighbour), then (2 links) the
 * next one (its right neighbour). Returns how many (0 to 2). */
int migration_sources(int island, int islands, int nlinks, int from[2]);

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

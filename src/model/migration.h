/* Ring migration between islands as the solver composes it: which islands
 * a rank holds, an island's neighbours on the global ring, the order in
 * which received migrants replace its worst particles, and the draws of the
 * random policies. Moving the messages between ranks is mpi/'s part. */
#ifndef IPSO_MIGRATION_H
#define IPSO_MIGRATION_H

#include "config.h"

/* RANKS ranks hold ISLANDS islands (a multiple of RANKS): rank r the islands
 * r*K .. r*K + K - 1 with K = ISLANDS / RANKS. */
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

/* The islands ISLAND sends to with NLINKS links: the next, then (2 links)
 * the previous one. Returns how many. */
int migration_destinations(int island, int islands, int nlinks, int to[2]);

/* The islands ISLAND receives from, in migration_merge's order: the
 * previous, then (2 links) the next one. Returns how many. */
int migration_sources(int island, int islands, int nlinks, int from[2]);

/* Messages an island receives per migration: 0 when migration is off
 * (interval 0 or one island), 2 on a bidirectional ring of three or more
 * islands (two are each other's only neighbour), else 1. */
int migration_links(const struct ipso_config *cfg, int islands);

/* Doubles in a message of M migrants in D dimensions: the M costs (best
 * first, or in the order drawn), then the M positions. */
static inline int64_t migration_message_len(int m, int dims)
{
  return (int64_t)m * (dims + 1);
}

/* What a migration draw is for; each has its own random stream. */
enum migration_purpose {
  MIGRATION_DRAW_SELECT = 0,  /* the particles an island sends (select = random) */
  MIGRATION_DRAW_REPLACE = 1, /* the particles its migrants replace (replace_random) */
  MIGRATION_DRAW_LINK = 2     /* whether each of its links carries migrants (probability) */
};

/* The largest island id and iteration a migration stream can address. */
#define MIGRATION_STREAM_ISLANDS (INT64_C(1) << 21)
#define MIGRATION_STREAM_ITERATIONS (INT64_C(1) << 40)

/* The Philox subsequence of ISLAND's draws for PURPOSE at the migration
 * after iteration T: bit 63, PURPOSE in bits 61-62, ISLAND in 40-60, T in
 * 0-39. A particle's subsequence never has bit 63 set, so the streams of
 * migration and of the particles never meet. */
static inline uint64_t migration_stream(int island, int64_t t, enum migration_purpose purpose)
{
  return (UINT64_C(1) << 63) | ((uint64_t)purpose << 61) | ((uint64_t)island << 40) | (uint64_t)t;
}

/* Draws COUNT distinct particles of 0..N-1 into OUT, uniformly, from the
 * stream (SEED, migration_stream(ISLAND, T, PURPOSE)): a pure function of
 * its arguments, the same on every rank, backend and restart. Each draw is
 * an integer below N by Lemire's multiply-shift with rejection, a repeat
 * drawn again. Needs COUNT <= N <= 2^31 and the stream's limits. */
int migration_draw(uint64_t seed, int island, int64_t t, enum migration_purpose purpose, int64_t n,
                   int count, int64_t *out);

/* Whether link LINK of ISLAND (0: to the next island, 1: to the previous)
 * carries migrants at the migration after iteration T: word LINK of the
 * stream (SEED, migration_stream(ISLAND, T, MIGRATION_DRAW_LINK)) as
 * curand_uniform_double converts it is at most PROBABILITY (always, without
 * a draw, at 1). Sender and receiver compute the same. */
int migration_link_carries(uint64_t seed, int island, int64_t t, int link, double probability);

/* Merges the NLINKS received messages (MSG[0] from the left neighbour,
 * MSG[1] from the right) into COST [nlinks * m] and POS [nlinks * m * dims],
 * ordered by cost, then link, then place in the message. The i-th replaces
 * the i-th worst particle if it is better. */
int migration_merge(int nlinks, int m, int dims, const double *const msg[2], double *cost,
                    double *pos);

#endif

/* Ring migration between islands, as the solver composes it: which islands
 * a rank holds, which neighbours an island has on the global ring of
 * islands, the order in which the migrants it receives replace its worst
 * particles, and the random draws of the random policies (which particles
 * an island sends, which ones its migrants replace). Moving the messages
 * between ranks is mpi/'s part. */
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
 * first, or in the order drawn with select = random), then the M
 * positions. */
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
 * after iteration T: bit 63 set, PURPOSE in bits 61-62, ISLAND in bits
 * 40-60, T in bits 0-39. A particle's subsequence, (island << 32) |
 * particle with island < 2^31, never has bit 63 set, so the streams of
 * migration and of the particles never meet (both under the run's seed). */
static inline uint64_t migration_stream(int island, int64_t t, enum migration_purpose purpose)
{
  return (UINT64_C(1) << 63) | ((uint64_t)purpose << 61) | ((uint64_t)island << 40) | (uint64_t)t;
}

/* Draws COUNT distinct particles of 0..N-1 into OUT, uniformly (every
 * sequence of COUNT distinct particles equally likely) from the stream
 * (SEED, migration_stream(ISLAND, T, PURPOSE)): a pure function of its
 * arguments, so every rank, backend and restart draws the same. Each draw
 * takes words of the stream in order: an integer below N by Lemire's
 * multiply-shift with rejection, a particle already drawn drawn again.
 * Needs COUNT <= N <= 2^31, ISLAND < MIGRATION_STREAM_ISLANDS and
 * 0 <= T < MIGRATION_STREAM_ITERATIONS. */
int migration_draw(uint64_t seed, int island, int64_t t, enum migration_purpose purpose, int64_t n,
                   int count, int64_t *out);

/* Whether link LINK of ISLAND (0: to the next island, 1: to the previous
 * one; migration_destinations' order) carries its migrants at the
 * migration after iteration T, with probability PROBABILITY: word LINK of
 * the stream (SEED, migration_stream(ISLAND, T, MIGRATION_DRAW_LINK)) as
 * curand_uniform_double converts it, in (0, 1], at most PROBABILITY. With
 * PROBABILITY 1 always, without a draw. The sender and the receiver of a
 * link compute the same answer. Needs ISLAND < MIGRATION_STREAM_ISLANDS
 * and 0 <= T < MIGRATION_STREAM_ITERATIONS. */
int migration_link_carries(uint64_t seed, int island, int64_t t, int link, double probability);

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

/* The swarm invariants (--check-invariants), checked on the host copy of
 * an island after an iteration: positions and velocities within bounds,
 * each cost and personal best the objective at its position, personal bests
 * never worse than before or than the current cost, and the island's best
 * the lowest personal best. */
#ifndef IPSO_INVARIANTS_H
#define IPSO_INVARIANTS_H

#include <mpi.h>

#include "backend.h"

struct invariants;

/* Prepares the checks of island ISLAND (global id); EXACT: the backend computes
 * the host objective's bits (else costs agree to a relative tolerance). */
int invariants_create(const struct ipso_config *cfg, int exact, int island,
                      struct invariants **out);

/* Checks state S and best BEST after iteration T; IPSO_ERR_RUNTIME with the
 * first violation named. */
int invariants_check(struct invariants *iv, int64_t t, const struct swarm_state *s,
                     const struct island_best *best);

void invariants_free(struct invariants *iv);

/* A restart's state checked against the objective (collective): in each of
 * the rank's islands in S (from checkpoint PATH, global ids FIRST on) the
 * best personal best, the lowest cost and 8 particles spread over it must
 * have the host objective's costs (exactly where EXACT). Otherwise
 * IPSO_ERR_USAGE on every rank, the lowest rank that found one naming the
 * island, the particle and both values. */
int invariants_check_restored(MPI_Comm comm, const struct ipso_config *cfg, int exact,
                              const struct swarm_state *s, int first, const char *path);

#endif

/* The CPU reference backend (backend.h): the islands' swarms in host memory,
 * OpenMP over particles, the GPU's random stream. */
#ifndef IPSO_BACKEND_CPU_H
#define IPSO_BACKEND_CPU_H

#include "backend.h"

#ifdef __cplusplus
extern "C" {
#endif

int backend_cpu_create(const struct swarm_setup *setup, struct backend *b);
/* Shares the node's cores between the ranks on it (unless OMP_NUM_THREADS
 * is set): each CPU island gets cores / RANKS_ON_NODE OpenMP threads. */
void backend_cpu_threads(int ranks_on_node);

/* The per-island steps of migrate_out and migrate_in, public for the tests.
 * pack_migrants: island K's COUNT best personal bests, best first (positions
 * [count*dims], costs [count]), and their particle indices. unpack_migrants:
 * the i-th migrant replaces the i-th worst particle where it is better
 * (docs/algorithm.md, "Migration"); REPLACED[i] is the index replaced, or -1.
 * pack_chosen, unpack_chosen: the same for the particles INDEX[0..count) the solver drew. */
int cpu_pack_migrants(struct backend *b, int k, int count, double *pos, double *cost,
                      int64_t *index);
int cpu_unpack_migrants(struct backend *b, int k, int count, const double *pos, const double *cost,
                        int64_t *replaced);
int cpu_pack_chosen(struct backend *b, int k, int count, const int64_t *index, double *pos,
                    double *cost);
int cpu_unpack_chosen(struct backend *b, int k, int count, const int64_t *index, const double *pos,
                      const double *cost, int64_t *replaced);

#ifdef __cplusplus
}
#endif

#endif

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

#ifdef __cplusplus
}
#endif

#endif

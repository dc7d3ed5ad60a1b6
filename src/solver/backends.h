/* The backend factory: the only place that names both backends. */
#ifndef IPSO_BACKENDS_H
#define IPSO_BACKENDS_H

#include "backend.h"

/* Creates the backend the config asks for (cpu, gpu, or auto: gpu when one is
 * usable, else cpu with a notice); EVALUATE: for --evaluate alone (the GPU
 * compiles that kernel alone). */
int backend_create(const struct swarm_setup *setup, int evaluate, struct backend *b);
/* Destroys B (if not yet) and hands its device back (the GPU's: cudaDeviceReset,
 * else the process's exit's last work), once nothing reads B. */
void backend_end(struct backend *b);
/* Number of usable GPUs (0 without CUDA or without a device). */
int backend_gpu_count(void);
/* Shares the node's cores between the ranks on it (CPU backend). */
void backend_share_cores(int ranks_on_node);

#endif

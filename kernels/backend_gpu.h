/* The CUDA backend (backend.h): the islands' swarms in device memory,
 * kernels compiled at start-up by NVRTC. No MPI, no HDF5. */
#ifndef IPSO_BACKEND_GPU_H
#define IPSO_BACKEND_GPU_H

#include "backend.h"
#include "gpu_plan.h"

/* Creates the backend, with overrides O of the plan's choices for tests and
 * benchmarks (all zero: none). */
int backend_gpu_create_with(const struct swarm_setup *setup, const struct gpu_overrides *o,
                            struct backend *b);
/* Number of CUDA devices visible, 0 if none (or no driver). */
int gpu_device_count(void);
/* Why gpu_device_count() is 0, in words. */
const char *gpu_unavailable_reason(void);

#endif

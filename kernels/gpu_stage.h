/* Staging between the host's doubles and the device's REALs (float or
 * double): constants and tables, global-best slots, rows and costs. */
#ifndef IPSO_GPU_STAGE_H
#define IPSO_GPU_STAGE_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "config.h"
#include "gpu_abi.h"
#include "swarm.h"

/* A global-best slot in either precision, as the device holds it. */
union gpu_slot {
  struct gbest_slot_f f;
  struct gbest_slot_d d;
};

/* Element I of a REAL array A (FL: float) as a double, and the reverse. */
static inline double gpu_real_get(const void *a, size_t i, int fl)
{
  return fl ? ((const float *)a)[i] : ((const double *)a)[i];
}

static inline void gpu_real_set(void *a, size_t i, double v, int fl)
{
  if (fl)
    ((float *)a)[i] = (float)v;
  else
    ((double *)a)[i] = v;
}

/* ROWS rows of DIMS doubles (dense) into REAL rows of PITCH elements, and
 * back; the padding of the REAL rows is left as it is. */
void gpu_rows_to_real(void *dst, int pitch, const double *src, size_t rows, int dims, int fl);
void gpu_rows_from_real(double *dst, const void *src, int pitch, size_t rows, int dims, int fl);

/* The kernels' constants (K in LIBRARY) for island ISLAND of CFG, and their
 * tables (lo, hi, span, vmax a row per velocity clamp, PITCH REALs each;
 * then param) in a new device allocation *D_TABLES. */
int gpu_stage_constants(cudaLibrary_t library, const struct ipso_config *cfg, int island,
                        const struct swarm_consts *k, int dims, int pitch, int fl, void **d_tables);

/* Both slots empty: cost +infinity (no candidate is compared with a cost
 * not in the swarm), no particle, iteration or offer; padding zero. */
void gpu_slots_empty(union gpu_slot slots[IPSO_GB_SLOTS], int fl);

/* A slot's cost and particle. */
static inline double gpu_slot_cost(const union gpu_slot *s, int fl)
{
  return fl ? s->f.cost : s->d.cost;
}

static inline long long gpu_slot_particle(const union gpu_slot *s, int fl)
{
  return fl ? s->f.idx : s->d.idx;
}

/* Copies N rows of DIMS coordinates between the device array DEV (PITCH
 * elements per row; costs: 1 and 1) and dense host doubles (TO_HOST: from
 * the device). Synchronous. */
int gpu_stage_rows(void *dev, int pitch, double *host, size_t n, int dims, int fl, int to_host);

#endif

/* Private to the checkpoints (checkpoint.c writes, checkpoint_read.c
 * reads): what both sides of the file format must agree on. */
#ifndef IPSO_CHECKPOINT_INTERNAL_H
#define IPSO_CHECKPOINT_INTERNAL_H

#include <stdint.h>

#include "swarm.h"

#define FNV_OFFSET UINT64_C(0xcbf29ce484222325)
#define FNV_PRIME UINT64_C(0x100000001b3)

/* Bytes of a parameter name in the file (struct ipso_param.name). */
#define PARAM_NAME_BYTES 64

/* Continues the 64-bit FNV-1a hash H over N doubles, byte by byte in
 * little-endian order (the file's), so the sum is the same on any host. */
uint64_t checkpoint_fnv1a_doubles(uint64_t h, const double *x, int64_t n);

/* The checksum of one island: its rows of the state arrays, in file order. */
uint64_t checkpoint_island_checksum(const struct swarm_state *s);

#endif

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

/* How the checksums of a checkpoint are computed, as its 'checksum'
 * dataset's units say: 64-bit FNV-1a over each double's 64 bits as one
 * word (since 0.1.0's identity checks; 10x faster), or byte by byte in
 * little-endian order (older checkpoints, units "FNV-1a"). Both give the
 * same sum on any host. */
enum checksum_kind { CHECKSUM_BYTES, CHECKSUM_WORDS };
#define CHECKSUM_UNITS_BYTES "FNV-1a"
#define CHECKSUM_UNITS_WORDS "FNV-1a over 64-bit words"

/* Continues the hash H over N doubles. */
uint64_t checkpoint_fnv1a_doubles(uint64_t h, const double *x, int64_t n, enum checksum_kind k);

/* The checksum of one island: its rows of the state arrays, in file order. */
uint64_t checkpoint_island_checksum(const struct swarm_state *s, enum checksum_kind k);

#endif

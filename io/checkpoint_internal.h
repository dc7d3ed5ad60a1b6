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

struct h5u_file;
struct ipso_config;
struct checkpoint_info;

/* checkpoint.c, shared with checkpoint_async.c: */

/* Checks that the directory of PATH exists and is writable (rank 0);
 * reports a failure (IPSO_ERR_RUNTIME). */
int checkpoint_directory_writable(const char *path);

/* Writes the root attributes, the bounds and the objective parameters
 * (writers; rank 0 writes the datasets' values). */
int checkpoint_write_identity(const struct h5u_file *f, const struct ipso_config *cfg,
                              const struct checkpoint_info *info);

/* Makes the written TMP the checkpoint PATH (rank 0): flushes it to disk,
 * keeps the previous checkpoint as PREV, renames TMP over PATH and flushes
 * the directory. Until the rename, PATH is the previous checkpoint, whole. */
int checkpoint_commit_file(const char *path, const char *tmp, const char *prev);

/* Reports a failed step WHAT on file NAME of making the checkpoint PATH
 * (errno E) and returns IPSO_ERR_RUNTIME. */
int checkpoint_commit_fail(const char *path, const char *what, const char *name, int e);

#endif

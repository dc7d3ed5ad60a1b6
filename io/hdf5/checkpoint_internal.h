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
 * dataset's units say. Written now: in pieces, each of an island's arrays
 * is cut into pieces of STATE_PIECE_ELEMENTS doubles from its start, each
 * piece is summed on its own (64-bit FNV-1a over each double's 64 bits as
 * one word), and the island's checksum is the same hash over its pieces'
 * sums, in file order (arrays in order, pieces in order), so that several
 * threads can sum one island. Older checkpoints: one FNV-1a over all the
 * island's words in file order (units "FNV-1a over 64-bit words"), or byte
 * by byte in little-endian order (units "FNV-1a"). Every kind gives the
 * same sum on any host. */
enum checksum_kind { CHECKSUM_BYTES, CHECKSUM_WORDS, CHECKSUM_PIECES };
#define CHECKSUM_UNITS_BYTES "FNV-1a"
#define CHECKSUM_UNITS_WORDS "FNV-1a over 64-bit words"
#define CHECKSUM_UNITS_PIECES "FNV-1a over 64-bit words, per 2^20-word piece, then over the pieces"

/* A 64-bit word (a piece's sum) folded into hash H. */
static inline uint64_t checkpoint_fold_piece(uint64_t h, uint64_t piece)
{
  return (h ^ piece) * FNV_PRIME;
}

/* The sum of one piece of N doubles (CHECKSUM_PIECES). */
uint64_t checkpoint_piece_sum(const double *x, int64_t n);

/* The checksum of one island: its rows of the state arrays, in file order. */
uint64_t checkpoint_island_checksum(const struct swarm_state *s, enum checksum_kind k);

/* The checkpoint format: 2 since the iteration, the counts and the run's
 * identity are covered by a checksum of their own (root attribute
 * 'info_checksum'); files without 'format' are of format 1. */
#define CHECKPOINT_FORMAT 2

struct checkpoint_info;

/* FNV-1a over the little-endian bytes of INFO's numbers and strings
 * (migration_rows as written: -1 where not known), the problem's sizes and
 * seed, in a fixed order. */
uint64_t checkpoint_info_checksum(const struct checkpoint_info *info, int islands,
                                  int64_t particles, int dims, uint64_t seed);

struct h5u_file;
struct ipso_config;

/* checkpoint.c, shared with checkpoint_async.c: */

/* Reports (IPSO_ERR_RUNTIME) a directory of PATH that is not writable. */
int checkpoint_directory_writable(const char *path);

/* Writes the root attributes, the bounds and the objective parameters
 * (writers; rank 0 writes the datasets' values). */
int checkpoint_write_identity(const struct h5u_file *f, const struct ipso_config *cfg,
                              const struct checkpoint_info *info);

/* Makes the written TMP the checkpoint PATH (rank 0): flushes it, keeps the
 * previous checkpoint as PREV, renames TMP over PATH, flushes the directory. */
int checkpoint_commit_file(const char *path, const char *tmp, const char *prev);

/* Reports a failed step WHAT on file NAME of making the checkpoint PATH
 * (errno E) and returns IPSO_ERR_RUNTIME. */
int checkpoint_commit_fail(const char *path, const char *what, const char *name, int e);

#endif

/* Private to the checkpoints: what the writers (checkpoint.c,
 * checkpoint_write.c) and the readers (checkpoint_read.c,
 * h5out_reopen.c) of the file format must agree on. */
#ifndef IPSO_CHECKPOINT_INTERNAL_H
#define IPSO_CHECKPOINT_INTERNAL_H

#include <mpi.h>

#include "swarm.h"

#define FNV_OFFSET UINT64_C(0xcbf29ce484222325)
#define FNV_PRIME UINT64_C(0x100000001b3)

/* Bytes of a parameter name in the file (struct ipso_param.name). */
#define PARAM_NAME_BYTES 64

/* How a checkpoint's checksums are computed, as its 'checksum' dataset's
 * units say: each of an island's arrays in pieces of STATE_PIECE_ELEMENTS
 * doubles, each piece summed on its own (64-bit FNV-1a over each double's
 * 64 bits as one word), the island's checksum the same hash over its
 * pieces' sums in file order (the format of files written in pieces).
 * Other units: one FNV-1a over all the island's words in file order (as
 * before the pieces). Any host gives the same sums. */
#define CHECKSUM_UNITS_PIECES "FNV-1a over 64-bit words, per 2^20-word piece, then over the pieces"

/* A 64-bit word (a piece's sum) folded into hash H. */
static inline uint64_t checkpoint_fold_piece(uint64_t h, uint64_t piece)
{
  return (h ^ piece) * FNV_PRIME;
}

/* The sum of one piece of N doubles. */
uint64_t checkpoint_piece_sum(const double *x, int64_t n);

/* The checksum of one island: its rows of the state arrays, in file order,
 * in PIECES or over all the words at once. */
uint64_t checkpoint_island_checksum(const struct swarm_state *s, int pieces);

/* The checkpoint format: 2 since the iteration, the counts and the run's
 * identity are covered by a checksum of their own (root attribute
 * 'info_checksum'); files without 'format' are of format 1. */
#define CHECKPOINT_FORMAT 2

struct checkpoint_info;
struct h5u_file;
struct ipso_config;

/* FNV-1a over the little-endian bytes of INFO's numbers and strings
 * (migration_rows as written: -1 where not known), the problem's sizes and
 * seed, in a fixed order. */
uint64_t checkpoint_info_checksum(const struct checkpoint_info *info, int islands,
                                  int64_t particles, int dims, uint64_t seed);

/* Writes the root attributes, the bounds and the objective parameters
 * (writers; rank 0 writes the datasets' values). */
int checkpoint_write_identity(const struct h5u_file *f, const struct ipso_config *cfg,
                              const struct checkpoint_info *info);

/* Whether the output OUTPUT that a restart from checkpoint PATH continues
 * holds the history and migration rows INFO counts up to its iteration
 * (rank 0 reads it; collective): an older output would leave a gap, one
 * with more rows holds another run's. IPSO_ERR_USAGE with the reason; OK
 * when OUTPUT is "" or missing. */
int checkpoint_check_output(MPI_Comm comm, const char *path, const char *output,
                            const struct checkpoint_info *info);

#endif

/* Private to the run output: the handle and what creating (h5out.c) and
 * continuing (h5out_reopen.c) an output share. */
#ifndef IPSO_H5OUT_INTERNAL_H
#define IPSO_H5OUT_INTERNAL_H

#include "h5out.h"
#include "h5util.h"

enum history_column {
  HIST_ITERATION,
  HIST_ISLAND_BEST,
  HIST_GLOBAL_BEST,
  HIST_EVALUATIONS,
  HIST_WALL_SECONDS,
  HIST_COLUMNS
};

/* The datasets of /history, in the order of enum history_column. */
struct history_spec {
  const char *name;
  int per_island; /* [T, islands] rather than [T] */
  int integer;    /* int64 rather than float64 */
  const char *units;
  const char *description;
};

extern const struct history_spec history_specs[HIST_COLUMNS];

struct h5out {
  struct h5u_file f;
  MPI_Comm comm;     /* our duplicate of the caller's communicator */
  int64_t particles; /* per island */
  int islands;       /* in all (columns of island_best) */
  int local;         /* islands of this rank: global ids rank*local .. rank*local + local - 1 */
  hid_t history[HIST_COLUMNS];
  hid_t migrations;
  hid_t migration_type; /* struct migration_record, in memory and in the file */
  int64_t history_rows;
  int64_t history_extent; /* rows the history datasets hold */
  int64_t migration_rows;
  char started[32];  /* the root attribute 'started': when the run began */
  uint64_t dev, ino; /* the file the run opened (rank 0) */
  int identity_known;
};

/* Sets the extent of every history dataset to ROWS. */
int h5out_set_history_extent(struct h5out *h, int64_t rows);

/* The handle of the output of CFG: its own communicator, nothing open yet. */
struct h5out *h5out_new(MPI_Comm comm, const struct ipso_config *cfg);

/* Closes H's objects and file (collective); returns the first failure. */
int h5out_close_file(struct h5out *h);

/* Hands H out through OUT (its file's identity taken) where ST is IPSO_OK;
 * otherwise frees it, closing only what is local (closing the file is
 * collective and the other ranks may be elsewhere, h5util.h), and returns ST. */
int h5out_finish(struct h5out *h, int st, struct h5out **out);

/* The compound type of a migration record, struct migration_record: packed
 * (24 bytes) and little-endian, in memory and in the file. */
hid_t h5out_migration_type(const struct h5u_file *f);

#endif

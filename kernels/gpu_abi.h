/* The types and limits that the host (C) and the kernels (NVRTC, as a named
 * header) share, written once. Under NVRTC the structs are declared for the
 * kernels' `real`; on the host for float and double, pointers as void *.
 * Both sides assert the layout, so a field added on one side only cannot
 * compile. */
#ifndef IPSO_GPU_ABI_H
#define IPSO_GPU_ABI_H

/* Rows the relaxed resident kernel can keep in shared memory (coordinates). */
#define IPSO_RESIDENT_MAX_D 1024
/* "No particle" in (cost, index) reductions and in an empty global-best
 * slot: after every real index, so a real particle wins a tie at +infinity
 * (an objective that is NaN everywhere). */
#define IPSO_NONE 0x7fffffffffffffffLL
/* Global-best slots: one per iteration parity (per island). */
#define IPSO_GB_SLOTS 2
/* Islands one launch can hold (gridDim.y). */
#define IPSO_MAX_ISLANDS 65535
/* Scalars of the run (the kernels' __constant__ K). */
#define IPSO_ABI_CONSTS(NAME, REAL)                                                                \
  struct NAME {                                                                                    \
    unsigned long long seed;                                                                       \
    unsigned int island; /* global id of the backend's first island (blockIdx.y = 0) */            \
    long long n;         /* particles of one island */                                             \
    REAL w, c1, c2;                                                                                \
    const REAL *lo, *hi, *span, *vmax, *prm; /* tables [IPSO_PITCH]; vmax [IPSO_NCLAMP][..] */     \
  }

/* One global-best slot; cost and index are written together, under the
 * lock. */
#define IPSO_ABI_GBEST_SLOT(NAME, REAL)                                                            \
  struct NAME {                                                                                    \
    REAL cost;                                                                                     \
    long long idx;                                                                                 \
    long long tag;           /* iteration whose best this is */                                    \
    int lock;                /* 0 free, 1 held */                                                  \
    unsigned long long hint; /* cost_key of the lowest cost offered to the slot */                 \
  }

/* The swarms of a backend's islands in device memory, island-major (sizes
 * below: one island's); island k's part by island_ptrs on the device. */
#define IPSO_ABI_SWARM_PTRS(NAME, REAL, SLOT)                                                      \
  struct NAME {                                                                                    \
    REAL *x, *v, *p;       /* [n * IPSO_PITCH] position, velocity, personal best */                \
    REAL *cost, *pcost;    /* [n] */                                                               \
    SLOT *gb;              /* [IPSO_GB_SLOTS] */                                                   \
    REAL *gpos;            /* [IPSO_GB_SLOTS * IPSO_PITCH] */                                      \
    REAL *slot_cost;       /* [slot_stride] per-block candidates (queue, reduction) */             \
    long long *slot_idx;   /* [slot_stride] */                                                     \
    double *hist;          /* [hist_stride] best cost after each iteration of a step */            \
    REAL *lbest;           /* ring: [n * IPSO_PITCH] each particle's attractor (NULL: global) */   \
    long long *lidx;       /* ring: [n] whose personal best row i of lbest holds (-1: none) */     \
    unsigned char *pnew;   /* ring: [n] 1: personal best changed since the last lbest pass */      \
    REAL *frame;           /* eigen frame: [IPSO_D * IPSO_D] axes, column q axis q (NULL: none) */ \
    long long slot_stride; /* per-block candidate slots of one island */                           \
    long long hist_stride; /* history entries of one island: the iterations of the step */         \
  }

#ifdef __CUDACC_RTC__
/* NVRTC has neither offsetof nor __builtin_offsetof; __INTADDR__ is the
 * constant-address builtin of its front end (EDG), on which EDG's own
 * offsetof is built. */
#define IPSO_ABI_ASSERT(cond, what) static_assert(cond, what)
#define IPSO_ABI_OFFSET(type, field) ((unsigned long long)__INTADDR__(&((type *)0)->field))
#else
#include <stddef.h>
#define IPSO_ABI_ASSERT(cond, what) _Static_assert(cond, what)
#define IPSO_ABI_OFFSET(type, field) offsetof(type, field)
#endif

/* The layout both sides rely on: 8-byte pointers, so void * on the host
 * matches REAL * in the kernels. */
#define IPSO_ABI_PTR 8
/* Offset of the tables: after the three weights, pointer-aligned. */
#define IPSO_ABI_CONSTS_TABLES(REAL)                                                               \
  ((24 + 3 * sizeof(REAL) + IPSO_ABI_PTR - 1) / IPSO_ABI_PTR * IPSO_ABI_PTR)

#define IPSO_ABI_CHECK_CONSTS(T, REAL)                                                             \
  IPSO_ABI_ASSERT(IPSO_ABI_OFFSET(T, seed) == 0 && IPSO_ABI_OFFSET(T, island) == 8 &&              \
                      IPSO_ABI_OFFSET(T, n) == 16 && IPSO_ABI_OFFSET(T, w) == 24 &&                \
                      IPSO_ABI_OFFSET(T, c1) == 24 + sizeof(REAL) &&                               \
                      IPSO_ABI_OFFSET(T, c2) == 24 + 2 * sizeof(REAL),                             \
                  "constants: scalars");                                                           \
  IPSO_ABI_ASSERT(IPSO_ABI_OFFSET(T, lo) == IPSO_ABI_CONSTS_TABLES(REAL) &&                        \
                      IPSO_ABI_OFFSET(T, prm) == IPSO_ABI_CONSTS_TABLES(REAL) + 4 * IPSO_ABI_PTR,  \
                  "constants: tables");                                                            \
  IPSO_ABI_ASSERT(sizeof(T) == IPSO_ABI_CONSTS_TABLES(REAL) + 5 * IPSO_ABI_PTR, "constants: size")

/* A slot: 40 bytes in either precision. */
#define IPSO_GB_SLOT_BYTES 40
#define IPSO_ABI_CHECK_GBEST_SLOT(T)                                                               \
  IPSO_ABI_ASSERT(IPSO_ABI_OFFSET(T, cost) == 0 && IPSO_ABI_OFFSET(T, idx) == 8 &&                 \
                      IPSO_ABI_OFFSET(T, tag) == 16 && IPSO_ABI_OFFSET(T, lock) == 24 &&           \
                      IPSO_ABI_OFFSET(T, hint) == 32,                                              \
                  "global-best slot: fields");                                                     \
  IPSO_ABI_ASSERT(sizeof(T) == IPSO_GB_SLOT_BYTES, "global-best slot: size")

/* Fourteen pointers, then the two strides: every field 8 bytes, so the
 * size alone rules out padding and the shared macro gives the order. */
#define IPSO_ABI_CHECK_SWARM_PTRS(T)                                                               \
  IPSO_ABI_ASSERT(sizeof(void *) == IPSO_ABI_PTR && sizeof(long long) == 8, "64-bit fields");      \
  IPSO_ABI_ASSERT(sizeof(T) == 16 * IPSO_ABI_PTR, "swarm pointers: size")

#ifdef __CUDACC_RTC__
IPSO_ABI_CONSTS(ipso_consts, real);
IPSO_ABI_GBEST_SLOT(gbest_slot, real);
IPSO_ABI_SWARM_PTRS(swarm_ptrs, real, gbest_slot);
IPSO_ABI_CHECK_CONSTS(ipso_consts, real);
IPSO_ABI_CHECK_GBEST_SLOT(gbest_slot);
IPSO_ABI_CHECK_SWARM_PTRS(swarm_ptrs);
#else
IPSO_ABI_CONSTS(ipso_consts_f, float);
IPSO_ABI_CONSTS(ipso_consts_d, double);
IPSO_ABI_GBEST_SLOT(gbest_slot_f, float);
IPSO_ABI_GBEST_SLOT(gbest_slot_d, double);
IPSO_ABI_SWARM_PTRS(swarm_ptrs, void, void);
IPSO_ABI_CHECK_CONSTS(struct ipso_consts_f, float);
IPSO_ABI_CHECK_CONSTS(struct ipso_consts_d, double);
IPSO_ABI_CHECK_GBEST_SLOT(struct gbest_slot_f);
IPSO_ABI_CHECK_GBEST_SLOT(struct gbest_slot_d);
IPSO_ABI_CHECK_SWARM_PTRS(struct swarm_ptrs);
#endif

#endif

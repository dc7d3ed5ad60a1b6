/* The facts of the CEC 2017 functions that do not depend on the working
 * precision, for a C compiler and NVRTC; cec2017.h has the functions. */
#ifndef IPSO_CEC2017_TABLE_H
#define IPSO_CEC2017_TABLE_H

#ifndef IPSO_HD
#define IPSO_HD static inline
#endif

#define CEC2017_DMAX 100             /* the largest D of the suite's data */
#define CEC2017_NMAX 6               /* the most components or parts of any function */
#define CEC2017_SCRATCH(D) (2 * (D)) /* reals of scratch per evaluation */
#define CEC2017_PI 3.14159265358979323846
#define CEC2017_E 2.7182818284590452353602874713526625
#define CEC2017_SCHWEFEL_C 4.189828872724338e+002
#define CEC2017_SCHWEFEL_Z0 4.209687462275036e+002
/* ln 2^1075: a weight exp(-e)/sqrt(s) below 2^-1075 is 0 in double. */
#define CEC2017_LN_UNDERFLOW 745.13321910194122

/* The basic functions. */
#define CEC2017_BENT_CIGAR 1
#define CEC2017_ZAKHAROV 2
#define CEC2017_ROSENBROCK 3
#define CEC2017_RASTRIGIN 4
#define CEC2017_SCHAFFER_F7 5
#define CEC2017_EXP_SCHAFFER_F6 6
#define CEC2017_LUNACEK 7
#define CEC2017_LEVY 8
#define CEC2017_SCHWEFEL 9
#define CEC2017_ELLIPTIC 10
#define CEC2017_DISCUS 11
#define CEC2017_ACKLEY 12
#define CEC2017_WEIERSTRASS 13
#define CEC2017_GRIEWANK 14
#define CEC2017_KATSUURA 15
#define CEC2017_HAPPYCAT 16
#define CEC2017_HGBAT 17
#define CEC2017_GRIE_ROSEN 18
/* A composition's component that is hybrid function F (F29, F30). */
#define CEC2017_HYBRID(F) (100 + (F))

#define CEC2017_KIND_NONE 0
#define CEC2017_KIND_SIMPLE 1
#define CEC2017_KIND_HYBRID 2
#define CEC2017_KIND_COMPOSITION 3

struct cec2017_info {
  int kind;               /* CEC2017_KIND_*; NONE for 0 and 2 */
  int nshift;             /* rows of D in shift */
  int nrot;               /* D x D blocks in rotation */
  int nshuffle;           /* permutations of D in shuffle */
  int nparts;             /* simple: 1; hybrid: parts; composition: components */
  int part[CEC2017_NMAX]; /* basic function ids, or CEC2017_HYBRID(F) */
  int pct[CEC2017_NMAX];  /* hybrid: the parts' proportions in percent */
  double sigma[CEC2017_NMAX], lambda[CEC2017_NMAX], bias[CEC2017_NMAX]; /* composition */
};

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
/* The functions called from several places, compiled once on the device. */
#define CEC2017_CALLEE static __device__ __noinline__
#define CEC2017_TABLE_SPACE static __constant__
#else
#define CEC2017_CALLEE IPSO_HD
#define CEC2017_TABLE_SPACE static
#endif

/* A row per function number, 0..30, as the report lists them. */
// clang-format off
CEC2017_TABLE_SPACE const struct cec2017_info cec2017_table[31] = {
    /* 0 */ {CEC2017_KIND_NONE, 0, 0, 0, 0, {0}, {0}, {0}, {0}, {0}},
    /* F1 */ {CEC2017_KIND_SIMPLE, 1, 1, 0, 1, {CEC2017_BENT_CIGAR}, {100}, {0}, {0}, {0}},
    /* F2, withdrawn */ {CEC2017_KIND_NONE, 0, 0, 0, 0, {0}, {0}, {0}, {0}, {0}},
    /* F3 */ {CEC2017_KIND_SIMPLE, 1, 1, 0, 1, {CEC2017_ZAKHAROV}, {100}, {0}, {0}, {0}},
    /* F4 */ {CEC2017_KIND_SIMPLE, 1, 1, 0, 1, {CEC2017_ROSENBROCK}, {100}, {0}, {0}, {0}},
    /* F5 */ {CEC2017_KIND_SIMPLE, 1, 1, 0, 1, {CEC2017_RASTRIGIN}, {100}, {0}, {0}, {0}},
    /* F6 */ {CEC2017_KIND_SIMPLE, 1, 0, 0, 1, {CEC2017_SCHAFFER_F7}, {100}, {0}, {0}, {0}},
    /* F7 */ {CEC2017_KIND_SIMPLE, 1, 1, 0, 1, {CEC2017_LUNACEK}, {100}, {0}, {0}, {0}},
    /* F8 */ {CEC2017_KIND_SIMPLE, 1, 1, 0, 1, {CEC2017_RASTRIGIN}, {100}, {0}, {0}, {0}},
    /* F9 */ {CEC2017_KIND_SIMPLE, 1, 1, 0, 1, {CEC2017_LEVY}, {100}, {0}, {0}, {0}},
    /* F10 */ {CEC2017_KIND_SIMPLE, 1, 1, 0, 1, {CEC2017_SCHWEFEL}, {100}, {0}, {0}, {0}},
    /* F11 */ {CEC2017_KIND_HYBRID, 1, 1, 1, 3,
     {CEC2017_ZAKHAROV, CEC2017_ROSENBROCK, CEC2017_RASTRIGIN}, {20, 40, 40}, {0}, {0}, {0}},
    /* F12 */ {CEC2017_KIND_HYBRID, 1, 1, 1, 3,
     {CEC2017_ELLIPTIC, CEC2017_SCHWEFEL, CEC2017_BENT_CIGAR}, {30, 30, 40}, {0}, {0}, {0}},
    /* F13 */ {CEC2017_KIND_HYBRID, 1, 1, 1, 3,
     {CEC2017_BENT_CIGAR, CEC2017_ROSENBROCK, CEC2017_LUNACEK}, {30, 30, 40}, {0}, {0}, {0}},
    /* F14 */ {CEC2017_KIND_HYBRID, 1, 1, 1, 4,
     {CEC2017_ELLIPTIC, CEC2017_ACKLEY, CEC2017_SCHAFFER_F7, CEC2017_RASTRIGIN},
     {20, 20, 20, 40}, {0}, {0}, {0}},
    /* F15 */ {CEC2017_KIND_HYBRID, 1, 1, 1, 4,
     {CEC2017_BENT_CIGAR, CEC2017_HGBAT, CEC2017_RASTRIGIN, CEC2017_ROSENBROCK},
     {20, 20, 30, 30}, {0}, {0}, {0}},
    /* F16 */ {CEC2017_KIND_HYBRID, 1, 1, 1, 4,
     {CEC2017_EXP_SCHAFFER_F6, CEC2017_HGBAT, CEC2017_ROSENBROCK, CEC2017_SCHWEFEL},
     {20, 20, 30, 30}, {0}, {0}, {0}},
    /* F17 */ {CEC2017_KIND_HYBRID, 1, 1, 1, 5,
     {CEC2017_KATSUURA, CEC2017_ACKLEY, CEC2017_GRIE_ROSEN, CEC2017_SCHWEFEL, CEC2017_RASTRIGIN},
     {10, 20, 20, 20, 30}, {0}, {0}, {0}},
    /* F18 */ {CEC2017_KIND_HYBRID, 1, 1, 1, 5,
     {CEC2017_ELLIPTIC, CEC2017_ACKLEY, CEC2017_RASTRIGIN, CEC2017_HGBAT, CEC2017_DISCUS},
     {20, 20, 20, 20, 20}, {0}, {0}, {0}},
    /* F19 */ {CEC2017_KIND_HYBRID, 1, 1, 1, 5,
     {CEC2017_BENT_CIGAR, CEC2017_RASTRIGIN, CEC2017_GRIE_ROSEN, CEC2017_WEIERSTRASS,
      CEC2017_EXP_SCHAFFER_F6},
     {20, 20, 20, 20, 20}, {0}, {0}, {0}},
    /* F20 */ {CEC2017_KIND_HYBRID, 1, 1, 1, 6,
     {CEC2017_HGBAT, CEC2017_KATSUURA, CEC2017_ACKLEY, CEC2017_RASTRIGIN, CEC2017_SCHWEFEL,
      CEC2017_SCHAFFER_F7},
     {10, 10, 20, 20, 20, 20}, {0}, {0}, {0}},
    /* F21 */ {CEC2017_KIND_COMPOSITION, 3, 3, 0, 3,
     {CEC2017_ROSENBROCK, CEC2017_ELLIPTIC, CEC2017_RASTRIGIN}, {0}, {10, 20, 30},
     {1, 1e-6, 1}, {0, 100, 200}},
    /* F22 */ {CEC2017_KIND_COMPOSITION, 3, 3, 0, 3,
     {CEC2017_RASTRIGIN, CEC2017_GRIEWANK, CEC2017_SCHWEFEL}, {0}, {10, 20, 30}, {1, 10, 1},
     {0, 100, 200}},
    /* F23 */ {CEC2017_KIND_COMPOSITION, 4, 4, 0, 4,
     {CEC2017_ROSENBROCK, CEC2017_ACKLEY, CEC2017_SCHWEFEL, CEC2017_RASTRIGIN}, {0},
     {10, 20, 30, 40}, {1, 10, 1, 1}, {0, 100, 200, 300}},
    /* F24 */ {CEC2017_KIND_COMPOSITION, 4, 4, 0, 4,
     {CEC2017_ACKLEY, CEC2017_ELLIPTIC, CEC2017_GRIEWANK, CEC2017_RASTRIGIN}, {0},
     {10, 20, 30, 40}, {10, 1e-6, 10, 1}, {0, 100, 200, 300}},
    /* F25 */ {CEC2017_KIND_COMPOSITION, 5, 5, 0, 5,
     {CEC2017_RASTRIGIN, CEC2017_HAPPYCAT, CEC2017_ACKLEY, CEC2017_DISCUS, CEC2017_ROSENBROCK},
     {0}, {10, 20, 30, 40, 50}, {10, 1, 10, 1e-6, 1}, {0, 100, 200, 300, 400}},
    /* F26 */ {CEC2017_KIND_COMPOSITION, 5, 5, 0, 5,
     {CEC2017_EXP_SCHAFFER_F6, CEC2017_SCHWEFEL, CEC2017_GRIEWANK, CEC2017_ROSENBROCK,
      CEC2017_RASTRIGIN},
     {0}, {10, 20, 20, 30, 40}, {5e-4, 1, 10, 1, 10}, {0, 100, 200, 300, 400}},
    /* F27 */ {CEC2017_KIND_COMPOSITION, 6, 6, 0, 6,
     {CEC2017_HGBAT, CEC2017_RASTRIGIN, CEC2017_SCHWEFEL, CEC2017_BENT_CIGAR, CEC2017_ELLIPTIC,
      CEC2017_EXP_SCHAFFER_F6},
     {0}, {10, 20, 30, 40, 50, 60}, {10, 10, 2.5, 1e-26, 1e-6, 5e-4},
     {0, 100, 200, 300, 400, 500}},
    /* F28 */ {CEC2017_KIND_COMPOSITION, 6, 6, 0, 6,
     {CEC2017_ACKLEY, CEC2017_GRIEWANK, CEC2017_DISCUS, CEC2017_ROSENBROCK, CEC2017_HAPPYCAT,
      CEC2017_EXP_SCHAFFER_F6},
     {0}, {10, 20, 30, 40, 50, 60}, {10, 10, 1e-6, 1, 1, 5e-4}, {0, 100, 200, 300, 400, 500}},
    /* F29 */ {CEC2017_KIND_COMPOSITION, 3, 3, 3, 3,
     {CEC2017_HYBRID(15), CEC2017_HYBRID(16), CEC2017_HYBRID(17)}, {0}, {10, 30, 50},
     {1, 1, 1}, {0, 100, 200}},
    /* F30 */ {CEC2017_KIND_COMPOSITION, 3, 3, 3, 3,
     {CEC2017_HYBRID(15), CEC2017_HYBRID(18), CEC2017_HYBRID(19)}, {0}, {10, 30, 50},
     {1, 1, 1}, {0, 100, 200}},
};
// clang-format on

/* The scale each basic function applies to its argument (the organizers'
 * rates; 1 where none). */
IPSO_HD double cec2017_rate(int id)
{
  // clang-format off
  switch (id) {
  case CEC2017_ROSENBROCK: return 2.048 / 100.0;
  case CEC2017_RASTRIGIN: return 5.12 / 100.0;
  case CEC2017_LUNACEK: return 10.0 / 100.0;
  case CEC2017_SCHWEFEL: return 1000.0 / 100.0;
  case CEC2017_WEIERSTRASS: return 0.5 / 100.0;
  case CEC2017_GRIEWANK: return 600.0 / 100.0;
  case CEC2017_KATSUURA:
  case CEC2017_HAPPYCAT:
  case CEC2017_HGBAT:
  case CEC2017_GRIE_ROSEN: return 5.0 / 100.0;
  default: return 1.0;
  }
  // clang-format on
}

/* The size of part p of a hybrid in D dimensions: ceil(pct D / 100) for
 * all but the last, the rest for the last (equal to the organizers'
 * ceil(p * D) in double for D = 10, 30, 50, 100). */
IPSO_HD int cec2017_part_size(const struct cec2017_info *t, int p, int D)
{
  if (p + 1 < t->nparts) return (t->pct[p] * D + 99) / 100;
  int rest = D;
  for (int q = 0; q + 1 < t->nparts; q++) rest -= (t->pct[q] * D + 99) / 100;
  return rest;
}

#endif

/* The built-in objectives in the C that both a C compiler (CPU) and NVRTC
 * (GPU) compile. Include with IPSO_REAL (float or double) and IPSO_FN(name)
 * (unique names) defined, and IPSO_HD for qualifiers; once per precision.
 *
 * Every objective is final(sum_d t0(x_d, x_{d+1}, d), combine_d t1(x_d, d), D)
 * with the second accumulator a sum, a product or none, so the GPU can split
 * a particle's dimensions over a warp's lanes and reduce with shuffles; the
 * CPU's whole-vector form f(x, D, prm) is made of the same parts. PRM is the
 * parameter vector (target_distance: the target point), else unused. */

#ifndef IPSO_HD
#define IPSO_HD static inline
#endif

#ifndef IPSO_OBJECTIVES_COMMON
#define IPSO_OBJECTIVES_COMMON
#define IPSO_ACC_NONE 0
#define IPSO_ACC_SUM 1
#define IPSO_ACC_PRODUCT 2
#define IPSO_PI 3.14159265358979323846
#define IPSO_E 2.71828182845904523536
#define IPSO_SCHWEFEL_C 418.9828872724338

#ifdef __CUDACC_RTC__
/* CUDA's math overloads pick the precision from the argument type. */
#define IPSO_M_COS(x) cos(x)
#define IPSO_M_SIN(x) sin(x)
#define IPSO_M_SQRT(x) sqrt(x)
#define IPSO_M_EXP(x) exp(x)
#define IPSO_M_FABS(x) fabs(x)
#define IPSO_M_FMA(a, b, c) fma(a, b, c)
#else
#include <math.h>
/* C11 _Generic picks the float or double function from the argument. */
#define IPSO_M_COS(x) _Generic((x), float : cosf, default : cos)(x)
#define IPSO_M_SIN(x) _Generic((x), float : sinf, default : sin)(x)
#define IPSO_M_SQRT(x) _Generic((x), float : sqrtf, default : sqrt)(x)
#define IPSO_M_EXP(x) _Generic((x), float : expf, default : exp)(x)
#define IPSO_M_FABS(x) _Generic((x), float : fabsf, default : fabs)(x)
#define IPSO_M_FMA(a, b, c) _Generic((a), float : fmaf, default : fma)(a, b, c)
#endif
#endif

/* Generates the whole-vector form NAME(x, D, prm) from NAME_t0, NAME_t1 and
 * NAME_final. The dimension loop runs in order, so the CPU result is the
 * same for any number of threads. */
#define IPSO_WHOLE_VECTOR(NAME, ACC1)                                                              \
  IPSO_HD IPSO_REAL IPSO_FN(NAME)(const IPSO_REAL *x, int D, const IPSO_REAL *prm)                 \
  {                                                                                                \
    IPSO_REAL s0 = (IPSO_REAL)0;                                                                   \
    IPSO_REAL s1 = (ACC1) == IPSO_ACC_PRODUCT ? (IPSO_REAL)1 : (IPSO_REAL)0;                       \
    for (int d = 0; d < D; d++) {                                                                  \
      IPSO_REAL xn = d + 1 < D ? x[d + 1] : (IPSO_REAL)0;                                          \
      s0 += IPSO_FN(NAME##_t0)(x[d], xn, d, D, prm);                                               \
      if ((ACC1) == IPSO_ACC_SUM)                                                                  \
        s1 += IPSO_FN(NAME##_t1)(x[d], d, prm);                                                    \
      else if ((ACC1) == IPSO_ACC_PRODUCT)                                                         \
        s1 *= IPSO_FN(NAME##_t1)(x[d], d, prm);                                                    \
    }                                                                                              \
    return IPSO_FN(NAME##_final)(s0, s1, D, prm);                                                  \
  }

/* Terms that use neither the next coordinate, the second accumulator nor
 * the parameters still take them, so every objective has one signature. */
#define IPSO_UNUSED_T0(xn, d, D, prm) ((void)(xn), (void)(d), (void)(D), (void)(prm))
#define IPSO_NO_T1(NAME)                                                                           \
  IPSO_HD IPSO_REAL IPSO_FN(NAME##_t1)(IPSO_REAL x, int d, const IPSO_REAL *prm)                   \
  {                                                                                                \
    (void)x, (void)d, (void)prm;                                                                   \
    return (IPSO_REAL)0;                                                                           \
  }

/* sphere: sum x^2. Minimum 0 at 0. */
IPSO_HD IPSO_REAL IPSO_FN(sphere_t0)(IPSO_REAL x, IPSO_REAL xn, int d, int D, const IPSO_REAL *prm)
{
  IPSO_UNUSED_T0(xn, d, D, prm);
  return x * x;
}
IPSO_NO_T1(sphere)
IPSO_HD IPSO_REAL IPSO_FN(sphere_final)(IPSO_REAL s0, IPSO_REAL s1, int D, const IPSO_REAL *prm)
{
  (void)s1, (void)D, (void)prm;
  return s0;
}
IPSO_WHOLE_VECTOR(sphere, IPSO_ACC_NONE)

/* rastrigin: sum x^2 - 10 cos(2 pi x) + 10. Minimum 0 at 0. */
IPSO_HD IPSO_REAL IPSO_FN(rastrigin_t0)(IPSO_REAL x, IPSO_REAL xn, int d, int D,
                                        const IPSO_REAL *prm)
{
  IPSO_UNUSED_T0(xn, d, D, prm);
  IPSO_REAL c = IPSO_M_COS((IPSO_REAL)(2.0 * IPSO_PI) * x);
  return IPSO_M_FMA(x, x, (IPSO_REAL)10 - (IPSO_REAL)10 * c);
}
IPSO_NO_T1(rastrigin)
IPSO_HD IPSO_REAL IPSO_FN(rastrigin_final)(IPSO_REAL s0, IPSO_REAL s1, int D, const IPSO_REAL *prm)
{
  (void)s1, (void)D, (void)prm;
  return s0;
}
IPSO_WHOLE_VECTOR(rastrigin, IPSO_ACC_NONE)

/* rosenbrock: sum_{d<D-1} 100 (x_{d+1} - x_d^2)^2 + (1 - x_d)^2. Minimum 0 at 1. */
IPSO_HD IPSO_REAL IPSO_FN(rosenbrock_t0)(IPSO_REAL x, IPSO_REAL xn, int d, int D,
                                         const IPSO_REAL *prm)
{
  (void)prm;
  if (d + 1 >= D) return (IPSO_REAL)0;
  IPSO_REAL a = xn - x * x;
  IPSO_REAL b = (IPSO_REAL)1 - x;
  return IPSO_M_FMA((IPSO_REAL)100 * a, a, b * b);
}
IPSO_NO_T1(rosenbrock)
IPSO_HD IPSO_REAL IPSO_FN(rosenbrock_final)(IPSO_REAL s0, IPSO_REAL s1, int D, const IPSO_REAL *prm)
{
  (void)s1, (void)D, (void)prm;
  return s0;
}
IPSO_WHOLE_VECTOR(rosenbrock, IPSO_ACC_NONE)

/* griewank: sum x^2/4000 - prod cos(x_d / sqrt(d+1)) + 1. Minimum 0 at 0. */
IPSO_HD IPSO_REAL IPSO_FN(griewank_t0)(IPSO_REAL x, IPSO_REAL xn, int d, int D,
                                       const IPSO_REAL *prm)
{
  IPSO_UNUSED_T0(xn, d, D, prm);
  return x * x / (IPSO_REAL)4000;
}
IPSO_HD IPSO_REAL IPSO_FN(griewank_t1)(IPSO_REAL x, int d, const IPSO_REAL *prm)
{
  (void)prm;
  return IPSO_M_COS(x / IPSO_M_SQRT((IPSO_REAL)(d + 1)));
}
IPSO_HD IPSO_REAL IPSO_FN(griewank_final)(IPSO_REAL s0, IPSO_REAL s1, int D, const IPSO_REAL *prm)
{
  (void)D, (void)prm;
  return s0 - s1 + (IPSO_REAL)1;
}
IPSO_WHOLE_VECTOR(griewank, IPSO_ACC_PRODUCT)

/* ackley: -20 exp(-0.2 sqrt(sum x^2 / D)) - exp(sum cos(2 pi x) / D) + 20 + e.
 * Minimum 0 at 0. */
IPSO_HD IPSO_REAL IPSO_FN(ackley_t0)(IPSO_REAL x, IPSO_REAL xn, int d, int D, const IPSO_REAL *prm)
{
  IPSO_UNUSED_T0(xn, d, D, prm);
  return x * x;
}
IPSO_HD IPSO_REAL IPSO_FN(ackley_t1)(IPSO_REAL x, int d, const IPSO_REAL *prm)
{
  (void)d, (void)prm;
  return IPSO_M_COS((IPSO_REAL)(2.0 * IPSO_PI) * x);
}
IPSO_HD IPSO_REAL IPSO_FN(ackley_final)(IPSO_REAL s0, IPSO_REAL s1, int D, const IPSO_REAL *prm)
{
  (void)prm;
  IPSO_REAL n = (IPSO_REAL)D;
  IPSO_REAL a = (IPSO_REAL)-20 * IPSO_M_EXP((IPSO_REAL)-0.2 * IPSO_M_SQRT(s0 / n));
  IPSO_REAL b = IPSO_M_EXP(s1 / n);
  return a - b + (IPSO_REAL)(20.0 + IPSO_E);
}
IPSO_WHOLE_VECTOR(ackley, IPSO_ACC_SUM)

/* schwefel (2.26): 418.9829 D - sum x sin(sqrt|x|). Minimum ~0 at 420.9687. */
IPSO_HD IPSO_REAL IPSO_FN(schwefel_t0)(IPSO_REAL x, IPSO_REAL xn, int d, int D,
                                       const IPSO_REAL *prm)
{
  IPSO_UNUSED_T0(xn, d, D, prm);
  return x * IPSO_M_SIN(IPSO_M_SQRT(IPSO_M_FABS(x)));
}
IPSO_NO_T1(schwefel)
IPSO_HD IPSO_REAL IPSO_FN(schwefel_final)(IPSO_REAL s0, IPSO_REAL s1, int D, const IPSO_REAL *prm)
{
  (void)s1, (void)prm;
  return (IPSO_REAL)IPSO_SCHWEFEL_C * (IPSO_REAL)D - s0;
}
IPSO_WHOLE_VECTOR(schwefel, IPSO_ACC_NONE)

/* cubic (cuPSO paper): sum x^3 - 0.8 x^2 - 1000 x + 8000, maximized on
 * [-100, 100]: 900000 per dimension at x = 100. */
IPSO_HD IPSO_REAL IPSO_FN(cubic_t0)(IPSO_REAL x, IPSO_REAL xn, int d, int D, const IPSO_REAL *prm)
{
  IPSO_UNUSED_T0(xn, d, D, prm);
  IPSO_REAL h = IPSO_M_FMA(x - (IPSO_REAL)0.8, x, (IPSO_REAL)-1000);
  return IPSO_M_FMA(h, x, (IPSO_REAL)8000);
}
IPSO_NO_T1(cubic)
IPSO_HD IPSO_REAL IPSO_FN(cubic_final)(IPSO_REAL s0, IPSO_REAL s1, int D, const IPSO_REAL *prm)
{
  (void)s1, (void)D, (void)prm;
  return s0;
}
IPSO_WHOLE_VECTOR(cubic, IPSO_ACC_NONE)

/* target_distance: |x - t|^2 (100 |x|^2 + 1) / 10, t = prm. Minimum 0 at t. */
IPSO_HD IPSO_REAL IPSO_FN(target_distance_t0)(IPSO_REAL x, IPSO_REAL xn, int d, int D,
                                              const IPSO_REAL *prm)
{
  (void)xn, (void)D;
  IPSO_REAL e = x - prm[d];
  return e * e;
}
IPSO_HD IPSO_REAL IPSO_FN(target_distance_t1)(IPSO_REAL x, int d, const IPSO_REAL *prm)
{
  (void)d, (void)prm;
  return x * x;
}
IPSO_HD IPSO_REAL IPSO_FN(target_distance_final)(IPSO_REAL s0, IPSO_REAL s1, int D,
                                                 const IPSO_REAL *prm)
{
  (void)D, (void)prm;
  return s0 * IPSO_M_FMA((IPSO_REAL)100, s1, (IPSO_REAL)1) / (IPSO_REAL)10;
}
IPSO_WHOLE_VECTOR(target_distance, IPSO_ACC_SUM)

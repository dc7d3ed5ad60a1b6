/* The CEC 2017 bound-constrained suite (Awad, Ali, Suganthan, Liang, Qu,
 * 2016), F1 and F3-F30 (F2 was withdrawn), for a C compiler and NVRTC with
 * objectives.h's conventions (IPSO_REAL, IPSO_FN, IPSO_HD; includable once
 * per precision). Entry points: IPSO_FN(cec2017) and IPSO_FN(cec2017_packed)
 * at the end; NaN for a function outside 1, 3..30.
 *
 * Where the report and the organizers' code differ, the code's reference
 * values decide (tests/data/cec2017): F6 unrotated and unscaled; F7 scaled
 * by 10/100, its min term on the unrotated x^; F8 without the rounding
 * step; F9's w = 1 + (z - 1)/4 as written (the minimum is off the shift);
 * F10 rotated, constant 418.9828872724338; Zakharov's 0.5 i z_i 1-based;
 * hybrids z = M (x - o), y = z[shuffle], parts of ceil(p D) but the last,
 * Schaffer's F7 of F14 and F20 on the first n coordinates of y, F13's
 * Lunacek part with the signs of the first n of o and unrotated, F20's
 * first part HGBat; F26's lambda (5e-4, 1, 10, 1, 10).
 *
 * Forms without the report's cancellations, for float: sin^2 instead of
 * 1 - cos (Rastrigin, Ackley, Lunacek), Weierstrass as sum 2 a^k
 * sin^2(pi b^k z), Katsuura through log1p/expm1, HappyCat, HGBat and
 * Rosenbrock on z, Schwefel per coordinate, sine arguments reduced exactly
 * modulo 1 first. */

#include "cec2017_table.h" /* and IPSO_HD by default */

/* The math of either precision, as in objectives.h; defined once for both inclusions. */
#ifndef CEC17_COS
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
#define CEC17_COS(x) cos(x)
#define CEC17_SIN(x) sin(x)
#define CEC17_SQRT(x) sqrt(x)
#define CEC17_EXP(x) exp(x)
#define CEC17_EXPM1(x) expm1(x)
#define CEC17_LOG(x) log(x)
#define CEC17_LOG1P(x) log1p(x)
#define CEC17_POW(x, y) pow(x, y)
#define CEC17_FABS(x) fabs(x)
#define CEC17_FMOD(x, y) fmod(x, y)
#define CEC17_RINT(x) rint(x)
#define CEC17_FMA(a, b, c) fma(a, b, c)
#else
#include <math.h>
#define CEC17_COS(x) _Generic((x), float : cosf, default : cos)(x)
#define CEC17_SIN(x) _Generic((x), float : sinf, default : sin)(x)
#define CEC17_SQRT(x) _Generic((x), float : sqrtf, default : sqrt)(x)
#define CEC17_EXP(x) _Generic((x), float : expf, default : exp)(x)
#define CEC17_EXPM1(x) _Generic((x), float : expm1f, default : expm1)(x)
#define CEC17_LOG(x) _Generic((x), float : logf, default : log)(x)
#define CEC17_LOG1P(x) _Generic((x), float : log1pf, default : log1p)(x)
#define CEC17_POW(x, y) _Generic((x), float : powf, default : pow)(x, y)
#define CEC17_FABS(x) _Generic((x), float : fabsf, default : fabs)(x)
#define CEC17_FMOD(x, y) _Generic((x), float : fmodf, default : fmod)(x, y)
#define CEC17_RINT(x) _Generic((x), float : rintf, default : rint)(x)
#define CEC17_FMA(a, b, c) _Generic((a), float : fmaf, default : fma)(a, b, c)
#endif
#endif

/* The data of one function in one dimension, in the working precision. */
struct IPSO_FN(cec2017_data) {
  int fn, D;
  const IPSO_REAL *shift;    /* [nshift * D] */
  const IPSO_REAL *rotation; /* [nrot * D * D], row-major; NULL for F6 */
  const IPSO_REAL *shuffle;  /* [nshuffle * D], 0-based; NULL but for hybrids */
};

/* sin^2(pi t), t reduced exactly to [-1/2, 1/2] first (t - rint(t) is exact),
 * so a large t loses nothing more and sin stays on its fast path. */
IPSO_HD IPSO_REAL IPSO_FN(cec17_sin2pi)(IPSO_REAL t)
{
  IPSO_REAL s = CEC17_SIN((IPSO_REAL)CEC2017_PI * (t - CEC17_RINT(t)));
  return s * s;
}

/* The basic functions of v[0..n), each coordinate scaled by r on the fly. */

/* Bent cigar: z_1^2 + 1e6 sum_{i>1} z_i^2. */
IPSO_HD IPSO_REAL IPSO_FN(cec17_bent_cigar)(const IPSO_REAL *v, int n, IPSO_REAL r)
{
  IPSO_REAL a = v[0] * r, s = (IPSO_REAL)0;
  for (int k = 1; k < n; k++) {
    IPSO_REAL u = v[k] * r;
    s = CEC17_FMA(u, u, s);
  }
  return CEC17_FMA(a, a, (IPSO_REAL)1e6 * s);
}

/* Zakharov: sum z^2 + q^2 + q^4, q = sum 0.5 i z_i. */
IPSO_HD IPSO_REAL IPSO_FN(cec17_zakharov)(const IPSO_REAL *v, int n, IPSO_REAL r)
{
  IPSO_REAL s1 = (IPSO_REAL)0, s2 = (IPSO_REAL)0;
  for (int k = 0; k < n; k++) {
    IPSO_REAL u = v[k] * r;
    s1 = CEC17_FMA(u, u, s1);
    s2 = CEC17_FMA((IPSO_REAL)0.5 * (IPSO_REAL)(k + 1), u, s2);
  }
  IPSO_REAL q = s2 * s2;
  return s1 + CEC17_FMA(q, q, q);
}

/* Rosenbrock of z + 1: sum 100 ((z_i+1)^2 - (z_{i+1}+1))^2 + z_i^2. */
IPSO_HD IPSO_REAL IPSO_FN(cec17_rosenbrock)(const IPSO_REAL *v, int n, IPSO_REAL r)
{
  IPSO_REAL f = (IPSO_REAL)0, u = v[0] * r;
  for (int k = 0; k + 1 < n; k++) {
    IPSO_REAL un = v[k + 1] * r;
    IPSO_REAL t = CEC17_FMA(u, (IPSO_REAL)2 + u, -un);
    f += CEC17_FMA((IPSO_REAL)100 * t, t, u * u);
    u = un;
  }
  return f;
}

/* Rastrigin: sum z^2 - 10 cos(2 pi z) + 10 = sum z^2 + 20 sin^2(pi z). */
IPSO_HD IPSO_REAL IPSO_FN(cec17_rastrigin)(const IPSO_REAL *v, int n, IPSO_REAL r)
{
  IPSO_REAL f = (IPSO_REAL)0;
  for (int k = 0; k < n; k++) {
    IPSO_REAL u = v[k] * r;
    f += CEC17_FMA(u, u, (IPSO_REAL)20 * IPSO_FN(cec17_sin2pi)(u));
  }
  return f;
}

/* Schaffer's F7: (sum_{i<n} sqrt(s_i) (1 + sin^2(50 s_i^0.2)) / (n-1))^2,
 * s_i = sqrt(z_i^2 + z_{i+1}^2). */
IPSO_HD IPSO_REAL IPSO_FN(cec17_schaffer_f7)(const IPSO_REAL *v, int n, IPSO_REAL r)
{
  IPSO_REAL f = (IPSO_REAL)0, a = v[0] * r;
  for (int k = 0; k + 1 < n; k++) {
    IPSO_REAL b = v[k + 1] * r;
    IPSO_REAL q = CEC17_FMA(a, a, b * b); /* s_i^2 */
    IPSO_REAL rs = CEC17_SQRT(CEC17_SQRT(q));
    IPSO_REAL t = CEC17_SIN((IPSO_REAL)50 * CEC17_POW(q, (IPSO_REAL)0.1));
    f += CEC17_FMA(rs * t, t, rs);
    a = b;
  }
  f = f / (IPSO_REAL)(n - 1);
  return f * f;
}

/* Expanded Schaffer's F6: sum over (z_i, z_{i+1}), cyclic, of
 * 0.5 + (sin^2(sqrt(q)) - 0.5) / (1 + 0.001 q)^2, q = z_i^2 + z_{i+1}^2,
 * written (sin^2(sqrt q) + 0.0005 q (2 + 0.001 q)) / (1 + 0.001 q)^2. */
IPSO_HD IPSO_REAL IPSO_FN(cec17_exp_schaffer_f6)(const IPSO_REAL *v, int n, IPSO_REAL r)
{
  IPSO_REAL f = (IPSO_REAL)0, first = v[0] * r, a = first;
  for (int k = 0; k < n; k++) {
    IPSO_REAL b = k + 1 < n ? v[k + 1] * r : first;
    IPSO_REAL q = CEC17_FMA(a, a, b * b);
    IPSO_REAL s = CEC17_SIN(CEC17_SQRT(q));
    IPSO_REAL h = (IPSO_REAL)0.001 * q;
    IPSO_REAL d = (IPSO_REAL)1 + h;
    f += CEC17_FMA(s, s, (IPSO_REAL)0.5 * h * ((IPSO_REAL)2 + h)) / (d * d);
    a = b;
  }
  return f;
}

/* Lunacek bi-Rastrigin of t = 2 sign(o) y (scaled already) and z (t
 * rotated, or t itself): min(sum t^2, d n + s sum (t + mu0 - mu1)^2)
 * + 10 sum (1 - cos(2 pi z)). */
IPSO_HD IPSO_REAL IPSO_FN(cec17_lunacek)(const IPSO_REAL *t, const IPSO_REAL *z, int n)
{
  const IPSO_REAL mu0 = (IPSO_REAL)2.5, d = (IPSO_REAL)1;
  IPSO_REAL s =
      (IPSO_REAL)1 -
      (IPSO_REAL)1 / ((IPSO_REAL)2 * CEC17_SQRT((IPSO_REAL)n + (IPSO_REAL)20) - (IPSO_REAL)8.2);
  IPSO_REAL mu1 = -CEC17_SQRT((mu0 * mu0 - d) / s);
  IPSO_REAL c = mu0 - mu1;
  IPSO_REAL a = (IPSO_REAL)0, b = (IPSO_REAL)0, g = (IPSO_REAL)0;
  for (int k = 0; k < n; k++) {
    IPSO_REAL tk = t[k], tc = tk + c;
    a = CEC17_FMA(tk, tk, a);
    b = CEC17_FMA(tc, tc, b);
    g += IPSO_FN(cec17_sin2pi)(z[k]);
  }
  b = CEC17_FMA(s, b, d * (IPSO_REAL)n);
  return (a < b ? a : b) + (IPSO_REAL)20 * g;
}

/* Levy with w = 1 + (z - 1)/4: sin^2(pi w_1) + sum_{i<n} (w_i - 1)^2 (1 +
 * 10 sin^2(pi w_i + 1)) + (w_n - 1)^2 (1 + sin^2(2 pi w_n)). The sines take
 * w reduced modulo 1 (their squares have periods 1 and 1/2 in w), the
 * reduction done on z/4 exactly, so a large w loses nothing. */
IPSO_HD IPSO_REAL IPSO_FN(cec17_levy)(const IPSO_REAL *v, int n, IPSO_REAL r)
{
  const IPSO_REAL pi = (IPSO_REAL)CEC2017_PI;
  IPSO_REAL f = (IPSO_REAL)0;
  for (int k = 0; k < n; k++) {
    IPSO_REAL u = v[k] * r;
    IPSO_REAL wm = (u - (IPSO_REAL)1) * (IPSO_REAL)0.25; /* w - 1 */
    IPSO_REAL t = u * (IPSO_REAL)0.25;
    IPSO_REAL w = (IPSO_REAL)0.75 + (t - CEC17_RINT(t)); /* w modulo 1 */
    if (k == 0) {
      IPSO_REAL s = CEC17_SIN(pi * w);
      f = s * s;
    }
    if (k + 1 < n) {
      IPSO_REAL s = CEC17_SIN(CEC17_FMA(pi, w, (IPSO_REAL)1));
      f += wm * wm * CEC17_FMA((IPSO_REAL)10 * s, s, (IPSO_REAL)1);
    } else {
      IPSO_REAL s = CEC17_SIN((IPSO_REAL)(2.0 * CEC2017_PI) * w);
      f += wm * wm * CEC17_FMA(s, s, (IPSO_REAL)1);
    }
  }
  return f;
}

/* Modified Schwefel: sum_i (418.98... - g(z_i + 420.97...)). */
IPSO_HD IPSO_REAL IPSO_FN(cec17_schwefel)(const IPSO_REAL *v, int n, IPSO_REAL r)
{
  const IPSO_REAL c = (IPSO_REAL)CEC2017_SCHWEFEL_C, h = (IPSO_REAL)500;
  IPSO_REAL inv_n = (IPSO_REAL)1 / (IPSO_REAL)n;
  IPSO_REAL f = (IPSO_REAL)0;
  for (int k = 0; k < n; k++) {
    IPSO_REAL z = CEC17_FMA(v[k], r, (IPSO_REAL)CEC2017_SCHWEFEL_Z0);
    IPSO_REAL term;
    if (z > h) {
      IPSO_REAL m = h - CEC17_FMOD(z, h);
      IPSO_REAL e = (z - h) * (IPSO_REAL)0.01;
      term = c - m * CEC17_SIN(CEC17_SQRT(m)) + e * e * inv_n;
    } else if (z < -h) {
      IPSO_REAL m = h - CEC17_FMOD(-z, h);
      IPSO_REAL e = (z + h) * (IPSO_REAL)0.01;
      term = c + m * CEC17_SIN(CEC17_SQRT(m)) + e * e * inv_n;
    } else {
      term = c - z * CEC17_SIN(CEC17_SQRT(CEC17_FABS(z)));
    }
    f += term;
  }
  return f;
}

/* High conditioned elliptic: sum 10^(6 i/(n-1)) z_i^2. */
IPSO_HD IPSO_REAL IPSO_FN(cec17_elliptic)(const IPSO_REAL *v, int n, IPSO_REAL r)
{
  IPSO_REAL c = (IPSO_REAL)(6.0 * 2.30258509299404568402) / (IPSO_REAL)(n - 1);
  IPSO_REAL f = (IPSO_REAL)0;
  for (int k = 0; k < n; k++) {
    IPSO_REAL u = v[k] * r;
    f = CEC17_FMA(CEC17_EXP(c * (IPSO_REAL)k) * u, u, f);
  }
  return f;
}

/* Discus: 1e6 z_1^2 + sum_{i>1} z_i^2. */
IPSO_HD IPSO_REAL IPSO_FN(cec17_discus)(const IPSO_REAL *v, int n, IPSO_REAL r)
{
  IPSO_REAL a = v[0] * r, s = (IPSO_REAL)0;
  for (int k = 1; k < n; k++) {
    IPSO_REAL u = v[k] * r;
    s = CEC17_FMA(u, u, s);
  }
  return CEC17_FMA((IPSO_REAL)1e6 * a, a, s);
}

/* Ackley: -20 exp(-0.2 sqrt(mean z^2)) - exp(mean cos(2 pi z)) + 20 + e,
 * written -20 expm1(-0.2 sqrt(mean z^2)) - e expm1(-mean 2 sin^2(pi z)). */
IPSO_HD IPSO_REAL IPSO_FN(cec17_ackley)(const IPSO_REAL *v, int n, IPSO_REAL r)
{
  IPSO_REAL s1 = (IPSO_REAL)0, s2 = (IPSO_REAL)0;
  for (int k = 0; k < n; k++) {
    IPSO_REAL u = v[k] * r;
    s1 = CEC17_FMA(u, u, s1);
    s2 += IPSO_FN(cec17_sin2pi)(u);
  }
  IPSO_REAL nn = (IPSO_REAL)n;
  IPSO_REAL a = CEC17_EXPM1((IPSO_REAL)-0.2 * CEC17_SQRT(s1 / nn));
  IPSO_REAL b = CEC17_EXPM1((IPSO_REAL)-2 * s2 / nn);
  return (IPSO_REAL)-20 * a - (IPSO_REAL)CEC2017_E * b;
}

/* Weierstrass (a = 0.5, b = 3, kmax = 20):
 * sum_i sum_k a^k cos(2 pi b^k (z_i + 0.5)) - n sum_k a^k cos(pi b^k)
 * = sum_i sum_k 2 a^k sin^2(pi b^k z_i), since b^k is odd. */
IPSO_HD IPSO_REAL IPSO_FN(cec17_weierstrass)(const IPSO_REAL *v, int n, IPSO_REAL r)
{
  IPSO_REAL f = (IPSO_REAL)0;
  for (int k = 0; k < n; k++) {
    IPSO_REAL u = v[k] * r, g = (IPSO_REAL)0;
    IPSO_REAL ak = (IPSO_REAL)2, bk = (IPSO_REAL)1; /* 2 a^j, b^j */
    for (int j = 0; j <= 20; j++) {
      g = CEC17_FMA(ak, IPSO_FN(cec17_sin2pi)(bk * u), g);
      ak *= (IPSO_REAL)0.5;
      bk *= (IPSO_REAL)3;
    }
    f += g;
  }
  return f;
}

/* Griewank: sum z^2/4000 - prod cos(z_i / sqrt(i)) + 1. */
IPSO_HD IPSO_REAL IPSO_FN(cec17_griewank)(const IPSO_REAL *v, int n, IPSO_REAL r)
{
  IPSO_REAL s = (IPSO_REAL)0, p = (IPSO_REAL)1;
  for (int k = 0; k < n; k++) {
    IPSO_REAL u = v[k] * r;
    s = CEC17_FMA(u, u, s);
    p *= CEC17_COS(u / CEC17_SQRT((IPSO_REAL)(k + 1)));
  }
  return (IPSO_REAL)1 + s * (IPSO_REAL)(1.0 / 4000.0) - p;
}

/* Katsuura: 10/n^2 prod (1 + i sum_{j=1}^{32} |2^j z_i - round(2^j z_i)|
 * / 2^j)^(10/n^1.2) - 10/n^2, the product through log1p and expm1. */
IPSO_HD IPSO_REAL IPSO_FN(cec17_katsuura)(const IPSO_REAL *v, int n, IPSO_REAL r)
{
  IPSO_REAL nn = (IPSO_REAL)n;
  IPSO_REAL L = (IPSO_REAL)0;
  for (int k = 0; k < n; k++) {
    IPSO_REAL u = v[k] * r, t = (IPSO_REAL)0;
    IPSO_REAL p = (IPSO_REAL)1, ip = (IPSO_REAL)1; /* 2^j, 2^-j: exact */
    for (int j = 1; j <= 32; j++) {
      p *= (IPSO_REAL)2;
      ip *= (IPSO_REAL)0.5;
      IPSO_REAL q = p * u;
      t = CEC17_FMA(CEC17_FABS(q - CEC17_RINT(q)), ip, t);
    }
    L += CEC17_LOG1P((IPSO_REAL)(k + 1) * t);
  }
  IPSO_REAL c = (IPSO_REAL)10 / (nn * nn);
  return c * CEC17_EXPM1((IPSO_REAL)10 / CEC17_POW(nn, (IPSO_REAL)1.2) * L);
}

/* HappyCat of z - 1: |sum (z-1)^2 - n|^(1/4) + (0.5 sum (z-1)^2 + sum (z-1))/n
 * + 0.5 = |sum z (z - 2)|^(1/4) + 0.5 sum z^2 / n. */
IPSO_HD IPSO_REAL IPSO_FN(cec17_happycat)(const IPSO_REAL *v, int n, IPSO_REAL r)
{
  IPSO_REAL a = (IPSO_REAL)0, s = (IPSO_REAL)0;
  for (int k = 0; k < n; k++) {
    IPSO_REAL u = v[k] * r;
    a = CEC17_FMA(u, u - (IPSO_REAL)2, a);
    s = CEC17_FMA(u, u, s);
  }
  return CEC17_SQRT(CEC17_SQRT(CEC17_FABS(a))) + (IPSO_REAL)0.5 * s / (IPSO_REAL)n;
}

/* HGBat of w = z - 1: |(sum w^2)^2 - (sum w)^2|^(1/2) + (0.5 sum w^2 + sum w)/n
 * + 0.5 = |sum z (z-1) sum (z-1)(z-2)|^(1/2) + 0.5 sum z^2 / n. */
IPSO_HD IPSO_REAL IPSO_FN(cec17_hgbat)(const IPSO_REAL *v, int n, IPSO_REAL r)
{
  IPSO_REAL p = (IPSO_REAL)0, q = (IPSO_REAL)0, s = (IPSO_REAL)0;
  for (int k = 0; k < n; k++) {
    IPSO_REAL u = v[k] * r, um = u - (IPSO_REAL)1;
    p = CEC17_FMA(u, um, p);
    q = CEC17_FMA(um, u - (IPSO_REAL)2, q);
    s = CEC17_FMA(u, u, s);
  }
  return CEC17_SQRT(CEC17_FABS(p * q)) + (IPSO_REAL)0.5 * s / (IPSO_REAL)n;
}

/* Expanded Griewank plus Rosenbrock of z + 1, cyclic: sum t^2/4000 - cos t
 * + 1, t = 100 ((z_i+1)^2 - (z_{i+1}+1))^2 + z_i^2. */
IPSO_HD IPSO_REAL IPSO_FN(cec17_grie_rosen)(const IPSO_REAL *v, int n, IPSO_REAL r)
{
  IPSO_REAL f = (IPSO_REAL)0, first = v[0] * r, u = first;
  for (int k = 0; k < n; k++) {
    IPSO_REAL un = k + 1 < n ? v[k + 1] * r : first;
    IPSO_REAL a = CEC17_FMA(u, (IPSO_REAL)2 + u, -un);
    IPSO_REAL t = CEC17_FMA((IPSO_REAL)100 * a, a, u * u);
    IPSO_REAL s = CEC17_SIN((IPSO_REAL)0.5 * t);
    f += CEC17_FMA(t * (IPSO_REAL)(1.0 / 4000.0), t, (IPSO_REAL)2 * s * s);
    u = un;
  }
  return f;
}

/* Basic function id of v[0..n) scaled by r (not Lunacek: cec17_lunacek). */
CEC2017_CALLEE IPSO_REAL IPSO_FN(cec17_basic)(int id, const IPSO_REAL *v, int n, IPSO_REAL r)
{
  // clang-format off
  switch (id) {
  case CEC2017_BENT_CIGAR: return IPSO_FN(cec17_bent_cigar)(v, n, r);
  case CEC2017_ZAKHAROV: return IPSO_FN(cec17_zakharov)(v, n, r);
  case CEC2017_ROSENBROCK: return IPSO_FN(cec17_rosenbrock)(v, n, r);
  case CEC2017_RASTRIGIN: return IPSO_FN(cec17_rastrigin)(v, n, r);
  case CEC2017_SCHAFFER_F7: return IPSO_FN(cec17_schaffer_f7)(v, n, r);
  case CEC2017_EXP_SCHAFFER_F6: return IPSO_FN(cec17_exp_schaffer_f6)(v, n, r);
  case CEC2017_LEVY: return IPSO_FN(cec17_levy)(v, n, r);
  case CEC2017_SCHWEFEL: return IPSO_FN(cec17_schwefel)(v, n, r);
  case CEC2017_ELLIPTIC: return IPSO_FN(cec17_elliptic)(v, n, r);
  case CEC2017_DISCUS: return IPSO_FN(cec17_discus)(v, n, r);
  case CEC2017_ACKLEY: return IPSO_FN(cec17_ackley)(v, n, r);
  case CEC2017_WEIERSTRASS: return IPSO_FN(cec17_weierstrass)(v, n, r);
  case CEC2017_GRIEWANK: return IPSO_FN(cec17_griewank)(v, n, r);
  case CEC2017_KATSUURA: return IPSO_FN(cec17_katsuura)(v, n, r);
  case CEC2017_HAPPYCAT: return IPSO_FN(cec17_happycat)(v, n, r);
  case CEC2017_HGBAT: return IPSO_FN(cec17_hgbat)(v, n, r);
  case CEC2017_GRIE_ROSEN: return IPSO_FN(cec17_grie_rosen)(v, n, r);
  default: return (IPSO_REAL)0 / (IPSO_REAL)0;
  }
  // clang-format on
}

/* out = M in, M row-major D x D; each row's sum in order j = 0..D-1, four
 * rows at a time (four independent chains: the same bits, less waiting). */
IPSO_HD void IPSO_FN(cec17_rotate)(const IPSO_REAL *M, const IPSO_REAL *in, int D, IPSO_REAL *out)
{
  int i = 0;
  for (; i + 4 <= D; i += 4) {
    const IPSO_REAL *r = M + (long)i * D;
    IPSO_REAL a0 = (IPSO_REAL)0, a1 = (IPSO_REAL)0, a2 = (IPSO_REAL)0, a3 = (IPSO_REAL)0;
    for (int j = 0; j < D; j++) {
      IPSO_REAL t = in[j];
      a0 = CEC17_FMA(r[j], t, a0);
      a1 = CEC17_FMA(r[D + j], t, a1);
      a2 = CEC17_FMA(r[2 * D + j], t, a2);
      a3 = CEC17_FMA(r[3 * D + j], t, a3);
    }
    out[i] = a0, out[i + 1] = a1, out[i + 2] = a2, out[i + 3] = a3;
  }
  for (; i < D; i++) {
    const IPSO_REAL *r = M + (long)i * D;
    IPSO_REAL acc = (IPSO_REAL)0;
    for (int j = 0; j < D; j++) acc = CEC17_FMA(r[j], in[j], acc);
    out[i] = acc;
  }
}

/* out = M ((x - o) rate), through tmp. */
IPSO_HD void IPSO_FN(cec17_shift_rotate)(const IPSO_REAL *x, const IPSO_REAL *o, const IPSO_REAL *M,
                                         int D, IPSO_REAL rate, IPSO_REAL *tmp, IPSO_REAL *out)
{
  for (int j = 0; j < D; j++) tmp[j] = (x[j] - o[j]) * rate;
  IPSO_FN(cec17_rotate)(M, tmp, D, out);
}

/* Hybrid function fn (11..20) without its bias, with shift o, rotation M
 * and permutation S; scratch of 2 D. */
CEC2017_CALLEE IPSO_REAL IPSO_FN(cec17_hybrid)(int fn, const IPSO_REAL *x, const IPSO_REAL *o,
                                               const IPSO_REAL *M, const IPSO_REAL *S, int D,
                                               IPSO_REAL *scratch)
{
  const struct cec2017_info *t = &cec2017_table[fn];
  IPSO_REAL *y = scratch, *z = scratch + D;
  IPSO_FN(cec17_shift_rotate)(x, o, M, D, (IPSO_REAL)1, y, z);
  for (int i = 0; i < D; i++) y[i] = z[(int)S[i]];
  IPSO_REAL f = (IPSO_REAL)0;
  int start = 0;
  for (int p = 0; p < t->nparts; p++) {
    int n = cec2017_part_size(t, p, D);
    int id = t->part[p];
    IPSO_REAL rate = (IPSO_REAL)cec2017_rate(id);
    IPSO_REAL g;
    if (id == CEC2017_SCHAFFER_F7) {
      g = IPSO_FN(cec17_schaffer_f7)(y, n, rate); /* the first n of y (see above) */
    } else if (id == CEC2017_LUNACEK) {
      /* Signs from the first n of the shift (see above), not rotated. */
      for (int k = 0; k < n; k++) {
        IPSO_REAL tk = (IPSO_REAL)2 * (y[start + k] * rate);
        z[k] = o[k] < (IPSO_REAL)0 ? -tk : tk;
      }
      g = IPSO_FN(cec17_lunacek)(z, z, n);
    } else {
      g = IPSO_FN(cec17_basic)(id, y + start, n, rate);
    }
    f += g;
    start += n;
  }
  return f;
}

/* A simple function (F1, F3..F10) without its bias. */
IPSO_HD IPSO_REAL IPSO_FN(cec17_simple)(int fn, const IPSO_REAL *x, const IPSO_REAL *o,
                                        const IPSO_REAL *M, int D, IPSO_REAL *scratch)
{
  int id = cec2017_table[fn].part[0];
  IPSO_REAL rate = (IPSO_REAL)cec2017_rate(id);
  IPSO_REAL *a = scratch, *b = scratch + D;
  if (fn == 6) { /* unrotated, unscaled (see above) */
    for (int j = 0; j < D; j++) a[j] = x[j] - o[j];
    return IPSO_FN(cec17_schaffer_f7)(a, D, (IPSO_REAL)1);
  }
  if (id == CEC2017_LUNACEK) {
    for (int j = 0; j < D; j++) {
      IPSO_REAL tj = (IPSO_REAL)2 * ((x[j] - o[j]) * rate);
      a[j] = o[j] < (IPSO_REAL)0 ? -tj : tj;
    }
    IPSO_FN(cec17_rotate)(M, a, D, b);
    return IPSO_FN(cec17_lunacek)(a, b, D);
  }
  IPSO_FN(cec17_shift_rotate)(x, o, M, D, rate, a, b);
  return IPSO_FN(cec17_basic)(id, b, D, (IPSO_REAL)1);
}

/* A composition function (F21..F30) without its bias: with s_i = |x - o_i|^2,
 * w_i = exp(-s_i / (2 D sigma_i^2)) / sqrt(s_i), f = sum w_i (lambda_i g_i +
 * bias_i) / sum w_i; where some s_i is 0, the mean of those components'
 * values (w_i infinite); where every w_i is 0 in double (beyond the search
 * range), the mean of all. The weights are scaled by exp(min_i e_i), so no
 * weight that matters underflows in float. */
IPSO_HD IPSO_REAL IPSO_FN(cec17_composition)(int fn, const IPSO_REAL *x,
                                             const struct IPSO_FN(cec2017_data) * data,
                                             IPSO_REAL *scratch)
{
  const struct cec2017_info *t = &cec2017_table[fn];
  int D = data->D, N = t->nparts;
  IPSO_REAL fit[CEC2017_NMAX], s[CEC2017_NMAX], e[CEC2017_NMAX];
  int zeros = 0;
  IPSO_REAL emin = (IPSO_REAL)0;
  for (int c = 0; c < N; c++) {
    const IPSO_REAL *oc = data->shift + (long)c * D;
    const IPSO_REAL *Mc = data->rotation + (long)c * D * D;
    IPSO_REAL sc = (IPSO_REAL)0;
    for (int j = 0; j < D; j++) {
      IPSO_REAL dj = x[j] - oc[j];
      sc = CEC17_FMA(dj, dj, sc);
    }
    int id = t->part[c];
    IPSO_REAL g;
    if (id > 100) {
      g = IPSO_FN(cec17_hybrid)(id - 100, x, oc, Mc, data->shuffle + (long)c * D, D, scratch);
    } else {
      IPSO_FN(cec17_shift_rotate)(x, oc, Mc, D, (IPSO_REAL)cec2017_rate(id), scratch, scratch + D);
      g = IPSO_FN(cec17_basic)(id, scratch + D, D, (IPSO_REAL)1);
    }
    fit[c] = CEC17_FMA((IPSO_REAL)t->lambda[c], g, (IPSO_REAL)t->bias[c]);
    s[c] = sc;
    IPSO_REAL sig = (IPSO_REAL)t->sigma[c];
    e[c] = sc / ((IPSO_REAL)(2 * D) * sig * sig);
    if (sc == (IPSO_REAL)0) zeros++;
    if (c == 0 || e[c] < emin) emin = e[c];
  }
  IPSO_REAL num = (IPSO_REAL)0, den = (IPSO_REAL)0;
  if (zeros) {
    for (int c = 0; c < N; c++)
      if (s[c] == (IPSO_REAL)0) num += fit[c];
    return num / (IPSO_REAL)zeros;
  }
  int all_zero = 0;
  if (emin > (IPSO_REAL)700) { /* far outside the range: do all weights underflow? */
    all_zero = 1;
    for (int c = 0; c < N; c++)
      if (e[c] + (IPSO_REAL)0.5 * CEC17_LOG(s[c]) <= (IPSO_REAL)CEC2017_LN_UNDERFLOW) all_zero = 0;
  }
  for (int c = 0; c < N; c++) {
    IPSO_REAL w = all_zero ? (IPSO_REAL)1 : CEC17_EXP(emin - e[c]) / CEC17_SQRT(s[c]);
    num = CEC17_FMA(w, fit[c], num);
    den += w;
  }
  return num / den;
}

/* F data->fn at x, bias 100 F included; scratch of CEC2017_SCRATCH(D) reals. */
IPSO_HD IPSO_REAL IPSO_FN(cec2017)(const IPSO_REAL *x, const struct IPSO_FN(cec2017_data) * data,
                                   IPSO_REAL *scratch)
{
  int fn = data->fn, D = data->D;
  if (fn < 1 || fn > 30 || cec2017_table[fn].kind == CEC2017_KIND_NONE)
    return (IPSO_REAL)0 / (IPSO_REAL)0;
  IPSO_REAL g;
  switch (cec2017_table[fn].kind) {
  case CEC2017_KIND_SIMPLE:
    g = IPSO_FN(cec17_simple)(fn, x, data->shift, data->rotation, D, scratch);
    break;
  case CEC2017_KIND_HYBRID:
    g = IPSO_FN(cec17_hybrid)(fn, x, data->shift, data->rotation, data->shuffle, D, scratch);
    break;
  default:
    g = IPSO_FN(cec17_composition)(fn, x, data, scratch);
    break;
  }
  return g + (IPSO_REAL)(100 * fn);
}

/* F p[0] in D dimensions at x, its data packed after it in P: the shift,
 * rotation and shuffle rows one after the other, as many as cec2017_table
 * says (the objective's parameter vector in the backends). */
IPSO_HD IPSO_REAL IPSO_FN(cec2017_packed)(const IPSO_REAL *x, int D, const IPSO_REAL *p,
                                          IPSO_REAL *scratch)
{
  struct IPSO_FN(cec2017_data) d;
  d.fn = (int)p[0];
  d.D = D;
  if (d.fn < 1 || d.fn > 30) return (IPSO_REAL)0 / (IPSO_REAL)0;
  const struct cec2017_info *t = &cec2017_table[d.fn];
  d.shift = p + 1;
  d.rotation = d.shift + (long)t->nshift * D;
  d.shuffle = d.rotation + (long)t->nrot * D * D;
  return IPSO_FN(cec2017)(x, &d, scratch);
}

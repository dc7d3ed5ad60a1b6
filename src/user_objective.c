/* User-defined objectives on the CPU: a generated wrapper around the user's
 * file, compiled by the system C compiler into a cached shared object. */
#include "user_objective.h"

#include <dlfcn.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "log.h"

#ifndef IPSO_C_COMPILER
#define IPSO_C_COMPILER "cc"
#endif

/* Flags for the user's code: the project's floating-point rules (no
 * contraction), and errors for what would silently compute garbage. */
#define USER_CFLAGS                                                                                \
  "-std=gnu11 -O2 -fPIC -shared -ffp-contract=off -Werror=implicit-function-declaration "          \
  "-Werror=incompatible-pointer-types -Werror=return-type"

struct user_objective {
  void *so;
  void *fn;
};

uint64_t ipso_hash(uint64_t h, const void *data, size_t n)
{
  const unsigned char *p = data;
  if (h == 0) h = UINT64_C(0xcbf29ce484222325);
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}

char *ipso_read_file(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap + 1);
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (n < cap) break;
    char *bigger = realloc(buf, 2 * cap + 1);
    if (!bigger) {
      free(buf);
      buf = NULL;
      break;
    }
    buf = bigger;
    cap *= 2;
  }
  int err = ferror(f);
  fclose(f);
  if (!buf || err) {
    free(buf);
    return NULL;
  }
  buf[n] = '\0';
  if (len) *len = n;
  return buf;
}

/* Appends printf output to the growing string *S of length *N. */
static int append(char **s, size_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int append(char **s, size_t *n, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (k < 0) return -1;
  char *t = realloc(*s, *n + (size_t)k + 1);
  if (!t) return -1;
  *s = t;
  va_start(ap, fmt);
  vsnprintf(*s + *n, (size_t)k + 1, fmt, ap);
  va_end(ap);
  *n += (size_t)k;
  return 0;
}

char *user_objective_wrapper(const struct ipso_config *cfg)
{
  const struct ipso_objective_config *o = &cfg->objective;
  const char *real = cfg->run.precision == IPSO_FLOAT ? "float" : "double";
  char *s = NULL;
  size_t n = 0;
  int bad = 0;
  bad |= append(&s, &n,
                "/* islandpso: objective.function = %s from objective.source */\n"
                "#ifdef __CUDACC_RTC__\n"
                "#define IPSO_USER_CONST __device__ const\n"
                "#else\n"
                "#include <math.h>\n"
                "#define IPSO_USER_CONST static const\n"
                "#endif\n"
                "typedef %s ipso_real;\n",
                o->function, real);
  for (int i = 0; i < o->nparams; i++) {
    const struct ipso_param *p = &o->params[i];
    if (!p->is_array) {
      bad |= append(&s, &n, "IPSO_USER_CONST ipso_real %s = %.17g;\n", p->name, p->values[0]);
      continue;
    }
    bad |= append(&s, &n, "IPSO_USER_CONST ipso_real %s[%lld] = {", p->name, (long long)p->len);
    for (int64_t k = 0; k < p->len; k++)
      bad |= append(&s, &n, "%s%.17g", k ? ", " : "", p->values[k]);
    bad |= append(&s, &n, "};\n");
  }
  bad |= append(&s, &n,
                "#include \"%s\"\n"
                "#line 1 \"islandpso-user-entry\"\n"
                "ipso_real ipso_user_objective(const ipso_real *x, int d, const ipso_real *prm)\n"
                "{\n"
                "  (void)prm;\n"
                "  return %s(x, d);\n"
                "}\n",
                o->source, o->function);
  /* A separable objective's term: the function of one coordinate. */
  if (o->separable)
    bad |= append(&s, &n,
                  "ipso_real ipso_user_term(ipso_real xi, const ipso_real *prm)\n"
                  "{\n"
                  "  (void)prm;\n"
                  "  return %s(&xi, 1);\n"
                  "}\n",
                  o->function);
  if (bad) {
    free(s);
    return NULL;
  }
  return s;
}

int user_cache_dir(char *dir, size_t size)
{
  const char *env = getenv("IPSO_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"),
             *home = getenv("HOME");
  int k;
  if (env && *env)
    k = snprintf(dir, size, "%s", env);
  else if (xdg && *xdg)
    k = snprintf(dir, size, "%s/islandpso", xdg);
  else
    k = snprintf(dir, size, "%s/.cache/islandpso", home && *home ? home : "/tmp");
  if (k < 0 || (size_t)k >= size) return IPSO_FAIL("cache", "cache directory path too long");
  /* Create each missing component. */
  for (char *p = dir + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
      int e = errno;
      *p = '/';
      return IPSO_FAIL("cache", "cannot create '%s': %s", dir, strerror(e));
    }
    *p = '/';
  }
  if (mkdir(dir, 0755) != 0 && errno != EEXIST)
    return IPSO_FAIL("cache", "cannot create '%s': %s", dir, strerror(errno));
  return IPSO_OK;
}

/* Whether IDENT appears in TEXT as a whole identifier followed by '('. */
static int defines_function(const char *text, const char *ident)
{
  size_t n = strlen(ident);
  for (const char *p = strstr(text, ident); p; p = strstr(p + 1, ident)) {
    int start = p == text || !(p[-1] == '_' || (p[-1] >= '0' && p[-1] <= '9') ||
                               ((p[-1] | 32) >= 'a' && (p[-1] | 32) <= 'z'));
    const char *q = p + n;
    while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') q++;
    if (start && *q == '(') return 1;
  }
  return 0;
}

/* Runs the C compiler on SRC into OUT; returns its exit status. */
static int run_compiler(const char *src, const char *out)
{
  const char *cc = getenv("IPSO_CC");
  char cmd[3 * IPSO_PATH_MAX];
  int k = snprintf(cmd, sizeof cmd, "%s %s -o '%s' '%s' -lm", cc && *cc ? cc : IPSO_C_COMPILER,
                   USER_CFLAGS, out, src);
  if (k < 0 || (size_t)k >= sizeof cmd) return -1;
  fflush(stdout);
  fflush(stderr);
  int st = system(cmd);
  return st == -1 ? -1 : (WIFEXITED(st) ? WEXITSTATUS(st) : 128);
}

int user_objective_open_cpu(const struct ipso_config *cfg, struct user_objective **out)
{
  const struct ipso_objective_config *o = &cfg->objective;
  *out = NULL;
  size_t ulen;
  char *user = ipso_read_file(o->source, &ulen);
  if (!user) {
    log_user_error("islandpso: error: cannot read objective.source '%s': %s", o->source,
                   strerror(errno));
    return IPSO_ERR_USAGE;
  }
  int found = defines_function(user, o->function);
  if (!found) {
    free(user);
    log_user_error("islandpso: error: objective.function '%s' is not defined in '%s'", o->function,
                   o->source);
    return IPSO_ERR_USAGE;
  }
  char *wrap = user_objective_wrapper(cfg);
  if (!wrap) {
    free(user);
    return IPSO_FAIL("user objective", "out of memory");
  }
  const char *cc = getenv("IPSO_CC");
  uint64_t h = ipso_hash(0, wrap, strlen(wrap));
  h = ipso_hash(h, user, ulen);
  h = ipso_hash(h, USER_CFLAGS, sizeof USER_CFLAGS);
  h = ipso_hash(h, cc ? cc : IPSO_C_COMPILER, strlen(cc ? cc : IPSO_C_COMPILER));
  free(user);

  char dir[IPSO_PATH_MAX], src[IPSO_PATH_MAX + 64], so[IPSO_PATH_MAX + 64], tmp[IPSO_PATH_MAX + 96];
  int rc = user_cache_dir(dir, sizeof dir);
  if (rc != IPSO_OK) {
    free(wrap);
    return rc;
  }
  snprintf(so, sizeof so, "%s/user-%016llx.so", dir, (unsigned long long)h);
  if (access(so, R_OK) != 0) {
    snprintf(src, sizeof src, "%s/user-%016llx-%d.c", dir, (unsigned long long)h, (int)getpid());
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", so, (int)getpid());
    FILE *f = fopen(src, "w");
    if (!f || fputs(wrap, f) == EOF || fclose(f) != 0) {
      free(wrap);
      return IPSO_FAIL("user objective", "cannot write '%s': %s", src, strerror(errno));
    }
    int st = run_compiler(src, tmp);
    remove(src);
    if (st != 0) {
      remove(tmp);
      free(wrap);
      log_user_error("islandpso: error: cannot compile objective.source '%s' (the compiler's "
                     "messages are above)%s",
                     o->source,
                     cfg->run.precision == IPSO_FLOAT
                         ? "; with precision = \"float\" the function must take const float * "
                           "(write it with ipso_real)"
                         : "");
      return IPSO_ERR_USAGE;
    }
    if (rename(tmp, so) != 0) {
      remove(tmp);
      free(wrap);
      return IPSO_FAIL("user objective", "cannot rename '%s': %s", tmp, strerror(errno));
    }
  }
  free(wrap);
  struct user_objective *u = calloc(1, sizeof *u);
  if (!u) return IPSO_FAIL("user objective", "out of memory");
  u->so = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!u->so) {
    free(u);
    return IPSO_FAIL("user objective", "cannot load '%s': %s", so, dlerror());
  }
  u->fn = dlsym(u->so, "ipso_user_objective");
  if (!u->fn) {
    user_objective_close(u);
    return IPSO_FAIL("user objective", "'%s' has no ipso_user_objective", so);
  }
  *out = u;
  return IPSO_OK;
}

objective_fn_d user_objective_fn_d(struct user_objective *u)
{
  objective_fn_d f;
  memcpy(&f, &u->fn, sizeof f); /* object pointer to function pointer, as dlsym requires */
  return f;
}

objective_fn_f user_objective_fn_f(struct user_objective *u)
{
  objective_fn_f f;
  memcpy(&f, &u->fn, sizeof f);
  return f;
}

void user_objective_close(struct user_objective *u)
{
  if (!u) return;
  if (u->so) dlclose(u->so);
  free(u);
}

void user_separable_points(const struct ipso_config *cfg, double *pts)
{
  const struct ipso_objective_config *o = &cfg->objective;
  uint64_t z = UINT64_C(0x6973657061726162); /* splitmix64 from a fixed start */
  for (int i = 0; i < USER_SEPARABLE_POINTS; i++)
    for (int d = 0; d < o->dimensions; d++) {
      z += UINT64_C(0x9e3779b97f4a7c15);
      uint64_t r = z;
      r = (r ^ (r >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
      r = (r ^ (r >> 27)) * UINT64_C(0x94d049bb133111eb);
      r ^= r >> 31;
      double u = (double)(r >> 11) * 0x1p-53;
      double x = o->lower[d] + u * (o->upper[d] - o->lower[d]);
      if (cfg->run.precision == IPSO_FLOAT) x = (float)x;
      pts[(size_t)i * o->dimensions + d] = x;
    }
}

/* Whether A and B agree to within TOL, NaN with NaN and infinity with the
 * same infinity included. */
static int agree(double a, double b, double tol)
{
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
  if (isinf(a) || isinf(b)) return a == b;
  return fabs(a - b) <= tol;
}

int user_separable_verdict(const struct ipso_config *cfg, const double *whole, const double *terms,
                           const double *mag)
{
  const struct ipso_objective_config *o = &cfg->objective;
  double eps = cfg->run.precision == IPSO_FLOAT ? FLT_EPSILON : DBL_EPSILON;
  for (int i = 0; i < USER_SEPARABLE_POINTS; i++) {
    /* Summing D terms in two orders differs by at most about 2 D eps times
     * the sum of their magnitudes; allow twice that. */
    double tol = (4.0 * o->dimensions + 16.0) * eps * (mag[i] + fabs(whole[i])) + DBL_MIN;
    if (agree(whole[i], terms[i], tol)) continue;
    /* Every rank reaches the same verdict (same points, same function). */
    if (log_rank() == 0)
      log_user_error("islandpso: error: objective.separable = true, but %s is not a sum of one "
                     "function of each coordinate: at a point within the bounds %s(x, %d) = "
                     "%.9g, while the sum of %s(&x[i], 1) over its %d coordinates is %.9g. "
                     "Remove objective.separable (the whole row is then evaluated by one "
                     "thread), or make f(x, d) equal f(&x[0], 1) + ... + f(&x[d-1], 1)",
                     o->function, o->function, o->dimensions, whole[i], o->function, o->dimensions,
                     terms[i]);
    return IPSO_ERR_USAGE;
  }
  return IPSO_OK;
}

int user_separable_check_cpu(const struct ipso_config *cfg, struct user_objective *u)
{
  int D = cfg->objective.dimensions, fl = cfg->run.precision == IPSO_FLOAT;
  double *pts = malloc((size_t)USER_SEPARABLE_POINTS * (size_t)D * sizeof *pts);
  float *row = malloc((size_t)D * sizeof *row);
  double whole[USER_SEPARABLE_POINTS], terms[USER_SEPARABLE_POINTS], mag[USER_SEPARABLE_POINTS];
  if (!pts || !row) {
    free(pts);
    free(row);
    return IPSO_FAIL("user objective", "out of memory");
  }
  user_separable_points(cfg, pts);
  objective_fn_d fd = user_objective_fn_d(u);
  objective_fn_f ff = user_objective_fn_f(u);
  for (int i = 0; i < USER_SEPARABLE_POINTS; i++) {
    const double *x = pts + (size_t)i * D;
    double s = 0, m = 0;
    for (int d = 0; d < D; d++) {
      float xf = (float)x[d];
      row[d] = xf;
      double t = fl ? ff(&xf, 1, NULL) : fd(&x[d], 1, NULL);
      s += t;
      m += fabs(t);
    }
    whole[i] = fl ? ff(row, D, NULL) : fd(x, D, NULL);
    terms[i] = s;
    mag[i] = m;
  }
  free(pts);
  free(row);
  return user_separable_verdict(cfg, whole, terms, mag);
}

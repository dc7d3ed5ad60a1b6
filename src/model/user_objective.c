/* User-defined objectives on the CPU (user_objective.h). */
#define _GNU_SOURCE /* pipe2, mkostemp, strsignal */
#include "user_objective.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

extern char **environ;

#ifndef IPSO_C_COMPILER
#define IPSO_C_COMPILER "cc"
#endif

/* Flags for the user's code: the project's floating-point rules (no
 * contraction), and errors for what would silently compute garbage. */
static const char *const user_cflags[] = {"-std=gnu11",
                                          "-O2",
                                          "-fPIC",
                                          "-shared",
                                          "-ffp-contract=off",
                                          "-Werror=implicit-function-declaration",
                                          "-Werror=incompatible-pointer-types",
                                          "-Werror=return-type"};

struct user_objective {
  void *so;
  union { /* dlsym's object pointer, read as a function pointer */
    void *sym;
    objective_fn_d d;
    objective_fn_f f;
  } fn;
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
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), e = 0;
  struct stat st;
  if (fd < 0) return NULL;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) e = EINVAL;
  size_t cap = 4096, n = 0;
  char *buf = e ? NULL : malloc(cap + 1);
  if (!e && !buf) e = ENOMEM;
  for (ssize_t k; !e; n += (size_t)k) {
    if (n == cap) {
      char *bigger = realloc(buf, 2 * cap + 1);
      if (!bigger) {
        e = ENOMEM;
        break;
      }
      buf = bigger;
      cap *= 2;
    }
    if ((k = read(fd, buf + n, cap - n)) == 0) break;
    if (k < 0 && errno != EINTR) e = errno;
    if (k < 0) k = 0;
  }
  close(fd);
  if (e) {
    free(buf);
    errno = e;
    return NULL;
  }
  buf[n] = '\0';
  if (len) *len = n;
  return buf;
}

/* The files already hashed (each once), and the first existing one that is
 * not a regular file. */
struct include_walk {
  char *seen[256];
  int nseen;
  char irregular[IPSO_PATH_MAX];
};

static int include_file(struct include_walk *w, const char *path, uint64_t *h);

/* Hashes every file that TEXT names in an #include "..." line, as found from
 * the directory DIR (with its '/'), recursively. */
static int include_scan(struct include_walk *w, const char *text, const char *dir, uint64_t *h)
{
  for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
    const char *q = p;
    while (*q == ' ' || *q == '\t') q++;
    if (*q++ != '#') continue;
    while (*q == ' ' || *q == '\t') q++;
    if (strncmp(q, "include", 7) != 0) continue;
    q += 7;
    if (strncmp(q, "_next", 5) == 0) q += 5;
    while (*q == ' ' || *q == '\t') q++;
    if (*q == '<') continue;  /* a system header: NVRTC's and CUDA's, in the key by version */
    if (*q != '"') return -1; /* a macro names the file: not followed here */
    const char *end = strchr(q + 1, '"'), *nl = strchr(q + 1, '\n');
    if (!end || (nl && nl < end)) return -1;
    char path[2 * IPSO_PATH_MAX];
    int n = (int)(end - q - 1);
    if (n >= IPSO_PATH_MAX) return -1;
    if (q[1] == '/')
      snprintf(path, sizeof path, "%.*s", n, q + 1);
    else
      snprintf(path, sizeof path, "%s%.*s", dir, n, q + 1);
    *h = ipso_hash(*h, path, strlen(path) + 1);
    if (include_file(w, path, h) != 0) return -1;
  }
  return 0;
}

/* Hashes the file PATH (or that it is missing) and the files it includes. */
static int include_file(struct include_walk *w, const char *path, uint64_t *h)
{
  char *real = realpath(path, NULL);
  if (!real) {
    *h = ipso_hash(*h, "missing", 8); /* NVRTC may find it among its own headers */
    return 0;
  }
  for (int i = 0; i < w->nseen; i++)
    if (strcmp(w->seen[i], real) == 0) {
      free(real);
      return 0;
    }
  if (w->nseen == (int)(sizeof w->seen / sizeof w->seen[0])) {
    free(real);
    return -1;
  }
  w->seen[w->nseen++] = real;
  struct stat st;
  if (stat(real, &st) == 0 && !S_ISREG(st.st_mode) && !w->irregular[0])
    snprintf(w->irregular, sizeof w->irregular, "%s", real);
  size_t n;
  char *text = ipso_read_file(real, &n);
  if (!text) {
    *h = ipso_hash(*h, "unreadable", 11);
    return 0;
  }
  *h = ipso_hash(*h, text, n);
  char dir[IPSO_PATH_MAX + 1];
  const char *slash = strrchr(real, '/');
  snprintf(dir, sizeof dir, "%.*s", (int)(slash - real + 1), real);
  int rc = include_scan(w, text, dir, h);
  free(text);
  return rc;
}

/* Walks TEXT's includes (include_scan), the first irregular file into IRREGULAR. */
static int walk_includes(const char *text, uint64_t *h, char irregular[IPSO_PATH_MAX])
{
  struct include_walk w = {.nseen = 0};
  int rc = include_scan(&w, text, "", h);
  for (int i = 0; i < w.nseen; i++) free(w.seen[i]);
  if (irregular) memcpy(irregular, w.irregular, sizeof w.irregular);
  return rc;
}

int user_includes_hash(const char *text, uint64_t *h)
{
  return walk_includes(text, h, NULL);
}

/* Refuses a user objective that #includes, directly or not, a file that is
 * not regular: the compiler would wait on a FIFO, through every stop signal. */
static int includes_regular(const struct ipso_config *cfg, const char *text)
{
  char irregular[IPSO_PATH_MAX];
  uint64_t h = 0;
  walk_includes(text, &h, irregular);
  if (!irregular[0]) return IPSO_OK;
  return IPSO_USAGE("islandpso: error: objective.source '%s' includes '%s', which is not a regular "
                    "file (a FIFO, a device or a socket): the compiler would wait on it",
                    cfg->objective.source, irregular);
}

char *user_objective_wrapper(const struct ipso_config *cfg)
{
  const struct ipso_objective_config *o = &cfg->objective;
  char *s = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&s, &n);
  if (!f) return NULL;
  fprintf(f,
          "/* islandpso: objective.function = %s from objective.source */\n"
          "#ifdef __CUDACC_RTC__\n"
          "#define IPSO_USER_CONST __device__ const\n"
          "#else\n"
          "#include <math.h>\n"
          "#define IPSO_USER_CONST static const\n"
          "#endif\n"
          "typedef %s ipso_real;\n",
          o->function, cfg->run.precision == IPSO_FLOAT ? "float" : "double");
  for (int i = 0; i < o->nparams; i++) {
    const struct ipso_param *p = &o->params[i];
    if (!p->is_array) {
      fprintf(f, "IPSO_USER_CONST ipso_real %s = %.17g;\n", p->name, p->values[0]);
      continue;
    }
    fprintf(f, "IPSO_USER_CONST ipso_real %s[%lld] = {", p->name, (long long)p->len);
    for (int64_t k = 0; k < p->len; k++) fprintf(f, "%s%.17g", k ? ", " : "", p->values[k]);
    fputs("};\n", f);
  }
  fprintf(f,
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
    fprintf(f,
            "ipso_real ipso_user_term(ipso_real xi, const ipso_real *prm)\n"
            "{\n"
            "  (void)prm;\n"
            "  return %s(&xi, 1);\n"
            "}\n",
            o->function);
  int bad = ferror(f);
  if (fclose(f) != 0 || bad) {
    free(s);
    return NULL;
  }
  return s;
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

/* A command run without a shell: the compiler's words, then arguments. */
struct command {
  char words[IPSO_PATH_MAX]; /* the compiler's command, split in place */
  char *argv[64];
  int n;
};

/* Starts C with $IPSO_CC split at white space (e.g. "ccache gcc"; no shell,
 * so no quoting), else the compiler that built islandpso; then the flags. */
static int command_init(struct command *c)
{
  const char *cc = getenv("IPSO_CC");
  if (!cc || !*cc) cc = IPSO_C_COMPILER;
  int k = snprintf(c->words, sizeof c->words, "%s", cc);
  if (k < 0 || (size_t)k >= sizeof c->words) return -1;
  c->n = 0;
  for (char *w = strtok(c->words, " \t\n"); w; w = strtok(NULL, " \t\n")) {
    if (c->n == 32) return -1;
    c->argv[c->n++] = w;
  }
  if (c->n == 0) return -1;
  for (size_t i = 0; i < sizeof user_cflags / sizeof user_cflags[0]; i++)
    c->argv[c->n++] = (char *)user_cflags[i];
  c->argv[c->n] = NULL;
  return 0;
}

/* Appends the NULL-terminated ARGS (which must outlive C) to C. */
static void command_add(struct command *c, const char *const *args)
{
  for (; *args; args++)
    if (c->n < (int)(sizeof c->argv / sizeof c->argv[0]) - 1) c->argv[c->n++] = (char *)*args;
  c->argv[c->n] = NULL;
}

/* One compilation's temporary files in the cache directory: the wrapper,
 * the preprocessed source and the compiler's messages. */
struct compile_files {
  char wrap[IPSO_PATH_MAX + 32], pre[IPSO_PATH_MAX + 32], msgs[IPSO_PATH_MAX + 32];
  int msg_fd, pre_fd;
};

/* Creates the temporary file DIR/NAME-XXXXXX into PATH and *FD. */
static int temp_create(char path[IPSO_PATH_MAX + 32], const char *dir, const char *name, int *fd)
{
  snprintf(path, IPSO_PATH_MAX + 32, "%s/%s-XXXXXX", dir, name);
  if ((*fd = mkostemp(path, O_CLOEXEC)) >= 0) return IPSO_OK;
  int e = errno;
  path[0] = '\0';
  return IPSO_FAIL("user objective", "cannot create a file in '%s': %s", dir, strerror(e));
}

/* Creates F's files in DIR (F zeroed, its descriptors -1), the wrapper WRAP written. */
static int compile_files_open(struct compile_files *f, const char *dir, const char *wrap)
{
  int fd;
  IPSO_TRY(temp_create(f->wrap, dir, ".user", &fd));
  FILE *w = fdopen(fd, "w");
  if (!w) close(fd);
  int e = !w || fputs(wrap, w) == EOF ? errno : 0;
  if (w && fclose(w) != 0 && !e) e = errno;
  if (e) return IPSO_FAIL("user objective", "cannot write '%s': %s", f->wrap, strerror(e));
  IPSO_TRY(temp_create(f->pre, dir, ".pre", &f->pre_fd));
  return temp_create(f->msgs, dir, ".msgs", &f->msg_fd);
}

static void compile_files_close(struct compile_files *f)
{
  if (f->msg_fd >= 0) close(f->msg_fd);
  if (f->pre_fd >= 0) close(f->pre_fd);
  if (f->wrap[0]) unlink(f->wrap);
  if (f->pre[0]) unlink(f->pre);
  if (f->msgs[0]) unlink(f->msgs);
}

/* The fingerprint of the user objective this process loaded last. */
static uint64_t loaded_fingerprint;
static int loaded_known;

void user_objective_note_loaded(uint64_t fingerprint)
{
  loaded_fingerprint = fingerprint;
  loaded_known = 1;
}

int user_objective_loaded(char hex[17])
{
  hex[0] = '\0';
  if (!loaded_known) return 0;
  snprintf(hex, 17, "%016llx", (unsigned long long)loaded_fingerprint);
  return 1;
}

/* Reports a failed compilation: the compiler's messages, then how it ended. */
static int compile_failed(const struct ipso_config *cfg, const struct command *c,
                          const struct compile_files *f, int st)
{
  char how[128];
  if (WIFEXITED(st))
    snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(st));
  else if (WIFSIGNALED(st))
    snprintf(how, sizeof how, "was killed by signal %d (%s)", WTERMSIG(st),
             strsignal(WTERMSIG(st)));
  else
    snprintf(how, sizeof how, "ended with wait status %#x", (unsigned)st);
  size_t n = 0;
  char *msgs = ipso_read_file(f->msgs, &n);
  const size_t keep = 65536; /* thousands of errors say no more than the first ones */
  if (msgs && n > keep) snprintf(msgs + keep - 64, 64, "\n... (%zu more bytes)\n", n - keep);
  n = msgs ? strlen(msgs) : 0;
  log_user_error("%s%sislandpso: error: cannot compile objective.source '%s': the C compiler "
                 "(%s) %s%s%s",
                 msgs ? msgs : "", n && msgs[n - 1] != '\n' ? "\n" : "", cfg->objective.source,
                 c->argv[0], how, n ? " (its messages are above)" : "",
                 cfg->run.precision == IPSO_FLOAT
                     ? "; with precision = \"float\" the function must take const float * "
                       "(write it with ipso_real)"
                     : "");
  free(msgs);
  return IPSO_ERR_USAGE;
}

/* Runs C (argv[0] from PATH), stdin from IN, stdout to OUT_FD (-1: the
 * messages' file), stderr to the messages' file; a failure is compile_failed's.
 * posix_spawn: no shell reads the paths, and no fork of an MPI process. */
static int compile_run(const struct ipso_config *cfg, const struct command *c, const char *in,
                       int out_fd, const struct compile_files *f)
{
  posix_spawn_file_actions_t fa;
  pid_t pid;
  int e = posix_spawn_file_actions_init(&fa), st;
  if (!e) {
    e = posix_spawn_file_actions_addopen(&fa, 0, in, O_RDONLY, 0);
    if (!e) e = posix_spawn_file_actions_adddup2(&fa, out_fd >= 0 ? out_fd : f->msg_fd, 1);
    if (!e) e = posix_spawn_file_actions_adddup2(&fa, f->msg_fd, 2);
    fflush(stdout);
    fflush(stderr);
    if (!e) e = posix_spawnp(&pid, c->argv[0], &fa, NULL, c->argv, environ);
    posix_spawn_file_actions_destroy(&fa);
  }
  if (e)
    return IPSO_FAIL("user objective", "cannot start the C compiler '%s': %s", c->argv[0],
                     strerror(e));
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR)
      return IPSO_FAIL("user objective", "waitpid for '%s': %s", c->argv[0], strerror(errno));
  return st == 0 ? IPSO_OK : compile_failed(cfg, c, f, st);
}

/* Compiles the wrapper in F into the shared object SO in DIR unless the
 * cache has it; *FINGERPRINT: the hash of the preprocessed text. That very
 * text is compiled, so an edit after the preprocessing cannot slip in; the
 * key hashes it and the command. A cached object must be this user's alone. */
static int compile_cached(const struct ipso_config *cfg, const char *dir,
                          const struct compile_files *f, char *so, size_t so_size,
                          uint64_t *fingerprint)
{
  struct command c;
  if (command_init(&c) != 0)
    return IPSO_FAIL("user objective", "the C compiler's command ($IPSO_CC) is empty or too long");
  struct command pre = c;
  command_add(&pre, (const char *[]){"-E", "-x", "c", "-", NULL});
  IPSO_TRY(compile_run(cfg, &pre, f->wrap, f->pre_fd, f));
  size_t n;
  char *text = ipso_read_file(f->pre, &n);
  if (!text) return IPSO_FAIL("user objective", "cannot read '%s': %s", f->pre, strerror(errno));
  uint64_t h = 0; /* the key: the command's words, each with its NUL, and the text */
  for (int i = 0; i < c.n; i++) h = ipso_hash(h, c.argv[i], strlen(c.argv[i]) + 1);
  h = ipso_hash(h, text, n);
  *fingerprint = ipso_hash(0, text, n);
  free(text);
  snprintf(so, so_size, "%s/user-%016llx.so", dir, (unsigned long long)h);
  struct stat sb;
  if (lstat(so, &sb) == 0) {
    char why[IPSO_PATH_MAX + 128];
    if (!user_cache_file_untrusted(so, why, sizeof why)) return IPSO_OK;
    return IPSO_USAGE("islandpso: error: the cached objective %s: islandpso does not run code that "
                      "another user could have written; remove it and run again",
                      why);
  }
  char tmp[IPSO_PATH_MAX + 128];
  snprintf(tmp, sizeof tmp, "%s.tmp.%d", so, (int)getpid());
  command_add(&c, (const char *[]){"-o", tmp, "-x", "cpp-output", "-", "-lm", NULL});
  int rc = compile_run(cfg, &c, f->pre, -1, f);
  /* For this user alone, and in place at once (the rename). */
  if (rc == IPSO_OK && (chmod(tmp, 0700) != 0 || rename(tmp, so) != 0))
    rc = IPSO_FAIL("user objective", "cannot put '%s' in place as '%s': %s", tmp, so,
                   strerror(errno));
  if (rc != IPSO_OK) remove(tmp);
  return rc;
}

int user_objective_open_cpu(const struct ipso_config *cfg, struct user_objective **out)
{
  const struct ipso_objective_config *o = &cfg->objective;
  *out = NULL;
  if (strpbrk(o->source, "\"\n\r"))
    return IPSO_USAGE("islandpso: error: objective.source '%s': a path with a double quote or a "
                      "line break cannot be named in an #include; rename the file or its directory",
                      o->source);
  char *user = ipso_read_file(o->source, NULL);
  if (!user)
    return IPSO_USAGE("islandpso: error: cannot read objective.source '%s': %s", o->source,
                      strerror(errno));
  int found = defines_function(user, o->function);
  free(user);
  if (!found)
    return IPSO_USAGE("islandpso: error: objective.function '%s' is not defined in '%s'",
                      o->function, o->source);
  char dir[IPSO_PATH_MAX], so[IPSO_PATH_MAX + 64];
  IPSO_TRY(user_cache_dir_trusted(dir, sizeof dir));
  char *wrap = user_objective_wrapper(cfg);
  if (!wrap) return IPSO_FAIL("user objective", "out of memory");
  struct compile_files f = {.msg_fd = -1, .pre_fd = -1};
  uint64_t fingerprint = 0;
  int rc = includes_regular(cfg, wrap);
  if (rc == IPSO_OK) rc = compile_files_open(&f, dir, wrap);
  free(wrap);
  if (rc == IPSO_OK) rc = compile_cached(cfg, dir, &f, so, sizeof so, &fingerprint);
  compile_files_close(&f);
  if (rc != IPSO_OK) return rc;
  struct user_objective *u = calloc(1, sizeof *u);
  if (!u) return IPSO_FAIL("user objective", "out of memory");
  u->so = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!u->so) {
    free(u);
    return IPSO_FAIL("user objective", "cannot load '%s': %s", so, dlerror());
  }
  u->fn.sym = dlsym(u->so, "ipso_user_objective");
  if (!u->fn.sym) {
    user_objective_close(u);
    return IPSO_FAIL("user objective", "'%s' has no ipso_user_objective", so);
  }
  user_objective_note_loaded(fingerprint);
  *out = u;
  return IPSO_OK;
}

objective_fn_d user_objective_fn_d(struct user_objective *u)
{
  return u->fn.d;
}

objective_fn_f user_objective_fn_f(struct user_objective *u)
{
  return u->fn.f;
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

/* Whether A and B agree to within TOL (NaN with NaN, infinity with itself). */
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

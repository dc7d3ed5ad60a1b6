/* NVRTC compilation of the kernels and the on-disk cache of the results.
 * NVRTC is dlopen()ed when needed, not linked: its relocations would slow
 * every process's start (--version too), and with a warm cache a run never
 * compiles. */
#include "gpu_swarm.h"

#include <dlfcn.h>
#include <errno.h>
#include <nvrtc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "log.h"
#include "runtime.h"
#include "user_objective.h"

#ifndef IPSO_CUDA_INCLUDE
#define IPSO_CUDA_INCLUDE "/usr/local/cuda/include"
#endif
#ifndef IPSO_NVRTC_SONAME /* the library's name, then its path at build time */
#define IPSO_NVRTC_SONAME "libnvrtc.so"
#endif
#ifndef IPSO_NVRTC_PATH
#define IPSO_NVRTC_PATH IPSO_NVRTC_SONAME
#endif

/* The kernel sources built into the binary (kernels/embed.cmake). */
extern const char ipso_src_pso_kernels[];
extern const char ipso_src_objectives[];
extern const char ipso_src_gpu_abi[];
extern const char ipso_src_pso_device[];
extern const char ipso_src_pso_ring[];
extern const char ipso_src_pso_spec[];
extern const char ipso_src_cec2017[];
extern const char ipso_src_cec2017_table[];
extern const char ipso_src_pso_migrate[];

/* The NVRTC functions used here, from the library opened on first use. */
static struct {
  pthread_once_t once;
  const char *error; /* why it could not be opened, or NULL */
  __typeof__(&nvrtcCreateProgram) create;
  __typeof__(&nvrtcCompileProgram) compile;
  __typeof__(&nvrtcDestroyProgram) destroy;
  __typeof__(&nvrtcGetProgramLogSize) log_size;
  __typeof__(&nvrtcGetProgramLog) log;
  __typeof__(&nvrtcGetCUBINSize) cubin_size;
  __typeof__(&nvrtcGetCUBIN) cubin;
  __typeof__(&nvrtcGetErrorString) error_string;
} nv = {PTHREAD_ONCE_INIT};

static void nvrtc_open(void)
{
  void *h = dlopen(IPSO_NVRTC_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!h) h = dlopen(IPSO_NVRTC_PATH, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    nv.error = dlerror();
    return;
  }
  /* POSIX: a function pointer converts from dlsym's void * this way. */
#define NV_SYM(field, name)                                                                        \
  if (!(*(void **)&nv.field = dlsym(h, name))) nv.error = "a function is missing from the library"
  NV_SYM(create, "nvrtcCreateProgram");
  NV_SYM(compile, "nvrtcCompileProgram");
  NV_SYM(destroy, "nvrtcDestroyProgram");
  NV_SYM(log_size, "nvrtcGetProgramLogSize");
  NV_SYM(log, "nvrtcGetProgramLog");
  NV_SYM(cubin_size, "nvrtcGetCUBINSize");
  NV_SYM(cubin, "nvrtcGetCUBIN");
  NV_SYM(error_string, "nvrtcGetErrorString");
#undef NV_SYM
}

/* Writes N bytes to PATH atomically (temporary name, then rename); a cache
 * that cannot be written is only a warning. */
static void cache_store(const char *path, const void *data, size_t n)
{
  char tmp[IPSO_PATH_MAX + 96];
  snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
  FILE *f = fopen(tmp, "wb");
  if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0 || rename(tmp, path) != 0) {
    log_warn("cannot write the kernel cache '%s': %s", path, strerror(errno));
    remove(tmp);
  }
}

/* Prints NVRTC's log of PROG to stderr. */
static void print_log(nvrtcProgram prog)
{
  size_t n = 0;
  if (nv.log_size(prog, &n) != NVRTC_SUCCESS || n <= 1) return;
  char *log = malloc(n);
  if (log && nv.log(prog, log) == NVRTC_SUCCESS) log_user_error("%s", log);
  free(log);
}

/* The NVRTC options for compute capability MAJOR.MINOR (make_opts). */
struct nvrtc_opts {
  char arch[64], inc[IPSO_PATH_MAX + 8], cccl[IPSO_PATH_MAX + 16];
  const char *v[8];
  int n;
};

static void make_opts(struct nvrtc_opts *o, int major, int minor)
{
  const char *inc_env = getenv("IPSO_CUDA_INCLUDE");
  const char *inc = inc_env && *inc_env ? inc_env : IPSO_CUDA_INCLUDE;
  snprintf(o->arch, sizeof o->arch, "--gpu-architecture=sm_%d%d", major, minor);
  snprintf(o->inc, sizeof o->inc, "-I%s", inc);
  snprintf(o->cccl, sizeof o->cccl, "-I%s/cccl", inc);
  /* No contraction beyond the explicit fma() calls: the CPU backend's
   * operations (src/backend_cpu_impl.h). */
  const char *v[] = {o->arch, "--std=c++17", "--fmad=false", "-default-device", o->inc, o->cccl};
  o->n = (int)(sizeof v / sizeof v[0]);
  memcpy(o->v, v, sizeof v);
  /* IPSO_NVRTC_VERBOSE: print ptxas's resource report of every kernel. */
  const char *verbose = getenv("IPSO_NVRTC_VERBOSE");
  if (verbose && *verbose) o->v[o->n++] = "--ptxas-options=-v";
}

/* DEFINES + PRELUDE + the kernel source, malloc'd. */
static char *full_source(const char *defines, const char *prelude)
{
  size_t len = strlen(defines) + (prelude ? strlen(prelude) : 0) + strlen(ipso_src_pso_kernels);
  char *src = malloc(len + 32);
  if (src)
    snprintf(src, len + 32, "%s%s\n%s", defines, prelude ? prelude : "", ipso_src_pso_kernels);
  return src;
}

/* The headers the kernel source includes, as NVRTC sees them (embedded). */
enum { IPSO_KERNEL_HEADERS = 8 };
static const char *const ipso_kernel_header_src[IPSO_KERNEL_HEADERS] = {
    ipso_src_objectives, ipso_src_gpu_abi, ipso_src_pso_device,    ipso_src_pso_ring,
    ipso_src_pso_spec,   ipso_src_cec2017, ipso_src_cec2017_table, ipso_src_pso_migrate};
static const char *const ipso_kernel_header_name[IPSO_KERNEL_HEADERS] = {
    "objectives.h", "gpu_abi.h", "pso_device.cuh",  "pso_ring.cuh",
    "pso_spec.cuh", "cec2017.h", "cec2017_table.h", "pso_migrate.cuh"};

int gpu_compile_image(const char *defines, const char *prelude, int major, int minor, int user_code,
                      char **image, size_t *size)
{
  *image = NULL;
  *size = 0;
  pthread_once(&nv.once, nvrtc_open); /* NVRTC, opened on the first call (thread-safe) */
  if (nv.error)
    return IPSO_FAIL("nvrtc", "cannot open NVRTC (%s, needed to compile the GPU kernels): %s",
                     IPSO_NVRTC_SONAME, nv.error);
  struct nvrtc_opts o;
  make_opts(&o, major, minor);
  char *src = full_source(defines, prelude);
  if (!src) return IPSO_FAIL("nvrtc", "out of memory");
  nvrtcProgram prog;
  nvrtcResult r = nv.create(&prog, src, "pso_kernels.cu", IPSO_KERNEL_HEADERS,
                            ipso_kernel_header_src, ipso_kernel_header_name);
  free(src);
  if (r != NVRTC_SUCCESS) return IPSO_FAIL("nvrtc", "nvrtcCreateProgram: %s", nv.error_string(r));
  r = nv.compile(prog, o.n, o.v);
  if (r != NVRTC_SUCCESS) {
    print_log(prog);
    nv.destroy(&prog);
    if (user_code) {
      log_user_error("islandpso: error: cannot compile objective.source for the GPU (NVRTC's "
                     "messages are above)");
      return IPSO_ERR_USAGE;
    }
    return IPSO_FAIL("nvrtc", "the built-in kernels did not compile for sm_%d%d: %s", major, minor,
                     nv.error_string(r));
  }
  const char *verbose = getenv("IPSO_NVRTC_VERBOSE");
  if (verbose && *verbose) print_log(prog);
  size_t n = 0;
  r = nv.cubin_size(prog, &n);
  char *img = r == NVRTC_SUCCESS ? malloc(n) : NULL;
  if (img) r = nv.cubin(prog, img);
  nv.destroy(&prog);
  if (r != NVRTC_SUCCESS || !img) {
    free(img);
    return IPSO_FAIL("nvrtc", "cannot get the compiled image: %s", nv.error_string(r));
  }
  *image = img;
  *size = n;
  return IPSO_OK;
}

/* The cache key of a compilation in *KEY: source, options, NVRTC's name
 * (major version), the toolkit, and for user code every file it #includes
 * (NVRTC reads them from disk: an edited header must not get the old
 * kernels). -1 where the includes cannot be followed: compile every time. */
static int cache_key(const char *defines, const char *prelude, int major, int minor, int user_code,
                     uint64_t *key)
{
  struct nvrtc_opts o;
  make_opts(&o, major, minor);
  char *src = full_source(defines, prelude);
  uint64_t h = src ? ipso_hash(0, src, strlen(src)) : 0;
  free(src);
  for (int i = 0; i < IPSO_KERNEL_HEADERS; i++)
    h = ipso_hash(h, ipso_kernel_header_src[i], strlen(ipso_kernel_header_src[i]));
  for (int i = 0; i < o.n; i++) h = ipso_hash(h, o.v[i], strlen(o.v[i]) + 1);
  h = ipso_hash(h, IPSO_NVRTC_SONAME, sizeof IPSO_NVRTC_SONAME);
  int toolkit = CUDART_VERSION;
  h = ipso_hash(h, &toolkit, sizeof toolkit);
  if (prelude && user_code && user_includes_hash(prelude, &h) != 0) return -1;
  *key = h;
  return 0;
}

int gpu_compile(const char *defines, const char *prelude, int major, int minor, int user_code,
                struct gpu_program *out)
{
  memset(out, 0, sizeof *out);
  char dir[IPSO_PATH_MAX], path[IPSO_PATH_MAX + 64], why[IPSO_PATH_MAX + 128];
  uint64_t key = 0;
  if (user_code && prelude) {
    /* The user objective's fingerprint, which every rank's must match (objective_agree). */
    uint64_t f = ipso_hash(0, prelude, strlen(prelude));
    if (user_includes_hash(prelude, &f) != 0)
      return IPSO_FAIL("objective", "cannot read a file the objective includes");
    user_objective_note_loaded(f);
  }
  int cache_ok = user_cache_dir(dir, sizeof dir) == IPSO_OK &&
                 cache_key(defines, prelude, major, minor, user_code, &key) == 0;
  if (cache_ok) {
    snprintf(path, sizeof path, "%s/kernels-%016llx-sm%d%d.cubin", dir, (unsigned long long)key,
             major, minor);
    size_t n;
    char *image = ipso_read_file(path, &n);
    if (image && user_cache_file_untrusted(path, why, sizeof why)) {
      /* Only code nobody but this user may have written. */
      log_warn("not loading the cached kernels: %s; compiling them anew", why);
      free(image);
      image = NULL;
      cache_ok = 0;
    }
    int loaded =
        image && n > 0 &&
        cudaLibraryLoadData(&out->library, image, NULL, NULL, 0, NULL, NULL, 0) == cudaSuccess;
    free(image);
    if (loaded) return IPSO_OK;
  }
  double t0 = wall_seconds();
  char *image;
  size_t n;
  IPSO_TRY(gpu_compile_image(defines, prelude, major, minor, user_code, &image, &n));
  out->compile_seconds = wall_seconds() - t0;
  if (cache_ok) cache_store(path, image, n);
  cudaError_t e = cudaLibraryLoadData(&out->library, image, NULL, NULL, 0, NULL, NULL, 0);
  free(image);
  if (e != cudaSuccess)
    return IPSO_FAIL("cuda", "cannot load the compiled kernels: %s", cudaGetErrorString(e));
  return IPSO_OK;
}

/* Staging between host doubles and device REALs (kernels/gpu_swarm.h). */
#include "gpu_swarm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

void gpu_rows_to_real(void *dst, int pitch, const double *src, size_t rows, int dims, int fl)
{
  for (size_t r = 0; r < rows; r++)
    for (int d = 0; d < dims; d++)
      gpu_real_set(dst, r * (size_t)pitch + (size_t)d, src[r * (size_t)dims + (size_t)d], fl);
}

void gpu_rows_from_real(double *dst, const void *src, int pitch, size_t rows, int dims, int fl)
{
  for (size_t r = 0; r < rows; r++)
    for (int d = 0; d < dims; d++)
      dst[r * (size_t)dims + (size_t)d] = gpu_real_get(src, r * (size_t)pitch + (size_t)d, fl);
}

int gpu_stage_constants(cudaLibrary_t library, const struct ipso_config *cfg, int island,
                        const struct swarm_consts *k, int dims, int pitch, int fl, void **d_tables)
{
  /* The parameter vector takes at least a row. */
  size_t es = fl ? sizeof(float) : sizeof(double), row = (size_t)pitch * es;
  size_t np = (size_t)k->nparam > (size_t)pitch ? (size_t)k->nparam : (size_t)pitch;
  size_t rows = 3 + (size_t)k->nclamps;
  size_t bytes = rows * row + np * es;
  IPSO_CHECK_CUDA(cudaMalloc(d_tables, bytes));
  char *h = calloc(1, bytes);
  if (!h) return IPSO_FAIL("memory", "out of memory");
  const double *bounds[3] = {k->lower, k->upper, k->span};
  for (size_t r = 0; r < 3; r++) gpu_rows_to_real(h + r * row, pitch, bounds[r], 1, dims, fl);
  gpu_rows_to_real(h + 3 * row, pitch, k->vmax, (size_t)k->nclamps, dims, fl);
  if (k->param) gpu_rows_to_real(h + rows * row, 1, k->param, (size_t)k->nparam, 1, fl);
  cudaError_t e = cudaMemcpy(*d_tables, h, bytes, cudaMemcpyHostToDevice);
  free(h);
  IPSO_CHECK_CUDA(e);
  char *base = *d_tables;
  const void *tab[5];
  for (int t = 0; t < 5; t++) tab[t] = base + (t < 4 ? (size_t)t : rows) * row;
  void *sym;
  size_t symsize;
  IPSO_CHECK_CUDA(cudaLibraryGetGlobal(&sym, &symsize, library, "K"));
  union {
    struct ipso_consts_f f;
    struct ipso_consts_d d;
  } c;
  size_t size = fl ? sizeof c.f : sizeof c.d;
  memset(&c, 0, sizeof c);
  /* Either precision's struct, the same fields. */
#define SET_CONSTS(C, REAL)                                                                        \
  ((C).seed = cfg->run.seed, (C).island = (unsigned)island, (C).n = cfg->swarm.particles,          \
   (C).w = (REAL)cfg->swarm.inertia, (C).c1 = (REAL)cfg->swarm.cognitive,                          \
   (C).c2 = (REAL)cfg->swarm.social, (C).lo = tab[0], (C).hi = tab[1], (C).span = tab[2],          \
   (C).vmax = tab[3], (C).prm = tab[4])
  if (fl)
    SET_CONSTS(c.f, float);
  else
    SET_CONSTS(c.d, double);
#undef SET_CONSTS
  if (symsize != size) return IPSO_FAIL("gpu", "constant block size mismatch");
  IPSO_CHECK_CUDA(cudaMemcpy(sym, &c, size, cudaMemcpyHostToDevice));
  return IPSO_OK;
}

void gpu_slots_empty(union gpu_slot slots[IPSO_GB_SLOTS], int fl)
{
  memset(slots, 0, IPSO_GB_SLOTS * sizeof slots[0]);
  /* hint ~0: above every key. */
#define SLOT_EMPTY(S) ((S).cost = INFINITY, (S).idx = IPSO_NONE, (S).tag = -1, (S).hint = ~0ull)
  for (int k = 0; k < IPSO_GB_SLOTS; k++) {
    if (fl)
      SLOT_EMPTY(slots[k].f);
    else
      SLOT_EMPTY(slots[k].d);
  }
#undef SLOT_EMPTY
}

int gpu_stage_rows(void *dev, int pitch, double *host, size_t n, int dims, int fl, int to_host)
{
  size_t es = fl ? sizeof(float) : sizeof(double);
  size_t dpitch = (size_t)pitch * es, w = (size_t)dims * es;
  /* Floats through a dense host buffer of them; doubles need no staging. */
  void *buf = fl ? malloc(n * w) : host;
  if (!buf) return IPSO_FAIL("memory", "cannot stage the swarm on the host");
  if (fl && !to_host) gpu_rows_to_real(buf, dims, host, n, dims, fl);
  void *dst = to_host ? buf : dev;
  const void *src = to_host ? dev : buf;
  enum cudaMemcpyKind kind = to_host ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice;
  /* Rows without padding (the costs) as one block. */
  cudaError_t e =
      dpitch == w ? cudaMemcpy(dst, src, n * w, kind)
                  : cudaMemcpy2D(dst, to_host ? w : dpitch, src, to_host ? dpitch : w, w, n, kind);
  if (fl && to_host && e == cudaSuccess) gpu_rows_from_real(host, buf, dims, n, dims, fl);
  if (fl) free(buf);
  IPSO_CHECK_CUDA(e);
  return IPSO_OK;
}

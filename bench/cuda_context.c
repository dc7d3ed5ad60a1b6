/* What the GPU driver's start and end cost a process, outside islandpso:
 * cuInit; the primary context made current with a first allocation; a
 * large allocation and its memset; its free; the context's reset. One line
 * of seconds per run. Run it under different CUDA_DEVICE_MAX_CONNECTIONS
 * or CUDA_VISIBLE_DEVICES (bench/cuda_context.sh does).
 *
 *   build-gpu/cuda_context [GiB] [reset|held|init|none]   (default 1.5 reset)
 *
 * The second argument says where the process stops before it exits, so
 * that the exit's own cost (the shell's wall clock less the phases) can be
 * told apart: after the reset (the default), with the context still held,
 * right after cuInit, or before any call of the driver. */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double seconds(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Exits with the driver's message where CALL fails. */
static void check(CUresult r, const char *call)
{
  if (r == CUDA_SUCCESS) return;
  const char *why = NULL;
  cuGetErrorString(r, &why);
  fprintf(stderr, "cuda_context: %s: %s\n", call, why ? why : "unknown error");
  exit(1);
}

int main(int argc, char **argv)
{
  double gib = argc > 1 ? atof(argv[1]) : 1.5;
  const char *end = argc > 2 ? argv[2] : "reset";
  if (!(gib > 0 && gib < 1024) || argc > 3 ||
      (strcmp(end, "reset") && strcmp(end, "held") && strcmp(end, "init") && strcmp(end, "none"))) {
    fprintf(stderr, "usage: cuda_context [GiB] [reset|held|init|none]\n");
    return 2;
  }
  if (!strcmp(end, "none")) {
    printf("no driver call\n");
    return 0;
  }
  size_t bytes = (size_t)(gib * 1073741824.0);
  double t0 = seconds();
  check(cuInit(0), "cuInit");
  double t1 = seconds();
  if (!strcmp(end, "init")) {
    printf("cuInit %.4f s\n", t1 - t0);
    return 0;
  }
  CUdevice dev;
  CUcontext ctx;
  CUdeviceptr small, big;
  check(cuDeviceGet(&dev, 0), "cuDeviceGet");
  check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  check(cuMemAlloc(&small, 16), "cuMemAlloc");
  double t2 = seconds();
  check(cuMemAlloc(&big, bytes), "cuMemAlloc");
  check(cuMemsetD8(big, 0, bytes), "cuMemsetD8");
  check(cuCtxSynchronize(), "cuCtxSynchronize");
  double t3 = seconds();
  check(cuMemFree(big), "cuMemFree");
  check(cuMemFree(small), "cuMemFree");
  double t4 = seconds();
  if (!strcmp(end, "held")) {
    printf("cuInit %.4f s  context %.4f s  %.1f GiB allocated and set %.4f s  freed %.4f s  "
           "(context held at exit)\n",
           t1 - t0, t2 - t1, gib, t3 - t2, t4 - t3);
    return 0;
  }
  check(cuDevicePrimaryCtxReset(dev), "cuDevicePrimaryCtxReset");
  double t5 = seconds();
  printf("cuInit %.4f s  context %.4f s  %.1f GiB allocated and set %.4f s  freed %.4f s  reset "
         "%.4f s\n",
         t1 - t0, t2 - t1, gib, t3 - t2, t4 - t3, t5 - t4);
  return 0;
}

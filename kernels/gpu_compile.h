/* Run-time compilation of the kernels with NVRTC for the device's own
 * architecture, with an on-disk cache. No MPI, no HDF5. */
#ifndef IPSO_GPU_COMPILE_H
#define IPSO_GPU_COMPILE_H

#include <cuda_runtime_api.h>
#include <stddef.h>

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

struct gpu_program {
  cudaLibrary_t library;
  double compile_seconds; /* 0 when the cache had it */
};

/* Compiles DEFINES (#define lines) + PRELUDE (NULL: none; e.g. the user
 * objective's wrapper) + the kernel source for compute capability
 * MAJOR.MINOR, or takes it from the cache, and loads it as a library. A
 * compile error in user code: IPSO_ERR_USAGE, NVRTC's log printed; any
 * other failure IPSO_ERR_RUNTIME. */
int gpu_compile(const char *defines, const char *prelude, int major, int minor, int user_code,
                struct gpu_program *out);

/* Compiles without a device or the cache: the cubin image (malloc'd). */
int gpu_compile_image(const char *defines, const char *prelude, int major, int minor, int user_code,
                      char **image, size_t *size);

#endif

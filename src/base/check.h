/* The one family of check macros (the nccl-tests habit). Each checks a call
 * of one library, reports a failure with the rank, the host, the call or
 * operation, the library's own message and the source position
 * (log_fail), and either returns IPSO_ERR_RUNTIME from the calling function
 * or, in the _GOTO form, jumps to a cleanup label. Only main() turns a
 * failure into MPI_Abort.
 *
 *   IPSO_TRY(call)                    an islandpso status (returns it as is)
 *   IPSO_TRY_GOTO(call, rc, label)    the same, kept in RC for the cleanup
 *   IPSO_CHECK_CUDA(call)             cudaError_t        (kernels/ only)
 *   IPSO_CHECK_NVRTC(call)            nvrtcResult        (kernels/ only)
 *
 * with their MPI and HDF5 siblings beside those layers' helpers
 * (IPSO_CHECK_MPI in mpi/island_mpi.h, IPSO_CHECK_H5 in io/hdf5/h5util.h).
 * The macros name library types and functions only when they are used, so
 * this header includes none of the libraries. */
#ifndef IPSO_CHECK_H
#define IPSO_CHECK_H

#include <errno.h>

#include "log.h"

/* Reports a runtime failure in COMPONENT and evaluates to IPSO_ERR_RUNTIME. */
#define IPSO_FAIL(component, ...)                                                                  \
  (log_fail(component, __FILE__, __LINE__, __VA_ARGS__), IPSO_ERR_RUNTIME)

/* Returns the status of CALL from the calling function if it is not IPSO_OK. */
#define IPSO_TRY(call)                                                                             \
  do {                                                                                             \
    int ipso_rc_ = (call);                                                                         \
    if (ipso_rc_ != IPSO_OK) return ipso_rc_;                                                      \
  } while (0)

#define IPSO_TRY_GOTO(call, rc, label)                                                             \
  do {                                                                                             \
    (rc) = (call);                                                                                 \
    if ((rc) != IPSO_OK) goto label;                                                               \
  } while (0)

/* The CUDA runtime: the call, CUDA's message and the error's name. */
#define IPSO_CUDA_FAILED(e, what)                                                                  \
  IPSO_FAIL("cuda", "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e))

#define IPSO_CHECK_CUDA(call)                                                                      \
  do {                                                                                             \
    cudaError_t ipso_cuda_rc_ = (call);                                                            \
    if (ipso_cuda_rc_ != cudaSuccess) return IPSO_CUDA_FAILED(ipso_cuda_rc_, #call);               \
  } while (0)

#define IPSO_CHECK_CUDA_GOTO(call, rc, label)                                                      \
  do {                                                                                             \
    cudaError_t ipso_cuda_rc_ = (call);                                                            \
    if (ipso_cuda_rc_ != cudaSuccess) {                                                            \
      (rc) = IPSO_CUDA_FAILED(ipso_cuda_rc_, #call);                                               \
      goto label;                                                                                  \
    }                                                                                              \
  } while (0)

/* NVRTC: the call and NVRTC's message (a compile log is printed by the caller). */
#define IPSO_CHECK_NVRTC(call)                                                                     \
  do {                                                                                             \
    nvrtcResult ipso_nvrtc_rc_ = (call);                                                           \
    if (ipso_nvrtc_rc_ != NVRTC_SUCCESS)                                                           \
      return IPSO_FAIL("nvrtc", "%s: %s", #call, nvrtcGetErrorString(ipso_nvrtc_rc_));             \
  } while (0)

#define IPSO_CHECK_NVRTC_GOTO(call, rc, label)                                                     \
  do {                                                                                             \
    nvrtcResult ipso_nvrtc_rc_ = (call);                                                           \
    if (ipso_nvrtc_rc_ != NVRTC_SUCCESS) {                                                         \
      (rc) = IPSO_FAIL("nvrtc", "%s: %s", #call, nvrtcGetErrorString(ipso_nvrtc_rc_));             \
      goto label;                                                                                  \
    }                                                                                              \
  } while (0)

#endif

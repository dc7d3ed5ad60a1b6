/* The check macros: each reports a failure (log_fail) and returns
 * IPSO_ERR_RUNTIME, or in the _GOTO form jumps to a cleanup label.
 * IPSO_CHECK_MPI and IPSO_CHECK_H5 live beside their layers. */
#ifndef IPSO_CHECK_H
#define IPSO_CHECK_H

#include "log.h"

/* Reports a runtime failure in COMPONENT and evaluates to IPSO_ERR_RUNTIME. */
#define IPSO_FAIL(component, ...)                                                                  \
  (log_fail(component, __FILE__, __LINE__, __VA_ARGS__), IPSO_ERR_RUNTIME)

/* Prints a problem with the user's input (log_user_error); evaluates to IPSO_ERR_USAGE. */
#define IPSO_USAGE(...) (log_user_error(__VA_ARGS__), (int)IPSO_ERR_USAGE)

/* Returns the status of CALL from the calling function if it is not IPSO_OK. */
#define IPSO_TRY(call)                                                                             \
  do {                                                                                             \
    int ipso_rc_ = (call);                                                                         \
    if (ipso_rc_ != IPSO_OK) return ipso_rc_;                                                      \
  } while (0)

/* A failed CUDA runtime call: the call, CUDA's message and the error's name. */
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

#endif

/* Common definitions of islandpso: version, status codes, limits. */
#ifndef IPSO_IPSO_H
#define IPSO_IPSO_H

#include <stdint.h>

#define IPSO_VERSION "0.1.0"

/* Status of every function that can fail, and the process's exit code. */
enum ipso_status {
  IPSO_OK = 0,                   /* finished */
  IPSO_ERR_RUNTIME = 1,          /* runtime failure: rank, component and cause printed */
  IPSO_ERR_USAGE = 2,            /* bad command line or config */
  IPSO_STOPPED = 3,              /* stopped early by a signal or time limit, checkpoint written */
  IPSO_STOPPED_NO_CHECKPOINT = 4 /* the same with checkpoints off: not requeued */
};

/* Limits checked by the config reader. */
#define IPSO_NAME_MAX 128
#define IPSO_PATH_MAX 4096
#define IPSO_MAX_DIMENSIONS 100000
/* The most dimensions an eigen frame (swarm.frame) takes: its D x D axes per island. */
#define IPSO_FRAME_MAX_DIMENSIONS 1000
/* The most particles an island of the mean topology takes (the GPU ranks them in shared memory). */
#define IPSO_MEAN_MAX_PARTICLES 4096
#define IPSO_MAX_PARTICLES (INT64_C(1) << 31)
#define IPSO_MAX_ELEMENTS (INT64_C(1) << 32) /* particles * dimensions per island */
#define IPSO_MAX_PARAMS 16
#define IPSO_MAX_CLAMPS 8 /* values of swarm.velocity_clamp */

#endif

/* A process alone on its node starts only its own GPU. cuInit starts every
 * GPU the process can see (~0.1-0.2 s each), so a single process on a
 * node of several GPUs would pay for all of them. Before MPI_Init, while
 * the process has one thread, where the launcher's environment says that
 * this rank is the only one on its node (or there is no launcher), its GPU
 * is chosen as the backend would (local rank modulo the GPUs) and
 * CUDA_VISIBLE_DEVICES is narrowed to it: to its entry of the list the
 * user set, or, where none is set, to the GPU's UUID from the NVIDIA
 * driver's list of the node's GPUs (/proc/driver/nvidia/gpus, in PCI
 * order, only where all are of one model and none is split by MIG).
 * Several ranks of one node keep every GPU visible: they open each other's
 * GPU memory for the migrants, which costs more for a GPU the process does
 * not see than it saves. IPSO_GPU_MASK=0 leaves the environment as it is;
 * IPSO_GPU_MASK=1 narrows it for ranks sharing a node too (a rank that
 * sees two GPUs computes ~2% slower per iteration on the one it uses:
 * BENCHMARKS.md). No CUDA, no MPI. */
#ifndef IPSO_GPU_VISIBLE_H
#define IPSO_GPU_VISIBLE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gpu_visible {
  int shown;       /* the chosen GPU's number among the node's (or the list's), -1: none chosen */
  int of;          /* how many there were to choose from */
  char value[128]; /* the value for CUDA_VISIBLE_DEVICES */
  char why[160];   /* where nothing was chosen, why (for --timings) */
};

/* Where the NVIDIA driver describes the node's GPUs. */
struct gpu_visible_paths {
  const char *gpus; /* one directory per GPU with its "information" file */
  const char *dev;  /* the device nodes, nvidia<minor> */
  const char *caps; /* gpu<minor>/mig/gi* where MIG instances exist */
};

/* The rank's local index and the ranks on its node from the launcher's
 * environment (Open MPI, MPICH/Hydra, MVAPICH, Cray PALS, Slurm's srun);
 * 0 and 1 for a process started alone; LOCAL_SIZE 0 where unknown.
 * Returns 0, or -1 where an MPI launcher is seen without a local index. */
int gpu_visible_local_rank(int *local_rank, int *local_size);
/* Slurm's tasks on node NODEID from a list such as "2(x3),1" (srun's
 * SLURM_STEP_TASKS_PER_NODE); 0 where it cannot be read. */
int gpu_visible_slurm_tasks(const char *spec, int nodeid);

/* Decides without changing anything: VISIBLE is CUDA_VISIBLE_DEVICES's value
 * (NULL: not set), PATHS where the driver's list is (NULL: the system's).
 * Returns 1 and fills OUT with one GPU where the process would see several,
 * else 0 (OUT->why says why). */
int gpu_visible_choose(const char *visible, const struct gpu_visible_paths *paths, int local_rank,
                       struct gpu_visible *out);

/* Applies the choice to this process where it is alone on its node (unless
 * IPSO_GPU_MASK=0; with IPSO_GPU_MASK=1 to every rank of the node). Call
 * before anything starts CUDA or a second thread. */
void gpu_visible_restrict(void);

/* The GPU's number on its node as chosen above (for the device's
 * description), or -1 where the process sees the GPUs as they were. */
int gpu_visible_shown(void);
/* What gpu_visible_restrict did, for --timings: "visible GPUs: VALUE (gpu
 * I of N)" or "visible GPUs: all (WHY)". */
const char *gpu_visible_describe(void);
/* The value it set CUDA_VISIBLE_DEVICES to ("" where it set none). */
const char *gpu_visible_value(void);

#ifdef __cplusplus
}
#endif

#endif

/* A process alone on its node starts only its own GPU (src/gpu_visible.h):
 * the GPU chosen for a local rank from a node's list as the NVIDIA driver
 * describes it (a made-up tree: information files, device nodes, MIG
 * instances), from the user's CUDA_VISIBLE_DEVICES, the cases left alone,
 * the launchers' local ranks and ranks per node (Slurm's task lists), and
 * what gpu_visible_restrict sets and where it sets nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu_visible.h"

#include "unit_check.h"

static char root[256];
static char gpus_dir[300], dev_dir[300], caps_dir[300];

static void write_file(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    exit(1);
  }
  fputs(text, f);
  fclose(f);
}

/* A GPU of the made-up node: its directory (named as the driver names it),
 * information file and device node. */
static void add_gpu(const char *bus, const char *model, const char *uuid, int minor,
                    const char *excluded)
{
  char path[512], text[512];
  snprintf(path, sizeof path, "%s/%s", gpus_dir, bus);
  mkdir(path, 0755);
  snprintf(text, sizeof text,
           "Model: \t\t %s\nIRQ:   \t\t 42\nGPU UUID: \t %s\nVideo BIOS: \t 96.00.99.00.01\n"
           "Bus Type: \t PCIe\nDMA Size: \t 52 bits\nBus Location: \t %s\nDevice Minor: \t %d\n"
           "GPU Excluded:\t %s\n",
           model, uuid, bus, minor, excluded);
  snprintf(path, sizeof path, "%s/%s/information", gpus_dir, bus);
  write_file(path, text);
  snprintf(path, sizeof path, "%s/nvidia%d", dev_dir, minor);
  write_file(path, "");
}

static void fresh_node(void)
{
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "rm -rf '%s/gpus' '%s/dev' '%s/caps'", root, root, root);
  if (system(cmd) != 0) exit(1);
  mkdir(gpus_dir, 0755);
  mkdir(dev_dir, 0755);
  mkdir(caps_dir, 0755);
}

static struct gpu_visible_paths paths(void)
{
  struct gpu_visible_paths p = {gpus_dir, dev_dir, caps_dir};
  return p;
}

/* The choice for LOCAL_RANK: WANT the value set (NULL: nothing chosen). */
static void expect(const char *what, const char *visible, int local_rank, const char *want,
                   int shown, int of, const char *why_part)
{
  struct gpu_visible_paths p = paths();
  struct gpu_visible v;
  int got = gpu_visible_choose(visible, &p, local_rank, &v);
  if (want) {
    CHECK(got == 1 && strcmp(v.value, want) == 0 && v.shown == shown && v.of == of,
          "%s: chose %d '%s' (gpu %d of %d), want '%s' (gpu %d of %d)", what, got, v.value, v.shown,
          v.of, want, shown, of);
  } else {
    CHECK(got == 0 && v.shown == -1 && strstr(v.why, why_part),
          "%s: chose %d '%s' (%s), want nothing because '%s'", what, got, v.value, v.why, why_part);
  }
}

static void test_node_list(void)
{
  fresh_node();
  /* Listed out of PCI order, as a directory may be read. */
  add_gpu("0000:C1:00.0", "NVIDIA H100 80GB HBM3", "GPU-cccc", 2, "No");
  add_gpu("0000:41:00.0", "NVIDIA H100 80GB HBM3", "GPU-aaaa", 0, "No");
  add_gpu("0000:81:00.0", "NVIDIA H100 80GB HBM3", "GPU-bbbb", 1, "No");
  expect("rank 0 of a 3-GPU node", NULL, 0, "GPU-aaaa", 0, 3, NULL);
  expect("rank 2", NULL, 2, "GPU-cccc", 2, 3, NULL);
  expect("rank 4 (two ranks on a GPU)", NULL, 4, "GPU-bbbb", 1, 3, NULL);

  /* A GPU whose device node this process does not have is not CUDA's. */
  char path[512];
  snprintf(path, sizeof path, "%s/nvidia1", dev_dir);
  unlink(path);
  expect("without /dev/nvidia1, rank 1", NULL, 1, "GPU-cccc", 1, 2, NULL);
  expect("without /dev/nvidia1, rank 2", NULL, 2, "GPU-aaaa", 0, 2, NULL);

  /* Excluded by the driver: not a GPU CUDA shows either. */
  add_gpu("0000:81:00.0", "NVIDIA H100 80GB HBM3", "GPU-bbbb", 1, "Yes");
  expect("an excluded GPU", NULL, 1, "GPU-cccc", 1, 2, NULL);

  /* One usable GPU left: nothing to narrow. */
  snprintf(path, sizeof path, "%s/nvidia2", dev_dir);
  unlink(path);
  expect("one usable GPU", NULL, 0, NULL, -1, 0, "one GPU");

  /* Models that differ: CUDA puts the fastest first, which only CUDA knows. */
  fresh_node();
  add_gpu("0000:41:00.0", "NVIDIA H100 80GB HBM3", "GPU-aaaa", 0, "No");
  add_gpu("0000:81:00.0", "NVIDIA RTX A2000", "GPU-bbbb", 1, "No");
  expect("two models", NULL, 0, NULL, -1, 0, "different models");

  /* A GPU with MIG instances: CUDA shows the instances. */
  fresh_node();
  add_gpu("0000:41:00.0", "NVIDIA H100 80GB HBM3", "GPU-aaaa", 0, "No");
  add_gpu("0000:81:00.0", "NVIDIA H100 80GB HBM3", "GPU-bbbb", 1, "No");
  snprintf(path, sizeof path, "%s/gpu1", caps_dir);
  mkdir(path, 0755);
  snprintf(path, sizeof path, "%s/gpu1/mig", caps_dir);
  mkdir(path, 0755);
  snprintf(path, sizeof path, "%s/gpu1/mig/config", caps_dir);
  write_file(path, "");
  expect("MIG capable, no instances", NULL, 1, "GPU-bbbb", 1, 2, NULL);
  snprintf(path, sizeof path, "%s/gpu1/mig/gi3", caps_dir);
  mkdir(path, 0755);
  expect("MIG instances", NULL, 1, NULL, -1, 0, "MIG instances on 0000:81:00.0");

  /* An information file the parser does not recognise. */
  fresh_node();
  add_gpu("0000:41:00.0", "NVIDIA H100 80GB HBM3", "GPU-aaaa", 0, "No");
  snprintf(path, sizeof path, "%s/0000:81:00.0", gpus_dir);
  mkdir(path, 0755);
  snprintf(path, sizeof path, "%s/0000:81:00.0/information", gpus_dir);
  write_file(path, "something else entirely\n");
  expect("an unreadable second GPU", NULL, 0, NULL, -1, 0, "one GPU");
}

static void test_user_list(void)
{
  fresh_node();
  add_gpu("0000:41:00.0", "NVIDIA H100 80GB HBM3", "GPU-aaaa", 0, "No");
  add_gpu("0000:81:00.0", "NVIDIA H100 80GB HBM3", "GPU-bbbb", 1, "No");
  add_gpu("0000:C1:00.0", "NVIDIA H100 80GB HBM3", "GPU-cccc", 2, "No");
  expect("the list 0,1,2, rank 4", "0,1,2", 4, "1", 1, 3, NULL);
  expect("the list in the user's order", "2,0", 0, "2", 0, 2, NULL);
  expect("UUIDs with spaces", " GPU-aaaa , GPU-cccc ", 1, "GPU-cccc", 1, 2, NULL);
  expect("one entry", "1", 3, NULL, -1, 0, "one GPU");
  expect("empty", "", 0, NULL, -1, 0, "none");
  expect("an index past the node's GPUs", "0,5", 0, NULL, -1, 0, "names GPU 5 of 3");
  expect("an empty entry", "0,,1", 0, NULL, -1, 0, "not a plain list");
  /* Without the driver's list the user's indices are taken as given. */
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "rm -rf '%s/gpus'", root);
  if (system(cmd) != 0) exit(1);
  expect("no driver list, the user's list", "0,5", 1, "5", 1, 2, NULL);
  expect("no driver list, nothing set", NULL, 0, NULL, -1, 0, "no ");
}

static void clear_launchers(void)
{
  const char *names[] = {"OMPI_COMM_WORLD_LOCAL_RANK",
                         "OMPI_COMM_WORLD_LOCAL_SIZE",
                         "MPI_LOCALRANKID",
                         "MPI_LOCALNRANKS",
                         "MV2_COMM_WORLD_LOCAL_RANK",
                         "MV2_COMM_WORLD_LOCAL_SIZE",
                         "PALS_LOCAL_RANKID",
                         "PALS_LOCAL_SIZE",
                         "SLURM_LOCALID",
                         "PMI_RANK",
                         "PMIX_RANK",
                         "PMI_SIZE",
                         "SLURM_NODEID",
                         "SLURM_STEP_TASKS_PER_NODE"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) unsetenv(names[i]);
}

static void test_slurm_tasks(void)
{
  const struct {
    const char *spec;
    int node, want;
  } cases[] = {{"4", 0, 4},          {"4", 1, 0},         {"2(x3),1", 0, 2}, {"2(x3),1", 2, 2},
               {"2(x3),1", 3, 1},    {"2(x3),1", 4, 0},   {"1,3(x2)", 2, 3}, {"", 0, 0},
               {"2(x", 0, 0},        {"2(x0)", 0, 0},     {"x", 0, 0},       {"2;1", 1, 0},
               {"16(x100)", 99, 16}, {"16(x100)", 100, 0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int got = gpu_visible_slurm_tasks(cases[i].spec, cases[i].node);
    CHECK(got == cases[i].want, "slurm tasks '%s' on node %d: %d, want %d", cases[i].spec,
          cases[i].node, got, cases[i].want);
  }
  CHECK(gpu_visible_slurm_tasks(NULL, 0) == 0, "no list");
}

static void test_local_rank(void)
{
  int r = -7, n = -7;
  clear_launchers();
  CHECK(gpu_visible_local_rank(&r, &n) == 0 && r == 0 && n == 1, "alone: %d of %d", r, n);
  setenv("SLURM_LOCALID", "2", 1);
  CHECK(gpu_visible_local_rank(&r, &n) == 0 && r == 2 && n == 0, "srun, no task list: %d of %d", r,
        n);
  setenv("SLURM_NODEID", "1", 1);
  setenv("SLURM_STEP_TASKS_PER_NODE", "4(x2)", 1);
  CHECK(gpu_visible_local_rank(&r, &n) == 0 && r == 2 && n == 4, "srun: %d of %d", r, n);
  /* mpirun inside a Slurm job: its own index, not the batch script's. */
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "3", 1);
  setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "8", 1);
  CHECK(gpu_visible_local_rank(&r, &n) == 0 && r == 3 && n == 8, "mpirun: %d of %d", r, n);
  clear_launchers();
  setenv("MPI_LOCALRANKID", "0", 1);
  setenv("MPI_LOCALNRANKS", "1", 1);
  CHECK(gpu_visible_local_rank(&r, &n) == 0 && r == 0 && n == 1, "hydra: %d of %d", r, n);
  clear_launchers();
  setenv("PMIX_RANK", "1", 1);
  CHECK(gpu_visible_local_rank(&r, &n) == -1, "an unknown launcher gave %d", r);
  clear_launchers();
}

/* gpu_visible_restrict with CUDA_VISIBLE_DEVICES=VISIBLE (NULL: unset):
 * WANT the variable afterwards, WHAT_DONE gpu_visible_describe(). */
static void restrict_case(const char *what, const char *visible, const char *want, int shown,
                          const char *what_done)
{
  if (visible)
    setenv("CUDA_VISIBLE_DEVICES", visible, 1);
  else
    unsetenv("CUDA_VISIBLE_DEVICES");
  gpu_visible_restrict();
  const char *now = getenv("CUDA_VISIBLE_DEVICES");
  CHECK(gpu_visible_shown() == shown && (want ? now && strcmp(now, want) == 0 : !now) &&
            strcmp(gpu_visible_describe(), what_done) == 0 &&
            strcmp(gpu_visible_value(), shown >= 0 ? want : "") == 0,
        "%s: shown %d, CUDA_VISIBLE_DEVICES=%s, '%s'; want %d, %s, '%s'", what, gpu_visible_shown(),
        now ? now : "(unset)", gpu_visible_describe(), shown, want ? want : "(unset)", what_done);
}

static void test_restrict(void)
{
  clear_launchers();
  /* Alone (no launcher): narrowed to the first of the list. */
  restrict_case("alone", "GPU-aaaa,GPU-bbbb", "GPU-aaaa", 0, "visible GPUs: GPU-aaaa (gpu 0 of 2)");
  setenv("IPSO_GPU_MASK", "0", 1);
  restrict_case("IPSO_GPU_MASK=0", "GPU-aaaa,GPU-bbbb", "GPU-aaaa,GPU-bbbb", -1,
                "visible GPUs: all (IPSO_GPU_MASK=0)");
  unsetenv("IPSO_GPU_MASK");
  /* The only rank on its node, from mpirun. */
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "0", 1);
  setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "1", 1);
  restrict_case("one rank per node", "GPU-aaaa,GPU-bbbb", "GPU-aaaa", 0,
                "visible GPUs: GPU-aaaa (gpu 0 of 2)");
  /* Several on the node: they reach each other's GPUs, all stay visible. */
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1);
  setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "2", 1);
  restrict_case("two ranks on the node", "GPU-aaaa,GPU-bbbb", "GPU-aaaa,GPU-bbbb", -1,
                "visible GPUs: all (2 ranks on the node)");
  /* IPSO_GPU_MASK=1: each rank of the node narrowed to its own GPU. */
  setenv("IPSO_GPU_MASK", "1", 1);
  restrict_case("two ranks, IPSO_GPU_MASK=1", "GPU-aaaa,GPU-bbbb", "GPU-bbbb", 1,
                "visible GPUs: GPU-bbbb (gpu 1 of 2)");
  unsetenv("IPSO_GPU_MASK");
  /* srun without the step's task list: how many share the node is unknown. */
  clear_launchers();
  setenv("SLURM_LOCALID", "0", 1);
  restrict_case("srun, ranks per node unknown", "GPU-aaaa,GPU-bbbb", "GPU-aaaa,GPU-bbbb", -1,
                "visible GPUs: all (the ranks on the node unknown)");
  setenv("SLURM_NODEID", "1", 1);
  setenv("SLURM_STEP_TASKS_PER_NODE", "4,1", 1);
  restrict_case("srun, alone on node 1", "GPU-aaaa,GPU-bbbb", "GPU-aaaa", 0,
                "visible GPUs: GPU-aaaa (gpu 0 of 2)");
  clear_launchers();
  unsetenv("CUDA_VISIBLE_DEVICES");
}

int main(void)
{
  /* The made-up driver tree's root: mkdtemp fills in the X's. */
  const char *tmp = getenv("TMPDIR");
  snprintf(root, sizeof root, "%s/ipso-gpu-visible.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(root)) {
    perror("mkdtemp");
    return 1;
  }
  snprintf(gpus_dir, sizeof gpus_dir, "%s/gpus", root);
  snprintf(dev_dir, sizeof dev_dir, "%s/dev", root);
  snprintf(caps_dir, sizeof caps_dir, "%s/caps", root);
  test_node_list();
  test_user_list();
  test_slurm_tasks();
  test_local_rank();
  test_restrict();
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  if (system(cmd) != 0) failures++;
  if (failures)
    printf("%d failure(s)\n", failures);
  else
    printf("gpu_visible: all checks passed\n");
  return failures ? 1 : 0;
}

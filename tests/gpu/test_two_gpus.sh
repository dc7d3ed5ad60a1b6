#!/bin/bash
# Islands on two GPUs: 64 islands, strict, migrating every 10 iterations
# (best to worst, the random policies on a bidirectional ring, and best to
# worst with migration.lead = 4: the messages posted 4 iterations before
# each migration), on 1
# rank (one GPU, the 64 islands in one backend) and on 2 ranks (32 islands
# each, on GPUs 0 and 1): identical outputs and final checkpoints; the
# checkpoint of the 2 ranks on 2 GPUs continues exactly on 1 rank and one
# GPU; the single process's driver sees only its GPU (with
# IPSO_GPU_MASK=0 both, to the same output), the two ranks' both (with
# IPSO_GPU_MASK=1 each its own, to the same output). Skipped
# (77) without the GPU backend or with fewer than 2 GPUs.
if ! "$IPSO_BIN" --version | grep -q "GPU backend: CUDA" ||
  ! { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; }; then
  echo "no GPU backend or no GPU: skipped"; exit 77
fi
if [ "$(nvidia-smi -L | grep -c '^GPU')" -lt 2 ]; then
  echo "fewer than 2 GPUs: skipped"; exit 77
fi
. "$IPSO_TEST_DIR/lib/common.sh"
"$IPSO_PYTHON" -c "import h5py" 2>/dev/null || { echo "skipped: $IPSO_PYTHON has no h5py"; exit 77; }
export IPSO_CACHE_DIR=${IPSO_CACHE_DIR:-$work/cache}
its=200
compare() { "$IPSO_PYTHON" "$IPSO_TEST_DIR/lib/h5compare.py" "$@"; }
same() {
  local what=$1; shift
  if compare "$@" >cmp.log 2>&1; then pass "$what"; else fail "$what"; head -20 cmp.log; fi
}
for policy in best random lead; do
  extra=()
  [ "$policy" = random ] && extra=('migration.select="random"' 'migration.policy="replace_random"'
    migration.probability=0.7 'migration.topology="bidirectional_ring"')
  [ "$policy" = lead ] && extra=(migration.lead=4)
  PREC=float ipso_config "$policy.toml" rastrigin 30 256 "$its" 'run.backend="gpu"' run.islands=64 \
    run.seed=7 'swarm.sync="strict"' "run.output=\"$policy.h5\"" \
    "output.checkpoint=\"$policy.ckpt.h5\"" output.checkpoint_interval=100 \
    output.history_interval=1 output.snapshot_interval=100 migration.interval=10 \
    migration.migrants=3 'run.watchdog="00:02:00"' "${extra[@]}"
  mkdir "one-$policy" "two-$policy" "cut-$policy"
  # One process, alone on the node: its driver sees only the first GPU.
  (cd "one-$policy" && "$IPSO_BIN" "../$policy.toml" --timings >log 2>&1) ||
    { fail "$policy: 1 rank exited $?"; tail -15 "one-$policy/log"; }
  (cd "two-$policy" && mpi 2 "../$policy.toml" --timings >log 2>&1) ||
    { fail "$policy: 2 ranks exited $?"; tail -15 "two-$policy/log"; }
  grep -q "island 0 (rank 0): gpu 0 " "two-$policy/log" && grep -q "island 32 (rank 1): gpu 1 " "two-$policy/log" &&
    pass "$policy: 2 ranks drive GPUs 0 and 1, 32 islands each" ||
    { fail "$policy: the ranks' GPUs"; grep -E "island (0|32) " "two-$policy/log"; }
  # A process alone on its node sees only its GPU (gpu_visible.h); ranks
  # sharing a node see all, and their GPUs exchange the migrants in each
  # other's memory.
  if [ -d /proc/driver/nvidia/gpus ]; then
    grep -q "visible GPUs: GPU-.* (gpu 0 of [0-9]*)" "one-$policy/log" &&
      pass "$policy: one process alone on the node: its driver sees only GPU 0" ||
      { fail "$policy: the single process's visible GPUs"; grep -E "visible" "one-$policy/log"; }
  fi
  grep -q "visible GPUs: all (2 ranks on the node)" "two-$policy/log" &&
    pass "$policy: 2 ranks on the node: every GPU visible to each" ||
    { fail "$policy: the 2 ranks' visible GPUs"; grep -E "visible" "two-$policy/log"; }
  grep -q "migrants (GPU memory)" "two-$policy/log" &&
    pass "$policy: the GPUs exchange the migrants in GPU memory" ||
    { fail "$policy: the mailbox"; grep -E "migrants|cannot reach" "two-$policy/log"; }
  same "$policy: 2 ranks x 32 islands on 2 GPUs: output identical to 1 rank x 64 on one GPU" \
    "one-$policy/$policy.h5" "two-$policy/$policy.h5"
  if [ "$policy" = best ]; then
    mkdir all-visible
    (cd all-visible && IPSO_GPU_MASK=0 "$IPSO_BIN" "../$policy.toml" --timings >log 2>&1) ||
      { fail "IPSO_GPU_MASK=0: 1 rank exited $?"; tail -15 all-visible/log; }
    grep -q "visible GPUs: all (IPSO_GPU_MASK=0)" all-visible/log &&
      pass "IPSO_GPU_MASK=0: every GPU visible to the single process" ||
      { fail "IPSO_GPU_MASK=0: the visible GPUs"; grep -E "visible" all-visible/log; }
    same "IPSO_GPU_MASK=0: output identical" "one-$policy/$policy.h5" "all-visible/$policy.h5"
  fi
  if [ "$policy" = lead ]; then
    # IPSO_GPU_MASK=1: each of the two ranks sees only its own GPU, and the
    # GPUs still exchange the migrants in each other's memory.
    mkdir own-gpu
    (cd own-gpu && IPSO_GPU_MASK=1 mpi 2 "../$policy.toml" --timings >log 2>&1) ||
      { fail "IPSO_GPU_MASK=1: 2 ranks exited $?"; tail -15 own-gpu/log; }
    grep -q "visible GPUs: GPU-.* (gpu 0 of [0-9]*)" own-gpu/log &&
      grep -q "migrants (GPU memory)" own-gpu/log &&
      pass "IPSO_GPU_MASK=1: rank 0 sees only its GPU; the mailbox in GPU memory" ||
      { fail "IPSO_GPU_MASK=1: visible GPUs or mailbox"; grep -E "visible|migrants" own-gpu/log; }
    same "IPSO_GPU_MASK=1: output identical to 1 rank x 64" "one-$policy/$policy.h5" "own-gpu/$policy.h5"
  fi
  same "$policy: final checkpoints identical" "one-$policy/$policy.ckpt.h5" "two-$policy/$policy.ckpt.h5"
  # Cut at iteration 100 on 2 ranks and 2 GPUs, continued on 1 rank and one GPU.
  (cd "cut-$policy" && mpi 2 "../$policy.toml" --set run.max_iterations=100 >log1 2>&1 &&
    CUDA_VISIBLE_DEVICES=0 "$IPSO_BIN" "../$policy.toml" --restart "$policy.ckpt.h5" >log2 2>&1) ||
    { fail "$policy: the cut run or its continuation exited non-zero"; tail -8 "cut-$policy"/log*; }
  same "$policy: checkpoint of 2 ranks on 2 GPUs continued on 1 rank: output identical to the uninterrupted run's" \
    "one-$policy/$policy.h5" "cut-$policy/$policy.h5"
done
finish

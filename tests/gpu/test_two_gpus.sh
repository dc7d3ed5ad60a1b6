#!/bin/bash
# Islands on two GPUs: 64 islands, strict, migrating every 10 iterations
# (best to worst, and the random policies on a bidirectional ring), on 1
# rank (one GPU, the 64 islands in one backend) and on 2 ranks (32 islands
# each, on GPUs 0 and 1): identical outputs and final checkpoints; the
# checkpoint of the 2 ranks on 2 GPUs continues exactly on 1 rank and one
# GPU. Skipped (77) without the GPU backend or with fewer than 2 GPUs.
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
for policy in best random; do
  extra=()
  [ "$policy" = random ] && extra=('migration.select="random"' 'migration.policy="replace_random"'
    migration.probability=0.7 'migration.topology="bidirectional_ring"')
  PREC=float ipso_config "$policy.toml" rastrigin 30 256 "$its" 'run.backend="gpu"' run.islands=64 \
    run.seed=7 'swarm.sync="strict"' "run.output=\"$policy.h5\"" \
    "output.checkpoint=\"$policy.ckpt.h5\"" output.checkpoint_interval=100 \
    output.history_interval=1 output.snapshot_interval=100 migration.interval=10 \
    migration.migrants=3 'run.watchdog="00:02:00"' "${extra[@]}"
  mkdir "one-$policy" "two-$policy" "cut-$policy"
  (cd "one-$policy" && "$IPSO_BIN" "../$policy.toml" >log 2>&1) ||
    { fail "$policy: 1 rank exited $?"; tail -15 "one-$policy/log"; }
  (cd "two-$policy" && mpi 2 "../$policy.toml" >log 2>&1) ||
    { fail "$policy: 2 ranks exited $?"; tail -15 "two-$policy/log"; }
  grep -q "island 0 (rank 0): gpu 0 " "two-$policy/log" && grep -q "island 32 (rank 1): gpu 1 " "two-$policy/log" &&
    pass "$policy: 2 ranks drive GPUs 0 and 1, 32 islands each" ||
    { fail "$policy: the ranks' GPUs"; grep -E "island (0|32) " "two-$policy/log"; }
  same "$policy: 2 ranks x 32 islands on 2 GPUs: output identical to 1 rank x 64 on one GPU" \
    "one-$policy/$policy.h5" "two-$policy/$policy.h5"
  same "$policy: final checkpoints identical" "one-$policy/$policy.ckpt.h5" "two-$policy/$policy.ckpt.h5"
  # Cut at iteration 100 on 2 ranks and 2 GPUs, continued on 1 rank and one GPU.
  (cd "cut-$policy" && mpi 2 "../$policy.toml" --set run.max_iterations=100 >log1 2>&1 &&
    CUDA_VISIBLE_DEVICES=0 "$IPSO_BIN" "../$policy.toml" --restart "$policy.ckpt.h5" >log2 2>&1) ||
    { fail "$policy: the cut run or its continuation exited non-zero"; tail -8 "cut-$policy"/log*; }
  same "$policy: checkpoint of 2 ranks on 2 GPUs continued on 1 rank: output identical to the uninterrupted run's" \
    "one-$policy/$policy.h5" "cut-$policy/$policy.h5"
done
finish

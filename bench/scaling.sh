#!/bin/bash
# Weak scaling of the island model on one node with several GPUs: the same
# island (configs/scaling.toml: 120-D cubic, 131,072 particles, 2,000
# iterations, migration every 100) on 1, 2, 4 (and 8) ranks, one GPU per
# rank; per-iteration time and efficiency relative to 1 rank. Then 8 ranks on
# all GPUs against 8 ranks sharing one GPU: strict results must be equal.
# Usage: bash bench/scaling.sh BUILD_DIR [RANKS...]
set -uo pipefail
bin=$(cd "${1:-build-gpu}" && pwd)/islandpso
shift || true
ranks=${*:-1 2 4}
src=$(pwd)
out=$(mkdir -p "${OUT:-out}" && cd "${OUT:-out}" && pwd)
run=$(mktemp -d)
cd "$run"
flags=(--bind-to none)
[ "$(id -u)" -ne 0 ] || flags+=(--allow-run-as-root)
ngpu=$(nvidia-smi -L | wc -l)
echo "scaling: $ngpu GPUs: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
printf "%6s %12s %14s %10s\n" ranks "time [s]" "per iteration" efficiency
t1=""
for n in $ranks; do
  log=$out/scaling-$n.log
  mpirun "${flags[@]}" --oversubscribe -np "$n" "$bin" "$src/configs/scaling.toml" \
    --set 'run.output=""' --set 'output.checkpoint=""' >"$log" 2>&1 || { echo "ranks $n failed"; tail -5 "$log"; continue; }
  t=$(sed -n 's/^ *time *\([0-9.]*\) s.*/\1/p' "$log")
  per=$(awk -v t="$t" 'BEGIN { printf "%.1f us", t / 2000 * 1e6 }')
  [ -n "$t1" ] || t1=$t
  printf "%6s %12s %14s %10s\n" "$n" "$t" "$per" "$(awk -v a="$t1" -v b="$t" 'BEGIN { printf "%.3f", a / b }')"
  grep -E "island [0-9]+:" "$log" | head -8
done
# The full card command on every GPU, writing the HDF5 file, and strictness
# across rank-to-GPU mappings: 8 ranks on all GPUs vs 8 ranks on GPU 0.
# (Each in its own directory with the same output name, so the files differ
# only if the results do.)
mkdir all one
(cd all && mpirun "${flags[@]}" --oversubscribe -np 8 "$bin" "$src/configs/islands_8.toml" \
  --set 'output.checkpoint=""' >"$out/islands8-all.log" 2>&1) && echo "8 ranks on $ngpu GPUs: exit 0"
(cd one && CUDA_VISIBLE_DEVICES=0 mpirun "${flags[@]}" -x CUDA_VISIBLE_DEVICES --oversubscribe -np 8 \
  "$bin" "$src/configs/islands_8.toml" --set 'output.checkpoint=""' >"$out/islands8-one.log" 2>&1) &&
  echo "8 ranks on 1 GPU: exit 0"
grep -E "island [0-9]:|best fitness|time " "$out/islands8-all.log" "$out/islands8-one.log"
h5dump -H all/islands_8.h5 >/dev/null && echo "h5dump reads the 8-rank file"
python3 "$src/tests/lib/h5compare.py" all/islands_8.h5 one/islands_8.h5 &&
  echo "8 ranks: all GPUs and one GPU give identical files"
rm -rf "$run"

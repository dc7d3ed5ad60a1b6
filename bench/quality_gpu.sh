#!/bin/bash
# Solution quality at GPU scale: for each objective, one islandpso process
# per seed on the GPU with a config (default configs/optimum_30d.toml) and
# a target error of 1e-6 (run.target_fitness = the known optimum + 1e-6,
# so a run stops when it gets there); the median of the final errors, of the
# in-run times (the summary's `time`) and how many seeds reached the target.
# Markdown on stdout.
#
#   bash bench/quality_gpu.sh [--bin DIR] [--config FILE] [--seeds N]
#        [--objectives "rastrigin rosenbrock ackley"] [--backend gpu|cpu] [--set k=v ...]
#
# DIR holds islandpso (default build-gpu).
set -uo pipefail
bindir=build-gpu
config=configs/optimum_30d.toml
seeds=11
objectives="rastrigin rosenbrock ackley"
backend=gpu
extra=()
while [ $# -gt 0 ]; do
  case $1 in
  --bin) bindir=$2; shift ;;
  --config) config=$2; shift ;;
  --seeds) seeds=$2; shift ;;
  --objectives) objectives=$2; shift ;;
  --backend) backend=$2; shift ;;
  --set) extra+=(--set "$2"); shift ;;
  *) echo "usage: bench/quality_gpu.sh [--bin DIR] [--config FILE] [--seeds N] [--objectives LIST] [--backend B] [--set k=v ...]" >&2; exit 2 ;;
  esac
  shift
done
bin=$(cd "$bindir" && pwd)/islandpso
cfg=$(cd "$(dirname "$config")" && pwd)/$(basename "$config")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
median() { sort -g | awk '{v[NR]=$1} END {if (NR % 2) print v[(NR+1)/2]; else printf "%.6g\n", (v[NR/2]+v[NR/2+1])/2}'; }

echo "config: $config ${extra[*]}"
echo
echo "| objective | median error | seeds with error < 1e-6 | median in-run time | in-run time range | error range |"
echo "|---|---:|---:|---:|---|---|"
for obj in $objectives; do
  : >errors
  : >times
  for seed in $(seq 1 "$seeds"); do
    # Every built-in objective of this bench has its optimum at 0.
    out=$("$bin" "$cfg" --backend "$backend" --set "objective.name=\"$obj\"" \
      --set "run.seed=$seed" --set run.target_fitness=1e-6 "${extra[@]}" 2>&1) ||
      { echo "islandpso failed on $obj, seed $seed: $(echo "$out" | tail -3)" >&2; exit 1; }
    echo "$out" | sed -n 's/.*(error \([0-9.e+-]*\)).*/\1/p' | head -1 >>errors
    echo "$out" | awk '/^ *time +[0-9.]+ s/ {print $2}' | tail -1 >>times
  done
  hits=$(awk '$1 < 1e-6 {n++} END {print n + 0}' errors)
  echo "| $obj | $(median <errors) | $hits / $seeds | $(median <times) s | $(sort -g times | head -1) - $(sort -g times | tail -1) s | $(sort -g errors | head -1) - $(sort -g errors | tail -1) |"
done

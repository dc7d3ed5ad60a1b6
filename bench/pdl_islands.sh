#!/bin/bash
# Programmatic dependent launch (PDL) against the size of the step's grid,
# for several islands on one GPU: 1 rank x N islands of 1,024 particles of
# 30-D Rastrigin in float (configs/rastrigin_30d_float.toml's swarm),
# strict, checkpoints and output off; the in-run time per iteration (the
# summary's `time` / iterations, median of --runs runs after a warm-up)
# with PDL (IPSO_GPU_PDL=1) and without it (IPSO_GPU_PDL=0), without
# migration and with a migration every 10 iterations, and which of the two
# the plan chooses (PDL only where the step's grid is more than one wave).
# Each island is 16 blocks of 256 threads (4 threads per particle), so N
# islands are 16 N blocks. On a machine of two GPUs or more, --visible adds the same
# runs of 32 islands on GPU 0 with the process's driver seeing GPU 0 only
# and seeing GPUs 0 and 1 (what each of two ranks on one node sees).
#
#   bash bench/pdl_islands.sh [--bin DIR] [--runs N] [--iterations N] [--visible]
#
# DIR holds islandpso (default build-gpu). Markdown on stdout.
set -uo pipefail
runs=5
bindir=build-gpu
iterations=20000
visible=0
while [ $# -gt 0 ]; do
  case $1 in
  --runs) runs=$2; shift ;;
  --bin) bindir=$2; shift ;;
  --iterations) iterations=$2; shift ;;
  --visible) visible=1 ;;
  *) echo "usage: bench/pdl_islands.sh [--bin DIR] [--runs N] [--iterations N] [--visible]" >&2; exit 2 ;;
  esac
  shift
done
src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/run_lib.sh
. "$src/bench/run_lib.sh"
bench_scratch "$bindir"
args=("$src/configs/rastrigin_30d_float.toml" --backend gpu --overwrite --set swarm.particles=1024
  --set 'output.checkpoint=""' --set 'run.output=""' --set run.max_iterations="$iterations")

# per_iteration ISLANDS INTERVAL: the median in-run time per iteration (us)
# under the caller's $launch.
per_iteration() {
  local r
  read -r _ r < <(run_medians "${args[@]}" --set run.islands="$1" --set migration.interval="$2")
  awk -v r="$r" -v n="$iterations" 'BEGIN {printf "%.2f", r / n * 1e6}'
}

# plan_of ISLANDS VISIBLE: "PDL" or "without", as the plan chooses (the
# device line of a one-iteration run).
plan_of() {
  env CUDA_VISIBLE_DEVICES="$2" IPSO_GPU_MASK=0 "$bin/islandpso" "${args[@]}" \
    --set run.islands="$1" --set run.max_iterations=1 >plan.log 2>&1
  if grep -q "one launch per iteration (PDL)" plan.log; then echo PDL; else echo without; fi
}

# row LABEL ISLANDS VISIBLE: a table row, PDL and not, each interval, and
# the plan's choice.
row() {
  local cells=() interval on off
  for interval in 0 10; do
    launch=(env CUDA_VISIBLE_DEVICES="$3" IPSO_GPU_MASK=0 IPSO_GPU_PDL=1)
    on=$(per_iteration "$2" "$interval")
    launch=(env CUDA_VISIBLE_DEVICES="$3" IPSO_GPU_MASK=0 IPSO_GPU_PDL=0)
    off=$(per_iteration "$2" "$interval")
    cells+=("$on us / $off us ($(awk -v a="$on" -v b="$off" 'BEGIN {printf "%+.1f%%", 100 * (a / b - 1)}'))")
  done
  printf "| %s | %s | %s | %s |\n" "$1" "${cells[0]}" "${cells[1]}" "$(plan_of "$2" "$3")"
}

echo "pdl_islands: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), $iterations iterations, medians of $runs"
echo
echo "| islands (blocks) | no migration: PDL / without (PDL's change) | every 10 iterations | the plan |"
echo "|---|---:|---:|---|"
for n in 16 32 64; do
  row "$n ($((16 * n)))" "$n" 0
done
if [ "$visible" = 1 ]; then
  echo
  echo "32 islands on GPU 0, the process seeing GPU 0 only and GPUs 0 and 1:"
  echo
  echo "| driver sees | no migration: PDL / without (PDL's change) | every 10 iterations | the plan |"
  echo "|---|---:|---:|---|"
  row "GPU 0" 32 0
  row "GPUs 0 and 1" 32 0,1
fi

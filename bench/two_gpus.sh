#!/bin/bash
# Two GPUs of one node against one: 1 rank x 32 islands on GPU 0, the same
# on GPU 1, and 2 ranks x 32 islands (one GPU each), 1,024 particles of
# 30-D Rastrigin in float per island (configs/rastrigin_30d_float.toml's
# swarm), no output file and no checkpoints; the in-run time per iteration
# (the summary's `time` / iterations, median of --runs runs) with migration
# off, every 100 and every 10 iterations, and the 2 x 32 run against 1 x 32
# on GPU 0 and on the slower of the two. Markdown on stdout; exit 77 with
# fewer than two GPUs.
#
#   bash bench/two_gpus.sh [--runs N] [--bin DIR] [--iterations N]
set -uo pipefail
runs=5 bindir=build-gpu iterations=2000
while [ $# -gt 0 ]; do
  case $1 in
  --runs) runs=$2; shift ;;
  --bin) bindir=$2; shift ;;
  --iterations) iterations=$2; shift ;;
  *) echo "usage: bench/two_gpus.sh [--runs N] [--bin DIR] [--iterations N]" >&2; exit 2 ;;
  esac
  shift
done
src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/run_lib.sh
. "$src/bench/run_lib.sh"
bench_scratch "$bindir"
ngpu=$(nvidia-smi -L | wc -l)
[ "$ngpu" -ge 2 ] || { echo "two_gpus: $ngpu GPU(s) visible; two are needed" >&2; exit 77; }
echo "two_gpus: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x$ngpu, $iterations iterations, medians of $runs"
echo
mpi=(mpirun --bind-to none --oversubscribe)
[ "$(id -u)" -ne 0 ] || mpi+=(--allow-run-as-root)
us() { awk -v r="$1" -v n="$iterations" 'BEGIN {printf "%.2f us", r / n * 1e6}'; }
# inrun_of ISLANDS LAUNCHER...: the median in-run time of ISLANDS islands.
inrun_of() {
  local n=$1
  shift
  launch=("$@")
  run_medians "${args[@]}" --set run.islands="$n" | awk '{print $2}'
}
echo "| migration | 1 x 32 (GPU 0) | 1 x 32 (GPU 1) | 2 x 32 | 2 x 32 / 1 x 32 (GPU 0) | / the slower GPU |"
echo "|---|---:|---:|---:|---:|---:|"
for interval in 0 100 10; do
  args=("$src/configs/rastrigin_30d_float.toml" --backend gpu --overwrite --set swarm.particles=1024
    --set 'output.checkpoint=""' --set 'run.output=""' --set run.max_iterations="$iterations"
    --set migration.interval="$interval")
  r0=$(inrun_of 32 env CUDA_VISIBLE_DEVICES=0)
  r1=$(inrun_of 32 env CUDA_VISIBLE_DEVICES=1)
  r2=$(inrun_of 64 "${mpi[@]}" -np 2)
  printf "| %s | %s | %s | %s | %s | %s |\n" "$([ "$interval" = 0 ] && echo off || echo "every $interval")" \
    "$(us "$r0")" "$(us "$r1")" "$(us "$r2")" "$(awk -v a="$r2" -v b="$r0" 'BEGIN {printf "%.3f", a / b}')" \
    "$(awk -v a="$r2" -v b="$r0" -v c="$r1" 'BEGIN {printf "%.3f", a / (b > c ? b : c)}')"
done
